//! Integers of any width as 64-bit limbs: the arithmetic of LLVM's `iN` (and C's
//! `unsigned __int128` and `_BitInt(N)`) emitted as cryptopt IR on words — carry chains
//! (`addcarry`/`subborrow`), products by rows and squares with each cross product once
//! (`mulx`; a product by a bit is a select), shifts across limbs, compares as borrow
//! chains, selects as `cmovznz`.
//!
//! A [`Wide`] of `bits` bits has `⌈bits/64⌉` limbs, least significant first; limb `i`
//! holds bits `64i..` and is a value of type `u{w}` with `w = min(64, bits - 64i)`, so the
//! whole is always below `2^bits` (the invariant every function here keeps). Each also
//! carries an upper bound `ub` of its value (exact integer arithmetic on bounds): what
//! the reduction's step count is decided by, and what lets a row, a carry chain or a
//! mask stop where the words above are known to be zero.
//!
//! Every function here computes exactly the LLVM semantics of its operation on the
//! values (wrapping modulo `2^bits` where LLVM wraps); the reduction modulo `2^n - c`
//! that `urem` becomes is module `crandall`. This module must never emit a branch or an
//! address that depends on a value: selects are `cmovznz`.

use std::collections::HashMap;

use num_bigint::BigUint;
use num_traits::{One, Zero};

use cryptopt_ir::func::{Function, Op, Operand, Ty, Value};

/// An integer of `bits` bits as limbs (see the module docs).
#[derive(Clone, Debug)]
pub(crate) struct Wide {
    pub bits: u32,
    pub limbs: Vec<Operand>,
    /// An upper bound of the value (at most `2^bits - 1`).
    pub ub: BigUint,
}

/// Number of limbs of a `bits`-bit integer.
pub(crate) fn limbs(bits: u32) -> usize {
    bits.div_ceil(64) as usize
}

/// Width of limb `i` of a `bits`-bit integer.
fn lw(bits: u32, i: usize) -> u32 {
    (bits - 64 * i as u32).min(64)
}

pub(crate) fn max_of(bits: u32) -> BigUint {
    (BigUint::one() << bits) - 1u32
}

fn mask64(w: u32) -> u128 {
    if w >= 64 {
        u64::MAX as u128
    } else {
        (1u128 << w) - 1
    }
}

/// Bits needed for values up to `ub` (at least 1).
pub(crate) fn bits_for(ub: &BigUint) -> u32 {
    (ub.bits() as u32).max(1)
}

impl Wide {
    pub(crate) fn constant(v: &BigUint, bits: u32) -> Wide {
        let v = v & max_of(bits);
        let digits = v.to_u64_digits();
        let limbs = (0..limbs(bits))
            .map(|i| Operand::Const(digits.get(i).copied().unwrap_or(0) as u128))
            .collect();
        Wide { bits, limbs, ub: v }
    }

    /// A bit (a borrow or carry, or a literal 0 or 1) as a one-bit integer.
    pub(crate) fn bit(b: Operand) -> Wide {
        Wide {
            bits: 1,
            limbs: vec![b],
            ub: BigUint::from(b.constant().unwrap_or(1).min(1)),
        }
    }

    /// The value, if every limb is a literal.
    pub(crate) fn as_const(&self) -> Option<BigUint> {
        let mut v = BigUint::zero();
        for l in self.limbs.iter().rev() {
            v = (v << 64u32) + BigUint::from(l.constant()?);
        }
        Some(v)
    }

    fn limb(&self, i: usize) -> Operand {
        self.limbs.get(i).copied().unwrap_or(Operand::Const(0))
    }

    /// An upper bound of limb `i` (from the whole's bound).
    fn limb_ub(&self, i: usize) -> BigUint {
        limb_bound(&self.ub, i)
    }

    /// The single bit this is, when it is one limb holding a `u1` value of `f`.
    fn as_bit(&self, f: &Function) -> Option<Operand> {
        match self.limbs[..] {
            [b @ Operand::Value(v)] if f.ty(v) == Ty::U1 => Some(b),
            _ => None,
        }
    }
}

/// An upper bound of limb `i` of a value at most `ub`.
fn limb_bound(ub: &BigUint, i: usize) -> BigUint {
    (ub >> (64 * i)).min(max_of(64))
}

/// The IR being built, with the emitters of word operations (which fold literals, so
/// that zero-extended operands do not cost products or carries).
pub(crate) struct Emit {
    pub f: Function,
    /// What some words are known to be, for the masked-swap idiom of [`Emit::bitwise`].
    words: Words,
}

/// Facts about emitted words that make `p ^ (m & (p ^ q))` a select: words that are a
/// mask `(2^w - 1)·b` of a bit `b` (made by `0 - b`), xors of two words, and the `and`
/// of such a mask with such an xor. Each is true of the word by the instruction that
/// made it, whatever the inputs.
#[derive(Default)]
struct Words {
    /// `v = (2^w - 1)·b`: the bit `b` (a `u1`) and `w`.
    masks: HashMap<Value, (Operand, u32)>,
    /// `v = p ^ q`.
    xors: HashMap<Value, (Operand, Operand)>,
    /// `v = b·(p ^ q)` (a mask of `b` wide enough for `p ^ q`, and-ed with it).
    masked_xors: HashMap<Value, (Operand, Operand, Operand)>,
}

fn is0(o: Operand) -> bool {
    o == Operand::Const(0)
}

impl Emit {
    pub(crate) fn new(f: Function) -> Emit {
        Emit {
            f,
            words: Words::default(),
        }
    }

    pub(crate) fn op(&mut self, op: Op, args: Vec<Operand>, t: Ty) -> Operand {
        self.f.push1(op, args, t).into()
    }

    /// `(c + a + b) mod 2^w` and its carry.
    fn addc(&mut self, c: Operand, a: Operand, b: Operand, w: u32) -> (Operand, Operand) {
        let m = mask64(w);
        match (c, a, b) {
            (Operand::Const(x), Operand::Const(y), Operand::Const(z)) => {
                let s = x + y + z;
                (Operand::Const(s & m), Operand::Const(s >> w))
            }
            _ if is0(c) && is0(b) => (a, Operand::Const(0)),
            _ if is0(c) && is0(a) => (b, Operand::Const(0)),
            _ if w < 64 => {
                // Operands below 2^w: the 64-bit sum holds the carry at bit w.
                let s = self.op(Op::Add, vec![c, a, b], Ty::U64);
                let hi = self.op(Op::Shr, vec![s, Operand::Const(w as u128)], Ty::U64);
                let carry = self.op(Op::Cast, vec![hi], Ty::U1);
                (self.fit(s, w), carry)
            }
            _ => {
                // A bit added to a word is the carry in (`adc x, 0` on the flag that
                // made it: C's `hi + (lo < t0)`), not an operand to materialize.
                let bit = |o: Operand| o.value().is_some_and(|v| self.f.ty(v).bits == 1);
                let args = match (c, a, b) {
                    (c, a, b) if is0(c) && bit(b) => vec![b, a, c],
                    (c, a, b) if is0(c) && bit(a) => vec![a, b, c],
                    (c, a, b) => vec![c, a, b],
                };
                let r = self
                    .f
                    .push(Op::AddCarry { size: 64 }, args, &[Ty::U64, Ty::U1]);
                (r[0].into(), r[1].into())
            }
        }
    }

    /// `(a - b - c) mod 2^w` and its borrow.
    fn subb(&mut self, c: Operand, a: Operand, b: Operand, w: u32) -> (Operand, Operand) {
        let m = mask64(w);
        match (c, a, b) {
            (Operand::Const(x), Operand::Const(y), Operand::Const(z)) => {
                let d = (y as i128) - (z as i128) - (x as i128);
                (
                    (Operand::Const((d as u128) & m)),
                    Operand::Const((d < 0) as u128),
                )
            }
            _ if is0(c) && is0(b) => (a, Operand::Const(0)),
            _ => {
                // Operands below 2^w ≤ 2^64: the 64-bit borrow is the w-bit one.
                let r = self.f.push(
                    Op::SubBorrow { size: 64 },
                    vec![c, a, b],
                    &[Ty::U64, Ty::U1],
                );
                let (d, borrow): (Operand, Operand) = (r[0].into(), r[1].into());
                (self.fit(d, w), borrow)
            }
        }
    }

    /// The full product of two limbs: `(lo, hi)`.
    fn mulx(&mut self, a: Operand, b: Operand) -> (Operand, Operand) {
        match (a, b) {
            (Operand::Const(x), Operand::Const(y)) => {
                let p = x * y;
                (Operand::Const(p & mask64(64)), Operand::Const(p >> 64))
            }
            _ if is0(a) || is0(b) => (Operand::Const(0), Operand::Const(0)),
            (Operand::Const(1), x) | (x, Operand::Const(1)) => (x, Operand::Const(0)),
            _ => {
                let r = self
                    .f
                    .push(Op::Mulx { size: 64 }, vec![a, b], &[Ty::U64, Ty::U64]);
                (r[0].into(), r[1].into())
            }
        }
    }

    /// `(c + x + y) mod 2^64`, the last word of a carry chain (no carry out kept): an
    /// add-with-carry where a carry comes in (clang's `add; adc` of a 128-bit sum), so
    /// the carry stays in the flags; else a plain sum.
    fn chain_top(&mut self, c: Operand, x: Operand, y: Operand) -> Operand {
        if c.value().is_some() {
            self.addc(c, x, y, 64).0
        } else {
            self.sum_wrap(&[c, x, y], 64)
        }
    }

    /// `Σ terms mod 2^w` (no carry kept).
    pub(crate) fn sum_wrap(&mut self, terms: &[Operand], w: u32) -> Operand {
        let k: u128 = terms
            .iter()
            .filter_map(|t| t.constant())
            .fold(0u128, |a, c| a.wrapping_add(c))
            & mask64(w);
        let mut vals: Vec<Operand> = terms
            .iter()
            .filter(|t| t.value().is_some())
            .copied()
            .collect();
        if k != 0 {
            vals.push(Operand::Const(k));
        }
        match vals.len() {
            0 => Operand::Const(0),
            1 if vals[0].constant().is_some() => vals[0],
            1 => self.fit(vals[0], w),
            _ => {
                let s = self.op(Op::Add, vals, Ty::U64);
                self.fit(s, w)
            }
        }
    }

    /// `x mod 2^w`: a mask when `x`'s type is wider. Limbs stay `u64` values with their
    /// high bits masked off (narrow IR types would make arithmetic on them wrap below
    /// 64 bits, a form the code generator and the checker meet nowhere else).
    fn fit(&mut self, x: Operand, w: u32) -> Operand {
        match x {
            Operand::Const(c) => Operand::Const(c & mask64(w)),
            Operand::Value(v) if (self.f.ty(v).bits as u32) <= w => x,
            Operand::Value(v) if self.masked_below(v, w) => x,
            Operand::Value(_) => self.op(Op::And, vec![x, Operand::Const(mask64(w))], Ty::U64),
        }
    }

    /// [`Emit::fit`] of a word known to be at most `ub`: no mask when the bound
    /// already keeps it below `2^w`, and the literal 0 when the bound is 0 (a shift
    /// that leaves nothing in a word, as `d >> 52` of a `d < 2^116`).
    fn fit_below(&mut self, x: Operand, w: u32, ub: &BigUint) -> Operand {
        if ub.is_zero() {
            Operand::Const(0)
        } else if *ub <= BigUint::from(mask64(w)) {
            x
        } else {
            self.fit(x, w)
        }
    }

    /// Whether `v` is made by a mask that keeps it below `2^w` (so masking it again is
    /// the identity).
    fn masked_below(&self, v: cryptopt_ir::Value, w: u32) -> bool {
        let d = &self.f.insts[self.f.values[v.index()].def.index()];
        d.op == Op::And
            && d.args
                .iter()
                .any(|a| a.constant().is_some_and(|m| m <= mask64(w)))
    }

    /// `(a + b) mod 2^bits` and the carry out of bit `bits`.
    pub(crate) fn add(&mut self, a: &Wide, b: &Wide, bits: u32) -> (Wide, Operand) {
        let fits = &a.ub + &b.ub <= max_of(bits);
        self.add_fitting(a, b, bits, fits)
    }

    /// [`Emit::add`], told whether the sum is known to fit in `bits` (then the top
    /// word's sum is exact: no carry out of it and no mask).
    fn add_fitting(&mut self, a: &Wide, b: &Wide, bits: u32, fits: bool) -> (Wide, Operand) {
        let mut c = Operand::Const(0);
        let mut out = Vec::new();
        let n = limbs(bits);
        for i in 0..n {
            if fits && i == n - 1 {
                // The top word of a sum known to fit: its carry out is zero.
                out.push(self.chain_top(c, a.limb(i), b.limb(i)));
                c = Operand::Const(0);
                break;
            }
            let (s, c2) = self.addc(c, a.limb(i), b.limb(i), lw(bits, i));
            out.push(s);
            c = c2;
        }
        let ub = (&a.ub + &b.ub).min(max_of(bits));
        (
            Wide {
                bits,
                limbs: out,
                ub,
            },
            c,
        )
    }

    /// `(a - b) mod 2^bits` and the borrow (`a < b`).
    pub(crate) fn sub(&mut self, a: &Wide, b: &Wide, bits: u32) -> (Wide, Operand) {
        if a.as_const().is_some_and(|v| v.is_zero()) && b.ub <= BigUint::one() {
            return self.negate_bit(b.limb(0), bits);
        }
        let mut c = Operand::Const(0);
        let mut out = Vec::new();
        for i in 0..limbs(bits) {
            let (s, c2) = self.subb(c, a.limb(i), b.limb(i), lw(bits, i));
            out.push(s);
            c = c2;
        }
        let ub = if b.ub.is_zero() {
            a.ub.clone()
        } else {
            max_of(bits)
        };
        (
            Wide {
                bits,
                limbs: out,
                ub,
            },
            c,
        )
    }

    /// `(0 - b) mod 2^bits` for a bit `b`: every limb is the mask `(2^w - 1)·b` (one
    /// negation, not a borrow chain), and the borrow is `b`.
    fn negate_bit(&mut self, b: Operand, bits: u32) -> (Wide, Operand) {
        let bit = match b {
            Operand::Value(v) if self.f.ty(v) != Ty::U1 => self.op(Op::Cast, vec![b], Ty::U1),
            _ => b,
        };
        let full = self.spread(b, 64);
        let limbs = (0..limbs(bits))
            .map(|i| {
                let w = lw(bits, i);
                let m = self.fit(full, w);
                if let Operand::Value(v) = m {
                    self.words.masks.insert(v, (bit, w));
                }
                m
            })
            .collect();
        let ub = if b.constant() == Some(0) {
            BigUint::zero()
        } else {
            max_of(bits)
        };
        (Wide { bits, limbs, ub }, bit)
    }

    /// `(a · b) mod 2^bits`, by operand scanning (as Fiat's multiplications): for each
    /// limb `aᵢ`, the row `aᵢ·b` as words (`mulx`: the low halves plus the high halves
    /// of the products one place up, one carry chain), added into the result at limb
    /// `i` (a second chain). The top limb needs only the low halves of its products.
    pub(crate) fn mul(&mut self, a: &Wide, b: &Wide, bits: u32) -> Wide {
        // b·y for a bit b is y or 0: a select, no multiplier (Crandall's step of a
        // carry, a borrow folded back).
        for (bit, y) in [(a.as_bit(&self.f), b), (b.as_bit(&self.f), a)] {
            if let Some(bit) = bit {
                let y = self.resize(y, bits);
                return self.select(bit, &y, &Wide::constant(&BigUint::zero(), bits));
            }
        }
        if a.limbs == b.limbs && a.limbs.len() > 1 {
            return self.square(a, bits);
        }
        self.product(a, b, bits)
    }

    /// `a² mod 2^bits` with each cross product once: `2·Σ_{i<j} aᵢ·aⱼ·2^(64(i+j)) +
    /// Σ aᵢ²·2^(128i)`. The cross products are a product of `a` by its own words above
    /// each row's; their bound is computed from the words' bounds, and the last sum is
    /// exact when `a`'s bound squared fits (its value is `a²`).
    fn square(&mut self, a: &Wide, bits: u32) -> Wide {
        let n = limbs(bits);
        let zero = Operand::Const(0);
        // Row i: aᵢ times the words above i, at word 2i + 1.
        let mut cross = Wide {
            bits,
            limbs: vec![zero; n],
            ub: BigUint::zero(),
        };
        for i in 0..a.limbs.len() {
            let above = Wide {
                bits: 64 * (a.limbs.len() - i - 1) as u32,
                limbs: a.limbs[i + 1..].to_vec(),
                ub: &a.ub >> (64 * (i + 1)),
            };
            if above.limbs.is_empty() || 2 * i + 1 >= n {
                continue;
            }
            let ai = Wide {
                bits: 64,
                limbs: vec![a.limbs[i]],
                ub: a.limb_ub(i),
            };
            let row_bits = bits - 64 * (2 * i as u32 + 1);
            let row = self.product(&ai, &above, row_bits);
            let mut shifted = vec![zero; 2 * i + 1];
            shifted.extend(row.limbs);
            shifted.truncate(n);
            let row = Wide {
                bits,
                ub: (&row.ub << (64 * (2 * i + 1))).min(max_of(bits)),
                limbs: shifted,
            };
            cross = self.add(&cross, &row, bits).0;
        }
        let (doubled, _) = self.add(&cross, &cross, bits);
        // The squares of the words, at words 2i and 2i + 1.
        let mut diag = Vec::with_capacity(n);
        let mut diag_ub = BigUint::zero();
        for i in 0..a.limbs.len() {
            if 2 * i >= n {
                break;
            }
            let (lo, hi) = self.mulx(a.limbs[i], a.limbs[i]);
            diag.push(lo);
            diag.push(hi);
            diag_ub += (a.limb_ub(i) * a.limb_ub(i)) << (128 * i);
        }
        diag.resize(n, zero);
        let diag = Wide {
            bits,
            limbs: diag,
            ub: diag_ub.min(max_of(bits)),
        };
        // The sum is a², so it fits when a's bound squared does (the operands' own
        // bounds are looser); else the chain keeps the top word modulo 2^bits.
        let square_ub = &a.ub * &a.ub;
        let fits = square_ub <= max_of(bits);
        let (mut r, _) = self.add_fitting(&doubled, &diag, bits, fits);
        r.ub = square_ub.min(max_of(bits));
        r
    }

    /// `a·b mod 2^bits` by rows (operand scanning).
    fn product(&mut self, a: &Wide, b: &Wide, bits: u32) -> Wide {
        let n = limbs(bits);
        let zero = Operand::Const(0);
        let mut r: Vec<Operand> = vec![zero; n];
        // Words a value below `ub + 1` needs.
        let words = |ub: &BigUint| bits_for(ub).div_ceil(64) as usize;
        for (i, &x) in a.limbs.iter().enumerate().take(n) {
            if is0(x) {
                continue;
            }
            // The row aᵢ·b at limbs i.. (words below n - i, and no more than its bound
            // needs: the words above are zero, so no carry leaves the last one).
            let m = (n - i).min(words(&(a.limb_ub(i) * &b.ub)));
            let mut row: Vec<Operand> = Vec::with_capacity(m);
            let mut carry_hi = zero;
            let mut c = zero;
            for j in 0..m {
                let y = b.limb(j);
                let (lo, hi) = if j == m - 1 {
                    // The top limb: only the low half counts.
                    let lo = match (x, y) {
                        _ if is0(y) => zero,
                        (Operand::Const(p), Operand::Const(q)) => {
                            Operand::Const(p.wrapping_mul(q) & mask64(64))
                        }
                        _ => self.op(Op::Mul, vec![x, y], Ty::U64),
                    };
                    (lo, zero)
                } else {
                    self.mulx(x, y)
                };
                // row[j] = lo + (high half of the product below) + carry
                let (s, c2) = if j == m - 1 {
                    (self.chain_top(c, lo, carry_hi), zero)
                } else {
                    self.addc(c, lo, carry_hi, 64)
                };
                row.push(s);
                c = c2;
                carry_hi = hi;
            }
            // r[i..] += row, as far as the bound of the sum so far needs: the low i + 1
            // limbs of a times b.
            let low_ub = a.ub.clone().min(max_of(64 * (i as u32 + 1)));
            let end = n.min(words(&(&low_ub * &b.ub))).max(i + row.len());
            let mut c = zero;
            for (k, rk) in r.iter_mut().enumerate().take(end).skip(i) {
                let w = row.get(k - i).copied().unwrap_or(zero);
                if k == end - 1 {
                    *rk = self.chain_top(c, *rk, w);
                } else {
                    let (s, c2) = self.addc(c, *rk, w, 64);
                    *rk = s;
                    c = c2;
                }
            }
        }
        // The product modulo 2^bits: the top word masked, unless the bounds say the
        // product fits (then it is below 2^bits as it is).
        let top = n - 1;
        if &a.ub * &b.ub > max_of(bits) {
            r[top] = self.fit(r[top], lw(bits, top));
        }
        let ub = (&a.ub * &b.ub).min(max_of(bits));
        Wide { bits, limbs: r, ub }
    }

    /// A bitwise operation limb by limb.
    pub(crate) fn bitwise(&mut self, op: Op, a: &Wide, b: &Wide, bits: u32) -> Wide {
        let mut out = Vec::new();
        for i in 0..limbs(bits) {
            let w = lw(bits, i);
            let all = mask64(w);
            let (x, y) = (a.limb(i), b.limb(i));
            let r = match (op, x, y) {
                (_, Operand::Const(p), Operand::Const(q)) => Operand::Const(match op {
                    Op::And => p & q,
                    Op::Or => p | q,
                    _ => (p ^ q) & all,
                }),
                (Op::And, z, _) | (Op::And, _, z) if is0(z) => Operand::Const(0),
                (Op::And, Operand::Const(m), v) | (Op::And, v, Operand::Const(m)) if m == all => v,
                (Op::Or | Op::Xor, Operand::Const(0), v)
                | (Op::Or | Op::Xor, v, Operand::Const(0)) => v,
                _ => self.word_op(op, (x, a.limb_ub(i)), (y, b.limb_ub(i))),
            };
            out.push(r);
        }
        let ub = match op {
            Op::And => a.ub.clone().min(b.ub.clone()),
            _ => {
                let m = bits_for(&a.ub).max(bits_for(&b.ub));
                max_of(m).min(max_of(bits))
            }
        };
        Wide {
            bits,
            limbs: out,
            ub,
        }
    }

    /// One limb of [`Emit::bitwise`] (operands with their bounds), with the masked
    /// swap `t = m & (p ^ q); p ^ t` of a mask `m = (2^w - 1)·b` made a select: `t` is
    /// `b·(p ^ q)` when `p ^ q < 2^w`, so `p ^ t` is `q` if `b` else `p` (`cmovznz`,
    /// and the `and` and `xor`s are dead unless used elsewhere).
    fn word_op(
        &mut self,
        op: Op,
        (x, xub): (Operand, BigUint),
        (y, yub): (Operand, BigUint),
    ) -> Operand {
        if op == Op::Xor {
            for (t, other) in [(x, y), (y, x)] {
                let Some(&(bit, p, q)) = t.value().and_then(|v| self.words.masked_xors.get(&v))
                else {
                    continue;
                };
                if other == p {
                    return self.op(Op::Cmovznz, vec![bit, p, q], Ty::U64);
                }
                if other == q {
                    return self.op(Op::Cmovznz, vec![bit, q, p], Ty::U64);
                }
            }
        }
        let r = self.op(op, vec![x, y], Ty::U64);
        let Some(rv) = r.value() else {
            return r;
        };
        match op {
            Op::Xor => {
                self.words.xors.insert(rv, (x, y));
            }
            Op::And => {
                for ((m, _), (t, tub)) in [((x, &xub), (y, &yub)), ((y, &yub), (x, &xub))] {
                    let Some(&(bit, w)) = m.value().and_then(|v| self.words.masks.get(&v)) else {
                        continue;
                    };
                    let Some(&(p, q)) = t.value().and_then(|v| self.words.xors.get(&v)) else {
                        continue;
                    };
                    if *tub <= BigUint::from(mask64(w)) {
                        self.words.masked_xors.insert(rv, (bit, p, q));
                        break;
                    }
                }
            }
            _ => {}
        }
        r
    }

    /// A word shifted by a constant `0 <= n < 64` (`Shl` wraps at 64 bits), literals
    /// folded.
    fn shift_word(&mut self, op: Op, x: Operand, n: u32) -> Operand {
        match x {
            _ if n == 0 || is0(x) => x,
            Operand::Const(c) if op == Op::Shl => Operand::Const((c << n) & mask64(64)),
            Operand::Const(c) => Operand::Const(c >> n),
            _ => self.op(op, vec![x, Operand::Const(n as u128)], Ty::U64),
        }
    }

    /// `x | y` for words, zeros folded.
    fn or_words(&mut self, x: Operand, y: Operand) -> Operand {
        match (x, y) {
            (x, y) if is0(y) => x,
            (x, y) if is0(x) => y,
            (x, y) => self.op(Op::Or, vec![x, y], Ty::U64),
        }
    }

    /// `a >> s` (logical), `s < bits`: limb `i` is limb `i + q` shifted down by `r`
    /// with the next limb's low bits above it (`s = 64q + r`).
    pub(crate) fn lshr(&mut self, a: &Wide, s: u32) -> Wide {
        let bits = a.bits;
        let ub = (&a.ub >> s).min(max_of(bits));
        let (q, r) = ((s / 64) as usize, s % 64);
        let mut out = Vec::new();
        for i in 0..limbs(bits) {
            let lo = self.shift_word(Op::Shr, a.limb(i + q), r);
            let hi = if r == 0 {
                Operand::Const(0)
            } else {
                self.shift_word(Op::Shl, a.limb(i + q + 1), 64 - r)
            };
            let v = self.or_words(lo, hi);
            out.push(self.fit_below(v, lw(bits, i), &limb_bound(&ub, i)));
        }
        Wide {
            bits,
            limbs: out,
            ub,
        }
    }

    /// `(a << s) mod 2^bits`, `s < bits`: limb `i` is limb `i - q` shifted up by `r`
    /// with the limb below's high bits under it.
    pub(crate) fn shl(&mut self, a: &Wide, s: u32) -> Wide {
        let bits = a.bits;
        let (q, r) = ((s / 64) as usize, s % 64);
        let mut out = Vec::new();
        for i in 0..limbs(bits) {
            let zero = Operand::Const(0);
            let lo = self.shift_word(Op::Shl, if i >= q { a.limb(i - q) } else { zero }, r);
            let below = if i > q { a.limb(i - q - 1) } else { zero };
            let hi = if r == 0 {
                zero
            } else {
                self.shift_word(Op::Shr, below, 64 - r)
            };
            let v = self.or_words(lo, hi);
            out.push(self.fit(v, lw(bits, i)));
        }
        let ub = (&a.ub << s).min(max_of(bits));
        Wide {
            bits,
            limbs: out,
            ub,
        }
    }

    /// `a` zero-extended or truncated to `bits`.
    pub(crate) fn resize(&mut self, a: &Wide, bits: u32) -> Wide {
        let mut out = Vec::new();
        for i in 0..limbs(bits) {
            let l = a.limb(i);
            out.push(self.fit_below(l, lw(bits, i), &a.limb_ub(i)));
        }
        Wide {
            bits,
            limbs: out,
            ub: a.ub.clone().min(max_of(bits)),
        }
    }

    /// The sign bit of `a` (bit `bits - 1`) as a `u1`.
    pub(crate) fn sign(&mut self, a: &Wide) -> Operand {
        let top = a.limbs.len() - 1;
        let w = lw(a.bits, top);
        match a.limbs[top] {
            Operand::Const(c) => Operand::Const((c >> (w - 1)) & 1),
            l => {
                let s = self.op(Op::Shr, vec![l, Operand::Const((w - 1) as u128)], Ty::U64);
                self.op(Op::Cast, vec![s], Ty::U1)
            }
        }
    }

    /// All ones (`2^w - 1`) when the bit `b` is set, else zero.
    fn spread(&mut self, b: Operand, w: u32) -> Operand {
        match b {
            Operand::Const(c) => Operand::Const(if c != 0 { mask64(w) } else { 0 }),
            _ => {
                let v = self.op(Op::Sub, vec![Operand::Const(0), b], Ty::U64);
                self.fit(v, w)
            }
        }
    }

    /// `a` (read as signed) sign-extended to `bits`.
    pub(crate) fn sext(&mut self, a: &Wide, bits: u32) -> Wide {
        let s = self.sign(a);
        let top = a.limbs.len() - 1;
        let wt = lw(a.bits, top);
        let mut out = Vec::new();
        for i in 0..limbs(bits) {
            let w = lw(bits, i);
            let l = if i < top {
                a.limb(i)
            } else if i == top {
                if wt == 64 {
                    a.limb(i)
                } else {
                    let fill = self.spread(s, 64);
                    let hi = match fill {
                        Operand::Const(c) => Operand::Const((c << wt) & mask64(64)),
                        f => self.op(Op::Shl, vec![f, Operand::Const(wt as u128)], Ty::U64),
                    };
                    let v = if is0(hi) {
                        a.limb(i)
                    } else {
                        self.op(Op::Or, vec![a.limb(i), hi], Ty::U64)
                    };
                    self.fit(v, w)
                }
            } else {
                self.spread(s, w)
            };
            out.push(l);
        }
        let ub = if a.ub < (BigUint::one() << (a.bits - 1)) {
            a.ub.clone()
        } else {
            max_of(bits)
        };
        Wide {
            bits,
            limbs: out,
            ub,
        }
    }

    /// `a >> s` arithmetic (`a` read as signed).
    pub(crate) fn ashr(&mut self, a: &Wide, s: u32) -> Wide {
        let bits = a.bits;
        let shifted = self.lshr(a, s);
        let sign = self.sign(a);
        let hi = (max_of(s) << (bits - s)) & max_of(bits);
        let fill = Wide::constant(&hi, bits);
        let mut spread = Vec::new();
        for i in 0..limbs(bits) {
            spread.push(self.spread(sign, lw(bits, i)));
        }
        let spread = Wide {
            bits,
            limbs: spread,
            ub: max_of(bits),
        };
        let ext = self.bitwise(Op::And, &fill, &spread, bits);
        let mut r = self.bitwise(Op::Or, &shifted, &ext, bits);
        r.ub = if a.ub < (BigUint::one() << (bits - 1)) {
            &a.ub >> s
        } else {
            max_of(bits)
        };
        r
    }

    /// `1` if `a < b` (unsigned), else `0`.
    pub(crate) fn ult(&mut self, a: &Wide, b: &Wide) -> Operand {
        let bits = a.bits.max(b.bits);
        self.sub(a, b, bits).1
    }

    /// `1` if `a == b`, else `0`.
    pub(crate) fn eq(&mut self, a: &Wide, b: &Wide) -> Operand {
        let bits = a.bits.max(b.bits);
        let x = self.bitwise(Op::Xor, a, b, bits);
        let nz: Vec<Operand> = x.limbs.iter().copied().filter(|l| !is0(*l)).collect();
        if nz.iter().any(|l| l.constant().is_some()) {
            return Operand::Const(0);
        }
        match nz.len() {
            0 => Operand::Const(1),
            1 => self.op(Op::LNot, nz, Ty::U1),
            _ => {
                let any = self.op(Op::Or, nz, Ty::U64);
                self.op(Op::LNot, vec![any], Ty::U1)
            }
        }
    }

    /// `1 - b` for a bit.
    pub(crate) fn not1(&mut self, b: Operand) -> Operand {
        match b {
            Operand::Const(c) => Operand::Const((c == 0) as u128),
            _ => self.op(Op::Xor, vec![b, Operand::Const(1)], Ty::U1),
        }
    }

    /// `if c != 0 { t } else { e }`, limb by limb with `cmovznz` (no branch).
    pub(crate) fn select(&mut self, c: Operand, t: &Wide, e: &Wide) -> Wide {
        let bits = t.bits.max(e.bits);
        let mut out = Vec::new();
        for i in 0..limbs(bits) {
            let (x, y) = (t.limb(i), e.limb(i));
            let r = match c {
                _ if x == y => x,
                Operand::Const(k) => {
                    if k != 0 {
                        x
                    } else {
                        y
                    }
                }
                _ => self.op(Op::Cmovznz, vec![c, y, x], Ty::U64),
            };
            out.push(r);
        }
        Wide {
            bits,
            limbs: out,
            ub: t.ub.clone().max(e.ub.clone()),
        }
    }
}

#[cfg(test)]
mod tests;
