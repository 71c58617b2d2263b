//! `optimize --emit rust` through the binary: the module it writes beside the `.S` compiles
//! on its own with rustc (2021 and 2024 editions, warnings denied) and its known-answer
//! tests, the reference interpreter's outputs, pass when run; a name Rust cannot take is
//! refused in one line before anything is written.

use std::path::Path;
use std::process::Command;

mod common;
use common::*;

/// rustc: `$RUSTC`, else `rustc` on PATH.
fn rustc() -> String {
    std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string())
}

/// `p256 mul` as a Rust module: compiled with `rustc --test`, its tests run and pass.
#[test]
fn emitted_module_compiles_and_its_known_answers_pass() {
    let rustc = rustc();
    if !needs(
        "emitted_module_compiles_and_its_known_answers_pass",
        &[&rustc],
    ) {
        return;
    }
    let dir = scratch("rust-emit");
    let (code, out, err) = cryptopt(&[
        "optimize",
        "--field",
        "p256",
        "--op",
        "mul",
        "--evals",
        "300",
        "--emit",
        "rust",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("proof=proved"), "{out}");
    let folder = dir.join("fiat_p256_mul");
    let module = folder.join("fiat_p256_mul.rs");
    assert!(
        out.contains(&format!("rust: {}", module.display())),
        "{out}"
    );
    for name in ["fiat_p256_mul.asm", "fiat_p256_mul.S", "fiat_p256_mul.h"] {
        assert!(folder.join(name).is_file(), "{name} is written as usual");
    }
    assert!(entries(&folder, |n| n.contains(".tmp")).is_empty());
    let text = std::fs::read_to_string(&module).unwrap();
    // ELF, Mach-O and COFF; COFF refused instead where the program keeps values in
    // System V's red zone.
    let blocks = text.matches("core::arch::global_asm!(").count();
    assert!(
        blocks == 3 || (blocks == 2 && text.contains("--no-red-zone")),
        "{text}"
    );
    assert!(text.contains("\nfiat_p256_mul:\n") && text.contains("\n_fiat_p256_mul:\n"));
    for edition in ["2021", "2024"] {
        let bin = dir.join(format!("kat{edition}"));
        let (ok, log) = run(Command::new(&rustc).args([
            "--edition",
            edition,
            "-D",
            "warnings",
            "--test",
            module.to_str().unwrap(),
            "-o",
            bin.to_str().unwrap(),
        ]));
        assert!(ok, "rustc --edition {edition}:\n{log}");
        let (ok, log) = run(Command::new(&bin).arg("--nocapture"));
        assert!(ok, "{log}");
        let passed = passed(&log);
        assert!(passed >= 1, "{log}");
        if log.contains("SKIPPED") {
            eprintln!("note: this CPU lacks the program's features; its tests were skipped");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// A symbol Rust cannot take: one line, exit 2, before the search writes anything.
#[test]
fn a_name_rust_cannot_take_is_refused_before_the_search() {
    let dir = scratch("rust-emit-bad");
    let (code, _, err) = cryptopt(&[
        "optimize",
        "--field",
        "p256",
        "--op",
        "mul",
        "--evals",
        "300",
        "--emit",
        "rust",
        "--symbol",
        "loop",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("`loop`") && err.contains("--symbol"), "{err}");
    assert!(!Path::new(&dir).join("fiat_p256_mul").exists());
    std::fs::remove_dir_all(&dir).ok();
}

/// Runs `cmd`; whether it succeeded, and its stdout and stderr.
fn run(cmd: &mut Command) -> (bool, String) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    let log =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), log)
}

/// The count in the test harness's `test result: ok. N passed`, 0 if it is not there.
fn passed(log: &str) -> usize {
    log.lines()
        .filter_map(|l| l.strip_prefix("test result: ok. "))
        .filter_map(|rest| rest.split(' ').next()?.parse::<usize>().ok())
        .sum()
}
