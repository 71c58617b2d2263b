//! `cryptopt optimize`: the command line to a [`Job`], the driver's pipeline, then the
//! result line (and, with `--emit`, the Rust module or the dispatcher's folder).
//!
//! Ctrl-C stops the search after the current step; the best program and the state so
//! far are then written as at the end of a run, and the exit code is 130.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use anyhow::{bail, Result};

use cryptopt_codegen::{Options, Target};
use cryptopt_driver::optimize::Choice;
use cryptopt_driver::state::SavedState;
use cryptopt_driver::{files, optimize, write, Error, Job, Outcome};
use cryptopt_gen::fields::Algorithm;
use cryptopt_ir::Function;
use cryptopt_measure::timing::{Config, Mode};
use cryptopt_search::local_search;

use crate::args::{parse_count, EmitArg, MeasureArg, OptimizeArgs, DEFAULT_EVALS};
use crate::progress::Display;

/// The function to optimize, where it came from, and its representation.
type Input = (Function, PathBuf, Option<String>);

/// `cryptopt optimize`: one function, from the command line to the result line.
pub fn command(args: OptimizeArgs) -> Result<()> {
    if args.field.field.is_some() && args.input.is_some() {
        bail!("give either an input file or --field, not both");
    }
    let saved = args.resume.as_deref().map(SavedState::read).transpose()?;
    let vector = args.field.vector()?;
    let (f, input, representation) = input(&args, saved.as_ref())?;
    let opts = options(&args, saved.as_ref())?;
    let params = params(&args, saved.as_ref())?;
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
    let algorithm = match saved.as_ref().map(|s| s.algorithm.as_deref()) {
        Some(Some(name)) => Choice::Only(name.parse()?),
        Some(None) => Choice::Only(Algorithm::Input),
        None => args.algorithm,
    };
    let resume = saved.map(|s| s.search);
    let cpu = match args.cpu {
        Some(cpu) => cpu,
        None => cryptopt_driver::cpus::allowed()[0],
    };
    let job = |opts: Options, object: cryptopt_x86::object::Object, out: PathBuf| Job {
        f: &f,
        vector: vector.as_ref(),
        input: input.clone(),
        representation: representation.clone(),
        opts,
        object,
        params,
        resume: resume.clone(),
        cfg: Config {
            cyclegoal: args.cycle_goal,
            batches: args.batches,
            mode: match args.measure {
                MeasureArg::Throughput => Mode::Throughput,
                MeasureArg::Latency => Mode::Latency,
            },
            ..Config::default()
        },
        cc: args.cc.clone(),
        cpu,
        counter: args.counter.choice(),
        out,
        verify: !args.no_verify,
        verify_every: args.verify_every,
        algorithm,
    };
    let display = Display::Auto(args.progress_every);
    let run = |job: Job<'_>| optimize(job, &mut display.show(), &stop);
    if vector.is_some() && args.emit != EmitArg::Asm {
        bail!("--repr ifma writes assembly only (no --emit dispatch or rust)");
    }
    if args.emit == EmitArg::Dispatch {
        if opts.target != Target::default() {
            bail!("--emit dispatch makes a program for every target; leave out --target");
        }
        let public = object.symbol.clone().unwrap_or_else(|| f.name.clone());
        let mut gas = Vec::new();
        for t in Target::ALL {
            let named = cryptopt_x86::object::Object {
                symbol: Some(cryptopt_emit::dispatch::symbol(&public, t)),
                ..object.clone()
            };
            let o = run(job(
                Options { target: t, ..opts },
                named,
                out.join(t.name()),
            ))?;
            print_result(&f, &o, &format!(" target={t}"));
            if o.stopped {
                return Err(Error::Interrupted.into());
            }
            gas.push((t, o.gas_path));
        }
        let dir = write::write_dispatch(&out, &f, &public, opts.abi, &gas)?;
        println!("dispatch: {}", dir.display());
        return Ok(());
    }
    if args.emit == EmitArg::Rust {
        // Names Rust cannot take fail now, not after the search.
        cryptopt_emit::rust::check(&f, &object)?;
    }
    let o = run(job(opts, object.clone(), out))?;
    print_result(&f, &o, "");
    if args.emit == EmitArg::Rust {
        let repr = representation.as_deref();
        let path = write::write_rust(&f, &o, &object, &opts, repr, params.seed)?;
        println!("rust: {}", path.display());
    }
    if o.stopped {
        if vector.is_none() {
            let state = o.asm_path.with_file_name("state.json");
            eprintln!(
                "interrupted by Ctrl-C after {} evaluations; the best program and the state are written; continue with: cryptopt optimize --resume {}",
                o.evals,
                state.display()
            );
        }
        return Err(Error::Interrupted.into());
    }
    Ok(())
}

/// The function: generated (`--field`), read from the input file, or the saved state's.
fn input(args: &OptimizeArgs, saved: Option<&SavedState>) -> Result<Input> {
    Ok(match (&args.input, args.field.function()?, saved) {
        (_, Some((f, repr)), _) => (f, PathBuf::from(args.field.describe()), Some(repr)),
        (Some(input), None, _) => (
            files::load(input, args.function.as_deref(), false)?,
            input.clone(),
            None,
        ),
        (None, None, Some(s)) => (s.function()?, s.input.clone(), s.representation.clone()),
        (None, None, None) => bail!("give an input file, --field or --resume"),
    })
}

/// The code-generation options: the given ones, or a resumed state's.
fn options(args: &OptimizeArgs, saved: Option<&SavedState>) -> Result<Options> {
    let given = args.cg.options();
    Ok(match saved {
        // Options left at their defaults take the saved ones.
        Some(s) if given == Options::default() || given == s.options => s.options,
        Some(s) => bail!(
            "{} was made with other code-generation options ({:?}); give the same options or none",
            args.resume.as_deref().unwrap_or(Path::new("")).display(),
            s.options
        ),
        None => given,
    })
}

/// The search parameters: the given ones, or a resumed state's with a larger budget.
fn params(args: &OptimizeArgs, saved: Option<&SavedState>) -> Result<local_search::Params> {
    let default_evals = parse_count(DEFAULT_EVALS).map_err(anyhow::Error::msg)?;
    Ok(match saved {
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
    })
}

/// The one `result:` line of an optimization (`extra`: more `key=value` fields).
pub(crate) fn print_result(f: &Function, o: &Outcome, extra: &str) {
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
