//! Field elements of the saturated Montgomery representation inside one function: the
//! field generator's own word-by-word Montgomery operations (`fields::montgomery`), each
//! fully reduced (`< p` in, `< p` out), so any composition of them is sound for inputs
//! below `p` — the precondition of every Montgomery function, as of Fiat's.
//!
//! ```text
//!   add, sub   one carry chain, then one conditional subtraction (addition of p)
//!   mul, sqr   word-by-word Montgomery: a·b·R⁻¹
//!   mul_small  c·a by a double-and-add chain of `add`s (21 = 10101₂: 4 doublings, 2 adds)
//!   constant   c·R mod p as literal words (the Montgomery domain)
//!   cswap      cmovznz per limb: never a branch
//! ```
//!
//! No lazy reduction here: a Montgomery product needs operands below `p` for its one
//! final subtraction, and an unreduced sum can reach `2p`, so every operation keeps its
//! own. It must never hand an operation an element that could be `≥ p`.

use num_bigint::BigUint;

use cryptopt_ir::func::{Op, Param, Ty};

use crate::fields::build::{Builder, Opnd};
use crate::fields::montgomery::{self, Words, W};
use crate::fields::FieldSpec;

use super::{Formula, Ops};

/// A field element in the Montgomery domain: its words.
pub(crate) type Fe = Vec<W>;

pub(crate) struct Mont {
    pub g: Words,
    /// The words of p, as literals.
    p: Vec<W>,
    modulus: BigUint,
    /// The u1 operand of `cswap`.
    pub swap: Opnd,
    /// Multiplications and squarings emitted.
    pub muls: usize,
}

impl Mont {
    pub fn new(g: Words, modulus: &BigUint, n: usize) -> Mont {
        let p = montgomery::p_limbs(modulus, n)
            .into_iter()
            .map(montgomery::k)
            .collect();
        Mont {
            g,
            p,
            modulus: modulus.clone(),
            swap: Opnd::K(0),
            muls: 0,
        }
    }

    /// Argument `param` as a field element (words below 2^64; the element below p).
    pub fn arg(&self, param: u32) -> Fe {
        (0..self.p.len() as u32)
            .map(|i| W {
                o: Opnd::Arg(param, i),
                max: u64::MAX as u128,
            })
            .collect()
    }
}

/// A point formula as one function named `name`: `arg1 … argN` the input coordinates,
/// `out1 … out3` the result's, every element in the Montgomery domain and below p (its
/// words below 2^64: the declared bounds). Also the number of multiplications.
pub(crate) fn point(
    f: Formula,
    name: String,
    spec: &FieldSpec,
) -> Result<(Builder, usize), String> {
    let n = spec.limbs() as usize;
    let elem = |name: String| Param::array(&name, Ty::U64, &vec![u64::MAX as u128; n]);
    let params = (1..=f.elements_in())
        .map(|k| elem(format!("arg{k}")))
        .collect();
    let returns = (1..=3).map(|k| elem(format!("out{k}"))).collect();
    let mut u = Mont::new(
        Words {
            b: Builder::new(name, params, returns),
        },
        &spec.p,
        n,
    );
    let args = (0..f.elements_in() as u32).map(|k| u.arg(k)).collect();
    let outs = f.run(&mut u, args)?;
    for (ret, x) in outs.iter().enumerate() {
        for (i, w) in x.iter().enumerate() {
            u.g.b.store(ret as u32, i as u32, w.o);
        }
    }
    Ok((u.g.b, u.muls))
}

/// `x·R mod p` as `n` words: `x` in the Montgomery domain.
pub(crate) fn to_mont_words(x: &BigUint, p: &BigUint, n: usize) -> Vec<u64> {
    let r = (x << (64 * n)) % p;
    montgomery::p_limbs(&r, n)
}

impl Ops for Mont {
    type Fe = Fe;

    fn add(&mut self, a: &Fe, b: &Fe) -> Result<Fe, String> {
        Ok(montgomery::add(&mut self.g, &self.p, a, b))
    }
    fn sub(&mut self, a: &Fe, b: &Fe) -> Result<Fe, String> {
        Ok(montgomery::sub(&mut self.g, &self.p, a, b))
    }
    fn mul(&mut self, a: &Fe, b: &Fe, square: bool) -> Result<Fe, String> {
        self.muls += 1;
        let b = if square { a } else { b };
        Ok(montgomery::mul(&mut self.g, &self.p, a, b))
    }
    /// `c·a` by double-and-add over `c`'s bits, each step a modular `add`.
    fn mul_small(&mut self, a: &Fe, c: u64) -> Result<Fe, String> {
        if c == 0 {
            return Err("multiplication by the constant 0".into());
        }
        let mut r = a.clone();
        for bit in (0..63 - c.leading_zeros()).rev() {
            r = self.add(&r, &r)?;
            if c >> bit & 1 == 1 {
                r = self.add(&r, a)?;
            }
        }
        Ok(r)
    }
    fn constant(&mut self, c: &BigUint) -> Fe {
        to_mont_words(c, &self.modulus, self.p.len())
            .into_iter()
            .map(montgomery::k)
            .collect()
    }
    fn cswap(&mut self, a: &Fe, b: &Fe) -> (Fe, Fe) {
        let swap = self.swap;
        let mut pick = |z: W, nz: W| W {
            o: self.g.b.op1(Op::Cmovznz, &[swap, z.o, nz.o], Ty::U64),
            max: z.max.max(nz.max),
        };
        let x = a.iter().zip(b).map(|(&z, &nz)| pick(z, nz)).collect();
        let y = b.iter().zip(a).map(|(&z, &nz)| pick(z, nz)).collect();
        (x, y)
    }
}
