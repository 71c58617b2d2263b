//! The C baseline against the interpreter. Every function of every file in
//! ../shared/fiat-json, emitted as C by `cryptopt_emit::c` — in the Fiat dialect and, to
//! exercise the lowered operations too, after lowering — is compiled with gcc and
//! clang-19 (one shared object per file, dialect and compiler), called natively on 200
//! random inputs within bounds plus the edge cases, and must agree with the reference
//! interpreter. Functions with more than six arguments and returns (divstep), which the
//! in-process runner cannot call directly, are called through a C wrapper that takes all
//! inputs and outputs packed in two `uint64_t` arrays.
//!
//! The corpus has no signed arithmetic outside divstep and few odd widths, so a table of
//! one-operation functions (every operation, signed and odd-width types, shift amounts at
//! and beyond the width, carries of operands wider than `size`), checked on inputs over
//! their types' whole range, covers the semantic corners as well.

use std::path::Path;

use cryptopt_emit::c;
use cryptopt_ir::{inputs, interp, lower, validate, Function, Op, Operand, Param, Ty};
use cryptopt_measure::baseline::{self, CompiledC};
use cryptopt_measure::diff::{Pairing, Runner};
use cryptopt_measure::Error;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

const RANDOM_INPUTS: usize = 200;
const EDGE_CASES: usize = 4;
const COMPILERS: &[&str] = &["gcc", "clang-19"];
/// What the runner can pass in registers.
const MAX_ARGS: usize = 6;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dialect {
    Fiat,
    Lowered,
    /// The table of one-operation functions.
    Corners,
}

/// One function to call: `sig` is the C function the runner calls (the emitted function
/// itself, or its packed wrapper); `orig` is the Fiat-dialect function whose inputs and
/// interpreter outputs it is checked on.
struct Case {
    sig: Function,
    orig: Function,
    packed: bool,
}

/// One shared object: its cases and its C source.
struct Unit {
    name: String,
    dialect: Dialect,
    cases: Vec<Case>,
    source: String,
}

#[test]
fn c_baseline_matches_interpreter() {
    let Some(dir) = std::env::var_os("CRYPTOPT_FIAT_JSON") else {
        eprintln!(
            "SKIPPED c_baseline_matches_interpreter: CRYPTOPT_FIAT_JSON is not set \
             (point it at ../shared/fiat-json)"
        );
        return;
    };
    let compilers = installed_compilers();
    if compilers.is_empty() {
        eprintln!("SKIPPED c_baseline_matches_interpreter: no C compiler installed");
        return;
    }
    let mut units = fiat_units(Path::new(&dir));
    units.push(corner_unit());
    let start = std::time::Instant::now();
    let built = build_all(&units, &compilers);
    eprintln!(
        "compiled {} shared objects in {:.1?}",
        units.len() * compilers.len(),
        start.elapsed()
    );
    let mut runner = Runner::new().unwrap();
    let mut totals = Vec::new();
    for dialect in [Dialect::Fiat, Dialect::Lowered, Dialect::Corners] {
        for (k, &cc) in compilers.iter().enumerate() {
            let (mut funcs, mut packed, mut runs) = (0, 0, 0);
            for (u, sos) in units.iter().zip(&built) {
                if u.dialect != dialect {
                    continue;
                }
                for (i, case) in u.cases.iter().enumerate() {
                    runs += check(&mut runner, &sos[k], case, i as u64);
                    funcs += 1;
                    packed += usize::from(case.packed);
                }
            }
            eprintln!(
                "{dialect:?}, {cc} ({}): {funcs} functions ({packed} through a packed \
                 wrapper), {runs} inputs checked",
                built[0][k].compiler_version()
            );
            totals.push((dialect, cc, funcs, packed, runs));
        }
    }
    eprintln!("total time {:.1?}", start.elapsed());
    let count = |d: Dialect| -> usize {
        let us = units.iter().filter(|u| u.dialect == d);
        us.map(|u| u.cases.len()).sum()
    };
    let fiat = count(Dialect::Fiat);
    assert!(fiat >= 160, "only {fiat} Fiat functions");
    assert!(count(Dialect::Corners) >= 100, "corner table too small");
    for (dialect, cc, funcs, packed, runs) in totals {
        let want = if dialect == Dialect::Corners {
            count(Dialect::Corners)
        } else {
            fiat
        };
        assert_eq!(funcs, want, "{dialect:?} {cc}");
        if dialect != Dialect::Corners {
            assert!(packed >= 5, "{dialect:?} {cc}: only {packed} divsteps");
        }
        assert_eq!(
            runs,
            funcs * (RANDOM_INPUTS + EDGE_CASES),
            "{dialect:?} {cc}"
        );
    }
}

/// The compilers of [`COMPILERS`] that are installed; prints `SKIPPED` for the others.
fn installed_compilers() -> Vec<&'static str> {
    let found: Vec<&str> = (COMPILERS.iter().copied())
        .filter(|cc| match baseline::compiler_version(cc) {
            Ok(v) => {
                eprintln!("{cc}: {v}");
                true
            }
            Err(Error::CompilerNotFound { .. }) => {
                eprintln!("SKIPPED {cc}: not installed");
                false
            }
            Err(e) => panic!("{cc}: {e}"),
        })
        .collect();
    found
}

/// Compiles every unit with every compiler, in parallel.
fn build_all(units: &[Unit], compilers: &[&str]) -> Vec<Vec<CompiledC>> {
    std::thread::scope(|s| {
        let handles: Vec<Vec<_>> = (units.iter())
            .map(|u| {
                (compilers.iter())
                    .map(|&cc| {
                        s.spawn(move || {
                            let names: Vec<&str> =
                                u.cases.iter().map(|c| c.sig.name.as_str()).collect();
                            CompiledC::build_many(&u.source, &names, cc, &[]).unwrap_or_else(|e| {
                                panic!("{} ({:?}) with {cc}: {e}", u.name, u.dialect)
                            })
                        })
                    })
                    .collect()
            })
            .collect();
        (handles.into_iter())
            .map(|hs| hs.into_iter().map(|h| h.join().unwrap()).collect())
            .collect()
    })
}

/// Runs one case on the edge cases and [`RANDOM_INPUTS`] random inputs of its Fiat
/// function, against the interpreter; returns the number of inputs checked.
fn check(runner: &mut Runner, so: &CompiledC, case: &Case, seed: u64) -> usize {
    let (sig, orig) = (&case.sig, &case.orig);
    let ptr = (so.symbol(&sig.name)).unwrap_or_else(|| panic!("{}: no symbol", sig.name));
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut all = inputs::edge_cases(orig);
    assert_eq!(all.len(), EDGE_CASES);
    all.extend((0..RANDOM_INPUTS).map(|_| inputs::random(orig, &mut rng)));
    for x in &all {
        let mut want = interp::run(orig, x).unwrap();
        let mut args = x.clone();
        if case.packed {
            args = vec![x.concat()];
            want = vec![want.concat()];
        }
        // SAFETY: `ptr` is `sig.name` compiled from `c::emit` (or the packed wrapper),
        // whose C signature is the System V signature the runner calls `sig` with.
        let got = unsafe { runner.run_at(ptr, sig, &args, Pairing::Distinct) }
            .unwrap_or_else(|e| panic!("{} ({}): {e}", sig.name, so.compiler_version()));
        if got != want {
            // The C of a small function helps; a large one would drown the message.
            let text = c::emit(orig);
            let shown = if text.lines().count() < 200 {
                text
            } else {
                c::prototype(orig)
            };
            panic!(
                "{} ({}) on inputs {x:x?}: got {got:x?}, expected {want:x?}\n{shown}",
                sig.name,
                so.compiler_version()
            );
        }
    }
    all.len()
}

/// For every file: its functions in both dialects, each with its C source.
fn fiat_units(dir: &Path) -> Vec<Unit> {
    let mut units = Vec::new();
    for (name, funcs) in cryptopt_testkit::all_files(dir) {
        for dialect in [Dialect::Fiat, Dialect::Lowered] {
            let emitted: Vec<Function> = (funcs.iter())
                .map(|f| match dialect {
                    Dialect::Lowered => {
                        lower::lower(f).unwrap_or_else(|e| panic!("{}: {e}", f.name))
                    }
                    _ => f.clone(),
                })
                .collect();
            units.push(unit(name.clone(), dialect, emitted, &funcs));
        }
    }
    units
}

/// A unit of `emitted` functions (checked against `origs`, the same functions in the
/// Fiat dialect), with packed wrappers for those with too many arguments.
fn unit(name: String, dialect: Dialect, emitted: Vec<Function>, origs: &[Function]) -> Unit {
    let mut source = String::from(c::PRELUDE);
    // Every prototype first: a mismatch between `prototype` and `emit` is a compile error.
    for f in &emitted {
        source.push_str(&c::prototype(f));
        source.push('\n');
    }
    let mut cases = Vec::new();
    for (f, orig) in emitted.iter().zip(origs) {
        source.push_str(&c::emit(f));
        let packed = f.params.len() + f.returns.len() > MAX_ARGS;
        let sig = if packed {
            let (sig, wrapper) = packed_wrapper(f);
            source.push_str(&wrapper);
            sig
        } else {
            f.clone()
        };
        cases.push(Case {
            sig,
            orig: orig.clone(),
            packed,
        });
    }
    Unit {
        name,
        dialect,
        cases,
        source,
    }
}

/// `void NAME_packed(uint64_t out[M], const uint64_t in[N])`: calls `NAME` with its
/// inputs unpacked from `in` (every element of every argument, in order) and packs its
/// outputs into `out`. Returns the wrapper's signature as a function and its C source.
fn packed_wrapper(f: &Function) -> (Function, String) {
    let elems = |ps: &[Param]| ps.iter().map(Param::elems).sum::<usize>();
    let (n_in, n_out) = (elems(&f.params), elems(&f.returns));
    let name = format!("{}_packed", f.name);
    let mut s = format!(
        "void {name}(uint64_t out[{}], const uint64_t in[{}]) {{\n",
        n_out.max(1),
        n_in.max(1)
    );
    let mut call = Vec::new();
    for (i, r) in f.returns.iter().enumerate() {
        let t = c::interface_type(r.ty);
        s += &format!("  {t} r{i}[{}];\n", r.elems());
        call.push(format!("r{i}"));
    }
    let mut at = 0;
    for (i, p) in f.params.iter().enumerate() {
        let t = c::interface_type(p.ty);
        match p.len {
            None => call.push(format!("({t})in[{at}]")),
            Some(n) => {
                s += &format!("  {t} p{i}[{n}];\n");
                for j in 0..n as usize {
                    s += &format!("  p{i}[{j}] = ({t})in[{}];\n", at + j);
                }
                call.push(format!("p{i}"));
            }
        }
        at += p.elems();
    }
    s += &format!("  {}({});\n", f.name, call.join(", "));
    let mut at = 0;
    for (i, r) in f.returns.iter().enumerate() {
        for j in 0..r.elems() {
            s += &format!("  out[{at}] = r{i}[{j}];\n");
            at += 1;
        }
    }
    s += "}\n";
    let array = |name: &str, n: usize| Param::unbounded(name, Ty::U64, Some(n as u32));
    let sig = Function::new(name, vec![array("in", n_in)], vec![array("out", n_out)]);
    (sig, s)
}

/// An operand of a corner case: an argument of a type, or a literal.
#[derive(Clone, Copy, Debug)]
enum A {
    P(Ty),
    C(u128),
}

const U1: Ty = Ty::U1;
const U8: Ty = Ty::U8;
const U16: Ty = Ty::uint(16);
const U32: Ty = Ty::U32;
const U51: Ty = Ty::uint(51);
const U63: Ty = Ty::uint(63);
const U64: Ty = Ty::U64;
const U128: Ty = Ty::U128;
const I1: Ty = Ty::int(1);
const I8: Ty = Ty::int(8);
const I16: Ty = Ty::int(16);
const I32: Ty = Ty::int(32);
const I51: Ty = Ty::int(51);
const I64: Ty = Ty::int(64);
const I128: Ty = Ty::int(128);
const M64: u128 = u64::MAX as u128;

/// A function of scalar arguments; results wider than 64 bits are returned as two
/// `u64` halves (the runner's elements are at most 64 bits).
struct Builder {
    f: Function,
}

impl Builder {
    fn new(name: String) -> Builder {
        Builder {
            f: Function::new(name, Vec::new(), Vec::new()),
        }
    }

    fn operand(&mut self, a: A) -> Operand {
        match a {
            A::C(c) => Operand::Const(c),
            A::P(ty) => {
                let param = self.f.params.len() as u32;
                self.f.params.push(Param {
                    name: format!("arg{}", param + 1),
                    ty,
                    len: None,
                    lbound: vec![0],
                    ubound: vec![ty.mask()],
                });
                self.f
                    .push1(Op::Load { param, index: 0 }, vec![], ty)
                    .into()
            }
        }
    }

    fn op(&mut self, op: Op, args: Vec<Operand>, rts: &[Ty]) -> Vec<Operand> {
        let res = self.f.push(op, args, rts);
        res.iter().map(|&v| v.into()).collect()
    }

    fn ret(&mut self, v: Operand) {
        let ty = self.f.operand_ty(v).expect("a value");
        if ty.bits > 64 {
            let lo = self.op(Op::Cast, vec![v], &[U64])[0];
            let hi = self.op(Op::Shr, vec![v, Operand::Const(64)], &[U64])[0];
            self.ret(lo);
            self.ret(hi);
            return;
        }
        let ret = self.f.returns.len() as u32;
        self.f.returns.push(Param {
            name: format!("out{}", ret + 1),
            ty,
            len: None,
            lbound: vec![0],
            ubound: vec![ty.mask()],
        });
        self.f.push(Op::Store { ret, index: 0 }, vec![v], &[]);
    }

    fn finish(self) -> Function {
        let f = self.f;
        let fiat = validate::validate(&f, validate::Dialect::Fiat);
        let lowered = validate::validate(&f, validate::Dialect::Lowered);
        if let (Err(e), Err(_)) = (&fiat, &lowered) {
            panic!("corner case {} does not verify: {e}", f.name);
        }
        assert!(
            f.params.len() + f.returns.len() <= MAX_ARGS,
            "{}: too many arguments",
            f.name
        );
        f
    }
}

/// The corner cases: one operation on arguments (and literals) of the given types.
fn corner_unit() -> Unit {
    use A::{C, P};
    let add = Op::Add;
    let (sub, mul, and, or, xor, not, lnot, shl, shr, cast, cmov) = (
        Op::Sub,
        Op::Mul,
        Op::And,
        Op::Or,
        Op::Xor,
        Op::Not,
        Op::LNot,
        Op::Shl,
        Op::Shr,
        Op::Cast,
        Op::Cmovznz,
    );
    let (ac, sb, mx) = (
        |size| Op::AddCarry { size },
        |size| Op::SubBorrow { size },
        |size| Op::Mulx { size },
    );
    // (operation, operands, result types)
    let table: &[(Op, &[A], &[Ty])] = &[
        (cast, &[P(I1)], &[U64]),
        (cast, &[P(U64)], &[I1]),
        (cast, &[P(U1)], &[I1]),
        (cast, &[P(I64)], &[I1]),
        (cast, &[P(I1)], &[I128]),
        (cast, &[P(U64)], &[U51]),
        (cast, &[P(U64)], &[I51]),
        (cast, &[P(I8)], &[I64]),
        (cast, &[P(U64)], &[I8]),
        (cast, &[P(I64)], &[U128]),
        (cast, &[P(I32)], &[U16]),
        (cast, &[P(I64)], &[I128]),
        (cast, &[P(I51)], &[I64]),
        (cast, &[C((1 << 100) | M64)], &[U64]),
        (cast, &[C((1 << 100) | M64)], &[I1]),
        (cast, &[C((1 << 100) | M64)], &[I128]),
        (add, &[P(U64), P(U64)], &[U128]),
        (add, &[P(U64), P(I64)], &[I128]),
        (add, &[P(I1), P(U64)], &[U64]),
        (add, &[P(U64), P(U64), P(U64)], &[U51]),
        (add, &[P(I64), P(I64)], &[I1]),
        (add, &[P(U64), C((1 << 64) + 5)], &[U128]),
        (add, &[P(I8), P(I8)], &[I8]),
        (add, &[P(U16), P(U16)], &[U16]),
        (add, &[P(I64), P(I64), P(U1)], &[I64]),
        (sub, &[P(U64), P(U1)], &[I64]),
        (sub, &[P(U64), P(U1)], &[I128]),
        (sub, &[P(I64), P(U64)], &[I128]),
        (sub, &[C(0), P(I1)], &[U1]),
        (sub, &[C(0), P(U1)], &[I1]),
        (sub, &[P(U64), P(U64)], &[U51]),
        (sub, &[P(U32), P(U32)], &[I64]),
        (sub, &[P(I8), P(U8)], &[I16]),
        (mul, &[P(U64), P(U64)], &[U128]),
        (mul, &[P(I64), P(I64)], &[I128]),
        (mul, &[P(I64), P(U64)], &[I128]),
        (mul, &[P(U8), P(U8)], &[U16]),
        (mul, &[P(U16), P(U16)], &[U32]),
        (mul, &[P(U16), P(U16)], &[U16]),
        (mul, &[P(U32), P(U32)], &[U64]),
        (mul, &[P(I32), P(I32)], &[I64]),
        (mul, &[P(U64), P(U64), P(U64)], &[U64]),
        (mul, &[P(U64), C(19)], &[U64]),
        (mul, &[P(U64), P(U64)], &[U51]),
        (mul, &[P(U8), P(U8)], &[I8]),
        (and, &[P(I1), C(M64)], &[U64]),
        (and, &[P(I64), P(U64)], &[U64]),
        (and, &[P(I8), P(U8)], &[I16]),
        (and, &[P(U64), C(1)], &[U1]),
        (and, &[P(U64), P(U64)], &[I51]),
        (or, &[P(U64), P(U64)], &[U64]),
        (or, &[P(I8), P(U64)], &[I128]),
        (xor, &[P(I64), P(I64)], &[I64]),
        (xor, &[P(U64), P(U64), P(U64)], &[U1]),
        (not, &[P(U64)], &[U64]),
        (not, &[P(I1)], &[I1]),
        (not, &[P(U64)], &[U51]),
        (not, &[P(U1)], &[U1]),
        (not, &[P(I64)], &[U128]),
        (not, &[P(U8)], &[U64]),
        (lnot, &[P(U64)], &[U1]),
        (lnot, &[P(I64)], &[I1]),
        (lnot, &[P(U64)], &[U64]),
        (lnot, &[P(U1)], &[U1]),
        (shl, &[P(U64), C(63)], &[U64]),
        (shl, &[P(U1), C(64)], &[U128]),
        (shl, &[P(U64), C(64)], &[U64]),
        (shl, &[P(I64), C(3)], &[I64]),
        (shl, &[P(U8), C(7)], &[U8]),
        (shl, &[P(U64), C(127)], &[U128]),
        (shl, &[P(U64), C(50)], &[U51]),
        (shl, &[P(I1), C(100)], &[I128]),
        (shl, &[P(U64), C(0)], &[U1]),
        (shr, &[P(U64), C(64)], &[U64]),
        (shr, &[P(U64), C(127)], &[U64]),
        (shr, &[P(I64), C(63)], &[I1]),
        (shr, &[P(I64), C(100)], &[I64]),
        (shr, &[P(I64), C(5)], &[U8]),
        (shr, &[P(U64), C(0)], &[U64]),
        (shr, &[P(I8), C(7)], &[I64]),
        (shr, &[P(U64), C(3)], &[I1]),
        (shr, &[P(I1), C(0)], &[U64]),
        (shr, &[P(I32), C(31)], &[U128]),
        (shr, &[P(I51), C(50)], &[I64]),
        (shr, &[C(1 << 127), C(64)], &[U64]),
        (mx(64), &[P(U64), P(U64)], &[U64, U64]),
        (mx(64), &[P(U64), C(M64)], &[U64, U64]),
        (mx(32), &[P(U64), P(U64)], &[U32, U32]),
        (mx(51), &[P(U64), P(U64)], &[U51, U51]),
        (mx(1), &[P(U64), P(U64)], &[U1, U1]),
        (ac(64), &[P(U1), P(U64), P(U64)], &[U64, U1]),
        (ac(64), &[P(U64), P(U64), P(U64)], &[U64, U1]),
        (ac(51), &[P(U64), P(U64), P(U64)], &[U51, U1]),
        (ac(63), &[P(U64), P(U64), P(U64)], &[U63, U1]),
        (ac(32), &[P(U1), P(U64), P(U32)], &[U32, U1]),
        (ac(1), &[P(U1), P(U1), P(U1)], &[U1, U1]),
        (ac(64), &[C(0), P(U64), C(M64)], &[U64, U1]),
        (sb(64), &[P(U1), P(U64), P(U64)], &[U64, U1]),
        (sb(64), &[P(U64), P(U64), P(U64)], &[U64, U1]),
        (sb(51), &[P(U64), P(U64), P(U64)], &[U51, U1]),
        (sb(63), &[P(U64), P(U64), P(U64)], &[U63, U1]),
        (sb(32), &[P(U1), P(U64), P(U32)], &[U32, U1]),
        (sb(1), &[P(U1), P(U1), P(U1)], &[U1, U1]),
        (sb(64), &[C(1), C(0), P(U64)], &[U64, U1]),
        (cmov, &[P(U64), P(U64), P(U64)], &[U64]),
        (cmov, &[P(U1), P(I64), P(U64)], &[I64]),
        (cmov, &[P(U8), P(U8), P(U8)], &[U8]),
        (cmov, &[P(U1), C(5), P(U64)], &[U64]),
        (cmov, &[P(U64), P(U64), P(U64)], &[U51]),
        (cmov, &[P(I1), P(I1), P(U1)], &[I1]),
        (Op::Sar { from: 64 }, &[P(U64), C(63)], &[U64]),
        (Op::Sar { from: 8 }, &[P(U64), C(1)], &[U64]),
        (Op::Sar { from: 1 }, &[P(U64), C(0)], &[U64]),
        (Op::Sar { from: 51 }, &[P(U64), C(60)], &[U64]),
        (Op::Sext { from: 1 }, &[P(U64)], &[U64]),
        (Op::Sext { from: 64 }, &[P(U64)], &[U128]),
        (Op::Sext { from: 32 }, &[P(U64)], &[U64]),
        (Op::Shrd { n: 1 }, &[P(U64), P(U64)], &[U64]),
        (Op::Shrd { n: 63 }, &[P(U64), P(U64)], &[U64]),
        (Op::Shrd { n: 8 }, &[P(U64), P(U64)], &[U64]),
    ];
    let mut funcs = Vec::new();
    for (k, (op, args, rts)) in table.iter().enumerate() {
        let mut b = Builder::new(format!("corner{k}_{}", op.name()));
        let args: Vec<Operand> = args.iter().map(|&a| b.operand(a)).collect();
        for r in b.op(*op, args, rts) {
            b.ret(r);
        }
        funcs.push(b.finish());
    }
    // Right shifts of wide intermediates (at most four results per function).
    let shifts = [
        (64, U64),
        (127, U1),
        (100, U8),
        (64, I1),
        (127, I64),
        (65, I64),
    ];
    for (ty, wide) in [(U64, U128), (I64, I128)] {
        for chunk in shifts.chunks(4) {
            let mut b = Builder::new(format!("corner_wide{}", funcs.len()));
            let (x, y) = (b.operand(P(ty)), b.operand(P(ty)));
            let p = b.op(mul, vec![x, y], &[wide])[0];
            for &(n, rt) in chunk {
                let r = b.op(shr, vec![p, Operand::Const(n)], &[rt])[0];
                b.ret(r);
            }
            funcs.push(b.finish());
        }
    }
    let origs = funcs.clone();
    unit("corners".to_string(), Dialect::Corners, funcs, &origs)
}
