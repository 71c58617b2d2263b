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
    check(
        &["gen", "--field", "p256", "--formula", "p256-add"],
        0,
        &[
            "\"operation\": \"fiat_p256_point_add\"",
            "\"out3\"",
            "\"arg6\"",
        ],
    );
    check(
        &with(&["x25519-ladderstep", "--repr", "saturated"]),
        0,
        &[
            "\"operation\": \"fiat_25519_solinas_ladderstep\"",
            "\"out4\"",
        ],
    );
    check(
        &[
            "gen",
            "--field",
            "p256",
            "--repr",
            "saturated",
            "--op",
            "mul",
        ],
        2,
        &["no saturated Solinas representation"],
    );
    check(
        &["gen", "--field", "p256", "--formula", "secp256k1-double"],
        2,
        &["not defined over", "fields: secp256k1"],
    );
}

/// A point formula (Montgomery, nine pointer arguments for an addition) through
/// `optimize`: searched, run against the interpreter, proved, and proved again by
/// `check` from the written file.
#[test]
fn point_formula_optimizes_and_proves() {
    if !needs("point_formula_optimizes_and_proves", &["gcc"]) {
        return;
    }
    let dir = scratch("point-opt");
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.to_str().unwrap();
    let (c, stdout, err) = cryptopt(&[
        "optimize",
        "--field",
        "secp256k1",
        "--formula",
        "secp256k1-add",
        "--evals",
        "200",
        "--batches",
        "5",
        "--out",
        out,
        "--progress-every",
        "0",
    ]);
    assert_eq!(c, 0, "{err}");
    assert!(stdout.contains("proof=proved"), "{stdout}");
    let name = "fiat_secp256k1_montgomery_point_add";
    let asm = dir.join(format!("{name}/{name}.asm"));
    let (c, json, err) = cryptopt(&["gen", "--field", "secp256k1", "--formula", "secp256k1-add"]);
    assert_eq!(c, 0, "{err}");
    let file = dir.join("add.json");
    std::fs::write(&file, json).unwrap();
    check(
        &["check", file.to_str().unwrap(), asm.to_str().unwrap()],
        0,
        &["equivalent"],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `gen --formula x25519-ladderstep` written to `dir/ladderstep.json` (`dir` created).
fn ladderstep_json(dir: &std::path::Path) -> std::path::PathBuf {
    std::fs::create_dir_all(dir).unwrap();
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
    file
}

/// The written JSON is a function the other commands read: its signature, and the C
/// baseline compiles.
#[test]
fn written_formula_reads_back() {
    let dir = scratch("formula");
    let file = ladderstep_json(&dir);
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

/// The ladder step (ten arguments, four on the stack) through `optimize` end to end:
/// searched, run natively against the interpreter, proved, written; the written program
/// is proved again by `check`, and `codegen` proves it under the other frame options.
#[test]
fn ladderstep_optimizes_and_proves() {
    if !needs("ladderstep_optimizes_and_proves", &["gcc"]) {
        return;
    }
    let dir = scratch("ladder-opt");
    let out = dir.to_str().unwrap();
    let (c, stdout, err) = cryptopt(&[
        "optimize",
        "--field",
        "curve25519",
        "--formula",
        "x25519-ladderstep",
        "--evals",
        "300",
        "--batches",
        "5",
        "--out",
        out,
        "--progress-every",
        "0",
    ]);
    assert_eq!(c, 0, "{err}");
    assert!(stdout.contains("proof=proved"), "{stdout}");
    let asm = dir.join("fiat_25519_ladderstep/fiat_25519_ladderstep.asm");
    let text = std::fs::read_to_string(&asm).unwrap();
    assert!(
        text.contains("[rsp + "),
        "stack arguments are read from the stack"
    );

    let file = ladderstep_json(&dir);
    let file = file.to_str().unwrap();
    check(&["check", file, asm.to_str().unwrap()], 0, &["equivalent"]);
    for extra in [
        &["--frame-pointer", "save"][..],
        &["--no-red-zone"],
        &["--order", "depth-first"],
    ] {
        let mut args = vec!["codegen", file];
        args.extend_from_slice(extra);
        let (c, prog, err) = cryptopt(&args);
        assert_eq!(c, 0, "{extra:?}: {err}");
        assert!(prog.contains("fiat_25519_ladderstep:"), "{extra:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `bench` with `formula_args` (field, formula, budget) against gcc only, small
/// measurement, throughput only, into `dir`; asserts success and returns stdout.
fn bench_formula(dir: &std::path::Path, formula_args: &[&str]) -> String {
    let mut args = vec!["bench"];
    args.extend_from_slice(formula_args);
    args.extend_from_slice(&[
        "--compilers",
        "gcc",
        "--repeats",
        "4",
        "--batches",
        "3",
        "--optimize-for",
        "throughput",
        "--out",
        dir.to_str().unwrap(),
        "--progress-every",
        "0",
    ]);
    let (c, stdout, err) = cryptopt(&args);
    assert_eq!(c, 0, "{args:?}: {err}");
    stdout
}

/// `bench --field F --formula NAME`: the formula, its operations each optimized, and the
/// driver over their winners (run against the interpreter: it must compute the formula's
/// exact limbs) measured as the column `ops`, whose .s and .c files stay in OUT/ops/.
#[test]
fn bench_formula_has_the_ops_column() {
    if !needs("bench_formula_has_the_ops_column", &["gcc"]) {
        return;
    }
    let dir = scratch("bench-formula");
    let stdout = bench_formula(
        &dir,
        &[
            "--field",
            "curve25519",
            "--formula",
            "x25519-ladderstep",
            "--evals",
            "100",
        ],
    );
    assert!(stdout.contains("| ops | speed-up over ops |"), "{stdout}");
    let row = stdout
        .lines()
        .find(|l| l.starts_with("| fiat_25519_ladderstep |"))
        .unwrap_or_else(|| panic!("no ladder step row:\n{stdout}"));
    assert!(
        !row.contains('–'),
        "the ladder step has an ops column: {row}"
    );
    for op in [
        "carry_mul",
        "carry_square",
        "add",
        "sub",
        "carry_scmul_121665",
    ] {
        assert!(stdout.contains(&format!("| fiat_25519_{op} |")), "{op}");
        assert!(
            dir.join(format!("ops/fiat_25519_{op}.s")).exists(),
            "{op}.s"
        );
    }
    let driver = std::fs::read_to_string(dir.join("ops/fiat_25519_ladderstep_from_ops.c")).unwrap();
    for decl in [
        "void fiat_25519_ladderstep_from_ops(uint64_t out1[5], uint64_t out2[5], \
         uint64_t out3[5], uint64_t out4[5], fiat_uint1 arg1, const uint64_t arg2[5]",
        "void fiat_25519_carry_mul(uint64_t out1[5], const uint64_t arg1[5], const uint64_t arg2[5]);",
    ] {
        assert!(driver.contains(decl), "{decl} not in\n{driver}");
    }
    let (c, _, err) = cryptopt(&[
        "bench",
        "--field",
        "curve25519",
        "--functions",
        "fiat_p256_mul",
    ]);
    assert_eq!(c, 2, "{err}");
    assert!(
        err.contains("--field cannot be used with --paper or --functions"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `bench --formula` on a Montgomery point formula: the driver holds the curve constant
/// as a `static const` array in the Montgomery domain and must compute the formula's
/// exact words (checked inside bench against the interpreter), so its row has an ops
/// column.
#[test]
fn bench_point_formula_has_the_ops_column() {
    if !needs("bench_point_formula_has_the_ops_column", &["gcc"]) {
        return;
    }
    let dir = scratch("bench-point");
    let stdout = bench_formula(
        &dir,
        &[
            "--field",
            "p256",
            "--formula",
            "p256-double",
            "--evals",
            "50",
        ],
    );
    let row = stdout
        .lines()
        .find(|l| l.starts_with("| fiat_p256_point_double |"))
        .unwrap_or_else(|| panic!("no point doubling row:\n{stdout}"));
    assert!(!row.contains('–'), "the doubling has an ops column: {row}");
    for op in ["mul", "square", "add", "sub"] {
        assert!(stdout.contains(&format!("| fiat_p256_{op} |")), "{op}");
    }
    let driver =
        std::fs::read_to_string(dir.join("ops/fiat_p256_point_double_from_ops.c")).unwrap();
    assert!(
        driver.contains("static const uint64_t k"),
        "b as a constant:\n{driver}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
