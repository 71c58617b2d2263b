//! The one error type of the x86 crate.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum Error {
    /// A line of assembly text could not be read; `line` is 1-based.
    #[error("line {line}: {message}: `{text}`")]
    Parse {
        line: usize,
        text: String,
        message: String,
    },
    /// An instruction has no encoding (wrong operand kinds or sizes).
    #[error("cannot encode `{inst}`: {message}")]
    Encode { inst: String, message: String },
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
