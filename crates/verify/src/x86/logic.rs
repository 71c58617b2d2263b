//! Bitwise instructions of the x86 executor: `not`, `and`, `or`, `xor`, `test`, `bt`
//! (CF is the bit; OF, SF and ZF undefined, ZF as on AMD), `bzhi`, `andn` and `bextr`
//! (a field by a constant control: CF and OF cleared, ZF from the result, SF
//! undefined). `and rsp, -2^n` realigns the stack (a new aligned frame, `memory`). The logical
//! operations clear CF and OF and set ZF and SF from the result; `not` changes no flag.
//!
//! Like every file of the executor, this one must never use
//! [`cryptopt_x86::Mnemonic::flags`] or anything else of the code generator's: it *is*
//! the meaning of these instructions for the checker.

use cryptopt_x86::{Mnemonic as M, Operand as X, Reg, Size};

use super::flags::{FlagState, CF, OF, SF, ZF};
use super::machine::{bits, size_of, Machine, Step};

impl Machine<'_> {
    /// `not`, `and`, `or`, `xor`, `test`, `bt`, `bzhi`, `andn` (`~a & b`).
    pub(super) fn logic(&mut self, mn: M, ops: &[X]) -> Step<()> {
        match (mn, ops) {
            (M::Not, &[d]) => {
                let sz = size_of(d).ok_or_else(|| self.bad_form())?;
                let a = self.read(d, sz)?;
                let r = self.g.not(bits(sz), a);
                self.write(d, r)?;
            }
            (M::And, &[X::Reg(Reg::Rsp, Size::B64), X::Imm(v)])
                if v < -1 && (v as u64).wrapping_neg().is_power_of_two() =>
            {
                // Stack realignment: rsp becomes the base of an aligned frame.
                let r = self.align_rsp(v.wrapping_neg())?;
                let zero = self.g.konst(0);
                self.flags[CF] = FlagState::Node(zero);
                self.flags[OF] = FlagState::Node(zero);
                self.zf_sf(r, 64);
                self.set_reg(Reg::Rsp, r)?;
            }
            (M::And | M::Or | M::Xor | M::Test, &[d, s]) => {
                let sz = size_of(d).ok_or_else(|| self.bad_form())?;
                let w = bits(sz);
                let a = self.read(d, sz)?;
                let b = self.read(s, sz)?;
                let r = match mn {
                    M::And | M::Test => self.g.and(w, &[a, b]),
                    M::Or => self.g.or(w, &[a, b]),
                    _ => self.g.xor(w, &[a, b]),
                };
                let zero = self.g.konst(0);
                self.flags[CF] = FlagState::Node(zero);
                self.flags[OF] = FlagState::Node(zero);
                self.zf_sf(r, w);
                if mn != M::Test {
                    self.write(d, r)?;
                }
            }
            (M::Bt, &[base, off]) => {
                let sz = size_of(base).ok_or_else(|| self.bad_form())?;
                let w = bits(sz);
                let i = match (base, off) {
                    (_, X::Imm(v)) => (v as u32 & 0xff) % w,
                    (X::Reg(..), X::Reg(..)) => self.count_reg(off)? % w,
                    (X::Mem(_), X::Reg(..)) => {
                        let i = self.count_reg(off)?;
                        if i >= w {
                            return Err(self.unsupported("bit offset outside the memory operand"));
                        }
                        i
                    }
                    _ => return Err(self.bad_form()),
                };
                let v = self.read(base, sz)?;
                let b = self.g.slice(v, i, 1);
                self.flags[CF] = FlagState::Node(b);
                // Intel: ZF unaffected; AMD: undefined. OF and SF undefined on both.
                self.undef(OF);
                self.undef(SF);
                self.undef(ZF);
            }
            (M::Bzhi, &[d @ X::Reg(_, sz), s, idx @ X::Reg(..)]) => {
                let w = bits(sz);
                let n = self.count_reg(idx)? & 0xff;
                let a = self.read(s, sz)?;
                let (r, cf) = if n < w {
                    (self.g.trunc(a, n), 0)
                } else {
                    (a, 1)
                };
                self.flags[CF] = FlagState::Node(self.g.konst(cf));
                self.flags[OF] = FlagState::Node(self.g.konst(0));
                self.zf_sf(r, w);
                self.write(d, r)?;
            }
            (M::Andn, &[d @ X::Reg(_, sz), a @ X::Reg(..), b]) => {
                let w = bits(sz);
                let a = self.read(a, sz)?;
                let b = self.read(b, sz)?;
                let na = self.g.not(w, a);
                let r = self.g.and(w, &[na, b]);
                let zero = self.g.konst(0);
                self.flags[CF] = FlagState::Node(zero);
                self.flags[OF] = FlagState::Node(zero);
                self.zf_sf(r, w);
                self.write(d, r)?;
            }
            (M::Bextr, &[d @ X::Reg(_, sz), s, ctl @ X::Reg(..)]) => {
                let w = bits(sz);
                let c = self.count_reg16(ctl)?;
                let (start, len) = (c & 0xff, c >> 8);
                let a = self.read(s, sz)?;
                let r = if start >= w || len == 0 {
                    self.g.konst(0)
                } else {
                    self.g.slice(a, start, len.min(w - start))
                };
                let zero = self.g.konst(0);
                self.flags[CF] = FlagState::Node(zero);
                self.flags[OF] = FlagState::Node(zero);
                self.zf_sf(r, w);
                self.undef(SF);
                self.write(d, r)?;
            }
            _ => return Err(self.not_modelled()),
        }
        Ok(())
    }
}
