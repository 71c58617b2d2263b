//! `cryptopt bench`: the evaluation harness (the paper's Table 2 on this machine).
//!
//! ```text
//!  functions ─▶ optimize each, once per measure (--optimize-for both: throughput, and
//!               latency into OUT/latency/; up to --jobs in parallel, each on its own CPU)
//!            ─▶ per function, on one pinned CPU: ours vs every --compilers baseline
//!               (and --compare programs), interleaved, repeated --repeats times,
//!               halves t-tested, throughput and latency
//!            ─▶ report: bench.md, bench.csv, bench.html (tables + bar charts)
//! ```
//!
//! A comparison is only trusted when the two random halves of its repeated medians agree
//! (Welch's t-test, 5%); it is measured again otherwise (up to five times), and the
//! report says when the halves never agreed. Nothing here changes a program.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

use anyhow::{anyhow, bail, Context, Result};

use cryptopt_driver::progress::human_seconds;
use cryptopt_driver::{cpus, optimize, Job};
use cryptopt_frontend::fiat;
use cryptopt_ir::names::did_you_mean;
use cryptopt_ir::Function;
use cryptopt_measure::timing::{self, Mode};

use crate::args::{BenchArgs, OptimizeForArg};
use cryptopt_driver::bench::{self, Benched, External, Winner, Winners};
use cryptopt_driver::bench_report::{self as report, Search};

mod formula;

/// The paper's 18 functions: (file, function).
pub const PAPER: [(&str, &str); 18] = [
    ("curve25519_64.json", "fiat_25519_carry_mul"),
    ("curve25519_64.json", "fiat_25519_carry_square"),
    ("p224_64.json", "fiat_p224_mul"),
    ("p224_64.json", "fiat_p224_square"),
    ("p256_64.json", "fiat_p256_mul"),
    ("p256_64.json", "fiat_p256_square"),
    ("p384_64.json", "fiat_p384_mul"),
    ("p384_64.json", "fiat_p384_square"),
    ("p434_64.json", "fiat_p434_mul"),
    ("p434_64.json", "fiat_p434_square"),
    ("p448_solinas_64.json", "fiat_p448_carry_mul"),
    ("p448_solinas_64.json", "fiat_p448_carry_square"),
    ("p521_64.json", "fiat_p521_carry_mul"),
    ("p521_64.json", "fiat_p521_carry_square"),
    ("poly1305_64.json", "fiat_poly1305_carry_mul"),
    ("poly1305_64.json", "fiat_poly1305_carry_square"),
    (
        "secp256k1_montgomery_64.json",
        "fiat_secp256k1_montgomery_mul",
    ),
    (
        "secp256k1_montgomery_64.json",
        "fiat_secp256k1_montgomery_square",
    ),
];

/// The winner of one optimization (or of an earlier run, with `--reuse`), or why it
/// failed.
type Optimized = Result<Winner, String>;

/// The measures one function is optimized for: one search per measure (latency only
/// where the function can be chained, see [`timing::latency_possible`]).
fn modes_for(f: &Function, args: &BenchArgs) -> Vec<Mode> {
    let latency = timing::latency_possible(f);
    match args.optimize_for {
        OptimizeForArg::Both if latency => vec![Mode::Throughput, Mode::Latency],
        OptimizeForArg::Latency if latency => vec![Mode::Latency],
        _ => vec![Mode::Throughput],
    }
}

/// Where the winners of a search for `mode` are written (and read back by `--reuse`).
fn out_dir(args: &BenchArgs, mode: Mode) -> PathBuf {
    match mode {
        Mode::Throughput => args.out.clone(),
        Mode::Latency => args.out.join("latency"),
    }
}

/// `cryptopt bench`: optimize every function, compare, write the reports.
pub fn command(args: BenchArgs) -> Result<()> {
    // Bad search parameters are a usage error before anything runs.
    args.search.params(args.evals).check()?;
    if let Some(names) = &args.primitives {
        return crate::primitive::bench(&args, names);
    }
    let started = Instant::now();
    if args.compilers.is_empty() {
        bail!("--compilers needs at least one compiler");
    }
    if args.repeats < 4 {
        bail!("--repeats must be at least 4 (two halves of two)");
    }
    let (functions, source, from_ops) = match formula::resolve(&args)? {
        Some((functions, from_ops)) => (
            functions,
            "the built-in field generator".to_string(),
            from_ops,
        ),
        None => {
            let (functions, source) = resolve(&args)?;
            (functions, source, None)
        }
    };
    let externals = externals(&args)?;
    eprintln!(
        "bench: {} functions from {source}; {} evaluations each",
        functions.len(),
        args.evals
    );
    let mut versions = Vec::new();
    for cc in &args.compilers {
        let v = cryptopt_measure::baseline::compiler_version(cc)?;
        eprintln!("compiler: {cc}: {v}");
        versions.push((cc.clone(), v));
    }
    let opts = args.cg.options();
    if opts.abi != cryptopt_codegen::Abi::SysV {
        // The compilers' baselines, the formula column and --compare are System V code.
        bail!(
            "bench measures System V code only; optimize --abi {} measures a Windows x64 \
             program against its C baseline",
            opts.abi
        );
    }
    let winners = optimize_all(&args, &functions, opts, started)?;

    // The formula from its separately optimized operations (throughput winners).
    let from_ops = match &from_ops {
        Some(from) => {
            let winner = |name: &str| {
                functions
                    .iter()
                    .zip(&winners)
                    .find(|(b, _)| b.f.name == name)
                    .and_then(|(_, (t, l))| t.as_ref().or(l.as_ref()))
                    .map(|w| w.program.clone())
            };
            let c = formula::build(from, winner, &args.out)?;
            Some((from.function.name.clone(), c))
        }
        None => None,
    };
    let settings = bench::Settings {
        compilers: &args.compilers,
        c_source: args.c_source.as_deref(),
        opts,
        counter: args.search.counter.choice(),
        batches: args.search.batches,
        repeats: args.repeats,
        seed: args.search.seed,
    };
    // The measurements' lines are shown as they come (`Progress::warn`).
    let mut progress = args.search.progress("bench".into()).show();
    let measured = bench::all(
        &settings,
        &functions,
        winners,
        &externals,
        from_ops.as_ref(),
        &mut progress,
    )?;
    let md = write_reports(&args, &source, &versions, &externals, &measured, started)?;
    print!("{md}");
    let missing_agreement = measured
        .lines
        .iter()
        .filter(|l| !l.throughput.1.agreed)
        .count();
    if missing_agreement > 0 {
        eprintln!("note: for {missing_agreement} function(s) the halves of the repeated measurement never agreed (marked * in the table)");
    }
    Ok(())
}

/// Writes bench.md, bench.csv and bench.html; returns the markdown.
fn write_reports(
    args: &BenchArgs,
    source: &str,
    versions: &[(String, String)],
    externals: &[External],
    measured: &bench::Measured,
    started: Instant,
) -> Result<String> {
    let run = report::Run {
        out: &args.out,
        reuse: args.reuse,
        evals: args.evals,
        optimize_for: match args.optimize_for {
            OptimizeForArg::Both => report::OptimizeFor::Both,
            OptimizeForArg::Throughput => report::OptimizeFor::Throughput,
            OptimizeForArg::Latency => report::OptimizeFor::Latency,
        },
        target: args.cg.options().target,
        repeats: args.repeats,
        batches: args.search.batches,
        seed: args.search.seed,
    };
    Ok(report::write_reports(
        &run,
        &measured.columns,
        &measured.lines,
        &report::Setting {
            source,
            counter: measured.counter,
            counter_describe: &measured.counter_describe,
            compilers: versions,
            compared: &externals
                .iter()
                .map(|e| (e.name.clone(), e.file.clone()))
                .collect::<Vec<_>>(),
            seconds: started.elapsed().as_secs_f64(),
            notes: &measured.notes,
        },
    )?)
}

/// Optimizes, in parallel, each worker on its own allowed CPU: one search per function
/// and measure it is optimized for (or, with `--reuse`, each program read back and
/// checked). Returns per function the winner of each measure's search.
fn optimize_all(
    args: &BenchArgs,
    functions: &[Benched],
    opts: cryptopt_codegen::Options,
    started: Instant,
) -> Result<Vec<Winners>> {
    let searches: Vec<(usize, Mode)> = functions
        .iter()
        .enumerate()
        .flat_map(|(i, b)| modes_for(&b.f, args).into_iter().map(move |m| (i, m)))
        .collect();
    let allowed = cpus::allowed();
    eprintln!("cpus: {}", cpus::describe_run(&allowed, args.search.jobs));
    let stop = AtomicBool::new(false);
    let done = AtomicUsize::new(0);
    let mut results: Vec<Option<Optimized>> =
        cpus::run(searches.len(), args.search.jobs, &allowed, |i, cpu| {
            let (fi, mode) = searches[i];
            let r = search_one(args, &functions[fi], opts, mode, cpu, &stop);
            if args.reuse {
                return Some(r);
            }
            // Searches take about equally long: the rest takes what those done took.
            let finished = done.fetch_add(1, Ordering::SeqCst) + 1;
            let left = searches.len() - finished;
            let eta = started.elapsed().as_secs_f64() * left as f64 / finished as f64;
            let progress = format!(
                "[{finished}/{} searches; the rest in about {}]",
                searches.len(),
                human_seconds(eta)
            );
            let what = label(&functions[fi].f, mode);
            match &r {
                Ok(Winner {
                    search: Some(sr), ..
                }) => eprintln!(
                    "optimized {what} in {:.0} s ({:.0} evaluations/s) {progress}",
                    sr.seconds,
                    sr.rate()
                ),
                Ok(_) => {}
                Err(e) => eprintln!("optimizing {what} failed: {e} {progress}"),
            }
            Some(r)
        });
    // A function optimized for one measure only uses that winner in both tables.
    let mut winners: Vec<Winners> = functions.iter().map(|_| (None, None)).collect();
    for (k, &(fi, mode)) in searches.iter().enumerate() {
        let w = match results[k].take() {
            Some(Ok(w)) => w,
            Some(Err(e)) => bail!("{}: {e}", functions[fi].f.name),
            None => bail!("{}: not optimized", functions[fi].f.name),
        };
        let (through, latency) = &mut winners[fi];
        match mode {
            Mode::Throughput => *through = Some(w),
            Mode::Latency => *latency = Some(w),
        }
    }
    Ok(winners)
}

/// A search's name in progress lines: `fiat_p256_mul (latency)`.
fn label(f: &Function, mode: Mode) -> String {
    match mode {
        Mode::Throughput => f.name.clone(),
        Mode::Latency => format!("{} (latency)", f.name),
    }
}

/// One search of `bench` on `cpu` (or, with `--reuse`, the program read back).
fn search_one(
    args: &BenchArgs,
    bench: &Benched,
    opts: cryptopt_codegen::Options,
    mode: Mode,
    cpu: usize,
    stop: &AtomicBool,
) -> Optimized {
    let Benched {
        f,
        input,
        representation,
        vector,
    } = bench;
    let what = label(f, mode);
    if args.reuse {
        let opts = match vector {
            Some(_) => cryptopt_driver::optimize::vector::options(opts),
            None => Ok(opts),
        };
        let r = opts
            .and_then(|opts| reuse(f, args, opts, mode, cpu))
            .map_err(|e| format!("--reuse: {e}"));
        if let Err(e) = &r {
            eprintln!("reusing {what} failed: {e}");
        }
        return r;
    }
    let t = Instant::now();
    let job = Job {
        f,
        vector: vector.as_ref(),
        input: input.clone(),
        representation: representation.clone(),
        opts,
        object: Default::default(),
        params: args.search.params(args.evals),
        resume: None,
        cfg: args.search.config(mode),
        cc: args.compilers[0].clone(),
        cpu,
        counter: args.search.counter.choice(),
        out: out_dir(args, mode),
        verify: true,
        verify_every: 0,
        algorithm: args.search.algorithm,
    };
    let mut progress = args.search.progress(what).show();
    optimize(job, &mut progress, stop)
        .map(|o| Winner {
            algorithm: o.algorithm.map(str::to_string),
            program: o.program,
            search: Some(Search {
                seconds: t.elapsed().as_secs_f64(),
                evals: o.evals,
            }),
        })
        .map_err(|e| e.to_string())
}

/// The `--compare NAME=FILE` implementations, read (proved later, per function).
fn externals(args: &BenchArgs) -> Result<Vec<External>> {
    let mut externals: Vec<External> = Vec::new();
    for spec in &args.compare {
        let (name, file) = spec
            .split_once('=')
            .ok_or_else(|| anyhow!("--compare wants NAME=FILE.asm, not `{spec}`"))?;
        if name.is_empty()
            || args.compilers.iter().any(|c| c == name)
            || externals.iter().any(|e| e.name == name)
        {
            bail!("--compare name `{name}` is empty or used twice");
        }
        let text = cryptopt_driver::files::read(std::path::Path::new(file))?;
        let programs = cryptopt_x86::parse::parse(&text).map_err(|e| anyhow!("{file}: {e}"))?;
        externals.push(External {
            name: name.to_string(),
            file: file.to_string(),
            programs,
        });
    }
    Ok(externals)
}

/// `--reuse`: the program an earlier run wrote to `OUT/<function>/<function>.asm`,
/// proved equivalent and run against the interpreter again (the file may have been
/// edited since).
fn reuse(
    f: &Function,
    args: &BenchArgs,
    opts: cryptopt_codegen::Options,
    mode: Mode,
    cpu: usize,
) -> cryptopt_driver::Result<Winner> {
    let path = out_dir(args, mode)
        .join(&f.name)
        .join(format!("{}.asm", f.name));
    cryptopt_driver::session::pin(cpu)?;
    let program = cryptopt_driver::checks::reread(f, &path, &opts, args.search.seed)?;
    let algorithm = std::fs::read_to_string(&path)
        .ok()
        .and_then(|text| cryptopt_emit::header::algorithm_of(&text).map(str::to_string));
    Ok(Winner {
        program,
        search: None,
        algorithm,
    })
}

/// The functions `--paper` or `--functions` names, and where they come from as a phrase.
fn resolve(args: &BenchArgs) -> Result<(Vec<Benched>, String)> {
    if !args.input.is_empty() {
        // Each file read once; each name from the first file that has it.
        let mut files = Vec::new();
        for input in &args.input {
            files.push((input, cryptopt_driver::files::load_all(input)?));
        }
        let mut out = Vec::new();
        for name in &args.functions {
            let found = files
                .iter()
                .find_map(|(input, fs)| Some((*input, fs.iter().find(|f| &f.name == name)?)));
            let Some((input, f)) = found else {
                let seen = files
                    .iter()
                    .flat_map(|(_, fs)| fs.iter().map(|f| f.name.as_str()));
                bail!(
                    "no function `{name}` in the --input files{}",
                    did_you_mean(name, seen)
                );
            };
            out.push(Benched {
                vector: None,
                f: f.clone(),
                input: input.clone(),
                representation: None,
            });
        }
        let names: Vec<String> = args.input.iter().map(|p| p.display().to_string()).collect();
        return Ok((out, names.join(", ")));
    }
    let names: Vec<(Option<&str>, String)> = if args.paper {
        PAPER
            .iter()
            .map(|(file, f)| (Some(*file), f.to_string()))
            .collect()
    } else if !args.functions.is_empty() {
        args.functions.iter().map(|f| (None, f.clone())).collect()
    } else {
        bail!("choose --paper or --functions NAME,...");
    };
    let dir = args
        .fiat_json
        .clone()
        .or_else(|| std::env::var_os("CRYPTOPT_FIAT_JSON").map(PathBuf::from))
        .filter(|d| !d.as_os_str().is_empty());
    let Some(dir) = dir else {
        // No Fiat JSON: the built-in generator makes the same functions.
        let mut out = Vec::new();
        for (_, name) in &names {
            let (spec, op) = cryptopt_gen::fields::builtin_spec(name).ok_or_else(|| {
                let known = cryptopt_gen::fields::builtin_names();
                anyhow!(
                    "`{name}` is not a function of the built-in generator{}",
                    did_you_mean(name, known.iter().map(String::as_str))
                )
            })?;
            out.push(Benched {
                vector: None,
                f: cryptopt_gen::fields::generate(&spec, op)?,
                input: PathBuf::from(format!("the built-in field generator ({name})")),
                representation: Some(spec.representation()),
            });
        }
        return Ok((
            out,
            "the built-in field generator (no --fiat-json or CRYPTOPT_FIAT_JSON)".to_string(),
        ));
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    for (file, name) in names {
        let candidates: Vec<PathBuf> = match file {
            Some(file) => vec![dir.join(file)],
            None => files.clone(),
        };
        let mut found = None;
        for path in candidates {
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            let in_file = fiat::function_names(&text)?;
            if in_file.contains(&name) {
                found = Some((fiat::parse_function(&text, &name)?, path));
                break;
            }
            seen.extend(in_file);
        }
        let (f, path) = found.ok_or_else(|| {
            anyhow!(
                "no function `{name}` in {}{}",
                dir.display(),
                did_you_mean(&name, seen.iter().map(String::as_str))
            )
        })?;
        out.push(Benched {
            vector: None,
            f,
            input: path,
            representation: None,
        });
    }
    Ok((out, format!("Fiat JSON in {}", dir.display())))
}
