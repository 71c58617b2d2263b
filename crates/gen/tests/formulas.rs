//! Whole formulas (`cryptopt_gen::formulas`) against independent models:
//!
//! * the X25519 ladder step, in 5×51 limbs and in saturated 4×64 words (`--repr
//!   saturated`), against the RFC 7748 §5 formulas written out on num-bigint
//!   field elements (not the generator), on 1,000 random inputs within the declared
//!   bounds plus edge values, with the swap bit both ways; the interpreter checks every
//!   input and output against its declared bounds;
//! * the ladder step driven 255 times over the interpreter from (1, 0, u, 1) reproduces
//!   RFC 7748's scalar-multiplication test vectors (§5.2);
//! * the lazy reduction: no carry chain beyond the nine multiplications' and squarings'
//!   and the one of the multiplication by a24 (the additions before multiplications need none);
//! * the lowered function computes the same, and it survives its Fiat JSON round trip;
//! * bad requests are refused with the choices named.

use cryptopt_frontend::fiat;
use cryptopt_gen::fields::{self, FieldSpec};
use cryptopt_gen::formulas::{self, Formula};
use cryptopt_ir::{inputs, interp, lower, Function};
use num_bigint::BigUint;
use num_traits::{One, Zero};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

fn curve25519() -> FieldSpec {
    fields::preset("curve25519").unwrap()
}

fn ladderstep() -> (FieldSpec, Function, formulas::Stats) {
    ladderstep_in(curve25519())
}

fn ladderstep_in(spec: FieldSpec) -> (FieldSpec, Function, formulas::Stats) {
    let (f, stats) = formulas::generate(Formula::X25519Ladderstep, &spec).unwrap();
    (spec, f, stats)
}

/// The ladder step in both representations: 5×51 (Fiat's tight bounds) and saturated
/// 4×64 (any value below 2^256).
fn both_ladder_steps() -> [(FieldSpec, Function, formulas::Stats); 2] {
    let saturated = fields::resolve(
        "curve25519",
        &fields::FieldOptions {
            repr: fields::ReprChoice::Saturated,
            ..Default::default()
        },
    )
    .unwrap();
    [ladderstep(), ladderstep_in(saturated)]
}

/// RFC 7748 §5's step on field elements: (x2, z2, x3, z3) after the swap and the step.
fn model(p: &BigUint, swap: bool, x1: &BigUint, e: [BigUint; 4]) -> [BigUint; 4] {
    let [mut x2, mut z2, mut x3, mut z3] = e;
    if swap {
        std::mem::swap(&mut x2, &mut x3);
        std::mem::swap(&mut z2, &mut z3);
    }
    let m = |a: &BigUint, b: &BigUint| (a * b) % p;
    let add = |a: &BigUint, b: &BigUint| (a + b) % p;
    let sub = |a: &BigUint, b: &BigUint| (a + p - (b % p)) % p;
    let a = add(&x2, &z2);
    let aa = m(&a, &a);
    let b = sub(&x2, &z2);
    let bb = m(&b, &b);
    let e = sub(&aa, &bb);
    let c = add(&x3, &z3);
    let d = sub(&x3, &z3);
    let da = m(&d, &a);
    let cb = m(&c, &b);
    let s = add(&da, &cb);
    let t = sub(&da, &cb);
    let x3 = m(&s, &s);
    let z3 = m(x1, &m(&t, &t));
    let x2 = m(&aa, &bb);
    let a24 = BigUint::from(121665u32);
    let z2 = m(&e, &add(&aa, &m(&a24, &e)));
    [x2, z2, x3, z3]
}

/// Runs the step on limb vectors; returns the four output elements' limbs.
fn step(f: &Function, swap: u128, x: [&[u128]; 5]) -> Vec<Vec<u128>> {
    let mut input = vec![vec![swap]];
    input.extend(x.iter().map(|v| v.to_vec()));
    interp::run(f, &input).unwrap_or_else(|e| panic!("{}: {e}", f.name))
}

#[test]
fn ladderstep_matches_the_rfc_formulas() {
    for (spec, f, _) in both_ladder_steps() {
        ladderstep_matches_the_rfc_formulas_in(&spec, &f);
    }
}

fn ladderstep_matches_the_rfc_formulas_in(spec: &FieldSpec, f: &Function) {
    let g = lower::lower(f).unwrap();
    let p = &spec.p;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7748);
    let mut cases = inputs::edge_cases(f);
    cases.extend((0..1000).map(|_| inputs::random(f, &mut rng)));
    let mut swaps = [0usize; 2];
    for (k, input) in cases.iter().enumerate() {
        // Both swap values for every input, whatever `random` drew.
        let mut input = input.clone();
        input[0][0] = (k % 2) as u128;
        swaps[k % 2] += 1;
        let got = interp::run(f, &input).unwrap_or_else(|e| panic!("{e} on {input:x?}"));
        assert_eq!(interp::run(&g, &input).unwrap(), got, "lowered differs");
        let el = |i: usize| spec.eval(&input[i]);
        let want = model(p, k % 2 == 1, &el(1), [el(2), el(3), el(4), el(5)]);
        for (i, w) in want.iter().enumerate() {
            assert_eq!(spec.eval(&got[i]) % p, *w, "output {i} on input {input:x?}");
        }
    }
    assert!(swaps[0] >= 500 && swaps[1] >= 500);
}

fn hex_le(s: &str) -> BigUint {
    let bytes: Vec<u8> = (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect();
    BigUint::from_bytes_le(&bytes)
}

/// X25519(k, u) with the generated ladder step over the interpreter (RFC 7748 §5).
fn x25519(spec: &FieldSpec, f: &Function, scalar: &str, u: &str) -> String {
    let p = &spec.p;
    let mut k = hex_le(scalar);
    k &= (BigUint::one() << 255u32) - 8u32;
    k |= BigUint::one() << 254u32;
    let u = hex_le(u) & ((BigUint::one() << 255u32) - 1u32);
    let x1 = spec.to_limbs(&(u % p));
    let mut x2 = spec.to_limbs(&BigUint::one());
    let mut z2 = spec.to_limbs(&BigUint::zero());
    let mut x3 = x1.clone();
    let mut z3 = spec.to_limbs(&BigUint::one());
    let mut swap = 0u128;
    for t in (0..255u64).rev() {
        let kt = k.bit(t) as u128;
        let out = step(f, swap ^ kt, [&x1, &x2, &z2, &x3, &z3]);
        swap = kt;
        [x2, z2, x3, z3] = [0, 1, 2, 3].map(|i| out[i].clone());
    }
    if swap == 1 {
        std::mem::swap(&mut x2, &mut x3);
        std::mem::swap(&mut z2, &mut z3);
    }
    let (x, z) = (spec.eval(&x2), spec.eval(&z2));
    let r = (x * z.modpow(&(p - 2u32), p)) % p;
    let mut bytes = r.to_bytes_le();
    bytes.resize(32, 0);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// RFC 7748 §5.2: (scalar, u, X25519(scalar, u)).
const RFC7748: [(&str, &str, &str); 2] = [
    (
        "a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4",
        "e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c",
        "c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552",
    ),
    (
        "4b66e9d4d1b4673c5ad22691957d6af5c11b6421e0ea01d42ca4169e7918ba0d",
        "e5210f12786811d3f4b7959d0538ae2c31dbe7106fc03c3efc4cd549c715a493",
        "95cbde9476e8907d7aade45cb4b873f88b595a68799fa152e6f8f7647aac7957",
    ),
];

#[test]
fn ladder_reproduces_rfc7748_vectors() {
    for (spec, f, _) in both_ladder_steps() {
        for (k, u, want) in RFC7748 {
            assert_eq!(x25519(&spec, &f, k, u), want, "{}", f.name);
        }
    }
}

#[test]
fn reductions_only_where_bounds_need_them() {
    let [(_, f, stats), (_, sat, sat_stats)] = both_ladder_steps();
    assert_eq!(sat.name, "fiat_25519_solinas_ladderstep");
    assert_eq!(
        sat_stats, stats,
        "the same operations, and no carry, in 4×64 too"
    );
    assert_eq!(stats.muls, 9, "5 multiplications and 4 squarings");
    assert_eq!(stats.small_muls, 1, "a24·E");
    assert_eq!(
        stats.extra_carries, 0,
        "no carry beyond the multiplications': the additions and subtractions before \
         multiplications stay unreduced"
    );
    // The structure says the same: carry chains are `>> 51` shifts, 7 per chain.
    let shifts = f
        .insts
        .iter()
        .filter(|d| d.op == cryptopt_ir::Op::Shr)
        .count();
    assert_eq!(shifts, 10 * 7);
}

#[test]
fn ladderstep_survives_its_fiat_json_round_trip() {
    let (_, f, _) = ladderstep();
    let json = cryptopt_emit::to_fiat_json(&f).unwrap();
    let text = serde_json::to_string(&serde_json::Value::Array(vec![json])).unwrap();
    let back = fiat::parse_functions(&text).unwrap();
    assert_eq!(back, vec![f]);
}

#[test]
fn bad_requests_name_the_choices() {
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "x25519-ladderstp",
            "curve25519",
            &[
                "unknown formula",
                "did you mean `x25519-ladderstep`",
                "formulas: x25519-ladderstep",
            ],
        ),
        (
            "x25519-ladderstep",
            "p256",
            &["not defined over", "fields: curve25519"],
        ),
    ];
    for &(formula, field, want) in cases {
        let err = formula
            .parse::<Formula>()
            .and_then(|fm| formulas::generate(fm, &fields::preset(field).unwrap()).map(|_| ()))
            .unwrap_err()
            .to_string();
        for w in want {
            assert!(
                err.contains(w),
                "{formula} over {field}: `{err}` lacks `{w}`"
            );
        }
        assert!(!err.contains('\n'));
    }
    let mont = fields::resolve(
        "curve25519",
        &fields::FieldOptions {
            repr: fields::ReprChoice::Montgomery,
            ..Default::default()
        },
    )
    .unwrap();
    let err = formulas::generate(Formula::X25519Ladderstep, &mont)
        .unwrap_err()
        .to_string();
    assert!(err.contains("the solinas representation"), "{err}");
}

/// The ladder step as C over a library: the operations it calls (each a function of its
/// own with Fiat's bounds), the driver's signature, and the multiplication by a24
/// against c·a mod p on num-bigint.
#[test]
fn ladderstep_library() {
    let (spec, f, _) = ladderstep();
    let lib = formulas::library(Formula::X25519Ladderstep, &spec, &f).unwrap();
    let names: Vec<&str> = lib.ops.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "fiat_25519_carry_mul",
            "fiat_25519_carry_square",
            "fiat_25519_add",
            "fiat_25519_sub",
            "fiat_25519_carry_scmul_121665",
        ]
    );
    assert_eq!(lib.symbol, "fiat_25519_ladderstep_from_ops");
    for op in &names {
        assert!(lib.body.contains(&format!("    {op}(t")), "{op} is called");
    }
    assert!(!lib.body.contains("if ("), "no branch");
    for k in 1..=4 {
        assert!(
            lib.body.contains(&format!("out{k}[i] = t")),
            "out{k} written"
        );
    }
    // Nine multiplications and squarings, one small multiplication, as inline.
    let calls = |s: &str| lib.body.matches(&format!("    {s}(t")).count();
    assert_eq!(
        calls("fiat_25519_carry_mul") + calls("fiat_25519_carry_square"),
        9
    );

    let scmul = &lib.ops[4];
    let p = spec.p.clone();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    for _ in 0..200 {
        let x = inputs::random(scmul, &mut rng);
        let out = interp::run(scmul, &x).unwrap();
        let value = |limbs: &[u128]| -> BigUint {
            limbs
                .iter()
                .rev()
                .fold(BigUint::zero(), |acc, &l| (acc << 51) + BigUint::from(l))
        };
        assert_eq!(
            value(&out[0]) % &p,
            (value(&x[0]) * BigUint::from(121665u32)) % &p
        );
    }
}

/// The 4-way ladder step of the vector dialect (AVX-512 IFMA, the 5×51 step's
/// signature), its scalar expansion run by the interpreter.
fn lanes_step() -> Function {
    let v = formulas::lanes::x25519_ladderstep("fiat_25519_ladderstep_ifma").unwrap();
    let f = v.expand();
    cryptopt_ir::validate::validate(&f, cryptopt_ir::validate::Dialect::Fiat).unwrap();
    cryptopt_ir::validate::validate(&f, cryptopt_ir::validate::Dialect::Lowered).unwrap();
    f
}

#[test]
fn lanes_ladderstep_matches_the_rfc_formulas() {
    let f = lanes_step();
    ladderstep_matches_the_rfc_formulas_in(&curve25519(), &f);
    // It takes what the 5×51 step takes, and gives what the 5×51 multiplication takes.
    let (spec, scalar, _) = ladderstep();
    for (a, b) in f.params.iter().zip(&scalar.params) {
        assert!(
            a.ubound.iter().zip(&b.ubound).all(|(x, y)| x >= y),
            "{}",
            a.name
        );
    }
    let loose = spec.loose_bounds();
    for r in &f.returns {
        assert!(
            r.ubound.iter().zip(&loose).all(|(x, y)| x <= y),
            "{}",
            r.name
        );
    }
}

#[test]
fn lanes_ladder_reproduces_rfc7748_vectors() {
    let (spec, f) = (curve25519(), lanes_step());
    for (k, u, want) in RFC7748 {
        assert_eq!(x25519(&spec, &f, k, u), want);
    }
}
