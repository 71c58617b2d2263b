//! Tests of the limb arithmetic through the IR's interpreter: squares against products
//! of big integers, Crandall reduction and subtraction modulo `p` on inputs that reach
//! each of their steps, and the masked swap made a select only for a mask of a bit.

use super::*;
use cryptopt_ir::func::Param;
use cryptopt_ir::interp;

/// `build` run on a Wide of `in_bits` bits (bound `in_ub`) loaded from words, its
/// `out_bits`-bit result stored, and the function run by the IR's interpreter on `x`.
fn run(
    in_bits: u32,
    in_ub: BigUint,
    out_bits: u32,
    build: impl Fn(&mut Emit, &Wide) -> Wide,
    x: &BigUint,
) -> BigUint {
    let (ni, no) = (limbs(in_bits), limbs(out_bits));
    let params = vec![Param::unbounded("arg1", Ty::U64, Some(ni as u32))];
    let returns = vec![Param::unbounded("out1", Ty::U64, Some(no as u32))];
    let mut e = Emit::new(Function::new("f", params, returns));
    let limbs = (0..ni as u32)
        .map(|i| {
            e.f.push1(Op::Load { param: 0, index: i }, vec![], Ty::U64)
                .into()
        })
        .collect();
    let w = Wide {
        bits: in_bits,
        limbs,
        ub: in_ub,
    };
    let r = build(&mut e, &w);
    let r = e.resize(&r, out_bits);
    for i in 0..no {
        e.f.push(
            Op::Store {
                ret: 0,
                index: i as u32,
            },
            vec![r.limb(i)],
            &[],
        );
    }
    let mut d = x.to_u64_digits();
    d.resize(ni, 0);
    let input: Vec<u128> = d.iter().map(|&v| v as u128).collect();
    let out = interp::run(&e.f, &[input]).unwrap();
    out[0]
        .iter()
        .rev()
        .fold(BigUint::zero(), |acc, &v| (acc << 64u32) + BigUint::from(v))
}

/// `x mod p` for a 512-bit `x` by [`Emit::reduce`] (incomplete: the 256-bit result
/// is only congruent), run by the IR's interpreter.
fn reduce_words(p: &BigUint, complete: bool, x: &BigUint) -> BigUint {
    let p2 = p.clone();
    run(
        512,
        max_of(512),
        256,
        move |e, w| {
            e.reduce(w, &p2, 256, complete)
                .expect("of the form 2^n - c")
        },
        x,
    )
}

#[test]
fn squares_are_products_of_a_value_by_itself() {
    // (input bits, its bound, result bits): whole squares, truncated ones (the
    // wrapping `mul iN %x, %x`), and a bound below the type's.
    let p = (BigUint::one() << 255u32) - 19u32;
    let cases = [
        (255, max_of(255), 510),
        (256, max_of(256), 512),
        (256, max_of(256), 256),
        (192, max_of(192), 320),
        (130, max_of(130), 130),
        (255, &p - 1u32, 510),
    ];
    for (in_bits, ub, out_bits) in cases {
        let mut xs = vec![BigUint::zero(), BigUint::one(), ub.clone(), &ub >> 1u32];
        let mut v = BigUint::from(0x9e3779b97f4a7c15u64);
        while xs.len() < 40 {
            v = (&v * &v + 0x632be59bd9b4e019u64) % (&ub + 1u32);
            xs.push(v.clone());
        }
        for x in &xs {
            let got = run(
                in_bits,
                ub.clone(),
                out_bits,
                |e, w| e.mul(w, w, out_bits),
                x,
            );
            let want = (x * x) % (BigUint::one() << out_bits);
            assert_eq!(
                got, want,
                "{x:#x}² in {out_bits} bits ({in_bits}-bit input)"
            );
        }
    }
}

#[test]
fn crandall_reduction_is_congruent_where_the_last_step_carries() {
    let p = (BigUint::one() << 255u32) - 19u32;
    let top = BigUint::one() << 256u32;
    // x = lo + 2^256·hi with lo + 38·hi = 2^257 - 1 - t: the second step's sum is
    // at least 2^256, so the last step (folded into the lowest word) has hi = 1.
    let mut xs = vec![BigUint::zero(), max_of(512), &p * &p, &top - 1u32];
    for t in 0u32..40 {
        for r in 0u32..40 {
            let num = &top - t + r;
            if (&num % 38u32).is_zero() {
                let lo = &top - 1u32 - r;
                xs.push(lo + ((num / 38u32) << 256u32));
            }
        }
    }
    assert!(xs.len() > 10, "no input reaches the carrying last step");
    for x in &xs {
        let got = reduce_words(&p, false, x);
        assert!(got < top, "{x:#x}: {got:#x} is not below 2^256");
        assert_eq!(&got % &p, x % &p, "{x:#x}: not congruent");
        assert_eq!(reduce_words(&p, true, x), x % &p, "{x:#x}: not reduced");
    }
}

#[test]
fn subtraction_modulo_p_wraps_at_the_word_boundary() {
    // (p, W): x - y for x, y < 2^W, as a value below 2^W congruent modulo p. The
    // pairs reach each borrow: none, the first only, and both (x - y + 2^W < m).
    let cases = [
        ((BigUint::one() << 255u32) - 19u32, 256u32),
        ((BigUint::one() << 127u32) - 1u32, 128),
        ((BigUint::one() << 192u32) - 237u32, 192),
    ];
    for (p, word) in cases {
        let top = BigUint::one() << word;
        let m = &top % &p;
        let mut pairs = vec![];
        for j in 0u32..48 {
            let small = BigUint::from(j);
            let big = &top - 1u32 - j;
            pairs.push((small.clone(), big.clone()));
            pairs.push((big.clone(), small.clone()));
            pairs.push((&m - 1u32 + &small % &m, big.clone()));
            pairs.push((small.clone(), small.clone() + 1u32));
            pairs.push((big, &top - 1u32));
        }
        let mut v = BigUint::from(0x9e3779b97f4a7c15u64);
        for _ in 0..40 {
            v = (&v * &v + 0x632be59bd9b4e019u64) % &top;
            let u = (&v * 7u32 + 3u32) % &top;
            pairs.push((v.clone(), u));
        }
        assert!(
            pairs.iter().any(|(x, y)| x < y && x + &top - y < m),
            "no pair reaches the second borrow"
        );
        for (x, y) in &pairs {
            let input = x + (y << word);
            let p2 = p.clone();
            let got = run(
                2 * word,
                max_of(2 * word),
                word,
                move |e, w| {
                    let x = e.resize(w, word);
                    let y = e.lshr(w, word);
                    let y = e.resize(&y, word);
                    e.sub_mod(&x, &y, &p2).expect("of the form 2^n - c")
                },
                &input,
            );
            assert!(got < top, "{x:#x} - {y:#x}: {got:#x} is not below 2^{word}");
            let want = (x + &p * (y / &p + 1u32) - y) % &p;
            assert_eq!(&got % &p, want, "{x:#x} - {y:#x} mod {p:#x}: not congruent");
        }
    }
}

/// The masked swap `r = x ^ ((x ^ y) & m)` on 192-bit values, `m` as `mask` builds it
/// from `%s`: how many `cmovznz` the function read from LLVM text has, and its result
/// by the interpreter on `(x, y, s)`.
fn masked_swap(mask: &str, x: &BigUint, y: &BigUint, s: &BigUint) -> (usize, BigUint) {
    let text = format!(
        "define void @swap(ptr %o, ptr %a, ptr %b, ptr %c) {{\n  %x = load i192, ptr %a\n  \
         %y = load i192, ptr %b\n  %s = load i192, ptr %c\n{mask}  %d = xor i192 %x, %y\n  \
         %t = and i192 %d, %m\n  %r = xor i192 %x, %t\n  store i192 %r, ptr %o\n  ret void\n}}\n"
    );
    let f = crate::llvm::parse_function(&text, "swap").unwrap();
    let cmovs = f.insts.iter().filter(|d| d.op == Op::Cmovznz).count();
    let words = |v: &BigUint| -> Vec<u128> {
        let d = v.to_u64_digits();
        (0..3)
            .map(|i| d.get(i).copied().unwrap_or(0) as u128)
            .collect()
    };
    let out = interp::run(&f, &[words(x), words(y), words(s)]).unwrap();
    let got = out[0]
        .iter()
        .rev()
        .fold(BigUint::zero(), |acc, &v| (acc << 64u32) + BigUint::from(v));
    (cmovs, got)
}

#[test]
fn a_masked_swap_by_a_bit_is_a_select_and_any_other_mask_is_not() {
    let all = max_of(192);
    let neg = |v: BigUint| ((&all + 1u32) - v) & &all;
    // (how %m is made from %s, the same on big integers, whether it is a mask of a bit)
    type MaskOf<'a> = Box<dyn Fn(&BigUint) -> BigUint + 'a>;
    let cases: [(&str, MaskOf, bool); 5] = [
        (
            "  %bit = and i192 %s, 1\n  %m = sub i192 0, %bit\n",
            Box::new(|s| neg(s & BigUint::one())),
            true,
        ),
        (
            "  %bit = lshr i192 %s, 191\n  %m = sub i192 0, %bit\n",
            Box::new(|s| neg(s >> 191u32)),
            true,
        ),
        // Not masks of a bit: the value itself, 0 - (s & 3), 0 - s.
        ("  %m = add i192 %s, 0\n", Box::new(|s| s.clone()), false),
        (
            "  %bit = and i192 %s, 3\n  %m = sub i192 0, %bit\n",
            Box::new(|s| neg(s & BigUint::from(3u32))),
            false,
        ),
        (
            "  %m = sub i192 0, %s\n",
            Box::new(|s| neg(s.clone())),
            false,
        ),
    ];
    let x = BigUint::parse_bytes(b"123456789abcdef0fedcba9876543210f0e1d2c3b4a59687", 16).unwrap();
    let y = BigUint::parse_bytes(b"0f1e2d3c4b5a69788796a5b4c3d2e1f00123456789abcdef", 16).unwrap();
    let ss = [
        BigUint::zero(),
        BigUint::one(),
        BigUint::from(2u32),
        BigUint::from(3u32),
        all.clone(),
        BigUint::one() << 191u32,
        BigUint::parse_bytes(b"5555aaaa5555aaaa0000ffff0000ffffdeadbeefcafef00d", 16).unwrap(),
    ];
    for (mask, mask_of, is_select) in &cases {
        for s in &ss {
            let (cmovs, got) = masked_swap(mask, &x, &y, s);
            let want = &x ^ ((&x ^ &y) & mask_of(s));
            assert_eq!(got, want, "{mask:?} with s = {s:#x}");
            assert_eq!(cmovs > 0, *is_select, "{mask:?}: {cmovs} cmovznz");
        }
    }
}
