//! Vector code generation: the 4-way X25519 ladder step (AVX-512 IFMA) in its program
//! order and in random topological orders (which spill), each run natively against the
//! interpreter on its scalar expansion — also with the output buffer being the state's
//! input buffer — and proved equivalent to it by the checker.

use cryptopt_codegen::vector;
use cryptopt_ir::vector::VFunction;
use cryptopt_ir::{inputs, interp, Function};
use cryptopt_measure::diff::{pairings, Runner};
use cryptopt_x86::{Abi, Mnemonic};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

fn ladderstep() -> (VFunction, Function) {
    let v = cryptopt_gen::formulas::lanes::x25519_ladderstep("fiat_25519_ladderstep_ifma")
        .expect("generates");
    let f = v.expand();
    (v, f)
}

/// A random topological order that keeps every load before the first store.
fn random_order(v: &VFunction, rng: &mut impl Rng) -> Vec<u32> {
    let n = v.insts.len();
    let mut users = vec![Vec::new(); n];
    let mut pending: Vec<usize> = v.insts.iter().map(|i| i.args.len()).collect();
    for (i, inst) in v.insts.iter().enumerate() {
        for a in &inst.args {
            users[a.index()].push(i);
        }
    }
    let is_store = |i: usize| v.insts[i].op.is_store();
    let mut ready: Vec<usize> = (0..n).filter(|&i| pending[i] == 0).collect();
    let mut order = Vec::with_capacity(n);
    while !ready.is_empty() {
        // Stores wait while anything else is ready (loads are all ready at the start).
        let others: Vec<usize> = (0..ready.len()).filter(|&k| !is_store(ready[k])).collect();
        let k = if others.is_empty() {
            rng.random_range(0..ready.len())
        } else {
            others[rng.random_range(0..others.len())]
        };
        let i = ready.swap_remove(k);
        order.push(i as u32);
        for &u in &users[i] {
            pending[u] -= 1;
            if pending[u] == 0 {
                ready.push(u);
            }
        }
    }
    assert_eq!(order.len(), n);
    order
}

#[test]
fn ladderstep_runs_and_is_proved_in_any_order() {
    let (v, f) = ladderstep();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(25519);
    let mut orders = vec![(0..v.insts.len() as u32).collect::<Vec<u32>>()];
    orders.extend((0..3).map(|_| random_order(&v, &mut rng)));
    let ifma = cryptopt_x86::Feature::Avx512Ifma.detected();
    if !ifma {
        eprintln!("SKIPPED native runs in ladderstep_runs_and_is_proved_in_any_order: this CPU has no AVX-512 IFMA/VL/DQ (the proofs still run)");
    }
    let mut cases = inputs::edge_cases(&f);
    cases.extend((0..200).map(|_| inputs::random(&f, &mut rng)));
    let mut runner = Runner::new().unwrap();
    let mut spilled = false;
    for order in &orders {
        let p = vector::emit(&v, order, Abi::SysV).unwrap();
        spilled |= p.insts.iter().any(|i| i.mn == Mnemonic::Sub);
        if ifma {
            let mut code = Vec::new();
            cryptopt_x86::encode::Assembler::new()
                .encode_program(&p, &mut code)
                .unwrap();
            runner.load(&code).unwrap();
            for pairing in pairings(&f, cryptopt_ir::Aliasing::All) {
                for x in &cases {
                    let want = interp::run(&f, x).unwrap();
                    runner
                        .check_against(&f, x, &want, pairing)
                        .unwrap_or_else(|e| panic!("{pairing:?}: {e}"));
                }
            }
        }
        let verdict =
            cryptopt_verify::check(&f, &p, cryptopt_verify::CheckOptions::default()).unwrap();
        assert_eq!(verdict, cryptopt_verify::Verdict::Equivalent, "{verdict:?}");
    }
    assert!(spilled, "no order spilled: the spill path is untested");
}

/// Wrong twins of the program are not proved: a high half taken for a low one, a lane
/// permutation off by one lane, a blend from the other source.
#[test]
fn wrong_twins_are_rejected() {
    let (v, f) = ladderstep();
    let order: Vec<u32> = (0..v.insts.len() as u32).collect();
    let p = vector::emit(&v, &order, Abi::SysV).unwrap();
    type Mutation = fn(&mut cryptopt_x86::Inst);
    let mutations: [(Mnemonic, Mutation); 3] = [
        (Mnemonic::Vpmadd52huq, |i| i.mn = Mnemonic::Vpmadd52luq),
        (Mnemonic::Vpermq, |i| {
            if let Some(cryptopt_x86::Operand::Imm(k)) = i.operands_mut().last_mut() {
                *k ^= 1;
            }
        }),
        (Mnemonic::Vpblendd, |i| {
            if let Some(cryptopt_x86::Operand::Imm(k)) = i.operands_mut().last_mut() {
                *k ^= 0xff;
            }
        }),
    ];
    for (mn, mutate) in mutations {
        let mut q = p.clone();
        let at = q
            .insts
            .iter()
            .position(|i| i.mn == mn)
            .expect("the program has one");
        mutate(&mut q.insts[at]);
        let verdict =
            cryptopt_verify::check(&f, &q, cryptopt_verify::CheckOptions::default()).unwrap();
        assert_ne!(
            verdict,
            cryptopt_verify::Verdict::Equivalent,
            "{mn} mutated at {at}"
        );
    }
}

/// Orders the emitter refuses: not a permutation, an argument after its use, a load
/// after a store.
#[test]
fn bad_orders_are_refused() {
    let (v, _) = ladderstep();
    let n = v.insts.len() as u32;
    let good: Vec<u32> = (0..n).collect();
    let check = |order: Vec<u32>, why: &str| {
        let e = vector::emit(&v, &order, Abi::SysV)
            .expect_err(why)
            .to_string();
        assert!(e.contains(why), "{e}");
    };
    check(good[1..].to_vec(), "instructions");
    let mut twice = good.clone();
    twice[1] = 0;
    check(twice, "twice");
    check(good.iter().rev().copied().collect(), "before its argument");
    // A load after a store, in a function where that keeps every argument before its
    // use: the store might have overwritten what the load reads.
    let mut b = cryptopt_ir::vector::Builder::new(
        "t",
        vec![cryptopt_ir::Param::array(
            "arg1",
            cryptopt_ir::Ty::U64,
            &[1; 8],
        )],
        vec![cryptopt_ir::Param::array(
            "out1",
            cryptopt_ir::Ty::U64,
            &[1; 8],
        )],
    );
    let x = b.load(0, 0).unwrap();
    b.store(0, 0, x).unwrap();
    let y = b.load(0, 4).unwrap();
    b.store(0, 4, y).unwrap();
    let t = b.finish().unwrap();
    let e = vector::emit(&t, &[0, 1, 2, 3], Abi::SysV).expect_err("refused");
    assert!(e.to_string().contains("a load after a store"), "{e}");
    assert!(vector::emit(&t, &[0, 2, 1, 3], Abi::SysV).is_ok());
    assert!(vector::emit(&v, &good, Abi::Win64).is_err());
}
