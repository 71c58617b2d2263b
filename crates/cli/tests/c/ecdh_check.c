/* Checks libcryptopt_p256 (built with -DP256, linked with -lcrypto) against OpenSSL's
 * ECDH, or libcryptopt_secp256k1 (-DSECP256K1, -lsecp256k1) against libsecp256k1's
 * secp256k1_ecdh with its default hash. Modes, each printing one line or the first
 * disagreement (exit 1):
 *   agree N     N key pairs: random private keys (the first ones edge values: 1, 2,
 *               15, 16, n-1, n-2, 2^255, ..., secp256k1's lambda, -lambda,
 *               lambda+1), the peer's public key the reference's k·G, every fourth
 *               in the hybrid encoding (06/07); both sides must return 0 and the
 *               same 32 bytes. Prints `agree: N agree (H hybrid)`
 *   invalid N   N public keys made from valid ones by one edit (a flipped bit, another
 *               tag, a coordinate >= p or replaced by y + p, the point negated, a hybrid
 *               tag with the wrong or right parity, random bytes): ours must reject
 *               (-1, out all zero) exactly those the reference rejects, and agree on
 *               the rest; then the private keys 0, n, n+1, 2^256-1 must be rejected
 *               (by libsecp256k1 as well). Prints `invalid: N agree (R rejected by both)` */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ecdh_curve.h"

#if defined(P256)
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/obj_mac.h>
#include <openssl/param_build.h>

#define REFERENCE "openssl"

static EC_GROUP *group;
static BN_CTX *bn;

static int ref_init(void) {
    group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
    bn = BN_CTX_new();
    return group && bn ? 0 : -1;
}

/* pub = priv·G, uncompressed. */
static int ref_pub(uint8_t pub[65], const uint8_t priv[32]) {
    BIGNUM *k = BN_bin2bn(priv, 32, NULL);
    EC_POINT *q = EC_POINT_new(group);
    int ok = k && q && EC_POINT_mul(group, q, k, NULL, NULL, bn) == 1 &&
             EC_POINT_point2oct(group, q, POINT_CONVERSION_UNCOMPRESSED, pub, 65, bn) == 65;
    EC_POINT_free(q);
    BN_free(k);
    return ok ? 0 : -1;
}

/* A key from its parts as an application loads them (EVP_PKEY_fromdata). */
static EVP_PKEY *from_data(const uint8_t *priv, const uint8_t *pub) {
    OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
    BIGNUM *k = priv ? BN_bin2bn(priv, 32, NULL) : NULL;
    OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0);
    if (k) OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_PRIV_KEY, k);
    if (pub) OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, pub, 65);
    OSSL_PARAM *params = OSSL_PARAM_BLD_to_param(bld);
    EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    EVP_PKEY *key = NULL;
    if (!params || !c || EVP_PKEY_fromdata_init(c) != 1 ||
        EVP_PKEY_fromdata(c, &key, priv ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY, params) != 1)
        key = NULL;
    EVP_PKEY_CTX_free(c);
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(bld);
    BN_clear_free(k);
    return key;
}

/* OpenSSL's ECDH (EVP_PKEY_derive): 0, or -1 if it refuses. */
static int ref_ecdh(uint8_t out[32], const uint8_t priv[32], const uint8_t pub[65]) {
    EVP_PKEY *a = from_data(priv, NULL), *b = from_data(NULL, pub);
    EVP_PKEY_CTX *c = a ? EVP_PKEY_CTX_new(a, NULL) : NULL;
    size_t n = 32;
    int r = c && b && EVP_PKEY_derive_init(c) == 1 && EVP_PKEY_derive_set_peer(c, b) == 1 &&
                    EVP_PKEY_derive(c, out, &n) == 1 && n == 32
                ? 0
                : -1;
    EVP_PKEY_CTX_free(c);
    EVP_PKEY_free(a);
    EVP_PKEY_free(b);
    return r;
}
#elif defined(SECP256K1)
#include <secp256k1.h>
#include <secp256k1_ecdh.h>

#define REFERENCE "libsecp256k1"

static secp256k1_context *ctx;

static int ref_init(void) {
    ctx = secp256k1_context_create(SECP256K1_CONTEXT_NONE);
    return ctx ? 0 : -1;
}

static int ref_pub(uint8_t pub[65], const uint8_t priv[32]) {
    secp256k1_pubkey pk;
    size_t len = 65;
    return secp256k1_ec_pubkey_create(ctx, &pk, priv) &&
                   secp256k1_ec_pubkey_serialize(ctx, pub, &len, &pk, SECP256K1_EC_UNCOMPRESSED)
               ? 0
               : -1;
}

/* secp256k1_ecdh with its default hash: 0, or -1 if it refuses. */
static int ref_ecdh(uint8_t out[32], const uint8_t priv[32], const uint8_t pub[65]) {
    secp256k1_pubkey pk;
    if (!secp256k1_ec_pubkey_parse(ctx, &pk, pub, 65)) return -1;
    return secp256k1_ecdh(ctx, out, &pk, priv, NULL, NULL) == 1 ? 0 : -1;
}
#endif

#include "inputs.h"

/* a += d (32 bytes big-endian, d small, wrapping). */
static void add_small(uint8_t a[32], int d) {
    int carry = d;
    for (int i = 31; i >= 0 && carry != 0; i--) {
        int s = a[i] + carry;
        a[i] = (uint8_t)s;
        carry = s >> 8;
    }
}

/* a -= d (32 bytes big-endian, d small, wrapping). */
static void sub_small(uint8_t a[32], int d) {
    int borrow = d;
    for (int i = 31; i >= 0 && borrow != 0; i--) {
        int s = a[i] - borrow;
        a[i] = (uint8_t)s;
        borrow = s < 0 ? (-s + 255) / 256 : 0;
    }
}

/* r = a + b (big-endian), returning the carry out. */
static int add_bytes(uint8_t r[32], const uint8_t a[32], const uint8_t b[32]) {
    int carry = 0;
    for (int i = 31; i >= 0; i--) {
        int s = a[i] + b[i] + carry;
        r[i] = (uint8_t)s;
        carry = s >> 8;
    }
    return carry;
}

/* r = a - b (big-endian, a >= b). */
static void sub_bytes(uint8_t r[32], const uint8_t a[32], const uint8_t b[32]) {
    int borrow = 0;
    for (int i = 31; i >= 0; i--) {
        int s = a[i] - b[i] - borrow;
        r[i] = (uint8_t)s;
        borrow = s < 0;
    }
}

/* The i-th private key: edge values first, then random ones below n. */
static void private_key(uint8_t k[32], long i, const uint8_t n[32]) {
    memset(k, 0, 32);
    switch (i) {
    case 0: k[31] = 1; return;
    case 1: k[31] = 2; return;
    case 2: k[31] = 15; return;
    case 3: k[31] = 16; return;
    case 4: k[31] = 17; return;
    case 5: memcpy(k, n, 32); sub_small(k, 1); return;
    case 6: memcpy(k, n, 32); sub_small(k, 2); return;
    case 7: memcpy(k, n, 32); sub_small(k, 16); return;
    case 8: k[0] = 0x80; return;
    case 9: k[16] = 1; return;
    case 10: memset(k, 0x0f, 32); return;
    case 11: memset(k, 0xf0, 16); return;
    /* secp256k1's endomorphism eigenvalue lambda, -lambda and lambda + 1: the halves of
     * a GLV split are (0, 1), (0, -1) and (1, 1) (on P-256, three more keys). */
    case 12: unhex(k, LAMBDA_HEX, 32); return;
    case 13: {
        uint8_t l[32];
        unhex(l, LAMBDA_HEX, 32);
        int borrow = 0;
        for (int j = 31; j >= 0; j--) {
            int d = n[j] - l[j] - borrow;
            k[j] = (uint8_t)d;
            borrow = d < 0;
        }
        return;
    }
    case 14: unhex(k, LAMBDA_HEX, 32); add_small(k, 1); return;
    }
    do random_bytes(k, 32);
    while (memcmp(k, n, 32) >= 0 || memcmp(k, (uint8_t[32]){0}, 32) == 0);
}

static void show(const char *what, const uint8_t *b, size_t n) {
    printf(" %s ", what);
    for (size_t i = 0; i < n; i++) printf("%02x", b[i]);
}

static int disagree(const char *mode, long i, const uint8_t priv[32], const uint8_t pub[65],
                    int ours, int theirs) {
    printf("%s %ld: cryptopt returned %d, " REFERENCE " %d;", mode, i, ours, theirs);
    show("priv", priv, 32);
    show("pub", pub, 65);
    printf("\n");
    return 1;
}

int main(int argc, char **argv) {
    if (argc != 3 || ref_init() != 0) return 2;
    long count = atol(argv[2]);
    uint8_t n[32], p[32], zero[32] = {0};
    unhex(n, N_HEX, 32);
    unhex(p, P_HEX, 32);
    uint8_t priv[32], other[32], pub[65], ours[32], theirs[32];

    if (strcmp(argv[1], "agree") == 0) {
        long hybrid = 0;
        for (long i = 0; i < count; i++) {
            private_key(priv, i, n);
            private_key(other, (i + 7) % (count + 12), n);
            if (ref_pub(pub, other) != 0) return 2;
            if (i % 4 == 3) {
                pub[0] = (uint8_t)(0x06 | (pub[64] & 1));
                hybrid++;
            }
            int a = ECDH(ours, priv, pub), b = ref_ecdh(theirs, priv, pub);
            if (a != 0 || b != 0 || memcmp(ours, theirs, 32) != 0)
                return disagree("agree", i, priv, pub, a, b);
        }
        printf("agree: %ld agree (%ld hybrid)\n", count, hybrid);
        return 0;
    }
    if (strcmp(argv[1], "invalid") == 0) {
        long rejected = 0;
        for (long i = 0; i < count; i++) {
            private_key(priv, 12 + i, n);
            private_key(other, 12 + count + i, n);
            if (ref_pub(pub, other) != 0) return 2;
            uint8_t *x = pub + 1, *y = pub + 33;
            switch (i % 9) {
            case 0: pub[1 + next() % 64] ^= (uint8_t)(1u << (next() % 8)); break;
            case 1: pub[0] = (uint8_t)next(); break;
            case 2: memcpy(x, p, 32); add_small(x, (int)(next() % 4)); break; /* x >= p */
            case 3: sub_bytes(y, p, y); break; /* the negated point: valid */
            case 4: /* y + p where it fits below 2^256, else y = p */
                if (add_bytes(y, y, p)) memcpy(y, p, 32);
                break;
            case 5: pub[0] = (uint8_t)(0x06 | (~pub[64] & 1)); break; /* wrong parity */
            case 6: pub[0] = (uint8_t)(0x06 | (pub[64] & 1)); break;  /* right parity */
            case 7: random_bytes(pub + 1, 64); break;
            case 8: memset(pub + 1, 0, 64); break;
            }
            memset(ours, 0xaa, 32);
            int a = ECDH(ours, priv, pub), b = ref_ecdh(theirs, priv, pub);
            if (a != b || (a == 0 && memcmp(ours, theirs, 32) != 0) ||
                (a != 0 && memcmp(ours, zero, 32) != 0))
                return disagree("invalid", i, priv, pub, a, b);
            rejected += a != 0;
        }
        /* Private keys out of [1, n-1]. */
        private_key(other, 3, n);
        if (ref_pub(pub, other) != 0) return 2;
        uint8_t bad[4][32];
        memset(bad[0], 0, 32);
        memcpy(bad[1], n, 32);
        memcpy(bad[2], n, 32);
        add_small(bad[2], 1);
        memset(bad[3], 0xff, 32);
        for (int j = 0; j < 4; j++) {
            memset(ours, 0xaa, 32);
            int a = ECDH(ours, bad[j], pub);
            if (a != -1 || memcmp(ours, zero, 32) != 0)
                return disagree("invalid private key", j, bad[j], pub, a, 0);
#ifdef SECP256K1
            int b = ref_ecdh(theirs, bad[j], pub);
            if (b != -1) return disagree("invalid private key", j, bad[j], pub, a, b);
#endif
        }
        printf("invalid: %ld agree (%ld rejected by both)\n", count, rejected);
        return 0;
    }
    return 2;
}
