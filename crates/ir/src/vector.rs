//! The vector dialect: straight-line programs over four 64-bit lanes, for code that
//! computes four field operations per instruction (a 4-way ladder step on AVX-512 IFMA).
//!
//! A [`VFunction`] is a topologically ordered list of [`VInst`]s; instruction `i`
//! defines the value [`VVal`]`(i)` (a store defines nothing). Its meaning is its
//! **scalar expansion** ([`VFunction::expand`]): one [`Function`], in operations both
//! dialects have (so Fiat JSON carries it and lowering takes it), that computes each lane
//! with the scalar operations, which the interpreter runs and the checker proves code
//! against. There is no second definition of what a vector
//! operation computes: the expansion is it.
//!
//! [`Builder`] is the one home of the dialect's bounds: it keeps an interval per lane
//! and refuses what could wrap or lose bits where the program's arithmetic needs exact
//! values — a sum or product above 2^64, a difference below zero, a multiply-add operand
//! of 52 bits or more (the hardware reads only its low 52 bits), a select whose mask is
//! not all-zero or all-one. The function's declared output bounds are what it derived.
//!
//! This module must never know about x86: which instructions implement the operations
//! is code generation's business.

use crate::error::Error;
use crate::func::{Function, Op, Operand, Param, Ty};
use std::collections::HashMap;

/// What the builder refuses ([`Error::Vector`]).
fn refused(message: impl Into<String>) -> Error {
    Error::Vector {
        message: message.into(),
    }
}

/// A vector value: the result of instruction [`VVal::index`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VVal(pub u32);

impl VVal {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// The number of 64-bit lanes of a vector value.
pub const LANES: usize = 4;

/// `2^52 − 1`: the multiply-adds read the low 52 bits of their operands.
pub const M52: u64 = (1 << 52) - 1;

/// The operations, each on every lane (arguments in [`VInst::args`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VOp {
    /// Lane k is element `index + k` of array argument `param`.
    Load {
        param: u32,
        index: u32,
    },
    /// Every lane is element `index` of argument `param`.
    Splat {
        param: u32,
        index: u32,
    },
    /// Lane k is element `index` of array argument `params[k]`.
    Gather {
        params: [u32; LANES],
        index: u32,
    },
    /// Every lane is `0 − b` for the `u1` argument `param`: all ones when it is 1.
    Mask {
        param: u32,
    },
    /// Constant lanes.
    Const([u64; LANES]),
    /// `a + b`, `a − b` (mod 2^64; the builder proves they do not wrap), `a & b`,
    /// `a ^ b`.
    Add,
    Sub,
    And,
    Xor,
    /// `a >> n`, `(a << n) mod 2^64`.
    Shr(u8),
    Shl(u8),
    /// `(a·b) mod 2^64`.
    MulLo,
    /// `acc + ((a mod 2^52)·(b mod 2^52) mod 2^52)`: arguments `(acc, a, b)`.
    Madd52Lo,
    /// `acc + ((a mod 2^52)·(b mod 2^52) >> 52)`: arguments `(acc, a, b)`.
    Madd52Hi,
    /// Lane k is lane `sel[k]` of the argument.
    Permute([u8; LANES]),
    /// Lane k is lane k of the second argument where `from_b[k]`, else of the first.
    Blend([bool; LANES]),
    /// `a ^ ((a ^ b) & m)`: arguments `(m, a, b)` with `m` a [`VOp::Mask`]: `b` where the
    /// mask is all ones, `a` where it is zero.
    Select,
    /// Writes lane k to element `index + k` of return `ret`. No result.
    Store {
        ret: u32,
        index: u32,
    },
    /// Writes lane k to element `index` of return `rets[k]`. No result.
    Scatter {
        rets: [u32; LANES],
        index: u32,
    },
}

impl VOp {
    /// Number of arguments.
    pub fn arity(self) -> usize {
        use VOp::*;
        match self {
            Load { .. } | Splat { .. } | Gather { .. } | Mask { .. } | Const(_) => 0,
            Shr(_) | Shl(_) | Permute(_) | Store { .. } | Scatter { .. } => 1,
            Add | Sub | And | Xor | MulLo | Blend(_) => 2,
            Madd52Lo | Madd52Hi | Select => 3,
        }
    }

    /// Reads the function's arguments (must come before every write of a return: an
    /// output may share an input's buffer).
    pub fn is_load(self) -> bool {
        matches!(
            self,
            VOp::Load { .. } | VOp::Splat { .. } | VOp::Gather { .. } | VOp::Mask { .. }
        )
    }

    /// Writes the function's returns.
    pub fn is_store(self) -> bool {
        matches!(self, VOp::Store { .. } | VOp::Scatter { .. })
    }

    /// The name of the text form.
    pub fn name(self) -> &'static str {
        use VOp::*;
        match self {
            Load { .. } => "load",
            Splat { .. } => "splat",
            Gather { .. } => "gather",
            Mask { .. } => "mask",
            Const(_) => "const",
            Add => "add",
            Sub => "sub",
            And => "and",
            Xor => "xor",
            Shr(_) => "shr",
            Shl(_) => "shl",
            MulLo => "mullo",
            Madd52Lo => "madd52lo",
            Madd52Hi => "madd52hi",
            Permute(_) => "permute",
            Blend(_) => "blend",
            Select => "select",
            Store { .. } => "store",
            Scatter { .. } => "scatter",
        }
    }
}

/// One instruction.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct VInst {
    pub op: VOp,
    pub args: Vec<VVal>,
}

/// A straight-line vector function. Its parameters and returns are those of its scalar
/// expansion (arrays of `u64`, a `u1` for a mask).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VFunction {
    pub name: String,
    pub params: Vec<Param>,
    pub returns: Vec<Param>,
    pub insts: Vec<VInst>,
}

/// A closed interval per lane: what the builder knows of a value.
pub type Lanes = [(u128, u128); LANES];

/// Builds a [`VFunction`] and proves its bounds as it goes (see the module docs).
#[derive(Debug)]
pub struct Builder {
    f: VFunction,
    bounds: Vec<Lanes>,
    /// Per return element: the largest value stored (`None`: not written yet).
    written: Vec<Vec<Option<u128>>>,
}

const W64: u128 = u64::MAX as u128;

impl Builder {
    /// A function with these parameters (their bounds are the inputs' intervals) and
    /// returns (their bounds are filled in by [`Builder::finish`]).
    pub fn new(name: &str, params: Vec<Param>, returns: Vec<Param>) -> Builder {
        let written = returns.iter().map(|r| vec![None; r.elems()]).collect();
        Builder {
            f: VFunction {
                name: name.to_string(),
                params,
                returns,
                insts: Vec::new(),
            },
            bounds: Vec::new(),
            written,
        }
    }

    /// What is known of `v`'s lanes.
    pub fn bounds(&self, v: VVal) -> Lanes {
        self.bounds[v.index()]
    }

    fn push(&mut self, op: VOp, args: &[VVal], b: Lanes) -> VVal {
        let v = VVal(self.f.insts.len() as u32);
        self.f.insts.push(VInst {
            op,
            args: args.to_vec(),
        });
        self.bounds.push(b);
        v
    }

    fn param(&self, param: u32, index: u32) -> Result<(u128, u128), Error> {
        let p = self
            .f
            .params
            .get(param as usize)
            .ok_or_else(|| refused(format!("no parameter {param}")))?;
        let i = index as usize;
        if i >= p.elems() || p.ty != Ty::U64 {
            return Err(refused(format!("`{}` has no u64 element {index}", p.name)));
        }
        Ok((p.lbound[i], p.ubound[i]))
    }

    pub fn load(&mut self, param: u32, index: u32) -> Result<VVal, Error> {
        let mut b = [(0, 0); LANES];
        for (k, l) in b.iter_mut().enumerate() {
            *l = self.param(param, index + k as u32)?;
        }
        Ok(self.push(VOp::Load { param, index }, &[], b))
    }

    pub fn splat(&mut self, param: u32, index: u32) -> Result<VVal, Error> {
        let b = self.param(param, index)?;
        Ok(self.push(VOp::Splat { param, index }, &[], [b; LANES]))
    }

    pub fn gather(&mut self, params: [u32; LANES], index: u32) -> Result<VVal, Error> {
        let mut b = [(0, 0); LANES];
        for (k, l) in b.iter_mut().enumerate() {
            *l = self.param(params[k], index)?;
        }
        Ok(self.push(VOp::Gather { params, index }, &[], b))
    }

    pub fn mask(&mut self, param: u32) -> Result<VVal, Error> {
        match self.f.params.get(param as usize) {
            Some(p) if p.ty == Ty::U1 && p.len.is_none() => {
                Ok(self.push(VOp::Mask { param }, &[], [(0, W64); LANES]))
            }
            _ => Err(refused(format!(
                "a mask needs a u1 scalar parameter, not {param}"
            ))),
        }
    }

    pub fn konst(&mut self, c: [u64; LANES]) -> VVal {
        let b = c.map(|x| (x as u128, x as u128));
        self.push(VOp::Const(c), &[], b)
    }

    pub fn splat_const(&mut self, c: u64) -> VVal {
        self.konst([c; LANES])
    }

    fn lanewise(
        &mut self,
        op: VOp,
        args: &[VVal],
        f: impl Fn(&[(u128, u128)]) -> Result<(u128, u128), Error>,
    ) -> Result<VVal, Error> {
        let mut b = [(0, 0); LANES];
        for (k, l) in b.iter_mut().enumerate() {
            let xs: Vec<(u128, u128)> = args.iter().map(|a| self.bounds[a.index()][k]).collect();
            *l = f(&xs).map_err(|e| refused(format!("{} (lane {k}): {e}", op.name())))?;
            if l.1 > W64 {
                return Err(refused(format!("{} (lane {k}) may exceed 2^64", op.name())));
            }
        }
        Ok(self.push(op, args, b))
    }

    pub fn add(&mut self, a: VVal, b: VVal) -> Result<VVal, Error> {
        self.lanewise(VOp::Add, &[a, b], |x| {
            Ok((x[0].0 + x[1].0, x[0].1 + x[1].1))
        })
    }

    pub fn sub(&mut self, a: VVal, b: VVal) -> Result<VVal, Error> {
        self.lanewise(VOp::Sub, &[a, b], |x| {
            if x[0].0 < x[1].1 {
                return Err(refused(format!("{} may be below {}", x[0].0, x[1].1)));
            }
            Ok((x[0].0 - x[1].1, x[0].1 - x[1].0))
        })
    }

    /// `a & c` for a constant `c` (the bounds of a mask are those of a constant's).
    pub fn and(&mut self, a: VVal, c: VVal) -> Result<VVal, Error> {
        self.lanewise(VOp::And, &[a, c], |x| Ok((0, x[0].1.min(x[1].1))))
    }

    pub fn shr(&mut self, a: VVal, n: u8) -> Result<VVal, Error> {
        if n >= 64 {
            return Err(refused(format!("shift by {n}")));
        }
        self.lanewise(VOp::Shr(n), &[a], |x| Ok((x[0].0 >> n, x[0].1 >> n)))
    }

    pub fn shl(&mut self, a: VVal, n: u8) -> Result<VVal, Error> {
        if n >= 64 {
            return Err(refused(format!("shift by {n}")));
        }
        self.lanewise(VOp::Shl(n), &[a], |x| Ok((x[0].0 << n, x[0].1 << n)))
    }

    pub fn mul_lo(&mut self, a: VVal, b: VVal) -> Result<VVal, Error> {
        self.lanewise(VOp::MulLo, &[a, b], |x| {
            Ok((x[0].0 * x[1].0, x[0].1.saturating_mul(x[1].1)))
        })
    }

    /// `acc + lo52(a·b)` (`hi`: `acc + hi52(a·b)`), with `a` and `b` below 2^52.
    pub fn madd52(&mut self, acc: VVal, a: VVal, b: VVal, hi: bool) -> Result<VVal, Error> {
        let op = if hi { VOp::Madd52Hi } else { VOp::Madd52Lo };
        self.lanewise(op, &[acc, a, b], |x| {
            if x[1].1 > M52 as u128 || x[2].1 > M52 as u128 {
                return Err(refused(format!(
                    "an operand may exceed 2^52 ({}, {})",
                    x[1].1, x[2].1
                )));
            }
            let p = x[1].1 * x[2].1;
            let part = if hi { p >> 52 } else { p.min(M52 as u128) };
            Ok((x[0].0, x[0].1 + part))
        })
    }

    pub fn permute(&mut self, a: VVal, sel: [u8; LANES]) -> Result<VVal, Error> {
        if sel.iter().any(|&s| s as usize >= LANES) {
            return Err(refused(format!("permute {sel:?}")));
        }
        let x = self.bounds[a.index()];
        Ok(self.push(VOp::Permute(sel), &[a], sel.map(|s| x[s as usize])))
    }

    pub fn blend(&mut self, a: VVal, b: VVal, from_b: [bool; LANES]) -> VVal {
        let (x, y) = (self.bounds[a.index()], self.bounds[b.index()]);
        let l = std::array::from_fn(|k| if from_b[k] { y[k] } else { x[k] });
        self.push(VOp::Blend(from_b), &[a, b], l)
    }

    /// `b` where the mask `m` is set, else `a`.
    pub fn select(&mut self, m: VVal, a: VVal, b: VVal) -> Result<VVal, Error> {
        if !matches!(self.f.insts[m.index()].op, VOp::Mask { .. }) {
            return Err(refused("a select's mask must be a mask of a u1 argument"));
        }
        let (x, y) = (self.bounds[a.index()], self.bounds[b.index()]);
        let l = std::array::from_fn(|k| (x[k].0.min(y[k].0), x[k].1.max(y[k].1)));
        Ok(self.push(VOp::Select, &[m, a, b], l))
    }

    pub fn store(&mut self, ret: u32, index: u32, a: VVal) -> Result<(), Error> {
        let x = self.bounds[a.index()];
        for (k, l) in x.iter().enumerate() {
            self.write(ret, index + k as u32, l.1)?;
        }
        self.push(VOp::Store { ret, index }, &[a], [(0, 0); LANES]);
        Ok(())
    }

    pub fn scatter(&mut self, rets: [u32; LANES], index: u32, a: VVal) -> Result<(), Error> {
        let x = self.bounds[a.index()];
        for (k, l) in x.iter().enumerate() {
            self.write(rets[k], index, l.1)?;
        }
        self.push(VOp::Scatter { rets, index }, &[a], [(0, 0); LANES]);
        Ok(())
    }

    /// Records that element `index` of return `ret` is written, at most `ub`.
    fn write(&mut self, ret: u32, index: u32, ub: u128) -> Result<(), Error> {
        let slot = self
            .written
            .get_mut(ret as usize)
            .ok_or_else(|| refused(format!("no return {ret}")))?
            .get_mut(index as usize)
            .ok_or_else(|| refused(format!("return {ret} has no element {index}")))?;
        if slot.is_some() {
            return Err(refused(format!(
                "element {index} of return {ret} written twice"
            )));
        }
        *slot = Some(ub);
        Ok(())
    }

    /// The function, every return element written, its bounds what the stores derived.
    pub fn finish(mut self) -> Result<VFunction, Error> {
        for (r, w) in self.f.returns.iter_mut().zip(&self.written) {
            for (i, x) in w.iter().enumerate() {
                r.ubound[i] =
                    x.ok_or_else(|| refused(format!("element {i} of `{}` not written", r.name)))?;
                r.lbound[i] = 0;
            }
        }
        Ok(self.f)
    }
}

impl VFunction {
    /// The scalar expansion: the function's meaning (see the module docs). Each lane of
    /// each operation becomes the scalar operations that define it; a multiply-add's
    /// operands are masked to 52 bits once per value, and the low and high halves of
    /// one product share its `mulx`.
    pub fn expand(&self) -> Function {
        let mut f = Function::new(self.name.clone(), self.params.clone(), self.returns.clone());
        let mut vals: Vec<[Operand; LANES]> = Vec::with_capacity(self.insts.len());
        let mut low52: HashMap<Operand, Operand> = HashMap::new();
        let mut products: HashMap<(Operand, Operand), (Operand, Operand)> = HashMap::new();
        let u64 = Ty::U64;
        let c = |x: u64| Operand::Const(x as u128);
        for inst in &self.insts {
            let arg = |i: usize| vals[inst.args[i].index()];
            let lanes: [Operand; LANES] = match inst.op {
                VOp::Load { param, index } => std::array::from_fn(|k| {
                    let op = Op::Load {
                        param,
                        index: index + k as u32,
                    };
                    f.push1(op, vec![], u64).into()
                }),
                VOp::Splat { param, index } => {
                    [f.push1(Op::Load { param, index }, vec![], u64).into(); LANES]
                }
                VOp::Gather { params, index } => {
                    params.map(|param| f.push1(Op::Load { param, index }, vec![], u64).into())
                }
                VOp::Mask { param } => {
                    let b = f.push1(Op::Load { param, index: 0 }, vec![], Ty::U1);
                    let w = f.push1(Op::Cast, vec![b.into()], u64);
                    [f.push1(Op::Sub, vec![c(0), w.into()], u64).into(); LANES]
                }
                VOp::Const(x) => x.map(c),
                VOp::Add | VOp::Sub | VOp::And | VOp::Xor | VOp::MulLo => {
                    let op = match inst.op {
                        VOp::Add => Op::Add,
                        VOp::Sub => Op::Sub,
                        VOp::And => Op::And,
                        VOp::Xor => Op::Xor,
                        _ => Op::Mul,
                    };
                    let (a, b) = (arg(0), arg(1));
                    std::array::from_fn(|k| f.push1(op, vec![a[k], b[k]], u64).into())
                }
                VOp::Shr(n) | VOp::Shl(n) => {
                    let op = if matches!(inst.op, VOp::Shr(_)) {
                        Op::Shr
                    } else {
                        Op::Shl
                    };
                    let a = arg(0);
                    std::array::from_fn(|k| f.push1(op, vec![a[k], c(n as u64)], u64).into())
                }
                VOp::Madd52Lo | VOp::Madd52Hi => {
                    let (acc, a, b) = (arg(0), arg(1), arg(2));
                    std::array::from_fn(|k| {
                        let mut m52 = |x: Operand, f: &mut Function| {
                            *low52
                                .entry(x)
                                .or_insert_with(|| f.push1(Op::And, vec![x, c(M52)], u64).into())
                        };
                        let (u, v) = (m52(a[k], &mut f), m52(b[k], &mut f));
                        let key = if u <= v { (u, v) } else { (v, u) };
                        let (lo, hi) = *products.entry(key).or_insert_with(|| {
                            let r = f.push(Op::Mulx { size: 64 }, vec![key.0, key.1], &[u64, u64]);
                            (r[0].into(), r[1].into())
                        });
                        let part = if inst.op == VOp::Madd52Lo {
                            f.push1(Op::And, vec![lo, c(M52)], u64)
                        } else {
                            // Bits 52..103: `(lo >> 52) | (hi << 12)`, in the operations
                            // of both dialects (lowering fuses it into a `shrd`).
                            let l = f.push1(Op::Shr, vec![lo, c(52)], u64);
                            let h = f.push1(Op::Shl, vec![hi, c(12)], u64);
                            f.push1(Op::Or, vec![l.into(), h.into()], u64)
                        };
                        f.push1(Op::Add, vec![acc[k], part.into()], u64).into()
                    })
                }
                VOp::Permute(sel) => {
                    let a = arg(0);
                    sel.map(|s| a[s as usize])
                }
                VOp::Blend(from_b) => {
                    let (a, b) = (arg(0), arg(1));
                    std::array::from_fn(|k| if from_b[k] { b[k] } else { a[k] })
                }
                VOp::Select => {
                    let (m, a, b) = (arg(0), arg(1), arg(2));
                    std::array::from_fn(|k| {
                        let d = f.push1(Op::Xor, vec![a[k], b[k]], u64);
                        let t = f.push1(Op::And, vec![d.into(), m[k]], u64);
                        f.push1(Op::Xor, vec![a[k], t.into()], u64).into()
                    })
                }
                VOp::Store { ret, index } => {
                    let a = arg(0);
                    for (k, &x) in a.iter().enumerate() {
                        let op = Op::Store {
                            ret,
                            index: index + k as u32,
                        };
                        f.push(op, vec![x], &[]);
                    }
                    [c(0); LANES]
                }
                VOp::Scatter { rets, index } => {
                    let a = arg(0);
                    for (k, &x) in a.iter().enumerate() {
                        f.push(
                            Op::Store {
                                ret: rets[k],
                                index,
                            },
                            vec![x],
                            &[],
                        );
                    }
                    [c(0); LANES]
                }
            };
            vals.push(lanes);
        }
        // Named as Fiat names its values, so the expansion can be written as Fiat JSON.
        for (k, v) in f.values.iter_mut().enumerate() {
            v.name.get_or_insert_with(|| format!("x{}", k + 1));
        }
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp;

    fn params() -> (Vec<Param>, Vec<Param>) {
        let p = vec![
            Param::scalar("arg1", Ty::U1, 1),
            Param::array("arg2", Ty::U64, &[M52 as u128; 4]),
            Param::array("arg3", Ty::U64, &[u64::MAX as u128; 4]),
        ];
        (
            p,
            vec![Param::array("out1", Ty::U64, &[u64::MAX as u128; 4])],
        )
    }

    /// What the builder refuses: a table of programs through one check.
    #[test]
    fn builder_refuses_what_could_lose_bits() {
        fn check(build: fn(&mut Builder) -> Result<VVal, Error>, refused: Option<&str>) {
            let (p, r) = params();
            let mut b = Builder::new("t", p, r);
            let got = build(&mut b);
            match refused {
                None => assert!(got.is_ok(), "{got:?}"),
                Some(why) => {
                    let e = got.expect_err("refused");
                    assert!(e.to_string().contains(why), "{e}");
                }
            }
        }
        // 52-bit operands multiply; a full word does not.
        check(
            |b| {
                let a = b.load(1, 0)?;
                let z = b.splat_const(0);
                b.madd52(z, a, a, false)
            },
            None,
        );
        check(
            |b| {
                let a = b.load(2, 0)?;
                let z = b.splat_const(0);
                b.madd52(z, a, a, true)
            },
            Some("exceed 2^52"),
        );
        // Sums and products within 2^64 only.
        check(
            |b| {
                let a = b.load(1, 0)?;
                b.add(a, a)
            },
            None,
        );
        check(
            |b| {
                let a = b.load(2, 0)?;
                b.add(a, a)
            },
            Some("exceed 2^64"),
        );
        check(
            |b| {
                let a = b.load(1, 0)?;
                let c = b.splat_const(4096);
                b.mul_lo(a, c)
            },
            None,
        );
        check(
            |b| {
                let a = b.load(1, 0)?;
                let c = b.splat_const(4097);
                b.mul_lo(a, c)
            },
            Some("exceed 2^64"),
        );
        // A difference that may go below zero.
        check(
            |b| {
                let a = b.load(1, 0)?;
                let c = b.splat_const(M52);
                b.sub(c, a)
            },
            None,
        );
        check(
            |b| {
                let a = b.load(1, 0)?;
                let c = b.splat_const(M52 - 1);
                b.sub(c, a)
            },
            Some("may be below"),
        );
        // A select's mask comes from a u1 argument.
        check(
            |b| {
                let m = b.mask(0)?;
                let a = b.load(1, 0)?;
                b.select(m, a, a)
            },
            None,
        );
        check(
            |b| {
                let m = b.load(1, 0)?;
                b.select(m, m, m)
            },
            Some("mask"),
        );
        check(|b| b.mask(1), Some("u1"));
        check(|b| b.load(1, 1), Some("no u64 element 4"));
    }

    /// The expansion computes what the operations say, lane by lane, on the edges of
    /// 52 bits and random words.
    #[test]
    fn expansion_computes_the_lane_operations() {
        let (p, r) = params();
        let mut b = Builder::new("t", p, r);
        let (a, x) = (b.load(1, 0).unwrap(), b.load(2, 0).unwrap());
        let m = b.mask(0).unwrap();
        let lo = b.madd52(x, a, a, false);
        // `x` may be any word: the sums wrap where the builder cannot prove they do
        // not, so build them through the raw program instead.
        assert!(lo.is_err());
        let z = b.splat_const(0);
        let lo = b.madd52(z, a, a, false).unwrap();
        let hi = b.madd52(z, a, a, true).unwrap();
        let perm = b.permute(hi, [3, 2, 1, 0]).unwrap();
        let s = b.select(m, lo, perm).unwrap();
        b.store(0, 0, s).unwrap();
        let f = b.finish().unwrap().expand();
        for d in [
            crate::validate::Dialect::Fiat,
            crate::validate::Dialect::Lowered,
        ] {
            crate::validate::validate(&f, d).unwrap();
        }
        let edge = [
            0u128,
            1,
            M52 as u128,
            (M52 - 1) as u128,
            1 << 51,
            0x0123_4567_89ab,
        ];
        for sel in [0u128, 1] {
            let input = vec![vec![sel], edge[..4].to_vec(), vec![0; 4]];
            let out = interp::run(&f, &input).unwrap();
            for k in 0..4 {
                let want = if sel == 1 {
                    (edge[3 - k] * edge[3 - k]) >> 52
                } else {
                    (edge[k] * edge[k]) & M52 as u128
                };
                assert_eq!(out[0][k], want, "lane {k}, select {sel}");
            }
        }
    }
}
