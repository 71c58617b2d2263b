//! Integration tests that run the real `cryptopt` binary (ripgrep's style): exit codes,
//! one-line errors, and golden files for text output. Set `CRYPTOPT_BLESS=1` to rewrite
//! the golden files after an intended change, then review the diff.

use std::path::Path;
use std::process::Command;

mod common;
use common::*;

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
    let dir = scratch("cli-test");
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

/// `cryptopt codegen` output assembles (nasm and gcc) and links with C code that calls
/// it through the Fiat C signature; the C program prints what `cryptopt interp` prints.
#[test]
fn codegen_links_with_c() {
    if !needs("codegen_links_with_c", &["nasm", "gcc"]) {
        return;
    }
    let dir = scratch("cli-codegen");
    std::fs::create_dir_all(&dir).unwrap();
    let ex = example();
    let c_main = r#"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
void example_running(uint64_t out1[2], uint64_t x, uint64_t y, uint64_t z);
int main(int argc, char **argv) {
    uint64_t o[2];
    example_running(o, strtoull(argv[1], 0, 16), strtoull(argv[2], 0, 16), strtoull(argv[3], 0, 16));
    printf("{\"out1\":[\"0x%llx\",\"0x%llx\"]}\n", (unsigned long long)o[0], (unsigned long long)o[1]);
    return 0;
}
"#;
    std::fs::write(dir.join("main.c"), c_main).unwrap();
    // The object conventions (issue 16): CET's endbr64, hidden visibility and another
    // symbol name link the same way (the caller is compiled with the name changed).
    let conventions = ["--cet", "--visibility", "hidden", "--symbol", "renamed_fn"];
    for (seed, syntax, file, extra) in [
        (1, "nasm", "f.asm", &[][..]),
        (2, "gas", "f.S", &[][..]),
        (3, "nasm", "g.asm", &[][..]),
        (4, "gas", "h.S", &conventions[..]),
        (5, "nasm", "h.asm", &conventions[..]),
    ] {
        let path = dir.join(file);
        let mut args = vec![
            "codegen".to_string(),
            ex.clone(),
            "--seed".into(),
            seed.to_string(),
            "--syntax".into(),
            syntax.into(),
            "-o".into(),
            path.to_str().unwrap().into(),
        ];
        args.extend(extra.iter().map(|s| s.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, out, err) = cryptopt(&args);
        assert_eq!((code, out.as_str()), (0, ""), "{err}");
        let obj = dir.join(format!("{file}.o"));
        if syntax == "nasm" {
            sh(Command::new("nasm")
                .args(["-f", "elf64", "-o"])
                .arg(&obj)
                .arg(&path));
        } else {
            sh(Command::new("gcc").arg("-c").arg("-o").arg(&obj).arg(&path));
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let exe = dir.join(format!("{file}.exe"));
        let mut gcc = Command::new("gcc");
        if !extra.is_empty() {
            assert!(text.contains("endbr64"), "{file}: no endbr64\n{text}");
            let hidden = if syntax == "gas" {
                ".hidden renamed_fn"
            } else {
                "GLOBAL renamed_fn:function hidden"
            };
            assert!(text.contains(hidden), "{file}: not hidden\n{text}");
            gcc.arg("-Dexample_running=renamed_fn");
        }
        sh(gcc.arg("-o").arg(&exe).arg(dir.join("main.c")).arg(&obj));
        for args in [
            ["2", "3", "4"],
            ["ffffffffffffffff", "ffffffffffffffff", "ffffffffffffffff"],
            ["123456789abcdef", "fedcba987654321", "1"],
        ] {
            let from_c = sh(Command::new(&exe).args(args));
            let json_args = format!("[\"0x{}\",\"0x{}\",\"0x{}\"]", args[0], args[1], args[2]);
            let (code, from_interp, _) = cryptopt(&["interp", &ex, "--args", &json_args]);
            assert_eq!(code, 0);
            assert_eq!(from_c, from_interp, "{file} on {args:?}");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// `codegen --order`: the named starting orders are deterministic (the seed does not
/// matter), each proved like a random candidate; they are not all the same program.
#[test]
fn codegen_starting_orders() {
    let ex = example();
    let mut programs = Vec::new();
    for order in ["first", "depth-first", "demand-driven", "low-pressure"] {
        let runs: Vec<String> = ["1", "2"]
            .iter()
            .map(|seed| {
                let (code, out, err) =
                    cryptopt(&["codegen", &ex, "--order", order, "--seed", seed]);
                assert_eq!(code, 0, "{order}: {err}");
                out
            })
            .collect();
        assert_eq!(runs[0], runs[1], "{order}: the seed changed the program");
        programs.push(runs[0].clone());
    }
    let (code, _, err) = cryptopt(&["codegen", &ex, "--order", "sideways"]);
    assert_eq!(code, 2);
    assert!(err.contains("invalid value 'sideways'"), "{err}");
    programs.dedup();
    assert!(programs.len() > 1, "every order gave the same program");
}

/// Errors of `codegen`: exit 2, one line, and no output file left behind.
#[test]
fn codegen_errors_leave_no_file() {
    let ex = example();
    let dir = scratch("cli-cgerr");
    std::fs::create_dir_all(&dir).unwrap();
    let missing = dir.join("no/such/dir/out.asm");
    let cases: &[(&[&str], &str)] = &[
        (
            &["codegen", &ex, "--syntax", "masm"],
            "invalid value 'masm'",
        ),
        (
            &["codegen", &ex, "--frame-pointer", "maybe"],
            "invalid value 'maybe'",
        ),
        (&["codegen", &ex, "--seed", "x"], "invalid value 'x'"),
        (
            &["codegen", &ex, "-o", missing.to_str().unwrap()],
            "cannot write",
        ),
        (&["codegen", "/nonexistent.json"], "cannot read"),
    ];
    for (args, want) in cases {
        let (code, out, err) = cryptopt(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty());
        assert!(err.contains(want), "{args:?}: want {want:?} in {err}");
    }
    assert!(!missing.exists());
    let leftovers: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert!(leftovers.is_empty(), "files left behind: {leftovers:?}");
    std::fs::remove_dir_all(&dir).ok();
}

/// `optimize` end to end on the built-in example: files, summary line, resume, Ctrl-C.
#[test]
fn optimize_writes_results_and_resumes() {
    if !needs("optimize_writes_results_and_resumes", &["gcc"]) {
        return;
    }
    let ex = example();
    let dir = scratch("cli-opt");
    let out = dir.to_str().unwrap();
    let (code, stdout, err) = cryptopt(&[
        "optimize",
        &ex,
        "--evals",
        "300",
        "--bets",
        "3",
        "--batches",
        "5",
        "--out",
        out,
        "--progress-every",
        "0",
    ]);
    assert_eq!(code, 0, "{err}");
    // Not a terminal: progress lines instead of a bar, the last one at the budget.
    let progress: Vec<&str> = err.lines().filter(|l| l.contains(" evals, ")).collect();
    assert_eq!(progress.len(), 300, "one line per evaluation at 0 s: {err}");
    assert!(
        progress[299].starts_with("300/300 evals, ")
            && progress[299].contains("best speed-up ")
            && progress[299].contains("x over gcc"),
        "{}",
        progress[299]
    );
    let line = stdout.lines().last().unwrap_or("");
    assert!(
        line.starts_with("result: function=example_running cycles="),
        "{line}"
    );
    for key in [
        "baseline=",
        "speedup=",
        "counter=",
        "evals=300",
        "seconds=",
        "file=",
    ] {
        assert!(line.contains(key), "{key} missing in {line}");
    }
    assert!(
        err.contains("counter: "),
        "the counter is not reported: {err}"
    );
    let fdir = dir.join("example_running");
    for file in [
        "example_running.asm",
        "example_running.S",
        "example_running.h",
        "state.json",
        "log.csv",
        "progress.svg",
    ] {
        assert!(fdir.join(file).is_file(), "{file} missing");
    }
    let csv = std::fs::read_to_string(fdir.join("log.csv")).unwrap();
    assert_eq!(
        csv.lines().count(),
        301,
        "one row per evaluation plus the header"
    );
    assert!(std::fs::read_to_string(fdir.join("progress.svg"))
        .unwrap()
        .starts_with("<svg"));
    assert!(std::fs::read_to_string(fdir.join("example_running.h"))
        .unwrap()
        .contains("void example_running(uint64_t out1[2]"));
    assert!(line.contains("proof=proved status=complete"), "{line}");
    // Every output says where it came from and that it was proved.
    for file in [
        "example_running.asm",
        "example_running.S",
        "example_running.h",
    ] {
        let text = std::fs::read_to_string(fdir.join(file)).unwrap();
        for want in [
            "generated by cryptopt",
            "seed 1, 300 evaluations",
            "proof: proved equivalent",
            "requires: x86-64 + BMI2",
            "memory: any output may be the same buffer as any input",
            "data: the representation of the input function",
            "arguments: out1 u64[2]",
            "; arg1 u64 ≤ 0x",
        ] {
            assert!(text.contains(want), "{file} lacks {want:?}");
        }
    }
    // Resume from the state alone (function, options, folder from it), twice, with a
    // larger budget each time: the log holds every evaluation exactly once.
    let state = fdir.join("state.json");
    for evals in ["400", "450"] {
        let (code, stdout, err) = cryptopt(&[
            "optimize",
            "--resume",
            state.to_str().unwrap(),
            "--evals",
            evals,
            "--batches",
            "5",
        ]);
        assert_eq!(code, 0, "{err}");
        assert!(stdout.contains(&format!("evals={evals}")), "{stdout}");
        assert!(stdout.contains(&format!("file={out}")), "{stdout}");
    }
    let csv = std::fs::read_to_string(fdir.join("log.csv")).unwrap();
    let index: Vec<u64> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(
        index,
        (1..=450).collect::<Vec<u64>>(),
        "every evaluation once, in order"
    );
    // Speed-ups, one direction (baseline / ours), and the best one never falls, across
    // both resumes.
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    for name in ["step_speedup", "walk_speedup", "best_speedup"] {
        assert!(header.contains(&name), "no {name} column in {header:?}");
    }
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let best: Vec<f64> = csv
        .lines()
        .skip(1)
        .map(|l| {
            l.split(',')
                .nth(col("best_speedup"))
                .unwrap()
                .parse()
                .unwrap()
        })
        .collect();
    assert!(best.windows(2).all(|w| w[1] >= w[0]), "best fell: {best:?}");
    assert!(best[449] > 0.0);
    // The plot covers the whole run, not only the last resume.
    let svg = std::fs::read_to_string(fdir.join("progress.svg")).unwrap();
    assert!(svg.contains("baseline (1.0)") && svg.contains("best speed-up so far"));
    // A budget below what the state has done is refused.
    let (code, _, err) = cryptopt(&[
        "optimize",
        "--resume",
        state.to_str().unwrap(),
        "--evals",
        "10",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("has done 450 evaluations already"), "{err}");
    // A state for another function is refused.
    let (code, _, err) = cryptopt(&[
        "optimize",
        &ex,
        "--out",
        out,
        "--resume",
        fdir.join("log.csv").to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("is not a cryptopt state"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn optimize_stops_cleanly_on_ctrl_c() {
    if !needs("optimize_stops_cleanly_on_ctrl_c", &["gcc"]) {
        return;
    }
    let dir = scratch("cli-int");
    let child = Command::new(env!("CARGO_BIN_EXE_cryptopt"))
        .args([
            "optimize",
            &example(),
            "--evals",
            "10M",
            "--out",
            dir.to_str().unwrap(),
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    // SAFETY: sending SIGINT to our own child process.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(
        stdout.contains("result: function=example_running")
            && stdout.contains("status=interrupted"),
        "{stdout}"
    );
    assert!(stderr.contains("interrupted by Ctrl-C"), "{stderr}");
    assert!(
        stderr.contains("continue with: cryptopt optimize --resume ")
            && stderr.contains("state.json"),
        "{stderr}"
    );
    let fdir = dir.join("example_running");
    assert!(fdir.join("state.json").is_file() && fdir.join("example_running.asm").is_file());
    let leftovers = entries(&fdir, |name| name.contains(".tmp"));
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn optimize_usage_errors_exit_2() {
    let ex = example();
    let cases: &[(&[&str], &str)] = &[
        (&["optimize", &ex, "--evals", "ten"], "is not a count"),
        (
            &["optimize", &ex, "--evals", "5", "--bets", "10"],
            "too small for 10 bets",
        ),
        (
            &["optimize", &ex, "--bet-ratio", "2"],
            "--bet-ratio must be between 0 and 1",
        ),
        (
            &["optimize", &ex, "--measure", "fast"],
            "invalid value 'fast'",
        ),
        (
            &["optimize", &ex, "--cc", "no-such-compiler-x"],
            "compiler `no-such-compiler-x` not found",
        ),
        // Checked before the search starts (the whole budget would be lost otherwise).
        (
            &[
                "optimize",
                &ex,
                "--evals",
                "10M",
                "--out",
                "/proc/cryptopt-x",
            ],
            "cannot write results to /proc/cryptopt-x",
        ),
        (
            &[
                "optimize",
                &ex,
                "--cpu",
                "4095",
                "--out",
                "/proc/cryptopt-x",
            ],
            "--cpu 4095 cannot be used",
        ),
        (
            &[
                "optimize",
                &ex,
                "--measure",
                "latency",
                "--evals",
                "20",
                "--bets",
                "2",
            ],
            "latency mode needs",
        ),
        // `bench` and `primitive` take the same search parameters, checked first.
        (
            &[
                "bench",
                "--formula",
                "x25519-ladderstep",
                "--bet-ratio",
                "1.5",
            ],
            "--bet-ratio must be between 0 and 1",
        ),
        (
            &["bench", "--formula", "x25519-ladderstep", "--evals", "5"],
            "too small for 10 bets",
        ),
        (
            &[
                "primitive",
                "x25519",
                "--bets",
                "0",
                "--out",
                "/proc/cryptopt-x",
            ],
            "--bets must be at least 1",
        ),
    ];
    for (args, want) in cases {
        let (code, _, err) = cryptopt(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: want {want:?} in {err}");
    }
}

/// Smoke version of the evaluation harness: two functions, few evaluations; the tables
/// are produced with a row per function and both compilers' columns.
#[test]
fn bench_smoke() {
    let Some(dir) = std::env::var_os("CRYPTOPT_FIAT_JSON") else {
        eprintln!("SKIPPED bench_smoke: CRYPTOPT_FIAT_JSON is not set");
        return;
    };
    let mut compilers = vec!["gcc"];
    if have("clang-19") {
        compilers.push("clang-19");
    } else {
        eprintln!("bench_smoke: clang-19 not installed, gcc only");
    }
    let out = scratch("bench-smoke");
    std::fs::create_dir_all(&out).unwrap();
    // An external implementation of one of the two: a random candidate of codegen.
    let p256 = std::path::Path::new(&dir).join("p256_64.json");
    let ext = out.join("ext.asm");
    let (code, _, err) = cryptopt(&[
        "codegen",
        p256.to_str().unwrap(),
        "-f",
        "fiat_p256_mul",
        "--seed",
        "9",
        "-o",
        ext.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let compare = format!("random={}", ext.display());
    let cc = compilers.join(",");
    let (code, stdout, err) = cryptopt(&[
        "bench",
        "--compare",
        &compare,
        "--functions",
        "fiat_p256_mul,fiat_25519_carry_square",
        "--evals",
        "300",
        "--repeats",
        "4",
        "--batches",
        "7",
        "--compilers",
        &cc,
        "--fiat-json",
        dir.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--progress-every",
        "0",
    ]);
    assert_eq!(code, 0, "{err}");
    // Progress while it optimizes: each search's lines, and the searches done.
    for want in [
        "fiat_p256_mul: ",
        "fiat_25519_carry_square (latency): ",
        "/300 evals, ",
        "[4/4 searches; the rest in about 0 s]",
    ] {
        assert!(err.contains(want), "{want:?} not in {err}");
    }
    for f in ["bench.md", "bench.csv", "bench.html"] {
        assert!(out.join(f).is_file(), "{f} missing");
    }
    let md = std::fs::read_to_string(out.join("bench.md")).unwrap();
    assert_eq!(md, stdout, "the report is printed as written");
    for what in ["fiat_p256_mul in", "fiat_p256_mul (latency) in"] {
        assert!(
            err.contains(&format!("optimized {what}")),
            "one search per measure: {err}"
        );
    }
    for needle in [
        "## throughput",
        "## latency",
        "| fiat_p256_mul |",
        "| fiat_25519_carry_square |",
        "geometric mean",
        "counter `",
    ] {
        assert!(md.contains(needle), "{needle} missing in\n{md}");
    }
    for cc in &compilers {
        assert!(
            md.contains(&format!("speed-up over {cc}")),
            "{cc} column missing"
        );
    }
    assert!(
        md.contains("speed-up over random"),
        "the --compare column is missing"
    );
    assert!(
        md.contains("proved equivalent"),
        "the report must say the programs were proved"
    );
    // ... and they are: the checker itself, run on the written programs (one search per
    // measure: the latency winners are in latency/).
    for (file, f, sub) in [
        ("p256_64.json", "fiat_p256_mul", ""),
        ("curve25519_64.json", "fiat_25519_carry_square", ""),
        ("p256_64.json", "fiat_p256_mul", "latency"),
        ("curve25519_64.json", "fiat_25519_carry_square", "latency"),
    ] {
        let input = std::path::Path::new(&dir).join(file);
        let asm = out.join(sub).join(f).join(format!("{f}.asm"));
        let (code, stdout, err) = cryptopt(&[
            "check",
            input.to_str().unwrap(),
            "-f",
            f,
            asm.to_str().unwrap(),
            "--aliasing",
            "all",
        ]);
        assert_eq!((code, stdout.trim()), (0, "equivalent"), "{f}: {err}");
    }
    let csv = std::fs::read_to_string(out.join("bench.csv")).unwrap();
    assert_eq!(
        csv.lines().count(),
        1 + 2 * 2,
        "header + 2 functions x 2 modes:\n{csv}"
    );
    assert!(std::fs::read_to_string(out.join("bench.html"))
        .unwrap()
        .contains("<svg"));
    assert!(
        md.contains("evals/s"),
        "the evaluations/s column is missing"
    );
    // Each row names the algorithm its program computes by (the header's).
    assert!(md.contains("| algorithm |"), "{md}");
    assert!(csv.lines().next().unwrap().ends_with(",algorithm"), "{csv}");
    assert!(
        csv.lines().skip(1).all(|l| l.ends_with(",input")
            || l.ends_with(",word-by-word")
            || l.ends_with(",separated")
            || l.ends_with(",separated-generic")),
        "{csv}"
    );

    // --reuse: the same programs measured again, not optimized again.
    let (code, _, err) = cryptopt(&[
        "bench",
        "--reuse",
        "--functions",
        "fiat_p256_mul",
        "--repeats",
        "4",
        "--batches",
        "7",
        "--compilers",
        "gcc",
        "--fiat-json",
        dir.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("optimized fiat_p256_mul"), "{err}");
    assert!(!err.contains("reusing"), "both winners are reused: {err}");
    let md = std::fs::read_to_string(out.join("bench.md")).unwrap();
    assert!(md.contains("the programs of an earlier run"), "{md}");
    // A reused file that is not there is a clear error.
    let (code, _, err) = cryptopt(&[
        "bench",
        "--reuse",
        "--functions",
        "fiat_p224_mul",
        "--compilers",
        "gcc",
        "--fiat-json",
        dir.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_ne!(code, 0);
    assert!(err.contains("--reuse: cannot read"), "{err}");
    std::fs::remove_dir_all(&out).ok();
}

/// `cryptopt check`: 0 and `equivalent` for a generated program, 1 with a report for a
/// broken one or one that cannot be proved safe, 2 for input errors.
#[test]
fn check_exit_codes() {
    let ex = example();
    let dir = scratch("cli-check");
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good.asm");
    let (code, _, err) = cryptopt(&["codegen", &ex, "--seed", "5", "-o", good.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = cryptopt(&["check", &ex, good.to_str().unwrap(), "--aliasing", "all"]);
    assert_eq!((code, out.trim()), (0, "equivalent"), "{err}");
    // Break it: turn the first `add`-family instruction into a `sub` … or drop a store.
    let text = std::fs::read_to_string(&good).unwrap();
    let broken_text = text.replacen("mov qword [rdi + 0x8],", "mov qword [rdi],", 1);
    assert_ne!(broken_text, text, "the program stores out1[1]");
    let bad = dir.join("bad.asm");
    std::fs::write(&bad, broken_text).unwrap();
    let (code, out, _) = cryptopt(&["check", &ex, bad.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(out.starts_with("not equivalent"), "{out}");
    assert!(
        out.contains("out1[1]"),
        "the report names the output: {out}"
    );
    // A program that cannot be proved safe is a failed check (1) with the reason: it
    // reads a stack slot nobody wrote, or computes an address from data.
    for (body, reason) in [
        (
            "    mov rax, qword [rsp - 8]\n",
            "reads the stack slot [rsp0 -8] before it is written",
        ),
        (
            "    mov rax, qword [rsi]\n    mov rax, qword [rsi + rax*8]\n",
            "is not an argument pointer",
        ),
    ] {
        let unsafe_asm = dir.join("unsafe.asm");
        std::fs::write(
            &unsafe_asm,
            text.replacen(
                "example_running:\n",
                &format!("example_running:\n{body}"),
                1,
            ),
        )
        .unwrap();
        let (code, out, err) = cryptopt(&["check", &ex, unsafe_asm.to_str().unwrap()]);
        assert_eq!(code, 1, "{out}{err}");
        assert!(
            out.starts_with("not equivalent") && out.contains(reason),
            "{out}"
        );
    }
    // A stack deeper than `--max-stack` is a failed check too.
    let deep = dir.join("deep.asm");
    std::fs::write(
        &deep,
        text.replacen(
            "example_running:\n",
            "example_running:\n    push rbx\n    pop rbx\n",
            1,
        ),
    )
    .unwrap();
    let deep = deep.to_str().unwrap();
    let (code, out, err) = cryptopt(&["check", &ex, deep, "--aliasing", "all"]);
    assert_eq!((code, out.trim()), (0, "equivalent"), "{err}");
    let (code, out, err) = cryptopt(&["check", &ex, deep, "--aliasing", "all", "--max-stack", "0"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("more than the stated bound of 0 (--max-stack)"),
        "{out}"
    );
    // Input errors: unknown instruction, unreadable file.
    let weird = dir.join("weird.asm");
    std::fs::write(&weird, "example_running:\n    frobnicate rax\n    ret\n").unwrap();
    let (code, _, err) = cryptopt(&["check", &ex, weird.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(
        err.contains("frobnicate") && err.contains("line 2"),
        "{err}"
    );
    let (code, _, _) = cryptopt(&["check", &ex, "/nonexistent.asm"]);
    assert_eq!(code, 2);
    std::fs::remove_dir_all(&dir).ok();
}

/// `cryptopt check --no-sweep`: a program only the SAT sweep proves (the running
/// example with `arg2 + arg3` computed as `(arg2 ^ arg3) + 2·(arg2 & arg3)`, which the
/// normal form leaves apart) is equivalent by default and not proved without the sweep.
#[test]
fn check_no_sweep() {
    let ex = example();
    let dir = scratch("cli-check-sweep");
    std::fs::create_dir_all(&dir).unwrap();
    let asm = dir.join("xor_and.asm");
    std::fs::write(
        &asm,
        "example_running:
    mov rax, rdx
    xor rax, rcx
    mov r8, rdx
    and r8, rcx
    lea rax, [rax + 2*r8]
    mov r10, rdx
    mov rdx, rsi
    mulx r9, r8, rax
    mov rdx, rcx
    mulx r11, rax, rcx
    add r8, rax
    adc r9, r11
    add r8, r10
    adc r9, 0
    mov qword [rdi], r8
    mov qword [rdi + 8], r9
    ret
",
    )
    .unwrap();
    let asm = asm.to_str().unwrap();
    let (code, out, err) = cryptopt(&["check", &ex, asm]);
    assert_eq!((code, out.trim()), (0, "equivalent"), "{err}");
    let (code, out, err) = cryptopt(&["check", &ex, asm, "--no-sweep"]);
    assert_eq!(code, 1, "{out}{err}");
    // Not proved without the sweep, and on no input different: "not proved", never
    // "not equivalent", and no counterexample.
    assert!(
        out.starts_with("not proved")
            && out.contains("out1[0] differs")
            && out.contains("no input among")
            && !out.contains("counterexample"),
        "{out}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// `cryptopt check` on a compiler's own output, read as it prints it: gcc's AT&T syntax
/// (`gcc -O3 -S`; the `-march=native` output of the whole acceptance set is
/// `crates/verify/tests/compilers.rs`) and its Intel syntax (`-masm=intel`), the file's
/// syntax told by the file or
/// by `--syntax`, the function found by `--symbol` under another label; a forced syntax
/// the file is not in, or a label it does not have, is an input error (exit 2).
#[test]
fn check_reads_compiler_output() {
    if !needs("check_reads_compiler_output", &["gcc"]) {
        return;
    }
    let ex = example();
    let dir = scratch("cli-check-cc");
    std::fs::create_dir_all(&dir).unwrap();
    let (code, c, err) = cryptopt(&["emit-c", &ex]);
    assert_eq!(code, 0, "{err}");
    let c_file = dir.join("f.c");
    std::fs::write(&c_file, c.replace("example_running", "renamed")).unwrap();
    let compile = |syntax: &[&str], out: &str| {
        let out = dir.join(out);
        let ok = std::process::Command::new("gcc")
            .args(["-O3", "-S", "-o"])
            .arg(&out)
            .args(syntax)
            .arg(&c_file)
            .status()
            .unwrap()
            .success();
        assert!(ok, "gcc -S {syntax:?}");
        out.to_str().unwrap().to_string()
    };
    let att = compile(&[], "f_att.s");
    let intel = compile(&["-masm=intel"], "f_intel.s");
    assert!(std::fs::read_to_string(&att).unwrap().contains('%'));
    for (file, syntax) in [
        (&att, "auto"),
        (&att, "att"),
        (&intel, "auto"),
        (&intel, "intel"),
    ] {
        let (code, out, err) = cryptopt(&[
            "check",
            &ex,
            file,
            "--symbol",
            "renamed",
            "--syntax",
            syntax,
            "--aliasing",
            "none",
        ]);
        assert_eq!(
            (code, out.trim()),
            (0, "equivalent"),
            "{file} {syntax}: {err}"
        );
    }
    let (code, _, err) = cryptopt(&[
        "check", &ex, &att, "--symbol", "renamed", "--syntax", "intel",
    ]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = cryptopt(&["check", &ex, &att, "--symbol", "other"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("other") && err.contains("renamed"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// The built-in generator from the command line: `gen` prints Fiat JSON that the front
/// end reads back; bad fields are one-line errors with exit 2.
#[test]
fn gen_and_field_errors() {
    let dir = scratch("cli-gen");
    std::fs::create_dir_all(&dir).unwrap();
    for (field, op, name) in [
        ("p256", "mul", "fiat_p256_mul"),
        ("curve25519", "square", "fiat_25519_carry_square"),
        ("2^127 - 1", "add", "fiat_custom_add"),
    ] {
        let (code, json, err) = cryptopt(&["gen", "--field", field, "--op", op]);
        assert_eq!(code, 0, "{field}: {err}");
        let path = dir.join("f.json");
        std::fs::write(&path, json).unwrap();
        let (code, list, err) = cryptopt(&["list", path.to_str().unwrap()]);
        assert_eq!(code, 0, "{err}");
        assert!(list.starts_with(name), "{list}");
    }
    let cases: &[(&[&str], &str)] = &[
        (&["gen", "--field", "p255"], "unknown field `p255`"),
        (&["gen", "--field", "2^256"], "is even"),
        (
            &["gen", "--field", "2^255 - 21"],
            "not prime (use --allow-composite)",
        ),
        (&["gen", "--field", "3"], "too small"),
        (
            &["gen", "--field", "p256", "--op", "div"],
            "unknown operation `div`",
        ),
        (
            &["gen", "--field", "2^255 - 19", "--limbs", "4"],
            "does not fit 4 limbs",
        ),
        (&["gen", "--field", "2^255 -"], "invalid modulus"),
        (&["gen"], "needs --field"),
    ];
    for (args, want) in cases {
        let (code, _, err) = cryptopt(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: want {want:?} in {err}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// The README's main command shape: optimize a built-in field, no input file.
#[test]
fn optimize_builtin_field() {
    if !needs("optimize_builtin_field", &["gcc"]) {
        return;
    }
    let dir = scratch("cli-field");
    let (code, out, err) = cryptopt(&[
        "optimize",
        "--field",
        "p256",
        "--op",
        "mul",
        "--evals",
        "200",
        "--bets",
        "2",
        "--batches",
        "5",
        "--out",
        dir.to_str().unwrap(),
        "--cet",
        "--symbol",
        "my_p256_mul",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("result: function=fiat_p256_mul"), "{out}");
    // `--symbol` names the function in the assembly and the header; `--cet` starts it
    // with endbr64.
    let read = |file: &str| std::fs::read_to_string(dir.join("fiat_p256_mul").join(file)).unwrap();
    let (h, s) = (read("fiat_p256_mul.h"), read("fiat_p256_mul.S"));
    assert!(h.contains("void my_p256_mul(uint64_t out1[4]"), "{h}");
    assert!(!h.contains("void fiat_p256_mul("), "{h}");
    assert!(
        s.contains("\nmy_p256_mul:\n    .cfi_startproc\n    endbr64\n"),
        "{s}"
    );
    // The header says what the limbs mean (the generator knows) and their bounds, and
    // so does a resumed run's.
    let asm = dir.join("fiat_p256_mul/fiat_p256_mul.asm");
    let state = dir.join("fiat_p256_mul/state.json");
    for resumed in [false, true] {
        if resumed {
            let (code, _, err) = cryptopt(&[
                "optimize",
                "--resume",
                state.to_str().unwrap(),
                "--evals",
                "250",
                "--batches",
                "5",
            ]);
            assert_eq!(code, 0, "{err}");
        }
        let text = std::fs::read_to_string(&asm).unwrap();
        for want in [
            "; data: word-by-word Montgomery, 4 saturated 64-bit limbs, R = 2^256",
            "; arguments: out1 u64[4] each ≤ 0xffffffffffffffff; arg1 u64[4] each ≤ 0xffffffffffffffff; arg2 u64[4]",
        ] {
            assert!(text.contains(want), "resumed {resumed}: {want:?} not in\n{text}");
        }
    }
    let (code, _, err) = cryptopt(&[
        "optimize",
        "examples/running_example.json",
        "--field",
        "p256",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("not both"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn unproved_output_says_so() {
    if !needs("unproved_output_says_so", &["gcc"]) {
        return;
    }
    let dir = scratch("cli-nv");
    let (code, stdout, err) = cryptopt(&[
        "optimize",
        &example(),
        "--evals",
        "40",
        "--bets",
        "2",
        "--batches",
        "5",
        "--no-verify",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(stdout.contains("proof=not-proved"), "{stdout}");
    let asm = std::fs::read_to_string(dir.join("example_running/example_running.asm")).unwrap();
    assert!(asm.contains("proof: NOT PROVED (--no-verify)"), "{asm}");
    std::fs::remove_dir_all(&dir).ok();
}
