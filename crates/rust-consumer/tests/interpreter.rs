//! The emitted module against the reference interpreter: the function the module was made
//! from (`--field p256 --op mul`, made again here by the same generator), on edge cases and
//! random inputs within its bounds, through the safe wrapper and, in place (`out1` in
//! `arg1`'s buffer, as the module's aliasing contract allows), through the raw function.
//! A failure after a change to the generator means the module must be regenerated (see
//! the crate's documentation).

use cryptopt_gen::fields;
use cryptopt_ir::{inputs, interp, Function};
use cryptopt_rust_consumer::fiat_p256_mul::{
    fiat_p256_mul, fiat_p256_mul_raw, fiat_p256_mul_supported,
};
use rand::SeedableRng;

/// Random inputs compared, besides the edge cases.
const RANDOM: usize = 2000;

/// What `cryptopt optimize --field p256 --op mul` optimizes.
fn p256_mul() -> Function {
    let spec = fields::resolve("p256", &fields::FieldOptions::default()).expect("a preset");
    fields::generate(&spec, "mul".parse().expect("an operation")).expect("generates")
}

/// An argument of four 64-bit limbs, as the interpreter gives it.
fn limbs(v: &[u128]) -> [u64; 4] {
    let limbs: Vec<u64> = v
        .iter()
        .map(|&x| u64::try_from(x).expect("a 64-bit limb"))
        .collect();
    limbs.try_into().expect("four limbs")
}

#[test]
fn the_module_computes_what_the_interpreter_computes() {
    if !fiat_p256_mul_supported() {
        eprintln!("SKIPPED the_module_computes_what_the_interpreter_computes: no BMI2 + ADX");
        return;
    }
    let f = p256_mul();
    assert_eq!(f.name, "fiat_p256_mul");
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(16);
    let cases: Vec<Vec<Vec<u128>>> = inputs::edge_cases(&f)
        .into_iter()
        .chain((0..RANDOM).map(|_| inputs::random(&f, &mut rng)))
        .collect();
    assert!(cases.len() > 1000);
    for (k, input) in cases.iter().enumerate() {
        let want = limbs(&interp::run(&f, input).expect("runs")[0]);
        let (arg1, arg2) = (limbs(&input[0]), limbs(&input[1]));
        let mut out1 = [0u64; 4];
        fiat_p256_mul(&mut out1, &arg1, &arg2);
        assert_eq!(out1, want, "case {k}: {input:x?}");
        // In place: out1 is arg1.
        let mut shared = arg1;
        let p = shared.as_mut_ptr();
        // SAFETY: both buffers hold four limbs, the CPU was checked, and the module's
        // contract lets out1 be arg1.
        unsafe { fiat_p256_mul_raw(p, p, arg2.as_ptr()) };
        assert_eq!(shared, want, "case {k} in place: {input:x?}");
    }
}
