/* Coverage of the LLVM subset beyond the field code: overflow builtins (clang emits
 * llvm.uadd/usub/umul.with.overflow), rotates and funnel shifts (llvm.fshl/fshr),
 * minimum (llvm.umin), signed compares with selects, arithmetic shifts, sign
 * extension to 128 bits, and `%` by 2^127 - 1 on unsigned __int128. cryptopt's tests
 * run the function it builds from this against the same C compiled natively. */
#include <stdint.h>

typedef unsigned __int128 u128;

void ops(uint64_t *out, const uint64_t *a, const uint64_t *b) {
  uint64_t s, d, m;
  unsigned c1 = __builtin_add_overflow(a[0], b[0], &s);
  unsigned c2 = __builtin_sub_overflow(a[1], b[1], &d);
  unsigned c3 = __builtin_mul_overflow(a[2], b[2], &m);
  uint64_t rot = (a[3] << 13) | (a[3] >> 51);
  uint64_t fun = (a[0] << 7) | (b[3] >> 57);
  uint64_t fr = (b[0] >> 9) | (a[1] << 55);
  int64_t sa = (int64_t)a[1], sb = (int64_t)b[1];
  uint64_t mn = a[2] < b[2] ? a[2] : b[2];
  uint64_t sel = sa < sb ? a[3] : b[3];
  uint64_t sh = (uint64_t)(sa >> 17);
  u128 w = (u128)a[0] * b[0] + ((u128)a[1] << 64);
  u128 sx = (u128)(__int128)(int64_t)b[2];
  u128 p = ((u128)1 << 127) - 1;
  u128 r = ((u128)a[3] << 64 | b[3]) % p;
  out[0] = s + c1;
  out[1] = d ^ c2;
  out[2] = m + c3;
  out[3] = rot ^ fun ^ fr;
  out[4] = mn + sel;
  out[5] = sh;
  out[6] = (uint64_t)(w >> 64) ^ (uint64_t)(sx >> 3);
  out[7] = (uint64_t)r;
  out[8] = (uint64_t)(r >> 64);
}
