//! Instruction selection: one template family per lowered operation, each with its
//! named alternatives. A template reads its decisions with `decide(slot, n)`; only
//! decisions with more than one applicable alternative are recorded as hot.
//!
//! | operation          | alternatives (Flavor)                          | other decisions          |
//! |--------------------|------------------------------------------------|--------------------------|
//! | addcarry.64, c = 0 | `add` · `clc/test; adcx` · `test; adox` (ADX)  | Swap (dest), Clear       |
//! | addcarry.64, c set | `adc` · `adcx` (CF); `adox` when c is in OF (ADX) | Swap                  |
//! | subborrow.64       | `sub` / `sbb` (`stc`/`bt` to load the borrow)   |                          |
//! | mulx.64            | `mulx`; `mul` (rax × r/m → rdx:rax) on the x86-64 target | Swap (which factor → rdx, or rax), Mem |
//! | add (n-ary)        | `add` chain, a carry read with `adc`/`adcx` (CF) or `adox` (OF) · `lea` (two operands) | Swap (dest) |
//! | mul by constant    | `imul r, r/m, imm` · `mov; imul` · `mulx` (BMI2) · `lea; shl` or `lea; lea` (c = m·n, `lower::shift_add_factors`) · `lea; lea [x + k·t]` (c = 1 + k·m: 19); a power of two: `shl` · `lea` only | |
//! | mul                | `imul` · `mulx` (BMI2)                         |                          |
//! | and with a mask    | `and imm` · `movzx` (0xff) · `mov r32` (2^32-1) · `shl; shr` · `bzhi` (BMI2) | |
//! | shr / shl          | `shr`/`shl imm` · `shrx`/`shlx` (BMI2) · `lea` (shl ≤ 3) |                 |
//! | shrd               | `shrd` · `shr; shl; or`                        |                          |
//! | cmovznz            | `cmovc`/`cmovo` on a live flag, else `test; cmovnz` | Swap (z or nz first) |
//! | cast (truncation)  | `movzx` · `and` · `mov r32` · `shl; shr`       |                          |
//!
//! The alternatives marked BMI2 or ADX are offered only where the target
//! ([`crate::Target`]) allows the instruction (asked through `allows`, one home); the
//! others are baseline x86-64.
//!
//! A template first gets its operands (only flag-neutral moves), then puts a carry-in
//! into its flag, then emits the flag-consuming instruction, so a carry is never lost
//! between being placed and being read.
//!
//! The templates are grouped by operation family: `memory` (load, store), `carry`
//! (mulx, addcarry, subborrow), `arith` (add, sub, mul), `logic` (and/or/xor, masks,
//! not, lnot, cmovznz, cast) and `shift` (shl, shr, sar, sext, shrd). This module
//! dispatches on the operation and holds what the families share.
//!
//! A template must never emit a branch or a memory access whose address depends on data,
//! and must never write a flag except through `emit`.

mod arith;
mod carry;
mod logic;
mod memory;
mod shift;

use cryptopt_ir::{InstData, Op, Operand as IrOperand};
use cryptopt_x86::{Inst, Mem, Mnemonic as M, Operand as X, Reg};

use super::Generator;
use crate::error::{Error, Result};

impl Generator<'_> {
    pub(super) fn select(&mut self, d: &InstData) -> Result<()> {
        match d.op {
            Op::Load { param, index } => self.t_load(d, param, index),
            Op::Store { ret, index } => self.t_store(d, ret, index),
            Op::Mulx { size: 64 } if self.allows(M::Mulx) => self.t_mulx(d),
            Op::Mulx { size: 64 } => self.t_mul_wide(d),
            Op::AddCarry { size: 64 } => self.t_addcarry(d),
            Op::SubBorrow { size: 64 } => self.t_subborrow(d),
            Op::AddCarry { size } | Op::SubBorrow { size } => self.t_carry_narrow(d, size),
            Op::Add => self.t_add(d),
            Op::Sub => self.t_sub(d),
            Op::Mul => self.t_mul(d),
            Op::And | Op::Or | Op::Xor => self.t_bitwise(d),
            Op::Not => self.t_not(d),
            Op::LNot => self.t_lnot(d),
            Op::Shl | Op::Shr => self.t_shift(d),
            Op::Sar { from } => self.t_sar(d, from),
            Op::Sext { from } => self.t_sext(d, from),
            Op::Shrd { n } => self.t_shrd(d, n),
            Op::Cmovznz => self.t_cmov(d),
            Op::Cast => self.t_cast(d),
            Op::Mulx { size } => Err(Error::Unsupported(format!("mulx of size {size}"))),
        }
    }

    /// Two commuting operands in the order the Swap decision says (which one becomes the
    /// destination, or goes into rdx / rax).
    fn swapped(&mut self, a: IrOperand, b: IrOperand) -> (IrOperand, IrOperand) {
        if self.decide(crate::candidate::DecisionSlot::Swap, 2) == 0 {
            (a, b)
        } else {
            (b, a)
        }
    }

    /// Without `mulx`, is `x` a value in rax or rdx, where `mul` leaves its product and
    /// where the next `mul` will not let it stay? Sums then take such an operand as the
    /// source rather than the destination by default (decision 0), so that the product
    /// dies there instead of the sum being moved out of rax/rdx; the other choice stays
    /// open to the search.
    fn in_mul_regs(&self, x: IrOperand) -> bool {
        self.mul_only
            && x.value()
                .is_some_and(|v| matches!(self.st.v_reg[v.index()], Some(Reg::Rax | Reg::Rdx)))
    }

    /// May the target's code use `mn` ([`crate::Target::allows`], the one home)?
    fn allows(&self, mn: M) -> bool {
        self.opts.target.allows(mn)
    }

    /// `lea dst, [x·scale]` or, `with_base`, `[x + x·scale]`: x times 1, 2, 4, 8 (or 3,
    /// 5, 9) without touching the flags. Returns `dst`.
    fn lea_scaled(&mut self, x: IrOperand, scale: u8, with_base: bool) -> Result<Reg> {
        let rx = self.reg_operand(x)?;
        let m = times(rx, scale, with_base);
        let dst = self.result_reg(&[x])?;
        self.emit(Inst::op2(M::Lea, X::r64(dst), X::Mem(m)), None)?;
        Ok(dst)
    }

    /// A result register: the register of an operand that dies here if there is one
    /// among `reuse` (and is not pinned by something else), else a fresh one.
    fn result_reg(&mut self, reuse: &[IrOperand]) -> Result<Reg> {
        for &o in reuse {
            if let Some(r) = self.reuse_dying(o) {
                return Ok(r);
            }
        }
        self.fresh()
    }

    /// A result register for `mulx`: a dying register of `y` (the factor not in rdx),
    /// else a free register, and rdx (`x`, dying) only when none is free: a product
    /// half left in rdx must move out again before the next `mulx`.
    fn mulx_result_reg(&mut self, y: IrOperand, x: IrOperand) -> Result<Reg> {
        if let Some(r) = self.reuse_dying(y) {
            return Ok(r);
        }
        if let Some(r) = self.take_free() {
            return Ok(r);
        }
        self.result_reg(&[x])
    }
}

/// The address `[r·scale]` or, `with_base`, `[r + r·scale]`: what `lea` reads to make r
/// times 1, 2, 4, 8 (or 2, 3, 5, 9).
fn times(r: Reg, scale: u8, with_base: bool) -> Mem {
    Mem {
        base: with_base.then_some(r),
        index: Some(r),
        scale,
        disp: 0,
        ..Mem::ZERO
    }
}
