//! Word-by-word Montgomery arithmetic on saturated 64-bit limbs (Fiat's
//! `word_by_word_montgomery`), for any odd modulus `p < 2^(64n)`.
//!
//! `mul` (inputs `a, b < p`): `T = 0`; for each limb `a_i`: `T += a_i·b` (n+1 words plus
//! a carry word), `m = T_0·(-p⁻¹ mod 2^64)`, `T = (T + m·p) / 2^64`; finally subtract `p`
//! once if `T ≥ p`, chosen with `cmovznz` on the borrow. `T < 2p` throughout, so the
//! result is `a·b·R⁻¹ mod p`, fully reduced.
//!
//! The `m·p` of each step costs one product per nonzero limb of p, except for two
//! special forms ([`Fold`]): p_0 = 2^64 − 1 (P-256: m·p is `m·q·2^64 − m`, one product
//! and two shifts) and p = 2^64n − c with c of few words (secp256k1: one product `m·c`;
//! P-384: two). The quotient word takes no product where −p⁻¹ mod 2^64 is 1 or 2^s + 1.
//!
//! Additions go through [`Words::adc`], which knows an upper bound of every word and
//! emits a plain `+` where no carry can occur, drops literal zeros, and skips zero
//! limbs of `p` (as Fiat's own partial evaluation does, e.g. for p256's third limb).

use num_bigint::BigUint;

use cryptopt_ir::func::{Function, Op, Param, Ty};

use super::build::{Builder, Opnd};
use super::{FieldError, FieldOp, FieldSpec};

const MAX: u128 = u64::MAX as u128;

/// A 64-bit word (or a carry bit) and its upper bound.
#[derive(Clone, Copy, Debug)]
pub(crate) struct W {
    pub o: Opnd,
    pub max: u128,
}

pub(crate) const ZERO: W = W {
    o: Opnd::K(0),
    max: 0,
};

pub(crate) fn k(c: u64) -> W {
    W {
        o: Opnd::K(c as u128),
        max: c as u128,
    }
}

fn is_zero(w: &W) -> bool {
    w.o == Opnd::K(0)
}

pub(crate) struct Words {
    pub b: Builder,
}

impl Words {
    /// `c + x + y` as (sum word, carry bit).
    pub(crate) fn adc(&mut self, c: W, x: W, y: W) -> (W, W) {
        let total = c.max + x.max + y.max;
        if total <= MAX {
            let terms: Vec<W> = [c, x, y].into_iter().filter(|w| !is_zero(w)).collect();
            let sum = match terms.len() {
                0 => ZERO,
                1 => terms[0],
                _ => {
                    let ops: Vec<Opnd> = terms.iter().map(|w| w.o).collect();
                    let ty = if total <= 1 { Ty::U1 } else { Ty::U64 };
                    W {
                        o: self.b.op1(Op::Add, &ops, ty),
                        max: total,
                    }
                }
            };
            return (sum, ZERO);
        }
        let (s, carry) = self.b.op2(
            Op::AddCarry { size: 64 },
            &[c.o, x.o, y.o],
            [Ty::U64, Ty::U1],
        );
        (W { o: s, max: MAX }, W { o: carry, max: 1 })
    }

    /// `a + b` word by word (equal lengths), an add-with-carry chain from carry 0: the
    /// sum words and the carry out.
    pub(crate) fn adc_chain(&mut self, a: &[W], b: &[W]) -> (Vec<W>, W) {
        self.chain(a, b, Words::adc)
    }

    /// `a - b` word by word (equal lengths), a subtract-with-borrow chain from borrow 0:
    /// the difference words and the borrow out.
    pub(crate) fn sbb_chain(&mut self, a: &[W], b: &[W]) -> (Vec<W>, W) {
        self.chain(a, b, Words::sbb)
    }

    /// `step(flag, x, y)` over the words of `a` and `b` (equal lengths) from flag 0, each
    /// step's flag out into the next: the result words and the last flag.
    fn chain(&mut self, a: &[W], b: &[W], step: fn(&mut Words, W, W, W) -> (W, W)) -> (Vec<W>, W) {
        debug_assert_eq!(a.len(), b.len());
        let mut out = Vec::with_capacity(a.len());
        let mut flag = ZERO;
        for (&x, &y) in a.iter().zip(b) {
            let (z, f) = step(self, flag, x, y);
            out.push(z);
            flag = f;
        }
        (out, flag)
    }

    /// `x - y - c` as (difference word, borrow bit).
    pub(crate) fn sbb(&mut self, c: W, x: W, y: W) -> (W, W) {
        let (d, borrow) = self.b.op2(
            Op::SubBorrow { size: 64 },
            &[c.o, x.o, y.o],
            [Ty::U64, Ty::U1],
        );
        (W { o: d, max: MAX }, W { o: borrow, max: 1 })
    }

    /// `top − borrow` for a top word that pays the borrow out of the words below it, the
    /// whole value being known not negative: neither wraps nor exceeds `top`.
    pub(crate) fn pay(&mut self, top: W, borrow: W) -> W {
        if is_zero(&borrow) {
            return top;
        }
        W {
            o: self.b.op1(Op::Sub, &[top.o, borrow.o], Ty::U64),
            max: top.max,
        }
    }

    /// `x·y` as (low, high) words.
    pub(crate) fn mulx(&mut self, x: W, y: W) -> (W, W) {
        if is_zero(&x) || is_zero(&y) {
            return (ZERO, ZERO);
        }
        if y.o == Opnd::K(1) {
            return (x, ZERO);
        }
        // A power of two on either side is two shifts (saturated Solinas multiplies by
        // its c as the first factor: p127's 2). Other constants stay where they are:
        // code generation's default puts the first factor in rdx, where one constant
        // serves consecutive products.
        if let Opnd::K(c) = y.o {
            if c.is_power_of_two() && c < 1 << 64 {
                return self.shift_pair(x, c.trailing_zeros());
            }
        }
        if let (Opnd::K(c), false) = (x.o, matches!(y.o, Opnd::K(_))) {
            if c.is_power_of_two() && c > 1 && c < 1 << 64 {
                return self.shift_pair(y, c.trailing_zeros());
            }
        }
        let max = x.max * y.max;
        let (lo, hi) = self
            .b
            .op2(Op::Mulx { size: 64 }, &[x.o, y.o], [Ty::U64, Ty::U64]);
        (
            W {
                o: lo,
                max: max.min(MAX),
            },
            W {
                o: hi,
                max: max >> 64,
            },
        )
    }

    /// `x·2^k` (0 < k < 64) as (low, high) words: two shifts, no multiplier.
    fn shift_pair(&mut self, x: W, k: u32) -> (W, W) {
        let lo = self.b.op1(Op::Shl, &[x.o, Opnd::K(k as u128)], Ty::U64);
        let hi = self
            .b
            .op1(Op::Shr, &[x.o, Opnd::K(64 - k as u128)], Ty::U64);
        (
            W {
                o: lo,
                max: (x.max << k).min(MAX),
            },
            W {
                o: hi,
                max: x.max >> (64 - k),
            },
        )
    }

    /// `x·(y_0 … y_{n-1})` as n+1 words: low halves plus shifted high halves.
    pub(crate) fn mul_word(&mut self, x: W, ys: &[W]) -> Vec<W> {
        let n = ys.len();
        // Fiat multiplies from the top limb down.
        let mut prods = vec![(ZERO, ZERO); n];
        for j in (0..n).rev() {
            prods[j] = self.mulx(x, ys[j]);
        }
        // Word j ≥ 1 is hi_{j-1} + lo_j (lo_n = 0).
        let his: Vec<W> = prods.iter().map(|p| p.1).collect();
        let los: Vec<W> = prods[1..].iter().map(|p| p.0).chain([ZERO]).collect();
        let (upper, c) = self.adc_chain(&his, &los);
        debug_assert!(is_zero(&c), "the top word of a limb product cannot carry");
        let mut out = Vec::with_capacity(n + 1);
        out.push(prods[0].0);
        out.extend(upper);
        out
    }
}

/// The n words of argument `a`, each any 64-bit value.
pub(crate) fn arg_words(a: u32, n: usize) -> Vec<W> {
    (0..n as u32)
        .map(|i| W {
            o: Opnd::Arg(a, i),
            max: MAX,
        })
        .collect()
}

pub(crate) fn p_limbs(p: &BigUint, n: usize) -> Vec<u64> {
    let mut limbs: Vec<u64> = p.iter_u64_digits().collect();
    limbs.resize(n, 0);
    limbs
}

/// `-p⁻¹ mod 2^64` (p odd), by Newton's iteration.
fn m_prime(p0: u64) -> u64 {
    let mut inv: u64 = 1;
    for _ in 0..6 {
        inv = inv.wrapping_mul(2u64.wrapping_sub(p0.wrapping_mul(inv)));
    }
    debug_assert_eq!(p0.wrapping_mul(inv), 1);
    inv.wrapping_neg()
}

pub(crate) fn generate(spec: &FieldSpec, op: FieldOp) -> Result<Function, FieldError> {
    let n = spec.limbs() as usize;
    let arr = |name: &str| Param::array(name, Ty::U64, &vec![MAX; n]);
    let params: Vec<Param> = (1..=op.arity()).map(|i| arr(&format!("arg{i}"))).collect();
    let mut g = Words {
        b: Builder::new(spec.function_name(op), params, vec![arr("out1")]),
    };
    let p: Vec<W> = p_limbs(&spec.p, n).into_iter().map(k).collect();
    let a = arg_words(0, n);
    let b = match op {
        FieldOp::Mul | FieldOp::Add | FieldOp::Sub => arg_words(1, n),
        _ => a.clone(),
    };
    let out = match op {
        FieldOp::Mul | FieldOp::Square => mul(&mut g, &p, &a, &b),
        FieldOp::Add => add(&mut g, &p, &a, &b),
        FieldOp::Sub => sub(&mut g, &p, &a, &b),
        FieldOp::Opp => {
            let zeros = vec![ZERO; n];
            sub(&mut g, &p, &zeros, &a)
        }
    };
    for (i, w) in out.into_iter().enumerate() {
        g.b.store(0, i as u32, w.o);
    }
    g.b.finish()
}

/// `a·b·R⁻¹ mod p`, fully reduced (inputs below p).
pub(crate) fn mul(g: &mut Words, p: &[W], a: &[W], b: &[W]) -> Vec<W> {
    let (t, top) = mul_sum(g, p, &[(a, b)]);
    reduce(g, p, t, top, 1)
}

/// `(a·b + c·d)·R⁻¹ mod p`, or `(a·b − c·d)·R⁻¹` with `minus` (as `a·b + c·(p − d)`),
/// fully reduced, with one Montgomery reduction for both products (inputs below p).
pub(crate) fn mul_add(g: &mut Words, p: &[W], [a, b, c, d]: [&[W]; 4], minus: bool) -> Vec<W> {
    let neg;
    let d = if minus {
        // p − d: no borrow, d < p.
        neg = g.sbb_chain(p, d).0;
        &neg
    } else {
        d
    };
    let (t, top) = mul_sum(g, p, &[(a, b), (c, d)]);
    reduce(g, p, t, top, 2)
}

/// `T = (Σ a·b)·R⁻¹` over the k `pairs`, word by word: for each limb i, `T += Σ a_i·b`,
/// `m = T_0·(-p⁻¹) mod 2^64`, `T = (T + m·p) / 2^64`. Returned as n words and a top word
/// (a sum of carries). Exact, and `T·R = Σ a·b + M·p` with `M < R`, so for operands below
/// p, `T < k·p + p`: [`reduce`] with k subtractions brings it below p.
fn mul_sum(g: &mut Words, p: &[W], pairs: &[(&[W], &[W])]) -> (Vec<W>, W) {
    mul_sum_by(g, p, pairs, &Step::of(p, MAX_PSEUDO_WORDS))
}

/// [`mul_sum`] with each step's `m·p` added as `step` says.
fn mul_sum_by(g: &mut Words, p: &[W], pairs: &[(&[W], &[W])], step: &Step) -> (Vec<W>, W) {
    let n = p.len();
    let mut t: Vec<W> = vec![ZERO; n];
    let mut top = ZERO;
    for i in 0..n {
        // S = T + Σ a_i·b: n+1 words, and `over` (the carries out of the top word).
        let mut s = t;
        s.push(top);
        let mut over = ZERO;
        for &(a, b) in pairs {
            let prod = g.mul_word(a[i], b);
            let (sum, c) = g.adc_chain(&s, &prod);
            s = sum;
            over = g.adc(ZERO, over, c).0;
        }
        (t, top) = step.apply(g, p, &s, over);
    }
    (t, top)
}

/// `(L + M·p) / R` for the n words `L` (any value below R), with `M < R` chosen word by
/// word so that the sum is divisible (Montgomery's REDC of a low half): n words `t`, a
/// top word and a borrow the top owes, `t + R·(top − owed)`, at most `p` (the sum is
/// below `R + R·p`). The borrow is 0 on every input; it is returned so that the value
/// is an identity of the words, for the checker, rather than a fact about ranges.
/// With `by_form` false, `m·p` is added as one product per nonzero limb of p whatever
/// its form (as Fiat does).
pub(crate) fn redc_low(g: &mut Words, p: &[W], low: &[W], by_form: bool) -> (Vec<W>, W, W) {
    let step = Step {
        mp: m_prime(p[0].max as u64),
        fold: if by_form {
            Fold::of(p, MAX_PSEUDO_WORDS)
        } else {
            Fold::Full
        },
    };
    if let Fold::Pseudo(c) = &step.fold {
        if let [c] = c[..] {
            let (t, owed) = redc_pseudo(g, &step, c, low);
            return (t, ZERO, owed);
        }
    }
    let mut t = low.to_vec();
    let mut top = ZERO;
    for _ in 0..p.len() {
        let mut s = t;
        s.push(top);
        (t, top) = step.apply(g, p, &s, ZERO);
    }
    (t, top, ZERO)
}

/// REDC for `p = 2^64n − c` with a one-word c as one borrow chain (the structure of
/// s2n-bignum's `bignum_montsqr_p256k1`): `(L + M·p)/R = M − (M·c − L)/R`, where
/// `M·c − L` is `Σ 2^64(i+1)·⌊m_i·c / 2^64⌋` less the words of L above word 0 (word i of
/// `L − M·c` is zero by the choice of m_i, with no borrow). So the chain subtracts
/// `⌊m_i·c / 2^64⌋` at word i + 1 of `(L_1 … L_{n−1}, m_0 … m_{n−1})`, each m_i the
/// chain's word i (L_0 for m_0) times −p⁻¹; its last borrow (returned) is 0, the value
/// being below `p + 1 ≤ R`. Each quotient's borrow waits in the chain instead of
/// rippling through the words above it as [`Step::apply`]'s does.
fn redc_pseudo(g: &mut Words, step: &Step, c: W, low: &[W]) -> (Vec<W>, W) {
    let n = low.len();
    let mut ms: Vec<W> = Vec::with_capacity(n);
    let mut word = low[0];
    let mut borrow = ZERO;
    let mut high = ZERO;
    for i in 0..n {
        let m = step.quotient(g, word);
        ms.push(m);
        let h = g.mulx(m, c).1;
        if i + 1 < n {
            (word, borrow) = g.sbb(borrow, low[i + 1], h);
        } else {
            high = h;
        }
    }
    let mut out = Vec::with_capacity(n);
    for (j, &m) in ms.iter().enumerate() {
        let sub = if j == 0 { high } else { ZERO };
        let (w, b) = g.sbb(borrow, m, sub);
        out.push(w);
        borrow = b;
    }
    (out, borrow)
}

/// One Montgomery step: `m = S_0·(−p⁻¹) mod 2^64`, then `(S + m·p) / 2^64`, with `m·p`
/// added as the prime's form allows ([`Fold`]).
struct Step {
    mp: u64,
    fold: Fold,
}

impl Step {
    fn of(p: &[W], pseudo_words: usize) -> Step {
        Step {
            mp: m_prime(p[0].max as u64),
            fold: Fold::of(p, pseudo_words),
        }
    }

    /// `(S + m·p) / 2^64` for S given as n+1 words `s` plus `over` (carries out of its top
    /// word): n words and a top word.
    fn apply(&self, g: &mut Words, p: &[W], s: &[W], over: W) -> (Vec<W>, W) {
        let n = p.len();
        let m = self.quotient(g, s[0]);
        match &self.fold {
            Fold::Full => {
                let mq = g.mul_word(m, p);
                // Word 0 of S + m·p is 0 by the choice of m: dropped (the division).
                let (mut next, c) = g.adc_chain(s, &mq);
                next.remove(0);
                (next, g.adc(ZERO, c, over).0)
            }
            Fold::MinusOne(q) => {
                // m·p = m·q·2^64 − m and m = S_0: S − m has word 0 zero and no borrow,
                // so (S + m·p) / 2^64 = S_{1..} + m·q.
                let mq = g.mul_word(m, q);
                let (next, c) = g.adc_chain(&s[1..], &mq);
                (next, g.adc(ZERO, c, over).0)
            }
            Fold::Pseudo(c) => {
                // m·p = m·2^64n − m·c with low(m·c) = S_0: (S + m·p) / 2^64 =
                // S_{1..} + m·2^64(n−1) − (m·c)_{1..}, never negative.
                let mc = g.mul_word(m, c);
                let mut next = s[1..].to_vec();
                let (w, carry) = g.adc(ZERO, next[n - 1], m);
                next[n - 1] = w;
                let mut subtrahend = vec![ZERO; n];
                subtrahend[..c.len()].copy_from_slice(&mc[1..]);
                let (next, borrow) = g.sbb_chain(&next, &subtrahend);
                let up = g.adc(ZERO, over, carry).0;
                // The borrow out of word n−1 is paid by the top word.
                (next, g.pay(up, borrow))
            }
        }
    }

    /// `m = S_0·(−p⁻¹) mod 2^64`: `S_0` itself where −p⁻¹ is 1 (P-256), `S_0 + (S_0 ≪ s)`
    /// where it is `2^s + 1` (P-384: 2^32 + 1, as s2n-bignum's `bignum_montmul_p384`
    /// computes it), one product otherwise.
    fn quotient(&self, g: &mut Words, s0: W) -> W {
        let mp = self.mp;
        if mp == 1 {
            return s0;
        }
        let o = if (mp - 1).is_power_of_two() {
            let shifted = g.b.op1(
                Op::Shl,
                &[s0.o, Opnd::K((mp - 1).trailing_zeros() as u128)],
                Ty::U64,
            );
            g.b.op1(Op::Add, &[s0.o, shifted], Ty::U64)
        } else {
            g.b.op1(Op::Mul, &[s0.o, Opnd::K(mp as u128)], Ty::U64)
        };
        W { o, max: MAX }
    }
}

/// The most words of c for which [`Fold::of`] chooses [`Fold::Pseudo`]. The generator
/// handles any number; the checker proves a one-word c (secp256k1) and not yet P-384's
/// three words (`exact::tests::p384_montgomery_steps` marks how far it gets), and a
/// variant the checker cannot prove is left out, so offering it would only cost time.
const MAX_PSEUDO_WORDS: usize = 1;

/// How `m·p` is added and the sum divided by 2^64 in one step of [`mul_sum`]; one home
/// for the special forms of p that need fewer products than its nonzero limbs.
enum Fold {
    /// `m·(p_0 … p_{n−1})` added word by word, word 0 dropped.
    Full,
    /// p_0 = 2^64 − 1 (so m = S_0): `m·q` with q = (p + 1) / 2^64 in n − 1 words
    /// (P-256: q = 2^32 + 0xffffffff00000001·2^128 is two shifts and one product).
    MinusOne(Vec<W>),
    /// p = 2^64n − c with 1 < c of j words, j ≤ n − 2: `m·c`, one product per word of c
    /// other than 0 and 1 (secp256k1: c = 2^32 + 977, one product; P-384: c = 2^128 +
    /// 2^96 − 2^32 + 1, two products and the word m itself, as in s2n-bignum's
    /// `bignum_montmul_p384`).
    Pseudo(Vec<W>),
}

impl Fold {
    /// The form of `p`, taking [`Fold::Pseudo`] for a c of at most `pseudo_words` words.
    fn of(p: &[W], pseudo_words: usize) -> Fold {
        let n = p.len();
        let big = p
            .iter()
            .rev()
            .fold(BigUint::ZERO, |acc, w| (acc << 64) + w.max);
        let r = BigUint::from(1u8) << (64 * n);
        let c = &r - &big;
        // Fewer products than the full fold: one word of c, or at most n − 2.
        let j = c.iter_u64_digits().count();
        let fewer = j == 1 || j + 2 <= n;
        if c > BigUint::from(1u8) && j <= pseudo_words && fewer {
            return Fold::Pseudo(p_limbs(&c, j).into_iter().map(k).collect());
        }
        if p[0].max == MAX && n > 1 {
            let q = p_limbs(&((big + 1u8) >> 64), n);
            if q[n - 1] == 0 {
                return Fold::MinusOne(q[..n - 1].iter().copied().map(k).collect());
            }
        }
        Fold::Full
    }
}

/// `T mod p` for `T < (times + 1)·p` given as n words plus `top`: `times` conditional
/// subtractions of p, each chosen with `cmovznz` on its borrow (never a branch).
pub(crate) fn reduce(g: &mut Words, p: &[W], mut t: Vec<W>, mut top: W, times: usize) -> Vec<W> {
    let pick = |g: &mut Words, borrow: W, keep: W, sub: W| W {
        o: g.b.op1(Op::Cmovznz, &[borrow.o, sub.o, keep.o], Ty::U64),
        max: MAX,
    };
    for left in (0..times).rev() {
        let (d, borrow) = g.sbb_chain(&t, p);
        let (d_top, borrow) = g.sbb(borrow, top, ZERO);
        t = t
            .iter()
            .zip(d)
            .map(|(&x, y)| pick(g, borrow, x, y))
            .collect();
        if left > 0 {
            // Below `left·p + p` now; the top word is still needed.
            top = pick(g, borrow, top, d_top);
        }
    }
    t
}

pub(crate) fn add(g: &mut Words, p: &[W], a: &[W], b: &[W]) -> Vec<W> {
    let (s, c) = g.adc_chain(a, b);
    reduce(g, p, s, c, 1)
}

/// `a - b`, plus `p` if that borrowed: `a + (p & mask)` with the mask from the borrow.
pub(crate) fn sub(g: &mut Words, p: &[W], a: &[W], b: &[W]) -> Vec<W> {
    let (d, borrow) = g.sbb_chain(a, b);
    let mask = W {
        o: g.b
            .op1(Op::Cmovznz, &[borrow.o, Opnd::K(0), Opnd::K(MAX)], Ty::U64),
        max: MAX,
    };
    let mut out = Vec::with_capacity(a.len());
    let mut c = ZERO;
    for (&x, &pj) in d.iter().zip(p) {
        let addend = match pj.max {
            0 => ZERO,
            MAX => mask,
            v => W {
                o: g.b.op1(Op::And, &[mask.o, Opnd::K(v)], Ty::U64),
                max: v,
            },
        };
        let (z, c2) = g.adc(c, x, addend);
        out.push(z);
        c = c2;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_traits::One;
    use rand::{Rng, SeedableRng};

    /// `mul_add` of four elements of `p` (n words) as a function, run by the
    /// interpreter on each case, against `(a·b ± c·d)·R⁻¹ mod p` on num-bigint; the
    /// result must also be fully reduced.
    fn check(p: &BigUint, n: usize, minus: bool, cases: &[[BigUint; 4]]) {
        let arr = |name: String| Param::array(&name, Ty::U64, &vec![MAX; n]);
        let params = (1..=4).map(|i| arr(format!("arg{i}"))).collect();
        let mut g = Words {
            b: Builder::new("mul_add".into(), params, vec![arr("out1".into())]),
        };
        let pw: Vec<W> = p_limbs(p, n).into_iter().map(k).collect();
        let args: Vec<Vec<W>> = (0..4).map(|a| arg_words(a, n)).collect();
        let out = mul_add(&mut g, &pw, [&args[0], &args[1], &args[2], &args[3]], minus);
        for (i, w) in out.into_iter().enumerate() {
            g.b.store(0, i as u32, w.o);
        }
        let f = g.b.finish().expect("a valid function");
        let r = BigUint::one() << (64 * n);
        let r_inv = r.modinv(p).expect("p is odd");
        for case in cases {
            let input: Vec<Vec<u128>> = case
                .iter()
                .map(|x| p_limbs(x, n).into_iter().map(u128::from).collect())
                .collect();
            let got = cryptopt_ir::interp::run(&f, &input).expect("runs");
            let got = got[0]
                .iter()
                .rev()
                .fold(BigUint::ZERO, |acc, &w| (acc << 64) + w);
            let [a, b, c, d] = case;
            let (ab, cd) = (a * b % p, c * d % p);
            let want = if minus { ab + p - cd } else { ab + cd } * &r_inv % p;
            assert_eq!(got, want, "{p:#x} minus={minus}: {case:x?}");
        }
    }

    /// The pseudo-Mersenne fold with a c of several words (P-384's three, not yet
    /// offered: [`MAX_PSEUDO_WORDS`]) computes `a·b·R⁻¹ mod p` on edge and random inputs,
    /// with two products per step instead of six.
    #[test]
    fn multiword_pseudo_fold_multiplies() {
        let p = crate::fields::parse_prime("2^384 - 2^128 - 2^96 + 2^32 - 1").unwrap();
        let n = 6;
        let arr = |name: &str| Param::array(name, Ty::U64, &vec![MAX; n]);
        let mut g = Words {
            b: Builder::new("mul".into(), vec![arr("a"), arr("b")], vec![arr("out1")]),
        };
        let pw: Vec<W> = p_limbs(&p, n).into_iter().map(k).collect();
        let step = Step::of(&pw, 3);
        assert!(matches!(&step.fold, Fold::Pseudo(c) if c.len() == 3));
        let (a, b) = (arg_words(0, n), arg_words(1, n));
        let (t, top) = mul_sum_by(&mut g, &pw, &[(&a, &b)], &step);
        for (i, w) in reduce(&mut g, &pw, t, top, 1).into_iter().enumerate() {
            g.b.store(0, i as u32, w.o);
        }
        let f = g.b.finish().expect("a valid function");
        let products = f.insts.iter().filter(|i| matches!(i.op, Op::Mulx { .. }));
        assert_eq!(products.count(), 36 + 6 * 2);
        let r_inv = (BigUint::one() << (64 * n)).modinv(&p).unwrap();
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(5);
        let edges = [BigUint::ZERO, BigUint::one(), &p - 1u8, &p - 2u8];
        for round in 0..300 {
            let [x, y] = [0, 1].map(|i| match round {
                0..16 => edges[(round >> (2 * i)) % 4].clone(),
                _ => (0..n).fold(BigUint::ZERO, |acc, _| (acc << 64) + rng.random::<u64>()) % &p,
            });
            let input = [&x, &y].map(|v| p_limbs(v, n).into_iter().map(u128::from).collect());
            let got = cryptopt_ir::interp::run(&f, &input).expect("runs");
            let got = got[0]
                .iter()
                .rev()
                .fold(BigUint::ZERO, |acc, &w| (acc << 64) + w);
            assert_eq!(got, &x * &y * &r_inv % &p, "{x:#x} · {y:#x}");
        }
    }

    #[test]
    fn mul_add_is_one_reduction_of_two_products() {
        let primes = [
            ("2^256 - 2^224 + 2^192 + 2^96 - 1", 4),
            ("2^256 - 2^32 - 977", 4),
            ("2^384 - 2^128 - 2^96 + 2^32 - 1", 6),
            ("2^127 - 1", 2),
            // p close to R/2: the top word carries most.
            ("2^127 + 45", 2),
        ];
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(3);
        for (text, n) in primes {
            let p = crate::fields::parse_prime(text).expect("a prime");
            let edges = [
                BigUint::ZERO,
                BigUint::one(),
                &p - 1u32,
                &p - 2u32,
                (BigUint::one() << (64 * n - 1)) % &p,
            ];
            let mut cases = Vec::new();
            for x in &edges {
                for y in &edges {
                    cases.push([x.clone(), x.clone(), y.clone(), y.clone()]);
                    cases.push([x.clone(), y.clone(), x.clone(), y.clone()]);
                }
            }
            for _ in 0..200 {
                cases.push(std::array::from_fn(|_| {
                    let bytes: Vec<u8> = (0..8 * n).map(|_| rng.random()).collect();
                    BigUint::from_bytes_le(&bytes) % &p
                }));
            }
            check(&p, n, false, &cases);
            check(&p, n, true, &cases);
        }
    }

    /// The special forms of p take fewer products per multiplication: n² for the
    /// operands, plus one per step (P-256, secp256k1) instead of one per nonzero limb.
    #[test]
    fn special_forms_fold_with_fewer_products() {
        for (text, n, mulx) in [
            ("2^256 - 2^224 + 2^192 + 2^96 - 1", 4, 16 + 4),
            ("2^256 - 2^32 - 977", 4, 16 + 4),
            ("2^384 - 2^128 - 2^96 + 2^32 - 1", 6, 36 + 6 * 6),
            // q = 2^63: two shifts per step, no product.
            ("2^127 - 1", 2, 4),
        ] {
            let p = crate::fields::parse_prime(text).expect("a prime");
            let arr = |name: &str| Param::array(name, Ty::U64, &vec![MAX; n]);
            let mut g = Words {
                b: Builder::new("mul".into(), vec![arr("a"), arr("b")], vec![arr("out1")]),
            };
            let pw: Vec<W> = p_limbs(&p, n).into_iter().map(k).collect();
            let out = mul(&mut g, &pw, &arg_words(0, n), &arg_words(1, n));
            for (i, w) in out.into_iter().enumerate() {
                g.b.store(0, i as u32, w.o);
            }
            let f = g.b.finish().expect("a valid function");
            let got = f
                .insts
                .iter()
                .filter(|i| matches!(i.op, Op::Mulx { .. }))
                .count();
            assert_eq!(got, mulx, "{text}");
        }
    }

    #[test]
    fn m_prime_is_minus_inverse() {
        for p0 in [
            1u64,
            3,
            0xffff_ffff_ffff_ffff,
            0xffff_ffff_0000_0001,
            0x1234_5677,
        ] {
            assert_eq!(p0.wrapping_mul(m_prime(p0)), u64::MAX, "{p0:#x}");
        }
    }
}
