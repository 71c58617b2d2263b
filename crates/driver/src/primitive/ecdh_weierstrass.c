/* ECDH on a prime-order short Weierstrass curve (P-256, secp256k1) from seven functions
 * cryptopt optimized and proved, all on the Montgomery representation (four 64-bit words
 * holding x·2^256 mod p, below p): the complete projective point addition of Renes,
 * Costello and Batina (PIECE(point_add)), the field multiplication, squaring, addition
 * and subtraction (PIECE(mul), _square, _add, _sub), each window's five doublings as one
 * function (PIECE(point_double5): a doubling from projective into Jacobian coordinates,
 * four Jacobian ones, dbl-2001-b for P-256 and dbl-2009-l for secp256k1, and the way
 * back), and the table's doubling, the first of those and the way back
 * (PIECE(point_double): not complete, and never given the point at infinity).
 * The lines above this comment (written by `cryptopt primitive`) name the curve, its
 * pieces and its constants.
 *
 * Constant time: the scalar multiplication is a signed fixed 5-bit window over all 52
 * digits of the scalar (255 doublings and 51 additions whatever it is, the formulas
 * complete so the point at infinity needs no branch), or with GLV (secp256k1) over the
 * 26 digits of each half of the scalar's split (125 doublings, 51 additions); each
 * window's table entry is read by touching all 17 entries with masks, and negated by a
 * mask; the inversion is Fermat's with the public exponent p - 2 (a chain over its runs
 * of ones); the scalar's range check and the invalid-scalar result are masks. Only
 * public data (the peer's public key) is ever branched on. Checked with valgrind (the secret
 * scalar marked undefined) by cryptopt's tests. */
#include <stdint.h>
#include <string.h>

typedef uint64_t fe[4];
typedef struct {
    fe x, y, z;
} point;

void PIECE(point_add)(uint64_t out1[4], uint64_t out2[4], uint64_t out3[4],
                      const uint64_t arg1[4], const uint64_t arg2[4], const uint64_t arg3[4],
                      const uint64_t arg4[4], const uint64_t arg5[4], const uint64_t arg6[4]);
void PIECE(point_double)(uint64_t out1[4], uint64_t out2[4], uint64_t out3[4],
                         const uint64_t arg1[4], const uint64_t arg2[4],
                         const uint64_t arg3[4]);
void PIECE(point_double5)(uint64_t out1[4], uint64_t out2[4], uint64_t out3[4],
                          const uint64_t arg1[4], const uint64_t arg2[4], const uint64_t arg3[4]);
void PIECE(mul)(uint64_t out1[4], const uint64_t arg1[4], const uint64_t arg2[4]);
void PIECE(square)(uint64_t out1[4], const uint64_t arg1[4]);
void PIECE(add)(uint64_t out1[4], const uint64_t arg1[4], const uint64_t arg2[4]);
void PIECE(sub)(uint64_t out1[4], const uint64_t arg1[4], const uint64_t arg2[4]);

/* 32 big-endian bytes to four little-endian words, and back. */
static void load_be(fe z, const uint8_t b[32]) {
    for (int i = 0; i < 4; i++) {
        uint64_t w = 0;
        for (int j = 0; j < 8; j++) w = (w << 8) | b[8 * (3 - i) + j];
        z[i] = w;
    }
}

static void store_be(uint8_t b[32], const fe z) {
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 8; j++) b[8 * (3 - i) + j] = (uint8_t)(z[i] >> (56 - 8 * j));
}

/* 1 if a < m, else 0: the borrow of a - m (no branch). */
static uint64_t below(const fe a, const fe m) {
    uint64_t borrow = 0;
    for (int i = 0; i < 4; i++) {
        unsigned __int128 d = (unsigned __int128)a[i] - m[i] - borrow;
        borrow = (uint64_t)(d >> 64) & 1;
    }
    return borrow;
}

/* 1 if a is zero, else 0 (no branch). */
static uint64_t is_zero(const fe a) {
    uint64_t t = a[0] | a[1] | a[2] | a[3];
    return 1 ^ ((t | (0 - t)) >> 63);
}

/* Into and out of the Montgomery domain: a·R^2·R^-1 and a·1·R^-1. */
static void to_montgomery(fe out, const fe a) { PIECE(mul)(out, a, MONT_R2); }
static void from_montgomery(fe out, const fe a) {
    static const uint64_t one[4] = {1, 0, 0, 0};
    PIECE(mul)(out, a, one);
}

/* z^(p-2) = z^-1 (Fermat) by runs of ones, the sequence fixed by the public exponent:
 * x[i] = z^(2^(2^i) - 1) for i < 6 (31 squarings, 5 multiplications), then the
 * exponent's bits from the top, each 0 a squaring and each run of ones in chunks of
 * c = 32, 16, ..., 1 ones, acc = acc^(2^c)·x[log c] (the first chunk is x[log c] itself:
 * its squarings were the precomputation's). P-256: 255 squarings and 13
 * multiplications; secp256k1: 255 and 21 (a 4-bit window took 33 and 56 more). */
static int exponent_bit(int i) { return (int)(P_MINUS_2[i / 64] >> (i % 64)) & 1; }

static void invert(fe out, const fe z) {
    fe x[6], acc;
    memcpy(x[0], z, sizeof(fe));
    for (int i = 1; i < 6; i++) {
        memcpy(acc, x[i - 1], sizeof(fe));
        for (int s = 0; s < 1 << (i - 1); s++) PIECE(square)(acc, acc);
        PIECE(mul)(x[i], acc, x[i - 1]);
    }
    int bit = 255, started = 0;
    while (bit >= 0 && !exponent_bit(bit)) bit--; /* public */
    while (bit >= 0) {
        if (!exponent_bit(bit)) {
            PIECE(square)(acc, acc);
            bit--;
            continue;
        }
        int run = 0;
        while (bit - run >= 0 && exponent_bit(bit - run)) run++;
        bit -= run;
        while (run > 0) {
            int log = 5;
            while ((1 << log) > run) log--;
            if (started) {
                for (int s = 0; s < 1 << log; s++) PIECE(square)(acc, acc);
                PIECE(mul)(acc, acc, x[log]);
            } else {
                memcpy(acc, x[log], sizeof(fe));
                started = 1;
            }
            run -= 1 << log;
        }
    }
    memcpy(out, acc, sizeof(fe));
}

/* r = tab[d] for a secret d <= 16: every entry is read, the one wanted kept by a mask
 * (no secret branch or address). With AVX2 (a public property of the CPU, asked once)
 * a coordinate is one 256-bit load, mask and or; else 64-bit words, into a local
 * accumulator (stores into r inside the loop would be redone for every entry). */
static void select_point_words(point *r, const point tab[17], uint64_t d) {
    uint64_t acc[12] = {0};
    for (uint64_t i = 0; i < 17; i++) {
        uint64_t m = 0 - (((i ^ d) - 1) >> 63); /* all ones iff i == d */
        const uint64_t *e = tab[i].x;
        for (int k = 0; k < 12; k++) acc[k] |= e[k] & m;
    }
    memcpy(r, acc, sizeof acc);
}

/* CRYPTOPT_NO_AVX2 builds the 64-bit-word read only (the tests run it on CPUs with AVX2). */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(CRYPTOPT_NO_AVX2)
#include <cpuid.h>
#include <immintrin.h>
__attribute__((target("avx2"))) static void select_point_avx2(point *r, const point tab[17],
                                                               uint64_t d) {
    __m256i x = _mm256_setzero_si256(), y = x, z = x, index = x;
    const __m256i want = _mm256_set1_epi64x((long long)d), one = _mm256_set1_epi64x(1);
    for (int i = 0; i < 17; i++) {
        __m256i m = _mm256_cmpeq_epi64(index, want); /* all ones iff i == d */
        index = _mm256_add_epi64(index, one);
        x = _mm256_or_si256(x, _mm256_and_si256(m, _mm256_loadu_si256((const __m256i *)tab[i].x)));
        y = _mm256_or_si256(y, _mm256_and_si256(m, _mm256_loadu_si256((const __m256i *)tab[i].y)));
        z = _mm256_or_si256(z, _mm256_and_si256(m, _mm256_loadu_si256((const __m256i *)tab[i].z)));
    }
    _mm256_storeu_si256((__m256i *)r->x, x);
    _mm256_storeu_si256((__m256i *)r->y, y);
    _mm256_storeu_si256((__m256i *)r->z, z);
}

/* AVX2 in the CPU (CPUID.7.0:EBX[5]) and its registers saved by the OS (OSXSAVE, and
 * XCR0 with the SSE and AVX states). */
static int cpu_has_avx2(void) {
    static int known = -1; /* idempotent: a race writes the same value */
    if (known < 0) {
        unsigned a, b, c, d, lo, hi;
        int avx2 = 0;
        if (__get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 27)) &&
            __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 5))) {
            __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
            (void)hi;
            avx2 = (lo & 6) == 6;
        }
        known = avx2;
    }
    return known;
}

static void select_point(point *r, const point tab[17], uint64_t d) {
    if (cpu_has_avx2())
        select_point_avx2(r, tab, d);
    else
        select_point_words(r, tab, d);
}
#else
static void select_point(point *r, const point tab[17], uint64_t d) {
    select_point_words(r, tab, d);
}
#endif

/* y = -y where negate is all ones (masks; p - y computed always). */
static void negate_y(point *r, uint64_t negate) {
    static const uint64_t zero[4] = {0, 0, 0, 0};
    fe minus;
    PIECE(sub)(minus, zero, r->y);
    for (int k = 0; k < 4; k++) r->y[k] = (r->y[k] & ~negate) | (minus[k] & negate);
}

/* r = digit·p for a secret digit in [-16, 16]: tab[|digit|], negated if digit < 0, and
 * negated (again) where flip is all ones (a negative half of a GLV split). */
static void select_signed(point *r, const point tab[17], int64_t digit, uint64_t flip) {
    uint64_t negative = (uint64_t)(digit >> 63);                  /* all ones if < 0 */
    uint64_t magnitude = ((uint64_t)digit ^ negative) - negative; /* |digit| */
    select_point(r, tab, magnitude);
    negate_y(r, negative ^ flip);
}

static void point_add(point *r, const point *a, const point *b) {
    PIECE(point_add)(r->x, r->y, r->z, a->x, a->y, a->z, b->x, b->y, b->z);
}

static void point_double(point *r, const point *a) {
    PIECE(point_double)(r->x, r->y, r->z, a->x, a->y, a->z);
}

/* q = 32·q by PIECE(point_double5) (projective in and out, Jacobian inside). The point
 * at infinity (0 : Y : 0) comes out as (0 : 0 : 0) (the first doubling makes it, the
 * Jacobian ones keep it: every coordinate they make is a multiple of Z): Y is set to 1
 * by a mask when Z is zero (values are below p, so Z ≡ 0 only as four zero words). No
 * branch, no secret address. */
static void double5(point *q) {
    PIECE(point_double5)(q->x, q->y, q->z, q->x, q->y, q->z);
    uint64_t nz = q->z[0] | q->z[1] | q->z[2] | q->z[3];
    uint64_t infinity = ((nz | (0 - nz)) >> 63) - 1; /* all ones iff Z = 0 */
    for (int k = 0; k < 4; k++) q->y[k] = (q->y[k] & ~infinity) | (MONT_ONE[k] & infinity);
}

/* The scalar k < 2^256 (four little-endian words) as `count` signed 5-bit digits,
 * k = sum of digit[i]·2^(5i), each in [-15, 16]: a digit above 16 becomes digit - 32
 * with a carry into the next. 52 digits hold any k (the top one in [0, 2]), 26 any
 * k < 2^129 (the top one in [0, 16]). Masks only. */
#define DIGITS 52
static void recode(int64_t *digit, int count, const fe k) {
    uint64_t carry = 0;
    for (int i = 0; i < count; i++) {
        int bit = 5 * i;
        uint64_t v = k[bit / 64] >> (bit % 64);
        if (bit % 64 > 59 && bit / 64 < 3) v |= k[bit / 64 + 1] << (64 - bit % 64); /* public */
        v = (v & 31) + carry;
        carry = (16 - v) >> 63; /* v > 16 */
        digit[i] = (int64_t)v - (int64_t)(carry << 5);
    }
}

/* tab[j] = j·p for j in [0, 16] (tab[0] the point at infinity (0 : 1 : 0)). p has the
 * group's prime order, so no j·p with 1 <= j <= 16 is the point at infinity: the
 * doubling need not be complete. */
static void window_table(point tab[17], const point *p) {
    memset(&tab[0], 0, sizeof tab[0]);
    memcpy(tab[0].y, MONT_ONE, sizeof(fe));
    tab[1] = *p;
    for (int i = 2; i < 17; i++) {
        if (i % 2 == 0)
            point_double(&tab[i], &tab[i / 2]);
        else
            point_add(&tab[i], &tab[i - 1], &tab[1]);
    }
}

#if GLV
/* The Gallant–Lambert–Vanstone split of libsecp256k1 (secp256k1_scalar_split_lambda):
 * an endomorphism (x, y) -> (beta·x, y) multiplies by lambda, and k = k1 + k2·lambda
 * (mod n) with |k1|, |k2| < 2^128, from c1 = round(k·g1 / 2^384), c2 = round(k·g2 /
 * 2^384): k1 = k - c1·a1 - c2·a2, k2 = c1·(-b1) - c2·b2, exact integers computed
 * modulo 2^256 (two's complement; the constants GLV_* are derived from lambda and n by
 * `cryptopt primitive`). Fixed loops and masks only. */

/* a·b mod 2^256. */
static void mul_lo(fe r, const fe a, const fe b) {
    uint64_t t[4] = {0, 0, 0, 0};
    for (int i = 0; i < 4; i++) {
        uint64_t carry = 0;
        for (int j = 0; i + j < 4; j++) {
            unsigned __int128 x = (unsigned __int128)a[i] * b[j] + t[i + j] + carry;
            t[i + j] = (uint64_t)x;
            carry = (uint64_t)(x >> 64);
        }
    }
    memcpy(r, t, sizeof(fe));
}

/* round(k·g / 2^384): the words 6 and 7 of the 8-word product plus 2^383. */
static void mul_shift_384(fe r, const fe k, const fe g) {
    uint64_t t[8] = {0};
    for (int i = 0; i < 4; i++) {
        uint64_t carry = 0;
        for (int j = 0; j < 4; j++) {
            unsigned __int128 x = (unsigned __int128)k[i] * g[j] + t[i + j] + carry;
            t[i + j] = (uint64_t)x;
            carry = (uint64_t)(x >> 64);
        }
        t[i + 4] = carry;
    }
    unsigned __int128 x = (unsigned __int128)t[5] + (1ULL << 63);
    x = (unsigned __int128)t[6] + (uint64_t)(x >> 64);
    r[0] = (uint64_t)x;
    r[1] = t[7] + (uint64_t)(x >> 64);
    r[2] = r[3] = 0;
}

/* a - b mod 2^256. */
static void sub_lo(fe r, const fe a, const fe b) {
    uint64_t borrow = 0;
    for (int i = 0; i < 4; i++) {
        unsigned __int128 d = (unsigned __int128)a[i] - b[i] - borrow;
        r[i] = (uint64_t)d;
        borrow = (uint64_t)(d >> 64) & 1;
    }
}

/* r = |a| for a two's complement a; all ones if a < 0, else 0. */
static uint64_t magnitude(fe r, const fe a) {
    uint64_t negative = 0 - (a[3] >> 63);
    uint64_t carry = negative & 1;
    for (int i = 0; i < 4; i++) {
        unsigned __int128 x = (unsigned __int128)(a[i] ^ negative) + carry;
        r[i] = (uint64_t)x;
        carry = (uint64_t)(x >> 64);
    }
    return negative;
}

#define HALF_DIGITS 26
/* q = k·p = k1·p + k2·(lambda·p): 26 windows of both halves, 125 doublings and 51
 * additions whatever k is; the second table is the first with x times beta. */
static void scalar_mult(point *q, const fe k, const point *p) {
    point tab[17], tab_l[17], t;
    window_table(tab, p);
    for (int i = 0; i < 17; i++) {
        PIECE(mul)(tab_l[i].x, tab[i].x, MONT_BETA);
        memcpy(tab_l[i].y, tab[i].y, sizeof(fe));
        memcpy(tab_l[i].z, tab[i].z, sizeof(fe));
    }
    fe c1, c2, x, y, k1, k2;
    mul_shift_384(c1, k, GLV_G1);
    mul_shift_384(c2, k, GLV_G2);
    mul_lo(x, c1, GLV_A1);
    mul_lo(y, c2, GLV_A2);
    sub_lo(k1, k, x);
    sub_lo(k1, k1, y);
    mul_lo(x, c1, GLV_MINUS_B1);
    mul_lo(y, c2, GLV_B2);
    sub_lo(k2, x, y);
    uint64_t flip1 = magnitude(k1, k1), flip2 = magnitude(k2, k2);
    int64_t d1[HALF_DIGITS], d2[HALF_DIGITS];
    recode(d1, HALF_DIGITS, k1);
    recode(d2, HALF_DIGITS, k2);
    select_signed(q, tab, d1[HALF_DIGITS - 1], flip1);
    select_signed(&t, tab_l, d2[HALF_DIGITS - 1], flip2);
    point_add(q, q, &t);
    for (int i = HALF_DIGITS - 2; i >= 0; i--) {
        double5(q);
        select_signed(&t, tab, d1[i], flip1);
        point_add(q, q, &t);
        select_signed(&t, tab_l, d2[i], flip2);
        point_add(q, q, &t);
    }
    memset(d1, 0, sizeof d1);
    memset(d2, 0, sizeof d2);
    memset(k1, 0, sizeof k1);
    memset(k2, 0, sizeof k2);
}
#else
/* q = k·p: a signed 5-bit fixed window from the top digit (255 doublings, 51 additions
 * of a table entry ±j·p, j <= 16, whatever k is). */
static void scalar_mult(point *q, const fe k, const point *p) {
    point tab[17], t;
    window_table(tab, p);
    int64_t digit[DIGITS];
    recode(digit, DIGITS, k);
    select_signed(q, tab, digit[DIGITS - 1], 0);
    for (int i = DIGITS - 2; i >= 0; i--) {
        double5(q);
        select_signed(&t, tab, digit[i], 0);
        point_add(q, q, &t);
    }
    memset(digit, 0, sizeof digit);
}
#endif

/* The peer's public key, SEC1 uncompressed (04 || x || y) or hybrid (06/07 || x || y,
 * the tag's low bit y's parity, as OpenSSL and libsecp256k1 accept it): coordinates
 * below p, on the curve. Public data: branches are fine. 0, or -1 if invalid. */
static int decode_point(point *r, const uint8_t pub[65]) {
    uint8_t tag = pub[0];
    if (tag != 0x04 && tag != 0x06 && tag != 0x07) return -1;
    fe x, y;
    load_be(x, pub + 1);
    load_be(y, pub + 33);
    if (!below(x, FIELD_P) || !below(y, FIELD_P)) return -1;
    if (tag != 0x04 && (y[0] & 1) != (tag & 1)) return -1;
    to_montgomery(r->x, x);
    to_montgomery(r->y, y);
    memcpy(r->z, MONT_ONE, sizeof(fe));
    /* y^2 = x^3 + a·x + b, both sides fully reduced (the pieces' outputs are below p). */
    fe lhs, rhs;
    PIECE(square)(lhs, r->y);
    PIECE(square)(rhs, r->x);
    PIECE(mul)(rhs, rhs, r->x);
#if A_IS_MINUS_3
    fe three_x;
    PIECE(add)(three_x, r->x, r->x);
    PIECE(add)(three_x, three_x, r->x);
    PIECE(sub)(rhs, rhs, three_x);
#endif
    PIECE(add)(rhs, rhs, CURVE_B);
    return memcmp(lhs, rhs, sizeof(fe)) == 0 ? 0 : -1;
}

#if HASHED
/* SHA-256 (FIPS 180-4) of one message of 33 bytes: libsecp256k1's default ECDH hash
 * input, (0x02 | y's parity) || x. No data-dependent branch or address. */
static uint32_t ror(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

static void sha256_33(uint8_t out[32], const uint8_t msg[33]) {
    static const uint32_t K[64] = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
        0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
        0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
        0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
        0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
        0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
        0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2};
    uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                     0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    uint8_t block[64] = {0};
    memcpy(block, msg, 33);
    block[33] = 0x80;
    block[62] = (33 * 8) >> 8; /* the message's length in bits, big-endian */
    block[63] = (uint8_t)(33 * 8);
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)block[4 * i] << 24 | (uint32_t)block[4 * i + 1] << 16 |
               (uint32_t)block[4 * i + 2] << 8 | block[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = hh + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) + K[i] +
                      w[i];
        uint32_t t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        hh = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 4; j++) out[4 * i + j] = (uint8_t)(h[i] >> (24 - 8 * j));
}
#endif

int ECDH(uint8_t out[32], const uint8_t priv[32], const uint8_t pub[65]) {
    point p;
    if (decode_point(&p, pub) != 0) {
        memset(out, 0, 32);
        return -1;
    }
    /* The scalar must be in [1, n-1]; otherwise 1 is used in its place (the same work)
     * and the result is all zero with -1, all by masks. */
    fe k;
    load_be(k, priv);
    uint64_t valid = below(k, ORDER_N) & (1 ^ is_zero(k));
    uint64_t keep = 0 - valid;
    k[0] = (k[0] & keep) | (1 & ~keep);
    for (int i = 1; i < 4; i++) k[i] &= keep;

    point q;
    scalar_mult(&q, k, &p);
    /* k in [1, n-1] and p of order n: q is never the point at infinity, z != 0. */
    fe zinv, x;
    invert(zinv, q.z);
    PIECE(mul)(x, q.x, zinv);
    from_montgomery(x, x);
#if HASHED
    fe y;
    PIECE(mul)(y, q.y, zinv);
    from_montgomery(y, y);
    uint8_t msg[33];
    msg[0] = (uint8_t)(0x02 | (y[0] & 1));
    store_be(msg + 1, x);
    sha256_33(out, msg);
#else
    store_be(out, x);
#endif
    for (int i = 0; i < 32; i++) out[i] &= (uint8_t)keep;
    return (int)valid - 1;
}
