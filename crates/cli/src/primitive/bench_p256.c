/* `cryptopt bench --primitives`, P-256 ECDH: cryptopt's library against OpenSSL 3's
 * ECDH (EVP_PKEY_derive, both keys loaded and the context ready before timing; ours
 * decodes and validates the peer's public key in every call), and with AWSLC AWS-LC's
 * (bench_awslc.c, the same way as OpenSSL). */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "cryptopt_p256.h"
#if AWSLC
#include "bench_awslc.h"
#endif

static uint8_t priv[32], pub[65], out[3][32];
static EVP_PKEY_CTX *ctx;

static int ours(void) { return cryptopt_p256_ecdh(out[0], priv, pub); }
static int openssl(void) {
    size_t n = 32;
    return EVP_PKEY_derive(ctx, out[1], &n) == 1 && n == 32 ? 0 : -1;
}

#if AWSLC
static int awslc(void) { return awslc_p256(out[2]); }
#endif

static const struct {
    const char *name;
    int (*run)(void);
} impls[] = {
    {"cryptopt", ours},
    {"openssl", openssl},
#if AWSLC
    {"aws-lc", awslc},
#endif
};

static int setup(void) {
    EVP_PKEY *a = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
    EVP_PKEY *b = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
    BIGNUM *k = NULL;
    size_t len = 0;
    if (!a || !b || EVP_PKEY_get_bn_param(a, OSSL_PKEY_PARAM_PRIV_KEY, &k) != 1 ||
        BN_bn2binpad(k, priv, 32) != 32 ||
        EVP_PKEY_get_octet_string_param(b, OSSL_PKEY_PARAM_PUB_KEY, pub, 65, &len) != 1 ||
        len != 65) {
        fprintf(stderr, "OpenSSL: cannot make P-256 keys\n");
        return -1;
    }
    ctx = EVP_PKEY_CTX_new(a, NULL);
    if (!ctx || EVP_PKEY_derive_init(ctx) != 1 || EVP_PKEY_derive_set_peer(ctx, b) != 1) {
        fprintf(stderr, "OpenSSL: cannot set up P-256 ECDH\n");
        return -1;
    }
#if AWSLC
    if (awslc_p256_setup(priv, pub) != 0) {
        fprintf(stderr, "AWS-LC: cannot set up P-256 ECDH\n");
        return -1;
    }
#endif
    return 0;
}

static void versions(void) {
    printf("version,openssl,%s\n", OpenSSL_version(OPENSSL_VERSION));
#if AWSLC
    awslc_version();
#endif
}

