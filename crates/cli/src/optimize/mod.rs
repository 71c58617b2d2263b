//! `cryptopt optimize`: the whole pipeline for one function.
//!
//! ```text
//!  Fiat JSON ─▶ lower ─▶ Generator ─┐
//!  C (emit) ─▶ cc -O3 ─▶ baseline ──┼─▶ search (bet-and-run, every step measured
//!  counter detect, pin to --cpu ────┘    against the baseline and the interpreter)
//!        ─▶ best candidate ─▶ checked natively ─▶ DIR/<function>/{.asm,.S,.h,
//!           state.json, log.csv, progress.svg} (each written atomically)
//!           (--emit rust: and <name>.rs, `crate::rust`; --emit dispatch: `crate::dispatch`)
//! ```
//!
//! Ctrl-C stops the search after the current step; the best program and the state so
//! far are then written as at the end of a run.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{anyhow, bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};

use cryptopt_codegen::{Generator, Options, Target};
use cryptopt_ir::{lower, Function};
use cryptopt_measure::baseline::CompiledC;
use cryptopt_measure::counter::{self, Counter};
use cryptopt_measure::diff::Oracle;
use cryptopt_measure::timing::{self, Config, Mode};
use cryptopt_search::native::Native;
use cryptopt_search::{local_search, Phase, SearchState};

use crate::args::{parse_count, EmitArg, MeasureArg, OptimizeArgs, DEFAULT_EVALS};
use crate::checks::{check_baseline, check_natively, prove, CheckFailed, Interrupted};
use crate::files::{ensure_writable, load, write_atomically};
use crate::report::{self, Log, Row};

mod vector;

pub(crate) use vector::{optimize as optimize_vector, options as vector_options};

/// One optimization: everything `optimize` needs besides the command line.
pub struct Job<'a> {
    pub f: &'a Function,
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
    pub cpu: usize,
    pub counter: counter::Choice,
    /// Results go to `out/<function>/`.
    pub out: PathBuf,
    /// How the search shows its progress (a job on its own also reports the machine:
    /// CPU, counter, baseline).
    pub progress: Progress,
    /// Prove the final program (and every `verify_every`-th improvement).
    pub verify: bool,
    pub verify_every: u64,
}

/// How a search shows its progress on stderr.
pub enum Progress {
    /// A live bar on a terminal; elsewhere (a log file, a pipe) one line every so many
    /// seconds.
    Auto(f64),
    /// Only the lines, every so many seconds, each starting with the label (for
    /// `bench`'s parallel searches).
    Lines(String, f64),
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

/// `cryptopt optimize`: one function, from the command line to the result line.
pub fn command(args: OptimizeArgs) -> Result<()> {
    if args.field.field.is_some() && args.input.is_some() {
        bail!("give either an input file or --field, not both");
    }
    let saved = args.resume.as_deref().map(read_state).transpose()?;
    let generated = args.field.function()?;
    let vector = args.field.vector()?;
    let (f, input, representation) = match (&args.input, generated, &saved) {
        (_, Some((f, repr)), _) => {
            let input = PathBuf::from(args.field.describe());
            (f, input, Some(repr))
        }
        (Some(input), None, _) => (
            load(input, args.function.as_deref(), false)?,
            input.clone(),
            None,
        ),
        (None, None, Some(s)) => (s.function()?, s.input.clone(), s.representation.clone()),
        (None, None, None) => bail!("give an input file, --field or --resume"),
    };
    let given = args.cg.options();
    let opts = match &saved {
        // Options left at their defaults take the saved ones.
        Some(s) if given == Options::default() || given == s.options => s.options,
        Some(s) => bail!(
            "{} was made with other code-generation options ({:?}); give the same options or none",
            args.resume.as_deref().unwrap_or(Path::new("")).display(),
            s.options
        ),
        None => given,
    };
    let mode = match args.measure {
        MeasureArg::Throughput => Mode::Throughput,
        MeasureArg::Latency => Mode::Latency,
    };
    let default_evals = parse_count(DEFAULT_EVALS).map_err(|e| anyhow!(e))?;
    let params = match &saved {
        Some(s) => {
            let p = s.search.params;
            if let Some(n) = args.evals.filter(|&n| n < s.search.evals) {
                bail!(
                    "the saved run has done {} evaluations already; --evals {n} must be more",
                    s.search.evals
                );
            }
            local_search::Params {
                evals: args.evals.unwrap_or(p.evals).max(p.evals),
                ..p
            }
        }
        None => local_search::Params {
            evals: args.evals.unwrap_or(default_evals),
            bets: if args.single { 1 } else { args.bets },
            bet_ratio: args.bet_ratio,
            seed: args.seed,
        },
    };
    let out = match (&args.out, &args.resume) {
        (Some(out), _) => out.clone(),
        // DIR/<function>/state.json: results go back to DIR.
        (None, Some(state)) => state
            .parent()
            .and_then(Path::parent)
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_path_buf(),
        (None, None) => PathBuf::from("cryptopt-out"),
    };
    // Ctrl-C: finish the step, then write what we have.
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = stop.clone();
        // A second registration (tests calling run twice) is harmless to ignore.
        let _ = ctrlc::set_handler(move || stop.store(true, Ordering::SeqCst));
    }
    let object = args.object.object();
    let resume = saved.map(|s| s.search);
    let job = |opts: Options, object: cryptopt_x86::object::Object, out: PathBuf| Job {
        f: &f,
        input: input.clone(),
        representation: representation.clone(),
        opts,
        object,
        params,
        resume: resume.clone(),
        cfg: Config {
            cyclegoal: args.cycle_goal,
            batches: args.batches,
            mode,
            ..Config::default()
        },
        cc: args.cc.clone(),
        cpu: args.cpu,
        counter: args.counter.choice(),
        out,
        progress: Progress::Auto(args.progress_every),
        verify: !args.no_verify,
        verify_every: args.verify_every,
    };
    if let Some(v) = &vector {
        if args.emit != EmitArg::Asm {
            bail!("--repr ifma writes assembly only (no --emit dispatch or rust)");
        }
        let o = vector::optimize(job(opts, object.clone(), out), v, &stop)?;
        print_result(&f, &o, "");
        if o.stopped {
            return Err(Interrupted.into());
        }
        return Ok(());
    }
    if args.emit == EmitArg::Dispatch {
        if opts.target != Target::default() {
            bail!("--emit dispatch makes a program for every target; leave out --target");
        }
        let public = object.symbol.clone().unwrap_or_else(|| f.name.clone());
        let mut gas = Vec::new();
        for t in Target::ALL {
            let named = cryptopt_x86::object::Object {
                symbol: Some(crate::dispatch::symbol(&public, t)),
                ..object.clone()
            };
            let o = optimize(
                job(Options { target: t, ..opts }, named, out.join(t.name())),
                &stop,
            )?;
            print_result(&f, &o, &format!(" target={t}"));
            if o.stopped {
                return Err(Interrupted.into());
            }
            gas.push((t, o.gas_path));
        }
        let dir = crate::dispatch::write(&out, &f, &public, opts.abi, &gas)?;
        println!("dispatch: {}", dir.display());
        return Ok(());
    }
    if args.emit == EmitArg::Rust {
        // Names Rust cannot take fail now, not after the search.
        crate::rust::check(&f, &object)?;
    }
    let o = optimize(job(opts, object.clone(), out), &stop)?;
    print_result(&f, &o, "");
    if args.emit == EmitArg::Rust {
        let how = crate::rust::How {
            object: &object,
            opts: &opts,
            representation: representation.as_deref(),
            seed: params.seed,
        };
        println!("rust: {}", crate::rust::write(&f, &o, &how)?.display());
    }
    if o.stopped {
        let state = o.asm_path.with_file_name("state.json");
        eprintln!(
            "interrupted by Ctrl-C after {} evaluations; the best program and the state are written; continue with: cryptopt optimize --resume {}",
            o.evals,
            state.display()
        );
        return Err(Interrupted.into());
    }
    Ok(())
}

/// The one `result:` line of an optimization (`extra`: more `key=value` fields).
fn print_result(f: &Function, o: &Outcome, extra: &str) {
    println!(
        "result: function={}{extra} cycles={:.1} baseline={:.1} speedup={:.3} counter={} evals={} seconds={:.1} proof={} status={} file={}",
        f.name,
        o.cycles,
        o.baseline,
        o.baseline / o.cycles,
        o.counter,
        o.evals,
        o.seconds,
        if o.proved { "proved" } else { "not-proved" },
        if o.stopped { "interrupted" } else { "complete" },
        o.asm_path.display()
    );
}

/// Reads a saved `state.json`.
fn read_state(path: &Path) -> Result<SavedState> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_str(&text)
        .with_context(|| format!("{} is not a cryptopt state", path.display()))
}

/// Runs one optimization and writes its results; see the module doc.
pub fn optimize(mut job: Job<'_>, stop: &AtomicBool) -> Result<Outcome> {
    let started = Instant::now();
    let f = job.f;
    // A latency search gets the lowering with shorter dependency chains.
    let shape = match job.cfg.mode {
        Mode::Throughput => lower::Shape::Throughput,
        Mode::Latency => lower::Shape::Latency,
    };
    let g = lower::lower_for(f, shape)?;
    let opts = job.opts;
    if job.cfg.batches == 0 || job.cfg.cyclegoal == 0 {
        bail!("--batches and --cycle-goal must be at least 1");
    }
    if job.resume.is_none() {
        job.params.check()?;
    }

    // The machine.
    counter::pin_to_cpu(job.cpu).with_context(|| {
        let n = std::thread::available_parallelism().map_or(1, |n| n.get());
        format!(
            "cannot pin to --cpu {} (this machine lets it use {n} CPUs, numbered from 0)",
            job.cpu
        )
    })?;
    // Everything that can fail is checked before the search: the CPU above, the output
    // folder here.
    let dir = job.out.join(&f.name);
    ensure_writable(&dir)?;
    let start_evals = job.resume.as_ref().map_or(0, |s| s.evals);
    let mut log = if job.resume.is_some() {
        Log::resume(&dir.join("log.csv"), start_evals)
    } else {
        Log::default()
    };
    let seconds_before = log.seconds;

    let chosen = counter::choose(job.counter)?;
    let counter = chosen.counter;
    let alone = matches!(job.progress, Progress::Auto(_));
    if alone {
        eprintln!("cpu: {} (pinned to cpu {})", counter::cpu_model(), job.cpu);
        eprintln!("counter: {} ({})", counter.describe(), chosen.why);
        eprintln!("counters: {}", counter::describe_probes(&chosen.probes));
    }

    // The baseline, checked like our own code before it is trusted.
    let c_source = cryptopt_measure::c::emit_for(f, opts.abi);
    let baseline = CompiledC::build(
        &c_source,
        &f.name,
        &job.cc,
        cryptopt_measure::baseline::target_flags(job.opts.target),
    )?;
    if alone {
        eprintln!(
            "baseline: {} {} ({})",
            job.cc,
            cryptopt_measure::baseline::flags_line(job.opts.target),
            baseline.compiler_version()
        );
    }
    check_baseline(f, baseline.ptr(), opts.abi, "the C baseline")?;

    // The search state.
    let gen = Generator::new(&g, opts)?;
    let deps = gen.deps().clone();
    let mut state = match job.resume.take() {
        Some(mut st) => {
            st.check_fits(&g, &deps)?;
            st.extend(job.params.evals);
            st
        }
        None => SearchState::new(&g, &deps, job.params)?,
    };
    // Every program measured (ours and the baseline) has the options' convention.
    let cfg = Config {
        abi: opts.abi,
        ..job.cfg
    };
    let mut ev = Native::new(&g, gen, baseline.ptr(), &counter, cfg, job.params.seed)?;
    if job.verify && job.verify_every > 0 {
        ev.verify_every = job.verify_every;
        ev.verify = Some(Box::new(move |p: &cryptopt_x86::Program| {
            prove(f, p, &opts).map_err(|e| format!("{e:#}"))
        }));
    }

    let (bar, lines_label, every) = match &job.progress {
        Progress::Auto(_) if std::io::stderr().is_terminal() => {
            (ProgressBar::new(state.params.evals), None, 0.0)
        }
        Progress::Auto(every) => (ProgressBar::hidden(), Some(String::new()), *every),
        Progress::Lines(label, every) => {
            (ProgressBar::hidden(), Some(format!("{label}: ")), *every)
        }
    };
    // Rates and the ETA count this run's evaluations only.
    bar.set_position(state.evals);
    bar.reset_eta();
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} evals {per_sec} eta {eta} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut last_line = Instant::now();
    let walks = state.walks.len();
    let total = state.params.evals;
    let search_started = Instant::now();
    let result = local_search::search(&mut state, &deps, &mut ev, stop, &mut |e| {
        log.record(&Row {
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
            seconds: seconds_before + started.elapsed().as_secs_f64(),
        });
        let speeds = || {
            format!(
                "best speed-up {:.3}x over {} (walk {} now {:.3}x: {:.0} vs {:.0} {} ticks)",
                log.best,
                job.cc,
                e.walk,
                e.walk_speedup,
                e.baseline / e.walk_speedup,
                e.baseline,
                counter.name()
            )
        };
        if !bar.is_hidden() {
            bar.set_position(e.index);
            if e.index % 16 == 0 {
                bar.set_message(speeds());
            }
        }
        if let Some(label) = &lines_label {
            if last_line.elapsed().as_secs_f64() >= every {
                last_line = Instant::now();
                let secs = search_started.elapsed().as_secs_f64();
                let rate = (e.index - start_evals) as f64 / secs.max(1e-9);
                let eta = total.saturating_sub(e.index) as f64 / rate.max(1e-9);
                eprintln!(
                    "{label}{}/{total} evals, {rate:.0}/s, eta {}; {}",
                    e.index,
                    human_seconds(eta),
                    speeds()
                );
            }
        }
    });
    bar.finish_and_clear();
    let function_json = cryptopt_gen::to_fiat_json(f).ok();
    let saved = |st: &SearchState| SavedState {
        options: opts,
        input: job.input.clone(),
        function: function_json.clone(),
        representation: job.representation.clone(),
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

    // The winner: checked natively (every aliasing the options allow), proved, then
    // written. The checker may be incomplete on the winner's shape: then the best
    // program of each other walk is tried, fastest first, and the first one proved is
    // taken (said on stderr); if none is, nothing is written.
    let mut order: Vec<usize> = (0..state.walks.len()).collect();
    order.sort_by(|&a, &b| state.walks[a].ratio().total_cmp(&state.walks[b].ratio()));
    let mut tried: Vec<&cryptopt_codegen::Candidate> = vec![state.winner()];
    for &w in &order {
        let c = &state.walks[w].current;
        if !tried.contains(&c) {
            tried.push(c);
        }
    }
    let mut chosen = None;
    let mut first_failure = None;
    for (k, cand) in tried.iter().enumerate() {
        let mut gen = Generator::new(&g, opts)?;
        gen.generate(cand)?;
        let program = gen.program();
        check_natively(f, &program, &opts, job.params.seed)?;
        if !job.verify {
            chosen = Some(program);
            break;
        }
        match prove(f, &program, &opts) {
            Ok(()) => {
                if k > 0 {
                    eprintln!(
                        "{}: the winner was not proved (the checker is incomplete on it); taking the best proved program of another walk ({} of {} tried)",
                        f.name,
                        k + 1,
                        tried.len()
                    );
                }
                chosen = Some(program);
                break;
            }
            Err(e) => {
                first_failure.get_or_insert(e);
            }
        }
    }
    let Some(program) = chosen else {
        return Err(first_failure.unwrap_or_else(|| anyhow!("no program to prove")));
    };

    // A final, longer measurement of the winner against the baseline.
    let (cycles, base) =
        final_measurement(f, &program, baseline.ptr(), &counter, &cfg, job.params.seed)?;

    let provenance = Provenance::of(&job, &opts, counter.name(), state.evals, base / cycles);
    let svg = report::progress_svg(
        &format!("{}: speed-up over {} ({})", f.name, job.cc, counter.name()),
        &log.points,
        walks,
    )
    .map_err(|e| anyhow!("plotting failed: {e}"))?;
    let extra = vec![
        (
            "state.json".to_string(),
            serde_json::to_string_pretty(&saved(&state))?,
        ),
        ("log.csv".to_string(), log.csv()),
        ("progress.svg".to_string(), svg),
    ];
    let (dir, asm_name, gas_name) = write_program(dir, &provenance, &program, extra)?;
    let header = provenance.lines(&program);
    Ok(Outcome {
        program,
        cycles,
        baseline: base,
        evals: state.evals,
        seconds: started.elapsed().as_secs_f64(),
        counter: counter.name(),
        asm_path: dir.join(asm_name),
        gas_path: dir.join(gas_name),
        stopped,
        proved: job.verify,
        header,
    })
}

/// What `state.json` holds: the search state plus what is needed to resume it.
#[derive(serde::Serialize, serde::Deserialize)]
struct SavedState {
    options: Options,
    input: PathBuf,
    /// The function itself, as Fiat JSON (so `--resume` needs nothing else, whether it
    /// came from a file or a generator). Absent in states of older versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    function: Option<serde_json::Value>,
    /// [`Job::representation`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    representation: Option<String>,
    search: SearchState,
}

impl SavedState {
    /// The function the state is for: the saved copy, or (older states) its input file.
    fn function(&self) -> Result<Function> {
        let name = &self.search.function;
        match &self.function {
            Some(json) => Ok(cryptopt_frontend::fiat::parse_function(
                &json.to_string(),
                name,
            )?),
            None => load(&self.input, Some(name), false),
        }
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

/// Writes the winner into `dir`: `<name>.asm`, `<name>.S` and `<name>.h`, each headed
/// by its provenance, and the `extra` files (name, contents). A finished search is
/// never lost: if its folder cannot take the files any more, they go to a fresh folder
/// in the temporary directory (and the error says where). Returns the folder and the
/// two program files' names.
fn write_program(
    dir: PathBuf,
    provenance: &Provenance,
    program: &cryptopt_x86::Program,
    extra: Vec<(String, String)>,
) -> Result<(PathBuf, String, String)> {
    let name = &provenance.f.name;
    let (asm_name, gas_name) = (format!("{name}.asm"), format!("{name}.S"));
    let mut files = vec![
        (asm_name.clone(), provenance.nasm(program)),
        (gas_name.clone(), provenance.gas(program)),
        (format!("{name}.h"), provenance.header(program)),
    ];
    files.extend(extra);
    if let Err(e) = write_all(&dir, &files) {
        let rescue =
            std::env::temp_dir().join(format!("cryptopt-rescue-{name}-{}", std::process::id()));
        write_all(&rescue, &files).with_context(|| format!("{e:#}; rescue failed too"))?;
        bail!(
            "{e:#}; the results were written to {} instead",
            rescue.display()
        );
    }
    Ok((dir, asm_name, gas_name))
}

/// Writes `files` (name, contents) into `dir`, each atomically.
fn write_all(dir: &Path, files: &[(String, String)]) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    for (name, text) in files {
        write_atomically(&dir.join(name), text.as_bytes())?;
    }
    Ok(())
}

/// `95 s`, `12 min`, `2.5 h`.
pub(crate) fn human_seconds(s: f64) -> String {
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

/// Where a written program came from and what was shown about it: the header comment
/// every output file starts with.
struct Provenance<'a> {
    f: &'a Function,
    input: &'a Path,
    representation: Option<&'a str>,
    seed: u64,
    evals: u64,
    counter: &'static str,
    baseline: &'a str,
    speedup: f64,
    proved: bool,
    opts: &'a Options,
    object: &'a cryptopt_x86::object::Object,
}

impl<'a> Provenance<'a> {
    /// What a job's winner came from: its function, input and options as the job says
    /// (`opts`: the ones it was made under), and what the search measured.
    fn of(
        job: &'a Job<'a>,
        opts: &'a Options,
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
            opts,
            object: &job.object,
        }
    }
}

/// Every argument and output with its shape and Fiat's bounds:
/// `out1 u64[4]; arg1 u64[4] each ≤ 0xffffffffffffffff; arg2 ...`.
fn arguments(f: &Function) -> String {
    f.returns
        .iter()
        .chain(&f.params)
        .map(argument)
        .collect::<Vec<_>>()
        .join("; ")
}

/// One argument or output with its shape and Fiat's bounds: `arg1 u64[4] each ≤
/// 0xffffffffffffffff`.
pub(crate) fn argument(p: &cryptopt_ir::Param) -> String {
    let mut s = format!("{} {}", p.name, p.shape());
    if !p.ubound.is_empty() {
        let range = |i: usize| {
            if p.lbound[i] == 0 {
                format!("≤ {:#x}", p.ubound[i])
            } else {
                format!("in [{:#x}, {:#x}]", p.lbound[i], p.ubound[i])
            }
        };
        if p.len.is_none() {
            s.push_str(&format!(" {}", range(0)));
        } else if p.ubound.iter().all(|&u| u == p.ubound[0])
            && p.lbound.iter().all(|&l| l == p.lbound[0])
        {
            s.push_str(&format!(" each {}", range(0)));
        } else {
            let all: Vec<String> = (0..p.ubound.len()).map(range).collect();
            s.push_str(&format!(" [{}]", all.join(", ")));
        }
    }
    s
}

/// What callers may pass under `aliasing`, in words (every written file's `memory:`).
pub(crate) fn aliasing_contract(aliasing: cryptopt_ir::Aliasing) -> &'static str {
    match aliasing {
        cryptopt_ir::Aliasing::None => "outputs must not overlap the inputs",
        cryptopt_ir::Aliasing::Out1Arg1 => "out1 may be the same buffer as arg1; no other overlap",
        cryptopt_ir::Aliasing::All => "any output may be the same buffer as any input",
    }
}

impl Provenance<'_> {
    /// The header's lines, without comment markers.
    fn lines(&self, program: &cryptopt_x86::Program) -> Vec<String> {
        let f = self.f;
        let features = program.required_features();
        let aliasing = aliasing_contract(self.opts.aliasing);
        vec![
            format!("{}: generated by cryptopt {}", f.name, env!("CARGO_PKG_VERSION")),
            format!("from: {}", self.input.display()),
            format!(
                "search: seed {}, {} evaluations, counter {}; {:.2}x the speed of {} -O3 on the machine it was tuned on",
                self.seed, self.evals, self.counter, self.speedup, self.baseline
            ),
            if self.proved {
                format!(
                    "proof: proved equivalent to {} by cryptopt's checker (aliasing: {:?})",
                    f.name, self.opts.aliasing
                )
            } else {
                "proof: NOT PROVED (--no-verify); only tested against the interpreter".to_string()
            },
            format!(
                "requires: x86-64{}",
                features.iter().map(|x| format!(" + {x}")).collect::<String>()
            ),
            format!(
                "calling convention: {}",
                match self.opts.abi {
                    cryptopt_codegen::Abi::SysV => "System V (Linux, BSD, macOS)",
                    cryptopt_codegen::Abi::Win64 =>
                        "Windows x64 (ms_abi: rcx, rdx, r8, r9, then the stack above the home space)",
                }
            ),
            format!(
                "data: {}",
                self.representation
                    .unwrap_or("the representation of the input function (limbs, bounds and domain unchanged)")
            ),
            format!("arguments: {}", arguments(f)),
            format!("memory: {aliasing}"),
        ]
    }

    fn nasm(&self, p: &cryptopt_x86::Program) -> String {
        self.commented(p, "; ", "") + &cryptopt_x86::print::nasm_for(p, self.object)
    }

    fn gas(&self, p: &cryptopt_x86::Program) -> String {
        // C comments: a .S file goes through the C preprocessor.
        self.commented(p, "/* ", " */") + &cryptopt_x86::print::gas_for(p, self.object)
    }

    /// The C header: the prototype under the name the assembly defines (`--symbol`).
    fn header(&self, p: &cryptopt_x86::Program) -> String {
        let name = self.object.c_name(p);
        let guard = format!("{}_H", name.to_uppercase());
        format!(
            "{}#ifndef {guard}\n#define {guard}\n{}\n#ifdef __cplusplus\nextern \"C\" {{\n#endif\n{}\n#ifdef __cplusplus\n}}\n#endif\n#endif\n",
            self.commented(p, "/* ", " */"),
            cryptopt_measure::c::prelude(self.opts.abi),
            cryptopt_measure::c::prototype_for(self.f, name, self.opts.abi)
        )
    }

    fn commented(&self, p: &cryptopt_x86::Program, open: &str, close: &str) -> String {
        self.lines(p)
            .iter()
            .map(|l| format!("{open}{l}{close}\n"))
            .collect()
    }
}
