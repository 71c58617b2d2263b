/* secp256k1 field multiplication and squaring on 5x52-bit limbs with 128-bit
 * accumulators, in the style of libsecp256k1's field_5x52_int128_impl.h (written
 * from that library's public description: limbs of 52 bits (48 in the top one), the
 * reduction 2^256 = 0x1000003D1 (mod p) folded in as R = 0x1000003D10 = 0x1000003D1 << 4,
 * inputs of magnitude up to 8 (limbs below 2^56, the top one below 2^52), outputs
 * normalized to magnitude 1 (limbs below 2^52, the top one below 2^49)).
 *
 * The input magnitude rule is stated as an assumption (ASSUME below: the library's
 * VERIFY_BITS checks as a precondition): clang prints it as `llvm.assume`, which
 * cryptopt reads as the inputs' declared bounds (proved for every input within them),
 * and gcc and clang may use it too when they compile this file.
 *
 * cryptopt reads this through clang:  clang-19 -O2 -S -emit-llvm secp256k1_5x52.c
 * and optimizes each function:        cryptopt optimize secp256k1_5x52.ll --function secp256k1_fe_mul_inner
 */
#include <stdint.h>

typedef unsigned __int128 uint128_t;

#if defined(__clang__)
#define ASSUME(cond) __builtin_assume(cond)
#else
#define ASSUME(cond) do { if (!(cond)) __builtin_unreachable(); } while (0)
#endif
/* Limbs 0..3 below 2^56, limb 4 below 2^52: magnitude up to 8. */
#define ASSUME_MAGNITUDE_8(x0, x1, x2, x3, x4) do { \
    ASSUME((x0) >> 56 == 0); ASSUME((x1) >> 56 == 0); ASSUME((x2) >> 56 == 0); \
    ASSUME((x3) >> 56 == 0); ASSUME((x4) >> 52 == 0); } while (0)

void secp256k1_fe_mul_inner(uint64_t *r, const uint64_t *a, const uint64_t *b) {
    uint128_t c, d;
    uint64_t t3, t4, tx, u0;
    uint64_t a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3], a4 = a[4];
    const uint64_t M = 0xFFFFFFFFFFFFFULL, R = 0x1000003D10ULL;
    ASSUME_MAGNITUDE_8(a0, a1, a2, a3, a4);
    ASSUME_MAGNITUDE_8(b[0], b[1], b[2], b[3], b[4]);

    d  = (uint128_t)a0 * b[3] + (uint128_t)a1 * b[2] + (uint128_t)a2 * b[1] + (uint128_t)a3 * b[0];
    c  = (uint128_t)a4 * b[4];
    d += (uint128_t)R * (uint64_t)c; c >>= 64;
    t3 = d & M; d >>= 52;
    d += (uint128_t)a0 * b[4] + (uint128_t)a1 * b[3] + (uint128_t)a2 * b[2] + (uint128_t)a3 * b[1] + (uint128_t)a4 * b[0];
    d += (uint128_t)(R << 12) * (uint64_t)c;
    t4 = d & M; d >>= 52;
    tx = (t4 >> 48); t4 &= (M >> 4);
    c  = (uint128_t)a0 * b[0];
    d += (uint128_t)a1 * b[4] + (uint128_t)a2 * b[3] + (uint128_t)a3 * b[2] + (uint128_t)a4 * b[1];
    u0 = d & M; d >>= 52;
    u0 = (u0 << 4) | tx;
    c += (uint128_t)u0 * (R >> 4);
    r[0] = c & M; c >>= 52;
    c += (uint128_t)a0 * b[1] + (uint128_t)a1 * b[0];
    d += (uint128_t)a2 * b[4] + (uint128_t)a3 * b[3] + (uint128_t)a4 * b[2];
    c += (uint128_t)(d & M) * R; d >>= 52;
    r[1] = c & M; c >>= 52;
    c += (uint128_t)a0 * b[2] + (uint128_t)a1 * b[1] + (uint128_t)a2 * b[0];
    d += (uint128_t)a3 * b[4] + (uint128_t)a4 * b[3];
    c += (uint128_t)R * (uint64_t)d; d >>= 64;
    r[2] = c & M; c >>= 52;
    c += (uint128_t)(R << 12) * (uint64_t)d + t3;
    r[3] = c & M; c >>= 52;
    c += t4;
    r[4] = c;
}

void secp256k1_fe_sqr_inner(uint64_t *r, const uint64_t *a) {
    uint128_t c, d;
    uint64_t a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3], a4 = a[4];
    uint64_t t3, t4, tx, u0;
    const uint64_t M = 0xFFFFFFFFFFFFFULL, R = 0x1000003D10ULL;
    ASSUME_MAGNITUDE_8(a0, a1, a2, a3, a4);

    d  = (uint128_t)(a0*2) * a3 + (uint128_t)(a1*2) * a2;
    c  = (uint128_t)a4 * a4;
    d += (uint128_t)R * (uint64_t)c; c >>= 64;
    t3 = d & M; d >>= 52;
    a4 *= 2;
    d += (uint128_t)a0 * a4 + (uint128_t)(a1*2) * a3 + (uint128_t)a2 * a2;
    d += (uint128_t)(R << 12) * (uint64_t)c;
    t4 = d & M; d >>= 52;
    tx = (t4 >> 48); t4 &= (M >> 4);
    c  = (uint128_t)a0 * a0;
    d += (uint128_t)a1 * a4 + (uint128_t)(a2*2) * a3;
    u0 = d & M; d >>= 52;
    u0 = (u0 << 4) | tx;
    c += (uint128_t)u0 * (R >> 4);
    r[0] = c & M; c >>= 52;
    a0 *= 2;
    c += (uint128_t)a0 * a1;
    d += (uint128_t)a2 * a4 + (uint128_t)a3 * a3;
    c += (uint128_t)(d & M) * R; d >>= 52;
    r[1] = c & M; c >>= 52;
    c += (uint128_t)a0 * a2 + (uint128_t)a1 * a1;
    d += (uint128_t)a3 * a4;
    c += (uint128_t)R * (uint64_t)d; d >>= 64;
    r[2] = c & M; c >>= 52;
    c += (uint128_t)(R << 12) * (uint64_t)d + t3;
    r[3] = c & M; c >>= 52;
    c += t4;
    r[4] = c;
}
