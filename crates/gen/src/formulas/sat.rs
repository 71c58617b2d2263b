//! Field elements of the saturated Solinas representation inside one function
//! (`fields::saturated`: full 64-bit limbs, any value below `2^(64n)`, folded by
//! `2^(64n) ≡ c`): every operation's result is again below `2^(64n)`, which is also
//! every operation's only input condition, so any composition is sound and no extra
//! reduction is ever inserted; the laziness is the representation's own (elements are
//! never fully reduced).

use num_bigint::BigUint;

use cryptopt_ir::func::{Function, Op, Param, Ty};

use crate::fields::build::{Builder, Opnd};
use crate::fields::montgomery::{k, Words, W};
use crate::fields::saturated::{fold_constant, Sat};
use crate::fields::{FieldError, FieldSpec};

use super::unsat::Stats;
use super::{Formula, Ops};

const MAX: u128 = u64::MAX as u128;

pub(crate) struct SatOps {
    pub g: Words,
    s: Sat,
    p: BigUint,
    /// The u1 operand of `cswap`.
    swap: Opnd,
    pub stats: Stats,
}

/// `formula` as one function named `name` over a saturated Solinas field: the swap bit
/// first if the formula has one, then its elements (`n` words each, any value), its
/// results the same.
pub(crate) fn build(
    f: Formula,
    name: String,
    spec: &FieldSpec,
) -> Result<(Builder, Stats), String> {
    let n = spec.limbs() as usize;
    let c = fold_constant(&spec.p, n as u32).ok_or("not a saturated Solinas field")?;
    let elem = |name: String| Param::array(&name, Ty::U64, &vec![MAX; n]);
    let first = f.has_swap() as u32;
    let mut params = Vec::new();
    if f.has_swap() {
        params.push(Param::scalar("arg1", Ty::U1, 1));
    }
    params.extend((0..f.elements_in() as u32).map(|k| elem(format!("arg{}", first + k + 1))));
    let returns = (1..=f.elements_out())
        .map(|k| elem(format!("out{k}")))
        .collect();
    let mut u = SatOps {
        g: Words {
            b: Builder::new(name, params, returns),
        },
        s: Sat { c, n },
        p: spec.p.clone(),
        swap: Opnd::Arg(0, 0),
        stats: Stats::default(),
    };
    let args = (0..f.elements_in() as u32)
        .map(|k| {
            (0..n as u32)
                .map(|i| W {
                    o: Opnd::Arg(first + k, i),
                    max: MAX,
                })
                .collect()
        })
        .collect();
    let outs = f.run(&mut u, args)?;
    for (ret, x) in outs.iter().enumerate() {
        for (i, w) in x.iter().enumerate() {
            u.g.b.store(ret as u32, i as u32, w.o);
        }
    }
    Ok((u.g.b, u.stats))
}

/// `fiat_<field>_solinas_scmul_<c>`: `out1 = c·arg1`, by the same code as inline.
pub(crate) fn scmul(spec: &FieldSpec, c: u64) -> Result<Function, FieldError> {
    let name = format!("fiat_{}_scmul_{c}", spec.prefix());
    let internal = |message: String| FieldError::Internal {
        function: name.clone(),
        message,
    };
    let n = spec.limbs() as usize;
    let fc = fold_constant(&spec.p, n as u32)
        .ok_or_else(|| internal("not a saturated Solinas field".into()))?;
    let elem = |name: &str| Param::array(name, Ty::U64, &vec![MAX; n]);
    let mut u = SatOps {
        g: Words {
            b: Builder::new(name.clone(), vec![elem("arg1")], vec![elem("out1")]),
        },
        s: Sat { c: fc, n },
        p: spec.p.clone(),
        swap: Opnd::K(0),
        stats: Stats::default(),
    };
    let x: Vec<W> = (0..n as u32)
        .map(|i| W {
            o: Opnd::Arg(0, i),
            max: MAX,
        })
        .collect();
    let r = u.mul_small(&x, c).map_err(internal)?;
    for (i, w) in r.iter().enumerate() {
        u.g.b.store(0, i as u32, w.o);
    }
    u.g.b.finish()
}

impl Ops for SatOps {
    type Fe = Vec<W>;

    fn add(&mut self, a: &Vec<W>, b: &Vec<W>) -> Result<Vec<W>, String> {
        Ok(self.s.add(&mut self.g, a, b))
    }
    fn sub(&mut self, a: &Vec<W>, b: &Vec<W>) -> Result<Vec<W>, String> {
        Ok(self.s.sub(&mut self.g, a, b))
    }
    fn mul(&mut self, a: &Vec<W>, b: &Vec<W>, square: bool) -> Result<Vec<W>, String> {
        self.stats.muls += 1;
        Ok(self.s.mul(&mut self.g, a, if square { a } else { b }))
    }
    fn mul_small(&mut self, a: &Vec<W>, c: u64) -> Result<Vec<W>, String> {
        if c >= 1 << 32 {
            return Err(format!("{c} is not a small constant (below 2^32)"));
        }
        self.stats.small_muls += 1;
        Ok(self.s.mul_small(&mut self.g, a, c))
    }
    fn constant(&mut self, c: &BigUint) -> Vec<W> {
        let mut words: Vec<u64> = (c % &self.p).iter_u64_digits().collect();
        words.resize(self.s.n, 0);
        words.into_iter().map(k).collect()
    }
    fn cswap(&mut self, a: &Vec<W>, b: &Vec<W>) -> (Vec<W>, Vec<W>) {
        let swap = self.swap;
        let mut pick = |z: W, nz: W| W {
            o: self.g.b.op1(Op::Cmovznz, &[swap, z.o, nz.o], Ty::U64),
            max: MAX,
        };
        let x = a.iter().zip(b).map(|(&z, &nz)| pick(z, nz)).collect();
        let y = b.iter().zip(a).map(|(&z, &nz)| pick(z, nz)).collect();
        (x, y)
    }
}
