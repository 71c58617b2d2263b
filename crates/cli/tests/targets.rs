//! Targets (`--target`) and the run-time dispatcher (`optimize --emit dispatch`) through
//! the binary: each target's code keeps to its instructions and is proved; the
//! dispatcher links with the three targets' assembly and every path it can take on this
//! CPU computes what the interpreter computes, under System V and Windows x64.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::*;

/// `codegen --target T` writes code that `check --target T` proves, and `check` refuses
/// code beyond the target it is told (exit 1, the instruction and the feature named).
#[test]
fn check_holds_code_to_its_target() {
    let dir = scratch("targets-check");
    std::fs::create_dir_all(&dir).unwrap();
    let Some(p256) = std::env::var_os("CRYPTOPT_FIAT_JSON")
        .map(|d| std::path::Path::new(&d).join("p256_64.json"))
    else {
        eprintln!("SKIPPED check_holds_code_to_its_target: CRYPTOPT_FIAT_JSON is not set");
        return;
    };
    let p256 = p256.to_str().unwrap();
    let write = |target: &str| {
        let path = dir.join(format!("{target}.S"));
        let (code, _, err) = cryptopt(&[
            "codegen",
            p256,
            "-f",
            "fiat_p256_mul",
            "--target",
            target,
            "--syntax",
            "gas",
            "-o",
            path.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{err}");
        path
    };
    let check = |path: &std::path::Path, target: &str| {
        cryptopt(&[
            "check",
            p256,
            "-f",
            "fiat_p256_mul",
            path.to_str().unwrap(),
            "--target",
            target,
        ])
    };
    // (code made for, checked against, exit code, a line the report must have)
    let cases = [
        ("x86-64", "x86-64", 0, "equivalent"),
        ("x86-64-bmi2", "x86-64-bmi2", 0, "equivalent"),
        ("x86-64-adx", "x86-64-adx", 0, "equivalent"),
        ("x86-64", "x86-64-adx", 0, "equivalent"),
        (
            "x86-64-bmi2",
            "x86-64",
            1,
            "needs BMI2, which target x86-64 does not have",
        ),
        (
            "x86-64-adx",
            "x86-64-bmi2",
            1,
            "needs ADX, which target x86-64-bmi2 does not have",
        ),
    ];
    for (made, against, want, line) in cases {
        let path = write(made);
        let (code, out, err) = check(&path, against);
        assert_eq!(code, want, "{made} checked as {against}: {out}{err}");
        assert!(out.contains(line), "{made} checked as {against}: {out}");
    }
    let (code, _, err) = cryptopt(&["codegen", p256, "-f", "fiat_p256_mul", "--target", "i386"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("x86-64-bmi2"), "the choices are named: {err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// `optimize --emit dispatch`: three proved programs and a C dispatcher; linked
/// together with a C caller, every implementation this CPU can run (forced through
/// `<name>_select`) and the automatic choice agree with the interpreter. Under both
/// calling conventions: with `--abi win64` the three programs and the dispatcher's entry
/// have Windows' convention, which the Linux caller gets through the header's
/// `CRYPTOPT_MS_ABI`.
#[test]
fn dispatch_links_and_every_path_matches_the_interpreter() {
    if !needs(
        "dispatch_links_and_every_path_matches_the_interpreter",
        &["gcc"],
    ) {
        return;
    }
    for abi in ["sysv", "win64"] {
        check_dispatch(abi);
    }
}

/// The dispatcher test under the calling convention `abi`.
fn check_dispatch(abi: &str) {
    let dir = scratch(&format!("targets-dispatch-{abi}"));
    let ex = example();
    let (code, out, err) = cryptopt(&[
        "optimize",
        &ex,
        "--emit",
        "dispatch",
        "--abi",
        abi,
        "--evals",
        "100",
        "--bets",
        "2",
        "--batches",
        "5",
        "--out",
        dir.to_str().unwrap(),
        "--symbol",
        "picked",
    ]);
    assert_eq!(code, 0, "{err}");
    for t in ["x86-64", "x86-64-bmi2", "x86-64-adx"] {
        assert!(out.contains(&format!("target={t} ")), "{out}");
    }
    assert_eq!(out.matches("proof=proved").count(), 3, "{out}");
    let bundle = dir.join("picked_dispatch");
    let header = std::fs::read_to_string(bundle.join("picked.h")).unwrap();
    assert_eq!(
        header.contains("CRYPTOPT_MS_ABI void picked("),
        abi == "win64",
        "{abi}:\n{header}"
    );
    let c_main = r#"
#include <stdio.h>
#include <stdlib.h>
#include "picked.h"
int main(int argc, char **argv) {
    int want = atoi(argv[1]), got = want == -2 ? -2 : picked_select(want);
    uint64_t o[2];
    picked(o, strtoull(argv[2], 0, 16), strtoull(argv[3], 0, 16), strtoull(argv[4], 0, 16));
    printf("%d\n{\"out1\":[\"0x%llx\",\"0x%llx\"]}\n", got, (unsigned long long)o[0], (unsigned long long)o[1]);
    return 0;
}
"#;
    let exe = link_dispatcher(&bundle, "picked", c_main);
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let has = |flag: &str| cpuinfo.split_whitespace().any(|w| w == flag);
    let level = match (has("bmi1") && has("bmi2"), has("adx")) {
        (true, true) => 2,
        (true, false) => 1,
        _ => 0,
    };
    // -2: no select (the first call resolves), -1: the CPU's best, 0..2: forced.
    for forced in ["-2", "-1", "0", "1", "2"] {
        let f: i32 = forced.parse().unwrap();
        for args in [
            ["2", "3", "4"],
            ["ffffffffffffffff", "ffffffffffffffff", "ffffffffffffffff"],
            ["123456789abcdef", "fedcba987654321", "1"],
        ] {
            let out = sh(Command::new(&exe).arg(forced).args(args));
            let (got, from_c) = out.split_once('\n').unwrap();
            // What select answers (-2: not called, the caller prints -2 back).
            let want = match f {
                -2 => None,
                -1 => Some(level),
                t if t <= level => Some(t),
                _ => Some(-1),
            };
            if let Some(want) = want {
                assert_eq!(got.parse::<i32>().unwrap(), want, "select({forced})");
            }
            if want == Some(-1) {
                eprintln!("note: this CPU cannot run target {forced}: that path is not run");
            }
            let json_args = format!("[\"0x{}\",\"0x{}\",\"0x{}\"]", args[0], args[1], args[2]);
            let (code, from_interp, _) = cryptopt(&["interp", &ex, "--args", &json_args]);
            assert_eq!(code, 0);
            assert_eq!(from_c, from_interp, "{abi}: select({forced}) on {args:?}");
        }
    }
    // Each bundled implementation is its target's: the baseline has no BMI2/ADX.
    let base = std::fs::read_to_string(bundle.join("picked_x86_64.S")).unwrap();
    assert!(base.contains("picked_x86_64:"), "{base}");
    let mnemonics: Vec<&str> = base
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(mnemonics.contains(&"mul"), "no mul in\n{base}");
    for mn in ["mulx", "adcx", "adox", "shrx", "shlx", "bzhi"] {
        assert!(!mnemonics.contains(&mn), "{mn} in\n{base}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Writes `main_c` into the dispatcher's folder `bundle` (`optimize --emit dispatch
/// --symbol NAME`) and links it with `NAME_dispatch.c` and the three targets' `.S`
/// files (gcc -O2); returns the executable.
pub fn link_dispatcher(bundle: &Path, name: &str, main_c: &str) -> PathBuf {
    std::fs::write(bundle.join("main.c"), main_c).unwrap();
    let exe = bundle.join("main");
    let mut cmd = Command::new("gcc");
    cmd.current_dir(bundle)
        .args(["-O2", "-o", exe.to_str().unwrap(), "main.c"])
        .arg(format!("{name}_dispatch.c"));
    for t in ["x86_64", "x86_64_bmi2", "x86_64_adx"] {
        cmd.arg(format!("{name}_{t}.S"));
    }
    sh(&mut cmd);
    exe
}
