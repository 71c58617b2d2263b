//! Whole formulas as one straight-line function: the field generator's operations
//! composed inside one [`Function`], with reductions only where bounds need them, so that
//! the search schedules across operations and no intermediate goes through memory.
//!
//! ```text
//!   "x25519-ladderstep" ──Formula::run──▶ x25519::step ─────┐ over Ops:
//!   "p256-add", … ────────Formula::run──▶ weierstrass::… ───┤  unsat::Unsat (Solinas,
//!                                                           │    lazy carries)
//!                                                           │  full::Full (Montgomery,
//!                                                           │    saturated Solinas)
//!                                                           │  driver (C over a library)
//!   inline::inline: signature, the representation's Ops, ───┘
//!                   outputs within bounds ─▶ Builder ─▶ Function
//! ```
//!
//! * `unsat`: field elements of an unsaturated Solinas representation with exact bounds:
//!   add, sub, mul, square, multiplication by a small constant, conditional swap, and a
//!   carry chain inserted only where the next operation's bounds need one;
//! * `full`: field elements in full 64-bit words, Montgomery (every operation fully
//!   reduced) or saturated Solinas (any value below 2^(64n));
//! * `inline`: the one builder of a formula's function (and of the driver's
//!   multiplication by a constant), for every representation;
//! * `x25519`: the RFC 7748 ladder step; `weierstrass`: the Renes–Costello–Batina
//!   complete point formulas (Algorithms 4, 6, 7, 9); `kummer`: the squared-Kummer-surface
//!   ladder step over 2^127 − 1 ("Kummer strikes back", Fig. 2.4(b)) and the Hadamard
//!   transform;
//! * `schedule`: the order the inline function's operations are emitted in (a list
//!   schedule by height over the graph the text records); the C driver keeps the text's.
//!
//! Every formula is checked by the structural verifier before it is returned (as every
//! generator's output), and the tests check it against independent models on num-bigint
//! (RFC 7748's formulas and test vectors; textbook affine point arithmetic). This module
//! must never emit a branch or a memory access that depends on data (swaps are
//! `cmovznz`), and never compose operations whose bounds it has not checked.

mod driver;
mod full;
mod inline;
mod kummer;
pub mod lanes;
mod schedule;
mod unsat;
mod weierstrass;
mod x25519;

use num_bigint::BigUint;

pub use driver::{library, scmul, Library};

/// The field operations a formula is written in, so that one text of the formula serves
/// both ways of computing it: inline in one function with lazy reduction
/// ([`inline`]), and as C calling a library of separately built operations
/// ([`driver`], the benchmark's "formula from field operations").
pub(crate) trait Ops {
    /// A field element.
    type Fe: Clone;
    fn add(&mut self, a: &Self::Fe, b: &Self::Fe) -> Result<Self::Fe, FieldError>;
    fn sub(&mut self, a: &Self::Fe, b: &Self::Fe) -> Result<Self::Fe, FieldError>;
    /// `a·b`, or `a²` with `square` (`b` is then `a`).
    fn mul(&mut self, a: &Self::Fe, b: &Self::Fe, square: bool) -> Result<Self::Fe, FieldError>;
    /// `a·b + c·d`, or `a·b − c·d` with `minus`: two products and their sum, unless the
    /// representation can share one reduction between the products (Montgomery's).
    fn mul_add(
        &mut self,
        [a, b, c, d]: [&Self::Fe; 4],
        minus: bool,
    ) -> Result<Self::Fe, FieldError> {
        two_products(self, [a, b, c, d], minus)
    }
    /// `c·a` for a small constant `c`.
    fn mul_small(&mut self, a: &Self::Fe, c: u64) -> Result<Self::Fe, FieldError>;
    /// `c·a·b` (or `c·a²`) for a small constant `c`: the product and then the
    /// multiplication by `c`, unless the representation can do both with one reduction
    /// (saturated Solinas: `c·lo + c·2^(64n)·hi` of the unreduced product). With `wide`
    /// the result may be left unreduced where the representation can hold more than a
    /// field element's words (saturated Solinas: one word more), for [`Ops::add_lazy`],
    /// [`Ops::sub_lazy`] and then [`Ops::settle`] only; the default reduces either way.
    fn mul_scaled(
        &mut self,
        a: &Self::Fe,
        b: &Self::Fe,
        square: bool,
        c: u64,
        _wide: bool,
    ) -> Result<Self::Fe, FieldError> {
        product_then_small(self, a, b, square, c)
    }
    /// `a + b` of elements that may be unreduced, itself unreduced (default: `add`).
    fn add_lazy(&mut self, a: &Self::Fe, b: &Self::Fe) -> Result<Self::Fe, FieldError> {
        self.add(a, b)
    }
    /// `a − b` of elements that may be unreduced, itself unreduced (default: `sub`).
    fn sub_lazy(&mut self, a: &Self::Fe, b: &Self::Fe) -> Result<Self::Fe, FieldError> {
        self.sub(a, b)
    }
    /// An unreduced element as a field element that every operation takes (default:
    /// the element, which is one already).
    fn settle(&mut self, a: &Self::Fe) -> Result<Self::Fe, FieldError> {
        Ok(a.clone())
    }
    /// The field element `c` (in the representation's own form: Montgomery's `c·R`).
    fn constant(&mut self, c: &BigUint) -> Self::Fe;
    /// `(a, b)`, swapped when the formula's swap bit is 1; never a branch.
    fn cswap(&mut self, a: &Self::Fe, b: &Self::Fe) -> (Self::Fe, Self::Fe);
    /// Which of the formula's swap bits the `cswap`s after this call use (0 until said
    /// otherwise; only formulas with several swap bits call it).
    fn use_swap(&mut self, _k: usize) {}
}

/// `c·a·b` as the product and then the multiplication by `c`: what every representation
/// can do ([`Ops::mul_scaled`] when it cannot share a reduction).
pub(crate) fn product_then_small<O: Ops + ?Sized>(
    u: &mut O,
    a: &O::Fe,
    b: &O::Fe,
    square: bool,
    c: u64,
) -> Result<O::Fe, FieldError> {
    let x = u.mul(a, b, square)?;
    u.mul_small(&x, c)
}

/// `a·b ± c·d` as two products and their sum or difference: what every representation
/// can do ([`Ops::mul_add`] when it cannot share a reduction).
pub(crate) fn two_products<O: Ops + ?Sized>(
    u: &mut O,
    [a, b, c, d]: [&O::Fe; 4],
    minus: bool,
) -> Result<O::Fe, FieldError> {
    let x = u.mul(a, b, false)?;
    let y = u.mul(c, d, false)?;
    if minus {
        u.sub(&x, &y)
    } else {
        u.add(&x, &y)
    }
}

use std::fmt;
use std::str::FromStr;

use cryptopt_ir::func::Function;

use crate::fields::{FieldError, FieldSpec, Repr};

pub use inline::Stats;

/// The formulas `gen --formula` makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Formula {
    /// One step of the X25519 Montgomery ladder with its conditional swap (RFC 7748 §5).
    X25519Ladderstep,
    /// P-256 complete projective addition (Renes–Costello–Batina, Algorithm 4).
    P256Add,
    /// P-256 complete projective doubling (Renes–Costello–Batina, Algorithm 6).
    P256Double,
    /// P-256 doubling in Jacobian coordinates (`dbl-2001-b`), for runs of doublings.
    P256DoubleJacobian,
    /// secp256k1 complete projective addition (Renes–Costello–Batina, Algorithm 7).
    Secp256k1Add,
    /// secp256k1 complete projective doubling (Renes–Costello–Batina, Algorithm 9).
    Secp256k1Double,
    /// secp256k1 doubling in Jacobian coordinates (`dbl-2009-l`), for runs of doublings.
    Secp256k1DoubleJacobian,
    /// P-256 doubling from projective into Jacobian coordinates (a run's first).
    P256DoubleToJacobian,
    /// secp256k1 doubling from projective into Jacobian coordinates (a run's first).
    Secp256k1DoubleToJacobian,
    /// P-256 `32·P` in projective coordinates: five doublings, Jacobian inside.
    P256Double5,
    /// secp256k1 `32·P` in projective coordinates: five doublings, Jacobian inside.
    Secp256k1Double5,
    /// P-256 `2·P` in projective coordinates through Jacobian ones (not complete).
    P256DoubleViaJacobian,
    /// secp256k1 `2·P` in projective coordinates through Jacobian ones (not complete).
    Secp256k1DoubleViaJacobian,
    /// One step of the squared-Kummer-surface ladder over 2^127 − 1 with its conditional
    /// swap ("Kummer strikes back", Fig. 2.4(b)).
    KummerLadderstep,
    /// Two such steps as one function (two swap bits): half the calls of a ladder.
    KummerLadderstep2,
    /// The Hadamard transform of four elements of 2^127 − 1.
    KummerHadamard,
}

/// The curves the formulas are for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Over {
    Curve25519,
    P256,
    Secp256k1,
    /// The Gaudry–Schost squared Kummer surface over 2^127 − 1.
    Kummer,
}

/// P-256's `b` (FIPS 186-4 / SEC 2), for `y² = x³ − 3x + b`.
const P256_B: &str = "5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b";
/// secp256k1's `b`, for `y² = x³ + 7`.
const SECP256K1_B: u64 = 7;
/// secp256k1's `3·b`, the constant its formulas multiply by.
const SECP256K1_B3: u64 = 3 * SECP256K1_B;

impl Formula {
    pub const ALL: [Formula; 16] = [
        Formula::X25519Ladderstep,
        Formula::P256Add,
        Formula::P256Double,
        Formula::P256DoubleJacobian,
        Formula::Secp256k1Add,
        Formula::Secp256k1Double,
        Formula::Secp256k1DoubleJacobian,
        Formula::P256DoubleToJacobian,
        Formula::Secp256k1DoubleToJacobian,
        Formula::P256Double5,
        Formula::Secp256k1Double5,
        Formula::P256DoubleViaJacobian,
        Formula::Secp256k1DoubleViaJacobian,
        Formula::KummerLadderstep,
        Formula::KummerLadderstep2,
        Formula::KummerHadamard,
    ];

    /// The command-line name: `x25519-ladderstep`.
    pub fn name(self) -> &'static str {
        match self {
            Formula::X25519Ladderstep => "x25519-ladderstep",
            Formula::P256Add => "p256-add",
            Formula::P256Double => "p256-double",
            Formula::P256DoubleJacobian => "p256-double-jacobian",
            Formula::Secp256k1Add => "secp256k1-add",
            Formula::Secp256k1Double => "secp256k1-double",
            Formula::Secp256k1DoubleJacobian => "secp256k1-double-jacobian",
            Formula::P256DoubleToJacobian => "p256-double-to-jacobian",
            Formula::Secp256k1DoubleToJacobian => "secp256k1-double-to-jacobian",
            Formula::P256Double5 => "p256-double5",
            Formula::Secp256k1Double5 => "secp256k1-double5",
            Formula::P256DoubleViaJacobian => "p256-double-via-jacobian",
            Formula::Secp256k1DoubleViaJacobian => "secp256k1-double-via-jacobian",
            Formula::KummerLadderstep => "kummer-ladderstep",
            Formula::KummerLadderstep2 => "kummer-ladderstep2",
            Formula::KummerHadamard => "kummer-hadamard",
        }
    }

    /// The part of the function name after the field's prefix: `fiat_25519_ladderstep`.
    fn suffix(self) -> &'static str {
        match self {
            Formula::X25519Ladderstep | Formula::KummerLadderstep => "ladderstep",
            Formula::KummerHadamard => "hadamard",
            Formula::KummerLadderstep2 => "ladderstep2",
            Formula::P256Add | Formula::Secp256k1Add => "point_add",
            Formula::P256Double | Formula::Secp256k1Double => "point_double",
            Formula::P256DoubleJacobian | Formula::Secp256k1DoubleJacobian => {
                "point_double_jacobian"
            }
            Formula::P256DoubleToJacobian | Formula::Secp256k1DoubleToJacobian => {
                "point_double_to_jacobian"
            }
            Formula::P256Double5 | Formula::Secp256k1Double5 => "point_double5",
            Formula::P256DoubleViaJacobian | Formula::Secp256k1DoubleViaJacobian => {
                "point_double_via_jacobian"
            }
        }
    }

    /// The curve the formula is for: the one home of that mapping, which its field, its
    /// modulus and its curve constants follow.
    fn over(self) -> Over {
        match self {
            Formula::X25519Ladderstep => Over::Curve25519,
            Formula::P256Add
            | Formula::P256Double
            | Formula::P256DoubleJacobian
            | Formula::P256DoubleToJacobian
            | Formula::P256Double5
            | Formula::P256DoubleViaJacobian => Over::P256,
            Formula::Secp256k1Add
            | Formula::Secp256k1Double
            | Formula::Secp256k1DoubleJacobian
            | Formula::Secp256k1DoubleToJacobian
            | Formula::Secp256k1Double5
            | Formula::Secp256k1DoubleViaJacobian => Over::Secp256k1,
            Formula::KummerLadderstep | Formula::KummerLadderstep2 | Formula::KummerHadamard => {
                Over::Kummer
            }
        }
    }

    /// The curve `y² = x³ + a·x + b` a point formula is for: `(a, b)`, with `a` as `-3`
    /// or `0`; `None` for the ladder steps and the Hadamard transform.
    pub fn curve(self) -> Option<(i8, BigUint)> {
        match self.over() {
            Over::Curve25519 | Over::Kummer => None,
            Over::P256 => Some((
                -3,
                BigUint::parse_bytes(P256_B.as_bytes(), 16).expect("a hex literal"),
            )),
            Over::Secp256k1 => Some((0, BigUint::from(SECP256K1_B))),
        }
    }

    /// The preset fields the formula is defined on.
    pub fn fields(self) -> &'static [&'static str] {
        match self.over() {
            Over::Curve25519 => &["curve25519"],
            Over::P256 => &["p256"],
            Over::Secp256k1 => &["secp256k1"],
            Over::Kummer => &["p127"],
        }
    }

    /// The modulus the formula is defined for.
    fn modulus(self) -> &'static str {
        match self.over() {
            Over::Curve25519 => "2^255 - 19",
            Over::P256 => "2^256 - 2^224 + 2^192 + 2^96 - 1",
            Over::Secp256k1 => "2^256 - 2^32 - 977",
            Over::Kummer => "2^127 - 1",
        }
    }

    /// How many field-element arguments it takes (after the swap bit, if any).
    pub fn elements_in(self) -> usize {
        self.params_in().iter().sum()
    }

    /// How many field elements it returns.
    pub fn elements_out(self) -> usize {
        self.params_out().iter().sum()
    }

    /// How its input elements are grouped into array parameters (besides the swap bit):
    /// one element each, except the Kummer formulas' points of four coordinates (and
    /// the ladder's base difference of three), which keep within the 14 arguments a
    /// call passes.
    pub fn params_in(self) -> &'static [usize] {
        match self {
            Formula::X25519Ladderstep => &[1; 5],
            Formula::P256Add | Formula::Secp256k1Add => &[1; 6],
            Formula::KummerLadderstep | Formula::KummerLadderstep2 => &[4, 4, 3],
            Formula::KummerHadamard => &[4],
            _ => &[1; 3],
        }
    }

    /// How its output elements are grouped into array parameters.
    pub fn params_out(self) -> &'static [usize] {
        match self {
            Formula::X25519Ladderstep => &[1; 4],
            Formula::KummerLadderstep | Formula::KummerLadderstep2 => &[4, 4],
            Formula::KummerHadamard => &[4],
            _ => &[1; 3],
        }
    }

    /// Whether it takes a swap bit (a u1).
    pub fn has_swap(self) -> bool {
        !self.swap_params().is_empty()
    }

    /// The indices of its swap bits' parameters (u1 each, one per ladder step; empty
    /// without): first for the X25519 ladder step (issue 13's signature); last for the
    /// Kummer ladder steps, whose points then come first in inputs and outputs alike
    /// (`out1, out2` shaped as `arg1, arg2`), so that their search measures latency, as
    /// the ladder chains them. The one home of the parameter layout with
    /// [`Formula::input_param`].
    pub fn swap_params(self) -> std::ops::Range<usize> {
        match self {
            Formula::X25519Ladderstep => 0..1,
            Formula::KummerLadderstep => 3..4,
            Formula::KummerLadderstep2 => 3..5,
            _ => 0..0,
        }
    }

    /// The index of the parameter holding input group `k` (of [`Formula::params_in`]):
    /// `k`, after the swap bits when they come first.
    pub fn input_param(self, k: usize) -> usize {
        let swaps = self.swap_params();
        if !swaps.is_empty() && swaps.start <= k {
            k + swaps.len()
        } else {
            k
        }
    }

    /// The formula over any implementation of the field operations, its operations in
    /// the order of [`schedule`]: the elements in, the elements out (the inline
    /// function's order).
    pub(crate) fn run<O: Ops>(self, u: &mut O, args: Vec<O::Fe>) -> Result<Vec<O::Fe>, FieldError> {
        let mut r = schedule::Recorder::default();
        let ids = r.args(args.len());
        let outs = self.text(&mut r, ids)?;
        r.replay(u, args, &outs)
    }

    /// The formula's text over any implementation of the field operations, in the
    /// text's order (the C driver's): the one place that says which algorithm a formula
    /// is.
    pub(crate) fn text<O: Ops>(
        self,
        u: &mut O,
        args: Vec<O::Fe>,
    ) -> Result<Vec<O::Fe>, FieldError> {
        let n = args.len();
        let wrong = || {
            FieldError::compose(format!(
                "{} takes {} elements, not {n}",
                self.name(),
                self.elements_in()
            ))
        };
        let b = || {
            self.curve()
                .map(|(_, b)| b)
                .expect("a point formula's curve")
        };
        // The Jacobian doublings' one difference between the curves.
        let a_minus3 = self.over() == Over::P256;
        Ok(match self {
            Formula::X25519Ladderstep => {
                x25519::step(u, args.try_into().map_err(|_| wrong())?)?.to_vec()
            }
            Formula::KummerLadderstep => {
                kummer::step(u, args.try_into().map_err(|_| wrong())?)?.to_vec()
            }
            Formula::KummerLadderstep2 => {
                kummer::steps(u, args.try_into().map_err(|_| wrong())?, 2)?.to_vec()
            }
            Formula::KummerHadamard => {
                kummer::hadamard(u, args.try_into().map_err(|_| wrong())?)?.to_vec()
            }
            Formula::P256Add => {
                weierstrass::add_a_minus3(u, &b(), args.try_into().map_err(|_| wrong())?)?.to_vec()
            }
            Formula::P256Double => {
                weierstrass::double_a_minus3(u, &b(), args.try_into().map_err(|_| wrong())?)?
                    .to_vec()
            }
            Formula::Secp256k1Add => {
                weierstrass::add_a0(u, SECP256K1_B3, args.try_into().map_err(|_| wrong())?)?
                    .to_vec()
            }
            Formula::Secp256k1Double => {
                weierstrass::double_a0(u, SECP256K1_B3, args.try_into().map_err(|_| wrong())?)?
                    .to_vec()
            }
            Formula::P256DoubleJacobian | Formula::Secp256k1DoubleJacobian => {
                let args = args.try_into().map_err(|_| wrong())?;
                weierstrass::double_jacobian(u, a_minus3, weierstrass::Inputs::Any, args)?.to_vec()
            }
            Formula::P256DoubleToJacobian | Formula::Secp256k1DoubleToJacobian => {
                let args = args.try_into().map_err(|_| wrong())?;
                weierstrass::double_projective_to_jacobian(u, a_minus3, args)?.to_vec()
            }
            Formula::P256Double5 | Formula::Secp256k1Double5 => {
                let args = args.try_into().map_err(|_| wrong())?;
                weierstrass::double5(u, a_minus3, args)?.to_vec()
            }
            Formula::P256DoubleViaJacobian | Formula::Secp256k1DoubleViaJacobian => {
                let args = args.try_into().map_err(|_| wrong())?;
                weierstrass::double_via_jacobian(u, a_minus3, args)?.to_vec()
            }
        })
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
    let solinas = matches!(formula.over(), Over::Curve25519 | Over::Kummer);
    let supported = if solinas {
        matches!(spec.repr, Repr::Solinas { .. } | Repr::Saturated)
    } else {
        spec.repr == Repr::Montgomery
    };
    if !supported {
        return Err(FieldError::FormulaRepr {
            formula: formula.name(),
            repr: spec.representation(),
            supported: if solinas {
                "the solinas representation (unsaturated limbs) or the saturated one"
            } else {
                "the montgomery representation (saturated limbs)"
            },
        });
    }
    let name = format!("fiat_{}_{}", spec.prefix(), formula.suffix());
    inline::inline(inline::Body::Formula(formula), name, spec)
}
