//! The search over vector programs ([`cryptopt_ir::vector`]): random local search over
//! the order of the instructions, each order one program of
//! [`cryptopt_codegen::vector`] (the order decides the schedule, the register
//! allocation and the spills). Every mutant is timed against the current program in one
//! paired, interleaved run that stops when the sign test has decided, kept by the scalar
//! search's rule ([`Comparison::keeps`]), and every round's outputs are checked against
//! the interpreter on the scalar expansion.
//!
//! A mutation moves one instruction to another place between its last argument and its
//! first user, loads before the first store and stores after the last load (what
//! [`cryptopt_codegen::vector::check_order`] asks).
//!
//! It must never keep or report a program whose outputs it did not check in the same run.

use std::sync::atomic::{AtomicBool, Ordering};

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use cryptopt_codegen::vector as codegen;
use cryptopt_ir::vector::VFunction;
use cryptopt_ir::Function;
use cryptopt_measure::counter::Counter;
use cryptopt_measure::diff::Oracle;
use cryptopt_measure::timing::{self, Config, EarlyStop};
use cryptopt_measure::ExecMem;
use cryptopt_x86::encode::Assembler;
use cryptopt_x86::{Abi, Program};

use crate::error::{Error, Result};
use crate::local_search::Comparison;
use crate::native::MIN_ROUNDS;

/// How long a vector search runs.
#[derive(Clone, Copy, Debug)]
pub struct Params {
    /// Mutants evaluated.
    pub evals: u64,
    pub seed: u64,
    /// A side-by-side measurement of the current program and the baseline every this
    /// many evaluations (for progress), and one at the end.
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

/// A program loaded in executable memory: two of them (current and mutant) are reused
/// for the whole search, swapped when the mutant is kept.
struct Slot {
    mem: ExecMem,
    code: Vec<u8>,
    program: Program,
    order: Vec<u32>,
}

impl Slot {
    fn empty() -> Result<Slot> {
        Ok(Slot {
            mem: ExecMem::with_capacity(1 << 16)?,
            code: Vec::new(),
            program: Program::default(),
            order: Vec::new(),
        })
    }

    /// Generates, encodes and loads the program of `order` (new pages only when the
    /// code outgrows the old ones).
    fn load(&mut self, v: &VFunction, order: Vec<u32>, asm: &mut Assembler) -> Result<()> {
        self.program = codegen::emit(v, &order, Abi::SysV)?;
        self.code.clear();
        asm.encode_program(&self.program, &mut self.code)?;
        if self.code.len() > self.mem.capacity() {
            self.mem = ExecMem::with_capacity(self.code.len().next_power_of_two())?;
        }
        self.mem.load(&self.code)?;
        self.order = order;
        Ok(())
    }
}

/// The order `v` is written in: its instructions as the generator built them.
pub fn program_order(v: &VFunction) -> Vec<u32> {
    (0..v.insts.len() as u32).collect()
}

/// Runs the search from `start` (see the module docs). `reference` is `v`'s scalar
/// expansion; `baseline` a checked function of the same C signature, valid throughout.
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
    let mut asm = Assembler::new();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(params.seed ^ 0x7665_6374_6f72);
    let mut cur = Slot::empty()?;
    cur.load(v, start, &mut asm)?;
    let mut mutant = Slot::empty()?;
    let users = users(v);
    let names = ["current program", "mutant"];
    let mut oracle = Oracle::new(reference, &names);
    let mut evals = 0;
    while evals < params.evals && !stop.load(Ordering::Relaxed) {
        evals += 1;
        let order = mutate(v, &users, &cur.order, &mut rng);
        mutant.load(v, order, &mut asm)?;
        let cmp = if mutant.code == cur.code {
            Comparison {
                current: 0.0,
                mutant: 0.0,
                ratio: 1.0,
                rounds: 0,
                decided: false,
                lengths: [cur.program.insts.len(), mutant.program.insts.len()],
            }
        } else {
            let cfg = Config {
                early_stop: Some(EarlyStop {
                    min_rounds: MIN_ROUNDS,
                    a: 1,
                    b: 0,
                }),
                ..cfg
            };
            let m = measure(
                reference,
                counter,
                &mut rng,
                &mut oracle,
                &[&cur, &mutant],
                &cfg,
            )?;
            Comparison {
                current: m.per_call[0].median,
                mutant: m.per_call[1].median,
                ratio: m.paired_ratio(1, 0),
                rounds: m.rounds(),
                decided: m.paired_decided(1, 0),
                lengths: [cur.program.insts.len(), mutant.program.insts.len()],
            }
        };
        let kept = cmp.keeps();
        if kept {
            std::mem::swap(&mut cur, &mut mutant);
        }
        let (speedup, base) = if params.rank_every > 0 && evals % params.rank_every == 0 {
            let (s, b) = rank(reference, counter, &mut rng, &cur, baseline, &cfg)?;
            (Some(s), Some(b))
        } else {
            (None, None)
        };
        on_step(&Step {
            index: evals,
            kept,
            cmp,
            speedup,
            baseline: base,
        });
    }
    Ok(Found {
        order: cur.order,
        program: cur.program,
        evals,
    })
}

/// The current program's speed-up over the baseline and the baseline's median ticks,
/// side by side, all rounds.
fn rank(
    reference: &Function,
    counter: &Counter,
    rng: &mut Xoshiro256PlusPlus,
    cur: &Slot,
    baseline: *const u8,
    cfg: &Config,
) -> Result<(f64, f64)> {
    let names = ["current program", "C baseline"];
    let mut oracle = Oracle::new(reference, &names);
    let mut check = |inputs: &[Vec<u128>], outs: &[Vec<Vec<u128>>]| oracle.check(inputs, outs);
    let cfg = Config {
        early_stop: None,
        ..*cfg
    };
    // SAFETY: the program was generated for this signature (System V, checked against
    // the interpreter every round); the baseline is the caller's promise.
    let m = unsafe {
        timing::measure(
            reference,
            &[cur.mem.ptr(), baseline],
            &cfg,
            counter,
            rng,
            &mut check,
        )
    };
    let m = m.map_err(|e| match oracle.take_culprit() {
        Some((0, message)) => Error::VectorMismatch {
            message,
            order: cur.order.clone(),
        },
        _ => e.into(),
    })?;
    Ok((1.0 / m.paired_ratio(0, 1), m.per_call[1].median))
}

fn measure(
    reference: &Function,
    counter: &Counter,
    rng: &mut Xoshiro256PlusPlus,
    oracle: &mut Oracle<'_>,
    slots: &[&Slot],
    cfg: &Config,
) -> Result<timing::Measurement> {
    let programs: Vec<*const u8> = slots.iter().map(|s| s.mem.ptr()).collect();
    let mut check = |inputs: &[Vec<u128>], outs: &[Vec<Vec<u128>>]| oracle.check(inputs, outs);
    // SAFETY: both programs were generated for this signature (System V).
    let m = unsafe { timing::measure(reference, &programs, cfg, counter, rng, &mut check) };
    m.map_err(|e| match oracle.take_culprit() {
        Some((p, message)) => Error::VectorMismatch {
            message,
            order: slots[p].order.clone(),
        },
        None => e.into(),
    })
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
/// same order when the one drawn cannot move).
pub fn mutate(v: &VFunction, users: &[Vec<usize>], order: &[u32], rng: &mut impl Rng) -> Vec<u32> {
    let n = order.len();
    let mut pos = vec![0usize; n];
    for (p, &i) in order.iter().enumerate() {
        pos[i as usize] = p;
    }
    let is = |i: usize, load: bool| {
        let op = v.insts[i].op;
        if load {
            op.is_load()
        } else {
            op.is_store()
        }
    };
    let first_store = (0..n)
        .filter(|&i| is(i, false))
        .map(|i| pos[i])
        .min()
        .unwrap_or(n);
    let last_load = (0..n)
        .filter(|&i| is(i, true))
        .map(|i| pos[i] + 1)
        .max()
        .unwrap_or(0);
    for _ in 0..16 {
        let i = rng.random_range(0..n);
        let mut lo = v.insts[i]
            .args
            .iter()
            .map(|a| pos[a.index()] + 1)
            .max()
            .unwrap_or(0);
        let mut hi = users[i].iter().map(|&u| pos[u]).min().unwrap_or(n) - 1;
        if is(i, true) {
            hi = hi.min(first_store - 1);
        }
        if is(i, false) {
            lo = lo.max(last_load);
        }
        if lo >= hi {
            continue;
        }
        let mut q = rng.random_range(lo..=hi);
        if q == pos[i] {
            q = if q == hi { lo } else { q + 1 };
        }
        let mut out = order.to_vec();
        let x = out.remove(pos[i]);
        out.insert(q, x);
        return out;
    }
    order.to_vec()
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
