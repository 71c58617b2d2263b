//! The reports of `cryptopt bench`: `bench.md` (printed too), `bench.csv` and
//! `bench.html` (tables and bar charts). Rendering only: measures nothing, changes no
//! program.

use std::fmt::Write as _;

use anyhow::{anyhow, Context, Result};
use plotters::prelude::*;

use cryptopt_measure::counter;
use cryptopt_measure::stats::{geomean, Compared};

use super::{Line, Ours};
use crate::args::{BenchArgs, OptimizeForArg};
use crate::files::write_atomically;

pub(super) fn write_reports(
    args: &BenchArgs,
    columns: &[String],
    lines: &[Line],
    counter: &str,
    source: &str,
    seconds: f64,
) -> Result<()> {
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let ccs = columns;
    let mut md = String::new();
    let mut csv = String::from("mode,function,instructions,stack_bytes,cryptopt");
    for cc in ccs {
        let _ = write!(csv, ",{cc},speedup_over_{cc}");
    }
    csv.push_str(",halves_agree,counter,optimize_seconds,evals_per_second\n");
    let programs = if args.reuse {
        format!("the programs of an earlier run in {}", args.out.display())
    } else {
        match args.optimize_for {
            OptimizeForArg::Both => format!(
                "{} evaluations per function and measure (each table shows the program optimized for its measure)",
                args.evals
            ),
            OptimizeForArg::Throughput => format!(
                "{} evaluations each, optimized for throughput (both tables show that program)",
                args.evals
            ),
            OptimizeForArg::Latency => format!(
                "{} evaluations each, optimized for latency (both tables show that program)",
                args.evals
            ),
        }
    };
    let _ = writeln!(
        md,
        "# cryptopt bench\n\nFunctions from {source}; {programs}; every program run against the interpreter and proved equivalent by the checker; counter `{counter}` (median ticks per call, mean of {} repeated interleaved measurements; a speed-up is the geometric mean of the per-measurement ratios); CPU {}; total time {:.0} s.\n",
        args.repeats, counter::cpu_model(), seconds
    );
    for (mode, pick) in [("throughput", 0usize), ("latency", 1)] {
        let rows: Vec<(&str, &Ours, &Compared)> = lines
            .iter()
            .filter_map(|l| {
                let (o, c) = if pick == 0 {
                    &l.throughput
                } else {
                    l.latency.as_ref()?
                };
                Some((l.function.as_str(), o, c))
            })
            .collect();
        if rows.is_empty() {
            continue;
        }
        let _ = writeln!(md, "## {mode}\n");
        let _ = write!(md, "| function | instructions | stack bytes | cryptopt |");
        for cc in ccs {
            let _ = write!(md, " {cc} | speed-up over {cc} |");
        }
        let _ = writeln!(md, " optimize s | evals/s |");
        let _ = writeln!(md, "|{}", "---|".repeat(6 + 2 * ccs.len()));
        for (function, l, c) in &rows {
            let star = if c.agreed { "" } else { "*" };
            let _ = write!(
                md,
                "| {} | {} | {} | {:.1}{star} |",
                function, l.instructions, l.stack_bytes, c.means[0]
            );
            let _ = write!(
                csv,
                "{mode},{},{},{},{:.2}",
                function, l.instructions, l.stack_bytes, c.means[0]
            );
            for k in 0..ccs.len() {
                let su = c.ratios[k + 1];
                if su.is_finite() {
                    let _ = write!(md, " {:.1} | {:.2} |", c.means[k + 1], su);
                } else {
                    md.push_str(" – | – |");
                }
                let _ = write!(csv, ",{:.2},{:.3}", c.means[k + 1], su);
            }
            // A reused program: no search ran in this run, the columns stay empty.
            let (secs, rate) = match l.search {
                Some(sr) => (format!("{:.0}", sr.seconds), format!("{:.0}", sr.rate())),
                None => ("–".to_string(), "–".to_string()),
            };
            let _ = writeln!(md, " {secs} | {rate} |");
            let (secs, rate) = match l.search {
                Some(sr) => (format!("{:.1}", sr.seconds), format!("{:.0}", sr.rate())),
                None => (String::new(), String::new()),
            };
            let _ = writeln!(csv, ",{},{counter},{secs},{rate}", c.agreed);
        }
        let _ = write!(md, "| **geometric mean** | | | |");
        for k in 0..ccs.len() {
            let g = geomean(rows.iter().map(|(_, _, c)| c.ratios[k + 1]));
            let _ = write!(md, " | **{g:.2}** |");
        }
        let _ = writeln!(md, " | |\n");
    }
    let chart = bar_chart(lines, ccs, counter)?;
    let html = format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>cryptopt bench</title>\
         <style>body{{font-family:sans-serif;max-width:1100px;margin:auto}}table{{border-collapse:collapse}}td,th{{border:1px solid #999;padding:2px 6px;text-align:right}}</style></head><body>\n{}\n{}\n</body></html>\n",
        markdown_tables_to_html(&md),
        chart
    );
    write_atomically(&args.out.join("bench.md"), md.as_bytes())?;
    write_atomically(&args.out.join("bench.csv"), csv.as_bytes())?;
    write_atomically(&args.out.join("bench.html"), html.as_bytes())?;
    print!("{md}");
    Ok(())
}

/// The markdown report as HTML (headings, paragraphs and pipe tables only).
fn markdown_tables_to_html(md: &str) -> String {
    let mut out = String::new();
    let mut in_table = false;
    for line in md.lines() {
        if line.starts_with('|') {
            if line.starts_with("|---") {
                continue;
            }
            if !in_table {
                out.push_str("<table>\n");
                in_table = true;
            }
            let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
            out.push_str("<tr>");
            for c in cells {
                let _ = write!(out, "<td>{}</td>", c.replace("**", ""));
            }
            out.push_str("</tr>\n");
            continue;
        }
        if in_table {
            out.push_str("</table>\n");
            in_table = false;
        }
        if let Some(h) = line.strip_prefix("## ") {
            let _ = writeln!(out, "<h2>{h}</h2>");
        } else if let Some(h) = line.strip_prefix("# ") {
            let _ = writeln!(out, "<h1>{h}</h1>");
        } else if !line.is_empty() {
            let _ = writeln!(out, "<p>{line}</p>");
        }
    }
    if in_table {
        out.push_str("</table>\n");
    }
    out
}

/// Throughput speed-ups over each compiler, one group of bars per function.
fn bar_chart(lines: &[Line], ccs: &[String], counter: &str) -> Result<String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (1000, 480)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| anyhow!("{e}"))?;
        let max = lines
            .iter()
            .flat_map(|l| l.throughput.1.ratios[1..].iter().copied())
            .fold(1.0f64, f64::max)
            * 1.1;
        let n = lines.len().max(1);
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!("speed-up of cryptopt over the compilers (throughput, {counter})"),
                ("sans-serif", 18),
            )
            .margin(10)
            .x_label_area_size(90)
            .y_label_area_size(50)
            .build_cartesian_2d(0f64..n as f64, 0f64..max)
            .map_err(|e| anyhow!("{e}"))?;
        let names: Vec<String> = lines
            .iter()
            .map(|l| l.function.trim_start_matches("fiat_").to_string())
            .collect();
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(n)
            .x_label_formatter(&|x| names.get(x.floor() as usize).cloned().unwrap_or_default())
            .y_desc("baseline cycles / cryptopt cycles")
            .draw()
            .map_err(|e| anyhow!("{e}"))?;
        let w = 0.8 / ccs.len() as f64;
        for (k, cc) in ccs.iter().enumerate() {
            let color = Palette99::pick(k).to_rgba();
            chart
                .draw_series(lines.iter().enumerate().map(|(i, l)| {
                    let x0 = i as f64 + 0.1 + k as f64 * w;
                    Rectangle::new(
                        [(x0, 0.0), (x0 + w, l.throughput.1.ratios[k + 1])],
                        color.filled(),
                    )
                }))
                .map_err(|e| anyhow!("{e}"))?
                .label(cc.clone())
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 10, y + 5)], color.filled())
                });
        }
        chart
            .draw_series(LineSeries::new(vec![(0.0, 1.0), (n as f64, 1.0)], BLACK))
            .map_err(|e| anyhow!("{e}"))?;
        chart
            .configure_series_labels()
            .border_style(BLACK)
            .background_style(WHITE)
            .draw()
            .map_err(|e| anyhow!("{e}"))?;
        root.present().map_err(|e| anyhow!("{e}"))?;
    }
    Ok(svg)
}
