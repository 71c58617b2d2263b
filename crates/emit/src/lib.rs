//! The text emitters of cryptopt: everything it writes that is not assembly.
//!
//! ```text
//!   Function ──c──────────▶ C in Fiat's shape (the compilers' baseline), prototypes, prelude
//!   Function ──fiat_json──▶ Fiat JSON (`cryptopt gen`, the function saved in state.json)
//!   Function + Program ──rust──────▶ a Rust module (`global_asm!`, safe and raw wrappers, tests)
//!   Function + targets ──dispatch──▶ a C file choosing a program by CPU feature, its header
//!   Provenance ──header──▶ the comment lines every written file starts with; .asm, .S, .h
//!   ident: the one rule of what a C (and a Rust) function name may be
//! ```
//!
//! It sits on `cryptopt-ir` and `cryptopt-x86` only: an emitter turns a function and a
//! program into text, and returns it. It never makes, changes or checks a program, never
//! writes a file (the driver writes, atomically), and knows nothing of measurement.
//! [`Error`] is this crate's one error type.

pub mod c;
pub mod dispatch;
mod error;
mod fiat_json;
pub mod header;
pub mod ident;
pub mod rust;

pub use error::{Error, Result};
pub use fiat_json::to_fiat_json;
