//! The one error type of the IR crate.

use thiserror::Error;

use crate::validate::Problem;

#[derive(Debug, Error)]
pub enum Error {
    /// An input this crate cannot handle (e.g. an operation lowering does not support);
    /// `location` names the function and the place inside it.
    #[error("{location}: {message}")]
    Input { location: String, message: String },
    /// The validator found problems; all of them are listed.
    #[error("IR verification of `{function}` failed: {}", problems.iter().map(|p| p.to_string()).collect::<Vec<_>>().join("; "))]
    Invalid {
        function: String,
        problems: Vec<Problem>,
    },
    /// The vector dialect's builder ([`crate::vector::Builder`]) refuses an operation:
    /// one whose lanes could wrap or lose bits, or a parameter, return or element that
    /// does not exist or is written twice.
    #[error("{message}")]
    Vector { message: String },
    /// Concrete inputs handed to the interpreter do not fit the function's signature.
    #[error("bad inputs for `{function}`: {message}")]
    BadInputs { function: String, message: String },
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
