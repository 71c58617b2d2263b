//! Printed programs assemble with real assemblers and compute what the in-memory
//! encoding computes: NASM (`nasm -f elf64`) and GNU as (`gcc -c` on the `.S`), each
//! linked into a shared object with gcc, loaded with dlopen and called through the
//! ABI-checking trampoline on the same inputs as the in-memory version.

use std::ffi::CString;
use std::path::Path;
use std::process::Command;

use cryptopt_codegen::{Candidate, Generator, Options};
use cryptopt_frontend::fiat;
use cryptopt_ir::{inputs, lower, Function};
use cryptopt_measure::diff::{Pairing, Runner};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

fn have(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn run(cmd: &mut Command) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// dlopen()s `so` and returns the address of `name` (the handle is leaked on purpose).
fn load_symbol(so: &Path, name: &str) -> *const u8 {
    let path = CString::new(so.to_str().unwrap()).unwrap();
    let sym = CString::new(name).unwrap();
    // SAFETY: plain dlopen/dlsym calls with valid C strings.
    unsafe {
        let h = libc::dlopen(path.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL);
        assert!(!h.is_null(), "dlopen {} failed", so.display());
        let p = libc::dlsym(h, sym.as_ptr());
        assert!(!p.is_null(), "{name} not found in {}", so.display());
        p as *const u8
    }
}

fn check(f: &Function, opts: Options, seed: u64, dir: &Path) {
    let g = lower::lower(f).unwrap();
    let mut gen = Generator::new(&g, opts).unwrap();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let c = Candidate::random(&g, gen.deps(), &mut rng);
    gen.generate(&c).unwrap();
    let p = gen.program();
    let asm = dir.join(format!("{}.asm", f.name));
    let gas = dir.join(format!("{}.S", f.name));
    std::fs::write(&asm, cryptopt_x86::print::nasm(&p)).unwrap();
    std::fs::write(&gas, cryptopt_x86::print::gas(&p)).unwrap();
    let (o1, so1) = (
        dir.join(format!("{}_nasm.o", f.name)),
        dir.join(format!("{}_nasm.so", f.name)),
    );
    let (o2, so2) = (
        dir.join(format!("{}_gas.o", f.name)),
        dir.join(format!("{}_gas.so", f.name)),
    );
    run(Command::new("nasm")
        .args(["-f", "elf64", "-o"])
        .arg(&o1)
        .arg(&asm));
    run(Command::new("gcc")
        .arg("-shared")
        .arg("-o")
        .arg(&so1)
        .arg(&o1));
    run(Command::new("gcc").arg("-c").arg("-o").arg(&o2).arg(&gas));
    run(Command::new("gcc")
        .arg("-shared")
        .arg("-o")
        .arg(&so2)
        .arg(&o2));
    let from_nasm = load_symbol(&so1, &f.name);
    let from_gas = load_symbol(&so2, &f.name);

    let mut code = Vec::new();
    cryptopt_x86::encode::encode(&p.insts, &mut code).unwrap();
    let mut runner = Runner::new().unwrap();
    runner.load(&code).unwrap();
    let mut cases = inputs::edge_cases(f);
    cases.extend((0..100).map(|_| inputs::random(f, &mut rng)));
    for x in &cases {
        let in_memory = runner.run(f, x, Pairing::Distinct).unwrap();
        runner
            .check_against(f, x, &in_memory, Pairing::Distinct)
            .unwrap();
        for (what, ptr) in [("nasm", from_nasm), ("gas", from_gas)] {
            // SAFETY: the symbol is the function we assembled, with f's signature.
            let got = unsafe { runner.run_at(ptr, f, x, Pairing::Distinct) }.unwrap();
            assert_eq!(
                got, in_memory,
                "{} assembled by {what} differs from the in-memory encoding",
                f.name
            );
        }
    }
}

#[test]
fn nasm_and_gas_objects_match_in_memory_code() {
    let Some(dir) = std::env::var_os("CRYPTOPT_FIAT_JSON") else {
        eprintln!(
            "SKIPPED nasm_and_gas_objects_match_in_memory_code: CRYPTOPT_FIAT_JSON is not set"
        );
        return;
    };
    if !have("nasm") || !have("gcc") {
        eprintln!("SKIPPED nasm_and_gas_objects_match_in_memory_code: nasm or gcc not found (CI installs them)");
        return;
    }
    let tmp = std::env::temp_dir().join(format!("cryptopt-assemble-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let cases: &[(&str, &str)] = &[
        ("p256_64.json", "fiat_p256_mul"),
        ("curve25519_64.json", "fiat_25519_carry_square"),
        ("p521_64.json", "fiat_p521_to_bytes"),
        ("p434_64.json", "fiat_p434_mul"),
    ];
    for (k, (file, name)) in cases.iter().enumerate() {
        let text = std::fs::read_to_string(Path::new(&dir).join(file)).unwrap();
        let f = fiat::parse_function(&text, name).unwrap();
        let opts = Options::all()[k * 5 % 18];
        check(&f, opts, k as u64, &tmp);
    }
    std::fs::remove_dir_all(&tmp).ok();
}
