//! Test support shared by the integration tests of every cryptopt crate (a
//! dev-dependency only; no library crate depends on it for real):
//!
//! * [`fiat_dir`], [`all_files`], [`function`]: the Fiat JSON reference folder
//!   (`$CRYPTOPT_FIAT_JSON`, `../shared/fiat-json` in CI). A test that needs it and does
//!   not find it prints `SKIPPED <test>: ...` and passes: never a silent skip.
//! * [`golden`]: golden files with a bless switch (`CRYPTOPT_BLESS=1` rewrites them;
//!   review the diff).
//! * [`kummer`]: an independent num-bigint model of the Kummer surface over 2^127 − 1.
//!
//! Helpers here may panic (they are for tests); they never hide a failure.

pub mod kummer;

use std::path::{Path, PathBuf};

use cryptopt_frontend::fiat;
use cryptopt_ir::Function;

/// The folder of Fiat JSON files, from `CRYPTOPT_FIAT_JSON`. When it is not set, prints
/// why the calling test is skipped and returns `None`.
pub fn fiat_dir(test: &str) -> Option<PathBuf> {
    match std::env::var_os("CRYPTOPT_FIAT_JSON") {
        Some(d) => {
            let d = PathBuf::from(d);
            assert!(
                d.is_dir(),
                "CRYPTOPT_FIAT_JSON={} is not a directory",
                d.display()
            );
            Some(d)
        }
        None => {
            eprintln!(
                "SKIPPED {test}: CRYPTOPT_FIAT_JSON is not set (point it at ../shared/fiat-json)"
            );
            None
        }
    }
}

/// Every `*.json` file in the folder, sorted, with its parsed functions.
pub fn all_files(dir: &Path) -> Vec<(String, Vec<Function>)> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("read CRYPTOPT_FIAT_JSON")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no .json files in {}", dir.display());
    paths
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            let funcs =
                fiat::parse_functions(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p.file_name().unwrap().to_string_lossy().into_owned(), funcs)
        })
        .collect()
}

/// The one function `name` from `file` in the folder.
pub fn function(dir: &Path, file: &str, name: &str) -> Function {
    let text = std::fs::read_to_string(dir.join(file)).unwrap();
    fiat::parse_function(&text, name).unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// Compares `got` with the golden file `dir/name`, or rewrites it under
/// `CRYPTOPT_BLESS=1`. `dir` is usually `concat!(env!("CARGO_MANIFEST_DIR"),
/// "/tests/golden")`.
pub fn golden(dir: &str, name: &str, got: &str) {
    let path = Path::new(dir).join(name);
    if std::env::var_os("CRYPTOPT_BLESS").is_some() {
        std::fs::write(&path, got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|_| {
        panic!(
            "missing golden file {} (run with CRYPTOPT_BLESS=1)",
            path.display()
        )
    });
    assert_eq!(
        got,
        want,
        "output differs from golden file {} (CRYPTOPT_BLESS=1 rewrites it)",
        path.display()
    );
}
