//! Algorithms as search choices (`--algorithm`): a forced one is named in the header and
//! kept by a resumed run; `auto` searches each and writes a program proved against the
//! input function; names that are no algorithm of the function are usage errors.

use std::path::Path;

mod common;
use common::*;

fn read(dir: &Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// Fiat's JSON directory when it and gcc are here (else the skip is printed, naming
/// `test`).
fn fiat_and_gcc(test: &str) -> Option<std::path::PathBuf> {
    let fiat = cryptopt_testkit::fiat_dir(test)?;
    needs(test, &["gcc"]).then_some(fiat)
}

/// A small, quick search: the shape of every run here.
const SMALL: [&str; 6] = ["--evals", "400", "--bets", "2", "--batches", "5"];

#[test]
fn a_forced_algorithm_is_named_in_the_header_and_kept_on_resume() {
    if !needs("a_forced_algorithm_is_named", &["gcc"]) {
        return;
    }
    let dir = scratch("algorithm-forced");
    let out = dir.to_str().unwrap();
    let mut args = vec!["optimize", "--field", "p256", "--op", "square"];
    args.extend(SMALL);
    args.extend(["--algorithm", "separated", "--out", out]);
    let (code, stdout, err) = cryptopt(&args);
    assert_eq!(code, 0, "{err}");
    assert!(stdout.contains("proof=proved"), "{stdout}");
    let f = dir.join("fiat_p256_square");
    let header =
        "algorithm: separated (dedicated square, then Montgomery reduction by the prime's form)";
    for file in [
        "fiat_p256_square.asm",
        "fiat_p256_square.S",
        "fiat_p256_square.h",
    ] {
        assert!(read(&f, file).contains(header), "{file}");
    }
    assert!(read(&f, "state.json").contains("\"algorithm\": \"separated\""));
    // The separated square has fewer products than the word-by-word one (10 + 4).
    let asm = read(&f, "fiat_p256_square.asm");
    assert_eq!(asm.matches("mulx").count(), 14, "{asm}");

    let state = f.join("state.json");
    let (code, _, err) = cryptopt(&[
        "optimize",
        "--resume",
        state.to_str().unwrap(),
        "--evals",
        "600",
        "--batches",
        "5",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(read(&f, "fiat_p256_square.asm").contains(header));
    std::fs::remove_dir_all(&dir).ok();
}

/// `auto` on Fiat's own function: every algorithm searched, one chosen, and the written
/// program proved equal to Fiat's function (checked again here by `check`).
#[test]
fn auto_chooses_and_the_winner_is_proved_against_the_input() {
    let Some(fiat) = fiat_and_gcc("auto_chooses_and_the_winner_is_proved") else {
        return;
    };
    let dir = scratch("algorithm-auto");
    for (file, name) in [
        ("p256_64.json", "fiat_p256_square"),
        (
            "secp256k1_montgomery_64.json",
            "fiat_secp256k1_montgomery_mul",
        ),
    ] {
        let input = fiat.join(file);
        let mut args = vec!["optimize", input.to_str().unwrap(), "--function", name];
        args.extend(SMALL);
        args.extend(["--out", dir.to_str().unwrap(), "--progress-every", "0"]);
        let (code, stdout, err) = cryptopt(&args);
        assert_eq!(code, 0, "{name}: {err}");
        let all = format!("{stdout}{err}");
        for algorithm in ["input", "word-by-word", "separated"] {
            assert!(
                all.contains(&format!("algorithm {algorithm}"))
                    || all.contains(&format!("algorithm `{algorithm}` left out")),
                "{name}: {algorithm} neither searched nor left out: {all}"
            );
        }
        assert_eq!(all.matches(", chosen").count(), 1, "{all}");
        let asm = dir.join(name).join(format!("{name}.asm"));
        assert!(read(&dir.join(name), &format!("{name}.asm")).contains("; algorithm: "));
        let (code, out, err) = cryptopt(&[
            "check",
            input.to_str().unwrap(),
            "--function",
            name,
            asm.to_str().unwrap(),
        ]);
        assert_eq!((code, out.trim()), (0, "equivalent"), "{name}: {err}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// secp256k1's Montgomery mul and square by the prime's form are proved equal to
/// Fiat's functions: word by word (`m·p` as one product `m·c`, a borrow chain paid by
/// the top word) and separated (the product, then REDC as one borrow chain). Forced, so
/// a variant the checker cannot prove is an error, not left out.
#[test]
fn pseudo_mersenne_algorithms_are_proved_against_fiat() {
    let Some(fiat) = fiat_and_gcc("pseudo_mersenne_algorithms_are_proved") else {
        return;
    };
    let dir = scratch("algorithm-pseudo-mersenne");
    let input = fiat.join("secp256k1_montgomery_64.json");
    // Multiplications, in both algorithms: 16 products for the rows of a mul, 10 for a
    // square's (6 cross products, doubled, and 4 squares), one m·c per quotient (Fiat's
    // m·p: 4), and the 4 quotients m (a low product: `imul` or `mulx`, as the search
    // chose).
    for algorithm in ["word-by-word", "separated"] {
        for (name, muls) in [
            ("fiat_secp256k1_montgomery_mul", 16 + 4 + 4),
            ("fiat_secp256k1_montgomery_square", 10 + 4 + 4),
        ] {
            let mut args = vec!["optimize", input.to_str().unwrap(), "--function", name];
            args.extend(SMALL);
            args.extend(["--algorithm", algorithm, "--out", dir.to_str().unwrap()]);
            let (code, stdout, err) = cryptopt(&args);
            assert_eq!(code, 0, "{name} {algorithm}: {err}");
            assert!(
                stdout.contains("proof=proved"),
                "{name} {algorithm}: {stdout}"
            );
            let asm = read(&dir.join(name), &format!("{name}.asm"));
            assert!(asm.contains(&format!("algorithm: {algorithm}")), "{asm}");
            let count = asm
                .lines()
                .filter(|l| matches!(l.split_whitespace().next(), Some("mulx" | "imul" | "mul")))
                .count();
            assert_eq!(count, muls, "{name} {algorithm}: {asm}");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn an_algorithm_the_function_does_not_have_is_a_usage_error() {
    let dir = scratch("algorithm-errors");
    let out = dir.to_str().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (
            &["--field", "p256", "--algorithm", "seperated"],
            "unknown algorithm `seperated`; did you mean `separated`?",
        ),
        (
            &["--field", "curve25519", "--algorithm", "separated"],
            "--algorithm `separated` is not an algorithm of fiat_25519_carry_mul (it has: input)",
        ),
    ];
    for (extra, want) in cases {
        let mut args = vec!["optimize", "--evals", "100", "--out", out];
        args.extend(*extra);
        let (code, _, err) = cryptopt(&args);
        assert_eq!(code, 2, "{extra:?}: {err}");
        assert!(err.contains(want), "{extra:?}: want {want:?} in {err}");
        assert!(
            !err.contains("baseline:"),
            "refused before the baseline: {err}"
        );
    }
    let (code, _, err) = cryptopt(&["gen", "--field", "p256", "--algorithm", "separated"]);
    assert_eq!(code, 0, "{err}");
    std::fs::remove_dir_all(&dir).ok();
}
