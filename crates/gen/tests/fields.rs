//! The built-in field generator (`cryptopt_gen::fields`) against number theory, against
//! the `fiat-crypto` crate, through lowering and through its Fiat JSON round trip.
//!
//! * every preset × operation, and 20 random primes of each representation (random odd
//!   primes of 128..=521 bits for Montgomery, `2^k - c` with `k` in 127..=521 and
//!   `c < 2^10` for Solinas) × operation, on [`SAMPLES`] random inputs within the
//!   declared bounds (plus edge cases): the interpreter's output satisfies the field law
//!   (checked with num-bigint) and its declared bounds, `lower(f)` computes the same, and
//!   the function survives `to_fiat_json` → `parse_functions` unchanged;
//! * every preset × operation that fiat-crypto 0.3.0 has: same inputs, equal field
//!   values required, and bit-exact equality required too (it holds for all of them:
//!   Montgomery outputs are canonical, and the Solinas functions use Fiat's columns and
//!   carry chains);
//! * every function of ../shared/fiat-json survives the JSON round trip.
//!
//! Montgomery inputs are below `p` (Fiat's precondition), mostly uniform, sometimes
//! edge values (0, 1, p-1, p-2, small, near p); Solinas inputs are
//! `cryptopt_ir::inputs::random` within the declared bounds plus its edge cases.

use cryptopt_testkit as common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use cryptopt_frontend::fiat;
use cryptopt_gen::fields::{self, generate, FieldOp, FieldOptions, FieldSpec, Repr, ReprChoice};
use cryptopt_ir::{inputs, interp, lower, Function};
use num_bigint::BigUint;
use num_traits::{One, Zero};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Random input vectors per function (edge cases come on top).
const SAMPLES: usize = 1000;

/// Random primes of each representation.
const RANDOM_PRIMES: usize = 20;

/// Runs `jobs` on all CPUs; returns the results in job order.
fn parallel<T: Sync, R: Send>(jobs: &[T], run: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let out: Mutex<Vec<Option<R>>> = Mutex::new((0..jobs.len()).map(|_| None).collect());
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= jobs.len() {
                    break;
                }
                let r = run(&jobs[i]);
                out.lock().unwrap()[i] = Some(r);
            });
        }
    });
    out.into_inner()
        .unwrap()
        .into_iter()
        .map(|r| r.expect("every job ran"))
        .collect()
}

fn seed(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

fn random_below<R: Rng>(rng: &mut R, p: &BigUint) -> BigUint {
    let words = p.bits().div_ceil(64) as usize + 1;
    let x = BigUint::from_slice(
        &(0..2 * words)
            .map(|_| rng.random::<u32>())
            .collect::<Vec<_>>(),
    );
    x % p
}

/// Montgomery inputs: field elements below p, with edge values now and then.
fn montgomery_inputs<R: Rng>(spec: &FieldSpec, f: &Function, rng: &mut R) -> Vec<Vec<u128>> {
    let p = &spec.p;
    let edge = |rng: &mut R| -> BigUint {
        match rng.random_range(0..6u8) {
            0 => BigUint::zero(),
            1 => BigUint::one(),
            2 => p - 1u32,
            3 => p - 2u32,
            4 => BigUint::from(rng.random::<u64>()) % p,
            _ => p - 1u32 - (BigUint::from(rng.random::<u64>()) % p),
        }
    };
    f.params
        .iter()
        .map(|_| {
            let x = if rng.random_range(0..8u8) == 0 {
                edge(rng)
            } else {
                random_below(rng, p)
            };
            spec.to_limbs(&x)
        })
        .collect()
}

/// What was checked for one function: the number of input vectors.
struct Checked {
    inputs: usize,
}

/// The field law of `op` on evaluated arguments and output.
fn law_holds(spec: &FieldSpec, op: FieldOp, args: &[BigUint], out: &BigUint) -> bool {
    let p = &spec.p;
    let (a, b) = (&args[0], args.get(1).unwrap_or(&args[0]));
    let want = match op {
        FieldOp::Mul | FieldOp::Square => a * b,
        FieldOp::Add => a + b,
        FieldOp::Sub => a + (p - (b % p)),
        FieldOp::Opp => p - (a % p),
    } % p;
    let got = match (spec.repr, op) {
        // out·R ≡ a·b
        (Repr::Montgomery, FieldOp::Mul | FieldOp::Square) => (out << (64 * spec.limbs())) % p,
        _ => out % p,
    };
    let canonical = spec.repr != Repr::Montgomery || out < p;
    canonical && got == want
}

/// Generates `op` for `spec` and checks it on `samples` random inputs plus edge cases:
/// field law, declared output bounds, lowering, JSON round trip.
fn check(spec: &FieldSpec, op: FieldOp, samples: usize) -> Result<Checked, String> {
    let f = generate(spec, op).map_err(|e| e.to_string())?;
    let name = &f.name;
    // JSON round trip: identical function.
    let json = cryptopt_emit::to_fiat_json(&f)
        .map_err(|e| e.to_string())?
        .to_string();
    let back = fiat::parse_functions(&json).map_err(|e| format!("{name}: reparse: {e}"))?;
    if back != [f.clone()] {
        return Err(format!("{name}: JSON round trip changed the function"));
    }
    let low = lower::lower(&f).map_err(|e| format!("{name}: lowering: {e}"))?;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed(&format!("{name} {:x}", spec.p)));
    let mut cases = match spec.repr {
        Repr::Montgomery => Vec::new(),
        Repr::Solinas { .. } | Repr::Saturated => inputs::edge_cases(&f),
    };
    for _ in 0..samples {
        cases.push(match spec.repr {
            Repr::Montgomery => montgomery_inputs(spec, &f, &mut rng),
            Repr::Solinas { .. } | Repr::Saturated => inputs::random(&f, &mut rng),
        });
    }
    let (mut s1, mut s2) = (Vec::new(), Vec::new());
    for ins in &cases {
        let out = interp::run_with(&f, ins, &mut s1).map_err(|e| e.to_string())?;
        let ret = &f.returns[0];
        for (i, &x) in out[0].iter().enumerate() {
            if x < ret.lbound[i] || x > ret.ubound[i] {
                return Err(format!(
                    "{name}: out1[{i}] = {x:#x} is outside its bound {:#x}\n  inputs: {ins:x?}",
                    ret.ubound[i]
                ));
            }
        }
        let args: Vec<BigUint> = ins.iter().map(|a| spec.eval(a)).collect();
        if !law_holds(spec, op, &args, &spec.eval(&out[0])) {
            return Err(format!(
                "{name} (p = {:#x}): the field law fails\n  inputs: {ins:x?}\n  output: {:x?}",
                spec.p, out[0]
            ));
        }
        let lowered = interp::run_with(&low, ins, &mut s2).map_err(|e| e.to_string())?;
        if lowered != out {
            return Err(format!(
                "{name}: lowering changed the result\n  inputs: {ins:x?}\n  original: {out:x?}\n  lowered: {lowered:x?}"
            ));
        }
    }
    Ok(Checked {
        inputs: cases.len(),
    })
}

fn run_table(what: &str, jobs: Vec<(FieldSpec, FieldOp)>) {
    let t = Instant::now();
    let results = parallel(&jobs, |(spec, op)| check(spec, *op, SAMPLES));
    let mut failures = Vec::new();
    let mut inputs = 0;
    for r in &results {
        match r {
            Ok(c) => inputs += c.inputs,
            Err(e) => failures.push(e.clone()),
        }
    }
    eprintln!(
        "{what}: {} functions, {inputs} input vectors, {:.1?}",
        results.len(),
        t.elapsed()
    );
    assert!(
        failures.is_empty(),
        "{} of {} functions failed:\n{}",
        failures.len(),
        results.len(),
        failures.join("\n")
    );
}

#[test]
fn presets_satisfy_the_field_laws() {
    let jobs: Vec<(FieldSpec, FieldOp)> = fields::PRESETS
        .iter()
        .flat_map(|name| {
            let spec = fields::preset(name).unwrap();
            FieldOp::ALL.into_iter().map(move |op| (spec.clone(), op))
        })
        .collect();
    assert_eq!(jobs.len(), 55);
    run_table("presets", jobs);
}

/// Random odd primes of 128..=521 bits, Montgomery. Every other one has a multiple of
/// 64 bits, so that the top limb is full and the carry word of the product matters.
#[test]
fn random_montgomery_primes_satisfy_the_field_laws() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x6d6f_6e74);
    let mut specs = Vec::new();
    while specs.len() < RANDOM_PRIMES {
        let mut bits = rng.random_range(128..=521u64);
        if specs.len() % 2 == 1 {
            bits = (bits / 64 * 64).max(128);
        }
        let mut p = random_below(&mut rng, &(BigUint::one() << bits));
        p.set_bit(bits - 1, true);
        p.set_bit(0, true);
        while !fields::is_probable_prime(&p) {
            p += 2u32;
        }
        if p.bits() != bits {
            continue;
        }
        let opts = FieldOptions {
            repr: ReprChoice::Montgomery,
            ..FieldOptions::default()
        };
        specs.push(FieldSpec::new("rand", &format!("{p:#x}"), p, &opts).unwrap());
    }
    let jobs = specs
        .into_iter()
        .flat_map(|s| FieldOp::ALL.into_iter().map(move |op| (s.clone(), op)))
        .collect();
    run_table("random Montgomery primes", jobs);
}

/// Primes 2^k - c with the largest prime c below 2^10 for some k: they need the
/// 128-bit scalings (`(a_i·b_j)·κ`) and 128-bit carries.
const SOLINAS_STRESS: &[&str] = &[
    "2^521 - 723",
    "2^512 - 975",
    "2^448 - 825",
    "2^384 - 317",
    "2^256 - 923",
    "2^127 - 957",
];

/// Random primes 2^k - c, k in 127..=521, c < 2^10, Solinas with the automatic limb count
/// (plus [`SOLINAS_STRESS`]).
#[test]
fn random_solinas_primes_satisfy_the_field_laws() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x736f_6c69);
    let mut specs = Vec::new();
    let mut limbs = Vec::new();
    let solinas = FieldOptions {
        repr: ReprChoice::Solinas,
        ..FieldOptions::default()
    };
    for formula in SOLINAS_STRESS {
        let p = fields::parse_prime(formula).unwrap();
        let spec = FieldSpec::new("stress", formula, p, &solinas).unwrap();
        limbs.push(format!("{formula}: {}", spec.limbs()));
        specs.push(spec);
    }
    while specs.len() < RANDOM_PRIMES + SOLINAS_STRESS.len() {
        let k = rng.random_range(127..=521u32);
        let start = rng.random_range(0..512u32);
        // The first prime 2^k - c among odd c < 2^10, from a random start.
        let found = (0..512u32)
            .map(|i| 2 * ((start + i) % 512) + 1)
            .find(|&c| fields::is_probable_prime(&((BigUint::one() << k) - c)));
        let Some(c) = found else { continue };
        let formula = format!("2^{k} - {c}");
        let p = fields::parse_prime(&formula).unwrap();
        let spec = FieldSpec::new("rand", &formula, p, &solinas)
            .unwrap_or_else(|e| panic!("{formula}: {e}"));
        limbs.push(format!("{formula}: {}", spec.limbs()));
        specs.push(spec);
    }
    eprintln!(
        "random Solinas primes and limb counts: {}",
        limbs.join(", ")
    );
    let jobs = specs
        .into_iter()
        .flat_map(|s| FieldOp::ALL.into_iter().map(move |op| (s.clone(), op)))
        .collect();
    run_table("random Solinas primes", jobs);
}

// ---------------------------------------------------------------------------------------
// Against the fiat-crypto crate.

/// A crate field element, converted from and to the interpreter's limbs.
trait Limbs: 'static {
    fn from_limbs(x: &[u128]) -> Self;
    fn limbs(&self) -> Vec<u128>;
    fn zero() -> Self;
}

macro_rules! newtype_limbs {
    ($($m:ident :: $t:ident),* $(,)?) => {$(
        impl Limbs for fiat_crypto::$m::$t {
            fn from_limbs(x: &[u128]) -> Self {
                Self(std::array::from_fn(|i| u64::try_from(x[i]).expect("limb fits u64")))
            }
            fn limbs(&self) -> Vec<u128> {
                self.0.iter().map(|&v| u128::from(v)).collect()
            }
            fn zero() -> Self {
                Self(Default::default())
            }
        }
    )*};
}
newtype_limbs!(
    curve25519_64::fiat_25519_loose_field_element,
    curve25519_64::fiat_25519_tight_field_element,
    p224_64::fiat_p224_montgomery_domain_field_element,
    p256_64::fiat_p256_montgomery_domain_field_element,
    p384_64::fiat_p384_montgomery_domain_field_element,
    p434_64::fiat_p434_montgomery_domain_field_element,
    p448_solinas_64::fiat_p448_loose_field_element,
    p448_solinas_64::fiat_p448_tight_field_element,
    p521_64::fiat_p521_loose_field_element,
    p521_64::fiat_p521_tight_field_element,
    poly1305_64::fiat_poly1305_loose_field_element,
    poly1305_64::fiat_poly1305_tight_field_element,
    secp256k1_montgomery_64::fiat_secp256k1_montgomery_montgomery_domain_field_element,
);

type Adapter = Box<dyn Fn(&[Vec<u128>]) -> Vec<u128> + Sync>;

fn binary<O: Limbs, A: Limbs, B: Limbs>(f: fn(&mut O, &A, &B)) -> Adapter {
    Box::new(move |ins| {
        let mut o = O::zero();
        f(&mut o, &A::from_limbs(&ins[0]), &B::from_limbs(&ins[1]));
        o.limbs()
    })
}

fn unary<O: Limbs, A: Limbs>(f: fn(&mut O, &A)) -> Adapter {
    Box::new(move |ins| {
        let mut o = O::zero();
        f(&mut o, &A::from_limbs(&ins[0]));
        o.limbs()
    })
}

/// The crate's mul, square, add, sub, opp of a module.
macro_rules! five {
    ($m:ident: $mul:ident, $square:ident, $add:ident, $sub:ident, $opp:ident) => {{
        use fiat_crypto::$m as m;
        [
            binary(m::$mul),
            unary(m::$square),
            binary(m::$add),
            binary(m::$sub),
            unary(m::$opp),
        ]
    }};
}

/// Presets fiat-crypto 0.3.0 has (all but bls12-381-p), with their five functions in
/// [`FieldOp::ALL`] order.
fn crate_table() -> Vec<(&'static str, [Adapter; 5])> {
    vec![
        (
            "curve25519",
            five!(curve25519_64: fiat_25519_carry_mul, fiat_25519_carry_square, fiat_25519_add, fiat_25519_sub, fiat_25519_opp),
        ),
        (
            "p224",
            five!(p224_64: fiat_p224_mul, fiat_p224_square, fiat_p224_add, fiat_p224_sub, fiat_p224_opp),
        ),
        (
            "p256",
            five!(p256_64: fiat_p256_mul, fiat_p256_square, fiat_p256_add, fiat_p256_sub, fiat_p256_opp),
        ),
        (
            "p384",
            five!(p384_64: fiat_p384_mul, fiat_p384_square, fiat_p384_add, fiat_p384_sub, fiat_p384_opp),
        ),
        (
            "p434",
            five!(p434_64: fiat_p434_mul, fiat_p434_square, fiat_p434_add, fiat_p434_sub, fiat_p434_opp),
        ),
        (
            "p448",
            five!(p448_solinas_64: fiat_p448_carry_mul, fiat_p448_carry_square, fiat_p448_add, fiat_p448_sub, fiat_p448_opp),
        ),
        (
            "p521",
            five!(p521_64: fiat_p521_carry_mul, fiat_p521_carry_square, fiat_p521_add, fiat_p521_sub, fiat_p521_opp),
        ),
        (
            "poly1305",
            five!(poly1305_64: fiat_poly1305_carry_mul, fiat_poly1305_carry_square, fiat_poly1305_add, fiat_poly1305_sub, fiat_poly1305_opp),
        ),
        (
            "secp256k1",
            five!(secp256k1_montgomery_64: fiat_secp256k1_montgomery_mul, fiat_secp256k1_montgomery_square, fiat_secp256k1_montgomery_add, fiat_secp256k1_montgomery_sub, fiat_secp256k1_montgomery_opp),
        ),
    ]
}

/// Equal field values required; bit-exact equality required too (see the module docs).
#[test]
fn presets_agree_with_the_fiat_crypto_crate() {
    let table = crate_table();
    let jobs: Vec<(usize, usize)> = (0..table.len())
        .flat_map(|i| (0..5).map(move |k| (i, k)))
        .collect();
    let t = Instant::now();
    let results = parallel(&jobs, |&(i, k)| -> Result<(String, usize), String> {
        let (preset, adapters) = &table[i];
        let spec = fields::preset(preset).unwrap();
        let op = FieldOp::ALL[k];
        let f = generate(&spec, op).map_err(|e| e.to_string())?;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed(&f.name) ^ 0xf1a7);
        let mut cases = match spec.repr {
            Repr::Montgomery => Vec::new(),
            Repr::Solinas { .. } | Repr::Saturated => inputs::edge_cases(&f),
        };
        for _ in 0..SAMPLES {
            cases.push(match spec.repr {
                Repr::Montgomery => montgomery_inputs(&spec, &f, &mut rng),
                Repr::Solinas { .. } | Repr::Saturated => inputs::random(&f, &mut rng),
            });
        }
        let mut differ = 0;
        for ins in &cases {
            let ours = interp::run(&f, ins).map_err(|e| e.to_string())?.remove(0);
            let theirs = adapters[k](ins);
            if ours != theirs {
                if spec.eval(&ours) % &spec.p != spec.eval(&theirs) % &spec.p {
                    return Err(format!(
                        "{}: different field values from fiat-crypto\n  inputs: {ins:x?}\n  ours:   {ours:x?}\n  crate:  {theirs:x?}",
                        f.name
                    ));
                }
                differ += 1;
            }
        }
        if differ > 0 {
            return Err(format!(
                "{}: equal field values but not bit-exact on {differ} of {} inputs",
                f.name,
                cases.len()
            ));
        }
        Ok((f.name, cases.len()))
    });
    let mut failures = Vec::new();
    let mut n = 0;
    for r in results {
        match r {
            Ok((_, k)) => n += k,
            Err(e) => failures.push(e),
        }
    }
    eprintln!(
        "fiat-crypto: {} functions bit-exact on {n} input vectors, {:.1?}",
        jobs.len() - failures.len(),
        t.elapsed()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---------------------------------------------------------------------------------------
// JSON

/// Every function of ../shared/fiat-json: parse → to_fiat_json → parse is the identity.
#[test]
fn fiat_json_round_trip_of_fiat_files() {
    let Some(dir) = common::fiat_dir("fiat_json_round_trip_of_fiat_files") else {
        return;
    };
    let mut n = 0;
    for (file, funcs) in common::all_files(&dir) {
        for f in funcs {
            let json = cryptopt_emit::to_fiat_json(&f)
                .unwrap_or_else(|e| panic!("{file}: {e}"))
                .to_string();
            let back = fiat::parse_functions(&json).unwrap_or_else(|e| panic!("{file}: {e}"));
            assert!(
                back == [f.clone()],
                "{file}: {} changed in the round trip",
                f.name
            );
            n += 1;
        }
    }
    eprintln!("JSON round trip: {n} Fiat functions");
}

/// The generated JSON has Fiat's shape: names, signature, bounds, statements.
#[test]
fn generated_json_has_fiat_shape() {
    let spec = fields::preset("curve25519").unwrap();
    let f = generate(&spec, FieldOp::Mul).unwrap();
    let j = cryptopt_emit::to_fiat_json(&f).unwrap();
    assert_eq!(j["operation"], "fiat_25519_carry_mul");
    assert_eq!(j["arguments"][0]["name"], "arg1");
    assert_eq!(j["arguments"][0]["datatype"], "u64[5]");
    assert_eq!(j["arguments"][0]["ubound"][0], "0x18000000000000");
    assert_eq!(j["returns"][0]["name"], "out1");
    assert_eq!(j["returns"][0]["ubound"][4], "0x8000000000000");
    let body = j["body"].as_array().unwrap();
    assert_eq!(body[0]["name"][0], "x1");
    assert_eq!(body.last().unwrap()["name"][0], "out1[4]");
    let p256 = generate(&fields::preset("p256").unwrap(), FieldOp::Mul).unwrap();
    let j = cryptopt_emit::to_fiat_json(&p256).unwrap();
    assert_eq!(j["body"][0]["operation"], "mulx");
    assert_eq!(j["body"][0]["datatype"], "(auto)");
    assert_eq!(j["body"][0]["parameters"]["size"], 64);
}

/// Lowered functions cannot be written as Fiat JSON: a clear error, no panic.
#[test]
fn lowered_functions_are_refused_by_the_json_writer() {
    let spec = fields::preset("curve25519").unwrap();
    let f = generate(&spec, FieldOp::Mul).unwrap();
    let low = lower::lower(&f).unwrap();
    let e = cryptopt_emit::to_fiat_json(&low).unwrap_err().to_string();
    assert!(
        e.starts_with("cannot write `fiat_25519_carry_mul` as Fiat JSON: "),
        "{e}"
    );
}

/// `fields::builtin` finds every preset's functions by their Fiat names, and nothing else.
#[test]
fn builtin_by_name() {
    let check = |name: &str, found: bool| {
        let got = fields::builtin(name).map(|r| r.expect("generates").name);
        assert_eq!(got.as_deref(), found.then_some(name), "{name}");
    };
    check("fiat_p256_mul", true);
    check("fiat_p256_square", true);
    check("fiat_25519_carry_mul", true);
    check("fiat_p521_carry_square", true);
    check("fiat_secp256k1_montgomery_mul", true);
    check("fiat_poly1305_sub", true);
    check("fiat_25519_mul", false);
    check("fiat_p256_carry_mul", false);
    check("nothing", false);
}
