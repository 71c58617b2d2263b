//! The one error type of the IR crate.

use thiserror::Error;

use crate::verify::Problem;

#[derive(Debug, Error)]
pub enum Error {
    /// The input is not JSON at all.
    /// (Not a `source`: the message already includes it, and error chains would print
    /// it twice.)
    #[error("invalid JSON: {0}")]
    Json(serde_json::Error),
    /// The JSON is well-formed but is not a Fiat function we can read; `location` names
    /// the function and the path inside it (`fiat_p256_mul: body[12].arguments[1]`).
    #[error("{location}: {message}")]
    Input { location: String, message: String },
    /// `--function NAME` names nothing in the file.
    #[error("no function named `{name}` in the input (it has: {available})")]
    NoSuchFunction { name: String, available: String },
    /// The verifier found problems; all of them are listed.
    #[error("IR verification of `{function}` failed: {}", problems.iter().map(|p| p.to_string()).collect::<Vec<_>>().join("; "))]
    Verify {
        function: String,
        problems: Vec<Problem>,
    },
    /// Concrete inputs handed to the interpreter do not fit the function's signature.
    #[error("bad inputs for `{function}`: {message}")]
    BadInputs { function: String, message: String },
}

impl From<serde_json::Error> for Error {
    fn from(e: serde_json::Error) -> Self {
        Error::Json(e)
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
