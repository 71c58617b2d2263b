//! The straight-line IR of cryptopt.
//!
//! ```text
//!   Fiat JSON ──fiat──▶ Function (Fiat dialect) ──lower──▶ Function (lowered dialect)
//!                           │                                   │
//!                           └────────── interp (the oracle) ────┘
//! ```
//!
//! * [`func`]: the data model (types, values, instructions, functions);
//! * [`abi`]: the C interface contract: element sizes and the aliasing policy;
//! * [`fiat`]: the Fiat-JSON front end;
//! * [`verify`]: the structural verifier, run after the front end and every pass;
//! * [`interp`]: the reference interpreter;
//! * [`lower`]: lowering to the 64-bit machine-level dialect code generation consumes;
//! * [`text`]: the readable text form (`cryptopt ir`), used by golden tests;
//! * [`inputs`]: random and edge-case inputs within a function's declared bounds;
//! * [`c`]: C source in the shape of Fiat's own C output, the compiler baseline;
//! * [`fields`]: the built-in field-arithmetic generator (Montgomery and unsaturated
//!   Solinas mul/square/add/sub/opp for presets and any prime), with Fiat JSON output.
//!
//! This crate has no knowledge of x86 and must never gain any.

pub mod abi;
pub mod c;
pub mod error;
pub mod fiat;
pub mod fields;
pub mod func;
pub mod inputs;
pub mod interp;
pub mod lower;
pub mod text;
pub mod verify;

pub use abi::Aliasing;
pub use error::{Error, Result};
pub use func::{Function, Inst, InstData, Op, Operand, Param, Ty, Value, ValueData};
