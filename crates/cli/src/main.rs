//! `cryptopt`: the command-line front of the library crates.
//!
//! A thin binary (ripgrep's shape): argument parsing, reading files, printing, and the
//! exit codes. Exit codes: 0 success; 1 a check failed (later stages); 2 usage or input
//! error, with one line on stderr naming the problem. It never panics on bad input.

mod bench;
mod optimize;
mod report;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context, Result};
use clap::{Parser, Subcommand};
use cryptopt_codegen::{Candidate, FramePointer, Generator, Options};
use cryptopt_ir::Aliasing;
use cryptopt_ir::{fiat, interp, lower, text, Function};
use cryptopt_measure::diff::{pairings, Pairing, Runner};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// An optimizing compiler for straight-line cryptographic arithmetic.
#[derive(Parser, Debug)]
#[command(name = "cryptopt", version, about)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// List the functions in a Fiat JSON file with their argument and return shapes.
    List {
        /// A Fiat JSON file (an array of functions or one function).
        input: PathBuf,
    },
    /// Run a function on concrete inputs with the reference interpreter.
    Interp {
        input: PathBuf,
        /// The function's name; may be left out when the file has only one.
        #[arg(long, short)]
        function: Option<String>,
        /// The arguments as JSON: one array of hex or decimal strings per argument,
        /// e.g. '[["0x1","0x2"],["0x3","0x4"]]' (a scalar may be a bare string).
        #[arg(long)]
        args: String,
        /// Run the lowered function instead of the original (they must agree).
        #[arg(long)]
        lowered: bool,
    },
    /// Generate one random candidate implementation as x86-64 assembly, after checking it
    /// natively against the reference interpreter.
    Codegen {
        input: PathBuf,
        #[arg(long, short)]
        function: Option<String>,
        /// Seed of the random candidate (order and decisions).
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Assembly syntax of the output.
        #[arg(long, value_enum, default_value = "nasm")]
        syntax: Syntax,
        /// Output file (written atomically); standard output when left out.
        #[arg(short = 'o', long)]
        output: Option<PathBuf>,
        #[command(flatten)]
        cg: CodegenArgs,
    },
    /// Prove an x86-64 program (NASM or GNU as) equivalent to a function: exit 0 and
    /// `equivalent`, or exit 1 with a report.
    Check {
        input: PathBuf,
        #[arg(long, short)]
        function: Option<String>,
        /// The assembly file.
        program: PathBuf,
        /// Which outputs may be the same memory as which inputs in callers.
        #[arg(long, value_enum, default_value = "none")]
        aliasing: MemoryConstraintsArg,
    },
    /// Print a function of the built-in field generator as Fiat JSON.
    Gen {
        #[command(flatten)]
        field: FieldArgs,
    },
    /// Print the C that the baseline compiler is given (Fiat's C shape, same signature).
    EmitC {
        input: PathBuf,
        #[arg(long, short)]
        function: Option<String>,
    },
    /// Optimize a function: random local search over candidates, each timed on this CPU
    /// against the C baseline, the winner checked and written to DIR/<function>/.
    Optimize(OptimizeArgs),
    /// Optimize several functions and compare each with C compilers, side by side.
    Bench(bench::BenchArgs),
    /// Print a function's IR in readable text form.
    Ir {
        input: PathBuf,
        #[arg(long, short)]
        function: Option<String>,
        /// Print the function after lowering to the 64-bit machine-level dialect.
        #[arg(long)]
        lowered: bool,
    },
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum Syntax {
    Nasm,
    Gas,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum FramePointerArg {
    Omit,
    Save,
    Keep,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum MemoryConstraintsArg {
    None,
    Out1Arg1,
    All,
}

/// Options that change the emitted code's interface.
#[derive(clap::Args, Debug)]
struct CodegenArgs {
    /// omit: rbp is a general register; save: a conventional frame; keep: rbp untouched.
    #[arg(long, value_enum, default_value = "omit")]
    frame_pointer: FramePointerArg,
    /// Do not use the 128 bytes below rsp for spills.
    #[arg(long)]
    no_red_zone: bool,
    /// Which outputs may alias which inputs in C callers (all: the safe default).
    #[arg(long, value_enum, default_value = "all")]
    memory_constraints: MemoryConstraintsArg,
}

impl CodegenArgs {
    fn options(&self) -> Options {
        Options {
            frame_pointer: match self.frame_pointer {
                FramePointerArg::Omit => FramePointer::Omit,
                FramePointerArg::Save => FramePointer::Save,
                FramePointerArg::Keep => FramePointer::Keep,
            },
            red_zone: !self.no_red_zone,
            aliasing: self.memory_constraints.policy(),
        }
    }
}

/// The built-in field generator: `--field p256 --op mul`.
#[derive(clap::Args, Debug, Clone)]
struct FieldArgs {
    /// A preset (curve25519, p224, p256, p384, p434, p448, p521, poly1305, secp256k1,
    /// bls12-381-p) or a prime: '2^255 - 19', decimal or 0x hex.
    #[arg(long)]
    field: Option<String>,
    /// mul, square, add, sub or opp.
    #[arg(long, default_value = "mul")]
    op: String,
    /// Unsaturated (Solinas) limb count instead of Fiat's choice.
    #[arg(long)]
    limbs: Option<u32>,
    /// Representation: auto (presets keep theirs; 2^k - c primes unsaturated), montgomery, solinas.
    #[arg(long, value_enum, default_value = "auto")]
    repr: ReprArg,
    /// Accept a modulus that is not prime.
    #[arg(long)]
    allow_composite: bool,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum ReprArg {
    Auto,
    Montgomery,
    Solinas,
}

impl FieldArgs {
    /// The generated function, if --field was given.
    fn function(&self) -> Result<Option<Function>> {
        use cryptopt_ir::fields;
        let Some(field) = &self.field else {
            return Ok(None);
        };
        let opts = fields::FieldOptions {
            repr: match self.repr {
                ReprArg::Auto => fields::ReprChoice::Auto,
                ReprArg::Montgomery => fields::ReprChoice::Montgomery,
                ReprArg::Solinas => fields::ReprChoice::Solinas,
            },
            limbs: self.limbs,
            allow_composite: self.allow_composite,
        };
        let spec = fields::resolve(field, &opts)?;
        let op: fields::FieldOp = self.op.parse()?;
        Ok(Some(fields::generate(&spec, op)?))
    }
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum MeasureArg {
    Throughput,
    Latency,
}

#[derive(clap::Args, Debug)]
struct OptimizeArgs {
    /// A Fiat JSON file; leave it out with --field.
    #[arg(required_unless_present = "field")]
    input: Option<PathBuf>,
    #[arg(long, short)]
    function: Option<String>,
    #[command(flatten)]
    field: FieldArgs,
    /// Evaluations (mutants measured): a number, or with a k/M suffix (10k).
    #[arg(long, default_value = "10k", value_parser = parse_count)]
    evals: u64,
    /// Independent runs before the best one continues (bet-and-run).
    #[arg(long, default_value_t = 10)]
    bets: u32,
    /// Share of the evaluations spent on the bets.
    #[arg(long, default_value_t = 0.2)]
    bet_ratio: f64,
    /// One run, no bets.
    #[arg(long)]
    single: bool,
    /// Seed of the search (a run is reproducible from it, up to measurement noise).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Target length of one measured batch, in counter ticks.
    #[arg(long, default_value_t = 10_000)]
    cyclegoal: u64,
    /// Batches per program in one interleaved measurement.
    #[arg(long, default_value_t = 31)]
    batches: usize,
    /// C compiler of the baseline (compiled with -O3 -march=native -mtune=native).
    #[arg(long, default_value = "gcc")]
    cc: String,
    /// throughput: repeated independent calls; latency: each call's output feeds the next.
    #[arg(long, value_enum, default_value = "throughput")]
    measure: MeasureArg,
    /// CPU to pin the measuring thread to.
    #[arg(long, default_value_t = 0)]
    cpu: usize,
    /// Output folder; results go to DIR/<function>/.
    #[arg(long, default_value = "cryptopt-out")]
    out: PathBuf,
    /// Continue a saved run (its state.json).
    #[arg(long)]
    resume: Option<PathBuf>,
    /// Do not prove the final program with the equivalence checker (it is still run
    /// against the interpreter).
    #[arg(long)]
    no_verify: bool,
    /// Also prove every N-th improvement during the search (0: never).
    #[arg(long, default_value_t = 0)]
    verify_every: u64,
    #[command(flatten)]
    cg: CodegenArgs,
}

/// `10000`, `10k`, `2M`.
fn parse_count(s: &str) -> std::result::Result<u64, String> {
    let (digits, mult) = match s.strip_suffix(['k', 'K']) {
        Some(d) => (d, 1_000),
        None => match s.strip_suffix('M') {
            Some(d) => (d, 1_000_000),
            None => (s, 1),
        },
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(mult))
        .ok_or_else(|| format!("`{s}` is not a count (e.g. 10000, 10k, 1M)"))
}

/// A check of the produced code failed: exit code 1.
#[derive(Debug)]
struct CheckFailed(String);

impl std::fmt::Display for CheckFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CheckFailed {}

fn main() -> ExitCode {
    let cli = Cli::parse(); // clap prints usage errors itself and exits with 2
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS, // `cryptopt ... | head`
        Err(e) => {
            // One line: the chain of causes joined.
            let msg: Vec<String> = e.chain().map(|c| c.to_string()).collect();
            eprintln!("cryptopt: error: {}", msg.join(": ").replace('\n', " "));
            if e.downcast_ref::<CheckFailed>().is_some() {
                ExitCode::from(1)
            } else {
                ExitCode::from(2)
            }
        }
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.downcast_ref::<std::io::Error>()
        .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
}

fn run(cli: Cli) -> Result<()> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match cli.cmd {
        Cmd::List { input } => {
            let text = read(&input)?;
            for f in fiat::parse_functions(&text).with_context(|| input.display().to_string())? {
                writeln!(out, "{}", signature(&f))?;
            }
        }
        Cmd::Interp {
            input,
            function,
            args,
            lowered,
        } => {
            let f = load(&input, function.as_deref(), lowered)?;
            let inputs = parse_args(&f, &args)?;
            let outputs = interp::run(&f, &inputs)?;
            let obj: serde_json::Map<String, serde_json::Value> = f
                .returns
                .iter()
                .zip(outputs)
                .map(|(p, vals)| {
                    let hex = vals
                        .iter()
                        .map(|v| serde_json::Value::String(format!("{v:#x}")))
                        .collect();
                    (p.name.clone(), serde_json::Value::Array(hex))
                })
                .collect();
            writeln!(out, "{}", serde_json::Value::Object(obj))?;
        }
        Cmd::Codegen {
            input,
            function,
            seed,
            syntax,
            output,
            cg,
        } => {
            let f = load(&input, function.as_deref(), false)?;
            let g = lower::lower(&f)?;
            let opts = cg.options();
            let mut gen = Generator::new(&g, opts)?;
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
            let cand = Candidate::random(&g, gen.deps(), &mut rng);
            gen.generate(&cand)?;
            let program = gen.program();
            check_natively(&f, &program, &opts, seed)?;
            prove(&f, &program, &opts)?;
            let text = match syntax {
                Syntax::Nasm => cryptopt_x86::print::nasm(&program),
                Syntax::Gas => cryptopt_x86::print::gas(&program),
            };
            match output {
                Some(path) => write_atomically(&path, text.as_bytes())?,
                None => write!(out, "{text}")?,
            }
        }
        Cmd::Check {
            input,
            function,
            program,
            aliasing,
        } => {
            let f = load(&input, function.as_deref(), false)?;
            let asm = read(&program)?;
            let opts = cryptopt_verify::CheckOptions {
                aliasing: aliasing.policy(),
            };
            match cryptopt_verify::check_asm(&f, &asm, opts)
                .with_context(|| program.display().to_string())?
            {
                cryptopt_verify::Verdict::Equivalent => writeln!(out, "equivalent")?,
                cryptopt_verify::Verdict::NotEquivalent(report) => {
                    writeln!(out, "not equivalent\n{report}")?;
                    out.flush()?;
                    return Err(CheckFailed(format!(
                        "{} is not equivalent to {}",
                        program.display(),
                        f.name
                    ))
                    .into());
                }
            }
        }
        Cmd::Gen { field } => {
            if field.field.is_none() {
                bail!("gen needs --field (a preset or a prime)");
            }
            let f = field.function()?.expect("--field given");
            let json = cryptopt_ir::fields::to_fiat_json(&f)?;
            writeln!(
                out,
                "{}",
                serde_json::to_string_pretty(&serde_json::Value::Array(vec![json]))?
            )?;
        }
        Cmd::EmitC { input, function } => {
            let f = load(&input, function.as_deref(), false)?;
            write!(out, "{}", cryptopt_ir::c::emit(&f))?;
        }
        Cmd::Optimize(args) => optimize::run(args)?,
        Cmd::Bench(args) => bench::run(args)?,
        Cmd::Ir {
            input,
            function,
            lowered,
        } => {
            let f = load(&input, function.as_deref(), lowered)?;
            write!(out, "{}", text::render(&f))?;
        }
    }
    out.flush()?;
    Ok(())
}

impl MemoryConstraintsArg {
    /// The aliasing policy this option names.
    fn policy(self) -> Aliasing {
        match self {
            MemoryConstraintsArg::None => Aliasing::None,
            MemoryConstraintsArg::Out1Arg1 => Aliasing::Out1Arg1,
            MemoryConstraintsArg::All => Aliasing::All,
        }
    }
}

/// Proves `program` equivalent to `f` under the aliasing `opts` allows; a program that
/// is not proved is a CheckFailed (exit 1) with the checker's report.
fn prove(f: &Function, program: &cryptopt_x86::Program, opts: &Options) -> Result<()> {
    let aliasing = opts.aliasing;
    match cryptopt_verify::check(f, program, cryptopt_verify::CheckOptions { aliasing })? {
        cryptopt_verify::Verdict::Equivalent => Ok(()),
        cryptopt_verify::Verdict::NotEquivalent(report) => {
            // One line: the first problem, shortened (`cryptopt check` prints them all).
            let first = report
                .problems
                .first()
                .map(|p| p.to_string())
                .unwrap_or_default();
            let first: String = first
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .chars()
                .take(400)
                .collect();
            Err(CheckFailed(format!(
                "the equivalence checker did not prove {} ({} problem(s)); first: {first}",
                f.name,
                report.problems.len()
            ))
            .into())
        }
    }
}

/// Runs `program` natively on random and edge-case inputs (and every aliasing the
/// options allow) and compares with the interpreter on `f`; an error is a CheckFailed.
fn check_natively(
    f: &Function,
    program: &cryptopt_x86::Program,
    opts: &Options,
    seed: u64,
) -> Result<()> {
    let mut code = Vec::new();
    cryptopt_x86::encode::encode(&program.insts, &mut code)?;
    let mem = cryptopt_measure::ExecMem::new(&code)?;
    let alias = pairings(f, opts.aliasing);
    // SAFETY: the code was generated for f's signature and is loaded in `mem`.
    unsafe { check_code(f, mem.ptr(), &alias, 200, seed, "generated code") }
}

/// Runs the machine code at `ptr` against the interpreter on `f`'s edge cases and
/// `random` random inputs, under each aliasing in `alias`; a difference is a CheckFailed
/// that names `what`.
///
/// # Safety
/// `ptr` must be executable code with `f`'s System V signature (it is called through
/// the ABI-checking trampoline).
unsafe fn check_code(
    f: &Function,
    ptr: *const u8,
    alias: &[Pairing],
    random: usize,
    seed: u64,
    what: &str,
) -> Result<()> {
    let mut runner = Runner::new()?;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x5eed);
    let mut cases = cryptopt_ir::inputs::edge_cases(f);
    cases.extend((0..random).map(|_| cryptopt_ir::inputs::random(f, &mut rng)));
    for x in &cases {
        let want = cryptopt_ir::interp::run(f, x)?;
        for &a in alias {
            // SAFETY: the caller's promise.
            let got = unsafe { runner.run_at(ptr, f, x, a) }?;
            if got != want {
                return Err(CheckFailed(format!(
                    "{what} differs from the interpreter (aliasing {a:?}) on {x:x?}: {got:x?} instead of {want:x?}"
                ))
                .into());
            }
        }
    }
    Ok(())
}

/// Writes `bytes` to `path` through a temporary file in the same folder and a rename, so
/// that no half-written file is ever left behind.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .ok_or_else(|| anyhow!("{} is not a file name", path.display()))?;
    let tmp = dir.join(format!(
        ".{}.tmp{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    let result = std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.with_context(|| format!("cannot write {}", path.display()))
}

fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))
}

/// Reads the named function (or the only one) from a Fiat JSON file, lowered if asked.
fn load(path: &Path, name: Option<&str>, lowered: bool) -> Result<Function> {
    let text = read(path)?;
    let ctx = || path.display().to_string();
    let f = match name {
        Some(n) => fiat::parse_function(&text, n).with_context(ctx)?,
        None => {
            let names = fiat::function_names(&text).with_context(ctx)?;
            match &names[..] {
                [one] => fiat::parse_function(&text, one).with_context(ctx)?,
                _ => bail!(
                    "{} has {} functions; choose one with --function (e.g. {})",
                    path.display(),
                    names.len(),
                    names.first().map_or("none", |s| s.as_str())
                ),
            }
        }
    };
    if lowered {
        Ok(lower::lower(&f).with_context(ctx)?)
    } else {
        Ok(f)
    }
}

/// `name(arg1: u64[4], arg2: u64[4]) -> (out1: u64[4])`
fn signature(f: &Function) -> String {
    let list = |ps: &[cryptopt_ir::Param]| {
        ps.iter()
            .map(|p| format!("{}: {}", p.name, p.shape()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!("{}({}) -> ({})", f.name, list(&f.params), list(&f.returns))
}

/// Parses `--args` against the function's signature.
fn parse_args(f: &Function, json: &str) -> Result<Vec<Vec<u128>>> {
    let v: serde_json::Value =
        serde_json::from_str(json).map_err(|e| anyhow!("--args is not valid JSON: {e}"))?;
    let items = v
        .as_array()
        .ok_or_else(|| anyhow!("--args must be a JSON array with one entry per argument"))?;
    if items.len() != f.params.len() {
        bail!(
            "--args has {} entries but `{}` takes {} argument(s): {}",
            items.len(),
            f.name,
            f.params.len(),
            f.params
                .iter()
                .map(|p| format!("{}: {}", p.name, p.shape()))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let mut inputs = Vec::with_capacity(items.len());
    for (p, item) in f.params.iter().zip(items) {
        let elems: Vec<&serde_json::Value> = match item {
            serde_json::Value::Array(a) => a.iter().collect(),
            other => vec![other],
        };
        if elems.len() != p.elems() {
            bail!(
                "--args: {} has {} element(s), expected {} ({})",
                p.name,
                elems.len(),
                p.elems(),
                p.shape()
            );
        }
        let mut vals = Vec::with_capacity(elems.len());
        for (i, e) in elems.into_iter().enumerate() {
            let s = e.as_str().ok_or_else(|| {
                anyhow!("--args: {}[{i}] must be a string such as \"0x1f\"", p.name)
            })?;
            let x = fiat::parse_literal(s).ok_or_else(|| {
                anyhow!(
                    "--args: {}[{i}] = {s:?} is not a hex (0x...) or decimal number",
                    p.name
                )
            })?;
            if p.ty.wrap(x) != x {
                bail!("--args: {}[{i}] = {s} does not fit {}", p.name, p.ty);
            }
            let (lo, hi) = cryptopt_ir::inputs::bounds(p, i);
            if x < lo || x > hi {
                eprintln!("cryptopt: warning: {}[{i}] = {s} is outside the declared bounds [{lo:#x}, {hi:#x}]", p.name);
            }
            vals.push(x);
        }
        inputs.push(vals);
    }
    Ok(inputs)
}
