//! The equivalence checker of cryptopt: the project's trust anchor.
//!
//! ```text
//!   IR Function ──ir──────┐
//!   (Fiat or lowered)     ├──▶ one hash-consed, normalizing graph ──▶ same output nodes?
//!   x86 Program ──x86─────┘        (graph: rules, ranges)               + ABI rules
//! ```
//!
//! [`check`](fn@check) executes the IR function (module `ir`: the interpreter's
//! semantics on nodes) and the x86-64 program (module `x86`: the checker's own meaning of
//! every instruction) from the same input symbols into one [`graph::Graph`], whose smart
//! constructors put every expression into a normal form (AC flattening, sorted
//! arguments, constant folding, range analysis, named rewrite rules for carries, flags,
//! bit slices and shifts). The program is [`Verdict::Equivalent`] when every output
//! element it writes is the very node the IR stores there, callee-saved registers and rsp
//! are restored, it writes only its outputs and its own stack, and — under [`Aliasing`] —
//! never reads an input after writing an output that may be the same memory. Otherwise
//! the [`Report`] names the differing output, both normalized expressions, and the first
//! instruction whose value the IR never computes.
//!
//! What "equivalent" means: for all inputs within the function's declared bounds (the
//! range analysis uses Fiat's `ubound`s, as Fiat's own proofs do). A program that is
//! equivalent may still be rejected (the rules are incomplete); a program that is not
//! must never be accepted.
//!
//! # Modules
//!
//! * `check`: [`check`](fn@check), [`check_asm`], [`select_program`]: both sides into
//!   one graph, the comparison of the outputs and the ABI rules, the report;
//! * `verdict`: what a check concludes ([`Verdict`], [`Report`], [`Problem`],
//!   [`Divergence`]) and the options it is made under ([`CheckOptions`], [`Aliasing`]);
//! * `abi`: where the function's arguments are (under `CheckOptions::abi`: System V or
//!   Windows x64 registers and stack slots, outputs first);
//! * `ir`: symbolic execution of the IR function;
//! * `x86`: symbolic execution of the x86-64 program: `x86::machine` (state, run,
//!   dispatch), `x86::memory`, `x86::flags`, and the instruction families `x86::arith`,
//!   `x86::mul`, `x86::logic`, `x86::shift`, `x86::moves`;
//! * [`graph`]: the expression graph: the arena and hash-consing (`graph::arena`), the
//!   range analysis (`graph::range`), the named rules (`graph::rules`), the smart
//!   constructors (`graph::bits`, `graph::arith`, `graph::bitwise`), evaluation and
//!   printing;
//! * `exact`: the exact-integer check for the outputs the normal form leaves apart:
//!   every node as a canonical polynomial over exact integers whose only truncation is
//!   an atom `P mod 2^k`, so that carry chains in any association are one polynomial;
//! * `witness`: counterexamples for what is not proved, by evaluation on input vectors
//!   (it only refutes, never proves);
//! * `sweep`: SAT sweeping for the outputs the normal form leaves apart: simulation
//!   picks candidate equal nodes, CaDiCaL proves each pair over the region where the
//!   two cones differ, proved pairs are merged;
//! * [`error`]: the errors for inputs the checker cannot check.
//!
//! This crate depends on `cryptopt-ir` and `cryptopt-x86` only (and a SAT solver, the
//! `cadical` crate). It must never share the
//! code generator's idea of what an instruction does (`Mnemonic::flags` included): it
//! defines the meaning of every instruction itself.

mod abi;
mod check;
pub mod error;
mod exact;
pub mod graph;
mod ir;
mod sweep;
mod verdict;
mod witness;
mod x86;

pub use check::{check, check_asm, check_asm_in, check_functions, select_program, AsmSource};
pub use cryptopt_x86::Abi;
pub use error::{Error, Result};
pub use verdict::{
    Aliasing, CheckOptions, Counterexample, Divergence, Problem, Report, Verdict,
    DEFAULT_STACK_LIMIT, SHOW_LIMIT,
};
