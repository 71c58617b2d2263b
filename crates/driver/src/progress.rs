//! How a run reports what it is doing: the [`Progress`] trait the binary implements (a
//! live bar, periodic lines, nothing). The driver calls it; it never prints.

/// What a run tells its watcher. Every method has a default that shows nothing.
pub trait Progress {
    /// A line about the machine or the job (the CPU, the counter, the baseline): shown
    /// by a job run on its own, left out where many run side by side.
    fn note(&mut self, _line: &str) {}
    /// Something the user should know whatever the display (a fallback taken).
    fn warn(&mut self, _line: &str) {}
    /// The search starts at evaluation `done` of `total`.
    fn start(&mut self, _done: u64, _total: u64) {}
    /// Evaluation `index` is done; `status` describes the speeds so far (call it only
    /// when it is shown: it formats).
    fn step(&mut self, _index: u64, _status: &dyn Fn() -> String) {}
    /// The search is over.
    fn finish(&mut self) {}
}

/// `95 s`, `12 min`, `2.5 h`.
pub fn human_seconds(s: f64) -> String {
    if !s.is_finite() {
        "unknown".to_string()
    } else if s < 120.0 {
        format!("{s:.0} s")
    } else if s < 7200.0 {
        format!("{:.0} min", s / 60.0)
    } else {
        format!("{:.1} h", s / 3600.0)
    }
}
