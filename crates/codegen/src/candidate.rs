//! Candidates: one point of the search space. A candidate is a topological order of the
//! lowered function's instructions plus, per instruction, a few decision bytes that the
//! templates read (`value % alternatives`), so every byte value is valid and mutation
//! never needs to know what a decision means.
//!
//! Every topological order is reachable from [`Candidate::random`]: it is Kahn's
//! algorithm choosing uniformly among the ready instructions.
//!
//! It must never make an order that is not topological, and never change how a random
//! candidate is drawn (which numbers, in which order): a seed names a candidate, for
//! `cryptopt codegen --seed` and for saved searches.

use rand::seq::SliceRandom;
use rand::Rng;

use cryptopt_ir::{Function, Inst, Op, Operand};

use crate::options::Options;

/// Decision slots per instruction.
pub const SLOTS: usize = 4;

/// What each decision slot of an instruction means (per operation, see the templates in
/// `select`): an index into [`Candidate::decisions`]' per-instruction bytes (not a
/// stack slot).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[repr(u8)]
pub enum DecisionSlot {
    /// Which template (instruction flavour) implements the operation.
    Flavor = 0,
    /// Operand order: which operand becomes the destination, which goes to rdx.
    Swap = 1,
    /// How to clear a flag before a carry chain starts.
    Clear = 2,
    /// Whether a memory-resident operand is used directly or loaded first.
    Mem = 3,
}

/// A decision the last code generation read with more than one alternative.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Hot {
    pub inst: Inst,
    pub slot: DecisionSlot,
    /// How many alternatives the template had (the byte is read modulo this).
    pub alternatives: u8,
}

/// The dependencies between instructions: operands, and the memory-constraint edges
/// (with aliasing, every load of an input that an output may alias comes before every
/// store to that output).
#[derive(Clone, Debug)]
pub struct Deps {
    /// Per instruction (indexed by [`Inst::index`]): the instructions it depends on.
    pub preds: Vec<Vec<Inst>>,
    /// Per instruction: the instructions that depend on it.
    pub succs: Vec<Vec<Inst>>,
}

impl Deps {
    pub fn new(f: &Function, opts: &Options) -> Deps {
        let n = f.insts.len();
        let mut preds: Vec<Vec<Inst>> = vec![Vec::new(); n];
        let mut loads: Vec<(Inst, usize)> = Vec::new(); // (inst, param)
        for (k, d) in f.insts.iter().enumerate() {
            for a in &d.args {
                if let Operand::Value(v) = a {
                    let p = f.values[v.index()].def;
                    if !preds[k].contains(&p) {
                        preds[k].push(p);
                    }
                }
            }
            match d.op {
                Op::Load { param, .. } => loads.push((Inst(k as u32), param as usize)),
                Op::Store { ret, .. } => {
                    for &(l, p) in &loads {
                        if opts.aliasing.may_alias(ret as usize, p) && !preds[k].contains(&l) {
                            preds[k].push(l);
                        }
                    }
                }
                _ => {}
            }
        }
        // Loads that come after a store in the input order also precede it.
        for (k, d) in f.insts.iter().enumerate() {
            if let Op::Store { ret, .. } = d.op {
                for &(l, p) in &loads {
                    if l.index() > k && opts.aliasing.may_alias(ret as usize, p) {
                        preds[k].push(l);
                    }
                }
            }
        }
        let mut succs: Vec<Vec<Inst>> = vec![Vec::new(); n];
        for (k, ps) in preds.iter().enumerate() {
            for &p in ps {
                succs[p.index()].push(Inst(k as u32));
            }
        }
        Deps { preds, succs }
    }

    /// Is `order` a permutation of all instructions that respects every dependency?
    pub fn is_topological(&self, order: &[Inst]) -> bool {
        self.is_topological_with(order, &mut Vec::new())
    }

    /// [`Deps::is_topological`] with a caller-owned buffer, which ends up holding each
    /// instruction's position (for the hot loop: no allocation once warm).
    pub fn is_topological_with(&self, order: &[Inst], pos: &mut Vec<u32>) -> bool {
        let n = self.preds.len();
        if order.len() != n {
            return false;
        }
        pos.clear();
        pos.resize(n, u32::MAX);
        for (i, &k) in order.iter().enumerate() {
            match pos.get_mut(k.index()) {
                Some(p) if *p == u32::MAX => *p = i as u32,
                _ => return false,
            }
        }
        self.preds
            .iter()
            .enumerate()
            .all(|(k, ps)| ps.iter().all(|&p| pos[p.index()] < pos[k]))
    }
}

/// One candidate implementation.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Candidate {
    /// Instructions of the lowered function, in emission order (serialized as plain
    /// indices, the form saved states have always had).
    pub order: Vec<Inst>,
    /// Decision bytes per instruction (indexed by instruction, not by position).
    pub decisions: Vec<[u8; SLOTS]>,
}

impl Candidate {
    /// A uniformly random choice among the ready instructions at every step (so every
    /// topological order is reachable) and random decisions.
    pub fn random<R: Rng + ?Sized>(f: &Function, deps: &Deps, rng: &mut R) -> Candidate {
        let n = f.insts.len();
        let mut missing: Vec<u32> = deps.preds.iter().map(|p| p.len() as u32).collect();
        let mut ready: Vec<Inst> = all_insts(n).filter(|k| missing[k.index()] == 0).collect();
        let mut order = Vec::with_capacity(n);
        while !ready.is_empty() {
            let i = rng.random_range(0..ready.len());
            let k = ready.swap_remove(i);
            order.push(k);
            for &s in &deps.succs[k.index()] {
                missing[s.index()] -= 1;
                if missing[s.index()] == 0 {
                    ready.push(s);
                }
            }
        }
        debug_assert_eq!(order.len(), n, "dependencies have a cycle");
        let decisions = (0..n).map(|_| rng.random()).collect();
        Candidate { order, decisions }
    }

    /// A depth-first topological order (the instruction that became ready last goes
    /// next: values are consumed soon after they are made, which keeps register
    /// pressure low) with all decisions zero.
    pub fn depth_first(f: &Function, deps: &Deps) -> Candidate {
        depth_first_order(f, deps, None::<&mut dyn rand::RngCore>)
    }

    /// A demand-driven order: a post-order walk over the dependencies from each store
    /// in turn, so every output's values are computed just before they are combined
    /// (few values live at once), with all decisions zero.
    pub fn demand_driven(f: &Function, deps: &Deps) -> Candidate {
        post_order(f.insts.len(), deps, None)
    }

    /// [`Candidate::demand_driven`] visiting the deepest operand first (Sethi–Ullman's
    /// order, with the longest dependency chain below an operand standing in for the
    /// registers it needs): a sum nested to the right, `a + (b + (c + d))` as Fiat
    /// writes a column of products, is accumulated from the inside, one product at a
    /// time (`c`, `d`, `c + d`, `b`, …), where the plain walk makes every product first
    /// and keeps them all live. With `mul`'s fixed rax/rdx that is the difference between
    /// `add`/`adc` straight from rdx:rax and a spill of every product. All decisions
    /// zero.
    pub fn deepest_first(f: &Function, deps: &Deps) -> Candidate {
        let n = f.insts.len();
        // Instructions are topologically ordered: predecessors come first.
        let mut depth = vec![0u32; n];
        for k in 0..n {
            depth[k] = 1 + deps.preds[k]
                .iter()
                .map(|p| depth[p.index()])
                .max()
                .unwrap_or(0);
        }
        post_order(n, deps, Some(&depth))
    }

    /// A list schedule that keeps few values live: among the ready instructions it
    /// takes, by priority, one that does not write the flags while a carry waits there
    /// for its reader (code generation would have to save it), the one that adds the
    /// fewest live values (its results minus the operands it is the last reader of;
    /// loaded inputs count as free, their array element is a home), one that makes a
    /// successor ready, a product sharing a factor with the last product (rdx keeps
    /// it), and the one that became ready last. Sums consume products as soon as both exist and a product is made when its
    /// sum can take it, where `depth_first` makes every product its first sum will
    /// need and keeps them all live. All decisions zero.
    pub fn low_pressure(f: &Function, deps: &Deps) -> Candidate {
        let n = f.insts.len();
        let is_load = |v: cryptopt_ir::Value| {
            matches!(f.insts[f.values[v.index()].def.index()].op, Op::Load { .. })
        };
        // Readers left per value (an instruction reading it twice counts once).
        let mut readers = vec![0u32; f.values.len()];
        let distinct = |k: Inst| {
            let args = &f.insts[k.index()].args;
            args.iter().enumerate().filter_map(move |(i, a)| match a {
                Operand::Value(v) if !args[..i].contains(a) => Some(*v),
                _ => None,
            })
        };
        for k in all_insts(n) {
            for v in distinct(k) {
                readers[v.index()] += 1;
            }
        }
        let mut missing: Vec<u32> = deps.preds.iter().map(|p| p.len() as u32).collect();
        // (instruction, when it became ready)
        let mut ready: Vec<(Inst, u32)> = all_insts(n)
            .filter(|k| missing[k.index()] == 0)
            .map(|k| (k, 0))
            .collect();
        let mut order = Vec::with_capacity(n);
        let mut clock = 0u32;
        // Carries made and not yet read: while one waits (in a flag), an instruction
        // that writes the flags and does not read it would make code generation save it.
        let mut carries: Vec<cryptopt_ir::Value> = Vec::new();
        let mut last_factors: [Operand; 2] = [Operand::Const(0); 2];
        let flag_neutral =
            |op: Op| matches!(op, Op::Load { .. } | Op::Store { .. } | Op::Mulx { .. });
        while !ready.is_empty() {
            let score = |k: Inst| {
                let d = &f.insts[k.index()];
                let breaks = !carries.is_empty()
                    && !flag_neutral(d.op)
                    && !distinct(k).any(|v| carries.contains(&v));
                let kills = distinct(k)
                    .filter(|&v| readers[v.index()] == 1 && !is_load(v))
                    .count() as i32;
                let defs = if matches!(d.op, Op::Load { .. }) {
                    0
                } else {
                    d.results.len() as i32
                };
                let enables = deps.succs[k.index()]
                    .iter()
                    .any(|s| missing[s.index()] == 1);
                // A product with a factor of the last one: code generation keeps that
                // factor in rdx.
                let same_rdx = matches!(d.op, Op::Mulx { .. })
                    && d.args.iter().any(|a| last_factors.contains(a));
                (breaks, defs - kills, !enables, !same_rdx)
            };
            let at = (0..ready.len())
                .min_by(|&a, &b| {
                    let (ka, kb) = (score(ready[a].0), score(ready[b].0));
                    ka.cmp(&kb).then(ready[b].1.cmp(&ready[a].1))
                })
                .expect("not empty");
            let (k, _) = ready.swap_remove(at);
            order.push(k);
            for v in distinct(k) {
                readers[v.index()] -= 1;
            }
            carries.retain(|&c| readers[c.index()] > 0);
            let d = &f.insts[k.index()];
            if let (Op::Mulx { .. }, [a, b]) = (d.op, d.args.as_slice()) {
                last_factors = [*a, *b];
            }
            if matches!(d.op, Op::AddCarry { .. } | Op::SubBorrow { .. }) {
                carries.extend(d.results.get(1).filter(|c| readers[c.index()] > 0));
            }
            clock += 1;
            for &s in &deps.succs[k.index()] {
                missing[s.index()] -= 1;
                if missing[s.index()] == 0 {
                    ready.push((s, clock));
                }
            }
        }
        debug_assert_eq!(order.len(), n, "dependencies have a cycle");
        Candidate {
            order,
            decisions: vec![[0; SLOTS]; n],
        }
    }

    /// A depth-first order like [`Candidate::depth_first`], but the successors that
    /// become ready are pushed in random order and one step in eight takes a random
    /// ready instruction: a low-pressure schedule that differs from walk to walk (the
    /// starting points of bets). All decisions zero.
    pub fn depth_first_random<R: Rng + ?Sized>(
        f: &Function,
        deps: &Deps,
        rng: &mut R,
    ) -> Candidate {
        depth_first_order(f, deps, Some(rng))
    }

    /// The first topological order (Kahn's algorithm taking the smallest ready index,
    /// so the input order when it is valid) with all decisions zero.
    pub fn first(deps: &Deps) -> Candidate {
        let n = deps.preds.len();
        let mut missing: Vec<u32> = deps.preds.iter().map(|p| p.len() as u32).collect();
        let mut ready: std::collections::BTreeSet<Inst> =
            all_insts(n).filter(|k| missing[k.index()] == 0).collect();
        let mut order = Vec::with_capacity(n);
        while let Some(k) = ready.pop_first() {
            order.push(k);
            for &s in &deps.succs[k.index()] {
                missing[s.index()] -= 1;
                if missing[s.index()] == 0 {
                    ready.insert(s);
                }
            }
        }
        Candidate {
            order,
            decisions: vec![[0; SLOTS]; n],
        }
    }
}

/// A post-order walk over the dependencies of `n` instructions from each root (an
/// instruction nothing depends on: a store) in turn, predecessors in input order or, with
/// `depth`, the deepest first (ties in input order); all decisions zero.
fn post_order(n: usize, deps: &Deps, depth: Option<&[u32]>) -> Candidate {
    let mut done = vec![false; n];
    let mut order = Vec::with_capacity(n);
    // Iterative (functions have thousands of instructions): (instruction, its
    // predecessors in visiting order, the next one to visit).
    let mut stack: Vec<(Inst, Vec<Inst>, usize)> = Vec::new();
    let preds = |k: Inst| {
        let mut v = deps.preds[k.index()].clone();
        if let Some(d) = depth {
            v.sort_by_key(|p| std::cmp::Reverse(d[p.index()]));
        }
        v
    };
    for root in all_insts(n).filter(|k| deps.succs[k.index()].is_empty()) {
        if done[root.index()] {
            continue;
        }
        stack.push((root, preds(root), 0));
        while let Some((k, ps, i)) = stack.last_mut() {
            if *i < ps.len() {
                let p = ps[*i];
                *i += 1;
                if !done[p.index()] {
                    stack.push((p, preds(p), 0));
                }
            } else {
                let k = *k;
                stack.pop();
                if !done[k.index()] {
                    done[k.index()] = true;
                    order.push(k);
                }
            }
        }
    }
    Candidate {
        order,
        decisions: vec![[0; SLOTS]; n],
    }
}

/// The depth-first order of [`Candidate::depth_first`] (no `rng`: successors in input
/// order, always the last ready) or of [`Candidate::depth_first_random`].
fn depth_first_order<R: Rng + ?Sized>(
    f: &Function,
    deps: &Deps,
    mut rng: Option<&mut R>,
) -> Candidate {
    let n = f.insts.len();
    let mut missing: Vec<u32> = deps.preds.iter().map(|p| p.len() as u32).collect();
    let mut ready: Vec<Inst> = all_insts(n)
        .rev()
        .filter(|k| missing[k.index()] == 0)
        .collect();
    let mut order = Vec::with_capacity(n);
    let mut fresh: Vec<Inst> = Vec::new();
    while !ready.is_empty() {
        let at = match rng.as_deref_mut() {
            Some(rng) => match rng.random_range(0..8) {
                0 => rng.random_range(0..ready.len()),
                _ => ready.len() - 1,
            },
            None => ready.len() - 1,
        };
        let k = ready.remove(at);
        order.push(k);
        fresh.clear();
        for &s in &deps.succs[k.index()] {
            missing[s.index()] -= 1;
            if missing[s.index()] == 0 {
                fresh.push(s);
            }
        }
        // Pushed so that the first successor is popped first (or in random order).
        match rng.as_deref_mut() {
            Some(rng) => fresh.shuffle(rng),
            None => fresh.reverse(),
        }
        ready.extend_from_slice(&fresh);
    }
    debug_assert_eq!(order.len(), n, "dependencies have a cycle");
    Candidate {
        order,
        decisions: vec![[0; SLOTS]; n],
    }
}

/// The instructions of an `n`-instruction function, in input order.
fn all_insts(n: usize) -> impl DoubleEndedIterator<Item = Inst> {
    (0..n as u32).map(Inst)
}
