//! The normalization of a truncation `lo(P, k) = P mod 2^k`: the rules that make two
//! ways of computing one word the same polynomial (a range that makes it `P`, reduced
//! coefficients, inner truncations that vanish, low parts that cannot carry, words of a
//! multiword sum as differences of truncations of the whole, one atom for `lo(P, k)`
//! and `lo(-P, k)` of a single term, the sign of a small signed value), and the zero and
//! sign tests they produce (a sign test of a floor is the sign test of the value).
//!
//! Every rule here is an integer identity under the stated range conditions, and every
//! range comes from [`Exact::interval`] or a caller's sound hint: never a sample.

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{One, Signed, Zero};

use super::poly::{floor_shr, mod_pow2, pow2, v2, AtomId, Poly};
use super::{Atom, Exact, ROUNDS, TERMS, WORK};

/// The most multiples of `2^k` a truncated sum may wrap past to be written as
/// threshold tests rather than an atom (a sum of four words).
const MULTIPLES: u32 = 3;

impl Exact<'_> {
    /// `1` if `p` is zero, else `0`.
    pub(super) fn eqz(&mut self, p: Poly) -> Poly {
        if let Some(v) = p.as_const() {
            return Poly::konst(BigInt::from(v.is_zero() as u8));
        }
        let (l, h) = self.interval(&p);
        if l.is_positive() || h.is_negative() {
            return Poly::default();
        }
        let one = Poly::konst(BigInt::one());
        if !l.is_negative() && h <= BigInt::one() {
            // A bit: its complement.
            return one.sub(&p);
        }
        if l >= BigInt::from(-1) && !h.is_positive() {
            return one.add(&p);
        }
        // lo(Q, k) is zero exactly when Q is, for |Q| < 2^k.
        if let Some(q) = self.lo_arg(&p) {
            return self.eqz(q);
        }
        // lo(o·R, k) is zero exactly when lo(R, k) is, for o odd (invertible modulo
        // 2^k): a Montgomery factor m = lo(t·p', 64) is zero exactly when t's low word is.
        if let Some(r) = self.odd_part_out(&p) {
            return self.eqz(r);
        }
        // -R mod 2^k as rule minus_mod writes it, 2^k - R - 2^k·[R = 0], is zero exactly
        // when R is.
        if let Some(r) = self.minus_mod_arg(&p) {
            return self.eqz(r);
        }
        // p = 0 exactly when c·p = 0: one representative of the multiples.
        let content = p.terms.values().fold(BigInt::zero(), |g, c| g.gcd(c));
        let lead_negative = p.terms.values().next().is_some_and(|c| c.is_negative());
        let d = if lead_negative { -content } else { content };
        let q = p.numerators_over(&d);
        self.intern(Atom::Eqz(q), BigInt::one())
    }

    /// `lo(Q / o, k)` when `p` is the atom `lo(Q, k)` and `o > 1` is the odd part of
    /// the content of `Q`'s numerators (then `Q / o` is an integer, and zero modulo
    /// `2^k` exactly when `Q` is).
    fn odd_part_out(&mut self, p: &Poly) -> Option<Poly> {
        let Atom::Lo(q, k) = self.atoms[p.as_atom()? as usize].clone() else {
            return None;
        };
        let content = q.terms.values().fold(BigInt::zero(), |g, c| g.gcd(c));
        let odd = &content >> v2(&content);
        if odd <= BigInt::one() {
            return None;
        }
        let r = Poly {
            e: q.e,
            terms: q.terms.iter().map(|(m, c)| (m.clone(), c / &odd)).collect(),
        };
        self.lo(r, k, None)
    }

    /// `R` when `p` is `2^k - R - 2^k·[R = 0]` for `0 ≤ R < 2^k` (`-R mod 2^k`, as
    /// [`Exact::minus_mod`] writes it): zero exactly when `R` is.
    fn minus_mod_arg(&mut self, p: &Poly) -> Option<Poly> {
        if p.e != 0 {
            return None;
        }
        let tests: Vec<(AtomId, BigInt)> = p
            .terms
            .iter()
            .filter_map(|(m, c)| match m[..] {
                [z] if matches!(self.atoms[z as usize], Atom::Eqz(_)) => Some((z, -c)),
                _ => None,
            })
            .collect();
        for (z, top) in tests {
            if top != pow2(v2(&top)) || p.terms.get(&Vec::new()) != Some(&top) {
                continue;
            }
            let r = Poly::konst(top.clone())
                .sub(&Poly::atom(z).scale(&top))
                .sub(p);
            let (l, h) = self.interval(&r);
            if !l.is_negative() && h < top && self.eqz(r.clone()) == Poly::atom(z) {
                return Some(r);
            }
        }
        None
    }

    /// `Q` when `p` is the atom `lo(Q, k)` and `-2^k < Q < 2^k`.
    fn lo_arg(&self, p: &Poly) -> Option<Poly> {
        let Atom::Lo(q, k) = &self.atoms[p.as_atom()? as usize] else {
            return None;
        };
        let (l, h) = self.interval(q);
        let top = pow2(*k);
        (h < top && l > -top).then(|| q.clone())
    }

    /// `p mod 2^k` (`p` an integer; `hint`, when given, sound bounds of it).
    pub(super) fn lo(&mut self, p: Poly, k: u32, hint: Option<(BigInt, BigInt)>) -> Option<Poly> {
        if let Some(c) = p.as_const() {
            return Some(Poly::konst(mod_pow2(&c, k)));
        }
        let (mut l, mut h) = self.interval(&p);
        if let Some((hl, hh)) = hint {
            l = l.max(hl);
            h = h.min(hh);
        }
        let top = pow2(k);
        if !l.is_negative() && h < top {
            return Some(p);
        }
        let m = p.int_factor2();
        if m >= k {
            return Some(Poly::default());
        }
        if m > 0 {
            let q = p.shr(m);
            let hint = (!l.is_negative()).then(|| (&l >> m, &h >> m));
            return Some(self.lo(q, k - m, hint)?.scale(&pow2(m)));
        }
        let q = self.reduce(p, k, false)?;
        if let Some(c) = q.as_const() {
            return Some(Poly::konst(mod_pow2(&c, k)));
        }
        let m = q.int_factor2();
        if m > 0 {
            return Some(self.lo(q.shr(m), k - m, None)?.scale(&pow2(m)));
        }
        if let Some(r) = self.low_bits_of_square(&q, k) {
            return Some(r);
        }
        if let Some(r) = self.peel(&q, k) {
            return Some(r);
        }
        let qs = q.reduced(k, true);
        let (l2, h2) = self.interval(&qs);
        if !l2.is_negative() && h2 < top {
            return Some(qs);
        }
        let r = qs.scale(&BigInt::from(-1));
        let (l3, h3) = self.interval(&r);
        if !l3.is_negative() && h3 < top {
            return Some(self.minus_mod(r, k));
        }
        if let Some(r) = self.use_near.then(|| self.near(&qs, k)).flatten() {
            return Some(r);
        }
        if let Some(r) = self.split_low(&q, k) {
            return Some(r);
        }
        // lo(Q, k) and lo(-Q, k) are one atom, the one of the smaller argument, when Q is
        // a single term (and a constant): a product and its negation. Not for a longer
        // sum: its negated form, 2^k - lo - 2^k·[lo = 0], hides from the other rules
        // (words of a multiword sum, above all) the word it is.
        let nq = q.scale(&BigInt::from(-1)).reduced(k, false);
        if nq < q && q.terms.keys().filter(|m| !m.is_empty()).count() == 1 {
            let nq = self.canonical(nq, k)?;
            let n = self.intern(Atom::Lo(nq, k), &top - 1);
            return Some(self.minus_mod(n, k));
        }
        let mut ub = if l.is_negative() {
            &top - 1
        } else {
            h.min(&top - 1)
        };
        let q = self.canonical(q, k)?;
        if let Some(c) = q.as_const() {
            return Some(Poly::konst(mod_pow2(&c, k)));
        }
        let atom = Atom::Lo(q, k);
        // Once per atom: the bound does not change, and `reduce` counts against WORK.
        if let (false, Atom::Lo(q, _)) = (self.memo.contains_key(&atom), &atom) {
            ub = ub.min(&top - pow2(self.zero_words(q, k)));
        }
        Some(self.intern(atom, ub))
    }

    /// The most low bits, a multiple of 64 below `k`, in which `q` is zero (by
    /// [`Exact::reduce`], inner truncations opened): `lo(q, k)` is then a multiple of
    /// `2^j` below `2^k`, so at most `2^k − 2^j`. A Montgomery quotient written as the
    /// whole less its low word (`M − m_0`, where `m_0` is `−lo(−t·p', 64)`) is such a
    /// multiple, and the bound is what keeps `L + M·p` below `R·(p + 1)`.
    fn zero_words(&mut self, q: &Poly, k: u32) -> u32 {
        let mut j = 0;
        while j + 64 < k
            && self
                .reduce(q.clone(), j + 64, false)
                .is_some_and(|r| r.is_zero())
        {
            j += 64;
        }
        j
    }

    /// `lo(Q, k)` for `Q` within `2^k` of a multiple `t·2^k`: with `R = Q - t·2^k` in
    /// `[-2^k, 2^k)`, it is `R`, plus `2^k` when `R` is negative (`t = 0`: a small
    /// signed value; `t = 1`: a word plus a constant, `x + c - 2^k·[x + c ≥ 2^k]`); or
    /// for `Q` in `[0, (MULTIPLES + 1)·2^k)`, `Q` less `2^k` for each multiple it
    /// reaches.
    pub(super) fn near(&mut self, q: &Poly, k: u32) -> Option<Poly> {
        let (l, h) = self.interval(q);
        let t = floor_shr(&h, k);
        let shift = &t << k;
        let top = pow2(k);
        if l.clone() - &shift >= -&top {
            let r = q.sub(&Poly::konst(shift));
            let n = self.neg(&r);
            return Some(r.add(&n.scale(&top)));
        }
        // A sum of a few words: S in [0, (T+1)·2^k) wraps T times at most,
        // lo(S, k) = S - 2^k·Σ_{i=1..T} [S ≥ i·2^k] (tests of one value against
        // thresholds, which a case split relates: module `cases`).
        if l.is_negative() || t > BigInt::from(MULTIPLES) {
            return None;
        }
        let mut acc = q.clone();
        let mut i = BigInt::one();
        while i <= t {
            let n = self.neg(&q.sub(&Poly::konst(&i << k)));
            acc = acc.sub(&Poly::konst(top.clone())).add(&n.scale(&top));
            i += 1;
        }
        Some(acc)
    }

    /// `-r mod 2^k` for `0 ≤ r < 2^k`: `2^k - r`, or 0 when `r` is.
    fn minus_mod(&mut self, r: Poly, k: u32) -> Poly {
        let top = pow2(k);
        let z = self.eqz(r.clone());
        if let (Some(a), Some(za)) = (r.as_atom(), z.as_atom()) {
            // `r` is an atom (non-negative) below 2^k and `za` its zero test.
            if self.ubs[a as usize] < top {
                self.negated.insert(a, (za, k));
            }
        }
        Poly::konst(top.clone()).sub(&r).sub(&z.scale(&top))
    }

    /// `lo(M - 2^a·L, K) = lo(M, K) - 2^a·L` for an atom `L = lo(Q, s)` with
    /// `s + a ≤ K` and `M ≡ 2^a·Q (mod 2^(s+a))` (then `2^a·L = lo(M, s + a)`, and
    /// `lo(M, K) - lo(M, s + a)` is in `[0, 2^K)` and congruent): a word of a multiword
    /// sum is the difference of two truncations of the whole sum, however the carries or
    /// borrows between its words were passed on; and a Montgomery factor subtracted
    /// from a sum is the difference of the sum with the factor in place and the factor
    /// (the next factor of the IR, `lo((T + m·p) / 2^64, 64)`, against a program's
    /// `(lo(T + 2^96·m, 128) - m) / 2^64`), also where a canonical argument wrote `-L`
    /// as `(2^(K-s) - 1)·L` less a multiple of `Q`. `q` is `lo`'s reduced argument
    /// (`K = k + e` on its numerators).
    fn peel(&mut self, q: &Poly, k: u32) -> Option<Poly> {
        let big = k + q.e;
        for (m, c) in &q.terms {
            let &[l] = &m[..] else {
                continue;
            };
            let Atom::Lo(inner, s) = &self.atoms[l as usize] else {
                continue;
            };
            // The coefficient is -2^a modulo 2^K, up to d = c + 2^a, a multiple of
            // 2^(K-s): a canonical argument (see `canonical`) writes -2^a·L as
            // (2^(K-s) - 2^a)·L less a multiple of Q. Then d·L stays in M (the
            // condition below is checked on M as it is).
            let s = *s;
            let a = v2(c);
            let d = mod_pow2(&(c + pow2(a)), big);
            if s + a > big || (!d.is_zero() && v2(&d) < big - s) {
                continue;
            }
            let inner = inner.clone();
            let neg = pow2(a);
            let mut rest = Poly {
                e: 0,
                terms: q.terms.clone(),
            };
            rest.terms.remove(m);
            if !d.is_zero() {
                rest = rest.add(&Poly::atom(l).scale(&d));
            }
            if !self
                .reduce(rest.sub(&inner.scale(&neg)), s + a, true)?
                .is_zero()
            {
                continue;
            }
            let top = self.lo(rest, big, None)?;
            return Some(top.sub(&Poly::atom(l).scale(&neg)).shr(q.e));
        }
        None
    }

    /// `lo(2^m·H + R, K) = 2^m·lo(H, K - m) + R` for `0 ≤ R < 2^m` (`m < K`): low terms
    /// that cannot carry into the rest stay outside the truncation. `q` is `lo`'s
    /// reduced argument (`K = k + e` on its numerators), `m` tried at each power of two
    /// that divides some coefficient.
    fn split_low(&mut self, q: &Poly, k: u32) -> Option<Poly> {
        let q = &q.reduced(k, true);
        let big = k + q.e;
        let mut ms: Vec<u32> = q
            .terms
            .values()
            .map(v2)
            .filter(|&m| m > 0 && m < big)
            .collect();
        ms.sort_unstable();
        ms.dedup();
        for &m in ms.iter().rev() {
            let (mut hi, mut lo) = (Poly::default(), Poly::default());
            for (mono, c) in &q.terms {
                let part = if v2(c) >= m { &mut hi } else { &mut lo };
                part.terms.insert(mono.clone(), c.clone());
            }
            if hi.is_zero() || lo.is_zero() {
                continue;
            }
            let (l, h) = self.interval(&lo);
            if l.is_negative() || h >= pow2(m) {
                continue;
            }
            let top = self.lo(hi.shr(m), big - m, None)?;
            return Some(top.scale(&pow2(m)).add(&lo).shr(q.e));
        }
        None
    }

    /// `1` if `p` is negative, else `0`.
    pub(super) fn neg(&mut self, p: &Poly) -> Poly {
        // The numerators have the sign of the value.
        let mut q = p.numerators_over(&BigInt::one());
        for _ in 0..ROUNDS {
            let (l, h) = self.interval(&q);
            if !l.is_negative() {
                return Poly::default();
            }
            if h.is_negative() {
                return Poly::konst(BigInt::one());
            }
            match self.sign_step(&q) {
                Some(next) => q = next,
                None => break,
            }
        }
        // Dividing by a positive content keeps the sign: one representative.
        let content = q.terms.values().fold(BigInt::zero(), |g, c| g.gcd(c));
        let q = q.numerators_over(&content);
        self.intern(Atom::Neg(q), BigInt::one())
    }

    /// A polynomial with the sign of `q` (integer coefficients) and one truncation
    /// fewer: for a term `-c·lo(Q, k)` (`c = 2^j`) with `A - c·Q ≡ 0 (mod c·2^k)` for
    /// the rest `A`, `q = c·2^k·(H + ⌊Q/2^k⌋)` and `A = c·(2^k·H + Q)` with `H` an
    /// integer, which are negative together — so `[q < 0] = [A < 0]`. A signed borrow
    /// chain (clang's `__int128` differences) keeps each word's high part as
    /// `(S - lo(S, 64)) / 2^64`; its sign is the sign of `S`.
    fn sign_step(&mut self, q: &Poly) -> Option<Poly> {
        for (m, c) in &q.terms {
            if m.len() != 1 || !c.is_negative() {
                continue;
            }
            let a = m[0];
            let Atom::Lo(arg, k) = self.atoms[a as usize].clone() else {
                continue;
            };
            let c = -c;
            let j = v2(&c);
            if c != pow2(j) {
                continue;
            }
            let rest = q.add(&Poly::atom(a).scale(&c));
            let h = rest.sub(&arg.scale(&c));
            if self.reduce(h, k + j, true).is_some_and(|r| r.is_zero()) {
                return Some(rest);
            }
        }
        None
    }

    /// `c·a² mod 2^k` for `k ≤ 2` and `c` odd: `(c mod 2^k)·(a mod 2)`, since an even
    /// square is 0 modulo 4 and an odd square 1 modulo 8.
    fn low_bits_of_square(&mut self, q: &Poly, k: u32) -> Option<Poly> {
        if k > 2 || q.e != 0 || q.terms.len() != 1 {
            return None;
        }
        let (m, c) = q.terms.iter().next()?;
        if m.len() != 2 || m[0] != m[1] {
            return None;
        }
        let bit = self.lo(Poly::atom(m[0]), 1, None)?;
        Some(bit.scale(&mod_pow2(c, k)))
    }

    /// `p` with coefficients reduced modulo `2^k` (into `[0, 2^k)`) and every inner
    /// `lo(Q, j)` whose truncation is a multiple of `2^k` where it stands replaced by
    /// `Q`, to a fixed point: a polynomial congruent to `p` modulo `2^k`.
    /// The argument of a new atom `lo(Q, k)`: `Q` with every inner truncation's
    /// coefficient reduced as far as it goes (see [`Exact::reduce`]), so that one value
    /// written with its inner truncations in other proportions is one atom (clang's
    /// Montgomery factors `m = lo(t, 64)`, each `t` with its own mix of a product and
    /// that product's low word). Only the atom's argument: the polynomial the other
    /// rules see keeps its truncations, whose structure they need.
    fn canonical(&mut self, q: Poly, k: u32) -> Option<Poly> {
        self.reduce(q, k, true)
    }

    pub(super) fn reduce(&mut self, p: Poly, k: u32, partial: bool) -> Option<Poly> {
        let mut q = p.reduced(k, false);
        for _ in 0..ROUNDS {
            let mut changed = false;
            let mut parts = Vec::with_capacity(q.terms.len());
            for (m, c) in &q.terms {
                // The part of the coefficient that is a multiple of 2^(k + e - j): times
                // lo(Q, j) it is that multiple of Q modulo 2^(k + e).
                let sub = m
                    .iter()
                    .enumerate()
                    .find_map(|(i, &a)| match &self.atoms[a as usize] {
                        Atom::Lo(_, j) => {
                            let low = mod_pow2(c, (k + q.e).saturating_sub(*j));
                            (low.is_zero() || (partial && low != *c)).then_some((i, low))
                        }
                        _ => None,
                    });
                let term = |c: &BigInt| {
                    let mut t = Poly {
                        e: q.e,
                        ..Poly::default()
                    };
                    t.terms.insert(m.clone(), c.clone());
                    t
                };
                match sub {
                    Some((i, low)) => {
                        let Atom::Lo(inner, _) = &self.atoms[m[i] as usize] else {
                            unreachable!()
                        };
                        let mut rest = m.clone();
                        rest.remove(i);
                        let mut high = Poly {
                            e: q.e,
                            ..Poly::default()
                        };
                        high.terms.insert(rest, c - &low);
                        parts.push(high.mul(inner, TERMS)?);
                        if !low.is_zero() {
                            parts.push(term(&low));
                        }
                        changed = true;
                    }
                    None => parts.push(term(c)),
                }
            }
            if !changed {
                return Some(q);
            }
            q = Poly::sum(&parts).reduced(k, false);
            self.work += parts.iter().map(|p| p.terms.len()).sum::<usize>();
            if q.terms.len() > TERMS || self.work > WORK {
                return None;
            }
        }
        Some(q)
    }
}
