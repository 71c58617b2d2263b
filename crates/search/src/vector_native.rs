//! The native evaluator of vector programs: generates, encodes and loads orders of a
//! [`VFunction`] into executable memory and measures them on this CPU.
//!
//! * [`Evaluator::compare`]: the current program against the mutant in one paired,
//!   interleaved run that stops as soon as the sign test has decided which is faster
//!   ([`EarlyStop`]); a mutant whose code is byte for byte the current's is not
//!   measured at all.
//! * [`Evaluator::rank`]: programs and the C baseline side by side, all rounds.
//!
//! After every round the outputs of all programs are compared with the interpreter on
//! the scalar expansion; any difference stops the search with [`Error::VectorMismatch`]
//! naming the order. Two code slots (current and mutant) are reused for the whole
//! search and swap when the mutant is kept.
//!
//! It must never report a measurement of code whose outputs were not checked in the same
//! run, and never draws from a generator other than the one it is given (the vector
//! search shares it with its walk: [`SharedRng`]).

use std::cell::RefCell;

use rand::{Rng, RngCore};
use rand_xoshiro::Xoshiro256PlusPlus;

use cryptopt_codegen::vector as codegen;
use cryptopt_ir::vector::VFunction;
use cryptopt_ir::Function;
use cryptopt_measure::counter::Counter;
use cryptopt_measure::diff::Oracle;
use cryptopt_measure::timing::Config;
use cryptopt_measure::ExecMem;
use cryptopt_x86::encode::Assembler;
use cryptopt_x86::{Abi, Program};

use crate::error::{Error, Result};
use crate::native::{comparison, measure_checked, rank_config, ranking, step_config};
use crate::rls::{Comparison, Evaluator, Ranking};

/// One generator used by two owners in turn (the vector walk's mutations and its
/// evaluator's inputs): every draw is the shared generator's next, exactly as if both
/// held it.
#[derive(Clone, Copy, Debug)]
pub struct SharedRng<'a>(&'a RefCell<Xoshiro256PlusPlus>);

impl<'a> SharedRng<'a> {
    pub fn new(rng: &'a RefCell<Xoshiro256PlusPlus>) -> SharedRng<'a> {
        SharedRng(rng)
    }
}

impl RngCore for SharedRng<'_> {
    fn next_u32(&mut self) -> u32 {
        self.0.borrow_mut().next_u32()
    }
    fn next_u64(&mut self) -> u64 {
        self.0.borrow_mut().next_u64()
    }
    fn fill_bytes(&mut self, dst: &mut [u8]) {
        self.0.borrow_mut().fill_bytes(dst)
    }
}

/// The programs of one comparison, in measurement order (for mismatch messages).
const PROGRAMS: [&str; 2] = ["current program", "mutant"];

/// A program loaded in executable memory.
struct Slot {
    mem: ExecMem,
    code: Vec<u8>,
    program: Program,
    /// The order whose program is loaded (when `loaded`).
    order: Vec<u32>,
    loaded: bool,
}

impl Slot {
    fn empty() -> Result<Slot> {
        Ok(Slot {
            mem: ExecMem::with_capacity(1 << 16)?,
            code: Vec::new(),
            program: Program::default(),
            order: Vec::new(),
            loaded: false,
        })
    }

    fn holds(&self, order: &[u32]) -> bool {
        self.loaded && self.order == order
    }

    /// Generates, encodes and loads the program of `order` unless it is loaded (new
    /// pages only when the code outgrows the old ones).
    fn load(&mut self, v: &VFunction, order: &[u32], asm: &mut Assembler) -> Result<()> {
        if self.holds(order) {
            return Ok(());
        }
        self.loaded = false;
        self.program = codegen::emit(v, order, Abi::SysV)?;
        self.code.clear();
        asm.encode_program(&self.program, &mut self.code)?;
        if self.code.len() > self.mem.capacity() {
            self.mem = ExecMem::with_capacity(self.code.len().next_power_of_two())?;
        }
        self.mem.load(&self.code)?;
        self.order.clear();
        self.order.extend_from_slice(order);
        self.loaded = true;
        Ok(())
    }
}

/// The native evaluator of the orders of one vector function.
pub struct VectorNative<'f, R> {
    v: &'f VFunction,
    /// `v`'s scalar expansion: what the outputs are checked against.
    reference: &'f Function,
    asm: Assembler,
    cur: Slot,
    mutant: Slot,
    baseline: *const u8,
    counter: &'f Counter,
    cfg: Config,
    rng: R,
    /// The interpreter check of every comparison (kept: its scratch space is reused).
    oracle: Oracle<'f>,
}

impl<'f, R: Rng> VectorNative<'f, R> {
    /// `reference` is `v`'s scalar expansion; `baseline` must point to a checked
    /// function of the same C signature and stay valid as long as this evaluator. The
    /// measurements' inputs are drawn from `rng`.
    pub fn new(
        v: &'f VFunction,
        reference: &'f Function,
        baseline: *const u8,
        counter: &'f Counter,
        cfg: Config,
        rng: R,
    ) -> Result<VectorNative<'f, R>> {
        Ok(VectorNative {
            v,
            reference,
            asm: Assembler::new(),
            cur: Slot::empty()?,
            mutant: Slot::empty()?,
            baseline,
            counter,
            cfg,
            rng,
            oracle: Oracle::new(reference, &PROGRAMS),
        })
    }

    fn ensure_current(&mut self, order: &[u32]) -> Result<()> {
        if !self.cur.holds(order) && self.mutant.holds(order) {
            std::mem::swap(&mut self.cur, &mut self.mutant);
        }
        self.cur.load(self.v, order, &mut self.asm)
    }
}

/// A vector program's mismatch: the error names `orders[p]` as evidence.
fn blame_order<'a>(orders: &'a [&'a [u32]]) -> impl FnOnce(usize, String) -> Option<Error> + 'a {
    move |p, message| {
        let order = orders.get(p)?.to_vec();
        Some(Error::VectorMismatch { message, order })
    }
}

impl<R: Rng> Evaluator<Vec<u32>> for VectorNative<'_, R> {
    fn hot(&mut self, _order: &Vec<u32>) -> Result<&[()]> {
        Ok(&[])
    }

    fn compare(&mut self, current: &Vec<u32>, mutant: &Vec<u32>) -> Result<Comparison> {
        self.ensure_current(current)?;
        self.mutant.load(self.v, mutant, &mut self.asm)?;
        let lengths = [
            self.cur.program.insts.len(),
            self.mutant.program.insts.len(),
        ];
        if self.cur.code == self.mutant.code {
            // The same program: nothing to measure or to check again.
            return Ok(Comparison::same_code(lengths));
        }
        // SAFETY: both programs were generated for this signature (System V).
        let m = unsafe {
            measure_checked(
                self.reference,
                self.counter,
                &mut self.rng,
                &mut self.oracle,
                &[self.cur.mem.ptr(), self.mutant.mem.ptr()],
                &step_config(self.cfg),
                blame_order(&[current, mutant]),
            )
        }?;
        Ok(comparison(&m, lengths))
    }

    fn rank(&mut self, orders: &[&Vec<u32>]) -> Result<Ranking> {
        // An order already in a code slot (the current one, usually) is measured there;
        // the others are generated and loaded for this ranking only.
        let mut mems = Vec::new();
        let mut programs: Vec<*const u8> = Vec::with_capacity(orders.len() + 1);
        for &o in orders {
            let ptr = match [&self.cur, &self.mutant].into_iter().find(|s| s.holds(o)) {
                Some(slot) => slot.mem.ptr(),
                None => {
                    let mem = ExecMem::from_program(&codegen::emit(self.v, o, Abi::SysV)?)?;
                    let ptr = mem.ptr();
                    mems.push(mem);
                    ptr
                }
            };
            programs.push(ptr);
        }
        programs.push(self.baseline);
        let mut names = vec!["a ranked program"; orders.len()];
        if let Some(first) = names.first_mut() {
            *first = "current program";
        }
        names.push("C baseline");
        let mut oracle = Oracle::new(self.reference, &names);
        let slices: Vec<&[u32]> = orders.iter().map(|o| o.as_slice()).collect();
        // SAFETY: the programs were generated for this signature (System V); the
        // baseline is the caller's promise (`new`).
        let m = unsafe {
            measure_checked(
                self.reference,
                self.counter,
                &mut self.rng,
                &mut oracle,
                &programs,
                &rank_config(self.cfg),
                blame_order(&slices),
            )
        }?;
        Ok(ranking(&m, orders.len()))
    }
}
