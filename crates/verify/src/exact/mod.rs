//! The exact-integer check: outputs compared as polynomials over exact integers, in a
//! form that does not depend on how sums and carry chains are associated.
//!
//! The graph's normal form follows the program's grouping of carry chains, so a program
//! that adds the same partial products in another order, splits a Montgomery reduction
//! differently or propagates borrows as signed words computes the same words through
//! different nodes. Here every node is instead rewritten into one canonical form, a
//! dyadic polynomial ([`poly::Poly`]) over *atoms*, where the only truncation is
//!
//! ```text
//!   lo(P, k) = P mod 2^k                    (an atom, P itself canonical)
//! ```
//!
//! and everything else is arithmetic on exact integers:
//!
//! * a sum modulo `2^w` is `lo(Σ c·t + k, w)`; a product is the product; a carry
//!   `⌊S / 2^s⌋` is `(S - lo(S, s)) / 2^s`; a borrow `[a < Σ]` is `(lo(X, N) - X) / 2^N`
//!   for `X = a - Σ` and `N` a multiple of 64 with `|X| ≤ 2^N`; bits `f..f+l` of `P` are
//!   `(lo(P, f+l) - lo(P, f)) / 2^f`; a select by a bit `c` is `e + c·(t - e)`; `sar` and
//!   sign extension are slices plus a multiple of the sign bit;
//! * `lo(P, k)` is `P` when the range of `P` (interval arithmetic over the atoms' upper
//!   bounds, and the graph's own range of the node it comes from) is within `[0, 2^k)`;
//!   else it is normalized by the rules of module `lo` (reduced coefficients, vanishing
//!   inner truncations, low parts that cannot carry, words of a multiword sum as
//!   differences of truncations of the whole, one atom for `lo(P, k)` and `lo(-P, k)`
//!   of a single term, the sign of a value in `[-2^k, 2^k)`, and the sign of a floor
//!   `(S - lo(S, k)) / 2^k` as the sign of `S`).
//!
//! A carry chain in any association telescopes to the same polynomial (the low words it
//! passes on cancel), the low word of a Montgomery step reduces to zero by coefficient
//! arithmetic (`t + m·p0` with `m = lo(t·p', 64)`), and a strength-reduced constant
//! multiplication is the product it replaces. Two output words are equal when their
//! difference is the zero polynomial, or reduces to zero modulo `2^w` (both are below
//! `2^w`), or, left as a polynomial over a few sign and zero tests, is zero under every
//! assignment of those tests that module `cases` does not refute.
//!
//! Bitwise operations, zero tests and sign tests are atoms over the polynomials of their
//! arguments; a node this module does not open is an atom of its own.
//!
//! Ranges see through the canonical forms where an identity allows: a sign test beside
//! its argument, a word written through its negation, and two truncations of one value
//! (`lo(Z, K) − 2^s·lo(Z / 2^s, j)`, bits in place: the quotient of a Montgomery
//! reduction so far less the factors already peeled) are bounded as wholes; a sum modulo
//! `2^w` with a coefficient above `2^(w−1)` is read as a difference when that is in range
//! (the top word `up − borrow` of a pseudo-Mersenne step); and a truncation whose
//! argument is zero in its low words is at most `2^k − 2^j` (a Montgomery quotient less
//! its low word, which keeps `L + M·p` of a REDC below `R·(p + 1)`: the top word of
//! secp256k1's REDC as one borrow chain).
//!
//! The SAT sweep holds one of these too and tells it every merge it proves
//! ([`Exact::alias`]): a node above merged ones is then translated in the IR's terms, so
//! a condition computed from words the sweep proved equal compares with the IR's. It
//! holds three ([`Views`]): the second translates a node written over a merged one from
//! its written form ([`Graph::written`]), where the normal form's flattened sum would bypass
//! the merged word; the third translates without rule `near`, whose sign tests hide the
//! range of a carry that a chain's value bounds.
//!
//! This module must never conclude anything from a sample or an assumption: every
//! rewrite is an integer identity, and every range comes from interval arithmetic over
//! sound upper bounds (the graph's range analysis). It may give up (a budget on the size
//! of polynomials), never guess.

mod alt;
mod cases;
mod diag;
mod lo;
mod poly;
mod views;

use std::collections::{HashMap, HashSet};

use num_bigint::BigInt;
use num_traits::{One, Signed, Zero};

use crate::graph::{sig, Graph, Node, NodeId};
use poly::{floor_shr, pow2, AtomId, Poly};
pub(crate) use views::Views;

/// What an atom stands for.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Atom {
    /// A leaf, or a node this domain does not open.
    Leaf(NodeId),
    /// `P mod 2^k`.
    Lo(Poly, u32),
    /// `1` if `P` is zero, else `0`.
    Eqz(Poly),
    /// A bitwise operation (0 and, 1 or, 2 xor) of the values, sorted.
    Bits(u8, Vec<Poly>),
    /// `1` if `P` is negative, else `0` (`P` with content 1).
    Neg(Poly),
}

/// The most terms a polynomial may have; beyond it the check gives up on the output.
const TERMS: usize = 20_000;

/// The most terms the polynomial of one node may have; a larger one is an atom.
const NODE_TERMS: usize = 2_000;

/// The most terms one check may build; beyond it every further node is an atom of its
/// own (a deterministic budget: the check stays cheap on functions far larger than a
/// field operation, whose outputs the normal form proves anyway).
const WORK: usize = 300_000;

/// The most rounds of substitution in one reduction.
const ROUNDS: usize = 64;

/// The translation of one graph's nodes into polynomials, with its atom table.
pub(crate) struct Exact<'g> {
    g: &'g Graph,
    atoms: Vec<Atom>,
    ubs: Vec<BigInt>,
    /// For each sign atom `neg(Y)`, the bounds of `Y` (for [`Exact::interval`]).
    sign_args: HashMap<AtomId, (BigInt, BigInt)>,
    /// For an atom `r` (in `[0, 2^k)`) that rule `minus_mod` negated, its zero test
    /// `z = [r = 0]` and `k`: the word `2^k - r - 2^k·z` is in `[0, 2^k)` (for
    /// [`Exact::interval`]).
    negated: HashMap<AtomId, (AtomId, u32)>,
    memo: HashMap<Atom, AtomId>,
    /// The polynomial of each translated node (over budget: an atom of its own).
    vals: HashMap<NodeId, Poly>,
    /// `b·x` for each `and` of `x` with a mask `(2^w - 1)·b` (`b` a bit): compilers'
    /// selects, combined by the `or`/`xor` above them.
    guards: HashMap<NodeId, (Poly, Poly)>,
    /// Terms built so far (products and substitutions), against [`WORK`].
    work: usize,
    /// Nodes whose polynomial comes from an alias (another procedure's proof), and the
    /// nodes translated over them: a node written over such a node is translated from
    /// its written form (see [`Graph::written`]), so that it is in the IR's terms too.
    derived: HashSet<NodeId>,
    /// Whether written forms are used at all (see [`Views`]).
    use_written: bool,
    /// Whether rule `near` of module `lo` is used (see [`Views`]).
    use_near: bool,
    /// Differences of values proved equal ([`Exact::alias`]): polynomials whose value
    /// is zero, for the second forms of module `alt`.
    relations: Vec<Poly>,
    /// The rewrites [`alt`]'s search may still try in this view.
    second_tries: usize,
    /// The differences [`alt`]'s search has failed on in this view.
    second_failed: HashSet<Poly>,
}

impl<'g> Exact<'g> {
    pub fn new(g: &'g Graph) -> Exact<'g> {
        Exact {
            g,
            atoms: Vec::new(),
            ubs: Vec::new(),
            sign_args: HashMap::new(),
            negated: HashMap::new(),
            memo: HashMap::new(),
            vals: HashMap::new(),
            guards: HashMap::new(),
            work: 0,
            derived: HashSet::new(),
            use_written: false,
            use_near: true,
            relations: Vec::new(),
            second_tries: alt::CHECK_TRIES,
            second_failed: HashSet::new(),
        }
    }

    /// Whether nodes `a` and `b` are proved equal.
    pub fn equal(&mut self, a: NodeId, b: NodeId) -> bool {
        self.equal_nodes(a, b, false)
    }

    /// [`Exact::equal`] with the second forms of module `alt` tried as well: a last
    /// resort, for a pair the queries have not proved either.
    pub fn equal_by_second_forms(&mut self, a: NodeId, b: NodeId) -> bool {
        self.equal_nodes(a, b, true)
    }

    fn equal_nodes(&mut self, a: NodeId, b: NodeId, second: bool) -> bool {
        let Some(pb) = self.value(b) else {
            return false;
        };
        self.equal_to(a, pb, sig(self.g.info(b).ub), second)
    }

    /// Whether node `m` is proved to be the constant `k`.
    pub fn equal_const(&mut self, m: NodeId, k: u128) -> bool {
        self.equal_to(m, Poly::konst(BigInt::from(k)), sig(k), false)
    }

    /// Whether node `m` is proved to be `-r mod 2^w` (`m` below `2^w`).
    pub fn equal_neg(&mut self, m: NodeId, r: NodeId, w: u32) -> bool {
        if sig(self.g.info(m).ub) > w {
            return false;
        }
        let Some(n) = self.negated(r, w) else {
            return false;
        };
        self.equal_to(m, n, w, false)
    }

    /// Whether node `a` is proved equal to the value `pb`, known to be below `2^wb`:
    /// their difference is zero, or zero modulo `2^w` with both below `2^w` (with
    /// `second`, once rewritten by module `alt`'s second forms).
    fn equal_to(&mut self, a: NodeId, pb: Poly, wb: u32, second: bool) -> bool {
        let Some(pa) = self.value(a) else {
            return false;
        };
        let d = pa.sub(&pb);
        if d.is_zero() {
            return true;
        }
        let w = sig(self.g.info(a).ub).max(wb).max(1);
        let r = self.lo(d.clone(), w, None);
        if diag::debug() {
            self.explain(a, &pa, &pb, &d, r.as_ref());
        }
        match r {
            Some(r) if r.is_zero() => true,
            Some(r) => self.zero_by_cases(&r, w) || (second && self.zero_by_second_forms(&d, w)),
            None => false,
        }
    }

    /// `-r mod 2^w` as a polynomial.
    fn negated(&mut self, r: NodeId, w: u32) -> Option<Poly> {
        let p = self.value(r)?;
        self.lo(p.scale(&BigInt::from(-1)), w, None)
    }

    /// Records that node `m` is proved equal to node `r` (by another procedure): `m`'s
    /// polynomial becomes `r`'s, so nodes translated later above `m` are in `r`'s terms.
    /// Sound because the values are equal; nodes above `m` already translated keep their
    /// (equally exact) polynomials.
    pub fn alias(&mut self, m: NodeId, r: NodeId) {
        if let Some(p) = self.value(r) {
            if let Some(own) = self.value(m) {
                let d = own.sub(&p);
                if !d.is_zero() {
                    self.relations.push(d);
                }
            }
            self.vals.insert(m, p);
            self.derived.insert(m);
        }
    }

    /// Records that node `m` is `-r mod 2^w` (a borrow kept as a signed word).
    pub fn alias_neg(&mut self, m: NodeId, r: NodeId, w: u32) {
        if let Some(n) = self.negated(r, w) {
            self.vals.insert(m, n);
            self.derived.insert(m);
        }
    }

    /// Records that node `m` is the constant `k`.
    pub fn alias_const(&mut self, m: NodeId, k: u128) {
        self.vals.insert(m, Poly::konst(BigInt::from(k)));
        self.derived.insert(m);
    }

    /// The polynomial of node `n`, its untranslated arguments translated first (an
    /// explicit depth-first stack: only the nodes not yet translated are visited).
    fn value(&mut self, n: NodeId) -> Option<Poly> {
        let mut stack = vec![(n, false)];
        while let Some((id, args_done)) = stack.pop() {
            if self.vals.contains_key(&id) {
                continue;
            }
            let g = self.g;
            // The written view translates a node written over a derived one from its
            // written form; a node over a derived one is derived.
            let written = g.written(id).filter(|_| self.written_in_use());
            if args_done {
                let derived = |n: &Node| {
                    let mut any = false;
                    n.for_each_arg(|a| any |= self.derived.contains(&a));
                    any
                };
                let form = written.filter(|f| derived(f));
                let over = form.is_some() || (self.use_written && derived(g.node(id)));
                // Over budget, a node is an atom of its own: still exact, no longer
                // matched by form.
                let v = match self.translate(id, form.unwrap_or(g.node(id))) {
                    Some(p) if p.terms.len() <= NODE_TERMS => p,
                    _ => self.intern(Atom::Leaf(id), self.ub(id)),
                };
                if over {
                    self.derived.insert(id);
                }
                self.vals.insert(id, v);
                continue;
            }
            stack.push((id, true));
            let mut push = |a: NodeId| {
                if !self.vals.contains_key(&a) {
                    stack.push((a, false));
                }
            };
            g.for_each_arg(id, &mut push);
            if let Some(f) = written {
                f.for_each_arg(&mut push);
            }
        }
        self.vals.get(&n).cloned()
    }

    /// Whether this view translates from written forms now: the written view, once
    /// something is derived (before, its translations are the plain view's).
    fn written_in_use(&self) -> bool {
        self.use_written && !self.derived.is_empty()
    }

    /// Whether any of `nodes` is derived, after translating them: whether this view
    /// can differ from the plain one on them.
    fn any_derived(&mut self, nodes: &[NodeId]) -> bool {
        nodes
            .iter()
            .any(|&n| self.value(n).is_some() && self.derived.contains(&n))
    }

    fn val(&self, n: NodeId) -> Option<Poly> {
        self.vals.get(&n).cloned()
    }

    fn ub(&self, n: NodeId) -> BigInt {
        BigInt::from(self.g.info(n).ub)
    }

    fn intern(&mut self, a: Atom, ub: BigInt) -> Poly {
        let id = match self.memo.get(&a) {
            Some(&id) => {
                if ub < self.ubs[id as usize] {
                    self.ubs[id as usize] = ub;
                }
                id
            }
            None => {
                let id = self.atoms.len() as AtomId;
                if let Atom::Neg(q) = &a {
                    let range = self.interval(q);
                    self.sign_args.insert(id, range);
                }
                self.atoms.push(a.clone());
                self.ubs.push(ub);
                self.memo.insert(a, id);
                id
            }
        };
        Poly::atom(id)
    }

    /// Bounds of `p`: interval arithmetic over the atoms' upper bounds, except that a
    /// sign atom beside its own argument, `α·Y + β·neg(Y)` within `p`, is bounded as a
    /// whole by its two cases (`α·Y` for `Y ≥ 0`, `α·Y + β` for `Y < 0`). That is how
    /// rule `near` writes a wrapped value, `lo(Q, k) = R + 2^k·neg(R)` for
    /// `R = Q - t·2^k`: in `[0, 2^k)`, which term-by-term bounds lose (the word a
    /// Montgomery step passes on, below the carry it keeps apart). Likewise a word that
    /// rule `lo` wrote through its negation, `α·(2^k − r − 2^k·[r = 0])`, is bounded as
    /// a whole (a Montgomery factor `m` in a pseudo-Mersenne step, `S + m·2^192 −
    /// ⌊m·c / 2^64⌋`: never negative, which term-by-term bounds lose).
    fn interval(&self, p: &Poly) -> (BigInt, BigInt) {
        let ub = |a: AtomId| self.ubs[a as usize].clone();
        let singles = |a: &AtomId| self.sign_args.contains_key(a) || self.negated.contains_key(a);
        let grouped: Vec<AtomId> = p
            .terms
            .keys()
            .filter_map(|m| match m[..] {
                [a] if singles(&a) => Some(a),
                _ => None,
            })
            .collect();
        let slices = self.slices(p);
        if grouped.is_empty() && slices.is_empty() {
            return p.interval(&ub);
        }
        // Numerators: the groups are taken out of them, the rest bounded term by term.
        let mut rest = Poly {
            e: 0,
            terms: p.terms.clone(),
        };
        let (mut glo, mut ghi) = (BigInt::zero(), BigInt::zero());
        // Two truncations of one value, bounded as a whole (see `slices`).
        for (r1, r2, beta, most) in slices {
            let (a, b) = (BigInt::zero(), &beta * most);
            glo += a.clone().min(b.clone());
            ghi += a.max(b);
            rest.terms.remove(&vec![r1]);
            rest.terms.remove(&vec![r2]);
        }
        // A negated word `α·(2^k - r - 2^k·z)` within `p` (a Montgomery factor that rule
        // `lo` wrote through its negation) is bounded as a whole: in `[0, 2^k)` times α.
        // Each group is an identity (`p` = group + rest), so any grouping is sound; it is
        // taken where it accounts for both terms exactly.
        for &r in &grouped {
            let Some(&(z, k)) = self.negated.get(&r) else {
                continue;
            };
            let (Some(cr), Some(cz)) = (
                rest.terms.get(&vec![r]).cloned(),
                rest.terms.get(&vec![z]).cloned(),
            ) else {
                continue;
            };
            let top = pow2(k);
            if cz != &cr * &top {
                continue;
            }
            let alpha = -cr;
            let word = Poly::konst(top.clone())
                .sub(&Poly::atom(r))
                .sub(&Poly::atom(z).scale(&top));
            let (a, b): (BigInt, BigInt) = (BigInt::zero(), &alpha * (&top - 1u8));
            glo += a.clone().min(b.clone());
            ghi += a.max(b);
            rest = rest.sub(&word.scale(&alpha));
        }
        let signs = grouped
            .into_iter()
            .filter(|a| self.sign_args.contains_key(a));
        for n in signs {
            let Atom::Neg(y) = &self.atoms[n as usize] else {
                continue;
            };
            // A sign atom's argument has integer coefficients (`neg` makes it so).
            debug_assert_eq!(y.e, 0);
            let (Some(beta), Some((m0, c0))) = (
                rest.terms.get(&vec![n]).cloned(),
                y.terms.iter().find(|(m, _)| !m.is_empty()),
            ) else {
                continue;
            };
            let Some(cp) = rest.terms.get(m0) else {
                continue;
            };
            if !(cp % c0).is_zero() {
                continue;
            }
            let alpha = cp / c0;
            let whole = y
                .terms
                .iter()
                .all(|(m, c)| m.is_empty() || rest.terms.get(m) == Some(&(&alpha * c)));
            if !whole {
                continue;
            }
            let (yl, yh) = &self.sign_args[&n];
            let mut ends = Vec::new();
            if yl.is_negative() {
                ends.push(&alpha * yl + &beta);
                ends.push(&beta - &alpha);
            }
            if !yh.is_negative() {
                ends.push(BigInt::zero());
                ends.push(&alpha * yh);
            }
            let (Some(l), Some(h)) = (ends.iter().min(), ends.iter().max()) else {
                continue;
            };
            glo += l;
            ghi += h;
            rest = rest.sub(&y.scale(&alpha)).sub(&Poly::atom(n).scale(&beta));
        }
        let (rl, rh) = rest.interval(&ub);
        let (lo, hi) = (rl + glo, rh + ghi);
        (-floor_shr(&-lo, p.e), floor_shr(&hi, p.e))
    }

    /// The slices within `p`: pairs of truncations `β·lo(Z, K) - β·2^s·lo(Z' / 2^s, j)`
    /// (single terms, each atom in one pair, `Z` an integer polynomial) with `j + s ≤ K`
    /// and `Z ≡ Z' (mod 2^(j+s))`, and the most their difference (over β) can be. Since
    /// `2^s·lo(Z' / 2^s, j) = lo(Z', j + s) - lo(Z', s)` and `lo(Z, K) - lo(Z', j + s)` is
    /// bits `j+s..K` of `Z` in place, the difference is in `[0, 2^K - 2^(j+s) + 2^s - 1]`:
    /// the word `j..j+s` of a value peeled off the truncation of the whole (a Montgomery
    /// factor written through the quotient so far, `M - 2^64·m_1`).
    fn slices(&self, p: &Poly) -> Vec<(AtomId, AtomId, BigInt, BigInt)> {
        let los: Vec<(AtomId, &BigInt, &Poly, u32)> = p
            .terms
            .iter()
            .filter_map(|(m, c)| match m[..] {
                [a] => match &self.atoms[a as usize] {
                    Atom::Lo(z, k) => Some((a, c, z, *k)),
                    _ => None,
                },
                _ => None,
            })
            .collect();
        let mut used = HashSet::new();
        let mut out = Vec::new();
        for &(r1, c1, z1, k1) in &los {
            if z1.e != 0 {
                continue;
            }
            for &(r2, c2, z2, k2) in &los {
                let s = z2.e;
                if r1 == r2 || k2 + s > k1 || used.contains(&r1) || used.contains(&r2) {
                    continue;
                }
                if *c2 != -(c1 * pow2(s)) {
                    continue;
                }
                let n2 = Poly {
                    e: 0,
                    terms: z2.terms.clone(),
                };
                if z1.reduced(k2 + s, false) != n2.reduced(k2 + s, false) {
                    continue;
                }
                used.insert(r1);
                used.insert(r2);
                let most =
                    (pow2(k1) - pow2(k2 + s) + pow2(s) - 1u8).min(self.ubs[r1 as usize].clone());
                out.push((r1, r2, c1.clone(), most));
            }
        }
        out
    }

    /// The polynomial of node `n` from `node`, its normal form or its written form (one
    /// value), whose arguments are translated.
    fn translate(&mut self, n: NodeId, node: &'g Node) -> Option<Poly> {
        if self.work > WORK {
            return None;
        }
        let r = self.translate_node(n, node);
        self.work += r.as_ref().map_or(0, |p| p.terms.len());
        r
    }

    fn translate_node(&mut self, n: NodeId, node: &'g Node) -> Option<Poly> {
        let g = self.g;
        let big = |v: u128| BigInt::from(v);
        Some(match node {
            Node::Const(c) => Poly::konst(big(*c)),
            Node::Sym(_) => self.intern(Atom::Leaf(n), self.ub(n)),
            Node::Add { w, k, terms } => {
                let w = *w as u32;
                // A coefficient above 2^(w-1) is also the negative c - 2^w (one value
                // modulo 2^w): `up + (2^w - 1)·borrow` is `up - borrow`, a top word its
                // chain's value keeps from wrapping, which the groups of
                // `Exact::interval` can tell of the difference and not of the sum.
                let half = pow2(w - 1);
                let (mut parts, mut signed) = (vec![Poly::konst(big(*k))], vec![]);
                let mut hi = big(*k);
                let mut wrapped = false;
                for &(t, c) in terms.iter() {
                    let v = self.val(t)?;
                    let c = big(c);
                    hi += &c * self.ub(t);
                    wrapped |= c > half;
                    signed.push(v.scale(&if c > half { &c - pow2(w) } else { c.clone() }));
                    parts.push(v.scale(&c));
                }
                if wrapped {
                    signed.push(Poly::konst(big(*k)));
                    let d = Poly::sum(&signed);
                    let (l, h) = self.interval(&d);
                    if !l.is_negative() && h < pow2(w) {
                        return Some(d);
                    }
                }
                self.lo(Poly::sum(&parts), w, Some((big(*k), hi)))?
            }
            &Node::Prod(a, b) => self.val(a)?.mul(&self.val(b)?, TERMS)?,
            Node::MulMod { w, args } => {
                let mut p = Poly::konst(BigInt::one());
                for &a in args.iter() {
                    p = p.mul(&self.val(a)?, TERMS)?;
                }
                self.lo(p, *w as u32, None)?
            }
            Node::Carry { shift, k, args } => {
                let (p, hi) = self.sum_of(*k, args)?;
                let s = *shift as u32;
                let l = self.lo(p.clone(), s, Some((big(*k), hi)))?;
                p.sub(&l).shr(s)
            }
            Node::Borrow { a, k, subs } => {
                let (s, neg) = self.sum_of(*k, subs)?;
                let x = self.val(*a)?.sub(&s);
                let pos = self.ub(*a);
                let bits = (neg.bits().max(pos.bits()) as u32).max(1);
                let nbits = bits.div_ceil(64) * 64;
                let l = self.lo(x.clone(), nbits, Some((-neg, pos)))?;
                l.sub(&x).shr(nbits)
            }
            Node::And(args) | Node::Or(args) | Node::Xor(args) => {
                let op = match node {
                    Node::And(_) => 0,
                    Node::Or(_) => 1,
                    _ => 2,
                };
                let mut ps = args
                    .iter()
                    .map(|&a| self.val(a))
                    .collect::<Option<Vec<Poly>>>()?;
                if args.iter().all(|&a| g.info(a).ub <= 1) {
                    // On bits: x & y = xy, x | y = x + y - xy, x ^ y = x + y - 2xy.
                    let mut acc = ps[0].clone();
                    for y in &ps[1..] {
                        let xy = acc.mul(y, TERMS)?;
                        acc = match op {
                            0 => xy,
                            1 => acc.add(y).sub(&xy),
                            _ => acc.add(y).sub(&xy.scale(&BigInt::from(2))),
                        };
                    }
                    return Some(acc);
                }
                if op == 0 {
                    if let Some(r) = self.masked(n, args, &ps) {
                        return Some(r);
                    }
                } else if let Some(r) = self.select(args, op) {
                    return Some(r);
                }
                if let (2, [x, y]) = (op, &ps[..]) {
                    // x ^ (2^w - 1) with x < 2^w: the complement 2^w - 1 - x.
                    for (x, y, xn) in [(x, y, args[0]), (y, x, args[1])] {
                        if let Some(c) = y.as_const() {
                            let c1: BigInt = &c + 1;
                            if (&c1 & (&c1 - 1u8)).is_zero() && self.ub(xn) <= c {
                                return Some(Poly::konst(c).sub(x));
                            }
                        }
                    }
                }
                ps.sort();
                self.intern(Atom::Bits(op, ps), self.ub(n))
            }
            Node::Concat { k, segs } => {
                let mut parts = vec![Poly::konst(big(*k))];
                for s in segs.iter() {
                    let x = self.val(s.node)?;
                    let ub = self.ub(s.node);
                    let sl = self.slice(x, s.from as u32, s.len as u32, ub)?;
                    parts.push(sl.scale(&pow2(s.at as u32)));
                }
                Poly::sum(&parts)
            }
            &Node::Ite { c, t, e } => {
                if g.info(c).ub > 1 {
                    return Some(self.intern(Atom::Leaf(n), self.ub(n)));
                }
                let (c, t, e) = (self.val(c)?, self.val(t)?, self.val(e)?);
                e.add(&c.mul(&t.sub(&e), TERMS)?)
            }
            &Node::Eqz(x) => {
                let p = self.val(x)?;
                self.eqz(p)
            }
            &Node::Sar { w, n: sh, x } => {
                let (w, sh) = (w as u32, sh as u32);
                let p = self.val(x)?;
                let ub = self.ub(x);
                let s = self.slice(p.clone(), w - 1, 1, ub.clone())?;
                let (base, c) = if sh < w {
                    (self.slice(p, sh, w - sh, ub)?, pow2(w) - pow2(w - sh))
                } else {
                    (Poly::default(), pow2(w) - 1)
                };
                base.add(&s.scale(&c))
            }
            &Node::Sext { from, w, x } => {
                let (from, w) = (from as u32, w as u32);
                let p = self.val(x)?;
                let ub = self.ub(x);
                let s = self.slice(p.clone(), from - 1, 1, ub.clone())?;
                let low = self.slice(p, 0, from, ub)?;
                low.add(&s.scale(&(pow2(w) - pow2(from))))
            }
        })
    }

    /// `b` when `p` is `(2^w - 1)·b` with `b` a bit (a mask made from a bit).
    fn mask_bit(&self, p: &Poly) -> Option<(Poly, u32)> {
        if p.e != 0 || p.is_zero() {
            return None;
        }
        for w in [64u32, 32, 128, 8, 16] {
            let m = pow2(w) - 1;
            if p.terms.values().all(|c| {
                let r: BigInt = c % &m;
                r.is_zero()
            }) {
                let b = p.numerators_over(&m);
                let (l, h) = self.interval(&b);
                if !l.is_negative() && h <= BigInt::one() {
                    return Some((b, w));
                }
            }
        }
        None
    }

    /// `x & mask` for `mask = (2^w - 1)·b` and `x < 2^w`: `b·x` (remembered as a guard
    /// of node `n` for the `or`/`xor` of a select).
    fn masked(&mut self, n: NodeId, args: &[NodeId], ps: &[Poly]) -> Option<Poly> {
        let [x, y] = ps else {
            return None;
        };
        for (m, v, vn) in [(x, y, args[1]), (y, x, args[0])] {
            let Some((b, w)) = self.mask_bit(m) else {
                continue;
            };
            if self.ub(vn) >= pow2(w) {
                continue;
            }
            self.guards.insert(n, (b.clone(), v.clone()));
            return b.mul(v, TERMS);
        }
        None
    }

    /// An `or`/`xor` that is a select: `(b·t) | ((1-b)·e)` is `b·t + (1-b)·e`, and
    /// `e ^ (b·(t ^ e))` is `e + b·(t - e)`.
    fn select(&mut self, args: &[NodeId], op: u8) -> Option<Poly> {
        let [a, c] = args else {
            return None;
        };
        match (self.guards.get(a).cloned(), self.guards.get(c).cloned()) {
            // Complementary guards: the values are b·t and (1 - b)·e already, disjoint.
            (Some((b1, _)), Some((b2, _))) if Poly::konst(BigInt::one()).sub(&b1) == b2 => {
                Some(self.val(*a)?.add(&self.val(*c)?))
            }
            (Some(guard), None) if op == 2 => self.xor_select(guard, *c),
            (None, Some(guard)) if op == 2 => self.xor_select(guard, *a),
            _ => None,
        }
    }

    /// `e ^ (b·x)` with `x` the atom `t ^ e`: `e + b·(t - e)`.
    fn xor_select(&mut self, (b, x): (Poly, Poly), e: NodeId) -> Option<Poly> {
        let ep = self.val(e)?;
        let t = self.xor_partner(&x, &ep)?;
        ep.add(&b.mul(&t.sub(&ep), TERMS)?).into()
    }

    /// `t` when `x` is the atom `t ^ e` (two operands).
    fn xor_partner(&self, x: &Poly, e: &Poly) -> Option<Poly> {
        match &self.atoms[x.as_atom()? as usize] {
            Atom::Bits(2, qs) if qs.len() == 2 => {
                if qs[0] == *e {
                    Some(qs[1].clone())
                } else if qs[1] == *e {
                    Some(qs[0].clone())
                } else {
                    None
                }
            }
            _ => None,
        }
    }

    /// `k + Σ args` and an upper bound of it from the graph's ranges.
    fn sum_of(&self, k: u128, args: &[NodeId]) -> Option<(Poly, BigInt)> {
        let mut parts = vec![Poly::konst(BigInt::from(k))];
        let mut hi = BigInt::from(k);
        for &a in args {
            parts.push(self.val(a)?);
            hi += self.ub(a);
        }
        Some((Poly::sum(&parts), hi))
    }

    /// Bits `from..from+len` of `p` (a value in `[0, ub]`).
    fn slice(&mut self, p: Poly, from: u32, len: u32, ub: BigInt) -> Option<Poly> {
        let hint = Some((BigInt::zero(), ub));
        let top = self.lo(p.clone(), from + len, hint.clone())?;
        let low = if from == 0 {
            Poly::default()
        } else {
            self.lo(p, from, hint)?
        };
        Some(top.sub(&low).shr(from))
    }
}

/// Which of `pairs` (IR node, program node) the exact-integer form proves equal.
pub(crate) fn prove_pairs(g: &Graph, pairs: &[(NodeId, NodeId)]) -> Vec<bool> {
    let mut x = Exact::new(g);
    pairs.iter().map(|&(a, b)| x.equal(a, b)).collect()
}

#[cfg(test)]
mod tests;
