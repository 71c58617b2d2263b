//! Helpers shared by the integration tests (included with `mod common;`).
#![allow(dead_code)]

use std::path::PathBuf;

use cryptopt_ir::{fiat, Function};

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
pub fn all_files(dir: &std::path::Path) -> Vec<(String, Vec<Function>)> {
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
pub fn function(dir: &std::path::Path, file: &str, name: &str) -> Function {
    let text = std::fs::read_to_string(dir.join(file)).unwrap();
    fiat::parse_function(&text, name).unwrap_or_else(|e| panic!("{file}: {e}"))
}
