//! Templates for the carry operations (see the table in `select`): `mulx`, addcarry
//! (`add`/`adc`, `adcx` on CF, `adox` on OF), subborrow (`sub`/`sbb`), and narrow
//! addcarry/subborrow computed in 64 bits.
//!
//! They must never lose a carry between placing it in its flag and reading it: operands
//! first (flag-neutral moves only), then the carry-in, then the consuming instruction.

use cryptopt_ir::{InstData, Op, Operand as IrOperand};
use cryptopt_x86::{Inst, Mnemonic as M, Operand as X};

use crate::candidate::DecisionSlot;
use crate::error::Result;
use crate::gen::flags::FlagReg;
use crate::gen::Generator;

impl Generator<'_> {
    pub(super) fn t_mulx(&mut self, d: &InstData) -> Result<()> {
        let (a, b) = (d.args[0], d.args[1]);
        let (x, y) = if self.decide(DecisionSlot::Swap, 2) == 0 {
            (a, b)
        } else {
            (b, a)
        };
        self.load_rdx(x)?;
        let src = self.operand(y, true, false)?;
        let lo = self.mulx_result_reg(y, x)?;
        let hi = self.mulx_result_reg(y, x)?;
        self.emit(Inst::op3(M::Mulx, X::r64(hi), X::r64(lo), src), None)?;
        self.bind(d.results[0], lo);
        self.bind(d.results[1], hi);
        Ok(())
    }

    pub(super) fn t_addcarry(&mut self, d: &InstData) -> Result<()> {
        #[derive(PartialEq, Clone, Copy)]
        enum F {
            Add,
            Adc,
            Adcx,
            Adox,
        }
        let (c, a, b) = (d.args[0], d.args[1], d.args[2]);
        let c_flag = c.value().and_then(|v| self.st.v_flag[v.index()]);
        let fam = match (c, c_flag) {
            (IrOperand::Const(0), _) => {
                [F::Add, F::Adcx, F::Adox][self.decide(DecisionSlot::Flavor, 3)]
            }
            (_, Some(FlagReg::OF)) => F::Adox,
            _ => [F::Adc, F::Adcx][self.decide(DecisionSlot::Flavor, 2)],
        };
        let (x, y) = if self.decide(DecisionSlot::Swap, 2) == 0 {
            (a, b)
        } else {
            (b, a)
        };
        let dst = self.dest_from(x)?;
        let src = self.operand(y, true, matches!(fam, F::Add | F::Adc))?;
        let (mn, fl, consumed) = match fam {
            F::Add => (M::Add, FlagReg::CF, None),
            F::Adc => (M::Adc, FlagReg::CF, self.carry_into(c, FlagReg::CF, None)?),
            F::Adcx => {
                let clear = if c == IrOperand::Const(0) {
                    Some([M::Clc, M::Test][self.decide(DecisionSlot::Clear, 2)])
                } else {
                    None
                };
                (
                    M::Adcx,
                    FlagReg::CF,
                    self.carry_into(c, FlagReg::CF, clear)?,
                )
            }
            F::Adox => (
                M::Adox,
                FlagReg::OF,
                self.carry_into(c, FlagReg::OF, Some(M::Test))?,
            ),
        };
        self.emit(Inst::op2(mn, X::r64(dst), src), consumed)?;
        self.bind(d.results[0], dst);
        self.bind_flag(d.results[1], fl);
        Ok(())
    }

    pub(super) fn t_subborrow(&mut self, d: &InstData) -> Result<()> {
        let (c, a, b) = (d.args[0], d.args[1], d.args[2]);
        let dst = self.dest_from(a)?;
        let src = self.operand(b, true, true)?;
        let (mn, consumed) = if c == IrOperand::Const(0) {
            (M::Sub, None)
        } else {
            (M::Sbb, self.carry_into(c, FlagReg::CF, None)?)
        };
        self.emit(Inst::op2(mn, X::r64(dst), src), consumed)?;
        self.bind(d.results[0], dst);
        self.bind_flag(d.results[1], FlagReg::CF);
        Ok(())
    }

    /// addcarry / subborrow of a size below 64: the 64-bit sum (or difference) t, then
    /// sum = t mod 2^size and carry = bit `size` of t (exact for any 64-bit operands).
    pub(super) fn t_carry_narrow(&mut self, d: &InstData, size: u8) -> Result<()> {
        let (c, a, b) = (d.args[0], d.args[1], d.args[2]);
        let mn = if matches!(d.op, Op::AddCarry { .. }) {
            M::Add
        } else {
            M::Sub
        };
        let dst = self.dest_from(a)?;
        let src = self.operand(b, true, true)?;
        self.emit(Inst::op2(mn, X::r64(dst), src), None)?;
        self.release(src, dst);
        if c != IrOperand::Const(0) {
            let cx = self.operand(c, true, true)?;
            self.emit(Inst::op2(mn, X::r64(dst), cx), None)?;
            self.release(cx, dst);
        }
        if self.st.left[d.results[1].index()] > 0 {
            let k = self.fresh()?;
            self.emit(Inst::op2(M::Mov, X::r64(k), X::r64(dst)), None)?;
            self.emit(Inst::op2(M::Shr, X::r64(k), X::Imm(size as i64)), None)?;
            self.emit(Inst::op2(M::And, X::r64(k), X::Imm(1)), None)?;
            self.bind(d.results[1], k);
        }
        self.truncate(dst, size)?;
        self.bind(d.results[0], dst);
        Ok(())
    }
}
