//! Diagnostics of the exact-integer check: printing a pair that was not proved (with
//! `$CRYPTOPT_EXACT_DEBUG` set; with `$CRYPTOPT_EXACT_GROUPS` too, the atoms of equal
//! value on every sample) and evaluating polynomials on concrete values, which the
//! tests (and the diagnostic) compare with [`Graph::eval`].
//!
//! Nothing here takes part in a proof.

use std::collections::HashMap;

use num_bigint::BigInt;
use num_traits::{Signed, Zero};

use super::poly::{mod_pow2, pow2, AtomId, Poly};
use super::{Atom, Exact};
use crate::graph::{Node, NodeId};

/// Whether `$CRYPTOPT_EXACT_DEBUG` is set (read once).
pub(super) fn debug() -> bool {
    static SET: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *SET.get_or_init(|| std::env::var_os("CRYPTOPT_EXACT_DEBUG").is_some())
}

impl Exact<'_> {
    /// With `$CRYPTOPT_EXACT_DEBUG` set: both polynomials, their difference and the
    /// atoms it is made of on stderr (and every translated node checked
    /// against [`Graph::eval`] on random inputs within bounds). A diagnostic only.
    pub(super) fn explain(&mut self, a: NodeId, pa: &Poly, pb: &Poly, d: &Poly, r: Option<&Poly>) {
        let mut samples = Vec::new();
        {
            use rand::{Rng, SeedableRng};
            let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(1);
            let mut ubs = HashMap::new();
            for i in 0..self.g.len() {
                let n = NodeId(i as u32);
                if let Node::Sym(s) = self.g.node(n) {
                    ubs.insert(*s, self.g.info(n).ub);
                }
            }
            for _ in 0..20 {
                let v = self.g.eval(&mut |s| {
                    let ub = ubs.get(&s).copied().unwrap_or(0);
                    match rng.random_range(0..4) {
                        0 => ub,
                        1 => 0,
                        _ => rng.random::<u128>() % ub.saturating_add(1).max(1),
                    }
                });
                // The arguments of sign atoms in the difference, sampled: two conditions
                // that differ in form may still have one value.
                let negs = d.terms.keys().chain(r.iter().flat_map(|r| r.terms.keys()));
                let mut shown = std::collections::BTreeSet::new();
                for &t in negs.flatten() {
                    if let Atom::Neg(q) = &self.atoms[t as usize] {
                        if shown.insert(t) {
                            eprintln!("  sample: neg a{t} of {:#x}", self.eval(q, &v));
                        }
                    }
                }
                let bad = self.mismatches(&v);
                samples.push(v);
                if let Some(&n) = bad.first() {
                    eprintln!("MISMATCH at {n:?}: {}", self.g.show(n, 300));
                    break;
                }
            }
        }
        if std::env::var_os("CRYPTOPT_EXACT_GROUPS").is_some() {
            self.print_groups(&samples);
        }
        {
            eprintln!("== node {a:?}: {}", self.g.show(a, 120));
            eprintln!("A = {}", self.show(pa));
            eprintln!("B = {}", self.show(pb));
            eprintln!("D = {}", self.show(d));
            if let Some(r) = r {
                eprintln!("lo(D) = {}", self.show(r));
            }
            let mut seen = std::collections::BTreeSet::new();
            let mut todo: Vec<AtomId> = d.terms.keys().flatten().copied().collect();
            if let Some(r) = r {
                todo.extend(r.terms.keys().flatten().copied());
            }
            while let Some(t) = todo.pop() {
                if !seen.insert(t) || seen.len() > 60 {
                    continue;
                }
                let desc = match &self.atoms[t as usize] {
                    Atom::Leaf(n) => self.g.show(*n, 80).to_string(),
                    Atom::Lo(q, k) => {
                        todo.extend(q.terms.keys().flatten().copied());
                        let (l, h) = self.interval(q);
                        format!(
                            "lo({}, {k}) over [{}{}, {}{}]",
                            self.show(q),
                            if l.is_negative() { "-2^" } else { "2^" },
                            l.magnitude().bits(),
                            if h.is_negative() { "-2^" } else { "2^" },
                            h.magnitude().bits()
                        )
                    }
                    test @ (Atom::Eqz(q) | Atom::Neg(q)) => {
                        todo.extend(q.terms.keys().flatten().copied());
                        let f = if matches!(test, Atom::Eqz(_)) {
                            "eqz"
                        } else {
                            "neg"
                        };
                        format!("{f}({})", self.show(q))
                    }
                    Atom::Bits(op, qs) => format!(
                        "bits{op}({:?})",
                        qs.iter().map(|q| self.show(q)).collect::<Vec<_>>()
                    ),
                };
                eprintln!("  a{t} <= {} : {desc}", self.ubs[t as usize].bits());
            }
        }
    }

    /// The atoms that have one value (other than 0 and 1) on every sample, in groups:
    /// where a value has two forms that no rule makes one; with each truncation's
    /// residue against the group's first atom (what a rule would have to cancel).
    fn print_groups(&mut self, samples: &[Vec<u128>]) {
        let mut values: Vec<Vec<BigInt>> = vec![Vec::new(); self.atoms.len()];
        for v in samples {
            let mut memo = HashMap::new();
            for (t, xs) in values.iter_mut().enumerate() {
                xs.push(self.eval_atom(t as AtomId, v, &mut memo));
            }
        }
        let mut by: HashMap<&[BigInt], Vec<AtomId>> = HashMap::new();
        for (t, xs) in values.iter().enumerate() {
            if xs.iter().any(|x| x > &BigInt::from(1)) {
                by.entry(xs).or_default().push(t as AtomId);
            }
        }
        let mut groups: Vec<Vec<AtomId>> = by.into_values().filter(|ts| ts.len() > 1).collect();
        groups.sort();
        for ts in groups {
            eprintln!("GROUP {ts:?}");
            // What keeps each truncation from being the first atom: its argument less
            // that atom, reduced (the work budget left as it was: no effect on proofs).
            let work = self.work;
            for &t in &ts[1..] {
                if let Atom::Lo(q, k) = self.atoms[t as usize].clone() {
                    let d = q.sub(&Poly::atom(ts[0]));
                    if let Some(r) = self.reduce(d, k, false) {
                        eprintln!("   RESIDUE a{t} - a{} mod 2^{k}: {}", ts[0], self.show(&r));
                    }
                }
            }
            self.work = work;
            for &t in &ts {
                match &self.atoms[t as usize] {
                    Atom::Lo(q, k) => eprintln!("   a{t} = lo({}, {k})", self.show(q)),
                    Atom::Leaf(n) => eprintln!("   a{t} = {}", self.g.show(*n, 100)),
                    _ => eprintln!("   a{t} = a test or bitwise operation"),
                }
            }
        }
    }

    /// Every atom `p` is built from, one a line, on stderr (a diagnostic).
    pub(super) fn show_closure(&self, p: &Poly) {
        let mut seen = std::collections::BTreeSet::new();
        let mut todo: Vec<AtomId> = p.terms.keys().flatten().copied().collect();
        while let Some(a) = todo.pop() {
            if !seen.insert(a) {
                continue;
            }
            let inner: Vec<&Poly> = match &self.atoms[a as usize] {
                Atom::Lo(q, k) => {
                    eprintln!(
                        "    a{a} <= {}: lo({}, {k})",
                        self.ubs[a as usize].bits(),
                        self.show(q)
                    );
                    vec![q]
                }
                Atom::Leaf(n) => {
                    eprintln!("    a{a}: {}", self.g.show(*n, 60));
                    vec![]
                }
                Atom::Neg(q) => {
                    eprintln!("    a{a}: neg({})", self.show(q));
                    vec![q]
                }
                Atom::Eqz(q) => {
                    eprintln!("    a{a}: eqz({})", self.show(q));
                    vec![q]
                }
                Atom::Bits(op, qs) => {
                    eprintln!("    a{a}: bits{op}");
                    qs.iter().collect()
                }
            };
            todo.extend(
                inner
                    .into_iter()
                    .flat_map(|q| q.terms.keys().flatten().copied()),
            );
        }
    }

    pub(super) fn show(&self, p: &Poly) -> String {
        let mut s = String::new();
        for (m, c) in &p.terms {
            let ms: Vec<String> = m.iter().map(|a| format!("a{a}")).collect();
            s += &format!(" + {c:#x}*{}", ms.join("*"));
        }
        format!("({s}) / 2^{}", p.e)
    }
}

impl Exact<'_> {
    /// The value of polynomial `p` given the value of every graph node (`v`, from
    /// [`Graph::eval`]): atoms evaluated by their definitions.
    pub(super) fn eval(&self, p: &Poly, v: &[u128]) -> BigInt {
        let mut memo: HashMap<AtomId, BigInt> = HashMap::new();
        self.eval_in(p, v, &mut memo)
    }

    fn eval_in(&self, p: &Poly, v: &[u128], memo: &mut HashMap<AtomId, BigInt>) -> BigInt {
        let mut total = BigInt::zero();
        for (m, c) in &p.terms {
            let mut t = c.clone();
            for &a in m {
                t *= self.eval_atom(a, v, memo);
            }
            total += t;
        }
        assert!(
            (&total % pow2(p.e)).is_zero(),
            "a polynomial with a fractional value"
        );
        total >> p.e
    }

    fn eval_atom(&self, a: AtomId, v: &[u128], memo: &mut HashMap<AtomId, BigInt>) -> BigInt {
        if let Some(x) = memo.get(&a) {
            return x.clone();
        }
        let x = match &self.atoms[a as usize] {
            Atom::Leaf(n) => BigInt::from(v[n.index()]),
            Atom::Lo(q, k) => mod_pow2(&self.eval_in(q, v, memo), *k),
            Atom::Eqz(q) => BigInt::from(self.eval_in(q, v, memo).is_zero() as u8),
            Atom::Neg(q) => BigInt::from(self.eval_in(q, v, memo).is_negative() as u8),
            Atom::Bits(op, qs) => {
                let xs: Vec<BigInt> = qs.iter().map(|q| self.eval_in(q, v, memo)).collect();
                let mut acc = xs[0].clone();
                for x in &xs[1..] {
                    acc = match op {
                        0 => acc & x,
                        1 => acc | x,
                        _ => acc ^ x,
                    };
                }
                acc
            }
        };
        memo.insert(a, x.clone());
        x
    }

    /// Every translated node whose polynomial does not evaluate to the node's value
    /// under `v`.
    pub fn mismatches(&self, v: &[u128]) -> Vec<NodeId> {
        let mut bad: Vec<NodeId> = self
            .vals
            .iter()
            .filter_map(|(&n, p)| (self.eval(p, v) != BigInt::from(v[n.index()])).then_some(n))
            .collect();
        bad.sort();
        bad
    }
}
