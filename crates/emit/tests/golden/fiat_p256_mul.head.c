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

/* fiat_p256_mul (cryptopt C baseline) */
void fiat_p256_mul(uint64_t out1[4], const uint64_t arg1[4], const uint64_t arg2[4]) {
  uint64_t arg1_1 = arg1[1];
  uint64_t x1 = arg1_1;
  uint64_t arg1_2 = arg1[2];
  uint64_t x2 = arg1_2;
  uint64_t arg1_3 = arg1[3];
  uint64_t x3 = arg1_3;
  uint64_t arg1_0 = arg1[0];
  uint64_t x4 = arg1_0;
  uint64_t v8 = x4;
  uint64_t arg2_3 = arg2[3];
  uint64_t v10 = arg2_3;
  fiat_uint128 x5_prod = ((fiat_uint128)v8 * (fiat_uint128)v10);
  uint64_t x5 = (uint64_t)x5_prod;
  uint64_t x6 = (uint64_t)(x5_prod >> 64);
  uint64_t v13 = x4;
  uint64_t arg2_2 = arg2[2];
  uint64_t v15 = arg2_2;
  fiat_uint128 x7_prod = ((fiat_uint128)v13 * (fiat_uint128)v15);
  uint64_t x7 = (uint64_t)x7_prod;
  uint64_t x8 = (uint64_t)(x7_prod >> 64);
  uint64_t v18 = x4;
  uint64_t arg2_1 = arg2[1];
  uint64_t v20 = arg2_1;
  fiat_uint128 x9_prod = ((fiat_uint128)v18 * (fiat_uint128)v20);
