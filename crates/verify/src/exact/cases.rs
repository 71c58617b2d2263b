//! Case splits on condition atoms: a residual that the normal form leaves as a
//! polynomial over a few sign and zero tests (`[Q < 0]`, `[Q = 0]`) is zero when it is
//! zero under every assignment of those bits that is not refuted. Carries and borrows
//! of a multiword sum computed in two ways become tests of one value against different
//! thresholds (`[x < 2^64]`, `[x < p0]`, `[x < 2^64 + p0]`) that no single rewrite
//! relates, but only a few of their combinations can hold at once.
//!
//! Sound because every input gives each atom a bit, that assignment is never refuted
//! (a refutation is an empty range of one linear form, from the assignment's own
//! constraints and sound intervals), and under it the residual's value is its
//! polynomial with the bits put in, which is checked to be zero modulo `2^w`. This
//! module must never refute an assignment from a sample or a guess.

use std::collections::{BTreeSet, HashMap};

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{Signed, Zero};

use super::poly::{pow2, AtomId, Poly};
use super::{Atom, Exact};

/// The most condition atoms split on (`2^ATOMS` assignments).
const ATOMS: usize = 14;

/// The most terms of a condition's argument: tests of sums of a few words, whose
/// ranges refute assignments; a test of a reduction's product-level value (hundreds of
/// terms, far too loose a range to refute anything) ends the split before it costs.
const TERMS: usize = 24;

/// Bounds of a linear form (`None`: unbounded on that side) and values it avoids.
#[derive(Default)]
struct Range {
    lo: Option<BigInt>,
    hi: Option<BigInt>,
    not: Vec<BigInt>,
}

impl Exact<'_> {
    /// Whether `r` (a value in `[0, 2^w)`) is zero under every assignment of its
    /// condition atoms that survives refutation.
    pub(super) fn zero_by_cases(&mut self, r: &Poly, w: u32) -> bool {
        let Some(bits) = self.conditions(r) else {
            return false;
        };
        if bits.is_empty() {
            return false;
        }
        for mask in 0u32..(1 << bits.len()) {
            let vals: HashMap<AtomId, bool> = bits
                .iter()
                .enumerate()
                .map(|(i, &a)| (a, mask >> i & 1 == 1))
                .collect();
            // The residual first: an assignment under which it vanishes needs no
            // refutation.
            let rs = r.assign(&vals);
            if rs.is_zero() || self.refuted(&vals) {
                continue;
            }
            match self.lo(rs, w, None) {
                Some(z) if z.is_zero() => {}
                _ => return false,
            }
        }
        true
    }

    /// The sign and zero tests in `r` and in their arguments (transitively), at most
    /// [`ATOMS`] of them, each over at most [`TERMS`] terms.
    fn conditions(&self, r: &Poly) -> Option<Vec<AtomId>> {
        let mut seen = BTreeSet::new();
        let mut todo: Vec<AtomId> = r.terms.keys().flatten().copied().collect();
        while let Some(a) = todo.pop() {
            if let Atom::Neg(q) | Atom::Eqz(q) = &self.atoms[a as usize] {
                if seen.insert(a) {
                    if seen.len() > ATOMS || q.terms.len() > TERMS {
                        return None;
                    }
                    todo.extend(q.terms.keys().flatten().copied());
                }
            }
        }
        Some(seen.into_iter().collect())
    }

    /// Whether the assignment `vals` of condition atoms cannot hold: some linear form
    /// is confined to an empty range by the constraints the assignment puts on the
    /// atoms' arguments (`[Q < 0] = 1`: `Q ≤ -1`; `= 0`: `Q ≥ 0`; `[Q = 0] = 1`:
    /// `Q = 0`; `= 0`: `Q ≠ 0`) and by its own interval.
    fn refuted(&self, vals: &HashMap<AtomId, bool>) -> bool {
        let mut ranges: HashMap<Poly, Range> = HashMap::new();
        for (&a, &v) in vals {
            let (q, neg) = match &self.atoms[a as usize] {
                Atom::Neg(q) => (q, true),
                Atom::Eqz(q) => (q, false),
                _ => continue,
            };
            // The numerators N = n0 + s·g·L of the argument, with the assignment put
            // in (the argument is an integer, and N = 2^e times it).
            let qs = q.assign(vals);
            let scale = pow2(qs.e);
            let n0 = qs.terms.get(&Vec::new()).cloned().unwrap_or_default();
            let mut rest = qs.clone();
            rest.terms.remove(&Vec::new());
            rest.e = 0;
            if rest.terms.is_empty() {
                // A constant: the constraint holds or not.
                let ok = match (neg, v) {
                    (true, true) => n0 <= -&scale,
                    (true, false) => !n0.is_negative(),
                    (false, true) => n0.is_zero(),
                    (false, false) => !n0.is_zero(),
                };
                if !ok {
                    return true;
                }
                continue;
            }
            let g = rest.terms.values().fold(BigInt::zero(), |g, c| g.gcd(c));
            let lead_negative = rest.terms.values().next().is_some_and(|c| c.is_negative());
            let s = if lead_negative { -g } else { g };
            let l = rest.numerators_over(&s);
            let range = ranges.entry(l).or_default();
            // N ≤ k (or N ≥ k) is s·L ≤ k - n0 (or ≥).
            match (neg, v) {
                (true, true) => range.bound(&s, -scale - &n0, true),
                (true, false) => range.bound(&s, -n0.clone(), false),
                (false, true) => {
                    range.bound(&s, -n0.clone(), true);
                    range.bound(&s, -n0.clone(), false);
                }
                (false, false) => {
                    // N ≠ 0: L ≠ -n0 / s when s divides n0.
                    let (d, m) = (-&n0).div_mod_floor(&s);
                    if m.is_zero() {
                        range.not.push(d);
                    }
                }
            }
        }
        ranges.iter().any(|(l, r)| {
            let (ilo, ihi) = self.interval(l);
            let lo = r.lo.clone().map_or(ilo.clone(), |x| x.max(ilo));
            let hi = r.hi.clone().map_or(ihi.clone(), |x| x.min(ihi));
            lo > hi || (lo == hi && r.not.contains(&lo))
        })
    }
}

impl Range {
    /// Narrows the range of an integer `L` by `s·L ≤ t` (`at_most`) or `s·L ≥ t`
    /// (`s ≠ 0`): an upper bound `⌊t/s⌋` when the two agree in direction, else a lower
    /// bound `⌈t/s⌉`.
    fn bound(&mut self, s: &BigInt, t: BigInt, at_most: bool) {
        if at_most == s.is_positive() {
            let x = t.div_floor(s);
            if self.hi.as_ref().is_none_or(|h| x < *h) {
                self.hi = Some(x);
            }
        } else {
            let x = t.div_ceil(s);
            if self.lo.as_ref().is_none_or(|l| x > *l) {
                self.lo = Some(x);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Range::bound` keeps exactly the integers `L` in `[-40, 40]` that satisfy
    /// `s·L ≤ t` (or `≥`), for every sign of `s` and `t`, counted directly.
    #[test]
    fn bounds_keep_exactly_the_solutions() {
        for s in [-7i64, -3, -1, 1, 2, 5] {
            for t in -30i64..=30 {
                for at_most in [true, false] {
                    let mut r = Range::default();
                    r.bound(&BigInt::from(s), BigInt::from(t), at_most);
                    for l in -40i64..=40 {
                        let holds = if at_most { s * l <= t } else { s * l >= t };
                        let kept = r.lo.as_ref().is_none_or(|lo| BigInt::from(l) >= *lo)
                            && r.hi.as_ref().is_none_or(|hi| BigInt::from(l) <= *hi);
                        assert_eq!(
                            kept, holds,
                            "s = {s}, t = {t}, at_most = {at_most}, L = {l}"
                        );
                    }
                }
            }
        }
    }
}
