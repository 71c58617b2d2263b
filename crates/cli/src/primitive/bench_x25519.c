/* `cryptopt bench --primitives`, X25519: cryptopt's library against libsodium's
 * crypto_scalarmult and OpenSSL 3's X25519 (EVP_PKEY_derive, keys loaded and the context
 * ready before timing), in one process pinned to one CPU. Calls are interleaved: round i
 * calls every implementation once, starting from a different one each round, and each
 * call is timed alone with lfence;rdtsc;lfence. Usage: bench CPU CALLS. Prints
 * `version,NAME,TEXT` lines, then `NAME,median,q1,q3` in TSC ticks per call; exits 1
 * if the implementations disagree on the inputs. */
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

static uint8_t scalar[32], point[32], out[3][32];
static EVP_PKEY_CTX *ctx;

static int ours(void) { return cryptopt_x25519(out[0], scalar, point); }
static int sodium(void) { return crypto_scalarmult(out[1], scalar, point); }
static int openssl(void) {
    size_t n = 32;
    return EVP_PKEY_derive(ctx, out[2], &n) == 1 ? 0 : -1;
}

static const struct { const char *name; int (*run)(void); } impls[] = {
    {"cryptopt", ours}, {"libsodium", sodium}, {"openssl", openssl}};
#define N (sizeof impls / sizeof impls[0])

static inline uint64_t ticks(void) {
    uint32_t lo, hi;
    __asm__ volatile("lfence; rdtsc; lfence" : "=a"(lo), "=d"(hi)::"memory");
    return ((uint64_t)hi << 32) | lo;
}

static int cmp(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    if (argc != 3 || sodium_init() < 0) return 2;
    int cpu = atoi(argv[1]);
    long calls = atol(argv[2]);
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
        fprintf(stderr, "cannot pin to cpu %d\n", cpu);
        return 2;
    }
    randombytes_buf(scalar, 32);
    uint8_t peer[32];
    randombytes_buf(peer, 32);
    crypto_scalarmult_base(point, peer);
    EVP_PKEY *priv = EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, NULL, scalar, 32);
    EVP_PKEY *pub = EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, NULL, point, 32);
    ctx = EVP_PKEY_CTX_new(priv, NULL);
    if (!ctx || EVP_PKEY_derive_init(ctx) != 1 || EVP_PKEY_derive_set_peer(ctx, pub) != 1) {
        fprintf(stderr, "OpenSSL: cannot set up X25519\n");
        return 2;
    }
    for (size_t k = 0; k < N; k++) {
        if (impls[k].run() != 0 || memcmp(out[k], out[0], 32) != 0) {
            fprintf(stderr, "%s disagrees with cryptopt\n", impls[k].name);
            return 1;
        }
    }
    printf("version,libsodium,libsodium %s\n", sodium_version_string());
    printf("version,openssl,%s\n", OpenSSL_version(OPENSSL_VERSION));
    uint64_t *t = calloc(N * (size_t)calls, sizeof *t);
    for (long i = 0; i < calls / 10 + 10; i++)
        for (size_t k = 0; k < N; k++) impls[k].run(); /* warm up */
    for (long i = 0; i < calls; i++) {
        for (size_t j = 0; j < N; j++) {
            size_t k = (i + j) % N;
            uint64_t t0 = ticks();
            impls[k].run();
            t[k * calls + i] = ticks() - t0;
        }
    }
    for (size_t k = 0; k < N; k++) {
        uint64_t *s = t + k * calls;
        qsort(s, calls, sizeof *s, cmp);
        printf("%s,%llu,%llu,%llu\n", impls[k].name, (unsigned long long)s[calls / 2],
               (unsigned long long)s[calls / 4], (unsigned long long)s[3 * calls / 4]);
    }
    return 0;
}
