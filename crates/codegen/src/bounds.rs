//! A small range analysis on the lowered function: an upper bound for the 64-bit
//! machine result of each operation, used to leave out truncations that cannot change
//! anything. Only upper bounds; "unknown" is `u64::MAX`.
//!
//! It must never under-estimate: a bound below a value the operation can produce would
//! leave out a truncation the result needs.

use cryptopt_ir::{Function, Op, Operand};

/// Per value: an upper bound of the value itself (after wrapping to its type).
pub struct Bounds {
    pub ub: Vec<u64>,
}

const MAX: u64 = u64::MAX;

impl Bounds {
    pub fn new(f: &Function) -> Bounds {
        let mut ub = vec![MAX; f.values.len()];
        for d in &f.insts {
            let b = |o: &Operand| -> u64 {
                match *o {
                    Operand::Const(c) => c.min(MAX as u128) as u64,
                    Operand::Value(v) => ub[v.index()],
                }
            };
            let raw = raw_bound(f, d.op, &d.args, &b);
            // A product's bound; its high half is at most the bound's high half.
            let prod = match d.op {
                Op::Mulx { .. } => b(&d.args[0]) as u128 * b(&d.args[1]) as u128,
                _ => 0,
            };
            for (k, &r) in d.results.iter().enumerate() {
                let mask = f.ty(r).mask().min(MAX as u128) as u64;
                let raw = match (d.op, k) {
                    (Op::Mulx { .. }, 0) => prod.min(MAX as u128) as u64,
                    (Op::Mulx { size }, _) => (prod >> size.min(64)).min(MAX as u128) as u64,
                    (Op::AddCarry { .. } | Op::SubBorrow { .. }, 1) => 1,
                    (Op::AddCarry { .. } | Op::SubBorrow { .. }, _) => MAX,
                    (Op::Load { param, index }, _) => {
                        let p = &f.params[param as usize];
                        p.ubound[index as usize].min(MAX as u128) as u64
                    }
                    _ => raw,
                };
                ub[r.index()] = raw.min(mask);
            }
        }
        Bounds { ub }
    }

    /// Does the sum `d` (an `add`) stay below 2^64, so that every carry out of a chain
    /// computing it (any partial sum, any order) is 0?
    pub fn sum_fits(&self, d: &cryptopt_ir::InstData) -> bool {
        d.args
            .iter()
            .try_fold(0u64, |acc, a| {
                acc.checked_add(match *a {
                    Operand::Const(c) => u64::try_from(c).ok()?,
                    Operand::Value(v) => self.ub[v.index()],
                })
            })
            .is_some()
    }

    /// Does the 64-bit machine result of the one-result instruction `d` (computed with
    /// 64-bit wrap-around) need truncating to its type?
    pub fn needs_truncation(&self, f: &Function, d: &cryptopt_ir::InstData) -> bool {
        let ty = f.ty(d.results[0]);
        if ty.bits >= 64 {
            return false;
        }
        let b = |o: &Operand| -> u64 {
            match *o {
                Operand::Const(c) => c.min(MAX as u128) as u64,
                Operand::Value(v) => self.ub[v.index()],
            }
        };
        raw_bound(f, d.op, &d.args, &b) > ty.mask() as u64
    }
}

/// An upper bound of the 64-bit machine result of a one-result operation.
fn raw_bound(_f: &Function, op: Op, args: &[Operand], b: &dyn Fn(&Operand) -> u64) -> u64 {
    let fill = |x: u64| if x == 0 { 0 } else { MAX >> x.leading_zeros() };
    match op {
        Op::Add => args
            .iter()
            .try_fold(0u64, |acc, a| acc.checked_add(b(a)))
            .unwrap_or(MAX),
        Op::Mul => args
            .iter()
            .try_fold(1u64, |acc, a| acc.checked_mul(b(a)))
            .unwrap_or(MAX),
        Op::And => args.iter().map(b).min().unwrap_or(MAX),
        Op::Or | Op::Xor => fill(args.iter().map(b).max().unwrap_or(MAX)),
        Op::Shr => match args[1] {
            Operand::Const(n) if n < 64 => b(&args[0]) >> n,
            _ => 0,
        },
        Op::Shl => match args[1] {
            Operand::Const(n) if n < 64 && b(&args[0]).leading_zeros() as u128 >= n => {
                b(&args[0]) << n
            }
            Operand::Const(n) if n >= 64 => 0,
            _ => MAX,
        },
        Op::Cmovznz => b(&args[1]).max(b(&args[2])),
        Op::LNot => 1,
        Op::Cast => b(&args[0]),
        _ => MAX,
    }
}
