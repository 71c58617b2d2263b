//! How a search shows itself on stderr: the binary's [`Progress`] for the driver. A live
//! bar on a terminal; elsewhere (a log file, a pipe, `bench`'s parallel searches) one
//! line every so many seconds.

use std::io::IsTerminal;
use std::time::Instant;

use cryptopt_driver::progress::human_seconds;
use cryptopt_driver::Progress;
use indicatif::{ProgressBar, ProgressStyle};

/// How a search shows its progress on stderr.
pub enum Display {
    /// A job on its own: its machine lines, and a live bar on a terminal; elsewhere one
    /// line every so many seconds.
    Auto(f64),
    /// Only the lines, every so many seconds, each starting with the label (for
    /// `bench`'s parallel searches).
    Lines(String, f64),
}

/// A [`Display`] at work.
pub struct Shown {
    alone: bool,
    bar: ProgressBar,
    /// The lines' label (with its `: `), where lines are shown.
    label: Option<String>,
    every: f64,
    last: Instant,
    started: Instant,
    done: u64,
    total: u64,
}

impl Display {
    /// Starts showing.
    pub fn show(&self) -> Shown {
        let (alone, bar, label, every) = match self {
            Display::Auto(_) if std::io::stderr().is_terminal() => {
                (true, ProgressBar::new(0), None, 0.0)
            }
            Display::Auto(every) => (true, ProgressBar::hidden(), Some(String::new()), *every),
            Display::Lines(label, every) => (
                false,
                ProgressBar::hidden(),
                Some(format!("{label}: ")),
                *every,
            ),
        };
        Shown {
            alone,
            bar,
            label,
            every,
            last: Instant::now(),
            started: Instant::now(),
            done: 0,
            total: 0,
        }
    }
}

impl Progress for Shown {
    fn note(&mut self, line: &str) {
        if self.alone {
            eprintln!("{line}");
        }
    }

    fn warn(&mut self, line: &str) {
        eprintln!("{line}");
    }

    fn start(&mut self, done: u64, total: u64) {
        (self.done, self.total) = (done, total);
        self.started = Instant::now();
        self.last = Instant::now();
        // Rates and the ETA count this run's evaluations only.
        self.bar.set_length(total);
        self.bar.set_position(done);
        self.bar.reset_eta();
        self.bar.set_style(
            ProgressStyle::with_template("{bar:30} {pos}/{len} evals {per_sec} eta {eta} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
    }

    fn step(&mut self, index: u64, status: &dyn Fn() -> String) {
        if !self.bar.is_hidden() {
            self.bar.set_position(index);
            if index.is_multiple_of(16) {
                self.bar.set_message(status());
            }
        }
        if let Some(label) = &self.label {
            if self.last.elapsed().as_secs_f64() >= self.every {
                self.last = Instant::now();
                let secs = self.started.elapsed().as_secs_f64();
                let rate = index.saturating_sub(self.done) as f64 / secs.max(1e-9);
                let eta = self.total.saturating_sub(index) as f64 / rate.max(1e-9);
                eprintln!(
                    "{label}{index}/{} evals, {rate:.0}/s, eta {}; {}",
                    self.total,
                    human_seconds(eta),
                    status()
                );
            }
        }
    }

    fn finish(&mut self) {
        self.bar.finish_and_clear();
    }
}
