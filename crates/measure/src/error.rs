//! The one error type of the measure crate.

use std::io;
use std::path::PathBuf;

use thiserror::Error;

use crate::exec::AbiViolation;

#[derive(Debug, Error)]
pub enum Error {
    /// The counter asked for cannot be used here: `counter` is its name
    /// ([`Choice`](crate::counter::Choice)'s, `core-cycles`), `reason` why.
    #[error("counter {counter}: core cycles cannot be read here: {reason}")]
    Counter {
        counter: &'static str,
        reason: String,
    },
    /// Core cycles cannot be read on this thread (no PMU under KVM, a
    /// `perf_event_paranoid` that forbids it, no user-space `rdpmc`); `reason` says which
    /// step failed.
    #[error("{reason}")]
    NoCoreCycles { reason: String },
    /// `mmap` refused to give us memory.
    /// (The OS error is part of the message, not a `source`, so that error chains do not
    /// print it twice.)
    #[error("mmap of {bytes} bytes failed: {err}")]
    Mmap { bytes: usize, err: io::Error },
    /// `mprotect` failed; `prot` names the protection asked for (`"r-x"`, `"rw-"`, `"---"`).
    #[error("mprotect of {bytes} bytes at {addr:#x} to {prot} failed: {err}")]
    Mprotect {
        addr: usize,
        bytes: usize,
        prot: &'static str,
        err: io::Error,
    },
    /// Code handed to [`ExecMem::load`](crate::exec::ExecMem::load) is larger than the
    /// mapping it was asked to go into.
    #[error("{len} bytes of code do not fit an executable mapping of {capacity} bytes")]
    CodeTooLarge { len: usize, capacity: usize },
    /// iced-x86 could not assemble the call trampoline (a bug in this crate).
    #[error(transparent)]
    Encode(#[from] cryptopt_x86::Error),

    #[error("assembling the call trampoline failed: {0}")]
    Assemble(iced_x86::IcedError),
    /// Generated code broke the System V calling convention.
    #[error(transparent)]
    Abi(#[from] AbiViolation),
    /// Generated code computed something else than the interpreter (or could not be run
    /// on the given inputs); the message says what, where and on which inputs.
    #[error("{0}")]
    Mismatch(String),
    /// `sched_setaffinity` refused to pin the calling thread to `cpu` (or `cpu` is beyond
    /// what a CPU set can name).
    #[error("cannot pin the thread to CPU {cpu}: {err}")]
    Pin { cpu: usize, err: io::Error },
    /// Latency mode feeds each call's `out1` into the next call's `arg1`: both must be
    /// arrays of the same element width and length.
    #[error(
        "latency mode needs out1 and arg1 of the same shape: `{function}` has out1 \
         {out1} and arg1 {arg1}"
    )]
    LatencyShape {
        function: String,
        out1: String,
        arg1: String,
    },
    /// A measurement that cannot be made as asked (no programs, no batches, a null
    /// function pointer, more than six arguments).
    #[error("cannot measure `{function}`: {reason}")]
    Measure { function: String, reason: String },
    /// The C compiler for the baseline is not installed (not on `PATH`).
    #[error("compiler `{cc}` not found: install it or choose another C compiler")]
    CompilerNotFound { cc: String },
    /// The C compiler exists but could not be started.
    #[error("cannot run compiler `{cc}`: {err}")]
    CompilerRun { cc: String, err: io::Error },
    /// The C compiler rejected the baseline source; `stderr` holds its first lines.
    #[error("compiling with `{cc}` failed ({status}):\n{stderr}")]
    CompileFailed {
        cc: String,
        status: String,
        stderr: String,
    },
    /// The temporary directory (or a file in it) for the baseline could not be made.
    #[error("temporary file {}: {err}", path.display())]
    TempFile { path: PathBuf, err: io::Error },
    /// `dlopen` refused the compiled baseline.
    #[error("dlopen({}) failed: {message}", path.display())]
    Dlopen { path: PathBuf, message: String },
    /// The compiled baseline does not define a symbol asked for.
    #[error("dlsym({symbol}) failed: {message}")]
    Dlsym { symbol: String, message: String },
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
