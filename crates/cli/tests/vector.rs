//! `--repr ifma`, the ladder step four field operations at a time, through the binary:
//! `gen` prints its scalar expansion, bad requests get one line and exit 2, and
//! `optimize` writes a program that `check` proves against what `gen` printed (where
//! the CPU has AVX-512 IFMA; elsewhere `optimize` must say why it stops).

mod common;
use common::*;

const STEP: [&str; 6] = [
    "--field",
    "curve25519",
    "--formula",
    "x25519-ladderstep",
    "--repr",
    "ifma",
];

#[test]
fn gen_prints_the_expansion_with_the_5x51_signature() {
    let mut args = vec!["gen"];
    args.extend(STEP);
    let (code, json, err) = cryptopt(&args);
    assert_eq!((code, err.as_str()), (0, ""));
    let dir = scratch("vector-gen");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("ifma.json");
    std::fs::write(&path, &json).unwrap();
    let (code, list, err) = cryptopt(&["list", path.to_str().unwrap()]);
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(
        list.trim(),
        "fiat_25519_ladderstep_ifma(arg1: u1, arg2: u64[5], arg3: u64[5], arg4: u64[5], \
         arg5: u64[5], arg6: u64[5]) -> (out1: u64[5], out2: u64[5], out3: u64[5], out4: u64[5])"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Bad requests: exit 2, one line naming what `--repr ifma` is for.
#[test]
fn bad_requests_are_one_line() {
    let cases: &[(&[&str], &str)] = &[
        (
            &[
                "gen",
                "--field",
                "p256",
                "--formula",
                "p256-add",
                "--repr",
                "ifma",
            ],
            "--repr ifma with --formula x25519-ladderstep --field curve25519 only",
        ),
        (
            &[
                "gen",
                "--field",
                "curve25519",
                "--op",
                "mul",
                "--repr",
                "ifma",
            ],
            "--repr ifma is for a whole formula",
        ),
        (
            &[
                "gen",
                "--field",
                "curve25519",
                "--formula",
                "x25519-ladderstep",
                "--repr",
                "ifma",
                "--limbs",
                "6",
            ],
            "--repr ifma with --formula x25519-ladderstep --field curve25519 only",
        ),
    ];
    for (args, want) in cases {
        let (code, out, err) = cryptopt(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

#[test]
fn optimize_writes_a_program_check_proves() {
    let dir = scratch("vector-optimize");
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("out");
    let mut args = vec!["optimize"];
    args.extend(STEP);
    args.extend(["--evals", "300", "--out", out.to_str().unwrap()]);
    let (code, stdout, err) = cryptopt(&args);
    if !cryptopt_x86::Feature::Avx512Ifma.detected() {
        eprintln!("SKIPPED optimize_writes_a_program_check_proves: this CPU has no AVX-512 IFMA/VL/DQ (checking that optimize says so)");
        assert_ne!(code, 0);
        assert!(err.contains("no AVX-512 IFMA"), "{err}");
        std::fs::remove_dir_all(&dir).ok();
        return;
    }
    assert_eq!(code, 0, "{err}");
    assert!(stdout.contains("proof=proved"), "{stdout}");
    let asm = out
        .join("fiat_25519_ladderstep_ifma")
        .join("fiat_25519_ladderstep_ifma.asm");
    let text = std::fs::read_to_string(&asm).unwrap();
    assert!(text.contains("vpmadd52huq"), "{text}");
    // The written program, proved by `check` against what `gen` prints.
    let mut gen = vec!["gen"];
    gen.extend(STEP);
    let (_, json, _) = cryptopt(&gen);
    let spec = dir.join("ifma.json");
    std::fs::write(&spec, json).unwrap();
    let (code, verdict, err) = cryptopt(&[
        "check",
        spec.to_str().unwrap(),
        "--function",
        "fiat_25519_ladderstep_ifma",
        asm.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{verdict}{err}");
    assert!(verdict.contains("equivalent"), "{verdict}");
    // Latency measurement does not apply: the outputs do not chain into arg1.
    let mut lat = vec!["optimize"];
    lat.extend(STEP);
    lat.extend([
        "--evals",
        "10",
        "--measure",
        "latency",
        "--out",
        out.to_str().unwrap(),
    ]);
    let (code, _, err) = cryptopt(&lat);
    assert_ne!(code, 0);
    assert!(err.contains("--measure latency"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}
