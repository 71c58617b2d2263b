//! The command line: every command's arguments (clap derive) and their conversion to
//! the library crates' option types. Parsing only: nothing here reads a file or runs
//! anything.

use std::path::PathBuf;

use anyhow::Result;
use clap::{Parser, Subcommand};
use cryptopt_codegen::{Abi, FramePointer, Options, Target};
use cryptopt_driver::optimize::Choice;
use cryptopt_ir::{Aliasing, Function};
use cryptopt_measure::timing::{Config, Mode};
use cryptopt_search::Params;

use crate::progress::Display;

/// An optimizing compiler for straight-line cryptographic arithmetic.
#[derive(Parser, Debug)]
#[command(name = "cryptopt", version, about)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub cmd: Cmd,
}

/// The commands. Each variant's doc is its help text; the argument structs below
/// carry no doc of their own so that clap keeps it.
#[derive(Subcommand, Debug)]
pub(crate) enum Cmd {
    /// List the functions in a Fiat JSON file with their argument and return shapes.
    List(ListArgs),
    /// Run a function on concrete inputs with the reference interpreter.
    Interp(InterpArgs),
    /// Generate one random candidate implementation as x86-64 assembly, after checking it
    /// natively against the reference interpreter.
    Codegen(CodegenArgs),
    /// Prove an x86-64 program (NASM or GNU as) equivalent to a function: exit 0 and
    /// `equivalent`, or exit 1 with a report.
    Check(CheckArgs),
    /// Print a function of the built-in field generator as Fiat JSON.
    Gen(GenArgs),
    /// Print the C that the baseline compiler is given (Fiat's C shape, same signature).
    EmitC(EmitCArgs),
    /// Optimize a function: random local search over candidates, each timed on this CPU
    /// against the C baseline, the winner checked and written to DIR/<function>/.
    Optimize(OptimizeArgs),
    /// Optimize several functions and compare each with C compilers, side by side.
    Bench(BenchArgs),
    /// Build a Diffie–Hellman primitive as a static library from optimized, proved code:
    /// DIR/libcryptopt_<name>.a and DIR/cryptopt_<name>.h (self-tested before written).
    Primitive(PrimitiveArgs),
    /// Print a function's IR in readable text form.
    Ir(IrArgs),
}

/// The function a command works on: a Fiat JSON or LLVM IR file and a name in it.
#[derive(clap::Args, Debug)]
pub(crate) struct InputArgs {
    /// A Fiat JSON file (an array of functions, or one function), or LLVM IR text
    /// (`.ll`, as `clang -O2 -S -emit-llvm` prints it).
    pub input: PathBuf,
    /// The function's name (e.g. fiat_p256_mul); may be left out when the file has
    /// only one.
    #[arg(long, short)]
    pub function: Option<String>,
}

/// Seconds between progress lines where there is no terminal for a live bar.
pub(crate) const DEFAULT_PROGRESS_EVERY: f64 = 10.0;

/// The seed every command defaults to (one home: a run is reproducible by default).
pub(crate) const DEFAULT_SEED: u64 = 1;

// `cryptopt list`
#[derive(clap::Args, Debug)]
pub(crate) struct ListArgs {
    /// A Fiat JSON file (an array of functions or one function), or LLVM IR (`.ll`).
    pub input: PathBuf,
}

// `cryptopt interp`
#[derive(clap::Args, Debug)]
pub(crate) struct InterpArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// The arguments as JSON: one array of hex or decimal strings per argument,
    /// e.g. '[["0x1","0x2"],["0x3","0x4"]]' (a scalar may be a bare string).
    #[arg(long)]
    pub args: String,
    /// Run the lowered function instead of the original (they must agree).
    #[arg(long)]
    pub lowered: bool,
}

// `cryptopt codegen`
#[derive(clap::Args, Debug)]
pub(crate) struct CodegenArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Seed of the random candidate (order and decisions).
    #[arg(long, default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// Instruction order: a random one (from --seed), or one of the search's starting
    /// orders (all decisions then 0).
    #[arg(long, value_enum, default_value = "random")]
    pub order: OrderArg,
    /// Assembly syntax of the output.
    #[arg(long, value_enum, default_value = "nasm")]
    pub syntax: Syntax,
    /// Output file (written atomically); standard output when left out.
    #[arg(short = 'o', long, alias = "output", value_name = "FILE")]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub cg: InterfaceArgs,
    #[command(flatten)]
    pub object: ObjectArgs,
}

// `cryptopt check`
#[derive(clap::Args, Debug)]
pub(crate) struct CheckArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// The assembly file (NASM, or GNU as in Intel or AT&T syntax, as `gcc -S` prints).
    pub program: PathBuf,
    #[command(flatten)]
    pub aliasing: AliasingArgs,
    /// The label of the program to check, when it is not the function's name
    #[arg(long, value_name = "NAME")]
    pub symbol: Option<String>,
    /// The file's syntax
    #[arg(long, value_enum, default_value_t = SyntaxArg::Auto)]
    pub syntax: SyntaxArg,
    /// The most bytes of stack the program may use below its entry rsp (pushes and
    /// frame; the 128-byte red zone not counted); a deeper rsp fails the check
    #[arg(long, value_name = "BYTES", default_value_t = cryptopt_verify::DEFAULT_STACK_LIMIT)]
    pub max_stack: u32,
    /// Decide by the normal form alone: no SAT sweep for the outputs it leaves apart
    /// (faster on programs that are not equivalent; proves less foreign code)
    #[arg(long)]
    pub no_sweep: bool,
    /// Also require that the program keeps to this instruction-set level (an
    /// instruction beyond it is reported, exit 1); any level when left out.
    #[arg(long, value_parser = target_parser())]
    pub target: Option<Target>,
    /// The calling convention the program is called with and must keep: sysv, or win64
    /// (arguments in rcx, rdx, r8, r9 and above the home space; rdi, rsi, xmm6–xmm15
    /// saved; no red zone).
    #[arg(long, default_value = "sysv", value_parser = abi_parser())]
    pub abi: Abi,
}

/// `--formula`'s help: every formula with the field it is over, from `Formula::ALL`.
fn formula_help() -> String {
    use cryptopt_gen::formulas::Formula;
    let list: Vec<String> = Formula::ALL
        .iter()
        .map(|f| format!("{} (over {})", f.name(), f.fields().join(", ")))
        .collect();
    format!(
        "A whole formula over the field instead of one operation, as one function: {}",
        list.join(", ")
    )
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SyntaxArg {
    /// Told by the file: `.intel_syntax`/`.att_syntax`, else `%` registers mean AT&T
    Auto,
    /// GNU as AT&T syntax (`gcc -S`, `clang -S`)
    Att,
    /// Intel syntax (GNU as `.intel_syntax noprefix`, `gcc -S -masm=intel`, NASM)
    Intel,
    /// NASM (Intel syntax)
    Nasm,
}

impl SyntaxArg {
    pub(crate) fn syntax(self) -> cryptopt_x86::parse::Syntax {
        use cryptopt_x86::parse::Syntax;
        match self {
            SyntaxArg::Auto => Syntax::Auto,
            SyntaxArg::Att => Syntax::Att,
            SyntaxArg::Intel | SyntaxArg::Nasm => Syntax::Intel,
        }
    }
}

// `cryptopt gen`
#[derive(clap::Args, Debug)]
pub(crate) struct GenArgs {
    #[command(flatten)]
    pub field: FieldArgs,
    /// How a Montgomery mul or square is computed: input (the generator's default),
    /// word-by-word or separated (full product, a dedicated square, then reduction).
    #[arg(long, default_value = "input")]
    pub algorithm: String,
}

// `cryptopt emit-c`
#[derive(clap::Args, Debug)]
pub(crate) struct EmitCArgs {
    #[command(flatten)]
    pub input: InputArgs,
}

// `cryptopt ir`
#[derive(clap::Args, Debug)]
pub(crate) struct IrArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Print the function after lowering to the 64-bit machine-level dialect.
    #[arg(long)]
    pub lowered: bool,
}

/// What `bench` optimizes for.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OptimizeForArg {
    Both,
    Throughput,
    Latency,
}

/// The instruction orders `codegen` can start from.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OrderArg {
    Random,
    /// The input order (the first topological order).
    First,
    DepthFirst,
    DemandDriven,
    /// Few live values: a list schedule by register pressure.
    LowPressure,
    /// Demand-driven, the deepest operand first (sums accumulated one term at a time).
    DeepestFirst,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub(crate) enum Syntax {
    Nasm,
    Gas,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub(crate) enum FramePointerArg {
    Omit,
    Save,
    Keep,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub(crate) enum AliasingArg {
    /// No output is the same memory as any input.
    None,
    /// The first output may be the first input (`mul(x, x, y)`).
    Out1Arg1,
    /// Any output may be any input of the same shape (Fiat's C allows it).
    All,
}

/// The aliasing contract, one flag with one default for every command that makes or
/// checks code (`--memory-constraints` is its old name, still accepted).
#[derive(clap::Args, Debug)]
pub(crate) struct AliasingArgs {
    /// Which outputs may be the same memory as which inputs in callers; the code must be
    /// correct under every such call (all: the safe default).
    #[arg(long, value_enum, default_value = "all", alias = "memory-constraints")]
    pub aliasing: AliasingArg,
}

/// Options that change the emitted code's interface.
#[derive(clap::Args, Debug)]
pub(crate) struct InterfaceArgs {
    /// omit: rbp is a general register; save: a conventional frame; keep: rbp untouched.
    #[arg(long, value_enum, default_value = "omit")]
    pub frame_pointer: FramePointerArg,
    /// Do not use the 128 bytes below rsp for spills.
    #[arg(long)]
    pub no_red_zone: bool,
    #[command(flatten)]
    pub aliasing: AliasingArgs,
    /// Start the function with `endbr64`, as CET's indirect branch tracking requires of
    /// a function called through a pointer (`-fcf-protection`).
    #[arg(long)]
    pub cet: bool,
    /// Instruction-set level: x86-64-adx (BMI2 + ADX: two carry chains), x86-64-bmi2
    /// (mulx, one carry chain), x86-64 (baseline: mul with rax/rdx, adc).
    #[arg(long, default_value = "x86-64-adx", value_parser = target_parser())]
    pub target: Target,
    /// Calling convention: sysv (Linux, BSD, macOS) or win64 (Windows x64: arguments in
    /// rcx, rdx, r8, r9, rdi/rsi saved, no red zone).
    #[arg(long, default_value = "sysv", value_parser = abi_parser())]
    pub abi: Abi,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EmitArg {
    Asm,
    Dispatch,
    Rust,
}

/// `--target`: one of [`Target::ALL`] by its name (the choices listed in `--help` and in
/// the error for any other).
fn target_parser() -> impl clap::builder::TypedValueParser<Value = Target> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(Target::ALL.map(Target::name))
        .map(|name: String| Target::from_name(&name).expect("one of the possible values"))
}

/// `--abi`: one of [`Abi::ALL`] by its name.
fn abi_parser() -> impl clap::builder::TypedValueParser<Value = Abi> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(Abi::ALL.map(Abi::name))
        .map(|name: String| Abi::from_name(&name).expect("one of the possible values"))
}

impl InterfaceArgs {
    pub(crate) fn options(&self) -> Options {
        Options {
            frame_pointer: match self.frame_pointer {
                FramePointerArg::Omit => FramePointer::Omit,
                FramePointerArg::Save => FramePointer::Save,
                FramePointerArg::Keep => FramePointer::Keep,
            },
            red_zone: !self.no_red_zone,
            aliasing: self.aliasing.aliasing.policy(),
            cet: self.cet,
            target: self.target,
            abi: self.abi,
        }
    }
}

/// The object conventions of the written assembly (`cryptopt_x86::object`).
#[derive(clap::Args, Debug)]
pub(crate) struct ObjectArgs {
    /// Object format the assembly is written for: elf (Linux, BSD), macho (macOS: `_`
    /// prefix), coff (Windows: `nasm -f win64`, MinGW).
    #[arg(long, value_enum, default_value = "elf")]
    pub format: FormatArg,
    /// hidden: global for the static link, not exported from a shared library (ELF
    /// `.hidden`, Mach-O `.private_extern`; COFF exports nothing by default).
    #[arg(long, value_enum, default_value = "default")]
    pub visibility: VisibilityArg,
    /// The function's name in the assembly and the header (the input function's name
    /// when left out).
    #[arg(long, value_name = "NAME", value_parser = c_identifier)]
    pub symbol: Option<String>,
}

impl ObjectArgs {
    pub(crate) fn object(&self) -> cryptopt_x86::object::Object {
        use cryptopt_x86::object::{Format, Object, Visibility};
        Object {
            format: match self.format {
                FormatArg::Elf => Format::Elf,
                FormatArg::Macho => Format::MachO,
                FormatArg::Coff => Format::Coff,
            },
            visibility: match self.visibility {
                VisibilityArg::Default => Visibility::Default,
                VisibilityArg::Hidden => Visibility::Hidden,
            },
            symbol: self.symbol.clone(),
        }
    }
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub(crate) enum FormatArg {
    Elf,
    Macho,
    Coff,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub(crate) enum VisibilityArg {
    Default,
    Hidden,
}

/// A C identifier (what `--symbol` must be: the header declares it), by the emitters'
/// one rule (`cryptopt_emit::ident`).
fn c_identifier(s: &str) -> std::result::Result<String, cryptopt_emit::Error> {
    cryptopt_emit::ident::c_identifier(s).map(|()| s.to_string())
}

/// The built-in field generator: `--field p256 --op mul`.
#[derive(clap::Args, Debug, Clone)]
pub(crate) struct FieldArgs {
    /// A preset (curve25519, p224, p256, p384, p434, p448, p521, p127, poly1305, secp256k1,
    /// bls12-381-p) or a prime: '2^255 - 19', decimal or 0x hex.
    #[arg(long)]
    pub field: Option<String>,
    /// mul, square, add, sub or opp.
    #[arg(long, default_value = "mul")]
    pub op: String,
    // A whole formula over the field instead of one operation (help: `formula_help`).
    #[arg(long, conflicts_with = "op", help = formula_help())]
    pub formula: Option<String>,
    /// Multiplication by the small constant C instead (`out1 = C·arg1`, reduced:
    /// `fiat_<field>_scmul_<C>`, or `_carry_scmul_<C>` unsaturated).
    #[arg(long, value_name = "C", conflicts_with_all = ["op", "formula"])]
    pub scmul: Option<u64>,
    /// Unsaturated (Solinas) limb count instead of Fiat's choice.
    #[arg(long)]
    pub limbs: Option<u32>,
    /// Representation: auto (presets keep theirs; 2^k - c primes unsaturated), montgomery, solinas (unsaturated), saturated (saturated Solinas: 2^(64n) ≡ c small, as curve25519's 2^256 ≡ 38), ifma (5×51 limbs, four field operations at a time on AVX-512 IFMA: --formula x25519-ladderstep over curve25519).
    #[arg(long, value_enum, default_value = "auto")]
    pub repr: ReprArg,
    /// Accept a modulus that is not prime.
    #[arg(long)]
    pub allow_composite: bool,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub(crate) enum ReprArg {
    Auto,
    Montgomery,
    Solinas,
    Saturated,
    Ifma,
}

impl FieldArgs {
    /// The generator's arguments as given (`--field F --formula NAME --repr ifma`), for
    /// the header of written programs.
    pub(crate) fn describe(&self) -> String {
        let mut s = format!("--field {}", self.field.as_deref().unwrap_or(""));
        match (&self.formula, self.scmul) {
            (Some(name), _) => s.push_str(&format!(" --formula {name}")),
            (None, Some(c)) => s.push_str(&format!(" --scmul {c}")),
            (None, None) => s.push_str(&format!(" --op {}", self.op)),
        }
        if let Some(limbs) = self.limbs {
            s.push_str(&format!(" --limbs {limbs}"));
        }
        if !matches!(self.repr, ReprArg::Auto) {
            let name = format!("{:?}", self.repr).to_lowercase();
            s.push_str(&format!(" --repr {name}"));
        }
        s
    }

    /// With `--repr ifma`: the formula in the vector dialect (the generator says which
    /// formulas it has that way).
    pub(crate) fn vector(&self) -> Result<Option<cryptopt_ir::vector::VFunction>> {
        if !matches!(self.repr, ReprArg::Ifma) {
            return Ok(None);
        }
        let Some(spec) = self.spec()? else {
            return Ok(None);
        };
        let Some(name) = &self.formula else {
            anyhow::bail!("--repr ifma is for a whole formula: give --formula x25519-ladderstep");
        };
        Ok(Some(cryptopt_gen::formulas::lanes::generate(
            name.parse()?,
            &spec,
        )?))
    }

    /// The generated function and its representation in one line, if --field was given.
    pub(crate) fn function(&self) -> Result<Option<(Function, String)>> {
        let Some(spec) = self.spec()? else {
            return Ok(None);
        };
        if let Some(v) = self.vector()? {
            let how = format!("{}, four at a time (AVX-512 IFMA)", spec.representation());
            return Ok(Some((v.expand(), how)));
        }
        let f = match (&self.formula, self.scmul) {
            (Some(name), _) => cryptopt_gen::formulas::generate(name.parse()?, &spec)?.0,
            (None, Some(c)) => cryptopt_gen::formulas::scmul(&spec, c)?,
            (None, None) => cryptopt_gen::fields::generate(&spec, self.op.parse()?)?,
        };
        Ok(Some((f, spec.representation())))
    }

    /// The field `--field` names with its representation, if given.
    pub(crate) fn spec(&self) -> Result<Option<cryptopt_gen::fields::FieldSpec>> {
        use cryptopt_gen::fields;
        let Some(field) = &self.field else {
            return Ok(None);
        };
        let opts = fields::FieldOptions {
            repr: match self.repr {
                ReprArg::Auto => fields::ReprChoice::Auto,
                ReprArg::Montgomery => fields::ReprChoice::Montgomery,
                ReprArg::Solinas => fields::ReprChoice::Solinas,
                ReprArg::Saturated => fields::ReprChoice::Saturated,
                // The field's own limbs: the vector form's generator says which it takes.
                ReprArg::Ifma => fields::ReprChoice::Auto,
            },
            limbs: self.limbs,
            allow_composite: self.allow_composite,
        };
        Ok(Some(fields::resolve(field, &opts)?))
    }
}

/// The default budget of `optimize` and `bench` (one home: both commands use it).
pub(crate) const DEFAULT_EVALS: &str = "250k";

#[derive(clap::ValueEnum, Clone, Copy, Debug, Default)]
pub(crate) enum CounterArg {
    /// The least noisy counter that works here (measured at start-up), the cheaper to
    /// read on a tie.
    #[default]
    Auto,
    /// lfence;rdtsc;lfence (every x86-64 machine).
    Tsc,
    /// Core cycles of the measuring thread through perf_event and rdpmc.
    CoreCycles,
}

impl CounterArg {
    pub(crate) fn choice(self) -> cryptopt_measure::counter::Choice {
        use cryptopt_measure::counter::Choice;
        match self {
            CounterArg::Auto => Choice::Auto,
            CounterArg::Tsc => Choice::Tsc,
            CounterArg::CoreCycles => Choice::CoreCycles,
        }
    }
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub(crate) enum MeasureArg {
    Throughput,
    Latency,
}

#[derive(clap::Args, Debug)]
pub(crate) struct OptimizeArgs {
    /// A Fiat JSON file or LLVM IR (`.ll`); leave it out with --field or --resume.
    #[arg(required_unless_present_any = ["field", "resume"])]
    pub input: Option<PathBuf>,
    /// asm: the program for --target (DIR/<function>/: .asm, .S, .h); dispatch: one
    /// program per target (DIR/<target>/<function>/) and DIR/<name>_dispatch/ with the
    /// three .S files, a C file that picks the best for the CPU at run time, and its
    /// header; rust: asm's files and DIR/<function>/<name>.rs, a Rust module (the
    /// program in `global_asm!` for ELF, Mach-O and COFF, a safe wrapper, an unsafe raw
    /// one, known-answer tests).
    #[arg(long, value_enum, default_value = "asm", conflicts_with = "resume")]
    pub emit: EmitArg,
    /// The function's name (e.g. fiat_p256_mul); may be left out when the file has
    /// only one.
    #[arg(long, short)]
    pub function: Option<String>,
    #[command(flatten)]
    pub field: FieldArgs,
    /// Evaluations (mutants measured): a number, or with a k/M suffix (10k) [default:
    /// 250k; with --resume: the saved run's budget, which a larger value extends].
    #[arg(long, value_parser = parse_count)]
    pub evals: Option<u64>,
    /// Independent runs before the best one continues (bet-and-run).
    #[arg(long, default_value_t = Params::BETS)]
    pub bets: u32,
    /// Share of the evaluations spent on the bets.
    #[arg(long, default_value_t = Params::BET_RATIO)]
    pub bet_ratio: f64,
    /// One run, no bets.
    #[arg(long)]
    pub single: bool,
    /// How a Montgomery mul or square is computed: auto (each algorithm the checker
    /// proves gets a share of the bets; the fastest continues), input (the function's
    /// own), word-by-word or separated. A resumed search keeps its own.
    #[arg(long, default_value = "auto", value_parser = parse_algorithm, conflicts_with = "resume")]
    pub algorithm: Choice,
    /// Seed of the search (a run is reproducible from it, up to measurement noise).
    #[arg(long, default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// Target length of one measured batch, in counter ticks.
    #[arg(long, default_value_t = Config::default().cyclegoal, alias = "cyclegoal")]
    pub cycle_goal: u64,
    /// Batches per program in one interleaved measurement.
    #[arg(long, default_value_t = Config::default().batches)]
    pub batches: usize,
    /// C compiler of the baseline (compiled with -O3 -march=native -mtune=native, and the
    /// -march of --target: x86-64-v2 for x86-64, x86-64-v3 for x86-64-bmi2).
    #[arg(long, default_value = "gcc")]
    pub cc: String,
    /// throughput: repeated independent calls; latency: each call's output feeds the next.
    #[arg(long, value_enum, default_value = "throughput")]
    pub measure: MeasureArg,
    /// CPU to pin the measuring thread to [default: the first CPU this process may use
    /// (its affinity mask: `taskset`, a cluster job's cpuset)].
    #[arg(long)]
    pub cpu: Option<usize>,
    /// The clock batches are timed with.
    #[arg(long, value_enum, default_value = "auto")]
    pub counter: CounterArg,
    /// Output folder; results go to DIR/<function>/ [default: cryptopt-out; with
    /// --resume: the folder the state is in].
    #[arg(short = 'o', long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Continue a saved run from its DIR/<function>/state.json: the function, the
    /// code-generation options, the seed and the output folder come from the state.
    #[arg(long)]
    pub resume: Option<PathBuf>,
    /// Do not prove the final program with the equivalence checker (it is still run
    /// against the interpreter).
    #[arg(long)]
    pub no_verify: bool,
    /// Seconds between progress lines when stderr is not a terminal (a terminal gets a
    /// live bar instead).
    #[arg(long, default_value_t = DEFAULT_PROGRESS_EVERY, value_name = "SECONDS")]
    pub progress_every: f64,
    /// Also prove every N-th improvement during the search (0: never).
    #[arg(long, default_value_t = 0)]
    pub verify_every: u64,
    #[command(flatten)]
    pub cg: InterfaceArgs,
    #[command(flatten)]
    pub object: ObjectArgs,
}

/// `auto`, or an algorithm's name.
pub(crate) fn parse_algorithm(s: &str) -> std::result::Result<Choice, String> {
    match s {
        "auto" => Ok(Choice::Auto),
        _ => s.parse().map(Choice::Only).map_err(|e| format!("{e}")),
    }
}

/// `10000`, `10k`, `2M`.
pub(crate) fn parse_count(s: &str) -> std::result::Result<u64, String> {
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

impl AliasingArg {
    /// The aliasing policy this option names.
    pub(crate) fn policy(self) -> Aliasing {
        match self {
            AliasingArg::None => Aliasing::None,
            AliasingArg::Out1Arg1 => Aliasing::Out1Arg1,
            AliasingArg::All => Aliasing::All,
        }
    }
}

#[derive(clap::Args, Debug)]
pub(crate) struct BenchArgs {
    /// The 18 functions of the paper (mul and square of nine fields).
    #[arg(long)]
    pub paper: bool,
    /// Functions by name (e.g. fiat_p256_mul), comma-separated.
    #[arg(long, value_delimiter = ',')]
    pub functions: Vec<String>,
    /// Evaluations per function (the same default as `optimize`).
    #[arg(long, default_value = DEFAULT_EVALS, value_parser = parse_count)]
    pub evals: u64,
    /// Baseline compilers (each with -O3 -march=native -mtune=native, and the -march of
    /// --target: x86-64-v2 for x86-64, x86-64-v3 for x86-64-bmi2).
    #[arg(long, value_delimiter = ',', default_value = "gcc,clang-19")]
    pub compilers: Vec<String>,
    /// Output folder: the reports, and each function's results in DIR/<function>/.
    #[arg(
        short = 'o',
        long,
        value_name = "DIR",
        default_value = "cryptopt-bench"
    )]
    pub out: PathBuf,
    /// Fiat JSON folder (default: $CRYPTOPT_FIAT_JSON).
    #[arg(long)]
    pub fiat_json: Option<PathBuf>,
    /// Input files (Fiat JSON, or LLVM IR `.ll`; repeat the flag for several) that
    /// --functions are taken from, each name from the first file that has it, instead
    /// of the Fiat JSON folder.
    #[arg(long, requires = "functions", conflicts_with = "paper")]
    pub input: Vec<PathBuf>,
    /// The C source the `.ll` inputs came from (what clang turned into them): the
    /// compilers' baselines of functions read from a `.ll` file compile it instead of
    /// the C that `emit-c` prints. Each baseline is run against the interpreter before
    /// it is timed.
    #[arg(long, value_name = "FILE.c", requires = "input")]
    pub c_source: Option<PathBuf>,
    /// Repetitions of each comparison (split in halves for the t-test).
    #[arg(long, default_value_t = 20)]
    pub repeats: usize,
    #[command(flatten)]
    pub search: SearchArgs,
    /// Measure the programs an earlier run wrote to --out instead of optimizing again
    /// (each is proved and run against the interpreter again).
    #[arg(long)]
    pub reuse: bool,
    /// Which measure the search optimizes: `both` runs one search per measure (the
    /// latency winners go to OUT/latency/), so each table shows the program made for it;
    /// with one, both tables show that one's winner.
    #[arg(long, value_enum, default_value = "both")]
    pub optimize_for: OptimizeForArg,
    /// Also measure an external implementation (NASM or GNU as, a function with the same
    /// name and C signature), after proving it equivalent: `--compare old=old.asm`.
    #[arg(long = "compare", value_name = "NAME=FILE.asm")]
    pub compare: Vec<String>,
    /// The Diffie–Hellman primitives instead (all, or those named: `--primitives
    /// p256,secp256k1`; `cryptopt primitive` for each, into DIR/<primitive>/, or the
    /// libraries there with --reuse), against libsodium, OpenSSL and libsecp256k1: median
    /// and quartiles of --calls interleaved calls on one pinned CPU.
    #[arg(
        long,
        value_name = "NAME,...",
        num_args = 0..=1,
        value_delimiter = ',',
        conflicts_with_all = ["paper", "functions", "field"]
    )]
    pub primitives: Option<Vec<PrimitiveName>>,
    /// Calls of each implementation with --primitives (at least 1,001).
    #[arg(long, default_value_t = 1001)]
    pub calls: u64,
    /// A generated function instead (`--field F --op O`), or a whole formula
    /// (`--field F --formula NAME`): then also the formula as C calling the separately
    /// optimized field operations it is made of (column `ops`; each operation gets the
    /// same budget and its own line).
    #[command(flatten)]
    pub field: FieldArgs,
    #[command(flatten)]
    pub cg: InterfaceArgs,
}

/// The primitives `cryptopt primitive` builds.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PrimitiveName {
    /// X25519 (RFC 7748): `int cryptopt_x25519(out[32], scalar[32], point[32])`.
    X25519,
    /// P-256 ECDH: `int cryptopt_p256_ecdh(out[32], priv[32], pub[65])`.
    P256,
    /// secp256k1 ECDH, libsecp256k1's hashed output: `int cryptopt_secp256k1_ecdh(out[32],
    /// priv[32], pub[65])`.
    Secp256k1,
    /// Diffie–Hellman on the Gaudry–Schost Kummer surface over 2^127 − 1 ("Kummer strikes
    /// back"): `int cryptopt_kummer(out[48], sk[32], pk[48])`, `cryptopt_kummer_keypair`.
    Kummer,
}

impl PrimitiveName {
    pub(crate) const ALL: [PrimitiveName; 4] = [
        PrimitiveName::X25519,
        PrimitiveName::P256,
        PrimitiveName::Secp256k1,
        PrimitiveName::Kummer,
    ];

    /// The primitive the driver builds.
    pub(crate) fn primitive(self) -> cryptopt_driver::primitive::Primitive {
        use cryptopt_driver::primitive::Primitive;
        match self {
            PrimitiveName::X25519 => Primitive::X25519,
            PrimitiveName::P256 => Primitive::P256,
            PrimitiveName::Secp256k1 => Primitive::Secp256k1,
            PrimitiveName::Kummer => Primitive::Kummer,
        }
    }

    /// The name in files and symbols: `x25519`.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            PrimitiveName::X25519 => "x25519",
            PrimitiveName::P256 => "p256",
            PrimitiveName::Secp256k1 => "secp256k1",
            PrimitiveName::Kummer => "kummer",
        }
    }
}

#[derive(clap::Args, Debug)]
pub(crate) struct PrimitiveArgs {
    #[arg(value_enum)]
    pub name: PrimitiveName,
    /// Evaluations per optimized function (the same default as `optimize`).
    #[arg(long, default_value = DEFAULT_EVALS, value_parser = parse_count)]
    pub evals: u64,
    /// Output folder: the library, its header and driver source, and each optimized
    /// function's results in DIR/<function>/.
    #[arg(
        short = 'o',
        long,
        value_name = "DIR",
        default_value = "cryptopt-primitive"
    )]
    pub out: PathBuf,
    /// The C compiler for the driver, the self-test and the searches' baseline.
    #[arg(long, default_value = "gcc")]
    pub cc: String,
    #[command(flatten)]
    pub search: SearchArgs,
}

/// How commands that run several searches (`bench`, `primitive`) run them.
#[derive(clap::Args, Debug, Clone)]
pub(crate) struct SearchArgs {
    /// The clock batches are timed with.
    #[arg(long, value_enum, default_value = "auto")]
    pub counter: CounterArg,
    /// Optimizations run at the same time (each on its own CPU).
    #[arg(long, default_value_t = 2)]
    pub jobs: usize,
    /// Seed of every search and measurement.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// Independent runs of each search before the best one continues (bet-and-run).
    #[arg(long, default_value_t = Params::BETS)]
    pub bets: u32,
    /// Share of each search's evaluations spent on the bets.
    #[arg(long, default_value_t = Params::BET_RATIO)]
    pub bet_ratio: f64,
    /// Batches per measurement.
    #[arg(long, default_value_t = Config::default().batches)]
    pub batches: usize,
    /// Seconds between each search's progress lines.
    #[arg(long, default_value_t = DEFAULT_PROGRESS_EVERY, value_name = "SECONDS")]
    pub progress_every: f64,
    /// How a Montgomery mul or square is computed: auto (the search picks per function),
    /// input, word-by-word or separated.
    #[arg(long, default_value = "auto", value_parser = parse_algorithm)]
    pub algorithm: Choice,
}

impl SearchArgs {
    /// One search's parameters: `evals` evaluations, these bets, this seed.
    pub(crate) fn params(&self, evals: u64) -> Params {
        Params {
            evals,
            bets: self.bets,
            bet_ratio: self.bet_ratio,
            seed: self.seed,
        }
    }

    /// One search's measurements: this many batches, for `mode`.
    pub(crate) fn config(&self, mode: Mode) -> Config {
        Config {
            batches: self.batches,
            mode,
            ..Config::default()
        }
    }

    /// Progress lines labelled `label`, every `--progress-every` seconds.
    pub(crate) fn progress(&self, label: String) -> Display {
        Display::Lines(label, self.progress_every)
    }
}
