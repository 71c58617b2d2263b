//! The search loop: random local search with bet-and-run (the paper's "random local
//! search", RLS).
//!
//! ```text
//!  bets phase:  walk 0 ─ evals·ratio/bets steps ─┐
//!               walk 1 ─ evals·ratio/bets steps ─┼─▶ best walk (lowest ratio) ─▶ final phase:
//!               ...                              │   it continues for the rest of the budget
//!               walk b ─ evals·ratio/bets steps ─┘
//!  a step:      mutant = mutate(current); measure current and mutant (and the baseline)
//!               in one interleaved run; keep the mutant if it is not slower.
//! ```
//!
//! The whole search state (walks, their generators, counters, parameters) is plain data
//! ([`SearchState`], serde), so a run can be saved at any step and resumed; with the same
//! seed and the same measurements it takes the same path.
//!
//! The search never looks at programs: an [`Evaluator`] generates, checks and measures.
//! It must never draw random numbers in another order (a seed names a search path, and
//! saved states resume on it).

use std::sync::atomic::{AtomicBool, Ordering};

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

use cryptopt_codegen::{Candidate, Deps, Hot};
use cryptopt_ir::Function;

use crate::error::{Error, Result};
use crate::mutate::{self, Mutation};

/// The numbers one interleaved measurement gives: median cost per call of the current
/// candidate, of the mutant, and of the baseline, in the counter's ticks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Comparison {
    pub current: f64,
    pub mutant: f64,
    pub baseline: f64,
}

/// Generates, checks and measures candidates. Implemented natively by
/// [`crate::native::Native`]; tests use cost models.
pub trait Evaluator {
    /// Measures `current` against `mutant` (and the baseline) in one run.
    fn compare(&mut self, current: &Candidate, mutant: &Candidate) -> Result<Comparison>;
    /// The hot decisions of the last generation of `c` (generating it if needed).
    fn hot(&mut self, c: &Candidate) -> Result<&[Hot]>;
    /// Told when a mutant was kept (after `compare`); an error stops the search.
    fn kept(&mut self, _c: &Candidate) -> Result<()> {
        Ok(())
    }
}

/// The search parameters.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Params {
    /// Total evaluations (mutants measured).
    pub evals: u64,
    /// Independent runs of the bets phase (1 with `single`).
    pub bets: u32,
    /// Share of the budget spent on the bets.
    pub bet_ratio: f64,
    pub seed: u64,
}

impl Params {
    /// Evaluations per bet in the bets phase.
    pub fn per_bet(&self) -> u64 {
        if self.bets <= 1 {
            return 0;
        }
        (((self.evals as f64) * self.bet_ratio) as u64 / self.bets as u64).max(1)
    }

    pub fn check(&self) -> Result<()> {
        if self.evals == 0 {
            return Err(Error::Params("--evals must be at least 1".into()));
        }
        if self.bets == 0 {
            return Err(Error::Params("--bets must be at least 1".into()));
        }
        if !(self.bet_ratio > 0.0 && self.bet_ratio < 1.0) {
            return Err(Error::Params(format!(
                "--bet-ratio must be between 0 and 1 (exclusive), not {}",
                self.bet_ratio
            )));
        }
        if self.bets > 1 && self.per_bet() * self.bets as u64 >= self.evals {
            return Err(Error::Params(format!(
                "--evals {} is too small for {} bets (each needs at least one evaluation and the best must continue)",
                self.evals, self.bets
            )));
        }
        Ok(())
    }
}

/// One walk of the search (one bet, or the one that continues).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Walk {
    pub current: Candidate,
    /// Last measured cost of `current` and of the baseline in the same run.
    pub cycles: f64,
    pub baseline: f64,
    pub evals: u64,
    pub accepted: u64,
    pub rng: Xoshiro256PlusPlus,
}

impl Walk {
    /// `cycles / baseline` of the last measurement (infinite before the first).
    pub fn ratio(&self) -> f64 {
        if self.baseline > 0.0 && self.cycles > 0.0 {
            self.cycles / self.baseline
        } else {
            f64::INFINITY
        }
    }
}

/// Which phase the search is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Phase {
    Bets,
    /// Walk `walk` continues for the rest of the budget.
    Final {
        walk: usize,
    },
    Done,
}

/// The complete, resumable search state (saved as `search` in `state.json`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SearchState {
    pub version: u32,
    pub function: String,
    pub params: Params,
    pub walks: Vec<Walk>,
    pub phase: Phase,
    pub evals: u64,
}

/// One evaluation, reported to the caller (log, progress display).
#[derive(Clone, Copy, Debug)]
pub struct Event {
    pub index: u64,
    pub walk: usize,
    pub mutation: Mutation,
    pub kept: bool,
    pub cmp: Comparison,
    /// Best ratio over the baseline so far, over all walks.
    pub best_ratio: f64,
    pub phase: Phase,
}

pub const STATE_VERSION: u32 = 1;

impl SearchState {
    /// A fresh search: one random candidate per walk, each walk with its own generator
    /// derived from the seed.
    pub fn new(f: &Function, deps: &Deps, params: Params) -> Result<SearchState> {
        params.check()?;
        let walks = (0..params.bets.max(1))
            .map(|w| {
                let mut rng = Xoshiro256PlusPlus::seed_from_u64(
                    params.seed ^ (0x9e37_79b9_7f4a_7c15u64.wrapping_mul(w as u64 + 1)),
                );
                // Walk 0 starts from the input's own order (Fiat's, which keeps carry
                // chains together), walk 1 from a depth-first order, walk 2 from a
                // demand-driven one (both keep register pressure low); the others from
                // random orders and random decisions.
                let current = match w {
                    // Structured orders with the plainest templates (decision 0: `add`/
                    // `adc` chains, no swaps), so they start from sensible code.
                    0 => Candidate::first(f, deps),
                    1 => Candidate::depth_first(f, deps),
                    2 => Candidate::demand_driven(f, deps),
                    _ => Candidate::random(f, deps, &mut rng),
                };
                Walk {
                    current,
                    cycles: 0.0,
                    baseline: 0.0,
                    evals: 0,
                    accepted: 0,
                    rng,
                }
            })
            .collect();
        Ok(SearchState {
            version: STATE_VERSION,
            function: f.name.clone(),
            params,
            walks,
            phase: if params.bets <= 1 {
                Phase::Final { walk: 0 }
            } else {
                Phase::Bets
            },
            evals: 0,
        })
    }

    /// The walk with the best (lowest) measured ratio.
    pub fn best_walk(&self) -> usize {
        (0..self.walks.len())
            .min_by(|&a, &b| self.walks[a].ratio().total_cmp(&self.walks[b].ratio()))
            .unwrap_or(0)
    }

    /// Checks that a loaded state fits the function it is resumed for.
    pub fn check_fits(&self, f: &Function, deps: &Deps) -> Result<()> {
        if self.version != STATE_VERSION {
            return Err(Error::State(format!(
                "state version {} is not {}",
                self.version, STATE_VERSION
            )));
        }
        if self.function != f.name {
            return Err(Error::State(format!(
                "state is for `{}`, not `{}`",
                self.function, f.name
            )));
        }
        for (w, walk) in self.walks.iter().enumerate() {
            if !deps.is_topological(&walk.current.order)
                || walk.current.decisions.len() != f.insts.len()
            {
                return Err(Error::State(format!(
                    "walk {w}'s candidate does not fit `{}`",
                    f.name
                )));
            }
        }
        if let Phase::Final { walk } = self.phase {
            if walk >= self.walks.len() {
                return Err(Error::State(format!("final walk {walk} does not exist")));
            }
        }
        self.params.check()
    }
}

/// Runs the search until the budget is spent or `stop` is set. The state is consistent
/// after every step, so the caller may save it at any time (and does, after a stop).
pub fn search(
    state: &mut SearchState,
    deps: &Deps,
    ev: &mut dyn Evaluator,
    stop: &AtomicBool,
    on_event: &mut dyn FnMut(&Event),
) -> Result<()> {
    // Buffers reused by every step: the hot loop allocates nothing once warm.
    let mut scratch = Scratch::default();
    loop {
        if stop.load(Ordering::Relaxed) {
            return Ok(());
        }
        let per_bet = state.params.per_bet();
        let w = match state.phase {
            Phase::Done => return Ok(()),
            Phase::Bets => match state.walks.iter().position(|w| w.evals < per_bet) {
                Some(w) => w,
                None => {
                    state.phase = Phase::Final {
                        walk: state.best_walk(),
                    };
                    continue;
                }
            },
            Phase::Final { walk } => {
                if state.evals >= state.params.evals {
                    state.phase = Phase::Done;
                    continue;
                }
                walk
            }
        };
        step(state, w, deps, ev, &mut scratch, on_event)?;
    }
}

/// What [`step`] reuses from one evaluation to the next.
#[derive(Default)]
struct Scratch {
    mutant: Option<Candidate>,
    hot: Vec<Hot>,
    pos: Vec<u32>,
}

/// One evaluation of walk `w`.
fn step(
    state: &mut SearchState,
    w: usize,
    deps: &Deps,
    ev: &mut dyn Evaluator,
    scratch: &mut Scratch,
    on_event: &mut dyn FnMut(&Event),
) -> Result<()> {
    let walk = &mut state.walks[w];
    let mutant = match &mut scratch.mutant {
        Some(m) => {
            m.clone_from(&walk.current);
            m
        }
        none => none.insert(walk.current.clone()),
    };
    scratch.hot.clear();
    scratch.hot.extend_from_slice(ev.hot(&walk.current)?);
    let (hot, pos) = (&scratch.hot, &mut scratch.pos);
    let decision_first = walk.rng.random_bool(0.5) && !hot.is_empty();
    let mutation = if decision_first {
        mutate::flip_decision(mutant, hot, &mut walk.rng)
    } else {
        mutate::permute(mutant, deps, pos, &mut walk.rng)
            .or_else(|| mutate::flip_decision(mutant, hot, &mut walk.rng))
    };
    let Some(mutation) = mutation else {
        return Err(Error::Params(
            "nothing to mutate: the function has a single schedule and no choices".into(),
        ));
    };
    let cmp = ev.compare(&walk.current, mutant)?;
    let kept = cmp.mutant <= cmp.current;
    walk.evals += 1;
    if kept {
        ev.kept(mutant)?;
        std::mem::swap(&mut walk.current, mutant);
        walk.cycles = cmp.mutant;
        walk.accepted += 1;
    } else {
        walk.cycles = cmp.current;
    }
    walk.baseline = cmp.baseline;
    state.evals += 1;
    let best_ratio = state
        .walks
        .iter()
        .map(Walk::ratio)
        .fold(f64::INFINITY, f64::min);
    on_event(&Event {
        index: state.evals,
        walk: w,
        mutation,
        kept,
        cmp,
        best_ratio,
        phase: state.phase,
    });
    Ok(())
}
