/* Two- and three-limb field multiplications written with `unsigned __int128`
 * accumulators, as small C libraries write them: modulo 2^127 - 1 (two 64-bit limbs)
 * and modulo 2^130 - 5 (poly1305-donna-64's three limbs of 44, 44 and 42 bits). The
 * 128-bit sums and C's carry test `lo < t0` are what the front end turns into one
 * add-with-carry chain. cryptopt's tests run the functions it builds from this
 * against the same C compiled natively. */
#include <stdint.h>

typedef unsigned __int128 u128;

/* out = a·b reduced modulo 2^127 - 1 to two limbs (not canonical). */
void mul127(uint64_t out[2], const uint64_t a[2], const uint64_t b[2]) {
    u128 t0 = (u128)a[0] * b[0];
    u128 t1 = (u128)a[0] * b[1] + (u128)a[1] * b[0];
    u128 t2 = (u128)a[1] * b[1];
    /* a·b = lo + hi·2^128, and 2^128 ≡ 2. */
    u128 lo = t0 + (t1 << 64);
    u128 carry = lo < t0;
    u128 hi = (t1 >> 64) + t2 + carry;
    const u128 m127 = ((u128)1 << 127) - 1;
    u128 r0 = (lo & m127) + (lo >> 127) + (hi << 1);
    u128 r = (r0 & m127) + (r0 >> 127);
    out[0] = (uint64_t)r;
    out[1] = (uint64_t)(r >> 64);
}

/* h·r modulo 2^130 - 5 in poly1305-donna-64's limbs (h limbs below 2^46 and r's
 * clamped to 44, 44 and 42 bits by masks here), partly reduced as donna leaves it. */
void mul1305(uint64_t out[3], const uint64_t h[3], const uint64_t r[3]) {
    const uint64_t m46 = ((uint64_t)1 << 46) - 1;
    const uint64_t m44 = ((uint64_t)1 << 44) - 1, m42 = ((uint64_t)1 << 42) - 1;
    uint64_t h0 = h[0] & m46, h1 = h[1] & m46, h2 = h[2] & m46;
    uint64_t r0 = r[0] & m44, r1 = r[1] & m44, r2 = r[2] & m42;
    uint64_t s1 = r1 * (5 << 2), s2 = r2 * (5 << 2);
    u128 d0 = (u128)h0 * r0 + (u128)h1 * s2 + (u128)h2 * s1;
    u128 d1 = (u128)h0 * r1 + (u128)h1 * r0 + (u128)h2 * s2;
    u128 d2 = (u128)h0 * r2 + (u128)h1 * r1 + (u128)h2 * r0;
    uint64_t c = (uint64_t)(d0 >> 44);
    h0 = (uint64_t)d0 & m44;
    d1 += c;
    c = (uint64_t)(d1 >> 44);
    h1 = (uint64_t)d1 & m44;
    d2 += c;
    c = (uint64_t)(d2 >> 42);
    h2 = (uint64_t)d2 & m42;
    h0 += c * 5;
    c = h0 >> 44;
    h0 &= m44;
    h1 += c;
    out[0] = h0;
    out[1] = h1;
    out[2] = h2;
}
