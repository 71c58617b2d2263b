//! Multiplications of the x86 executor: `mul` and one-operand `imul` (into rdx:rax, or
//! ax for bytes), two- and three-operand `imul`, and `mulx` (flags untouched). Products
//! are exact nodes whose halves are slices; the signed high half is derived from the
//! unsigned one. CF and OF say whether the high half is needed; ZF and SF are undefined.
//!
//! Like every file of the executor, this one must never use
//! [`cryptopt_x86::Mnemonic::flags`] or anything else of the code generator's: it *is*
//! the meaning of these instructions for the checker.

use cryptopt_x86::{Mnemonic as M, Operand as X, Reg, Size};

use super::flags::{FlagState, CF, OF, SF, ZF};
use super::machine::{bits, size_of, Machine, Step};
use crate::graph::{mask, NodeId};

impl Machine<'_> {
    /// `mul`, `imul` (one, two and three operands), `mulx`.
    pub(super) fn mul(&mut self, mn: M, ops: &[X]) -> Step<()> {
        match (mn, ops) {
            (M::Mul, &[s]) => {
                let sz = size_of(s).ok_or_else(|| self.bad_form())?;
                let w = bits(sz);
                let a = self.g.trunc(self.regs[Reg::Rax.index()], w);
                let b = self.read(s, sz)?;
                let p = self.g.prod(a, b);
                let lo = self.g.trunc(p, w);
                let hi = self.g.slice(p, w, w);
                self.write_wide(sz, lo, hi)?;
                let o = self.g.nonzero(hi);
                self.flags[CF] = FlagState::Node(o);
                self.flags[OF] = FlagState::Node(o);
                self.undef(ZF);
                self.undef(SF);
            }
            (M::Imul, &[s]) => {
                let sz = size_of(s).ok_or_else(|| self.bad_form())?;
                let w = bits(sz);
                let a = self.g.trunc(self.regs[Reg::Rax.index()], w);
                let b = self.read(s, sz)?;
                let (lo, hi, o) = self.signed_product(a, b, w);
                self.write_wide(sz, lo, hi)?;
                self.flags[CF] = FlagState::Node(o);
                self.flags[OF] = FlagState::Node(o);
                self.undef(ZF);
                self.undef(SF);
            }
            (M::Imul, &[d @ X::Reg(_, sz), s]) | (M::Imul, &[d @ X::Reg(_, sz), s, X::Imm(_)]) => {
                let w = bits(sz);
                let (a, b) = if ops.len() == 3 {
                    (self.read(s, sz)?, self.read(ops[2], sz)?)
                } else {
                    (self.read(d, sz)?, self.read(s, sz)?)
                };
                let (lo, _, o) = self.signed_product(a, b, w);
                self.flags[CF] = FlagState::Node(o);
                self.flags[OF] = FlagState::Node(o);
                self.undef(ZF);
                self.undef(SF);
                self.write(d, lo)?;
            }
            (M::Mulx, &[hi @ X::Reg(_, sz), lo @ X::Reg(..), s]) => {
                let w = bits(sz);
                let a = self.g.trunc(self.regs[Reg::Rdx.index()], w);
                let b = self.read(s, sz)?;
                let p = self.g.prod(a, b);
                let l = self.g.trunc(p, w);
                let h = self.g.slice(p, w, w);
                // With the same register twice, it ends up holding the high half.
                self.write(lo, l)?;
                self.write(hi, h)?;
            }
            _ => return Err(self.not_modelled()),
        }
        Ok(())
    }

    /// The result of one-operand `mul`/`imul`: AX (8-bit) or DX:AX, EDX:EAX, RDX:RAX.
    fn write_wide(&mut self, sz: Size, lo: NodeId, hi: NodeId) -> Step<()> {
        match sz {
            Size::B8 => {
                let ax = self.g.halves(lo, 8, hi, 8);
                self.write(X::Reg(Reg::Rax, Size::B16), ax)
            }
            _ => {
                self.write(X::Reg(Reg::Rax, sz), lo)?;
                self.write(X::Reg(Reg::Rdx, sz), hi)
            }
        }
    }

    /// Low half, high half and overflow bit of the signed product of the `w`-bit
    /// patterns `a` and `b`.
    fn signed_product(&mut self, a: NodeId, b: NodeId, w: u32) -> (NodeId, NodeId, NodeId) {
        let g = &mut *self.g;
        let m = mask(w);
        let p = g.prod(a, b);
        let lo = g.trunc(p, w);
        let hi_u = g.slice(p, w, w);
        // hi_signed = hi_unsigned - (a < 0 ? b : 0) - (b < 0 ? a : 0)  (mod 2^w)
        let zero = g.konst(0);
        let sa = g.slice(a, w - 1, 1);
        let sb = g.slice(b, w - 1, 1);
        let fa = g.ite(sa, b, zero);
        let fb = g.ite(sb, a, zero);
        let hi = g.add(w, &[(hi_u, 1), (fa, m), (fb, m)], 0);
        // Overflow: the high half is not the sign extension of the low half.
        let ext = g.sar(w, lo, w - 1);
        let diff = g.xor(w, &[hi, ext]);
        let o = g.nonzero(diff);
        (lo, hi, o)
    }
}
