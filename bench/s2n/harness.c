/* Side-by-side timing of two implementations of one Montgomery field operation
 * (benchmarks only, not a test): `ours` (a cryptopt program under the Fiat name) and
 * `theirs` (s2n-bignum's bignum_montmul_* / bignum_montsqr_*, renamed), both
 * void f(uint64_t out[N], const uint64_t a[N], const uint64_t b[N]) (a square ignores b).
 *
 * First both are run on 10,000 random inputs below p (s2n-bignum's precondition) and
 * must agree word for word; then ROUNDS rounds, each timing a batch of BATCH calls of
 * one and then the other (the order alternating by round), in two modes:
 *   throughput: independent calls on a ring of 64 inputs;
 *   latency:    each call's output is the next call's first input.
 * Prints the median TSC ticks per call of each and the ratio theirs/ours (above 1: ours
 * is faster). Pin it (taskset) on a quiet machine. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

#ifndef N
#error "compile with -DN=<limbs>"
#endif
#define ROUNDS 301
#define BATCH 200
#define RING 64

typedef void (*fn)(uint64_t *, const uint64_t *, const uint64_t *);
void ours(uint64_t *, const uint64_t *, const uint64_t *);
void theirs(uint64_t *, const uint64_t *, const uint64_t *);

static uint64_t P[N];
static uint64_t state = 0x9e3779b97f4a7c15u;
static uint64_t next(void) {
    state ^= state << 13; state ^= state >> 7; state ^= state << 17;
    return state;
}
static int below_p(const uint64_t *x) {
    for (int i = N - 1; i >= 0; i--) {
        if (x[i] != P[i]) return x[i] < P[i];
    }
    return 0;
}
static void random_below_p(uint64_t *x) {
    do {
        for (int i = 0; i < N; i++) x[i] = next();
        /* Mostly full-size values, sometimes edge words. */
        if ((next() & 7) == 0) x[next() % N] = (next() & 1) ? ~0ull : 0;
    } while (!below_p(x));
}
static inline uint64_t ticks(void) {
    _mm_lfence();
    uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
}
static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
static uint64_t ring_a[RING][N], ring_b[RING][N], outs[RING][N];
static double batch(fn f, int latency) {
    uint64_t t0 = ticks();
    if (latency) {
        uint64_t x[N];
        memcpy(x, ring_a[0], sizeof x);
        for (int i = 0; i < BATCH; i++) f(x, x, ring_b[i % RING]);
        outs[0][0] ^= x[0];
    } else {
        for (int i = 0; i < BATCH; i++) f(outs[i % RING], ring_a[i % RING], ring_b[i % RING]);
    }
    return (double)(ticks() - t0) / BATCH;
}
static void measure(int latency, double *m_ours, double *m_theirs) {
    static double a[ROUNDS], b[ROUNDS];
    for (int w = 0; w < 20; w++) { batch(ours, latency); batch(theirs, latency); }
    for (int r = 0; r < ROUNDS; r++) {
        if (r & 1) { a[r] = batch(ours, latency); b[r] = batch(theirs, latency); }
        else { b[r] = batch(theirs, latency); a[r] = batch(ours, latency); }
    }
    qsort(a, ROUNDS, sizeof a[0], cmp);
    qsort(b, ROUNDS, sizeof b[0], cmp);
    *m_ours = a[ROUNDS / 2];
    *m_theirs = b[ROUNDS / 2];
}
int main(int argc, char **argv) {
    if (argc != 3 || strlen(argv[2]) != 16 * N) {
        fprintf(stderr, "usage: %s NAME P_HEX (%d hex digits)\n", argv[0], 16 * N);
        return 2;
    }
    for (int i = 0; i < N; i++) {
        char word[17];
        memcpy(word, argv[2] + 16 * (N - 1 - i), 16);
        word[16] = 0;
        P[i] = strtoull(word, NULL, 16);
    }
    for (int k = 0; k < 10000; k++) {
        uint64_t a[N], b[N], x[N], y[N];
        random_below_p(a);
        random_below_p(b);
        ours(x, a, b);
        theirs(y, a, b);
        if (memcmp(x, y, sizeof x) != 0) {
            fprintf(stderr, "%s: the two implementations differ on input %d\n", argv[1], k);
            return 1;
        }
    }
    for (int i = 0; i < RING; i++) { random_below_p(ring_a[i]); random_below_p(ring_b[i]); }
    double to, tt, lo, lt;
    measure(0, &to, &tt);
    measure(1, &lo, &lt);
    printf("%s throughput ours %.1f theirs %.1f ratio %.3f latency ours %.1f theirs %.1f ratio %.3f\n",
           argv[1], to, tt, tt / to, lo, lt, lt / lo);
    return 0;
}
