/* `cryptopt bench --primitives`, X25519: cryptopt's library against libsodium's
 * crypto_scalarmult and OpenSSL 3's X25519 (EVP_PKEY_derive, keys loaded and the context
 * ready before timing), and with AWSLC AWS-LC's X25519 (bench_awslc.c). */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <sodium.h>

#include "cryptopt_x25519.h"
#if AWSLC
#include "bench_awslc.h"
#endif

static uint8_t scalar[32], point[32], out[4][32];
static EVP_PKEY_CTX *ctx;

static int ours(void) { return cryptopt_x25519(out[0], scalar, point); }
static int sodium(void) { return crypto_scalarmult(out[1], scalar, point); }
static int openssl(void) {
    size_t n = 32;
    return EVP_PKEY_derive(ctx, out[2], &n) == 1 ? 0 : -1;
}

#if AWSLC
static int awslc(void) { return awslc_x25519(out[3]); }
#endif

static const struct {
    const char *name;
    int (*run)(void);
} impls[] = {
    {"cryptopt", ours},
    {"libsodium", sodium},
    {"openssl", openssl},
#if AWSLC
    {"aws-lc", awslc},
#endif
};

static int setup(void) {
    if (sodium_init() < 0) return -1;
    randombytes_buf(scalar, 32);
    uint8_t peer[32];
    randombytes_buf(peer, 32);
    crypto_scalarmult_base(point, peer);
    EVP_PKEY *priv = EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, NULL, scalar, 32);
    EVP_PKEY *pub = EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, NULL, point, 32);
    ctx = EVP_PKEY_CTX_new(priv, NULL);
    if (!ctx || EVP_PKEY_derive_init(ctx) != 1 || EVP_PKEY_derive_set_peer(ctx, pub) != 1) {
        fprintf(stderr, "OpenSSL: cannot set up X25519\n");
        return -1;
    }
#if AWSLC
    if (awslc_x25519_setup(scalar, point) != 0) {
        fprintf(stderr, "AWS-LC: cannot set up X25519\n");
        return -1;
    }
#endif
    return 0;
}

static void versions(void) {
    printf("version,libsodium,libsodium %s\n", sodium_version_string());
    printf("version,openssl,%s\n", OpenSSL_version(OPENSSL_VERSION));
#if AWSLC
    awslc_version();
#endif
}

