//! Whole formulas as one straight-line function: the field generator's operations
//! composed inside one [`Function`], with reductions only where bounds need them, so that
//! the search schedules across operations and no intermediate goes through memory.
//!
//! ```text
//!   "x25519-ladderstep" ──Formula──┐
//!   "curve25519" ──fields::resolve─┴─▶ unsat::Unsat (limbs + bounds, lazy carries)
//!                                        └─ x25519::ladderstep ─▶ Builder ─▶ Function
//! ```
//!
//! * `unsat`: field elements of an unsaturated Solinas representation with exact bounds:
//!   add, sub, mul, square, multiplication by a small constant, conditional swap, and a
//!   carry chain inserted only where the next operation's bounds need one;
//! * `x25519`: the RFC 7748 ladder step.
//!
//! Every formula is checked by the structural verifier before it is returned (as every
//! generator's output), and the tests check it against textbook formulas on num-bigint
//! and RFC 7748's test vector. This module must never emit a branch or a memory access
//! that depends on data (swaps are `cmovznz`), and never compose operations whose bounds
//! it has not checked.

mod driver;
mod unsat;
mod x25519;

pub use driver::{library, Library};

/// The field operations a formula is written in, so that one text of the formula serves
/// both ways of computing it: inline in one function with lazy reduction
/// ([`unsat::Unsat`]), and as C calling a library of separately built operations
/// ([`driver`], the benchmark's "formula from field operations").
pub(crate) trait Ops {
    /// A field element.
    type Fe: Clone;
    fn add(&mut self, a: &Self::Fe, b: &Self::Fe) -> Result<Self::Fe, String>;
    fn sub(&mut self, a: &Self::Fe, b: &Self::Fe) -> Result<Self::Fe, String>;
    /// `a·b`, or `a²` with `square` (`b` is then `a`).
    fn mul(&mut self, a: &Self::Fe, b: &Self::Fe, square: bool) -> Result<Self::Fe, String>;
    /// `c·a` for a small constant `c`.
    fn mul_small(&mut self, a: &Self::Fe, c: u64) -> Result<Self::Fe, String>;
    /// `(a, b)`, swapped when the formula's swap bit is 1; never a branch.
    fn cswap(&mut self, a: &Self::Fe, b: &Self::Fe) -> (Self::Fe, Self::Fe);
}

use std::fmt;
use std::str::FromStr;

use cryptopt_ir::func::Function;

use crate::fields::{FieldError, FieldSpec, Repr};

pub use unsat::Stats;

/// The formulas `gen --formula` makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Formula {
    /// One step of the X25519 Montgomery ladder with its conditional swap (RFC 7748 §5).
    X25519Ladderstep,
}

impl Formula {
    pub const ALL: [Formula; 1] = [Formula::X25519Ladderstep];

    /// The command-line name: `x25519-ladderstep`.
    pub fn name(self) -> &'static str {
        match self {
            Formula::X25519Ladderstep => "x25519-ladderstep",
        }
    }

    /// The part of the function name after the field's prefix: `fiat_25519_ladderstep`.
    fn suffix(self) -> &'static str {
        match self {
            Formula::X25519Ladderstep => "ladderstep",
        }
    }

    /// The preset fields the formula is defined on.
    pub fn fields(self) -> &'static [&'static str] {
        match self {
            Formula::X25519Ladderstep => &["curve25519"],
        }
    }

    /// The modulus the formula is defined for.
    fn modulus(self) -> &'static str {
        match self {
            Formula::X25519Ladderstep => "2^255 - 19",
        }
    }
}

impl fmt::Display for Formula {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Formula {
    type Err = FieldError;
    fn from_str(s: &str) -> Result<Formula, FieldError> {
        Formula::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| FieldError::UnknownFormula {
                name: s.to_string(),
                suggestion: cryptopt_ir::names::did_you_mean(
                    s,
                    Formula::ALL.into_iter().map(Formula::name),
                ),
                formulas: Formula::ALL.map(Formula::name).join(", "),
            })
    }
}

/// `formula` over `spec`, verified; also what the composition emitted.
pub fn generate(formula: Formula, spec: &FieldSpec) -> Result<(Function, Stats), FieldError> {
    let p = crate::fields::parse_prime(formula.modulus()).expect("a valid built-in modulus");
    if spec.p != p {
        return Err(FieldError::FormulaField {
            formula: formula.name(),
            field: spec.formula.clone(),
            fields: formula.fields().join(", "),
        });
    }
    let name = format!("fiat_{}_{}", spec.name, formula.suffix());
    let internal = |message: String| FieldError::Internal {
        function: name.clone(),
        message,
    };
    match (formula, &spec.repr) {
        (Formula::X25519Ladderstep, Repr::Solinas { .. }) => {
            let params = spec
                .solinas_params()
                .expect("a Solinas spec has parameters");
            let (b, stats) =
                x25519::ladderstep(name.clone(), params, &spec.tight_bounds()).map_err(internal)?;
            Ok((b.finish()?, stats))
        }
        (f, _) => Err(FieldError::FormulaRepr {
            formula: f.name(),
            repr: spec.representation(),
            supported: "--repr solinas (unsaturated limbs)",
        }),
    }
}
