//! `cryptopt gen --formula`: a whole formula written as Fiat JSON that the other commands
//! read back, and one-line errors naming the choices for bad requests.

mod common;
use common::*;

/// (arguments, exit code, text that stdout or stderr must contain)
fn check(args: &[&str], code: i32, want: &[&str]) {
    let (c, out, err) = cryptopt(args);
    assert_eq!(c, code, "{args:?}: {err}");
    for w in want {
        assert!(
            out.contains(w) || err.contains(w),
            "{args:?}: `{w}` not in\n{out}\n{err}"
        );
    }
    if code != 0 {
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    }
}

#[test]
fn table() {
    let gen = ["gen", "--field", "curve25519", "--formula"];
    let with = |extra: &[&'static str]| -> Vec<&'static str> {
        gen.iter().chain(extra).copied().collect()
    };
    check(
        &with(&["x25519-ladderstep"]),
        0,
        &["\"operation\": \"fiat_25519_ladderstep\"", "\"out4\""],
    );
    check(
        &with(&["x25519-ladderstp"]),
        2,
        &[
            "did you mean `x25519-ladderstep`",
            "formulas: x25519-ladderstep",
        ],
    );
    check(
        &["gen", "--field", "p256", "--formula", "x25519-ladderstep"],
        2,
        &["not defined over", "fields: curve25519"],
    );
    check(
        &with(&["x25519-ladderstep", "--repr", "montgomery"]),
        2,
        &["--repr solinas"],
    );
    check(
        &with(&["x25519-ladderstep", "--op", "mul"]),
        2,
        &["cannot be used with"],
    );
}

/// The written JSON is a function the other commands read: its signature, and the C
/// baseline compiles.
#[test]
fn written_formula_reads_back() {
    let dir = scratch("formula");
    std::fs::create_dir_all(&dir).unwrap();
    let (c, json, err) = cryptopt(&[
        "gen",
        "--field",
        "curve25519",
        "--formula",
        "x25519-ladderstep",
    ]);
    assert_eq!(c, 0, "{err}");
    let file = dir.join("ladderstep.json");
    std::fs::write(&file, json).unwrap();
    let file = file.to_str().unwrap();
    check(
        &["list", file],
        0,
        &["fiat_25519_ladderstep(arg1: u1, arg2: u64[5], arg3: u64[5], arg4: u64[5], arg5: u64[5], arg6: u64[5]) -> (out1: u64[5], out2: u64[5], out3: u64[5], out4: u64[5])"],
    );
    let (c, csrc, err) = cryptopt(&["emit-c", file]);
    assert_eq!(c, 0, "{err}");
    assert!(csrc.contains("void fiat_25519_ladderstep("), "{csrc}");
    std::fs::remove_dir_all(&dir).unwrap();
}
