//! The one error type of the front ends.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum Error {
    /// The input is not JSON at all.
    /// (Not a `source`: the message already includes it, and error chains would print
    /// it twice.)
    #[error("invalid JSON: {0}")]
    Json(serde_json::Error),
    /// The input is well-formed but is not a function we can read; `location` names
    /// the function and the path inside it (`fiat_p256_mul: body[12].arguments[1]`).
    #[error("{location}: {message}")]
    Input { location: String, message: String },
    /// The function name asked for names nothing in the file.
    #[error("no function named `{name}` in the input{suggestion} (it has: {available})")]
    NoSuchFunction {
        name: String,
        /// "; did you mean `x`?" or empty ([`cryptopt_ir::names::did_you_mean`]).
        suggestion: String,
        available: String,
    },
    /// The function read is not valid IR (the structural verifier's report).
    #[error(transparent)]
    Ir(#[from] cryptopt_ir::Error),
}

impl From<serde_json::Error> for Error {
    fn from(e: serde_json::Error) -> Self {
        Error::Json(e)
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
