//! Field elements in full 64-bit words inside one function, in either saturated
//! representation: Montgomery (the Montgomery generator's own `add`/`sub`/`mul`, each
//! fully reduced, so any composition is sound for inputs below p, the precondition of
//! every Montgomery function; a product needs operands below p, so the only reduction
//! left out is a product's own when a sum of two products shares one) or saturated
//! Solinas (`fields::saturated`: any value below `2^(64n)` in, the same out, so no extra
//! reduction is ever needed; the representation is lazy itself).
//!
//! ```text
//!   add, sub   Montgomery: a carry chain, one conditional subtraction (addition) of p
//!              saturated:  a carry chain, the carry folded back as c = 2^(64n) mod p
//!   mul, sqr   Montgomery: word-by-word, a·b·R⁻¹;  saturated: product, then folds
//!   mul_add    Montgomery: a·b ± c·d with one reduction for both products (the result
//!              is below 3p, two conditional subtractions);  saturated: mul, mul, add
//!   mul_small  Montgomery: double-and-add over `add`;  saturated: k·a, then a fold
//!   *_lazy     saturated: mul_scaled, add, sub on n + 1 words without folds, one fold
//!              by `settle` (every other operation refuses a wide element);
//!              Montgomery: the reducing operations
//!   constant   the representation's words of c (`FieldSpec::encode`)
//!   cswap      cmovznz per word: never a branch
//! ```

use num_bigint::BigUint;

use cryptopt_ir::func::{Op, Ty};

use crate::fields::build::{Builder, Opnd};
use crate::fields::montgomery::{self, k, Words, W};
use crate::fields::saturated::{fold_constant, Sat};
use crate::fields::{FieldError, FieldSpec, Repr};

use super::inline::{Inline, Stats};
use super::Ops;

const MAX: u128 = u64::MAX as u128;

/// Which arithmetic the words follow.
enum Arith {
    /// The words of p, as literals.
    Montgomery(Vec<W>),
    Saturated(Sat),
}

pub(crate) struct Full<'s> {
    g: Words,
    arith: Arith,
    spec: &'s FieldSpec,
    /// The formula's swap bits (u1 operands), and which one `cswap` uses.
    swaps: Vec<Opnd>,
    swap: usize,
    stats: Stats,
}

impl<'s> Full<'s> {
    /// `spec` must be Montgomery or saturated Solinas.
    pub fn new(b: Builder, spec: &'s FieldSpec, swaps: Vec<Opnd>) -> Full<'s> {
        let n = spec.limbs() as usize;
        let arith = match spec.repr {
            Repr::Saturated => Arith::Saturated(Sat {
                c: fold_constant(&spec.p, n as u32).expect("a validated saturated spec"),
                n,
            }),
            _ => Arith::Montgomery(montgomery::p_limbs(&spec.p, n).into_iter().map(k).collect()),
        };
        Full {
            g: Words { b },
            arith,
            spec,
            swaps,
            swap: 0,
            stats: Stats::default(),
        }
    }
}

impl Full<'_> {
    /// Every operation but the wide ones takes elements of the representation's words
    /// only: a wide value must be settled first.
    fn reduced(&self, xs: &[&Vec<W>]) -> Result<(), FieldError> {
        match xs.iter().find(|x| x.len() != self.spec.limbs() as usize) {
            Some(_) => Err(FieldError::compose("an unreduced (wide) element reached an operation that needs a field element: settle it first")),
            None => Ok(()),
        }
    }

    /// A wide result whose top word a fold can still take.
    fn wide(&self, w: Vec<W>) -> Result<Vec<W>, FieldError> {
        match w.last() {
            Some(top) if top.max >= Sat::WIDE_TOP => Err(FieldError::compose(format!(
                "a wide value's top word may reach {}, too large to fold",
                top.max
            ))),
            _ => Ok(w),
        }
    }
}

impl Ops for Full<'_> {
    type Fe = Vec<W>;

    fn add(&mut self, a: &Vec<W>, b: &Vec<W>) -> Result<Vec<W>, FieldError> {
        self.reduced(&[a, b])?;
        Ok(match &self.arith {
            Arith::Montgomery(p) => montgomery::add(&mut self.g, p, a, b),
            Arith::Saturated(s) => s.add(&mut self.g, a, b),
        })
    }
    fn sub(&mut self, a: &Vec<W>, b: &Vec<W>) -> Result<Vec<W>, FieldError> {
        self.reduced(&[a, b])?;
        Ok(match &self.arith {
            Arith::Montgomery(p) => montgomery::sub(&mut self.g, p, a, b),
            Arith::Saturated(s) => s.sub(&mut self.g, a, b),
        })
    }
    fn mul(&mut self, a: &Vec<W>, b: &Vec<W>, square: bool) -> Result<Vec<W>, FieldError> {
        self.reduced(&[a, b])?;
        self.stats.muls += 1;
        let b = if square { a } else { b };
        Ok(match &self.arith {
            Arith::Montgomery(p) => montgomery::mul(&mut self.g, p, a, b),
            Arith::Saturated(s) if square => s.square(&mut self.g, a),
            Arith::Saturated(s) => s.mul(&mut self.g, a, b),
        })
    }
    fn mul_add(&mut self, [a, b, c, d]: [&Vec<W>; 4], minus: bool) -> Result<Vec<W>, FieldError> {
        let Arith::Montgomery(p) = &self.arith else {
            return super::two_products(self, [a, b, c, d], minus);
        };
        self.stats.muls += 2;
        self.stats.shared_reductions += 1;
        Ok(montgomery::mul_add(&mut self.g, p, [a, b, c, d], minus))
    }
    /// Saturated: the unreduced product's two halves each times c (`Sat::mul_scaled_wide`),
    /// folded once (`Sat::settle`) or left `wide`; Montgomery: the product, then
    /// `mul_small`.
    fn mul_scaled(
        &mut self,
        a: &Vec<W>,
        b: &Vec<W>,
        square: bool,
        c: u64,
        wide: bool,
    ) -> Result<Vec<W>, FieldError> {
        self.reduced(&[a, b])?;
        let s = match &self.arith {
            Arith::Saturated(s) if s.scales(c) => s,
            _ => return super::product_then_small(self, a, b, square, c),
        };
        self.stats.muls += 1;
        self.stats.small_muls += 1;
        let b = if square { a } else { b };
        let w = s.mul_scaled_wide(&mut self.g, a, b, square, c);
        if wide {
            self.wide(w)
        } else {
            Ok(s.settle(&mut self.g, &w))
        }
    }
    fn add_lazy(&mut self, a: &Vec<W>, b: &Vec<W>) -> Result<Vec<W>, FieldError> {
        match &self.arith {
            Arith::Saturated(s) => {
                let w = s.add_wide(&mut self.g, a, b);
                self.wide(w)
            }
            Arith::Montgomery(_) => self.add(a, b),
        }
    }
    fn sub_lazy(&mut self, a: &Vec<W>, b: &Vec<W>) -> Result<Vec<W>, FieldError> {
        match &self.arith {
            Arith::Saturated(s) => {
                let w = s.sub_wide(&mut self.g, a, b);
                self.wide(w)
            }
            Arith::Montgomery(_) => self.sub(a, b),
        }
    }
    fn settle(&mut self, a: &Vec<W>) -> Result<Vec<W>, FieldError> {
        Ok(match &self.arith {
            Arith::Saturated(s) => s.settle(&mut self.g, a),
            Arith::Montgomery(_) => a.clone(),
        })
    }
    fn mul_small(&mut self, a: &Vec<W>, c: u64) -> Result<Vec<W>, FieldError> {
        self.reduced(&[a])?;
        if c == 0 || c >= 1 << 32 {
            return Err(FieldError::compose(format!(
                "{c} is not a small constant (1 to 2^32 - 1)"
            )));
        }
        self.stats.small_muls += 1;
        if let Arith::Saturated(s) = &self.arith {
            return Ok(s.mul_small(&mut self.g, a, c));
        }
        // Montgomery: double-and-add over c's bits, each step a modular `add`.
        let mut r = a.clone();
        for bit in (0..63 - c.leading_zeros()).rev() {
            r = self.add(&r, &r)?;
            if c >> bit & 1 == 1 {
                r = self.add(&r, a)?;
            }
        }
        Ok(r)
    }
    fn constant(&mut self, c: &BigUint) -> Vec<W> {
        self.spec
            .encode(c)
            .into_iter()
            .map(|w| k(w as u64))
            .collect()
    }
    fn use_swap(&mut self, k: usize) {
        self.swap = k;
    }
    fn cswap(&mut self, a: &Vec<W>, b: &Vec<W>) -> (Vec<W>, Vec<W>) {
        let swap = self.swaps[self.swap];
        let mut pick = |z: W, nz: W| W {
            o: self.g.b.op1(Op::Cmovznz, &[swap, z.o, nz.o], Ty::U64),
            max: z.max.max(nz.max),
        };
        let x = a.iter().zip(b).map(|(&z, &nz)| pick(z, nz)).collect();
        let y = b.iter().zip(a).map(|(&z, &nz)| pick(z, nz)).collect();
        (x, y)
    }
}

impl Inline for Full<'_> {
    /// Words below 2^64 (a Montgomery element must also be below p as a whole).
    fn arg(&self, param: u32, at: u32, _bounds: &[u128]) -> Vec<W> {
        (0..self.spec.limbs())
            .map(|i| W {
                o: Opnd::Arg(param, at + i),
                max: MAX,
            })
            .collect()
    }
    /// Every result is already within the full words' bounds.
    fn output(&mut self, x: &Vec<W>, _bounds: &[u128]) -> Result<Vec<Opnd>, FieldError> {
        self.reduced(&[x])?;
        Ok(x.iter().map(|w| w.o).collect())
    }
    fn builder(&mut self) -> &mut Builder {
        &mut self.g.b
    }
    fn finish(self) -> (Builder, Stats) {
        (self.g.b, self.stats)
    }
}
