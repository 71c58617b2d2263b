//! Operands and results of the current operation: a value or literal as a register,
//! memory or immediate operand (reloading what was spilled, materializing what is in a
//! flag), the destination register of a two-address instruction, results truncated to
//! their type, and input elements moved out of the way before an output that may alias
//! them is written.
//!
//! It must never write a flag except through `emit`, and never read an input element
//! from memory after an output that may alias it has been written.

use cryptopt_ir::{InstData, Operand as IrOperand, Value};
use cryptopt_x86::{Inst, Mem, Mnemonic as M, Operand as X, Reg, Size};

use super::{fits_imm32, Generator, MemLoc, Owner};
use crate::candidate::DecisionSlot;
use crate::error::{Error, Result};

impl Generator<'_> {
    /// Occurrences of `v` among the current instruction's operands.
    pub(super) fn occurrences(&self, v: u32) -> u32 {
        self.f.insts[self.st.cur.inst.index()]
            .args
            .iter()
            .filter(|a| **a == IrOperand::Value(Value(v)))
            .count() as u32
    }

    pub(super) fn mem_operand(&mut self, m: MemLoc, size: Size) -> Result<Mem> {
        Ok(match m {
            MemLoc::Slot(s) => Self::slot_mem(s, size),
            MemLoc::Arg { abi, disp } => Mem::at(self.abi_ptr(abi)?, disp, size),
        })
    }

    /// A value or literal as an x86 operand. `mem`: a memory operand is acceptable;
    /// `imm`: a sign-extended imm32 is acceptable. Registers come back pinned.
    pub(super) fn operand(&mut self, o: IrOperand, mem: bool, imm: bool) -> Result<X> {
        match o {
            IrOperand::Const(c) => {
                let c = c as u64;
                if imm && fits_imm32(c) {
                    return Ok(X::Imm(c as i64));
                }
                if let (true, Some(s), None) = (mem, self.const_home(c), self.holding_const(c)) {
                    return Ok(X::Mem(Self::slot_mem(s, Size::B64)));
                }
                Ok(X::r64(self.const_reg(c)?))
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
    pub(super) fn reg_operand(&mut self, o: IrOperand) -> Result<Reg> {
        match self.operand(o, false, false)? {
            X::Reg(r, _) => Ok(r),
            _ => Err(Error::Internal("expected a register".into())),
        }
    }

    /// A register holding literal `c` for the current operation to *read* (pinned): one
    /// that still holds it from an earlier operation, else a new one, which keeps it
    /// for later ones until its register is needed (evicting it costs nothing). The
    /// caller must never write it.
    pub(super) fn const_reg(&mut self, c: u64) -> Result<Reg> {
        if let Some(r) = self.holding_const(c) {
            self.pin(r);
            return Ok(r);
        }
        let r = self.alloc_reg()?;
        self.load_const(r, c);
        self.st.owner[r.index()] = Owner::Const(c);
        Ok(r)
    }

    /// `c` into `r`: from the literal's stack slot where it has one, else as an
    /// immediate, and then, the first time a literal read often (`Generator::homed`) is
    /// loaded, also stored to a slot of its own for the rest of the function.
    pub(super) fn load_const(&mut self, r: Reg, c: u64) {
        if let Some(s) = self.const_home(c) {
            let m = X::Mem(Self::slot_mem(s, Size::B64));
            self.st.body.push(Inst::op2(M::Mov, X::r64(r), m));
            return;
        }
        let i = if c <= u32::MAX as u64 {
            Inst::op2(M::Mov, X::r32(r), X::Imm(c as i64))
        } else {
            Inst::op2(M::Mov, X::r64(r), X::Imm(c as i64))
        };
        self.st.body.push(i);
        if self.homed.contains(&c) {
            let s = self.alloc_slot();
            let m = X::Mem(Self::slot_mem(s, Size::B64));
            self.st.body.push(Inst::op2(M::Mov, m, X::r64(r)));
            self.st.const_home.push((c, s));
        }
    }

    /// The stack slot holding literal `c`, if it has one yet.
    fn const_home(&self, c: u64) -> Option<u32> {
        self.st.const_home.iter().find(|h| h.0 == c).map(|h| h.1)
    }

    /// Does value `v` die at the current instruction (no use after it, one use in it)?
    pub(super) fn dies_here(&self, o: IrOperand) -> bool {
        match o {
            IrOperand::Value(v) => self.st.left[v.index()] == 1 && self.occurrences(v.0) == 1,
            IrOperand::Const(_) => false,
        }
    }

    /// The register of `o` if `o` dies at this instruction, taken (pinned, Temp).
    pub(super) fn reuse_dying(&mut self, o: IrOperand) -> Option<Reg> {
        let IrOperand::Value(v) = o else { return None };
        let r = self.st.v_reg[v.index()]?;
        if !self.dies_here(o) {
            return None;
        }
        self.st.v_reg[v.index()] = None;
        self.st.owner[r.index()] = Owner::Temp;
        self.pin(r);
        Some(r)
    }

    /// A destination register initialised with `src`: `src`'s own register if `src` dies
    /// here, else a fresh register and a `mov`. Comes back pinned, owned as Temp.
    pub(super) fn dest_from(&mut self, src: IrOperand) -> Result<Reg> {
        if let Some(r) = self.reuse_dying(src) {
            return Ok(r);
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
    pub(super) fn fresh(&mut self) -> Result<Reg> {
        self.alloc_reg()
    }

    /// Truncates a result register to `bits` (< 64).
    pub(super) fn truncate(&mut self, r: Reg, bits: u8) -> Result<()> {
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
    pub(super) fn finish_result(&mut self, d: &InstData, r: Reg) -> Result<()> {
        if self.bounds.needs_truncation(self.f, d) {
            self.truncate(r, self.f.ty(d.results[0]).bits)?;
        }
        self.bind(d.results[0], r);
        Ok(())
    }

    /// Before writing output `ret`: every live value still only in an input array that
    /// may alias it moves to a register (or, by eviction, a stack slot).
    pub(super) fn protect_aliased_inputs(&mut self, ret: usize) -> Result<()> {
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
}
