//! The machine a job runs on: the measuring thread pinned to one of the CPUs the
//! process was given, the counter chosen there, and C baselines compiled and checked
//! against the interpreter before they are trusted. One home for that preamble: scalar
//! and vector optimization, bench's measurements and `--reuse` all open a [`Session`].

use cryptopt_ir::Function;
use cryptopt_measure::baseline::{self, CompiledC};
use cryptopt_measure::counter::{self, Choice, Counter, Probe};
use cryptopt_x86::{Abi, Target};

use crate::checks::check_baseline;
use crate::{cpus, Error, Result};

/// A pinned thread and its counter.
pub struct Session {
    /// The CPU this thread is pinned to.
    pub cpu: usize,
    pub counter: Counter,
    /// Why this counter (measured noise and read cost, or the caller's choice).
    pub why: String,
    /// What was measured of every counter that works here.
    pub probes: Vec<Probe>,
}

impl Session {
    /// Pins the calling thread to `cpu` (one of [`cpus::allowed`]) and picks the
    /// counter `choice` names.
    pub fn open(cpu: usize, choice: Choice) -> Result<Session> {
        pin(cpu)?;
        let chosen = counter::choose(choice)?;
        Ok(Session {
            cpu,
            counter: chosen.counter,
            why: chosen.why,
            probes: chosen.probes,
        })
    }

    /// The lines a job on its own shows about the machine: `cpu: …`, `counter: …`,
    /// `counters: …`.
    pub fn describe(&self) -> [String; 3] {
        [
            format!("cpu: {} (pinned to cpu {})", counter::cpu_model(), self.cpu),
            format!("counter: {} ({})", self.counter.describe(), self.why),
            format!("counters: {}", counter::describe_probes(&self.probes)),
        ]
    }

    /// `f`'s C `source` compiled by `cc` for `target`, then run against the interpreter
    /// under `abi` (an error names it `what`) before it is measured.
    pub fn baseline(
        &self,
        f: &Function,
        source: &str,
        cc: &str,
        target: Target,
        abi: Abi,
        what: &str,
    ) -> Result<CompiledC> {
        let c = CompiledC::build(source, &f.name, cc, baseline::target_flags(target))?;
        check_baseline(f, c.ptr(), abi, what)?;
        Ok(c)
    }
}

/// Pins the calling thread to `cpu`; a CPU outside the process's mask is a parameter
/// error that lists the allowed ones.
pub fn pin(cpu: usize) -> Result<()> {
    // The kernel would let a thread widen its mask beyond what `taskset` gave the
    // process (only a cpuset is enforced): the mask read at start-up is the rule.
    let allowed = cpus::allowed();
    if !allowed.contains(&cpu) {
        return Err(Error::param(
            "cpu",
            format!(
                "{cpu} cannot be used: this process may use CPUs {}",
                cpus::describe(&allowed)
            ),
        ));
    }
    counter::pin_to_cpu(cpu).map_err(|e| {
        Error::param(
            "cpu",
            format!(
                "{cpu} cannot be used ({e}): this process may use CPUs {}",
                cpus::describe(&cpus::allowed())
            ),
        )
    })
}

/// The line saying which baseline a job measures against: `baseline: gcc -O3 … (gcc
/// 12.2.0)`.
pub fn baseline_line(cc: &str, target: Target, c: &CompiledC) -> String {
    format!(
        "baseline: {cc} {} ({})",
        baseline::flags_line(target),
        c.compiler_version()
    )
}
