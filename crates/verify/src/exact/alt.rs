//! Second forms of truncations, tried only where a pair is otherwise not proved (the
//! sweep asks [`Views::equal_by_second_forms`](super::Views::equal_by_second_forms)
//! for an output its queries have failed on too, and only for words): an atom
//! `lo(Q, k)` of the difference rewritten as an identity that the normal form does not
//! use, because using it everywhere would part the two sides elsewhere (the forms it
//! leaves are atoms on one side and sums on the other).
//!
//! * **Relations**: an atom `a` solved from the difference `r` of two values proved
//!   equal ([`Exact::alias`] records it; its value is zero) where `a` has the
//!   coefficient `±2^j` in `r`'s numerators `N`: `a = a ∓ N/2^j`. A relation is used
//!   once on a path of the search.
//! * **Refolded**: a multiple `c·A` of the argument of an atom `lo(A, j)` within `Q` with
//!   `2^k | c·2^j` is `c·lo(A, j)` modulo `2^k` (the opposite of [`Exact::reduce`],
//!   which opens such a truncation). When that brings `Q` into `[0, 2^k)` or into the
//!   range of rule `near`, `lo(Q, k)` is written so: P-384's `m·c` below `2^193`
//!   (`m` a Montgomery quotient, `c = 2^128 + 2^96 − 2^32 + 1`), whose reduced form
//!   has opened `2^128·m` and no longer shows its range.
//! * **Congruent sign**: `lo(Q, k) = U + 2^k·[U < 0]` for the argument `U` of a sign
//!   atom with `U ≡ Q (mod 2^k)` and `−2^k ≤ U < 2^k`: the low words of `S − m·c` as
//!   `lo(S, 192) − lo(m·c, 192)` plus the borrow a chain computed for that difference.
//!
//! Each rewrite is an integer identity under its stated range, the range from
//! [`Exact::interval`]. This module must never change the normal form of a node: it
//! works on a copy of the difference only.

use std::collections::hash_map::Entry;
use std::collections::{BTreeSet, HashMap};

use num_bigint::BigInt;
use num_traits::{One, Signed, Zero};

use super::poly::{pow2, v2, AtomId, Poly};
use super::{Atom, Exact, TERMS, WORK};

/// The rewrites tried in all by one [`Exact`] (its view of one check): the search is a
/// last resort, and a check whose pairs it cannot prove must not pay for it on each.
pub(super) const CHECK_TRIES: usize = 2_000;

/// The narrowest pair searched.
const WIDTH_SEARCHED: u32 = 8;

/// The most rewrites on one path of the search.
const DEPTH: usize = 6;

/// The terms one search may build (against [`WORK`], which it does not spend).
const SEARCH_WORK: usize = 20_000;

/// The most rewrites tried for one difference.
const TRIES: usize = 160;

impl Exact<'_> {
    /// Whether the difference `d` of two values below `2^w` is zero modulo `2^w` once
    /// some of its truncations are rewritten by their second forms (see the module
    /// docs): a depth-first search over rewrites, newest atom first, at most [`DEPTH`]
    /// deep and [`TRIES`] tries in all.
    pub(super) fn zero_by_second_forms(&mut self, d: &Poly, w: u32) -> bool {
        // Words only (a flag shares its simulated signature with many nodes it does
        // not equal), not twice for one difference, not past this view's budget.
        if w < WIDTH_SEARCHED || self.second_tries == 0 || self.second_failed.contains(d) {
            return false;
        }
        let mut forms = HashMap::new();
        let mut tries = TRIES.min(self.second_tries);
        let given = tries;
        if super::diag::debug() {
            eprintln!("second forms of {}", self.show(d));
            self.show_closure(d);
        }
        // The search has a budget of its own ([`SEARCH_WORK`] of the terms that `WORK`
        // counts), so that a pair it fails on leaves the check's budget as it was.
        let work = self.work;
        self.work = WORK.saturating_sub(SEARCH_WORK);
        // Iterative deepening: the shortest chain of rewrites is found first.
        let found =
            (1..=DEPTH).any(|depth| self.second_search(d, w, depth, &[], &mut forms, &mut tries));
        self.work = work;
        self.second_tries -= given - tries;
        if !found {
            self.second_failed.insert(d.clone());
        }
        if super::diag::debug() {
            eprintln!("second forms: {} tries, found {found}", given - tries);
        }
        found
    }

    fn second_search(
        &mut self,
        cur: &Poly,
        w: u32,
        depth: usize,
        used: &[usize],
        forms: &mut HashMap<AtomId, Vec<(Poly, Option<usize>)>>,
        tries: &mut usize,
    ) -> bool {
        if depth == 0 {
            return false;
        }
        let atoms: BTreeSet<AtomId> = cur.terms.keys().flatten().copied().collect();
        for a in atoms.into_iter().rev() {
            if let Entry::Vacant(e) = forms.entry(a) {
                e.insert(self.second_forms(a));
            }
            for (alt, rel) in forms[&a].clone() {
                if rel.is_some_and(|i| used.contains(&i)) {
                    continue;
                }
                if *tries == 0 {
                    return false;
                }
                *tries -= 1;
                let Some(next) = cur.substitute(a, &alt, TERMS) else {
                    continue;
                };
                if super::diag::debug() {
                    eprintln!("  a{a} (relation {rel:?}) -> {}", self.show(&next));
                }
                match self.lo(next.clone(), w, None) {
                    Some(r) if r.is_zero() => return true,
                    Some(r) if self.zero_by_cases(&r, w) => return true,
                    Some(_) => {}
                    // Over a budget: this rewrite is not followed.
                    None => continue,
                }
                let mut used = used.to_vec();
                used.extend(rel);
                if self.second_search(&next, w, depth - 1, &used, forms, tries) {
                    return true;
                }
            }
        }
        false
    }

    /// The second forms of atom `a`, each with the relation it comes from (a relation
    /// is used once on a path: solved for one atom, it must not bring that atom back
    /// through another).
    fn second_forms(&mut self, a: AtomId) -> Vec<(Poly, Option<usize>)> {
        let mut out: Vec<(Poly, Option<usize>)> = self
            .relations
            .iter()
            .enumerate()
            .filter_map(|(i, r)| Some((solved(r, a)?, Some(i))))
            .collect();
        if let Atom::Lo(q, k) = self.atoms[a as usize].clone() {
            out.extend(self.refolded(&q, k).map(|p| (p, None)));
            out.extend(self.congruent_sign(&q, k).map(|p| (p, None)));
        }
        out
    }

    /// `lo(q, k)` through `q` refolded (see the module docs).
    fn refolded(&mut self, q: &Poly, k: u32) -> Option<Poly> {
        let mut out = q.clone();
        let mut changed = false;
        for id in 0..self.atoms.len() {
            let Atom::Lo(arg, j) = &self.atoms[id] else {
                continue;
            };
            if *j >= k || arg.e > out.e {
                continue;
            }
            let f = pow2(out.e - arg.e);
            let Some((m0, c0)) = arg.terms.iter().find(|(m, _)| !m.is_empty()) else {
                continue;
            };
            let Some(cq) = out.terms.get(m0) else {
                continue;
            };
            let unit = c0 * &f;
            if !(cq % &unit).is_zero() {
                continue;
            }
            let c = cq / &unit;
            if v2(&c) + j < k {
                continue;
            }
            let whole = arg
                .terms
                .iter()
                .all(|(m, cm)| out.terms.get(m) == Some(&(&c * cm * &f)));
            if !whole {
                continue;
            }
            let arg = arg.clone();
            out = out
                .sub(&arg.scale(&c))
                .add(&Poly::atom(id as AtomId).scale(&c));
            changed = true;
        }
        if !changed {
            return None;
        }
        // One wrap at most: the value or the value less 2^k.
        let (l, h) = self.interval(&out);
        if l.is_negative() || h >= pow2(k + 1) {
            return None;
        }
        if h < pow2(k) {
            return Some(out);
        }
        self.use_near.then(|| self.near(&out, k)).flatten()
    }

    /// `lo(q, k)` as `U + 2^k·[U < 0]` for a sign atom's argument `U` (see the module
    /// docs).
    fn congruent_sign(&mut self, q: &Poly, k: u32) -> Option<Poly> {
        let top = pow2(k);
        let mut signs: Vec<AtomId> = self
            .sign_args
            .iter()
            .filter(|(_, (l, h))| *l >= -&top && *h < top)
            .map(|(&n, _)| n)
            .collect();
        signs.sort_unstable();
        let candidates: Vec<Poly> = signs
            .into_iter()
            .filter_map(|n| match &self.atoms[n as usize] {
                Atom::Neg(u) => Some(u.clone()),
                _ => None,
            })
            .collect();
        for u in candidates {
            let diff = q.sub(&u);
            if self.reduce(diff, k, false).is_some_and(|r| r.is_zero()) {
                let n = self.neg(&u);
                return Some(u.add(&n.scale(&top)));
            }
        }
        None
    }
}

/// `a` solved from the relation `r` (a difference of two values proved equal: its value
/// is zero) where `a` is a term of its own whose numerator is `c = ±2^j`.
fn solved(r: &Poly, a: AtomId) -> Option<Poly> {
    let c = r.terms.get(&vec![a])?;
    let j = v2(c);
    if c.abs() != pow2(j) {
        return None;
    }
    // The numerators N = 2^e·r have a's coefficient c = s·2^j, so a = a − N/c with
    // N/c = s·N / 2^j.
    let s = BigInt::from(if c.is_negative() { -1 } else { 1 });
    let n = r.numerators_over(&BigInt::one());
    Some(Poly::atom(a).sub(&n.scale(&s).shr(j)))
}
