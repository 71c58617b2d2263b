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
        ..CheckOptions::default()
    }
}
