//! Data movement of the x86 executor: `mov`, `movzx`, `movsx`, `lea` (the address arithmetic,
//! no memory access), `xchg`, the conditional `cmovcc` and `setcc`, and the stack's
//! `push` and `pop`. None of them changes a flag. (`ret` ends the run in the machine.)
//!
//! Like every file of the executor, this one must never use
//! [`cryptopt_x86::Mnemonic::flags`] or anything else of the code generator's: it *is*
//! the meaning of these instructions for the checker.

use cryptopt_x86::{Mnemonic as M, Operand as X, Reg, Size};

use super::machine::{bits, size_of, Machine, Step};
use crate::graph::mask;

impl Machine<'_> {
    /// `mov`, `movzx`, `movsx`, `lea`, `xchg`, `cmovcc`, `setcc`, `push`, `pop`.
    pub(super) fn moves(&mut self, mn: M, ops: &[X]) -> Step<()> {
        match (mn, ops) {
            (M::Mov, &[d, s]) => {
                let sz = size_of(d).ok_or_else(|| self.bad_form())?;
                let v = self.read(s, sz)?;
                self.write(d, v)?;
            }
            (M::Movzx, &[d @ X::Reg(..), s]) => {
                let ss = size_of(s).ok_or_else(|| self.bad_form())?;
                let v = self.read(s, ss)?;
                self.write(d, v)?;
            }
            (M::Movsx, &[d @ X::Reg(_, sz), s]) => {
                let ss = size_of(s).ok_or_else(|| self.bad_form())?;
                let v = self.read(s, ss)?;
                let r = self.g.sext(bits(ss), bits(sz), v);
                self.write(d, r)?;
            }
            (M::Lea, &[d @ X::Reg(_, s), X::Mem(m)]) => {
                let a = self.address(m);
                let a = self.g.trunc(a, bits(s));
                self.write(d, a)?;
            }
            (M::Xchg, &[a, b]) => {
                let sz = size_of(a).ok_or_else(|| self.bad_form())?;
                let va = self.read(a, sz)?;
                let vb = self.read(b, sz)?;
                self.write(a, vb)?;
                self.write(b, va)?;
            }
            (
                M::Cmovc | M::Cmovnc | M::Cmovo | M::Cmovno | M::Cmovz | M::Cmovnz,
                &[d @ X::Reg(_, sz), s],
            ) => {
                let c = self.cond(mn)?;
                let v = self.read(s, sz)?;
                let old = self.read(d, sz)?;
                let r = self.g.ite(c, v, old);
                self.write(d, r)?;
            }
            (M::Setc | M::Seto | M::Setz | M::Setnz, &[d]) => {
                if size_of(d) != Some(Size::B8) {
                    return Err(self.bad_form());
                }
                let c = self.cond(mn)?;
                self.write(d, c)?;
            }
            (M::Push, &[s]) => {
                if matches!(s, X::Reg(_, sz) if sz != Size::B64)
                    || matches!(s, X::Mem(m) if m.size != Size::B64)
                {
                    return Err(self.bad_form());
                }
                let v = self.read(s, Size::B64)?;
                let rsp = self.regs[Reg::Rsp.index()];
                let new = self.g.add(64, &[(rsp, 1)], mask(64) - 7);
                self.set_reg(Reg::Rsp, new)?;
                let (b, off) = self.decompose(new).ok_or_else(|| self.bad_form())?;
                self.record(v);
                self.store(b, off, 8, v)?;
            }
            (M::Pop, &[d]) => {
                if size_of(d) != Some(Size::B64) {
                    return Err(self.bad_form());
                }
                let rsp = self.regs[Reg::Rsp.index()];
                let (b, off) = self.decompose(rsp).ok_or_else(|| self.bad_form())?;
                let v = self.load(b, off, 8)?;
                let new = self.g.add(64, &[(rsp, 1)], 8);
                self.set_reg(Reg::Rsp, new)?;
                self.write(d, v)?;
            }
            _ => return Err(self.not_modelled()),
        }
        Ok(())
    }
}
