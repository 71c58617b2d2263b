/* X25519 arithmetic written "as simply as possible" with C23 _BitInt, as in
 * McLoughlin's report: field elements are 255-bit integers, every operation is exact
 * arithmetic on wider integers followed by `% P`. clang compiles the `%` of a 510-bit
 * integer to a call of a generic division routine; cryptopt reads the same C through
 * LLVM IR and turns each `% P` into Crandall reduction (2^255 = 19 mod P).
 *
 *   clang-19 -O2 -S -emit-llvm x25519_bitint.c
 *   cryptopt optimize x25519_bitint.ll --function fe_mul
 *   cryptopt optimize x25519_bitint.ll --function x25519_ladderstep
 */
typedef unsigned _BitInt(255) fe;
typedef unsigned _BitInt(256) fe1;
typedef unsigned _BitInt(510) fe2;

#define P ((fe1)(((fe1)1 << 255) - 19))
#define P2 ((fe2)P)

static fe mul(fe a, fe b) { return (fe)(((fe2)a * (fe2)b) % P2); }
static fe add(fe a, fe b) { return (fe)(((fe1)a + (fe1)b) % P); }
static fe sub(fe a, fe b) { return (fe)(((fe1)a + P - (fe1)b) % P); }

void fe_mul(fe *r, const fe *a, const fe *b) { *r = mul(*a, *b); }

void fe_sq(fe *r, const fe *a) { *r = mul(*a, *a); }

/* One step of the RFC 7748 Montgomery ladder with the conditional swap folded in:
 * (x2, z2, x3, z3) swapped when `swap` is 1 (by masks, not a branch), then the
 * differential addition and doubling with base point x1; outputs first. */
void x25519_ladderstep(fe *x2o, fe *z2o, fe *x3o, fe *z3o, const fe *x1p, const fe *x2p,
                       const fe *z2p, const fe *x3p, const fe *z3p, const fe *swapp) {
  fe x1 = *x1p, x2 = *x2p, z2 = *z2p, x3 = *x3p, z3 = *z3p;
  fe mask = (fe)0 - (*swapp & 1);
  fe t = mask & (x2 ^ x3);
  x2 ^= t;
  x3 ^= t;
  t = mask & (z2 ^ z3);
  z2 ^= t;
  z3 ^= t;
  fe a = add(x2, z2), aa = mul(a, a);
  fe b = sub(x2, z2), bb = mul(b, b);
  fe e = sub(aa, bb);
  fe c = add(x3, z3), d = sub(x3, z3);
  fe da = mul(d, a), cb = mul(c, b);
  fe s = add(da, cb), u = sub(da, cb);
  *x3o = mul(s, s);
  *z3o = mul(x1, mul(u, u));
  *x2o = mul(aa, bb);
  *z2o = mul(e, add(aa, mul((fe)121665, e)));
}
