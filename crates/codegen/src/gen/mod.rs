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
//! This module must never emit a branch or a memory access whose address depends on data.

use cryptopt_ir::{Function, Inst as IrInst, InstData, Op, Operand as IrOperand, Ty, Value};
use cryptopt_x86::{Inst, Mem, Mnemonic as M, Operand as X, Program, Reg, Size};

use crate::bounds::Bounds;
use crate::candidate::{Candidate, DecisionSlot, Deps, Hot, SLOTS};
use crate::error::{Error, Result};
use crate::options::{FramePointer, Options};

const INF: u32 = u32::MAX;

/// Which flag (CF or OF): the two flags that can hold a u1 value, tracked as two
/// separate resources.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FlagReg {
    CF = 0,
    OF = 1,
}

/// Who holds a register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
enum Owner {
    #[default]
    Free,
    Val(u32),
    Abi(u8),
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
    st: State,
}

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
    abi_slot: Vec<Option<u32>>,
    abi_ops_left: Vec<u32>,
    abi_mem_live: Vec<u32>,
    abi_use_pos: Vec<u32>,
    abi_use_fill: Vec<u32>,
    abi_use_cur: Vec<u32>,
    owner: [Owner; 16],
    flag: [Option<u32>; 2],
    slots_free: Vec<u32>,
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
        if abi.len() > Reg::ARGS.len() {
            return Err(Error::Unsupported(format!(
                "`{}` takes {} arguments; more than 6 (stack-passed arguments) is not supported",
                f.name,
                abi.len()
            )));
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
        // Caller-saved first (no push/pop needed), rdx last (mulx wants it).
        let mut allocatable = vec![
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
        ];
        if opts.frame_pointer == FramePointer::Omit {
            allocatable.push(Reg::Rbp);
        }
        allocatable.push(Reg::Rdx);
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

    /// Number of spill slots the last generation used.
    pub fn stack_slots(&self) -> u32 {
        self.st.nslots
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
        Program {
            name: self.f.name.clone(),
            insts: self.st.out.clone(),
        }
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
        for k in 0..na {
            let r = Reg::ARGS[k];
            if st.abi_ops_left[k] > 0 {
                st.abi_reg.push(Some(r));
                st.owner[r.index()] = Owner::Abi(k as u8);
            } else {
                st.abi_reg.push(None);
            }
        }
        st.flag = [None; 2];
        st.slots_free.clear();
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

    fn next_use(&self, v: u32) -> u32 {
        let c = self.st.use_cur[v as usize];
        if c < self.use_off[v as usize + 1] {
            self.st.use_pos[c as usize]
        } else {
            INF
        }
    }

    /// The next use of pointer argument `k`: its next load or store, or "soon" while
    /// values still wait in its array (they are read through it).
    fn abi_next_use(&self, k: u8) -> u32 {
        if self.st.abi_mem_live[k as usize] > 0 {
            return self.st.cur.pos + 1;
        }
        let c = self.st.abi_use_cur[k as usize];
        if c < self.abi_use_off[k as usize + 1] {
            self.st.abi_use_pos[c as usize]
        } else {
            INF
        }
    }

    /// Occurrences of `v` among the current instruction's operands.
    fn occurrences(&self, v: u32) -> u32 {
        self.f.insts[self.st.cur.inst.index()]
            .args
            .iter()
            .filter(|a| **a == IrOperand::Value(Value(v)))
            .count() as u32
    }

    fn pin(&mut self, r: Reg) {
        self.st.pinned |= 1 << r.index();
    }

    fn unpin(&mut self, r: Reg) {
        self.st.pinned &= !(1 << r.index());
    }

    fn is_pinned(&self, r: Reg) -> bool {
        self.st.pinned & (1 << r.index()) != 0
    }

    fn slot_mem(s: u32, size: Size) -> Mem {
        Mem::at(Reg::Rsp, 8 * s as i32, size)
    }

    fn alloc_slot(&mut self) -> u32 {
        if let Some(s) = self.st.slots_free.pop() {
            s
        } else {
            self.st.nslots += 1;
            self.st.nslots - 1
        }
    }

    /// A register for the current operation, evicting the holder whose next use is
    /// furthest away if none is free. The register comes back pinned.
    fn alloc_reg(&mut self) -> Result<Reg> {
        let mut best: Option<(Reg, u32, bool)> = None;
        for i in 0..self.allocatable.len() {
            let r = self.allocatable[i];
            if self.is_pinned(r) {
                continue;
            }
            match self.st.owner[r.index()] {
                Owner::Free => {
                    self.take(r);
                    return Ok(r);
                }
                Owner::Val(v) => {
                    let cheap =
                        self.st.v_mem[v as usize].is_some() || self.st.v_flag[v as usize].is_some();
                    let key = self.next_use(v);
                    if best.is_none_or(|(_, k, c)| key > k || (key == k && cheap && !c)) {
                        best = Some((r, key, cheap));
                    }
                }
                Owner::Abi(k) => {
                    let key = self.abi_next_use(k);
                    let cheap = self.st.abi_slot[k as usize].is_some();
                    if best.is_none_or(|(_, kk, c)| key > kk || (key == kk && cheap && !c)) {
                        best = Some((r, key, cheap));
                    }
                }
                Owner::Temp | Owner::Reserved => {}
            }
        }
        let (r, _, _) = best.ok_or_else(|| Error::Internal("every register is pinned".into()))?;
        self.evict(r);
        self.take(r);
        Ok(r)
    }

    fn take(&mut self, r: Reg) {
        self.st.owner[r.index()] = Owner::Temp;
        self.pin(r);
        if r.is_callee_saved() {
            self.st.used_callee_saved |= 1 << r.index();
        }
    }

    /// Moves the holder of `r` elsewhere (a stack slot unless it has another home).
    fn evict(&mut self, r: Reg) {
        match self.st.owner[r.index()] {
            Owner::Val(v) => {
                let vi = v as usize;
                if self.st.v_mem[vi].is_none() && self.st.v_flag[vi].is_none() {
                    let s = self.alloc_slot();
                    self.st.body.push(Inst::op2(
                        M::Mov,
                        X::Mem(Self::slot_mem(s, Size::B64)),
                        X::r64(r),
                    ));
                    self.st.v_mem[vi] = Some(MemLoc::Slot(s));
                }
                self.st.v_reg[vi] = None;
            }
            Owner::Abi(k) => {
                let ki = k as usize;
                if self.st.abi_slot[ki].is_none() {
                    let s = self.alloc_slot();
                    self.st.body.push(Inst::op2(
                        M::Mov,
                        X::Mem(Self::slot_mem(s, Size::B64)),
                        X::r64(r),
                    ));
                    self.st.abi_slot[ki] = Some(s);
                }
                self.st.abi_reg[ki] = None;
            }
            Owner::Free | Owner::Temp | Owner::Reserved => {}
        }
        self.st.owner[r.index()] = Owner::Free;
    }

    /// Makes `r` hold value `v` (64-bit, zero-extended).
    fn bind(&mut self, v: Value, r: Reg) {
        self.st.owner[r.index()] = Owner::Val(v.0);
        self.st.v_reg[v.index()] = Some(r);
    }

    fn bind_flag(&mut self, v: Value, fl: FlagReg) {
        self.st.flag[fl as usize] = Some(v.0);
        self.st.v_flag[v.index()] = Some(fl);
    }

    /// The pointer register of abi argument `k`, reloaded if it was spilled; pinned.
    fn abi_ptr(&mut self, k: u8) -> Result<Reg> {
        if let Some(r) = self.st.abi_reg[k as usize] {
            self.pin(r);
            return Ok(r);
        }
        let s = self.st.abi_slot[k as usize]
            .ok_or_else(|| Error::Internal(format!("pointer argument {k} lost")))?;
        let r = self.alloc_reg()?;
        self.st.body.push(Inst::op2(
            M::Mov,
            X::r64(r),
            X::Mem(Self::slot_mem(s, Size::B64)),
        ));
        self.st.owner[r.index()] = Owner::Abi(k);
        self.st.abi_reg[k as usize] = Some(r);
        Ok(r)
    }

    fn mem_operand(&mut self, m: MemLoc, size: Size) -> Result<Mem> {
        Ok(match m {
            MemLoc::Slot(s) => Self::slot_mem(s, size),
            MemLoc::Arg { abi, disp } => Mem::at(self.abi_ptr(abi)?, disp, size),
        })
    }

    /// Emits `i`, first saving any live value in a flag that `i` writes. `consumes`
    /// names the value `i` reads from a flag (its carry-in), if any.
    fn emit(&mut self, i: Inst, consumes: Option<Value>) -> Result<()> {
        let fx = i.mn.flags();
        if fx.writes_cf {
            self.clobber_flag(FlagReg::CF, consumes)?;
        }
        if fx.writes_of {
            self.clobber_flag(FlagReg::OF, consumes)?;
        }
        self.st.body.push(i);
        Ok(())
    }

    fn clobber_flag(&mut self, fl: FlagReg, consumes: Option<Value>) -> Result<()> {
        let Some(v) = self.st.flag[fl as usize] else {
            return Ok(());
        };
        let vi = v as usize;
        let occ = self.occurrences(v);
        let after = self.st.left[vi] - occ;
        let still_needed = after > 0 || (occ > 0 && consumes != Some(Value(v)));
        if still_needed && self.st.v_reg[vi].is_none() && self.st.v_mem[vi].is_none() {
            self.save_flag(fl)?;
        }
        self.st.flag[fl as usize] = None;
        self.st.v_flag[vi] = None;
        Ok(())
    }

    /// `setc`/`seto` + `movzx`: the flag's value into a register (flag stays valid).
    fn save_flag(&mut self, fl: FlagReg) -> Result<Reg> {
        let v = self.st.flag[fl as usize]
            .ok_or_else(|| Error::Internal("saving an empty flag".into()))?;
        let r = self.alloc_reg()?;
        let set = if fl == FlagReg::CF { M::Setc } else { M::Seto };
        self.st.body.push(Inst::op1(set, X::r8(r)));
        self.st.body.push(Inst::op2(M::Movzx, X::r32(r), X::r8(r)));
        self.bind(Value(v), r);
        Ok(r)
    }

    /// A value or literal as an x86 operand. `mem`: a memory operand is acceptable;
    /// `imm`: a sign-extended imm32 is acceptable. Registers come back pinned.
    fn operand(&mut self, o: IrOperand, mem: bool, imm: bool) -> Result<X> {
        match o {
            IrOperand::Const(c) => {
                let c = c as u64;
                if imm && fits_imm32(c) {
                    Ok(X::Imm(c as i64))
                } else {
                    let r = self.alloc_reg()?;
                    self.load_const(r, c);
                    Ok(X::r64(r))
                }
            }
            IrOperand::Value(v) => {
                let vi = v.index();
                if let Some(r) = self.st.v_reg[vi] {
                    self.pin(r);
                    return Ok(X::r64(r));
                }
                if let Some(m) = self.st.v_mem[vi] {
                    // Slot or input element: use it in place or load it (a decision).
                    let direct = mem
                        && (matches!(m, MemLoc::Slot(_)) || self.decide(DecisionSlot::Mem, 2) == 0);
                    let mo = self.mem_operand(m, Size::B64)?;
                    if direct {
                        return Ok(X::Mem(mo));
                    }
                    let r = self.alloc_reg()?;
                    self.st.body.push(Inst::op2(M::Mov, X::r64(r), X::Mem(mo)));
                    if let Some(b) = mo.base {
                        if b != Reg::Rsp && !self.holds_operand_of_current(b) {
                            self.unpin(b);
                        }
                    }
                    self.bind(v, r);
                    return Ok(X::r64(r));
                }
                if let Some(fl) = self.st.v_flag[vi] {
                    let r = self.save_flag(fl)?;
                    return Ok(X::r64(r));
                }
                Err(Error::Internal(format!("value {v} has no location")))
            }
        }
    }

    /// Does `r` hold something the current instruction still reads?
    fn holds_operand_of_current(&self, r: Reg) -> bool {
        match self.st.owner[r.index()] {
            Owner::Val(v) => self.occurrences(v) > 0,
            _ => false,
        }
    }

    /// A value or literal in a register (pinned).
    fn reg_operand(&mut self, o: IrOperand) -> Result<Reg> {
        match self.operand(o, false, false)? {
            X::Reg(r, _) => Ok(r),
            _ => Err(Error::Internal("expected a register".into())),
        }
    }

    fn load_const(&mut self, r: Reg, c: u64) {
        let i = if c <= u32::MAX as u64 {
            Inst::op2(M::Mov, X::r32(r), X::Imm(c as i64))
        } else {
            Inst::op2(M::Mov, X::r64(r), X::Imm(c as i64))
        };
        self.st.body.push(i);
    }

    /// Does value `v` die at the current instruction (no use after it, one use in it)?
    fn dies_here(&self, o: IrOperand) -> bool {
        match o {
            IrOperand::Value(v) => self.st.left[v.index()] == 1 && self.occurrences(v.0) == 1,
            IrOperand::Const(_) => false,
        }
    }

    /// A destination register initialised with `src`: `src`'s own register if `src` dies
    /// here, else a fresh register and a `mov`. Comes back pinned, owned as Temp.
    fn dest_from(&mut self, src: IrOperand) -> Result<Reg> {
        if let IrOperand::Value(v) = src {
            if let Some(r) = self.st.v_reg[v.index()] {
                if self.dies_here(src) {
                    self.st.v_reg[v.index()] = None;
                    self.st.owner[r.index()] = Owner::Temp;
                    self.pin(r);
                    return Ok(r);
                }
            }
        }
        if let IrOperand::Const(c) = src {
            let r = self.alloc_reg()?;
            self.load_const(r, c as u64);
            return Ok(r);
        }
        let x = self.operand(src, true, false)?;
        let r = self.alloc_reg()?;
        self.st.body.push(Inst::op2(M::Mov, X::r64(r), x));
        Ok(r)
    }

    /// A fresh register for a result (pinned, Temp).
    fn fresh(&mut self) -> Result<Reg> {
        self.alloc_reg()
    }

    /// Brings carry-in `c` into `fl` (CF or OF); returns the value now read from the flag
    /// (for `emit`'s bookkeeping), or `None` for a literal.
    fn carry_into(&mut self, c: IrOperand, fl: FlagReg, clear: Option<M>) -> Result<Option<Value>> {
        match c {
            IrOperand::Const(0) => {
                let m = clear.unwrap_or(if fl == FlagReg::CF { M::Clc } else { M::Test });
                let i = if m == M::Clc {
                    Inst::op0(M::Clc)
                } else {
                    Inst::op2(M::Test, X::r64(Reg::Rsp), X::r64(Reg::Rsp))
                };
                self.emit(i, None)?;
                Ok(None)
            }
            IrOperand::Const(_) => {
                if fl != FlagReg::CF {
                    return Err(Error::Internal("carry-in 1 into OF".into()));
                }
                self.emit(Inst::op0(M::Stc), None)?;
                Ok(None)
            }
            IrOperand::Value(v) => {
                if self.st.v_flag[v.index()] == Some(fl) {
                    return Ok(Some(v));
                }
                if fl != FlagReg::CF {
                    return Err(Error::Internal("carry-in into OF from elsewhere".into()));
                }
                let x = self.operand(c, true, false)?;
                self.emit(Inst::op2(M::Bt, x, X::Imm(0)), None)?;
                // bt put v into CF (its other location stays valid).
                self.bind_flag(v, FlagReg::CF);
                Ok(Some(v))
            }
        }
    }

    /// Truncates a result register to `bits` (< 64).
    fn truncate(&mut self, r: Reg, bits: u8) -> Result<()> {
        match bits {
            8 => self.emit(Inst::op2(M::Movzx, X::r32(r), X::r8(r)), None),
            32 => self.emit(Inst::op2(M::Mov, X::r32(r), X::r32(r)), None),
            b if b < 32 => self.emit(
                Inst::op2(M::And, X::r64(r), X::Imm(((1u64 << b) - 1) as i64)),
                None,
            ),
            b => {
                self.emit(Inst::op2(M::Shl, X::r64(r), X::Imm(64 - b as i64)), None)?;
                self.emit(Inst::op2(M::Shr, X::r64(r), X::Imm(64 - b as i64)), None)
            }
        }
    }

    /// Binds the one result of `d` to `r`, truncating when the bound analysis cannot
    /// show the 64-bit result fits the result type.
    fn finish_result(&mut self, d: &InstData, r: Reg) -> Result<()> {
        if self.bounds.needs_truncation(self.f, d) {
            self.truncate(r, self.f.ty(d.results[0]).bits)?;
        }
        self.bind(d.results[0], r);
        Ok(())
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

    fn kill(&mut self, v: u32) {
        let vi = v as usize;
        if let Some(r) = self.st.v_reg[vi].take() {
            if self.st.owner[r.index()] == Owner::Val(v) {
                self.st.owner[r.index()] = Owner::Free;
            }
        }
        match self.st.v_mem[vi].take() {
            Some(MemLoc::Slot(s)) => self.st.slots_free.push(s),
            Some(MemLoc::Arg { abi, .. }) => {
                self.st.abi_mem_live[abi as usize] -= 1;
                self.maybe_release_abi(abi);
            }
            None => {}
        }
        if let Some(fl) = self.st.v_flag[vi].take() {
            if self.st.flag[fl as usize] == Some(v) {
                self.st.flag[fl as usize] = None;
            }
        }
    }

    fn maybe_release_abi(&mut self, k: u8) {
        let ki = k as usize;
        if self.st.abi_ops_left[ki] == 0 && self.st.abi_mem_live[ki] == 0 {
            if let Some(r) = self.st.abi_reg[ki].take() {
                if self.st.owner[r.index()] == Owner::Abi(k) {
                    self.st.owner[r.index()] = Owner::Free;
                }
            }
            if let Some(s) = self.st.abi_slot[ki].take() {
                self.st.slots_free.push(s);
            }
        }
    }

    /// Before writing output `ret`: every live value still only in an input array that
    /// may alias it moves to a register (or, by eviction, a stack slot).
    fn protect_aliased_inputs(&mut self, ret: usize) -> Result<()> {
        for p in 0..self.param_abi.len() {
            let k = self.param_abi[p];
            if !self.opts.aliasing.may_alias(ret, p) || self.st.abi_mem_live[k as usize] == 0 {
                continue;
            }
            for v in 0..self.f.values.len() {
                if let Some(MemLoc::Arg { abi, disp }) = self.st.v_mem[v] {
                    if abi != k {
                        continue;
                    }
                    if self.st.v_reg[v].is_none() {
                        let m = self.mem_operand(MemLoc::Arg { abi, disp }, Size::B64)?;
                        let r = self.alloc_reg()?;
                        self.st.body.push(Inst::op2(M::Mov, X::r64(r), X::Mem(m)));
                        self.bind(Value(v as u32), r);
                        self.unpin(r);
                        if let Some(b) = m.base {
                            self.unpin(b);
                        }
                    }
                    self.st.v_mem[v] = None;
                    self.st.abi_mem_live[k as usize] -= 1;
                }
            }
            self.maybe_release_abi(k);
        }
        Ok(())
    }

    // ---------------------------------------------------------------------------------
    // prologue and epilogue

    fn assemble(&mut self) {
        let st = &mut self.st;
        let mut pushes: Vec<Reg> = Reg::CALLEE_SAVED
            .iter()
            .copied()
            .filter(|r| st.used_callee_saved & (1 << r.index()) != 0)
            .collect();
        if self.opts.frame_pointer == FramePointer::Save {
            pushes.retain(|&r| r != Reg::Rbp);
        }
        let slots_bytes = 8 * st.nslots as i32;
        let use_red_zone = self.opts.red_zone && slots_bytes <= 128;
        let frame = if use_red_zone { 0 } else { slots_bytes };
        if self.opts.frame_pointer == FramePointer::Save {
            st.out.push(Inst::op1(M::Push, X::r64(Reg::Rbp)));
            st.out
                .push(Inst::op2(M::Mov, X::r64(Reg::Rbp), X::r64(Reg::Rsp)));
        }
        for &r in &pushes {
            st.out.push(Inst::op1(M::Push, X::r64(r)));
        }
        if frame > 0 {
            st.out
                .push(Inst::op2(M::Sub, X::r64(Reg::Rsp), X::Imm(frame as i64)));
        }
        // Slots are [rsp + 8k] below a lowered rsp, or [rsp - 8n + 8k] in the red zone.
        let shift = if use_red_zone { -slots_bytes } else { 0 };
        for i in &st.body {
            let mut i = *i;
            if shift != 0 {
                for o in i.operands_mut() {
                    if let X::Mem(m) = o {
                        if m.base == Some(Reg::Rsp) {
                            m.disp += shift;
                        }
                    }
                }
            }
            st.out.push(i);
        }
        if frame > 0 {
            st.out
                .push(Inst::op2(M::Add, X::r64(Reg::Rsp), X::Imm(frame as i64)));
        }
        for &r in pushes.iter().rev() {
            st.out.push(Inst::op1(M::Pop, X::r64(r)));
        }
        if self.opts.frame_pointer == FramePointer::Save {
            st.out.push(Inst::op1(M::Pop, X::r64(Reg::Rbp)));
        }
        st.out.push(Inst::op0(M::Ret));
    }
}

/// Does `c` (a 64-bit pattern) fit a sign-extended imm32?
pub(crate) fn fits_imm32(c: u64) -> bool {
    (c as i64) >= i32::MIN as i64 && (c as i64) <= i32::MAX as i64
}

// The templates: a child module, so they can use the private helpers above.
mod select;
