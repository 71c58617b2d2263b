//! `optimize`: the whole pipeline for one function, scalar or vector.
//!
//! ```text
//!  Function ─▶ lower ─▶ Generator ─┐
//!  C (emit) ─▶ cc -O3 ─▶ baseline ─┼─▶ search (bet-and-run, every step measured
//!  Session: pinned CPU, counter ───┘    against the baseline and the interpreter)
//!        ─▶ best candidate ─▶ checked natively ─▶ proved ─▶ DIR/<function>/{.asm,.S,.h,
//!           state.json, log.csv, progress.svg} (each written atomically)
//! ```
//!
//! A vector job (`Job::vector`) takes the same road through [`vector`]. A stop request
//! ends the search after the current step; the best program and the state so far are
//! then written as at the end of a run. Nothing is written that has not been run against
//! the interpreter and (unless the job says not to) proved equal to the job's function.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use cryptopt_codegen::{Candidate, Generator, Options};
use cryptopt_emit::header::Provenance;
use cryptopt_ir::{lower, vector::VFunction, Function};
use cryptopt_measure::counter::{self, Counter};
use cryptopt_measure::diff::Oracle;
use cryptopt_measure::timing::{self, Config, Mode};
use cryptopt_search::native::Native;
use cryptopt_search::{local_search, Phase, SearchState};

use crate::checks::{check_natively, prove};
use crate::log::{self, Log, Row};
use crate::progress::Progress;
use crate::session::{baseline_line, Session};
use crate::state::SavedState;
use crate::write::{write_program, Written};
use crate::{files, Error, Result};

pub mod vector;

/// One optimization: everything `optimize` needs.
pub struct Job<'a> {
    pub f: &'a Function,
    /// A vector program whose scalar expansion `f` is: optimized by [`vector`].
    pub vector: Option<&'a VFunction>,
    /// Where the function came from (kept in the state for resuming).
    pub input: PathBuf,
    /// How its limbs stand for a field element, where the generator made it (in the
    /// header of every written program; Fiat JSON does not say).
    pub representation: Option<String>,
    pub opts: Options,
    /// The written assembly's object format, symbol and visibility.
    pub object: cryptopt_x86::object::Object,
    pub params: local_search::Params,
    /// A saved search to continue instead of starting one.
    pub resume: Option<SearchState>,
    pub cfg: Config,
    pub cc: String,
    /// The CPU to measure on (one of [`crate::cpus::allowed`]).
    pub cpu: usize,
    pub counter: counter::Choice,
    /// Results go to `out/<function>/`.
    pub out: PathBuf,
    /// Prove the final program (and every `verify_every`-th improvement).
    pub verify: bool,
    pub verify_every: u64,
}

/// What an optimization produced (a written program was always run against the
/// interpreter, and proved equivalent unless the job said not to).
pub struct Outcome {
    pub program: cryptopt_x86::Program,
    /// Median ticks per call of the winner and of the baseline (final measurement).
    pub cycles: f64,
    pub baseline: f64,
    pub evals: u64,
    pub seconds: f64,
    pub counter: &'static str,
    pub asm_path: PathBuf,
    /// The same program in GNU as syntax (`.S`, beside the `.asm`).
    pub gas_path: PathBuf,
    pub stopped: bool,
    /// Whether the checker proved the program (the job asked for it).
    pub proved: bool,
    /// The header every written file starts with, as lines without comment markers.
    pub header: Vec<String>,
}

/// Runs one optimization and writes its results; see the module doc.
pub fn optimize(job: Job<'_>, progress: &mut dyn Progress, stop: &AtomicBool) -> Result<Outcome> {
    check_config(&job.cfg)?;
    // The header declares the program under this name: refused now, not after the search.
    cryptopt_emit::ident::c_identifier(job.object.symbol.as_deref().unwrap_or(&job.f.name))?;
    match job.vector {
        Some(v) => vector::optimize(&job, v, progress, stop),
        None => scalar(job, progress, stop),
    }
}

/// Batches and the cycle goal must be positive.
fn check_config(cfg: &Config) -> Result<()> {
    if cfg.batches == 0 {
        return Err(Error::param("batches", "must be at least 1"));
    }
    if cfg.cyclegoal == 0 {
        return Err(Error::param("cycle goal", "must be at least 1"));
    }
    Ok(())
}

/// The session and the checked baseline of a job, the machine's lines noted.
fn prepare(
    job: &Job<'_>,
    opts: &Options,
    progress: &mut dyn Progress,
) -> Result<(Session, cryptopt_measure::baseline::CompiledC)> {
    // Everything that can fail is checked before the search: the CPU (pinned once,
    // here), the output folder, the baseline.
    let session = Session::open(job.cpu, job.counter)?;
    let f = job.f;
    files::ensure_writable(&job.out.join(&f.name))?;
    for line in session.describe() {
        progress.note(&line);
    }
    // The baseline, checked like our own code before it is trusted.
    let c_source = cryptopt_emit::c::emit_for(f, opts.abi);
    let baseline = session.baseline(
        f,
        &c_source,
        &job.cc,
        opts.target,
        opts.abi,
        "the C baseline",
    )?;
    progress.note(&baseline_line(&job.cc, opts.target, &baseline));
    Ok((session, baseline))
}

fn scalar(mut job: Job<'_>, progress: &mut dyn Progress, stop: &AtomicBool) -> Result<Outcome> {
    let started = Instant::now();
    let f = job.f;
    // A latency search gets the lowering with shorter dependency chains.
    let shape = match job.cfg.mode {
        Mode::Throughput => lower::Shape::Throughput,
        Mode::Latency => lower::Shape::Latency,
    };
    let g = lower::lower_for(f, shape)?;
    let opts = job.opts;
    if job.resume.is_none() {
        job.params.check()?;
    }
    let (session, baseline) = prepare(&job, &opts, progress)?;
    let dir = job.out.join(&f.name);
    let start_evals = job.resume.as_ref().map_or(0, |s| s.evals);
    let mut log = if job.resume.is_some() {
        Log::resume(&dir.join("log.csv"), start_evals)
    } else {
        Log::default()
    };
    let seconds_before = log.seconds;
    let counter = &session.counter;

    // The search state.
    let gen = Generator::new(&g, opts)?;
    let deps = gen.deps().clone();
    let mut state = search_state(job.resume.take(), &g, &deps, job.params)?;
    // Every program measured (ours and the baseline) has the options' convention.
    let cfg = Config {
        abi: opts.abi,
        ..job.cfg
    };
    let mut ev = Native::new(&g, gen, baseline.ptr(), counter, cfg, job.params.seed)?;
    if job.verify && job.verify_every > 0 {
        ev.verify_every = job.verify_every;
        ev.verify = Some(Box::new(move |p: &cryptopt_x86::Program| {
            prove(f, p, &opts).map_err(Box::from)
        }));
    }

    progress.start(state.evals, state.params.evals);
    let walks = state.walks.len();
    let result = local_search::search(&mut state, &deps, &mut ev, stop, &mut |e| {
        log.record(&row(e, seconds_before + started.elapsed().as_secs_f64()));
        let best = log.best;
        progress.step(e.index, &|| {
            format!(
                "best speed-up {:.3}x over {} (walk {} now {:.3}x: {:.0} vs {:.0} {} ticks)",
                best,
                job.cc,
                e.walk,
                e.walk_speedup,
                e.baseline / e.walk_speedup,
                e.baseline,
                counter.name()
            )
        });
    });
    progress.finish();
    let function_json = cryptopt_emit::to_fiat_json(f).ok();
    let saved = |st: &SearchState| SavedState {
        options: opts,
        input: job.input.clone(),
        function: function_json.clone(),
        representation: job.representation.clone(),
        search: st.clone(),
    };
    if let Err(e) = result {
        if let cryptopt_search::Error::Mismatch { message, candidate } = &e {
            let program = generate(&g, opts, candidate)?;
            return Err(keep_evidence(&dir, &program, &saved(&state), message));
        }
        return Err(e.into());
    }
    let stopped = stop.load(Ordering::SeqCst);
    let program = choose_proved(&job, &g, &state, progress)?;

    // A final, longer measurement of the winner against the baseline.
    let (cycles, base) =
        final_measurement(f, &program, baseline.ptr(), counter, &cfg, job.params.seed)?;

    let provenance = provenance(&job, &opts, counter.name(), state.evals, base / cycles);
    let svg = log::progress_svg(
        &format!("{}: speed-up over {} ({})", f.name, job.cc, counter.name()),
        &log.points,
        walks,
    )?;
    let extra = vec![
        ("state.json".to_string(), saved(&state).to_json()?),
        ("log.csv".to_string(), log.csv()),
        ("progress.svg".to_string(), svg),
    ];
    let written = write_program(dir, &provenance, &program, extra)?;
    Ok(outcome(
        &provenance,
        program,
        (cycles, base),
        state.evals,
        started,
        counter.name(),
        written,
        stopped,
    ))
}

/// The search to run: the saved one extended to the job's budget, or a fresh one.
fn search_state(
    resume: Option<SearchState>,
    g: &Function,
    deps: &cryptopt_codegen::Deps,
    params: local_search::Params,
) -> Result<SearchState> {
    Ok(match resume {
        Some(mut st) => {
            st.check_fits(g, deps)?;
            st.extend(params.evals);
            st
        }
        None => SearchState::new(g, deps, params)?,
    })
}

/// One evaluation as a row of `log.csv`, `seconds` into the run.
fn row(e: &local_search::Event, seconds: f64) -> Row {
    Row {
        index: e.index,
        walk: e.walk,
        phase: if matches!(e.phase, Phase::Bets) {
            "bets"
        } else {
            "final"
        },
        mutation: e.mutation.kind(),
        kept: e.kept,
        current: e.cmp.current,
        mutant: e.cmp.mutant,
        step_speedup: 1.0 / e.cmp.ratio,
        rounds: e.cmp.rounds,
        walk_speedup: e.walk_speedup,
        baseline: e.baseline,
        seconds,
    }
}

/// A candidate that failed its check during the search: its program and the state are
/// kept in `dir` as evidence (`mismatch.asm`, `mismatch-state.json`); the error says
/// where.
fn keep_evidence(
    dir: &std::path::Path,
    program: &cryptopt_x86::Program,
    state: &SavedState,
    message: &str,
) -> Error {
    let asm = dir.join("mismatch.asm");
    let written = files::write_atomically(&asm, cryptopt_x86::print::nasm(program).as_bytes())
        .and_then(|()| {
            let json = state.to_json()?;
            files::write_atomically(&dir.join("mismatch-state.json"), json.as_bytes())
        });
    match written {
        Ok(()) => Error::CheckFailed(format!("{message}; the candidate is in {}", asm.display())),
        Err(e) => e,
    }
}

/// The program of a candidate.
fn generate(g: &Function, opts: Options, cand: &Candidate) -> Result<cryptopt_x86::Program> {
    let mut gen = Generator::new(g, opts)?;
    gen.generate(cand)?;
    Ok(gen.program())
}

/// The winner: checked natively (every aliasing the options allow), then proved. The
/// checker may be incomplete on the winner's shape: then the best program of each other
/// walk is tried, fastest first, and the first one proved is taken (said as a warning);
/// if none is, the first failure is the error and nothing is written.
fn choose_proved(
    job: &Job<'_>,
    g: &Function,
    state: &SearchState,
    progress: &mut dyn Progress,
) -> Result<cryptopt_x86::Program> {
    let f = job.f;
    let mut order: Vec<usize> = (0..state.walks.len()).collect();
    order.sort_by(|&a, &b| state.walks[a].ratio().total_cmp(&state.walks[b].ratio()));
    let mut tried: Vec<&Candidate> = vec![state.winner()];
    for &w in &order {
        let c = &state.walks[w].current;
        if !tried.contains(&c) {
            tried.push(c);
        }
    }
    let mut first_failure = None;
    for (k, cand) in tried.iter().enumerate() {
        let program = generate(g, job.opts, cand)?;
        check_natively(f, &program, &job.opts, job.params.seed)?;
        if !job.verify {
            return Ok(program);
        }
        match prove(f, &program, &job.opts) {
            Ok(()) => {
                if k > 0 {
                    progress.warn(&format!(
                        "{}: the winner was not proved (the checker is incomplete on it); taking the best proved program of another walk ({} of {} tried)",
                        f.name,
                        k + 1,
                        tried.len()
                    ));
                }
                return Ok(program);
            }
            Err(e) => {
                first_failure.get_or_insert(e);
            }
        }
    }
    Err(first_failure.unwrap_or_else(|| Error::Unsupported("no program to prove".into())))
}

/// What a job's winner came from: its function, input and options as the job says
/// (`opts`: the ones it was made under), and what the search measured.
fn provenance<'a>(
    job: &'a Job<'a>,
    opts: &Options,
    counter: &'static str,
    evals: u64,
    speedup: f64,
) -> Provenance<'a> {
    Provenance {
        f: job.f,
        input: &job.input,
        representation: job.representation.as_deref(),
        seed: job.params.seed,
        evals,
        counter,
        baseline: &job.cc,
        speedup,
        proved: job.verify,
        aliasing: opts.aliasing,
        abi: opts.abi,
        object: &job.object,
    }
}

/// The outcome of a written program.
#[allow(clippy::too_many_arguments)]
fn outcome(
    provenance: &Provenance<'_>,
    program: cryptopt_x86::Program,
    (cycles, baseline): (f64, f64),
    evals: u64,
    started: Instant,
    counter: &'static str,
    written: Written,
    stopped: bool,
) -> Outcome {
    Outcome {
        header: provenance.lines(&program),
        program,
        cycles,
        baseline,
        evals,
        seconds: started.elapsed().as_secs_f64(),
        counter,
        asm_path: written.asm,
        gas_path: written.gas,
        stopped,
        proved: provenance.proved,
    }
}

/// Winner against baseline with three times the batches; returns median ticks per call.
fn final_measurement(
    f: &Function,
    program: &cryptopt_x86::Program,
    baseline: *const u8,
    counter: &Counter,
    cfg: &Config,
    seed: u64,
) -> Result<(f64, f64)> {
    use rand::SeedableRng;
    let mem = cryptopt_measure::ExecMem::from_program(program)?;
    let cfg = Config {
        batches: cfg.batches * 3,
        ..*cfg
    };
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed ^ 0xf1a1);
    let mut oracle = Oracle::new(f, &["the winner", "the C baseline"]);
    let mut check = |inputs: &[Vec<u128>], outs: &[Vec<Vec<u128>>]| oracle.check(inputs, outs);
    // SAFETY: both functions were checked natively against the interpreter.
    let m = unsafe {
        timing::measure(
            f,
            &[mem.ptr(), baseline],
            &cfg,
            counter,
            &mut rng,
            &mut check,
        )
    }?;
    Ok((m.per_call[0].median, m.per_call[1].median))
}
