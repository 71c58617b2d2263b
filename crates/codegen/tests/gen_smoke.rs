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
