//! Lowering preserves meaning: for every function in ../shared/fiat-json, the function
//! after `legalize` and after each following pass computes what the original computes
//! (interpreter on random inputs within bounds and edge cases), and verifies as the
//! lowered dialect.

use cryptopt_testkit as common;

use cryptopt_ir::{inputs, interp, lower, validate, Function};
use proptest::prelude::*;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// Compares `got` with `want` on `n` random inputs (seeded) plus the edge cases.
fn check(want: &Function, got: &Function, stage: &str, n: usize, seed: u64) -> usize {
    validate::validate(got, validate::Dialect::Lowered)
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
                for pass in lower::PASSES.iter().chain(lower::LATENCY_PASSES) {
                    g = (pass.run)(&g);
                    runs += check(f, &g, &format!("{} (round {round})", pass.name), 16, 2);
                }
            }
            let full = lower::lower(f).unwrap();
            runs += check(f, &full, "lower", 64, 3);
            let latency = lower::lower_for(f, lower::Shape::Latency).unwrap();
            runs += check(f, &latency, "lower for latency", 64, 4);
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

/// `mulx` is commutative to CSE: a Montgomery square (Fiat's is its multiplication with
/// both operands the same) computes each `xᵢ·xⱼ`, i ≠ j, once, so it has n(n−1)/2 fewer
/// products than the multiplication (n limbs); an unsaturated square (already written
/// with doubled products) has exactly Fiat's.
#[test]
fn squares_share_symmetric_products() {
    let Some(dir) = common::fiat_dir("squares_share_symmetric_products") else {
        return;
    };
    let mulx = |f: &Function| {
        let g = lower::lower(f).unwrap();
        g.insts
            .iter()
            .filter(|d| matches!(d.op, cryptopt_ir::Op::Mulx { .. }))
            .count()
    };
    // (file, prefix, limbs, Montgomery)
    let cases = [
        ("p224_64", "fiat_p224", 4, true),
        ("p256_64", "fiat_p256", 4, true),
        (
            "secp256k1_montgomery_64",
            "fiat_secp256k1_montgomery",
            4,
            true,
        ),
        ("p384_64", "fiat_p384", 6, true),
        ("p434_64", "fiat_p434", 7, true),
        ("curve25519_64", "fiat_25519_carry", 5, false),
        ("p521_64", "fiat_p521_carry", 9, false),
    ];
    let files = common::all_files(&dir);
    for (file, prefix, n, montgomery) in cases {
        let fs = &files
            .iter()
            .find(|(name, _)| *name == format!("{file}.json"))
            .unwrap_or_else(|| panic!("{file}.json missing"))
            .1;
        let get = |op: &str| {
            let name = format!("{prefix}_{op}");
            fs.iter()
                .find(|f| f.name == name)
                .unwrap_or_else(|| panic!("{name} missing"))
        };
        let (mul, square) = (mulx(get("mul")), mulx(get("square")));
        if montgomery {
            assert_eq!(
                square,
                mul - n * (n - 1) / 2,
                "{prefix}: square {square}, mul {mul}"
            );
        } else {
            let sq = get("square");
            let fiat = sq
                .insts
                .iter()
                .filter(|d| d.op == cryptopt_ir::Op::Mul && sq.ty(d.results[0]).bits == 128)
                .count();
            assert_eq!(
                square, fiat,
                "{prefix}: square {square} products, Fiat's {fiat}"
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

// ---------------------------------------------------------------------------------------
// Random Fiat-dialect programs: exercise every lowering rule on every type, including the
// signed and 128-bit corners the real files use only rarely.

use cryptopt_ir::{Op, Operand, Param, Ty};

const TYPES: &[Ty] = &[
    Ty::U1,
    Ty::U8,
    Ty::U32,
    Ty::U64,
    Ty::U128,
    Ty::int(1),
    Ty::int(8),
    Ty::int(64),
    Ty::int(128),
];

/// One random instruction: (operation selector, result type index, operand picks,
/// literal, shift amount).
type Step = (u8, usize, [usize; 3], u128, u8);

fn scalar(name: &str) -> Param {
    Param::unbounded(name, Ty::U64, None)
}

/// Builds a verified Fiat-dialect function from random steps.
fn random_program(steps: &[Step], outs: usize) -> Function {
    let out = Param {
        name: "out1".into(),
        ty: Ty::U64,
        len: Some(outs as u32),
        lbound: vec![0; outs],
        ubound: vec![u64::MAX as u128; outs],
    };
    let mut f = Function::new(
        "random",
        vec![scalar("arg1"), scalar("arg2"), scalar("arg3")],
        vec![out],
    );
    let mut vals: Vec<cryptopt_ir::Value> = (0..3)
        .map(|i| f.push1(Op::Load { param: i, index: 0 }, vec![], Ty::U64))
        .collect();
    for &(sel, ti, picks, lit, sh) in steps {
        let rt = TYPES[ti % TYPES.len()];
        let pick = |k: usize| vals[picks[k] % vals.len()];
        let literal = Operand::Const(lit & rt.mask());
        // An operand of at most 64 unsigned bits, for mulx/addcarry/subborrow.
        let narrow = |f: &mut Function, v: cryptopt_ir::Value, ty: Ty| -> Operand {
            if f.ty(v).bits <= ty.bits && !f.ty(v).signed {
                v.into()
            } else {
                f.push1(Op::Cast, vec![v.into()], ty).into()
            }
        };
        let v = match sel % 13 {
            0 => f.push1(Op::Add, vec![pick(0).into(), pick(1).into(), literal], rt),
            1 => f.push1(Op::Sub, vec![pick(0).into(), pick(1).into()], rt),
            2 if sh % 2 == 0 => f.push1(Op::Mul, vec![pick(0).into(), pick(1).into()], rt),
            // Products by small literals, as Fiat's `x·19·2` (folded when cheap).
            2 => {
                let c = [2u128, 3, 4, 5, 19, 20, 38, 45][(lit % 8) as usize];
                f.push1(
                    Op::Mul,
                    vec![pick(0).into(), Operand::Const(c & rt.mask())],
                    rt,
                )
            }
            3 => f.push1(Op::And, vec![pick(0).into(), literal], rt),
            4 => f.push1(Op::Or, vec![pick(0).into(), pick(1).into()], rt),
            5 => f.push1(Op::Xor, vec![pick(0).into(), pick(1).into()], rt),
            6 => f.push1(Op::Not, vec![pick(0).into()], rt),
            7 => f.push1(Op::LNot, vec![pick(0).into()], rt),
            8 => f.push1(
                Op::Shl,
                vec![pick(0).into(), Operand::Const((sh % 128) as u128)],
                rt,
            ),
            9 => f.push1(
                Op::Shr,
                vec![pick(0).into(), Operand::Const((sh % 128) as u128)],
                rt,
            ),
            10 => f.push1(
                Op::Cmovznz,
                vec![pick(0).into(), pick(1).into(), pick(2).into()],
                rt,
            ),
            11 => f.push1(Op::Cast, vec![pick(0).into()], rt),
            _ => {
                let size = [64u8, 51, 64, 32][sh as usize % 4];
                let (a, b) = (
                    narrow(&mut f, pick(0), Ty::U64),
                    narrow(&mut f, pick(1), Ty::U64),
                );
                let c = narrow(&mut f, pick(2), Ty::U1);
                let (op, tys) = match sh % 3 {
                    0 => (Op::Mulx { size: 64 }, [Ty::U64, Ty::U64]),
                    1 => (Op::AddCarry { size }, [Ty::uint(size), Ty::U1]),
                    _ => (Op::SubBorrow { size }, [Ty::uint(size), Ty::U1]),
                };
                let args = if matches!(op, Op::Mulx { .. }) {
                    vec![a, b]
                } else {
                    vec![c, a, b]
                };
                let r = f.push(op, args, &tys).to_vec();
                vals.push(r[1]);
                r[0]
            }
        };
        vals.push(v);
    }
    let n = vals.len();
    for k in 0..outs {
        let v = vals[n - 1 - (k % n)];
        let c = f.push1(Op::Cast, vec![v.into()], Ty::U64);
        f.push(
            Op::Store {
                ret: 0,
                index: k as u32,
            },
            vec![c.into()],
            &[],
        );
    }
    validate::validate(&f, validate::Dialect::Fiat).unwrap();
    f
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]
    /// Law: lowering preserves random programs over every type.
    #[test]
    fn lowering_preserves_random_programs(
        steps in proptest::collection::vec((any::<u8>(), 0usize..9, any::<[usize; 3]>(), any::<u128>(), any::<u8>()), 1..24),
        outs in 1usize..6,
        inputs in proptest::collection::vec(any::<[u64; 3]>(), 8),
    ) {
        let f = random_program(&steps, outs);
        let g = lower::lower(&f).unwrap();
        validate::validate(&g, validate::Dialect::Lowered).unwrap();
        let mut stages = vec![("legalize", lower::legalize(&f).unwrap())];
        for pass in lower::PASSES.iter().chain(lower::LATENCY_PASSES) {
            let next = (pass.run)(&stages.last().unwrap().1);
            stages.push((pass.name, next));
        }
        for x in inputs {
            let x: Vec<Vec<u128>> = x.iter().map(|&v| vec![v as u128]).collect();
            let want = interp::run(&f, &x).unwrap();
            for (name, s) in &stages {
                prop_assert_eq!(&want, &interp::run(s, &x).unwrap(), "after {}\n{}", name, cryptopt_ir::text::render(&f));
            }
            prop_assert_eq!(&want, &interp::run(&g, &x).unwrap());
        }
    }
}

/// `(x·a)·b` becomes `x·(a·b)` exactly when `a·b` is made by shift-and-add instructions
/// (`lower::shift_add_factors`); either way the lowered function computes the same.
#[test]
fn products_by_literals_fold_when_cheap() {
    #[track_caller]
    fn check_fold(a: u128, b: u128, folded: Option<u128>) {
        let out = Param::array("out1", Ty::U64, &[u64::MAX as u128]);
        let mut f = Function::new("f", vec![scalar("arg1")], vec![out]);
        let x = f.push1(Op::Load { param: 0, index: 0 }, vec![], Ty::U64);
        let y = f.push1(Op::Mul, vec![x.into(), Operand::Const(a)], Ty::U64);
        let z = f.push1(Op::Mul, vec![y.into(), Operand::Const(b)], Ty::U64);
        f.push(Op::Store { ret: 0, index: 0 }, vec![z.into()], &[]);
        let g = lower::lower(&f).unwrap();
        let muls: Vec<Vec<Operand>> = g
            .insts
            .iter()
            .filter(|i| i.op == Op::Mul)
            .map(|i| i.args.clone())
            .collect();
        match folded {
            Some(c) => assert_eq!(muls, [vec![x.into(), Operand::Const(c)]], "{a}·{b}"),
            None => assert_eq!(muls.len(), 2, "{a}·{b} stays two products: {muls:?}"),
        }
        for v in [0u128, 1, 7, u64::MAX as u128, 1 << 63] {
            let input = vec![vec![v]];
            let (want, got) = (
                interp::run(&f, &input).unwrap(),
                interp::run(&g, &input).unwrap(),
            );
            assert_eq!(want, got, "{a}·{b} on {v}");
        }
    }
    check_fold(5, 4, Some(20)); // lea + shl
    check_fold(2, 2, Some(4));
    check_fold(3, 3, Some(9));
    check_fold(5, 9, Some(45)); // lea + lea
    check_fold(1 << 63, 2, None); // the literals multiply to 0 mod 2^64: left alone
    check_fold(19, 2, None); // 38 needs imul: keep the shift after imul by 19
    check_fold(7, 3, None);
}

#[test]
fn shift_add_factors_cases() {
    let cases: &[(u64, Option<(u64, u64)>)] = &[
        (1, Some((1, 1))),
        (8, Some((1, 8))),
        (20, Some((5, 4))),
        (27, Some((3, 9))),
        (81, Some((9, 9))),
        (19, None),
        (38, None),
        (7, None),
        (0, None),
    ];
    for &(c, want) in cases {
        assert_eq!(lower::shift_add_factors(c), want, "{c}");
    }
}

#[test]
fn lea_base_factors_cases() {
    let cases: &[(u64, Option<(u8, u8)>)] = &[
        (19, Some((9, 2))),
        (7, Some((3, 2))),
        (11, Some((5, 2))),
        (73, Some((9, 8))),
        (38, None),
        (9, None),
        (1, None),
        (0, None),
    ];
    for &(c, want) in cases {
        assert_eq!(lower::lea_base_factors(c), want, "{c}");
        if let Some((m, k)) = want {
            assert_eq!(1 + k as u64 * m as u64, c, "{c}");
        }
    }
}

/// `(x << s) & c` becomes two shifts exactly when `c` is a run of ones from bit `s` too
/// wide for an `and` immediate (and the shift has no other use); either way the lowered
/// function computes the same.
#[test]
fn shifted_masks_become_two_shifts() {
    #[track_caller]
    fn check_mask(s: u128, c: u128, shifts: bool, shared: bool) {
        let out = Param::array("out1", Ty::U64, &[u64::MAX as u128; 2]);
        let mut f = Function::new("f", vec![scalar("arg1")], vec![out]);
        let x = f.push1(Op::Load { param: 0, index: 0 }, vec![], Ty::U64);
        let y = f.push1(Op::Shl, vec![x.into(), Operand::Const(s)], Ty::U64);
        let z = f.push1(Op::And, vec![y.into(), Operand::Const(c)], Ty::U64);
        f.push(Op::Store { ret: 0, index: 0 }, vec![z.into()], &[]);
        let other = if shared { y.into() } else { Operand::Const(0) };
        f.push(Op::Store { ret: 0, index: 1 }, vec![other], &[]);
        let g = lower::lower(&f).unwrap();
        let ands = g.insts.iter().filter(|i| i.op == Op::And).count();
        let ops: Vec<Op> = g.insts.iter().map(|i| i.op).collect();
        assert_eq!(ands == 0, shifts, "s = {s}, c = {c:#x}: {ops:?}");
        for v in [
            0u128,
            1,
            7,
            u64::MAX as u128,
            1 << 63,
            0x0123_4567_89ab_cdef,
        ] {
            let input = vec![vec![v]];
            let (want, got) = (
                interp::run(&f, &input).unwrap(),
                interp::run(&g, &input).unwrap(),
            );
            assert_eq!(want, got, "s = {s}, c = {c:#x} on {v:#x}");
        }
    }
    let m52 = (1u128 << 52) - 1;
    check_mask(4, m52 << 4, true, false); // libsecp256k1's (d & M) << 4
    check_mask(1, ((1u128 << 40) - 1) << 1, true, false);
    check_mask(4, m52 << 4, false, true); // the shift is used again: left alone
    check_mask(4, 0xff0, false, false); // an immediate: `and` stays
    check_mask(4, m52 << 5, false, false); // not a run from bit s
    check_mask(4, (m52 << 4) | 1, false, false);
    check_mask(8, ((1u128 << 56) - 1) << 8, false, false); // k + s = 64: the mask is a no-op
}

/// `a + (x >> n)` of a 128-bit `x` (a `shrd` after lowering) is added as its two halves,
/// `(lo >> n)` and `(hi << 64 - n)`, when the shift has no other use and the sum's carry
/// only feeds additions; the sum and its carry stay exact on every input, including
/// those where each half carries.
#[test]
fn shifted_accumulators_are_added_as_two_halves() {
    #[track_caller]
    fn check_split(n: u128, carry_stored: bool, shift_stored: bool, split: bool) {
        // (a + (x >> n)) with x = (hi, lo); word 1: b + the carry, or the carry alone.
        let out = Param::array("out1", Ty::U64, &[u64::MAX as u128; 3]);
        let params = ["lo", "hi", "a", "b"].map(scalar).to_vec();
        let mut f = Function::new("f", params, vec![out]);
        let v: Vec<_> = (0..4)
            .map(|i| f.push1(Op::Load { param: i, index: 0 }, vec![], Ty::U64))
            .collect();
        let lo = f.push1(Op::Cast, vec![v[0].into()], Ty::U128);
        let hi = f.push1(Op::Cast, vec![v[1].into()], Ty::U128);
        let hi = f.push1(Op::Shl, vec![hi.into(), Operand::Const(64)], Ty::U128);
        let x = f.push1(Op::Or, vec![lo.into(), hi.into()], Ty::U128);
        let x = f.push1(Op::Shr, vec![x.into(), Operand::Const(n)], Ty::U128);
        let s = f.push1(Op::Cast, vec![x.into()], Ty::U64);
        let args = vec![Operand::Const(0), v[2].into(), s.into()];
        let r = f
            .push(Op::AddCarry { size: 64 }, args, &[Ty::U64, Ty::U1])
            .to_vec();
        let top = if carry_stored {
            f.push1(Op::Cast, vec![r[1].into()], Ty::U64)
        } else {
            f.push1(Op::Add, vec![v[3].into(), r[1].into()], Ty::U64)
        };
        let third = if shift_stored {
            s.into()
        } else {
            Operand::Const(0)
        };
        for (k, o) in [r[0].into(), top.into(), third].into_iter().enumerate() {
            f.push(
                Op::Store {
                    ret: 0,
                    index: k as u32,
                },
                vec![o],
                &[],
            );
        }
        validate::validate(&f, validate::Dialect::Fiat).unwrap();
        let g = lower::lower_for(&f, lower::Shape::Latency).unwrap();
        let count = |want: fn(&Op) -> bool| g.insts.iter().filter(|i| want(&i.op)).count();
        let sums = count(|o| matches!(o, Op::AddCarry { .. }));
        let shrds = count(|o| matches!(o, Op::Shrd { .. }));
        let want = if split { (2, 0) } else { (1, 1) };
        assert_eq!(
            (sums, shrds),
            want,
            "n = {n}, carry stored {carry_stored}, shift stored {shift_stored}"
        );
        let m = u64::MAX as u128;
        let cases = [
            (0, 0, 0),
            (m, m, m),
            (m, 0, m),
            (0, m, m),
            (1 << 63, 1, m - 5),
            (12345, 678, 9),
        ];
        for (lo, hi, a) in cases {
            let input = vec![vec![lo], vec![hi], vec![a], vec![7]];
            let (want, got) = (
                interp::run(&f, &input).unwrap(),
                interp::run(&g, &input).unwrap(),
            );
            assert_eq!(want, got, "n = {n} on {input:x?}");
        }
    }
    check_split(52, false, false, true);
    check_split(1, false, false, true);
    check_split(63, false, false, true);
    check_split(52, true, false, false); // the carry is stored: one sum
    check_split(52, false, true, false); // the shifted value is stored: the shrd stays
}
