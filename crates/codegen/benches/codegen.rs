//! Benchmark (not a test): time for code generation plus encoding of one candidate, per
//! function, on this machine (wall clock, `std::time::Instant`). Run with
//! `CRYPTOPT_FIAT_JSON=... cargo bench -p cryptopt-codegen --bench codegen`.

use std::time::Instant;

use cryptopt_codegen::{Candidate, Generator, Options};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

fn main() {
    let Some(dir) = std::env::var_os("CRYPTOPT_FIAT_JSON") else {
        eprintln!("SKIPPED codegen bench: CRYPTOPT_FIAT_JSON is not set");
        return;
    };
    for (file, name) in [
        ("p256_64.json", "fiat_p256_mul"),
        ("curve25519_64.json", "fiat_25519_carry_mul"),
        ("p434_64.json", "fiat_p434_mul"),
    ] {
        let text = std::fs::read_to_string(std::path::Path::new(&dir).join(file)).unwrap();
        let f = cryptopt_frontend::fiat::parse_function(&text, name).unwrap();
        let g = cryptopt_ir::lower::lower(&f).unwrap();
        let mut gen = Generator::new(&g, Options::default()).unwrap();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let cands: Vec<Candidate> = (0..200)
            .map(|_| Candidate::random(&g, gen.deps(), &mut rng))
            .collect();
        let mut asm = cryptopt_x86::encode::Assembler::new();
        let mut bytes = Vec::with_capacity(1 << 16);
        let mut times = Vec::new();
        let mut insts = 0;
        for round in 0..5 {
            for c in &cands {
                let t = Instant::now();
                let code = gen.generate(c).unwrap();
                bytes.clear();
                asm.encode(code, &mut bytes).unwrap();
                let dt = t.elapsed();
                if round > 0 {
                    times.push(dt.as_secs_f64() * 1e6);
                    insts += code.len();
                }
            }
        }
        times.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let n = times.len();
        println!(
            "{name}: generate+encode median {:.1} µs (p10 {:.1}, p90 {:.1}) over {n} runs, {} x86 instructions on average",
            times[n / 2],
            times[n / 10],
            times[9 * n / 10],
            insts / n
        );
    }
}
