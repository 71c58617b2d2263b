//! The search loop on cost models (no timing): it never keeps a worse mutant, spends
//! exactly its budget, follows bet-and-run, is reproducible from its seed, and a saved
//! and resumed run ends where an uninterrupted one does. Mutations keep candidates valid.

use std::sync::atomic::AtomicBool;

use cryptopt_codegen::{Candidate, Deps, Generator, Hot, Options};
use cryptopt_frontend::fiat;
use cryptopt_ir::{lower, Function};
use cryptopt_search::local_search::Ranking;
use cryptopt_search::{local_search, mutate, Comparison, Evaluator, Params, Phase, SearchState};
use proptest::prelude::*;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

fn example() -> Function {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/running_example.json"
    ))
    .unwrap();
    lower::lower(&fiat::parse_function(&text, "example_running").unwrap()).unwrap()
}

/// Cost = number of x86 instructions the generator emits: a real, deterministic cost.
struct InstCount<'f> {
    gen: Generator<'f>,
    compares: u64,
    ranks: u64,
}

impl InstCount<'_> {
    fn cost(&mut self, c: &Candidate) -> f64 {
        self.gen.generate(c).unwrap().len() as f64
    }
}

impl Evaluator for InstCount<'_> {
    fn compare(
        &mut self,
        current: &Candidate,
        mutant: &Candidate,
    ) -> cryptopt_search::Result<Comparison> {
        self.compares += 1;
        let (current, mutant) = (self.cost(current), self.cost(mutant));
        Ok(Comparison {
            current,
            mutant,
            ratio: mutant / current,
            rounds: 1,
            decided: mutant != current,
            lengths: [current as usize, mutant as usize],
        })
    }
    fn rank(&mut self, cands: &[&Candidate]) -> cryptopt_search::Result<Ranking> {
        self.ranks += 1;
        Ok(Ranking {
            ratios: cands.iter().map(|c| self.cost(c) / 30.0).collect(),
            baseline: 30.0,
        })
    }
    fn hot(&mut self, c: &Candidate) -> cryptopt_search::Result<&[Hot]> {
        self.gen.generate(c).unwrap();
        Ok(self.gen.hot())
    }
}

fn params(evals: u64, bets: u32, seed: u64) -> Params {
    Params {
        evals,
        bets,
        bet_ratio: 0.2,
        seed,
    }
}

/// Runs a whole search; returns the final state and the events' (index, walk, kept, current, mutant).
/// (index, walk, kept, current, mutant) of every evaluation.
type Log = Vec<(u64, usize, bool, f64, f64)>;

fn search(f: &Function, p: Params) -> (SearchState, Log) {
    let mut ev = InstCount {
        gen: Generator::new(f, Options::default()).unwrap(),
        compares: 0,
        ranks: 0,
    };
    let deps = ev.gen.deps().clone();
    let mut st = SearchState::new(f, &deps, p).unwrap();
    let mut log = Vec::new();
    local_search::search(&mut st, &deps, &mut ev, &AtomicBool::new(false), &mut |e| {
        log.push((e.index, e.walk, e.kept, e.cmp.current, e.cmp.mutant))
    })
    .unwrap();
    assert_eq!(ev.compares, p.evals);
    (st, log)
}

#[test]
fn never_keeps_a_worse_mutant_and_spends_the_budget() {
    let f = example();
    let (st, log) = search(&f, params(400, 4, 1));
    assert_eq!(st.evals, 400);
    assert_eq!(log.len(), 400);
    assert_eq!(st.phase, Phase::Done);
    for &(_, _, kept, cur, mutant) in &log {
        assert_eq!(kept, mutant <= cur);
    }
    // Bets phase: 400 * 0.2 / 4 = 20 evaluations per walk, in order; then one walk.
    for (i, &(index, walk, ..)) in log.iter().enumerate() {
        assert_eq!(index, i as u64 + 1);
        if i < 80 {
            assert_eq!(walk, i / 20);
        } else {
            assert_eq!(walk, log[80].1);
        }
    }
    // The continuing walk was the best bet.
    let bets_end: Vec<f64> = (0..4)
        .map(|w| log[w * 20 + 19])
        .map(|e| if e.2 { e.4 } else { e.3 })
        .collect();
    let best = bets_end.iter().cloned().fold(f64::INFINITY, f64::min);
    assert_eq!(bets_end[log[80].1], best);
    // Costs of the walk never go up.
    let fin: Vec<f64> = log[80..]
        .iter()
        .map(|e| if e.2 { e.4 } else { e.3 })
        .collect();
    assert!(fin.windows(2).all(|w| w[1] <= w[0]));
    // A walk that never falls behind its best never goes back to it.
    assert!(st.walks.iter().all(|w| w.returns == 0));
}

#[test]
fn same_seed_same_search_and_resume_is_seamless() {
    let f = example();
    let (a, la) = search(&f, params(300, 3, 7));
    let (b, lb) = search(&f, params(300, 3, 7));
    assert_eq!(la, lb);
    assert_eq!(
        serde_json::to_string(&a).unwrap(),
        serde_json::to_string(&b).unwrap()
    );
    let (_, lc) = search(&f, params(300, 3, 8));
    assert_ne!(la, lc, "another seed should take another path");

    // Stop after 137 evaluations, save as JSON, load, resume.
    let mut ev = InstCount {
        gen: Generator::new(&f, Options::default()).unwrap(),
        compares: 0,
        ranks: 0,
    };
    let deps = ev.gen.deps().clone();
    let mut st = SearchState::new(&f, &deps, params(300, 3, 7)).unwrap();
    let stop = AtomicBool::new(false);
    let mut log = Vec::new();
    local_search::search(&mut st, &deps, &mut ev, &stop, &mut |e| {
        log.push((e.index, e.walk, e.kept, e.cmp.current, e.cmp.mutant));
        if e.index == 137 {
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    })
    .unwrap();
    assert_eq!(st.evals, 137);
    let saved = serde_json::to_string(&st).unwrap();
    let mut st: SearchState = serde_json::from_str(&saved).unwrap();
    st.check_fits(&f, &deps).unwrap();
    local_search::search(&mut st, &deps, &mut ev, &AtomicBool::new(false), &mut |e| {
        log.push((e.index, e.walk, e.kept, e.cmp.current, e.cmp.mutant))
    })
    .unwrap();
    assert_eq!(log, la);
    assert_eq!(
        serde_json::to_string(&st).unwrap(),
        serde_json::to_string(&a).unwrap()
    );
}

#[test]
fn bad_parameters_and_states_are_refused() {
    let f = example();
    let deps = Deps::new(&f, &Options::default());
    for (p, want_param, want) in [
        (params(0, 1, 0), "evals", "evals must be at least 1"),
        (params(10, 0, 0), "bets", "bets must be at least 1"),
        (
            Params {
                bet_ratio: 1.5,
                ..params(10, 2, 0)
            },
            "bet ratio",
            "bet ratio must be between 0 and 1 (exclusive), not 1.5",
        ),
        (
            params(5, 10, 0),
            "evals",
            "evals 5 is too small for 10 bets",
        ),
    ] {
        let e = SearchState::new(&f, &deps, p).unwrap_err();
        // The parameter, for the binary to name its flag; never a flag in the message.
        assert!(
            matches!(e, cryptopt_search::Error::Param { param, .. } if param == want_param),
            "{e:?}"
        );
        let e = e.to_string();
        assert!(e.starts_with(want), "{e}");
        assert!(!e.contains("--"), "{e}");
    }
    let mut st = SearchState::new(&f, &deps, params(10, 1, 0)).unwrap();
    st.function = "other".into();
    assert!(st
        .check_fits(&f, &deps)
        .unwrap_err()
        .to_string()
        .contains("is for `other`"));
    let mut st = SearchState::new(&f, &deps, params(10, 1, 0)).unwrap();
    st.walks[0].current.order.reverse();
    assert!(st
        .check_fits(&f, &deps)
        .unwrap_err()
        .to_string()
        .contains("does not fit"));
}

proptest! {
    /// Law: mutations keep candidates valid (topological, right length).
    #[test]
    fn mutations_keep_candidates_valid(seed in any::<u64>(), steps in 1usize..200) {
        let f = example();
        let mut gen = Generator::new(&f, Options::default()).unwrap();
        let deps = gen.deps().clone();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut c = Candidate::random(&f, &deps, &mut rng);
        let mut pos = Vec::new();
        for _ in 0..steps {
            gen.generate(&c).unwrap();
            let hot = gen.hot().to_vec();
            let before = c.clone();
            let m = if rand::Rng::random_bool(&mut rng, 0.5) {
                mutate::flip_decision(&mut c, &hot, &mut rng)
            } else {
                mutate::permute(&mut c, &deps, &mut pos, &mut rng)
            };
            prop_assert!(deps.is_topological(&c.order));
            prop_assert_eq!(c.decisions.len(), f.insts.len());
            if m.is_some() {
                prop_assert_ne!(&before, &c, "a mutation must change the candidate");
            }
        }
    }
}

/// Keeps every mutant (a walk that drifts, as a noisy one does), but ranks by the true
/// cost: the winner must be the best of what the side-by-side rankings saw.
struct Drifting<'f>(InstCount<'f>);

impl Evaluator for Drifting<'_> {
    fn compare(&mut self, c: &Candidate, m: &Candidate) -> cryptopt_search::Result<Comparison> {
        let mut cmp = self.0.compare(c, m)?;
        cmp.ratio = 0.99;
        Ok(cmp)
    }
    fn rank(&mut self, cands: &[&Candidate]) -> cryptopt_search::Result<Ranking> {
        self.0.rank(cands)
    }
    fn hot(&mut self, c: &Candidate) -> cryptopt_search::Result<&[Hot]> {
        self.0.hot(c)
    }
}

fn drifting(f: &Function) -> Drifting<'_> {
    Drifting(InstCount {
        gen: Generator::new(f, Options::default()).unwrap(),
        compares: 0,
        ranks: 0,
    })
}

#[test]
fn the_winner_is_chosen_side_by_side_among_the_elite_and_the_first_order() {
    let f = example();
    let mut ev = drifting(&f);
    let deps = ev.0.gen.deps().clone();
    let mut st = SearchState::new(&f, &deps, params(2000, 2, 3)).unwrap();
    let mut final_walk = None;
    local_search::search(&mut st, &deps, &mut ev, &AtomicBool::new(false), &mut |e| {
        if let Phase::Final { walk } = e.phase {
            final_walk = Some(walk);
        }
    })
    .unwrap();
    let final_walk = final_walk.expect("a final phase");
    assert_eq!(st.phase, Phase::Done);
    // Ranked: after each walk's first step and every RANK_EVERY steps, at the end of the
    // bets, and once more at the end.
    assert!(
        ev.0.ranks >= 2000 / local_search::RANK_EVERY,
        "{}",
        ev.0.ranks
    );
    assert!(!st.elite.is_empty() && st.elite.len() <= local_search::ELITE);
    assert!(st.elite.windows(2).all(|w| w[0].ratio <= w[1].ratio));
    let winner = ev.0.cost(st.winner.as_ref().expect("a winner once done"));
    let current = ev.0.cost(&st.walks[final_walk].current.clone());
    let best_elite = st
        .elite
        .iter()
        .map(|s| s.candidate.clone())
        .map(|c| ev.0.cost(&c))
        .fold(f64::INFINITY, f64::min);
    // The first order is ranked with them: a search never ends behind its start (this
    // drifting walk keeps every mutant, so it may well have).
    let first = ev.0.cost(&Candidate::first(&deps));
    assert_eq!(winner, current.min(best_elite).min(first));
    assert!(winner <= first);
    assert_eq!(st.winner(), st.winner.as_ref().unwrap());
    // The drifting walk fell behind the elite's best and was sent back to it.
    assert!(st.walks[final_walk].returns > 0);
}

/// The ratchet of the final walk: after RETURN_AFTER rankings in a row more than
/// RETURN_MARGIN behind the elite's best, the walk's current is that best, exactly.
/// Stepped one evaluation at a time (the stop flag after each event, then resumed).
#[test]
fn a_walk_behind_its_best_returns_to_it() {
    let f = example();
    let mut ev = drifting(&f);
    let deps = ev.0.gen.deps().clone();
    let mut st = SearchState::new(&f, &deps, params(3000, 2, 5)).unwrap();
    let mut returns = 0;
    while st.phase != Phase::Done {
        let stop = AtomicBool::new(false);
        local_search::search(&mut st, &deps, &mut ev, &stop, &mut |_| {
            stop.store(true, std::sync::atomic::Ordering::Relaxed)
        })
        .unwrap();
        let Phase::Final { walk } = st.phase else {
            continue;
        };
        let w = &st.walks[walk];
        if w.returns > returns {
            returns = w.returns;
            assert_eq!(w.current, st.elite[0].candidate, "return {returns}");
            assert_eq!(w.behind, 0);
        }
        assert!(w.behind < local_search::RETURN_AFTER);
    }
    assert!(returns > 0);
}

#[test]
fn acceptance_rule() {
    // (ratio mutant/current, rounds, decided, [current, mutant] lengths, kept?)
    #[track_caller]
    fn check(ratio: f64, rounds: usize, decided: bool, lengths: [usize; 2], want: bool) {
        let c = Comparison {
            current: 100.0,
            mutant: 100.0 * ratio,
            ratio,
            rounds,
            decided,
            lengths,
        };
        assert_eq!(c.keeps(), want, "{c:?}");
    }
    // The same code: nothing measured, kept (a free move on the plateau).
    check(1.0, 0, false, [50, 50], true);
    // Decided by the sign test: the ratio alone says.
    check(0.97, 5, true, [50, 60], true);
    check(1.03, 5, true, [50, 40], false);
    check(1.0, 31, true, [50, 40], false);
    // Undecided: not slower and not longer.
    check(0.99, 31, false, [50, 50], true);
    check(1.0, 31, false, [50, 49], true);
    check(0.99, 31, false, [50, 51], false);
    check(1.01, 31, false, [50, 40], false);
    // A mutant the generator could not make is never kept, even at equal length.
    assert!(!Comparison::not_generated([50, 50]).keeps());
}
