//! The one error type of the search crate.
//!
//! A failed check must never lose its evidence: [`Error::Mismatch`] carries the
//! offending candidate. A message must never name a command-line flag: a bad parameter
//! is [`Error::Param`], naming the parameter, which the binary maps to its own flag.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum Error {
    /// A search parameter that cannot be used as given (a usage error): `param` is
    /// its name (`evals`, `bets`, `bet ratio`), `problem` what is wrong with it.
    #[error("{param} {problem}")]
    Param {
        param: &'static str,
        problem: String,
    },
    /// The function has a single schedule and no choices: there is nothing to search.
    #[error("nothing to mutate: the function has a single schedule and no choices")]
    NothingToMutate,
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

impl Error {
    /// A parameter problem: `param` and what is wrong with it.
    pub fn param(param: &'static str, problem: impl Into<String>) -> Error {
        Error::Param {
            param,
            problem: problem.into(),
        }
    }
}
