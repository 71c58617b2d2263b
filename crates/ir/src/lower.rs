//! Lowering from the Fiat dialect to the 64-bit machine-level dialect that code
//! generation consumes.
//!
//! ```text
//!  Fiat dialect ─legalize─▶ ≤64-bit, unsigned ─┬▶ simplify (fold, identities, CSE) ─┐
//!                                              │   flatten (n-ary & | ^ +)          │ until
//!                                              │   fuse_shrd ((a>>n)|(b<<64-n))     │ nothing
//!                                              │   shifted_masks ((y<<s)&(M<<s))    │
//!                                              │   [latency: split_shifted_sums]    │
//!                                              └── dce ◀────────────────────────────┘ changes
//! ```
//!
//! After lowering:
//! * every type is unsigned and at most 64 bits; u128 values are (lo, hi) limb pairs, a
//!   128-bit product is one `mulx` (lo, hi), 128-bit sums are `addcarry` chains;
//! * signed arithmetic is explicit: `sar.iN`/`sext.iN` name the width they read as
//!   signed, so no operation depends on an operand's type;
//! * a cast that only zero-extends is gone (the value is used directly); a cast that
//!   truncates stays as an explicit `cast`;
//! * multiplication by a constant stays a `mul` with the constant as its last operand,
//!   so code generation can choose `imul`/`shlx`/`lea`;
//! * `&`, `|`, `^` and `+` chains of one type are flattened into n-ary operations, common
//!   subexpressions are merged, dead operations are removed.
//!
//! Every pass keeps the function equal under [`crate::interp`] (property-tested over all
//! of ../shared/fiat-json) and is followed by the validator in debug builds. Lowering
//! must never change what a function computes, only how it is written.

use crate::error::{Error, Result};
use crate::func::{Function, InstData, Op, Operand, Param, Ty};
use crate::reassoc;
use crate::validate::{self, Dialect};

pub use crate::rebuild::{
    dce, flatten, fuse_shrd, lea_base_factors, shift_add_factors, shifted_masks, simplify,
    split_shifted_sums,
};
pub(crate) use crate::rebuild::{use_counts, Rebuild};

/// What a lowered function is shaped for, where the two pull apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Shape {
    /// Fewest instructions: [`PASSES`].
    #[default]
    Throughput,
    /// Shorter dependency chains at the cost of a few instructions: [`PASSES`] and
    /// [`LATENCY_PASSES`]. (Measured with 100k-evaluation searches, TSC, AMD EPYC: the
    /// libsecp256k1-style 5×52 multiply 1.13× faster in latency and 1.06× in
    /// throughput; Fiat's curve25519 and poly1305 carry functions 1.06–1.08× faster in
    /// latency but 0.92–0.95× in throughput, hence a choice per measure.)
    Latency,
}

/// The whole lowering pipeline, shaped for throughput ([`lower_for`]).
pub fn lower(f: &Function) -> Result<Function> {
    lower_for(f, Shape::Throughput)
}

/// The whole lowering pipeline for `shape`.
pub fn lower_for(f: &Function, shape: Shape) -> Result<Function> {
    let mut g = legalize(&reassoc::share_sums(f))?;
    validate::debug_validate(&g, Dialect::Lowered)?;
    let extra: &[Pass] = match shape {
        Shape::Throughput => &[],
        Shape::Latency => LATENCY_PASSES,
    };
    for _ in 0..8 {
        let before = g.insts.len();
        let before_shape: Vec<Op> = g.insts.iter().map(|i| i.op).collect();
        for pass in PASSES.iter().chain(extra) {
            g = (pass.run)(&g);
            validate::debug_validate(&g, Dialect::Lowered)?;
        }
        if g.insts.len() == before && g.insts.iter().map(|i| i.op).eq(before_shape) {
            break;
        }
    }
    Ok(g)
}

/// A named lowering pass on the lowered dialect.
pub struct Pass {
    pub name: &'static str,
    pub run: fn(&Function) -> Function,
}

/// The passes run after [`legalize`], in order, until a fixpoint.
pub const PASSES: &[Pass] = &[
    Pass {
        name: "simplify",
        run: simplify,
    },
    Pass {
        name: "flatten",
        run: flatten,
    },
    Pass {
        name: "fuse_shrd",
        run: fuse_shrd,
    },
    Pass {
        name: "shifted_masks",
        run: shifted_masks,
    },
    Pass {
        name: "simplify",
        run: simplify,
    },
    Pass {
        name: "dce",
        run: dce,
    },
];

/// The passes [`Shape::Latency`] adds after [`PASSES`], in the same fixpoint loop.
pub const LATENCY_PASSES: &[Pass] = &[Pass {
    name: "split_shifted_sums",
    run: split_shifted_sums,
}];

// ---------------------------------------------------------------------------------------
// legalize

/// A lowered value: the bit pattern of a Fiat value of width W, as one operand (W ≤ 64)
/// or a (lo: 64 bits, hi: W-64 bits) pair. The operands' own types may be narrower than
/// the limb (their value is then zero-extended, hence non-negative).
#[derive(Clone, Copy, Debug)]
enum L {
    One(Operand),
    Two(Operand, Operand),
}

impl L {
    fn lo(self) -> Operand {
        match self {
            L::One(x) | L::Two(x, _) => x,
        }
    }
    fn hi(self) -> Operand {
        match self {
            L::One(_) => Operand::Const(0),
            L::Two(_, h) => h,
        }
    }
}

/// What lowering cannot do in `f`.
fn unsupported(f: &Function, what: impl std::fmt::Display) -> Error {
    Error::Input {
        location: f.name.clone(),
        message: format!("lowering: {what}"),
    }
}

struct Legalizer<'a> {
    old: &'a Function,
    new: Function,
    map: Vec<Option<L>>,
}

/// Splits values wider than 64 bits into limbs, makes signedness explicit, and turns
/// casts into explicit extensions and truncations.
pub fn legalize(f: &Function) -> Result<Function> {
    let unsign = |p: &Param| -> Result<Param> {
        if p.ty.bits > 64 {
            return Err(unsupported(
                f,
                format!("`{}` of type {} is wider than 64 bits", p.name, p.ty),
            ));
        }
        Ok(Param {
            ty: Ty::uint(p.ty.bits),
            ..p.clone()
        })
    };
    let params = f.params.iter().map(unsign).collect::<Result<Vec<_>>>()?;
    let returns = f.returns.iter().map(unsign).collect::<Result<Vec<_>>>()?;
    let mut lz = Legalizer {
        old: f,
        new: Function::new(f.name.clone(), params, returns),
        map: vec![None; f.values.len()],
    };
    for data in &f.insts {
        lz.inst(data)?;
    }
    Ok(lz.new)
}

impl Legalizer<'_> {
    fn emit(&mut self, op: Op, args: Vec<Operand>, ty: Ty) -> Operand {
        Operand::Value(self.new.push1(op, args, ty))
    }

    /// The old operand's lowered form and its old type (`None` for a literal).
    fn get(&self, o: Operand) -> (L, Option<Ty>) {
        match o {
            Operand::Const(c) => (split_const(c), None),
            Operand::Value(v) => (
                self.map[v.index()].expect("operands point backwards"),
                Some(self.old.ty(v)),
            ),
        }
    }

    fn bits_of(&self, o: Operand) -> u8 {
        match o {
            Operand::Const(c) => (128 - c.leading_zeros()).max(1) as u8,
            Operand::Value(v) => self.new.ty(v).bits,
        }
    }

    /// Can the limb `x`, holding the top `bits` of a signed value, be negative? Only if
    /// its own type is that wide (otherwise it was zero-extended).
    fn may_be_negative(&self, x: Operand, bits: u8) -> bool {
        matches!(x, Operand::Value(_)) && self.bits_of(x) == bits
    }

    /// The exact value of old operand `o`, modulo 2^w, as `w` bits. With `modular`, a
    /// limb may be left wider than its slot (the consumer wraps anyway).
    fn conv(&mut self, o: Operand, w: u8, modular: bool) -> L {
        match (self.get(o), o) {
            ((l, Some(ty)), _) => self.conv_lowered(l, ty, w, modular),
            (_, Operand::Const(c)) => lit(c, w),
            _ => unreachable!("a value operand has a type"),
        }
    }

    /// [`Self::conv`] for a lowered value `l` of old type `ty`.
    fn conv_lowered(&mut self, l: L, ty: Ty, w: u8, modular: bool) -> L {
        let src = ty.bits;
        let signed = ty.signed;
        // The value's top limb and its width.
        let (top, top_bits) = match l {
            L::One(x) => (x, src),
            L::Two(_, h) => (h, src - 64),
        };
        let negative = signed && self.may_be_negative(top, top_bits);
        if w <= 64 {
            let lo = l.lo();
            let lo_bits = src.min(64);
            if w > lo_bits && negative && matches!(l, L::One(_)) {
                return L::One(self.emit(Op::Sext { from: lo_bits }, vec![lo], Ty::uint(w)));
            }
            if !modular && self.bits_of(lo) > w {
                return L::One(self.emit(Op::Cast, vec![lo], Ty::uint(w)));
            }
            return L::One(lo);
        }
        let h = w - 64;
        match l {
            L::One(x) => {
                if negative {
                    let lo = if src < 64 {
                        self.emit(Op::Sext { from: src }, vec![x], Ty::U64)
                    } else {
                        x
                    };
                    let hi = self.emit(
                        Op::Sar { from: 64 },
                        vec![lo, Operand::Const(63)],
                        Ty::uint(h),
                    );
                    L::Two(lo, hi)
                } else {
                    L::Two(x, Operand::Const(0))
                }
            }
            L::Two(lo, hi) => {
                let hb = src - 64;
                let hi = if h > hb && negative {
                    self.emit(Op::Sext { from: hb }, vec![hi], Ty::uint(h))
                } else if h < hb && !modular && self.bits_of(hi) > h {
                    self.emit(Op::Cast, vec![hi], Ty::uint(h))
                } else {
                    hi
                };
                L::Two(lo, hi)
            }
        }
    }

    fn inst(&mut self, data: &InstData) -> Result<()> {
        let res_ty = |k: usize| self.old.ty(data.results[k]);
        let result: L = match data.op {
            Op::Load { param, index } => {
                let ty = self.new.params[param as usize].ty;
                L::One(self.emit(Op::Load { param, index }, vec![], ty))
            }
            Op::Store { ret, index } => {
                let w = self.new.returns[ret as usize].ty.bits;
                let x = self.conv(data.args[0], w, false).lo();
                self.new.push(Op::Store { ret, index }, vec![x], &[]);
                return Ok(());
            }
            Op::Mulx { size } | Op::AddCarry { size } | Op::SubBorrow { size } => {
                let mut args = Vec::with_capacity(3);
                for &a in &data.args {
                    if self.get(a).1.is_some_and(|t| t.signed) {
                        return Err(unsupported(
                            self.old,
                            format!("signed operand of {}", data.op.name()),
                        ));
                    }
                    args.push(self.conv(a, 64, false).lo());
                }
                let tys = [Ty::uint(size), res_ty(1)];
                let rs = self.new.push(data.op, args, &tys).to_vec();
                for (k, r) in rs.into_iter().enumerate() {
                    self.map[data.results[k].index()] = Some(L::One(Operand::Value(r)));
                }
                return Ok(());
            }
            Op::Sar { .. } | Op::Sext { .. } | Op::Shrd { .. } => {
                return Err(unsupported(
                    self.old,
                    format!("`{}` is not a Fiat operation", data.op.name()),
                ));
            }
            _ => {
                let rt = res_ty(0);
                self.compute(data, rt)?
            }
        };
        self.map[data.results[0].index()] = Some(result);
        Ok(())
    }

    /// A one-result operation with result type `rt`.
    fn compute(&mut self, data: &InstData, rt: Ty) -> Result<L> {
        let w = rt.bits;
        let wide = w > 64;
        let lo_ty = if wide { Ty::U64 } else { Ty::uint(w) };
        let hi_ty = Ty::uint(w.saturating_sub(64).max(1));
        let args = &data.args;
        let konst = |k: usize| args[k].constant();
        Ok(match data.op {
            Op::Cast => self.conv(args[0], w, false),
            Op::And | Op::Or | Op::Xor if !wide => {
                let xs = args.iter().map(|&a| self.conv(a, w, true).lo()).collect();
                L::One(self.emit(data.op, xs, lo_ty))
            }
            Op::And | Op::Or | Op::Xor => {
                let ls: Vec<L> = args.iter().map(|&a| self.conv(a, w, true)).collect();
                let lo = self.emit(data.op, ls.iter().map(|l| l.lo()).collect(), lo_ty);
                let hi = self.emit(data.op, ls.iter().map(|l| l.hi()).collect(), hi_ty);
                L::Two(lo, hi)
            }
            Op::Add | Op::Mul if !wide => {
                let xs = args.iter().map(|&a| self.conv(a, w, true).lo()).collect();
                L::One(self.emit(data.op, xs, lo_ty))
            }
            Op::Add => {
                let ls: Vec<L> = args.iter().map(|&a| self.conv(a, w, true)).collect();
                let mut acc = ls[0];
                for b in &ls[1..] {
                    let r = self
                        .new
                        .push(
                            Op::AddCarry { size: 64 },
                            vec![Operand::Const(0), acc.lo(), b.lo()],
                            &[Ty::U64, Ty::U1],
                        )
                        .to_vec();
                    let hi = self.emit(Op::Add, vec![acc.hi(), b.hi(), r[1].into()], hi_ty);
                    acc = L::Two(r[0].into(), hi);
                }
                acc
            }
            Op::Mul => {
                let ls: Vec<L> = args.iter().map(|&a| self.conv(a, w, true)).collect();
                let mut acc = ls[0];
                for b in &ls[1..] {
                    let r = self
                        .new
                        .push(
                            Op::Mulx { size: 64 },
                            vec![acc.lo(), b.lo()],
                            &[Ty::U64, Ty::U64],
                        )
                        .to_vec();
                    let mut hi_terms = vec![Operand::Value(r[1])];
                    for (x, y) in [(acc.lo(), b.hi()), (acc.hi(), b.lo())] {
                        if x != Operand::Const(0) && y != Operand::Const(0) {
                            hi_terms.push(self.emit(Op::Mul, vec![x, y], hi_ty));
                        }
                    }
                    let hi = if hi_terms.len() == 1 && w == 128 {
                        hi_terms[0]
                    } else {
                        hi_terms.push(Operand::Const(0));
                        self.emit(Op::Add, hi_terms, hi_ty)
                    };
                    acc = L::Two(r[0].into(), hi);
                }
                acc
            }
            Op::Sub => {
                let (a, b) = (self.conv(args[0], w, true), self.conv(args[1], w, true));
                if !wide {
                    L::One(self.emit(Op::Sub, vec![a.lo(), b.lo()], lo_ty))
                } else {
                    let r = self
                        .new
                        .push(
                            Op::SubBorrow { size: 64 },
                            vec![Operand::Const(0), a.lo(), b.lo()],
                            &[Ty::U64, Ty::U1],
                        )
                        .to_vec();
                    let d = self.emit(Op::Sub, vec![a.hi(), b.hi()], hi_ty);
                    let hi = self.emit(Op::Sub, vec![d, r[1].into()], hi_ty);
                    L::Two(r[0].into(), hi)
                }
            }
            Op::Not => {
                let a = self.conv(args[0], w, true);
                let lo = self.emit(Op::Not, vec![a.lo()], lo_ty);
                if wide {
                    L::Two(lo, self.emit(Op::Not, vec![a.hi()], hi_ty))
                } else {
                    L::One(lo)
                }
            }
            Op::LNot => {
                let x = self.nonzero_operand(args[0]);
                L::One(self.emit(Op::LNot, vec![x], Ty::U1))
            }
            Op::Cmovznz => {
                let c = self.nonzero_operand(args[0]);
                let (z, nz) = (self.conv(args[1], w, true), self.conv(args[2], w, true));
                let lo = self.emit(Op::Cmovznz, vec![c, z.lo(), nz.lo()], lo_ty);
                if wide {
                    L::Two(lo, self.emit(Op::Cmovznz, vec![c, z.hi(), nz.hi()], hi_ty))
                } else {
                    L::One(lo)
                }
            }
            Op::Shl => {
                let n =
                    konst(1).ok_or_else(|| unsupported(self.old, "variable shift amount"))? as u32;
                // Shifting by 0 is a plain conversion: the result must be truncated.
                let a = self.conv(args[0], w, n != 0);
                if n >= w as u32 {
                    if wide {
                        L::Two(Operand::Const(0), Operand::Const(0))
                    } else {
                        L::One(Operand::Const(0))
                    }
                } else if n == 0 {
                    a
                } else if !wide {
                    L::One(self.emit(Op::Shl, vec![a.lo(), Operand::Const(n as u128)], lo_ty))
                } else if n >= 64 {
                    L::Two(
                        Operand::Const(0),
                        self.emit(
                            Op::Shl,
                            vec![a.lo(), Operand::Const((n - 64) as u128)],
                            hi_ty,
                        ),
                    )
                } else {
                    let lo = self.emit(Op::Shl, vec![a.lo(), Operand::Const(n as u128)], Ty::U64);
                    let hi = self.emit(
                        Op::Shrd { n: (64 - n) as u8 },
                        vec![a.lo(), a.hi()],
                        Ty::U64,
                    );
                    let hi = self.narrow(hi, hi_ty);
                    L::Two(lo, hi)
                }
            }
            Op::Shr => self.shr(data, rt)?,
            Op::Load { .. }
            | Op::Store { .. }
            | Op::Mulx { .. }
            | Op::AddCarry { .. }
            | Op::SubBorrow { .. }
            | Op::Sar { .. }
            | Op::Sext { .. }
            | Op::Shrd { .. } => {
                unreachable!("handled by inst()")
            }
        })
    }

    /// Truncates a 64-bit operand to `ty` if `ty` is narrower.
    fn narrow(&mut self, x: Operand, ty: Ty) -> Operand {
        if ty.bits < 64 {
            self.emit(Op::Cast, vec![x], ty)
        } else {
            x
        }
    }

    /// An operand that is nonzero exactly when old operand `o` is.
    fn nonzero_operand(&mut self, o: Operand) -> Operand {
        match self.get(o).0 {
            L::One(x) => x,
            L::Two(lo, hi) => self.emit(Op::Or, vec![lo, hi], Ty::U64),
        }
    }

    /// `a >> n`, exact on the operand (logical or arithmetic by its old type), then
    /// converted to the result type.
    fn shr(&mut self, data: &InstData, rt: Ty) -> Result<L> {
        let n = data.args[1]
            .constant()
            .ok_or_else(|| unsupported(self.old, "variable shift amount"))?;
        let (l, ty) = self.get(data.args[0]);
        let ty = match ty {
            Some(t) => t,
            None => {
                // literal >> literal
                let c = data.args[0].constant().expect("literal");
                let v = if n >= 128 { 0 } else { c >> n };
                return Ok(lit(v, rt.bits));
            }
        };
        let src = ty.bits;
        let n = n.min(src as u128) as u32;
        // The shifted value has the old operand's type; compute it limb-wise.
        let shifted: L = match l {
            L::One(x) => {
                let neg = ty.signed && self.may_be_negative(x, src);
                let op = if neg { Op::Sar { from: src } } else { Op::Shr };
                if n == 0 {
                    L::One(x)
                } else {
                    L::One(self.emit(
                        op,
                        vec![x, Operand::Const(n.min(127) as u128)],
                        // A wide old value may sit in one limb (a zero-extended `!x`,
                        // say): it is then below 2^64 and non-negative.
                        Ty::uint(src.min(64)),
                    ))
                }
            }
            L::Two(lo, hi) => {
                let hb = src - 64;
                let neg = ty.signed && self.may_be_negative(hi, hb);
                let hop = if neg { Op::Sar { from: hb } } else { Op::Shr };
                if n == 0 {
                    l
                } else if n >= 64 {
                    let new_lo =
                        self.emit(hop, vec![hi, Operand::Const((n - 64) as u128)], Ty::U64);
                    let new_hi = if neg {
                        self.emit(
                            Op::Sar { from: hb },
                            vec![hi, Operand::Const(127)],
                            Ty::uint(hb),
                        )
                    } else {
                        Operand::Const(0)
                    };
                    L::Two(new_lo, new_hi)
                } else {
                    let hi64 = if neg && hb < 64 {
                        self.emit(Op::Sext { from: hb }, vec![hi], Ty::U64)
                    } else {
                        hi
                    };
                    let new_lo = self.emit(Op::Shrd { n: n as u8 }, vec![lo, hi64], Ty::U64);
                    let new_hi = self.emit(hop, vec![hi, Operand::Const(n as u128)], Ty::uint(hb));
                    L::Two(new_lo, new_hi)
                }
            }
        };
        // The shifted value has the old operand's type; convert it to the result type.
        Ok(self.conv_lowered(shifted, ty, rt.bits, false))
    }
}

/// A literal's exact value modulo 2^w, as `w` bits.
fn lit(c: u128, w: u8) -> L {
    let c = Ty::uint(w).wrap(c);
    if w > 64 {
        L::Two(
            Operand::Const(c & u64::MAX as u128),
            Operand::Const(c >> 64),
        )
    } else {
        L::One(Operand::Const(c))
    }
}

fn split_const(c: u128) -> L {
    if c > u64::MAX as u128 {
        L::Two(
            Operand::Const(c & u64::MAX as u128),
            Operand::Const(c >> 64),
        )
    } else {
        L::One(Operand::Const(c))
    }
}
