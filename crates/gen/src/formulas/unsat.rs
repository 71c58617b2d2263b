//! Field elements of an unsaturated Solinas representation inside one function, with
//! lazy reduction: every limb carries its exact upper bound, operations leave their
//! results unreduced, and a carry chain is inserted only where the next operation's
//! bounds require it.
//!
//! ```text
//!   add  a_i + b_i                      carries first only if a limb could pass 2^64
//!   sub  a_i + m·p_i - b_i              m = 2, 4, …: the smallest multiple of p whose
//!                                       limbs cover b's bounds; carries b if none fits
//!   mul  columns + carry chain          tried at the operands' bounds (the field
//!   sqr                                 generator's own bound analysis); on failure the
//!                                       looser operand is carried and it is tried again
//!   mul_small  a_i·c in 128 bits + carry chain
//!   cswap      cmovznz per limb (masks in C, cmov in code): never a branch
//! ```
//!
//! The bounds are the proof obligations of the composition: the field generator's
//! analysis (`fields::solinas`) refuses any step whose intermediate values could overflow
//! their types for inputs within the declared bounds, and the function's outputs are
//! carried until they are within their declared bounds. It must never emit a carry that
//! the bounds do not need, nor skip one they do.

use num_bigint::BigUint;

use cryptopt_ir::func::{Op, Ty};

use crate::fields::build::{Builder, Opnd};
use crate::fields::solinas::{self, ty_for, Gen, Params, B};
use crate::fields::{FieldError, FieldSpec};

use super::inline::{Inline, Stats};
use super::Ops;

/// A field element: its limbs with their bounds.
pub(crate) type Fe = Vec<B>;

pub(crate) struct Unsat<'s> {
    g: Gen,
    p: &'s Params,
    spec: &'s FieldSpec,
    stats: Stats,
    /// The formula's swap bits (u1 operands), and which one `cswap` uses.
    swaps: Vec<Opnd>,
    swap: usize,
}

impl<'s> Unsat<'s> {
    /// `spec` must be unsaturated Solinas.
    pub fn new(b: Builder, spec: &'s FieldSpec, swaps: Vec<Opnd>) -> Unsat<'s> {
        Unsat {
            g: Gen { b },
            p: spec
                .solinas_params()
                .expect("a Solinas spec has parameters"),
            spec,
            stats: Stats::default(),
            swaps,
            swap: 0,
        }
    }
}

impl Unsat<'_> {
    fn carry(&mut self, a: &Fe) -> Result<Fe, FieldError> {
        self.stats.extra_carries += 1;
        solinas::carry(&mut self.g, self.p, a.clone())
    }

    /// Carries `a` if any limb is above `bounds`.
    fn within(&mut self, a: &Fe, bounds: &[u128]) -> Result<Fe, FieldError> {
        if a.iter().zip(bounds).all(|(x, &b)| x.max <= b) {
            return Ok(a.clone());
        }
        let c = self.carry(a)?;
        if c.iter().zip(bounds).all(|(x, &b)| x.max <= b) {
            Ok(c)
        } else {
            Err(FieldError::compose(
                "a carried element is still above the bounds asked for",
            ))
        }
    }

    /// Whether `a + b` fits 64 bits limb by limb.
    fn fits64(a: &Fe, b: &Fe) -> bool {
        a.iter()
            .zip(b)
            .all(|(x, y)| x.max + y.max <= u64::MAX as u128)
    }

    /// The limbs of the larger bound carried first (so the other keeps its work).
    fn looser(a: &Fe, b: &Fe) -> bool {
        let m = |x: &Fe| x.iter().map(|l| l.max).max().unwrap_or(0);
        m(a) >= m(b)
    }

    fn sub_with(&mut self, a: &Fe, b: &Fe, bal: &[u128]) -> Result<Fe, FieldError> {
        let mut out = Vec::with_capacity(a.len());
        for i in 0..a.len() {
            let hi = self.g.add(&[
                B {
                    o: Opnd::K(bal[i]),
                    max: bal[i],
                },
                a[i],
            ])?;
            out.push(B {
                o: self.g.b.op1(Op::Sub, &[hi.o, b[i].o], Ty::U64),
                max: hi.max,
            });
        }
        Ok(out)
    }
}

impl Ops for Unsat<'_> {
    type Fe = Fe;

    fn add(&mut self, a: &Fe, b: &Fe) -> Result<Fe, FieldError> {
        let (mut a, mut b) = (a.clone(), b.clone());
        while !Self::fits64(&a, &b) {
            if Self::looser(&a, &b) {
                a = self.carry(&a)?;
            } else {
                b = self.carry(&b)?;
            }
        }
        a.iter()
            .zip(&b)
            .map(|(&x, &y)| self.g.add(&[x, y]))
            .collect()
    }
    /// `a - b` as `a + m·p - b` with limbs that cannot go negative.
    fn sub(&mut self, a: &Fe, b: &Fe) -> Result<Fe, FieldError> {
        let (mut a, mut b) = (a.clone(), b.clone());
        for _ in 0..4 {
            let mut m = 2u128;
            while m <= 1 << 8 {
                let bal: Vec<u128> = self.p.p_limbs.iter().map(|&l| l * m).collect();
                let covers = b.iter().zip(&bal).all(|(x, &k)| x.max <= k);
                let fits = a
                    .iter()
                    .zip(&bal)
                    .all(|(x, &k)| x.max + k <= u64::MAX as u128);
                if covers && fits {
                    return self.sub_with(&a, &b, &bal);
                }
                m *= 2;
            }
            if Self::looser(&b, &a) {
                b = self.carry(&b)?;
            } else {
                a = self.carry(&a)?;
            }
        }
        Err(FieldError::compose(
            "no multiple of p balances this subtraction",
        ))
    }
    /// `a·b` (`square`: `a²`, `b` ignored), reduced by the carry chain.
    fn mul(&mut self, a: &Fe, b: &Fe, square: bool) -> Result<Fe, FieldError> {
        let (mut a, mut b) = (a.clone(), b.clone());
        for _ in 0..3 {
            let mark = self.g.b.mark();
            let (x, y) = (a.clone(), if square { a.clone() } else { b.clone() });
            let arg = move |k: u32, i: usize| if k == 0 { x[i] } else { y[i] };
            match solinas::carry_mul(&mut self.g, self.p, square, &arg) {
                Ok(r) => {
                    self.stats.muls += 1;
                    return Ok(r);
                }
                Err(_) => {
                    self.g.b.rollback(mark);
                    if square || Self::looser(&a, &b) {
                        a = self.carry(&a)?;
                    } else {
                        b = self.carry(&b)?;
                    }
                }
            }
        }
        Err(FieldError::compose(
            "a product does not fit 128 bits even with reduced operands",
        ))
    }
    /// `c·a` for a small constant `c`, reduced by the carry chain.
    fn mul_small(&mut self, a: &Fe, c: u64) -> Result<Fe, FieldError> {
        let mut limbs = Vec::with_capacity(a.len());
        for x in a {
            let max = x
                .max
                .checked_mul(c as u128)
                .ok_or_else(|| FieldError::compose("a small multiple exceeds 128 bits"))?;
            limbs.push(B {
                o: self.g.b.op1(
                    Op::Mul,
                    &[x.o, Opnd::K(c as u128)],
                    ty_for(max).max(Ty::U64),
                ),
                max,
            });
        }
        self.stats.small_muls += 1;
        solinas::carry(&mut self.g, self.p, limbs)
    }
    /// `c mod p` in limbs of the representation's widths (`FieldSpec::encode`).
    fn constant(&mut self, c: &BigUint) -> Fe {
        self.spec
            .encode(c)
            .into_iter()
            .map(|v| B {
                o: Opnd::K(v),
                max: v,
            })
            .collect()
    }
    fn use_swap(&mut self, k: usize) {
        self.swap = k;
    }
    /// `(a, b)` swapped when the u1 `swap` is 1: Fiat's `cmovznz` per limb, which the C
    /// baseline writes with masks and code generation with `cmov`: never a branch.
    fn cswap(&mut self, a: &Fe, b: &Fe) -> (Fe, Fe) {
        let swap = self.swaps[self.swap];
        let mut x = Vec::with_capacity(a.len());
        let mut y = Vec::with_capacity(a.len());
        for i in 0..a.len() {
            let max = a[i].max.max(b[i].max);
            let mut pick = |z: B, nz: B| B {
                o: self.g.b.op1(Op::Cmovznz, &[swap, z.o, nz.o], Ty::U64),
                max,
            };
            x.push(pick(a[i], b[i]));
            y.push(pick(b[i], a[i]));
        }
        (x, y)
    }
}

impl Inline for Unsat<'_> {
    fn arg(&self, param: u32, at: u32, bounds: &[u128]) -> Fe {
        bounds
            .iter()
            .enumerate()
            .map(|(i, &max)| B {
                o: Opnd::Arg(param, at + i as u32),
                max,
            })
            .collect()
    }
    /// `x` carried if any limb is above `bounds`.
    fn output(&mut self, x: &Fe, bounds: &[u128]) -> Result<Vec<Opnd>, FieldError> {
        Ok(self.within(x, bounds)?.iter().map(|l| l.o).collect())
    }
    fn builder(&mut self) -> &mut Builder {
        &mut self.g.b
    }
    fn finish(self) -> (Builder, Stats) {
        (self.g.b, self.stats)
    }
}
