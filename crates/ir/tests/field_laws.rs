//! The reference interpreter against number theory: run Fiat's field arithmetic from
//! ../shared/fiat-json on random and edge-case inputs and check the results with
//! `num-bigint`, independently of the `fiat-crypto` crate.
//!
//! Every prime and every limb weight below is taken from the doc comments of the
//! `fiat-crypto` 0.3.0 crate (a dev-dependency, so they are in the cargo registry): the
//! file header's `m = ...` / `s-c = ...` line, and its `eval z = z[0] + (z[1] << 51) + ...`
//! line. Two files state no `eval` line; for them:
//!
//! * `curve25519_solinas_64` (`solinas_reduction`): saturated, `eval z = Σ z[i]·2^(64i)`
//!   (all limbs are full `u64`, and the `mul` postcondition is
//!   `eval out1 mod p = (eval arg1 * eval arg2) mod p`, no Montgomery factor);
//! * `secp256k1_dettman_64` (`dettman_multiplication 64 5 48 2`): 5 limbs, the last one
//!   48 bits wide, so the limb width is (256 - 48) / (5 - 1) = 52 and
//!   `eval z = Σ z[i]·2^(52i)` (the reduction constants `0x1000003d10 = 0x1000003d1 << 4`
//!   agree: 2^260 ≡ 0x1000003d1·2^4).
//!
//! A wrong weight or prime makes the mul/square laws fail on almost every input (tried:
//! poly1305 weights [0, 44, 88] and Dettman width 51 break all four of their functions).
//! `add` alone would not notice a wrong weight, as it works limb by limb.

use cryptopt_testkit as common;

use std::path::Path;

use cryptopt_ir::{inputs, interp, Function};
use num_bigint::BigUint;
use num_traits::{One, Zero};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Random inputs per function (edge cases come on top).
const RANDOM_INPUTS: usize = 1000;

/// How a file represents a field element.
#[derive(Clone, Copy, Debug)]
enum Repr {
    /// Word-by-word Montgomery: saturated 64-bit limbs, `eval z = Σ z[i]·2^(64i)`, the
    /// element being `eval z · R⁻¹ mod p` with `R = 2^(64·limbs)`. Every function requires
    /// `eval arg < p` and guarantees `eval out < p`.
    Montgomery { limbs: u32 },
    /// Positional: `eval z = Σ z[i]·2^(weights[i])`; inputs and outputs are bounded per
    /// limb by the declared bounds, and the field element is `eval z mod p`.
    Positional { weights: &'static [u32] },
}

/// One Fiat JSON file: its prime and representation.
#[derive(Debug)]
struct Field {
    file: &'static str,
    /// The prime as Fiat's command line gives it (`m = ... (from "2^256 - ...")` or
    /// `s-c = ...` in the crate's file header), and as a decimal or `0x` hex literal: the
    /// crate docs' own where they print one (`m = 0x...` for Montgomery files, the decimal
    /// modulus in the solinas and Dettman postconditions), else written out by hand. The
    /// two are checked against each other.
    formula: fn() -> BigUint,
    doc_literal: &'static str,
    repr: Repr,
}

/// What a function computes, as a congruence modulo p on field elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Law {
    /// `out ≡ a·b`.
    Mul,
    /// `out ≡ a²`.
    Square,
    /// `out ≡ a + b`.
    Add,
    /// `out ≡ a - b`.
    Sub,
    /// `out ≡ -a`.
    Opp,
    /// `out ≡ k·a`.
    ScMul(u32),
    /// Montgomery only, on raw integers: `out ≡ x·R`.
    ToMontgomery,
    /// Montgomery only, on raw integers: `out ≡ x·R⁻¹`.
    FromMontgomery,
}

impl Law {
    fn arity(self) -> usize {
        match self {
            Law::Mul | Law::Add | Law::Sub => 2,
            _ => 1,
        }
    }
}

fn pow2(n: u32) -> BigUint {
    BigUint::one() << n
}

const fn weights<const N: usize>(width: u32) -> [u32; N] {
    let mut w = [0; N];
    let mut i = 0;
    while i < N {
        w[i] = width * i as u32;
        i += 1;
    }
    w
}

const W25519: [u32; 5] = [0, 51, 102, 153, 204];
const W64X4: [u32; 4] = weights::<4>(64);
const W448: [u32; 8] = weights::<8>(56);
const W521: [u32; 9] = weights::<9>(58);
const W1305: [u32; 3] = [0, 44, 87];
const WDETTMAN: [u32; 5] = weights::<5>(52);

const CURVE25519: Field = Field {
    file: "curve25519_64.json",
    formula: || pow2(255) - 19u32,
    doc_literal: "57896044618658097711785492504343953926634992332820282019728792003956564819949",
    repr: Repr::Positional { weights: &W25519 },
};
const CURVE25519_SOLINAS: Field = Field {
    file: "curve25519_solinas_64.json",
    formula: || pow2(255) - 19u32,
    doc_literal: "57896044618658097711785492504343953926634992332820282019728792003956564819949",
    repr: Repr::Positional { weights: &W64X4 },
};
const P224: Field = Field {
    file: "p224_64.json",
    formula: || pow2(224) - pow2(96) + 1u32,
    doc_literal: "0xffffffffffffffffffffffffffffffff000000000000000000000001",
    repr: Repr::Montgomery { limbs: 4 },
};
const P256: Field = Field {
    file: "p256_64.json",
    formula: || pow2(256) - pow2(224) + pow2(192) + pow2(96) - 1u32,
    doc_literal: "0xffffffff00000001000000000000000000000000ffffffffffffffffffffffff",
    repr: Repr::Montgomery { limbs: 4 },
};
const P384: Field = Field {
    file: "p384_64.json",
    formula: || pow2(384) - pow2(128) - pow2(96) + pow2(32) - 1u32,
    doc_literal: "0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffeffffffff0000000000000000ffffffff",
    repr: Repr::Montgomery { limbs: 6 },
};
const P434: Field = Field {
    file: "p434_64.json",
    formula: || pow2(216) * BigUint::from(3u32).pow(137) - 1u32,
    doc_literal: "0x2341f271773446cfc5fd681c520567bc65c783158aea3fdc1767ae2ffffffffffffffffffffffffffffffffffffffffffffffffffffff",
    repr: Repr::Montgomery { limbs: 7 },
};
const SECP256K1_MONTGOMERY: Field = Field {
    file: "secp256k1_montgomery_64.json",
    formula: || pow2(256) - pow2(32) - 977u32,
    doc_literal: "0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f",
    repr: Repr::Montgomery { limbs: 4 },
};
const P448: Field = Field {
    file: "p448_solinas_64.json",
    formula: || pow2(448) - pow2(224) - 1u32,
    doc_literal: "0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffeffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
    repr: Repr::Positional { weights: &W448 },
};
const P521: Field = Field {
    file: "p521_64.json",
    formula: || pow2(521) - 1u32,
    doc_literal: "0x1ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
    repr: Repr::Positional { weights: &W521 },
};
const POLY1305: Field = Field {
    file: "poly1305_64.json",
    formula: || pow2(130) - 5u32,
    doc_literal: "0x3fffffffffffffffffffffffffffffffb",
    repr: Repr::Positional { weights: &W1305 },
};
const SECP256K1_DETTMAN: Field = Field {
    file: "secp256k1_dettman_64.json",
    formula: || pow2(256) - 4294968273u64,
    doc_literal: "115792089237316195423570985008687907853269984665640564039457584007908834671663",
    repr: Repr::Positional { weights: &WDETTMAN },
};

const FIELDS: [&Field; 11] = [
    &CURVE25519,
    &CURVE25519_SOLINAS,
    &P224,
    &P256,
    &P384,
    &P434,
    &P448,
    &P521,
    &POLY1305,
    &SECP256K1_DETTMAN,
    &SECP256K1_MONTGOMERY,
];

/// The 22 multiplications and squarings: one of each per file.
const MUL_SQUARE: [(&Field, &str, Law); 22] = [
    (&CURVE25519, "fiat_25519_carry_mul", Law::Mul),
    (&CURVE25519, "fiat_25519_carry_square", Law::Square),
    (&CURVE25519_SOLINAS, "fiat_curve25519_solinas_mul", Law::Mul),
    (
        &CURVE25519_SOLINAS,
        "fiat_curve25519_solinas_square",
        Law::Square,
    ),
    (&P224, "fiat_p224_mul", Law::Mul),
    (&P224, "fiat_p224_square", Law::Square),
    (&P256, "fiat_p256_mul", Law::Mul),
    (&P256, "fiat_p256_square", Law::Square),
    (&P384, "fiat_p384_mul", Law::Mul),
    (&P384, "fiat_p384_square", Law::Square),
    (&P434, "fiat_p434_mul", Law::Mul),
    (&P434, "fiat_p434_square", Law::Square),
    (&P448, "fiat_p448_carry_mul", Law::Mul),
    (&P448, "fiat_p448_carry_square", Law::Square),
    (&P521, "fiat_p521_carry_mul", Law::Mul),
    (&P521, "fiat_p521_carry_square", Law::Square),
    (&POLY1305, "fiat_poly1305_carry_mul", Law::Mul),
    (&POLY1305, "fiat_poly1305_carry_square", Law::Square),
    (&SECP256K1_DETTMAN, "fiat_secp256k1_dettman_mul", Law::Mul),
    (
        &SECP256K1_DETTMAN,
        "fiat_secp256k1_dettman_square",
        Law::Square,
    ),
    (
        &SECP256K1_MONTGOMERY,
        "fiat_secp256k1_montgomery_mul",
        Law::Mul,
    ),
    (
        &SECP256K1_MONTGOMERY,
        "fiat_secp256k1_montgomery_square",
        Law::Square,
    ),
];

/// The files that have `add`, `sub` and `opp` (all but the two mul/square-only ones).
const ADD_SUB_OPP: [(&Field, &str); 9] = [
    (&CURVE25519, "fiat_25519"),
    (&P224, "fiat_p224"),
    (&P256, "fiat_p256"),
    (&P384, "fiat_p384"),
    (&P434, "fiat_p434"),
    (&P448, "fiat_p448"),
    (&P521, "fiat_p521"),
    (&POLY1305, "fiat_poly1305"),
    (&SECP256K1_MONTGOMERY, "fiat_secp256k1_montgomery"),
];

/// The Montgomery files, with their function prefix.
const MONTGOMERY: [(&Field, &str); 5] = [
    (&P224, "fiat_p224"),
    (&P256, "fiat_p256"),
    (&P384, "fiat_p384"),
    (&P434, "fiat_p434"),
    (&SECP256K1_MONTGOMERY, "fiat_secp256k1_montgomery"),
];

impl Field {
    fn prime(&self) -> BigUint {
        (self.formula)()
    }

    fn limb_weights(&self) -> Vec<u32> {
        match self.repr {
            Repr::Montgomery { limbs } => (0..limbs).map(|i| 64 * i).collect(),
            Repr::Positional { weights } => weights.to_vec(),
        }
    }

    fn eval(&self, limbs: &[u128]) -> BigUint {
        let w = self.limb_weights();
        assert_eq!(limbs.len(), w.len(), "{}: limb count", self.file);
        limbs
            .iter()
            .zip(&w)
            .map(|(&l, &w)| BigUint::from(l) << w)
            .sum()
    }

    /// `R mod p` for a Montgomery field, 1 otherwise.
    fn r(&self) -> BigUint {
        match self.repr {
            Repr::Montgomery { limbs } => pow2(64 * limbs) % self.prime(),
            Repr::Positional { .. } => BigUint::one(),
        }
    }
}

/// The saturated 64-bit limbs of `x` (which must fit).
fn limbs64(x: &BigUint, n: usize) -> Vec<u128> {
    let mut d: Vec<u128> = x.iter_u64_digits().map(u128::from).collect();
    assert!(d.len() <= n, "{x:#x} does not fit {n} limbs");
    d.resize(n, 0);
    d
}

/// `[0x1, 0xff, ...]`, on one line.
fn hex(limbs: &[u128]) -> String {
    let l: Vec<String> = limbs.iter().map(|x| format!("{x:#x}")).collect();
    format!("[{}]", l.join(", "))
}

fn inv(x: &BigUint, p: &BigUint) -> BigUint {
    // p is prime (checked by `primes_match_the_fiat_docs`): Fermat.
    x.modpow(&(p - 2u32), p)
}

/// Inputs for a function: random ones plus edge cases, each as `(args)`.
///
/// * Positional: [`inputs::random`] (each limb within its declared bounds, biased to the
///   bounds), and every combination of the per-argument patterns of
///   [`inputs::edge_cases`].
/// * Montgomery: the declared bounds are the full `u64` range, but Fiat's precondition
///   (stated in every Montgomery file's header) is `eval arg < p`, and only then is the
///   postcondition promised. So each random argument is drawn within the declared bounds
///   and then reduced mod p; edge cases are the declared edge patterns reduced mod p, and
///   all combinations of a few special values (0, 1, 2, p-1, p-2, (p+1)/2, R mod p,
///   2^(64(n-1)) mod p).
fn gen_inputs(field: &Field, f: &Function, rng: &mut Xoshiro256PlusPlus) -> Vec<Vec<Vec<u128>>> {
    let mut all: Vec<Vec<Vec<u128>>> = (0..RANDOM_INPUTS).map(|_| inputs::random(f, rng)).collect();
    let edges = inputs::edge_cases(f);
    // Every combination of per-argument edge patterns.
    let mut combos: Vec<Vec<Vec<u128>>> = vec![vec![]];
    for i in 0..f.params.len() {
        combos = combos
            .into_iter()
            .flat_map(|c| {
                edges.iter().map(move |e| {
                    let mut c = c.clone();
                    c.push(e[i].clone());
                    c
                })
            })
            .collect();
    }
    all.extend(combos);
    if let Repr::Montgomery { limbs } = field.repr {
        let (p, n) = (field.prime(), limbs as usize);
        for args in &mut all {
            for a in args.iter_mut() {
                *a = limbs64(&(field.eval(a) % &p), n);
            }
        }
        let specials: Vec<BigUint> = [
            BigUint::zero(),
            BigUint::one(),
            BigUint::from(2u32),
            &p - 1u32,
            &p - 2u32,
            (&p + 1u32) >> 1,
            field.r(),
            pow2(64 * (limbs - 1)) % &p,
        ]
        .iter()
        .map(|x| x % &p)
        .collect();
        let mut combos: Vec<Vec<Vec<u128>>> = vec![vec![]];
        for _ in 0..f.params.len() {
            combos = combos
                .into_iter()
                .flat_map(|c| {
                    specials.iter().map(move |x| {
                        let mut c = c.clone();
                        c.push(limbs64(x, n));
                        c
                    })
                })
                .collect();
        }
        all.extend(combos);
    }
    all
}

/// The expected field result of `law` on the arguments, as an integer in `[0, p)`: for a
/// Montgomery field, the residue that `eval out` must be congruent to.
fn expected(field: &Field, law: Law, args: &[BigUint]) -> BigUint {
    let p = field.prime();
    let r = field.r();
    let a = &args[0] % &p;
    let b = || &args[1] % &p;
    match law {
        // Montgomery: out·R ≡ a·b, i.e. out ≡ a·b·R⁻¹ (R = 1 for positional fields).
        Law::Mul => a * b() * inv(&r, &p) % &p,
        Law::Square => &a * &a * inv(&r, &p) % &p,
        Law::Add => (a + b()) % &p,
        Law::Sub => (a + &p - b()) % &p,
        Law::Opp => (&p - a) % &p,
        Law::ScMul(k) => a * k % &p,
        Law::ToMontgomery => a * r % &p,
        Law::FromMontgomery => a * inv(&r, &p) % &p,
    }
}

/// What one [`check`] did.
#[derive(Default)]
struct Tally {
    functions: usize,
    inputs: usize,
    failures: Vec<String>,
}

/// Runs `func` of `field` on random and edge-case inputs and checks `law`:
///
/// * the congruence `eval out ≡ law(eval args)` modulo p (with the Montgomery factors);
/// * every output limb within the declared return bounds;
/// * for Montgomery fields, `eval out < p` (the canonical representative).
///
/// Records the first failure of the function (with its inputs) in `tally`.
fn check(dir: &Path, field: &Field, func: &str, law: Law, seed: u64, tally: &mut Tally) {
    let f = common::function(dir, field.file, func);
    assert_eq!(f.params.len(), law.arity(), "{func}: arity for {law:?}");
    assert_eq!(f.returns.len(), 1, "{func}: one return expected");
    let n = field.limb_weights().len();
    for prm in f.params.iter().chain(&f.returns) {
        assert_eq!(
            prm.elems(),
            n,
            "{func}: {} has {} limbs",
            prm.name,
            prm.elems()
        );
    }
    if matches!(law, Law::ToMontgomery | Law::FromMontgomery) {
        assert!(matches!(field.repr, Repr::Montgomery { .. }), "{func}");
    }
    let p = field.prime();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let cases = gen_inputs(field, &f, &mut rng);
    let mut scratch = Vec::new();
    let ret = &f.returns[0];
    let mut failure = None;
    for args in &cases {
        let outs = interp::run_with(&f, args, &mut scratch)
            .unwrap_or_else(|e| panic!("{func}: interpreter error: {e}"));
        let out = &outs[0];
        let vals: Vec<BigUint> = args.iter().map(|a| field.eval(a)).collect();
        let want = expected(field, law, &vals);
        let got = field.eval(out);
        let mut why = Vec::new();
        if &got % &p != want {
            why.push(format!(
                "eval(out) mod p = {:#x}, expected {want:#x}",
                &got % &p
            ));
        }
        if matches!(field.repr, Repr::Montgomery { .. }) && got >= p {
            why.push(format!("eval(out) = {got:#x} is not < p"));
        }
        for (i, &l) in out.iter().enumerate() {
            if l < ret.lbound[i] || l > ret.ubound[i] {
                why.push(format!(
                    "out[{i}] = {l:#x} outside declared [{:#x}, {:#x}]",
                    ret.lbound[i], ret.ubound[i]
                ));
            }
        }
        if !why.is_empty() && failure.is_none() {
            failure = Some(format!(
                "{func} ({law:?}, {}): inputs {} -> out {}: {}",
                field.file,
                args.iter().map(|a| hex(a)).collect::<Vec<_>>().join(", "),
                hex(out),
                why.join("; ")
            ));
        }
    }
    tally.functions += 1;
    tally.inputs += cases.len();
    tally.failures.extend(failure);
}

fn finish(test: &str, tally: &Tally, functions: usize) {
    eprintln!(
        "{test}: checked {} functions on {} inputs in all, {} failing",
        tally.functions,
        tally.inputs,
        tally.failures.len()
    );
    assert!(
        tally.failures.is_empty(),
        "{} functions break their law:\n{}",
        tally.failures.len(),
        tally.failures.join("\n")
    );
    assert_eq!(tally.functions, functions, "{test}: functions checked");
    assert!(
        tally.inputs >= functions * RANDOM_INPUTS,
        "{test}: only {} inputs checked",
        tally.inputs
    );
}

/// The primes written as formulas here are the ones in the crate's docs, and prime.
#[test]
fn primes_match_the_fiat_docs() {
    for field in FIELDS {
        let p = field.prime();
        let lit = match field.doc_literal.strip_prefix("0x") {
            Some(hex) => BigUint::parse_bytes(hex.as_bytes(), 16),
            None => BigUint::parse_bytes(field.doc_literal.as_bytes(), 10),
        }
        .unwrap();
        assert_eq!(p, lit, "{}", field.file);
        // Fermat tests to a few bases; a typo in a formula would not pass them.
        for base in [2u32, 3, 5, 7] {
            assert!(
                BigUint::from(base).modpow(&(&p - 1u32), &p).is_one(),
                "{}: p is not prime",
                field.file
            );
        }
        // The top limb's weight is below p's bit length (no limb is weighted past p).
        let w = field.limb_weights();
        assert!(p.bits() > u64::from(*w.last().unwrap()), "{}", field.file);
    }
}

#[test]
fn mul_and_square_obey_field_laws() {
    let Some(dir) = common::fiat_dir("mul_and_square_obey_field_laws") else {
        return;
    };
    let mut tally = Tally::default();
    for (k, (field, func, law)) in MUL_SQUARE.iter().enumerate() {
        check(&dir, field, func, *law, 0x5eed_0000 + k as u64, &mut tally);
    }
    finish("mul_and_square_obey_field_laws", &tally, 22);
}

#[test]
fn add_sub_opp_obey_field_laws() {
    let Some(dir) = common::fiat_dir("add_sub_opp_obey_field_laws") else {
        return;
    };
    let mut tally = Tally::default();
    for (k, (field, prefix)) in ADD_SUB_OPP.iter().enumerate() {
        for (j, (op, law)) in [("add", Law::Add), ("sub", Law::Sub), ("opp", Law::Opp)]
            .into_iter()
            .enumerate()
        {
            let seed = 0xadd_0000 + 16 * k as u64 + j as u64;
            check(
                &dir,
                field,
                &format!("{prefix}_{op}"),
                law,
                seed,
                &mut tally,
            );
        }
    }
    check(
        &dir,
        &CURVE25519,
        "fiat_25519_carry_scmul_121666",
        Law::ScMul(121666),
        0x5c_0000,
        &mut tally,
    );
    finish(
        "add_sub_opp_obey_field_laws",
        &tally,
        3 * ADD_SUB_OPP.len() + 1,
    );
}

#[test]
fn montgomery_conversions() {
    let Some(dir) = common::fiat_dir("montgomery_conversions") else {
        return;
    };
    let mut tally = Tally::default();
    for (k, (field, prefix)) in MONTGOMERY.iter().enumerate() {
        let (to, from) = (
            format!("{prefix}_to_montgomery"),
            format!("{prefix}_from_montgomery"),
        );
        let seed = 0x3047_0000 + 16 * k as u64;
        check(&dir, field, &to, Law::ToMontgomery, seed, &mut tally);
        check(
            &dir,
            field,
            &from,
            Law::FromMontgomery,
            seed + 1,
            &mut tally,
        );

        // from_montgomery(to_montgomery(x)) == x for x < p, and the other way round.
        let (tf, ff) = (
            common::function(&dir, field.file, &to),
            common::function(&dir, field.file, &from),
        );
        let Repr::Montgomery { limbs } = field.repr else {
            unreachable!()
        };
        let p = field.prime();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed + 2);
        let mut xs: Vec<BigUint> = (0..RANDOM_INPUTS)
            .map(|_| {
                let l: Vec<u128> = (0..limbs)
                    .map(|_| u128::from(rng.random::<u64>()))
                    .collect();
                field.eval(&l) % &p
            })
            .collect();
        xs.extend([BigUint::zero(), BigUint::one(), &p - 1u32, field.r()]);
        for x in &xs {
            let l = limbs64(x, limbs as usize);
            let there = interp::run(&tf, std::slice::from_ref(&l)).unwrap();
            let back = interp::run(&ff, &there).unwrap();
            assert_eq!(back[0], l, "{from}({to}({x:#x}))");
            let back =
                interp::run(&tf, &interp::run(&ff, std::slice::from_ref(&l)).unwrap()).unwrap();
            assert_eq!(back[0], l, "{to}({from}({x:#x}))");
        }
        tally.inputs += xs.len();
    }
    finish("montgomery_conversions", &tally, 2 * MONTGOMERY.len());
}
