//! The driver's one error type. Every message is one line; the variants a user can act
//! on name the *parameter* (`batches`, `cpu`), never a command-line flag: the binary
//! maps [`Error::Param`]'s `param` to its own spelling. [`Error::exit_class`] says which
//! exit the binary should take.

use std::path::PathBuf;

/// What the pipeline could not do.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A program (ours, a baseline, an external one) failed a check: it differs from the
    /// interpreter, or the checker did not prove it.
    #[error("{0}")]
    CheckFailed(String),
    /// The run was stopped (Ctrl-C) after writing what it had.
    #[error("interrupted")]
    Interrupted,
    /// A parameter of the job that cannot be used as given.
    #[error("{param} {problem}")]
    Param {
        param: &'static str,
        problem: String,
    },
    /// What the job asks cannot be done here or with these inputs.
    #[error("{0}")]
    Unsupported(String),
    /// A file or folder that could not be read or written.
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    /// An error of another crate, with where it happened (a path, a function).
    #[error("{context}: {source}")]
    In { context: String, source: Box<Error> },
    /// The progress plot could not be drawn.
    #[error("plotting failed: {0}")]
    Plot(String),
    #[error(transparent)]
    Ir(#[from] cryptopt_ir::Error),
    #[error(transparent)]
    Frontend(#[from] cryptopt_frontend::Error),
    #[error(transparent)]
    Gen(#[from] cryptopt_gen::FieldError),
    #[error(transparent)]
    X86(#[from] cryptopt_x86::Error),
    #[error(transparent)]
    Codegen(#[from] cryptopt_codegen::Error),
    #[error(transparent)]
    Measure(#[from] cryptopt_measure::Error),
    #[error(transparent)]
    Search(#[from] cryptopt_search::Error),
    #[error(transparent)]
    Verify(#[from] cryptopt_verify::Error),
    #[error(transparent)]
    Emit(#[from] cryptopt_emit::Error),
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

/// The driver's result.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// How a run ended badly, for the binary's exit code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitClass {
    /// A check failed (exit 1).
    CheckFailed,
    /// Stopped by Ctrl-C (exit 130).
    Interrupted,
    /// Usage or input (exit 2).
    Input,
}

impl Error {
    /// Which exit this error calls for (looking through [`Error::In`]).
    pub fn exit_class(&self) -> ExitClass {
        match self {
            Error::CheckFailed(_) => ExitClass::CheckFailed,
            Error::Interrupted => ExitClass::Interrupted,
            Error::In { source, .. } => source.exit_class(),
            _ => ExitClass::Input,
        }
    }

    /// A parameter problem: `param` and what is wrong with it.
    pub fn param(param: &'static str, problem: impl Into<String>) -> Error {
        Error::Param {
            param,
            problem: problem.into(),
        }
    }

    /// An I/O error on `path`.
    pub fn io(action: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Error {
        Error::Io {
            action,
            path: path.into(),
            source,
        }
    }
}

/// Adds where an error happened: `result.within(|| path.display().to_string())`.
pub trait Within<T> {
    fn within(self, context: impl FnOnce() -> String) -> Result<T>;
}

impl<T, E: Into<Error>> Within<T> for std::result::Result<T, E> {
    fn within(self, context: impl FnOnce() -> String) -> Result<T> {
        self.map_err(|e| Error::In {
            context: context(),
            source: Box::new(e.into()),
        })
    }
}
