//! Lowering preserves meaning: for every function in ../shared/fiat-json, the function
//! after `legalize` and after each following pass computes what the original computes
//! (interpreter on random inputs within bounds and edge cases), and verifies as the
//! lowered dialect.

mod common;

use cryptopt_ir::{inputs, interp, lower, verify, Function};
use proptest::prelude::*;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// Compares `got` with `want` on `n` random inputs (seeded) plus the edge cases.
fn check(want: &Function, got: &Function, stage: &str, n: usize, seed: u64) -> usize {
    verify::verify(got, verify::Dialect::Lowered)
        .unwrap_or_else(|e| panic!("{} after {stage}: {e}", want.name));
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut cases = inputs::edge_cases(want);
    cases.extend((0..n).map(|_| inputs::random(want, &mut rng)));
    for input in &cases {
        let a = interp::run(want, input).unwrap();
        let b =
            interp::run(got, input).unwrap_or_else(|e| panic!("{} after {stage}: {e}", want.name));
        assert_eq!(
            a, b,
            "{} differs after {stage} on input {input:x?}",
            want.name
        );
    }
    cases.len()
}

#[test]
fn every_pass_preserves_every_function() {
    let Some(dir) = common::fiat_dir("every_pass_preserves_every_function") else {
        return;
    };
    let (mut funcs, mut runs) = (0, 0);
    for (_file, fs) in common::all_files(&dir) {
        for f in &fs {
            let mut g = lower::legalize(f).unwrap_or_else(|e| panic!("{e}"));
            runs += check(f, &g, "legalize", 64, 1);
            for round in 0..2 {
                for pass in lower::PASSES {
                    g = (pass.run)(&g);
                    runs += check(f, &g, &format!("{} (round {round})", pass.name), 16, 2);
                }
            }
            let full = lower::lower(f).unwrap();
            runs += check(f, &full, "lower", 64, 3);
            funcs += 1;
        }
    }
    eprintln!("lowering checked on {funcs} functions, {runs} input vectors");
    assert!(funcs >= 150);
}

/// The lowered dialect's promises, on the mul/square functions: no identity casts, no
/// value wider than 64 bits, u128 products as mulx.
#[test]
fn lowered_mul_has_machine_shape() {
    let Some(dir) = common::fiat_dir("lowered_mul_has_machine_shape") else {
        return;
    };
    for (_file, fs) in common::all_files(&dir) {
        for f in fs
            .iter()
            .filter(|f| f.name.ends_with("_mul") || f.name.ends_with("_square"))
        {
            let g = lower::lower(f).unwrap();
            for d in &g.insts {
                if d.op == cryptopt_ir::Op::Cast {
                    let from = g.operand_ty(d.args[0]).map_or(128, |t| t.bits);
                    assert!(
                        from > g.ty(d.results[0]).bits,
                        "{}: identity or widening cast survived",
                        f.name
                    );
                }
            }
            assert!(
                g.insts
                    .iter()
                    .any(|d| matches!(d.op, cryptopt_ir::Op::Mulx { .. })),
                "{}: no mulx",
                f.name
            );
            assert!(
                g.insts.len() < f.insts.len(),
                "{}: lowering did not shrink",
                f.name
            );
        }
    }
}

/// The 22 mul/square functions, parsed once.
fn mul_square_functions() -> &'static [Function] {
    static CACHE: std::sync::OnceLock<Vec<Function>> = std::sync::OnceLock::new();
    CACHE.get_or_init(|| match std::env::var_os("CRYPTOPT_FIAT_JSON") {
        None => Vec::new(),
        Some(d) => common::all_files(std::path::Path::new(&d))
            .into_iter()
            .flat_map(|(_, fs)| fs)
            .filter(|f| f.name.ends_with("_mul") || f.name.ends_with("_square"))
            .collect(),
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// Law: interp(lower(f), x) == interp(f, x) for random x within bounds.
    #[test]
    fn lowering_is_equivalent(k in 0usize..22, seed in any::<u64>()) {
        let fs = mul_square_functions();
        if fs.is_empty() {
            eprintln!("SKIPPED lowering_is_equivalent: CRYPTOPT_FIAT_JSON is not set");
            return Ok(());
        }
        let f = &fs[k % fs.len()];
        let g = lower::lower(f).unwrap();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let x = inputs::random(f, &mut rng);
        prop_assert_eq!(interp::run(f, &x).unwrap(), interp::run(&g, &x).unwrap());
    }
}
