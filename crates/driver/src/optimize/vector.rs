//! A vector job (`--repr ifma`): the pipeline for a program of `cryptopt_ir::vector`.
//!
//! ```text
//!  vector program ─▶ scalar expansion (the reference: interpreter, C baseline, checker)
//!        │
//!        └─▶ search over instruction orders (`cryptopt_search::vector`, every step
//!            measured against the current program, checked against the interpreter)
//!              ─▶ best order ─▶ program ─▶ checked natively ─▶ proved ─▶ DIR/<function>/
//! ```
//!
//! The same session, checks, final measurement, provenance and files as the scalar
//! pipeline (the parent module's); what it does not have: resuming, bet-and-run walks,
//! the Rust and dispatch emitters, latency measurement, Windows x64 code.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use cryptopt_codegen::{Options, Target};
use cryptopt_ir::vector::VFunction;
use cryptopt_measure::timing::{Config, Mode};
use cryptopt_search::vector as search;

use super::{final_measurement, outcome, prepare, provenance, Job, Outcome};
use crate::checks::{check_natively, prove};
use crate::progress::{human_seconds, Progress};
use crate::write::write_program;
use crate::{Error, Result};

/// The options a vector program is made and checked under: the vector target, every
/// aliasing (loads come before stores), the System V convention.
pub fn options(given: Options) -> Result<Options> {
    if given.abi != cryptopt_x86::Abi::SysV {
        return Err(Error::Unsupported(
            "the vector representation makes System V code only (Windows x64 keeps xmm6-xmm15)"
                .into(),
        ));
    }
    Ok(Options {
        target: Target::Avx512Ifma,
        ..given
    })
}

/// What a vector job cannot do here: no IFMA to run it on, latency, resuming.
fn refuse(job: &Job<'_>) -> Result<()> {
    if !cryptopt_x86::Feature::Avx512Ifma.detected() {
        return Err(Error::Unsupported(
            "the vector representation: this CPU has no AVX-512 IFMA (with VL and DQ) to run and time vector code on".into(),
        ));
    }
    if job.cfg.mode == Mode::Latency {
        return Err(Error::Unsupported(
            "the vector representation: latency measurement is not available (the outputs do not chain into the first argument)".into(),
        ));
    }
    if job.resume.is_some() {
        return Err(Error::Unsupported(
            "the vector representation: a vector search cannot be resumed".into(),
        ));
    }
    Ok(())
}

/// Optimizes `v`, whose scalar expansion is `job.f`.
pub(super) fn optimize(
    job: &Job<'_>,
    v: &VFunction,
    progress: &mut dyn Progress,
    stop: &AtomicBool,
) -> Result<Outcome> {
    let started = Instant::now();
    let f = job.f;
    refuse(job)?;
    let opts = options(job.opts)?;
    // The session, the output folder and the baseline (the expansion's C, checked like
    // our own code before it is trusted).
    let (session, baseline) = prepare(job, &opts, progress)?;
    let dir = job.out.join(&f.name);
    let counter = &session.counter;
    let cfg = Config {
        abi: opts.abi,
        ..job.cfg
    };
    let params = search::Params {
        evals: job.params.evals,
        seed: job.params.seed,
        rank_every: 1000,
    };
    progress.start(0, params.evals);
    let mut best = 0.0f64;
    let found = search::search(
        v,
        f,
        search::program_order(v),
        baseline.ptr(),
        counter,
        cfg,
        params,
        stop,
        &mut |s| {
            if let Some(x) = s.speedup {
                best = best.max(x);
            }
            progress.step(s.index, &|| {
                format!(
                    "best speed-up {best:.3}x over {} (its C of the expansion)",
                    job.cc
                )
            });
        },
    );
    progress.finish();
    let found = match found {
        Err(cryptopt_search::Error::VectorMismatch { message, order }) => {
            return Err(Error::CheckFailed(format!(
                "{message} (the program of order {order:?})"
            )))
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
    let measured = final_measurement(f, &program, baseline.ptr(), counter, &cfg, job.params.seed)?;
    let provenance = provenance(
        job,
        &opts,
        counter.name(),
        found.evals,
        measured.1 / measured.0,
    );
    let order = serde_json::to_string(&found.order)?;
    let extra = vec![("order.json".to_string(), order)];
    let written = write_program(dir, &provenance, &program, extra)?;
    progress.note(&format!(
        "{}: {} evaluations in {}",
        f.name,
        found.evals,
        human_seconds(started.elapsed().as_secs_f64())
    ));
    Ok(outcome(
        &provenance,
        program,
        measured,
        found.evals,
        started,
        counter.name(),
        written,
        stopped,
    ))
}
