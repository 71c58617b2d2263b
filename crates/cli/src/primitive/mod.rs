//! `cryptopt primitive NAME`: a whole Diffie–Hellman primitive as a static library built
//! from code cryptopt optimized and proved.
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
use std::process::Command;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use anyhow::{anyhow, bail, Context, Result};

use cryptopt_gen::fields::{self, FieldOp, FieldOptions, FieldSpec, ReprChoice};
use cryptopt_gen::formulas::{self, Formula};
use cryptopt_ir::Function;
use cryptopt_measure::timing::{self, Mode};

use crate::args::{PrimitiveArgs, PrimitiveName, SearchArgs};
use cryptopt_driver::files::ensure_writable;
use cryptopt_driver::progress::human_seconds;
use cryptopt_driver::{cpus, optimize, Job};

mod bench;
mod ecdh;
mod glv;
pub(crate) use bench::command as bench;

/// One function the primitive is made of, under the name its driver calls.
struct Piece {
    f: Function,
    representation: String,
}

impl Piece {
    /// `f` renamed `cryptopt_<primitive>_<suffix>`, the name the driver calls.
    fn new(mut f: Function, name: PrimitiveName, suffix: &str, representation: &str) -> Piece {
        f.name = format!("{}_{suffix}", base(name));
        Piece {
            f,
            representation: representation.to_string(),
        }
    }
}

/// What one primitive consists of: its pieces, and the C around them (the driver and
/// header under the names they are shipped with, [`base`]`.c` and `.h`).
struct Recipe {
    name: PrimitiveName,
    pieces: Vec<Piece>,
    driver: String,
    header: &'static str,
    selftest: String,
}

/// A preset field in the representation a primitive's pieces are made in.
fn field(preset: &str, repr: ReprChoice) -> Result<FieldSpec> {
    Ok(fields::resolve(
        preset,
        &FieldOptions {
            repr,
            ..FieldOptions::default()
        },
    )?)
}

fn recipe(name: PrimitiveName) -> Result<Recipe> {
    match name {
        // The saturated representation (4×64, 2^256 ≡ 38): its ladder step is the faster
        // of the two on every machine measured so far (issue 13's bench).
        PrimitiveName::X25519 => ladder(
            name,
            field("curve25519", ReprChoice::Saturated)?,
            Formula::X25519Ladderstep,
            [
                include_str!("cryptopt_x25519.c"),
                include_str!("cryptopt_x25519.h"),
                include_str!("x25519_selftest.c"),
            ],
        ),
        // The saturated representation (2×64, 2^128 ≡ 2): no carry chain anywhere in the
        // step (the 3-limb one needs them after the Hadamard rows).
        PrimitiveName::Kummer => ladder(
            name,
            field("p127", ReprChoice::Saturated)?,
            Formula::KummerLadderstep,
            [
                include_str!("cryptopt_kummer.c"),
                include_str!("cryptopt_kummer.h"),
                include_str!("kummer_selftest.c"),
            ],
        ),
        PrimitiveName::P256 | PrimitiveName::Secp256k1 => ecdh::recipe(name),
    }
}

/// A ladder's recipe: its step (`formula`), and the field's mul and square for the
/// inversion, all over `spec`; `[driver, header, selftest]` the C around them.
fn ladder(
    name: PrimitiveName,
    spec: FieldSpec,
    formula: Formula,
    [driver, header, selftest]: [&'static str; 3],
) -> Result<Recipe> {
    let representation = spec.representation();
    let named = |f, suffix: &str| Piece::new(f, name, suffix, &representation);
    let (step, _) = formulas::generate(formula, &spec)?;
    Ok(Recipe {
        name,
        pieces: vec![
            named(step, "ladderstep"),
            named(fields::generate(&spec, FieldOp::Mul)?, "mul"),
            named(fields::generate(&spec, FieldOp::Square)?, "square"),
        ],
        driver: driver.to_string(),
        header,
        selftest: selftest.to_string(),
    })
}

/// How to make a primitive: the searches' budget and machine (from `primitive`, or from
/// `bench --primitives`).
pub(crate) struct Settings {
    pub evals: u64,
    pub cc: String,
    pub search: SearchArgs,
}

/// The stem of the primitive's files and symbols: `cryptopt_x25519` (the driver
/// `cryptopt_x25519.c`, the header `cryptopt_x25519.h`, the archive
/// `libcryptopt_x25519.a`).
fn base(name: PrimitiveName) -> String {
    format!("cryptopt_{}", name.as_str())
}

/// The archive's file name: `libcryptopt_x25519.a`.
pub(crate) fn archive_name(name: PrimitiveName) -> String {
    format!("lib{}.a", base(name))
}

pub fn command(args: PrimitiveArgs) -> Result<()> {
    args.search.params(args.evals).check()?;
    let started = Instant::now();
    let settings = Settings {
        evals: args.evals,
        cc: args.cc,
        search: args.search.clone(),
    };
    let lib = make(args.name, &settings, &args.out)?;
    println!(
        "wrote {} and {} (self-test passed; {} in all)",
        lib.display(),
        args.out.join(format!("{}.h", base(args.name))).display(),
        human_seconds(started.elapsed().as_secs_f64())
    );
    Ok(())
}

/// Optimizes and proves the primitive's pieces, builds the library in `out` and
/// self-tests it; the archive's path.
pub(crate) fn make(name: PrimitiveName, s: &Settings, out: &Path) -> Result<PathBuf> {
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
    build(&recipe, &sources, &s.cc, out)
}

/// Compiles the driver and assembles `sources` in a scratch folder inside `out`, archives
/// them, runs the self-test against the archive, and only then moves the archive, the
/// header and the driver's source into `out`. Returns the archive's path.
fn build(recipe: &Recipe, sources: &[PathBuf], cc: &str, out: &Path) -> Result<PathBuf> {
    let base = base(recipe.name);
    let header = format!("{base}.h");
    let driver = format!("{base}.c");
    let archive = archive_name(recipe.name);
    in_scratch(out, "build", |scratch| {
        let write = |name: &str, text: &str| {
            std::fs::write(scratch.join(name), text)
                .with_context(|| format!("cannot write {}", scratch.join(name).display()))
        };
        write(&header, recipe.header)?;
        write(&driver, &recipe.driver)?;
        write("selftest.c", &recipe.selftest)?;

        let mut objects = Vec::new();
        // -O3: the drivers' masked table reads vectorize (P-256 ECDH 1% faster than -O2).
        let mut compile = |src: &Path, obj: String| -> Result<()> {
            run(Command::new(cc)
                .args(["-O3", "-fPIC", "-Wall", "-c", "-I"])
                .arg(scratch)
                .arg(src)
                .arg("-o")
                .arg(scratch.join(&obj)))?;
            objects.push(obj);
            Ok(())
        };
        compile(&scratch.join(&driver), format!("{base}.o"))?;
        for s in sources {
            let stem = s
                .file_stem()
                .ok_or_else(|| anyhow!("{} has no file name", s.display()))?;
            compile(s, format!("{}.o", stem.to_string_lossy()))?;
        }
        run(Command::new("ar")
            .arg("rcs")
            .arg(&archive)
            .args(&objects)
            .current_dir(scratch))?;

        // The self-test links the archive as a user would.
        run(Command::new(cc)
            .args(["-O2", "-I"])
            .arg(scratch)
            .arg(scratch.join("selftest.c"))
            .arg(scratch.join(&archive))
            .arg("-o")
            .arg(scratch.join("selftest")))?;
        let said = run(&mut Command::new(scratch.join("selftest")))
            .context("the library's self-test failed; no library is written")?;
        if said.trim() != "ok" {
            bail!("the library's self-test said `{}`", said.trim());
        }

        for name in [&driver, &header, &archive] {
            std::fs::rename(scratch.join(name), out.join(name))
                .with_context(|| format!("cannot move {name} into {}", out.display()))?;
        }
        Ok(out.join(&archive))
    })
}

/// `work` in a fresh scratch folder `dir/.TAG-<pid>`, removed afterwards whatever
/// happened (nothing half-made stays in `dir`).
fn in_scratch<T>(dir: &Path, tag: &str, work: impl FnOnce(&Path) -> Result<T>) -> Result<T> {
    let scratch = dir.join(format!(".{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&scratch)
        .with_context(|| format!("cannot create {}", scratch.display()))?;
    let result = work(&scratch);
    let _ = std::fs::remove_dir_all(&scratch);
    result
}

/// Runs a tool; its stdout, or an error with the command and the first lines it said.
fn run(cmd: &mut Command) -> Result<String> {
    let shown = format!("{cmd:?}");
    let o = cmd
        .output()
        .with_context(|| format!("cannot run {shown}"))?;
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    if !o.status.success() {
        let said = format!("{stdout}{}", String::from_utf8_lossy(&o.stderr));
        let first: Vec<&str> = said.lines().take(8).collect();
        bail!("{shown} failed ({}): {}", o.status, first.join(" / "));
    }
    Ok(stdout)
}
