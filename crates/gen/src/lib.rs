//! The generators of cryptopt: straight-line IR made from a specification rather than
//! read from another tool, verified like everything a front end reads.
//!
//! ```text
//!   "p256", "2^255 - 19" ──fields──▶ Function (Fiat dialect) (cryptopt-emit writes it as Fiat JSON)
//!   "x25519-ladderstep" ──formulas──▶ one Function composed of the field operations
//! ```
//!
//! * [`fields`]: field arithmetic (Montgomery and unsaturated Solinas mul, square, add,
//!   sub, opp) for the presets and any prime; [`fields::builtin`] finds a preset's
//!   function by its Fiat name.
//! * [`formulas`]: whole curve formulas (the X25519 ladder step) as one function, the
//!   field operations composed with reductions only where bounds need them;
//!
//! Writing a generated function out as Fiat JSON is `cryptopt_emit::to_fiat_json`'s job
//! (the emitters' crate); this crate only builds functions.
//!
//! Adding a generator is adding a module here (see ARCHITECTURE.md, "Adding a
//! generator"). Every generated function passes `cryptopt_ir::validate` before it is
//! returned; a generator never returns a function it has not verified.
//!
//! [`FieldError`](fields::FieldError) is this crate's one error type: every message is
//! one line a user can act on.

pub mod fields;
pub mod formulas;

pub use fields::FieldError;
