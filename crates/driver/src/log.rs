//! Reports of an optimization run: the per-evaluation log (`log.csv`, appended across
//! resumes) and the progress plot (`progress.svg`, like Figure 8 of the CryptOpt paper:
//! best speed-up over the baseline against evaluations on a log scale, one line per
//! walk).
//!
//! One convention for every figure here, as everywhere in cryptopt's output: a
//! speed-up is the other program's time over ours (above 1: ours is faster).
//!
//! Rendering and bookkeeping only: never reads or changes the search state.

use std::path::Path;

use plotters::prelude::*;

/// A plotting failure as the driver's error.
fn plot_error(e: impl std::fmt::Display) -> crate::Error {
    crate::Error::Plot(e.to_string())
}

/// One row of `log.csv`.
pub struct Row {
    pub index: u64,
    pub walk: usize,
    pub phase: &'static str,
    pub mutation: &'static str,
    pub kept: bool,
    /// Median ticks of the current candidate and the mutant in the step's measurement
    /// (0 when the mutant's code was the current's and nothing was measured).
    pub current: f64,
    pub mutant: f64,
    /// The mutant's speed-up over the current candidate (current time / mutant time,
    /// paired by round), and the rounds measured.
    pub step_speedup: f64,
    pub rounds: usize,
    /// The walk's speed-up over the baseline and the baseline's ticks, from the walk's
    /// last ranking.
    pub walk_speedup: f64,
    pub baseline: f64,
    /// Seconds since the run started (continued across resumes).
    pub seconds: f64,
}

pub const CSV_HEADER: &str = "evaluation,walk,phase,mutation,kept,current_cycles,mutant_cycles,step_speedup,rounds,walk_speedup,best_speedup,baseline_cycles,seconds\n";

/// One walk's ranked speed-up at one evaluation: what the plot draws.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    pub index: u64,
    pub walk: usize,
    pub speedup: f64,
}

/// The run's log: the CSV text so far, the points of the plot, and the best speed-up
/// any ranking has shown (never falls, unlike the walks' current speed-ups, which are
/// re-measured).
#[derive(Default)]
pub struct Log {
    csv: String,
    pub points: Vec<Point>,
    pub best: f64,
    /// Seconds of the run so far (of earlier runs, when resumed).
    pub seconds: f64,
}

impl Log {
    /// The earlier part of a resumed run: the rows of `path` up to evaluation `upto`
    /// (a run interrupted after its state was saved may have logged further). A
    /// missing file, or one written by another version (another header), gives an
    /// empty log.
    pub fn resume(path: &Path, upto: u64) -> Log {
        let mut log = Log::default();
        let Ok(text) = std::fs::read_to_string(path) else {
            return log;
        };
        let mut lines = text.lines();
        if lines.next().map(|h| format!("{h}\n")).as_deref() != Some(CSV_HEADER) {
            return log;
        }
        // The columns read back, found by name in the one header.
        let column = |name: &str| {
            CSV_HEADER
                .trim_end()
                .split(',')
                .position(|h| h == name)
                .expect("a column of CSV_HEADER")
        };
        let (speedup, seconds) = (column("walk_speedup"), column("seconds"));
        for line in lines {
            let fields: Vec<&str> = line.split(',').collect();
            let num = |i: usize| fields.get(i).and_then(|t| t.parse::<f64>().ok());
            let (Some(index), Some(walk)) = (
                fields.first().and_then(|t| t.parse::<u64>().ok()),
                fields.get(1).and_then(|t| t.parse::<usize>().ok()),
            ) else {
                continue;
            };
            if index > upto {
                continue;
            }
            if let Some(s) = num(speedup) {
                log.note(index, walk, s);
            }
            log.seconds = num(seconds).unwrap_or(log.seconds);
            log.csv.push_str(line);
            log.csv.push('\n');
        }
        log
    }

    fn note(&mut self, index: u64, walk: usize, speedup: f64) {
        if speedup.is_finite() {
            self.points.push(Point {
                index,
                walk,
                speedup,
            });
            self.best = self.best.max(speedup);
        }
    }

    /// Appends one evaluation; its best speed-up column is the log's.
    pub fn record(&mut self, r: &Row) {
        self.note(r.index, r.walk, r.walk_speedup);
        self.seconds = r.seconds;
        self.csv.push_str(&format!(
            "{},{},{},{},{},{:.1},{:.1},{:.4},{},{:.4},{:.4},{:.1},{:.2}\n",
            r.index,
            r.walk,
            r.phase,
            r.mutation,
            r.kept as u8,
            r.current,
            r.mutant,
            r.step_speedup,
            r.rounds,
            r.walk_speedup,
            self.best,
            r.baseline,
            r.seconds
        ));
    }

    /// The whole `log.csv`.
    pub fn csv(&self) -> String {
        format!("{CSV_HEADER}{}", self.csv)
    }
}

/// The progress plot: for each walk, the best speed-up over the baseline its rankings
/// have shown so far (its current candidate and the baseline measured side by side),
/// against the evaluation index; the baseline is the line at 1.
pub fn progress_svg(title: &str, points: &[Point], walks: usize) -> crate::Result<String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (960, 540)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_error)?;
        let max_x = points.iter().map(|p| p.index).max().unwrap_or(1).max(2) as f64;
        let (lo, hi) = points.iter().fold((1.0f64, 1.0f64), |(a, b), p| {
            (a.min(p.speedup), b.max(p.speedup))
        });
        let (lo, hi) = (lo * 0.95, hi * 1.05);
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(50)
            .y_label_area_size(70)
            .build_cartesian_2d((1f64..max_x).log_scale(), lo..hi)
            .map_err(plot_error)?;
        chart
            .configure_mesh()
            .x_desc("evaluations (log scale)")
            .y_desc("best speed-up so far (baseline time / ours)")
            .draw()
            .map_err(plot_error)?;
        for w in 0..walks {
            let mut best = f64::NEG_INFINITY;
            let pts: Vec<(f64, f64)> = points
                .iter()
                .filter(|p| p.walk == w)
                .map(|p| {
                    best = best.max(p.speedup);
                    (p.index as f64, best)
                })
                .collect();
            if pts.is_empty() {
                continue;
            }
            let color = Palette99::pick(w).to_rgba();
            chart
                .draw_series(LineSeries::new(pts, color.stroke_width(2)))
                .map_err(plot_error)?
                .label(format!("walk {w}"))
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                });
        }
        chart
            .draw_series(LineSeries::new(
                vec![(1.0, 1.0), (max_x, 1.0)],
                BLACK.stroke_width(2),
            ))
            .map_err(plot_error)?
            .label("baseline (1.0)")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLACK.stroke_width(2)));
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .border_style(BLACK)
            .background_style(WHITE.mix(0.8))
            .draw()
            .map_err(plot_error)?;
        root.present().map_err(plot_error)?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(index: u64, walk: usize, walk_speedup: f64) -> Row {
        Row {
            index,
            walk,
            phase: "bets",
            mutation: "permute",
            kept: true,
            current: 100.0,
            mutant: 90.0,
            step_speedup: 100.0 / 90.0,
            rounds: 5,
            walk_speedup,
            baseline: 150.0,
            seconds: index as f64,
        }
    }

    /// The best column never falls, and a resumed log reads back the rows (and only
    /// those up to the state's evaluation), the best and the seconds.
    #[test]
    fn best_never_falls_and_resume_reads_back() {
        let mut log = Log::default();
        for (i, s) in [(1, 1.2), (2, 1.5), (3, 1.1), (4, f64::NAN), (5, 1.6)] {
            log.record(&row(i, (i % 2) as usize, s));
        }
        let csv = log.csv();
        let best: Vec<&str> = csv
            .lines()
            .skip(1)
            .map(|l| l.split(',').nth(10).unwrap())
            .collect();
        assert_eq!(best, ["1.2000", "1.5000", "1.5000", "1.5000", "1.6000"]);

        let path =
            std::env::temp_dir().join(format!("cryptopt-log-test-{}.csv", std::process::id()));
        std::fs::write(&path, &csv).unwrap();
        let back = Log::resume(&path, 3);
        std::fs::remove_file(&path).unwrap();
        assert_eq!(
            back.csv(),
            csv.lines()
                .take(4)
                .map(|l| format!("{l}\n"))
                .collect::<String>()
        );
        assert_eq!(back.best, 1.5);
        assert_eq!(back.seconds, 3.0);
        assert_eq!(back.points.len(), 3);
    }

    /// The plot draws something for every walk and a labelled baseline.
    #[test]
    fn plot_has_walks_and_baseline() {
        let pts: Vec<Point> = (1..50)
            .map(|i| Point {
                index: i,
                walk: (i % 3) as usize,
                speedup: 1.0 + i as f64 / 100.0,
            })
            .collect();
        let svg = progress_svg("t", &pts, 3).unwrap();
        for label in ["walk 0", "walk 2", "baseline (1.0)", "best speed-up so far"] {
            assert!(svg.contains(label), "{label} missing");
        }
    }
}
