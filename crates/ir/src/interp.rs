//! The reference interpreter: the oracle for everything downstream.
//!
//! Semantics are those of Fiat Cryptography's C output: every operation computes on the
//! exact integer values of its operands — a signed operand is read as signed — and its
//! result wraps to the operation's result type (two's complement for signed types). All
//! types are at most 128 bits wide, so values are kept as their 128-bit pattern and
//! arithmetic is done modulo 2^128, which is exact for everything except right shifts;
//! those read the operand (already exact, by its own type) as `u128` or `i128`.
//!
//! This module must stay small and obviously right: it is checked against the
//! `fiat-crypto` crate and against number theory (see the tests), and must never share
//! code with the lowering it checks beyond the data model.

use crate::error::{Error, Result};
use crate::func::{Function, Op, Operand, Ty};

/// Runs `f` on concrete inputs: one `Vec` per argument (one element for a scalar), each
/// element a value of the argument's type (for signed types, its bit pattern). Returns
/// one `Vec` per return, in the same form.
pub fn run(f: &Function, inputs: &[Vec<u128>]) -> Result<Vec<Vec<u128>>> {
    let mut scratch = Vec::new();
    run_with(f, inputs, &mut scratch)
}

/// [`run`] with a caller-owned scratch buffer, for hot loops.
pub fn run_with(
    f: &Function,
    inputs: &[Vec<u128>],
    vals: &mut Vec<u128>,
) -> Result<Vec<Vec<u128>>> {
    check_inputs(f, inputs)?;
    vals.clear();
    vals.resize(f.values.len(), 0);
    let mut outs: Vec<Vec<Option<u128>>> =
        f.returns.iter().map(|r| vec![None; r.elems()]).collect();
    let (mut args, mut arg_tys) = (Vec::new(), Vec::new());
    for data in &f.insts {
        args.clear();
        arg_tys.clear();
        for a in &data.args {
            // Exact operand values modulo 2^128 (sign-extended for signed operands).
            match *a {
                Operand::Const(c) => {
                    args.push(c);
                    arg_tys.push(None);
                }
                Operand::Value(v) => {
                    let ty = f.ty(v);
                    args.push(ty.extend(vals[v.index()]));
                    arg_tys.push(Some(ty));
                }
            }
        }
        match data.op {
            Op::Load { param, index } => {
                vals[data.results[0].index()] = inputs[param as usize][index as usize];
            }
            Op::Store { ret, index } => {
                let ty = f.returns[ret as usize].ty;
                outs[ret as usize][index as usize] = Some(ty.wrap(args[0]));
            }
            op => {
                let tys = [
                    f.ty(data.results[0]),
                    data.results.get(1).map_or(Ty::U1, |&v| f.ty(v)),
                ];
                let r = eval(op, &args, &arg_tys, tys);
                for (k, v) in data.results.iter().enumerate() {
                    vals[v.index()] = r[k];
                }
            }
        }
    }
    outs.into_iter()
        .zip(&f.returns)
        .map(|(o, p)| {
            o.into_iter()
                .collect::<Option<Vec<u128>>>()
                .ok_or_else(|| Error::BadInputs {
                    function: f.name.clone(),
                    message: format!("output {} is not written (function not verified?)", p.name),
                })
        })
        .collect()
}

/// The meaning of one computing operation (not `Load`/`Store`): `args` are the exact
/// operand values modulo 2^128, `arg_tys` their types (`None` for literals), `res` the
/// result types (the second is ignored by one-result operations). Returns the results
/// wrapped to their types.
pub fn eval(op: Op, args: &[u128], arg_tys: &[Option<Ty>], res: [Ty; 2]) -> [u128; 2] {
    let fold = |init: u128, g: fn(u128, u128) -> u128| args.iter().fold(init, |acc, &x| g(acc, x));
    let signed_from = |from: u8, x: u128| Ty::int(from).extend(Ty::uint(from).wrap(x));
    let (x, y): (u128, u128) = match op {
        Op::Load { .. } | Op::Store { .. } => unreachable!("eval of {op:?}"),
        Op::Cast => (args[0], 0),
        Op::Sext { from } => (signed_from(from, args[0]), 0),
        Op::Add => (fold(0, u128::wrapping_add), 0),
        Op::Mul => (fold(1, u128::wrapping_mul), 0),
        Op::And => (fold(u128::MAX, |a, b| a & b), 0),
        Op::Or => (fold(0, |a, b| a | b), 0),
        Op::Xor => (fold(0, |a, b| a ^ b), 0),
        Op::Sub => (args[0].wrapping_sub(args[1]), 0),
        Op::Not => (!args[0], 0),
        Op::LNot => ((args[0] == 0) as u128, 0),
        Op::Shl => (shl(args[0], args[1]), 0),
        Op::Shr => {
            let signed = arg_tys[0].is_some_and(|t| t.signed);
            (shr(args[0], args[1], signed), 0)
        }
        Op::Sar { from } => (shr(signed_from(from, args[0]), args[1], true), 0),
        Op::Shrd { n } => {
            let (lo, hi) = (args[0] as u64, args[1] as u64);
            (((lo >> n) | (hi << (64 - n))) as u128, 0)
        }
        Op::Mulx { size } => {
            let p = args[0].wrapping_mul(args[1]);
            (p, p >> size)
        }
        Op::AddCarry { size } => {
            let s = args[0].wrapping_add(args[1]).wrapping_add(args[2]);
            (s, s >> size)
        }
        Op::SubBorrow { size } => {
            // a - b - c as i128 (operands are at most 64 bits, so this is exact).
            let s = (args[1] as i128) - (args[2] as i128) - (args[0] as i128);
            (s as u128, (s >> size).wrapping_neg() as u128)
        }
        Op::Cmovznz => (if args[0] == 0 { args[1] } else { args[2] }, 0),
    };
    [res[0].wrap(x), res[1].wrap(y)]
}

fn shl(x: u128, n: u128) -> u128 {
    if n >= 128 {
        0
    } else {
        x << n
    }
}

fn shr(x: u128, n: u128, signed: bool) -> u128 {
    let n = n.min(127) as u32;
    if signed {
        ((x as i128) >> n) as u128
    } else if n >= 128 {
        0
    } else {
        x >> n
    }
}

/// Checks that `inputs` has the shape of `f`'s arguments and every element fits its type.
pub fn check_inputs(f: &Function, inputs: &[Vec<u128>]) -> Result<()> {
    let bad = |message: String| Error::BadInputs {
        function: f.name.clone(),
        message,
    };
    if inputs.len() != f.params.len() {
        return Err(bad(format!(
            "{} arguments given, {} expected",
            inputs.len(),
            f.params.len()
        )));
    }
    for (p, vals) in f.params.iter().zip(inputs) {
        if vals.len() != p.elems() {
            return Err(bad(format!(
                "{} has {} elements, {} expected ({})",
                p.name,
                vals.len(),
                p.elems(),
                p.shape()
            )));
        }
        if let Some((i, v)) = vals.iter().enumerate().find(|(_, v)| p.ty.wrap(**v) != **v) {
            return Err(bad(format!(
                "{}[{i}] = {v:#x} does not fit {}",
                p.name, p.ty
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::func::Param;

    fn p(name: &str, ty: Ty) -> Param {
        Param::unbounded(name, ty, None)
    }

    /// One operation on two inputs of the given types, result of type `rt`; returns
    /// the results (one or two).
    fn check(op: Op, tys: &[Ty], rts: &[Ty], ins: &[u128], consts: &[u128]) -> Vec<u128> {
        let params: Vec<Param> = tys
            .iter()
            .enumerate()
            .map(|(i, &t)| p(&format!("arg{i}"), t))
            .collect();
        let rets: Vec<Param> = rts
            .iter()
            .enumerate()
            .map(|(i, &t)| p(&format!("out{i}"), t))
            .collect();
        let mut f = Function::new("t", params, rets);
        let mut args: Vec<Operand> = (0..tys.len())
            .map(|i| {
                f.push1(
                    Op::Load {
                        param: i as u32,
                        index: 0,
                    },
                    vec![],
                    tys[i],
                )
                .into()
            })
            .collect();
        args.extend(consts.iter().map(|&c| Operand::Const(c)));
        let res = f.push(op, args, rts).to_vec();
        for (i, r) in res.iter().enumerate() {
            f.push(
                Op::Store {
                    ret: i as u32,
                    index: 0,
                },
                vec![(*r).into()],
                &[],
            );
        }
        crate::validate::validate(&f, crate::validate::Dialect::Fiat).unwrap();
        let inputs: Vec<Vec<u128>> = ins.iter().map(|&x| vec![x]).collect();
        run(&f, &inputs)
            .unwrap()
            .into_iter()
            .map(|v| v[0])
            .collect()
    }

    const M64: u128 = u64::MAX as u128;

    /// op, argument types, result types, inputs, literal operands, expected results.
    type Case<'a> = (Op, &'a [Ty], &'a [Ty], &'a [u128], &'a [u128], &'a [u128]);

    #[test]
    fn semantics_table() {
        let (u1, u8_, u64_, u128_, i1, i64_, i128_) = (
            Ty::U1,
            Ty::U8,
            Ty::U64,
            Ty::U128,
            Ty::int(1),
            Ty::int(64),
            Ty::int(128),
        );
        let cases: &[Case<'_>] = &[
            // op, arg types, result types, inputs, literal operands, expected
            (Op::Add, &[u64_, u64_], &[u64_], &[M64, 2], &[], &[1]),
            (Op::Add, &[u1, u64_], &[u128_], &[1, M64], &[], &[1 << 64]),
            (Op::Add, &[u64_, u64_], &[u64_], &[1, 2], &[3], &[6]),
            (
                Op::Mul,
                &[u64_, u64_],
                &[u128_],
                &[M64, M64],
                &[],
                &[M64 * M64],
            ),
            (Op::Mul, &[u64_], &[u64_], &[1 << 63], &[2], &[0]),
            (Op::Sub, &[u64_, u64_], &[u64_], &[0, 1], &[], &[M64]),
            (Op::Sub, &[u64_, u1], &[i64_], &[0, 1], &[], &[M64]),
            (Op::Not, &[u64_], &[u64_], &[0], &[], &[M64]),
            (Op::Not, &[u1], &[u1], &[1], &[], &[0]),
            (Op::LNot, &[u64_], &[u1], &[7], &[], &[0]),
            (Op::LNot, &[u64_], &[u1], &[0], &[], &[1]),
            (
                Op::Shr,
                &[u128_],
                &[u64_],
                &[(5u128 << 64) | 9],
                &[64],
                &[5],
            ),
            (Op::Shr, &[u128_], &[u1], &[3u128 << 64], &[64], &[1]),
            (Op::Shr, &[i128_], &[i1], &[u128::MAX - 5], &[64], &[1]), // -6 >> 64 = -1
            (
                Op::Shr,
                &[i64_],
                &[i64_],
                &[1u128 << 63],
                &[62],
                &[(M64 << 1) & M64],
            ), // -2^63 >> 62 = -2
            (Op::Shl, &[u64_], &[u64_], &[3], &[63], &[1 << 63]),
            (Op::Shl, &[u64_], &[u128_], &[M64], &[8], &[M64 << 8]),
            (Op::And, &[u128_], &[u64_], &[u128::MAX], &[0xff], &[0xff]),
            (Op::Or, &[u64_, u64_], &[u64_], &[0xf0, 0x0f], &[], &[0xff]),
            (Op::Xor, &[u8_, u8_], &[u8_], &[0xff, 0x0f], &[], &[0xf0]),
            (Op::Cast, &[u64_], &[u8_], &[0x1234], &[], &[0x34]),
            (Op::Cast, &[i1], &[u64_], &[1], &[], &[M64]), // (u64)(i1)-1
            (Op::Cast, &[u1], &[i1], &[1], &[], &[1]),
            (
                Op::Cmovznz,
                &[u1, u64_, u64_],
                &[u64_],
                &[0, 5, 6],
                &[],
                &[5],
            ),
            (
                Op::Cmovznz,
                &[u1, u64_, u64_],
                &[u64_],
                &[1, 5, 6],
                &[],
                &[6],
            ),
            (
                Op::Mulx { size: 64 },
                &[u64_, u64_],
                &[u64_, u64_],
                &[M64, M64],
                &[],
                &[1, M64 - 1],
            ),
            (
                Op::AddCarry { size: 64 },
                &[u1, u64_, u64_],
                &[u64_, u1],
                &[1, M64, 0],
                &[],
                &[0, 1],
            ),
            (
                Op::AddCarry { size: 51 },
                &[u1, u64_, u64_],
                &[Ty::uint(51), u1],
                &[0, (1 << 51) - 1, 1],
                &[],
                &[0, 1],
            ),
            (
                Op::SubBorrow { size: 64 },
                &[u1, u64_, u64_],
                &[u64_, u1],
                &[0, 0, 1],
                &[],
                &[M64, 1],
            ),
            (
                Op::SubBorrow { size: 64 },
                &[u1, u64_, u64_],
                &[u64_, u1],
                &[1, 5, 3],
                &[],
                &[1, 0],
            ),
            (
                Op::SubBorrow { size: 51 },
                &[u1, u64_, u64_],
                &[Ty::uint(51), u1],
                &[1, 0, 0],
                &[],
                &[(1 << 51) - 1, 1],
            ),
            (
                Op::Sar { from: 64 },
                &[u64_],
                &[u64_],
                &[1u128 << 63],
                &[63],
                &[M64],
            ),
            (
                Op::Sar { from: 8 },
                &[u64_],
                &[u64_],
                &[0x80],
                &[1],
                &[M64 - 63],
            ),
            (Op::Sext { from: 1 }, &[Ty::U1], &[u64_], &[1], &[], &[M64]),
            (
                Op::Sext { from: 64 },
                &[u64_],
                &[u128_],
                &[1 << 63],
                &[],
                &[!0u128 << 63],
            ),
            (
                Op::Shrd { n: 8 },
                &[u64_, u64_],
                &[u64_],
                &[0xab00, 0xcd],
                &[],
                &[0xcd000000000000ab],
            ),
        ];
        for (op, tys, rts, ins, consts, want) in cases {
            let got = check(*op, tys, rts, ins, consts);
            assert_eq!(
                &got[..],
                *want,
                "{op:?} {tys:?}->{rts:?} on {ins:x?} {consts:?}"
            );
        }
    }

    #[test]
    fn bad_inputs_are_reported() {
        let f = {
            let mut f = Function::new("t", vec![p("a", Ty::U8)], vec![p("o", Ty::U8)]);
            let a = f.push1(Op::Load { param: 0, index: 0 }, vec![], Ty::U8);
            f.push(Op::Store { ret: 0, index: 0 }, vec![a.into()], &[]);
            f
        };
        assert!(run(&f, &[])
            .unwrap_err()
            .to_string()
            .contains("0 arguments given, 1 expected"));
        assert!(run(&f, &[vec![256]])
            .unwrap_err()
            .to_string()
            .contains("does not fit u8"));
        assert_eq!(run(&f, &[vec![255]]).unwrap(), vec![vec![255]]);
    }
}
