//! How an IR function's arguments reach machine code (Fiat's C signature under a calling
//! convention): one word per argument, outputs first (always pointers), then the
//! parameters (arrays as pointers, scalars by value); the first in registers, the rest
//! on the caller's stack ([`cryptopt_x86::Abi::arg_location`]: System V or Windows x64). Shared by both executors so that an input
//! element is the same leaf on both sides.
//!
//! This module must never decide what code computes; it only names memory.

use cryptopt_ir::{Function, Param};

use crate::error::{Error, Result};
use crate::graph::{mask, Graph, NodeId, Sym};

/// What argument register `k` carries (an argument's placement; not a stack slot).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ArgSlot {
    /// A pointer to return `ret` (scalars too: one element).
    Output { ret: usize },
    /// A pointer to the elements of array parameter `param`.
    Array { param: usize },
    /// The value of scalar parameter `param`.
    Scalar { param: usize },
}

/// The placement of every argument, in C order (`args[k]` is at
/// `conv.arg_location(k)`), and the convention the program must keep.
pub(crate) struct Abi {
    pub args: Vec<ArgSlot>,
    pub conv: cryptopt_x86::Abi,
}

impl Abi {
    pub fn new(f: &Function, conv: cryptopt_x86::Abi) -> Result<Abi> {
        let mut args: Vec<ArgSlot> = (0..f.returns.len())
            .map(|ret| ArgSlot::Output { ret })
            .collect();
        for (param, p) in f.params.iter().enumerate() {
            args.push(if p.len.is_some() {
                ArgSlot::Array { param }
            } else {
                ArgSlot::Scalar { param }
            });
        }
        for p in f.returns.iter().chain(&f.params) {
            if p.ty.bits > 64 {
                return Err(Error::Function {
                    function: f.name.clone(),
                    message: format!("`{}` of type {} is wider than a register", p.name, p.ty),
                });
            }
        }
        Ok(Abi { args, conv })
    }

    /// The parameter or return behind pointer argument `k`, with its byte size.
    pub fn array<'f>(&self, f: &'f Function, k: usize) -> Option<(&'f Param, i64)> {
        let p = match self.args.get(k)? {
            ArgSlot::Output { ret } => &f.returns[*ret],
            ArgSlot::Array { param } => &f.params[*param],
            ArgSlot::Scalar { .. } => return None,
        };
        Some((p, p.elem_bytes() as i64 * p.elems() as i64))
    }

    /// `out1[2]`, `arg1[0]` or `arg1 + 33` for byte `off` of pointer argument `k`.
    pub fn describe(&self, f: &Function, k: usize, off: i64) -> String {
        match self.array(f, k) {
            Some((p, size)) => {
                let eb = p.elem_bytes() as i64;
                if (0..size).contains(&off) {
                    if p.len.is_some() {
                        if off % eb == 0 {
                            format!("{}[{}]", p.name, off / eb)
                        } else {
                            format!("{}[{}] (byte {})", p.name, off / eb, off % eb)
                        }
                    } else {
                        p.name.clone()
                    }
                } else {
                    format!("{}{:+} (outside {})", p.name, off, p.shape())
                }
            }
            None => format!("argument {k}"),
        }
    }
}

/// The leaf for element `index` of parameter `param`, bounded by its declared bounds.
pub(crate) fn input(g: &mut Graph, f: &Function, param: usize, index: usize) -> NodeId {
    let p = &f.params[param];
    let ub = if p.ty.signed {
        mask(p.ty.bits as u32)
    } else {
        p.ubound
            .get(index)
            .copied()
            .unwrap_or(u128::MAX)
            .min(mask(p.ty.bits as u32))
    };
    let name = match p.len {
        Some(_) => format!("{}[{index}]", p.name),
        None => p.name.clone(),
    };
    g.sym(
        Sym::Input {
            param: param as u32,
            index: index as u32,
        },
        ub,
        name,
    )
}
