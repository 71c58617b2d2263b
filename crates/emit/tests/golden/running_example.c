#include <stdint.h>
#ifndef CRYPTOPT_FIAT_TYPEDEFS
#define CRYPTOPT_FIAT_TYPEDEFS
typedef unsigned char fiat_uint1;
typedef signed char fiat_int1;
#if defined(__GNUC__) || defined(__clang__)
#  define CRYPTOPT_FIAT_EXTENSION __extension__
#else
#  define CRYPTOPT_FIAT_EXTENSION
#endif
CRYPTOPT_FIAT_EXTENSION typedef unsigned __int128 fiat_uint128;
CRYPTOPT_FIAT_EXTENSION typedef signed __int128 fiat_int128;
#endif

/* example_running (cryptopt C baseline) */
void example_running(uint64_t out1[2], uint64_t arg1, uint64_t arg2, uint64_t arg3) {
  uint64_t arg2_v = arg2;
  uint64_t v1 = arg2_v;
  uint64_t arg3_v = arg3;
  uint64_t v3 = arg3_v;
  fiat_uint128 x1_sum = ((((fiat_uint128)UINT64_C(0x0)) + (fiat_uint128)v1) + (fiat_uint128)v3);
  uint64_t x1 = (uint64_t)x1_sum;
  fiat_uint1 v5 = (fiat_uint1)(x1_sum >> 64);
  uint64_t arg1_v = arg1;
  uint64_t v7 = arg1_v;
  uint64_t v8 = x1;
  fiat_uint128 x2_prod = ((fiat_uint128)v7 * (fiat_uint128)v8);
  uint64_t x2 = (uint64_t)x2_prod;
  uint64_t x3 = (uint64_t)(x2_prod >> 64);
  uint64_t v11 = arg3_v;
  uint64_t v12 = arg3_v;
  fiat_uint128 x4_prod = ((fiat_uint128)v11 * (fiat_uint128)v12);
  uint64_t x4 = (uint64_t)x4_prod;
  uint64_t x5 = (uint64_t)(x4_prod >> 64);
  uint64_t v15 = x2;
  uint64_t v16 = x4;
  fiat_uint128 x6_sum = ((((fiat_uint128)UINT64_C(0x0)) + (fiat_uint128)v15) + (fiat_uint128)v16);
  uint64_t x6 = (uint64_t)x6_sum;
  fiat_uint1 x7 = (fiat_uint1)(x6_sum >> 64);
  fiat_uint1 v19 = x7;
  uint64_t v20 = x3;
  uint64_t v21 = x5;
  fiat_uint128 x8_sum = (((fiat_uint128)v19 + (fiat_uint128)v20) + (fiat_uint128)v21);
  uint64_t x8 = (uint64_t)x8_sum;
  fiat_uint1 v23 = (fiat_uint1)(x8_sum >> 64);
  uint64_t v24 = x6;
  uint64_t v25 = arg2_v;
  fiat_uint128 x9_sum = ((((fiat_uint128)UINT64_C(0x0)) + (fiat_uint128)v24) + (fiat_uint128)v25);
  uint64_t x9 = (uint64_t)x9_sum;
  fiat_uint1 x10 = (fiat_uint1)(x9_sum >> 64);
  fiat_uint1 v28 = x10;
  uint64_t v29 = x8;
  uint64_t v30 = UINT64_C(0x0);
  fiat_uint128 x11_sum = (((fiat_uint128)v28 + (fiat_uint128)v29) + (fiat_uint128)v30);
  uint64_t x11 = (uint64_t)x11_sum;
  fiat_uint1 v32 = (fiat_uint1)(x11_sum >> 64);
  uint64_t v33 = x9;
  out1[0] = v33;
  uint64_t v34 = x11;
  out1[1] = v34;
}
