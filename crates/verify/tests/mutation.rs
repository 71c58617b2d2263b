//! Mutation testing of the checker (issue 5, item 7): generated programs get random
//! single-instruction faults — another register, another offset, an opcode swapped for a
//! sibling, an instruction dropped or duplicated, two nearby instructions swapped. Every
//! fault the checker proves equivalent is then RUN natively (measure crate's runner,
//! under every aliasing the options allow) on edge-case and random inputs against the
//! interpreter: a mismatch or an ABI violation there is a FALSE "equivalent", and fails
//! the test. A rejected fault is run only on the counterexample the report gives, and
//! only when the report finds nothing but differing outputs (it keeps the ABI and its
//! memory) and the counterexample rests on the arguments alone (not on an entry
//! register's value, which a native run does not choose): it must be wrong there
//! natively too.

mod common;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use common::Ground;
use cryptopt_codegen::{Candidate, Generator, Options};
use cryptopt_ir::{interp, lower, Function};
use cryptopt_measure::diff::Runner;
use cryptopt_verify::{check, CheckOptions, Verdict};
use cryptopt_x86::{Inst, Mnemonic as M, Operand as X, Program, Reg};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Register,
    Offset,
    Opcode,
    Drop,
    Duplicate,
    Swap,
}

const KINDS: [Kind; 6] = [
    Kind::Register,
    Kind::Offset,
    Kind::Opcode,
    Kind::Drop,
    Kind::Duplicate,
    Kind::Swap,
];

/// Sibling mnemonics a fault may swap (same operand shapes).
const SIBLINGS: &[(M, M)] = &[
    (M::Adcx, M::Adox),
    (M::Adc, M::Add),
    (M::Adc, M::Adcx),
    (M::Sub, M::Sbb),
    (M::Cmovc, M::Cmovnc),
    (M::Cmovo, M::Cmovno),
    (M::Cmovz, M::Cmovnz),
    (M::Cmovc, M::Cmovo),
    (M::Setc, M::Seto),
    (M::Shl, M::Shr),
    (M::Shr, M::Sar),
    (M::Shlx, M::Shrx),
    (M::And, M::Or),
    (M::Or, M::Xor),
    (M::Clc, M::Stc),
    (M::Inc, M::Dec),
    (M::Shld, M::Shrd),
    (M::Mov, M::Movzx),
    (M::Movzx, M::Movsx),
    (M::Vpaddq, M::Vpsubq),
    (M::Vpand, M::Vpor),
    (M::Vpor, M::Vpxor),
    (M::Vpinsrq, M::Vinserti128),
    (M::Paddq, M::Psubq),
    (M::Pand, M::Por),
    (M::Por, M::Pxor),
    (M::Movdqu, M::Punpcklqdq),
];

fn sibling(mn: M, rng: &mut impl Rng) -> Option<M> {
    let options: Vec<M> = SIBLINGS
        .iter()
        .filter_map(|&(a, b)| {
            if a == mn {
                Some(b)
            } else if b == mn {
                Some(a)
            } else {
                None
            }
        })
        .collect();
    (!options.is_empty()).then(|| options[rng.random_range(0..options.len())])
}

/// One random fault of the given kind, if the program has a place for it.
fn mutate(p: &Program, kind: Kind, rng: &mut impl Rng) -> Option<(Program, String)> {
    let mut q = p.clone();
    let n = q.insts.len();
    let pick = |rng: &mut _, pred: &dyn Fn(&Inst) -> bool| -> Option<usize> {
        let idx: Vec<usize> = (0..n).filter(|&i| pred(&p.insts[i])).collect();
        (!idx.is_empty()).then(|| idx[Rng::random_range(rng, 0..idx.len())])
    };
    let what = match kind {
        Kind::Register => {
            let i = pick(rng, &|x| {
                x.operands()
                    .iter()
                    .any(|o| matches!(o, X::Reg(..) | X::Vec(..) | X::Mem(_)))
            })?;
            let ops = q.insts[i].operands_mut();
            let k = (0..ops.len())
                .filter(|&k| matches!(ops[k], X::Reg(..) | X::Vec(..) | X::Mem(_)))
                .nth(rng.random_range(0..ops.len()) % ops.len())
                .or_else(|| {
                    (0..ops.len()).find(|&k| matches!(ops[k], X::Reg(..) | X::Vec(..) | X::Mem(_)))
                })?;
            let new = Reg::ALL[rng.random_range(0..16)];
            match &mut ops[k] {
                X::Reg(r, _) => *r = new,
                X::Mem(m) => match (m.base, m.index) {
                    (Some(_), Some(_)) if rng.random() => m.index = Some(new),
                    (Some(_), _) => m.base = Some(new),
                    (None, Some(_)) => m.index = Some(new),
                    _ => return None,
                },
                X::Vec(v, _) => *v = cryptopt_x86::VReg(rng.random_range(0..16)),
                X::Imm(_) => return None,
            }
            format!("{i}: `{}` -> `{}`", p.insts[i], q.insts[i])
        }
        Kind::Offset => {
            let i = pick(rng, &|x| {
                x.operands().iter().any(|o| matches!(o, X::Mem(_)))
            })?;
            let d = [-16, -8, -4, -1, 1, 4, 8, 16][rng.random_range(0..8)];
            for o in q.insts[i].operands_mut() {
                if let X::Mem(m) = o {
                    m.disp += d;
                }
            }
            format!("{i}: `{}` -> `{}`", p.insts[i], q.insts[i])
        }
        Kind::Opcode => {
            let i = pick(rng, &|x| {
                SIBLINGS.iter().any(|&(a, b)| a == x.mn || b == x.mn)
            })?;
            let mn = sibling(q.insts[i].mn, rng)?;
            q.insts[i] = Inst::new(mn, p.insts[i].operands());
            format!("{i}: `{}` -> `{}`", p.insts[i], q.insts[i])
        }
        Kind::Drop => {
            let i = rng.random_range(0..n);
            q.insts.remove(i);
            format!("{i}: drop `{}`", p.insts[i])
        }
        Kind::Duplicate => {
            let i = rng.random_range(0..n);
            q.insts.insert(i, p.insts[i]);
            format!("{i}: duplicate `{}`", p.insts[i])
        }
        Kind::Swap => {
            let i = rng.random_range(0..n - 1);
            let j = (i + 1 + rng.random_range(0..3)).min(n - 1);
            q.insts.swap(i, j);
            format!("swap {i} `{}` and {j} `{}`", p.insts[i], p.insts[j])
        }
    };
    if q == *p
        || q.insts
            .iter()
            .any(|x| cryptopt_x86::encode::check(x).is_err())
    {
        return None;
    }
    Some((q, what))
}

#[derive(Default)]
struct Tally {
    tried: usize,
    proved: usize,
    rejected_not_equivalent: usize,
    rejected_error: usize,
    native_runs: usize,
    /// Rejections with a counterexample, and how many of those were run natively.
    counterexamples: usize,
    counterexamples_run: usize,
    /// Rejections that show nothing wrong (no counterexample, no unsafe access): "not
    /// proved".
    not_proved: usize,
    by_kind: BTreeMap<String, [usize; 3]>,
    false_equivalent: Vec<String>,
    /// Counterexamples on which the fault is right natively (a checker bug).
    false_counterexample: Vec<String>,
}

impl Tally {
    /// Prints the counts, then fails on any false "equivalent".
    fn report(&self, what: &str) {
        eprintln!(
            "mutation of {what}: {} faults tried: {} proved equivalent (harmless; each run \
             natively, {} runs), {} rejected as not equivalent, {} rejected with an error",
            self.tried,
            self.proved,
            self.native_runs,
            self.rejected_not_equivalent,
            self.rejected_error
        );
        eprintln!(
            "  {} rejections came with a counterexample ({} of them run natively, all wrong \
             there), {} were only not proved",
            self.counterexamples, self.counterexamples_run, self.not_proved
        );
        for (k, [p, n, e]) in &self.by_kind {
            eprintln!("  {k:>9}: {p:4} proved, {n:4} not equivalent, {e:4} errors");
        }
        assert!(
            self.false_counterexample.is_empty(),
            "{} FALSE COUNTEREXAMPLES:\n{}",
            self.false_counterexample.len(),
            self.false_counterexample.join("\n\n")
        );
        assert!(
            self.false_equivalent.is_empty(),
            "{} FALSE EQUIVALENT:\n{}",
            self.false_equivalent.len(),
            self.false_equivalent.join("\n\n")
        );
    }
}

/// Faults per generated program, programs per function (times
/// `$CRYPTOPT_MUTATION_SCALE`, 1 by default, for long runs).
const FAULTS: usize = 40;
const PROGRAMS: usize = 10;

fn scale() -> usize {
    std::env::var("CRYPTOPT_MUTATION_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1)
}
const RANDOM_INPUTS: usize = 24;

/// Programs generated from `from` (`f` itself, or an algorithm variant of it), each
/// proved against `f` and then faulted.
fn mutate_function(f: &Function, from: &Function, seed: u64, tally: &Mutex<Tally>) {
    let g = lower::lower(from).expect("lowers");
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    // One runner per calling convention: a program is run with the one it was made for.
    let mut runners = cryptopt_x86::Abi::ALL.map(|abi| Runner::with_abi(abi).expect("runner"));
    let ground = Ground::new(f, &mut rng, RANDOM_INPUTS);
    let all = Options::all();
    for _ in 0..PROGRAMS * scale() {
        let opts = all[rng.random_range(0..all.len())];
        let copts = common::check_options(&opts);
        let mut gen = Generator::new(&g, opts).expect("generator");
        let c = Candidate::random(&g, gen.deps(), &mut rng);
        gen.generate(&c).expect("generates");
        let p = gen.program();
        assert!(
            check(f, &p, copts).expect("checks").is_equivalent(),
            "{}: the unmutated program is not proved",
            f.name
        );
        let runner = &mut runners[opts.abi as usize];
        fault_program(f, &p, copts, &ground, runner, &mut rng, tally, FAULTS);
    }
}

/// `faults` random faults of `p` (a program proved equivalent to `f`), each checked;
/// each proved one run natively against the interpreter.
#[allow(clippy::too_many_arguments)]
fn fault_program(
    f: &Function,
    p: &Program,
    copts: CheckOptions,
    ground: &Ground,
    runner: &mut Runner,
    rng: &mut Xoshiro256PlusPlus,
    tally: &Mutex<Tally>,
    faults: usize,
) {
    for k in 0..faults {
        let kind = KINDS[k % KINDS.len()];
        let Some((q, what)) = mutate(p, kind, rng) else {
            continue;
        };
        let verdict = check(f, &q, copts);
        let mut t = tally.lock().expect("lock");
        t.tried += 1;
        let slot = t.by_kind.entry(format!("{kind:?}")).or_default();
        match verdict {
            Ok(Verdict::Equivalent) => {
                slot[0] += 1;
                t.proved += 1;
                drop(t);
                // Ground truth: it must compute what the interpreter computes.
                let (runs, bad) = match ground.run(runner, f, &q, copts.aliasing) {
                    Ok(runs) => (runs, None),
                    Err(e) => (0, Some(e)),
                };
                let mut t = tally.lock().expect("lock");
                t.native_runs += runs;
                if let Some(e) = bad {
                    t.false_equivalent.push(format!(
                        "{} ({:?}): fault {what} was proved equivalent but {e}\n{}",
                        f.name,
                        copts.aliasing,
                        cryptopt_x86::print::nasm(&q)
                    ));
                }
            }
            Ok(Verdict::NotEquivalent(r)) => {
                slot[1] += 1;
                t.rejected_not_equivalent += 1;
                // A counterexample must be real: run natively on it (only when the
                // outputs are all the report finds: such a program keeps the ABI and
                // its memory, so it is safe to run), it differs from the interpreter.
                t.not_proved += !r.refuted() as usize;
                let Some(c) = &r.counterexample else {
                    continue;
                };
                t.counterexamples += 1;
                if !c.reproducible || r.beyond_outputs() {
                    continue;
                }
                drop(t);
                let one = Ground {
                    cases: vec![c.args.clone()],
                    want: vec![interp::run(f, &c.args).expect("interpreter")],
                };
                let right = one.run(runner, f, &q, copts.aliasing).is_ok();
                let mut t = tally.lock().expect("lock");
                t.counterexamples_run += 1;
                if right {
                    t.false_counterexample.push(format!(
                        "{} ({:?}): fault {what} has a counterexample on which it is right \
                         natively\n{r}\n{}",
                        f.name,
                        copts.aliasing,
                        cryptopt_x86::print::nasm(&q)
                    ));
                }
            }
            Err(_) => {
                slot[2] += 1;
                t.rejected_error += 1;
            }
        }
    }
}

#[test]
fn faults_are_rejected_or_harmless() {
    let names = [
        ("p256_64.json", "fiat_p256_mul"),
        ("p256_64.json", "fiat_p256_square"),
        ("curve25519_64.json", "fiat_25519_carry_mul"),
        (
            "curve25519_solinas_64.json",
            "fiat_curve25519_solinas_square",
        ),
        ("secp256k1_dettman_64.json", "fiat_secp256k1_dettman_mul"),
        ("poly1305_64.json", "fiat_poly1305_carry_square"),
        ("p448_solinas_64.json", "fiat_p448_carry_square"),
        ("p521_64.json", "fiat_p521_carry_square"),
        ("p384_64.json", "fiat_p384_mul"),
        ("p224_64.json", "fiat_p224_add"),
        ("p256_64.json", "fiat_p256_from_montgomery"),
        ("curve25519_64.json", "fiat_25519_to_bytes"),
    ];
    let Some(fs) = names
        .iter()
        .map(|(file, name)| common::function(file, name))
        .collect::<Option<Vec<Function>>>()
    else {
        eprintln!("SKIPPED faults_are_rejected_or_harmless: CRYPTOPT_FIAT_JSON is not set");
        return;
    };
    let pairs: Vec<(&Function, &Function)> = fs.iter().map(|f| (f, f)).collect();
    mutate_all(&pairs, 77, "generated programs", 3000);
}

/// [`mutate_function`] on every (function, made from) pair, on every CPU, seeds from
/// `seed`; then the tally, at least `least` faults tried and some proved harmless.
fn mutate_all(pairs: &[(&Function, &Function)], seed: u64, what: &str, least: usize) {
    let tally = Mutex::new(Tally::default());
    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some((f, from)) = pairs.get(i) else { break };
                mutate_function(f, from, seed + i as u64, &tally);
            });
        }
    });
    let t = tally.into_inner().expect("lock");
    t.report(what);
    assert!(t.tried >= least, "only {} faults tried", t.tried);
    assert!(
        t.proved > 0,
        "no harmless fault at all: the mutations are suspicious"
    );
}

/// The same faults on programs made from the algorithm variants of Fiat's Montgomery
/// functions (`gen::fields::variants`: word-by-word and separated reductions by the
/// prime's form, dedicated squares), each program proved against *Fiat's* function, as
/// the driver does. Zero false "equivalent".
#[test]
fn faults_in_algorithm_variants_are_rejected_or_harmless() {
    let names = [
        ("p256_64.json", "fiat_p256_mul", "separated"),
        ("p256_64.json", "fiat_p256_square", "separated"),
        ("p384_64.json", "fiat_p384_square", "separated"),
        (
            "secp256k1_montgomery_64.json",
            "fiat_secp256k1_montgomery_square",
            "separated",
        ),
    ];
    let mut pairs = Vec::new();
    for (file, name, algorithm) in names {
        let Some(f) = common::function(file, name) else {
            eprintln!(
                "SKIPPED faults_in_algorithm_variants_are_rejected_or_harmless: CRYPTOPT_FIAT_JSON is not set"
            );
            return;
        };
        let v = cryptopt_gen::fields::variants(&f)
            .expect("variants")
            .into_iter()
            .find(|v| v.algorithm.name() == algorithm)
            .unwrap_or_else(|| panic!("{name} has no {algorithm}"));
        pairs.push((f, v.function));
    }
    let pairs: Vec<(&Function, &Function)> = pairs.iter().map(|(f, v)| (f, v)).collect();
    mutate_all(&pairs, 177, "programs of algorithm variants", 1200);
}

/// Faults per compiler-output program (times `$CRYPTOPT_MUTATION_SCALE`): the normal
/// form proves it, or only the SAT sweep does (then every fault costs a sweep, up to
/// seconds for a P-384 multiplication or a Montgomery reduction that takes large
/// queries). With the generated programs' faults, about 14,000 in all (the issue asks
/// for at least 10,000) within CI's time.
const FOREIGN_FAULTS: usize = 500;
const SWEPT_FAULTS: usize = 15;

/// The same faults on foreign code: what gcc and clang-19 `-O3 -march=native` make of
/// `emit-c`'s C (AT&T syntax, as they print it), for every function of the acceptance
/// set (`compilers.rs`) whose output the checker proves (and their plain `-O2` output
/// where it has SSE2 vector instructions), and the hand-written P-256 variants it proves
/// (`handwritten.rs`). Zero false "equivalent".
#[test]
fn faults_in_compiler_output_are_rejected_or_harmless() {
    let Some(fs) = common::acceptance_set() else {
        eprintln!(
            "SKIPPED faults_in_compiler_output_are_rejected_or_harmless: CRYPTOPT_FIAT_JSON is not set"
        );
        return;
    };
    let dir = std::env::temp_dir().join(format!("cryptopt-mutation-cc-{}", std::process::id()));
    let mut programs = Vec::new();
    // Plain -O2 too where its output has SSE2 vector instructions (curve25519's
    // add/sub/opp: lane sums of two limbs at a time).
    let flags: [&[&str]; 2] = [&["-O3", "-march=native"], &["-O2"]];
    for f in &fs {
        for (cc, flags) in ["gcc", "clang-19"]
            .into_iter()
            .flat_map(|cc| flags.map(|fl| (cc, fl)))
        {
            let Some(asm) = common::compiler_output_with(cc, flags, f, "att", &dir) else {
                eprintln!("SKIPPED faults_in_compiler_output_are_rejected_or_harmless: no `{cc}`");
                return;
            };
            let Ok(ps) = cryptopt_x86::parse::parse(&asm) else {
                continue;
            };
            let Ok(p) = cryptopt_verify::select_program(&ps, &f.name) else {
                continue;
            };
            if flags == ["-O2"] && !p.insts.iter().any(|i| i.mn.is_sse2()) {
                continue;
            }
            if check(f, p, CheckOptions::default()).is_ok_and(|v| v.is_equivalent()) {
                // Programs the normal form proves get the full count of faults; those
                // only the sweep proves (each fault costs a sweep) a smaller one.
                let by_normal_form = CheckOptions {
                    sweep: false,
                    ..CheckOptions::default()
                };
                let nf = check(f, p, by_normal_form).is_ok_and(|v| v.is_equivalent());
                programs.push((f, p.clone(), if nf { FOREIGN_FAULTS } else { SWEPT_FAULTS }));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    // The hand-written P-256 variants the checker proves (`handwritten.rs`).
    let hand = common::handwritten_p256().unwrap_or_default();
    let hand: Vec<(Function, Program)> = hand
        .into_iter()
        .filter_map(|(_, f, asm)| {
            let ps = cryptopt_x86::parse::parse(&asm).ok()?;
            let p = cryptopt_verify::select_program(&ps, &f.name).ok()?.clone();
            Some((f, p))
        })
        .collect();
    let mut hand_proved = 0;
    for (f, p) in &hand {
        if check(f, p, CheckOptions::default()).is_ok_and(|v| v.is_equivalent()) {
            programs.push((f, p.clone(), FOREIGN_FAULTS));
            hand_proved += 1;
        }
    }
    let tally = Mutex::new(Tally::default());
    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                let mut runner = Runner::new().expect("runner");
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some((f, p, faults)) = programs.get(i) else {
                        break;
                    };
                    let mut rng = Xoshiro256PlusPlus::seed_from_u64(991 + i as u64);
                    let ground = Ground::new(f, &mut rng, RANDOM_INPUTS);
                    fault_program(
                        f,
                        p,
                        CheckOptions::default(),
                        &ground,
                        &mut runner,
                        &mut rng,
                        &tally,
                        faults * scale(),
                    );
                }
            });
        }
    });
    let t = tally.into_inner().expect("lock");
    t.report(&format!(
        "compiler output and hand-written variants ({} programs, {hand_proved} hand-written)",
        programs.len()
    ));
    assert!(
        programs.len() >= 6,
        "only {} compiler outputs proved",
        programs.len()
    );
}
