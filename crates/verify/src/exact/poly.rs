//! Dyadic polynomials over integer atoms: `(Σ cᵢ·mᵢ) / 2^e` with integer coefficients
//! `cᵢ`, monomials `mᵢ` (products of atoms, each a non-negative integer), and `e` as
//! small as it can be (some coefficient is odd when `e > 0`). This is the value domain of
//! the exact-integer check ([`super`]): every value it builds is an integer, though its
//! terms may not be (a carry is `(S - lo(S)) / 2^64`).
//!
//! The representation is canonical for a given set of atoms: two polynomials are equal
//! as expressions iff they are equal as values of `Poly`. Nothing here knows what an atom
//! stands for; ranges come from the caller's upper bounds of the atoms.

use std::collections::BTreeMap;

use num_bigint::BigInt;
use num_traits::{One, Signed, Zero};

/// An atom: an index into the atom table of [`super::Exact`].
pub(super) type AtomId = u32;

/// A product of atoms, sorted, with repetition (the empty product is 1).
pub(super) type Mono = Vec<AtomId>;

/// `(Σ c·m) / 2^e`; no zero coefficient; `e > 0` only if some coefficient is odd.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) struct Poly {
    pub e: u32,
    pub terms: BTreeMap<Mono, BigInt>,
}

/// `2^k` as a big integer.
pub(super) fn pow2(k: u32) -> BigInt {
    BigInt::one() << k
}

/// The exponent of 2 in `c` (`c ≠ 0`).
pub(super) fn v2(c: &BigInt) -> u32 {
    c.trailing_zeros().unwrap_or(0) as u32
}

/// `⌊x / 2^k⌋`.
pub(super) fn floor_shr(x: &BigInt, k: u32) -> BigInt {
    if x.is_negative() {
        let y: BigInt = (-x + pow2(k) - 1) >> k;
        -y
    } else {
        x >> k
    }
}

/// `x mod 2^k` in `[0, 2^k)`.
pub(super) fn mod_pow2(x: &BigInt, k: u32) -> BigInt {
    let m = pow2(k);
    let r = x % &m;
    if r.is_negative() {
        r + m
    } else {
        r
    }
}

impl Poly {
    pub fn konst(c: BigInt) -> Poly {
        let mut p = Poly::default();
        if !c.is_zero() {
            p.terms.insert(Vec::new(), c);
        }
        p
    }

    pub fn atom(a: AtomId) -> Poly {
        let mut p = Poly::default();
        p.terms.insert(vec![a], BigInt::one());
        p
    }

    pub fn is_zero(&self) -> bool {
        self.terms.is_empty()
    }

    /// The atom when the polynomial is exactly one atom.
    pub fn as_atom(&self) -> Option<AtomId> {
        match (self.e, self.terms.len(), self.terms.iter().next()) {
            (0, 1, Some((m, c))) if m.len() == 1 && c.is_one() => Some(m[0]),
            _ => None,
        }
    }

    /// The value when the polynomial is a constant integer.
    pub fn as_const(&self) -> Option<BigInt> {
        match self.terms.len() {
            0 => Some(BigInt::zero()),
            1 if self.e == 0 => self.terms.get(&Vec::new()).cloned(),
            _ => None,
        }
    }

    /// Restores the invariant: no zero coefficient, `e` as small as it can be.
    fn normalized(mut self) -> Poly {
        self.terms.retain(|_, c| !c.is_zero());
        if self.e > 0 {
            let t = self.terms.values().map(v2).min().unwrap_or(self.e);
            let s = t.min(self.e);
            if s > 0 {
                for c in self.terms.values_mut() {
                    *c >>= s;
                }
                self.e -= s;
            }
        }
        if self.terms.is_empty() {
            self.e = 0;
        }
        self
    }

    /// The numerators scaled to denominator `2^e` (`e ≥ self.e`).
    fn at_exponent(&self, e: u32) -> impl Iterator<Item = (&Mono, BigInt)> + '_ {
        let s = e - self.e;
        self.terms.iter().map(move |(m, c)| (m, c << s))
    }

    pub fn add(&self, o: &Poly) -> Poly {
        let e = self.e.max(o.e);
        let mut terms: BTreeMap<Mono, BigInt> = BTreeMap::new();
        for (m, c) in self.at_exponent(e).chain(o.at_exponent(e)) {
            *terms.entry(m.clone()).or_default() += c;
        }
        Poly { e, terms }.normalized()
    }

    /// The sum of many polynomials at once.
    pub fn sum<'a>(ps: impl IntoIterator<Item = &'a Poly> + Clone) -> Poly {
        let e = ps.clone().into_iter().map(|p| p.e).max().unwrap_or(0);
        let mut terms: BTreeMap<Mono, BigInt> = BTreeMap::new();
        for p in ps {
            for (m, c) in p.at_exponent(e) {
                *terms.entry(m.clone()).or_default() += c;
            }
        }
        Poly { e, terms }.normalized()
    }

    pub fn scale(&self, k: &BigInt) -> Poly {
        Poly {
            e: self.e,
            terms: self.terms.iter().map(|(m, c)| (m.clone(), c * k)).collect(),
        }
        .normalized()
    }

    pub fn sub(&self, o: &Poly) -> Poly {
        self.add(&o.scale(&BigInt::from(-1)))
    }

    /// The product; `None` when it would have more than `limit` terms.
    pub fn mul(&self, o: &Poly, limit: usize) -> Option<Poly> {
        if self.terms.len().saturating_mul(o.terms.len()) > limit {
            return None;
        }
        let mut terms: BTreeMap<Mono, BigInt> = BTreeMap::new();
        for (ma, ca) in &self.terms {
            for (mb, cb) in &o.terms {
                let mut m = Vec::with_capacity(ma.len() + mb.len());
                m.extend_from_slice(ma);
                m.extend_from_slice(mb);
                m.sort_unstable();
                *terms.entry(m).or_default() += ca * cb;
            }
        }
        Some(
            Poly {
                e: self.e + o.e,
                terms,
            }
            .normalized(),
        )
    }

    /// The polynomial with atom `a` replaced by `by`; `None` when a product would have
    /// more than `limit` terms.
    pub fn substitute(&self, a: AtomId, by: &Poly, limit: usize) -> Option<Poly> {
        let mut parts = Vec::with_capacity(self.terms.len());
        for (m, c) in &self.terms {
            let times = m.iter().filter(|&&x| x == a).count();
            let rest: Mono = m.iter().copied().filter(|&x| x != a).collect();
            let mut t = Poly {
                e: self.e,
                terms: BTreeMap::from([(rest, c.clone())]),
            };
            for _ in 0..times {
                t = t.mul(by, limit)?;
            }
            parts.push(t);
        }
        Some(Poly::sum(&parts))
    }

    /// The polynomial with the atoms of `vals` replaced by their values (bits: a
    /// monomial with an atom set to 0 vanishes, one set to 1 drops it).
    pub fn assign(&self, vals: &std::collections::HashMap<AtomId, bool>) -> Poly {
        let mut terms: BTreeMap<Mono, BigInt> = BTreeMap::new();
        for (m, c) in &self.terms {
            if m.iter().any(|a| vals.get(a) == Some(&false)) {
                continue;
            }
            let rest: Mono = m
                .iter()
                .copied()
                .filter(|a| !vals.contains_key(a))
                .collect();
            *terms.entry(rest).or_default() += c;
        }
        Poly { e: self.e, terms }.normalized()
    }

    /// The polynomial with every coefficient divided by `d` (the caller knows each is a
    /// multiple of `d`; the exponent `e` is dropped: a multiple of the value).
    pub fn numerators_over(&self, d: &BigInt) -> Poly {
        Poly {
            e: 0,
            terms: self
                .terms
                .iter()
                .map(|(m, c)| {
                    let q: BigInt = c / d;
                    (m.clone(), q)
                })
                .collect(),
        }
        .normalized()
    }

    /// `self / 2^k` (exact as a value: the caller knows it is an integer).
    pub fn shr(&self, k: u32) -> Poly {
        Poly {
            e: self.e + k,
            terms: self.terms.clone(),
        }
        .normalized()
    }

    /// The largest `m` with every coefficient a multiple of `2^m` (at `e = 0`), so that
    /// `self / 2^m` is a polynomial with integer coefficients; 0 when `e > 0`.
    pub fn int_factor2(&self) -> u32 {
        if self.e > 0 {
            return 0;
        }
        self.terms.values().map(v2).min().unwrap_or(0)
    }

    /// The coefficients reduced modulo `2^k` (as values: numerators modulo `2^(k+e)`),
    /// into `[0, 2^k)` or, with `symmetric`, into `(-2^(k-1), 2^(k-1)]`. Equal to `self`
    /// modulo `2^k` because atoms are integers.
    pub fn reduced(&self, k: u32, symmetric: bool) -> Poly {
        let b = k + self.e;
        let half = pow2(b.saturating_sub(1));
        let full = pow2(b);
        Poly {
            e: self.e,
            terms: self
                .terms
                .iter()
                .map(|(m, c)| {
                    let mut r = mod_pow2(c, b);
                    if symmetric && r > half {
                        r -= &full;
                    }
                    (m.clone(), r)
                })
                .collect(),
        }
        .normalized()
    }

    /// Bounds `[lo, hi]` of the value, given an upper bound of each atom (atoms are
    /// non-negative), rounded inwards because the value is an integer.
    pub fn interval(&self, ub: &impl Fn(AtomId) -> BigInt) -> (BigInt, BigInt) {
        let (mut lo, mut hi) = (BigInt::zero(), BigInt::zero());
        for (m, c) in &self.terms {
            if m.is_empty() {
                lo += c;
                hi += c;
                continue;
            }
            let top: BigInt = m.iter().map(|&a| ub(a)).product();
            let t = c * top;
            if c.is_negative() {
                lo += t;
            } else {
                hi += t;
            }
        }
        (-floor_shr(&-lo, self.e), floor_shr(&hi, self.e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(v: i64) -> Poly {
        Poly::konst(BigInt::from(v))
    }

    #[test]
    fn arithmetic_is_canonical() {
        let (a, b) = (Poly::atom(0), Poly::atom(1));
        // (a + b) - b == a, and halves of an even sum recombine.
        assert_eq!(a.add(&b).sub(&b), a);
        let two_a = a.scale(&BigInt::from(2));
        assert_eq!(two_a.shr(1), a);
        assert_eq!(a.shr(3).shr(2), a.shr(5));
        assert_eq!(a.shr(5).scale(&BigInt::from(32)), a);
        let ab = a.mul(&b, 100).unwrap();
        assert_eq!(ab, b.mul(&a, 100).unwrap());
        assert_eq!(
            a.add(&k(1)).mul(&a.sub(&k(1)), 100).unwrap(),
            a.mul(&a, 100).unwrap().sub(&k(1))
        );
        assert!(a.mul(&b, 0).is_none());
    }

    #[test]
    fn substitution_is_composition() {
        let (a, b) = (Poly::atom(0), Poly::atom(1));
        // (a² + 3ab)/2 with a = b + 1: ((b + 1)² + 3(b + 1)b)/2 = (4b² + 5b + 1)/2.
        let p = a.mul(&a, 100).unwrap();
        let p = p
            .add(&a.mul(&b, 100).unwrap().scale(&BigInt::from(3)))
            .shr(1);
        let b2 = b.mul(&b, 100).unwrap();
        let want = b2.scale(&BigInt::from(4)).add(&b.scale(&BigInt::from(5)));
        assert_eq!(
            p.substitute(0, &b.add(&k(1)), 100),
            Some(want.add(&k(1)).shr(1))
        );
        // An atom by itself, or an atom the polynomial lacks, leaves it as it was.
        assert_eq!(p.substitute(0, &a, 100), Some(p.clone()));
        assert_eq!(p.substitute(2, &k(7), 100), Some(p.clone()));
        // A product past the limit is refused.
        assert_eq!(p.substitute(0, &b.add(&k(1)), 1), None);
    }

    #[test]
    fn reduction_and_interval() {
        let a = Poly::atom(0);
        let p = a.scale(&BigInt::from(-1)).add(&k(5));
        assert_eq!(p.reduced(4, false).terms[&vec![0]], BigInt::from(15));
        assert_eq!(p.reduced(4, true).terms[&vec![0]], BigInt::from(-1));
        let ub = |_| BigInt::from(7);
        assert_eq!(p.interval(&ub), (BigInt::from(-2), BigInt::from(5)));
        // (a - 3) / 4 with a ≤ 7: in (-3/4, 1], so [0, 1].
        assert_eq!(
            a.sub(&k(3)).shr(2).interval(&ub),
            (BigInt::zero(), BigInt::one())
        );
        assert_eq!(floor_shr(&BigInt::from(-5), 1), BigInt::from(-3));
        assert_eq!(mod_pow2(&BigInt::from(-5), 3), BigInt::from(3));
    }
}
