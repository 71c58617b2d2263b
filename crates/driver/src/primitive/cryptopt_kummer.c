/* cryptopt_kummer: Diffie-Hellman on the squared Kummer surface of Gaudry and Schost,
 * (a^2 : b^2 : c^2 : d^2) = (11 : -22 : -19 : -3) over p = 2^127 - 1, as in "Kummer
 * strikes back" (Bernstein, Chuengsatiansup, Lange, Schwabe): a ladder of 251 steps,
 * each one call of cryptopt_kummer_ladderstep (the paper's Fig. 2.4(b) with the swap
 * folded in, generated, optimized and proved by cryptopt), and field multiplication and
 * squaring for the rest (cryptopt_kummer_mul, _square), all over the saturated
 * representation: two 64-bit words holding any value below 2^128 congruent to the
 * element (2^128 = 2 mod p).
 *
 * Points are (x : y : z : t); the encoding is (x/y, x/z, x/t) ("inverted-affine"), three
 * canonical 16-byte little-endian field elements. Decoding (u, v, w) gives the point
 * (uvw : vw : uw : uv); it is a point of the surface when u, v, w are canonical and
 * nonzero and the surface's equation holds:
 *   (x^2 + y^2 + z^2 + t^2 - F(xt + yz) - G(xz + yt) - H(xy + zt))^2 = 4E^2 xyzt,
 * F = 65/41, G = 1/25, H = -235/299 and 4E^2 below (Gaudry's fast Kummer surface with
 * its coordinates squared; computed from the theta constants, checked by cryptopt's
 * tests against the paper's base point). Every point of the surface is accepted: the
 * curve is twist-secure (the paper's section 2.6).
 *
 * Scalars: the low 251 bits of the 32 bytes (little-endian), as the paper's 251-step
 * ladder; bits 251 to 255 are ignored (the base point's order l is below 2^251), as
 * X25519 ignores bit 255.
 *
 * Constant time: the ladder runs 251 steps whatever the scalar; the scalar's bits only
 * reach the ladder step's swap bit (masking inside the proved step); the inversion is a
 * fixed addition chain; reductions are masks. The public key's validity is public, so
 * the decoding may branch on it. Checked with valgrind (the secret scalar marked
 * undefined) by cryptopt's tests. */
#include <stdint.h>
#include <string.h>

#include "cryptopt_kummer.h"

typedef unsigned char fiat_uint1;
typedef unsigned __int128 u128;

void cryptopt_kummer_ladderstep(uint64_t out1[8], uint64_t out2[8], const uint64_t arg1[8],
                                const uint64_t arg2[8], const uint64_t arg3[6],
                                fiat_uint1 arg4);
void cryptopt_kummer_mul(uint64_t out1[2], const uint64_t arg1[2], const uint64_t arg2[2]);
void cryptopt_kummer_square(uint64_t out1[2], const uint64_t arg1[2]);

typedef uint64_t fe[2];

#define P_LO 0xffffffffffffffffULL
#define P_HI 0x7fffffffffffffffULL

static u128 get(const fe a) { return ((u128)a[1] << 64) | a[0]; }
static void put(fe a, u128 v) { a[0] = (uint64_t)v; a[1] = (uint64_t)(v >> 64); }

/* The canonical representative (< p) of any value below 2^128: fold bit 127 back in
 * (2^127 = 1 mod p), then subtract p if that does not borrow (masks). */
static void freeze(fe a) {
    const u128 p = ((u128)P_HI << 64) | P_LO;
    u128 v = get(a);
    v = (v & p) + (v >> 127); /* <= p + 1 */
    u128 d = v - p;
    uint64_t keep = 0 - (uint64_t)(d >> 127); /* all ones: v < p, keep v */
    u128 m = ((u128)keep << 64) | keep;
    put(a, (v & m) | (d & ~m));
}

static void add(fe r, const fe a, const fe b) { /* a, b canonical */
    put(r, get(a) + get(b));
    freeze(r);
}

static void sub(fe r, const fe a, const fe b) { /* a, b canonical */
    const u128 p = ((u128)P_HI << 64) | P_LO;
    put(r, get(a) + p - get(b));
    freeze(r);
}

static void mul(fe r, const fe a, const fe b) {
    cryptopt_kummer_mul(r, a, b);
    freeze(r);
}

static void square_n(fe out, const fe z, int n) {
    cryptopt_kummer_square(out, z);
    for (int i = 1; i < n; i++) cryptopt_kummer_square(out, out);
}

/* z^(p - 2) = z^(2^127 - 3): 126 squarings and 11 multiplications. */
static void invert(fe out, const fe z) {
    fe e2, e4, e8, e16, e32, e64, t;
    cryptopt_kummer_square(t, z);
    cryptopt_kummer_mul(e2, t, z);    /* 2^2 - 1 */
    square_n(t, e2, 2);
    cryptopt_kummer_mul(e4, t, e2);   /* 2^4 - 1 */
    square_n(t, e4, 4);
    cryptopt_kummer_mul(e8, t, e4);   /* 2^8 - 1 */
    square_n(t, e8, 8);
    cryptopt_kummer_mul(e16, t, e8);  /* 2^16 - 1 */
    square_n(t, e16, 16);
    cryptopt_kummer_mul(e32, t, e16); /* 2^32 - 1 */
    square_n(t, e32, 32);
    cryptopt_kummer_mul(e64, t, e32); /* 2^64 - 1 */
    square_n(t, e64, 32);
    cryptopt_kummer_mul(t, t, e32);   /* 2^96 - 1 */
    square_n(t, t, 16);
    cryptopt_kummer_mul(t, t, e16);   /* 2^112 - 1 */
    square_n(t, t, 8);
    cryptopt_kummer_mul(t, t, e8);    /* 2^120 - 1 */
    square_n(t, t, 4);
    cryptopt_kummer_mul(t, t, e4);    /* 2^124 - 1 */
    square_n(t, t, 1);
    cryptopt_kummer_mul(t, t, z);     /* 2^125 - 1 */
    square_n(t, t, 2);
    cryptopt_kummer_mul(out, t, z);   /* 2^127 - 3 */
    freeze(out);
}

static void load(fe a, const uint8_t b[16]) {
    for (int i = 0; i < 2; i++) {
        uint64_t w = 0;
        for (int j = 7; j >= 0; j--) w = (w << 8) | b[8 * i + j];
        a[i] = w;
    }
}

static void store(uint8_t b[16], const fe a) {
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 8; j++) b[8 * i + j] = (uint8_t)(a[i] >> (8 * j));
}

/* The surface's constants (mod p): F, G, H and 4E^2. */
static const fe SURFACE_F = {0xd44aed44aed44aeeULL, 0x6d44aed44aed44aeULL};   /* 65/41 */
static const fe SURFACE_G = {0xd70a3d70a3d70a3dULL, 0x3d70a3d70a3d70a3ULL};   /* 1/25 */
static const fe SURFACE_H = {0x1b65e2e3beee0522ULL, 0x28ab3cca0f694fa0ULL};   /* -235/299 */
static const fe SURFACE_4E2 = {0xe063c090f877e561ULL, 0x1c0f8de418b6e710ULL};

/* The identity (a^2 : b^2 : c^2 : d^2) = (11 : -22 : -19 : -3), and the base point of the
 * paper's appendix D: (x/y, x/z, x/t) = (6, 142514137003289508520683013813888233576, 1). */
static const fe IDENTITY[4] = {{11, 0},
                               {P_LO - 22, P_HI},
                               {P_LO - 19, P_HI},
                               {P_LO - 3, P_HI}};
static const uint8_t BASE[48] = {
    6,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
    0x68, 0x30, 0x1e, 0x6b, 0x4d, 0xaf, 0xc7, 0x56, 0x9d, 0x1f, 0xa7, 0xf8, 0x71, 0x39, 0x37, 0x6b,
    1,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0};

static int is_zero(const fe a) { return (a[0] | a[1]) == 0; }

/* (u, v, w) to the point (uvw : vw : uw : uv); 0 when it is one of the surface, -1 if
 * not (an element not canonical or zero, or the equation fails). */
static int decode(fe point[4], fe diff[3], const uint8_t pk[48]) {
    int ok = 1;
    for (int i = 0; i < 3; i++) {
        load(diff[i], pk + 16 * i);
        /* canonical: below p (a top bit set, or all 127 low bits set, is not) */
        ok &= (diff[i][1] >> 63) == 0;
        ok &= !(diff[i][0] == P_LO && diff[i][1] == P_HI);
        ok &= !is_zero(diff[i]);
    }
    fe vw, uw, uv, s, q, x2;
    mul(vw, diff[1], diff[2]);
    mul(uw, diff[0], diff[2]);
    mul(uv, diff[0], diff[1]);
    mul(point[0], diff[0], vw);
    memcpy(point[1], vw, sizeof(fe));
    memcpy(point[2], uw, sizeof(fe));
    memcpy(point[3], uv, sizeof(fe));
    const uint64_t(*x)[2] = (const uint64_t(*)[2])point;
    /* s = x^2 + y^2 + z^2 + t^2 - F(xt + yz) - G(xz + yt) - H(xy + zt) */
    memset(s, 0, sizeof(fe));
    for (int i = 0; i < 4; i++) {
        mul(x2, x[i], x[i]);
        add(s, s, x2);
    }
    const fe *k[3] = {&SURFACE_F, &SURFACE_G, &SURFACE_H};
    static const int pairs[3][4] = {{0, 3, 1, 2}, {0, 2, 1, 3}, {0, 1, 2, 3}};
    for (int j = 0; j < 3; j++) {
        fe a, b;
        mul(a, x[pairs[j][0]], x[pairs[j][1]]);
        mul(b, x[pairs[j][2]], x[pairs[j][3]]);
        add(a, a, b);
        mul(a, a, *k[j]);
        sub(s, s, a);
    }
    mul(s, s, s);
    mul(q, x[0], x[1]);
    mul(x2, x[2], x[3]);
    mul(q, q, x2);
    mul(q, q, SURFACE_4E2);
    ok &= s[0] == q[0] && s[1] == q[1];
    return ok ? 0 : -1;
}

/* [sk]P by the ladder from (identity, P); P - 0 = P has inverted-affine coordinates
 * diff. The result's encoding (x/y, x/z, x/t) into out. */
static void scalarmult(uint8_t out[48], const uint8_t sk[32], const fe point[4],
                       const fe diff[3]) {
    uint64_t r0[8], r1[8], d[6];
    memcpy(r0, IDENTITY, sizeof r0);
    memcpy(r1, point, sizeof r1);
    memcpy(d, diff, sizeof d);
    for (int i = 250; i >= 0; i--) {
        fiat_uint1 bit = (sk[i >> 3] >> (i & 7)) & 1;
        cryptopt_kummer_ladderstep(r0, r1, r0, r1, d, bit);
    }
    /* (x/y, x/z, x/t) = x/(yzt) * (zt, yt, yz) with one inversion. */
    fe x, y, z, t, yz, zt, yt, yzt, i, xi, e;
    memcpy(x, r0 + 0, sizeof(fe));
    memcpy(y, r0 + 2, sizeof(fe));
    memcpy(z, r0 + 4, sizeof(fe));
    memcpy(t, r0 + 6, sizeof(fe));
    mul(yz, y, z);
    mul(zt, z, t);
    mul(yt, y, t);
    mul(yzt, yz, t);
    invert(i, yzt);
    mul(xi, x, i);
    mul(e, xi, zt);
    store(out, e);
    mul(e, xi, yt);
    store(out + 16, e);
    mul(e, xi, yz);
    store(out + 32, e);
}

int cryptopt_kummer_keypair(uint8_t pk[48], const uint8_t sk[32]) {
    return cryptopt_kummer(pk, sk, BASE);
}

int cryptopt_kummer(uint8_t out[48], const uint8_t sk[32], const uint8_t pk[48]) {
    fe point[4], diff[3];
    if (decode(point, diff, pk) != 0) {
        memset(out, 0, 48);
        return -1;
    }
    scalarmult(out, sk, point, diff);
    return 0;
}
