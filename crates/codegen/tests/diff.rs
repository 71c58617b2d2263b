//! Differential testing of generated code (issue: code generation, item 7): for every
//! mul/square function of ../shared/fiat-json and add/sub/opp/from_montgomery/to_bytes of
//! p256, curve25519 and p521, at least 200 random candidates spread over every option
//! combination, each run natively on 100 random inputs within bounds plus the edge cases
//! (and, where the options allow aliasing, with an output buffer that is an input
//! buffer), must agree with the reference interpreter. Zero mismatches, zero crashes.

use cryptopt_codegen::{Candidate, Generator, Options};
use cryptopt_frontend::fiat;
use cryptopt_ir::{inputs, interp, lower, Function};
use cryptopt_measure::diff::{pairings, Runner};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

const CANDIDATES_PER_OPTIONS: usize = 12; // × 18 option combinations = 216 per function
const RANDOM_INPUTS: usize = 100;
const POOL: usize = 400;

struct Totals {
    functions: usize,
    candidates: usize,
    runs: usize,
}

/// Generates and checks candidates of one function, lowered for each shape; returns
/// (candidates, runs).
fn check(f: &Function, seed: u64, per_options: usize) -> (usize, usize) {
    let (mut cands, mut runs) = (0, 0);
    for shape in [lower::Shape::Throughput, lower::Shape::Latency] {
        let (c, r) = check_shape(f, shape, seed, per_options);
        cands += c;
        runs += r;
    }
    (cands, runs)
}

fn check_shape(f: &Function, shape: lower::Shape, seed: u64, per_options: usize) -> (usize, usize) {
    let g = lower::lower_for(f, shape).unwrap();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    // A pool of inputs with their expected outputs, computed once.
    let mut pool: Vec<Vec<Vec<u128>>> = inputs::edge_cases(f);
    let edges = pool.len();
    pool.extend((0..POOL).map(|_| inputs::random(f, &mut rng)));
    let want: Vec<Vec<Vec<u128>>> = pool.iter().map(|x| interp::run(f, x).unwrap()).collect();
    let mut runners = cryptopt_x86::Abi::ALL.map(|abi| Runner::with_abi(abi).unwrap());
    let mut asm = cryptopt_x86::encode::Assembler::new();
    let mut code = Vec::new();
    let (mut cands, mut runs) = (0, 0);
    for opts in Options::all() {
        let mut gen = Generator::new(&g, opts).unwrap();
        let alias = pairings(f, opts.aliasing);
        let runner = &mut runners[opts.abi as usize];
        for _ in 0..per_options {
            let c = Candidate::random(&g, gen.deps(), &mut rng);
            let insts = gen
                .generate(&c)
                .unwrap_or_else(|e| panic!("{} {opts:?}: {e}", f.name));
            code.clear();
            asm.encode(insts, &mut code).unwrap();
            runner.load(&code).unwrap();
            let picks =
                (0..edges).chain((0..RANDOM_INPUTS).map(|_| rng.random_range(edges..pool.len())));
            for i in picks {
                for &a in &alias {
                    if let Err(e) = runner.check_against(f, &pool[i], &want[i], a) {
                        panic!(
                            "{} with {opts:?}: {e}\n{}",
                            f.name,
                            cryptopt_x86::print::nasm(&gen.program())
                        );
                    }
                    runs += 1;
                }
            }
            cands += 1;
        }
    }
    (cands, runs)
}

fn run_all(selection: &[(&str, &[&str])]) -> Option<Totals> {
    let dir = std::env::var_os("CRYPTOPT_FIAT_JSON")?;
    let mut t = Totals {
        functions: 0,
        candidates: 0,
        runs: 0,
    };
    for (file, suffixes) in selection {
        let text = std::fs::read_to_string(std::path::Path::new(&dir).join(file)).unwrap();
        for (k, f) in fiat::parse_functions(&text).unwrap().iter().enumerate() {
            if !suffixes.iter().any(|s| f.name.ends_with(s)) {
                continue;
            }
            let (c, r) = check(f, 1000 + k as u64, CANDIDATES_PER_OPTIONS);
            t.functions += 1;
            t.candidates += c;
            t.runs += r;
        }
    }
    Some(t)
}

const MUL_SQUARE: &[&str] = &["_mul", "_square"];
const FILES: &[&str] = &[
    "curve25519_64.json",
    "curve25519_solinas_64.json",
    "p224_64.json",
    "p256_64.json",
    "p384_64.json",
    "p434_64.json",
    "p448_solinas_64.json",
    "p521_64.json",
    "poly1305_64.json",
    "secp256k1_dettman_64.json",
    "secp256k1_montgomery_64.json",
];

#[test]
fn mul_and_square_of_every_field() {
    let sel: Vec<(&str, &[&str])> = FILES.iter().map(|f| (*f, MUL_SQUARE)).collect();
    let Some(t) = run_all(&sel) else {
        eprintln!("SKIPPED mul_and_square_of_every_field: CRYPTOPT_FIAT_JSON is not set");
        return;
    };
    eprintln!(
        "mul/square: {} functions, {} candidates, {} native runs",
        t.functions, t.candidates, t.runs
    );
    assert_eq!(t.functions, 22);
    assert!(t.candidates >= 22 * 200);
}

#[test]
fn other_operations_of_p256_curve25519_p521() {
    const OPS: &[&str] = &["_add", "_sub", "_opp", "_from_montgomery", "_to_bytes"];
    let sel: &[(&str, &[&str])] = &[
        ("p256_64.json", OPS),
        ("curve25519_64.json", OPS),
        ("p521_64.json", OPS),
    ];
    let Some(t) = run_all(sel) else {
        eprintln!(
            "SKIPPED other_operations_of_p256_curve25519_p521: CRYPTOPT_FIAT_JSON is not set"
        );
        return;
    };
    eprintln!(
        "add/sub/opp/from_montgomery/to_bytes: {} functions, {} candidates, {} native runs",
        t.functions, t.candidates, t.runs
    );
    // p256 has all five; curve25519 and p521 have no from_montgomery.
    assert_eq!(t.functions, 13);
}

/// Ten arguments, the last four (array pointers) on the stack: divstep of p256 and
/// secp256k1, over every option combination (frame pointer kept or not, red zone or
/// `sub rsp`, aliasing), so the stack arguments' offsets are right under every frame.
#[test]
fn stack_passed_arguments_divstep() {
    let sel: &[(&str, &[&str])] = &[
        ("p256_64.json", &["_divstep"]),
        ("secp256k1_montgomery_64.json", &["_divstep"]),
    ];
    let Some(t) = run_all(sel) else {
        eprintln!("SKIPPED stack_passed_arguments_divstep: CRYPTOPT_FIAT_JSON is not set");
        return;
    };
    eprintln!(
        "divstep: {} functions, {} candidates, {} native runs",
        t.functions, t.candidates, t.runs
    );
    assert_eq!(t.functions, 2);
    assert!(t.candidates >= 2 * 200);
}

/// Products by literals, one per template family: `shl`/`lea` (2, 4, 8), `lea` with a
/// base (3, 5, 9), `lea` then `shl` (20 = 5·4, 48 = 3·16), `lea` twice (45 = 5·9,
/// 81 = 9·9), and `imul`/`mulx` only (19, 38, 2^40 + 1); 216 random candidates pick
/// among the flavors of each at random, and every one must compute what the
/// interpreter does.
#[test]
fn products_by_literals() {
    use cryptopt_ir::{Op, Operand, Param, Ty};
    const LITERALS: &[u64] = &[2, 3, 4, 5, 8, 9, 20, 45, 48, 81, 19, 38, (1 << 40) + 1];
    let n = LITERALS.len();
    let out = Param::array("out1", Ty::U64, &vec![u64::MAX as u128; n]);
    let arg = Param::array("arg1", Ty::U64, &[u64::MAX as u128]);
    let mut f = Function::new("products_by_literals", vec![arg], vec![out]);
    let x = f.push1(Op::Load { param: 0, index: 0 }, vec![], Ty::U64);
    for (k, &c) in LITERALS.iter().enumerate() {
        let y = f.push1(Op::Mul, vec![x.into(), Operand::Const(c as u128)], Ty::U64);
        f.push(
            Op::Store {
                ret: 0,
                index: k as u32,
            },
            vec![y.into()],
            &[],
        );
    }
    let (cands, runs) = check(&f, 7, 12);
    assert!(
        cands >= 200 && runs >= cands * 100,
        "{cands} candidates, {runs} runs"
    );
}
