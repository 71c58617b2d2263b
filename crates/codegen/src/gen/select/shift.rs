//! Templates for shifts by constants: `shl`/`shr` (or `shlx`/`shrx`, or `lea` for small
//! left shifts), the lowered dialect's `sar`, `sext` and `shrd`; see the table in
//! `select`.
//!
//! They must never shift by a variable amount (the IR's shift amounts are constants;
//! anything else is refused as unsupported).

use cryptopt_ir::{InstData, Op};
use cryptopt_x86::{Inst, Mnemonic as M, Operand as X};

use crate::candidate::DecisionSlot;
use crate::error::{Error, Result};
use crate::gen::Generator;

impl Generator<'_> {
    pub(super) fn t_shift(&mut self, d: &InstData) -> Result<()> {
        let x = d.args[0];
        let n = d.args[1]
            .constant()
            .ok_or_else(|| Error::Unsupported("variable shift amount".into()))?;
        let left = d.op == Op::Shl;
        if n >= 64 {
            let dst = self.fresh()?;
            self.load_const(dst, 0);
            return self.finish_result(d, dst);
        }
        #[derive(Clone, Copy)]
        enum F {
            Imm,
            Bmi2,
            Lea,
        }
        let mut options = [F::Imm; 3];
        let mut k = 1;
        if self.allows(M::Shlx) {
            options[k] = F::Bmi2;
            k += 1;
        }
        if left && n <= 3 {
            options[k] = F::Lea;
            k += 1;
        }
        let dst = match options[self.decide(DecisionSlot::Flavor, k)] {
            F::Imm => {
                let dst = self.dest_from(x)?;
                if n > 0 {
                    let mn = if left { M::Shl } else { M::Shr };
                    self.emit(Inst::op2(mn, X::r64(dst), X::Imm(n as i64)), None)?;
                }
                dst
            }
            F::Bmi2 => {
                let src = self.operand(x, true, false)?;
                let cnt = self.const_reg(n as u64)?;
                let dst = self.result_reg(&[x])?;
                let mn = if left { M::Shlx } else { M::Shrx };
                self.emit(Inst::op3(mn, X::r64(dst), src, X::r64(cnt)), None)?;
                dst
            }
            F::Lea => self.lea_scaled(x, 1 << n, false)?,
        };
        self.finish_result(d, dst)
    }

    pub(super) fn t_sar(&mut self, d: &InstData, from: u8) -> Result<()> {
        let n = d.args[1]
            .constant()
            .ok_or_else(|| Error::Unsupported("variable shift amount".into()))?;
        let dst = self.dest_from(d.args[0])?;
        let up = 64 - from as u32;
        if up > 0 {
            self.emit(Inst::op2(M::Shl, X::r64(dst), X::Imm(up as i64)), None)?;
        }
        let total = (up as u128 + n).min(63);
        if total > 0 {
            self.emit(Inst::op2(M::Sar, X::r64(dst), X::Imm(total as i64)), None)?;
        }
        self.finish_result(d, dst)
    }

    pub(super) fn t_sext(&mut self, d: &InstData, from: u8) -> Result<()> {
        let dst = self.dest_from(d.args[0])?;
        let up = 64 - from as i64;
        if up > 0 {
            self.emit(Inst::op2(M::Shl, X::r64(dst), X::Imm(up)), None)?;
            self.emit(Inst::op2(M::Sar, X::r64(dst), X::Imm(up)), None)?;
        }
        self.finish_result(d, dst)
    }

    pub(super) fn t_shrd(&mut self, d: &InstData, n: u8) -> Result<()> {
        let (lo, hi) = (d.args[0], d.args[1]);
        // `shrd` (slow on AMD: several µops), or the same bits from plain shifts: `shr`,
        // `shl` and `or` on copies, or `shrx`/`shlx`, which leave their sources alone
        // (no copy of a value still live, two literal counts in registers instead).
        let flavors = if lo != hi && self.allows(M::Shlx) {
            3
        } else {
            2
        };
        let dst = match self.decide(DecisionSlot::Flavor, flavors) {
            0 => {
                let dst = self.dest_from(lo)?;
                let rh = self.reg_operand(hi)?;
                self.emit(
                    Inst::op3(M::Shrd, X::r64(dst), X::r64(rh), X::Imm(n as i64)),
                    None,
                )?;
                dst
            }
            1 => {
                let dst = self.dest_from(lo)?;
                // hi's own register when hi dies here, else a copy.
                let t = match self.reuse_dying(hi) {
                    Some(t) => t,
                    None => {
                        let src = self.operand(hi, true, false)?;
                        let t = self.fresh()?;
                        self.emit(Inst::op2(M::Mov, X::r64(t), src), None)?;
                        t
                    }
                };
                self.emit(Inst::op2(M::Shr, X::r64(dst), X::Imm(n as i64)), None)?;
                self.emit(Inst::op2(M::Shl, X::r64(t), X::Imm(64 - n as i64)), None)?;
                self.emit(Inst::op2(M::Or, X::r64(dst), X::r64(t)), None)?;
                dst
            }
            _ => {
                let hs = self.operand(hi, true, false)?;
                let up = self.const_reg(64 - n as u64)?;
                let t = self.result_reg(&[hi])?;
                self.emit(Inst::op3(M::Shlx, X::r64(t), hs, X::r64(up)), None)?;
                self.release(hs, t);
                let ls = self.operand(lo, true, false)?;
                let down = self.const_reg(n as u64)?;
                let dst = self.result_reg(&[lo])?;
                self.emit(Inst::op3(M::Shrx, X::r64(dst), ls, X::r64(down)), None)?;
                self.emit(Inst::op2(M::Or, X::r64(dst), X::r64(t)), None)?;
                dst
            }
        };
        self.finish_result(d, dst)
    }
}
