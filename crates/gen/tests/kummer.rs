//! The Kummer formulas (`gen --formula kummer-ladderstep | kummer-hadamard` over p127)
//! against an independent model: the squared-Kummer-surface pseudo-doubling and
//! differential addition written out on num-bigint field elements from the surface's
//! theta constants (divisions by `A², B², …` and by the difference's coordinates as field
//! inverses, not the generator's scaled integer constants), compared projectively.
//!
//! * the ladder step in both representations (2×64 saturated, 3 unsaturated limbs) on
//!   10,000 (saturated) and 2,000 (unsaturated) random inputs within the declared bounds
//!   plus edge values, the swap bit both ways;
//! * the surface: the base point of the paper (appendix D) and the identity
//!   `(a² : b² : c² : d²)` lie on the squared Kummer surface, and so does every output of
//!   the generated step on surface points;
//! * the order: the ladder driven by the generated step over the interpreter from
//!   `(identity, B)` gives `[ℓ]B = identity` and `[ℓ+1]B = B` for the prime ℓ of the
//!   Jacobian order 16·ℓ the paper gives (§2.6), and a random scalar agrees with the
//!   model's ladder;
//! * the lazy reduction's counts, and the Hadamard formula.

use cryptopt_gen::fields::{self, FieldSpec};
use cryptopt_gen::formulas::{self, Formula};
use cryptopt_ir::{inputs, interp, Function};
use cryptopt_testkit::kummer::{base_inverted, ell, Model, Point};
use num_bigint::BigUint;
use num_traits::{One, Zero};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

fn spec(repr: fields::ReprChoice) -> FieldSpec {
    fields::resolve(
        "p127",
        &fields::FieldOptions {
            repr,
            ..Default::default()
        },
    )
    .unwrap()
}

fn both() -> [(FieldSpec, Function, formulas::Stats); 2] {
    [fields::ReprChoice::Saturated, fields::ReprChoice::Solinas].map(|r| {
        let s = spec(r);
        let (f, stats) = formulas::generate(Formula::KummerLadderstep, &s).unwrap();
        (s, f, stats)
    })
}

/// Element `e` of a parameter's limbs.
fn element(spec: &FieldSpec, limbs: &[u128], e: usize) -> BigUint {
    let n = spec.limbs() as usize;
    spec.eval(&limbs[e * n..(e + 1) * n]) % &spec.p
}

fn elements<const K: usize>(spec: &FieldSpec, limbs: &[u128]) -> [BigUint; K] {
    std::array::from_fn(|e| element(spec, limbs, e))
}

/// One step over the interpreter: `(R0', R1')` from `(R0, R1)`, the difference's
/// inverted-affine coordinates and the swap bit.
fn step(
    spec: &FieldSpec,
    f: &Function,
    swap: bool,
    d: &[BigUint; 3],
    r: [&Point; 2],
) -> [Point; 2] {
    let limbs =
        |xs: &[BigUint]| -> Vec<u128> { xs.iter().flat_map(|x| spec.to_limbs(x)).collect() };
    let input = vec![limbs(r[0]), limbs(r[1]), limbs(d), vec![swap as u128]];
    let out = interp::run(f, &input).unwrap_or_else(|e| panic!("{}: {e}", f.name));
    [elements(spec, &out[0]), elements(spec, &out[1])]
}

#[test]
fn base_point_and_identity_are_on_the_surface() {
    let m = Model::new();
    let b = m.point_of_inverted(&base_inverted(&m.f));
    assert!(m.surface(&b).is_zero(), "the paper's base point");
    assert!(
        m.surface(&m.t2).is_zero(),
        "the identity (a² : b² : c² : d²)"
    );
    let d = m.double(&b);
    assert!(m.surface(&d).is_zero(), "[2]B");
    let mut off = b.clone();
    off[3] = m.f.add(&off[3], &BigUint::one());
    assert!(
        !m.surface(&off).is_zero(),
        "a point off the surface is told apart"
    );
    // The model's group law: doubling the identity is the identity.
    assert!(m.same(&m.double(&m.t2), &m.t2));
}

#[test]
fn ladderstep_matches_the_model() {
    let m = Model::new();
    for ((spec, f, _), n) in both().iter().zip([10_000, 2_000]) {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(2014);
        let mut cases = inputs::edge_cases(f);
        cases.extend((0..n).map(|_| inputs::random(f, &mut rng)));
        // Inputs compared with the model, by swap bit (a difference with a zero
        // coordinate has no inverted-affine form: skipped).
        let mut compared = [0usize; 2];
        for (k, input) in cases.iter().enumerate() {
            let mut input = input.clone();
            let swap = k % 2 == 1;
            input[3][0] = swap as u128;
            let d: [BigUint; 3] = elements(spec, &input[2]);
            let r: [Point; 2] = [elements(spec, &input[0]), elements(spec, &input[1])];
            let got = interp::run(f, &input).unwrap_or_else(|e| panic!("{e} on {input:x?}"));
            // The ladder's difference is R1 − R0 with inverted-affine coordinates d.
            if d.iter().any(|x| x.is_zero()) {
                continue;
            }
            let diff = m.point_of_inverted(&d);
            let (p, q) = if swap { (&r[1], &r[0]) } else { (&r[0], &r[1]) };
            let dbl = m.double(p);
            let sum = m.add(p, q, &diff);
            let want = if swap { [sum, dbl] } else { [dbl, sum] };
            for (o, w) in got.iter().zip(&want) {
                let o: Point = elements(spec, o);
                // Degenerate inputs (a zero product) give the zero vector on both sides.
                let zero = |x: &Point| x.iter().all(|v| v.is_zero());
                assert_eq!(zero(&o), zero(w), "{}: {input:x?}", f.name);
                assert!(m.same(&o, w), "{}: output differs on {input:x?}", f.name);
            }
            compared[swap as usize] += 1;
        }
        assert!(
            // Random inputs favour zero words, so a few differences are skipped.
            compared.iter().all(|&c| c >= n * 9 / 20),
            "{}: too few inputs compared {compared:?}",
            f.name
        );
    }
}

#[test]
fn ladder_over_the_interpreter_has_the_papers_order() {
    let m = Model::new();
    let bi = base_inverted(&m.f);
    let b = m.point_of_inverted(&bi);
    let id = m.t2.clone();
    for (spec, f, _) in both() {
        let ladder = |n: &BigUint| -> Point {
            let (mut r0, mut r1) = (id.clone(), b.clone());
            for i in (0..n.bits()).rev() {
                let [a, c] = step(&spec, &f, n.bit(i), &bi, [&r0, &r1]);
                for x in [&a, &c] {
                    assert!(
                        m.surface(x).is_zero(),
                        "{}: a step left the surface",
                        f.name
                    );
                }
                (r0, r1) = (a, c);
            }
            r0
        };
        let l = ell();
        assert!(m.same(&ladder(&l), &id), "{}: [ℓ]B is the identity", f.name);
        assert!(m.same(&ladder(&(&l + 1u32)), &b), "{}: [ℓ+1]B = B", f.name);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(54389);
        let n = BigUint::from_bytes_le(&rng.random::<[u8; 32]>());
        assert!(
            m.same(&ladder(&n), &m.ladder(&n, &b)),
            "{}: a random scalar",
            f.name
        );
    }
}

#[test]
fn reductions_only_where_bounds_need_them() {
    let [(_, sat, sat_stats), (_, unsat, stats)] = both();
    assert_eq!(sat.name, "fiat_p127_solinas_ladderstep");
    assert_eq!(unsat.name, "fiat_p127_ladderstep");
    for s in [sat_stats, stats] {
        assert_eq!(s.muls, 4 + 4 + 8 + 3, "7 multiplications and 12 squarings");
        assert_eq!(s.small_muls, 12, "three rows of constants");
    }
    assert_eq!(
        sat_stats.extra_carries, 0,
        "saturated words: no carry chains at all"
    );
    assert!(
        stats.extra_carries <= 8,
        "3 limbs: carries only where a Hadamard row's bounds need them ({})",
        stats.extra_carries
    );
}

#[test]
fn hadamard_formula_is_the_transform() {
    let m = Model::new();
    for r in [fields::ReprChoice::Saturated, fields::ReprChoice::Solinas] {
        let spec = spec(r);
        let (f, _) = formulas::generate(Formula::KummerHadamard, &spec).unwrap();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(4);
        let mut cases = inputs::edge_cases(&f);
        cases.extend((0..1000).map(|_| inputs::random(&f, &mut rng)));
        for input in cases {
            let x: Point = elements(&spec, &input[0]);
            let got = interp::run(&f, &input).unwrap();
            let got: Point = elements(&spec, &got[0]);
            assert_eq!(got, m.h(&x), "{}: {input:x?}", f.name);
        }
    }
}

/// Multiplication by the step's small constants as functions of their own (`gen
/// --scmul C`, the field's "multiplication by small constants"), both representations,
/// against `c·x mod p`; constants outside 1 to 2^32 − 1 refused.
#[test]
fn small_constant_multiplications() {
    for r in [fields::ReprChoice::Saturated, fields::ReprChoice::Solinas] {
        let spec = spec(r);
        for c in [2u64, 57, 833, 2499, (1 << 32) - 1] {
            let f = formulas::scmul(&spec, c).unwrap();
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(c);
            let mut cases = inputs::edge_cases(&f);
            cases.extend((0..500).map(|_| inputs::random(&f, &mut rng)));
            for input in cases {
                let got = interp::run(&f, &input).unwrap();
                let x = spec.eval(&input[0]);
                assert_eq!(
                    spec.eval(&got[0]) % &spec.p,
                    x * c % &spec.p,
                    "{}: {input:x?}",
                    f.name
                );
            }
        }
        for c in [0, 1 << 32] {
            let e = formulas::scmul(&spec, c).unwrap_err().to_string();
            assert!(e.contains("must be 1 to 2^32 - 1"), "{e}");
        }
    }
}

/// `kummer-ladderstep2`: two steps in one function (the ladder's calls halved), equal to
/// two calls of the single step on random inputs and all four pairs of swap bits.
#[test]
fn two_steps_are_two_steps() {
    for r in [fields::ReprChoice::Saturated, fields::ReprChoice::Solinas] {
        let spec = spec(r);
        let (one, _) = formulas::generate(Formula::KummerLadderstep, &spec).unwrap();
        let (two, _) = formulas::generate(Formula::KummerLadderstep2, &spec).unwrap();
        assert_eq!(two.params.len(), 5, "R0, R1, the difference, two swap bits");
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
        let mut cases = inputs::edge_cases(&two);
        cases.extend((0..500).map(|_| inputs::random(&two, &mut rng)));
        for (k, input) in cases.iter().enumerate() {
            let mut input = input.clone();
            let (b1, b2) = ((k & 1) as u128, (k >> 1 & 1) as u128);
            input[3] = vec![b1];
            input[4] = vec![b2];
            let got = interp::run(&two, &input).unwrap();
            // One step of `one` on points (p, q), the base difference and a swap bit.
            let step = |p: &[u128], q: &[u128], bit: u128| {
                let args = [p.to_vec(), q.to_vec(), input[2].clone(), vec![bit]];
                interp::run(&one, &args).unwrap()
            };
            let first = step(&input[0], &input[1], b1);
            let want = step(&first[0], &first[1], b2);
            assert_eq!(got, want, "{}: {input:x?}", two.name);
        }
    }
}
