//! The one error type of the codegen crate.
//!
//! Code generation must never emit code past a broken invariant of its own: it returns
//! [`Error::Internal`] instead.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum Error {
    /// The function uses something code generation does not handle (yet).
    #[error("code generation: unsupported: {0}")]
    Unsupported(String),
    /// The candidate does not fit the function.
    #[error("code generation: bad candidate: {0}")]
    BadCandidate(String),
    /// A broken invariant of the generator: a bug, reported instead of emitting code.
    #[error("code generation bug: {0}")]
    Internal(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
