//! Benchmark (not a test): wall-clock time of one equivalence check of a generated
//! program, per function, on this machine. The targets: fiat_p256_mul under
//! 1 second, fiat_p434_mul under 10 seconds (release build). Run with
//! `CRYPTOPT_FIAT_JSON=... cargo bench -p cryptopt-verify --bench speed`.

use std::time::{Duration, Instant};

use cryptopt_codegen::{Candidate, Generator, Options};
use cryptopt_verify::{check, CheckOptions};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

fn main() {
    let Some(dir) = std::env::var_os("CRYPTOPT_FIAT_JSON") else {
        eprintln!("SKIPPED verify speed bench: CRYPTOPT_FIAT_JSON is not set");
        return;
    };
    for (file, name) in [
        ("p256_64.json", "fiat_p256_mul"),
        ("p434_64.json", "fiat_p434_mul"),
        ("p384_64.json", "fiat_p384_square"),
        ("curve25519_64.json", "fiat_25519_carry_mul"),
        ("p521_64.json", "fiat_p521_carry_mul"),
        ("p448_solinas_64.json", "fiat_p448_carry_mul"),
    ] {
        let text = std::fs::read_to_string(std::path::Path::new(&dir).join(file)).unwrap();
        let f = cryptopt_frontend::fiat::parse_function(&text, name).unwrap();
        let g = cryptopt_ir::lower::lower(&f).unwrap();
        let mut gen = Generator::new(&g, Options::default()).unwrap();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let mut times: Vec<Duration> = Vec::new();
        let mut insts = 0;
        for _ in 0..30 {
            let c = Candidate::random(&g, gen.deps(), &mut rng);
            gen.generate(&c).unwrap();
            let p = gen.program();
            insts = p.insts.len();
            let t = Instant::now();
            let v = check(&f, &p, CheckOptions::default()).unwrap();
            times.push(t.elapsed());
            assert!(v.is_equivalent(), "{name}: not proved");
        }
        times.sort();
        println!(
            "{name:32} {insts:5} instructions: check median {:>9.3?}, min {:>9.3?}, max {:>9.3?} (30 programs)",
            times[times.len() / 2],
            times[0],
            times[times.len() - 1]
        );
    }
}
