//! The IR validator: structural well-formedness, checked after the front end and after
//! every lowering pass (in tests and debug builds; see [`crate::lower`]).
//!
//! It reports *all* problems, not the first: use before definition, wrong arity or
//! result types, widths that don't fit, loads and stores out of bounds, outputs written
//! never or twice, and (for the lowered dialect) anything wider than 64 bits or signed.
//!
//! It checks structure only; what an operation computes is the interpreter's business.

use std::fmt;

use crate::error::{Error, Result};
use crate::func::{Function, Inst, Op, Operand, Ty};

/// Which dialect's extra rules apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// As read from Fiat JSON: anything up to 128 bits.
    Fiat,
    /// After lowering: unsigned types of at most 64 bits, constant shift amounts.
    Lowered,
}

/// One problem found by the validator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub inst: Option<Inst>,
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.inst {
            Some(i) => write!(f, "inst {}: {}", i.0, self.message),
            None => write!(f, "{}", self.message),
        }
    }
}

/// Validates `f`; `Err(Error::Invalid)` lists every problem found.
pub fn validate(f: &Function, dialect: Dialect) -> Result<()> {
    let problems = problems(f, dialect);
    if problems.is_empty() {
        Ok(())
    } else {
        Err(Error::Invalid {
            function: f.name.clone(),
            problems,
        })
    }
}

/// Like [`validate`] but only in debug builds (and so in tests); free in release builds.
pub fn debug_validate(f: &Function, dialect: Dialect) -> Result<()> {
    if cfg!(debug_assertions) {
        validate(f, dialect)
    } else {
        Ok(())
    }
}

/// Every problem of `f`, in instruction order.
pub fn problems(f: &Function, dialect: Dialect) -> Vec<Problem> {
    let mut out = Vec::new();
    let mut written: Vec<Vec<u32>> = f.returns.iter().map(|r| vec![0; r.elems()]).collect();
    for (k, data) in f.insts.iter().enumerate() {
        let inst = Inst(k as u32);
        let mut bad = |message: String| {
            out.push(Problem {
                inst: Some(inst),
                message: format!("{}: {message}", data.op.name()),
            })
        };
        // Operands defined earlier, by the instruction the value table says.
        for a in &data.args {
            if let Operand::Value(v) = *a {
                match f.values.get(v.index()) {
                    None => bad(format!("operand {v} does not exist")),
                    Some(vd) if vd.def.0 as usize >= k => {
                        bad(format!("{v} used before its definition"))
                    }
                    Some(vd) if !f.insts[vd.def.index()].results.contains(&v) => {
                        bad(format!("{v} is not a result of its defining instruction"))
                    }
                    Some(_) => {}
                }
            }
        }
        for &r in &data.results {
            match f.values.get(r.index()) {
                Some(vd) if vd.def == inst => {}
                _ => bad(format!(
                    "result {r} does not point back to this instruction"
                )),
            }
        }
        match data.op.arity() {
            Some(n) if data.args.len() != n => {
                bad(format!("{} operands, expected {n}", data.args.len()))
            }
            None if data.args.len() < 2 => {
                bad(format!("{} operands, expected at least 2", data.args.len()))
            }
            _ => {}
        }
        if data.results.len() != data.op.results() {
            bad(format!(
                "{} results, expected {}",
                data.results.len(),
                data.op.results()
            ));
            continue;
        }
        // Types of everything, where they exist.
        let rty: Vec<Ty> = data
            .results
            .iter()
            .filter_map(|r| f.values.get(r.index()).map(|d| d.ty))
            .collect();
        if rty.len() != data.results.len() {
            continue;
        }
        let arg_bits = |o: &Operand| -> u32 {
            match *o {
                Operand::Value(v) => f.values.get(v.index()).map_or(0, |d| d.ty.bits as u32),
                Operand::Const(c) => 128 - c.leading_zeros(),
            }
        };
        match data.op {
            Op::Load { param, index } => match f.params.get(param as usize) {
                None => bad(format!("argument #{param} does not exist")),
                Some(p) => {
                    if index as usize >= p.elems() {
                        bad(format!(
                            "{}[{index}] is out of bounds ({})",
                            p.name,
                            p.shape()
                        ));
                    }
                    if rty[0] != p.ty {
                        bad(format!("loads {} as {}", p.ty, rty[0]));
                    }
                }
            },
            Op::Store { ret, index } => match f.returns.get(ret as usize) {
                None => bad(format!("return #{ret} does not exist")),
                Some(p) => {
                    if index as usize >= p.elems() {
                        bad(format!(
                            "{}[{index}] is out of bounds ({})",
                            p.name,
                            p.shape()
                        ));
                    } else {
                        written[ret as usize][index as usize] += 1;
                    }
                    if let Some(a) = data.args.first() {
                        let fits = match *a {
                            Operand::Value(v) => f.values.get(v.index()).is_none_or(|d| {
                                d.ty == p.ty
                                    || (!d.ty.signed && !p.ty.signed && d.ty.bits <= p.ty.bits)
                            }),
                            Operand::Const(c) => c <= p.ty.mask(),
                        };
                        if !fits {
                            bad(format!(
                                "stores a value that does not fit {} into {}",
                                p.ty, p.name
                            ));
                        }
                    }
                }
            },
            Op::Mulx { size } | Op::AddCarry { size } | Op::SubBorrow { size } => {
                let want = if matches!(data.op, Op::Mulx { .. }) {
                    [Ty::uint(size), Ty::uint(size)]
                } else {
                    [Ty::uint(size), Ty::U1]
                };
                if rty[..] != want[..] {
                    bad(format!("result types {rty:?}, expected {want:?}"));
                }
                if size == 0 || size > 64 {
                    bad(format!("size {size} not in 1..=64"));
                }
                for a in &data.args {
                    if arg_bits(a) > 64 {
                        bad("operand wider than 64 bits".to_string());
                    }
                }
            }
            Op::Shl | Op::Shr | Op::Sar { .. } => match data.args.get(1) {
                Some(Operand::Const(c)) if *c < 128 => {}
                _ => bad("shift amount must be a literal below 128".to_string()),
            },
            Op::Shrd { n } => {
                if n == 0 || n >= 64 {
                    bad(format!("shrd amount {n} not in 1..64"));
                }
                if data.args.iter().any(|a| arg_bits(a) > 64) || rty[0] != Ty::U64 {
                    bad("shrd works on u64".to_string());
                }
            }
            _ => {}
        }
        if dialect == Dialect::Lowered {
            for t in rty.iter().chain(
                data.args
                    .iter()
                    .filter_map(|a| f.operand_ty(*a))
                    .collect::<Vec<_>>()
                    .iter(),
            ) {
                if t.signed || t.bits > 64 {
                    bad(format!("type {t} is not allowed after lowering"));
                }
            }
            for a in &data.args {
                if matches!(a, Operand::Const(_)) && arg_bits(a) > 64 {
                    bad("literal wider than 64 bits after lowering".to_string());
                }
            }
        }
    }
    for (r, counts) in written.iter().enumerate() {
        let p = &f.returns[r];
        for (i, &n) in counts.iter().enumerate() {
            let what = match p.len {
                Some(_) => format!("{}[{i}]", p.name),
                None => p.name.clone(),
            };
            if n == 0 {
                out.push(Problem {
                    inst: None,
                    message: format!("output {what} is never written"),
                });
            } else if n > 1 {
                out.push(Problem {
                    inst: None,
                    message: format!("output {what} is written {n} times"),
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::func::{Param, Value};

    fn param(name: &str, ty: Ty, len: Option<u32>) -> Param {
        Param::unbounded(name, ty, len)
    }

    /// A broken function: the validator reports every problem, not only the first.
    #[test]
    fn reports_all_problems() {
        let mut f = Function::new(
            "bad",
            vec![param("arg1", Ty::U64, Some(2))],
            vec![param("out1", Ty::U64, Some(2))],
        );
        let a = f.push1(Op::Load { param: 0, index: 5 }, vec![], Ty::U64);
        // uses a value defined later
        f.push1(Op::Add, vec![Operand::Value(Value(3)), a.into()], Ty::U64);
        let s = f.push1(Op::Shl, vec![a.into(), a.into()], Ty::U64);
        let _late = f.push1(Op::Cast, vec![a.into()], Ty::U64);
        f.push(Op::Store { ret: 0, index: 0 }, vec![s.into()], &[]);
        f.push(Op::Store { ret: 0, index: 0 }, vec![s.into()], &[]);
        let msgs: Vec<String> = problems(&f, Dialect::Fiat)
            .iter()
            .map(|p| p.to_string())
            .collect();
        let want = [
            "inst 0: load: arg1[5] is out of bounds (u64[2])",
            "inst 1: add: v3 used before its definition",
            "inst 2: shl: shift amount must be a literal below 128",
            "output out1[0] is written 2 times",
            "output out1[1] is never written",
        ];
        assert_eq!(msgs, want);
    }

    #[test]
    fn lowered_dialect_rejects_wide_and_signed() {
        let mut f = Function::new(
            "w",
            vec![param("arg1", Ty::U64, None)],
            vec![param("out1", Ty::U64, None)],
        );
        let a = f.push1(Op::Load { param: 0, index: 0 }, vec![], Ty::U64);
        let w = f.push1(Op::Cast, vec![a.into()], Ty::U128);
        let s = f.push1(Op::Cast, vec![w.into()], Ty::int(64));
        let o = f.push1(Op::Cast, vec![s.into()], Ty::U64);
        f.push(Op::Store { ret: 0, index: 0 }, vec![o.into()], &[]);
        assert!(validate(&f, Dialect::Fiat).is_ok());
        let msgs: Vec<String> = problems(&f, Dialect::Lowered)
            .iter()
            .map(|p| p.to_string())
            .collect();
        assert_eq!(msgs.len(), 4, "{msgs:?}");
        assert!(msgs[0].contains("type u128 is not allowed"));
    }
}
