//! Shared helpers of the integration tests: the Fiat JSON folder, the functions of the
//! issue, and the mapping from code-generation options to the checker's aliasing.
#![allow(dead_code)]

use std::path::PathBuf;

use cryptopt_codegen::Options;
use cryptopt_frontend::fiat;
use cryptopt_ir::Function;
use cryptopt_verify::CheckOptions;

/// `$CRYPTOPT_FIAT_JSON`, or `None` (the caller prints SKIPPED).
pub fn fiat_dir() -> Option<PathBuf> {
    std::env::var_os("CRYPTOPT_FIAT_JSON").map(PathBuf::from)
}

pub const FILES: &[&str] = &[
    "curve25519_64.json",
    "curve25519_solinas_64.json",
    "p224_64.json",
    "p256_64.json",
    "p384_64.json",
    "p434_64.json",
    "p448_solinas_64.json",
    "p521_64.json",
    "poly1305_64.json",
    "secp256k1_dettman_64.json",
    "secp256k1_montgomery_64.json",
];

/// Every function of `FILES` whose name ends with one of `suffixes`.
pub fn functions(suffixes: &[&str]) -> Option<Vec<Function>> {
    let dir = fiat_dir()?;
    let mut out = Vec::new();
    for file in FILES {
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        for f in fiat::parse_functions(&text).unwrap() {
            if suffixes.iter().any(|s| f.name.ends_with(s)) {
                out.push(f);
            }
        }
    }
    Some(out)
}

/// The acceptance set of foreign code (issue 15): every mul/square function of
/// `FILES`, and add/sub/opp/from_montgomery of p256, curve25519 and secp256k1 where
/// the file has them.
pub fn acceptance_set() -> Option<Vec<Function>> {
    let mut fs = functions(&["_mul", "_square"])?;
    let dir = fiat_dir()?;
    for (file, prefix) in [
        ("p256_64.json", "fiat_p256"),
        ("curve25519_64.json", "fiat_25519"),
        ("secp256k1_montgomery_64.json", "fiat_secp256k1_montgomery"),
    ] {
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        for op in ["_add", "_sub", "_opp", "_from_montgomery"] {
            fs.extend(fiat::parse_function(&text, &format!("{prefix}{op}")).ok());
        }
    }
    Some(fs)
}

/// One function by file and name.
pub fn function(file: &str, name: &str) -> Option<Function> {
    let dir = fiat_dir()?;
    let text = std::fs::read_to_string(dir.join(file)).unwrap();
    Some(fiat::parse_function(&text, name).unwrap())
}

/// The aliasing a program generated with `opts` must be correct under.
pub fn check_options(opts: &Options) -> CheckOptions {
    CheckOptions {
        aliasing: opts.aliasing,
        abi: opts.abi,
        ..CheckOptions::default()
    }
}

/// The assembly `cc` (gcc, clang-19) prints at `-O3 -march=native` for the C that
/// `emit-c` prints for `f`, in `syntax` (`att`, gcc's default, or `intel`); files go
/// to `dir`. `None` when the compiler is not installed (the caller prints SKIPPED).
pub fn compiler_output(
    cc: &str,
    f: &Function,
    syntax: &str,
    dir: &std::path::Path,
) -> Option<String> {
    compiler_output_with(cc, &["-O3", "-march=native"], f, syntax, dir)
}

/// [`compiler_output`] with other optimization flags (`-O2` alone: what a build without
/// `-march` gets, SSE2 for vectors).
pub fn compiler_output_with(
    cc: &str,
    flags: &[&str],
    f: &Function,
    syntax: &str,
    dir: &std::path::Path,
) -> Option<String> {
    std::fs::create_dir_all(dir).ok()?;
    let c = dir.join(format!("{}.c", f.name));
    std::fs::write(&c, cryptopt_emit::c::emit(f)).ok()?;
    let tag: String = flags
        .concat()
        .chars()
        .filter(|c| c.is_alphanumeric())
        .collect();
    let out = dir.join(format!("{}.{cc}.{tag}.{syntax}.s", f.name));
    let mut cmd = std::process::Command::new(cc);
    cmd.args(flags).args(["-S", "-o"]).arg(&out).arg(&c);
    if syntax == "intel" {
        cmd.arg("-masm=intel");
    }
    let st = cmd.status().ok()?;
    assert!(st.success(), "{cc} failed on {}", c.display());
    Some(std::fs::read_to_string(&out).unwrap())
}

/// The hand-written-style P-256 variants of `tests/data/p256` (issue 15, item 2): (file
/// stem, the Fiat function it computes, its assembly text). `None` without the Fiat
/// JSON folder (the caller prints SKIPPED).
pub fn handwritten_p256() -> Option<Vec<(String, Function, String)>> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/p256");
    let mul = function("p256_64.json", "fiat_p256_mul")?;
    let square = function("p256_64.json", "fiat_p256_square")?;
    let mut out = Vec::new();
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "s"))
        .collect();
    names.sort();
    for path in names {
        let stem = path.file_stem().unwrap().to_string_lossy().to_string();
        let f = if stem.contains("square") {
            &square
        } else {
            &mul
        };
        out.push((stem, f.clone(), std::fs::read_to_string(&path).unwrap()));
    }
    Some(out)
}

/// Ground truth for native runs: edge-case and random inputs of a function, and what
/// the interpreter says for them.
pub struct Ground {
    pub cases: Vec<Vec<Vec<u128>>>,
    pub want: Vec<Vec<Vec<u128>>>,
}

impl Ground {
    /// The edge cases of `f` and `random` random inputs.
    pub fn new(f: &Function, rng: &mut impl rand::Rng, random: usize) -> Ground {
        use cryptopt_ir::{inputs, interp};
        let mut cases = inputs::edge_cases(f);
        cases.extend((0..random).map(|_| inputs::random(f, rng)));
        let want = cases
            .iter()
            .map(|x| interp::run(f, x).expect("interpreter"))
            .collect();
        Ground { cases, want }
    }

    /// Runs `p` natively on every case under every aliasing `aliasing` allows: the
    /// number of runs, or the first difference from the interpreter.
    pub fn run(
        &self,
        runner: &mut cryptopt_measure::diff::Runner,
        f: &Function,
        p: &cryptopt_x86::Program,
        aliasing: cryptopt_ir::Aliasing,
    ) -> Result<usize, String> {
        let mut code = Vec::new();
        cryptopt_x86::encode::encode_program(p, &mut code).expect("encodes");
        runner.load(&code).expect("loads");
        let alias = cryptopt_measure::diff::pairings(f, aliasing);
        let mut runs = 0;
        for (x, w) in self.cases.iter().zip(&self.want) {
            for &a in &alias {
                runs += 1;
                runner
                    .check_against(f, x, w, a)
                    .map_err(|e| e.to_string())?;
            }
        }
        Ok(runs)
    }
}
