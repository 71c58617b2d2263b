//! CF and OF as locations of u1 values. Every instruction of a template goes through
//! `emit`, which first saves a live value from a flag the instruction writes (`setc`/
//! `seto` into a register zeroed by an `xor` placed before the flag was made, or
//! `setc`/`seto` + `movzx`); a carry-in is put into its flag (`clc`, `stc`, `test`, `bt`)
//! right before the instruction that reads it.
//!
//! A flag is also tracked as *known zero*: after `clc`, after `test`/`and`/`or`/`xor`
//! (which clear CF and OF), and after an addition whose sum provably fits (every carry
//! out of its chain is 0, [`crate::bounds::Bounds::sum_fits`]). A carry-in 0 into a
//! known-zero flag needs no clear. Only `emit` forgets it, and every instruction that
//! writes a flag goes through `emit`.
//!
//! It must never let a live value in a flag be overwritten unsaved, nor read a flag that
//! does not hold the wanted value.

use cryptopt_ir::{Operand as IrOperand, Value};
use cryptopt_x86::{Inst, Mnemonic as M, Operand as X, Reg};

use super::Generator;
use crate::error::{Error, Result};

/// Which flag (CF or OF): the two flags that can hold a u1 value, tracked as two
/// separate resources.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum FlagReg {
    CF = 0,
    OF = 1,
}

impl Generator<'_> {
    pub(super) fn bind_flag(&mut self, v: Value, fl: FlagReg) {
        self.st.flag[fl as usize] = Some(v.0);
        self.st.v_flag[v.index()] = Some(fl);
    }

    /// The flag that operand `o` must be read from: its only location besides memory
    /// (a value also in a register is read from the register).
    pub(super) fn flag_only(&self, o: IrOperand) -> Option<FlagReg> {
        let v = o.value()?.index();
        self.st.v_reg[v].is_none().then_some(())?;
        self.st.v_flag[v]
    }

    /// Emits `i`, first saving any live value in a flag that `i` writes. `consumes`
    /// names the value `i` reads from a flag (its carry-in), if any.
    pub(super) fn emit(&mut self, i: Inst, consumes: Option<Value>) -> Result<()> {
        let fx = i.mn.flags();
        if fx.writes_cf {
            self.clobber_flag(FlagReg::CF, consumes)?;
        }
        if fx.writes_of {
            self.clobber_flag(FlagReg::OF, consumes)?;
        }
        self.st.body.push(i);
        if fx.writes_cf {
            self.st.flag_zero[FlagReg::CF as usize] = false;
        }
        if fx.writes_of {
            self.st.flag_zero[FlagReg::OF as usize] = false;
        }
        match i.mn {
            M::Clc => self.st.flag_zero[FlagReg::CF as usize] = true,
            M::And | M::Or | M::Xor | M::Test => self.st.flag_zero = [true; 2],
            _ => {}
        }
        Ok(())
    }

    /// After an `add`/`adc`/`adcx`/`adox` just emitted whose carry out is provably 0:
    /// the flag it wrote its carry to holds 0.
    pub(super) fn carry_out_zero(&mut self, mn: M) {
        match mn {
            M::Add | M::Adc | M::Adcx => self.st.flag_zero[FlagReg::CF as usize] = true,
            M::Adox => self.st.flag_zero[FlagReg::OF as usize] = true,
            _ => {}
        }
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

    /// The flag's value into a register (flag stays valid): `setc`/`seto` into a free
    /// register zeroed by `xor r32, r32` before the flag was made (a zero idiom: no
    /// execution unit) where one was untouched since, else `setc`/`seto` + `movzx`.
    pub(super) fn save_flag(&mut self, fl: FlagReg) -> Result<Reg> {
        let v = self.st.flag[fl as usize]
            .ok_or_else(|| Error::Internal("saving an empty flag".into()))?;
        let set = if fl == FlagReg::CF { M::Setc } else { M::Seto };
        let zeroed = self
            .flags_born()
            .and_then(|(at, touched)| Some((at, self.take_free_outside(touched)?)));
        let r = match zeroed {
            Some((at, r)) => {
                self.st
                    .body
                    .insert(at, Inst::op2(M::Xor, X::r32(r), X::r32(r)));
                for p in self.st.incoming.iter_mut().filter(|p| **p as usize >= at) {
                    *p += 1;
                }
                self.st.body.push(Inst::op1(set, X::r8(r)));
                r
            }
            None => {
                let r = self.alloc_reg()?;
                self.st.body.push(Inst::op1(set, X::r8(r)));
                self.st.body.push(Inst::op2(M::Movzx, X::r32(r), X::r8(r)));
                r
            }
        };
        self.bind(Value(v), r);
        Ok(r)
    }

    /// The body position of the last instruction that writes both flags without reading
    /// either, and the registers used from there on ([`Inst::regs`]): an `xor` inserted
    /// right before it changes no flag value that is live now (each was made at or after
    /// it, and any it overwrote was saved before it), and zeroes a register that stays
    /// zero if none of those uses it. Looks back a bounded number of instructions.
    fn flags_born(&self) -> Option<(usize, u16)> {
        const LOOK_BACK: usize = 96;
        let body = &self.st.body;
        let mut touched = 0;
        for at in (body.len().saturating_sub(LOOK_BACK)..body.len()).rev() {
            let i = &body[at];
            touched |= i.regs();
            let fx = i.mn.flags();
            if fx.writes_cf && fx.writes_of && !fx.reads_cf && !fx.reads_of {
                return Some((at, touched));
            }
        }
        None
    }

    /// Brings carry-in `c` into `fl` (CF or OF); returns the value now read from the flag
    /// (for `emit`'s bookkeeping), or `None` for a literal.
    pub(super) fn carry_into(
        &mut self,
        c: IrOperand,
        fl: FlagReg,
        clear: Option<M>,
    ) -> Result<Option<Value>> {
        match c {
            IrOperand::Const(0) if self.st.flag_zero[fl as usize] => Ok(None),
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
}
