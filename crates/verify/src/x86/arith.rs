//! Additions and subtractions of the x86 executor: `add`, `adc`, `adcx`, `adox`, `sub`,
//! `sbb`, `cmp`, `inc`, `dec`, `neg`, and setting or clearing CF (`clc`, `stc`). Sums are
//! linear forms; CF and OF are recipes (carry, borrow, signed overflow) built only when
//! read; `inc`/`dec` leave CF as it is.
//!
//! Like every file of the executor, this one must never use
//! [`cryptopt_x86::Mnemonic::flags`] or anything else of the code generator's: it *is*
//! the meaning of these instructions for the checker.

use cryptopt_x86::{Mnemonic as M, Operand as X};

use super::flags::{FlagState, CF, OF};
use super::machine::{bits, size_of, Machine, Step};
use crate::graph::mask;

impl Machine<'_> {
    /// `add`, `adc`, `sub`, `sbb`, `cmp`, `adcx`, `adox`, `inc`, `dec`, `neg`, `clc`, `stc`.
    pub(super) fn arith(&mut self, mn: M, ops: &[X]) -> Step<()> {
        match (mn, ops) {
            (M::Add | M::Adc | M::Sub | M::Sbb | M::Cmp, &[d, s]) => {
                let sz = size_of(d).ok_or_else(|| self.bad_form())?;
                let w = bits(sz);
                let a = self.read(d, sz)?;
                let b = self.read(s, sz)?;
                let c = if matches!(mn, M::Adc | M::Sbb) {
                    self.flag(CF)?
                } else {
                    self.g.konst(0)
                };
                let m = mask(w);
                if matches!(mn, M::Add | M::Adc) {
                    let r = self.g.sum(w, &[a, b, c]);
                    self.flags[CF] = FlagState::Carry {
                        w: w as u8,
                        a,
                        b,
                        c,
                    };
                    self.flags[OF] = FlagState::OvfAdd {
                        a,
                        b,
                        r,
                        w: w as u8,
                    };
                    self.zf_sf(r, w);
                    self.write(d, r)?;
                } else {
                    let r = self.g.add(w, &[(a, 1), (b, m), (c, m)], 0);
                    self.flags[CF] = FlagState::Borrow { a, b, c };
                    self.flags[OF] = FlagState::OvfSub {
                        a,
                        b,
                        r,
                        w: w as u8,
                    };
                    self.zf_sf(r, w);
                    if mn != M::Cmp {
                        self.write(d, r)?;
                    }
                }
            }
            (M::Adcx | M::Adox, &[d @ X::Reg(_, sz), s]) => {
                let w = bits(sz);
                let fl = if mn == M::Adcx { CF } else { OF };
                let a = self.read(d, sz)?;
                let b = self.read(s, sz)?;
                let c = self.flag(fl)?;
                let r = self.g.sum(w, &[a, b, c]);
                self.flags[fl] = FlagState::Carry {
                    w: w as u8,
                    a,
                    b,
                    c,
                };
                self.write(d, r)?;
            }
            (M::Inc | M::Dec, &[d]) => {
                let sz = size_of(d).ok_or_else(|| self.bad_form())?;
                let w = bits(sz);
                let a = self.read(d, sz)?;
                let one = self.g.konst(1);
                let r = if mn == M::Inc {
                    let r = self.g.sum(w, &[a, one]);
                    self.flags[OF] = FlagState::OvfAdd {
                        a,
                        b: one,
                        r,
                        w: w as u8,
                    };
                    r
                } else {
                    let r = self.g.add(w, &[(a, 1)], mask(w));
                    self.flags[OF] = FlagState::OvfSub {
                        a,
                        b: one,
                        r,
                        w: w as u8,
                    };
                    r
                };
                self.zf_sf(r, w);
                self.write(d, r)?;
            }
            (M::Neg, &[d]) => {
                let sz = size_of(d).ok_or_else(|| self.bad_form())?;
                let w = bits(sz);
                let a = self.read(d, sz)?;
                let zero = self.g.konst(0);
                let r = self.g.add(w, &[(a, mask(w))], 0);
                self.flags[CF] = FlagState::Borrow {
                    a: zero,
                    b: a,
                    c: zero,
                };
                self.flags[OF] = FlagState::OvfSub {
                    a: zero,
                    b: a,
                    r,
                    w: w as u8,
                };
                self.zf_sf(r, w);
                self.write(d, r)?;
            }
            (M::Clc, []) => self.flags[CF] = FlagState::Node(self.g.konst(0)),
            (M::Stc, []) => self.flags[CF] = FlagState::Node(self.g.konst(1)),
            _ => return Err(self.not_modelled()),
        }
        Ok(())
    }
}
