//! The one error type of the search crate.
//!
//! A failed check must never lose its evidence: [`Error::Mismatch`] carries the
//! offending candidate.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum Error {
    /// Bad search parameters (a usage error).
    #[error("{0}")]
    Params(String),
    /// A saved state that cannot be resumed.
    #[error("cannot resume: {0}")]
    State(String),
    #[error(transparent)]
    Codegen(#[from] cryptopt_codegen::Error),
    #[error(transparent)]
    Encode(#[from] cryptopt_x86::Error),
    #[error(transparent)]
    Measure(#[from] cryptopt_measure::Error),
    /// Generated code disagreed with the interpreter or with another implementation
    /// during measurement, or a kept candidate was not proved equivalent: the run
    /// stops. `candidate` is the offending one.
    #[error("check failed during the search: {message}")]
    Mismatch {
        message: String,
        candidate: Box<cryptopt_codegen::Candidate>,
    },
    /// The same for a vector program: `order` is the offending program's order.
    #[error("check failed during the search: {message}")]
    VectorMismatch { message: String, order: Vec<u32> },
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
