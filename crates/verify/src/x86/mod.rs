//! Symbolic execution of an x86-64 [`Program`](cryptopt_x86::Program): the checker's own
//! definition of what every instruction does.
//!
//! State: the sixteen registers (64-bit nodes), the sixteen vector registers (four
//! 64-bit lanes each), the flags CF, OF, ZF, SF (each a node,
//! a not-yet-built recipe for one, or undefined), and memory as bytes keyed by
//! (base, offset), where a base is one of the pointer arguments or the entry rsp. A byte
//! holds "byte `i` of node `x`", so a word written and read back is the same node, and
//! narrower or misaligned accesses become slices.
//!
//! Semantics follow the Intel SDM (and, where AMD's manual is stricter, AMD's: `bt`
//! leaves ZF undefined): writes to 32-bit registers zero-extend, 8- and 16-bit writes
//! keep the other bits, flags an instruction leaves undefined become undefined (reading
//! one is an error naming the instruction), shift counts are masked, a zero count
//! changes no flag.
//!
//! Memory rules (System V): input arrays may be read within their bounds, output arrays
//! written within their bounds and read back after being written, the stack between the
//! red zone below the current rsp and the entry rsp read after being written. Anything
//! else ends the run with a [`Problem`](crate::Problem) (a wrong program) or an
//! [`Error`](crate::Error) (reading what was never written, which the brief calls an
//! input problem).
//!
//! This module must never use [`cryptopt_x86::Mnemonic::flags`] or anything else of the
//! code generator's: it *is* the meaning of the instructions for the checker.
//!
//! # Layout
//!
//! * `machine`: the machine state (registers, flags, memory), running a program to its
//!   `ret`, operand reads and writes, and the dispatch of an instruction to its family;
//! * `memory`: addresses, bases, bytes, stack slots, and the System V and aliasing rules
//!   of reading and writing memory;
//! * `flags`: the state of CF, OF, ZF, SF (built lazily) and the conditions of
//!   `cmovcc`/`setcc`;
//! * the semantics of the instructions, by family: `arith` (add, adc, adcx, adox, sub,
//!   sbb, cmp, inc, dec, neg, clc, stc), `mul` (mul, imul, mulx), `logic` (not, and, or,
//!   xor, test, bt, bzhi, andn, bextr), `shift` (shl, shr, sar, shld, shrd, shlx, shrx,
//!   sarx, rorx), `moves` (mov, movzx, movsx, lea, xchg, cmovcc, setcc, push, pop; `ret`
//!   ends the run), `vector` (the AVX2 moves and lane operations compilers use).

mod arith;
mod flags;
mod logic;
mod machine;
mod memory;
mod moves;
mod mul;
mod shift;
#[cfg(test)]
mod tests;
mod vector;

pub(crate) use machine::Machine;
pub(crate) use memory::Base;
