//! The saturated Solinas representation (`--repr saturated`, curve25519's
//! `2^256 ≡ 38`, p127's `2^128 ≡ 2`): each operation against num-bigint arithmetic mod p on random words and
//! the edge values that exercise every fold (all-ones words, zeros, values just below
//! 2^256 and p); the multiplication and squaring against Fiat's own
//! `fiat_curve25519_solinas_*` (../shared/fiat-json) word for word; refusals. (The
//! ladder step in this representation is tested with the other in `formulas.rs`.)

use cryptopt_frontend::fiat;
use cryptopt_gen::fields::{self, FieldOp, FieldOptions, FieldSpec, ReprChoice};
use cryptopt_gen::formulas::{self, Formula};
use cryptopt_ir::{interp, lower, Function};
use num_bigint::BigUint;
use num_traits::One;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

fn saturated(field: &str) -> Result<FieldSpec, fields::FieldError> {
    fields::resolve(
        field,
        &FieldOptions {
            repr: ReprChoice::Saturated,
            ..Default::default()
        },
    )
}

/// Word vectors of `p`'s word count: edge values, then random ones.
fn words(rng: &mut Xoshiro256PlusPlus, k: usize, p: &BigUint) -> Vec<u128> {
    let m = u64::MAX as u128;
    let n = p.bits().div_ceil(64) as usize;
    let below = |x: BigUint| -> Vec<u128> {
        let mut w: Vec<u128> = x.iter_u64_digits().map(u128::from).collect();
        w.resize(n, 0);
        w
    };
    let top = |w: u128| -> Vec<u128> {
        let mut v = vec![0; n];
        v[n - 1] = w;
        v
    };
    let c = (BigUint::one() << (64 * n)) % p;
    match k {
        0 => vec![m; n],
        1 => vec![0; n],
        2 => below(p.clone()),
        3 => below(p - 1u32),
        4 => below(p + 1u32),
        5 => below((BigUint::one() << (64 * n)) - c),
        6 => below(BigUint::from(m)),
        7 => top(m),
        _ => (0..n)
            .map(|_| {
                // Mostly random words, some all-ones, to reach the carries.
                if rng.random::<u8>() < 32 {
                    m
                } else {
                    rng.random::<u64>() as u128
                }
            })
            .collect(),
    }
}

fn run(f: &Function, input: &[Vec<u128>]) -> Vec<Vec<u128>> {
    interp::run(f, input).unwrap_or_else(|e| panic!("{}: {e} on {input:x?}", f.name))
}

#[test]
fn operations_agree_with_arithmetic_mod_p() {
    // curve25519 (4 words, c = 38) and p127 (2 words, c = 2: shifts for the products
    // by c).
    for field in ["curve25519", "p127"] {
        operations_agree_with_arithmetic_mod_p_in(field);
    }
}

fn operations_agree_with_arithmetic_mod_p_in(field: &str) {
    let spec = saturated(field).unwrap();
    let p = spec.p.clone();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(38);
    for op in FieldOp::ALL {
        let f = fields::generate(&spec, op).unwrap();
        let g = lower::lower(&f).unwrap();
        for k in 0..2000 {
            let a = words(&mut rng, k % 12, &p);
            let b = words(&mut rng, (k / 12) % 12, &p);
            let input = if op.arity() == 2 { vec![a, b] } else { vec![a] };
            let out = run(&f, &input);
            assert_eq!(run(&g, &input), out, "{}: lowered differs", f.name);
            let (x, y) = (spec.eval(&input[0]), spec.eval(input.last().unwrap()));
            let want = match op {
                FieldOp::Mul => &x * &y % &p,
                FieldOp::Square => &x * &x % &p,
                FieldOp::Add => (&x + &y) % &p,
                FieldOp::Sub => (&x + &p * 2u32 - &y % &p) % &p,
                FieldOp::Opp => (&p - &x % &p) % &p,
            };
            assert_eq!(spec.eval(&out[0]) % &p, want, "{} on {input:x?}", f.name);
        }
    }
}

/// Word for word what Fiat's `curve25519_solinas` computes (the same reduction).
#[test]
fn mul_and_square_match_fiats_solinas_functions() {
    let Ok(dir) = std::env::var("CRYPTOPT_FIAT_JSON") else {
        eprintln!(
            "SKIPPED mul_and_square_match_fiats_solinas_functions: CRYPTOPT_FIAT_JSON is not set"
        );
        return;
    };
    let text = std::fs::read_to_string(format!("{dir}/curve25519_solinas_64.json")).unwrap();
    let theirs = fiat::parse_functions(&text).unwrap();
    let spec = saturated("curve25519").unwrap();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(25519);
    for (op, name) in [
        (FieldOp::Mul, "fiat_curve25519_solinas_mul"),
        (FieldOp::Square, "fiat_curve25519_solinas_square"),
    ] {
        let ours = fields::generate(&spec, op).unwrap();
        let fiat = theirs.iter().find(|f| f.name == name).unwrap();
        for k in 0..2000 {
            let a = words(&mut rng, k % 12, &spec.p);
            let b = words(&mut rng, (k / 12) % 12, &spec.p);
            let input = if op == FieldOp::Mul {
                vec![a, b]
            } else {
                vec![a]
            };
            assert_eq!(
                run(&ours, &input),
                run(fiat, &input),
                "{name} on {input:x?}"
            );
        }
    }
}

#[test]
fn representation_is_refused_where_it_cannot_hold() {
    for field in ["p256", "p448", "secp256k1"] {
        let err = saturated(field).unwrap_err().to_string();
        assert!(
            err.contains("no saturated Solinas representation"),
            "{field}: {err}"
        );
        assert!(err.contains("Montgomery"), "{field}: {err}");
    }
    let spec = saturated("curve25519").unwrap();
    assert!(spec.representation().contains("2^256 ≡ 38"));
    assert_eq!(spec.function_name(FieldOp::Mul), "fiat_25519_solinas_mul");
    // A point formula needs Montgomery.
    let k1 = formulas::generate(Formula::P256Add, &saturated("curve25519").unwrap()).unwrap_err();
    assert!(k1.to_string().contains("not defined over"), "{k1}");
}
