//! `cryptopt primitive NAME`: a whole Diffie–Hellman primitive as a static library built
//! from code cryptopt optimized and proved (its recipe and build are
//! `cryptopt_driver::primitive`'s; this module runs the searches and says what happened).
//!
//! ```text
//!  pieces (generator: ladder step, field ops) ─▶ optimize each (pool; searched, run
//!      against the interpreter, proved) ─▶ DIR/<piece>/<piece>.S
//!  driver C (this folder, constant time) + the .S ─▶ cc -c, ar ─▶ self-test (RFC vectors)
//!      ─▶ DIR/libcryptopt_<name>.a, DIR/cryptopt_<name>.h, DIR/cryptopt_<name>.c
//! ```
//!
//! The driver is C that only sequences proved functions: the scalar loop, the final swap
//! and reduction, byte conversion, all by masks. The library is built in a scratch folder
//! inside DIR and moved into place only after its self-test passed, so a failed or
//! interrupted run never leaves a library behind. This module must never write a
//! library whose pieces were not all proved, and never put a secret-dependent branch or
//! address into a driver (the tests run the library under valgrind to hold it to that).

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use anyhow::{Context, Result};

use cryptopt_driver::files::ensure_writable;
use cryptopt_driver::primitive::{base, build, recipe, Primitive};
use cryptopt_driver::progress::human_seconds;
use cryptopt_driver::{cpus, optimize, Job};
use cryptopt_measure::timing::{self, Mode};

use crate::args::{PrimitiveArgs, SearchArgs};

mod bench;
pub(crate) use bench::command as bench;

/// How to make a primitive: the searches' budget and machine (from `primitive`, or from
/// `bench --primitives`).
pub(crate) struct Settings {
    pub evals: u64,
    pub cc: String,
    pub search: SearchArgs,
}

pub fn command(args: PrimitiveArgs) -> Result<()> {
    args.search.params(args.evals).check()?;
    let started = Instant::now();
    let settings = Settings {
        evals: args.evals,
        cc: args.cc,
        search: args.search.clone(),
    };
    let lib = make(args.name.primitive(), &settings, &args.out)?;
    println!(
        "wrote {} and {} (self-test passed; {} in all)",
        lib.display(),
        args.out
            .join(format!("{}.h", base(args.name.primitive())))
            .display(),
        human_seconds(started.elapsed().as_secs_f64())
    );
    Ok(())
}

/// Optimizes and proves the primitive's pieces, builds the library in `out` and
/// self-tests it; the archive's path.
pub(crate) fn make(name: Primitive, s: &Settings, out: &Path) -> Result<PathBuf> {
    let recipe = recipe(name)?;
    ensure_writable(out)?;
    let version = cryptopt_measure::baseline::compiler_version(&s.cc)?;
    eprintln!(
        "primitive {}: {} functions to optimize, {} evaluations each; compiler: {version}",
        name.as_str(),
        recipe.pieces.len(),
        s.evals
    );

    let stop = AtomicBool::new(false);
    let cpus = cpus::allowed();
    eprintln!("cpus: {}", cpus::describe_run(&cpus, s.search.jobs));
    let outcomes = cpus::run(recipe.pieces.len(), s.search.jobs, &cpus, |i, cpu| {
        let piece = &recipe.pieces[i];
        // The primitive chains its calls (each step's output is the next one's input):
        // searched for latency where the signature allows it (out1 like arg1); the ladder
        // step, whose arg1 is the swap bit, for throughput.
        let mode = if timing::latency_possible(&piece.f) {
            Mode::Latency
        } else {
            Mode::Throughput
        };
        let job = Job {
            f: &piece.f,
            vector: None,
            input: PathBuf::from(format!(
                "the built-in field generator (primitive {})",
                name.as_str()
            )),
            representation: Some(piece.representation.clone()),
            opts: cryptopt_codegen::Options::default(),
            object: Default::default(),
            params: s.search.params(s.evals),
            resume: None,
            cfg: s.search.config(mode),
            cc: s.cc.clone(),
            cpu,
            counter: s.search.counter.choice(),
            out: out.to_path_buf(),
            // Proved, or `optimize` fails: no library is ever made of an unproved piece.
            verify: true,
            verify_every: 0,
            algorithm: s.search.algorithm,
        };
        let mut progress = s.search.progress(piece.f.name.clone()).show();
        optimize(job, &mut progress, &stop).with_context(|| format!("optimizing {}", piece.f.name))
    });
    let mut sources = Vec::new();
    for (piece, outcome) in recipe.pieces.iter().zip(outcomes) {
        let o = outcome?;
        eprintln!(
            "{}: {} instructions, {:.1} {} ticks ({:.2}x {} -O3), proved, in {}",
            piece.f.name,
            o.program.insts.len(),
            o.cycles,
            o.counter,
            o.baseline / o.cycles,
            s.cc,
            human_seconds(o.seconds)
        );
        sources.push(o.gas_path);
    }
    Ok(build(&recipe, &sources, &s.cc, out)?)
}
