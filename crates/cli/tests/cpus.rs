//! The CPUs a run uses are the ones the process is given (its affinity mask: `taskset`,
//! a cluster job's cpuset), never CPU 0 by default: `optimize` pins to the first allowed
//! CPU and refuses one outside the mask; `bench` runs its searches on the allowed CPUs
//! and says which.

mod common;
use common::{example, scratch};
use std::process::Command;

/// Runs the binary under `taskset -c CPU`; (exit code, stderr).
fn under_taskset(cpu: usize, args: &[&str]) -> (i32, String) {
    let out = Command::new("taskset")
        .arg("-c")
        .arg(cpu.to_string())
        .arg(env!("CARGO_BIN_EXE_cryptopt"))
        .args(args)
        .output()
        .expect("run taskset");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The CPU other than 0 to confine the run to, where this machine has one and taskset
/// is there (a skip says why not).
fn a_cpu_other_than_0(test: &str) -> Option<usize> {
    let have_taskset = Command::new("taskset")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !have_taskset {
        eprintln!("SKIPPED {test}: taskset not found (util-linux)");
        return None;
    }
    let cpus = cryptopt_driver::cpus::allowed();
    match cpus.iter().copied().find(|&c| c != 0) {
        Some(c) => Some(c),
        None => {
            eprintln!("SKIPPED {test}: this process may use CPU 0 only ({cpus:?})");
            None
        }
    }
}

#[test]
fn optimize_stays_inside_the_cpus_it_is_given() {
    let Some(cpu) = a_cpu_other_than_0("optimize_stays_inside_the_cpus_it_is_given") else {
        return;
    };
    let out = scratch("cpus-optimize");
    let out = out.to_str().expect("utf-8 temp dir");
    let ex = example();
    let common = ["optimize", &ex, "--evals", "300", "--single", "--out", out];
    // No --cpu: the first (only) CPU of the mask, not CPU 0.
    let (code, err) = under_taskset(cpu, &common);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains(&format!("(pinned to cpu {cpu})")), "{err}");
    // A CPU outside the mask: a usage error naming the allowed ones, nothing written.
    let _ = std::fs::remove_dir_all(out);
    let mut outside = common.to_vec();
    outside.extend(["--cpu", "0"]);
    let (code, err) = under_taskset(cpu, &outside);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--cpu 0 cannot be used") && err.contains(&format!("may use CPUs {cpu}")),
        "{err}"
    );
    assert!(!std::path::Path::new(out).join("example_running").exists());
    let _ = std::fs::remove_dir_all(out);
}

#[test]
fn bench_searches_on_the_cpus_it_is_given() {
    let Some(cpu) = a_cpu_other_than_0("bench_searches_on_the_cpus_it_is_given") else {
        return;
    };
    if !common::needs("bench_searches_on_the_cpus_it_is_given", &["gcc"]) {
        return;
    }
    let out = scratch("cpus-bench");
    let ex = example();
    let (code, err) = under_taskset(
        cpu,
        &[
            "bench",
            "--input",
            &ex,
            "--functions",
            "example_running",
            "--compilers",
            "gcc",
            "--evals",
            "300",
            "--repeats",
            "4",
            "--optimize-for",
            "throughput",
            "--jobs",
            "2",
            "--out",
            out.to_str().expect("utf-8 temp dir"),
        ],
    );
    let _ = std::fs::remove_dir_all(&out);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(&format!("cpus: {cpu} (up to 1 searches at a time)")),
        "{err}"
    );
}
