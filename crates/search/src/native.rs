//! The native evaluator of scalar candidates: generates, encodes and loads them into
//! executable memory, and measures them on this CPU (vector programs have theirs in
//! [`crate::vector_native`]).
//!
//! * [`Evaluator::compare`]: the current candidate against the mutant in one paired,
//!   interleaved run that stops as soon as the sign test has decided which is faster
//!   ([`EarlyStop`]); a mutant whose code is byte for byte the current's is not
//!   measured at all.
//! * [`Evaluator::rank`]: candidates and the C baseline side by side, all rounds.
//!
//! After every round the outputs of all programs are compared with each other and with
//! the reference interpreter on that round's inputs; any difference stops the search
//! with [`Error::Mismatch`] naming the candidate.
//!
//! The current candidate's code is kept loaded between steps; when the mutant is kept,
//! the two code slots swap instead of regenerating anything.
//!
//! It must never report a measurement of code whose outputs were not checked in the same
//! run.

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use cryptopt_codegen::{Candidate, Generator, Hot};
use cryptopt_ir::Function;
use cryptopt_measure::counter::Counter;
use cryptopt_measure::diff::Oracle;
use cryptopt_measure::timing::{self, Config, EarlyStop};
use cryptopt_measure::ExecMem;
use cryptopt_x86::encode::Assembler;

use crate::error::{Error, Result};
use crate::local_search::{Comparison, Evaluator, Ranking};

/// Executable memory holding one loaded candidate (the current one or the mutant).
struct CodeSlot {
    mem: ExecMem,
    /// The machine code in `mem`.
    code: Vec<u8>,
    cand: Option<Candidate>,
    hot: Vec<Hot>,
    insts: usize,
}

/// The programs of one comparison, in measurement order (for mismatch messages).
const PROGRAMS: [&str; 2] = ["current candidate", "mutant"];
/// Rounds of a comparison before the sign test may stop it.
pub const MIN_ROUNDS: usize = 5;

pub struct Native<'f> {
    /// The function the outputs are checked against (the lowered one is equal and
    /// faster to interpret; the tests of `ir` establish the equality).
    reference: &'f Function,
    gen: Generator<'f>,
    asm: Assembler,
    cur: CodeSlot,
    mutant: CodeSlot,
    baseline: *const u8,
    counter: &'f Counter,
    cfg: Config,
    rng: Xoshiro256PlusPlus,
    /// The interpreter check of every comparison (kept: its scratch space is reused).
    oracle: Oracle<'f>,
    /// Every `verify_every`-th kept candidate is handed to `verify` (0: never).
    pub verify_every: u64,
    pub verify: Option<Verifier<'f>>,
    kept: u64,
    /// Mutants the generator failed on (a code generation bug: each is rejected, the
    /// walk goes on), and the first of them with its error, as evidence.
    pub not_generated: u64,
    pub first_not_generated: Option<(String, Candidate)>,
}

/// Checks a kept candidate's program; `Err` is the caller's error saying why it is not
/// proved (it becomes [`Error::Mismatch`]'s message, with the candidate as evidence).
pub type Verifier<'f> = Box<
    dyn FnMut(&cryptopt_x86::Program) -> std::result::Result<(), Box<dyn std::error::Error>> + 'f,
>;

impl<'f> Native<'f> {
    /// `baseline` must point to a verified function with the same C signature as the
    /// function `gen` generates, and stay valid as long as this evaluator.
    pub fn new(
        reference: &'f Function,
        gen: Generator<'f>,
        baseline: *const u8,
        counter: &'f Counter,
        cfg: Config,
        seed: u64,
    ) -> Result<Native<'f>> {
        let slot = || -> Result<CodeSlot> {
            Ok(CodeSlot {
                mem: ExecMem::with_capacity(1 << 16)?,
                code: Vec::new(),
                cand: None,
                hot: Vec::new(),
                insts: 0,
            })
        };
        Ok(Native {
            reference,
            gen,
            asm: Assembler::new(),
            cur: slot()?,
            mutant: slot()?,
            baseline,
            counter,
            cfg,
            rng: Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x006d_6561_7375_7265),
            oracle: Oracle::new(reference, &PROGRAMS),
            verify_every: 0,
            verify: None,
            kept: 0,
            not_generated: 0,
            first_not_generated: None,
        })
    }

    /// Generates `c` into `slot` (unless it is already there).
    fn load(
        gen: &mut Generator<'f>,
        asm: &mut Assembler,
        slot: &mut CodeSlot,
        c: &Candidate,
    ) -> Result<()> {
        if slot.cand.as_ref() == Some(c) {
            return Ok(());
        }
        let insts = gen.generate(c)?;
        slot.insts = insts.len();
        let code = &mut slot.code;
        code.clear();
        asm.encode(insts, code)?;
        if code.len() > slot.mem.capacity() {
            slot.mem = ExecMem::with_capacity(code.len().next_power_of_two())?;
        }
        slot.mem.load(code)?;
        slot.hot.clear();
        slot.hot.extend_from_slice(gen.hot());
        match &mut slot.cand {
            Some(old) => old.clone_from(c),
            none => *none = Some(c.clone()),
        }
        Ok(())
    }

    fn ensure_current(&mut self, c: &Candidate) -> Result<()> {
        if self.cur.cand.as_ref() != Some(c) && self.mutant.cand.as_ref() == Some(c) {
            std::mem::swap(&mut self.cur, &mut self.mutant);
        }
        Self::load(&mut self.gen, &mut self.asm, &mut self.cur, c)
    }
}

/// A step's measurement of the current program against the mutant: stopped early once
/// the sign of their difference is decided (after [`MIN_ROUNDS`]). One home for both
/// evaluators (scalar here, vector in `vector_native`).
pub(crate) fn step_config(cfg: Config) -> Config {
    Config {
        early_stop: Some(EarlyStop {
            min_rounds: MIN_ROUNDS,
            a: 1,
            b: 0,
        }),
        ..cfg
    }
}

/// A ranking's measurement: every round, no early stop.
pub(crate) fn rank_config(cfg: Config) -> Config {
    Config {
        early_stop: None,
        ..cfg
    }
}

/// The step's comparison from its measurement of programs 0 (current) and 1 (mutant).
pub(crate) fn comparison(m: &timing::Measurement, lengths: [usize; 2]) -> Comparison {
    Comparison {
        current: m.per_call[0].median,
        mutant: m.per_call[1].median,
        ratio: m.paired_ratio(1, 0),
        rounds: m.rounds(),
        decided: m.paired_decided(1, 0),
        lengths,
    }
}

/// The ranking from a measurement of `ranked` programs followed by the baseline.
pub(crate) fn ranking(m: &timing::Measurement, ranked: usize) -> Ranking {
    Ranking {
        ratios: (0..ranked).map(|p| m.paired_ratio(p, ranked)).collect(),
        baseline: m.per_call[ranked].median,
    }
}

/// Measures `programs` with `cfg`, checked against the interpreter every round by
/// `oracle`; a mismatch of program `p` becomes `blame(p, message)`'s error (`None`: the
/// culprit is not one of the evaluator's programs, e.g. the baseline, and the
/// measurement's own error stands). One home for both evaluators.
///
/// # Safety
/// Every program must be loaded code with `reference`'s signature under `cfg`'s
/// convention (the evaluators generate their programs for it; the baseline is their
/// caller's promise).
pub(crate) unsafe fn measure_checked<R: rand::Rng + ?Sized>(
    reference: &Function,
    counter: &Counter,
    rng: &mut R,
    oracle: &mut Oracle<'_>,
    programs: &[*const u8],
    cfg: &Config,
    blame: impl FnOnce(usize, String) -> Option<Error>,
) -> Result<timing::Measurement> {
    let mut check = |inputs: &[Vec<u128>], outs: &[Vec<Vec<u128>>]| oracle.check(inputs, outs);
    // SAFETY: the caller's promise.
    let m = unsafe { timing::measure(reference, programs, cfg, counter, rng, &mut check) };
    m.map_err(|e| {
        oracle
            .take_culprit()
            .and_then(|(p, message)| blame(p, message))
            .unwrap_or_else(|| e.into())
    })
}

/// A scalar candidate's mismatch: the error names `candidates[p]` as evidence.
fn blame_candidate<'a>(
    candidates: &'a [&'a Candidate],
) -> impl FnOnce(usize, String) -> Option<Error> + 'a {
    move |p, message| {
        let candidate = Box::new((*candidates.get(p)?).clone());
        Some(Error::Mismatch { message, candidate })
    }
}

impl Evaluator for Native<'_> {
    fn kept(&mut self, c: &Candidate) -> Result<()> {
        self.kept += 1;
        if self.verify_every == 0 || !self.kept.is_multiple_of(self.verify_every) {
            return Ok(());
        }
        let Some(verify) = self.verify.as_mut() else {
            return Ok(());
        };
        self.gen.generate(c)?;
        let program = self.gen.program();
        verify(&program).map_err(|e| Error::Mismatch {
            message: e.to_string(),
            candidate: Box::new(c.clone()),
        })
    }

    fn hot(&mut self, c: &Candidate) -> Result<&[Hot]> {
        self.ensure_current(c)?;
        Ok(&self.cur.hot)
    }

    fn compare(&mut self, current: &Candidate, mutant: &Candidate) -> Result<Comparison> {
        self.ensure_current(current)?;
        match Self::load(&mut self.gen, &mut self.asm, &mut self.mutant, mutant) {
            Err(Error::Codegen(e)) => {
                // Never run, never kept: the walk goes on from `current`.
                self.not_generated += 1;
                self.first_not_generated
                    .get_or_insert_with(|| (e.to_string(), mutant.clone()));
                return Ok(Comparison::not_generated([self.cur.insts, self.cur.insts]));
            }
            r => r?,
        }
        if self.cur.code == self.mutant.code {
            // The same program: nothing to measure or to check again.
            return Ok(Comparison::same_code([self.cur.insts, self.mutant.insts]));
        }
        let programs = [self.cur.mem.ptr(), self.mutant.mem.ptr()];
        // SAFETY: both programs were generated for the reference's signature.
        let m = unsafe {
            measure_checked(
                self.reference,
                self.counter,
                &mut self.rng,
                &mut self.oracle,
                &programs,
                &step_config(self.cfg),
                blame_candidate(&[current, mutant]),
            )
        }?;
        Ok(comparison(&m, [self.cur.insts, self.mutant.insts]))
    }

    fn rank(&mut self, candidates: &[&Candidate]) -> Result<Ranking> {
        // A candidate already in a code slot (the walk's current one, usually) is
        // measured there; the others are generated and loaded for this ranking only.
        let mut mems = Vec::new();
        let mut programs: Vec<*const u8> = Vec::with_capacity(candidates.len() + 1);
        for &c in candidates {
            let ptr = match [&self.cur, &self.mutant]
                .into_iter()
                .find(|slot| slot.cand.as_ref() == Some(c))
            {
                Some(slot) => slot.mem.ptr(),
                None => {
                    self.gen.generate(c)?;
                    let mem = ExecMem::from_program(&self.gen.program())?;
                    let ptr = mem.ptr();
                    mems.push(mem);
                    ptr
                }
            };
            programs.push(ptr);
        }
        programs.push(self.baseline);
        let mut names = vec!["a ranked candidate"; candidates.len()];
        names.push("C baseline");
        let mut oracle = Oracle::new(self.reference, &names);
        // SAFETY: the candidates' programs were generated for the reference's
        // signature; the baseline is the caller's promise (`new`).
        let m = unsafe {
            measure_checked(
                self.reference,
                self.counter,
                &mut self.rng,
                &mut oracle,
                &programs,
                &rank_config(self.cfg),
                blame_candidate(candidates),
            )
        }?;
        Ok(ranking(&m, candidates.len()))
    }
}
