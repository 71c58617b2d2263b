//! The front ends of cryptopt: readers that turn another tool's output into a
//! [`cryptopt_ir::Function`] (Fiat dialect), checked by the structural verifier.
//!
//! ```text
//!   Fiat JSON (fiat-crypto --lang JSON) ──fiat──▶ Function ──▶ ir::lower, interp, ...
//!   LLVM IR text (clang -S -emit-llvm)    ──llvm──▶ Function
//! ```
//!
//! * [`fiat`]: Fiat Cryptography's JSON IR;
//! * [`llvm`]: LLVM IR text of straight-line integer functions (C through clang).
//!
//! Adding a front end is adding a module here (see ARCHITECTURE.md, "Adding a front
//! end"). A front end is faithful to its input: it never simplifies (that is
//! `ir::lower`'s job), never panics on any input, and names the place of every error.

pub mod error;
pub mod fiat;
pub mod llvm;

pub use error::{Error, Result};
