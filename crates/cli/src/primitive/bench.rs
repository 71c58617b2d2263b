//! `cryptopt bench --primitives`: each primitive cryptopt builds against the libraries
//! users would otherwise pick (libsodium, OpenSSL 3), in one process per primitive on one
//! pinned CPU, calls interleaved (SUPERCOP style: median and quartiles of each call's
//! ticks); AWS-LC too (X25519, P-256) where aws-lc-sys built it for this binary. The
//! harness is C in this folder (`bench_<primitive>.c`), linked with the library and the
//! real libraries from Debian's packages; it refuses to measure unless all
//! implementations agree on its inputs.
//!
//! Reports: `primitives.md` (printed too), `primitives.csv`, `primitives.html` (the
//! machine, the table, a bar chart). It measures what `primitive` wrote and never
//! changes it.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{anyhow, bail, Context, Result};
use plotters::prelude::*;

use cryptopt_measure::counter;

use super::{make, Settings};
use crate::args::{BenchArgs, PrimitiveName};
use cryptopt_driver::bench_report::{escape, plot_error, STYLE};
use cryptopt_driver::files::{ensure_writable, write_atomically};
use cryptopt_driver::primitive::{archive_name, in_scratch, run};

/// One implementation's ticks per call.
struct Timing {
    implementation: String,
    median: f64,
    q1: f64,
    q3: f64,
}

/// One primitive's measurement.
struct Measured {
    name: PrimitiveName,
    timings: Vec<Timing>,
    /// (library, version text) as the harness read them from the libraries.
    versions: Vec<(String, String)>,
}

/// One primitive's harness: its part (implementations, inputs, versions) before the
/// timing loop all share, and what it links and defines.
struct Harness {
    source: String,
    libs: &'static [&'static str],
    defines: Vec<String>,
    /// Whether AWS-LC has this primitive (X25519 and P-256; not secp256k1's hashed ECDH).
    aws_lc: bool,
    /// Other primitives' libraries it times too (the Kummer DH against cryptopt's X25519).
    with: &'static [PrimitiveName],
    /// Sources its part includes, written beside it: (file name, text).
    beside: &'static [(&'static str, &'static str)],
}

/// The X25519 references (OpenSSL's context, AWS-LC's, versions) of the X25519 and
/// Kummer parts.
const X25519_REFS: (&str, &str) = ("bench_x25519_refs.c", include_str!("bench_x25519_refs.c"));

fn harness(name: PrimitiveName) -> Harness {
    let (part, libs, defines) = match name {
        PrimitiveName::X25519 => (
            include_str!("bench_x25519.c"),
            &["-lsodium", "-lcrypto"][..],
            vec![],
        ),
        PrimitiveName::P256 => (include_str!("bench_p256.c"), &["-lcrypto"][..], vec![]),
        PrimitiveName::Kummer => (
            include_str!("bench_kummer.c"),
            &["-lsodium", "-lcrypto"][..],
            vec![],
        ),
        PrimitiveName::Secp256k1 => (
            include_str!("bench_secp256k1.c"),
            &["-lsecp256k1"][..],
            vec![format!(
                "-DLIBSECP256K1_VERSION=\"{}\"",
                secp256k1_version()
            )],
        ),
    };
    Harness {
        source: format!("{part}{}", include_str!("bench_main.c")),
        libs,
        defines,
        aws_lc: !matches!(name, PrimitiveName::Secp256k1),
        with: match name {
            PrimitiveName::Kummer => &[PrimitiveName::X25519],
            _ => &[],
        },
        beside: match name {
            PrimitiveName::X25519 | PrimitiveName::Kummer => &[X25519_REFS],
            _ => &[],
        },
    }
}

/// AWS-LC as aws-lc-sys built it for this binary (build.rs): its static library, its
/// headers and its symbol prefix; or why it cannot be measured.
struct AwsLc {
    lib: PathBuf,
    include: PathBuf,
    /// aws-lc-sys's version, from the prefix `aws_lc_0_47_0`.
    version: String,
}

fn aws_lc() -> Result<AwsLc, String> {
    let (Some(root), Some(prefix)) = (
        option_env!("CRYPTOPT_AWS_LC_ROOT"),
        option_env!("CRYPTOPT_AWS_LC_PREFIX"),
    ) else {
        return Err("this binary was built without aws-lc-sys".into());
    };
    let root = Path::new(root);
    let lib = root.join(format!("lib{prefix}_crypto.a"));
    if !lib.exists() {
        return Err(format!("{} is gone (rebuild cryptopt)", lib.display()));
    }
    Ok(AwsLc {
        lib,
        include: root.join("include"),
        version: prefix.trim_start_matches("aws_lc_").replace('_', "."),
    })
}

/// Compiles AWS-LC's side of the harness (`bench_awslc.c`) in `scratch` and adds it, the
/// library and `-DAWSLC=1` to the harness's command. Built alone: AWS-LC's headers must
/// not meet OpenSSL's.
fn link_aws_lc(cmd: &mut Command, aws: &AwsLc, cc: &str, scratch: &Path) -> Result<()> {
    let (c, h, o) = (
        scratch.join("bench_awslc.c"),
        scratch.join("bench_awslc.h"),
        scratch.join("awslc.o"),
    );
    for (path, text) in [
        (&c, include_str!("bench_awslc.c")),
        (&h, include_str!("bench_awslc.h")),
    ] {
        std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    run(Command::new(cc)
        .args(["-O2", "-c", "-I"])
        .arg(&aws.include)
        .arg("-I")
        .arg(scratch)
        .arg(format!("-DAWSLC_SYS_VERSION=\"{}\"", aws.version))
        .arg(&c)
        .arg("-o")
        .arg(&o))?;
    cmd.args(["-DAWSLC=1", "-I"])
        .arg(scratch)
        .arg(&o)
        .arg(&aws.lib)
        .arg("-lpthread");
    Ok(())
}

/// libsecp256k1 has no version function: the Debian package's version, for the harness.
fn secp256k1_version() -> String {
    let v = Command::new("dpkg-query")
        .args(["-W", "-f", "${Version}", "libsecp256k1-dev"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| "(version unknown)".to_string());
    format!("libsecp256k1 {v} (Debian package)")
}

/// The counter the harness reads (one home for its description).
const COUNTER: &str = "tsc";
const COUNTER_DESCRIBED: &str =
    "tsc (lfence;rdtsc;lfence around each call; a fixed rate, not core cycles)";

pub(crate) fn command(args: &BenchArgs, names: &[PrimitiveName]) -> Result<()> {
    let started = Instant::now();
    if args.calls < 1001 {
        bail!("--calls must be at least 1001 (median and quartiles of many single calls)");
    }
    ensure_writable(&args.out)?;
    let settings = Settings {
        evals: args.evals,
        cc: args.compilers[0].clone(),
        search: args.search.clone(),
    };
    let names = if names.is_empty() {
        &PrimitiveName::ALL[..]
    } else {
        names
    };
    let mut measured = Vec::new();
    let mut made = Vec::new();
    // The library of `name` in DIR/<name>/: made by this run once, or with --reuse
    // the one there (one policy for the measured primitive and the libraries its
    // harness times beside it, as the Kummer row times cryptopt's X25519).
    let mut library = |name: PrimitiveName| -> Result<PathBuf> {
        let dir = args.out.join(name.as_str());
        let lib = dir.join(archive_name(name.primitive()));
        if args.reuse {
            if !lib.exists() {
                bail!(
                    "--reuse: {} is missing (run without --reuse, or `cryptopt primitive {} --out {}`)",
                    lib.display(),
                    name.as_str(),
                    dir.display()
                );
            }
            if !made.contains(&name) {
                eprintln!(
                    "{}: measuring the library in {}",
                    name.as_str(),
                    lib.display()
                );
                made.push(name);
            }
        } else if !made.contains(&name) {
            make(name.primitive(), &settings, &dir)?;
            made.push(name);
        }
        Ok(dir)
    };
    for &name in names {
        for &other in harness(name).with {
            library(other)?;
        }
        let dir = library(name)?;
        measured.push(measure(name, &dir, &settings.cc, args.calls)?);
    }
    let seconds = started.elapsed().as_secs_f64();
    let (md, csv) = markdown_and_csv(&measured, args.calls, seconds);
    let html = html(&measured, args.calls, seconds)?;
    write_atomically(&args.out.join("primitives.md"), md.as_bytes())?;
    write_atomically(&args.out.join("primitives.csv"), csv.as_bytes())?;
    write_atomically(&args.out.join("primitives.html"), html.as_bytes())?;
    print!("{md}");
    Ok(())
}

/// Builds the harness against the library in `dir` and runs it on the first CPU this
/// process may use.
fn measure(name: PrimitiveName, dir: &Path, cc: &str, calls: u64) -> Result<Measured> {
    let cpu = cryptopt_driver::cpus::allowed()[0];
    let said = in_scratch(dir, "bench", |scratch| -> Result<String> {
        let h = harness(name);
        let src = scratch.join("bench.c");
        std::fs::write(&src, &h.source)
            .with_context(|| format!("cannot write {}", src.display()))?;
        for (file, text) in h.beside {
            let path = scratch.join(file);
            std::fs::write(&path, text)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        let exe = scratch.join("bench");
        let mut cmd = Command::new(cc);
        cmd.args(["-O2", "-I"])
            .arg(dir)
            .args(&h.defines)
            .arg(&src)
            .arg(dir.join(archive_name(name.primitive())));
        // Other primitives' libraries, from their folders beside this one.
        for &other in h.with {
            let other_dir = dir.parent().unwrap_or(Path::new(".")).join(other.as_str());
            cmd.arg("-I")
                .arg(&other_dir)
                .arg(other_dir.join(archive_name(other.primitive())));
        }
        if h.aws_lc {
            match aws_lc() {
                Ok(aws) => link_aws_lc(&mut cmd, &aws, cc, scratch)?,
                Err(why) => eprintln!("{}: AWS-LC not measured: {why}", name.as_str()),
            }
        }
        run(cmd.args(h.libs).arg("-o").arg(&exe))?;
        eprintln!(
            "{}: {calls} interleaved calls of each implementation on cpu {cpu}",
            name.as_str()
        );
        Ok(run(Command::new(&exe)
            .arg(cpu.to_string())
            .arg(calls.to_string()))?)
    })?;
    parse(name, &said)
}

/// The harness's lines: `version,LIB,TEXT` and `NAME,median,q1,q3`.
fn parse(name: PrimitiveName, text: &str) -> Result<Measured> {
    let mut m = Measured {
        name,
        timings: Vec::new(),
        versions: Vec::new(),
    };
    for line in text.lines() {
        // A version text may hold commas: it is the rest of its line.
        if let Some((lib, version)) = line
            .strip_prefix("version,")
            .and_then(|r| r.split_once(','))
        {
            m.versions.push((lib.to_string(), version.to_string()));
            continue;
        }
        let fields: Vec<&str> = line.split(',').collect();
        match fields.as_slice() {
            [implementation, median, q1, q3] => {
                let num = |s: &str| {
                    s.parse::<f64>()
                        .map_err(|_| anyhow!("the harness printed `{line}`"))
                };
                m.timings.push(Timing {
                    implementation: implementation.to_string(),
                    median: num(median)?,
                    q1: num(q1)?,
                    q3: num(q3)?,
                });
            }
            _ => bail!("the harness printed `{line}`"),
        }
    }
    if m.timings.first().map(|t| t.implementation.as_str()) != Some("cryptopt") {
        bail!("the harness did not time cryptopt first: {text}");
    }
    Ok(m)
}

/// Ours over theirs: > 1 when cryptopt is faster.
fn speedup(m: &Measured, t: &Timing) -> f64 {
    t.median / m.timings[0].median
}

fn markdown_and_csv(measured: &[Measured], calls: u64, seconds: f64) -> (String, String) {
    let mut md = String::from("# cryptopt bench --primitives\n\n");
    let _ = writeln!(
        md,
        "CPU {}; counter {COUNTER_DESCRIBED}; {calls} interleaved calls of each \
         implementation in one process pinned to cpu 0; median and quartiles in ticks per \
         call; a speed-up is their median / cryptopt's (> 1: cryptopt is faster); total \
         time {seconds:.0} s.\n",
        counter::cpu_model()
    );
    let mut csv = String::from("primitive,implementation,median,q1,q3,speedup,counter\n");
    for m in measured {
        for (lib, version) in &m.versions {
            let _ = writeln!(md, "- {lib}: {version}");
        }
        let _ = writeln!(
            md,
            "\n| {} | median | q1 | q3 | cryptopt's speed-up |\n|---|---|---|---|---|",
            m.name.as_str()
        );
        for t in &m.timings {
            let s = speedup(m, t);
            let _ = writeln!(
                md,
                "| {} | {:.0} | {:.0} | {:.0} | {s:.2} |",
                t.implementation, t.median, t.q1, t.q3
            );
            let _ = writeln!(
                csv,
                "{},{},{:.0},{:.0},{:.0},{s:.3},{COUNTER}",
                m.name.as_str(),
                t.implementation,
                t.median,
                t.q1,
                t.q3
            );
        }
        md.push('\n');
    }
    (md, csv)
}

fn html(measured: &[Measured], calls: u64, seconds: f64) -> Result<String> {
    let mut h = format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>cryptopt bench --primitives</title>\n<style>\n{STYLE}</style></head><body>\n\
         <h1>cryptopt bench --primitives</h1>\n<p>Each primitive as the library \
         <code>cryptopt primitive</code> wrote (every piece proved), against the libraries \
         users would otherwise pick, in one process pinned to one CPU: {calls} calls of \
         each, interleaved; median and quartiles of each call's ticks (lower is better).</p>\n"
    );
    h.push_str("<h2>Machine</h2>\n<dl class=\"machine\">\n");
    let mut item = |term: &str, text: &str| {
        let _ = writeln!(h, "<dt>{}</dt><dd>{}</dd>", escape(term), escape(text));
    };
    item("CPU", &counter::cpu_model());
    item("Counter", COUNTER_DESCRIBED);
    for m in measured {
        for (lib, version) in &m.versions {
            item(lib, version);
        }
    }
    item("Run", &format!("total time {seconds:.0} s"));
    h.push_str("</dl>\n");
    for m in measured {
        let _ = writeln!(
            h,
            "<h2>{}</h2>\n<div class=\"wide\"><table>\n<thead><tr><th>implementation</th>\
             <th>median</th><th>q1</th><th>q3</th><th>cryptopt's speed-up</th></tr></thead><tbody>",
            escape(m.name.as_str())
        );
        for t in &m.timings {
            let s = speedup(m, t);
            let class = if s >= 1.0 { "win" } else { "loss" };
            let _ = writeln!(
                h,
                "<tr><td class=\"fn\">{}</td><td>{:.0}</td><td>{:.0}</td><td>{:.0}</td>\
                 <td class=\"{class}\">{s:.2}</td></tr>",
                escape(&t.implementation),
                t.median,
                t.q1,
                t.q3
            );
        }
        h.push_str("</tbody></table></div>\n");
        let _ = writeln!(h, "<figure>{}</figure>", chart(m)?);
    }
    h.push_str("</body></html>\n");
    Ok(h)
}

/// Median ticks per implementation as bars, the quartiles as a line over each.
fn chart(m: &Measured) -> Result<String> {
    let n = m.timings.len();
    let top = m.timings.iter().map(|t| t.q3).fold(1.0, f64::max) * 1.15;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (760, 420)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_error)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!(
                    "{}: ticks per call (counter {COUNTER}; lower is better)",
                    m.name.as_str()
                ),
                ("sans-serif", 20),
            )
            .margin(15)
            .x_label_area_size(40)
            .y_label_area_size(85)
            .build_cartesian_2d(0f64..n as f64, 0f64..top)
            .map_err(plot_error)?;
        let names: Vec<String> = m.timings.iter().map(|t| t.implementation.clone()).collect();
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(n)
            .x_label_formatter(&|x| {
                let i = (x - 0.5).round();
                if (x - 0.5 - i).abs() < 1e-6 && i >= 0.0 {
                    names.get(i as usize).cloned().unwrap_or_default()
                } else {
                    String::new()
                }
            })
            .label_style(("sans-serif", 15))
            .y_desc("ticks per call (median; line: quartiles)")
            .draw()
            .map_err(plot_error)?;
        for (i, t) in m.timings.iter().enumerate() {
            let color = Palette99::pick(i).to_rgba();
            let x = i as f64;
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(x + 0.2, 0.0), (x + 0.8, t.median)],
                    color.filled(),
                )))
                .map_err(plot_error)?;
            chart
                .draw_series(LineSeries::new(
                    vec![(x + 0.5, t.q1), (x + 0.5, t.q3)],
                    BLACK.stroke_width(2),
                ))
                .map_err(plot_error)?;
        }
        root.present().map_err(plot_error)?;
    }
    Ok(svg)
}
