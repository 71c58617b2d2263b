//! The one error type of the measure crate.

use std::io;

use thiserror::Error;

use crate::exec::AbiViolation;

#[derive(Debug, Error)]
pub enum Error {
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
    #[error("assembling the call trampoline failed: {0}")]
    Assemble(iced_x86::IcedError),
    /// Generated code broke the System V calling convention.
    #[error(transparent)]
    Abi(#[from] AbiViolation),
    /// Generated code computed something else than the interpreter (or could not be run
    /// on the given inputs); the message says what, where and on which inputs.
    #[error("{0}")]
    Mismatch(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
