//! `cryptopt optimize`: the whole pipeline for one function.
//!
//! ```text
//!  Fiat JSON ─▶ lower ─▶ Generator ─┐
//!  C (emit) ─▶ cc -O3 ─▶ baseline ──┼─▶ search (bet-and-run, every step measured
//!  counter detect, pin to --cpu ────┘    against the baseline and the interpreter)
//!        ─▶ best candidate ─▶ checked natively ─▶ DIR/<function>/{.asm,.S,.h,
//!           state.json, log.csv, progress.svg} (each written atomically)
//! ```
//!
//! Ctrl-C stops the search after the current step; the best program and the state so
//! far are then written as at the end of a run.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{anyhow, bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};

use cryptopt_codegen::{Generator, Options};
use cryptopt_ir::{lower, Function};
use cryptopt_measure::baseline::CompiledC;
use cryptopt_measure::counter::{self, Counter};
use cryptopt_measure::diff::Oracle;
use cryptopt_measure::timing::{self, Config, Mode};
use cryptopt_search::native::Native;
use cryptopt_search::{local_search, Phase, SearchState};

use crate::args::{MeasureArg, OptimizeArgs};
use crate::checks::{check_baseline, check_natively, prove, CheckFailed};
use crate::files::{load, write_atomically};
use crate::report::{self, Row};

/// One optimization: everything `optimize` needs besides the command line.
pub struct Job<'a> {
    pub f: &'a Function,
    /// Where the function came from (kept in the state for resuming).
    pub input: PathBuf,
    pub opts: Options,
    pub params: local_search::Params,
    /// A saved search to continue instead of starting one.
    pub resume: Option<SearchState>,
    pub cfg: Config,
    pub cc: String,
    pub cpu: usize,
    pub counter: counter::Choice,
    /// Results go to `out/<function>/`.
    pub out: PathBuf,
    /// Show the live progress line and the machine report.
    pub interactive: bool,
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
    pub stopped: bool,
}

/// `cryptopt optimize`: one function, from the command line to the result line.
pub fn command(args: OptimizeArgs) -> Result<()> {
    if args.field.field.is_some() && args.input.is_some() {
        bail!("give either an input file or --field, not both");
    }
    let f = match (&args.input, args.field.function()?) {
        (_, Some(f)) => f,
        (Some(input), None) => load(input, args.function.as_deref(), false)?,
        (None, None) => bail!("give an input file or --field"),
    };
    let input = args.input.clone().unwrap_or_else(|| {
        PathBuf::from(format!(
            "--field {} --op {}",
            args.field.field.as_deref().unwrap_or(""),
            args.field.op
        ))
    });
    let opts = args.cg.options();
    let mode = match args.measure {
        MeasureArg::Throughput => Mode::Throughput,
        MeasureArg::Latency => Mode::Latency,
    };
    let params = local_search::Params {
        evals: args.evals,
        bets: if args.single { 1 } else { args.bets },
        bet_ratio: args.bet_ratio,
        seed: args.seed,
    };
    let resume = match &args.resume {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            let saved: SavedState = serde_json::from_str(&text)
                .with_context(|| format!("{} is not a cryptopt state", path.display()))?;
            if saved.options != opts {
                bail!(
                    "{} was made with other code-generation options ({:?}); give the same options",
                    path.display(),
                    saved.options
                );
            }
            Some(saved.search)
        }
        None => None,
    };
    // Ctrl-C: finish the step, then write what we have.
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = stop.clone();
        // A second registration (tests calling run twice) is harmless to ignore.
        let _ = ctrlc::set_handler(move || stop.store(true, Ordering::SeqCst));
    }
    let job = Job {
        f: &f,
        input,
        opts,
        params,
        resume,
        cfg: Config {
            cyclegoal: args.cyclegoal,
            batches: args.batches,
            mode,
            ..Config::default()
        },
        cc: args.cc.clone(),
        cpu: args.cpu,
        counter: args.counter.choice(),
        out: args.out.clone(),
        interactive: true,
        verify: !args.no_verify,
        verify_every: args.verify_every,
    };
    let o = optimize(job, &stop)?;
    if o.stopped {
        eprintln!(
            "stopped by Ctrl-C after {} evaluations; best program and state written",
            o.evals
        );
    }
    println!(
        "result: function={} cycles={:.1} baseline={:.1} ratio={:.3} counter={} evals={} seconds={:.1} file={}",
        f.name,
        o.cycles,
        o.baseline,
        o.baseline / o.cycles,
        o.counter,
        o.evals,
        o.seconds,
        o.asm_path.display()
    );
    Ok(())
}

/// Runs one optimization and writes its results; see the module doc.
pub fn optimize(job: Job<'_>, stop: &AtomicBool) -> Result<Outcome> {
    let started = Instant::now();
    let f = job.f;
    let g = lower::lower(f)?;
    let opts = job.opts;
    if job.cfg.batches == 0 || job.cfg.cyclegoal == 0 {
        bail!("--batches and --cyclegoal must be at least 1");
    }
    if job.resume.is_none() {
        job.params.check()?;
    }

    // The machine.
    counter::pin_to_cpu(job.cpu).with_context(|| format!("cannot pin to --cpu {}", job.cpu))?;
    let chosen = counter::choose(job.counter)?;
    let counter = chosen.counter;
    if job.interactive {
        eprintln!("cpu: {} (pinned to cpu {})", counter::cpu_model(), job.cpu);
        eprintln!("counter: {} ({})", counter.describe(), chosen.why);
        eprintln!("counters: {}", counter::describe_probes(&chosen.probes));
    }

    // The baseline, checked like our own code before it is trusted.
    let c_source = cryptopt_measure::c::emit(f);
    let baseline = CompiledC::build(&c_source, &f.name, &job.cc, &[])?;
    if job.interactive {
        eprintln!(
            "baseline: {} -O3 -march=native -mtune=native ({})",
            job.cc,
            baseline.compiler_version()
        );
    }
    check_baseline(f, baseline.ptr(), "the C baseline")?;

    // The search state.
    let gen = Generator::new(&g, opts)?;
    let deps = gen.deps().clone();
    let mut state = match job.resume {
        Some(mut st) => {
            st.check_fits(&g, &deps)?;
            st.extend(job.params.evals);
            st
        }
        None => SearchState::new(&g, &deps, job.params)?,
    };
    let cfg = job.cfg;
    let mut ev = Native::new(&g, gen, baseline.ptr(), &counter, cfg, job.params.seed)?;
    if job.verify && job.verify_every > 0 {
        ev.verify_every = job.verify_every;
        ev.verify = Some(Box::new(move |p: &cryptopt_x86::Program| {
            prove(f, p, &opts).map_err(|e| format!("{e:#}"))
        }));
    }

    let bar = if job.interactive {
        ProgressBar::new(state.params.evals)
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} evals {per_sec} eta {eta} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_position(state.evals);
    let mut rows: Vec<Row> = Vec::new();
    let walks = state.walks.len();
    let result = local_search::search(&mut state, &deps, &mut ev, stop, &mut |e| {
        rows.push(Row {
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
            step_ratio: e.cmp.ratio,
            rounds: e.cmp.rounds,
            walk_ratio: e.walk_ratio,
            best_ratio: e.best_ratio,
            baseline: e.baseline,
        });
        bar.set_position(e.index);
        if e.index % 16 == 0 {
            bar.set_message(format!(
                "best {:.3}x baseline (this walk {:.0} vs {:.0} {})",
                e.best_ratio,
                e.walk_ratio * e.baseline,
                e.baseline,
                counter.name()
            ));
        }
    });
    bar.finish_and_clear();
    let dir = job.out.join(&f.name);
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let saved = |st: &SearchState| SavedState {
        options: opts,
        input: job.input.clone(),
        search: st.clone(),
    };
    if let Err(e) = result {
        if let cryptopt_search::Error::Mismatch { message, candidate } = &e {
            // Keep the evidence: the offending program and the state.
            let mut gen = Generator::new(&g, opts)?;
            gen.generate(candidate)?;
            write_atomically(
                &dir.join("mismatch.asm"),
                cryptopt_x86::print::nasm(&gen.program()).as_bytes(),
            )?;
            write_atomically(
                &dir.join("mismatch-state.json"),
                serde_json::to_string_pretty(&saved(&state))?.as_bytes(),
            )?;
            return Err(CheckFailed(format!(
                "{message}; the candidate is in {}",
                dir.join("mismatch.asm").display()
            ))
            .into());
        }
        return Err(e.into());
    }
    let stopped = stop.load(Ordering::SeqCst);

    // The winner: checked natively (every aliasing the options allow), then written.
    let best = state.winner().clone();
    let mut gen = Generator::new(&g, opts)?;
    gen.generate(&best)?;
    let program = gen.program();
    check_natively(f, &program, &opts, job.params.seed)?;
    if job.verify {
        prove(f, &program, &opts)?;
    }

    // A final, longer measurement of the winner against the baseline.
    let (cycles, base) =
        final_measurement(f, &program, baseline.ptr(), &counter, &cfg, job.params.seed)?;

    let asm_path = dir.join(format!("{}.asm", f.name));
    write_atomically(&asm_path, cryptopt_x86::print::nasm(&program).as_bytes())?;
    write_atomically(
        &dir.join(format!("{}.S", f.name)),
        cryptopt_x86::print::gas(&program).as_bytes(),
    )?;
    write_atomically(&dir.join(format!("{}.h", f.name)), header(f).as_bytes())?;
    write_atomically(
        &dir.join("state.json"),
        serde_json::to_string_pretty(&saved(&state))?.as_bytes(),
    )?;
    let mut csv = String::from(report::CSV_HEADER);
    for r in &rows {
        csv.push_str(&r.csv());
    }
    write_atomically(&dir.join("log.csv"), csv.as_bytes())?;
    let svg = report::progress_svg(
        &format!("{} vs {} ({})", f.name, job.cc, counter.name()),
        &rows,
        walks,
    )
    .map_err(|e| anyhow!("plotting failed: {e}"))?;
    write_atomically(&dir.join("progress.svg"), svg.as_bytes())?;
    Ok(Outcome {
        program,
        cycles,
        baseline: base,
        evals: state.evals,
        seconds: started.elapsed().as_secs_f64(),
        counter: counter.name(),
        asm_path,
        stopped,
    })
}

/// What `state.json` holds: the search state plus what is needed to resume it.
#[derive(serde::Serialize, serde::Deserialize)]
struct SavedState {
    options: Options,
    input: PathBuf,
    search: SearchState,
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

/// The C header: the prototype of the generated function.
fn header(f: &Function) -> String {
    let guard = format!("{}_H", f.name.to_uppercase());
    format!(
        "/* Generated by cryptopt. */\n#ifndef {guard}\n#define {guard}\n{}\n#ifdef __cplusplus\nextern \"C\" {{\n#endif\n{}\n#ifdef __cplusplus\n}}\n#endif\n#endif\n",
        cryptopt_measure::c::PRELUDE,
        cryptopt_measure::c::prototype(f)
    )
}
