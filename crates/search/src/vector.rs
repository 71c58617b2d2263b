//! The search over vector programs ([`cryptopt_ir::vector`]): random local search over
//! the order of the instructions, each order one program of
//! [`cryptopt_codegen::vector`] (the order decides the schedule, the register
//! allocation and the spills). One walk, stepped by the generic loop ([`crate::rls`]):
//! every mutant is compared with the current program by the evaluator and kept by the
//! scalar search's rule ([`Comparison::keeps`]); every [`Params::rank_every`] steps the
//! current program is ranked against the baseline, for progress only.
//!
//! A mutation moves one instruction to another place between its last argument and its
//! first user, loads before the first store and stores after the last load (what
//! [`cryptopt_codegen::vector::check_order`] asks).
//!
//! This module is the strategy only: it never generates, runs or times code itself. The
//! native evaluator ([`crate::vector_native::VectorNative`]) does, and checks every
//! round's outputs against the interpreter; it must never let a program be kept or
//! reported whose outputs it did not check in the same run. The walk's generator is
//! shared with that evaluator (its inputs are drawn from it between the mutations), so
//! that a seed and the same measurements name the same search path.

use std::cell::RefCell;
use std::sync::atomic::AtomicBool;

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use cryptopt_codegen::vector as codegen;
use cryptopt_ir::vector::VFunction;
use cryptopt_ir::Function;
use cryptopt_measure::counter::Counter;
use cryptopt_measure::timing::Config;
use cryptopt_x86::{Abi, Program};

use crate::error::Result;
use crate::genome::Genome;
use crate::rls::{self, Comparison, Evaluator, Next, Plan, Stepped, WalkMut};
use crate::vector_native::{SharedRng, VectorNative};

/// How long a vector search runs.
#[derive(Clone, Copy, Debug)]
pub struct Params {
    /// Mutants evaluated.
    pub evals: u64,
    pub seed: u64,
    /// A side-by-side measurement of the current program and the baseline every this
    /// many evaluations (for progress); 0: never.
    pub rank_every: u64,
}

/// One step, for logs and progress.
#[derive(Clone, Copy, Debug)]
pub struct Step {
    pub index: u64,
    pub kept: bool,
    pub cmp: Comparison,
    /// The current program's speed-up over the baseline, when this step ranked it.
    pub speedup: Option<f64>,
    /// The baseline's median ticks per call, when this step ranked.
    pub baseline: Option<f64>,
}

/// The search's result: the best order and its program.
#[derive(Clone, Debug)]
pub struct Found {
    pub order: Vec<u32>,
    pub program: Program,
    pub evals: u64,
}

/// A vector function as the mutation reads it: per instruction its arguments, its
/// users, and which instructions load and store.
#[derive(Clone, Debug)]
pub struct VectorSpace {
    args: Vec<Vec<usize>>,
    users: Vec<Vec<usize>>,
    loads: Vec<usize>,
    stores: Vec<usize>,
    is_load: Vec<bool>,
    is_store: Vec<bool>,
}

impl VectorSpace {
    pub fn new(v: &VFunction) -> VectorSpace {
        VectorSpace::with_users(v, users(v))
    }

    fn with_users(v: &VFunction, users: Vec<Vec<usize>>) -> VectorSpace {
        let is_load: Vec<bool> = v.insts.iter().map(|i| i.op.is_load()).collect();
        let is_store: Vec<bool> = v.insts.iter().map(|i| i.op.is_store()).collect();
        let which = |flags: &[bool]| (0..flags.len()).filter(|&i| flags[i]).collect();
        VectorSpace {
            args: v
                .insts
                .iter()
                .map(|i| i.args.iter().map(|a| a.index()).collect())
                .collect(),
            users,
            loads: which(&is_load),
            stores: which(&is_store),
            is_load,
            is_store,
        }
    }
}

/// What a vector mutation did: the instruction at position `from` went to `to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Move {
    pub from: u32,
    pub to: u32,
}

/// A vector program's order. A mutation is a [`Move`], or none when the instructions
/// drawn could not move (16 tries): the mutant is the current order then.
impl Genome for Vec<u32> {
    type Space = VectorSpace;
    type Hint = ();
    type Mutation = Option<Move>;
    /// The positions of the instructions in the order.
    type Scratch = Vec<usize>;

    fn mutate<R: Rng + ?Sized>(
        &mut self,
        space: &VectorSpace,
        _hints: &[()],
        pos: &mut Vec<usize>,
        rng: &mut R,
    ) -> Result<Option<Move>> {
        Ok(move_one(space, self, pos, rng))
    }
}

/// Moves one instruction of `order` to another place its dependencies allow (see the
/// module docs); `pos` is scratch space.
fn move_one<R: Rng + ?Sized>(
    s: &VectorSpace,
    order: &mut [u32],
    pos: &mut Vec<usize>,
    rng: &mut R,
) -> Option<Move> {
    let n = order.len();
    pos.clear();
    pos.resize(n, 0);
    for (p, &i) in order.iter().enumerate() {
        pos[i as usize] = p;
    }
    let first_store = s.stores.iter().map(|&i| pos[i]).min().unwrap_or(n);
    let last_load = s.loads.iter().map(|&i| pos[i] + 1).max().unwrap_or(0);
    for _ in 0..16 {
        let i = rng.random_range(0..n);
        let mut lo = s.args[i].iter().map(|&a| pos[a] + 1).max().unwrap_or(0);
        let mut hi = s.users[i].iter().map(|&u| pos[u]).min().unwrap_or(n) - 1;
        if s.is_load[i] {
            hi = hi.min(first_store - 1);
        }
        if s.is_store[i] {
            lo = lo.max(last_load);
        }
        if lo >= hi {
            continue;
        }
        let mut q = rng.random_range(lo..=hi);
        if q == pos[i] {
            q = if q == hi { lo } else { q + 1 };
        }
        // The instruction taken out at its position and put in at `q`.
        let p = pos[i];
        if q < p {
            order[q..=p].rotate_right(1);
        } else {
            order[p..=q].rotate_left(1);
        }
        return Some(Move {
            from: p as u32,
            to: q as u32,
        });
    }
    None
}

/// The order `v` is written in: its instructions as the generator built them.
pub fn program_order(v: &VFunction) -> Vec<u32> {
    (0..v.insts.len() as u32).collect()
}

/// The generator a vector search with `seed` draws from (its mutations and, natively,
/// its measurements' inputs).
pub fn walk_rng(seed: u64) -> Xoshiro256PlusPlus {
    Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x7665_6374_6f72)
}

/// Runs the search from `start` natively (see the module docs). `reference` is `v`'s
/// scalar expansion; `baseline` a checked function of the same C signature, valid
/// throughout.
#[allow(clippy::too_many_arguments)]
pub fn search(
    v: &VFunction,
    reference: &Function,
    start: Vec<u32>,
    baseline: *const u8,
    counter: &Counter,
    cfg: Config,
    params: Params,
    stop: &AtomicBool,
    on_step: &mut dyn FnMut(&Step),
) -> Result<Found> {
    let rng = RefCell::new(walk_rng(params.seed));
    let mut ev = VectorNative::new(v, reference, baseline, counter, cfg, SharedRng::new(&rng))?;
    let space = VectorSpace::new(v);
    let mut walk_rng = SharedRng::new(&rng);
    search_with(
        v,
        &space,
        start,
        &mut ev,
        &mut walk_rng,
        params,
        stop,
        on_step,
    )
}

/// The search with any evaluator (a cost model in tests) and generator (`rng`, usually
/// [`walk_rng`]`(params.seed)`; natively shared with the evaluator): one walk from
/// `start` for `params.evals` steps or until `stop` is set. `start` must be a valid
/// order (it is generated once first).
#[allow(clippy::too_many_arguments)]
pub fn search_with<E, R>(
    v: &VFunction,
    space: &VectorSpace,
    start: Vec<u32>,
    ev: &mut E,
    rng: &mut R,
    params: Params,
    stop: &AtomicBool,
    on_step: &mut dyn FnMut(&Step),
) -> Result<Found>
where
    E: Evaluator<Vec<u32>> + ?Sized,
    R: Rng + ?Sized,
{
    codegen::emit(v, &start, Abi::SysV)?;
    let mut walk = OneWalk {
        current: start,
        rng,
        evals: 0,
        accepted: 0,
        params,
        on_step,
    };
    rls::run(&mut walk, space, ev, stop)?;
    Ok(Found {
        program: codegen::emit(v, &walk.current, Abi::SysV)?,
        order: walk.current,
        evals: walk.evals,
    })
}

/// The vector search's plan for the generic loop: one walk for the whole budget,
/// ranked every `rank_every` steps for progress (the rankings decide nothing).
struct OneWalk<'a, R: ?Sized> {
    current: Vec<u32>,
    rng: &'a mut R,
    evals: u64,
    accepted: u64,
    params: Params,
    on_step: &'a mut dyn FnMut(&Step),
}

impl<E, R> Plan<Vec<u32>, E> for OneWalk<'_, R>
where
    E: Evaluator<Vec<u32>> + ?Sized,
    R: Rng + ?Sized,
{
    type Rng = R;

    fn next(&mut self, _ev: &mut E) -> Result<Next> {
        Ok(if self.evals < self.params.evals {
            Next::Step(0)
        } else {
            Next::Done
        })
    }

    fn walk(&mut self, _w: usize) -> WalkMut<'_, Vec<u32>, R> {
        WalkMut {
            current: &mut self.current,
            rng: &mut *self.rng,
            evals: &mut self.evals,
            accepted: &mut self.accepted,
        }
    }

    fn stepped(&mut self, _w: usize, s: &Stepped<Option<Move>>, ev: &mut E) -> Result<()> {
        let every = self.params.rank_every;
        let (speedup, baseline) = if every > 0 && self.evals.is_multiple_of(every) {
            let r = ev.rank(&[&self.current])?;
            (Some(1.0 / r.ratios[0]), Some(r.baseline))
        } else {
            (None, None)
        };
        (self.on_step)(&Step {
            index: self.evals,
            kept: s.kept,
            cmp: s.cmp,
            speedup,
            baseline,
        });
        Ok(())
    }
}

/// Per instruction, the instructions that use its value.
fn users(v: &VFunction) -> Vec<Vec<usize>> {
    let mut users = vec![Vec::new(); v.insts.len()];
    for (i, inst) in v.insts.iter().enumerate() {
        for a in &inst.args {
            users[a.index()].push(i);
        }
    }
    users
}

/// `order` with one instruction moved to another place its dependencies allow (the
/// same order when the one drawn cannot move). `users` is, per instruction, the
/// instructions that use its value. The search's own mutation ([`Genome::mutate`])
/// draws the same numbers and reuses its buffers.
pub fn mutate(v: &VFunction, users: &[Vec<usize>], order: &[u32], rng: &mut impl Rng) -> Vec<u32> {
    let space = VectorSpace::with_users(v, users.to_vec());
    let mut out = order.to_vec();
    move_one(&space, &mut out, &mut Vec::new(), rng);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every mutant of every mutant is an order the code generator takes.
    #[test]
    fn mutants_are_valid_orders() {
        let mut b = cryptopt_ir::vector::Builder::new(
            "t",
            vec![cryptopt_ir::Param::array(
                "arg1",
                cryptopt_ir::Ty::U64,
                &[1 << 50; 8],
            )],
            vec![cryptopt_ir::Param::array(
                "out1",
                cryptopt_ir::Ty::U64,
                &[u64::MAX as u128; 8],
            )],
        );
        let (x, y) = (b.load(0, 0).unwrap(), b.load(0, 4).unwrap());
        let z = b.splat_const(0);
        let s = b.add(x, y).unwrap();
        let p = b.madd52(z, s, y, false).unwrap();
        let q = b.madd52(p, x, x, true).unwrap();
        let r = b.permute(q, [1, 0, 3, 2]).unwrap();
        b.store(0, 0, r).unwrap();
        b.store(0, 4, s).unwrap();
        let v = b.finish().unwrap();
        let users = users(&v);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let mut order = program_order(&v);
        let mut moved = 0;
        for _ in 0..2000 {
            let next = mutate(&v, &users, &order, &mut rng);
            codegen::check_order(&v, &next).unwrap();
            moved += (next != order) as u32;
            order = next;
        }
        assert!(moved > 1000, "{moved}");
    }
}
