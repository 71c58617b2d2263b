//! `cryptopt primitive`: the library it writes, held against the real libraries
//! (libsodium, OpenSSL from Debian's packages) and checked for constant time under
//! valgrind. The C programs that link the library are in `tests/c/`.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{cryptopt, entries, needs, scratch, sh};

const C: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/c");

/// Headers of the libraries a test links, by the Debian package that has them.
const SODIUM: (&str, &str) = ("/usr/include/sodium.h", "libsodium-dev");
const OPENSSL: (&str, &str) = ("/usr/include/openssl/evp.h", "libssl-dev");
const VALGRIND: (&str, &str) = ("/usr/include/valgrind/memcheck.h", "valgrind");
const SECP256K1: (&str, &str) = ("/usr/include/secp256k1_ecdh.h", "libsecp256k1-dev");

/// A small search budget: the tests check what is built, not how fast.
const SMALL: [&str; 6] = ["--evals", "200", "--batches", "5", "--progress-every", "0"];

/// An empty scratch path for one test (an earlier run's leftovers removed).
fn fresh(tag: &str) -> PathBuf {
    let dir = scratch(tag);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Whether the tools and headers are there; prints why `test` is skipped when not (CI
/// installs them all).
fn has(test: &str, tools: &[&str], headers: &[(&str, &str)]) -> bool {
    if !needs(test, tools) {
        return false;
    }
    match headers.iter().find(|(h, _)| !Path::new(h).exists()) {
        None => true,
        Some((h, package)) => {
            eprintln!("SKIPPED {test}: {h} not found (Debian's {package}; CI installs it)");
            false
        }
    }
}

/// `cryptopt primitive NAME` with a small budget into `dir`; every piece proved.
fn build(name: &str, dir: &Path, pieces: &[&str]) {
    let out_dir = dir.to_str().unwrap();
    let args = [&["primitive", name, "--out", out_dir][..], &SMALL].concat();
    let (code, out, err) = cryptopt(&args);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("self-test passed"), "{out}");
    for piece in pieces {
        assert!(
            err.contains(&format!("cryptopt_{name}_{piece}: ")) && err.contains("proved"),
            "{piece} optimized and proved: {err}"
        );
    }
    for file in [
        format!("libcryptopt_{name}.a"),
        format!("cryptopt_{name}.h"),
        format!("cryptopt_{name}.c"),
        format!("cryptopt_{name}_{0}/cryptopt_{name}_{0}.S", pieces[0]),
    ] {
        assert!(dir.join(&file).exists(), "{file} written");
    }
    let leftovers = entries(dir, |name| name.starts_with('.'));
    assert!(leftovers.is_empty(), "no scratch left: {leftovers:?}");
}

fn build_x25519(dir: &Path) {
    build("x25519", dir, &["ladderstep", "mul", "square"]);
}

/// Compiles `tests/c/<source>` against `dir/libcryptopt_<name>.a` with `flags`; the
/// program.
fn link(dir: &Path, name: &str, source: &str, flags: &[&str], exe: &str) -> PathBuf {
    let exe = dir.join(exe);
    sh(Command::new("gcc")
        .args(["-O2", "-g", "-Wall", "-I"])
        .arg(dir)
        .args(flags)
        .arg(Path::new(C).join(source))
        .arg(dir.join(format!("libcryptopt_{name}.a")))
        .args(match name {
            "x25519" => &["-lsodium", "-lcrypto"][..],
            "p256" => &["-lcrypto"],
            "kummer" => &[],
            _ => &["-lsecp256k1"],
        })
        .arg("-o")
        .arg(&exe));
    exe
}

/// Runs `exe` under valgrind memcheck: whether it reported a use of undefined (secret)
/// data; the exit code must say the same.
fn valgrind_reports(exe: &Path) -> bool {
    let out = Command::new("valgrind")
        .args(["--error-exitcode=99", "--track-origins=yes"])
        .arg(exe)
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&out.stderr);
    let reported = report.contains("uninitialised value");
    assert_eq!(
        out.status.code(),
        Some(if reported { 99 } else { 0 }),
        "{report}"
    );
    reported
}

/// One run of the agreement checker: its line must be `want`.
fn check(exe: &Path, mode: &str, n: &str, want: &str) {
    let got = sh(Command::new(exe).args([mode, n]));
    assert!(
        got.trim().starts_with(want),
        "{mode} {n}: got `{}`, want `{want}…`",
        got.trim()
    );
}

#[test]
fn x25519_library_agrees_with_libsodium_and_openssl_and_is_constant_time() {
    let test = "x25519_library_agrees_with_libsodium_and_openssl_and_is_constant_time";
    if !has(
        test,
        &["gcc", "ar", "valgrind"],
        &[SODIUM, OPENSSL, VALGRIND],
    ) {
        return;
    }
    let dir = fresh("primitive-x25519");
    build_x25519(&dir);

    let exe = link(&dir, "x25519", "x25519_check.c", &[], "check");
    for (mode, n, want) in [
        // Random, non-canonical and small-order points; scalars random.
        ("sodium", "10000", "sodium: 10000 agree"),
        ("openssl", "10000", "openssl: 10000 agree"),
        ("dh", "1000", "dh: 1000 agree"),
        // RFC 7748 §5.2, the iterated test.
        (
            "iterate",
            "1",
            "422c8e7a6227d7bca1350b3e2bb7279f7897b87bb6854b783c60e80311ae3079",
        ),
        (
            "iterate",
            "1000",
            "684cf59ba83309552800ef566f2f4d3c1c3887c49360e3875f2eb94d99532c51",
        ),
    ] {
        check(&exe, mode, n, want);
    }

    // Constant time: memcheck with the scalar undefined reports nothing; a deliberately
    // leaky caller is reported (the check works).
    for (flags, leaks) in [(&[][..], false), (&["-DLEAKY"][..], true)] {
        let exe = link(&dir, "x25519", "x25519_ct.c", flags, "ct");
        assert_eq!(valgrind_reports(&exe), leaks, "{flags:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// An ECDH library (`p256`, `secp256k1`) against its reference on 10,000 key pairs and
/// 10,000 edited public keys, then under valgrind.
fn check_ecdh(name: &str, define: &str, reference: (&str, &str)) {
    let test = format!("{name}_library_agrees_with_its_reference_and_is_constant_time");
    if !has(&test, &["gcc", "ar", "valgrind"], &[reference, VALGRIND]) {
        return;
    }
    let dir = fresh(&format!("primitive-{name}"));
    build(
        name,
        &dir,
        &["point_add", "point_double", "mul", "square", "add", "sub"],
    );
    let exe = link(&dir, name, "ecdh_check.c", &[define], "check");
    check(&exe, "agree", "10000", "agree: 10000 agree (2500 hybrid)");
    // The table read CPUs without AVX2 take: the driver's own source built without it,
    // linked before the library (whose driver member is then not needed).
    let driver = dir.join(format!("cryptopt_{name}.c"));
    let words = [define, "-DCRYPTOPT_NO_AVX2", driver.to_str().unwrap()];
    let exe = link(&dir, name, "ecdh_check.c", &words, "check_words");
    check(&exe, "agree", "1000", "agree: 1000 agree (");
    check(&exe, "invalid", "10000", "invalid: 10000 agree (");
    // Most edits make an invalid key, some (the negated point, the right hybrid tag) a
    // valid one: both kinds were met.
    let said = sh(Command::new(&exe).args(["invalid", "900"]));
    let rejected: u32 = said
        .split("agree (")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|r| r.parse().ok())
        .unwrap_or_else(|| panic!("{said}"));
    assert!(rejected > 500 && rejected < 900, "{said}");

    for (flags, leaks) in [(&[define][..], false), (&[define, "-DLEAKY"][..], true)] {
        let exe = link(&dir, name, "ecdh_ct.c", flags, "ct");
        assert_eq!(valgrind_reports(&exe), leaks, "{flags:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn p256_library_agrees_with_openssl_and_is_constant_time() {
    check_ecdh("p256", "-DP256", OPENSSL);
}

#[test]
fn secp256k1_library_agrees_with_libsecp256k1_and_is_constant_time() {
    check_ecdh("secp256k1", "-DSECP256K1", SECP256K1);
}

/// The Kummer DH (issue 18): its optimized ladder step natively against the independent
/// model (`cryptopt_testkit::kummer`) on 10,000 random inputs, both swap values; the base
/// point's order; agreement on 1,000 random key pairs; rejection of encodings that are
/// not points; constant time under valgrind.
#[test]
fn kummer_library_agrees_with_the_model_and_is_constant_time() {
    use cryptopt_testkit::kummer::{Model, Point};
    use num_bigint::BigUint;
    use rand::{Rng, SeedableRng};

    let test = "kummer_library_agrees_with_the_model_and_is_constant_time";
    if !has(test, &["gcc", "ar", "valgrind"], &[VALGRIND]) {
        return;
    }
    let dir = fresh("primitive-kummer");
    build("kummer", &dir, &["ladderstep", "mul", "square"]);
    let exe = link(&dir, "kummer", "kummer_check.c", &[], "check");

    // The optimized step, natively, against the model (projectively: the step's
    // constants are the model's divisions scaled to integers).
    let m = Model::new();
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(18);
    let n = 10_000;
    let inputs: Vec<Vec<u64>> = (0..n)
        .map(|k| {
            let mut w: Vec<u64> = (0..22).map(|_| rng.random()).collect();
            w.push(k as u64 % 2);
            w
        })
        .collect();
    let text: String = inputs
        .iter()
        .map(|w| {
            w.iter()
                .map(|x| format!("{x:x}"))
                .collect::<Vec<_>>()
                .join(" ")
                + "\n"
        })
        .collect();
    let mut child = Command::new(&exe)
        .arg("ladder")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        stdin.write_all(text.as_bytes()).unwrap();
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(out.status.success());
    let lines: Vec<&str> = std::str::from_utf8(&out.stdout).unwrap().lines().collect();
    assert_eq!(lines.len(), n);
    let element = |w: &[u64], e: usize| {
        let v = (BigUint::from(w[2 * e + 1]) << 64u32) + w[2 * e];
        v % &m.f.p
    };
    let point = |w: &[u64], at: usize| -> Point { std::array::from_fn(|e| element(w, at + e)) };
    for (w, line) in inputs.iter().zip(&lines) {
        let got: Vec<u64> = line
            .split(' ')
            .map(|x| u64::from_str_radix(x, 16).unwrap())
            .collect();
        let (r0, r1) = (point(w, 0), point(w, 4));
        let d: [BigUint; 3] = std::array::from_fn(|e| element(w, 8 + e));
        let swap = w[22] == 1;
        let (p, q) = if swap { (&r1, &r0) } else { (&r0, &r1) };
        let diff = m.point_of_inverted(&d);
        let (dbl, sum) = (m.double(p), m.add(p, q, &diff));
        let want = if swap { [sum, dbl] } else { [dbl, sum] };
        for (k, w) in want.iter().enumerate() {
            let o = point(&got, 4 * k);
            assert!(m.same(&o, w), "ladder step output {k} differs on {w:x?}");
        }
    }

    for (mode, n, want) in [
        ("order", "", "order: ok"),
        ("dh", "1000", "dh: 1000 agree"),
        (
            "reject",
            "1000",
            "reject: 0 of 1000 random, 0 of 1000 edited, 0 of 12 malformed accepted",
        ),
    ] {
        let mut cmd = Command::new(&exe);
        cmd.arg(mode);
        if !n.is_empty() {
            cmd.arg(n);
        }
        let got = sh(&mut cmd);
        assert_eq!(got.trim(), want, "{mode}");
    }

    // Constant time: memcheck with the scalars undefined reports nothing; a deliberately
    // leaky caller is reported (the check works).
    for (flags, leaks) in [(&[][..], false), (&["-DLEAKY"][..], true)] {
        let exe = link(&dir, "kummer", "kummer_ct.c", flags, "ct");
        assert_eq!(valgrind_reports(&exe), leaks, "{flags:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// RFC 7748's iterated test to 1,000,000 (about 35 s of X25519 on the machines here):
/// `cargo test -- --ignored`.
#[test]
#[ignore]
fn x25519_iterated_a_million_times() {
    let test = "x25519_iterated_a_million_times";
    if !has(test, &["gcc", "ar"], &[SODIUM, OPENSSL]) {
        return;
    }
    let dir = fresh("primitive-million");
    build_x25519(&dir);
    let exe = link(&dir, "x25519", "x25519_check.c", &[], "check");
    check(
        &exe,
        "iterate",
        "1000000",
        "7c3911e0ab2586fd864497297e575e6f3bc601c0883c30df5f4dd2d24f665424",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_primitive_arguments_are_one_line_errors() {
    let dir = scratch("primitive-bad");
    std::fs::write(&dir, b"a file, not a folder").unwrap();
    for (args, want) in [
        (
            &["primitive", "x448"][..],
            "possible values: x25519, p256, secp256k1",
        ),
        (&["primitive", "x25519", "--evals", "zero"][..], "--evals"),
        (
            &["primitive", "x25519", "--out", dir.to_str().unwrap()][..],
            "cannot write results to",
        ),
        (
            &["bench", "--primitives", "--calls", "100"][..],
            "--calls must be at least 1001",
        ),
        (
            &["bench", "--primitives", "--field", "p256"][..],
            "cannot be used with",
        ),
        (
            &["bench", "--primitives", "x448"][..],
            "possible values: x25519, p256, secp256k1",
        ),
    ] {
        let (code, _, err) = cryptopt(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: one line: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
    std::fs::remove_file(&dir).unwrap();
}

/// `bench --primitives`: a row per implementation, ours first, in the markdown and the
/// CSV, for every primitive (AWS-LC, built by aws-lc-sys with this binary, for X25519 and
/// P-256); the HTML page has the charts; `--primitives p256 --reuse`
/// measures only that library again. Timings are not asserted (shared machines).
#[test]
fn bench_primitives_measures_against_libsodium_openssl_libsecp256k1_and_aws_lc() {
    let test = "bench_primitives_measures_against_libsodium_openssl_libsecp256k1_and_aws_lc";
    if !has(test, &["gcc", "ar"], &[SODIUM, OPENSSL, SECP256K1]) {
        return;
    }
    let dir = fresh("primitive-bench");
    let out_dir = dir.to_str().unwrap();
    let args = [&["bench", "--primitives", "--out", out_dir][..], &SMALL].concat();
    let (code, md, err) = cryptopt(&args);
    assert_eq!(code, 0, "{err}");
    for row in [
        "| x25519 | median",
        "| p256 | median",
        "| secp256k1 | median",
        "| kummer | median",
        "| cryptopt | ",
        "| libsodium | ",
        "| openssl | ",
        "| libsecp256k1 | ",
        "| aws-lc | ",
        "- aws-lc: AWS-LC ",
    ] {
        assert!(md.contains(row), "{row}: {md}");
    }
    assert!(md.contains("counter tsc"), "{md}");
    let rows = csv_rows(&dir);
    let names: Vec<[&str; 2]> = rows
        .iter()
        .map(|r| [r[0].as_str(), r[1].as_str()])
        .collect();
    assert_eq!(
        names,
        [
            ["x25519", "cryptopt"],
            ["x25519", "libsodium"],
            ["x25519", "openssl"],
            ["x25519", "aws-lc"],
            ["p256", "cryptopt"],
            ["p256", "openssl"],
            ["p256", "aws-lc"],
            ["secp256k1", "cryptopt"],
            ["secp256k1", "libsecp256k1"],
            // The Kummer DH against X25519s (cryptopt's own from the x25519 row's run).
            ["kummer", "cryptopt"],
            ["kummer", "cryptopt-x25519"],
            ["kummer", "libsodium-x25519"],
            ["kummer", "openssl-x25519"],
            ["kummer", "aws-lc-x25519"],
        ]
    );
    let num = |s: &str| -> f64 { s.parse().unwrap() };
    for r in &rows {
        let ours = num(&rows.iter().find(|o| o[0] == r[0]).unwrap()[2]);
        let (median, q1, q3, speedup) = (num(&r[2]), num(&r[3]), num(&r[4]), num(&r[5]));
        assert!(q1 <= median && median <= q3 && q1 > 0.0, "{r:?}");
        // The speed-up column is their median over ours (to its three decimals).
        assert!((speedup - median / ours).abs() < 5e-4, "{r:?}, ours {ours}");
        assert_eq!(r[6], "tsc", "{r:?}");
    }
    let html = std::fs::read_to_string(dir.join("primitives.html")).unwrap();
    assert_eq!(html.matches("<svg").count(), 4, "a chart per primitive");
    assert!(html.contains("libsecp256k1"), "{html}");

    let (code, _, err) = cryptopt(&["bench", "--primitives", "p256", "--reuse", "--out", out_dir]);
    assert_eq!(code, 0, "{err}");
    let again: Vec<String> = csv_rows(&dir).iter().map(|r| r[1].clone()).collect();
    assert_eq!(again, ["cryptopt", "openssl", "aws-lc"]);
    // --reuse takes the libraries a row times beside its own from DIR too, never makes
    // them: the Kummer row without DIR/x25519 is a one-line error.
    std::fs::remove_dir_all(dir.join("x25519")).unwrap();
    let (code, _, err) = cryptopt(&[
        "bench",
        "--primitives",
        "kummer",
        "--reuse",
        "--out",
        out_dir,
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--reuse:") && err.contains("libcryptopt_x25519.a is missing"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `primitives.csv` without its header, each row split at commas.
fn csv_rows(dir: &Path) -> Vec<Vec<String>> {
    std::fs::read_to_string(dir.join("primitives.csv"))
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}
