//! The LLVM IR front end (issue 17) on its acceptance inputs, `examples/llvm/*.c` through
//! clang-19: the function the front end builds agrees with the same C compiled natively
//! on 10,000 inputs per function and optimization level; `optimize` runs and proves
//! them; what is outside the subset is refused with its line and exit 2.

mod common;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use cryptopt_ir::{inputs, interp, Function};
use num_bigint::BigUint;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use common::{cryptopt, needs, root, scratch, sh};

/// (C file in examples/llvm, function, outputs, inputs): every acceptance function.
const FUNCTIONS: [(&str, &str); 5] = [
    ("secp256k1_5x52.c", "secp256k1_fe_mul_inner"),
    ("secp256k1_5x52.c", "secp256k1_fe_sqr_inner"),
    ("x25519_bitint.c", "fe_mul"),
    ("x25519_bitint.c", "fe_sq"),
    ("x25519_bitint.c", "x25519_ladderstep"),
];

const INPUTS: usize = 10_000;

fn example(c: &str) -> PathBuf {
    root().join("examples/llvm").join(c)
}

/// `clang-19 -O{level} -S -emit-llvm` of an example, into `dir`.
fn emit_ll(c: &str, level: u8, dir: &Path) -> PathBuf {
    let out = dir.join(format!("{}.O{level}.ll", c.trim_end_matches(".c")));
    sh(Command::new("clang-19")
        .arg(format!("-O{level}"))
        .args(["-S", "-emit-llvm", "-o"])
        .arg(&out)
        .arg(example(c)));
    out
}

/// A program that calls `f` (compiled from `c` by clang at -O1) on the inputs read from
/// stdin and prints the outputs: the native reference.
fn native(c: &str, f: &Function, dir: &Path) -> PathBuf {
    let mut h = String::from("#include <stdint.h>\n#include <stdio.h>\n");
    let mut decl = Vec::new();
    for r in &f.returns {
        decl.push(format!("uint64_t {}[{}]", r.name, r.elems()));
    }
    for p in &f.params {
        match p.len {
            Some(n) => decl.push(format!("const uint64_t {}[{n}]", p.name)),
            None => decl.push(format!("uint64_t {}", p.name)),
        }
    }
    let _ = writeln!(h, "void {}({});", f.name, decl.join(", "));
    h.push_str("int main(void) {\n  unsigned long n; if (scanf(\"%lu\", &n) != 1) return 1;\n  while (n--) {\n");
    for p in &f.params {
        let _ = writeln!(h, "    uint64_t {}[{}];", p.name, p.elems());
        let _ = writeln!(
            h,
            "    for (int i = 0; i < {}; i++) if (scanf(\"%lx\", &{}[i]) != 1) return 1;",
            p.elems(),
            p.name
        );
    }
    for r in &f.returns {
        let _ = writeln!(h, "    uint64_t {}[{}];", r.name, r.elems());
    }
    let args: Vec<String> = f
        .returns
        .iter()
        .map(|r| r.name.clone())
        .chain(f.params.iter().map(|p| match p.len {
            Some(_) => p.name.clone(),
            None => format!("{}[0]", p.name),
        }))
        .collect();
    let _ = writeln!(h, "    {}({});", f.name, args.join(", "));
    for r in &f.returns {
        let _ = writeln!(
            h,
            "    for (int i = 0; i < {}; i++) printf(\"%lx \", {}[i]);",
            r.elems(),
            r.name
        );
    }
    h.push_str("    printf(\"\\n\");\n  }\n  return 0;\n}\n");
    let harness = dir.join(format!("{}_main.c", f.name));
    std::fs::write(&harness, h).unwrap();
    let exe = dir.join(format!("{}_native", f.name));
    sh(Command::new("clang-19")
        .args(["-O1", "-o"])
        .arg(&exe)
        .arg(&harness)
        .arg(example(c)));
    exe
}

/// Field elements near the edges of 2^255 - 19 (as 4 words), for the X25519 inputs.
fn edges25519() -> Vec<Vec<u128>> {
    let p = (BigUint::from(1u32) << 255u32) - 19u32;
    let two = BigUint::from(1u32) << 255u32;
    let vals = [
        BigUint::from(0u32),
        BigUint::from(1u32),
        &p - 1u32,
        p.clone(),
        &p + 1u32,
        &two - 1u32,
        &two + 18u32,
        (BigUint::from(1u32) << 256u32) - 1u32,
    ];
    vals.iter()
        .map(|v| {
            let d = v.to_u64_digits();
            (0..4).map(|i| d.get(i).copied().unwrap_or(0) as u128).collect()
        })
        .collect()
}

/// `count` inputs for `f`: its edge cases, then random ones (an argument of 4 words is
/// one of the edge field elements one time in four).
fn input_sets(f: &Function, count: usize, seed: u64) -> Vec<Vec<Vec<u128>>> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut out = inputs::edge_cases(f);
    let edges = edges25519();
    while out.len() < count {
        let mut x = inputs::random(f, &mut rng);
        for (k, p) in f.params.iter().enumerate() {
            if p.elems() == 4 && rng.random_range(0..4u8) == 0 {
                x[k] = edges[rng.random_range(0..edges.len())].clone();
            }
        }
        out.push(x);
    }
    out
}

/// Runs the native program on the inputs; one line of hex words per input.
fn run_native(exe: &Path, sets: &[Vec<Vec<u128>>]) -> Vec<String> {
    let mut text = format!("{}\n", sets.len());
    for s in sets {
        for p in s {
            for v in p {
                let _ = write!(text, "{v:x} ");
            }
        }
        text.push('\n');
    }
    // Through a file: a pipe written whole before the output is read would deadlock.
    let input = exe.with_extension("in");
    std::fs::write(&input, text).unwrap();
    let out = Command::new(exe)
        .stdin(std::fs::File::open(&input).unwrap())
        .output()
        .unwrap();
    assert!(out.status.success(), "{} failed", exe.display());
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l.trim().to_string())
        .collect()
}

#[test]
fn front_end_agrees_with_clang_compiled_code() {
    if !needs("front_end_agrees_with_clang_compiled_code", &["clang-19"]) {
        return;
    }
    let dir = scratch("llvm-diff");
    std::fs::create_dir_all(&dir).unwrap();
    for level in [1u8, 2] {
        for (k, (c, name)) in FUNCTIONS.iter().enumerate() {
            let ll = emit_ll(c, level, &dir);
            let text = std::fs::read_to_string(&ll).unwrap();
            let f = cryptopt_frontend::llvm::parse_function(&text, name)
                .unwrap_or_else(|e| panic!("{name} at -O{level}: {e}"));
            let exe = native(c, &f, &dir);
            let sets = input_sets(&f, INPUTS, 17 + k as u64);
            let want = run_native(&exe, &sets);
            assert_eq!(want.len(), sets.len());
            for (s, w) in sets.iter().zip(&want) {
                let got = interp::run(&f, s).unwrap();
                let got: Vec<String> = got.iter().flatten().map(|v| format!("{v:x}")).collect();
                assert_eq!(&got.join(" "), w, "{name} -O{level} on {s:x?}");
            }
            eprintln!("{name} -O{level}: {} inputs agree with native code", sets.len());
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
