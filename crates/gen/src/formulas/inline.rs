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
    /// Its swap bits' parameters ([`Formula::swap_params`]).
    fn swaps(self) -> std::ops::Range<usize> {
        match self {
            Body::Formula(f) => f.swap_params(),
            Body::Scmul(_) => 0..0,
        }
    }

    /// The index of the parameter holding input group `k` ([`Formula::input_param`]).
    fn param_of(self, k: usize) -> u32 {
        match self {
            Body::Formula(f) => f.input_param(k) as u32,
            Body::Scmul(_) => k as u32,
        }
    }

    /// How many elements each input and each output parameter holds.
    fn params(self) -> (&'static [usize], &'static [usize]) {
        match self {
            Body::Formula(f) => (f.params_in(), f.params_out()),
            Body::Scmul(_) => (&[1], &[1]),
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

    pub(crate) fn run<O: Ops>(self, u: &mut O, args: Vec<O::Fe>) -> Result<Vec<O::Fe>, FieldError> {
        match self {
            Body::Formula(f) => f.run(u, args),
            Body::Scmul(c) => Ok(vec![u.mul_small(&args[0], c)?]),
        }
    }
}

/// An implementation of [`Ops`] that emits into a function being built.
pub(crate) trait Inline: Ops {
    /// The element at limb `at` of argument `param`, its limbs within `bounds`.
    fn arg(&self, param: u32, at: u32, bounds: &[u128]) -> Self::Fe;
    /// The operands that store `x` within `bounds` (carried first if it is not).
    fn output(&mut self, x: &Self::Fe, bounds: &[u128]) -> Result<Vec<Opnd>, FieldError>;
    fn builder(&mut self) -> &mut Builder;
    fn finish(self) -> (Builder, Stats);
}

/// `body` over `spec` as one function named `name`, verified: its input parameters (one
/// or more elements each, limbs in order) with the swap bit (a u1) where the formula
/// says, returning its output elements within the tight bounds.
pub(crate) fn inline(
    body: Body,
    name: String,
    spec: &FieldSpec,
) -> Result<(Function, Stats), FieldError> {
    let internal = |message: String| FieldError::Internal {
        function: name.clone(),
        message,
    };
    let (ins, outs) = body.params();
    let (in_b, out_b) = (body.input_bounds(spec), spec.tight_bounds());
    // A parameter of `n` elements: its bounds repeated.
    let group = |n: usize, bounds: &[u128]| bounds.repeat(n);
    let mut params: Vec<Param> = ins
        .iter()
        .enumerate()
        .map(|(k, &n)| {
            let name = format!("arg{}", body.param_of(k) + 1);
            Param::array(&name, Ty::U64, &group(n, &in_b))
        })
        .collect();
    for s in body.swaps() {
        params.insert(s, Param::scalar(&format!("arg{}", s + 1), Ty::U1, 1));
    }
    let returns = outs
        .iter()
        .enumerate()
        .map(|(k, &n)| Param::array(&format!("out{}", k + 1), Ty::U64, &group(n, &out_b)))
        .collect();
    let b = Builder::new(name.clone(), params, returns);
    let swap: Vec<Opnd> = body.swaps().map(|p| Opnd::Arg(p as u32, 0)).collect();
    let (b, stats) = match spec.repr {
        Repr::Solinas { .. } => emit(Unsat::new(b, spec, swap), body, &in_b, &out_b),
        Repr::Montgomery | Repr::Saturated => emit(Full::new(b, spec, swap), body, &in_b, &out_b),
    }
    .map_err(|e| internal(e.to_string()))?;
    Ok((b.finish()?, stats))
}

fn emit<O: Inline>(
    mut u: O,
    body: Body,
    in_b: &[u128],
    out_b: &[u128],
) -> Result<(Builder, Stats), FieldError> {
    let (ins, outs_at) = body.params();
    let limbs = in_b.len() as u32;
    let mut args = Vec::new();
    for (k, &n) in ins.iter().enumerate() {
        for e in 0..n as u32 {
            args.push(u.arg(body.param_of(k), e * limbs, in_b));
        }
    }
    let outs = body.run(&mut u, args)?;
    // Output element j is element `e` of output parameter `ret`.
    let place = outs_at
        .iter()
        .enumerate()
        .flat_map(|(ret, &n)| (0..n as u32).map(move |e| (ret as u32, e)));
    for (x, (ret, e)) in outs.iter().zip(place) {
        for (i, o) in u.output(x, out_b)?.into_iter().enumerate() {
            u.builder().store(ret, e * limbs + i as u32, o);
        }
    }
    Ok(u.finish())
}
