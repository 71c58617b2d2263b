//! The reference interpreter against the `fiat-crypto` crate: every function that both
//! a Fiat JSON file of ../shared/fiat-json and the crate's module of the same name have
//! is run on random inputs within the JSON's bounds and on the edge cases, by the
//! interpreter and by the crate's compiled Rust, and the outputs must be equal.

use cryptopt_testkit as common;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use cryptopt_ir::{inputs, interp, Function};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// Random input vectors per function (the edge cases come on top).
const SAMPLES: usize = 2000;

/// Functions of the JSON files that the crate does not have: (file, name, reason).
/// Empty today: fiat-crypto 0.3.0 has every function of the files.
const NOT_IN_CRATE: &[(&str, &str, &str)] = &[];

/// A crate function in the interpreter's form: one `Vec` per argument in, one per
/// return out.
type Adapter = Box<dyn Fn(&[Vec<u128>]) -> Vec<Vec<u128>> + Sync>;

struct Row {
    file: &'static str,
    name: &'static str,
    run: Adapter,
}

/// A crate argument or output type, converted from and to the interpreter's elements.
trait Limbs: Sized {
    fn from_limbs(x: &[u128]) -> Self;
    fn limbs(&self) -> Vec<u128>;
    fn zero() -> Self;
}

/// Scalars: `u64`, and `u8` (which is also the crate's `u1`).
macro_rules! scalar_limbs {
    ($($t:ty),*) => {$(
        impl Limbs for $t {
            fn from_limbs(x: &[u128]) -> Self {
                assert_eq!(x.len(), 1, "scalar expected");
                <$t>::try_from(x[0]).expect("input does not fit the crate's type")
            }
            fn limbs(&self) -> Vec<u128> {
                vec![u128::from(*self)]
            }
            fn zero() -> Self {
                0
            }
        }
        impl<const N: usize> Limbs for [$t; N] {
            fn from_limbs(x: &[u128]) -> Self {
                assert_eq!(x.len(), N, "array length");
                std::array::from_fn(|i| <$t>::try_from(x[i]).expect("input does not fit"))
            }
            fn limbs(&self) -> Vec<u128> {
                self.iter().map(|&v| u128::from(v)).collect()
            }
            fn zero() -> Self {
                [0; N]
            }
        }
    )*};
}
scalar_limbs!(u8, u64);

/// The crate's field-element newtypes `Foo(pub [u64; N])`.
macro_rules! newtype_limbs {
    ($($m:ident :: $t:ident),* $(,)?) => {$(
        impl Limbs for fiat_crypto::$m::$t {
            fn from_limbs(x: &[u128]) -> Self {
                Self(Limbs::from_limbs(x))
            }
            fn limbs(&self) -> Vec<u128> {
                self.0.limbs()
            }
            fn zero() -> Self {
                Self(Limbs::zero())
            }
        }
    )*};
}
newtype_limbs!(
    curve25519_64::fiat_25519_loose_field_element,
    curve25519_64::fiat_25519_tight_field_element,
    p224_64::fiat_p224_montgomery_domain_field_element,
    p224_64::fiat_p224_non_montgomery_domain_field_element,
    p256_64::fiat_p256_montgomery_domain_field_element,
    p256_64::fiat_p256_non_montgomery_domain_field_element,
    p384_64::fiat_p384_montgomery_domain_field_element,
    p384_64::fiat_p384_non_montgomery_domain_field_element,
    p434_64::fiat_p434_montgomery_domain_field_element,
    p434_64::fiat_p434_non_montgomery_domain_field_element,
    p448_solinas_64::fiat_p448_loose_field_element,
    p448_solinas_64::fiat_p448_tight_field_element,
    p521_64::fiat_p521_loose_field_element,
    p521_64::fiat_p521_tight_field_element,
    poly1305_64::fiat_poly1305_loose_field_element,
    poly1305_64::fiat_poly1305_tight_field_element,
    secp256k1_montgomery_64::fiat_secp256k1_montgomery_montgomery_domain_field_element,
    secp256k1_montgomery_64::fiat_secp256k1_montgomery_non_montgomery_domain_field_element,
);

/// One crate argument built from the interpreter's elements: `v` by value, `r` by
/// reference.
macro_rules! arg {
    (v, $x:expr) => {
        Limbs::from_limbs($x)
    };
    (r, $x:expr) => {
        &Limbs::from_limbs($x)
    };
}

/// Calls `$f` with the outputs `$o` (each `&mut`, types inferred from `$f`) followed by
/// one argument per `$how`, and returns the outputs' elements.
macro_rules! call {
    ($f:path; $($o:ident)*; $($how:ident),*) => {{
        let run: Adapter = Box::new(|ins: &[Vec<u128>]| {
            let mut ins = ins.iter();
            $(let mut $o = Limbs::zero();)*
            $f($(&mut $o,)* $(arg!($how, ins.next().expect("too few arguments"))),*);
            assert!(ins.next().is_none(), "too many arguments");
            vec![$($o.limbs()),*]
        });
        run
    }};
}

/// The signature shapes of the crate's functions.
macro_rules! adapt {
    // set_one, msat, divstep_precomp
    ($f:path, nullary) => { call!($f; o1;) };
    // square, opp, carry, relax, to/from_montgomery, to/from_bytes, nonzero, ...
    ($f:path, unary) => { call!($f; o1; r) };
    // mul, add, sub, carry_mul
    ($f:path, binary) => { call!($f; o1; r, r) };
    ($f:path, selectznz) => { call!($f; o1; v, r, r) };
    ($f:path, cmovznz) => { call!($f; o1; v, v, v) };
    // addcarryx_uNN, subborrowx_uNN
    ($f:path, carry) => { call!($f; o1 o2; v, v, v) };
    ($f:path, mulx) => { call!($f; o1 o2; v, v) };
    ($f:path, divstep) => { call!($f; o1 o2 o3 o4 o5; v, r, r, r, r) };
}

/// The table: `module { function: shape, ... }`; the module's JSON file is
/// `module.json`.
macro_rules! rows {
    ($($m:ident { $($f:ident: $shape:ident),* $(,)? })*) => {
        vec![$($(Row {
            file: concat!(stringify!($m), ".json"),
            name: stringify!($f),
            run: adapt!(fiat_crypto::$m::$f, $shape),
        },)*)*]
    };
}

fn table() -> Vec<Row> {
    rows! {
        curve25519_64 {
            fiat_25519_addcarryx_u51: carry,
            fiat_25519_subborrowx_u51: carry,
            fiat_25519_cmovznz_u64: cmovznz,
            fiat_25519_carry_mul: binary,
            fiat_25519_carry_square: unary,
            fiat_25519_carry: unary,
            fiat_25519_add: binary,
            fiat_25519_sub: binary,
            fiat_25519_opp: unary,
            fiat_25519_selectznz: selectznz,
            fiat_25519_to_bytes: unary,
            fiat_25519_from_bytes: unary,
            fiat_25519_relax: unary,
            fiat_25519_carry_scmul_121666: unary,
        }
        curve25519_solinas_64 {
            fiat_curve25519_solinas_addcarryx_u64: carry,
            fiat_curve25519_solinas_subborrowx_u64: carry,
            fiat_curve25519_solinas_mulx_u64: mulx,
            fiat_curve25519_solinas_cmovznz_u64: cmovznz,
            fiat_curve25519_solinas_mul: binary,
            fiat_curve25519_solinas_square: unary,
        }
        p224_64 {
            fiat_p224_addcarryx_u64: carry,
            fiat_p224_subborrowx_u64: carry,
            fiat_p224_mulx_u64: mulx,
            fiat_p224_cmovznz_u64: cmovznz,
            fiat_p224_mul: binary,
            fiat_p224_square: unary,
            fiat_p224_add: binary,
            fiat_p224_sub: binary,
            fiat_p224_opp: unary,
            fiat_p224_from_montgomery: unary,
            fiat_p224_to_montgomery: unary,
            fiat_p224_nonzero: unary,
            fiat_p224_selectznz: selectznz,
            fiat_p224_to_bytes: unary,
            fiat_p224_from_bytes: unary,
            fiat_p224_set_one: nullary,
            fiat_p224_msat: nullary,
            fiat_p224_divstep: divstep,
            fiat_p224_divstep_precomp: nullary,
        }
        p256_64 {
            fiat_p256_addcarryx_u64: carry,
            fiat_p256_subborrowx_u64: carry,
            fiat_p256_mulx_u64: mulx,
            fiat_p256_cmovznz_u64: cmovznz,
            fiat_p256_mul: binary,
            fiat_p256_square: unary,
            fiat_p256_add: binary,
            fiat_p256_sub: binary,
            fiat_p256_opp: unary,
            fiat_p256_from_montgomery: unary,
            fiat_p256_to_montgomery: unary,
            fiat_p256_nonzero: unary,
            fiat_p256_selectznz: selectznz,
            fiat_p256_to_bytes: unary,
            fiat_p256_from_bytes: unary,
            fiat_p256_set_one: nullary,
            fiat_p256_msat: nullary,
            fiat_p256_divstep: divstep,
            fiat_p256_divstep_precomp: nullary,
        }
        p384_64 {
            fiat_p384_addcarryx_u64: carry,
            fiat_p384_subborrowx_u64: carry,
            fiat_p384_mulx_u64: mulx,
            fiat_p384_cmovznz_u64: cmovznz,
            fiat_p384_mul: binary,
            fiat_p384_square: unary,
            fiat_p384_add: binary,
            fiat_p384_sub: binary,
            fiat_p384_opp: unary,
            fiat_p384_from_montgomery: unary,
            fiat_p384_to_montgomery: unary,
            fiat_p384_nonzero: unary,
            fiat_p384_selectznz: selectznz,
            fiat_p384_to_bytes: unary,
            fiat_p384_from_bytes: unary,
            fiat_p384_set_one: nullary,
            fiat_p384_msat: nullary,
            fiat_p384_divstep: divstep,
            fiat_p384_divstep_precomp: nullary,
        }
        p434_64 {
            fiat_p434_addcarryx_u64: carry,
            fiat_p434_subborrowx_u64: carry,
            fiat_p434_mulx_u64: mulx,
            fiat_p434_cmovznz_u64: cmovznz,
            fiat_p434_mul: binary,
            fiat_p434_square: unary,
            fiat_p434_add: binary,
            fiat_p434_sub: binary,
            fiat_p434_opp: unary,
            fiat_p434_from_montgomery: unary,
            fiat_p434_to_montgomery: unary,
            fiat_p434_nonzero: unary,
            fiat_p434_selectznz: selectznz,
            fiat_p434_to_bytes: unary,
            fiat_p434_from_bytes: unary,
            fiat_p434_set_one: nullary,
            fiat_p434_msat: nullary,
            fiat_p434_divstep: divstep,
            fiat_p434_divstep_precomp: nullary,
        }
        p448_solinas_64 {
            fiat_p448_addcarryx_u56: carry,
            fiat_p448_subborrowx_u56: carry,
            fiat_p448_cmovznz_u64: cmovznz,
            fiat_p448_carry_mul: binary,
            fiat_p448_carry_square: unary,
            fiat_p448_carry: unary,
            fiat_p448_add: binary,
            fiat_p448_sub: binary,
            fiat_p448_opp: unary,
            fiat_p448_selectznz: selectznz,
            fiat_p448_to_bytes: unary,
            fiat_p448_from_bytes: unary,
            fiat_p448_relax: unary,
        }
        p521_64 {
            fiat_p521_addcarryx_u58: carry,
            fiat_p521_subborrowx_u58: carry,
            fiat_p521_addcarryx_u57: carry,
            fiat_p521_subborrowx_u57: carry,
            fiat_p521_cmovznz_u64: cmovznz,
            fiat_p521_carry_mul: binary,
            fiat_p521_carry_square: unary,
            fiat_p521_carry: unary,
            fiat_p521_add: binary,
            fiat_p521_sub: binary,
            fiat_p521_opp: unary,
            fiat_p521_selectznz: selectznz,
            fiat_p521_to_bytes: unary,
            fiat_p521_from_bytes: unary,
            fiat_p521_relax: unary,
        }
        poly1305_64 {
            fiat_poly1305_addcarryx_u44: carry,
            fiat_poly1305_subborrowx_u44: carry,
            fiat_poly1305_addcarryx_u43: carry,
            fiat_poly1305_subborrowx_u43: carry,
            fiat_poly1305_cmovznz_u64: cmovznz,
            fiat_poly1305_carry_mul: binary,
            fiat_poly1305_carry_square: unary,
            fiat_poly1305_carry: unary,
            fiat_poly1305_add: binary,
            fiat_poly1305_sub: binary,
            fiat_poly1305_opp: unary,
            fiat_poly1305_selectznz: selectznz,
            fiat_poly1305_to_bytes: unary,
            fiat_poly1305_from_bytes: unary,
            fiat_poly1305_relax: unary,
        }
        secp256k1_dettman_64 {
            fiat_secp256k1_dettman_mul: binary,
            fiat_secp256k1_dettman_square: unary,
        }
        secp256k1_montgomery_64 {
            fiat_secp256k1_montgomery_addcarryx_u64: carry,
            fiat_secp256k1_montgomery_subborrowx_u64: carry,
            fiat_secp256k1_montgomery_mulx_u64: mulx,
            fiat_secp256k1_montgomery_cmovznz_u64: cmovznz,
            fiat_secp256k1_montgomery_mul: binary,
            fiat_secp256k1_montgomery_square: unary,
            fiat_secp256k1_montgomery_add: binary,
            fiat_secp256k1_montgomery_sub: binary,
            fiat_secp256k1_montgomery_opp: unary,
            fiat_secp256k1_montgomery_from_montgomery: unary,
            fiat_secp256k1_montgomery_to_montgomery: unary,
            fiat_secp256k1_montgomery_nonzero: unary,
            fiat_secp256k1_montgomery_selectznz: selectznz,
            fiat_secp256k1_montgomery_to_bytes: unary,
            fiat_secp256k1_montgomery_from_bytes: unary,
            fiat_secp256k1_montgomery_set_one: nullary,
            fiat_secp256k1_montgomery_msat: nullary,
            fiat_secp256k1_montgomery_divstep: divstep,
            fiat_secp256k1_montgomery_divstep_precomp: nullary,
        }
    }
}

/// A seed that depends on the function's name only, so results do not depend on which
/// thread checks which function.
fn seed(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

/// Runs `f` in the interpreter and `run` (the crate) on the edge cases and `SAMPLES`
/// random inputs. Returns the number of input vectors compared, or the first mismatch.
fn check(f: &Function, run: &Adapter) -> Result<usize, String> {
    let mut cases = inputs::edge_cases(f);
    if f.params.is_empty() {
        // No arguments: one run says everything.
        cases.truncate(1);
    } else {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed(&f.name));
        cases.extend((0..SAMPLES).map(|_| inputs::random(f, &mut rng)));
    }
    let mut scratch = Vec::new();
    for ins in &cases {
        let got = interp::run_with(f, ins, &mut scratch).map_err(|e| e.to_string())?;
        let want = run(ins);
        if got != want {
            return Err(format!(
                "{}: interpreter and crate differ\n  inputs:      {ins:x?}\n  crate:       {want:x?}\n  interpreter: {got:x?}",
                f.name
            ));
        }
    }
    Ok(cases.len())
}

#[test]
fn interpreter_matches_fiat_crypto_crate() {
    let Some(dir) = common::fiat_dir("interpreter_matches_fiat_crypto_crate") else {
        return;
    };
    let rows = table();

    // Every function of every file is in the table or explicitly not in the crate.
    let mut funcs: HashMap<(String, String), Function> = HashMap::new();
    for (file, fs) in common::all_files(&dir) {
        for f in fs {
            let listed = rows.iter().any(|r| r.file == file && r.name == f.name);
            let excused = NOT_IN_CRATE
                .iter()
                .any(|&(x, n, _)| x == file && n == f.name);
            assert!(
                listed || excused,
                "{file}: {} is neither in the table nor in NOT_IN_CRATE",
                f.name
            );
            assert!(!(listed && excused), "{file}: {} is listed twice", f.name);
            funcs.insert((file.clone(), f.name.clone()), f);
        }
    }
    let mut seen = HashSet::new();
    for r in &rows {
        assert!(
            seen.insert((r.file, r.name)),
            "{}: {} is in the table twice",
            r.file,
            r.name
        );
        assert!(
            funcs.contains_key(&(r.file.to_string(), r.name.to_string())),
            "table row {}: {} is not in the JSON file",
            r.file,
            r.name
        );
    }
    for (file, name, why) in NOT_IN_CRATE {
        eprintln!("not compared: {file}: {name} ({why})");
    }

    // Check the rows on all cores.
    let next = AtomicUsize::new(0);
    let vectors = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                while let Some(r) = rows.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let f = &funcs[&(r.file.to_string(), r.name.to_string())];
                    match check(f, &r.run) {
                        Ok(n) => {
                            vectors.fetch_add(n, Ordering::Relaxed);
                        }
                        Err(e) => failures.lock().unwrap().push(format!("{}: {e}", r.file)),
                    }
                }
            });
        }
    });
    let mut failures = failures.into_inner().unwrap();
    failures.sort();
    assert!(
        failures.is_empty(),
        "{} of {} functions differ:\n{}",
        failures.len(),
        rows.len(),
        failures.join("\n")
    );
    let vectors = vectors.into_inner();
    eprintln!(
        "compared {} functions on {vectors} input vectors with fiat-crypto 0.3.0",
        rows.len()
    );
    assert_eq!(rows.len(), 160, "functions compared");
}
