/* `cryptopt bench --primitives`, secp256k1 ECDH: cryptopt's library against
 * libsecp256k1's secp256k1_ecdh with its default hash (the public key parsed and the
 * context made before timing; ours decodes and validates the public key in every call). */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <secp256k1.h>
#include <secp256k1_ecdh.h>

#include "cryptopt_secp256k1.h"

static uint8_t priv[32], pub[65], out[2][32];
static secp256k1_context *ctx;
static secp256k1_pubkey parsed;

static int ours(void) { return cryptopt_secp256k1_ecdh(out[0], priv, pub); }
static int libsecp256k1(void) {
    return secp256k1_ecdh(ctx, out[1], &parsed, priv, NULL, NULL) == 1 ? 0 : -1;
}

static const struct {
    const char *name;
    int (*run)(void);
} impls[] = {{"cryptopt", ours}, {"libsecp256k1", libsecp256k1}};

/* Random bytes from the kernel (the keys are the run's own, as in the other harnesses). */
static int random_bytes(uint8_t *b, size_t n) {
    FILE *f = fopen("/dev/urandom", "rb");
    int ok = f && fread(b, 1, n, f) == n;
    if (f) fclose(f);
    return ok ? 0 : -1;
}

static int setup(void) {
    ctx = secp256k1_context_create(SECP256K1_CONTEXT_NONE);
    uint8_t other[32];
    secp256k1_pubkey pk;
    size_t len = 65;
    if (!ctx || random_bytes(priv, 32) != 0 || random_bytes(other, 32) != 0 ||
        !secp256k1_ec_seckey_verify(ctx, priv) || !secp256k1_ec_pubkey_create(ctx, &pk, other) ||
        !secp256k1_ec_pubkey_serialize(ctx, pub, &len, &pk, SECP256K1_EC_UNCOMPRESSED) ||
        !secp256k1_ec_pubkey_parse(ctx, &parsed, pub, 65)) {
        fprintf(stderr, "libsecp256k1: cannot make keys\n");
        return -1;
    }
    return 0;
}

/* libsecp256k1 has no version function: the Debian package's, as the build saw it. */
static void versions(void) { printf("version,libsecp256k1,%s\n", LIBSECP256K1_VERSION); }

