//! The one error type of the checker: problems with the *input* of a check (an
//! instruction it does not know, an operand form it does not model, reading a flag the
//! program left undefined, reading memory nobody wrote, a function signature it cannot
//! map to System V). A program that is merely wrong is not an error: it gets a
//! [`crate::Verdict::NotEquivalent`] with a report.
//!
//! An error means "not checked": this module must never be used to say anything about
//! whether a program is equivalent (that is the [`crate::Verdict`]'s alone).

use thiserror::Error;

#[derive(Debug, Error)]
pub enum Error {
    /// The assembly text could not be read.
    #[error(transparent)]
    Parse(#[from] cryptopt_x86::Error),
    /// The assembly has no function of the wanted name (and not exactly one function).
    #[error("no function `{name}` in the assembly (it has: {available})")]
    NoSuchProgram { name: String, available: String },
    /// The IR function uses something the checker does not model, or its signature does
    /// not fit System V (more than six arguments).
    #[error("`{function}`: {message}")]
    Function { function: String, message: String },
    /// An instruction or operand form the checker has no semantics for; `index` is the
    /// instruction's position in the program (0-based).
    #[error("instruction {index} `{inst}`: {message}")]
    Unsupported {
        index: usize,
        inst: String,
        message: String,
    },
    /// An instruction reads a flag that is undefined at that point.
    #[error("instruction {index} `{inst}` reads {flag}, which is undefined here ({why})")]
    UndefinedFlag {
        index: usize,
        inst: String,
        flag: &'static str,
        why: String,
    },
    /// An instruction reads memory (an output element or a stack slot) nobody wrote.
    #[error("instruction {index} `{inst}` reads {what} before it is written")]
    UndefinedRead {
        index: usize,
        inst: String,
        what: String,
    },
    /// An address that is not an argument pointer or rsp plus a constant (the checker
    /// only models straight-line code with constant offsets).
    #[error("instruction {index} `{inst}`: the address {address} is not an argument pointer or rsp plus a constant")]
    Address {
        index: usize,
        inst: String,
        address: String,
    },
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
