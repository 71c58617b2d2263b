//! `check_functions` proves a rewritten IR function equal to its original: the sums that
//! `reassoc::share_sums` regroups, on every mul/square of ../shared/fiat-json, and it
//! refuses rewrites that change what a function computes. And `check` proves programs
//! generated from the regrouped sums against the original (through that rewrite).

mod common;

use cryptopt_codegen::{Candidate, Generator, Options};
use cryptopt_ir::reassoc::share_sums;
use cryptopt_ir::{lower, Function, Op, Operand};
use cryptopt_verify::{check, check_functions, Verdict};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

fn mul_square() -> Option<Vec<Function>> {
    let fs = common::functions(&["_mul", "_square"]);
    if fs.is_none() {
        eprintln!("SKIPPED: CRYPTOPT_FIAT_JSON is not set (point it at ../shared/fiat-json)");
    }
    fs
}

#[test]
fn regrouped_sums_are_proved_equal() {
    let Some(fs) = mul_square() else { return };
    let mut rewritten = 0;
    for f in &fs {
        let g = share_sums(f);
        if g != *f {
            rewritten += 1;
        }
        assert_eq!(
            check_functions(f, &g).unwrap(),
            Verdict::Equivalent,
            "{}",
            f.name
        );
    }
    // p448 mul and square at least.
    assert!(rewritten >= 2, "only {rewritten} functions had shared sums");
}

/// A rewrite that is wrong in one place: one literal changed, or two operands of a
/// subtraction swapped.
fn broken(f: &Function) -> Option<Function> {
    let mut g = f.clone();
    for d in g.insts.iter_mut() {
        if let Some(Operand::Const(c)) = d
            .args
            .iter_mut()
            .find(|a| a.constant().is_some_and(|c| c > 1))
        {
            *c -= 1;
            return Some(g);
        }
        if d.op == Op::Sub && d.args[0] != d.args[1] {
            d.args.swap(0, 1);
            return Some(g);
        }
    }
    None
}

#[test]
fn wrong_rewrites_are_refused() {
    let Some(fs) = mul_square() else { return };
    let mut refused = 0;
    for f in &fs {
        let Some(g) = broken(&share_sums(f)) else {
            continue;
        };
        assert!(
            matches!(check_functions(f, &g).unwrap(), Verdict::NotEquivalent(_)),
            "{}: a broken rewrite was proved equal",
            f.name
        );
        refused += 1;
    }
    assert!(refused >= 10);
}

#[test]
fn programs_from_regrouped_sums_are_proved_against_the_original() {
    let Some(fs) = mul_square() else { return };
    let mut proved = 0;
    for f in fs.iter().filter(|f| share_sums(f) != **f) {
        let lowered = lower::lower(f).unwrap();
        let mut gen = Generator::new(&lowered, Options::default()).unwrap();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        for _ in 0..4 {
            let cand = Candidate::random(&lowered, gen.deps(), &mut rng);
            gen.generate(&cand).unwrap();
            let opts = common::check_options(gen.options());
            assert_eq!(
                check(f, &gen.program(), opts).unwrap(),
                Verdict::Equivalent,
                "{}",
                f.name
            );
            proved += 1;
        }
    }
    assert!(proved >= 8);
}
