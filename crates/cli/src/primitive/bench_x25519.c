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

#include "bench_x25519_refs.c"

static int ours(void) { return cryptopt_x25519(out[0], scalar, point); }
static int sodium(void) { return crypto_scalarmult(out[1], scalar, point); }
static int openssl(void) { return openssl_x25519(out[2]); }

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
    return x25519_refs_setup(scalar, point);
}

static void versions(void) { x25519_refs_versions(); }

