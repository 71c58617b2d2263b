//! Executable memory and calling generated code.
//!
//! This module is the only place where cryptopt turns bytes into code it runs:
//!
//! ```text
//!   bytes ──▶ ExecMem (rw- ─copy─▶ r-x) ──ptr()──▶ Trampoline::call(f, args)
//!                                                      │  canaries in rbx, rbp, r12–r15
//!                                                      │  private stack, canary words
//!                                                      ▼  above the return address
//!                                              generated function (System V)
//!                                                      │
//!                                   record page ◀──────┘  rsp, callee-saved, flags
//!                                        │
//!                                        ▼
//!                             Ok(()) | Err(AbiViolation)
//! ```
//!
//! * [`ExecMem`]: machine code in its own page-aligned anonymous mapping. It is written
//!   while the pages are `rw-` and then flipped to `r-x`; [`ExecMem::load`] reuses one
//!   mapping for candidate after candidate (flip to `rw-`, copy, flip to `r-x`).
//! * [`Trampoline`]: a small piece of machine code, generated once, that calls a
//!   generated function on a private stack, with canary values in the callee-saved
//!   registers and above the return address, and records what the callee left behind
//!   in a separate `rw-` page; [`Trampoline::call`] turns that record into `Ok(())` or an
//!   [`AbiViolation`] naming each rule that was broken.
//! * `OwnStack` (crate-internal): a private stack with a page-aligned top, on which
//!   [`crate::timing`] runs its batches so that every process times the same addresses.
//!
//! What this module must never do:
//!
//! * map a page writable and executable at once. There is no way to ask for `rwx`: the
//!   only protections it uses are `rw-`, `r-x` and `---`, and code is only ever written
//!   while its pages are `rw-`;
//! * let a generated function run with the caller's stack or the caller's callee-saved
//!   registers in reach: the trampoline saves them on the caller's stack and switches
//!   to its own, so an unbalanced or scribbling callee is reported, not a crash in Rust
//!   code long after the call.

mod mem;
mod stack;
mod trampoline;

pub use mem::ExecMem;
pub(crate) use stack::OwnStack;
pub use trampoline::{
    AbiProblem, AbiViolation, CalleeSaved, Trampoline, MAX_ARGS, POISON, REGISTER_CANARIES,
    STACK_BYTES, STACK_CANARIES,
};
