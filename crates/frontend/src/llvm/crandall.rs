//! Crandall reduction modulo `2^n - c` (small `c`): what `urem` by such a constant
//! becomes in the LLVM front end, complete or incomplete (a value only ever used modulo
//! `p` stays congruent and below its words). Its proof obligations are written at
//! [`Emit::reduce`]; the arithmetic of each step is the limb arithmetic of `wide`.
//!
//! This module must never emit a branch or an address that depends on a value.

use num_bigint::BigUint;
use num_traits::{One, Zero};

use cryptopt_ir::func::{Op, Ty};

use super::wide::{bits_for, max_of, Emit, Wide};

/// `(n, W)` when `p = 2^n - c` with `0 < c < 2^(n-2)` (the moduli Crandall reduction
/// takes), `W = 64·⌈n/64⌉` its word boundary.
fn crandall_form(p: &BigUint) -> Option<(u32, u32)> {
    let n = bits_for(p);
    let c = (BigUint::one() << n) - p;
    if c.is_zero() || c.bits() as u32 >= n.saturating_sub(1) {
        return None;
    }
    Some((n, n.div_ceil(64) * 64))
}

impl Emit {
    /// Whether a word step `lo + m·hi` (`lo = x mod 2^k`, `hi = x >> k`, `k` a multiple
    /// of 64) is an addition to the lowest word alone: for `hi ≥ 1`, `lo ≤ ub - 2^k`,
    /// so if `ub - 2^k + m·hi_ub < 2^64` then `lo` is a single word and `lo + m·hi` does
    /// not carry out of it; for `hi = 0` the sum is `lo`. The last step of a Crandall
    /// reduction (a carry of a bit or a few) then costs one multiplication and one
    /// addition instead of a carry chain through every word, and the result is below
    /// `2^k`.
    fn folds_into_low_word(ub: &BigUint, k: u32, m: &BigUint, hi_ub: &BigUint) -> bool {
        let two_k = BigUint::one() << k;
        k.is_multiple_of(64)
            && k > 0
            && !hi_ub.is_zero()
            && *ub >= two_k
            && (ub - &two_k) + m * hi_ub < BigUint::one() << 64u32
    }

    /// `x - y` modulo `p = 2^n - c` as a value below `2^W` (`W = 64·⌈n/64⌉`), for
    /// `x, y < 2^W` and `m = 2^W mod p ≤ 2^63`: the subtraction wrapped at the word
    /// boundary, its borrow folded back as `m` (one borrow chain, then a second one of
    /// `m` or 0, then `m` or 0 from the lowest word), instead of adding a multiple of
    /// `p` that keeps `x - y` non-negative and reducing the wider sum. `None` when `p`
    /// or the bounds are not of this form.
    ///
    /// Proof obligation (the lemma, for all `x, y < 2^W`): `x - y = d1 - 2^W·b1` (the
    /// borrow chain) `≡ d1 - m·b1 = d2 - 2^W·b2 ≡ d2 - m·b2`. If `b2 = 1` then
    /// `d1 < m·b1 ≤ m`, so `d2 = d1 - m + 2^W ≥ 2^W - m`: every word above the lowest
    /// is all ones and the lowest is at least `2^64 - m ≥ m`, so subtracting `m` from
    /// the lowest word alone does not borrow, and `d3 = d2 - m·b2` is in `[0, 2^W)`,
    /// congruent to `x - y`.
    pub(crate) fn sub_mod(&mut self, x: &Wide, y: &Wide, p: &BigUint) -> Option<Wide> {
        let (_, word) = crandall_form(p)?;
        let m = (BigUint::one() << word) % p;
        let top = max_of(word);
        if x.ub > top || y.ub > top || m > BigUint::one() << 63u32 {
            return None;
        }
        let m = Wide::constant(&m, 64);
        let (x, y) = (self.resize(x, word), self.resize(y, word));
        let (d1, b1) = self.sub(&x, &y, word);
        let m1 = self.mul(&m, &Wide::bit(b1), 64);
        let (d2, b2) = self.sub(&d1, &m1, word);
        let m2 = self.mul(&m, &Wide::bit(b2), 64);
        let mut limbs = d2.limbs;
        limbs[0] = self.op(Op::Sub, vec![limbs[0], m2.limbs[0]], Ty::U64);
        Some(Wide {
            bits: word,
            limbs,
            ub: top,
        })
    }

    /// `x mod p` for `p = 2^n - c` with `0 < c < 2^(n-2)` (Crandall reduction), and the
    /// result's width `bits`: the value, below `p`, as a `bits`-bit integer.
    ///
    /// Steps, each decided by the bound of `x` (exact integer arithmetic on `x.ub`):
    /// 1. at the word boundary `W = 64·⌈n/64⌉`, while the bound is at least `2^(W+64)`
    ///    (`2^W` when `W = n`) and shrinks: `x = lo + c'·hi` with `lo = x mod 2^W`, `hi = ⌊x / 2^W⌋`,
    ///    `c' = 2^W mod p = c·2^(W-n)` (whole limbs: no shifts);
    /// 2. at bit `n`, while the bound is at least `2^n`, shrinks, and is not below
    ///    `2p` (where one subtraction finishes): the same with `2^n ≡ c`;
    /// 3. conditional subtractions of `p` (`x - p` kept when it does not borrow, by
    ///    `cmovznz`) until the bound is below `p`.
    ///
    /// With `complete` false (incomplete reduction, for a value only ever used modulo
    /// `p`), only step 1, until the value fits the words of `p`: the result is congruent
    /// to `x`, below its bound, in as many bits as the bound needs.
    ///
    /// A word step whose bound says `hi ≥ 1` leaves `lo` a single word with room for
    /// `m·hi` (the last step, `hi` a bit or a few) is an addition to the lowest word
    /// alone ([`Emit::fold_into_low_word`]), not a carry chain through every word.
    ///
    /// Proof obligations: each step's multiplier is `m = 2^k mod p`, so `2^k ≡ m (mod p)`
    /// and `lo + m·hi ≡ x`; each step's new bound (the largest `lo + m·hi` that `x ≤ ub`
    /// allows, computed with exact integers) is below the old one (termination); after
    /// step 3 the bound is below `p` (complete reduction: a value below `p` congruent to
    /// `x` is `x mod p`). The congruence of one step is the one-line lemma
    /// `x = lo + 2^k·hi ≡ lo + m·hi`; a conditional subtraction of `p` from a value below
    /// `2p` is `x mod p` for that value. Returns `None` when `p` is not of this form.
    pub(crate) fn reduce(
        &mut self,
        x: &Wide,
        p: &BigUint,
        bits: u32,
        complete: bool,
    ) -> Option<Wide> {
        let (n, word) = crandall_form(p)?;
        let mut x = x.clone();
        // Incomplete: word steps only, until the value fits the words of p.
        let steps: &[u32] = if complete { &[word, n] } else { &[word] };
        for &k in steps {
            // 2^k ≡ m (mod p) by the definition of m.
            let m = (BigUint::one() << k) % p;
            // Complete: word steps while the high part has more than one limb (whole
            // limbs, no shifts); below that, steps at bit n shrink the bound faster.
            let stop = if complete && k == word && word != n {
                BigUint::one() << (k + 64)
            } else {
                BigUint::one() << k
            };
            loop {
                // Complete, below 2p: one conditional subtraction finishes, and costs
                // about what another step would.
                if x.ub < stop || (complete && k == n && x.ub < p * 2u32) {
                    break;
                }
                let hi_ub = &x.ub >> k;
                // The largest `lo + m·hi` over the (lo, hi) that x ≤ ub allows: below
                // the top hi any lo; at the top hi, lo ≤ ub - hi·2^k.
                let top = (&x.ub - (&hi_ub << k)) + &m * &hi_ub;
                let below = if hi_ub.is_zero() {
                    BigUint::zero()
                } else {
                    max_of(k) + &m * (&hi_ub - 1u32)
                };
                let new_ub = top.max(below);
                if new_ub >= x.ub {
                    break;
                }
                // x mod 2^k: the truncation (whole limbs at a word boundary).
                let lo = self.resize(&x, k);
                let mut hi = self.lshr(&x, k);
                hi.ub = hi_ub.clone();
                let hi = self.resize(&hi, bits_for(&hi_ub));
                let mw = Wide::constant(&m, bits_for(&m));
                let prod_bits = bits_for(&(&m * &hi_ub));
                let prod = self.mul(&mw, &hi, prod_bits);
                if Self::folds_into_low_word(&x.ub, k, &m, &hi_ub) {
                    let mut limbs = lo.limbs;
                    limbs[0] = self.sum_wrap(&[limbs[0], prod.limbs[0]], 64);
                    x = Wide {
                        bits: k,
                        limbs,
                        ub: max_of(k),
                    };
                    continue;
                }
                let sum_bits = bits_for(&new_ub);
                let lo = self.resize(&lo, sum_bits);
                let prod = self.resize(&prod, sum_bits);
                let (mut s, _) = self.add(&lo, &prod, sum_bits);
                s.ub = new_ub;
                x = s;
            }
        }
        if !complete {
            let b = bits_for(&x.ub);
            let mut out = self.resize(&x, b);
            out.ub = x.ub;
            return Some(out);
        }
        let pw = Wide::constant(p, bits_for(p).max(x.bits));
        let mut subtractions = 0;
        while &x.ub >= p {
            subtractions += 1;
            if subtractions > 8 {
                return None;
            }
            let b = x.bits.max(pw.bits);
            let xb = self.resize(&x, b);
            let (d, borrow) = self.sub(&xb, &pw, b);
            let mut r = self.select(borrow, &xb, &d);
            r.ub = (&x.ub - p).max(p - 1u32);
            x = r;
        }
        let mut out = self.resize(&x, bits);
        out.ub = x.ub.min(max_of(bits));
        Some(out)
    }
}
