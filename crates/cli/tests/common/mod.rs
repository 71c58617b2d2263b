//! What every integration test of the binary shares: running it, the example input,
//! golden files, and tools on PATH.
#![allow(dead_code)] // each test file uses a part

use std::path::{Path, PathBuf};
use std::process::Command;

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub fn example() -> String {
    root()
        .join("examples/running_example.json")
        .display()
        .to_string()
}

/// Runs the binary; returns (exit code, stdout, stderr).
pub fn cryptopt(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_cryptopt"))
        .args(args)
        .output()
        .expect("run cryptopt");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Where the golden files are (rewrite them with CRYPTOPT_BLESS=1, then review the diff).
pub const GOLDEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden");

pub fn golden(name: &str, got: &str) {
    cryptopt_testkit::golden(GOLDEN, name, got)
}

pub fn have(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Whether every one of `tools` is on PATH; when one is not, prints that `test` is
/// skipped and why (CI installs them all).
pub fn needs(test: &str, tools: &[&str]) -> bool {
    match tools.iter().find(|t| !have(t)) {
        None => true,
        Some(t) => {
            eprintln!("SKIPPED {test}: {t} not found (CI installs it)");
            false
        }
    }
}

/// A scratch path for one test in this process: `$TMPDIR/cryptopt-<tag>-<pid>`.
pub fn scratch(tag: &str) -> PathBuf {
    std::env::temp_dir().join(format!("cryptopt-{tag}-{}", std::process::id()))
}

/// The names of the entries of folder `dir` whose name `matches` (e.g. temporary files
/// a command must not leave behind).
pub fn entries(dir: &Path, matches: impl Fn(&str) -> bool) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| matches(name))
        .collect()
}

pub fn sh(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}
