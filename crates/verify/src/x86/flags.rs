//! The flags of the x86 executor: CF, OF, ZF, SF, each a node, a recipe for one that is
//! built only when the flag is read (most flags are overwritten unread), or undefined
//! since a given instruction; and the conditions of `cmovcc`/`setcc` read from them.
//!
//! Reading an undefined flag is an error that names the reading instruction and the one
//! that left the flag undefined; this module must never give an undefined flag a value.
//! Which instruction sets which flag to what is decided by the instruction families, not
//! here, and never by [`cryptopt_x86::Mnemonic::flags`] (the code generator's idea).

use cryptopt_x86::Mnemonic as M;

use super::machine::{Fail, Machine, Step};
use crate::graph::NodeId;
use crate::verdict::Problem;

pub(super) const FLAG_NAMES: [&str; 4] = ["CF", "OF", "ZF", "SF"];
pub(super) const CF: usize = 0;
pub(super) const OF: usize = 1;
pub(super) const ZF: usize = 2;
pub(super) const SF: usize = 3;

/// A flag's value: a node, a recipe for one (built only when read), or undefined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum FlagState {
    /// Undefined since instruction `by` (`None`: since the function's entry).
    Undef {
        by: Option<usize>,
    },
    Node(NodeId),
    /// `⌊(a + b + c) / 2^w⌋`.
    Carry {
        w: u8,
        a: NodeId,
        b: NodeId,
        c: NodeId,
    },
    /// `a < b + c`.
    Borrow {
        a: NodeId,
        b: NodeId,
        c: NodeId,
    },
    /// `r == 0`.
    Zero(NodeId),
    /// Bit `w - 1` of `r`.
    Sign {
        r: NodeId,
        w: u8,
    },
    /// Signed overflow of `a + b (+ carry)` giving `r`.
    OvfAdd {
        a: NodeId,
        b: NodeId,
        r: NodeId,
        w: u8,
    },
    /// Signed overflow of `a - b (- borrow)` giving `r`.
    OvfSub {
        a: NodeId,
        b: NodeId,
        r: NodeId,
        w: u8,
    },
}

impl Machine<'_> {
    pub(super) fn flag(&mut self, i: usize) -> Step<NodeId> {
        let g = &mut *self.g;
        let n = match self.flags[i] {
            FlagState::Undef { by } => {
                let why = match by {
                    None => "flags are undefined at function entry".to_string(),
                    Some(k) => format!("instruction {k} left it undefined"),
                };
                return Err(Fail::boxed(Problem::UndefinedFlag {
                    index: self.index,
                    inst: self.inst_text(),
                    flag: FLAG_NAMES[i],
                    why,
                }));
            }
            FlagState::Node(n) => return Ok(n),
            FlagState::Carry { w, a, b, c } => g.carry(w as u32, &[a, b, c], 0),
            FlagState::Borrow { a, b, c } => g.borrow(a, &[b, c], 0),
            FlagState::Zero(r) => g.eqz(r),
            FlagState::Sign { r, w } => g.slice(r, w as u32 - 1, 1),
            FlagState::OvfAdd { a, b, r, w } => {
                let w = w as u32;
                let x = g.xor(w, &[a, r]);
                let y = g.xor(w, &[b, r]);
                let z = g.and(w, &[x, y]);
                g.slice(z, w - 1, 1)
            }
            FlagState::OvfSub { a, b, r, w } => {
                let w = w as u32;
                let x = g.xor(w, &[a, b]);
                let y = g.xor(w, &[a, r]);
                let z = g.and(w, &[x, y]);
                g.slice(z, w - 1, 1)
            }
        };
        self.flags[i] = FlagState::Node(n);
        Ok(n)
    }

    pub(super) fn undef(&mut self, i: usize) {
        self.flags[i] = FlagState::Undef {
            by: Some(self.index),
        };
    }

    /// ZF and SF from a result of width `w`.
    pub(super) fn zf_sf(&mut self, r: NodeId, w: u32) {
        self.flags[ZF] = FlagState::Zero(r);
        self.flags[SF] = FlagState::Sign { r, w: w as u8 };
    }

    fn not1(&mut self, x: NodeId) -> NodeId {
        self.g.not(1, x)
    }

    /// The condition of `cmovcc`/`setcc`.
    pub(super) fn cond(&mut self, mn: M) -> Step<NodeId> {
        Ok(match mn {
            M::Cmovc | M::Setc => self.flag(CF)?,
            M::Cmovnc => {
                let c = self.flag(CF)?;
                self.not1(c)
            }
            M::Cmovo | M::Seto => self.flag(OF)?,
            M::Cmovno => {
                let c = self.flag(OF)?;
                self.not1(c)
            }
            M::Cmovz | M::Setz => self.flag(ZF)?,
            M::Cmovnz | M::Setnz => {
                let c = self.flag(ZF)?;
                self.not1(c)
            }
            _ => return Err(self.bad_form()),
        })
    }
}
