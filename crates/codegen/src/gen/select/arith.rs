//! Templates for n-ary addition (an `add`/`adc` chain or `lea`), subtraction and
//! multiplication (`imul`, `mulx`, and by a constant also `shl` and `lea`); see the table
//! in `select`.
//!
//! They must never clobber a live flag unsaved (every instruction goes through `emit`);
//! `lea` is chosen only where no operand waits in a flag.

use cryptopt_ir::lower::{lea_base_factors, shift_add_factors};
use cryptopt_ir::{InstData, Operand as IrOperand};
use cryptopt_x86::{Inst, Mem, Mnemonic as M, Operand as X};

use crate::candidate::DecisionSlot;
use crate::error::Result;
use crate::gen::flags::FlagReg;
use crate::gen::select::times;
use crate::gen::{fits_imm32, Generator};

impl Generator<'_> {
    pub(super) fn t_add(&mut self, d: &InstData) -> Result<()> {
        let args = &d.args;
        // Two operands, no carry involved: `lea` leaves the flags alone.
        let flag_free =
            |g: &Self, o: IrOperand| o.value().is_none_or(|v| g.st.v_flag[v.index()].is_none());
        if args.len() == 2
            && flag_free(self, args[0])
            && flag_free(self, args[1])
            && self.decide(DecisionSlot::Flavor, 2) == 1
        {
            let (x, y) = match (args[0], args[1]) {
                (IrOperand::Const(_), v) => (v, args[0]),
                _ => (args[0], args[1]),
            };
            if let IrOperand::Const(c) = x {
                // Both literals cannot happen after simplification; be safe anyway.
                let r = self.fresh()?;
                self.load_const(r, (c as u64).wrapping_add(y.constant().unwrap_or(0) as u64));
                return self.finish_result(d, r);
            }
            let rx = self.reg_operand(x)?;
            let m = match y {
                IrOperand::Const(c) if fits_imm32(c as u64) => Mem {
                    base: Some(rx),
                    index: None,
                    scale: 1,
                    disp: c as u64 as i64 as i32,
                    ..Mem::ZERO
                },
                _ => Mem {
                    base: Some(rx),
                    index: Some(self.reg_operand(y)?),
                    scale: 1,
                    disp: 0,
                    ..Mem::ZERO
                },
            };
            let dst = self.result_reg(&[x, y])?;
            self.emit(Inst::op2(M::Lea, X::r64(dst), X::Mem(m)), None)?;
            return self.finish_result(d, dst);
        }
        // Destination: one of the operands that is not only in a flag (no allocation:
        // this runs for every sum of every candidate).
        let eligible =
            |g: &Self, i: usize| args[i].value().is_some() && g.flag_only(args[i]).is_none();
        let n = (0..args.len()).filter(|&i| eligible(self, i)).count();
        let first = if n == 0 {
            0
        } else {
            let k = self.decide(DecisionSlot::Swap, n);
            // Operands waiting in rax/rdx last ([`Self::in_mul_regs`]; never with mulx).
            let g: &Self = self;
            let prefer = |i: &usize| eligible(g, *i) && !g.in_mul_regs(args[*i]);
            let later = |i: &usize| g.mul_only && eligible(g, *i) && g.in_mul_regs(args[*i]);
            (0..args.len())
                .filter(prefer)
                .chain((0..args.len()).filter(later))
                .nth(k)
                .expect("k < n")
        };
        let dst = self.dest_from(args[first])?;
        // Every partial sum fits when the whole does: then each instruction's carry out
        // is 0, and the flag it leaves is known zero.
        let fits = self.bounds.sum_fits(d);
        // A carry waiting in a flag is added first, together with another addend:
        // `adc dst, x` (or `adc dst, 0` without a partner), `adcx dst, x` when OF holds a
        // live value that `adc` would clobber, `adox dst, x` for a carry in OF (with a
        // zeroed register for x when there is no partner). `done` is scratch kept in the
        // state.
        let mut done = std::mem::take(&mut self.st.sum_done);
        done.clear();
        done.resize(args.len(), false);
        done[first] = true;
        for fl in [FlagReg::CF, FlagReg::OF] {
            let Some(i) =
                (0..args.len()).find(|&i| !done[i] && self.flag_only(args[i]) == Some(fl))
            else {
                continue;
            };
            // adcx/adox take a register or memory source (a literal partner is loaded).
            let partner = (0..args.len()).find(|&j| !done[j] && self.flag_only(args[j]).is_none());
            let v = args[i].value().expect("a value");
            let other_live = self.st.flag[FlagReg::OF as usize].is_some();
            let mn = match (fl, partner) {
                (FlagReg::OF, _) => M::Adox,
                (FlagReg::CF, Some(_)) if other_live => M::Adcx,
                (FlagReg::CF, _) => M::Adc,
            };
            done[i] = true;
            let x = match partner {
                Some(j) => {
                    done[j] = true;
                    self.operand(args[j], true, mn == M::Adc)?
                }
                None if mn == M::Adc => X::Imm(0),
                // adox has no immediate form: a zeroed register (`mov`, flag-neutral).
                None => self.operand(IrOperand::Const(0), false, false)?,
            };
            self.emit(Inst::op2(mn, X::r64(dst), x), Some(v))?;
            if fits {
                self.carry_out_zero(mn);
            }
            self.release(x, dst);
        }
        for (i, &a) in args.iter().enumerate() {
            if done[i] {
                continue;
            }
            let x = self.operand(a, true, true)?;
            self.emit(Inst::op2(M::Add, X::r64(dst), x), None)?;
            if fits {
                self.carry_out_zero(M::Add);
            }
            self.release(x, dst);
        }
        self.st.sum_done = done;
        self.finish_result(d, dst)
    }

    pub(super) fn t_sub(&mut self, d: &InstData) -> Result<()> {
        let dst = self.dest_from(d.args[0])?;
        let src = self.operand(d.args[1], true, true)?;
        self.emit(Inst::op2(M::Sub, X::r64(dst), src), None)?;
        self.finish_result(d, dst)
    }

    pub(super) fn t_mul(&mut self, d: &InstData) -> Result<()> {
        let (a, b) = (d.args[0], d.args[1]);
        let (x, c) = match (a, b) {
            (IrOperand::Value(_), IrOperand::Const(c)) => (a, Some(c as u64)),
            (IrOperand::Const(c), IrOperand::Value(_)) => (b, Some(c as u64)),
            _ => (a, None),
        };
        let Some(c) = c else {
            // value × value: imul or mulx (low half).
            let n = if self.allows(M::Mulx) { 2 } else { 1 };
            if self.decide(DecisionSlot::Flavor, n) == 0 {
                let dst = self.dest_from(a)?;
                let src = self.operand(b, true, false)?;
                self.emit(Inst::op2(M::Imul, X::r64(dst), src), None)?;
                return self.finish_result(d, dst);
            }
            self.load_rdx(a)?;
            let src = self.operand(b, true, false)?;
            let lo = self.mulx_result_reg(b, a)?;
            let hi = self.fresh()?;
            self.emit(Inst::op3(M::Mulx, X::r64(hi), X::r64(lo), src), None)?;
            return self.finish_result(d, lo);
        };
        #[derive(Clone, Copy)]
        enum F {
            Imul3,
            ImulReg,
            Mulx,
            Shl(u32),
            Lea(u8, bool),
            /// `lea` by 3, 5 or 9, then `shl` by the power of two left.
            LeaShl(u8, u32),
            /// `lea` by 3, 5 or 9 twice.
            LeaLea(u8, u8),
            /// `t = lea [x + x·(m−1)]`, `lea [x + t·k]`: c = 1 + k·m.
            LeaBase(u8, u8),
        }
        let mut options: [Option<F>; 8] = [None; 8];
        let mut n = 0;
        let mut add = |f: F| {
            options[n] = Some(f);
            n += 1;
        };
        // A power of two is a shift (or `lea`): one cycle on any ALU port, where `imul`
        // and `mulx` take three or four on the one multiplier that the field's products
        // need. The search cannot tell these apart one product at a time (a fraction of
        // a percent each: the Kummer step's twelve folds by 2 as `imul` cost it 0.6-1%,
        // TSC, AMD EPYC), so they are not offered.
        if c.is_power_of_two() {
            add(F::Shl(c.trailing_zeros()));
        } else {
            if fits_imm32(c) {
                add(F::Imul3);
            }
            add(F::ImulReg);
            if self.allows(M::Mulx) {
                add(F::Mulx);
            }
        }
        // The shift-and-add forms, as lowering's fold knows them (one home of the rule).
        match shift_add_factors(c) {
            // x·2 as [x + x]: no scaled index, and no 32-bit displacement.
            Some((1, 2)) => add(F::Lea(1, true)),
            Some((1, n @ (4 | 8))) => add(F::Lea(n as u8, false)),
            Some((1, _)) | None => {}
            Some((m, 1)) => add(F::Lea(m as u8 - 1, true)),
            Some((m, n)) if n.is_power_of_two() => add(F::LeaShl(m as u8 - 1, n.trailing_zeros())),
            Some((m, n)) => add(F::LeaLea(m as u8 - 1, n as u8 - 1)),
        }
        if let Some((m, k)) = lea_base_factors(c) {
            add(F::LeaBase(m - 1, k));
        }
        let pick =
            options[self.decide(DecisionSlot::Flavor, n)].expect("chosen among the filled options");
        let dst = match pick {
            F::Imul3 => {
                let src = self.operand(x, true, false)?;
                let dst = self.result_reg(&[x])?;
                self.emit(Inst::op3(M::Imul, X::r64(dst), src, X::Imm(c as i64)), None)?;
                dst
            }
            F::ImulReg => {
                let dst = self.dest_from(x)?;
                let t = self.operand(IrOperand::Const(c as u128), false, false)?;
                self.emit(Inst::op2(M::Imul, X::r64(dst), t), None)?;
                dst
            }
            F::Mulx => {
                self.load_rdx(IrOperand::Const(c as u128))?;
                let src = self.operand(x, true, false)?;
                let lo = self.mulx_result_reg(x, IrOperand::Const(c as u128))?;
                let hi = self.fresh()?;
                self.emit(Inst::op3(M::Mulx, X::r64(hi), X::r64(lo), src), None)?;
                lo
            }
            F::Shl(k) => {
                let dst = self.dest_from(x)?;
                if k > 0 {
                    self.emit(Inst::op2(M::Shl, X::r64(dst), X::Imm(k as i64)), None)?;
                }
                dst
            }
            F::Lea(scale, with_base) => self.lea_scaled(x, scale, with_base)?,
            F::LeaShl(scale, k) => {
                let dst = self.lea_scaled(x, scale, true)?;
                self.emit(Inst::op2(M::Shl, X::r64(dst), X::Imm(k as i64)), None)?;
                dst
            }
            F::LeaLea(s1, s2) => {
                let dst = self.lea_scaled(x, s1, true)?;
                let m = times(dst, s2, true);
                self.emit(Inst::op2(M::Lea, X::r64(dst), X::Mem(m)), None)?;
                dst
            }
            F::LeaBase(scale, k) => {
                // x stays: the second `lea` reads it next to the first one's result.
                let rx = self.reg_operand(x)?;
                let dst = self.fresh()?;
                let m = times(rx, scale, true);
                self.emit(Inst::op2(M::Lea, X::r64(dst), X::Mem(m)), None)?;
                let m = Mem {
                    base: Some(rx),
                    index: Some(dst),
                    scale: k,
                    disp: 0,
                    ..Mem::ZERO
                };
                self.emit(Inst::op2(M::Lea, X::r64(dst), X::Mem(m)), None)?;
                dst
            }
        };
        self.finish_result(d, dst)
    }
}
