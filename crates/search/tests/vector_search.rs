//! The vector search on cost models (no timing), through the same loop as the scalar
//! search: it never keeps a worse mutant nor returns something worse than its start,
//! spends exactly its budget and ranks on its cadence, reaches the optimum of a small
//! cost model, is reproducible from its seed, stops when told, passes an evaluator's
//! error on, and takes the path the loop it replaced took (the mutations and the
//! evaluator drawing from one generator in the same order). Natively (AVX-512 IFMA
//! only), a short real search runs checked against the interpreter.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use cryptopt_codegen::vector as codegen;
use cryptopt_ir::vector::{Builder, VFunction};
use cryptopt_ir::{Param, Ty};
use cryptopt_search::local_search::Ranking;
use cryptopt_search::vector::{self, Found, Params, Step, VectorSpace};
use cryptopt_search::vector_native::SharedRng;
use cryptopt_search::{Comparison, Error, Evaluator};
use cryptopt_x86::Abi;

/// Eight loads, sixteen products live at once (more than the sixteen registers: orders
/// differ in their spills), their sum and a permutation of it stored.
fn function() -> VFunction {
    let mut b = Builder::new(
        "t",
        vec![Param::array("arg1", Ty::U64, &[1 << 50; 32])],
        vec![Param::array("out1", Ty::U64, &[u64::MAX as u128; 8])],
    );
    let xs: Vec<_> = (0..8).map(|k| b.load(0, 4 * k).unwrap()).collect();
    let z = b.splat_const(0);
    let mut terms = Vec::new();
    for k in 0..8 {
        terms.push(b.madd52(z, xs[k], xs[(k + 3) % 8], false).unwrap());
        terms.push(b.madd52(z, xs[k], xs[(k + 5) % 8], true).unwrap());
    }
    let mut s = terms[0];
    for &t in &terms[1..] {
        s = b.add(s, t).unwrap();
    }
    let p = b.permute(s, [1, 0, 3, 2]).unwrap();
    b.store(0, 0, s).unwrap();
    b.store(0, 4, p).unwrap();
    b.finish().unwrap()
}

fn users(v: &VFunction) -> Vec<Vec<usize>> {
    let mut users = vec![Vec::new(); v.insts.len()];
    for (i, inst) in v.insts.iter().enumerate() {
        for a in &inst.args {
            users[a.index()].push(i);
        }
    }
    users
}

/// A cost model: `cost` of the order, compared exactly (decided whenever the costs
/// differ); the baseline costs 30.
struct Model<F> {
    cost: F,
    compares: u64,
    ranks: u64,
}

fn model<F: FnMut(&[u32]) -> f64>(cost: F) -> Model<F> {
    Model {
        cost,
        compares: 0,
        ranks: 0,
    }
}

fn exact(current: f64, mutant: f64) -> Comparison {
    Comparison {
        current,
        mutant,
        ratio: mutant / current,
        rounds: 1,
        decided: mutant != current,
        lengths: [current as usize, mutant as usize],
    }
}

impl<F: FnMut(&[u32]) -> f64> Evaluator<Vec<u32>> for Model<F> {
    fn compare(&mut self, c: &Vec<u32>, m: &Vec<u32>) -> cryptopt_search::Result<Comparison> {
        self.compares += 1;
        Ok(exact((self.cost)(c), (self.cost)(m)))
    }
    fn rank(&mut self, orders: &[&Vec<u32>]) -> cryptopt_search::Result<Ranking> {
        self.ranks += 1;
        Ok(Ranking {
            ratios: orders.iter().map(|o| (self.cost)(o) / 30.0).collect(),
            baseline: 30.0,
        })
    }
    fn hot(&mut self, _: &Vec<u32>) -> cryptopt_search::Result<&[()]> {
        Ok(&[])
    }
}

/// Instructions of the order's program: a real, deterministic cost (spills count).
fn emitted(v: &VFunction) -> impl FnMut(&[u32]) -> f64 + '_ {
    |o| codegen::emit(v, o, Abi::SysV).unwrap().insts.len() as f64
}

/// 1 + the pairs of instructions in the other order than in `target`.
fn inversions(target: &[u32]) -> impl FnMut(&[u32]) -> f64 + '_ {
    let mut at = vec![0usize; target.len()];
    for (p, &i) in target.iter().enumerate() {
        at[i as usize] = p;
    }
    move |o| {
        let mut n = 0;
        for a in 0..o.len() {
            for b in a + 1..o.len() {
                n += (at[o[a] as usize] > at[o[b] as usize]) as u32;
            }
        }
        1.0 + n as f64
    }
}

fn params(evals: u64, seed: u64, rank_every: u64) -> Params {
    Params {
        evals,
        seed,
        rank_every,
    }
}

/// Runs a search with evaluator `ev` from the program order; returns what it found and
/// every step.
fn run<E: Evaluator<Vec<u32>>>(
    v: &VFunction,
    ev: &mut E,
    p: Params,
    stop_at: Option<u64>,
) -> cryptopt_search::Result<(Found, Vec<Step>)> {
    let stop = AtomicBool::new(false);
    let mut steps = Vec::new();
    let found = vector::search_with(
        v,
        &VectorSpace::new(v),
        vector::program_order(v),
        ev,
        &mut vector::walk_rng(p.seed),
        p,
        &stop,
        &mut |s| {
            steps.push(*s);
            if Some(s.index) == stop_at {
                stop.store(true, Ordering::Relaxed);
            }
        },
    )?;
    Ok((found, steps))
}

#[test]
fn never_worse_than_its_start_and_spends_the_budget() {
    let v = function();
    let mut ev = model(emitted(&v));
    let (found, steps) = run(&v, &mut ev, params(400, 1, 50), None).unwrap();
    assert_eq!((found.evals, ev.compares, steps.len()), (400, 400, 400));
    let mut cost = emitted(&v);
    let start = cost(&vector::program_order(&v));
    let mut current = start;
    for (k, s) in steps.iter().enumerate() {
        assert_eq!(s.index, k as u64 + 1);
        assert_eq!(s.cmp.current, current, "step {}", s.index);
        // Kept exactly when not worse; the current's cost never goes up.
        assert_eq!(s.kept, s.cmp.mutant <= s.cmp.current, "{s:?}");
        if s.kept {
            current = s.cmp.mutant;
        }
        // Ranked every 50 steps, for progress, with the current program.
        assert_eq!(s.speedup.is_some(), s.index % 50 == 0, "{s:?}");
        if let (Some(x), Some(b)) = (s.speedup, s.baseline) {
            assert_eq!((x, b), (30.0 / current, 30.0));
        }
    }
    assert_eq!(ev.ranks, 8);
    codegen::check_order(&v, &found.order).unwrap();
    assert_eq!(cost(&found.order), current);
    assert!(current <= start);
    assert!(current < start, "400 steps should find fewer spills");
    assert_eq!(
        found.program,
        codegen::emit(&v, &found.order, Abi::SysV).unwrap()
    );
}

#[test]
fn reaches_the_optimum_of_a_small_cost_model() {
    let v = function();
    // A target order far from the program order, reachable by the mutation.
    let users = users(&v);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(99);
    let mut target = vector::program_order(&v);
    for _ in 0..2000 {
        target = vector::mutate(&v, &users, &target, &mut rng);
    }
    let mut cost = inversions(&target);
    assert!(cost(&vector::program_order(&v)) > 50.0);
    let mut ev = model(inversions(&target));
    let (found, _) = run(&v, &mut ev, params(20_000, 3, 0), None).unwrap();
    assert_eq!(found.order, target);
    assert_eq!(ev.ranks, 0, "rank_every 0 never ranks");
}

#[test]
fn same_seed_same_search_and_stops_when_told() {
    let v = function();
    let log = |seed: u64, stop_at: Option<u64>| {
        let mut ev = model(emitted(&v));
        let (found, steps) = run(&v, &mut ev, params(300, seed, 100), stop_at).unwrap();
        let steps: Vec<(u64, bool, f64, f64)> = steps
            .iter()
            .map(|s| (s.index, s.kept, s.cmp.current, s.cmp.mutant))
            .collect();
        (found.order, found.evals, steps, ev.compares)
    };
    let a = log(7, None);
    assert_eq!(a, log(7, None));
    assert_ne!(a.2, log(8, None).2, "another seed should take another path");
    // Stopped in the 37th step's report: 37 steps, the same first 37.
    let (_, evals, steps, compares) = log(7, Some(37));
    assert_eq!((evals, compares, steps.len()), (37, 37, 37));
    assert_eq!(steps[..], a.2[..37]);
    // Stopped before it starts: the start comes back.
    let stop = AtomicBool::new(true);
    let mut ev = model(emitted(&v));
    let found = vector::search_with(
        &v,
        &VectorSpace::new(&v),
        vector::program_order(&v),
        &mut ev,
        &mut vector::walk_rng(7),
        params(300, 7, 100),
        &stop,
        &mut |_| panic!("no step"),
    )
    .unwrap();
    assert_eq!((found.order, found.evals), (vector::program_order(&v), 0));
}

#[test]
fn an_evaluators_error_stops_the_search() {
    struct Failing(u64);
    impl Evaluator<Vec<u32>> for Failing {
        fn compare(&mut self, _: &Vec<u32>, m: &Vec<u32>) -> cryptopt_search::Result<Comparison> {
            self.0 += 1;
            if self.0 == 10 {
                return Err(Error::VectorMismatch {
                    message: "differs".into(),
                    order: m.clone(),
                });
            }
            Ok(exact(1.0, 1.0))
        }
        fn rank(&mut self, _: &[&Vec<u32>]) -> cryptopt_search::Result<Ranking> {
            unreachable!("rank_every is 0")
        }
        fn hot(&mut self, _: &Vec<u32>) -> cryptopt_search::Result<&[()]> {
            Ok(&[])
        }
    }
    let v = function();
    let mut ev = Failing(0);
    match run(&v, &mut ev, params(100, 1, 0), None) {
        Err(Error::VectorMismatch { order, .. }) => codegen::check_order(&v, &order).unwrap(),
        other => panic!("{:?}", other.map(|(f, _)| f.evals)),
    }
    assert_eq!(ev.0, 10);
}

/// Draws from the walk's generator like the native evaluator does (its inputs), and
/// lets what it drew decide ties: the path depends on the interleaving of the draws.
struct Drawing<'a, F> {
    rng: SharedRng<'a>,
    cost: F,
}

impl<F: FnMut(&[u32]) -> f64> Evaluator<Vec<u32>> for Drawing<'_, F> {
    fn compare(&mut self, c: &Vec<u32>, m: &Vec<u32>) -> cryptopt_search::Result<Comparison> {
        let (c, m) = ((self.cost)(c), (self.cost)(m));
        Ok(noisy(c, m, &mut self.rng))
    }
    fn rank(&mut self, orders: &[&Vec<u32>]) -> cryptopt_search::Result<Ranking> {
        let r: f64 = self.rng.random();
        Ok(Ranking {
            ratios: orders.iter().map(|o| (self.cost)(o) / 30.0 + r).collect(),
            baseline: 30.0,
        })
    }
    fn hot(&mut self, _: &Vec<u32>) -> cryptopt_search::Result<&[()]> {
        Ok(&[])
    }
}

/// Three draws; an undecided comparison a third of the time, which keeps a mutant
/// that is at most one instruction worse.
fn noisy(c: f64, m: f64, rng: &mut impl Rng) -> Comparison {
    let draws: [u64; 3] = [rng.random(), rng.random(), rng.random()];
    let mut cmp = exact(c, m);
    if draws[2].is_multiple_of(3) && m <= c + 1.0 {
        cmp.decided = false;
        cmp.ratio = 1.0;
        cmp.lengths = [1, 1];
    }
    cmp
}

/// (index, kept, speed-up) of every step.
type StepLog = Vec<(u64, bool, Option<f64>)>;

/// The loop the vector search had before it went through the generic one, written out:
/// one generator for the mutations and the evaluator's draws.
fn old_loop(v: &VFunction, p: Params) -> (Vec<u32>, StepLog) {
    let users = users(v);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(p.seed ^ 0x7665_6374_6f72);
    let mut cost = emitted(v);
    let mut cur = vector::program_order(v);
    let mut log = Vec::new();
    for evals in 1..=p.evals {
        let order = vector::mutate(v, &users, &cur, &mut rng);
        let cmp = noisy(cost(&cur), cost(&order), &mut rng);
        let kept = cmp.keeps();
        if kept {
            cur = order;
        }
        let speedup = if p.rank_every > 0 && evals % p.rank_every == 0 {
            let r: f64 = rng.random();
            Some(1.0 / (cost(&cur) / 30.0 + r))
        } else {
            None
        };
        log.push((evals, kept, speedup));
    }
    (cur, log)
}

#[test]
fn takes_the_path_of_the_loop_it_replaced() {
    let v = function();
    for seed in [1, 2, 3] {
        let p = params(500, seed, 25);
        let shared = RefCell::new(vector::walk_rng(seed));
        let mut ev = Drawing {
            rng: SharedRng::new(&shared),
            cost: emitted(&v),
        };
        let mut log = Vec::new();
        let found = vector::search_with(
            &v,
            &VectorSpace::new(&v),
            vector::program_order(&v),
            &mut ev,
            &mut SharedRng::new(&shared),
            p,
            &AtomicBool::new(false),
            &mut |s| log.push((s.index, s.kept, s.speedup)),
        )
        .unwrap();
        let (order, want) = old_loop(&v, p);
        assert_eq!(log, want, "seed {seed}");
        assert_eq!(found.order, order, "seed {seed}");
    }
}

/// A short native search (AVX-512 IFMA only): the baseline is the program order's own
/// program; every step's programs are checked against the interpreter.
#[test]
fn native_search_runs_checked() {
    if !cryptopt_x86::Feature::Avx512Ifma.detected() {
        eprintln!("SKIPPED native_search_runs_checked: this CPU has no AVX-512 IFMA/VL/DQ");
        return;
    }
    let v = function();
    let f = v.expand();
    let start = codegen::emit(&v, &vector::program_order(&v), Abi::SysV).unwrap();
    let baseline = cryptopt_measure::ExecMem::from_program(&start).unwrap();
    let (counter, _) = cryptopt_measure::counter::detect();
    let cfg = cryptopt_measure::timing::Config {
        cyclegoal: 2_000,
        batches: 7,
        ..Default::default()
    };
    let mut steps = Vec::new();
    let found = vector::search(
        &v,
        &f,
        vector::program_order(&v),
        baseline.ptr(),
        &counter,
        cfg,
        params(40, 1, 10),
        &AtomicBool::new(false),
        &mut |s| steps.push(*s),
    )
    .unwrap();
    assert_eq!((found.evals, steps.len()), (40, 40));
    codegen::check_order(&v, &found.order).unwrap();
    assert_eq!(
        found.program,
        codegen::emit(&v, &found.order, Abi::SysV).unwrap()
    );
    for s in &steps {
        assert_eq!(s.speedup.is_some(), s.index % 10 == 0, "{s:?}");
        if let Some(x) = s.speedup {
            assert!(x.is_finite() && x > 0.0, "{s:?}");
        }
    }
}
