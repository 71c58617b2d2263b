//! `bench.html` as a person sees it: the real binary writes the report of a small bench
//! run, its structure is checked, and headless Chromium renders it (a screenshot and
//! the DOM). Without Chromium on PATH the rendering part prints `SKIPPED` and why.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{cryptopt, scratch};

/// The same escaping the report applies to its text.
fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// The first of the usual Chromium names found on PATH.
fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
        .find(|p| p.is_file())
}

/// Runs `cmd` to its end, killing it after `limit`.
fn run_with_limit(cmd: &mut Command, limit: Duration) -> Output {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the program");
    // Read the pipes on threads so a full pipe cannot stall the program.
    let mut stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let out = std::thread::spawn(move || {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut stdout, &mut v).ok();
        v
    });
    let err = std::thread::spawn(move || {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut stderr, &mut v).ok();
        v
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if start.elapsed() > limit {
            child.kill().ok();
            panic!("{cmd:?} ran longer than {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    Output {
        status,
        stdout: out.join().expect("stdout"),
        stderr: err.join().expect("stderr"),
    }
}

/// Headless Chromium on `page` with `args` (its own profile under `dir`).
fn chromium_run(chrome: &Path, dir: &Path, page: &str, args: &[&str]) -> Output {
    let profile = dir.join("profile");
    let out = run_with_limit(
        Command::new(chrome)
            .args(["--headless", "--no-sandbox", "--disable-gpu"])
            .arg(format!("--user-data-dir={}", profile.display()))
            .args(args)
            .arg(page),
        Duration::from_secs(60),
    );
    assert!(
        out.status.success(),
        "{} {args:?} failed: {}",
        chrome.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

#[test]
fn bench_html_renders() {
    let dir = scratch("bench-html");
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("bench");
    let (code, _, err) = cryptopt(&[
        "bench",
        "--functions",
        "fiat_poly1305_carry_mul",
        "--evals",
        "300",
        "--repeats",
        "4",
        "--batches",
        "5",
        "--jobs",
        "1",
        "--compilers",
        "gcc",
        "--optimize-for",
        "throughput",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "cryptopt bench failed: {err}");
    let page = out.join("bench.html");
    let html = std::fs::read_to_string(&page).expect("bench.html");

    // Structure: made from the data, not from the markdown.
    assert!(html.starts_with("<!doctype html>"), "{html}");
    for needle in [
        "<h1>",
        "<thead>",
        "<th",
        "<tfoot>",
        "Machine",
        "cryptopt ticks",
        "speed-up",
        "geometric mean",
        "fiat_poly1305_carry_mul",
        "proved equivalent",
    ] {
        assert!(html.contains(needle), "{needle} missing in bench.html");
    }
    let cpu = escape(&cryptopt_measure::counter::cpu_model());
    assert!(html.contains(&cpu), "the CPU model {cpu:?} is missing");
    let gcc = escape(&cryptopt_measure::baseline::compiler_version("gcc").unwrap());
    assert!(html.contains(&gcc), "the gcc version {gcc:?} is missing");
    assert!(!html.contains('`'), "markdown backticks in bench.html");
    assert!(!html.contains("**"), "markdown bold in bench.html");
    // poly1305's carry_mul can be chained: a throughput and a latency chart.
    assert_eq!(html.matches("<svg").count(), 2, "two charts");

    let Some(chrome) = chromium() else {
        eprintln!("SKIPPED bench_html_renders: no chromium on PATH (install Debian's chromium)");
        std::fs::remove_dir_all(&dir).ok();
        return;
    };
    let url = format!("file://{}", page.canonicalize().unwrap().display());
    let shot = dir.join("shot.png");
    chromium_run(
        &chrome,
        &dir,
        &url,
        &[
            &format!("--screenshot={}", shot.display()),
            "--window-size=1200,1600",
        ],
    );
    let png = std::fs::read(&shot).expect("the screenshot was not written");
    assert!(
        png.starts_with(b"\x89PNG\r\n\x1a\n"),
        "the screenshot is not a PNG"
    );
    assert!(
        png.len() > 10_000,
        "the screenshot is tiny ({} bytes)",
        png.len()
    );
    let dom = chromium_run(&chrome, &dir, &url, &["--dump-dom"]);
    let dom = String::from_utf8_lossy(&dom.stdout);
    for needle in [
        "cryptopt ticks",
        "speed-up",
        "optimize s",
        "evals/s",
        "<svg",
    ] {
        assert!(dom.contains(needle), "{needle} missing in the rendered DOM");
    }
    std::fs::remove_dir_all(&dir).ok();
}
