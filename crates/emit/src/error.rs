//! The emitters' one error type: each message is one line naming the function or the
//! name that could not be written, and the parameter it came from.

/// What an emitter could not write.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A function that Fiat's JSON cannot express (lowered-dialect operations).
    #[error("cannot write `{function}` as Fiat JSON: {message}")]
    FiatJson { function: String, message: String },
    /// A name that is not a C identifier (or is a C keyword): the symbol of a header.
    #[error("`{name}` is not a C identifier ({why})")]
    CName { name: String, why: &'static str },
    /// A function name that Rust cannot take (a keyword, or not an identifier).
    #[error("the Rust module: `{name}` cannot be a Rust function's name (a keyword, or not an identifier); choose another symbol")]
    RustName { name: String },
    /// An argument whose C type has no Rust counterpart.
    #[error("the Rust module: {param} has C type {c_type}, which has no Rust type here")]
    RustType { param: String, c_type: &'static str },
    /// The reference interpreter failed on a known-answer input.
    #[error("{function}: {source}")]
    Interp {
        function: String,
        source: cryptopt_ir::Error,
    },
}

/// The emitters' result.
pub type Result<T> = std::result::Result<T, Error>;
