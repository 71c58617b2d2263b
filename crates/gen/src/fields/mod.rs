//! The built-in field-arithmetic generator: straight-line IR for multiplication,
//! squaring, addition, subtraction and negation modulo a prime, so that the tool works
//! without fiat-crypto installed.
//!
//! ```text
//!  "p256" ──preset──┐                         ┌─ montgomery: mul square add sub opp
//!                   ├─▶ FieldSpec ─generate─▶ ┤                                      ─▶ Function
//!  "2^255 - 19" ────┘   (validated)           └─ solinas: carry_mul carry_square add sub opp
//!    parse_prime                                                 │
//!                                                  to_fiat_json ─┴─▶ Fiat JSON (reads back
//!                                                                     to the same Function)
//! ```
//!
//! Three representations, each with Fiat Cryptography's interface conventions (names,
//! signatures, bounds), so that a generated function and Fiat's can be swapped:
//!
//! * **Montgomery** ([`Repr::Montgomery`], `word_by_word_montgomery` in Fiat): any odd
//!   prime; `n = ⌈log2 p / 64⌉` saturated 64-bit limbs, `eval z = Σ z[i]·2^(64i)`, the
//!   element being `eval z · R⁻¹ mod p` with `R = 2^(64n)` (the Montgomery domain, in and
//!   out). Every function requires `eval arg < p` and guarantees `eval out < p`; the
//!   declared limb bounds are the full `[0, 2^64-1]`, as Fiat declares them. `mul` is
//!   word-by-word Montgomery multiplication with one conditional final subtraction
//!   (`out·R ≡ a·b`), `square` the same with `arg2 = arg1`, `add`/`sub`/`opp` use a carry
//!   chain and a conditional subtraction or addition of `p`.
//! * **Unsaturated Solinas** ([`Repr::Solinas`], `unsaturated_solinas` in Fiat): primes
//!   `p = 2^k - c` with `c` small (or a few terms, `2^448 - 2^224 - 1`); `n` limbs of
//!   `⌈k·(i+1)/n⌉ - ⌈k·i/n⌉` bits (5×51 for 2^255-19, 58×8 + 57 for 2^521-1, 44/43/43
//!   for 2^130-5), `eval z = Σ z[i]·2^⌈k·i/n⌉`, the element being `eval z mod p`.
//!   *Tight* bounds are `[0, 2^width]` per limb, *loose* bounds `[0, 3·2^width]`
//!   (fiat-crypto 0.3.0's bounds). `carry_mul`/`carry_square` take loose inputs and give
//!   tight outputs: schoolbook products in 128-bit columns with `2^k ≡ c` folded in by
//!   multiplying one factor by `c` (times a power of two where the limb weights are not
//!   exact; in 128 bits where 64 would overflow), then Fiat's carry chain (`0, 1, …, n-1, 0, 1`, or the interleaved chain
//!   starting at the taps when `c` has several terms). `add`/`sub`/`opp` take tight inputs
//!   and give loose outputs, limb by limb (`sub` adds `2p` first, as Fiat's `balance`).
//!   The limb count is Fiat's `(auto)` choice — the smallest `n` from `⌈k/64⌉` up to
//!   twice that for which the product columns of loose inputs fit 128 bits — checked
//!   here by an exact bounds analysis of the code being generated (no intermediate may
//!   overflow its type, outputs must be within their bounds); `--limbs` overrides it.
//! * **Saturated Solinas** ([`Repr::Saturated`], `solinas_reduction` in Fiat, `--repr
//!   saturated`): moduli with `c = 2^(64n) mod p` below 2^32 (curve25519: `2^256 ≡ 38`);
//!   `n` full 64-bit limbs holding any value below `2^(64n)` congruent to the element,
//!   never fully reduced. `mul`/`square` are word for word Fiat's
//!   `fiat_curve25519_solinas_*` (an 8-word product, `hi·c` folded into `lo`, the top
//!   word folded again, a last carry adding `c`); `add`/`sub`/`opp` fold a carry or
//!   borrow the same way (`saturated.rs`). Names get `_solinas`: `fiat_25519_solinas_mul`.
//!
//! The presets and the representation chosen for each (see [`PRESETS`] and
//! [`preset`]): Solinas where fiat-crypto's own build uses it (curve25519, p448, p521,
//! poly1305), Montgomery for the others, whose moduli are not `2^k - c` with small `c`
//! (p224, p256, p384, secp256k1, bls12-381-p) or not of that shape at all (p434).
//!
//! | preset        | modulus                               | representation            |
//! |---------------|---------------------------------------|---------------------------|
//! | `curve25519`  | 2^255 - 19                            | Solinas, 5 × 51 bits      |
//! | `p224`        | 2^224 - 2^96 + 1                      | Montgomery, 4 limbs       |
//! | `p256`        | 2^256 - 2^224 + 2^192 + 2^96 - 1      | Montgomery, 4 limbs       |
//! | `p384`        | 2^384 - 2^128 - 2^96 + 2^32 - 1       | Montgomery, 6 limbs       |
//! | `p434`        | 2^216 · 3^137 - 1                     | Montgomery, 7 limbs       |
//! | `p448`        | 2^448 - 2^224 - 1                     | Solinas, 8 × 56 bits      |
//! | `p521`        | 2^521 - 1                             | Solinas, 8 × 58 + 57 bits |
//! | `poly1305`    | 2^130 - 5                             | Solinas, 44 + 43 + 43 bits|
//! | `secp256k1`   | 2^256 - 2^32 - 977                    | Montgomery, 4 limbs       |
//! | `bls12-381-p` | 0x1a0111ea…ffffaaab (381 bits)        | Montgomery, 6 limbs       |
//!
//! Function names are Fiat's (`fiat_p256_mul`, `fiat_25519_carry_mul`,
//! `fiat_secp256k1_montgomery_add`), with Fiat's signature: `arg1`, `arg2` (`u64[n]`)
//! in, `out1` (`u64[n]`) out (the C form puts `out1` first).
//!
//! Moduli must be odd, prime (unless composites are explicitly allowed; Montgomery
//! arithmetic only needs an odd modulus) and between [`MIN_BITS`] and [`MAX_BITS`] bits:
//! a modulus that fits one machine word is not what this tool is for, and rejecting it
//! catches typos such as `2^25 - 19`.
//!
//! Every generated function is checked by the structural verifier (Fiat dialect) before
//! it is returned, and the tests check every preset and random primes of both kinds
//! against the field laws with num-bigint, against the fiat-crypto crate, through
//! lowering, and through a JSON round trip. This module must never return a function
//! that it has not verified, never produce code whose intermediate values can overflow
//! their types for inputs within the declared bounds, and never branch on data: the
//! generated code is straight-line and constant-time by construction (`cmovznz` for the
//! conditional subtraction).

pub mod algorithm;
pub(crate) mod build;
#[cfg(test)]
mod json_round_trip;
pub(crate) mod montgomery;
mod prime;
pub(crate) mod product;
pub(crate) mod saturated;
pub(crate) mod solinas;
mod spec;

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

use cryptopt_ir::func::Function;

pub use algorithm::{variants, Algorithm, Variant};
pub use prime::{is_probable_prime, parse_prime, MAX_EXPR_BITS};
pub use spec::{
    preset, resolve, FieldOptions, FieldSpec, Repr, ReprChoice, MAX_BITS, MIN_BITS, PRESETS,
};

/// Everything that can go wrong when choosing a field or generating its functions. Every
/// message is one line.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum FieldError {
    /// The modulus expression does not parse; `column` is 1-based.
    #[error("invalid modulus `{input}`: column {column}: {message}")]
    Parse {
        input: String,
        column: usize,
        message: String,
    },
    /// A name that is neither a preset nor an expression.
    #[error("unknown field `{name}`{suggestion} (presets: {presets})")]
    UnknownField {
        name: String,
        /// "; did you mean `x`?" or empty ([`cryptopt_ir::names::did_you_mean`]).
        suggestion: String,
        presets: String,
    },
    /// An operation name that is not one of [`FieldOp::ALL`].
    #[error("unknown operation `{name}`{suggestion} (operations: mul, square, add, sub, opp)")]
    UnknownOp { name: String, suggestion: String },
    /// An algorithm name that is not one of [`Algorithm::ALL`].
    #[error("unknown algorithm `{name}`{suggestion} (algorithms: {known})")]
    UnknownAlgorithm {
        name: String,
        suggestion: String,
        known: String,
    },
    /// A formula name that is not one of `formulas::Formula::ALL`.
    #[error("unknown formula `{name}`{suggestion} (formulas: {formulas})")]
    UnknownFormula {
        name: String,
        suggestion: String,
        formulas: String,
    },
    /// A formula asked for over a field it is not defined on.
    #[error("{formula} is not defined over {field} (fields: {fields})")]
    FormulaField {
        formula: &'static str,
        field: String,
        fields: String,
    },
    /// A formula asked for in a representation it is not built for.
    #[error("{formula} is not available for {repr} (use {supported})")]
    FormulaRepr {
        formula: &'static str,
        repr: String,
        supported: &'static str,
    },
    /// A multiplier for multiplication by a small constant out of range.
    #[error("multiplier {c}: the constant must be 1 to 2^32 - 1 (a small multiplier)")]
    BadConstant { c: u64 },
    #[error("modulus {p} is even")]
    Even { p: String },
    #[error("modulus {p} is too small: {bits} bits, at least {MIN_BITS} are required (more than one 64-bit word)")]
    TooSmall { p: String, bits: u64 },
    #[error("modulus {p} is too large: {bits} bits, at most {MAX_BITS} are supported")]
    TooLarge { p: String, bits: u64 },
    /// A composite modulus, and composite moduli were not allowed
    /// ([`FieldOptions::allow_composite`]).
    #[error("modulus {p} is not prime (allow composite moduli to use it)")]
    Composite { p: String },
    /// The requested limb count cannot hold the unsaturated Solinas representation.
    #[error("{form} does not fit {limbs}: {reason}")]
    SolinasLimbs {
        form: String,
        limbs: String,
        reason: String,
    },
    /// No limb count in Fiat's search range works (or the modulus is not `2^k - c` with
    /// small `c` at all).
    #[error("{form} has no unsaturated Solinas representation with {min} to {max} limbs ({reason}); use the Montgomery representation")]
    NotSolinas {
        form: String,
        min: u32,
        max: u32,
        reason: String,
    },
    #[error("{p} has no saturated Solinas representation: 2^{bits} mod p = {c} is not below 2^32; use the Montgomery representation")]
    NotSaturated { p: String, bits: u32, c: String },
    /// A limb count ([`FieldOptions::limbs`]) asked of the Montgomery representation.
    #[error("the limb count applies to the unsaturated Solinas representation; Montgomery uses {needed} limbs for this modulus")]
    LimbsForMontgomery { needed: u32 },
    #[error("invalid field name `{name}`: use letters, digits and `_`")]
    BadName { name: String },
    /// A function that Fiat's JSON cannot express (lowered-dialect operations).
    #[error("cannot write `{function}` as Fiat JSON: {message}")]
    Json { function: String, message: String },
    /// Why operations cannot be composed into a generated function: a bound that could
    /// overflow, a representation that cannot hold a value, a shape that does not fit.
    /// The generators report it inside the error that names the field or the function
    /// ([`FieldError::Internal`], [`FieldError::SolinasLimbs`],
    /// [`FieldError::NotSolinas`]).
    #[error("{message}")]
    Compose { message: String },
    /// A generated function failed verification: a bug in this module.
    #[error("internal error: generated function `{function}` is invalid: {message}")]
    Internal { function: String, message: String },
}

impl FieldError {
    /// A [`FieldError::Compose`] saying `message`.
    pub(crate) fn compose(message: impl Into<String>) -> FieldError {
        FieldError::Compose {
            message: message.into(),
        }
    }
}

/// What the vector dialect's builder refuses, while composing a generated function.
impl From<cryptopt_ir::Error> for FieldError {
    fn from(e: cryptopt_ir::Error) -> FieldError {
        FieldError::compose(e.to_string())
    }
}

/// The operations the generator provides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FieldOp {
    /// Montgomery `mul` (`out·R ≡ a·b`) or Solinas `carry_mul` (`out ≡ a·b`).
    Mul,
    /// Montgomery `square` or Solinas `carry_square`.
    Square,
    Add,
    Sub,
    /// Negation (`out ≡ -a`).
    Opp,
}

impl FieldOp {
    pub const ALL: [FieldOp; 5] = [
        FieldOp::Mul,
        FieldOp::Square,
        FieldOp::Add,
        FieldOp::Sub,
        FieldOp::Opp,
    ];

    /// The command-line name: `mul`, `square`, `add`, `sub`, `opp`.
    pub fn name(self) -> &'static str {
        match self {
            FieldOp::Mul => "mul",
            FieldOp::Square => "square",
            FieldOp::Add => "add",
            FieldOp::Sub => "sub",
            FieldOp::Opp => "opp",
        }
    }

    /// Number of field-element arguments.
    pub fn arity(self) -> usize {
        match self {
            FieldOp::Mul | FieldOp::Add | FieldOp::Sub => 2,
            FieldOp::Square | FieldOp::Opp => 1,
        }
    }
}

impl fmt::Display for FieldOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for FieldOp {
    type Err = FieldError;
    fn from_str(s: &str) -> Result<FieldOp, FieldError> {
        FieldOp::ALL
            .into_iter()
            .find(|op| op.name() == s)
            .ok_or_else(|| FieldError::UnknownOp {
                name: s.to_string(),
                suggestion: cryptopt_ir::names::did_you_mean(
                    s,
                    FieldOp::ALL.into_iter().map(FieldOp::name),
                ),
            })
    }
}

/// Generates `op` for `spec`: a verified Fiat-dialect function with Fiat's name,
/// signature and bounds (see the module documentation).
pub fn generate(spec: &FieldSpec, op: FieldOp) -> Result<Function, FieldError> {
    match spec.repr {
        Repr::Montgomery => montgomery::generate(spec, op),
        Repr::Solinas { .. } => solinas::generate(spec, op),
        Repr::Saturated => saturated::generate(spec, op),
    }
}

/// The Fiat names of every built-in function ([`builtin`] makes each).
pub fn builtin_names() -> Vec<String> {
    PRESETS
        .iter()
        .filter_map(|p| preset(p))
        .flat_map(|spec| FieldOp::ALL.map(|op| spec.function_name(op)))
        .collect()
}

/// The built-in function of that Fiat name (`fiat_p256_mul`, `fiat_25519_carry_square`,
/// ...): the preset and operation whose [`FieldSpec::function_name`] it is, generated.
/// `None` when no preset has a function of that name.
pub fn builtin(name: &str) -> Option<Result<Function, FieldError>> {
    builtin_spec(name).map(|(spec, op)| generate(&spec, op))
}

/// The preset and operation of the built-in function of that Fiat name.
pub fn builtin_spec(name: &str) -> Option<(FieldSpec, FieldOp)> {
    for p in PRESETS {
        let Some(spec) = preset(p) else { continue };
        for op in FieldOp::ALL {
            if spec.function_name(op) == name {
                return Some((spec, op));
            }
        }
    }
    None
}
