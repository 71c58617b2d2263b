//! Code generation: a lowered function plus a [`Candidate`] (an order of its operations
//! and per-operation decisions) becomes an x86-64 [`cryptopt_x86::Program`] with the
//! System V signature of Fiat's C function (outputs first).
//!
//! ```text
//!  lowered Function ──Deps──▶ Candidate (order + decisions) ──Generator──▶ x86 program
//!                                   ▲                              │
//!                                   └──── hot decisions ◀──────────┘
//! ```
//!
//! * [`candidate`]: orders, decisions, random candidates, dependency checks;
//! * [`options`]: frame pointer, red zone, memory constraints;
//! * [`gen`]: the generator (register allocation, flag tracking, spills, frame, each in
//!   its own child module) and its templates (`gen::select`, documented there as a
//!   table);
//! * [`bounds`]: the range analysis that saves truncations;
//! * [`vector`]: the vector dialect's code generation (`ymm` registers, AVX-512 IFMA);
//! * `evict`: the one register-eviction policy (furthest next use) both allocators use.
//!
//! The generator is the hot path of the optimizer: reuse one [`Generator`] per function
//! and options. It must never emit branches or data-dependent addresses.

pub mod bounds;
pub mod candidate;
pub mod error;
mod evict;
pub mod gen;
pub mod options;
pub mod vector;

pub use candidate::{Candidate, DecisionSlot, Deps, Hot, SLOTS};
pub use cryptopt_ir::Aliasing;
pub use error::{Error, Result};
pub use gen::Generator;
pub use options::{Abi, FramePointer, Options, Target};
