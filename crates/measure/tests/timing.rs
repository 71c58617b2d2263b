//! Counters and interleaved batch measurement, on small functions assembled here with
//! iced-x86.
//!
//! No timing thresholds: these machines are noisy. The one comparison of two timings
//! (200 dependent `imul`s against one `add`) has a margin of about 100x.

use cryptopt_ir::{Function, Param, Ty};
use cryptopt_measure::counter::{self, Counter};
use cryptopt_measure::timing::{self, Config, Measurement, Mode};
use cryptopt_measure::{Error, ExecMem};
use iced_x86::code_asm::*;
use iced_x86::IcedError;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

type Body = fn(&mut CodeAssembler) -> Result<(), IcedError>;

fn load(body: Body) -> ExecMem {
    let mut a = CodeAssembler::new(64).unwrap();
    body(&mut a).unwrap();
    ExecMem::new(&a.assemble(0).unwrap()).unwrap()
}

fn param(name: &str, ty: Ty, len: Option<u32>) -> Param {
    Param::unbounded(name, ty, len)
}

/// `fn(out1: ty[len], arg1: ty[len], arg2: ty[len])`.
fn binary(name: &str, ty: Ty, len: u32) -> Function {
    Function::new(
        name,
        vec![param("arg1", ty, Some(len)), param("arg2", ty, Some(len))],
        vec![param("out1", ty, Some(len))],
    )
}

/// `out[0] = a[0] + b[0]` (u64).
fn add(a: &mut CodeAssembler) -> Result<(), IcedError> {
    a.mov(rax, qword_ptr(rsi))?;
    a.add(rax, qword_ptr(rdx))?;
    a.mov(qword_ptr(rdi), rax)?;
    a.ret()
}

/// The same, after a chain of 200 dependent `imul`s on a scratch register.
fn slow_add(a: &mut CodeAssembler) -> Result<(), IcedError> {
    a.mov(rcx, qword_ptr(rsi))?;
    for _ in 0..200 {
        a.imul_2(rcx, rcx)?;
    }
    a.mov(rax, qword_ptr(rsi))?;
    a.add(rax, qword_ptr(rdx))?;
    a.mov(qword_ptr(rdi), rax)?;
    a.ret()
}

/// `fn(out1: u64[1], arg1: u64[1], arg2: u64)`: a scalar passed by value.
fn add_scalar_fn() -> Function {
    Function::new(
        "add_scalar",
        vec![
            param("arg1", Ty::U64, Some(1)),
            param("arg2", Ty::U64, None),
        ],
        vec![param("out1", Ty::U64, Some(1))],
    )
}

/// `out[0] = a[0] + c` with `c` a u64 passed by value (in rdx).
fn add_scalar(a: &mut CodeAssembler) -> Result<(), IcedError> {
    a.mov(rax, qword_ptr(rsi))?;
    a.add(rax, rdx)?;
    a.mov(qword_ptr(rdi), rax)?;
    a.ret()
}

/// `out[i] = a[i] + b[i]` for three bytes.
fn add_bytes(a: &mut CodeAssembler) -> Result<(), IcedError> {
    for i in 0..3 {
        a.mov(al, byte_ptr(rsi + i))?;
        a.add(al, byte_ptr(rdx + i))?;
        a.mov(byte_ptr(rdi + i), al)?;
    }
    a.ret()
}

/// `out[i] = a[i] ^ b[i]` for two u32s.
fn xor_u32(a: &mut CodeAssembler) -> Result<(), IcedError> {
    for i in 0..2 {
        a.mov(eax, dword_ptr(rsi + 4 * i))?;
        a.xor(eax, dword_ptr(rdx + 4 * i))?;
        a.mov(dword_ptr(rdi + 4 * i), eax)?;
    }
    a.ret()
}

/// `fn(out1: u64[2], arg1: u64[1])`: `out1 = [a, a + 1]` (out1 and arg1 differ).
fn widen(a: &mut CodeAssembler) -> Result<(), IcedError> {
    a.mov(rax, qword_ptr(rsi))?;
    a.mov(qword_ptr(rdi), rax)?;
    a.inc(rax)?;
    a.mov(qword_ptr(rdi + 8), rax)?;
    a.ret()
}

type Expect = fn(&[Vec<u128>]) -> Vec<Vec<u128>>;

fn expect_add(x: &[Vec<u128>]) -> Vec<Vec<u128>> {
    vec![vec![(x[0][0] as u64).wrapping_add(x[1][0] as u64) as u128]]
}

fn expect_add_bytes(x: &[Vec<u128>]) -> Vec<Vec<u128>> {
    vec![(0..3)
        .map(|i| (x[0][i] as u8).wrapping_add(x[1][i] as u8) as u128)
        .collect()]
}

fn expect_xor(x: &[Vec<u128>]) -> Vec<Vec<u128>> {
    vec![(0..2).map(|i| x[0][i] ^ x[1][i]).collect()]
}

struct Case {
    name: &'static str,
    f: fn() -> Function,
    programs: &'static [Body],
    mode: Mode,
    expect: Expect,
}

const CASES: &[Case] = &[
    Case {
        name: "add, one program, throughput",
        f: || binary("add", Ty::U64, 1),
        programs: &[add],
        mode: Mode::Throughput,
        expect: expect_add,
    },
    Case {
        name: "add and slow add, throughput",
        f: || binary("add", Ty::U64, 1),
        programs: &[add, slow_add],
        mode: Mode::Throughput,
        expect: expect_add,
    },
    Case {
        name: "add, slow add, add again, latency",
        f: || binary("add", Ty::U64, 1),
        programs: &[add, slow_add, add],
        mode: Mode::Latency,
        expect: expect_add,
    },
    Case {
        name: "scalar by value",
        f: add_scalar_fn,
        programs: &[add_scalar, add_scalar],
        mode: Mode::Throughput,
        expect: expect_add,
    },
    Case {
        name: "scalar by value, latency (arg1 is the array)",
        f: add_scalar_fn,
        programs: &[add_scalar],
        mode: Mode::Latency,
        expect: expect_add,
    },
    Case {
        name: "u8 arrays are bytes",
        f: || binary("add_bytes", Ty::U8, 3),
        programs: &[add_bytes, add_bytes],
        mode: Mode::Throughput,
        expect: expect_add_bytes,
    },
    Case {
        name: "u32 arrays, latency",
        f: || binary("xor_u32", Ty::U32, 2),
        programs: &[xor_u32, xor_u32],
        mode: Mode::Latency,
        expect: expect_xor,
    },
];

/// Measures `programs` and checks the measurement's shape and every round's outputs.
fn measure(
    f: &Function,
    programs: &[ExecMem],
    cfg: &Config,
    counter: &Counter,
    check: &mut timing::Check<'_>,
) -> cryptopt_measure::Result<Measurement> {
    let ptrs: Vec<*const u8> = programs.iter().map(ExecMem::ptr).collect();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    // SAFETY: every test program returns with `ret`, keeps the ABI, and only touches
    // its arguments' buffers within the bounds of the signature it is measured under.
    unsafe { timing::measure(f, &ptrs, cfg, counter, &mut rng, check) }
}

fn check(case: &Case, counter: &Counter) -> Measurement {
    let name = case.name;
    let f = (case.f)();
    let programs: Vec<ExecMem> = case.programs.iter().map(|&b| load(b)).collect();
    let cfg = Config {
        mode: case.mode,
        ..Config::default()
    };
    let mut rounds = 0;
    let m = measure(&f, &programs, &cfg, counter, &mut |inputs, outputs| {
        rounds += 1;
        assert_eq!(outputs.len(), programs.len(), "{name}");
        let want = (case.expect)(inputs);
        for (p, got) in outputs.iter().enumerate() {
            assert_eq!(
                got, &want,
                "{name}: program {p}, round {rounds}, inputs {inputs:x?}"
            );
        }
        Ok(())
    })
    .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(rounds, cfg.batches, "{name}: rounds checked");
    assert!(
        m.batch_size >= 1 && m.batch_size.is_power_of_two() && m.batch_size <= timing::MAX_BATCH,
        "{name}: batch size {}",
        m.batch_size
    );
    assert!(m.overhead > 0, "{name}: overhead {}", m.overhead);
    assert_eq!(m.counter, counter.name(), "{name}");
    assert_eq!(m.per_call.len(), programs.len(), "{name}");
    for (p, s) in m.per_call.iter().enumerate() {
        assert!(s.median > 0.0, "{name}: program {p}: {s:?}");
        assert!(
            s.min <= s.q1 && s.q1 <= s.median && s.median <= s.q3,
            "{name}: program {p}: {s:?}"
        );
    }
    m
}

#[test]
fn measures_every_case() {
    let (counter, _) = counter::detect();
    for case in CASES {
        check(case, &counter);
    }
}

/// 200 dependent `imul`s (≥ 600 cycles of latency, ≥ 200 of throughput) against one
/// `add`: a sanity check of the loop, with a margin of about 100x, not a timing test.
#[test]
fn slow_is_slower_than_fast() {
    let (counter, _) = counter::detect();
    for case in CASES
        .iter()
        .filter(|c| c.programs.contains(&(slow_add as Body)))
    {
        let m = check(case, &counter);
        let fast = m.per_call[0].median;
        let slow = m.per_call[1].median;
        assert!(
            slow > fast,
            "{}: slow {slow} vs fast {fast}: {m:?}",
            case.name
        );
    }
}

#[test]
fn check_error_stops_measurement() {
    let (counter, _) = counter::detect();
    let f = binary("add", Ty::U64, 1);
    let programs = [load(add), load(slow_add)];
    let mut rounds = 0;
    let e = measure(&f, &programs, &Config::default(), &counter, &mut |_, _| {
        rounds += 1;
        if rounds == 3 {
            return Err(Error::Mismatch("stop at round 3".to_string()));
        }
        Ok(())
    })
    .unwrap_err();
    assert!(
        matches!(&e, Error::Mismatch(m) if m == "stop at round 3"),
        "{e}"
    );
    assert_eq!(rounds, 3);
}

/// Which signatures latency mode accepts: out1 an array of arg1's shape.
#[test]
fn latency_possible_cases() {
    let sig = |out1: Param, arg1: Param| Function::new("f", vec![arg1], vec![out1]);
    let cases = [
        (binary("add", Ty::U64, 4), true),
        (binary("bytes", Ty::U8, 32), true),
        (
            sig(
                param("out1", Ty::U64, Some(2)),
                param("arg1", Ty::U64, Some(1)),
            ),
            false,
        ),
        (
            sig(
                param("out1", Ty::U32, Some(4)),
                param("arg1", Ty::U64, Some(4)),
            ),
            false,
        ),
        (
            sig(
                param("out1", Ty::U64, Some(1)),
                param("arg1", Ty::U64, None),
            ),
            false,
        ),
        (
            sig(param("out1", Ty::U64, None), param("arg1", Ty::U64, None)),
            false,
        ),
        (
            Function::new("f", vec![], vec![param("out1", Ty::U64, Some(1))]),
            false,
        ),
    ];
    for (f, want) in cases {
        let shape = |ps: &[Param]| ps.iter().map(Param::shape).collect::<Vec<_>>().join(", ");
        assert_eq!(
            timing::latency_possible(&f),
            want,
            "{} -> {}",
            shape(&f.params),
            shape(&f.returns)
        );
        assert_eq!(timing::chained(&f) > 0, want);
    }
}

/// How many outputs latency mode feeds back: the leading outputs shaped like the
/// leading inputs.
#[test]
fn chained_cases() {
    let fe = |name: &str| param(name, Ty::U64, Some(4));
    let f = |params: Vec<Param>, returns: Vec<Param>| Function::new("f", params, returns);
    let point = || vec![fe("out1"), fe("out2"), fe("out3")];
    let cases = [
        // A field multiplication: out1 into arg1 only.
        (f(vec![fe("arg1"), fe("arg2")], vec![fe("out1")]), 1),
        // Point doubling and addition: all three coordinates.
        (f(vec![fe("arg1"), fe("arg2"), fe("arg3")], point()), 3),
        (
            f((1..=6).map(|i| fe(&format!("arg{i}"))).collect(), point()),
            3,
        ),
        // The run stops at the first mismatch (here a scalar by value).
        (
            f(
                vec![fe("arg1"), param("arg2", Ty::U64, None), fe("arg3")],
                point(),
            ),
            1,
        ),
        // The ladder step: its arg1 is the swap bit.
        (
            f(
                vec![param("arg1", Ty::U1, None), fe("arg2"), fe("arg3")],
                point(),
            ),
            0,
        ),
    ];
    for (f, want) in cases {
        assert_eq!(timing::chained(&f), want, "{:?}", f.params);
    }
}

#[test]
fn refusals() {
    let (counter, _) = counter::detect();
    let no_check = &mut |_: &[Vec<u128>], _: &[Vec<Vec<u128>>]| -> cryptopt_measure::Result<()> {
        panic!("nothing should run")
    };
    let latency = Config {
        mode: Mode::Latency,
        ..Config::default()
    };

    // out1 u64[2], arg1 u64[1].
    let f = Function::new(
        "widen",
        vec![param("arg1", Ty::U64, Some(1))],
        vec![param("out1", Ty::U64, Some(2))],
    );
    let widen = [load(widen)];
    let e = measure(&f, &widen, &latency, &counter, no_check).unwrap_err();
    assert!(matches!(e, Error::LatencyShape { .. }), "{e:?}");
    assert_eq!(
        e.to_string(),
        "latency mode needs out1 and arg1 of the same shape: `widen` has out1 u64[2] and \
         arg1 u64[1]"
    );
    // The same function measures in throughput mode.
    let mut rounds = 0;
    measure(&f, &widen, &Config::default(), &counter, &mut |x, out| {
        rounds += 1;
        let a = x[0][0] as u64;
        assert_eq!(out[0], vec![vec![a as u128, a.wrapping_add(1) as u128]]);
        Ok(())
    })
    .unwrap();
    assert_eq!(rounds, 31);

    // arg1 a scalar by value: nothing to chain through memory.
    let f = Function::new(
        "scalar_first",
        vec![
            param("arg1", Ty::U64, None),
            param("arg2", Ty::U64, Some(1)),
        ],
        vec![param("out1", Ty::U64, Some(1))],
    );
    let e = measure(&f, &widen, &latency, &counter, no_check).unwrap_err();
    assert_eq!(
        e.to_string(),
        "latency mode needs out1 and arg1 of the same shape: `scalar_first` has out1 u64[1] \
         and arg1 u64 (a scalar by value)"
    );

    let f = binary("add", Ty::U64, 1);
    let e = measure(&f, &[], &Config::default(), &counter, no_check).unwrap_err();
    assert_eq!(e.to_string(), "cannot measure `add`: no programs");
    let zero = Config {
        batches: 0,
        ..Config::default()
    };
    let e = measure(&f, &widen, &zero, &counter, no_check).unwrap_err();
    assert_eq!(e.to_string(), "cannot measure `add`: zero batches");
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    // SAFETY: the null pointer is refused before anything is called.
    let e = unsafe {
        timing::measure(
            &f,
            &[std::ptr::null()],
            &Config::default(),
            &counter,
            &mut rng,
            no_check,
        )
    }
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot measure `add`: program 0 is a null pointer"
    );
    let fifteen = Function::new(
        "fifteen",
        (0..14)
            .map(|i| param(&format!("arg{i}"), Ty::U64, None))
            .collect(),
        vec![param("out1", Ty::U64, Some(1))],
    );
    let e = measure(&fifteen, &widen, &Config::default(), &counter, no_check).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot measure `fifteen`: 15 arguments; calls in-process pass at most 14"
    );
}

/// Arguments after the sixth are passed on the stack, in both modes: out1 = arg1 + … +
/// arg7 for scalars, and out1 = arg1 + arg7[0] with arg7 an array whose pointer is
/// the eighth argument.
#[test]
fn stack_passed_arguments() {
    let (counter, _) = counter::detect();
    let sum7 = Function::new(
        "sum7",
        (1..=7)
            .map(|i| param(&format!("arg{i}"), Ty::U64, None))
            .collect(),
        vec![param("out1", Ty::U64, Some(1))],
    );
    let prog = load(|a| {
        a.mov(rax, rsi)?;
        for r in [rdx, rcx, r8, r9] {
            a.add(rax, r)?;
        }
        a.add(rax, qword_ptr(rsp + 8))?;
        a.add(rax, qword_ptr(rsp + 16))?;
        a.mov(qword_ptr(rdi), rax)?;
        a.ret()
    });
    let mut rounds = 0;
    measure(
        &sum7,
        &[prog],
        &Config::default(),
        &counter,
        &mut |x, out| {
            rounds += 1;
            let want = x.iter().fold(0u64, |acc, v| acc.wrapping_add(v[0] as u64));
            assert_eq!(out[0], vec![vec![want as u128]]);
            Ok(())
        },
    )
    .unwrap();
    assert_eq!(rounds, 31);

    let mut params = vec![param("arg1", Ty::U64, Some(1))];
    params.extend((2..=6).map(|i| param(&format!("arg{i}"), Ty::U64, None)));
    params.push(param("arg7", Ty::U64, Some(1)));
    let chain = Function::new("chain", params, vec![param("out1", Ty::U64, Some(1))]);
    let prog = load(|a| {
        a.mov(rax, qword_ptr(rsi))?;
        a.mov(r10, qword_ptr(rsp + 16))?;
        a.add(rax, qword_ptr(r10))?;
        a.mov(qword_ptr(rdi), rax)?;
        a.ret()
    });
    let latency = Config {
        mode: Mode::Latency,
        ..Config::default()
    };
    let progs = [prog];
    for cfg in [Config::default(), latency] {
        measure(&chain, &progs, &cfg, &counter, &mut |x, out| {
            let want = (x[0][0] as u64).wrapping_add(x[6][0] as u64);
            assert_eq!(out[0], vec![vec![want as u128]], "{:?}", cfg.mode);
            Ok(())
        })
        .unwrap();
    }
}

/// A program that writes past its output is caught by the guard words.
#[test]
fn write_outside_is_caught() {
    let (counter, _) = counter::detect();
    let f = binary("add", Ty::U64, 1);
    let past_end = load(|a| {
        a.mov(qword_ptr(rdi), 0)?;
        a.mov(qword_ptr(rdi + 8), 0)?;
        a.ret()
    });
    let e = measure(
        &f,
        &[past_end],
        &Config::default(),
        &counter,
        &mut |_, _| Ok(()),
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .starts_with("program 0 for `add` wrote outside the output buffers"),
        "{e}"
    );
}

#[test]
fn stats_of_samples() {
    let s = timing::Stats::from_samples(&mut [5.0, 1.0, 3.0, 2.0, 4.0]);
    assert_eq!((s.min, s.q1, s.median, s.q3), (1.0, 2.0, 3.0, 4.0));
    let s = timing::Stats::from_samples(&mut [4.0, 1.0]);
    assert_eq!((s.min, s.q1, s.median, s.q3), (1.0, 1.75, 2.5, 3.25));
    let s = timing::Stats::from_samples(&mut [7.0]);
    assert_eq!((s.min, s.q1, s.median, s.q3), (7.0, 7.0, 7.0, 7.0));
    assert!(timing::Stats::from_samples(&mut []).median.is_nan());
}

#[test]
fn config_defaults() {
    let c = Config::default();
    assert_eq!(
        (c.cyclegoal, c.batches, c.mode, c.early_stop),
        (10_000, 31, Mode::Throughput, None)
    );
}

#[test]
fn counter_detects_reads_and_has_overhead() {
    let (c, why) = counter::detect();
    assert!(!why.is_empty());
    assert!(["tsc", "core-cycles"].contains(&c.name()), "{}", c.name());
    assert!(c.describe().starts_with(c.name()), "{}", c.describe());
    let mut last = c.read();
    for _ in 0..1000 {
        let now = c.read();
        assert!(now >= last, "{now} < {last}");
        last = now;
    }
    assert!(counter::overhead(&c, 101) > 0);
    assert!(counter::overhead(&c, 0) > 0, "at least one sample");
    assert!(counter::overhead(&Counter::Tsc, 101) > 0);
}

#[test]
fn pinning() {
    std::thread::spawn(|| {
        counter::pin_to_cpu(0).unwrap();
        assert_eq!(counter::current_cpu(), Some(0));
        let e = counter::pin_to_cpu(100_000).unwrap_err();
        assert!(matches!(e, Error::Pin { cpu: 100_000, .. }), "{e:?}");
        assert!(
            e.to_string()
                .starts_with("cannot pin the thread to CPU 100000: "),
            "{e}"
        );
        // Still on CPU 0 after the refusal.
        assert_eq!(counter::current_cpu(), Some(0));
    })
    .join()
    .unwrap();
}

#[test]
fn cpu_description() {
    assert!(!counter::cpu_model().is_empty());
    let _ = counter::cpu_features();
}

/// A sample measurement for reports (`--ignored --nocapture`, ideally in release).
#[test]
#[ignore = "a sample measurement for reports: run with --ignored --nocapture in release"]
fn sample_report() {
    counter::pin_to_cpu(counter::current_cpu().unwrap_or(0)).unwrap();
    let (c, why) = counter::detect();
    println!(
        "CPU: {} (adx, bmi2) = {:?}",
        counter::cpu_model(),
        counter::cpu_features()
    );
    println!("counter: {} — {why}", c.describe());
    println!(
        "overhead: {} ticks (median of 1001)",
        counter::overhead(&c, 1001)
    );
    for case in CASES
        .iter()
        .filter(|c| c.programs.contains(&(slow_add as Body)))
    {
        let start = std::time::Instant::now();
        let m = check(case, &c);
        let took = start.elapsed();
        println!(
            "{}: batch {} calls, overhead {} ticks, {took:?} per measure()",
            case.name, m.batch_size, m.overhead
        );
        for (p, s) in m.per_call.iter().enumerate() {
            println!(
                "  program {p}: median {:.2}  q1 {:.2}  q3 {:.2}  min {:.2} ticks/call",
                s.median, s.q1, s.q3, s.min
            );
        }
    }
    // The optimizer's case: three programs of about the same speed, many calls. The
    // whole call of measure() in TSC ticks (median: preemptions make outliers).
    let f = binary("add", Ty::U64, 1);
    let programs: Vec<ExecMem> = [add as Body, add, add].map(load).into();
    let mut whole = Vec::new();
    let mut timed = Vec::new();
    for _ in 0..200 {
        let t = counter::tsc();
        let m = measure(&f, &programs, &Config::default(), &c, &mut |_, _| Ok(())).unwrap();
        whole.push(counter::tsc() - t);
        let per_round: f64 = m.per_call.iter().map(|s| s.median).sum();
        timed.push((per_round * m.batch_size as f64 * 31.0) as u64);
    }
    whole.sort_unstable();
    timed.sort_unstable();
    println!(
        "3 x add, 200 calls of measure(): median {} TSC ticks per call (min {}, max {}), \
         of which ~{} in timed batches",
        whole[100], whole[0], whole[199], timed[100]
    );
}

/// Identical programs, alone and next to a slow one, measured repeatedly (a diagnostic:
/// `--ignored --nocapture`, in release).
#[test]
#[ignore = "a measurement diagnostic: run with --ignored --nocapture in release"]
fn identical_programs() {
    let (c, _) = counter::detect();
    let f = binary("add", Ty::U64, 1);
    let sets: [(&str, [Body; 4]); 2] = [
        ("4 x add", [add, add, add, add]),
        ("add, slow, add, add", [add, slow_add, add, add]),
    ];
    for (name, bodies) in sets {
        let programs: Vec<ExecMem> = bodies.map(load).into();
        for mode in [Mode::Throughput, Mode::Latency] {
            for rep in 0..5 {
                let cfg = Config {
                    mode,
                    ..Config::default()
                };
                let m = measure(&f, &programs, &cfg, &c, &mut |_, _| Ok(())).unwrap();
                let med: Vec<String> = m
                    .per_call
                    .iter()
                    .map(|s| format!("{:.3}", s.median))
                    .collect();
                println!(
                    "{name}, {mode:?}, rep {rep}: n {} medians {med:?}",
                    m.batch_size
                );
            }
        }
    }
}

/// The differential runner's comparison (`Runner::check_at`, through the trampoline):
/// the right program passes, a wrong one is a mismatch naming the first differing
/// output element and both values.
#[test]
fn runner_check_at_names_the_first_difference() {
    use cryptopt_measure::diff::{Pairing, Runner};
    let f = binary("add", Ty::U64, 1);
    let (good, bad) = (load(add), load(add_off_by_one));
    let x = vec![vec![5], vec![7]];
    let want = expect_add(&x);
    let mut runner = Runner::new().unwrap();
    // SAFETY: both programs have f's signature.
    unsafe { runner.check_at(good.ptr(), &f, &x, &want, Pairing::Distinct) }.unwrap();
    let e = unsafe { runner.check_at(bad.ptr(), &f, &x, &want, Pairing::Distinct) }.unwrap_err();
    assert!(matches!(e, Error::Mismatch(_)), "{e:?}");
    assert_eq!(
        e.to_string(),
        "out1[0] = 0xd, expected 0xc (aliasing Distinct) on inputs [[5], [7]]"
    );
}

/// `out[0] = a[0] + b[0] + 1` (a wrong `add`).
fn add_off_by_one(a: &mut CodeAssembler) -> Result<(), IcedError> {
    a.mov(rax, qword_ptr(rsi))?;
    a.add(rax, qword_ptr(rdx))?;
    a.inc(rax)?;
    a.mov(qword_ptr(rdi), rax)?;
    a.ret()
}

/// An early stop ends the measurement once the sign test has decided (fast against
/// slow: every round agrees, so after exactly the minimum), and the paired ratio says
/// which is faster; without it, all rounds are measured.
#[test]
fn early_stop_ends_a_decided_comparison() {
    let (counter, _) = counter::detect();
    let f = binary("add", Ty::U64, 1);
    let programs = [load(add), load(slow_add)];
    for (early, want_rounds) in [(Some(6), 6), (None, 31)] {
        let cfg = Config {
            early_stop: early.map(|min_rounds| timing::EarlyStop {
                min_rounds,
                a: 0,
                b: 1,
            }),
            ..Config::default()
        };
        let mut checked = 0;
        let m = measure(&f, &programs, &cfg, &counter, &mut |_, _| {
            checked += 1;
            Ok(())
        })
        .unwrap();
        assert_eq!(m.rounds(), want_rounds, "{early:?}");
        assert_eq!(checked, want_rounds, "every measured round is checked");
        assert!(m.samples.iter().all(|s| s.len() == want_rounds));
        assert!(m.paired_ratio(0, 1) < 1.0, "{m:?}");
        assert!(m.paired_ratio(1, 0) > 1.0, "{m:?}");
    }
    // A bad early stop is refused.
    let cfg = Config {
        early_stop: Some(timing::EarlyStop {
            min_rounds: 5,
            a: 0,
            b: 7,
        }),
        ..Config::default()
    };
    let e = measure(&f, &programs, &cfg, &counter, &mut |_, _| Ok(())).unwrap_err();
    assert!(e.to_string().contains("bad early stop"), "{e}");
}

/// The counter choice: a forced TSC is the TSC; auto picks one that works and reports
/// what it measured of every candidate; core cycles are refused with the reason where
/// they cannot be read.
#[test]
fn counter_choice() {
    let c = counter::choose(counter::Choice::Tsc).unwrap();
    assert_eq!(c.counter.name(), "tsc");
    assert_eq!(c.probes.len(), 1);
    let a = counter::choose(counter::Choice::Auto).unwrap();
    assert!(!a.why.is_empty());
    assert!(a.probes.iter().any(|p| p.name == a.counter.name()));
    for p in &a.probes {
        assert!(
            p.read_cost > 0 && p.noise.is_finite() && p.noise >= 0.0,
            "{p:?}"
        );
    }
    let line = counter::describe_probes(&a.probes);
    assert!(line.contains("read") && line.contains("noise"), "{line}");
    match counter::choose(counter::Choice::CoreCycles) {
        Ok(c) => assert_eq!(c.counter.name(), "core-cycles"),
        Err(e) => assert!(
            e.to_string()
                .starts_with("counter core-cycles: core cycles cannot be read here"),
            "{e}"
        ),
    }
}
