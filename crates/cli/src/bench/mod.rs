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
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use cryptopt_frontend::fiat;
use cryptopt_ir::names::did_you_mean;
use cryptopt_ir::Function;
use cryptopt_measure::baseline::CompiledC;
use cryptopt_measure::counter;
use cryptopt_measure::diff::Oracle;
use cryptopt_measure::stats::{self, Compared};
use cryptopt_measure::timing::{self, Config, Mode};
use cryptopt_measure::ExecMem;
use cryptopt_x86::Program;

use crate::args::{BenchArgs, OptimizeForArg};
use crate::checks::{check_baseline, CheckFailed};
use crate::optimize::{human_seconds, optimize, Job};
use crate::pool;

mod formula;
pub(crate) mod report;

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

struct Winner {
    program: Program,
    /// What the search cost; `None` for a program reused from an earlier run.
    search: Option<Search>,
}

/// Seconds and evaluations an optimization took.
#[derive(Clone, Copy)]
struct Search {
    seconds: f64,
    evals: u64,
}

impl Search {
    fn rate(self) -> f64 {
        self.evals as f64 / self.seconds.max(1e-9)
    }
}

/// Our program in one table: what it is and what making it cost.
struct Ours {
    instructions: usize,
    stack_bytes: u32,
    search: Option<Search>,
}

impl Ours {
    fn of(w: &Winner) -> Ours {
        Ours {
            instructions: w.program.insts.len(),
            stack_bytes: w.program.stack_bytes(),
            search: w.search,
        }
    }
}

/// A `--compare NAME=FILE` implementation: its programs, proved before they are measured.
struct External {
    name: String,
    file: String,
    programs: Vec<Program>,
}

/// One function of the report: per table, our program and the comparison.
struct Line {
    function: String,
    throughput: (Ours, Compared),
    latency: Option<(Ours, Compared)>,
}

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
        let text = std::fs::read_to_string(file).with_context(|| format!("cannot read {file}"))?;
        let programs = cryptopt_x86::parse::parse(&text).with_context(|| file.to_string())?;
        externals.push(External {
            name: name.to_string(),
            file: file.to_string(),
            programs,
        });
    }
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

    // Optimize, in parallel, each worker on its own CPU: one search per function and
    // measure it is optimized for.
    let searches: Vec<(usize, Mode)> = functions
        .iter()
        .enumerate()
        .flat_map(|(i, b)| modes_for(&b.f, &args).into_iter().map(move |m| (i, m)))
        .collect();
    let stop = AtomicBool::new(false);
    let done = AtomicUsize::new(0);
    let mut results: Vec<Option<Optimized>> =
        pool::run(searches.len(), args.search.jobs, |i, worker| {
            let (fi, mode) = searches[i];
            let Benched {
                f,
                input,
                representation,
                vector,
            } = &functions[fi];
            let what = match mode {
                Mode::Throughput => f.name.clone(),
                Mode::Latency => format!("{} (latency)", f.name),
            };
            if args.reuse {
                let opts = match vector {
                    Some(_) => crate::optimize::vector_options(opts),
                    None => Ok(opts),
                };
                let r = opts
                    .and_then(|opts| reuse(f, &args, opts, mode, worker))
                    .map_err(|e| format!("{e:#}"));
                if let Err(e) = &r {
                    eprintln!("reusing {what} failed: {e}");
                }
                return Some(r);
            }
            let t = Instant::now();
            let job = Job {
                f,
                input: input.clone(),
                representation: representation.clone(),
                opts,
                object: Default::default(),
                params: args.search.params(args.evals),
                resume: None,
                cfg: args.search.config(mode),
                cc: args.compilers[0].clone(),
                cpu: worker,
                counter: args.search.counter.choice(),
                out: out_dir(&args, mode),
                progress: args.search.progress(what.clone()),
                verify: true,
                verify_every: 0,
            };
            let r = match vector {
                Some(v) => crate::optimize::optimize_vector(job, v, &stop),
                None => optimize(job, &stop),
            };
            let r = r
                .map(|o| Winner {
                    program: o.program,
                    search: Some(Search {
                        seconds: t.elapsed().as_secs_f64(),
                        evals: o.evals,
                    }),
                })
                .map_err(|e| format!("{e:#}"));
            // Searches take about equally long: the rest takes what those done took.
            let finished = done.fetch_add(1, Ordering::SeqCst) + 1;
            let left = searches.len() - finished;
            let eta = started.elapsed().as_secs_f64() * left as f64 / finished as f64;
            let progress = format!(
                "[{finished}/{} searches; the rest in about {}]",
                searches.len(),
                human_seconds(eta)
            );
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
    // Per function: the winner of each measure's search (a function optimized for one
    // measure only uses that winner in both tables).
    let mut winners: Vec<(Option<Winner>, Option<Winner>)> =
        functions.iter().map(|_| (None, None)).collect();
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

    // Measure, one comparison at a time, on CPU 0.
    counter::pin_to_cpu(0)?;
    let chosen = counter::choose(args.search.counter.choice())?;
    let counter = chosen.counter;
    eprintln!(
        "counter: {} ({}); {}",
        counter.describe(),
        chosen.why,
        counter::describe_probes(&chosen.probes)
    );
    let ops_column = formula::COLUMN.to_string();
    // The vector form (--repr ifma) is also measured in the row of the formula it is a
    // form of, checked against its own expansion there.
    let vector_twin = functions
        .iter()
        .zip(&winners)
        .find(|(b, _)| b.vector.is_some())
        .and_then(|(b, (t, _))| Some((&b.f, t.as_ref()?.program.clone())));
    let twin_of = from_ops.as_ref().map(|(name, _)| name.clone());
    let twin_mem = vector_twin
        .as_ref()
        .map(|(_, p)| ExecMem::from_program(p))
        .transpose()?;
    let vector_column = "cryptopt ifma".to_string();
    let mut lines = Vec::new();
    let mut notes = Vec::new();
    for (bench, (through_w, latency_w)) in functions.iter().zip(winners) {
        let f = &bench.f;
        let (through_w, latency_w) = match (through_w, latency_w) {
            (Some(t), l) => (t, l),
            (None, Some(l)) => (l, None),
            (None, None) => bail!("{}: not optimized", f.name),
        };
        let source = match &args.c_source {
            Some(path) if crate::files::is_llvm(&bench.input) => crate::files::read(path)?,
            _ => cryptopt_measure::c::emit(f),
        };
        let mut compiled = Vec::new();
        for cc in &args.compilers {
            let c = CompiledC::build(
                &source,
                &f.name,
                cc,
                cryptopt_measure::baseline::target_flags(opts.target),
            )?;
            check_baseline(f, c.ptr(), opts.abi, &format!("the C baseline of {cc}"))?;
            compiled.push(c);
        }
        let ours = ExecMem::from_program(&through_w.program)?;
        let ours_latency = latency_w
            .as_ref()
            .map(|w| ExecMem::from_program(&w.program))
            .transpose()?;
        let mut programs = vec![ours.ptr()];
        programs.extend(compiled.iter().map(|c| c.ptr()));
        // Each program's name in mismatch messages, in measurement order.
        let mut names = vec!["cryptopt".to_string()];
        names.extend(
            args.compilers
                .iter()
                .map(|cc| format!("the C baseline of {cc}")),
        );
        // External programs: proved, run against the interpreter, then measured too.
        let mut columns: Vec<Option<usize>> = (1..programs.len()).map(Some).collect();
        let mut loaded = Vec::new();
        for External {
            name,
            programs: progs,
            ..
        } in &externals
        {
            let Some(p) = progs.iter().find(|p| p.name == f.name) else {
                columns.push(None);
                continue;
            };
            let opts = cryptopt_verify::CheckOptions {
                aliasing: cryptopt_verify::Aliasing::None,
                ..Default::default()
            };
            if let cryptopt_verify::Verdict::NotEquivalent(r) = cryptopt_verify::check(f, p, opts)?
            {
                return Err(CheckFailed(format!(
                    "--compare {name}: not proved equivalent to {}: {}",
                    f.name, r.problems[0]
                ))
                .into());
            }
            let mem = ExecMem::from_program(p)?;
            check_baseline(f, mem.ptr(), opts.abi, &format!("--compare {name}"))?;
            columns.push(Some(programs.len()));
            programs.push(mem.ptr());
            names.push(format!("--compare {name}"));
            loaded.push(mem);
        }
        match &from_ops {
            Some((name, c)) if *name == f.name => {
                columns.push(Some(programs.len()));
                programs.push(c.ptr());
                names.push("the formula from its optimized operations".to_string());
            }
            Some(_) => columns.push(None),
            None => {}
        }
        let mut others: Vec<(usize, &Function)> = Vec::new();
        if let (Some((g, _)), Some(mem)) = (&vector_twin, &twin_mem) {
            if twin_of.as_deref() == Some(f.name.as_str()) {
                columns.push(Some(programs.len()));
                others.push((programs.len(), *g));
                programs.push(mem.ptr());
                names.push(format!("{vector_column} ({})", g.name));
            } else {
                columns.push(None);
            }
        }
        let spread = |c: Compared| Compared {
            means: std::iter::once(c.means[0])
                .chain(columns.iter().map(|i| i.map_or(f64::NAN, |i| c.means[i])))
                .collect(),
            ratios: std::iter::once(c.ratios[0])
                .chain(columns.iter().map(|i| i.map_or(f64::NAN, |i| c.ratios[i])))
                .collect(),
            ..c
        };
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let through = spread(compare(
            f,
            &others,
            &programs,
            &names,
            Mode::Throughput,
            &counter,
            &args,
        )?);
        let latency = if timing::latency_possible(f) {
            // The latency table measures the latency search's winner where there is one.
            let mut programs = programs.clone();
            if let Some(m) = &ours_latency {
                programs[0] = m.ptr();
            }
            let w = latency_w.as_ref().unwrap_or(&through_w);
            Some((
                Ours::of(w),
                spread(compare(
                    f,
                    &others,
                    &programs,
                    &names,
                    Mode::Latency,
                    &counter,
                    &args,
                )?),
            ))
        } else {
            None
        };
        eprintln!(
            "{}: {} of {} repetitions quiet; ours {:.1}, {}",
            f.name,
            through.quiet,
            through.measured,
            through.means[0],
            args.compilers
                .iter()
                .chain(externals.iter().map(|e| &e.name))
                .chain(from_ops.iter().map(|_| &ops_column))
                .chain(vector_twin.iter().map(|_| &vector_column))
                .zip(&through.means[1..])
                .map(|(c, m)| format!("{c} {m:.1}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        if let Some((g, _)) = vector_twin
            .as_ref()
            .filter(|_| twin_of.as_deref() == Some(f.name.as_str()))
        {
            // The vector column is the last; each speed-up over a column is the ratio of
            // that column's per-measurement ratio to the vector column's.
            let r = &through.ratios;
            let v = r[r.len() - 1];
            let over: Vec<String> = std::iter::once(("cryptopt", r[0]))
                .chain(
                    args.compilers
                        .iter()
                        .chain(externals.iter().map(|e| &e.name))
                        .chain(from_ops.iter().map(|_| &ops_column))
                        .map(String::as_str)
                        .zip(r[1..r.len() - 1].iter().copied()),
                )
                .filter(|(_, x)| x.is_finite())
                .map(|(c, x)| format!("{c} {:.2}x", x / v))
                .collect();
            let note = format!(
                "{} ({vector_column}: the same formula four field operations at a time, checked against its own expansion) measured in the throughput row of {}: {:.1} ticks; speed-up over {}.",
                g.name,
                f.name,
                through.means[through.means.len() - 1],
                over.join(", ")
            );
            eprintln!("{note}");
            notes.push(note);
        }
        lines.push(Line {
            function: f.name.clone(),
            throughput: (Ours::of(&through_w), through),
            latency,
        });
    }
    let columns: Vec<String> = args
        .compilers
        .iter()
        .cloned()
        .chain(externals.iter().map(|e| e.name.clone()))
        .chain(from_ops.iter().map(|_| ops_column.clone()))
        .chain(vector_twin.iter().map(|_| vector_column.clone()))
        .collect();
    report::write_reports(
        &args,
        &columns,
        &lines,
        &report::Setting {
            source: &source,
            counter: counter.name(),
            counter_describe: &counter.describe(),
            compilers: &versions,
            compared: &externals
                .iter()
                .map(|e| (e.name.clone(), e.file.clone()))
                .collect::<Vec<_>>(),
            seconds: started.elapsed().as_secs_f64(),
            notes: &notes,
        },
    )?;
    let missing_agreement = lines.iter().filter(|l| !l.throughput.1.agreed).count();
    if missing_agreement > 0 {
        eprintln!("note: for {missing_agreement} function(s) the halves of the repeated measurement never agreed (marked * in the table)");
    }
    Ok(())
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
) -> Result<Winner> {
    let path = out_dir(args, mode)
        .join(&f.name)
        .join(format!("{}.asm", f.name));
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("--reuse: cannot read {}", path.display()))?;
    let programs = cryptopt_x86::parse::parse(&text).with_context(|| path.display().to_string())?;
    let program = programs
        .into_iter()
        .find(|p| p.name == f.name)
        .ok_or_else(|| anyhow!("--reuse: {} has no function `{}`", path.display(), f.name))?;
    counter::pin_to_cpu(cpu)?;
    crate::checks::check_natively(f, &program, &opts, args.search.seed)?;
    crate::checks::prove(f, &program, &opts)?;
    Ok(Winner {
        program,
        search: None,
    })
}

/// A function to measure, the input it came from and its representation where the
/// generator made it (for the written programs' headers and states).
struct Benched {
    f: Function,
    input: PathBuf,
    representation: Option<String>,
    /// A vector program whose scalar expansion `f` is (`--repr ifma`): optimized by the
    /// vector pipeline.
    vector: Option<cryptopt_ir::vector::VFunction>,
}

/// The functions `--paper` or `--functions` names, and where they come from as a phrase.
fn resolve(args: &BenchArgs) -> Result<(Vec<Benched>, String)> {
    if !args.input.is_empty() {
        // Each file read once; each name from the first file that has it.
        let mut files = Vec::new();
        for input in &args.input {
            files.push((input, crate::files::load_all(input)?));
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

/// Repeated interleaved measurement with the halves t-test ([`stats::compare`]), every
/// round's outputs checked against the interpreter.
fn compare(
    f: &Function,
    others: &[(usize, &Function)],
    programs: &[*const u8],
    names: &[&str],
    mode: Mode,
    counter: &counter::Counter,
    args: &BenchArgs,
) -> Result<Compared> {
    let cfg = Config {
        batches: args.search.batches,
        mode,
        ..Config::default()
    };
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(args.search.seed ^ 0xbe4c);
    let mut oracle = Oracle::new(f, names);
    for &(p, g) in others {
        oracle = oracle.with_reference(p, g);
    }
    let mut check = |inputs: &[Vec<u128>], outs: &[Vec<Vec<u128>>]| oracle.check(inputs, outs);
    // SAFETY: every program was checked against the interpreter before.
    let c = unsafe {
        stats::compare(
            f,
            programs,
            &cfg,
            counter,
            args.repeats,
            &mut rng,
            &mut check,
        )
    }?;
    Ok(c)
}
