//! Generation succeeds (no internal error) and encodes, for many random candidates;
//! each target keeps to its instructions; a factor in rdx stays for the next `mulx`.

use cryptopt_codegen::{Candidate, Generator, Options};
use cryptopt_frontend::fiat;
use cryptopt_ir::lower;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

#[test]
fn random_candidates_generate_and_encode() {
    let Some(dir) = std::env::var_os("CRYPTOPT_FIAT_JSON") else {
        eprintln!("SKIPPED random_candidates_generate_and_encode: CRYPTOPT_FIAT_JSON is not set");
        return;
    };
    let mut asm = cryptopt_x86::encode::Assembler::new();
    let mut bytes = Vec::new();
    for file in [
        "p256_64.json",
        "curve25519_64.json",
        "p434_64.json",
        "p521_64.json",
    ] {
        let text = std::fs::read_to_string(std::path::Path::new(&dir).join(file)).unwrap();
        for f in fiat::parse_functions(&text).unwrap() {
            if !(f.name.ends_with("_mul") || f.name.ends_with("_square")) {
                continue;
            }
            let g = lower::lower(&f).unwrap();
            for opts in Options::all() {
                let mut gen = Generator::new(&g, opts).unwrap();
                let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
                for _ in 0..10 {
                    let c = Candidate::random(&g, gen.deps(), &mut rng);
                    let insts = gen
                        .generate(&c)
                        .unwrap_or_else(|e| panic!("{}: {e}", f.name))
                        .to_vec();
                    bytes.clear();
                    asm.encode(&insts, &mut bytes)
                        .unwrap_or_else(|e| panic!("{}: {e}", f.name));
                }
            }
        }
    }
}

/// Every target's code keeps to its instruction set, and each target's distinguishing
/// choice is really made: `mul` (rax × r/m → rdx:rax) only on x86-64, `mulx` without
/// `adcx`/`adox` on x86-64-bmi2, both carry chains on x86-64-adx.
#[test]
fn each_target_keeps_to_its_instructions() {
    use cryptopt_codegen::Target;
    use cryptopt_x86::Mnemonic as M;
    let Some(dir) = std::env::var_os("CRYPTOPT_FIAT_JSON") else {
        eprintln!("SKIPPED each_target_keeps_to_its_instructions: CRYPTOPT_FIAT_JSON is not set");
        return;
    };
    let text = std::fs::read_to_string(std::path::Path::new(&dir).join("p256_64.json")).unwrap();
    let f = fiat::parse_functions(&text)
        .unwrap()
        .into_iter()
        .find(|f| f.name == "fiat_p256_mul")
        .unwrap();
    let g = lower::lower(&f).unwrap();
    // (target, must use, must not use)
    let cases: [(Target, &[M], &[M]); 3] = [
        (
            Target::X86_64,
            &[M::Mul],
            &[M::Mulx, M::Adcx, M::Adox, M::Shrx, M::Bzhi],
        ),
        (Target::Bmi2, &[M::Mulx], &[M::Mul, M::Adcx, M::Adox]),
        (Target::Adx, &[M::Mulx, M::Adcx, M::Adox], &[M::Mul]),
    ];
    for (target, must, never) in cases {
        let opts = Options {
            target,
            ..Options::default()
        };
        let mut gen = Generator::new(&g, opts).unwrap();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
        let mut seen = std::collections::HashSet::new();
        for _ in 0..40 {
            let c = Candidate::random(&g, gen.deps(), &mut rng);
            gen.generate(&c).unwrap();
            let p = gen.program();
            assert!(target.beyond(&p).next().is_none(), "{target}");
            seen.extend(p.insts.iter().map(|i| i.mn));
        }
        for mn in must {
            assert!(seen.contains(mn), "{target} never used {mn}");
        }
        for mn in never {
            assert!(!seen.contains(mn), "{target} used {mn}");
        }
    }
}

/// A factor already in rdx stays there: eight products of one input `x` by others,
/// `x` written first and second in turn, take one load of rdx in the first order with
/// all decisions zero (each `mulx` whose other factor would be loaded multiplies by
/// the `x` that rdx holds).
#[test]
fn a_factor_in_rdx_is_not_moved_out() {
    use cryptopt_ir::func::{Function, Op, Operand, Param, Ty};
    use cryptopt_x86::{Mnemonic as M, Operand as X, Reg};
    let mut f = Function::new(
        "products",
        vec![Param::unbounded("arg1", Ty::U64, Some(9))],
        vec![Param::unbounded("out1", Ty::U64, Some(16))],
    );
    let load = |f: &mut Function, i: u32| -> Operand {
        f.push1(Op::Load { param: 0, index: i }, vec![], Ty::U64)
            .into()
    };
    let x = load(&mut f, 0);
    let mut outs = Vec::new();
    for i in 1..9u32 {
        let o = load(&mut f, i);
        let args = if i % 2 == 0 { vec![o, x] } else { vec![x, o] };
        let r = f
            .push(Op::Mulx { size: 64 }, args, &[Ty::U64, Ty::U64])
            .to_vec();
        outs.extend(r);
    }
    for (k, v) in outs.into_iter().enumerate() {
        f.push(
            Op::Store {
                ret: 0,
                index: k as u32,
            },
            vec![v.into()],
            &[],
        );
    }
    let g = lower::lower(&f).unwrap();
    let mut gen = Generator::new(&g, Options::default()).unwrap();
    let c = Candidate::first(gen.deps());
    let insts = gen.generate(&c).unwrap().to_vec();
    let rdx_loads = insts
        .iter()
        .filter(|i| i.mn == M::Mov && i.operands().first() == Some(&X::r64(Reg::Rdx)))
        .count();
    let mulx = insts.iter().filter(|i| i.mn == M::Mulx).count();
    assert_eq!(mulx, 8);
    assert_eq!(rdx_loads, 1, "{insts:#?}");
}
