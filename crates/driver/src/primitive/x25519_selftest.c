/* The self-test `cryptopt primitive x25519` runs on the library before it writes it:
 * RFC 7748 §5.2's two test vectors and its iterated test (1 and 1,000 iterations).
 * Prints `ok` and exits 0, or names the first failure and exits 1. */
#include <stdio.h>
#include <string.h>

#include "cryptopt_x25519.h"

static void unhex(uint8_t out[32], const char *hex) {
    for (int i = 0; i < 32; i++) {
        unsigned b;
        sscanf(hex + 2 * i, "%2x", &b);
        out[i] = (uint8_t)b;
    }
}

static void tohex(char out[65], const uint8_t b[32]) {
    for (int i = 0; i < 32; i++) sprintf(out + 2 * i, "%02x", b[i]);
}

static void iterate(uint8_t k[32], long n) {
    uint8_t u[32] = {9}, r[32];
    memset(k, 0, 32);
    k[0] = 9;
    for (long i = 0; i < n; i++) {
        cryptopt_x25519(r, k, u);
        memcpy(u, k, 32);
        memcpy(k, r, 32);
    }
}

int main(void) {
    char got[65];
    uint8_t k[32], u[32], r[32];
    static const char *vectors[][3] = {
        {"a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4",
         "e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c",
         "c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552"},
        {"4b66e9d4d1b4673c5ad22691957d6af5c11b6421e0ea01d42ca4169e7918ba0d",
         "e5210f12786811d3f4b7959d0538ae2c31dbe7106fc03c3efc4cd549c715a493",
         "95cbde9476e8907d7aade45cb4b873f88b595a68799fa152e6f8f7647aac7957"},
    };
    for (int v = 0; v < 2; v++) {
        unhex(k, vectors[v][0]);
        unhex(u, vectors[v][1]);
        if (cryptopt_x25519(r, k, u) != 0) {
            printf("RFC 7748 vector %d: returned an error\n", v + 1);
            return 1;
        }
        tohex(got, r);
        if (strcmp(got, vectors[v][2]) != 0) {
            printf("RFC 7748 vector %d: got %s, want %s\n", v + 1, got, vectors[v][2]);
            return 1;
        }
    }
    static const struct { long n; const char *want; } iterated[] = {
        {1, "422c8e7a6227d7bca1350b3e2bb7279f7897b87bb6854b783c60e80311ae3079"},
        {1000, "684cf59ba83309552800ef566f2f4d3c1c3887c49360e3875f2eb94d99532c51"},
    };
    for (int i = 0; i < 2; i++) {
        iterate(k, iterated[i].n);
        tohex(got, k);
        if (strcmp(got, iterated[i].want) != 0) {
            printf("RFC 7748 iterated test, %ld iterations: got %s, want %s\n", iterated[i].n,
                   got, iterated[i].want);
            return 1;
        }
    }
    printf("ok\n");
    return 0;
}
