//! `bench`'s side-by-side measurements: per function, on one pinned CPU, our winner
//! against each compiler's baseline, the other programs (`--compare` files, the formula
//! from its operations, the vector form), interleaved and repeated (`stats::compare`),
//! every round's outputs checked against the interpreter. Every program measured is
//! checked first: the baselines by the session, the others by [`check_program`]. It
//! never changes a program, and prints nothing (lines go to [`Progress`]).

use std::path::{Path, PathBuf};

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use cryptopt_codegen::Options;
use cryptopt_ir::Function;
use cryptopt_measure::baseline::CompiledC;
use cryptopt_measure::counter::Choice;
use cryptopt_measure::diff::Oracle;
use cryptopt_measure::stats::{self, Compared};
use cryptopt_measure::timing::{self, Config, Mode};
use cryptopt_measure::ExecMem;
use cryptopt_x86::Program;

use crate::bench_report::{Line, Ours, Search};
use crate::checks::check_program;
use crate::{cpus, files, Error, Progress, Result, Session};

/// A function to measure, the input it came from and its representation where the
/// generator made it (for the written programs' headers and states).
pub struct Benched {
    pub f: Function,
    pub input: PathBuf,
    pub representation: Option<String>,
    /// A vector program whose scalar expansion `f` is (`--repr ifma`): optimized by the
    /// vector pipeline.
    pub vector: Option<cryptopt_ir::vector::VFunction>,
}

/// The winner of one optimization (or of an earlier run, reused).
pub struct Winner {
    pub program: Program,
    /// What the search cost; `None` for a program reused from an earlier run.
    pub search: Option<Search>,
    /// The algorithm it computes the function by, where its header names one.
    pub algorithm: Option<String>,
}

/// Both winners of a function: of the throughput search and of the latency search.
pub type Winners = (Option<Winner>, Option<Winner>);

/// Our program in one table: what it is and what making it cost.
pub fn ours(w: &Winner) -> Ours {
    Ours {
        instructions: w.program.insts.len(),
        stack_bytes: w.program.stack_bytes(),
        search: w.search,
        algorithm: w.algorithm.clone(),
    }
}

/// Someone else's implementation (`--compare NAME=FILE`): its programs, proved before
/// they are measured.
pub struct External {
    pub name: String,
    pub file: String,
    pub programs: Vec<Program>,
}

/// How the measurements are made.
pub struct Settings<'a> {
    /// The compilers, each a column; the first is the searches' baseline too.
    pub compilers: &'a [String],
    /// The C source `.ll` inputs came from (their baselines compile it instead of the C
    /// the emitter writes).
    pub c_source: Option<&'a Path>,
    pub opts: Options,
    pub counter: Choice,
    pub batches: usize,
    pub repeats: usize,
    pub seed: u64,
}

/// What the measurements give the reports.
pub struct Measured {
    pub columns: Vec<String>,
    pub lines: Vec<Line>,
    pub counter: &'static str,
    pub counter_describe: String,
    pub notes: Vec<String>,
}

/// The column of the formula built from separately optimized operations.
pub const OPS_COLUMN: &str = "ops";

/// The name of the vector form's column.
const VECTOR_COLUMN: &str = "cryptopt ifma";

/// The programs of one function's comparison, in measurement order: ours first, then
/// one per column (`columns[i]`: the index in `programs` of report column `i`, `None`
/// where that column has no program for this function).
struct Field<'a> {
    programs: Vec<*const u8>,
    names: Vec<String>,
    columns: Vec<Option<usize>>,
    /// Programs checked against another function (the vector form's expansion).
    others: Vec<(usize, &'a Function)>,
    /// What the pointers point into.
    _keep: (Vec<CompiledC>, Vec<ExecMem>),
}

/// Measures every function on the first allowed CPU, one comparison at a time.
pub fn all(
    args: &Settings<'_>,
    functions: &[Benched],
    winners: Vec<Winners>,
    externals: &[External],
    from_ops: Option<&(String, CompiledC)>,
    progress: &mut dyn Progress,
) -> Result<Measured> {
    let session = Session::open(cpus::allowed()[0], args.counter)?;
    let counter = &session.counter;
    progress.warn(&format!(
        "counter: {} ({}); {}",
        counter.describe(),
        session.why,
        cryptopt_measure::counter::describe_probes(&session.probes)
    ));
    // The vector form (--repr ifma) is also measured in the row of the formula it is a
    // form of, checked against its own expansion there.
    let vector_twin = functions
        .iter()
        .zip(&winners)
        .find(|(b, _)| b.vector.is_some())
        .and_then(|(b, (t, _))| Some((&b.f, t.as_ref()?.program.clone())));
    let twin_of = from_ops.map(|(name, _)| name.clone());
    let twin = match &vector_twin {
        Some((g, p)) => Some((*g, ExecMem::from_program(p)?)),
        None => None,
    };
    let mut columns: Vec<String> = args.compilers.to_vec();
    columns.extend(externals.iter().map(|e| e.name.clone()));
    columns.extend(from_ops.iter().map(|_| OPS_COLUMN.to_string()));
    columns.extend(vector_twin.iter().map(|_| VECTOR_COLUMN.to_string()));
    let mut lines = Vec::new();
    let mut notes = Vec::new();
    for (bench, (through_w, latency_w)) in functions.iter().zip(winners) {
        let f = &bench.f;
        let (through_w, latency_w) = match (through_w, latency_w) {
            (Some(t), l) => (t, l),
            (None, Some(l)) => (l, None),
            (None, None) => return Err(Error::Unsupported(format!("{}: not optimized", f.name))),
        };
        let twin_here = twin
            .as_ref()
            .filter(|_| twin_of.as_deref() == Some(f.name.as_str()));
        let field = field(
            args,
            &session,
            bench,
            &through_w,
            externals,
            from_ops,
            twin.is_some().then_some(twin_here),
        )?;
        let line = line(args, &session, f, &field, through_w, latency_w)?;
        progress.warn(&format!(
            "{}: {} of {} repetitions quiet; ours {:.1}, {}",
            f.name,
            line.throughput.1.quiet,
            line.throughput.1.measured,
            line.throughput.1.means[0],
            columns
                .iter()
                .zip(&line.throughput.1.means[1..])
                .map(|(c, m)| format!("{c} {m:.1}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        if let Some((g, _)) = twin_here {
            let note = vector_note(g, f, &line.throughput.1, &columns);
            progress.warn(&note);
            notes.push(note);
        }
        lines.push(line);
    }
    Ok(Measured {
        columns,
        lines,
        counter: counter.name(),
        counter_describe: counter.describe(),
        notes,
    })
}

/// The programs one function is measured with (see [`Field`]); `twin`: where a vector
/// form is measured at all, `Some` of it for the row of its formula.
fn field<'a>(
    args: &Settings<'_>,
    session: &Session,
    bench: &Benched,
    ours: &Winner,
    externals: &[External],
    from_ops: Option<&(String, CompiledC)>,
    twin: Option<Option<&'a (&'a Function, ExecMem)>>,
) -> Result<Field<'a>> {
    let f = &bench.f;
    let opts = args.opts;
    let source = match args.c_source {
        Some(path) if files::is_llvm(&bench.input) => files::read(path)?,
        _ => cryptopt_emit::c::emit(f),
    };
    let mut compiled = Vec::new();
    for cc in args.compilers {
        let what = format!("the C baseline of {cc}");
        compiled.push(session.baseline(f, &source, cc, opts.target, opts.abi, &what)?);
    }
    let mut loaded = vec![ExecMem::from_program(&ours.program)?];
    let mut programs = vec![loaded[0].ptr()];
    programs.extend(compiled.iter().map(|c| c.ptr()));
    // Each program's name in mismatch messages, in measurement order.
    let mut names = vec!["cryptopt".to_string()];
    names.extend(
        args.compilers
            .iter()
            .map(|cc| format!("the C baseline of {cc}")),
    );
    let mut columns: Vec<Option<usize>> = (1..programs.len()).map(Some).collect();
    // External programs: proved, run against the interpreter, then measured too.
    for e in externals {
        let Some(p) = e.programs.iter().find(|p| p.name == f.name) else {
            columns.push(None);
            continue;
        };
        let what = format!("--compare {}", e.name);
        check_program(f, p, cryptopt_ir::Aliasing::None, &what)?;
        let mem = ExecMem::from_program(p)?;
        columns.push(Some(programs.len()));
        programs.push(mem.ptr());
        names.push(what);
        loaded.push(mem);
    }
    match from_ops {
        Some((name, c)) if *name == f.name => {
            columns.push(Some(programs.len()));
            programs.push(c.ptr());
            names.push("the formula from its optimized operations".to_string());
        }
        Some(_) => columns.push(None),
        None => {}
    }
    let mut others = Vec::new();
    match twin {
        Some(Some((g, mem))) => {
            columns.push(Some(programs.len()));
            others.push((programs.len(), *g));
            programs.push(mem.ptr());
            names.push(format!("{VECTOR_COLUMN} ({})", g.name));
        }
        Some(None) => columns.push(None),
        None => {}
    }
    Ok(Field {
        programs,
        names,
        columns,
        others,
        _keep: (compiled, loaded),
    })
}

/// One function's line of the report: the throughput table, and the latency table where
/// the function can be chained (with the latency search's winner where there is one).
fn line(
    args: &Settings<'_>,
    session: &Session,
    f: &Function,
    field: &Field<'_>,
    through_w: Winner,
    latency_w: Option<Winner>,
) -> Result<Line> {
    let spread = |c: Compared| Compared {
        means: std::iter::once(c.means[0])
            .chain(
                field
                    .columns
                    .iter()
                    .map(|i| i.map_or(f64::NAN, |i| c.means[i])),
            )
            .collect(),
        ratios: std::iter::once(c.ratios[0])
            .chain(
                field
                    .columns
                    .iter()
                    .map(|i| i.map_or(f64::NAN, |i| c.ratios[i])),
            )
            .collect(),
        ..c
    };
    let names: Vec<&str> = field.names.iter().map(String::as_str).collect();
    let measure = |programs: &[*const u8], mode: Mode| {
        compare(f, &field.others, programs, &names, mode, session, args).map(spread)
    };
    let through = measure(&field.programs, Mode::Throughput)?;
    let latency = if timing::latency_possible(f) {
        let mut programs = field.programs.clone();
        let mem = latency_w
            .as_ref()
            .map(|w| ExecMem::from_program(&w.program))
            .transpose()?;
        if let Some(m) = &mem {
            programs[0] = m.ptr();
        }
        let w = latency_w.as_ref().unwrap_or(&through_w);
        Some((ours(w), measure(&programs, Mode::Latency)?))
    } else {
        None
    };
    Ok(Line {
        function: f.name.clone(),
        throughput: (ours(&through_w), through),
        latency,
    })
}

/// The sentence under the tables for the vector form measured in `f`'s row: each
/// speed-up over a column is the ratio of that column's per-measurement ratio to the
/// vector column's (the last).
fn vector_note(g: &Function, f: &Function, through: &Compared, columns: &[String]) -> String {
    let r = &through.ratios;
    let v = r[r.len() - 1];
    let over: Vec<String> = std::iter::once(("cryptopt", r[0]))
        .chain(
            columns[..columns.len() - 1]
                .iter()
                .map(String::as_str)
                .zip(r[1..r.len() - 1].iter().copied()),
        )
        .filter(|(_, x)| x.is_finite())
        .map(|(c, x)| format!("{c} {:.2}x", x / v))
        .collect();
    format!(
        "{} ({VECTOR_COLUMN}: the same formula four field operations at a time, checked against its own expansion) measured in the throughput row of {}: {:.1} ticks; speed-up over {}.",
        g.name,
        f.name,
        through.means[through.means.len() - 1],
        over.join(", ")
    )
}

/// Repeated interleaved measurement with the halves t-test ([`stats::compare`]), every
/// round's outputs checked against the interpreter.
fn compare(
    f: &Function,
    others: &[(usize, &Function)],
    programs: &[*const u8],
    names: &[&str],
    mode: Mode,
    session: &Session,
    args: &Settings<'_>,
) -> Result<Compared> {
    let cfg = Config {
        batches: args.batches,
        mode,
        ..Config::default()
    };
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(args.seed ^ 0xbe4c);
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
            &session.counter,
            args.repeats,
            &mut rng,
            &mut check,
        )
    }?;
    Ok(c)
}
