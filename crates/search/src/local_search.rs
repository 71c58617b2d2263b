//! The search loop: random local search with bet-and-run (the paper's "random local
//! search", RLS).
//!
//! ```text
//!  bets phase:  walk 0 ─ evals·ratio/bets steps ─┐
//!               walk 1 ─ evals·ratio/bets steps ─┼─▶ all walks re-measured side by side
//!               ...                              │   with the baseline ─▶ best walk ─▶
//!               walk b ─ evals·ratio/bets steps ─┘   final phase: it continues for the
//!                                                    rest of the budget
//!  a step:      mutant = mutate(current); measure current and mutant in one interleaved,
//!               paired run; keep the mutant if it is decided faster, or undecided,
//!               not slower and not longer (Comparison::keeps).
//!  every RANK_EVERY steps of a walk: its current against the baseline (the ratio that
//!               reports show); in the final phase the best few of these are kept (elite)
//!  at the end:  the final current and the elite re-measured side by side ─▶ winner
//! ```
//!
//! A step's comparison never includes the baseline (it does not decide anything there);
//! the ratio to the baseline comes from the periodic, side-by-side rankings. A noisy
//! best-so-far drifts, so the winner is never chosen from numbers of different runs:
//! every choice between walks or snapshots is one side-by-side measurement.
//!
//! The whole search state (walks, their generators, counters, parameters) is plain data
//! ([`SearchState`], serde), so a run can be saved at any step and resumed; with the same
//! seed and the same measurements it takes the same path.
//!
//! The steps themselves are the generic loop's ([`crate::rls`], over [`Candidate`]s);
//! this module is its plan: which walk steps, the rankings, the elite, the winner.
//!
//! The search never looks at programs: an [`Evaluator`] generates, checks and measures.
//! It must never draw random numbers in another order (a seed names a search path, and
//! saved states resume on it).

use std::sync::atomic::AtomicBool;

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

use cryptopt_codegen::{Candidate, Deps};
use cryptopt_ir::Function;

use crate::error::{Error, Result};
use crate::mutate::Mutation;
use crate::rls::{self, Next, Plan, Stepped, WalkMut};

pub use crate::rls::{Comparison, Evaluator, Ranking};

/// Steps of a walk between two rankings of its current candidate against the baseline.
pub const RANK_EVERY: u64 = 128;
/// Snapshots of the final walk kept for the side-by-side choice at the end.
pub const ELITE: usize = 4;
/// A final walk whose rankings stay more than this far behind the elite's best
/// ([`RETURN_AFTER`] times in a row) goes back to that best and walks on from there.
pub const RETURN_MARGIN: f64 = 0.02;
/// Consecutive rankings behind by more than [`RETURN_MARGIN`] before a return (one
/// ranking is noisy too).
pub const RETURN_AFTER: u32 = 2;

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
    /// The default bet-and-run shape (`optimize` and `bench`): 10 bets sharing 20% of
    /// the budget.
    pub const BETS: u32 = 10;
    pub const BET_RATIO: f64 = 0.2;

    /// Evaluations per bet in the bets phase.
    pub fn per_bet(&self) -> u64 {
        if self.bets <= 1 {
            return 0;
        }
        (((self.evals as f64) * self.bet_ratio) as u64 / self.bets as u64).max(1)
    }

    /// Refuses parameters the search cannot run with ([`Error::Param`] names the
    /// parameter, never a command-line flag).
    pub fn check(&self) -> Result<()> {
        if self.evals == 0 {
            return Err(Error::param("evals", "must be at least 1"));
        }
        if self.bets == 0 {
            return Err(Error::param("bets", "must be at least 1"));
        }
        if !(self.bet_ratio > 0.0 && self.bet_ratio < 1.0) {
            return Err(Error::param(
                "bet ratio",
                format!(
                    "must be between 0 and 1 (exclusive), not {}",
                    self.bet_ratio
                ),
            ));
        }
        if self.bets > 1 && self.per_bet() * self.bets as u64 >= self.evals {
            return Err(Error::param(
                "evals",
                format!(
                    "{} is too small for {} bets (each needs at least one evaluation and the best must continue)",
                    self.evals, self.bets
                ),
            ));
        }
        Ok(())
    }
}

/// One walk of the search (one bet, or the one that continues).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Walk {
    pub current: Candidate,
    /// Cost of `current` and of the baseline from its last ranking (`cycles` is the
    /// paired ratio times the baseline's median, so `cycles / baseline` is that ratio).
    pub cycles: f64,
    pub baseline: f64,
    pub evals: u64,
    pub accepted: u64,
    pub rng: Xoshiro256PlusPlus,
    /// Consecutive rankings more than [`RETURN_MARGIN`] behind the elite's best.
    #[serde(default)]
    pub behind: u32,
    /// Times the walk went back to the elite's best.
    #[serde(default)]
    pub returns: u64,
}

impl Walk {
    /// Its speed-up over the baseline in its last ranking (baseline time / its time),
    /// the direction every report uses; NaN before the first ranking.
    pub fn speedup(&self) -> f64 {
        if self.baseline > 0.0 && self.cycles > 0.0 {
            self.baseline / self.cycles
        } else {
            f64::NAN
        }
    }

    /// `cycles / baseline` of the last ranking (infinite before the first): the cost
    /// the search compares walks by, lower is better.
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
    /// The final walk's best snapshots by their rankings (at most [`ELITE`]).
    #[serde(default)]
    pub elite: Vec<Scored>,
    /// The program the search chose, once it is done (see [`SearchState::winner`]).
    #[serde(default)]
    pub winner: Option<Candidate>,
}

/// A candidate and its ratio to the baseline in the ranking that saw it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Scored {
    pub candidate: Candidate,
    pub ratio: f64,
}

/// One evaluation, reported to the caller (log, progress display).
#[derive(Clone, Copy, Debug)]
pub struct Event {
    pub index: u64,
    pub walk: usize,
    pub mutation: Mutation,
    pub kept: bool,
    pub cmp: Comparison,
    /// The walk's last known baseline cost (ticks per call) and its speed-up over it
    /// (baseline time / the walk's time: above 1 is faster), from its last ranking;
    /// NaN before the walk was first ranked.
    pub baseline: f64,
    pub walk_speedup: f64,
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
                // list schedule by register pressure, walk 3 from a demand-driven one,
                // walk 4 from a demand-driven one taking the deepest operand first
                // (Sethi–Ullman: Fiat's right-nested column sums accumulated one
                // product at a time, as `mul`'s fixed rax/rdx wants)
                // (all keep few values live; which is best depends on the
                // function: in 2k-evaluation bets, p521 and p448 did best from the list
                // schedule, curve25519's square from the demand-driven order); the others from
                // randomized depth-first orders (low pressure too, but each its own),
                // except walk 9 and every tenth after it, from a random order with
                // random decisions (anything is reachable from somewhere).
                let current = match w {
                    // Structured orders with the plainest templates (decision 0: `add`/
                    // `adc` chains, no swaps), so they start from sensible code.
                    0 => Candidate::first(deps),
                    1 => Candidate::depth_first(f, deps),
                    2 => Candidate::low_pressure(f, deps),
                    3 => Candidate::demand_driven(f, deps),
                    4 => Candidate::deepest_first(f, deps),
                    w if w % 10 == 9 => Candidate::random(f, deps, &mut rng),
                    _ => Candidate::depth_first_random(f, deps, &mut rng),
                };
                Walk {
                    current,
                    cycles: 0.0,
                    baseline: 0.0,
                    evals: 0,
                    accepted: 0,
                    rng,
                    behind: 0,
                    returns: 0,
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
            elite: Vec::new(),
            winner: None,
        })
    }

    /// The candidate to write out: the chosen winner once the search is done, the best
    /// walk's current before that (an interrupted search).
    pub fn winner(&self) -> &Candidate {
        self.winner
            .as_ref()
            .unwrap_or(&self.walks[self.best_walk()].current)
    }

    /// Continues a finished search for a larger budget.
    pub fn extend(&mut self, evals: u64) {
        if evals > self.params.evals {
            self.params.evals = evals;
            if self.phase == Phase::Done {
                self.phase = Phase::Final {
                    walk: self.best_walk(),
                };
                self.winner = None;
            }
        }
    }

    /// The walk with the best (lowest) ranked ratio.
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
    let mut plan = BetAndRun {
        state,
        deps,
        on_event,
    };
    rls::run(&mut plan, deps, ev, stop)
}

/// The scalar search's plan for the generic loop: the bets one after another, then the
/// best of them for the rest of the budget, then the winner.
struct BetAndRun<'a, 'e> {
    state: &'a mut SearchState,
    deps: &'a Deps,
    on_event: &'a mut (dyn FnMut(&Event) + 'e),
}

impl Plan<Candidate, dyn Evaluator + '_> for BetAndRun<'_, '_> {
    type Rng = Xoshiro256PlusPlus;

    fn next(&mut self, ev: &mut (dyn Evaluator + '_)) -> Result<Next> {
        let state = &mut *self.state;
        let per_bet = state.params.per_bet();
        match state.phase {
            Phase::Done => Ok(Next::Done),
            Phase::Bets => match state.walks.iter().position(|w| w.evals < per_bet) {
                Some(w) => Ok(Next::Step(w)),
                None => {
                    // Which bet continues: all of them side by side, not their last
                    // numbers from different runs.
                    let cands: Vec<&Candidate> = state.walks.iter().map(|w| &w.current).collect();
                    let r = ev.rank(&cands)?;
                    for (walk, &ratio) in state.walks.iter_mut().zip(&r.ratios) {
                        walk.set_ranking(ratio, r.baseline);
                    }
                    state.phase = Phase::Final {
                        walk: state.best_walk(),
                    };
                    Ok(Next::Continue)
                }
            },
            Phase::Final { walk } => {
                if state.evals >= state.params.evals {
                    choose_winner(state, walk, self.deps, ev)?;
                    state.phase = Phase::Done;
                    return Ok(Next::Continue);
                }
                Ok(Next::Step(walk))
            }
        }
    }

    fn walk(&mut self, w: usize) -> WalkMut<'_, Candidate, Xoshiro256PlusPlus> {
        let walk = &mut self.state.walks[w];
        WalkMut {
            current: &mut walk.current,
            rng: &mut walk.rng,
            evals: &mut walk.evals,
            accepted: &mut walk.accepted,
        }
    }

    fn stepped(
        &mut self,
        w: usize,
        s: &Stepped<Mutation>,
        ev: &mut (dyn Evaluator + '_),
    ) -> Result<()> {
        let state = &mut *self.state;
        // Ranked after its first step (so that reports have a ratio from the start), then
        // every RANK_EVERY steps.
        let ranked_now = (state.walks[w].evals - 1).is_multiple_of(RANK_EVERY);
        state.evals += 1;
        if ranked_now {
            rank_walk(state, w, ev)?;
        }
        let (baseline, walk_speedup) = (state.walks[w].baseline, state.walks[w].speedup());
        (self.on_event)(&Event {
            index: state.evals,
            walk: w,
            mutation: s.mutation,
            kept: s.kept,
            cmp: s.cmp,
            baseline,
            walk_speedup,
            phase: state.phase,
        });
        Ok(())
    }
}

impl Walk {
    fn set_ranking(&mut self, ratio: f64, baseline: f64) {
        self.baseline = baseline;
        self.cycles = ratio * baseline;
    }
}

/// Chooses the winner among the final walk's current candidate, the elite and the first
/// order (walk 0's start, [`Candidate::first`]), measured side by side. The first order is there because on large functions a
/// search can end behind its start: one step changes the time by less than a comparison
/// resolves, and in latency mode the walk's rankings saw the chain through one output
/// only before `timing::chained`; the default-budget P-256 doubling's winner measured
/// 746 TSC ticks in its final ranking where its first order had measured 591.
fn choose_winner(
    state: &mut SearchState,
    walk: usize,
    deps: &Deps,
    ev: &mut dyn Evaluator,
) -> Result<()> {
    let first = Candidate::first(deps);
    let mut cands: Vec<&Candidate> = vec![&state.walks[walk].current];
    for c in state.elite.iter().map(|s| &s.candidate).chain([&first]) {
        if !cands.contains(&c) {
            cands.push(c);
        }
    }
    let r = ev.rank(&cands)?;
    let best = (0..cands.len())
        .min_by(|&a, &b| r.ratios[a].total_cmp(&r.ratios[b]))
        .unwrap_or(0);
    state.winner = Some(cands[best].clone());
    // The walk's own current was ranked first.
    state.walks[walk].set_ranking(r.ratios[0], r.baseline);
    Ok(())
}

/// Ranks walk `w`'s current against the baseline; in the final phase, keeps it among
/// the elite if it is one of the best seen, and sends the walk back to the elite's best
/// when it has fallen behind it.
///
/// The return is the ratchet a noisy walk lacks. On large functions (a 1,400-instruction
/// ladder step) one step changes the time by less than a comparison can resolve, so
/// acceptances are coin flips and the walk wanders: the saturated X25519 ladder's final
/// walk spent 200k steps between 341 and 355 ticks on average after having been at 323.
/// Walking on from the best seen keeps the exploration where it paid.
fn rank_walk(state: &mut SearchState, w: usize, ev: &mut dyn Evaluator) -> Result<()> {
    let r = ev.rank(&[&state.walks[w].current])?;
    let ratio = r.ratios[0];
    state.walks[w].set_ranking(ratio, r.baseline);
    if !matches!(state.phase, Phase::Final { .. }) {
        return Ok(());
    }
    let elite = &mut state.elite;
    let by_ratio = |a: &Scored, b: &Scored| a.ratio.total_cmp(&b.ratio);
    let behind = |ratio: f64, best: f64| ratio > best * (1.0 + RETURN_MARGIN);
    let known = elite.iter().any(|s| s.candidate == state.walks[w].current);
    if !known && (elite.len() < ELITE || elite.iter().any(|s| s.ratio > ratio)) {
        elite.push(Scored {
            candidate: state.walks[w].current.clone(),
            ratio,
        });
        elite.sort_by(by_ratio);
        elite.truncate(ELITE);
    }
    let walk = &mut state.walks[w];
    walk.behind = if behind(ratio, elite[0].ratio) {
        walk.behind + 1
    } else {
        0
    };
    if walk.behind < RETURN_AFTER {
        return Ok(());
    }
    walk.behind = 0;
    // The best's ratio is the luckiest of many rankings: measure it again side by side
    // with the walk before going back to it, and keep the fresh ratio (else one lucky
    // ranking would call the walk back to an ordinary program again and again). The
    // evaluator follows the switch by itself (it loads whatever candidate it is given).
    let again = ev.rank(&[&walk.current, &elite[0].candidate])?;
    let (now, best) = (again.ratios[0], again.ratios[1]);
    elite[0].ratio = best;
    if behind(now, best) {
        walk.current.clone_from(&elite[0].candidate);
        walk.set_ranking(best, again.baseline);
        walk.returns += 1;
    } else {
        walk.set_ranking(now, again.baseline);
    }
    elite.sort_by(by_ratio);
    Ok(())
}
