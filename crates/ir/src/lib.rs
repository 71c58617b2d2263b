//! The straight-line IR of cryptopt: the data model, its meaning, and its lowering.
//!
//! ```text
//!   front ends (crate cryptopt-frontend) ──┐
//!   generators (crate cryptopt-gen) ───────┴─▶ Function (Fiat dialect) ──lower──▶ Function (lowered)
//!                                                  │                                  │
//!                                                  └────────── interp (the oracle) ───┘
//! ```
//!
//! * [`func`]: the data model (types, values, instructions, functions);
//! * [`abi`]: the C interface contract: element sizes and the aliasing policy;
//! * [`validate`]: the structural validator, run after every front end, generator and pass;
//! * [`interp`]: the reference interpreter;
//! * [`lower`]: lowering to the 64-bit machine-level dialect code generation consumes
//!   (its rebuilding passes — simplify, flatten, fuse_shrd, shifted_masks, dce — in `rebuild`);
//! * [`reassoc`]: sums reassociated so that addends shared by several sums are added once
//!   (the first step of lowering);
//! * [`text`]: the readable text form (`cryptopt ir`), used by golden tests;
//! * [`inputs`]: random and edge-case inputs within a function's declared bounds;
//! * [`names`]: "did you mean" for a name a user misspelled (functions, presets);
//! * [`vector`]: the vector dialect (four 64-bit lanes), its bounds and its scalar
//!   expansion, which is its meaning.
//!
//! This crate has no knowledge of x86 and must never gain any. It reads no file format
//! and generates no function: readers live in `cryptopt-frontend`, generators (fields,
//! curve formulas) in `cryptopt-gen`, the C baseline emitter in `cryptopt-measure`.

pub mod abi;
pub mod error;
pub mod func;
pub mod inputs;
pub mod interp;
pub mod lower;
pub mod names;
pub mod reassoc;
mod rebuild;
pub mod text;
pub mod validate;
pub mod vector;

pub use abi::Aliasing;
pub use error::{Error, Result};
pub use func::{Function, Inst, InstData, Op, Operand, Param, Ty, Value, ValueData};
