//! The command line as a user meets it: every argument has help text, one name per
//! idea (old names still accepted), usage errors on one line, "did you mean" for
//! misspelled names.

use std::process::Command;

mod common;
use common::*;

const COMMANDS: [&str; 9] = [
    "list", "interp", "codegen", "check", "gen", "emit-c", "optimize", "bench", "ir",
];

/// Every argument of every command is described in `-h` (clap's short help puts the
/// description on the argument's line).
#[test]
fn every_argument_has_help() {
    for cmd in COMMANDS {
        let (code, out, err) = cryptopt(&[cmd, "-h"]);
        assert_eq!(code, 0, "{cmd}: {err}");
        let mut args = 0;
        for line in out.lines() {
            let t = line.trim_start();
            let is_arg = line.starts_with("  ") && (t.starts_with('-') || t.starts_with('<'));
            if !is_arg || t.starts_with("-h, --help") || t.starts_with("-V, --version") {
                continue;
            }
            args += 1;
            // `  -f, --function <FUNCTION>  The function's name ...`
            let described = t.split("  ").skip(1).any(|d| !d.trim().is_empty());
            assert!(described, "{cmd}: no help for `{t}`");
        }
        assert!(args > 0, "{cmd}: no arguments found in {out}");
    }
}

/// clap's usage errors are one line with exit code 2, and keep clap's tip.
#[test]
fn usage_errors_are_one_line() {
    let ex = example();
    let cases: &[(&[&str], &str)] = &[
        (&["frobnicate"], "unrecognized subcommand 'frobnicate'"),
        (&["chek"], "a similar subcommand exists: 'check'"),
        (&["interp", &ex], "--args <ARGS>"),
        (
            &["codegen"],
            "required arguments were not provided: <INPUT>",
        ),
        (&["optimize", "--evals", "x"], "`x` is not a count"),
        (
            &["codegen", &ex, "--seed", "x"],
            "invalid value 'x' for '--seed <SEED>'",
        ),
        (
            &["check", &ex, "p.asm", "--aliasing", "some"],
            "invalid value 'some'",
        ),
        (
            &["gen", "--field", "p127", "--scmul", "0"],
            "--scmul 0: the constant must be 1 to 2^32 - 1",
        ),
        (
            &["gen", "--field", "p127", "--scmul", "3", "--op", "add"],
            "'--scmul <C>' cannot be used with '--op <OP>'",
        ),
        // One identifier rule: a keyword is not a C name (the header declares it).
        (
            &["codegen", &ex, "--symbol", "while"],
            "`while` is not a C identifier (it is a keyword of C or C++)",
        ),
        (
            &["optimize", &ex, "--symbol", "9lives"],
            "`9lives` is not a C identifier",
        ),
    ];
    for (args, want) in cases {
        let (code, out, err) = cryptopt(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}: {out}");
        assert_eq!(err.lines().count(), 1, "{args:?}: not one line: {err}");
        assert!(err.starts_with("cryptopt: error: "), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: want {want:?} in {err}");
    }
    // Help and version are not errors.
    assert_eq!(cryptopt(&["--version"]).0, 0);
    assert_eq!(cryptopt(&["--help"]).0, 0);
}

/// A misspelled function, preset or operation gets the closest known name.
#[test]
fn did_you_mean() {
    let mut cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec!["gen".into(), "--field".into(), "curve2519".into()],
            "did you mean `curve25519`?",
        ),
        (
            vec![
                "gen".into(),
                "--field".into(),
                "p256".into(),
                "--op".into(),
                "sqare".into(),
            ],
            "did you mean `square`?",
        ),
    ];
    // No Fiat JSON folder: the built-in generator's names.
    let out = Command::new(env!("CARGO_BIN_EXE_cryptopt"))
        .args(["bench", "--functions", "fiat_p256_mull"])
        .env("CRYPTOPT_FIAT_JSON", "")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("built-in generator; did you mean `fiat_p256_mul`?"),
        "{err}"
    );
    if let Some(dir) = std::env::var_os("CRYPTOPT_FIAT_JSON") {
        let p256 = std::path::Path::new(&dir).join("p256_64.json");
        cases.push((
            vec![
                "ir".into(),
                p256.display().to_string(),
                "-f".into(),
                "fiat_p256_sqaure".into(),
            ],
            "did you mean `fiat_p256_square`?",
        ));
    } else {
        eprintln!("did_you_mean: CRYPTOPT_FIAT_JSON is not set, the Fiat file case is left out");
    }
    for (args, want) in &cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, _, err) = cryptopt(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: want {want:?} in {err}");
    }
    // Nothing close: no suggestion.
    let (_, _, err) = cryptopt(&["gen", "--field", "ed448"]);
    assert!(!err.contains("did you mean"), "{err}");
}

/// The old names of renamed flags still work and mean the same: `codegen --output`
/// (now `--out`), `--memory-constraints` (now `--aliasing`).
#[test]
fn old_flag_names_still_work() {
    if !needs("old_flag_names_still_work", &["gcc"]) {
        return;
    }
    let dir = scratch("flags");
    std::fs::create_dir_all(&dir).unwrap();
    // curve25519 add: each output limb can be stored before the other inputs are read,
    // so the aliasing contract changes the code (p256 mul stores only at the end, and
    // the running example's scalar arguments cannot alias).
    let (code, json, err) = cryptopt(&["gen", "--field", "curve25519", "--op", "add"]);
    assert_eq!(code, 0, "{err}");
    let add = dir.join("add.json");
    std::fs::write(&add, json).unwrap();
    let add = add.to_str().unwrap();
    let codegen = |file: &str, flags: &[&str]| {
        let path = dir.join(file);
        let mut args = vec!["codegen", add];
        args.extend_from_slice(flags);
        args.push(path.to_str().unwrap());
        let (code, _, err) = cryptopt(&args);
        assert_eq!(code, 0, "{flags:?}: {err}");
        std::fs::read_to_string(path).unwrap()
    };
    let old = codegen("old.asm", &["--memory-constraints", "none", "--output"]);
    let new = codegen("new.asm", &["--aliasing", "none", "-o"]);
    let default = codegen("default.asm", &["-o"]);
    assert_eq!(old, new, "the old names mean the new ones");
    assert_ne!(new, default, "`--aliasing none` was not taken into account");
    // `check` and `codegen` share the aliasing default (all): codegen's default output
    // is proved by check's default.
    let ex = example();
    let new = dir.join("new.asm");
    let (code, _, err) = cryptopt(&["codegen", &ex, "--seed", "3", "-o", new.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = cryptopt(&["check", &ex, new.to_str().unwrap()]);
    assert_eq!((code, out.trim()), (0, "equivalent"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// `--seed` defaults to the same value everywhere: `codegen` without it prints what
/// `--seed 1` prints.
#[test]
fn one_seed_default() {
    let ex = example();
    let run = |extra: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_cryptopt"))
            .args(["codegen", &ex])
            .args(extra)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    };
    assert_eq!(run(&[]), run(&["--seed", "1"]));
    for cmd in ["codegen", "optimize", "bench"] {
        let (_, help, _) = cryptopt(&[cmd, "--help"]);
        let at = help
            .find("--seed <SEED>")
            .unwrap_or_else(|| panic!("{cmd}: no --seed"));
        let default = help[at..]
            .find("[default: ")
            .map(|i| &help[at + i..at + i + 12]);
        assert_eq!(default, Some("[default: 1]"), "{cmd}");
    }
}
