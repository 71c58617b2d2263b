//! Algorithm bets: a function that can be computed by several algorithms
//! ([`cryptopt_gen::fields::variants`]: Fiat's own, word-by-word Montgomery by the
//! prime's form, a full product or dedicated square then reduction) is searched as each
//! of them, and the search picks per function and per machine.
//!
//! ```text
//!  variants ─▶ screened: one program of each run natively and proved against the job's
//!              function (a variant the checker cannot prove is left out, said as a warning)
//!           ─▶ a short search of each (SHARE of the budget, split evenly)
//!           ─▶ their best programs measured side by side, one interleaved run
//!           ─▶ the fastest algorithm's search continues for the rest of the budget
//! ```
//!
//! Must never: let a variant stand for the function. Every check here and after (native
//! runs, proofs, the final measurement's oracle) is against the job's function; a variant
//! is only ever what code is generated from.

use cryptopt_codegen::{Candidate, Generator};
use cryptopt_gen::fields::{Algorithm, FieldOp};
use cryptopt_ir::{lower, Function};
use cryptopt_search::{local_search, SearchState};

use std::sync::atomic::AtomicBool;

use crate::checks::{check_natively, prove};
use crate::progress::Progress;
use crate::{Error, Result};

use super::{generate, side_by_side, Job, Searcher};

/// Which algorithms a job may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// Every algorithm the function has that the checker proves; the search picks.
    Auto,
    /// This one only (an error if the function has no such algorithm, or if its program
    /// cannot be proved).
    Only(Algorithm),
}

/// Share of the budget that the algorithm bets take together, when there are several.
pub const SHARE: f64 = 0.3;

/// One algorithm's search: its lowered function and the search state over it.
pub(crate) struct Run {
    pub algorithm: Algorithm,
    pub op: Option<FieldOp>,
    /// The variant, lowered: what code is generated from (never what it is checked
    /// against).
    pub g: Function,
    pub state: Option<SearchState>,
    /// The number of its first walk in the log (each algorithm's walks have their own).
    pub walk_base: usize,
}

impl Run {
    /// The header's line for the algorithm.
    pub fn describe(&self) -> String {
        self.algorithm.describe(self.op)
    }
}

/// The algorithms of the job's function that `choice` allows, lowered for `shape`, each
/// screened: a first program of it is run natively against the job's function and
/// proved equal to it. With [`Choice::Auto`] a variant that fails is left out (said as a
/// warning; the input's own algorithm is never left out); with [`Choice::Only`] it is
/// the error.
pub(crate) fn screened(
    job: &Job<'_>,
    shape: lower::Shape,
    progress: &mut dyn Progress,
) -> Result<Vec<Run>> {
    let f = job.f;
    let all = cryptopt_gen::fields::variants(f)?;
    let wanted: Vec<_> = match job.algorithm {
        Choice::Auto => all,
        Choice::Only(a) => {
            let known: Vec<&str> = all.iter().map(|v| v.algorithm.name()).collect();
            let known = known.join(", ");
            let Some(v) = all.into_iter().find(|v| v.algorithm == a) else {
                return Err(Error::param(
                    "algorithm",
                    format!("`{a}` is not an algorithm of {} (it has: {known})", f.name),
                ));
            };
            vec![v]
        }
    };
    let mut runs = Vec::with_capacity(wanted.len());
    for v in wanted {
        let g = lower::lower_for(&v.function, shape)?;
        if v.algorithm != Algorithm::Input || job.algorithm != Choice::Auto {
            if let Err(e) = screen(f, &g, job) {
                if job.algorithm != Choice::Auto {
                    return Err(e);
                }
                progress.warn(&format!(
                    "{}: algorithm `{}` left out: {e}",
                    f.name, v.algorithm
                ));
                continue;
            }
        }
        runs.push(Run {
            algorithm: v.algorithm,
            op: v.op,
            g,
            state: None,
            walk_base: 0,
        });
    }
    Ok(runs)
}

/// A first program of the lowered variant `g`, run natively against `f` and proved
/// equal to it.
fn screen(f: &Function, g: &Function, job: &Job<'_>) -> Result<()> {
    let mut gen = Generator::new(g, job.opts)?;
    let first = Candidate::first(gen.deps());
    gen.generate(&first)?;
    let program = gen.program();
    check_natively(f, &program, &job.opts, job.params.seed)?;
    if job.verify {
        // The checker's whole report is for `check`; here, that it was not proved.
        prove(f, &program, &job.opts).map_err(|e| match e {
            Error::CheckFailed(_) => Error::CheckFailed(format!(
                "the checker does not prove its programs equal to {} yet",
                f.name
            )),
            e => e,
        })?;
    }
    Ok(())
}

/// The parameters of one algorithm's short search among `k`: an even part of
/// [`SHARE`] of the budget, with the job's bets split among the algorithms (at least
/// two each) in the first half of it.
pub(crate) fn bet_params(params: &local_search::Params, k: usize) -> local_search::Params {
    let evals = ((params.evals as f64 * SHARE) as u64 / k as u64).max(1);
    local_search::Params {
        evals,
        bets: (params.bets / k as u32).max(2),
        bet_ratio: 0.5,
        seed: params.seed,
    }
}

/// The algorithm bets: a short search of each of `runs` (at least two), their best
/// programs checked natively and measured side by side, and the fastest algorithm's
/// run, its budget extended to what the others left.
pub(crate) fn bets(
    s: &mut Searcher<'_, '_>,
    mut runs: Vec<Run>,
    progress: &mut dyn Progress,
    stop: &AtomicBool,
) -> Result<Run> {
    let job = s.job;
    let (f, opts) = (job.f, job.opts);
    let params = bet_params(&job.params, runs.len());
    for run in &mut runs {
        let deps = Generator::new(&run.g, opts)?.deps().clone();
        run.state = Some(SearchState::new(&run.g, &deps, params)?);
        run.walk_base = s.walks;
        s.search(run, progress, stop)?;
    }
    let mut finalists = Vec::with_capacity(runs.len());
    for run in &runs {
        let state = run.state.as_ref().expect("searched");
        let program = generate(&run.g, opts, state.winner())?;
        check_natively(f, &program, &opts, job.params.seed)?;
        finalists.push(program);
    }
    let refs: Vec<&cryptopt_x86::Program> = finalists.iter().collect();
    let (ticks, base) = side_by_side(f, &refs, s.baseline, s.counter, &s.cfg, job.params.seed)?;
    let best = (0..runs.len())
        .min_by(|&a, &b| ticks[a].total_cmp(&ticks[b]))
        .expect("runs");
    for (run, t) in runs.iter().zip(&ticks) {
        progress.note(&format!(
            "algorithm {}: {t:.1} {} ticks after {} evaluations ({:.3}x {}){}",
            run.algorithm,
            s.counter.name(),
            params.evals,
            base / t,
            job.cc,
            if std::ptr::eq(run, &runs[best]) {
                ", chosen"
            } else {
                ""
            }
        ));
    }
    let spent: u64 = runs
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != best)
        .map(|(_, r)| r.state.as_ref().map_or(0, |st| st.evals))
        .sum();
    let mut run = runs.swap_remove(best);
    let state = run.state.as_mut().expect("searched");
    // The winner's own bet counts towards its budget; the others' are spent.
    state.extend(job.params.evals.saturating_sub(spent));
    Ok(run)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every random candidate (any topological order, any decisions) of every algorithm
    /// of the Montgomery presets' mul and square generates a program: the generator
    /// must never lose a value (the search rejects such a mutant, as a bug).
    /// `CRYPTOPT_FUZZ_ROUNDS` sets the candidates per algorithm and shape (300).
    #[test]
    fn every_random_candidate_of_every_algorithm_generates() {
        use rand::SeedableRng;
        let rounds: usize = std::env::var("CRYPTOPT_FUZZ_ROUNDS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(300);
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(11);
        let opts = cryptopt_codegen::Options::default();
        for preset in ["p256", "secp256k1", "p384"] {
            let spec = cryptopt_gen::fields::preset(preset).expect("a preset");
            for op in [FieldOp::Mul, FieldOp::Square] {
                let f = cryptopt_gen::fields::generate(&spec, op).expect("generates");
                for v in cryptopt_gen::fields::variants(&f).expect("variants") {
                    for shape in [lower::Shape::Throughput, lower::Shape::Latency] {
                        let g = lower::lower_for(&v.function, shape).expect("lowers");
                        let mut gen = Generator::new(&g, opts).expect("a generator");
                        for round in 0..rounds {
                            let c = Candidate::random(&g, gen.deps(), &mut rng);
                            if let Err(e) = gen.generate(&c) {
                                let json = serde_json::to_string(&c).unwrap();
                                panic!(
                                    "{preset} {op:?} {} {shape:?} round {round}: {e}\n{json}",
                                    v.algorithm
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn the_bets_share_the_budget() {
        let params = local_search::Params {
            evals: 250_000,
            bets: 10,
            bet_ratio: 0.2,
            seed: 1,
        };
        let each = bet_params(&params, 3);
        assert_eq!(each.evals, 25_000);
        assert_eq!(each.bets, 3);
        each.check().expect("valid parameters");
        // A small budget still gives valid bets.
        let small = local_search::Params {
            evals: 2_000,
            ..params
        };
        bet_params(&small, 3).check().expect("valid parameters");
    }
}
