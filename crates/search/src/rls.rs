//! The random local search loop (the paper's RLS), written once for every kind of
//! program ([`Genome`]):
//!
//! ```text
//!  loop:  stop set? ─▶ return          (checked before every step)
//!         plan.next() ─▶ Step(walk) | Continue (the plan ranked or moved on) | Done
//!         a step:  mutant = mutate(current); evaluator.compare(current, mutant);
//!                  keep the mutant if Comparison::keeps (decided faster, or undecided,
//!                  not slower and not longer); the walk counts it
//!         plan.stepped() ─▶ rankings, reports
//! ```
//!
//! A [`Plan`] decides which walk steps and what the rankings do: the scalar search's
//! bet-and-run with its elite ([`crate::local_search`]), the vector search's single
//! walk ([`crate::vector`]). An [`Evaluator`] generates, checks and measures.
//!
//! The loop never looks at programs or at the clock, and never draws random numbers
//! itself: the genome's mutation draws from the walk's generator, in the same order
//! every time.

use std::sync::atomic::{AtomicBool, Ordering};

use rand::Rng;

use cryptopt_codegen::Candidate;

use crate::error::Result;
use crate::genome::Genome;

/// What one paired measurement of the current candidate and a mutant gives.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Comparison {
    /// Median ticks per call of the current candidate and of the mutant.
    pub current: f64,
    pub mutant: f64,
    /// The mutant's time over the current's, paired by round (below 1: faster); what the
    /// step decides on.
    pub ratio: f64,
    /// Rounds measured; 0 when nothing needed measuring (the mutant's code is the
    /// current's, byte for byte: ratio 1).
    pub rounds: usize,
    /// Whether the sign test over the rounds decided which program is faster.
    pub decided: bool,
    /// Instructions of the current candidate and of the mutant.
    pub lengths: [usize; 2],
}

impl Comparison {
    /// The comparison of two programs with the same code: nothing measured, ratio 1.
    pub fn same_code(lengths: [usize; 2]) -> Comparison {
        Comparison {
            current: 0.0,
            mutant: 0.0,
            ratio: 1.0,
            rounds: 0,
            decided: false,
            lengths,
        }
    }

    /// The comparison with a mutant the generator could not make (a code generation
    /// bug): never kept, nothing measured.
    pub fn not_generated(lengths: [usize; 2]) -> Comparison {
        Comparison {
            ratio: f64::INFINITY,
            rounds: 1,
            decided: true,
            ..Comparison::same_code(lengths)
        }
    }

    /// The acceptance rule of a step: keep the mutant when its code is the current's,
    /// when the measurement decided that it is faster, or, when the measurement could
    /// not decide, when it was not slower and is not longer. Taking every undecided
    /// "not slower" made walks drift: half of all steps ended undecided, most mutants
    /// are slightly worse, and coin-flip acceptances let a walk on p521 go from 1.07×
    /// to 1.3× gcc's time over 60k steps. The length is exact where the clock is not,
    /// and fewer instructions is what these instruction-bound functions reward.
    pub fn keeps(&self) -> bool {
        if self.rounds == 0 {
            return true;
        }
        if self.decided {
            return self.ratio < 1.0;
        }
        self.ratio <= 1.0 && self.lengths[1] <= self.lengths[0]
    }
}

/// What one side-by-side measurement of candidates and the baseline gives.
#[derive(Clone, Debug, PartialEq)]
pub struct Ranking {
    /// Per candidate (in the order given): its time over the baseline's, paired by round.
    pub ratios: Vec<f64>,
    /// Median ticks per call of the baseline.
    pub baseline: f64,
}

/// Generates, checks and measures the programs of genomes `G` (scalar candidates by
/// default). Implemented natively by [`crate::native::Native`] (scalar) and
/// [`crate::vector_native::VectorNative`] (vector); tests use cost models.
pub trait Evaluator<G: Genome = Candidate> {
    /// Measures `current` against `mutant` in one paired run.
    fn compare(&mut self, current: &G, mutant: &G) -> Result<Comparison>;
    /// Measures `candidates` and the baseline side by side in one run.
    fn rank(&mut self, candidates: &[&G]) -> Result<Ranking>;
    /// The mutation hints of `c`'s program (the hot decisions of its last generation,
    /// generating it if needed; none for vector programs).
    fn hot(&mut self, c: &G) -> Result<&[G::Hint]>;
    /// Told when a mutant was kept (after `compare`); an error stops the search.
    fn kept(&mut self, _c: &G) -> Result<()> {
        Ok(())
    }
}

/// A walk as the loop steps it: borrowed from the plan's state.
pub struct WalkMut<'a, G, R: ?Sized> {
    pub current: &'a mut G,
    pub rng: &'a mut R,
    /// Mutants evaluated and kept by this walk.
    pub evals: &'a mut u64,
    pub accepted: &'a mut u64,
}

/// What the plan wants next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// Step walk `w`.
    Step(usize),
    /// The plan changed its state (ranked, changed phase): check the stop flag again.
    Continue,
    /// The search is over.
    Done,
}

/// One step's outcome, handed to [`Plan::stepped`].
#[derive(Clone, Copy, Debug)]
pub struct Stepped<M> {
    pub mutation: M,
    pub cmp: Comparison,
    pub kept: bool,
}

/// Which walk steps next, and what a step leads to (rankings, reports).
pub trait Plan<G: Genome, E: Evaluator<G> + ?Sized> {
    /// The generator each walk draws its mutations from.
    type Rng: Rng + ?Sized;
    fn next(&mut self, ev: &mut E) -> Result<Next>;
    fn walk(&mut self, w: usize) -> WalkMut<'_, G, Self::Rng>;
    fn stepped(&mut self, w: usize, s: &Stepped<G::Mutation>, ev: &mut E) -> Result<()>;
}

/// Runs `plan` until it is done or `stop` is set (checked before every step).
pub fn run<G, E, P>(plan: &mut P, space: &G::Space, ev: &mut E, stop: &AtomicBool) -> Result<()>
where
    G: Genome,
    E: Evaluator<G> + ?Sized,
    P: Plan<G, E>,
{
    // Reused by every step: the loop allocates nothing once warm.
    let mut scratch = Scratch::<G>::default();
    loop {
        if stop.load(Ordering::Relaxed) {
            return Ok(());
        }
        let w = match plan.next(ev)? {
            Next::Step(w) => w,
            Next::Continue => continue,
            Next::Done => return Ok(()),
        };
        let s = step(plan.walk(w), space, ev, &mut scratch)?;
        plan.stepped(w, &s, ev)?;
    }
}

/// What [`step`] reuses from one evaluation to the next.
pub struct Scratch<G: Genome> {
    mutant: Option<G>,
    hints: Vec<G::Hint>,
    genome: G::Scratch,
}

impl<G: Genome> Default for Scratch<G> {
    fn default() -> Self {
        Scratch {
            mutant: None,
            hints: Vec::new(),
            genome: G::Scratch::default(),
        }
    }
}

/// One evaluation of `walk`: a mutant of its current genome, compared with it, kept
/// by [`Comparison::keeps`] (the evaluator told first, then the two swapped).
pub fn step<G, E, R>(
    walk: WalkMut<'_, G, R>,
    space: &G::Space,
    ev: &mut E,
    scratch: &mut Scratch<G>,
) -> Result<Stepped<G::Mutation>>
where
    G: Genome,
    E: Evaluator<G> + ?Sized,
    R: Rng + ?Sized,
{
    let mutant = match &mut scratch.mutant {
        Some(m) => {
            m.clone_from(walk.current);
            m
        }
        none => none.insert(walk.current.clone()),
    };
    scratch.hints.clear();
    scratch.hints.extend_from_slice(ev.hot(walk.current)?);
    let mutation = mutant.mutate(space, &scratch.hints, &mut scratch.genome, walk.rng)?;
    let cmp = ev.compare(walk.current, mutant)?;
    let kept = cmp.keeps();
    *walk.evals += 1;
    if kept {
        ev.kept(mutant)?;
        std::mem::swap(walk.current, mutant);
        *walk.accepted += 1;
    }
    Ok(Stepped {
        mutation,
        cmp,
        kept,
    })
}
