//! Interleaved batch measurement of several implementations of one function.
//!
//! [`measure`] follows CryptOpt's "R3-validation": the programs are timed in the same
//! run, round after round, in a fresh random order every round, on fresh random inputs
//! every round, and every round's outputs go to the caller's `check` before the next:
//!
//! ```text
//!   calibrate n on program 0: n = 1, 2, 4, … until a batch ≥ cyclegoal ticks
//!                             and the timer overhead ≤ 1% of a batch
//!   round 1..=batches:
//!     inputs ← cryptopt_ir::inputs::random(f)
//!     for p in shuffle(programs):
//!       t0 ← counter.read();  n calls of p;  t1 ← counter.read()     ◀── timed region
//!       ticks[p] ← (t1 − t0) / n;  outputs[p] ← what p computed (untimed)
//!     check(inputs, outputs)?                                        ◀── caller's oracle
//!   per program: median, quartiles and minimum of ticks per call over the rounds
//! ```
//!
//! Programs are plain functions with Fiat's C signature (outputs first as pointers, then
//! input arrays as pointers or scalars by value; at most
//! [`MAX_ARGS`](crate::exec::MAX_ARGS) arguments) under the calling convention
//! [`Config::abi`] names (System V or Windows x64: Rust calls them as `extern "sysv64"`
//! or `extern "win64"` functions, so the compiler lays out the arguments),
//! called directly, not through the checking [`Trampoline`](crate::Trampoline): they
//! must have been verified to keep the ABI (see [`crate::diff`]). Buffers are laid out by
//! [`crate::layout`] (natural element sizes, guard words around them); the guards are
//! checked after every batch.
//!
//! In [`Mode::Throughput`] a batch calls the program `n` times on the same inputs; in
//! [`Mode::Latency`] each call's outputs are the next call's first inputs, as many as
//! match in shape ([`chained`]: `out1` into `arg1`, and for a point formula all three
//! coordinates, as a scalar multiplication chains them; two sets of buffers used in
//! turn), so the batch measures the dependency chain through the function.
//!
//! What this module must never do:
//!
//! * put anything but the calls between the two counter reads: no trapping instruction
//!   (`cpuid` is a VM exit of ~11,000 ticks under KVM), no allocation, no system call,
//!   no branch on the counter's kind (the loop is specialised per counter beforehand);
//! * allocate inside the rounds' timed loops: every buffer is allocated once per call of
//!   [`measure`];
//! * compare numbers from two calls of [`measure`]: only programs timed in the same call
//!   are comparable (same batch size, same inputs, same interleaving).

use std::cell::OnceCell;

use cryptopt_ir::{inputs, Function};
use cryptopt_x86::Abi;
use rand::seq::SliceRandom;
use rand::Rng;

use crate::counter::{self, tsc, Counter};
use crate::error::{Error, Result};
use crate::exec::OwnStack;
use crate::exec::MAX_ARGS;
use crate::layout::{Args, Layout, Pairing};

/// Largest batch size calibration goes to.
pub const MAX_BATCH: u64 = 1 << 20;
/// The timer's own cost (subtracted from every batch) must stay below 1/OVERHEAD_RATIO
/// of a batch, so that its variation is small against the batch.
const OVERHEAD_RATIO: u64 = 20;
/// Samples of the empty timed region per call of [`measure`].
const OVERHEAD_SAMPLES: usize = 31;
/// Untimed calls of every program before the first round.
const WARMUP_CALLS: u64 = 64;

/// Page offset of the timed buffers: batches run on an [`OwnStack`], whose top is
/// page-aligned, so every process measures the same addresses (see [`on_own_stack`]);
/// the buffers start this far above the top modulo a page, where no frame of the loop
/// or of a measured call (a few KiB at most, growing down from the top) shares their
/// page offsets.
const BUFFERS_AT: usize = 256;

thread_local! {
    /// The measuring thread's private stack, made on its first measurement.
    static STACK: OnceCell<OwnStack> = const { OnceCell::new() };
}

/// Runs `body` with the measuring thread's [`OwnStack`] (made on first use).
///
/// Why batches run there: a load is checked against earlier stores by the low 12 bits
/// of the addresses first, so a load whose page offset matches a recent store waits as
/// if it depended on it ("4K aliasing"), and where spills fall against cache lines
/// matters too. Heap and stack addresses are randomized per process (the stack to 16
/// bytes), so with the buffers and the stack anywhere, the same programs measured
/// differently from one process to the next: p521 square 69.7 to 77.4 ticks in six
/// runs, gcc's p384 square 234 or 305, and two `bench --reuse` runs disagreed by up to
/// 30% on one function. With the stack's top page-aligned and the buffers at
/// [`BUFFERS_AT`], every process times the same layout.
fn on_own_stack<R>(body: impl FnOnce(&OwnStack) -> Result<R>) -> Result<R> {
    STACK.with(|cell| {
        let stack = match cell.get() {
            Some(s) => s,
            None => {
                let s = OwnStack::new()?;
                cell.get_or_init(|| s)
            }
        };
        body(stack)
    })
}

/// What a batch measures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// `n` calls on the same inputs: independent calls may overlap in the CPU.
    #[default]
    Throughput,
    /// Each call's `out1` is the next call's `arg1` (needs both of the same shape).
    Latency,
}

/// How [`measure`] measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// Counter ticks one batch of the first program should take (default 10,000).
    pub cyclegoal: u64,
    /// Rounds, each with one batch of every program (default 31); with `early_stop`,
    /// the most rounds.
    pub batches: usize,
    pub mode: Mode,
    /// Stop before `batches` rounds once the paired comparison it names is decided.
    pub early_stop: Option<EarlyStop>,
    /// The calling convention of every measured program.
    pub abi: Abi,
}

/// Stop a measurement early once a paired comparison of two of its programs is decided
/// by [`stats::sign_decided`](crate::stats::sign_decided) (the rule has its home there):
/// a search step needs to know which of two programs is faster, not by how much.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EarlyStop {
    /// Rounds measured before the rule is asked (at least 1).
    pub min_rounds: usize,
    /// The two programs compared (indices into the measured programs).
    pub a: usize,
    pub b: usize,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            cyclegoal: 10_000,
            batches: 31,
            mode: Mode::Throughput,
            early_stop: None,
            abi: Abi::SysV,
        }
    }
}

/// Summary of ticks per call over the rounds of a measurement.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stats {
    pub median: f64,
    /// First quartile.
    pub q1: f64,
    /// Third quartile.
    pub q3: f64,
    pub min: f64,
}

impl Stats {
    /// Median, quartiles (linear interpolation between order statistics) and minimum of
    /// `samples`, which get sorted. All NaN for no samples.
    pub fn from_samples(samples: &mut [f64]) -> Stats {
        if samples.is_empty() {
            return Stats {
                median: f64::NAN,
                q1: f64::NAN,
                q3: f64::NAN,
                min: f64::NAN,
            };
        }
        samples.sort_unstable_by(f64::total_cmp);
        let q = |q: f64| {
            let pos = q * (samples.len() - 1) as f64;
            let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
            samples[lo] + (samples[hi] - samples[lo]) * (pos - lo as f64)
        };
        Stats {
            median: q(0.5),
            q1: q(0.25),
            q3: q(0.75),
            min: samples[0],
        }
    }
}

/// The result of [`measure`].
#[derive(Clone, Debug, PartialEq)]
pub struct Measurement {
    /// Ticks per call, per program (in the order given), over the rounds.
    pub per_call: Vec<Stats>,
    /// Ticks per call, per program, per round (in round order): what `per_call`
    /// summarises, for paired comparisons ([`Measurement::paired_ratio`]).
    pub samples: Vec<Vec<f64>>,
    /// Calls per batch (a power of two), the same for every program and round.
    pub batch_size: u64,
    /// Median ticks of an empty timed region, measured at the start of this call and
    /// subtracted from every batch (batches are sized so that it is below 5% of one).
    pub overhead: u64,
    /// [`Counter::name`] of the counter used.
    pub counter: &'static str,
}

impl Measurement {
    /// Rounds measured (fewer than [`Config::batches`] after an early stop).
    pub fn rounds(&self) -> usize {
        self.samples.first().map_or(0, Vec::len)
    }

    /// The median over the rounds of `a`'s time divided by `b`'s time in the same round:
    /// below 1 when `a` is faster. Pairing by round cancels what changes slowly during
    /// a measurement (the other logical CPU's load, the clock frequency), which medians
    /// of each program alone do not.
    pub fn paired_ratio(&self, a: usize, b: usize) -> f64 {
        let mut r: Vec<f64> = self.samples[a]
            .iter()
            .zip(&self.samples[b])
            .map(|(x, y)| x / y)
            .collect();
        Stats::from_samples(&mut r).median
    }

    /// Does the sign test ([`crate::stats::sign_decided`]) over the rounds say which of
    /// `a` and `b` is faster? (The early stop asks the same question after every round.)
    pub fn paired_decided(&self, a: usize, b: usize) -> bool {
        crate::stats::paired_sign_decided(&self.samples[a], &self.samples[b])
    }
}

/// The caller's oracle: gets every round's inputs (one `Vec` per parameter) and every
/// program's outputs (per program, one `Vec` per return); an error stops [`measure`].
pub type Check<'a> = dyn FnMut(&[Vec<u128>], &[Vec<Vec<u128>>]) -> Result<()> + 'a;

/// A function with Fiat's C signature, all six argument registers passed.
type RegsFn = unsafe extern "sysv64" fn(u64, u64, u64, u64, u64, u64);
/// The same with every stack word [`MAX_ARGS`] allows passed too (a System V callee
/// reads the ones it has and ignores the rest).
#[rustfmt::skip]
type StackFn = unsafe extern "sysv64" fn(
    u64, u64, u64, u64, u64, u64, u64, u64, u64, u64, u64, u64, u64, u64,
);
const _: () = assert!(MAX_ARGS == 14, "StackFn passes MAX_ARGS words");
/// [`RegsFn`] under the Windows x64 convention: its four argument registers.
type Win64RegsFn = unsafe extern "win64" fn(u64, u64, u64, u64);
/// [`StackFn`] under the Windows x64 convention.
#[rustfmt::skip]
type Win64StackFn = unsafe extern "win64" fn(
    u64, u64, u64, u64, u64, u64, u64, u64, u64, u64, u64, u64, u64, u64,
);

/// A program to call: with no more argument words than the convention's registers, only
/// the registers are set up, so the timed loop carries no stack stores a function does
/// not need.
#[derive(Clone, Copy)]
enum FiatFn {
    Regs(RegsFn),
    Stack(StackFn),
    Win64Regs(Win64RegsFn),
    Win64Stack(Win64StackFn),
}

impl FiatFn {
    /// # Safety
    /// `p` is the entry of code with the signature of a function of `nargs` arguments
    /// under `abi`.
    unsafe fn new(p: *const u8, nargs: usize, abi: Abi) -> FiatFn {
        // SAFETY: a non-null code pointer becomes a function pointer of the signature the
        // caller promises (extra arguments are ignored by the callee under both
        // conventions: the caller owns them and cleans them up).
        unsafe {
            let regs = nargs <= abi.args().len();
            match (abi, regs) {
                (Abi::SysV, true) => FiatFn::Regs(std::mem::transmute::<*const u8, RegsFn>(p)),
                (Abi::SysV, false) => FiatFn::Stack(std::mem::transmute::<*const u8, StackFn>(p)),
                (Abi::Win64, true) => {
                    FiatFn::Win64Regs(std::mem::transmute::<*const u8, Win64RegsFn>(p))
                }
                (Abi::Win64, false) => {
                    FiatFn::Win64Stack(std::mem::transmute::<*const u8, Win64StackFn>(p))
                }
            }
        }
    }
}

/// A function pointer of one of the two signatures.
trait Callee: Copy {
    /// Calls it with the argument words `a`.
    ///
    /// The words are loaded with volatile reads at every call, so that the compiler
    /// keeps only `a`, `f` and the loop counter in callee-saved registers across calls
    /// instead of spilling the loop counter to the stack (a store-forwarding chain of ~5
    /// cycles per iteration, a floor under every measurement); the loads are independent
    /// of each other and of the previous call.
    ///
    /// # Safety
    /// As for [`measure`]: verified code of the measured signature, and `a` points into
    /// buffers of that layout.
    unsafe fn call(self, a: &Args);
}

/// Argument word `i` of `a`, read anew.
#[inline(always)]
fn word(a: &Args, i: usize) -> u64 {
    // SAFETY: a valid reference (the index is checked).
    unsafe { std::ptr::read_volatile(&a.words[i]) }
}

/// `impl Callee for $fn` passing argument words `$i…` (the four signatures differ only
/// in their convention and how many words they take).
macro_rules! callee {
    ($fn:ty: $($i:literal)*) => {
        impl Callee for $fn {
            #[inline(always)]
            unsafe fn call(self, a: &Args) {
                // SAFETY: the caller's contract.
                unsafe { self($(word(a, $i)),*) }
            }
        }
    };
}
callee!(RegsFn: 0 1 2 3 4 5);
callee!(StackFn: 0 1 2 3 4 5 6 7 8 9 10 11 12 13);
callee!(Win64RegsFn: 0 1 2 3);
callee!(Win64StackFn: 0 1 2 3 4 5 6 7 8 9 10 11 12 13);

impl FiatFn {
    /// One call, outside any timed region (it branches on the signature).
    ///
    /// # Safety
    /// As for [`Callee::call`].
    unsafe fn call(self, a: &Args) {
        // SAFETY: the caller's contract.
        unsafe {
            match self {
                FiatFn::Regs(f) => f.call(a),
                FiatFn::Stack(f) => f.call(a),
                FiatFn::Win64Regs(f) => f.call(a),
                FiatFn::Win64Stack(f) => f.call(a),
            }
        }
    }
}

/// `n` calls on the same arguments, between two reads of `now`.
#[inline(always)]
unsafe fn throughput_batch(now: impl Fn() -> u64, f: impl Callee, a: &Args, n: u64) -> u64 {
    let t0 = now();
    for _ in 0..n {
        // SAFETY: the caller's contract (see `Callee::call`).
        unsafe { f.call(a) };
    }
    let t1 = now();
    t1.wrapping_sub(t0)
}

/// `n` calls alternating between `even` and `odd` (the chained outputs and inputs
/// swapped), between two reads of `now`.
#[inline(always)]
unsafe fn latency_batch(
    now: impl Fn() -> u64,
    f: impl Callee,
    even: &Args,
    odd: &Args,
    n: u64,
) -> u64 {
    let t0 = now();
    for _ in 0..n / 2 {
        // SAFETY: the caller's contract (see `Callee::call`).
        unsafe {
            f.call(even);
            f.call(odd);
        }
    }
    if n % 2 == 1 {
        // SAFETY: as above.
        unsafe { f.call(even) };
    }
    let t1 = now();
    t1.wrapping_sub(t0)
}

/// One timed batch of `f`, run on `stack` with the argument words copied onto it (so
/// that the loop's loads of them are at fixed page offsets too): the signature, the
/// counter's kind and the mode are decided here, outside the timed region, and each
/// combination gets its own specialised loop.
///
/// In latency mode, `chain` says which argument words trade places.
///
/// # Safety
/// As for [`measure`]: `f` is verified code of the measured signature and `args` points
/// into buffers of that layout.
#[inline(never)]
unsafe fn time_batch(
    stack: &OwnStack,
    counter: &Counter,
    mode: Mode,
    f: FiatFn,
    args: &Args,
    chain: Chain,
    n: u64,
) -> u64 {
    stack.run(|| {
        // A volatile read: a copy in this frame, on `stack`, that the compiler cannot
        // replace by the caller's.
        // SAFETY: `args` is a valid, aligned reference.
        let args = unsafe { std::ptr::read_volatile(args) };
        // SAFETY: the caller's contract.
        unsafe {
            match f {
                FiatFn::Regs(f) => time_batch_of(counter, mode, f, &args, chain, n),
                FiatFn::Stack(f) => time_batch_of(counter, mode, f, &args, chain, n),
                FiatFn::Win64Regs(f) => time_batch_of(counter, mode, f, &args, chain, n),
                FiatFn::Win64Stack(f) => time_batch_of(counter, mode, f, &args, chain, n),
            }
        }
    })
}

/// [`time_batch`] for one signature.
///
/// # Safety
/// As for [`time_batch`].
#[inline(always)]
unsafe fn time_batch_of(
    counter: &Counter,
    mode: Mode,
    f: impl Callee,
    args: &Args,
    chain: Chain,
    n: u64,
) -> u64 {
    // SAFETY (all arms): the caller's contract; in latency mode `odd` swaps two buffers
    // of the same shape, so it points into the same layout.
    unsafe {
        match mode {
            Mode::Throughput => match counter {
                Counter::Tsc => throughput_batch(tsc, f, args, n),
                Counter::CoreCycles(p) => throughput_batch(|| p.read(), f, args, n),
            },
            Mode::Latency => {
                let mut odd = *args;
                for i in 0..chain.len {
                    odd.words.swap(i, chain.inputs_at + i);
                }
                match counter {
                    Counter::Tsc => latency_batch(tsc, f, args, &odd, n),
                    Counter::CoreCycles(p) => latency_batch(|| p.read(), f, args, &odd, n),
                }
            }
        }
    }
}

/// Can `f` be measured in [`Mode::Latency`]: is `out1` an array of the shape of `arg1`
/// (so that each call's output can be the next call's input)?
pub fn latency_possible(f: &Function) -> bool {
    chained(f) > 0
}

/// How many outputs latency mode feeds back: the longest run `out1…outk` that has the
/// shapes (arrays, same length and element type) of `arg1…argk`. A field operation
/// chains one; a point formula (`X3, Y3, Z3` from `X1, Y1, Z1, …`) all three.
pub fn chained(f: &Function) -> usize {
    f.returns
        .iter()
        .zip(&f.params)
        .take_while(|(o, a)| a.len.is_some() && o.len == a.len && o.ty.bits == a.ty.bits)
        .count()
}

/// Which argument words latency mode swaps between calls: output `i`'s (word `i`) with
/// input `i`'s (word `inputs_at + i`), for `i < len`.
#[derive(Clone, Copy, Debug)]
struct Chain {
    inputs_at: usize,
    len: usize,
}

fn latency_shape(f: &Function) -> Result<()> {
    let shape = |p: Option<&cryptopt_ir::Param>, by_value: bool| match p {
        None => "(none)".to_string(),
        Some(p) if by_value && p.len.is_none() => format!("{} (a scalar by value)", p.shape()),
        Some(p) => p.shape(),
    };
    if latency_possible(f) {
        return Ok(());
    }
    let (out1, arg1) = (f.returns.first(), f.params.first());
    Err(Error::LatencyShape {
        function: f.name.clone(),
        out1: shape(out1, false),
        arg1: shape(arg1, true),
    })
}

/// Measures `programs`, implementations of `f`, interleaved (see the module docs), and
/// hands every round's inputs and every program's outputs to `check`, whose error stops
/// the measurement and is returned.
///
/// Outputs per round: in throughput mode those of the batch's last call; in latency mode
/// those of one extra, untimed call on the round's inputs (into separate buffers).
///
/// Errors: no programs, zero batches, a null pointer, more than [`MAX_ARGS`] arguments, latency
/// mode without out1 and arg1 of the same shape, a write outside the output buffers,
/// and whatever `check` returns.
///
/// # Safety
/// Every pointer in `programs` must be the entry of executable machine code that stays
/// mapped for the whole call, has the signature of `f` as Fiat's C has it under the
/// calling convention `cfg.abi`, keeps that ABI (callee-saved registers, stack, flags;
/// as checked by
/// [`Trampoline`](crate::Trampoline)) and only accesses its arguments' buffers within
/// their bounds: code verified with [`crate::diff::Runner`] first. They are called
/// directly, without the trampoline's protection.
pub unsafe fn measure<R: Rng + ?Sized>(
    f: &Function,
    programs: &[*const u8],
    cfg: &Config,
    counter: &Counter,
    rng: &mut R,
    check: &mut Check<'_>,
) -> Result<Measurement> {
    let refuse = |reason: String| Error::Measure {
        function: f.name.clone(),
        reason,
    };
    if programs.is_empty() {
        return Err(refuse("no programs".to_string()));
    }
    if cfg.batches == 0 {
        return Err(refuse("zero batches".to_string()));
    }
    if let Some(i) = programs.iter().position(|p| p.is_null()) {
        return Err(refuse(format!("program {i} is a null pointer")));
    }
    let nargs = f.returns.len() + f.params.len();
    if nargs > MAX_ARGS {
        return Err(refuse(format!(
            "{nargs} arguments; calls in-process pass at most {MAX_ARGS}"
        )));
    }
    if cfg.mode == Mode::Latency {
        latency_shape(f)?;
    }
    if let Some(e) = cfg.early_stop {
        let n = programs.len();
        if e.a >= n || e.b >= n || e.a == e.b || e.min_rounds == 0 {
            return Err(refuse(format!("bad early stop {e:?}")));
        }
    }
    let fns: Vec<FiatFn> = programs
        .iter()
        // SAFETY: the caller promises the signature of `f`.
        .map(|&p| unsafe { FiatFn::new(p, nargs, cfg.abi) })
        .collect();

    // SAFETY: the caller's contract, passed on.
    on_own_stack(|stack| unsafe { measure_on(stack, f, &fns, cfg, counter, rng, check) })
}

/// [`measure`] after its checks, with the batches timed on `stack`.
///
/// # Safety
/// As for [`measure`].
unsafe fn measure_on<R: Rng + ?Sized>(
    stack: &OwnStack,
    f: &Function,
    fns: &[FiatFn],
    cfg: &Config,
    counter: &Counter,
    rng: &mut R,
    check: &mut Check<'_>,
) -> Result<Measurement> {
    let layout = Layout::new(f, Pairing::Distinct)?;
    let (mut store, mut spare) = (Vec::new(), Vec::new());
    let timed = layout.reset_at(&mut store, BUFFERS_AT);
    layout.reset(&mut spare);
    let chain = Chain {
        inputs_at: f.returns.len(),
        len: chained(f),
    };
    let overhead = counter::overhead(counter, OVERHEAD_SAMPLES);
    let guard = |area: &[u64], p: usize| match layout.broken_guard(area) {
        None => Ok(()),
        Some(w) => Err(Error::Mismatch(format!(
            "program {p} for `{}` wrote outside the output buffers (word {w} of the buffer \
             area)",
            f.name
        ))),
    };

    // Calibrate on the first program: the smallest power of two whose batch reaches the
    // cycle goal with the timer's overhead below 5% (the faster of two tries, so that an
    // interrupt does not stop the doubling early).
    let first = inputs::random(f, rng);
    let mut n = 1u64;
    loop {
        let mut t = u64::MAX;
        for _ in 0..2 {
            layout.poison_outputs(timed);
            let args = layout.write_inputs(f, &first, timed);
            // SAFETY: the caller's contract; `args` points into `timed`, laid out for `f`.
            t = t.min(unsafe { time_batch(stack, counter, cfg.mode, fns[0], &args, chain, n) });
        }
        guard(timed, 0)?;
        let enough = t >= cfg.cyclegoal && t >= overhead.saturating_mul(OVERHEAD_RATIO);
        if enough || n >= MAX_BATCH {
            break;
        }
        n *= 2;
    }
    // Warm up the others (caches, branch predictors) so round 1 is not their first run.
    for (p, &fp) in fns.iter().enumerate().skip(1) {
        layout.poison_outputs(timed);
        let args = layout.write_inputs(f, &first, timed);
        // SAFETY: as above.
        unsafe {
            time_batch(
                stack,
                counter,
                cfg.mode,
                fp,
                &args,
                chain,
                n.min(WARMUP_CALLS),
            )
        };
        guard(timed, p)?;
    }

    let mut order: Vec<usize> = (0..fns.len()).collect();
    let mut ticks: Vec<Vec<f64>> = vec![Vec::with_capacity(cfg.batches); fns.len()];
    let mut outputs: Vec<Vec<Vec<u128>>> = vec![vec![Vec::new(); f.returns.len()]; fns.len()];
    for round in 1..=cfg.batches {
        let inputs = inputs::random(f, rng);
        order.shuffle(rng);
        for &p in &order {
            layout.poison_outputs(timed);
            let args = layout.write_inputs(f, &inputs, timed);
            // SAFETY: the caller's contract; `args` points into `timed`, laid out for `f`.
            let t = unsafe { time_batch(stack, counter, cfg.mode, fns[p], &args, chain, n) };
            ticks[p].push(t.saturating_sub(overhead) as f64 / n as f64);
            guard(timed, p)?;
            match cfg.mode {
                Mode::Throughput => layout.read_outputs(timed, &mut outputs[p]),
                Mode::Latency => {
                    layout.poison_outputs(&mut spare);
                    let args = layout.write_inputs(f, &inputs, &mut spare);
                    // SAFETY: as above, into `spare`, laid out for `f`.
                    unsafe { fns[p].call(&args) };
                    guard(&spare, p)?;
                    layout.read_outputs(&spare, &mut outputs[p]);
                }
            }
        }
        check(&inputs, &outputs)?;
        if let Some(e) = cfg.early_stop {
            if round >= e.min_rounds && crate::stats::paired_sign_decided(&ticks[e.a], &ticks[e.b])
            {
                break;
            }
        }
    }

    Ok(Measurement {
        per_call: ticks
            .iter()
            .map(|t| Stats::from_samples(&mut t.clone()))
            .collect(),
        samples: ticks,
        batch_size: n,
        overhead,
        counter: counter.name(),
    })
}
