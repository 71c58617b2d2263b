//! Integration tests that run the real `cryptopt` binary (ripgrep's style): exit codes,
//! one-line errors, and golden files for text output. Set `CRYPTOPT_BLESS=1` to rewrite
//! the golden files after an intended change, then review the diff.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn example() -> String {
    root()
        .join("examples/running_example.json")
        .display()
        .to_string()
}

/// Runs the binary; returns (exit code, stdout, stderr).
fn cryptopt(args: &[&str]) -> (i32, String, String) {
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

/// Compares `got` with the golden file `name`, or rewrites it under CRYPTOPT_BLESS=1.
fn golden(name: &str, got: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
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

#[test]
fn interp_running_example() {
    // out = X·((Y+Z) mod 2^64) + Z² + Y mod 2^128, as two 64-bit words
    let cases: &[(&str, &str)] = &[
        (r#"["0x2","0x3","0x4"]"#, r#"{"out1":["0x21","0x0"]}"#),
        (r#"[["0x2"],["0x3"],["0x4"]]"#, r#"{"out1":["0x21","0x0"]}"#),
        (
            r#"["0xffffffffffffffff","0xffffffffffffffff","0xffffffffffffffff"]"#,
            r#"{"out1":["0x2","0xfffffffffffffffc"]}"#,
        ),
        (
            r#"["0","0x1","18446744073709551615"]"#,
            r#"{"out1":["0x2","0xfffffffffffffffe"]}"#,
        ),
    ];
    let ex = example();
    for (args, want) in cases {
        for lowered in [false, true] {
            let mut a = vec!["interp", &ex, "--args", args];
            if lowered {
                a.push("--lowered");
            }
            let (code, out, err) = cryptopt(&a);
            assert_eq!(
                (code, out.trim(), err.as_str()),
                (0, *want, ""),
                "args {args} lowered={lowered}"
            );
        }
    }
}

/// Bad input: exit 2 and one line on stderr that names the problem.
#[test]
fn errors_are_one_line_with_exit_2() {
    let ex = example();
    let cases: &[(&[&str], &str)] = &[
        (
            &["interp", "/nonexistent.json", "--args", "[]"],
            "cannot read /nonexistent.json",
        ),
        (&["interp", &ex, "--args", "[1"], "--args is not valid JSON"),
        (
            &["interp", &ex, "--args", r#"["1","2"]"#],
            "--args has 2 entries but `example_running` takes 3",
        ),
        (
            &["interp", &ex, "--args", r#"["1","2","zz"]"#],
            "arg3[0] = \"zz\" is not a hex",
        ),
        (
            &[
                "interp",
                &ex,
                "--args",
                r#"["1","2","0x10000000000000000"]"#,
            ],
            "does not fit u64",
        ),
        (
            &["interp", &ex, "--function", "nope", "--args", "[]"],
            "no function named `nope`",
        ),
        (&["list", "/"], "cannot read /"),
    ];
    for (args, want) in cases {
        let (code, out, err) = cryptopt(args);
        assert_eq!(code, 2, "{args:?}: stderr {err}");
        assert!(out.is_empty(), "{args:?} printed {out}");
        assert_eq!(err.lines().count(), 1, "{args:?}: not one line: {err}");
        assert!(err.contains(want), "{args:?}: want {want:?} in {err:?}");
    }
    // A file that is not JSON, and one that is JSON but not Fiat's.
    let dir = std::env::temp_dir().join(format!("cryptopt-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (content, want) in [("not json", "invalid JSON: expected ident at line 1 column 2\n"), (r#"[{"operation":"f"}]"#, "f: missing field `arguments`"), ("[{\"operation\":\"f\",\"arguments\":[],\"returns\":[],\"body\":[{\"datatype\":\"u64\",\"name\":[\"x1\"],\"operation\":\"divmod\",\"arguments\":[\"0x1\",\"0x2\"]}]}]", "f: body[0]: unsupported operation `divmod`")] {
        let p = dir.join("bad.json");
        std::fs::write(&p, content).unwrap();
        let (code, _, err) = cryptopt(&["list", p.to_str().unwrap()]);
        assert_eq!(code, 2);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.ends_with(want) || err.contains(want), "want {want:?} in {err:?}");
    }
    std::fs::remove_dir_all(&dir).ok();
    // Usage errors from clap also exit 2.
    assert_eq!(cryptopt(&["frobnicate"]).0, 2);
    assert_eq!(cryptopt(&["interp", &ex]).0, 2);
}

#[test]
fn ir_golden() {
    let ex = example();
    let (code, out, _) = cryptopt(&["ir", &ex]);
    assert_eq!(code, 0);
    golden("running_example.ir", &out);
    let (code, out, _) = cryptopt(&["ir", &ex, "--lowered"]);
    assert_eq!(code, 0);
    golden("running_example.lowered.ir", &out);
    let (code, out, _) = cryptopt(&["list", &ex]);
    assert_eq!(code, 0);
    golden("running_example.list", &out);
}

#[test]
fn fiat_golden() {
    let Some(dir) = std::env::var_os("CRYPTOPT_FIAT_JSON") else {
        eprintln!("SKIPPED fiat_golden: CRYPTOPT_FIAT_JSON is not set");
        return;
    };
    let p256 = Path::new(&dir).join("p256_64.json").display().to_string();
    let (code, out, err) = cryptopt(&["ir", &p256, "--function", "fiat_p256_mul", "--lowered"]);
    assert_eq!(code, 0, "{err}");
    golden("fiat_p256_mul.lowered.ir", &out);
    let c25519 = Path::new(&dir)
        .join("curve25519_64.json")
        .display()
        .to_string();
    let (code, out, err) = cryptopt(&[
        "ir",
        &c25519,
        "--function",
        "fiat_25519_carry_square",
        "--lowered",
    ]);
    assert_eq!(code, 0, "{err}");
    golden("fiat_25519_carry_square.lowered.ir", &out);
    let (code, out, _) = cryptopt(&["list", &p256]);
    assert_eq!(code, 0);
    golden("p256_64.list", &out);
}
