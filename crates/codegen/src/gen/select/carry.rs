//! Templates for the carry operations (see the table in `select`): `mulx` (or `mul`
//! with rax and rdx on the baseline target), addcarry
//! (`add`/`adc`, `adcx` on CF, `adox` on OF), subborrow (`sub`/`sbb`), and narrow
//! addcarry/subborrow computed in 64 bits.
//!
//! They must never lose a carry between placing it in its flag and reading it: operands
//! first (flag-neutral moves only), then the carry-in, then the consuming instruction.

use cryptopt_ir::{InstData, Op, Operand as IrOperand};
use cryptopt_x86::{Inst, Mnemonic as M, Operand as X, Reg};

use crate::candidate::DecisionSlot;
use crate::error::Result;
use crate::gen::flags::FlagReg;
use crate::gen::Generator;

impl Generator<'_> {
    pub(super) fn t_mulx(&mut self, d: &InstData) -> Result<()> {
        let (x, y) = self.swapped(d.args[0], d.args[1]);
        // A factor already in rdx stays there (the search's order otherwise): loading
        // the other one would move it out only to multiply by it.
        let (x, y) = if !self.in_rdx(x) && self.in_rdx(y) {
            (y, x)
        } else {
            (x, y)
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

    /// The full product on the baseline target: `mul src` computes rdx:rax = rax · src
    /// (and writes CF and OF, so `emit` saves a live flag first). rdx is emptied first,
    /// then one factor goes into rax (its own register when it dies here, else a copy:
    /// rax is overwritten), the other is the register or memory operand.
    pub(super) fn t_mul_wide(&mut self, d: &InstData) -> Result<()> {
        let (x, y) = self.swapped(d.args[0], d.args[1]);
        let (rax, rdx) = (Reg::Rax, Reg::Rdx);
        self.vacate(rdx)?;
        let in_rax = x
            .value()
            .is_some_and(|v| self.st.v_reg[v.index()] == Some(rax));
        if !(in_rax && self.reuse_dying(x).is_some()) {
            self.vacate(rax)?;
            match x {
                IrOperand::Const(c) => self.load_const(rax, c as u64),
                IrOperand::Value(_) => {
                    let src = self.operand(x, true, false)?;
                    self.st.body.push(Inst::op2(M::Mov, X::r64(rax), src));
                    self.release(src, rax);
                }
            }
        }
        let src = if x == y {
            X::r64(rax)
        } else {
            self.operand(y, true, false)?
        };
        self.emit(Inst::op1(M::Mul, src), None)?;
        self.release(src, rax);
        self.bind(d.results[0], rax);
        self.bind(d.results[1], rdx);
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
        // Without ADX only the first alternative of each row (`add`, `adc`): nothing
        // then ever leaves a carry in OF.
        let adx = self.allows(M::Adcx);
        let fam = match (c, c_flag) {
            (IrOperand::Const(0), _) => {
                let n = if adx { 3 } else { 1 };
                [F::Add, F::Adcx, F::Adox][self.decide(DecisionSlot::Flavor, n)]
            }
            (_, Some(FlagReg::OF)) => F::Adox,
            _ => {
                let n = if adx { 2 } else { 1 };
                [F::Adc, F::Adcx][self.decide(DecisionSlot::Flavor, n)]
            }
        };
        // By default (no swap) a product waiting in rax/rdx is added into the other
        // operand ([`Self::in_mul_regs`]).
        let (a, b) = if self.in_mul_regs(a) && !self.in_mul_regs(b) {
            (b, a)
        } else {
            (a, b)
        };
        let (x, y) = self.swapped(a, b);
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
