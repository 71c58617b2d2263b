//! `optimize --repr ifma`: the pipeline for a vector program (`cryptopt_ir::vector`).
//!
//! ```text
//!  vector program ─▶ scalar expansion (the reference: interpreter, C baseline, checker)
//!        │
//!        └─▶ search over instruction orders (`cryptopt_search::vector`, every step
//!            measured against the current program, checked against the interpreter)
//!              ─▶ best order ─▶ program ─▶ checked natively ─▶ proved ─▶ DIR/<function>/
//! ```
//!
//! The same guarantees and files as the scalar pipeline (its checks, final measurement
//! and provenance are the parent module's); what it does not have: resuming, bet-and-run
//! walks, `--emit rust`/`dispatch`, latency measurement, Windows x64 code.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use anyhow::{bail, Context, Result};

use cryptopt_codegen::{Options, Target};
use cryptopt_ir::vector::VFunction;
use cryptopt_measure::baseline::CompiledC;
use cryptopt_measure::counter;
use cryptopt_measure::timing::{Config, Mode};
use cryptopt_search::vector as search;

use super::{final_measurement, human_seconds, write_program, Job, Outcome, Progress, Provenance};
use crate::checks::{check_baseline, check_natively, prove, CheckFailed};
use crate::files::ensure_writable;

/// The options a vector program is made and checked under: the vector target, every
/// aliasing (loads come before stores), the System V convention.
pub(crate) fn options(given: Options) -> Result<Options> {
    if given.abi != cryptopt_x86::Abi::SysV {
        bail!("--repr ifma makes System V code only (Windows x64 keeps xmm6-xmm15)");
    }
    Ok(Options {
        target: Target::Avx512Ifma,
        ..given
    })
}

/// Optimizes `v`, whose scalar expansion is `job.f`.
pub(crate) fn optimize(job: Job<'_>, v: &VFunction, stop: &AtomicBool) -> Result<Outcome> {
    let started = Instant::now();
    let f = job.f;
    if !cryptopt_x86::Feature::Avx512Ifma.detected() {
        bail!("--repr ifma: this CPU has no AVX-512 IFMA (with VL and DQ) to run and time vector code on");
    }
    if job.cfg.mode == Mode::Latency {
        bail!("--repr ifma: --measure latency is not available (the outputs do not chain into the first argument)");
    }
    if job.resume.is_some() {
        bail!("--repr ifma: a vector search cannot be resumed");
    }
    if job.cfg.batches == 0 || job.cfg.cyclegoal == 0 {
        bail!("--batches and --cycle-goal must be at least 1");
    }
    let opts = options(job.opts)?;
    counter::pin_to_cpu(job.cpu).with_context(|| format!("cannot pin to --cpu {}", job.cpu))?;
    let dir = job.out.join(&f.name);
    ensure_writable(&dir)?;
    let chosen = counter::choose(job.counter)?;
    let counter = chosen.counter;
    let alone = matches!(job.progress, Progress::Auto(_));
    if alone {
        eprintln!("cpu: {} (pinned to cpu {})", counter::cpu_model(), job.cpu);
        eprintln!("counter: {} ({})", counter.describe(), chosen.why);
    }
    // The baseline: the expansion's C, checked like our own code before it is trusted.
    let c_source = cryptopt_measure::c::emit_for(f, opts.abi);
    let flags = cryptopt_measure::baseline::target_flags(opts.target);
    let baseline = CompiledC::build(&c_source, &f.name, &job.cc, flags)?;
    if alone {
        eprintln!(
            "baseline: {} {} ({})",
            job.cc,
            cryptopt_measure::baseline::flags_line(opts.target),
            baseline.compiler_version()
        );
    }
    check_baseline(f, baseline.ptr(), opts.abi, "the C baseline")?;

    let cfg = Config {
        abi: opts.abi,
        ..job.cfg
    };
    let params = search::Params {
        evals: job.params.evals,
        seed: job.params.seed,
        rank_every: 1000,
    };
    let every = match &job.progress {
        Progress::Auto(s) | Progress::Lines(_, s) => *s,
    };
    let label = match &job.progress {
        Progress::Lines(l, _) => format!("{l}: "),
        Progress::Auto(_) => String::new(),
    };
    let mut last = Instant::now();
    let search_started = Instant::now();
    let mut best = 0.0f64;
    let found = search::search(
        v,
        f,
        search::program_order(v),
        baseline.ptr(),
        &counter,
        cfg,
        params,
        stop,
        &mut |s| {
            if let Some(x) = s.speedup {
                best = best.max(x);
            }
            if last.elapsed().as_secs_f64() >= every {
                last = Instant::now();
                let rate = s.index as f64 / search_started.elapsed().as_secs_f64().max(1e-9);
                let eta = params.evals.saturating_sub(s.index) as f64 / rate.max(1e-9);
                eprintln!(
                    "{label}{}/{} evals, {rate:.0}/s, eta {}; best speed-up {best:.3}x over {} (its C of the expansion)",
                    s.index,
                    params.evals,
                    human_seconds(eta),
                    job.cc
                );
            }
        },
    );
    let found = match found {
        Err(cryptopt_search::Error::VectorMismatch { message, order }) => {
            return Err(CheckFailed(format!("{message} (the program of order {order:?})")).into())
        }
        other => other?,
    };
    let stopped = stop.load(Ordering::SeqCst);

    // The winner: checked natively (every aliasing the options allow), proved, written.
    let program = found.program;
    check_natively(f, &program, &opts, job.params.seed)?;
    if job.verify {
        prove(f, &program, &opts)?;
    }
    let (cycles, base) =
        final_measurement(f, &program, baseline.ptr(), &counter, &cfg, job.params.seed)?;
    let provenance = Provenance::of(&job, &opts, counter.name(), found.evals, base / cycles);
    let order = serde_json::to_string(&found.order)?;
    let extra = vec![("order.json".to_string(), order)];
    let (dir, asm_name, gas_name) = write_program(dir, &provenance, &program, extra)?;
    if alone {
        eprintln!(
            "{}: {} evaluations in {}",
            f.name,
            found.evals,
            human_seconds(started.elapsed().as_secs_f64())
        );
    }
    Ok(Outcome {
        header: provenance.lines(&program),
        program,
        cycles,
        baseline: base,
        evals: found.evals,
        seconds: started.elapsed().as_secs_f64(),
        counter: counter.name(),
        asm_path: dir.join(asm_name),
        gas_path: dir.join(gas_name),
        stopped,
        proved: job.verify,
    })
}
