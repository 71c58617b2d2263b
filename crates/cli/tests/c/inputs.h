/* Reproducible inputs for the checkers in this folder: splitmix64 from a fixed seed, and
 * bytes from hex text. */
#ifndef CRYPTOPT_TEST_INPUTS_H
#define CRYPTOPT_TEST_INPUTS_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static inline uint64_t next(void) {
    uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static inline void random_bytes(uint8_t *b, size_t n) {
    for (size_t i = 0; i < n; i++) b[i] = (uint8_t)next();
}

/* n bytes from 2n hex digits. */
static inline void unhex(uint8_t *out, const char *hex, size_t n) {
    for (size_t i = 0; i < n; i++) {
        unsigned b;
        sscanf(hex + 2 * i, "%2x", &b);
        out[i] = (uint8_t)b;
    }
}
#endif
