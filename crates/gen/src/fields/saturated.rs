//! Saturated Solinas arithmetic (Fiat's `solinas_reduction`, e.g. `curve25519_solinas`):
//! `n` full 64-bit limbs holding any value below `2^(64n)`, congruent to the element
//! modulo `p`, for moduli where `c = 2^(64n) mod p` is small (`c < 2^32`): curve25519's
//! `2^256 ≡ 38`. Elements are never fully reduced; every operation keeps them below
//! `2^(64n)` by folding what passes the top back in as `c` times it.
//!
//! ```text
//!   mul        2n-word product (schoolbook rows); hi·c added to lo (n+1 words, top
//!              ≤ c); fold: top·c added to word 0 with the carry chain; a last carry
//!              adds c to word 0 (cannot carry: the words are then below c²); a power
//!              of two c (p127's 2) multiplies by shifts
//!   sqr        the same product from n(n-1)/2 cross products, doubled, plus the n
//!              squares (instead of n² products)
//!   add        carry chain; a carry adds c (cmovznz, never a branch); fold again
//!   sub        borrow chain; a borrow subtracts c; a second borrow subtracts c from
//!              word 0 (cannot borrow again)
//!   mul_small  k·a as n+1 words (k < 2^32), then the fold
//!   mul_scaled k·a·b with one reduction: k·lo + (k·c)·hi of the unreduced product
//!              (n+1 words), then the fold (the formulas' constant after a product)
//!   wide       mul_scaled's n+1 words left unfolded, their sums and differences (a
//!              difference plus a multiple of 2^(64n) − c ≡ 0 that keeps it
//!              non-negative) n+1 words too, one fold at the end (`settle`): a
//!              Hadamard transform of scaled products folds 4 times instead of 12
//! ```
//!
//! Soundness of each last step (the one whose carry or borrow is dropped) is the
//! argument in its comment, and the tests check it on edge values (all-ones words, the
//! largest products). It must never drop a carry that can be nonzero.

use num_bigint::BigUint;

use cryptopt_ir::func::{Function, Op, Param, Ty};

use super::build::{Builder, Opnd};
use super::montgomery::{arg_words, k, Words, W, ZERO};
use super::product;
use super::{FieldError, FieldOp, FieldSpec};

const MAX: u128 = u64::MAX as u128;

/// `c = 2^(64n) mod p` when it is below 2^32 (the representation's condition).
pub(crate) fn fold_constant(p: &BigUint, n: u32) -> Option<u64> {
    let c = (BigUint::from(1u32) << (64 * n)) % p;
    let digits: Vec<u64> = c.iter_u64_digits().collect();
    match digits.as_slice() {
        [] => None,
        [d] if *d < 1 << 32 => Some(*d),
        _ => None,
    }
}

/// `t` as an `n`-word number (`t` in word 0, the rest 0).
fn word0(t: W, n: usize) -> Vec<W> {
    let mut w = vec![ZERO; n];
    w[0] = t;
    w
}

/// The arithmetic of one field, over a builder's words.
pub(crate) struct Sat {
    pub c: u64,
    pub n: usize,
}

impl Sat {
    /// `c` if the bit is set, else 0 (`cmovznz`: never a branch).
    fn c_if(&self, g: &mut Words, bit: W) -> W {
        W {
            o: g.b.op1(
                Op::Cmovznz,
                &[bit.o, Opnd::K(0), Opnd::K(self.c as u128)],
                Ty::U64,
            ),
            max: self.c as u128,
        }
    }

    /// `s ± c·bit` over the words, with the carry (borrow) out. For c = 2 the bit is
    /// both the carry-in and the addend of word 0 (`s0 ± bit ± bit`: no select, no
    /// constant register); otherwise `c_if` is word 0's addend.
    fn add_c(&self, g: &mut Words, s: &[W], bit: W, sub: bool) -> (Vec<W>, W) {
        let step = |g: &mut Words, c: W, x: W, y: W| {
            if sub {
                g.sbb(c, x, y)
            } else {
                g.adc(c, x, y)
            }
        };
        let (carry_in, addend) = if self.c == 2 {
            (bit, bit)
        } else {
            (ZERO, self.c_if(g, bit))
        };
        let mut out = Vec::with_capacity(s.len());
        let (w, mut carry) = step(g, carry_in, s[0], addend);
        out.push(w);
        for &x in &s[1..] {
            let (w, c) = step(g, carry, x, ZERO);
            out.push(w);
            carry = c;
        }
        (out, carry)
    }

    /// Word `w ± c·bit` where the caller has shown it cannot carry (borrow).
    fn add_c_word(&self, g: &mut Words, w: W, bit: W, sub: bool) -> W {
        let mut s = self.add_c(g, &[w], bit, sub).0;
        s.remove(0)
    }

    /// `s + top·2^(64n)` folded to n words: `s + top·c`, then a last carry adds `c`.
    /// `top·c` fits a word (top ≤ 2^32, c < 2^32).
    fn fold(&self, g: &mut Words, s: &[W], top: W) -> Vec<W> {
        let (mut out, carry) = match top.max {
            0 => return s.to_vec(),
            1 => self.add_c(g, s, top, false),
            m => {
                let t = W {
                    o: g.b.op1(Op::Mul, &[top.o, Opnd::K(self.c as u128)], Ty::U64),
                    max: m * self.c as u128,
                };
                g.adc_chain(s, &word0(t, s.len()))
            }
        };
        if carry.max == 0 {
            return out;
        }
        // A carry out means s + t ≥ 2^(64n) with s < 2^(64n) and t ≤ max·c, so the words
        // are now below t ≤ 2^64 - c: adding c (or 0) to word 0 cannot carry.
        out[0] = self.add_c_word(g, out[0], carry, false);
        out
    }

    pub fn add(&self, g: &mut Words, a: &[W], b: &[W]) -> Vec<W> {
        let (s, c) = g.adc_chain(a, b);
        self.fold(g, &s, c)
    }

    /// `a - b`: a borrow means the words stand for `a - b + 2^(64n)`, so `c` is
    /// subtracted; if that borrows again the words are at least `2^(64n) - c`, and word
    /// 0 at least `2^64 - c ≥ c`: subtracting `c` from it once more cannot borrow.
    pub fn sub(&self, g: &mut Words, a: &[W], b: &[W]) -> Vec<W> {
        let (d, borrow) = g.sbb_chain(a, b);
        let (mut out, borrow) = self.add_c(g, &d, borrow, true);
        out[0] = self.add_c_word(g, out[0], borrow, true);
        out
    }

    pub fn mul(&self, g: &mut Words, a: &[W], b: &[W]) -> Vec<W> {
        let acc = product::product(g, a, b);
        self.reduce(g, &acc)
    }

    /// Whether [`Sat::mul_scaled_wide`] takes the constant `k`: the fold's top word times c
    /// must stay far below 2^64 (the top is below `k + k·c + 1`).
    pub fn scales(&self, k: u64) -> bool {
        let (k, c) = (k as u128, self.c as u128);
        k > 0 && (k + k * c + 1) * c < 1 << 63
    }

    /// `k·a·b` (`a²` with `square`) for a small `k` ([`Sat::scales`]), with one
    /// reduction: the 2n-word product `lo + 2^(64n)·hi` is congruent to
    /// `k·lo + (k·c)·hi`, n + 1 words, then the fold.
    /// `k·a·b` (`a²` with `square`) for a small `k` ([`Sat::scales`]) before its one
    /// fold ([`Sat::settle`]): n + 1 words (the top below `k + k·c + 1`).
    pub fn mul_scaled_wide(
        &self,
        g: &mut Words,
        a: &[W],
        b: &[W],
        square: bool,
        k_: u64,
    ) -> Vec<W> {
        let n = self.n;
        let acc = if square {
            product::square(g, a)
        } else {
            product::product(g, a, b)
        };
        let lo = g.mul_word(k(k_), &acc[..n]);
        let hi = g.mul_word(k(k_ * self.c), &acc[n..]);
        let (mut s, carry) = g.adc_chain(&lo[..n], &hi[..n]);
        let (top, _) = g.adc(carry, lo[n], hi[n]);
        s.push(top);
        s
    }

    /// An element of n words, or a wide one of n + 1, as n + 1 words.
    fn widen(&self, a: &[W]) -> Vec<W> {
        let mut w = a.to_vec();
        if w.len() == self.n {
            w.push(ZERO);
        }
        debug_assert_eq!(w.len(), self.n + 1);
        w
    }

    /// `a + b` of n or n + 1 words, as n + 1 words, unfolded. No carry leaves the top
    /// word: `Words::adc` adds the top words without a carry out only where their
    /// bounds show it cannot occur, and the caller keeps the tops small
    /// ([`Sat::WIDE_TOP`]).
    pub fn add_wide(&self, g: &mut Words, a: &[W], b: &[W]) -> Vec<W> {
        let (s, carry) = g.adc_chain(&self.widen(a), &self.widen(b));
        assert_eq!(carry.max, 0, "wide tops are far below 2^64");
        s
    }

    /// `a − b + m·Q` of n or n + 1 words, as n + 1 words, unfolded, where `Q = 2^(64n)
    /// − c ≡ 0 (mod p)` and `m = top(b) + 2`, so that `m·Q ≥ b` and the result is a
    /// non-negative number congruent to `a − b`, below `(top(a) + m + 1)·2^(64n)`.
    /// `m·Q` is `m − 1` in the top word, `2^64 − 1` in words 1 to n − 1 and `2^64 − m·c`
    /// in word 0. The chains compute `a − b + m·Q` modulo `2^(64(n+1))` (the last
    /// borrow and carry dropped), which is the number itself since it lies in
    /// `[0, 2^(64(n+1)))`.
    pub fn sub_wide(&self, g: &mut Words, a: &[W], b: &[W]) -> Vec<W> {
        let n = self.n;
        let (a, b) = (self.widen(a), self.widen(b));
        let m = b[n].max + 2;
        let mc = m * self.c as u128;
        assert!(mc < 1 << 63, "wide tops are far below 2^64");
        let mut offset = vec![k(((1u128 << 64) - mc) as u64)];
        offset.extend(std::iter::repeat_n(k(u64::MAX), n - 1));
        offset.push(k((m - 1) as u64));
        let (d, _) = g.sbb_chain(&a, &b);
        let (mut r, _) = g.adc_chain(&d, &offset);
        r[n].max = a[n].max + m;
        r
    }

    /// The largest top word a wide value may have: its fold multiplies the top by `c`
    /// into one word ([`Sat::fold`]).
    pub const WIDE_TOP: u128 = 1 << 31;

    /// A value of n + 1 words folded to n (n words are returned as they are).
    pub fn settle(&self, g: &mut Words, a: &[W]) -> Vec<W> {
        if a.len() == self.n {
            return a.to_vec();
        }
        self.fold(g, &a[..self.n], a[self.n])
    }

    /// `a²`: the cross products `a_i·a_j` (i < j) once each as rows, doubled, plus the
    /// squares `a_i²` on the diagonal; the 2n-word product `mul` makes, from fewer
    /// multiplications.
    pub fn square(&self, g: &mut Words, a: &[W]) -> Vec<W> {
        let product = product::square(g, a);
        self.reduce(g, &product)
    }

    /// `lo + hi·2^(64n)` (2n words) to n words: `lo + hi·c` (n words and a top ≤ c),
    /// then the fold.
    fn reduce(&self, g: &mut Words, acc: &[W]) -> Vec<W> {
        let n = self.n;
        let m = g.mul_word(k(self.c), &acc[n..]);
        let (s, c) = g.adc_chain(&acc[..n], &m[..n]);
        let (top, _) = g.adc(c, m[n], ZERO);
        self.fold(g, &s, top)
    }

    /// `k·a` for `k < 2^32`: n+1 words, then the fold.
    pub fn mul_small(&self, g: &mut Words, a: &[W], k_: u64) -> Vec<W> {
        let m = g.mul_word(k(k_), a);
        self.fold(g, &m[..self.n], m[self.n])
    }
}

pub(crate) fn generate(spec: &FieldSpec, op: FieldOp) -> Result<Function, FieldError> {
    let n = spec.limbs() as usize;
    let c = fold_constant(&spec.p, n as u32).expect("a validated saturated spec");
    let arr = |name: &str| Param::array(name, Ty::U64, &vec![MAX; n]);
    let params: Vec<Param> = (1..=op.arity()).map(|i| arr(&format!("arg{i}"))).collect();
    let mut g = Words {
        b: Builder::new(spec.function_name(op), params, vec![arr("out1")]),
    };
    let s = Sat { c, n };
    let arg = |a: u32| arg_words(a, n);
    let out = match op {
        FieldOp::Mul => s.mul(&mut g, &arg(0), &arg(1)),
        FieldOp::Square => s.square(&mut g, &arg(0)),
        FieldOp::Add => s.add(&mut g, &arg(0), &arg(1)),
        FieldOp::Sub => s.sub(&mut g, &arg(0), &arg(1)),
        FieldOp::Opp => s.sub(&mut g, &vec![ZERO; n], &arg(0)),
    };
    for (i, w) in out.into_iter().enumerate() {
        g.b.store(0, i as u32, w.o);
    }
    g.b.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_traits::One;
    use rand::{Rng, SeedableRng};

    /// The wide operations as one function of four elements `x`: the Hadamard-like
    /// combination `(k₀x₀² − k₁x₁²) − (k₂x₂x₃ + k₃x₃²)` and `(k₀x₀² − k₁x₁²) + (k₂x₂x₃ +
    /// k₃x₃²)` of wide scaled products (two levels of wide sums and differences), each
    /// settled once, run by the interpreter on every case against num-bigint mod p; the
    /// results must be n words (below `2^(64n)`, which the declared bounds check).
    fn check(p: &BigUint, n: usize, ks: [u64; 4], cases: &[[BigUint; 4]]) {
        let arr = |name: String| Param::array(&name, Ty::U64, &vec![MAX; n]);
        let params = (1..=4).map(|i| arr(format!("arg{i}"))).collect();
        let returns = vec![arr("out1".into()), arr("out2".into())];
        let mut g = Words {
            b: Builder::new("wide".into(), params, returns),
        };
        let s = Sat {
            c: fold_constant(p, n as u32).expect("a saturated modulus"),
            n,
        };
        let x: Vec<Vec<W>> = (0..4).map(|a| arg_words(a, n)).collect();
        let p0 = s.mul_scaled_wide(&mut g, &x[0], &x[0], true, ks[0]);
        let p1 = s.mul_scaled_wide(&mut g, &x[1], &x[1], true, ks[1]);
        let p2 = s.mul_scaled_wide(&mut g, &x[2], &x[3], false, ks[2]);
        let p3 = s.mul_scaled_wide(&mut g, &x[3], &x[3], true, ks[3]);
        let d = s.sub_wide(&mut g, &p0, &p1);
        let e = s.add_wide(&mut g, &p2, &p3);
        let outs = [s.sub_wide(&mut g, &d, &e), s.add_wide(&mut g, &d, &e)];
        for (r, out) in outs.iter().enumerate() {
            assert!(out[n].max < Sat::WIDE_TOP);
            for (i, w) in s.settle(&mut g, out).into_iter().enumerate() {
                g.b.store(r as u32, i as u32, w.o);
            }
        }
        let f = g.b.finish().expect("a valid function");
        let limbs = |x: &BigUint| -> Vec<u128> {
            let mut w: Vec<u128> = x.iter_u64_digits().map(u128::from).collect();
            w.resize(n, 0);
            w
        };
        for case in cases {
            let input: Vec<Vec<u128>> = case.iter().map(limbs).collect();
            let got = cryptopt_ir::interp::run(&f, &input)
                .unwrap_or_else(|e| panic!("{p:#x}: {e} on {case:x?}"));
            let value = |o: &[u128]| {
                o.iter()
                    .rev()
                    .fold(BigUint::ZERO, |acc, &w| (acc << 64) + w)
                    % p
            };
            let [a, b, c, d] = case;
            let k = |i: usize| BigUint::from(ks[i]);
            let dd = (k(0) * a * a % p + p - k(1) * b * b % p) % p;
            let ee = (k(2) * c * d + k(3) * d * d) % p;
            let want = [(&dd + p - &ee) % p, (&dd + &ee) % p];
            for (o, w) in got.iter().zip(&want) {
                assert_eq!(&value(o), w, "{p:#x} {ks:?}: {case:x?}");
            }
        }
    }

    #[test]
    fn wide_sums_and_differences_settle_to_the_field_element() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(127);
        for (p, n, ks) in [
            // The Kummer step's constants (|c1|, |c2|), and 1.
            ("2^127 - 1", 2, [833, 2499, 1617, 561]),
            ("2^127 - 1", 2, [114, 57, 66, 418]),
            ("2^127 - 1", 2, [1, 1, 1, 1]),
            // A fold constant other than 2.
            ("2^255 - 19", 4, [121666, 3, 1, 5]),
        ] {
            let p = crate::fields::parse_prime(p).expect("a prime");
            let top: BigUint = (BigUint::one() << (64 * n)) - 1u32;
            let mut cases: Vec<[BigUint; 4]> = vec![
                // All-ones words everywhere: the largest products and tops.
                [top.clone(), top.clone(), top.clone(), top.clone()],
                // The subtrahends largest, the minuends zero: the offsets' bound.
                [BigUint::ZERO, top.clone(), top.clone(), top.clone()],
                [BigUint::ZERO; 4],
                [p.clone(), p.clone() - 1u32, p.clone() + 1u32, top.clone()],
            ];
            for _ in 0..2000 {
                cases.push(std::array::from_fn(|_| {
                    if rng.random::<u8>() < 64 {
                        top.clone() - rng.random::<u8>()
                    } else {
                        (0..n).fold(BigUint::ZERO, |acc, _| (acc << 64) + rng.random::<u64>())
                    }
                }));
            }
            check(&p, n, ks, &cases);
        }
    }
}
