/* Checks libcryptopt_x25519 against the real libraries (tests/primitive.rs builds it with
 * -lsodium -lcrypto). Modes, each printing one line `MODE: N agree` or the first
 * disagreement (exit 1):
 *   sodium N    N inputs against libsodium's crypto_scalarmult: random scalars and
 *               points, non-canonical points (u >= p, the top bit set) and the
 *               small-order points; return codes and (where 0) outputs must agree
 *   openssl N   the same inputs against OpenSSL's X25519 (EVP_PKEY_derive)
 *   dh N        N random key pairs: both sides derive the same secret
 *   iterate N   RFC 7748's iterated test: prints k after N iterations */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <sodium.h>

#include "cryptopt_x25519.h"

#include "inputs.h"

/* The small-order u-coordinates (libsodium's list): 0, 1, the two of order 8, p - 1,
 * p, p + 1; each also with the top bit set. */
static const uint8_t small_order[7][32] = {
    {0},
    {1},
    {0xe0, 0xeb, 0x7a, 0x7c, 0x3b, 0x41, 0xb8, 0xae, 0x16, 0x56, 0xe3, 0xfa, 0xf1, 0x9f, 0xc4, 0x6a,
     0xda, 0x09, 0x8d, 0xeb, 0x9c, 0x32, 0xb1, 0xfd, 0x86, 0x62, 0x05, 0x16, 0x5f, 0x49, 0xb8, 0x00},
    {0x5f, 0x9c, 0x95, 0xbc, 0xa3, 0x50, 0x8c, 0x24, 0xb1, 0xd0, 0xb1, 0x55, 0x9c, 0x83, 0xef, 0x5b,
     0x04, 0x44, 0x5c, 0xc4, 0x58, 0x1c, 0x8e, 0x86, 0xd8, 0x22, 0x4e, 0xdd, 0xd0, 0x9f, 0x11, 0x57},
    {0xec, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
     0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f},
    {0xed, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
     0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f},
    {0xee, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
     0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f},
};

/* Input i of the agreement tests: mostly random; every 8th a non-canonical u (p..2^255-1,
 * or with the top bit set); the first 14 the small-order points without and with the
 * top bit. */
static void input(long i, uint8_t k[32], uint8_t u[32]) {
    random_bytes(k, 32);
    random_bytes(u, 32);
    if (i < 14) {
        memcpy(u, small_order[i % 7], 32);
        if (i >= 7) u[31] |= 0x80;
    } else if (i % 8 == 0) {
        memset(u, 0xff, 32); /* 2^255 - 1 + top bit: u >= p after masking */
        u[0] = (uint8_t)(0xed + next() % 0x13);
    } else if (i % 8 == 1) {
        u[31] |= 0x80;
    }
}

static void hex(const char *what, const uint8_t *b) {
    printf("%s ", what);
    for (int i = 0; i < 32; i++) printf("%02x", b[i]);
    printf("\n");
}

static int disagree(const char *mode, long i, const uint8_t k[32], const uint8_t u[32], int r1,
                    const uint8_t *a, int r2, const uint8_t *b) {
    printf("%s: input %ld disagrees: ours returned %d, theirs %d\n", mode, i, r1, r2);
    hex("scalar", k);
    hex("point", u);
    hex("ours", a);
    hex("theirs", b);
    return 1;
}

/* OpenSSL's X25519: 0 and the secret, or -1 where derivation fails (an all-zero
 * secret). */
static int openssl_x25519(uint8_t out[32], const uint8_t k[32], const uint8_t u[32]) {
    EVP_PKEY *priv = EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, NULL, k, 32);
    EVP_PKEY *pub = EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, NULL, u, 32);
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new(priv, NULL);
    size_t n = 32;
    int ok = ctx && EVP_PKEY_derive_init(ctx) == 1 && EVP_PKEY_derive_set_peer(ctx, pub) == 1 &&
             EVP_PKEY_derive(ctx, out, &n) == 1 && n == 32;
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(pub);
    EVP_PKEY_free(priv);
    return ok ? 0 : -1;
}

int main(int argc, char **argv) {
    if (argc != 3 || sodium_init() < 0) {
        fprintf(stderr, "usage: x25519_check sodium|openssl|dh|iterate N\n");
        return 2;
    }
    const char *mode = argv[1];
    long n = atol(argv[2]);
    uint8_t k[32], u[32], a[32], b[32];
    if (!strcmp(mode, "sodium") || !strcmp(mode, "openssl")) {
        long rejected = 0;
        for (long i = 0; i < n; i++) {
            input(i, k, u);
            memset(a, 0, 32);
            memset(b, 0, 32);
            int r1 = cryptopt_x25519(a, k, u);
            int r2 = !strcmp(mode, "sodium") ? crypto_scalarmult(b, k, u) : openssl_x25519(b, k, u);
            if (r1 != r2 || (r1 == 0 && memcmp(a, b, 32) != 0)) return disagree(mode, i, k, u, r1, a, r2, b);
            if (i < 14 && r1 != -1) return disagree(mode, i, k, u, r1, a, r2, b);
            rejected += r1 != 0;
        }
        printf("%s: %ld agree (%ld rejected by both)\n", mode, n, rejected);
    } else if (!strcmp(mode, "dh")) {
        static const uint8_t base[32] = {9};
        uint8_t ka[32], kb[32], pa[32], pb[32];
        for (long i = 0; i < n; i++) {
            random_bytes(ka, 32);
            random_bytes(kb, 32);
            if (cryptopt_x25519(pa, ka, base) || cryptopt_x25519(pb, kb, base) ||
                cryptopt_x25519(a, ka, pb) || cryptopt_x25519(b, kb, pa) || memcmp(a, b, 32)) {
                printf("dh: pair %ld does not agree\n", i);
                return 1;
            }
            /* The public key is libsodium's too. */
            crypto_scalarmult_base(b, ka);
            if (memcmp(pa, b, 32)) {
                printf("dh: public key %ld differs from libsodium's\n", i);
                return 1;
            }
        }
        printf("dh: %ld agree\n", n);
    } else if (!strcmp(mode, "iterate")) {
        uint8_t r[32];
        memset(k, 0, 32);
        memset(u, 0, 32);
        k[0] = u[0] = 9;
        for (long i = 0; i < n; i++) {
            cryptopt_x25519(r, k, u);
            memcpy(u, k, 32);
            memcpy(k, r, 32);
        }
        for (int i = 0; i < 32; i++) printf("%02x", k[i]);
        printf("\n");
    } else {
        fprintf(stderr, "unknown mode %s\n", mode);
        return 2;
    }
    return 0;
}
