/* cryptopt_x25519: X25519 (RFC 7748) from three functions cryptopt optimized and proved:
 * the ladder step with its conditional swap (cryptopt_x25519_ladderstep), and the field
 * multiplication and squaring of the final inversion (cryptopt_x25519_mul, _square),
 * all over curve25519's saturated Solinas representation: four 64-bit words holding any
 * value below 2^256 congruent to the element (2^256 = 38 mod p).
 *
 * Constant time: the ladder runs 255 steps whatever the scalar; the scalar's bits only
 * reach the ladder step's swap bit (masking inside the proved step) and the final swap
 * (masking below); the inversion is a fixed addition chain; the final reduction and the
 * all-zero test are masks, never branches. Checked with valgrind (the secret scalar
 * marked undefined) by cryptopt's tests. */
#include <stdint.h>
#include <string.h>

#include "cryptopt_x25519.h"

typedef unsigned char fiat_uint1;

void cryptopt_x25519_ladderstep(uint64_t out1[4], uint64_t out2[4], uint64_t out3[4],
                                uint64_t out4[4], fiat_uint1 arg1, const uint64_t arg2[4],
                                const uint64_t arg3[4], const uint64_t arg4[4],
                                const uint64_t arg5[4], const uint64_t arg6[4]);
void cryptopt_x25519_mul(uint64_t out1[4], const uint64_t arg1[4], const uint64_t arg2[4]);
void cryptopt_x25519_square(uint64_t out1[4], const uint64_t arg1[4]);

typedef uint64_t fe[4];

static void load(fe z, const uint8_t b[32]) {
    for (int i = 0; i < 4; i++) {
        uint64_t w = 0;
        for (int j = 7; j >= 0; j--) w = (w << 8) | b[8 * i + j];
        z[i] = w;
    }
}

static void store(uint8_t b[32], const fe z) {
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 8; j++) b[8 * i + j] = (uint8_t)(z[i] >> (8 * j));
}

/* z^(2^n) */
static void square_n(fe out, const fe z, int n) {
    cryptopt_x25519_square(out, z);
    for (int i = 1; i < n; i++) cryptopt_x25519_square(out, out);
}

/* z^(p - 2) = z^(2^255 - 21): ref10's chain, 254 squarings and 11 multiplications. */
static void invert(fe out, const fe z) {
    fe z2, z9, z11, z2_5_0, z2_10_0, z2_20_0, z2_50_0, z2_100_0, t;
    cryptopt_x25519_square(z2, z);          /* 2 */
    square_n(t, z2, 2);                     /* 8 */
    cryptopt_x25519_mul(z9, t, z);          /* 9 */
    cryptopt_x25519_mul(z11, z9, z2);       /* 11 */
    cryptopt_x25519_square(t, z11);         /* 22 */
    cryptopt_x25519_mul(z2_5_0, t, z9);     /* 2^5 - 1 */
    square_n(t, z2_5_0, 5);
    cryptopt_x25519_mul(z2_10_0, t, z2_5_0);
    square_n(t, z2_10_0, 10);
    cryptopt_x25519_mul(z2_20_0, t, z2_10_0);
    square_n(t, z2_20_0, 20);
    cryptopt_x25519_mul(t, t, z2_20_0);     /* 2^40 - 1 */
    square_n(t, t, 10);
    cryptopt_x25519_mul(z2_50_0, t, z2_10_0);
    square_n(t, z2_50_0, 50);
    cryptopt_x25519_mul(z2_100_0, t, z2_50_0);
    square_n(t, z2_100_0, 100);
    cryptopt_x25519_mul(t, t, z2_100_0);    /* 2^200 - 1 */
    square_n(t, t, 50);
    cryptopt_x25519_mul(t, t, z2_50_0);     /* 2^250 - 1 */
    square_n(t, t, 5);
    cryptopt_x25519_mul(out, t, z11);       /* 2^255 - 21 */
}

/* z - p if that does not borrow, else z (masks); p = 2^255 - 19. */
static void subtract_p_if_not_below(fe z) {
    static const uint64_t p[4] = {0xffffffffffffffedULL, 0xffffffffffffffffULL,
                                  0xffffffffffffffffULL, 0x7fffffffffffffffULL};
    fe d;
    uint64_t borrow = 0;
    for (int i = 0; i < 4; i++) {
        unsigned __int128 t = (unsigned __int128)z[i] - p[i] - borrow;
        d[i] = (uint64_t)t;
        borrow = (uint64_t)(t >> 64) & 1;
    }
    uint64_t keep = 0 - borrow; /* all ones: z < p, keep z */
    for (int i = 0; i < 4; i++) z[i] = (z[i] & keep) | (d[i] & ~keep);
}

int cryptopt_x25519(uint8_t out[32], const uint8_t scalar[32], const uint8_t point[32]) {
    uint8_t k[32];
    memcpy(k, scalar, 32);
    k[0] &= 248;
    k[31] &= 127;
    k[31] |= 64;

    fe x1, x2 = {1, 0, 0, 0}, z2 = {0, 0, 0, 0}, x3, z3 = {1, 0, 0, 0};
    load(x1, point);
    x1[3] &= 0x7fffffffffffffffULL; /* RFC 7748: the top bit is masked */
    memcpy(x3, x1, sizeof(fe));

    unsigned swap = 0;
    for (int t = 254; t >= 0; t--) {
        unsigned bit = (k[t >> 3] >> (t & 7)) & 1;
        cryptopt_x25519_ladderstep(x2, z2, x3, z3, (fiat_uint1)(swap ^ bit), x1, x2, z2, x3, z3);
        swap = bit;
    }
    uint64_t m = 0 - (uint64_t)swap;
    for (int i = 0; i < 4; i++) {
        x2[i] = (x2[i] & ~m) | (x3[i] & m);
        z2[i] = (z2[i] & ~m) | (z3[i] & m);
    }

    fe inv, x;
    invert(inv, z2);
    cryptopt_x25519_mul(x, x2, inv);
    /* x < 2^256 < 3p: two conditional subtractions make it canonical. */
    subtract_p_if_not_below(x);
    subtract_p_if_not_below(x);
    store(out, x);

    uint64_t any = x[0] | x[1] | x[2] | x[3];
    /* -1 when all zero (as libsodium's crypto_scalarmult), 0 otherwise; no branch. */
    return (int)(((any | (0 - any)) >> 63)) - 1;
}
