//! The one error type of the checker: problems with the *input* of a check (text it
//! cannot read, an instruction or operand form it does not model, a function signature
//! it cannot map to System V). A program that is wrong, or cannot be proved safe
//! (reading a flag it left undefined or memory nobody wrote, an address or a shift count
//! computed from data, losing rsp) is not an error: it gets a
//! [`crate::Verdict::NotEquivalent`] with a report (exit 1, not 2).
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
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
