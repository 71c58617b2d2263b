//! The checker proves what cryptopt's code generator makes (issue 5, item 7): for each of
//! the 22 mul/square functions of ../shared/fiat-json, 20 random candidates under every
//! one of the 18 option combinations, generated from the lowered function and checked
//! against the ORIGINAL Fiat-dialect function, with the aliasing the options' memory
//! constraints promise. Every program must be proved equivalent. A second test does the
//! same, with fewer candidates, for every other function code generation supports.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use cryptopt_codegen::{Candidate, Generator, Options};
use cryptopt_ir::{lower, Function};
use cryptopt_verify::{check, Verdict};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// Checks `per_options` random candidates of `f` under each option combination; returns
/// the number proved and a description of every program that was not.
fn prove(f: &Function, per_options: usize, seed: u64) -> (usize, Vec<String>) {
    let g = match lower::lower(f) {
        Ok(g) => g,
        Err(e) => return (0, vec![format!("{}: lowering: {e}", f.name)]),
    };
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let (mut proved, mut failures) = (0, Vec::new());
    for opts in Options::all() {
        let mut gen = Generator::new(&g, opts).expect("generator");
        for _ in 0..per_options {
            let c = Candidate::random(&g, gen.deps(), &mut rng);
            gen.generate(&c).expect("generates");
            let p = gen.program();
            match check(f, &p, common::check_options(&opts)) {
                Ok(Verdict::Equivalent) => proved += 1,
                Ok(Verdict::NotEquivalent(r)) => {
                    failures.push(format!("{opts:?}: {r}\n{}", cryptopt_x86::print::nasm(&p)))
                }
                Err(e) => failures.push(format!("{opts:?}: error: {e}")),
            }
        }
    }
    (proved, failures)
}

/// Runs `prove` over `fs` on every available core; returns (functions, proved, failures).
fn prove_all(fs: &[Function], per_options: usize) -> (usize, usize, Vec<String>) {
    let next = AtomicUsize::new(0);
    let proved = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(f) = fs.get(i) else { break };
                let (p, fails) = prove(f, per_options, 1000 + i as u64);
                proved.fetch_add(p, Ordering::Relaxed);
                if let Some(first) = fails.first() {
                    failures.lock().expect("lock").push(format!(
                        "{}: {} of {} not proved; first:\n{first}",
                        f.name,
                        fails.len(),
                        fails.len() + p
                    ));
                }
            });
        }
    });
    (
        fs.len(),
        proved.into_inner(),
        failures.into_inner().expect("lock"),
    )
}

const PER_OPTIONS: usize = 20;

#[test]
fn every_generated_mul_and_square_is_proved() {
    let Some(mut fs) = common::functions(&["_mul", "_square"]) else {
        eprintln!(
            "SKIPPED every_generated_mul_and_square_is_proved: CRYPTOPT_FIAT_JSON is not set"
        );
        return;
    };
    // Largest first, for an even split over the threads.
    fs.sort_by_key(|f| std::cmp::Reverse(f.insts.len()));
    let t = std::time::Instant::now();
    let (n, proved, failures) = prove_all(&fs, PER_OPTIONS);
    eprintln!(
        "mul/square: {n} functions, {proved} generated programs proved equivalent \
         ({PER_OPTIONS} per option combination × {} combinations) in {:.1?}",
        Options::all().len(),
        t.elapsed()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert_eq!(n, 22);
    assert_eq!(proved, 22 * PER_OPTIONS * Options::all().len());
}

/// Every other function code generation supports (add, sub, opp, carry, to/from bytes,
/// Montgomery conversions, selectznz, the helper functions ...): 2 candidates per option
/// combination each.
#[test]
fn every_other_generated_function_is_proved() {
    let Some(all) = common::functions(&[""]) else {
        eprintln!(
            "SKIPPED every_other_generated_function_is_proved: CRYPTOPT_FIAT_JSON is not set"
        );
        return;
    };
    let fs: Vec<Function> = all
        .into_iter()
        .filter(|f| !f.name.ends_with("_mul") && !f.name.ends_with("_square"))
        .collect();
    let (n, proved, failures) = prove_all(&fs, 2);
    eprintln!("other functions: {n} functions, {proved} generated programs proved equivalent");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(n >= 120, "only {n} functions");
    assert_eq!(proved, n * 2 * Options::all().len());
}

/// The structured orders with every decision byte set to one value: the uniform `adcx`
/// or `adox` chains (byte 1, 2) start where the flag is known to be 0 without clearing
/// it (after `clc`/`test`, a logic instruction, or a sum that provably fits), which the
/// checker must prove from its ranges alone. 3 orders × 4 bytes per mul/square.
#[test]
fn every_structured_candidate_is_proved() {
    let Some(fs) = common::functions(&["_mul", "_square"]) else {
        eprintln!("SKIPPED every_structured_candidate_is_proved: CRYPTOPT_FIAT_JSON is not set");
        return;
    };
    let mut failures = Vec::new();
    for f in &fs {
        let g = lower::lower(f).expect("lowers");
        let opts = Options::default();
        let mut gen = Generator::new(&g, opts).expect("generator");
        let orders = [
            Candidate::first(gen.deps()),
            Candidate::depth_first(&g, gen.deps()),
            Candidate::demand_driven(&g, gen.deps()),
            Candidate::low_pressure(&g, gen.deps()),
            Candidate::deepest_first(&g, gen.deps()),
        ];
        for (o, base) in orders.iter().enumerate() {
            for byte in 0..4u8 {
                let mut c = base.clone();
                c.decisions.iter_mut().for_each(|d| d.fill(byte));
                gen.generate(&c).expect("generates");
                match check(f, &gen.program(), common::check_options(&opts)) {
                    Ok(Verdict::Equivalent) => {}
                    Ok(Verdict::NotEquivalent(r)) => {
                        failures.push(format!("{} order {o} byte {byte}: {r}", f.name))
                    }
                    Err(e) => failures.push(format!("{} order {o} byte {byte}: {e}", f.name)),
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert_eq!(fs.len(), 22);
}

/// The whole formulas (`gen --formula`: the X25519 ladder step in both curve25519
/// representations, the P-256 and secp256k1 point formulas), one candidate per option combination each, proved like any function;
/// the largest program (P-256 addition, about 2,900 instructions) is the checker's
/// scale case. Its time is printed, never asserted (shared machines are noisy).
#[test]
fn every_whole_formula_is_proved() {
    use cryptopt_gen::fields;
    use cryptopt_gen::formulas::{self, Formula};
    let mut largest = (0, String::new(), std::time::Duration::ZERO);
    let saturated = fields::FieldOptions {
        repr: fields::ReprChoice::Saturated,
        ..Default::default()
    };
    let mut cases: Vec<(Formula, fields::FieldSpec)> = Formula::ALL
        .into_iter()
        .map(|f| (f, fields::preset(f.fields()[0]).expect("a preset")))
        .collect();
    cases.push((
        Formula::X25519Ladderstep,
        fields::resolve("curve25519", &saturated).expect("saturated 25519"),
    ));
    for (formula, spec) in cases {
        let (f, _) = formulas::generate(formula, &spec).expect("generates");
        let g = lower::lower(&f).expect("lowers");
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(13);
        for opts in Options::all() {
            let mut gen = Generator::new(&g, opts).expect("generator");
            let c = Candidate::random(&g, gen.deps(), &mut rng);
            gen.generate(&c).expect("generates");
            let p = gen.program();
            let t = std::time::Instant::now();
            let verdict = check(&f, &p, common::check_options(&opts));
            let took = t.elapsed();
            assert!(
                matches!(verdict, Ok(Verdict::Equivalent)),
                "{formula} under {opts:?}: {verdict:?}"
            );
            if p.insts.len() > largest.0 {
                largest = (p.insts.len(), f.name.clone(), took);
            }
        }
    }
    eprintln!(
        "largest formula program: {} with {} instructions, proved in {:.1?}",
        largest.1, largest.0, largest.2
    );
    assert!(
        largest.0 >= 2500,
        "the scale case has {} instructions",
        largest.0
    );
}
