//! Templates for the bitwise and logical operations (and/or/xor, masks `x & (2^k - 1)`,
//! not, logical not), conditional moves and truncating casts; see the table in `select`.
//!
//! They must never branch: a conditional is always a `cmov` on a flag or on `test`.

use cryptopt_ir::{InstData, Op, Operand as IrOperand};
use cryptopt_x86::{Inst, Mnemonic as M, Operand as X};

use crate::candidate::DecisionSlot;
use crate::error::Result;
use crate::gen::flags::FlagReg;
use crate::gen::Generator;

impl Generator<'_> {
    pub(super) fn t_bitwise(&mut self, d: &InstData) -> Result<()> {
        let args = &d.args;
        let mn = match d.op {
            Op::And => M::And,
            Op::Or => M::Or,
            _ => M::Xor,
        };
        // `x & (2^k - 1)`: masks have cheaper forms.
        if d.op == Op::And && args.len() == 2 {
            if let (IrOperand::Value(_), IrOperand::Const(m)) = (args[0], args[1]) {
                let m = m as u64;
                if m != 0 && (m & (m + 1)) == 0 && m != u64::MAX {
                    let k = m.count_ones();
                    return self.t_mask(d, args[0], k);
                }
            }
        }
        let first = (0..args.len())
            .find(|&i| args[i].value().is_some())
            .unwrap_or(0);
        let dst = self.dest_from(args[first])?;
        for (i, &a) in args.iter().enumerate() {
            if i == first {
                continue;
            }
            let x = self.operand(a, true, true)?;
            self.emit(Inst::op2(mn, X::r64(dst), x), None)?;
            self.release(x, dst);
        }
        self.finish_result(d, dst)
    }

    /// `x & (2^k - 1)`.
    fn t_mask(&mut self, d: &InstData, x: IrOperand, k: u32) -> Result<()> {
        #[derive(Clone, Copy)]
        enum F {
            AndImm,
            AndReg,
            Movzx8,
            Mov32,
            ShlShr,
            Bzhi,
        }
        let mut options: [Option<F>; 4] = [None; 4];
        let mut n = 0;
        let mut add = |f: F| {
            options[n] = Some(f);
            n += 1;
        };
        if k < 32 {
            add(F::AndImm);
        } else {
            add(F::AndReg);
        }
        match k {
            8 => add(F::Movzx8),
            32 => add(F::Mov32),
            _ => {}
        }
        add(F::ShlShr);
        if self.allows(M::Bzhi) {
            add(F::Bzhi);
        }
        let pick = options[self.decide(DecisionSlot::Flavor, n)].expect("filled");
        let dst = match pick {
            F::AndImm => {
                let dst = self.dest_from(x)?;
                self.emit(
                    Inst::op2(M::And, X::r64(dst), X::Imm(((1u64 << k) - 1) as i64)),
                    None,
                )?;
                dst
            }
            F::AndReg => {
                let dst = self.dest_from(x)?;
                let t = self.operand(IrOperand::Const(((1u128) << k) - 1), false, false)?;
                self.emit(Inst::op2(M::And, X::r64(dst), t), None)?;
                dst
            }
            F::Movzx8 | F::Mov32 => {
                let rx = self.reg_operand(x)?;
                let dst = self.result_reg(&[x])?;
                let i = match pick {
                    F::Movzx8 => Inst::op2(M::Movzx, X::r32(dst), X::r8(rx)),
                    _ => Inst::op2(M::Mov, X::r32(dst), X::r32(rx)),
                };
                self.emit(i, None)?;
                dst
            }
            F::ShlShr => {
                let dst = self.dest_from(x)?;
                self.emit(Inst::op2(M::Shl, X::r64(dst), X::Imm(64 - k as i64)), None)?;
                self.emit(Inst::op2(M::Shr, X::r64(dst), X::Imm(64 - k as i64)), None)?;
                dst
            }
            F::Bzhi => {
                let src = self.operand(x, true, false)?;
                let cnt = self.const_reg(k as u64)?;
                let dst = self.result_reg(&[x])?;
                self.emit(Inst::op3(M::Bzhi, X::r64(dst), src, X::r64(cnt)), None)?;
                dst
            }
        };
        self.finish_result(d, dst)
    }

    pub(super) fn t_not(&mut self, d: &InstData) -> Result<()> {
        let dst = self.dest_from(d.args[0])?;
        self.emit(Inst::op1(M::Not, X::r64(dst)), None)?;
        self.finish_result(d, dst)
    }

    pub(super) fn t_lnot(&mut self, d: &InstData) -> Result<()> {
        let dst = self.fresh()?;
        let rx = self.reg_operand(d.args[0])?;
        self.emit(Inst::op2(M::Test, X::r64(rx), X::r64(rx)), None)?;
        self.emit(Inst::op1(M::Setz, X::r8(dst)), None)?;
        self.emit(Inst::op2(M::Movzx, X::r32(dst), X::r8(dst)), None)?;
        self.bind(d.results[0], dst);
        Ok(())
    }

    pub(super) fn t_cmov(&mut self, d: &InstData) -> Result<()> {
        let (c, z, nz) = (d.args[0], d.args[1], d.args[2]);
        // Start from z and move nz in when c is nonzero, or the other way round.
        let (first, second, when_nonzero) = if self.decide(DecisionSlot::Swap, 2) == 0 {
            (z, nz, true)
        } else {
            (nz, z, false)
        };
        let dst = self.dest_from(first)?;
        let src = self.operand(second, true, false)?;
        let c_flag = c.value().and_then(|v| {
            let vi = v.index();
            self.st.v_flag[vi]
        });
        let mn = match (c_flag, when_nonzero) {
            (Some(FlagReg::CF), true) => M::Cmovc,
            (Some(FlagReg::CF), false) => M::Cmovnc,
            (Some(FlagReg::OF), true) => M::Cmovo,
            (Some(FlagReg::OF), false) => M::Cmovno,
            (None, nonzero) => {
                let rc = self.reg_operand(c)?;
                self.emit(Inst::op2(M::Test, X::r64(rc), X::r64(rc)), None)?;
                if nonzero {
                    M::Cmovnz
                } else {
                    M::Cmovz
                }
            }
        };
        self.emit(Inst::op2(mn, X::r64(dst), src), None)?;
        self.finish_result(d, dst)
    }

    pub(super) fn t_cast(&mut self, d: &InstData) -> Result<()> {
        let x = d.args[0];
        let bits = self.f.ty(d.results[0]).bits;
        if bits >= 64 {
            let dst = self.dest_from(x)?;
            self.bind(d.results[0], dst);
            return Ok(());
        }
        let dst = match bits {
            8 if self.decide(DecisionSlot::Flavor, 2) == 0 => {
                let rx = self.reg_operand(x)?;
                let dst = self.result_reg(&[x])?;
                self.emit(Inst::op2(M::Movzx, X::r32(dst), X::r8(rx)), None)?;
                dst
            }
            32 => {
                let rx = self.reg_operand(x)?;
                let dst = self.result_reg(&[x])?;
                self.emit(Inst::op2(M::Mov, X::r32(dst), X::r32(rx)), None)?;
                dst
            }
            b => {
                let dst = self.dest_from(x)?;
                if b < 32 {
                    self.emit(
                        Inst::op2(M::And, X::r64(dst), X::Imm(((1u64 << b) - 1) as i64)),
                        None,
                    )?;
                } else {
                    self.truncate(dst, b)?;
                }
                dst
            }
        };
        self.bind(d.results[0], dst);
        Ok(())
    }
}
