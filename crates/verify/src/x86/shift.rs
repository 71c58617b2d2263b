//! Shifts and rotations of the x86 executor: `shl`, `shr`, `sar`, `shld`, `shrd` (counts
//! masked to 5 or 6 bits; a zero count changes no flag; OF only defined for a count of
//! one; CF undefined when the count reaches an 8- or 16-bit operand's size), the
//! flagless `shlx`, `shrx`, `sarx`, `rorx`, and the constant counts of these and of `bt`
//! and `bzhi` (a count in a register must be a known constant).
//!
//! Like every file of the executor, this one must never use
//! [`cryptopt_x86::Mnemonic::flags`] or anything else of the code generator's: it *is*
//! the meaning of these instructions for the checker.

use cryptopt_x86::{Mnemonic as M, Operand as X};

use super::flags::{FlagState, CF, OF};
use super::machine::{bits, size_of, Machine, Step};

impl Machine<'_> {
    /// `shl`, `shr`, `sar`, `shld`, `shrd`, `shlx`, `shrx`, `sarx`, `rorx`.
    pub(super) fn shift(&mut self, mn: M, ops: &[X]) -> Step<()> {
        match (mn, ops) {
            (M::Shl | M::Shr | M::Sar, &[d, cnt]) => {
                let sz = size_of(d).ok_or_else(|| self.bad_form())?;
                let w = bits(sz);
                let c = self.count(cnt)? & if w == 64 { 63 } else { 31 };
                let a = self.read(d, sz)?;
                if c == 0 {
                    // No flag changes; the (unchanged) value is still written.
                    self.write(d, a)?;
                    return Ok(());
                }
                // CF is the last bit shifted out; undefined when the count reaches the
                // operand size (possible for 8- and 16-bit operands only).
                let cf = if c < w {
                    let bit = if mn == M::Shl { w - c } else { c - 1 };
                    FlagState::Node(self.g.slice(a, bit, 1))
                } else {
                    FlagState::Undef {
                        by: Some(self.index),
                    }
                };
                let r = match mn {
                    M::Shl => self.g.shl(a, c, w),
                    M::Shr => self.g.shr(a, c),
                    _ => self.g.sar(w, a, c.min(w - 1)),
                };
                self.flags[CF] = cf;
                self.flags[OF] = if c == 1 {
                    match mn {
                        M::Shl => {
                            let top = self.g.slice(r, w - 1, 1);
                            let cfn = self.flag(CF)?;
                            FlagState::Node(self.g.xor(1, &[top, cfn]))
                        }
                        M::Shr => FlagState::Node(self.g.slice(a, w - 1, 1)),
                        _ => FlagState::Node(self.g.konst(0)),
                    }
                } else {
                    FlagState::Undef {
                        by: Some(self.index),
                    }
                };
                self.zf_sf(r, w);
                self.write(d, r)?;
            }
            (M::Shld | M::Shrd, &[d, s @ X::Reg(..), cnt]) => {
                let sz = size_of(d).ok_or_else(|| self.bad_form())?;
                let w = bits(sz);
                let c = self.count(cnt)? & if w == 64 { 63 } else { 31 };
                let a = self.read(d, sz)?;
                if c == 0 {
                    self.write(d, a)?;
                    return Ok(());
                }
                if w < 32 {
                    return Err(self.unsupported("16-bit double shifts are not modelled"));
                }
                let b = self.read(s, sz)?;
                let (r, cf) = if mn == M::Shld {
                    let r = self.g.funnel_right(b, a, w - c, w);
                    (r, self.g.slice(a, w - c, 1))
                } else {
                    let r = self.g.funnel_right(a, b, c, w);
                    (r, self.g.slice(a, c - 1, 1))
                };
                self.flags[CF] = FlagState::Node(cf);
                self.flags[OF] = if c == 1 {
                    let x = self.g.xor(w, &[a, r]);
                    FlagState::Node(self.g.slice(x, w - 1, 1))
                } else {
                    FlagState::Undef {
                        by: Some(self.index),
                    }
                };
                self.zf_sf(r, w);
                self.write(d, r)?;
            }
            (M::Shlx | M::Shrx | M::Sarx, &[d @ X::Reg(_, sz), s, cnt @ X::Reg(..)]) => {
                let w = bits(sz);
                let c = self.count_reg(cnt)? & (w - 1);
                let a = self.read(s, sz)?;
                let r = match mn {
                    M::Shlx => self.g.shl(a, c, w),
                    M::Shrx => self.g.shr(a, c),
                    _ => self.g.sar(w, a, c),
                };
                self.write(d, r)?;
            }
            (M::Rorx, &[d @ X::Reg(_, sz), s, X::Imm(v)]) => {
                let w = bits(sz);
                let c = (v as u32) & (w - 1);
                let a = self.read(s, sz)?;
                let r = self.g.funnel_right(a, a, c, w);
                self.write(d, r)?;
            }
            _ => return Err(self.not_modelled()),
        }
        Ok(())
    }

    /// A constant shift count from an immediate or cl.
    fn count(&mut self, op: X) -> Step<u32> {
        match op {
            X::Imm(v) => Ok((v & 0xff) as u32),
            X::Reg(r, _) => {
                let c = self.g.trunc(self.regs[r.index()], 8);
                match self.g.as_const(c) {
                    Some(v) => Ok(v as u32),
                    None => Err(self.variable_count()),
                }
            }
            X::Mem(_) | X::Vec(..) => Err(self.bad_form()),
        }
    }

    /// A constant count in a register (low 8 bits).
    pub(super) fn count_reg(&mut self, op: X) -> Step<u32> {
        self.const_low_bits(op, 8)
    }

    /// A constant control word in a register (low 16 bits: `bextr`'s start and length).
    pub(super) fn count_reg16(&mut self, op: X) -> Step<u32> {
        self.const_low_bits(op, 16)
    }

    /// The low `bits` of a register, which must be a constant.
    fn const_low_bits(&mut self, op: X, bits: u32) -> Step<u32> {
        match op {
            X::Reg(r, _) => {
                let c = self.g.trunc(self.regs[r.index()], bits);
                match self.g.as_const(c) {
                    Some(v) => Ok(v as u32),
                    None => Err(self.variable_count()),
                }
            }
            _ => Err(self.bad_form()),
        }
    }
}
