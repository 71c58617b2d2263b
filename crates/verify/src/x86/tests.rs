//! Tests of the x86 executor: the helpers that run a snippet of instructions
//! symbolically and evaluate the result; the semantics and error tables
//! (`semantics`); and the comparison of every modelled instruction with the CPU the
//! tests run on (`cpu`).
//!
//! These tests must never weaken the executor's meaning to make a snippet pass: a
//! disagreement with the CPU is a bug of the executor (or of the table).

use cryptopt_ir::Function;
use cryptopt_x86::{Inst, Reg};

use super::flags::FlagState;
use super::machine::{Fail, Machine};
use crate::abi::Abi;
use crate::graph::{Graph, NodeId, Sym};
use crate::verdict::Aliasing;

mod cpu;
mod semantics;

/// The outcome of running a snippet symbolically: register nodes, flag nodes
/// (`None`: undefined), and the graph to evaluate them in.
pub(super) struct Snippet {
    pub g: Graph,
    pub regs: [NodeId; 16],
    pub flags: [Option<NodeId>; 4],
}

/// Runs `insts` from registers holding their `Init` symbols and flags set to the
/// given constants (`None`: undefined, as at a function's entry); an input error or a
/// problem (a failed check) as its message.
pub(super) fn run_insts(
    insts: &[Inst],
    flags: [Option<u128>; 4],
) -> std::result::Result<Snippet, String> {
    let f = Function::new("t", vec![], vec![]);
    let abi = Abi::new(&f, cryptopt_x86::Abi::SysV).map_err(|e| e.to_string())?;
    let mut g = Graph::new();
    let (regs, out_flags) = {
        let mut m = Machine::new(&mut g, &f, &abi, Aliasing::None);
        for (i, v) in flags.iter().enumerate() {
            if let Some(v) = v {
                m.flags[i] = FlagState::Node(m.g.konst(*v));
            }
        }
        for (i, inst) in insts.iter().enumerate() {
            m.index = i;
            m.inst = *inst;
            match m.step() {
                Ok(_) => {}
                Err(Fail::Error(e)) => return Err(e.to_string()),
                Err(Fail::Problem(p)) => return Err(p.to_string()),
            }
        }
        let mut fl = [None; 4];
        for (i, slot) in fl.iter_mut().enumerate() {
            *slot = m.flag(i).ok();
        }
        (m.regs, fl)
    };
    Ok(Snippet {
        g,
        regs,
        flags: out_flags,
    })
}

/// Concrete values of a snippet's registers and flags for initial registers `init`.
pub(super) fn evaluate(s: &Snippet, init: &[u64; 16]) -> ([u64; 16], [Option<u64>; 4]) {
    let vals = s.g.eval(&mut |sym| match sym {
        Sym::Init(r) => init[r.index()] as u128,
        Sym::Rsp0 => init[Reg::Rsp.index()] as u128,
        _ => 0,
    });
    let mut regs = [0u64; 16];
    for (r, n) in regs.iter_mut().zip(s.regs) {
        *r = vals[n.index()] as u64;
    }
    let mut flags = [None; 4];
    for (f, n) in flags.iter_mut().zip(s.flags) {
        *f = n.map(|n| vals[n.index()] as u64);
    }
    (regs, flags)
}

pub(super) fn parse(asm: &str) -> Vec<Inst> {
    asm.split(';')
        .map(|l| cryptopt_x86::parse::parse_inst(l.trim()).expect("test asm"))
        .collect()
}
