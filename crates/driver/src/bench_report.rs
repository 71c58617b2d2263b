//! The reports of `cryptopt bench`: `bench.md` (printed too), `bench.csv` and
//! `bench.html` (a page for people: the machine, a table and a bar chart per measure).
//!
//! Rendering only: it measures nothing and changes no program. The HTML is made from the
//! data, never from the markdown text, and every piece of text in it goes through
//! [`escape`]. The markdown and CSV formats are read by scripts and tests: change them
//! only on purpose.

use std::fmt::Write as _;

use std::path::Path;

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use cryptopt_measure::stats::{geomean, Compared};
use cryptopt_measure::{baseline, counter};
use cryptopt_x86::Target;

use crate::files::write_atomically;
use crate::{Error, Result};

/// Seconds and evaluations an optimization took.
#[derive(Clone, Copy)]
pub struct Search {
    pub seconds: f64,
    pub evals: u64,
}

impl Search {
    /// Evaluations per second.
    pub fn rate(self) -> f64 {
        self.evals as f64 / self.seconds.max(1e-9)
    }
}

/// Our program in one table: what it is and what making it cost.
pub struct Ours {
    pub instructions: usize,
    pub stack_bytes: u32,
    /// `None` for a program reused from an earlier run.
    pub search: Option<Search>,
    /// The algorithm the program computes the function by (its header's `algorithm:`).
    pub algorithm: Option<String>,
}

/// One function of the report: per table, our program and the comparison.
pub struct Line {
    pub function: String,
    pub throughput: (Ours, Compared),
    pub latency: Option<(Ours, Compared)>,
}

/// Which measure the searches optimized for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptimizeFor {
    Both,
    Throughput,
    Latency,
}

/// How the run was made: what the reports say besides the machine and the numbers.
pub struct Run<'a> {
    /// The folder the reports go to.
    pub out: &'a Path,
    /// Programs of an earlier run, measured again (no search).
    pub reuse: bool,
    pub evals: u64,
    pub optimize_for: OptimizeFor,
    pub target: Target,
    pub repeats: usize,
    pub batches: usize,
    pub seed: u64,
}

/// What the reports say about the run besides the numbers.
pub struct Setting<'a> {
    /// Where the functions came from, as a phrase.
    pub source: &'a str,
    /// The counter's short name (`tsc`) and what it is ([`counter::Counter::describe`]).
    pub counter: &'a str,
    pub counter_describe: &'a str,
    /// Each `--compilers` entry with the first line of its `--version`.
    pub compilers: &'a [(String, String)],
    /// Each `--compare` name with its file.
    pub compared: &'a [(String, String)],
    /// Seconds the whole run took.
    pub seconds: f64,
    /// Sentences under the tables (what a table's columns cannot say).
    pub notes: &'a [String],
}

/// One row of a table: function, our program, the comparison (program 0 is ours, then
/// one per column; a NaN ratio is a `--compare` program that lacks the function).
type Row<'a> = (&'a str, &'a Ours, &'a Compared);

/// The measures, as (name in the reports, whether it is the latency table).
const MEASURES: [(&str, bool); 2] = [("throughput", false), ("latency", true)];

/// The rows of one measure's table (latency: only the functions that can be chained).
fn rows(lines: &[Line], latency: bool) -> Vec<Row<'_>> {
    lines
        .iter()
        .filter_map(|l| {
            let (o, c) = if latency {
                l.latency.as_ref()?
            } else {
                &l.throughput
            };
            Some((l.function.as_str(), o, c))
        })
        .collect()
}

/// Writes bench.md, bench.csv and bench.html to the run's folder; returns the markdown
/// (for the caller to show). `columns`: the compilers, then the other columns' names.
pub fn write_reports(
    args: &Run<'_>,
    columns: &[String],
    lines: &[Line],
    setting: &Setting,
) -> Result<String> {
    std::fs::create_dir_all(args.out).map_err(|e| Error::io("create", args.out, e))?;
    let (md, csv) = markdown_and_csv(args, columns, lines, setting);
    let html = html(args, columns, lines, setting)?;
    write_atomically(&args.out.join("bench.md"), md.as_bytes())?;
    write_atomically(&args.out.join("bench.csv"), csv.as_bytes())?;
    write_atomically(&args.out.join("bench.html"), html.as_bytes())?;
    Ok(md)
}

/// Which programs were measured and what their search cost, as a phrase.
fn programs(args: &Run<'_>) -> String {
    if args.reuse {
        return format!("the programs of an earlier run in {}", args.out.display());
    }
    let evals = args.evals;
    match args.optimize_for {
        OptimizeFor::Both => format!(
            "{evals} evaluations per function and measure (each table shows the program optimized for its measure)"
        ),
        OptimizeFor::Throughput => format!(
            "{evals} evaluations each, optimized for throughput (both tables show that program)"
        ),
        OptimizeFor::Latency => format!(
            "{evals} evaluations each, optimized for latency (both tables show that program)"
        ),
    }
}

/// The markdown report and the CSV.
fn markdown_and_csv(
    args: &Run<'_>,
    ccs: &[String],
    lines: &[Line],
    setting: &Setting,
) -> (String, String) {
    let counter = setting.counter;
    let mut md = String::new();
    let mut csv = String::from("mode,function,instructions,stack_bytes,cryptopt");
    for cc in ccs {
        let _ = write!(csv, ",{cc},speedup_over_{cc}");
    }
    csv.push_str(",halves_agree,counter,optimize_seconds,evals_per_second,algorithm\n");
    let _ = writeln!(
        md,
        "# cryptopt bench\n\nFunctions from {}; {}; target {} (compilers: `{}`); every program run against the interpreter and proved equivalent by the checker; counter `{counter}` (median ticks per call, mean of {} repeated interleaved measurements; a speed-up is the geometric mean of the per-measurement ratios); CPU {}; total time {:.0} s.\n",
        setting.source, programs(args), args.target, baseline::flags_line(args.target), args.repeats, counter::cpu_model(), setting.seconds
    );
    for (mode, latency) in MEASURES {
        let rows = rows(lines, latency);
        if rows.is_empty() {
            continue;
        }
        let _ = writeln!(md, "## {mode}\n");
        let _ = write!(md, "| function | instructions | stack bytes | cryptopt |");
        for cc in ccs {
            let _ = write!(md, " {cc} | speed-up over {cc} |");
        }
        let _ = writeln!(md, " optimize s | evals/s | algorithm |");
        let _ = writeln!(md, "|{}", "---|".repeat(7 + 2 * ccs.len()));
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
            let algorithm = l.algorithm.as_deref().unwrap_or("–");
            let _ = writeln!(md, " {secs} | {rate} | {algorithm} |");
            let (secs, rate) = match l.search {
                Some(sr) => (format!("{:.1}", sr.seconds), format!("{:.0}", sr.rate())),
                None => (String::new(), String::new()),
            };
            let algorithm = l.algorithm.as_deref().unwrap_or("");
            let _ = writeln!(csv, ",{},{counter},{secs},{rate},{algorithm}", c.agreed);
        }
        let _ = write!(md, "| **geometric mean** | | | |");
        for k in 0..ccs.len() {
            let g = geomean(rows.iter().map(|(_, _, c)| c.ratios[k + 1]));
            if g.is_finite() {
                let _ = write!(md, " | **{g:.2}** |");
            } else {
                md.push_str(" | – |");
            }
        }
        let _ = writeln!(md, " | | |\n");
    }
    for note in setting.notes {
        let _ = writeln!(md, "{note}\n");
    }
    (md, csv)
}

/// Text for HTML element content and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(ch),
        }
    }
    out
}

pub const STYLE: &str = "\
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;max-width:1180px;margin:2em auto;padding:0 1em;color:#222;line-height:1.45}
h1{margin-bottom:.3em}h2{margin-top:1.6em;border-bottom:1px solid #ddd;padding-bottom:.2em}
dl.machine{display:grid;grid-template-columns:max-content 1fr;gap:.35em 1.2em;background:#f6f6f6;border:1px solid #ddd;border-radius:4px;padding:.8em 1.2em}
dl.machine dt{font-weight:600}dl.machine dd{margin:0}
code{font-family:ui-monospace,monospace;font-size:95%}
div.wide{overflow-x:auto}table{border-collapse:collapse;margin:.6em 0;font-size:13.5px}sup{line-height:0}
th,td{border:1px solid #bbb;padding:3px 7px}
thead th{background:#eee;text-align:center;vertical-align:bottom}thead tr+tr th{white-space:nowrap}
td{text-align:right;font-variant-numeric:tabular-nums}
td.fn,tfoot th{text-align:left;font-family:ui-monospace,monospace}
tfoot th,tfoot td{background:#f6f6f6;font-weight:bold}
td.win{color:#0a6b1f}td.loss{color:#b00020}
.note{font-size:90%;color:#555}
figure{margin:1em 0}svg{max-width:100%;height:auto}
";

/// bench.html: heading, what was done, the machine, then per measure a table and a
/// chart.
fn html(args: &Run<'_>, ccs: &[String], lines: &[Line], setting: &Setting) -> Result<String> {
    let mut h = String::new();
    let _ = write!(
        h,
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>cryptopt bench</title>\n<style>\n{STYLE}</style></head><body>\n<h1>cryptopt bench</h1>\n"
    );
    let _ = writeln!(
        h,
        "<p>Functions from {}; {}. Every program was run against the interpreter and proved \
         equivalent by the checker before it was measured, the C baselines were run against \
         the interpreter too. A number of ticks is the counter's median ticks per call, the \
         mean of {} repeated interleaved measurements (lower is better); a speed-up is \
         baseline ticks / cryptopt ticks, the geometric mean of the per-measurement ratios \
         (&gt; 1: cryptopt is faster).</p>",
        escape(setting.source),
        escape(&programs(args)),
        args.repeats
    );
    h.push_str("<h2>Machine</h2>\n<dl class=\"machine\">\n");
    let mut item = |term: &str, html_text: &str| {
        let _ = writeln!(h, "<dt>{}</dt><dd>{html_text}</dd>", escape(term));
    };
    item("CPU", &escape(&counter::cpu_model()));
    item("Counter", &escape(setting.counter_describe));
    for (cc, version) in setting.compilers {
        item(
            &format!("Compiler {cc}"),
            &format!(
                "{} <span class=\"note\">(<code>{}</code>)</span>",
                escape(version),
                escape(&baseline::flags_line(args.target))
            ),
        );
    }
    for (name, file) in setting.compared {
        item(
            &format!("Compared {name}"),
            &format!(
                "<code>{}</code> (proved and run against the interpreter too)",
                escape(file)
            ),
        );
    }
    let budget = if args.reuse {
        "no search (programs of an earlier run)".to_string()
    } else {
        format!("{} evaluations per search", args.evals)
    };
    item(
        "Run",
        &escape(&format!(
            "{budget}; {} repeats of {} batches; seed {}; total time {:.0} s; finished {}",
            args.repeats,
            args.batches,
            args.seed,
            setting.seconds,
            utc_now()
        )),
    );
    h.push_str("</dl>\n");
    for (mode, latency) in MEASURES {
        let rows = rows(lines, latency);
        if rows.is_empty() {
            continue;
        }
        let what = if latency {
            "Latency: each call's output is the next call's input."
        } else {
            "Throughput: repeated independent calls on the same inputs, which may overlap in the CPU."
        };
        let _ = writeln!(
            h,
            "<h2>{}{}</h2>\n<p class=\"note\">{what} Ticks of the counter {} per call.</p>",
            mode[..1].to_uppercase(),
            &mode[1..],
            escape(setting.counter)
        );
        table(&mut h, ccs, &rows);
        let chart = bar_chart(&rows, ccs, mode, setting.counter)?;
        let _ = writeln!(h, "<figure>{chart}</figure>");
    }
    for note in setting.notes {
        let _ = writeln!(h, "<p>{}</p>", escape(note));
    }
    h.push_str("</body></html>\n");
    Ok(h)
}

/// One measure's table: a header row per column group, a row per function, the geometric
/// means in the footer, and the footnote for rows whose halves never agreed.
fn table(h: &mut String, ccs: &[String], rows: &[Row]) {
    h.push_str(
        "<div class=\"wide\"><table>\n<thead><tr><th rowspan=\"2\">function</th><th rowspan=\"2\">instructions</th>\
         <th rowspan=\"2\">stack bytes</th><th rowspan=\"2\">cryptopt ticks</th>",
    );
    for cc in ccs {
        let _ = write!(h, "<th colspan=\"2\">{}</th>", escape(cc));
    }
    h.push_str(
        "<th rowspan=\"2\">optimize s</th><th rowspan=\"2\">evals/s</th><th rowspan=\"2\">algorithm</th></tr>\n<tr>",
    );
    for _ in ccs {
        h.push_str("<th>ticks</th><th>speed-up</th>");
    }
    h.push_str("</tr></thead>\n<tbody>\n");
    // Green above 1, red below, as the number is written (1.00 is neither).
    let class = |su: f64| match (su * 100.0).round().partial_cmp(&100.0) {
        Some(std::cmp::Ordering::Greater) => " class=\"win\"",
        Some(std::cmp::Ordering::Less) => " class=\"loss\"",
        _ => "",
    };
    let mut dash = false;
    for (function, l, c) in rows {
        let star = if c.agreed { "" } else { "<sup>*</sup>" };
        let _ = write!(
            h,
            "<tr><td class=\"fn\">{}{star}</td><td>{}</td><td>{}</td><td>{:.1}</td>",
            escape(function),
            l.instructions,
            l.stack_bytes,
            c.means[0]
        );
        for k in 1..=ccs.len() {
            let su = c.ratios[k];
            if su.is_finite() {
                let _ = write!(h, "<td>{:.1}</td><td{}>{su:.2}</td>", c.means[k], class(su));
            } else {
                h.push_str("<td>–</td><td>–</td>");
                dash = true;
            }
        }
        match l.search {
            Some(sr) => {
                let _ = write!(h, "<td>{:.1}</td><td>{:.0}</td>", sr.seconds, sr.rate());
            }
            None => {
                h.push_str("<td>–</td><td>–</td>");
                dash = true;
            }
        }
        let algorithm = l.algorithm.as_deref().unwrap_or("–");
        let _ = writeln!(h, "<td>{}</td></tr>", escape(algorithm));
    }
    h.push_str("</tbody>\n<tfoot><tr><th>geometric mean</th><td></td><td></td><td></td>");
    for k in 1..=ccs.len() {
        let g = geomean(rows.iter().map(|(_, _, c)| c.ratios[k]));
        if g.is_finite() {
            let _ = write!(h, "<td></td><td{}>{g:.2}</td>", class(g));
        } else {
            h.push_str("<td></td><td>–</td>");
        }
    }
    h.push_str("<td></td><td></td><td></td></tr></tfoot>\n</table></div>\n");
    if rows.iter().any(|(_, _, c)| !c.agreed) {
        h.push_str(
            "<p class=\"note\">* The two random halves of the repeated measurements never \
             agreed (Welch's t-test, 5%), even when measured again up to five times: the \
             numbers of that row are less certain than the others.</p>\n",
        );
    }
    if dash {
        h.push_str(
            "<p class=\"note\">– : no such program (a <code>--compare</code> file without this \
         function), or no search in this run (<code>--reuse</code>).</p>\n",
        );
    }
}

/// A chart that could not be drawn, as the driver's error.
pub fn plot_error(e: impl std::fmt::Display) -> Error {
    Error::Plot(format!("drawing the chart: {e}"))
}

/// One measure's speed-ups over each column, a group of bars per function (a NaN ratio,
/// a `--compare` program without the function, gets no bar), with the 1.0 line.
fn bar_chart(rows: &[Row], ccs: &[String], mode: &str, counter: &str) -> Result<String> {
    let names: Vec<&str> = rows
        .iter()
        .map(|(f, _, _)| f.trim_start_matches("fiat_"))
        .collect();
    // The names are written upwards under their group: about 7 px a character, then
    // room for the axis description below them.
    let longest = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    let label_area = (longest as f64 * 6.8) as u32 + 45;
    let n = rows.len().max(1);
    let max = rows
        .iter()
        .flat_map(|(_, _, c)| c.ratios[1..].iter().copied())
        .filter(|r| r.is_finite())
        .fold(1.0f64, f64::max);
    // Headroom for the legend: about 22 px per entry (a column each and the 1.0 line) of
    // the plot's 340 px.
    let legend = (22.0 * (ccs.len() + 1) as f64 + 16.0) / 340.0;
    let top = max / (0.95 - legend).max(0.3);
    // Few functions: narrower groups, in the middle of their slot.
    let group = (0.2 * n as f64).min(0.8);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (1060, 420 + label_area)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_error)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!("{mode}: speed-up of cryptopt over each baseline (counter {counter})"),
                ("sans-serif", 22),
            )
            .margin(15)
            .x_label_area_size(label_area)
            .y_label_area_size(75)
            .build_cartesian_2d(0f64..n as f64, 0f64..top)
            .map_err(plot_error)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .light_line_style(TRANSPARENT)
            .x_labels(0)
            .y_label_style(("sans-serif", 15))
            .axis_desc_style(("sans-serif", 17))
            .x_desc("function")
            .y_desc("speed-up (baseline time / cryptopt time; > 1 is faster)")
            .draw()
            .map_err(plot_error)?;
        let w = group / ccs.len().max(1) as f64;
        for (k, cc) in ccs.iter().enumerate() {
            let color = Palette99::pick(k).to_rgba();
            let bars = rows.iter().enumerate().filter_map(|(i, (_, _, c))| {
                let r = c.ratios[k + 1];
                let x0 = i as f64 + 0.5 - group / 2.0 + k as f64 * w;
                r.is_finite()
                    .then(|| Rectangle::new([(x0, 0.0), (x0 + w, r)], color.filled()))
            });
            chart
                .draw_series(bars)
                .map_err(plot_error)?
                .label(cc.clone())
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 6), (x + 14, y + 6)], color.filled())
                });
        }
        chart
            .draw_series(LineSeries::new(
                vec![(0.0, 1.0), (n as f64, 1.0)],
                BLACK.stroke_width(2),
            ))
            .map_err(plot_error)?
            .label("1.0: as fast as the baseline")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 14, y)], BLACK.stroke_width(2)));
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .label_font(("sans-serif", 15))
            .border_style(BLACK)
            .background_style(WHITE.mix(0.9))
            .draw()
            .map_err(plot_error)?;
        // The function names, upwards, their ends just under the middle of their group.
        let style = TextStyle::from(("sans-serif", 15).into_font())
            .transform(FontTransform::Rotate270)
            .pos(Pos::new(HPos::Right, VPos::Center));
        for (i, name) in names.iter().enumerate() {
            let (x, y) = chart.backend_coord(&(i as f64 + 0.5, 0.0));
            root.draw(&Text::new(name.to_string(), (x, y + 8), style.clone()))
                .map_err(plot_error)?;
        }
        root.present().map_err(plot_error)?;
    }
    Ok(svg)
}

/// The time now, to the second, in UTC (RFC 3339).
fn utc_now() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn escape_replaces_every_special_character() {
        assert_eq!(
            super::escape(r#"gcc <x> & "y" 'z'"#),
            "gcc &lt;x&gt; &amp; &quot;y&quot; &#39;z&#39;"
        );
    }
}
