//! A formula (or one operation) emitted inline as one function: the one place that lays
//! out a formula function's signature, picks the representation's implementation of
//! [`Ops`], hands it the arguments and stores what it returns.
//!
//! ```text
//!   Body ──inline(spec)──▶ params (swap bit, elements) ─▶ Unsat | Full ─▶ Body::run
//!                                                      ─▶ outputs within bounds, stored
//! ```
//!
//! It must never store an output whose bounds the implementation has not brought within
//! the declared ones (`Inline::output` carries where the representation needs it).

use cryptopt_ir::func::{Function, Param, Ty};

use crate::fields::build::{Builder, Opnd};
use crate::fields::{FieldError, FieldSpec, Repr};

use super::full::Full;
use super::unsat::Unsat;
use super::{Formula, Ops};

/// Counts of what the composition emitted (the tests check the lazy reduction with it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Multiplications and squarings (each ends in its own reduction).
    pub muls: usize,
    /// Pairs of products that share one reduction (`a·b ± c·d`, Montgomery).
    pub shared_reductions: usize,
    /// Multiplications by a small constant.
    pub small_muls: usize,
    /// Carry chains inserted because a bound required one.
    pub extra_carries: usize,
}

/// What a function computes: a whole formula, or one multiplication by a small constant
/// (the library operation the C driver calls for `mul_small`).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Body {
    Formula(Formula),
    Scmul(u64),
}

impl Body {
    fn swap(self) -> bool {
        matches!(self, Body::Formula(f) if f.has_swap())
    }

    fn elements(self) -> (usize, usize) {
        match self {
            Body::Formula(f) => (f.elements_in(), f.elements_out()),
            Body::Scmul(_) => (1, 1),
        }
    }

    /// The bounds of its input elements: a formula takes tight elements (its outputs'
    /// bounds, so that steps chain), a multiplication by a constant loose ones (Fiat's
    /// `carry_*` convention). Saturated representations have one bound for both.
    fn input_bounds(self, spec: &FieldSpec) -> Vec<u128> {
        match self {
            Body::Formula(_) => spec.tight_bounds(),
            Body::Scmul(_) => spec.loose_bounds(),
        }
    }

    pub(crate) fn run<O: Ops>(self, u: &mut O, args: Vec<O::Fe>) -> Result<Vec<O::Fe>, String> {
        match self {
            Body::Formula(f) => f.run(u, args),
            Body::Scmul(c) => Ok(vec![u.mul_small(&args[0], c)?]),
        }
    }
}

/// An implementation of [`Ops`] that emits into a function being built.
pub(crate) trait Inline: Ops {
    /// Argument `param` as an element whose limbs are within `bounds`.
    fn arg(&self, param: u32, bounds: &[u128]) -> Self::Fe;
    /// The operands that store `x` within `bounds` (carried first if it is not).
    fn output(&mut self, x: &Self::Fe, bounds: &[u128]) -> Result<Vec<Opnd>, String>;
    fn builder(&mut self) -> &mut Builder;
    fn finish(self) -> (Builder, Stats);
}

/// `body` over `spec` as one function named `name`, verified: the swap bit first if it
/// has one (a u1), then its input elements, returning its output elements within the
/// tight bounds.
pub(crate) fn inline(
    body: Body,
    name: String,
    spec: &FieldSpec,
) -> Result<(Function, Stats), FieldError> {
    let internal = |message: String| FieldError::Internal {
        function: name.clone(),
        message,
    };
    let (ins, outs) = body.elements();
    let (in_b, out_b) = (body.input_bounds(spec), spec.tight_bounds());
    let first = body.swap() as u32;
    let mut params = Vec::new();
    if body.swap() {
        params.push(Param::scalar("arg1", Ty::U1, 1));
    }
    let elem =
        |k: u32, bounds: &[u128]| Param::array(&format!("arg{}", first + k + 1), Ty::U64, bounds);
    params.extend((0..ins as u32).map(|k| elem(k, &in_b)));
    let returns = (1..=outs)
        .map(|k| Param::array(&format!("out{k}"), Ty::U64, &out_b))
        .collect();
    let b = Builder::new(name.clone(), params, returns);
    let swap = if body.swap() {
        Opnd::Arg(0, 0)
    } else {
        Opnd::K(0)
    };
    let (b, stats) = match spec.repr {
        Repr::Solinas { .. } => emit(Unsat::new(b, spec, swap), body, first, &in_b, &out_b),
        Repr::Montgomery | Repr::Saturated => {
            emit(Full::new(b, spec, swap), body, first, &in_b, &out_b)
        }
    }
    .map_err(internal)?;
    Ok((b.finish()?, stats))
}

fn emit<O: Inline>(
    mut u: O,
    body: Body,
    first: u32,
    in_b: &[u128],
    out_b: &[u128],
) -> Result<(Builder, Stats), String> {
    let (ins, _) = body.elements();
    let args = (0..ins as u32).map(|k| u.arg(first + k, in_b)).collect();
    let outs = body.run(&mut u, args)?;
    for (ret, x) in outs.iter().enumerate() {
        for (i, o) in u.output(x, out_b)?.into_iter().enumerate() {
            u.builder().store(ret as u32, i as u32, o);
        }
    }
    Ok(u.finish())
}
