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

pub mod algorithms;
pub mod vector;

pub use algorithms::Choice;

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
    /// Which algorithms of the function the search may use ([`algorithms`]).
    pub algorithm: Choice,
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
    /// The algorithm the program computes the function by (scalar jobs).
    pub algorithm: Option<&'static str>,
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
    let opts = job.opts;
    if job.resume.is_none() {
        job.params.check()?;
    }
    // The algorithms first: a name the function has no algorithm of is a usage error.
    let mut runs = algorithms::screened(&job, shape, progress)?;
    let (session, baseline) = prepare(&job, &opts, progress)?;
    let resume = job.resume.take();
    if resume.is_some() && runs.len() > 1 {
        return Err(Error::param(
            "algorithm",
            "a resumed search continues the one algorithm it was searching: name it",
        ));
    }
    let dir = job.out.join(&f.name);
    let start_evals = resume.as_ref().map_or(0, |s| s.evals);
    let log = if resume.is_some() {
        Log::resume(&dir.join("log.csv"), start_evals)
    } else {
        Log::default()
    };
    let counter = &session.counter;
    // Every program measured (ours and the baseline) has the options' convention.
    let cfg = Config {
        abi: opts.abi,
        ..job.cfg
    };
    let mut s = Searcher {
        job: &job,
        baseline: baseline.ptr(),
        counter,
        cfg,
        started,
        seconds_before: log.seconds,
        log,
        dir: dir.clone(),
        logged: start_evals,
        walks: 0,
    };
    progress.start(start_evals, job.params.evals);
    let mut run = if runs.len() == 1 {
        let mut run = runs.pop().expect("one run");
        let deps = Generator::new(&run.g, opts)?.deps().clone();
        run.state = Some(search_state(resume, &run.g, &deps, job.params)?);
        run
    } else {
        algorithms::bets(&mut s, runs, progress, stop)?
    };
    s.search(&mut run, progress, stop)?;
    progress.finish();
    let state = run.state.take().expect("searched");
    let stopped = stop.load(Ordering::SeqCst);
    let program = choose_proved(&job, &run.g, &state, progress)?;

    // A final, longer measurement of the winner against the baseline.
    let (cycles, base) =
        final_measurement(f, &program, baseline.ptr(), counter, &cfg, job.params.seed)?;

    let algorithm = run.describe();
    // Evaluations of every algorithm's search: what the run cost.
    let evals = s.logged;
    let mut provenance = provenance(&job, &opts, counter.name(), evals, base / cycles);
    provenance.algorithm = Some(&algorithm);
    let svg = log::progress_svg(
        &format!("{}: speed-up over {} ({})", f.name, job.cc, counter.name()),
        &s.log.points,
        s.walks.max(state.walks.len()),
    )?;
    let extra = vec![
        (
            "state.json".to_string(),
            s.saved(&state, run.algorithm).to_json()?,
        ),
        ("log.csv".to_string(), s.log.csv()),
        ("progress.svg".to_string(), svg),
    ];
    let written = write_program(dir, &provenance, &program, extra)?;
    let mut done = outcome(
        &provenance,
        program,
        (cycles, base),
        evals,
        started,
        counter.name(),
        written,
        stopped,
    );
    done.algorithm = Some(run.algorithm.name());
    Ok(done)
}

/// What the searches of one job share: the baseline, the counter, the log.
pub(crate) struct Searcher<'j, 'a> {
    job: &'j Job<'a>,
    baseline: *const u8,
    counter: &'j Counter,
    cfg: Config,
    started: Instant,
    seconds_before: f64,
    log: Log,
    dir: PathBuf,
    /// Evaluations logged so far, over every algorithm's search.
    logged: u64,
    /// Walks numbered so far (each algorithm's walks get numbers of their own).
    walks: usize,
}

impl Searcher<'_, '_> {
    /// Runs (or continues) the search of `run` to its budget, its events logged with
    /// walk numbers from the run's `walk_base`. A candidate that fails its check ends the job with
    /// the evidence kept.
    pub(crate) fn search(
        &mut self,
        run: &mut algorithms::Run,
        progress: &mut dyn Progress,
        stop: &AtomicBool,
    ) -> Result<()> {
        let job = self.job;
        let (f, opts) = (job.f, job.opts);
        let walk_base = run.walk_base;
        let state = run.state.as_mut().expect("a state to search");
        let gen = Generator::new(&run.g, opts)?;
        let deps = gen.deps().clone();
        let mut ev = Native::new(
            &run.g,
            gen,
            self.baseline,
            self.counter,
            self.cfg,
            job.params.seed,
        )?;
        if job.verify && job.verify_every > 0 {
            ev.verify_every = job.verify_every;
            ev.verify = Some(Box::new(move |p: &cryptopt_x86::Program| {
                prove(f, p, &opts).map_err(Box::from)
            }));
        }
        self.walks = self.walks.max(walk_base + state.walks.len());
        let first = state.evals;
        let base = self.logged;
        let (log, started, before) = (&mut self.log, self.started, self.seconds_before);
        let (cc, counter) = (&job.cc, self.counter);
        let result = local_search::search(state, &deps, &mut ev, stop, &mut |e| {
            let mut r = row(e, before + started.elapsed().as_secs_f64());
            r.index = base + (e.index - first);
            r.walk = walk_base + e.walk;
            log.record(&r);
            let best = log.best;
            progress.step(r.index, &|| {
                format!(
                    "best speed-up {:.3}x over {} (walk {} now {:.3}x: {:.0} vs {:.0} {} ticks)",
                    best,
                    cc,
                    r.walk,
                    e.walk_speedup,
                    e.baseline / e.walk_speedup,
                    e.baseline,
                    counter.name()
                )
            });
        });
        self.logged = base + (state.evals - first);
        if let Some((message, candidate)) = &ev.first_not_generated {
            let line = self.keep_not_generated(f, run.algorithm, message, candidate);
            progress.warn(&format!(
                "{}: {} mutants were rejected because code generation failed on them (a bug: \
                 {message}); {line}",
                f.name, ev.not_generated
            ));
        }
        if let Err(e) = result {
            if let cryptopt_search::Error::Mismatch { message, candidate } = &e {
                let program = generate(&run.g, opts, candidate)?;
                let saved = self.saved(state, run.algorithm);
                return Err(keep_evidence(&self.dir, &program, &saved, message));
            }
            return Err(e.into());
        }
        Ok(())
    }

    /// Keeps a candidate the generator failed on as `codegen-bug.json` (the function,
    /// the algorithm, the error and the candidate); says where, or why it could not.
    fn keep_not_generated(
        &self,
        f: &Function,
        algorithm: cryptopt_gen::fields::Algorithm,
        message: &str,
        candidate: &Candidate,
    ) -> String {
        let path = self.dir.join("codegen-bug.json");
        let evidence = serde_json::json!({
            "function": f.name,
            "algorithm": algorithm.name(),
            "error": message,
            "candidate": candidate,
        });
        match files::write_atomically(&path, evidence.to_string().as_bytes()) {
            Ok(()) => format!("the first is in {}", path.display()),
            Err(e) => format!("its evidence could not be kept: {e}"),
        }
    }

    /// What `state.json` holds for `state`, the search of `algorithm`.
    fn saved(&self, state: &SearchState, algorithm: cryptopt_gen::fields::Algorithm) -> SavedState {
        let job = self.job;
        SavedState {
            options: job.opts,
            input: job.input.clone(),
            function: cryptopt_emit::to_fiat_json(job.f).ok(),
            representation: job.representation.clone(),
            algorithm: Some(algorithm.name().to_string()),
            search: state.clone(),
        }
    }
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
        algorithm: None,
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
        algorithm: None,
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
    let (ticks, base) = side_by_side(f, &[program], baseline, counter, cfg, seed)?;
    Ok((ticks[0], base))
}

/// Programs against the baseline, side by side, with three times the batches; the
/// median ticks per call of each program and of the baseline.
pub(crate) fn side_by_side(
    f: &Function,
    programs: &[&cryptopt_x86::Program],
    baseline: *const u8,
    counter: &Counter,
    cfg: &Config,
    seed: u64,
) -> Result<(Vec<f64>, f64)> {
    use rand::SeedableRng;
    let mems = programs
        .iter()
        .map(|p| cryptopt_measure::ExecMem::from_program(p))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    let cfg = Config {
        batches: cfg.batches * 3,
        ..*cfg
    };
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed ^ 0xf1a1);
    let names: Vec<String> = (0..programs.len())
        .map(|i| match programs.len() {
            1 => "the winner".to_string(),
            _ => format!("program {}", i + 1),
        })
        .chain(["the C baseline".to_string()])
        .collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut oracle = Oracle::new(f, &names);
    let mut check = |inputs: &[Vec<u128>], outs: &[Vec<Vec<u128>>]| oracle.check(inputs, outs);
    let ptrs: Vec<*const u8> = mems.iter().map(|m| m.ptr()).chain([baseline]).collect();
    // SAFETY: every program was checked natively against the interpreter, and the
    // baseline when the session compiled it.
    let m = unsafe { timing::measure(f, &ptrs, &cfg, counter, &mut rng, &mut check) }?;
    let k = programs.len();
    Ok((
        m.per_call[..k].iter().map(|c| c.median).collect(),
        m.per_call[k].median,
    ))
}
