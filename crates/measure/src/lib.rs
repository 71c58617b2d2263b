//! Running generated x86-64 code in-process: executable memory, an ABI-checking call
//! trampoline, cycle counters, and interleaved batch measurement with statistics.
//!
//! ```text
//!   machine code ──ExecMem::load──▶ r-x pages ──Trampoline::call──▶ Ok(()) | AbiViolation
//! ```
//!
//! * [`exec`]: page-aligned executable memory ([`ExecMem`]) and the call trampoline
//!   ([`Trampoline`]) that runs a generated function with the System V ABI and reports
//!   the ways it broke the convention instead of crashing later.
//!
//! * [`layout`]: where a function's arguments live in memory for an in-process call
//!   (buffers, guard words, which output shares which input's buffer).
//!
//! * [`diff`]: differential testing of machine code against the reference interpreter.
//!
//! * [`baseline`]: C source compiled by gcc/clang into a shared object and loaded, the
//!   baseline the optimizer's code is measured against.
//!
//! * [`counter`]: the clock batches are timed with (core cycles through `rdpmc` where the
//!   kernel allows it, `lfence; rdtsc; lfence` otherwise), its overhead, CPU pinning.
//!
//! * [`stats`]: repeated comparisons trusted by a halves t-test, geometric means.
//!
//! * [`timing`]: interleaved batch measurement of several verified
//!   implementations of one function, with every round's outputs handed to a caller's
//!   check.
//!
//! Memory is never writable and executable at once (see [`exec`]).

#[cfg(not(all(target_arch = "x86_64", unix)))]
compile_error!("cryptopt-measure runs x86-64 machine code in-process: it needs an x86-64 Unix");

pub mod baseline;
pub mod counter;
pub mod diff;
pub mod error;
pub mod exec;
pub mod layout;
pub mod stats;
pub mod timing;

pub use error::{Error, Result};
pub use exec::{AbiProblem, AbiViolation, CalleeSaved, ExecMem, Trampoline};
