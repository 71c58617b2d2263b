//! Generation succeeds (no internal error) and encodes, for many random candidates.

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
