//! Laws of candidates and of the generator, checked on random candidates:
//! * random candidates are topological orders, and every topological order is reachable;
//! * a decision the generator did not report as hot does not change the program;
//! * the emitted code keeps the options' promises (rbp untouched with `keep`, nothing
//!   below rsp without the red zone, a frame with `save`) and the constant-time shape
//!   (no index registers in memory accesses, so addresses never depend on data).

use std::collections::HashSet;

use cryptopt_codegen::{Candidate, DecisionSlot, FramePointer, Generator, Options, SLOTS};
use cryptopt_frontend::fiat;
use cryptopt_ir::{lower, Function, Inst};
use cryptopt_x86::{Mnemonic, Operand, Reg};
use proptest::prelude::*;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

fn running_example() -> Function {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/running_example.json"
    ))
    .unwrap();
    lower::lower(&fiat::parse_function(&text, "example_running").unwrap()).unwrap()
}

fn p256_mul() -> Option<Function> {
    fiat_function("p256_64.json", "fiat_p256_mul")
}

fn fiat_function(file: &str, name: &str) -> Option<Function> {
    let dir = std::env::var_os("CRYPTOPT_FIAT_JSON")?;
    let text = std::fs::read_to_string(std::path::Path::new(&dir).join(file)).unwrap();
    Some(lower::lower(&fiat::parse_function(&text, name).unwrap()).unwrap())
}

/// All topological orders of a small function, by brute force.
fn all_orders(gen: &Generator<'_>, n: usize) -> HashSet<Vec<Inst>> {
    fn go(
        deps: &cryptopt_codegen::Deps,
        order: &mut Vec<Inst>,
        used: &mut Vec<bool>,
        out: &mut HashSet<Vec<Inst>>,
    ) {
        if order.len() == used.len() {
            out.insert(order.clone());
            return;
        }
        for k in 0..used.len() {
            let ready = !used[k] && deps.preds[k].iter().all(|&p| used[p.index()]);
            if ready {
                used[k] = true;
                order.push(Inst(k as u32));
                go(deps, order, used, out);
                order.pop();
                used[k] = false;
            }
        }
    }
    let mut out = HashSet::new();
    go(gen.deps(), &mut Vec::new(), &mut vec![false; n], &mut out);
    out
}

#[test]
fn every_topological_order_is_reachable() {
    let f = running_example();
    let gen = Generator::new(&f, Options::default()).unwrap();
    let all = all_orders(&gen, f.insts.len());
    assert!(all.len() > 100, "only {} orders", all.len());
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    let mut seen = HashSet::new();
    for _ in 0..200 * all.len() {
        let c = Candidate::random(&f, gen.deps(), &mut rng);
        assert!(gen.deps().is_topological(&c.order));
        seen.insert(c.order);
    }
    assert_eq!(
        seen.len(),
        all.len(),
        "random candidates reached {} of {} orders",
        seen.len(),
        all.len()
    );
}

#[test]
fn bad_candidates_are_rejected() {
    let f = running_example();
    let mut gen = Generator::new(&f, Options::default()).unwrap();
    let mut c = Candidate::first(gen.deps());
    assert!(gen.generate(&c).is_ok());
    c.order.reverse();
    assert!(gen
        .generate(&c)
        .unwrap_err()
        .to_string()
        .contains("not a topological order"));
    let mut c = Candidate::first(gen.deps());
    c.decisions.pop();
    assert!(gen.generate(&c).is_err());
}

/// Checks the emitted code's promises for one program.
fn check_shape(insts: &[cryptopt_x86::Inst], opts: &Options) {
    let mut saw_frame = false;
    for (k, i) in insts.iter().enumerate() {
        assert!(
            !matches!(i.mn, Mnemonic::Ret) || k == insts.len() - 1,
            "ret before the end"
        );
        for o in i.operands() {
            match *o {
                Operand::Reg(r, _) if r == Reg::Rbp && opts.frame_pointer == FramePointer::Keep => {
                    panic!("rbp touched: {i:?}")
                }
                Operand::Mem(m) => {
                    if i.mn != Mnemonic::Lea {
                        assert!(m.index.is_none(), "indexed memory access {i:?}");
                        assert!(m.base.is_some(), "absolute memory access {i:?}");
                    }
                    if m.base == Some(Reg::Rsp) && !opts.red_zone {
                        assert!(m.disp >= 0, "access below rsp without a red zone: {i:?}");
                    }
                    if m.base == Some(Reg::Rbp) {
                        assert_eq!(
                            opts.frame_pointer,
                            FramePointer::Omit,
                            "rbp used as a pointer: {i:?}"
                        );
                    }
                }
                _ => {}
            }
        }
        if i.mn == Mnemonic::Mov && i.operands() == [Operand::r64(Reg::Rbp), Operand::r64(Reg::Rsp)]
        {
            saw_frame = true;
        }
    }
    if opts.frame_pointer == FramePointer::Save {
        assert!(saw_frame, "no frame set up with --frame-pointer save");
    }
    assert_eq!(
        dead_stores(insts),
        Vec::<usize>::new(),
        "stores nothing reads"
    );
}

/// The positions of the `mov [rsp + d], r64` whose bytes nothing accesses before they are
/// stored again or the program ends.
fn dead_stores(insts: &[cryptopt_x86::Inst]) -> Vec<usize> {
    let stack = |o: &Operand| match *o {
        Operand::Mem(m) if m.base == Some(Reg::Rsp) && m.index.is_none() => {
            Some((m.disp, m.disp + m.size.bytes() as i32))
        }
        _ => None,
    };
    let store = |i: &cryptopt_x86::Inst| match (i.mn, i.operands()) {
        (Mnemonic::Mov, [m, Operand::Reg(_, cryptopt_x86::Size::B64)]) => stack(m),
        _ => None,
    };
    let mut dead = Vec::new();
    for (k, i) in insts.iter().enumerate() {
        let Some((d, _)) = store(i) else { continue };
        let mut read = false;
        for j in &insts[k + 1..] {
            if store(j) == Some((d, d + 8)) {
                break;
            }
            if j.operands()
                .iter()
                .filter_map(stack)
                .any(|(a, b)| a < d + 8 && d < b)
            {
                read = true;
                break;
            }
        }
        if !read {
            dead.push(k);
        }
    }
    dead
}

#[test]
fn options_are_respected() {
    // P-256, and the 5×52 secp256k1 multiplication: more values live than registers,
    // and 52-bit masks homed to stack slots.
    let (Some(p256), Some(dettman)) = (
        p256_mul(),
        fiat_function("secp256k1_dettman_64.json", "fiat_secp256k1_dettman_mul"),
    ) else {
        eprintln!("SKIPPED options_are_respected: CRYPTOPT_FIAT_JSON is not set");
        return;
    };
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
    for f in [p256, dettman] {
        for opts in Options::all() {
            let mut gen = Generator::new(&f, opts).unwrap();
            for _ in 0..20 {
                let c = Candidate::random(&f, gen.deps(), &mut rng);
                let insts = gen.generate(&c).unwrap().to_vec();
                check_shape(&insts, &opts);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    /// Law: changing a decision that was not hot leaves the program unchanged.
    #[test]
    fn cold_decisions_do_not_matter(seed in any::<u64>(), k in any::<usize>(), slot in 0usize..SLOTS, value in any::<u8>()) {
        let f = match p256_mul() { Some(f) => f, None => running_example() };
        let mut gen = Generator::new(&f, Options::default()).unwrap();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let c = Candidate::random(&f, gen.deps(), &mut rng);
        let before = gen.generate(&c).unwrap().to_vec();
        let hot: HashSet<(Inst, DecisionSlot)> = gen.hot().iter().map(|h| (h.inst, h.slot)).collect();
        let inst = Inst((k % f.insts.len()) as u32);
        let slots = [DecisionSlot::Flavor, DecisionSlot::Swap, DecisionSlot::Clear, DecisionSlot::Mem];
        prop_assume!(!hot.contains(&(inst, slots[slot])));
        let mut d = c.clone();
        d.decisions[inst.index()][slot] = value;
        let after = gen.generate(&d).unwrap().to_vec();
        prop_assert_eq!(before, after);
    }

    /// Law: hot decisions are real: flipping all of them changes the program for most
    /// candidates (checked in aggregate: at least one differs).
    #[test]
    fn hot_decisions_are_recorded(seed in any::<u64>()) {
        let f = match p256_mul() { Some(f) => f, None => running_example() };
        let mut gen = Generator::new(&f, Options::default()).unwrap();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let c = Candidate::random(&f, gen.deps(), &mut rng);
        let before = gen.generate(&c).unwrap().to_vec();
        let hot = gen.hot().to_vec();
        prop_assert!(!hot.is_empty());
        let mut d = c.clone();
        for h in hot {
            let b = &mut d.decisions[h.inst.index()][h.slot as usize];
            // The next alternative (bytes are read modulo the number of alternatives).
            *b = (*b % h.alternatives + 1) % h.alternatives;
        }
        let after = gen.generate(&d).unwrap().to_vec();
        prop_assert_ne!(before, after);
    }
}

/// The structured starting orders of the search are valid for every function.
#[test]
fn structured_orders_are_topological() {
    let Some(dir) = std::env::var_os("CRYPTOPT_FIAT_JSON") else {
        eprintln!("SKIPPED structured_orders_are_topological: CRYPTOPT_FIAT_JSON is not set");
        return;
    };
    let mut checked = 0;
    for file in std::fs::read_dir(&dir).unwrap() {
        let text = std::fs::read_to_string(file.unwrap().path()).unwrap();
        for f in fiat::parse_functions(&text).unwrap() {
            let g = lower::lower(&f).unwrap();
            for opts in [
                Options::default(),
                Options {
                    aliasing: cryptopt_codegen::Aliasing::None,
                    ..Options::default()
                },
            ] {
                let deps = cryptopt_codegen::Deps::new(&g, &opts);
                for c in [
                    Candidate::first(&deps),
                    Candidate::depth_first(&g, &deps),
                    Candidate::demand_driven(&g, &deps),
                    Candidate::low_pressure(&g, &deps),
                    Candidate::deepest_first(&g, &deps),
                    Candidate::depth_first_random(
                        &g,
                        &deps,
                        &mut Xoshiro256PlusPlus::seed_from_u64(checked as u64),
                    ),
                ] {
                    assert!(deps.is_topological(&c.order), "{}", f.name);
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(checked, 160 * 2 * 6);
}

/// A carry that waits in OF is read by the sum that takes it (`adox`), never saved
/// with `seto` first; one in CF likewise with `adc`/`adcx`. In the input order every
/// `hi + b.hi + carry` comes right after the `addcarry` that made the carry.
#[test]
fn sums_take_their_carry_from_the_flag() {
    let Some(dir) = std::env::var_os("CRYPTOPT_FIAT_JSON") else {
        eprintln!("SKIPPED sums_take_their_carry_from_the_flag: CRYPTOPT_FIAT_JSON is not set");
        return;
    };
    let text =
        std::fs::read_to_string(std::path::Path::new(&dir).join("p448_solinas_64.json")).unwrap();
    let f = lower::lower(&fiat::parse_function(&text, "fiat_p448_carry_mul").unwrap()).unwrap();
    let mut gen = Generator::new(&f, Options::default()).unwrap();
    let addcarries = f
        .insts
        .iter()
        .filter(|d| matches!(d.op, cryptopt_ir::Op::AddCarry { .. }))
        .count();
    // (flavor of every addcarry with carry-in 0: 0 add, 2 test; adox), flag-save mnemonic
    for (flavor, save) in [(0u8, Mnemonic::Setc), (2, Mnemonic::Seto)] {
        let mut c = Candidate::first(gen.deps());
        for (k, d) in f.insts.iter().enumerate() {
            if matches!(d.op, cryptopt_ir::Op::AddCarry { .. }) {
                c.decisions[k][DecisionSlot::Flavor as usize] = flavor;
            }
        }
        let insts = gen.generate(&c).unwrap().to_vec();
        let count = |m: Mnemonic| insts.iter().filter(|i| i.mn == m).count();
        // Where a carry was saved: the instructions around it.
        let saved: Vec<_> = (0..insts.len())
            .filter(|&i| insts[i].mn == save)
            .map(|i| &insts[i.saturating_sub(4)..(i + 3).min(insts.len())])
            .collect();
        assert!(
            saved.is_empty(),
            "flavor {flavor}: carries saved at {saved:?}"
        );
        if flavor == 2 {
            assert_eq!(
                count(Mnemonic::Adox),
                2 * addcarries,
                "an adox per addcarry and per sum"
            );
            // A column's sum `hi + b.hi + carry` fits in 64 bits, so its `adox` leaves OF
            // 0 and the next chain starts without clearing it: only chains after an
            // instruction that leaves OF undefined (`shrd`, `add`, ...) need a `test`. In
            // the input order, that is only the first.
            assert_eq!(
                count(Mnemonic::Test),
                1,
                "flag clears before {addcarries} chains"
            );
        }
    }
}

/// A literal that needs a register (here 2^51 − 1, too wide for an immediate) is loaded
/// once and read from that register by every later use while nothing needs the register
/// for something else: two masks (`and` with a register) and a product's second factor.
#[test]
fn literals_stay_in_their_register() {
    use cryptopt_ir::{Op, Param, Ty};
    const MASK: u128 = (1 << 51) - 1;
    let out = Param::unbounded("out1", Ty::U64, Some(4));
    let arg = Param::unbounded("arg1", Ty::U64, Some(4));
    let mut f = Function::new("literals", vec![arg], vec![out]);
    let x: Vec<_> = (0..4)
        .map(|i| f.push1(Op::Load { param: 0, index: i }, vec![], Ty::U64))
        .collect();
    // out[0..2] = x & MASK; out[2], out[3] = the two halves of x2 · MASK.
    for (i, &v) in x[..2].iter().enumerate() {
        let m = f.push1(
            Op::And,
            vec![v.into(), cryptopt_ir::Operand::Const(MASK)],
            Ty::U64,
        );
        f.push(
            Op::Store {
                ret: 0,
                index: i as u32,
            },
            vec![m.into()],
            &[],
        );
    }
    let p = f.push1(
        Op::Mul,
        vec![x[2].into(), cryptopt_ir::Operand::Const(MASK)],
        Ty::U128,
    );
    let lo = f.push1(Op::Cast, vec![p.into()], Ty::U64);
    let sh = f.push1(
        Op::Shr,
        vec![p.into(), cryptopt_ir::Operand::Const(64)],
        Ty::U128,
    );
    let hi = f.push1(Op::Cast, vec![sh.into()], Ty::U64);
    f.push(Op::Store { ret: 0, index: 2 }, vec![lo.into()], &[]);
    let q = f.push1(Op::Add, vec![hi.into(), x[3].into()], Ty::U64);
    f.push(Op::Store { ret: 0, index: 3 }, vec![q.into()], &[]);
    let f = lower::lower(&f).unwrap();
    let mut gen = Generator::new(&f, Options::default()).unwrap();
    let c = Candidate::first(gen.deps());
    let insts = gen.generate(&c).unwrap().to_vec();
    let loads = insts
        .iter()
        .filter(|i| {
            i.mn == Mnemonic::Mov && i.operands().get(1) == Some(&Operand::Imm(MASK as i64))
        })
        .count();
    assert_eq!(loads, 1, "{insts:?}");
}

/// The list schedule by register pressure does what it is for: on unsaturated
/// multiplications its first program touches the stack less than the depth-first
/// order's (p521 mul: 94 accesses instead of 194 when this was written).
#[test]
fn low_pressure_order_spills_less() {
    let Some(dir) = std::env::var_os("CRYPTOPT_FIAT_JSON") else {
        eprintln!("SKIPPED low_pressure_order_spills_less: CRYPTOPT_FIAT_JSON is not set");
        return;
    };
    let stack = |insts: &[cryptopt_x86::Inst]| {
        insts
            .iter()
            .filter(|i| {
                i.operands()
                    .iter()
                    .any(|o| matches!(o, Operand::Mem(m) if m.base == Some(Reg::Rsp)))
            })
            .count()
    };
    for (file, name) in [
        ("p521_64.json", "fiat_p521_carry_mul"),
        ("curve25519_64.json", "fiat_25519_carry_mul"),
        ("p448_solinas_64.json", "fiat_p448_carry_square"),
    ] {
        let text = std::fs::read_to_string(std::path::Path::new(&dir).join(file)).unwrap();
        let f = lower::lower(&fiat::parse_function(&text, name).unwrap()).unwrap();
        let mut gen = Generator::new(&f, Options::default()).unwrap();
        let depth = Candidate::depth_first(&f, gen.deps());
        let low = Candidate::low_pressure(&f, gen.deps());
        let d = stack(gen.generate(&depth).unwrap());
        let l = stack(gen.generate(&low).unwrap());
        assert!(
            l < d,
            "{name}: low-pressure {l} stack accesses, depth-first {d}"
        );
    }
}

/// Law: a carry saved from a flag is the whole register's value: each `setc`/`seto`
/// is followed by its `movzx`, or writes a register whose last write before it was
/// `xor r32, r32` (the zero idiom placed before the flag was made) with nothing
/// reading or writing it in between; over random p256 mul candidates the zero idiom
/// is used.
#[test]
fn saved_carries_are_zero_extended() {
    let Some(f) = p256_mul() else {
        eprintln!("SKIPPED saved_carries_are_zero_extended: CRYPTOPT_FIAT_JSON is not set");
        return;
    };
    let touches = |i: &cryptopt_x86::Inst, r: Reg| i.regs() & (1 << r.index()) != 0;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
    let mut gen = Generator::new(&f, Options::default()).unwrap();
    let (mut idioms, mut saves) = (0, 0);
    for _ in 0..40 {
        let c = Candidate::random(&f, gen.deps(), &mut rng);
        let insts = gen.generate(&c).unwrap().to_vec();
        for (k, i) in insts.iter().enumerate() {
            if !matches!(i.mn, Mnemonic::Setc | Mnemonic::Seto) {
                continue;
            }
            saves += 1;
            let Operand::Reg(r, _) = i.operands()[0] else {
                panic!("{i:?} writes memory");
            };
            if matches!(insts.get(k + 1), Some(n) if n.mn == Mnemonic::Movzx && touches(n, r)) {
                continue;
            }
            let last = insts[..k]
                .iter()
                .rev()
                .find(|p| touches(p, r))
                .unwrap_or_else(|| panic!("{i:?} at {k}: nothing zeroed its register"));
            assert_eq!(
                (last.mn, last.operands()),
                (Mnemonic::Xor, &[Operand::r32(r), Operand::r32(r)][..]),
                "{i:?} at {k}"
            );
            idioms += 1;
        }
    }
    assert!(idioms > 0, "no zero idiom among {saves} saved carries");
}

/// Law: a wide literal read often (p256's 0xffffffff00000001, a multiplier of every
/// reduction step) gets a stack slot of its own: stored once, right after its first
/// load, never written again, and read from there as a memory operand.
#[test]
fn literals_read_often_have_a_stack_home() {
    let Some(f) = p256_mul() else {
        eprintln!("SKIPPED literals_read_often_have_a_stack_home: CRYPTOPT_FIAT_JSON is not set");
        return;
    };
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(12);
    let mut gen = Generator::new(&f, Options::default()).unwrap();
    let mut reads = 0;
    for _ in 0..40 {
        let c = Candidate::random(&f, gen.deps(), &mut rng);
        let insts = gen.generate(&c).unwrap().to_vec();
        let slot_of = |o: &Operand| match *o {
            Operand::Mem(m) if m.base == Some(Reg::Rsp) && m.index.is_none() => Some(m.disp),
            _ => None,
        };
        let homes: Vec<(usize, i32)> = insts
            .windows(2)
            .enumerate()
            .filter_map(|(k, w)| {
                let (load, store) = (&w[0], &w[1]);
                let wide = matches!(load.operands(), [Operand::Reg(r, _), Operand::Imm(v)]
                    if load.mn == Mnemonic::Mov && *v as u64 == 0xffff_ffff_0000_0001
                        && store.mn == Mnemonic::Mov && store.operands()[1] == Operand::r64(*r));
                wide.then(|| slot_of(&store.operands()[0]))
                    .flatten()
                    .map(|d| (k + 1, d))
            })
            .collect();
        assert_eq!(homes.len(), 1, "one home for the literal");
        let (at, d) = homes[0];
        for i in &insts[at + 1..] {
            let ops = i.operands();
            if i.mn == Mnemonic::Mov && ops.first().and_then(slot_of) == Some(d) {
                panic!("the literal's slot is written again: {i:?}");
            }
            if ops.iter().skip(1).any(|o| slot_of(o) == Some(d)) {
                reads += 1;
            }
        }
    }
    assert!(reads > 0, "the literal is never read from its slot");
}

/// Law: the deepest-first order accumulates Fiat's right-nested column sums from the
/// inside: in p521 mul, at most two products come before the first addition (the two
/// innermost terms), where the plain demand-driven order makes the whole column (nine
/// products) first.
#[test]
fn deepest_first_accumulates_column_sums() {
    let Some(dir) = std::env::var_os("CRYPTOPT_FIAT_JSON") else {
        eprintln!("SKIPPED deepest_first_accumulates_column_sums: CRYPTOPT_FIAT_JSON is not set");
        return;
    };
    let text = std::fs::read_to_string(std::path::Path::new(&dir).join("p521_64.json")).unwrap();
    let f = lower::lower(&fiat::parse_function(&text, "fiat_p521_carry_mul").unwrap()).unwrap();
    let gen = Generator::new(&f, Options::default()).unwrap();
    let products_before_first_sum = |c: &Candidate| {
        c.order
            .iter()
            .map(|k| f.insts[k.index()].op)
            .take_while(|op| !matches!(op, cryptopt_ir::Op::AddCarry { .. }))
            .filter(|op| matches!(op, cryptopt_ir::Op::Mulx { .. }))
            .count()
    };
    let deepest = products_before_first_sum(&Candidate::deepest_first(&f, gen.deps()));
    let plain = products_before_first_sum(&Candidate::demand_driven(&f, gen.deps()));
    assert!(
        deepest <= 2,
        "deepest-first: {deepest} products before the first sum"
    );
    assert!(
        plain > deepest,
        "demand-driven: {plain}, deepest-first: {deepest}"
    );
}
