//! `reassoc::share_sums` keeps every function's meaning and adds shared pairs once: on
//! every function of ../shared/fiat-json (interpreter, Fiat-dialect validation, counts of
//! wide additions), on a table of small sums, and on random column sums (a law: the
//! rewrite computes what the original computes).

use cryptopt_testkit as common;

use cryptopt_ir::reassoc::share_sums;
use cryptopt_ir::{inputs, interp, validate, Function, Op, Operand, Param, Ty, Value};
use proptest::prelude::*;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// Checks `share_sums(f)` against `f` on random and edge inputs and returns it.
fn check(f: &Function, n: usize, seed: u64) -> Function {
    let g = share_sums(f);
    validate::validate(&g, validate::Dialect::Fiat)
        .unwrap_or_else(|e| panic!("{} after share_sums: {e}", f.name));
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut cases = inputs::edge_cases(f);
    cases.extend((0..n).map(|_| inputs::random(f, &mut rng)));
    for x in &cases {
        assert_eq!(
            interp::run(f, x).unwrap(),
            interp::run(&g, x).unwrap_or_else(|e| panic!("{} after share_sums: {e}", f.name)),
            "{} differs after share_sums on input {x:x?}",
            f.name
        );
    }
    g
}

/// Additions of a type wider than 64 bits (each one an add/adc pair in machine code).
fn wide_adds(f: &Function) -> usize {
    f.insts
        .iter()
        .filter(|d| d.op == Op::Add && f.ty(d.results[0]).bits > 64)
        .map(|d| d.args.len() - 1)
        .sum()
}

#[test]
fn every_function_keeps_its_meaning() {
    let Some(dir) = common::fiat_dir("every_function_keeps_its_meaning") else {
        return;
    };
    let mut funcs = 0;
    for (_file, fs) in common::all_files(&dir) {
        for f in &fs {
            let g = check(f, 32, 1);
            assert!(
                wide_adds(&g) <= wide_adds(f),
                "{}: more wide additions",
                f.name
            );
            funcs += 1;
        }
    }
    assert!(funcs >= 150);
}

/// The functions with shared pairs (p448, whose `2^448 ≡ 2^224 + 1` sends one product
/// to several columns) lose additions; the others are left exactly as they were.
#[test]
fn shared_pairs_are_added_once() {
    let Some(dir) = common::fiat_dir("shared_pairs_are_added_once") else {
        return;
    };
    // (file, function, wide additions at most after; None: unchanged)
    let cases: &[(&str, &str, Option<usize>)] = &[
        ("p448_solinas_64.json", "fiat_p448_carry_mul", Some(80)),
        ("p448_solinas_64.json", "fiat_p448_carry_square", Some(46)),
        ("p521_64.json", "fiat_p521_carry_mul", None),
        ("curve25519_64.json", "fiat_25519_carry_mul", None),
        ("poly1305_64.json", "fiat_poly1305_carry_square", None),
        ("p256_64.json", "fiat_p256_mul", None),
    ];
    for &(file, name, at_most) in cases {
        let f = common::function(&dir, file, name);
        let g = check(&f, 64, 2);
        match at_most {
            Some(n) => assert!(
                wide_adds(&g) <= n && wide_adds(&g) < wide_adds(&f),
                "{name}: {} wide additions, from {}",
                wide_adds(&g),
                wide_adds(&f)
            ),
            None => assert_eq!(g, f, "{name} has no shared pair and must not change"),
        }
    }
}

/// A function over three u64 arguments whose body the closure builds; one u128 output
/// per returned value.
fn build(outs: usize, body: impl FnOnce(&mut Function, [Value; 3]) -> Vec<Value>) -> Function {
    let out = Param::unbounded("out1", Ty::U128, Some(outs as u32));
    let args = ["arg1", "arg2", "arg3"].map(|n| Param::unbounded(n, Ty::U64, None));
    let mut f = Function::new("sums", args.to_vec(), vec![out]);
    let x = [0, 1, 2].map(|i| f.push1(Op::Load { param: i, index: 0 }, vec![], Ty::U64));
    let rs = body(&mut f, x);
    assert_eq!(rs.len(), outs);
    for (i, r) in rs.into_iter().enumerate() {
        f.push(
            Op::Store {
                ret: 0,
                index: i as u32,
            },
            vec![r.into()],
            &[],
        );
    }
    f
}

fn add(f: &mut Function, a: Value, b: Value, ty: Ty) -> Value {
    f.push1(Op::Add, vec![a.into(), b.into()], ty)
}

fn wide(f: &mut Function, a: Value) -> Value {
    f.push1(Op::Cast, vec![a.into()], Ty::U128)
}

#[test]
fn table() {
    type Case = (&'static str, Function, usize);
    let w = Ty::U128;
    let cases: Vec<Case> = vec![
        (
            "a+b shared by two sums, nested differently: added once",
            build(2, |f, [a, b, c]| {
                let (a, b, c) = (wide(f, a), wide(f, b), wide(f, c));
                let s = add(f, b, c, w);
                let s1 = add(f, a, s, w);
                let t = add(f, a, b, w);
                let s2 = add(f, t, b, w);
                vec![s1, s2]
            }),
            3,
        ),
        (
            "equal operands made twice (value numbering), and a doubled addend",
            build(2, |f, [a, b, _]| {
                let p = f.push1(Op::Mul, vec![a.into(), b.into()], w);
                let q = f.push1(Op::Mul, vec![b.into(), a.into()], w);
                let wa = wide(f, a);
                let s1 = add(f, p, wa, w);
                let s1 = add(f, s1, q, w);
                let s2 = add(f, q, wa, w);
                vec![s1, s2]
            }),
            2,
        ),
        (
            "a sum of a narrower type is an addend, never inlined",
            build(2, |f, [a, b, c]| {
                let n = add(f, a, b, Ty::U64);
                let (wn, wa, wb, wc) = (wide(f, n), wide(f, a), wide(f, b), wide(f, c));
                let s1 = add(f, wn, wc, w);
                let s2 = add(f, wa, wb, w);
                vec![s1, s2]
            }),
            3,
        ),
        (
            "signed sums are left alone",
            build(2, |f, [a, b, c]| {
                let i = Ty::int(128);
                let s1 = f.push1(Op::Add, vec![a.into(), b.into(), c.into()], i);
                let s2 = f.push1(Op::Add, vec![a.into(), b.into()], i);
                let s1 = f.push1(Op::Cast, vec![s1.into()], w);
                let s2 = f.push1(Op::Cast, vec![s2.into()], w);
                vec![s1, s2]
            }),
            3,
        ),
        (
            "a partial sum used twice stays one addend",
            build(2, |f, [a, b, c]| {
                let (a, b, c) = (wide(f, a), wide(f, b), wide(f, c));
                let s = add(f, a, b, w);
                let s1 = add(f, s, c, w);
                let s2 = f.push1(Op::Add, vec![s.into(), Operand::Const(7)], w);
                vec![s1, s2]
            }),
            3,
        ),
    ];
    for (name, f, want) in cases {
        let g = check(&f, 64, 3);
        let adds = g
            .insts
            .iter()
            .filter(|d| d.op == Op::Add)
            .map(|d| d.args.len() - 1)
            .sum::<usize>();
        assert_eq!(adds, want, "{name}: additions after share_sums");
    }
}

/// Random column sums over a pool of products and arguments, nested at random, through
/// casts, in u128 and sometimes u64 (wrapping): what schoolbook multiplication looks
/// like, with overlaps.
fn columns(picks: &[Vec<(usize, bool)>]) -> Function {
    build(picks.len(), |f, x| {
        let mut pool: Vec<Value> = Vec::new();
        for i in 0..3 {
            for j in i..3 {
                pool.push(f.push1(Op::Mul, vec![x[i].into(), x[j].into()], Ty::U128));
            }
            pool.push(x[i]);
        }
        let mut outs = Vec::new();
        for col in picks {
            let mut acc: Option<Value> = None;
            for &(k, right) in col {
                let t = pool[k % pool.len()];
                acc = Some(match acc {
                    None => t,
                    Some(s) if right => add(f, t, s, Ty::U128),
                    Some(s) => {
                        let s = f.push1(Op::Cast, vec![s.into()], Ty::U128);
                        add(f, s, t, Ty::U128)
                    }
                });
            }
            let s = acc.expect("columns are not empty");
            outs.push(f.push1(Op::Cast, vec![s.into()], Ty::U128));
        }
        outs
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// Law: interp(share_sums(f), x) == interp(f, x).
    #[test]
    fn random_columns_keep_their_meaning(
        picks in prop::collection::vec(
            prop::collection::vec((0usize..9, any::<bool>()), 1..8), 1..5),
        seed in any::<u64>(),
    ) {
        let f = columns(&picks);
        let g = check(&f, 8, seed);
        prop_assert!(wide_adds(&g) <= wide_adds(&f));
    }
}
