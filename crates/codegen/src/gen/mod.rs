//! The code generator: one forward pass over a candidate's order that selects a template
//! per operation, allocates registers, tracks the CF and OF flags as two separate
//! resources, and spills what does not fit.
//!
//! ```text
//!   for each instruction in the candidate's order:
//!       operands ──▶ registers / memory / immediates   (reload, materialize flags)
//!       template ──▶ x86 instructions via emit()       (emit saves a live flag before
//!       results  ──▶ registers or CF/OF                  any instruction clobbers it)
//!       dead values free their registers, slots, flags
//!   prologue (pushes, frame) + body + epilogue + ret
//! ```
//!
//! Invariants kept at every step (and checked by the differential tests):
//! * a live value always has at least one valid location (register, flag, stack slot,
//!   or its input array element);
//! * a flag that holds a live value is saved (`setc`/`seto` + `movzx`) before any
//!   instruction that writes it; a flag is never read unless it holds the wanted value;
//! * with aliasing allowed, no input element is read from memory after an output that
//!   may alias it has been written;
//! * registers of the current operation's operands are pinned and never evicted.
//!
//! Values narrower than 64 bits are kept zero-extended in 64-bit registers.
//!
//! This module holds the generator's state and its per-candidate driver; the work is
//! split by concern into child modules, which share the private state:
//!
//! * `regs`: register allocation, pinning, eviction and spill slots, freeing dead values;
//! * `operands`: operands as registers, memory or immediates; destinations and results;
//! * `flags`: CF and OF as value locations, `emit` (which saves a live flag first);
//! * `frame`: the prologue and epilogue around the body;
//! * `select`: the templates, one family of operations per child module.
//!
//! None of them may ever emit a branch or a memory access whose address depends on data.

mod flags;
mod frame;
mod operands;
mod regs;
mod select;

use cryptopt_ir::{Function, Inst as IrInst, InstData, Op, Operand as IrOperand, Ty};
use cryptopt_x86::{ArgLoc, Inst, Program, Reg};

use crate::bounds::Bounds;
use crate::candidate::{Candidate, DecisionSlot, Deps, Hot, SLOTS};
use crate::error::{Error, Result};
use crate::options::{FramePointer, Options};

use flags::FlagReg;

/// "Never used again", as a next-use position.
const INF: u32 = u32::MAX;

/// Who holds a register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
enum Owner {
    #[default]
    Free,
    Val(u32),
    Abi(u8),
    /// A literal, loaded by an earlier operation and read-only since: reused by any
    /// operation that needs it in a register, evicted for free (nothing to save).
    Const(u64),
    /// Scratch for the current operation only.
    Temp,
    /// rsp, and rbp when it is not allocatable.
    Reserved,
}

/// A memory home of a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum MemLoc {
    /// Element of an input array: (abi argument, byte offset).
    Arg { abi: u8, disp: i32 },
    /// A spill slot.
    Slot(u32),
}

/// How an argument or return reaches the function (System V order: returns first).
#[derive(Clone, Copy, Debug)]
struct Abi {
    /// A pointer (arrays, and every return) or a scalar value.
    pointer: bool,
    /// For scalars: the type (to zero-extend narrow ones).
    ty: Ty,
}

/// A reusable code generator for one lowered function and one set of options. Keep it
/// and call [`Generator::generate`] for every candidate: it allocates nothing per call
/// once warmed up (the optimizer's hot loop).
pub struct Generator<'f> {
    f: &'f Function,
    opts: Options,
    deps: Deps,
    bounds: Bounds,
    abi: Vec<Abi>,
    /// For each lowered parameter / return: its abi index.
    param_abi: Vec<u8>,
    ret_abi: Vec<u8>,
    /// Static: first use slot of each value in `use_pos` (prefix sums of use counts).
    use_off: Vec<u32>,
    abi_use_off: Vec<u32>,
    allocatable: Vec<Reg>,
    /// The target has no `mulx`: products are made by `mul` in rax/rdx (asked by every
    /// sum's template, so read once from the target).
    mul_only: bool,
    /// Static: the literals that need a register (not an imm32) and are read often
    /// enough to get a stack slot of their own at their first load ([`HOME_USES`]).
    homed: Vec<u64>,
    st: State,
}

/// Reads of a wide literal from which it gets a stack slot of its own at its first load
/// (one store): a later read can then be a memory operand (a load, on a load port)
/// instead of a `mov r64, imm64` (an ALU operation) once its register has been taken
/// for something else. (As a search decision instead, P-256's ECDH came out 0.6%
/// slower at 1,000 evaluations per piece; the small multiplications were even.)
const HOME_USES: usize = 4;

/// Per-candidate state, cleared and reused.
#[derive(Default)]
struct State {
    body: Vec<Inst>,
    out: Vec<Inst>,
    hot: Vec<Hot>,
    hot_mark: Vec<u8>,
    /// Scratch of the topological check (each instruction's position).
    pos_of: Vec<u32>,
    use_pos: Vec<u32>,
    use_fill: Vec<u32>,
    use_cur: Vec<u32>,
    left: Vec<u32>,
    v_reg: Vec<Option<Reg>>,
    v_mem: Vec<Option<MemLoc>>,
    v_flag: Vec<Option<FlagReg>>,
    abi_reg: Vec<Option<Reg>>,
    /// A spill slot of an argument (never one passed on the stack: that is its home).
    abi_slot: Vec<Option<u32>>,
    /// Body positions of the loads of stack-passed arguments, whose offsets from rsp
    /// `frame` fixes once the frame is known.
    incoming: Vec<u32>,
    /// Which body instructions `frame` keeps (scratch of its dead-store pass).
    keep: Vec<bool>,
    abi_ops_left: Vec<u32>,
    abi_mem_live: Vec<u32>,
    abi_use_pos: Vec<u32>,
    abi_use_fill: Vec<u32>,
    abi_use_cur: Vec<u32>,
    owner: [Owner; 16],
    flag: [Option<u32>; 2],
    /// Per flag (CF, OF): known to hold 0 (see `flags.rs`); never while a value lives
    /// there.
    flag_zero: [bool; 2],
    slots_free: Vec<u32>,
    /// Stack slots holding literals (see `Generator::homed`), for the whole function.
    const_home: Vec<(u64, u32)>,
    /// Scratch of the sum template: which addends are added.
    sum_done: Vec<bool>,
    nslots: u32,
    used_callee_saved: u16,
    pinned: u16,
    cur: Current,
}

/// The instruction being generated.
#[derive(Clone, Copy)]
struct Current {
    inst: IrInst,
    /// Its decision bytes.
    dec: [u8; SLOTS],
    /// Its position in the candidate's order.
    pos: u32,
}

impl Default for Current {
    fn default() -> Self {
        Current {
            inst: IrInst(0),
            dec: [0; SLOTS],
            pos: 0,
        }
    }
}

impl<'f> Generator<'f> {
    pub fn new(f: &'f Function, opts: Options) -> Result<Generator<'f>> {
        let mut abi = Vec::new();
        let mut ret_abi = Vec::new();
        let mut param_abi = Vec::new();
        for r in &f.returns {
            ret_abi.push(abi.len() as u8);
            abi.push(Abi {
                pointer: true,
                ty: r.ty,
            });
        }
        for p in &f.params {
            param_abi.push(abi.len() as u8);
            abi.push(Abi {
                pointer: p.len.is_some(),
                ty: p.ty,
            });
        }
        for d in &f.insts {
            let wide = d
                .results
                .iter()
                .any(|&v| f.ty(v).bits > 64 || f.ty(v).signed);
            if wide {
                return Err(Error::Unsupported(format!(
                    "`{}` is not lowered (wide or signed types)",
                    f.name
                )));
            }
        }
        let mut use_off = vec![0u32; f.values.len() + 1];
        let mut abi_count = vec![0u32; abi.len()];
        for d in &f.insts {
            for a in &d.args {
                if let IrOperand::Value(v) = a {
                    use_off[v.index() + 1] += 1;
                }
            }
            match d.op {
                Op::Load { param, .. } => abi_count[param_abi[param as usize] as usize] += 1,
                Op::Store { ret, .. } => abi_count[ret_abi[ret as usize] as usize] += 1,
                _ => {}
            }
        }
        for i in 0..f.values.len() {
            use_off[i + 1] += use_off[i];
        }
        let mut abi_use_off = vec![0u32; abi.len() + 1];
        for k in 0..abi.len() {
            abi_use_off[k + 1] = abi_use_off[k] + abi_count[k];
        }
        // Caller-saved first (no push/pop needed), then callee-saved, rdx last (mulx
        // and mul want it).
        let order = [
            Reg::Rax,
            Reg::Rcx,
            Reg::Rsi,
            Reg::Rdi,
            Reg::R8,
            Reg::R9,
            Reg::R10,
            Reg::R11,
            Reg::Rbx,
            Reg::R12,
            Reg::R13,
            Reg::R14,
            Reg::R15,
            Reg::Rbp,
        ];
        let usable = |r: &Reg| *r != Reg::Rbp || opts.frame_pointer == FramePointer::Omit;
        let saved = |r: &Reg| opts.abi.is_callee_saved(*r);
        let mut allocatable: Vec<Reg> = (order.iter().filter(|r| usable(r) && !saved(r)))
            .chain(order.iter().filter(|r| usable(r) && saved(r)))
            .copied()
            .collect();
        allocatable.push(Reg::Rdx);
        let mut wide: Vec<u64> = f
            .insts
            .iter()
            .flat_map(|i| i.args.iter())
            .filter_map(|a| a.constant())
            .map(|c| c as u64)
            .filter(|&c| !fits_imm32(c))
            .collect();
        wide.sort_unstable();
        let homed = wide
            .chunk_by(|a, b| a == b)
            .filter(|run| run.len() >= HOME_USES)
            .map(|run| run[0])
            .collect();
        Ok(Generator {
            f,
            deps: Deps::new(f, &opts),
            bounds: Bounds::new(f),
            opts,
            abi,
            param_abi,
            ret_abi,
            use_off,
            abi_use_off,
            allocatable,
            mul_only: !opts.target.allows(cryptopt_x86::Mnemonic::Mulx),
            homed,
            st: State::default(),
        })
    }

    pub fn function(&self) -> &'f Function {
        self.f
    }

    pub fn deps(&self) -> &Deps {
        &self.deps
    }

    pub fn options(&self) -> &Options {
        &self.opts
    }

    /// The (instruction, slot) decisions the last generation actually read where more
    /// than one alternative existed: the only ones worth mutating.
    pub fn hot(&self) -> &[Hot] {
        &self.st.hot
    }

    /// Generates the program for `cand`; the instructions stay valid until the next call.
    pub fn generate(&mut self, cand: &Candidate) -> Result<&[Inst]> {
        if !self
            .deps
            .is_topological_with(&cand.order, &mut self.st.pos_of)
            || cand.decisions.len() != self.f.insts.len()
        {
            return Err(Error::BadCandidate(format!(
                "order is not a topological order of `{}` or decisions have the wrong length",
                self.f.name
            )));
        }
        self.reset(cand);
        for (pos, &k) in cand.order.iter().enumerate() {
            self.st.cur = Current {
                inst: k,
                dec: cand.decisions[k.index()],
                pos: pos as u32,
            };
            self.st.pinned = 0;
            let f = self.f;
            let d = &f.insts[k.index()];
            self.select(d)?;
            self.finish_inst(d);
        }
        self.assemble();
        Ok(&self.st.out)
    }

    /// The last generated program with its name.
    pub fn program(&self) -> Program {
        Program::new(self.f.name.clone(), self.st.out.clone())
    }

    // ---------------------------------------------------------------------------------
    // state

    fn reset(&mut self, cand: &Candidate) {
        let f = self.f;
        let nv = f.values.len();
        let na = self.abi.len();
        let st = &mut self.st;
        st.body.clear();
        st.out.clear();
        st.hot.clear();
        st.hot_mark.clear();
        st.hot_mark.resize(f.insts.len(), 0);
        // Use positions, in order (so each value's list is sorted).
        st.use_pos.clear();
        st.use_pos.resize(self.use_off[nv] as usize, 0);
        st.use_fill.clear();
        st.use_fill.extend_from_slice(&self.use_off[..nv]);
        st.abi_use_pos.clear();
        st.abi_use_pos.resize(self.abi_use_off[na] as usize, 0);
        st.abi_use_fill.clear();
        st.abi_use_fill.extend_from_slice(&self.abi_use_off[..na]);
        for (p, &k) in cand.order.iter().enumerate() {
            let d = &f.insts[k.index()];
            for a in &d.args {
                if let IrOperand::Value(v) = a {
                    let i = &mut st.use_fill[v.index()];
                    st.use_pos[*i as usize] = p as u32;
                    *i += 1;
                }
            }
            let abi = match d.op {
                Op::Load { param, .. } => Some(self.param_abi[param as usize]),
                Op::Store { ret, .. } => Some(self.ret_abi[ret as usize]),
                _ => None,
            };
            if let Some(k) = abi {
                let i = &mut st.abi_use_fill[k as usize];
                st.abi_use_pos[*i as usize] = p as u32;
                *i += 1;
            }
        }
        st.use_cur.clear();
        st.use_cur.extend_from_slice(&self.use_off[..nv]);
        st.abi_use_cur.clear();
        st.abi_use_cur.extend_from_slice(&self.abi_use_off[..na]);
        st.left.clear();
        st.left
            .extend((0..nv).map(|v| self.use_off[v + 1] - self.use_off[v]));
        st.v_reg.clear();
        st.v_reg.resize(nv, None);
        st.v_mem.clear();
        st.v_mem.resize(nv, None);
        st.v_flag.clear();
        st.v_flag.resize(nv, None);
        st.abi_reg.clear();
        st.abi_slot.clear();
        st.abi_slot.resize(na, None);
        st.abi_ops_left.clear();
        st.abi_ops_left
            .extend((0..na).map(|k| self.abi_use_off[k + 1] - self.abi_use_off[k]));
        st.abi_mem_live.clear();
        st.abi_mem_live.resize(na, 0);
        st.owner = [Owner::Free; 16];
        st.owner[Reg::Rsp.index()] = Owner::Reserved;
        if self.opts.frame_pointer != FramePointer::Omit {
            st.owner[Reg::Rbp.index()] = Owner::Reserved;
        }
        st.incoming.clear();
        for k in 0..na {
            match self.opts.abi.arg_location(k) {
                ArgLoc::Reg(r) if st.abi_ops_left[k] > 0 => {
                    st.abi_reg.push(Some(r));
                    st.owner[r.index()] = Owner::Abi(k as u8);
                }
                // Unused, or on the caller's stack until its first use.
                _ => st.abi_reg.push(None),
            }
        }
        st.flag = [None; 2];
        st.flag_zero = [false; 2];
        st.slots_free.clear();
        st.const_home.clear();
        st.nslots = 0;
        st.used_callee_saved = 0;
    }

    fn decide(&mut self, slot: DecisionSlot, n: usize) -> usize {
        if n <= 1 {
            return 0;
        }
        let mark = &mut self.st.hot_mark[self.st.cur.inst.index()];
        if *mark & (1 << slot as u8) == 0 {
            *mark |= 1 << slot as u8;
            self.st.hot.push(Hot {
                inst: self.st.cur.inst,
                slot,
                alternatives: n.min(255) as u8,
            });
        }
        self.st.cur.dec[slot as usize] as usize % n
    }

    /// After an instruction: count uses, free what died, release temps.
    fn finish_inst(&mut self, d: &InstData) {
        for a in &d.args {
            if let IrOperand::Value(v) = *a {
                self.st.left[v.index()] -= 1;
                self.st.use_cur[v.index()] += 1;
            }
        }
        for a in &d.args {
            if let IrOperand::Value(v) = *a {
                if self.st.left[v.index()] == 0 {
                    self.kill(v.0);
                }
            }
        }
        for &r in &d.results {
            if self.st.left[r.index()] == 0 {
                self.kill(r.0);
            }
        }
        let abi = match d.op {
            Op::Load { param, .. } => Some(self.param_abi[param as usize]),
            Op::Store { ret, .. } => Some(self.ret_abi[ret as usize]),
            _ => None,
        };
        if let Some(k) = abi {
            self.st.abi_ops_left[k as usize] -= 1;
            self.st.abi_use_cur[k as usize] += 1;
            self.maybe_release_abi(k);
        }
        for o in self.st.owner.iter_mut() {
            if *o == Owner::Temp {
                *o = Owner::Free;
            }
        }
    }
}

/// Does `c` (a 64-bit pattern) fit a sign-extended imm32?
fn fits_imm32(c: u64) -> bool {
    (c as i64) >= i32::MIN as i64 && (c as i64) <= i32::MAX as i64
}
