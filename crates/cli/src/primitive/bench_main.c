/* The timing loop of `cryptopt bench --primitives`, after the primitive's part (above
 * this comment) has defined impls[] (ours first), out[] (each one's output), setup()
 * (the inputs, the reference libraries' keys loaded and contexts ready) and versions(). One process pinned to one
 * CPU; calls are interleaved: round i calls every implementation once, starting from a
 * different one each round, and each call is timed alone with lfence;rdtsc;lfence.
 * Usage: bench CPU CALLS. Prints `version,NAME,TEXT` lines, then `NAME,median,q1,q3` in
 * TSC ticks per call; exits 1 if the implementations disagree on the inputs. */
#define N (sizeof impls / sizeof impls[0])

#ifndef CUSTOM_AGREEMENT
/* Every implementation computes the same output as cryptopt's (a part whose
 * implementations compute different functions defines CUSTOM_AGREEMENT and its own). */
static int agrees(size_t k) { return memcmp(out[k], out[0], sizeof out[0]) == 0; }
#endif

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
    if (argc != 3) return 2;
    int cpu = atoi(argv[1]);
    long calls = atol(argv[2]);
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
        fprintf(stderr, "cannot pin to cpu %d\n", cpu);
        return 2;
    }
    if (setup() != 0) return 2;
    for (size_t k = 0; k < N; k++) {
        if (impls[k].run() != 0 || !agrees(k)) {
            fprintf(stderr, "%s disagrees with cryptopt\n", impls[k].name);
            return 1;
        }
    }
    versions();
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
