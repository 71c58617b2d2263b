//! Reports of an optimization run: the per-evaluation log (CSV) and the progress plot
//! (SVG, like Figure 8 of the CryptOpt paper: best ratio over the baseline against
//! evaluations on a log scale, one line per bet).
//!
//! Rendering only: never reads or changes the search state.

use plotters::prelude::*;

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
    /// The mutant's time over the current's, paired by round, and the rounds measured.
    pub step_ratio: f64,
    pub rounds: usize,
    /// The walk's ratio to the baseline and the baseline, from its last ranking.
    pub walk_ratio: f64,
    pub best_ratio: f64,
    pub baseline: f64,
    /// Seconds since the run started (continued across resumes).
    pub seconds: f64,
}

pub const CSV_HEADER: &str = "evaluation,walk,phase,mutation,kept,current_cycles,mutant_cycles,step_ratio,rounds,walk_ratio,best_ratio,baseline_cycles,seconds\n";

impl Row {
    pub fn csv(&self) -> String {
        format!(
            "{},{},{},{},{},{:.1},{:.1},{:.4},{},{:.4},{:.4},{:.1},{:.2}\n",
            self.index,
            self.walk,
            self.phase,
            self.mutation,
            self.kept as u8,
            self.current,
            self.mutant,
            self.step_ratio,
            self.rounds,
            self.walk_ratio,
            self.best_ratio,
            self.baseline,
            self.seconds
        )
    }
}

/// The progress plot: for each walk, its cost ratio over the baseline (from the walk's
/// rankings: its current candidate and the baseline side by side, lower is better)
/// against the evaluation index.
pub fn progress_svg(title: &str, rows: &[Row], walks: usize) -> Result<String, String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (960, 540)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let max_x = rows.iter().map(|r| r.index).max().unwrap_or(1).max(2) as f64;
        let ys: Vec<f64> = rows
            .iter()
            .map(|r| r.walk_ratio)
            .filter(|y| y.is_finite())
            .collect();
        let (lo, hi) = ys
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &y| {
                (a.min(y), b.max(y))
            });
        let (lo, hi) = if lo.is_finite() {
            (lo * 0.95, hi * 1.05)
        } else {
            (0.0, 2.0)
        };
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d((1f64..max_x).log_scale(), lo..hi.max(lo + 1e-3))
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .x_desc("evaluations (log scale)")
            .y_desc("cycles / baseline cycles")
            .draw()
            .map_err(|e| e.to_string())?;
        for w in 0..walks {
            let pts: Vec<(f64, f64)> = rows
                .iter()
                .filter(|r| r.walk == w)
                .map(|r| (r.index as f64, r.walk_ratio))
                .filter(|p| p.1.is_finite())
                .collect();
            if pts.is_empty() {
                continue;
            }
            let color = Palette99::pick(w).to_rgba();
            chart
                .draw_series(LineSeries::new(pts, color.stroke_width(2)))
                .map_err(|e| e.to_string())?
                .label(format!("walk {w}"))
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
        }
        chart
            .draw_series(LineSeries::new(
                vec![(1.0, 1.0), (max_x, 1.0)],
                BLACK.stroke_width(1),
            ))
            .map_err(|e| e.to_string())?
            .label("baseline");
        chart
            .configure_series_labels()
            .border_style(BLACK)
            .background_style(WHITE.mix(0.8))
            .draw()
            .map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(svg)
}
