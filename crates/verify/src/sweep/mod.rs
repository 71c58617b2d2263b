//! SAT sweeping: the decision procedure for what the normal form leaves.
//!
//! The graph's normal form makes two computations one node only when its rules can
//! rewrite one into the other; code written in another association (a Montgomery
//! reduction's carries regrouped across limbs, a borrow propagated as a signed word,
//! doubled products made with `shld`) ends at an output node that differs from the IR's
//! although the values agree. This module then tries to prove the differing output pairs
//! equal value for value, as hardware equivalence checkers do (*fraiging*):
//!
//! 1. **Simulate** every node in the cones of the outputs on a few dozen input vectors
//!    (edge values and random ones within the leaves' bounds) with [`Graph::eval`]'s
//!    semantics; nodes with the same values on every vector are candidates for being
//!    equal.
//! 2. **Prove** candidates bottom-up: a program node against an IR node (or a constant)
//!    with the same signature, by a SAT query: both nodes bit-blasted (module `blast`)
//!    down to the nodes their cones share, which stay free variables constrained only by
//!    their ranges, and "some bit differs" refuted by the solver (CaDiCaL, within a
//!    conflict budget). A proved pair is merged (union-find), so later queries stop at
//!    it: each query covers only the few nodes where the two programs part ways. Of a
//!    node's candidates (equal IR nodes and negated ones alike), the one with the
//!    smallest region is asked first (the IR often has a value twice, as a word and as
//!    its copy through a select); a negation's candidates are chosen among four times
//!    as many, since a borrow that is almost always 1 simulates like every other such
//!    bit of the IR, and the one in the same chain is the one with a small region.
//!    Queries that run out of conflicts use up the sweep (`Limits::timeouts`), a bit's
//!    by two thirds of what a word's does.
//!    Before any query, a candidate the node is congruent to (the same operation on
//!    arguments already merged) is taken: no query, and the IR's structure above it
//!    stays usable. A program node with no equal IR node may be the *negation* of one
//!    modulo `2^w` (a borrow kept as the signed word 0 or -1, as clang propagates it);
//!    proved so, it is not merged but related, and later queries blast it as the
//!    negation of the IR node's bits.
//!    Before a query, the exact-integer form (module `exact`) is asked whether the
//!    candidate is equal (or the constant); it is told every merge, so the polynomial
//!    of a node above merged ones is in the IR's terms. When the queries are spent, the
//!    sweep goes on with the exact form alone.
//!    A query's circuit is bounded (`Limits::vars`), but a few *large* ones per sweep
//!    may be five times that: where a compiler regrouped a reduction's words, the
//!    first word it shares with the IR is often equal only through a few hundred
//!    thousand variables of adders (gcc's P-434 Montgomery multiplication). Only words
//!    get them: a large region under a bit or a constant is mostly a rarely-set borrow,
//!    which simulates alike at every position of a chain. Large queries run in
//!    CaDiCaL's `unsat` configuration (they are asked to prove an equality; without
//!    its stabilizing phases and local search a query of 340,000 variables spends its
//!    conflicts in 1.5 s instead of 14 s, and the acceptance set's verdicts are the
//!    same; for small queries it is slower, so they keep the defaults).
//! 3. The outputs are equal when each differing program output has been merged into
//!    the IR's output node. An output that no candidate matched gets one more query
//!    against the IR's output itself, with a larger conflict budget and a large circuit,
//!    even when the timeouts are spent, if the two simulated alike (the sweep ends
//!    there otherwise).
//!
//! Steps 2 and 3 run twice at most: first with no query at all (the exact form alone,
//! told of its own merges), and only when that leaves an output, again from a clean
//! slate with queries: a program the exact form proves pays no query's timeout.
//!
//! Why sound: leaving a shared node free only widens the set of values the query ranges
//! over (its range is one the analysis proved), so "no assignment makes them differ" is
//! true of the actual values too; a merge is made only on the solver's UNSAT answer.
//! Simulation only chooses which queries to ask. Incomplete where a region is too large,
//! a query needs a relation between free nodes that their ranges do not give, or the
//! solver runs out of conflicts.
//!
//! With `$CRYPTOPT_SWEEP_DEBUG` set, each sweep prints one line to stderr (queries,
//! timeouts, merges, time): what to look at when foreign code is not proved; with
//! `CRYPTOPT_SWEEP_DEBUG=2`, also every query (its size, answer and the two sides) and
//! the output where the sweep stopped; with 3, also every program node the sweep visits
//! (its candidates, and whether it was merged or related); with 4, also every query's
//! region and free nodes.
//!
//! This module must never merge or relate two nodes on any evidence other than an
//! UNSAT answer for the exact difference of the two, nor change the graph.

mod blast;
mod circuit;
mod congruence;
mod query;
mod region;
#[cfg(test)]
mod tests;

use std::collections::HashMap;

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::exact::Views;
use crate::graph::{mask, sig, Graph, Node, NodeId};
use crate::witness;
use circuit::{Circuit, Config};
use congruence::{combine, congruent, find};

/// How much the sweep may spend.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    /// Input vectors simulated.
    pub vectors: usize,
    /// Candidates tried per program node: of equal IR nodes the first ones, of negated
    /// ones those with the smallest regions among four times as many; at most twice
    /// this many queries.
    pub candidates: usize,
    /// Nodes bit-blasted per query.
    pub region: usize,
    /// Levels of shared nodes below a query's region that are blasted too.
    pub expand: usize,
    /// Conflicts per SAT query.
    pub conflicts: i32,
    /// Conflicts per SAT query of a bit (not small, not an output's last chance): across
    /// a chain, rarely-set borrows simulate alike, so most candidates of a bit are
    /// wrong, and a query that has not found the bit equal within a few hundred
    /// conflicts seldom does later (the acceptance set's verdicts are the same with 300
    /// as with 1,500; its time 13% less).
    pub bit_conflicts: i32,
    /// Conflicts per SAT query of a small circuit (below `small` variables): each is
    /// cheap there, and some identities of a few words need many.
    pub small_conflicts: i32,
    pub small: usize,
    /// Conflicts per small query for a program output that no candidate matched within
    /// `small_conflicts`: the last chance of the sweep (it ends at an output it cannot
    /// merge), so it is spent at most once per output.
    pub output_conflicts: i32,
    /// SAT queries in all.
    pub queries: usize,
    /// Variables a query's circuit may have (a larger one is not solved: the queries that
    /// succeed are local, and large ones only run out of conflicts, slowly).
    pub vars: usize,
    /// Variables a *large* query may have: a few are asked per sweep (a word of a
    /// reduction written in another association is often equal to the IR's only
    /// through a few hundred thousand variables of adders), counted apart: one that
    /// runs out of conflicts does not use up the small queries' timeouts.
    pub large_vars: usize,
    /// Large queries per sweep after which only outputs' last chances may be large.
    pub large: usize,
    /// Queries that may run out of conflicts before the sweep gives up, counted in
    /// words': a bit's query of `bit_conflicts` counts two thirds. Bits are cheaper to
    /// give up on and mostly wrong candidates: in clang's signed final subtraction of
    /// secp256k1 `from_montgomery` four of them ran out before the words, each the
    /// negation of the IR's borrow across a few nodes, were asked, and counted whole
    /// they used the sweep up; counted as a fifth, gcc's `from_montgomery` went on to
    /// large queries that proved nothing (1 s -> 3.9 s).
    pub timeouts: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            vectors: 48,
            candidates: 3,
            region: 600,
            expand: 3,
            conflicts: 1_500,
            bit_conflicts: 300,
            small_conflicts: 30_000,
            small: 12_000,
            output_conflicts: 400_000,
            queries: 2_000,
            timeouts: 4,
            vars: 80_000,
            large_vars: 400_000,
            large: 3,
        }
    }
}

/// What a sweep did (for reports and tests).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Stats {
    pub queries: usize,
    pub timeouts: usize,
    /// Queries above `Limits::vars` variables.
    pub large: usize,
    pub merged: usize,
    /// Program nodes proved to be an IR node's negation.
    pub negated: usize,
    /// Merges the exact-integer form proved (no query).
    pub exact: usize,
}

/// Whether every pair `(ir, program)` is proved equal. `ir` nodes are the IR's outputs;
/// the `program` nodes are built after every IR node (the machine runs after the IR).
pub(crate) fn prove_pairs(g: &Graph, pairs: &[(NodeId, NodeId)], limits: Limits) -> (bool, Stats) {
    let t = std::time::Instant::now();
    let mut s = Sweep::new(g, pairs, limits);
    // An output whose simulated values differ from the IR's is not equal (and the
    // program is wrong on those inputs, or on leaves the IR does not read): no queries.
    if pairs
        .iter()
        .any(|&(w, f)| s.sig[w.index()] != s.sig[f.index()])
    {
        return (false, s.stats);
    }
    // A pass with the exact-integer form alone first: where it proves every output,
    // the queries of the full pass (whose timeouts can cost a second where nothing
    // needed them) are never asked. Then the full pass, from a clean slate (a node the
    // exact form translated never sees a later merge, so its instance is new too).
    let queries = s.limits.queries;
    s.limits.queries = 0;
    let mut ok = s.run(pairs);
    if debug() >= 1 {
        eprintln!("sweep: first pass {ok} at {:?}", t.elapsed());
    }
    if !ok && queries > 0 {
        s.restart();
        s.limits.queries = queries;
        ok = s.run(pairs);
    }
    if debug() >= 1 {
        eprintln!("sweep: proved={ok} {:?} in {:?}", s.stats, t.elapsed());
    }
    (ok, s.stats)
}

struct Sweep<'g> {
    g: &'g Graph,
    limits: Limits,
    /// Union-find parent (only program nodes are ever merged, into lower ids).
    parent: Vec<NodeId>,
    /// Nodes in the IR outputs' cones.
    ir: Vec<bool>,
    /// Nodes in the program outputs' cones, written forms' operands included.
    prog: Vec<bool>,
    /// Nodes in the program outputs' cones by arguments alone (the normal form's).
    normal: Vec<bool>,
    /// Simulation signature of every node in either cone.
    sig: Vec<u64>,
    /// The value of a node that had the same value on every vector.
    konst: Vec<Option<u128>>,
    /// Program nodes proved constant that have no constant node to be merged into.
    known: HashMap<NodeId, u128>,
    /// Simulation signature of `-x mod 2^w` for program nodes ([`Sweep::neg_width`]).
    nsig: Vec<u64>,
    /// Program nodes proved to be the negation of an IR node modulo `2^w` (a borrow
    /// kept as a signed word: `sbb r, r` or a sign-extended high word), as `(r, w)`.
    neg: HashMap<NodeId, (NodeId, u8)>,
    /// IR-cone nodes by signature, ascending.
    by_sig: HashMap<u64, Vec<NodeId>>,
    /// Per-query marks (stamp-based, so they are never cleared).
    mark_a: Vec<u32>,
    mark_b: Vec<u32>,
    stamp: u32,
    stats: Stats,
    /// Queries that ran out of conflicts, in thirds of a word's (see
    /// [`Limits::timeouts`]).
    timed_out: usize,
    /// The exact-integer form, told of every merge: tried on a candidate before a SAT
    /// query, and, with the merges below a node known, it compares nodes whose
    /// arguments' forms differ (a condition computed from words proved equal). Its own
    /// instance, not the one `check` compared the outputs with: that one has translated
    /// the output cones already, and a translated node never sees a later merge.
    exact: Views<'g>,
}

impl<'g> Sweep<'g> {
    fn new(g: &'g Graph, pairs: &[(NodeId, NodeId)], limits: Limits) -> Sweep<'g> {
        let ir = g.reachable(pairs.iter().map(|p| p.0));
        let prog = g.reachable_written(pairs.iter().map(|p| p.1), &ir);
        let normal = g.reachable(pairs.iter().map(|p| p.1));
        let n = g.len();
        let mut s = Sweep {
            g,
            limits,
            parent: (0..n as u32).map(NodeId).collect(),
            ir,
            prog,
            normal,
            sig: vec![0; n],
            konst: vec![None; n],
            by_sig: HashMap::new(),
            known: HashMap::new(),
            nsig: vec![0; n],
            neg: HashMap::new(),
            mark_a: vec![0; n],
            mark_b: vec![0; n],
            stamp: 0,
            stats: Stats::default(),
            timed_out: 0,
            exact: Views::new(g),
        };
        s.simulate();
        for i in 0..n {
            if s.ir[i] {
                s.by_sig.entry(s.sig[i]).or_default().push(NodeId(i as u32));
            }
        }
        s
    }

    /// Forgets every merge and relation (and the exact form's translations), keeping
    /// the simulation: the state before [`Sweep::run`].
    fn restart(&mut self) {
        let n = self.g.len() as u32;
        self.parent = (0..n).map(NodeId).collect();
        self.known.clear();
        self.neg.clear();
        self.stats = Stats::default();
        self.timed_out = 0;
        self.exact = Views::new(self.g);
    }

    fn in_cones(&self, i: usize) -> bool {
        self.ir[i] || self.prog[i]
    }

    /// Step 1: signatures from `limits.vectors` evaluations of the cones.
    fn simulate(&mut self) {
        let g = self.g;
        let n = g.len();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x5eed_c0de);
        let mut vals = vec![0u128; n];
        let mut first = vec![0u128; n];
        let mut same = vec![true; n];
        let cone: Vec<bool> = (0..n).map(|i| self.in_cones(i)).collect();
        for v in 0..self.limits.vectors {
            witness::vector(g, &cone, &mut vals, &mut rng, v);
            for i in (0..n).filter(|&i| cone[i]) {
                let x = vals[i];
                if v == 0 {
                    first[i] = x;
                } else if x != first[i] {
                    same[i] = false;
                }
                self.sig[i] = mix(self.sig[i], x);
                let id = NodeId(i as u32);
                if let (true, false, Some(w)) = (self.prog[i], self.ir[i], self.neg_width(id)) {
                    let nx = x.wrapping_neg() & mask(w as u32);
                    self.nsig[i] = mix(self.nsig[i], nx);
                }
            }
        }
        for i in 0..n {
            if self.in_cones(i) && same[i] {
                self.konst[i] = Some(first[i]);
            }
        }
    }

    /// Whether the sweep has asked all the queries it may.
    fn out_of_queries(&self) -> bool {
        self.stats.queries >= self.limits.queries
    }

    /// Whether the sweep has used up its queries or its timeouts.
    fn spent(&self) -> bool {
        self.out_of_queries() || self.timed_out >= 3 * self.limits.timeouts
    }

    fn find(&self, x: NodeId) -> NodeId {
        find(&self.parent, x)
    }

    /// Step 2 and 3.
    fn run(&mut self, pairs: &[(NodeId, NodeId)]) -> bool {
        let mut open: HashMap<NodeId, Vec<NodeId>> = HashMap::new();
        for &(want, found) in pairs {
            open.entry(found).or_default().push(want);
        }
        let last = pairs.iter().map(|p| p.1.index()).max().unwrap_or(0);
        for i in 0..=last {
            if !self.prog[i]
                || self.ir[i]
                || matches!(self.g.node(NodeId(i as u32)), Node::Sym(_) | Node::Const(_))
            {
                continue;
            }
            let m = NodeId(i as u32);
            // With the queries spent, the sweep goes on with the exact-integer form
            // alone (queries answer "not proved").
            self.merge_with_candidate(m);
            if debug() >= 3 {
                eprintln!(
                    "sweep: node {} ub {:x}, {} candidates, merged {}, negation {}: {:?} {}",
                    i,
                    self.g.info(m).ub,
                    self.candidates(self.sig[i]).len(),
                    self.find(m) != m,
                    self.neg.contains_key(&m),
                    self.g.node(m),
                    self.g.show(m, 150)
                );
            }
            if let Some(wants) = open.get(&m) {
                if let Some(&w) = wants.iter().find(|&&w| self.find(m) != self.find(w)) {
                    if self.exact.equal(m, w) {
                        self.stats.exact += 1;
                        self.merge(m, w);
                    }
                }
                let open = wants.iter().find(|&&w| self.find(m) != self.find(w));
                if let Some(&w) = open.filter(|w| self.sig[w.index()] == self.sig[m.index()]) {
                    // The output's last chance: the IR's output itself (not another node
                    // that simulates alike: a rarely-set final borrow makes a selected
                    // word look like the word it selects from), with a larger budget;
                    // never when the simulation has already told them apart.
                    if self.query(m, Target::Node(w), true) {
                        self.merge(m, w);
                    }
                }
                // Last of all, the exact form's search over second forms of truncations:
                // for outputs only (asked for every node the queries leave, it made the
                // checks of tests/compilers.rs 1.8× slower, for no verdict they did not
                // reach without it).
                if let Some(&w) = wants.iter().find(|&&w| self.find(m) != self.find(w)) {
                    if self.exact.equal_by_second_forms(m, w) {
                        self.stats.exact += 1;
                        self.merge(m, w);
                    }
                }
                if wants.iter().any(|&w| self.find(m) != self.find(w)) {
                    if debug() >= 2 {
                        eprintln!("sweep: stopped at output {}", self.g.show(m, 400));
                        eprintln!(
                            "sweep: output sig {:x}, candidates {}, wanted sigs {:?}",
                            self.sig[m.index()],
                            self.candidates(self.sig[m.index()]).len(),
                            wants
                                .iter()
                                .map(|w| format!("{:x}", self.sig[w.index()]))
                                .collect::<Vec<_>>()
                        );
                        for &w in wants {
                            eprintln!("  wanted: {}", self.g.show(w, 400));
                        }
                    }
                    // An output that could not be merged: the rest cannot help it.
                    return false;
                }
            }
        }
        pairs.iter().all(|&(w, f)| self.find(w) == self.find(f))
    }

    /// Tries the IR nodes with `m`'s signature (and its constant, if it had one value),
    /// merging `m` into the first one proved equal.
    fn merge_with_candidate(&mut self, m: NodeId) {
        // What needs no query first: the exact-integer form (the constant, congruence,
        // then the candidates and the negated candidates), then the queries.
        let konst = self.konst[m.index()];
        if let Some(k) = konst {
            if self.exact.equal_const(m, k) {
                self.stats.exact += 1;
                self.merge_const(m, k);
                return;
            }
        }
        // Congruence over every candidate: merging into the node the IR builds the same
        // way keeps the IR's own structure above it usable.
        let sig = self.sig[m.index()];
        if let Some(&r) = self
            .candidates(sig)
            .iter()
            .find(|&&r| congruent(self.g, &self.parent, m, r))
        {
            self.merge(m, r);
            return;
        }
        if let Some(r) = self.exactly(sig, |x, r| x.equal(m, r)) {
            self.stats.exact += 1;
            self.merge(m, r);
            return;
        }
        // A value the IR has only negated (a borrow as the signed word 0 or -1).
        let neg = self.neg_width(m).map(|w| (w, self.nsig[m.index()]));
        if let Some((w, nsig)) = neg {
            if let Some(r) = self.exactly(nsig, |x, r| x.equal_neg(m, r, w as u32)) {
                self.stats.exact += 1;
                self.merge_neg(m, r, w);
                return;
            }
        }
        // A node only a written form names gets no query: the normal form built the
        // program without it, and the queries are the normal form's (written-only nodes
        // asked too cost gcc's P-224 square 0.2 s -> 2 s, and proved nothing more).
        if !self.normal[m.index()] {
            return;
        }
        let mut targets: Vec<Target> = self
            .first_candidates(sig)
            .into_iter()
            .map(Target::Node)
            .collect();
        if let Some((w, nsig)) = neg {
            let all = self.candidates(nsig);
            let n = all.len().min(4 * self.limits.candidates);
            targets.extend(all[..n].iter().map(|&r| Target::Neg(r, w)));
        }
        match self.first_proved(m, targets) {
            Some(Target::Node(r)) => return self.merge(m, r),
            Some(Target::Neg(r, w)) => return self.merge_neg(m, r, w),
            _ => {}
        }
        // Last, the constant the vectors suggest: a borrow that is rarely 1 looks
        // constant too, and its query only runs out of conflicts.
        if let Some(k) = konst {
            if self.query(m, Target::Const(k), false) {
                self.merge_const(m, k);
            }
        }
    }

    /// Records that `m` is the constant `k`: merged into the IR's node for the constant
    /// when its cone has one (it has `m`'s signature), else later queries see `m` as the
    /// constant.
    fn merge_const(&mut self, m: NodeId, k: u128) {
        let node = self
            .by_sig
            .get(&self.sig[m.index()])
            .and_then(|v| v.iter().copied().find(|&id| self.g.as_const(id) == Some(k)));
        match node {
            Some(c) => self.merge(m, c),
            None => {
                self.exact.alias_const(m, k);
                self.known.insert(m, k);
                self.stats.merged += 1;
            }
        }
    }

    /// Records that `m` is `-r mod 2^w`.
    fn merge_neg(&mut self, m: NodeId, r: NodeId, w: u8) {
        self.exact.alias_neg(m, r, w as u32);
        self.neg.insert(m, (r, w));
        self.stats.negated += 1;
    }

    /// The first of the first `limits.candidates` IR nodes with signature `sig` that the
    /// exact-integer form proves related to the program node at hand by `test`.
    fn exactly(
        &mut self,
        sig: u64,
        test: impl Fn(&mut Views<'g>, NodeId) -> bool,
    ) -> Option<NodeId> {
        let cands = self.first_candidates(sig);
        cands.into_iter().find(|&r| test(&mut self.exact, r))
    }

    /// The first `limits.candidates` IR nodes with signature `sig`: the ones tried.
    fn first_candidates(&self, sig: u64) -> Vec<NodeId> {
        let all = self.candidates(sig);
        all[..all.len().min(self.limits.candidates)].to_vec()
    }

    /// The IR nodes with simulation signature `sig`, ascending.
    fn candidates(&self, sig: u64) -> &[NodeId] {
        self.by_sig.get(&sig).map_or(&[], |v| v.as_slice())
    }

    /// The first of `targets` (IR nodes, or their negations) that a query proves `m`
    /// equal to.
    fn first_proved(&mut self, m: NodeId, targets: Vec<Target>) -> Option<Target> {
        // No region is worth computing when no query will be asked (the first pass).
        if self.spent() {
            return None;
        }
        // The target with the smallest region first, equal nodes and negations alike:
        // where the IR computes one value twice (a word and its copy through a select),
        // the query against the copy nearer to the program's node is often a tenth of
        // the other's size; and a borrow clang keeps as the signed word 0 or -1 is the
        // negation of the IR's borrow across a few nodes, while the word that simulates
        // alike (a rarely-set mask) is equal to it, if at all, only across a reduction
        // (clang's secp256k1 `from_montgomery`: three large queries of 0.6 s each
        // before the negations' queries of a few nodes).
        let mut regions: Vec<(usize, usize, Target, Vec<NodeId>)> = Vec::new();
        for (i, t) in targets.into_iter().enumerate() {
            if let Some(region) = self.region(m, t) {
                regions.push((region.len(), i, t, region));
            }
        }
        regions.sort_by_key(|&(len, i, _, _)| (len, i));
        regions.truncate(2 * self.limits.candidates);
        for (_, _, t, region) in regions {
            if self.spent() {
                return None;
            }
            if self.solve(m, t, false, region) {
                return Some(t);
            }
        }
        None
    }

    /// The width `w` in which a program node may be an IR node's negation (`-r mod 2^w`):
    /// its upper bound's, when that is at least 2 bits (below, negation is the identity).
    fn neg_width(&self, id: NodeId) -> Option<u8> {
        let w = sig(self.g.info(id).ub).min(128);
        (w >= 2).then_some(w as u8)
    }

    /// The most variables the query of program node `m` against `target` may have:
    /// `large_vars` for an output's last chance, and for other words while large
    /// queries are left. Not for a bit or a constant: across a large region those are
    /// mostly rarely-set borrows, which simulate alike at every position of a chain
    /// (so the candidates are mostly wrong) and which such a query only refutes or runs
    /// out of conflicts on.
    fn vars_allowed(&self, m: NodeId, target: Target, last: bool) -> usize {
        let word = self.g.info(m).ub > 1
            && match target {
                Target::Const(_) => false,
                Target::Node(_) => true,
                Target::Neg(r, _) => self.g.info(r).ub <= 1,
            };
        if last || (word && self.stats.large < self.limits.large) {
            self.limits.large_vars
        } else {
            self.limits.vars
        }
    }

    /// Records that program node `m` equals `r`.
    fn merge(&mut self, m: NodeId, r: NodeId) {
        self.exact.alias(m, r);
        self.parent[m.index()] = r;
        self.stats.merged += 1;
    }

    /// Whether `m` is proved equal to `target`: one SAT query over the nodes where their
    /// cones differ; `last` gives it the conflict budget of an output's last chance.
    fn query(&mut self, m: NodeId, target: Target, last: bool) -> bool {
        // An output's last chance is asked even with the timeouts spent.
        if self.out_of_queries() || (self.spent() && !last) {
            return false;
        }
        match self.region(m, target) {
            Some(region) => self.solve(m, target, last, region),
            None => false,
        }
    }

    /// The SAT query of `m` against `target` over `region` ([`Sweep::region`]).
    fn solve(&mut self, m: NodeId, target: Target, last: bool, region: Vec<NodeId>) -> bool {
        self.stats.queries += 1;
        let g = self.g;
        let cap = self.vars_allowed(m, target, last);
        let t = std::time::Instant::now();
        let mut q = query::Query::new(g, &self.parent, &self.known, &self.neg, &region);
        for &id in &region {
            q.bits(id);
            if q.c.vars() > cap {
                if debug() >= 2 {
                    eprintln!(
                        "sweep: query over {cap} variables: not asked ({} nodes, {:?})",
                        region.len(),
                        t.elapsed()
                    );
                }
                return false;
            }
        }
        let x = q.bits(m);
        if debug() >= 4 {
            for &id in &region {
                eprintln!(
                    "  region {:?} ub {:x}: {:?}",
                    id,
                    self.g.info(id).ub,
                    self.g.node(id)
                );
            }
        }
        let y = match target {
            Target::Node(r) => q.bits(r),
            Target::Neg(r, w) => {
                let b = q.bits(r);
                q.c.neg_mod(&b, w as usize)
            }
            Target::Const(k) => Circuit::constant(k, 128),
        };
        let c = &mut q.c;
        let diff = c.differ(&x, &y);
        if c.vars() > cap {
            return false;
        }
        let large = c.vars() > self.limits.vars;
        self.stats.large += large as usize;
        c.clause(&[diff]);
        let budget = if c.vars() < self.limits.small {
            if last {
                self.limits.output_conflicts
            } else {
                self.limits.small_conflicts
            }
        } else if self.g.info(m).ub <= 1 && !last {
            self.limits.bit_conflicts
        } else {
            self.limits.conflicts
        };
        let t = std::time::Instant::now();
        // (Large queries in `unsat`: see the module's documentation.)
        let r = c.solve(
            budget,
            if large {
                Config::Unsat
            } else {
                Config::Default
            },
        );
        if debug() >= 2 {
            let answer = match r {
                Some(false) => "equal",
                Some(true) => "differ",
                None => "out of conflicts",
            };
            let tgt = match target {
                Target::Node(r) => self.g.show(r, 300),
                Target::Neg(r, w) => format!("-{} mod 2^{w}", self.g.show(r, 300)),
                Target::Const(k) => format!("{k:#x}"),
            };
            eprintln!(
                "sweep: query of {} nodes, {} variables, {budget} conflicts: {answer} in {:?} ub {:x}\n  program: {}\n  target:  {tgt}",
                region.len(),
                c.vars(),
                t.elapsed(),
                self.g.info(m).ub,
                self.g.show(m, 300)
            );
        }
        if r.is_none() && !large {
            self.stats.timeouts += 1;
            // In thirds of a word's (see `Limits::timeouts`).
            self.timed_out += if budget == self.limits.bit_conflicts {
                2
            } else {
                3
            };
        }
        r == Some(false)
    }
}

/// `$CRYPTOPT_SWEEP_DEBUG` as a level: 0 unset, 1 set, else its number.
pub(super) fn debug() -> u8 {
    static LEVEL: std::sync::OnceLock<u8> = std::sync::OnceLock::new();
    *LEVEL.get_or_init(|| match std::env::var("CRYPTOPT_SWEEP_DEBUG") {
        Err(_) => 0,
        Ok(v) => v.parse().unwrap_or(1),
    })
}

/// What a program node is compared with.
#[derive(Clone, Copy)]
enum Target {
    Node(NodeId),
    /// `-r mod 2^w`.
    Neg(NodeId, u8),
    Const(u128),
}

fn mix(h: u64, x: u128) -> u64 {
    let mut z = h ^ (x as u64) ^ ((x >> 64) as u64).rotate_left(29);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (z ^ (z >> 31)).wrapping_add(0x9e37_79b9_7f4a_7c15)
}
