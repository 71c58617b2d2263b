/* `cryptopt bench --primitives`, Kummer: cryptopt's Kummer-surface DH (the shared secret
 * from a public point, cryptopt_kummer) against X25519 shared secrets: cryptopt's own
 * X25519 library, libsodium's crypto_scalarmult, OpenSSL 3's X25519 (EVP_PKEY_derive,
 * keys loaded and the context ready before timing), and with AWSLC AWS-LC's X25519
 * (bench_awslc.c). The two primitives compute different functions: the Kummer DH is
 * checked by agreement (both sides of one exchange), the X25519s against each other. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <sodium.h>

#include "cryptopt_kummer.h"
#include "cryptopt_x25519.h"
#if AWSLC
#include "bench_awslc.h"
#endif

static uint8_t sk[32], pk[48], shared[48], scalar[32], point[32], out[5][48];

#include "bench_x25519_refs.c"

static int ours(void) { return cryptopt_kummer(out[0], sk, pk); }
static int ours_x25519(void) { return cryptopt_x25519(out[1], scalar, point); }
static int sodium(void) { return crypto_scalarmult(out[2], scalar, point); }
static int openssl(void) { return openssl_x25519(out[3]); }
#if AWSLC
static int awslc(void) { return awslc_x25519(out[4]); }
#endif

static const struct {
    const char *name;
    int (*run)(void);
} impls[] = {
    {"cryptopt", ours},
    {"cryptopt-x25519", ours_x25519},
    {"libsodium-x25519", sodium},
    {"openssl-x25519", openssl},
#if AWSLC
    {"aws-lc-x25519", awslc},
#endif
};

/* The Kummer DH agrees with the other side of its exchange; each X25519 with libsodium. */
#define CUSTOM_AGREEMENT 1
static int agrees(size_t k) {
    if (k == 0) return memcmp(out[0], shared, 48) == 0;
    return memcmp(out[k], out[2], 32) == 0;
}

static int setup(void) {
    if (sodium_init() < 0) return -1;
    uint8_t peer[32], mine[48];
    randombytes_buf(sk, 32);
    randombytes_buf(peer, 32);
    if (cryptopt_kummer_keypair(pk, peer) != 0 || cryptopt_kummer_keypair(mine, sk) != 0 ||
        cryptopt_kummer(shared, peer, mine) != 0) {
        fprintf(stderr, "cryptopt_kummer: cannot set up the exchange\n");
        return -1;
    }
    randombytes_buf(scalar, 32);
    crypto_scalarmult_base(point, peer);
    if (crypto_scalarmult(out[2], scalar, point) != 0) return -1;
    return x25519_refs_setup(scalar, point);
}

static void versions(void) { x25519_refs_versions(); }
