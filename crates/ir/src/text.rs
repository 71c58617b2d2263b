//! The readable text form of a function, printed by `cryptopt ir` and compared by golden
//! tests. One instruction a line:
//!
//! ```text
//! fn fiat_p256_mul(arg1: u64[4], arg2: u64[4]) -> (out1: u64[4])
//!   v0: u64 = load arg1[1]
//!   v8: u64, v9: u64 = mulx.64 v3, v4
//!   store out1[0], v180
//! ```
//!
//! It is output only; nothing parses it back.

use std::fmt::Write;

use crate::func::{Function, Op, Operand};

/// Renders `f` as text.
pub fn render(f: &Function) -> String {
    let mut s = String::new();
    let sig = |ps: &[crate::func::Param]| {
        ps.iter()
            .map(|p| format!("{}: {}", p.name, p.shape()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let _ = writeln!(
        s,
        "fn {}({}) -> ({})",
        f.name,
        sig(&f.params),
        sig(&f.returns)
    );
    for data in &f.insts {
        s.push_str("  ");
        if !data.results.is_empty() {
            let rs: Vec<String> = data
                .results
                .iter()
                .map(|&v| format!("{v}: {}", f.ty(v)))
                .collect();
            let _ = write!(s, "{} = ", rs.join(", "));
        }
        let args: Vec<String> = data
            .args
            .iter()
            .map(|a| match *a {
                Operand::Value(v) => v.to_string(),
                Operand::Const(c) if c < 10 => c.to_string(),
                Operand::Const(c) => format!("{c:#x}"),
            })
            .collect();
        match data.op {
            Op::Load { param, index } => {
                let p = &f.params[param as usize];
                match p.len {
                    Some(_) => {
                        let _ = write!(s, "load {}[{index}]", p.name);
                    }
                    None => {
                        let _ = write!(s, "load {}", p.name);
                    }
                }
            }
            Op::Store { ret, index } => {
                let p = &f.returns[ret as usize];
                match p.len {
                    Some(_) => {
                        let _ = write!(s, "store {}[{index}], {}", p.name, args.join(", "));
                    }
                    None => {
                        let _ = write!(s, "store {}, {}", p.name, args.join(", "));
                    }
                }
            }
            Op::Shrd { n } => {
                let _ = write!(s, "shrd.{n} {}", args.join(", "));
            }
            Op::Mulx { size } | Op::AddCarry { size } | Op::SubBorrow { size } => {
                let _ = write!(s, "{}.{size} {}", data.op.name(), args.join(", "));
            }
            op => {
                let _ = write!(s, "{} {}", op.name(), args.join(", "));
            }
        }
        if let Some(name) = data
            .results
            .first()
            .and_then(|&v| f.values[v.index()].name.as_deref())
        {
            let _ = write!(s, "  ; {name}");
        }
        s.push('\n');
    }
    s
}
