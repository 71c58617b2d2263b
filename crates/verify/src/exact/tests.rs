//! Tests of the exact-integer check: a table of identities that compilers' code relies
//! on (each proved, and a wrong twin of each not proved), and a property test on the
//! graph fuzzer's random graphs: every node's polynomial evaluates to the node's value,
//! and two nodes called equal agree on every sampled input.
//!
//! The references are the graph's own evaluator ([`Graph::eval`]) and integers computed
//! directly; they must never be adapted to what this module concludes.

use proptest::prelude::*;

use super::Exact;
use crate::graph::tests::fuzz::{build_graph, random_graphs};
use crate::graph::{Graph, NodeId, Sym};

const M64: u128 = u64::MAX as u128;

fn word(g: &mut Graph, i: u32, ub: u128) -> NodeId {
    g.sym(Sym::Input { param: 0, index: i }, ub, format!("x{i}"))
}

/// Builds two nodes with `f` and says whether the exact form proves them equal.
fn check(name: &str, f: impl Fn(&mut Graph) -> (NodeId, NodeId)) -> bool {
    let mut g = Graph::new();
    let (a, b) = f(&mut g);
    assert_ne!(
        a, b,
        "{name}: the graph's normal form alone makes them one node"
    );
    let mut x = Exact::new(&g);
    x.equal(a, b)
}

/// A graph with the product of two 64-bit words, and that product.
fn product_of_two_words() -> (Graph, NodeId) {
    let mut g = Graph::new();
    let (a, b) = (word(&mut g, 0, M64), word(&mut g, 1, M64));
    let prod = g.prod(a, b);
    (g, prod)
}

fn words(g: &mut Graph) -> [NodeId; 4] {
    [0, 1, 2, 3].map(|i| word(g, i, M64))
}

#[test]
fn identities_of_compiled_code() {
    // The high word of a sum of three products: low words added in a tree (carries
    // into the high words' sum) against the exact 128-bit sum.
    assert!(check("three products, tree of low words", |g| {
        let x = words(g);
        let (p, q, r) = (g.prod(x[0], x[1]), g.prod(x[1], x[2]), g.prod(x[2], x[3]));
        let [pl, ql, rl] = [p, q, r].map(|v| g.slice(v, 0, 64));
        let [ph, qh, rh] = [p, q, r].map(|v| g.slice(v, 64, 64));
        let c1 = g.carry(64, &[ql, rl], 0);
        let s1 = g.add(64, &[(ql, 1), (rl, 1)], 0);
        let c2 = g.carry(64, &[pl, s1], 0);
        let hi = g.add(64, &[(ph, 1), (qh, 1), (rh, 1), (c1, 1), (c2, 1)], 0);
        let exact = g.carry(64, &[p, q, r], 0);
        (g.trunc(exact, 64), hi)
    }));
    // The two 64-bit words of a 128-bit sum of two products, summed low words first or
    // as exact 128-bit values.
    assert!(check("128-bit sum of two products", |g| {
        let (a, b, c, d) = (
            word(g, 0, M64),
            word(g, 1, M64),
            word(g, 2, M64),
            word(g, 3, M64),
        );
        let (p, q) = (g.prod(a, b), g.prod(c, d));
        let (pl, ph, ql, qh) = (
            g.slice(p, 0, 64),
            g.slice(p, 64, 64),
            g.slice(q, 0, 64),
            g.slice(q, 64, 64),
        );
        let c = g.carry(64, &[pl, ql], 0);
        let hi = g.add(64, &[(ph, 1), (qh, 1), (c, 1)], 0);
        let exact = g.carry(64, &[p, q], 0);
        (g.trunc(exact, 64), hi)
    }));
    // Montgomery's low word: t + lo(m·p0) with m = lo(t·p') is 0 mod 2^64, so the carry
    // out of it is 1 exactly when t ≠ 0 (p0 = 2^64 - 2^32 + 1 is not special).
    let p0: u128 = 0xffffffff00000001;
    let pinv: u128 = {
        // -p0^-1 mod 2^64 by Newton's iteration.
        let mut x: u128 = 1;
        for _ in 0..7 {
            x = x.wrapping_mul(2u128.wrapping_sub(p0.wrapping_mul(x))) & M64;
        }
        (1u128 << 64).wrapping_sub(x) & M64
    };
    assert_eq!(p0.wrapping_mul(pinv) & M64, M64);
    assert!(check("Montgomery low word", |g| {
        let t = word(g, 0, M64);
        let k = g.konst(pinv);
        let m = g.mul(64, &[t, k]);
        let c0 = g.konst(p0);
        let mp = g.prod(m, c0);
        let lo = g.slice(mp, 0, 64);
        (g.carry(64, &[t, lo], 0), g.nonzero(t))
    }));
    // hi(m·(2^64 - 1)) as compilers strength-reduce it: m - (m ≠ 0), the borrow of
    // `neg m`.
    assert!(check("hi(m*(2^64-1)) by neg", |g| {
        let m = word(g, 0, M64);
        let c = g.konst(M64);
        let p = g.prod(m, c);
        let hi = g.slice(p, 64, 64);
        let z = g.konst(0);
        let b = g.borrow(z, &[m], 0);
        (hi, g.add(64, &[(m, 1), (b, M64)], 0))
    }));
    // The borrow out of a three-word subtraction of a constant, as a chain of borrows
    // (Fiat's subborrowx) and as the sign of 128-bit signed differences whose high
    // halves are passed on arithmetically (gcc's `sbb`/`sar` code).
    assert!(check("borrow chain vs signed words", |g| {
        let (chain, signed) = subtraction_borrows(g, P256_LOW);
        (chain[3], signed[3])
    }));
    // The words above the lowest (that one is one node already) agree too.
    for i in 1..3 {
        assert!(check("words of a subtraction chain", |g| {
            let (chain, signed) = subtraction_borrows(g, P256_LOW);
            (chain[i], signed[i])
        }));
    }
    // The same for a difference of two variable three-word values (clang's `sub`/`sbb`
    // pairs): a word's signed difference a_i - b_i - borrow reaches -2^64 exactly, so
    // its low word is the difference plus 2^64 times its sign down to that end (the
    // middle word is one node already).
    for i in 2..4 {
        assert!(check("words and borrow of a difference of words", |g| {
            let (chain, signed) = difference_borrows(g, true);
            (chain[i], signed[i])
        }));
    }
    // lo(x) + lo(-x) is 2^64 exactly when x ≠ 0 mod 2^64 (a product, so no range helps).
    assert!(check("a word and its negation", |g| {
        let x = words(g);
        let p = g.prod(x[0], x[1]);
        let m = g.konst(M64);
        let (lo, neg) = (g.trunc(p, 64), g.mul(64, &[p, m]));
        let s = g.add(128, &[(lo, 1), (neg, 1)], 0);
        let nz = g.nonzero(lo);
        (g.slice(s, 64, 1), nz)
    }));
    // A low part that cannot carry stays outside the truncation: lo(3·2^32·x + b, 64) is
    // 2^32·lo(3x, 32) + b (b a bit), at most 2^64 - 2^32 + 1, so adding 2^32 - 3 never
    // carries (a range only the split shows; P-224's reduction as gcc computes it, with
    // an odd factor that keeps the graph's own range of the shifted word from seeing it,
    // and a constant whose bit 0 the bit may share: with 2^32 - 2 the graph sees three
    // disjoint parts, rule `carry-flatten`).
    assert!(check("low bits that cannot carry", |g| {
        let x = words(g);
        let p = g.prod(x[0], x[1]);
        let b = g.nonzero(x[2]);
        let sh = g.add(64, &[(p, 3 << 32), (b, 1)], 0);
        (g.carry(64, &[sh], (1 << 32) - 3), g.konst(0))
    }));
    // A borrow as clang keeps it: the carry of w + 1 (1 exactly when the word w is all
    // ones) minus one, sign-extended (0 or -1), against the IR's borrow of
    // w - (2^64 - 1), negated (clang adds 1 where Fiat subtracts P-256's low word).
    assert!(check("a borrow as the sign of a carry minus one", |g| {
        carry_minus_one(g, 1, M64)
    }));
    // The same with secp256k1's low word, 2^64 - 0x1000003d1: the carry of w + 0x1000003d1
    // tests w + 0x1000003d1 ≥ 2^64 where the IR tests w < p0, two thresholds on one
    // value (of x0 + x1, itself tested against 2^64) that only a case split relates.
    assert!(check(
        "a borrow as the sign of a carry, secp256k1's constant",
        |g| { carry_minus_one(g, 0x1000003d1, SECP_P0) }
    ));
    // A negation's borrows as clang passes them on (`sbb r, r` and `sar`): the signed
    // high word of -x0 - x1 (the sign-extended borrow minus a borrow) against the IR's
    // second borrow of 0 - x, negated.
    assert!(check("signed high word of a negation", |g| {
        let x = words(g);
        let zero = g.konst(0);
        let b0 = g.borrow(zero, &[x[0]], 0);
        let h0 = g.add(64, &[(b0, M64)], 0);
        let s = g.sar(64, h0, 63);
        let b = g.borrow(s, &[x[1]], 0);
        let hi = g.add(64, &[(s, 1), (b, M64)], 0);
        let b1 = g.borrow(zero, &[b0, x[1]], 0);
        (hi, g.add(64, &[(b1, M64)], 0))
    }));
    // The borrow of a two-word subtraction as clang computes it through `__int128`:
    // the low word's signed difference shifted down (`sar`) into the high word's, whose
    // sign is the borrow, against the IR's borrow of the whole 128-bit value.
    assert!(check("sign of a signed high word", |g| wide_sign(g, true)));
    // Bit 1 of a square is zero (the graph's range knows that much), so bit 1 of an
    // odd multiple of a square is bit 0 of the root.
    assert!(check("bit 1 of three squares", |g| {
        let x = word(g, 0, (1 << 40) - 1);
        let sq = g.prod(x, x);
        let three = g.add(128, &[(sq, 3)], 0);
        (g.slice(three, 1, 1), g.slice(x, 0, 1))
    }));
}

/// secp256k1's lowest word.
const SECP_P0: u128 = 0xfffffffefffffc2f;

/// `[x < K]` for `x = 2^64·h + l0 + l1 + l2 + l3` (four words and a high part below
/// 2^60) and a two-word constant `K`, and the sign of `h - K1 + ⌊(l0 + .. + l3 - K0) /
/// 2^64⌋` computed in 128-bit two's complement: the low part's high word is the carry
/// `(S - lo(S, 64)) / 2^64` of a sum too wide for a sign test (`with_low = false`: the
/// wrong twin that drops it).
fn wide_sign(g: &mut Graph, with_low: bool) -> (NodeId, NodeId) {
    let (k0, k1): (u128, u128) = (0x8000_0000_0000_0001, 0xffff_ffff);
    let l = [0, 1, 2, 3].map(|i| word(g, i, M64));
    let h = word(g, 4, (1 << 60) - 1);
    let low: Vec<(NodeId, u128)> = l.iter().map(|&w| (w, 1)).collect();
    let mut all = low.clone();
    all.push((h, 1 << 64));
    let wide = g.add(128, &all, 0);
    let borrow = g.borrow(wide, &[], k0 | k1 << 64);
    let low = g.add(128, &low, k0.wrapping_neg());
    let s0 = g.sar(128, low, 64);
    let mut terms = vec![(h, 1)];
    if with_low {
        terms.push((s0, 1));
    }
    let high = g.add(128, &terms, k1.wrapping_neg());
    (borrow, g.slice(high, 127, 1))
}

/// `sar(carry(w + k) - 1, 63)` for the word `w = lo(x0 + x1)`, and `-[w < p]` (64-bit
/// words): equal for `k = 2^64 - p`.
fn carry_minus_one(g: &mut Graph, k: u128, p: u128) -> (NodeId, NodeId) {
    let x = words(g);
    let w = g.add(64, &[(x[0], 1), (x[1], 1)], 0);
    let c = g.carry(64, &[w], k);
    let m = g.add(64, &[(c, 1)], M64);
    let b = g.borrow(w, &[], p);
    (g.sar(64, m, 63), g.add(64, &[(b, M64)], 0))
}

/// P-256's three low words.
const P256_LOW: [u128; 3] = [M64, 0xffffffff, 0];

/// `a - p` for a three-word `a` and a constant `p`: the words and the final borrow,
/// computed by a borrow chain and by signed 128-bit differences (`[w0, w1, w2,
/// borrow]` each).
fn subtraction_borrows(g: &mut Graph, p: [u128; 3]) -> ([NodeId; 4], [NodeId; 4]) {
    let p = p.map(|c| g.konst(c));
    borrows(g, p, true)
}

/// `a - b` for three-word `a` and `b` (the subtrahend's words `b` given): the words
/// and the final borrow, computed by a borrow chain (Fiat's subborrowx) and by signed
/// 128-bit differences whose high halves are passed on arithmetically (gcc's
/// `sbb`/`sar`, clang's `sub`/`sbb` pairs), `[w0, w1, w2, borrow]` each; without
/// `carry_in`, the signed form forgets the borrow into the middle word (a wrong twin).
fn borrows(g: &mut Graph, b: [NodeId; 3], carry_in: bool) -> ([NodeId; 4], [NodeId; 4]) {
    const NEG: u128 = u128::MAX;
    let a = [0, 1, 2].map(|i| word(g, i, M64));
    let mut chain = [a[0]; 4];
    let mut brw = g.konst(0);
    for i in 0..3 {
        let d = g.add(64, &[(a[i], 1), (b[i], NEG), (brw, NEG)], 0);
        chain[i] = g.trunc(d, 64);
        brw = g.borrow(a[i], &[b[i], brw], 0);
    }
    chain[3] = brw;
    let mut signed = [a[0]; 4];
    let mut carry = g.konst(0);
    for i in 0..3 {
        let c = if carry_in || i != 1 { 1 } else { 0 };
        let d = g.add(128, &[(a[i], 1), (b[i], NEG), (carry, c)], 0);
        signed[i] = g.trunc(d, 64);
        carry = g.sar(128, d, 64);
    }
    signed[3] = g.slice(carry, 127, 1);
    (chain, signed)
}

/// `a - b` for variable three-word `a` and `b` (see [`borrows`]).
fn difference_borrows(g: &mut Graph, carry_in: bool) -> ([NodeId; 4], [NodeId; 4]) {
    let b = [3, 4, 5].map(|i| word(g, i, M64));
    borrows(g, b, carry_in)
}

#[test]
fn wrong_twins_are_not_proved() {
    // The same high word with one carry left out.
    assert!(!check("three products, a carry left out", |g| {
        let x = words(g);
        let (p, q, r) = (g.prod(x[0], x[1]), g.prod(x[1], x[2]), g.prod(x[2], x[3]));
        let [ql, rl] = [q, r].map(|v| g.slice(v, 0, 64));
        let [ph, qh, rh] = [p, q, r].map(|v| g.slice(v, 64, 64));
        let c1 = g.carry(64, &[ql, rl], 0);
        let hi = g.add(64, &[(ph, 1), (qh, 1), (rh, 1), (c1, 1)], 0);
        let exact = g.carry(64, &[p, q, r], 0);
        (g.trunc(exact, 64), hi)
    }));
    // The signed high word without the low word's part.
    assert!(!check(
        "sign of a signed high word, low part dropped",
        |g| { wide_sign(g, false) }
    ));
    // The negation's signed high word without the borrow out of the second word.
    assert!(!check(
        "signed high word of a negation, a borrow forgotten",
        |g| {
            let x = words(g);
            let zero = g.konst(0);
            let b0 = g.borrow(zero, &[x[0]], 0);
            let h0 = g.add(64, &[(b0, M64)], 0);
            let s = g.sar(64, h0, 63);
            let b1 = g.borrow(zero, &[b0, x[1]], 0);
            (s, g.add(64, &[(b1, M64)], 0))
        }
    ));
    // A word plus two carries also when the word is 2^64 - 2.
    assert!(!check("a borrow from the carry of a word plus two", |g| {
        carry_minus_one(g, 2, M64)
    }));
    // secp256k1's constant against a threshold one off.
    assert!(!check("a borrow from a carry, a threshold one off", |g| {
        carry_minus_one(g, 0x1000003d1, SECP_P0 + 1)
    }));
    // A dropped carry that can occur: hi(a·b) + c + carry overflows for some inputs.
    assert!(!check("dropped carry that can occur", |g| {
        let (a, b, c, d) = (
            word(g, 0, M64),
            word(g, 1, M64),
            word(g, 2, M64),
            word(g, 3, M64),
        );
        let p = g.prod(a, b);
        let ph = g.slice(p, 64, 64);
        let s = g.add(128, &[(ph, 1), (c, 1), (d, 1)], 0);
        (g.slice(s, 0, 64), g.add(64, &[(ph, 1), (c, 1), (d, 1)], 1))
    }));
    // A low part that can carry (b < 2^33): adding 2^32 - 2 can carry.
    assert!(!check("low bits that can carry", |g| {
        let x = words(g);
        let p = g.prod(x[0], x[1]);
        let b = g.trunc(x[2], 33);
        let sh = g.add(64, &[(p, 1 << 32), (b, 1)], 0);
        (g.carry(64, &[sh], (1 << 32) - 2), g.konst(0))
    }));
    // lo(x) + lo(-x) is not 2^64 when x may be 0.
    assert!(!check("a word and its negation, zero forgotten", |g| {
        let x = words(g);
        let p = g.prod(x[0], x[1]);
        let m = g.konst(M64);
        let (lo, neg) = (g.trunc(p, 64), g.mul(64, &[p, m]));
        let s = g.add(128, &[(lo, 1), (neg, 1)], 0);
        (g.slice(s, 64, 1), g.konst(1))
    }));
    // The final borrow of a subtraction of another constant.
    assert!(!check(
        "borrow chain vs signed words of another constant",
        |g| {
            let (chain, _) = subtraction_borrows(g, [M64, 0xffffffff, 0]);
            let (_, signed) = subtraction_borrows(g, [M64, 0xffffffff, 1]);
            (chain[3], signed[3])
        }
    ));
    // A difference of words whose signed form forgets a borrow.
    assert!(!check("difference of words, a borrow forgotten", |g| {
        let (chain, signed) = difference_borrows(g, false);
        (chain[3], signed[3])
    }));
    // The borrow of `neg m` in place of its carry's complement.
    assert!(!check("borrow of neg, wrong", |g| {
        let m = word(g, 0, M64);
        let c = g.konst(M64);
        let p = g.prod(m, c);
        let hi = g.slice(p, 64, 64);
        (hi, g.add(64, &[(m, 1)], M64))
    }));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(384))]

    /// On random graphs: every node's polynomial has the node's value, and nodes called
    /// equal have equal values. With `written`, in the view that uses written forms
    /// ([`Graph::written`]): every leaf aliased to itself makes every node written over
    /// a sum translated from its written form, which must have the node's value too (and
    /// so must each written form under the graph's own evaluation).
    #[test]
    fn translation_is_exact((bounds, ops, vals) in random_graphs(6), written in any::<bool>()) {
        let (g, nodes, _) = build_graph(&bounds, &ops);
        let mut x = Exact::new(&g);
        if written {
            x.use_written = true;
            for &n in &nodes[..bounds.len()] {
                x.alias(n, n);
            }
        }
        let mut equal = Vec::new();
        for (i, &a) in nodes.iter().enumerate() {
            for &b in &nodes[..i] {
                if a != b && x.equal(a, b) {
                    equal.push((a, b));
                }
            }
        }
        for leaf in &vals {
            let v = g.eval(&mut |s| match s {
                Sym::Input { index, .. } => leaf[index as usize],
                _ => 0,
            });
            let bad = x.mismatches(&v);
            prop_assert!(bad.is_empty(), "{:?}: {}", bad[0], g.show(bad[0], 200));
            for &(a, b) in &equal {
                prop_assert_eq!(v[a.index()], v[b.index()], "{} vs {}", g.show(a, 200), g.show(b, 200));
            }
            for &n in &nodes {
                if let Some(f) = g.written(n) {
                    prop_assert_eq!(written_value(f, &v), v[n.index()], "{}", g.show(n, 200));
                }
            }
        }
    }
}

/// The value of a written form given every node's value (the reference: integers
/// computed directly).
fn written_value(f: &crate::graph::Node, v: &[u128]) -> u128 {
    use crate::graph::Node;
    use num_bigint::BigInt;
    let val = |n: NodeId| BigInt::from(v[n.index()]);
    let r: BigInt = match f {
        Node::Add { w, k, terms } => {
            let s = terms.iter().fold(BigInt::from(*k), |acc, &(t, c)| {
                acc + val(t) * BigInt::from(c)
            });
            let m = BigInt::from(1) << *w as usize;
            ((s % &m) + &m) % &m
        }
        Node::Carry { shift, k, args } => {
            args.iter().fold(BigInt::from(*k), |acc, &t| acc + val(t)) >> *shift as usize
        }
        Node::Borrow { a, k, subs } => {
            let s = subs.iter().fold(BigInt::from(*k), |acc, &t| acc + val(t));
            BigInt::from((val(*a) < s) as u8)
        }
        other => panic!("a written form is a sum, carry or borrow, not {other:?}"),
    };
    u128::try_from(r).unwrap()
}

/// The sign of `2^64·H + S - lo(S, 64)` (a signed high word `H + ⌊S / 2^64⌋` scaled
/// back, as a borrow chain in `__int128` leaves it) is the sign of `2^64·H + S`: one
/// sign test, whichever way the low part was carried; not so when the truncated sum is
/// not the one added (`S + 1`).
#[test]
fn the_sign_of_a_floor_is_the_sign_of_the_value() {
    use super::poly::{pow2, Poly};
    use num_bigint::BigInt;
    let mut g = Graph::new();
    let l = [0, 1, 2, 3].map(|i| word(&mut g, i, M64));
    let h = word(&mut g, 4, (1 << 60) - 1);
    let mut x = Exact::new(&g);
    let l = l.map(|w| x.value(w).unwrap());
    let h = x.value(h).unwrap();
    let k0 = Poly::konst(BigInt::from(0x8000_0000_0000_0001u128));
    let s = Poly::sum(&l).sub(&k0);
    let high = h
        .sub(&Poly::konst(BigInt::from(0xffff_ffffu32)))
        .scale(&pow2(64));
    let whole = x.neg(&high.add(&s));
    for (name, truncated, equal) in [
        ("S", s.clone(), true),
        ("S + 1", s.add(&Poly::konst(BigInt::from(1))), false),
    ] {
        let lo = x.lo(truncated, 64, None).unwrap();
        assert!(lo.as_atom().is_some(), "{name}: lo is an atom");
        let floor = x.neg(&high.add(&s).sub(&lo));
        assert_eq!(floor == whole, equal, "{name}");
    }
}

/// One value written with an inner truncation in other proportions is one atom: with
/// `L = lo(P, 64)`, `lo(d·P + c·L, 192)` and `lo((d + 2^128·h)·P + (c - 2^128·h)·L, 192)`
/// are equal (`2^128·L ≡ 2^128·P` modulo `2^192`) — clang's Montgomery factors, each
/// with its own mix of a product and the product's low word. Not so when the
/// coefficients differ by anything else.
#[test]
fn inner_truncations_in_other_proportions_are_one_atom() {
    use super::poly::pow2;
    use num_bigint::BigInt;
    let (g, prod) = product_of_two_words();
    let mut x = Exact::new(&g);
    let p = x.value(prod).unwrap();
    let l = x.lo(p.clone(), 64, None).unwrap();
    assert!(l.as_atom().is_some(), "lo(P, 64) is an atom");
    let big = |v: u128| BigInt::from(v);
    let (d, c, h) = (
        big(0x1234_5678_9abc_def1),
        big(0xfedc_ba98_7654_3211),
        big(0x5),
    );
    let word = |x: &mut Exact, dp: &BigInt, cl: &BigInt| {
        let q = p.scale(dp).add(&l.scale(cl));
        x.lo(q, 192, None).unwrap()
    };
    let first = word(&mut x, &(&c * pow2(128) + &d), &c);
    let moved = &h * pow2(128);
    for (name, dp, cl, equal) in [
        ("moved", &c * pow2(128) + &d + &moved, &c - &moved, true),
        (
            "moved to P only",
            &c * pow2(128) + &d + &moved,
            c.clone(),
            false,
        ),
        (
            "moved less",
            &c * pow2(128) + &d + &moved,
            &c - &moved + 1,
            false,
        ),
    ] {
        let other = word(&mut x, &dp, &cl);
        assert!(other.as_atom().is_some(), "{name}: an atom");
        assert_eq!(other == first, equal, "{name}");
    }
}

/// A wrapped value is in range: rule `near` writes `lo(S, 128)` of a sum of two
/// products as `Y + 2^128·neg(Y)` with `Y = S - 2^128`, which is in `[0, 2^128)` though
/// term-by-term bounds say `[-2^128, 2^129)`. With a word above it (fiat's next
/// Montgomery row over the words below a carry it keeps apart), the wider truncation is
/// the value itself. Not so when the wrap is by anything but `2^128`.
#[test]
fn a_wrapped_value_is_bounded_as_a_whole() {
    use super::poly::{pow2, Poly};
    use num_bigint::BigInt;
    use num_traits::{Signed, Zero};
    let mut g = Graph::new();
    let l = [0, 1, 2, 3, 4].map(|i| word(&mut g, i, M64));
    let (p, q) = (g.prod(l[0], l[1]), g.prod(l[2], l[3]));
    let mut x = Exact::new(&g);
    let [p, q, e] = [p, q, l[4]].map(|n| x.value(n).unwrap());
    let s = p.add(&q);
    let low = x.lo(s.clone(), 128, None).unwrap();
    assert!(
        low.as_atom().is_none(),
        "lo(S, 128) is written with a sign atom"
    );
    let y = s.sub(&Poly::konst(pow2(128)));
    let n = x.neg(&y);
    for (name, wrap, in_range) in [
        ("2^128", pow2(128), true),
        ("2^127", pow2(127), false),
        ("2^128 + 1", pow2(128) + 1, false),
    ] {
        let v = y.add(&n.scale(&wrap));
        let (lo, hi) = x.interval(&v);
        assert_eq!(
            !lo.is_negative() && hi < pow2(128),
            in_range,
            "{name}: [{lo:#x}, {hi:#x}]"
        );
        let whole = v.add(&e.scale(&pow2(128)));
        let t = x.lo(whole.clone(), 192, None).unwrap();
        assert_eq!(t == whole, in_range, "{name}: lo(v + 2^128·e, 192)");
    }
    assert_eq!(
        x.lo(low.add(&e.scale(&pow2(128))), 192, None)
            .unwrap()
            .sub(&low)
            .sub(&e.scale(&pow2(128))),
        Poly::konst(BigInt::zero()),
        "lo(S, 128) + 2^128·e below 2^192"
    );
}

/// `lo(o·P, 64)` is zero exactly when `lo(P, 64)` is, for `o` odd: a Montgomery factor
/// `m = lo(t·p', 64)` and the word `t` it comes from are zero together (clang tests one
/// where the IR tests the other). Not so for an even multiplier.
#[test]
fn an_odd_multiple_is_zero_with_the_word() {
    use num_bigint::BigInt;
    let (g, prod) = product_of_two_words();
    let mut x = Exact::new(&g);
    let p = x.value(prod).unwrap();
    let l = x.lo(p.clone(), 64, None).unwrap();
    let z = x.eqz(l);
    for (name, o, same) in [
        ("p' of secp256k1", 0xd838_091d_d225_3531u128, true),
        ("-p' of secp256k1", 0x27c7_f6e2_2dda_cacf, true),
        ("3", 3, true),
        ("2", 2, false),
        ("2·p'", 0xd838_091d_d225_3531 * 2, false),
    ] {
        let m = x.lo(p.scale(&BigInt::from(o)), 64, None).unwrap();
        assert_eq!(x.eqz(m) == z, same, "{name}");
    }
}

/// A Montgomery factor subtracted from a wide sum is peeled in any written form: with
/// `m = lo(T, 64)`, the next factor `lo((T + 2^96·m - m) / 2^64, 64)` (the IR's, after a
/// canonical argument wrote `-m` as `(2^64 - 1)·m - 2^64·T`) is `(lo(T + 2^96·m, 128) -
/// m) / 2^64` (a program that adds `m` shifted into place and drops the low word `m`).
/// Not so when the coefficient of `m` is off by `2^64` (the word plus `m`).
#[test]
fn a_factor_is_peeled_in_its_canonical_form() {
    use super::poly::pow2;
    let mut g = Graph::new();
    let w = words(&mut g);
    let (p, q) = (g.prod(w[0], w[1]), g.prod(w[2], w[3]));
    let mut x = Exact::new(&g);
    let (p, q) = (x.value(p).unwrap(), x.value(q).unwrap());
    let t = p.add(&q.scale(&pow2(64)));
    let m = x.lo(t.clone(), 64, None).unwrap();
    assert!(m.as_atom().is_some(), "m is an atom");
    let shifted = t.add(&m.scale(&pow2(96)));
    let program = x.lo(shifted.clone(), 128, None).unwrap().sub(&m).shr(64);
    for (name, c, equal) in [
        ("2^64 - 1", pow2(64) - 1, true),
        ("2^65 - 1 (the word plus m)", pow2(65) - 1, false),
    ] {
        // T + 2^96·m + c·m - 2^64·T, over 2^64.
        let ir = shifted.add(&m.scale(&c)).sub(&t.scale(&pow2(64))).shr(64);
        let ir = x.lo(ir, 64, None).unwrap();
        assert_eq!(ir == program, equal, "{name}");
    }
}

/// `x + y + cin` as (word, carry).
fn adc(g: &mut Graph, x: NodeId, y: NodeId, cin: NodeId) -> (NodeId, NodeId) {
    (
        g.add(64, &[(x, 1), (y, 1), (cin, 1)], 0),
        g.carry(64, &[x, y, cin], 0),
    )
}

/// `x - y - bin` as (word, borrow).
fn sbb(g: &mut Graph, x: NodeId, y: NodeId, bin: NodeId) -> (NodeId, NodeId) {
    (
        g.add(64, &[(x, 1), (y, M64), (bin, M64)], 0),
        g.borrow(x, &[y, bin], 0),
    )
}

/// `x·y` as `y.len() + 1` words (Fiat's `mul_word`).
fn mul_word(g: &mut Graph, x: NodeId, y: &[NodeId]) -> Vec<NodeId> {
    let zero = g.konst(0);
    let mut out = Vec::new();
    let mut hi_prev = None;
    let mut cin = zero;
    for &yi in y {
        let p = g.prod(x, yi);
        let (l, h) = (g.slice(p, 0, 64), g.slice(p, 64, 64));
        match hi_prev {
            None => out.push(l),
            Some(hp) => {
                let (w, c) = adc(g, hp, l, cin);
                out.push(w);
                cin = c;
            }
        }
        hi_prev = Some(h);
    }
    let (w, _) = adc(g, hi_prev.unwrap(), zero, cin);
    out.push(w);
    out
}

/// `x + y` word by word (equal lengths) from carry 0: the words and the carry out.
fn add_words(g: &mut Graph, x: &[NodeId], y: &[NodeId]) -> (Vec<NodeId>, NodeId) {
    let mut cin = g.konst(0);
    let mut out = Vec::new();
    for (&a, &b) in x.iter().zip(y) {
        let (w, c) = adc(g, a, b, cin);
        out.push(w);
        cin = c;
    }
    (out, cin)
}

/// The n words of `p = 2^(64n) - c` (c's words, word 0 odd): `2^64 - c_0`, then the
/// complements of the words of c.
fn p_words(g: &mut Graph, n: usize, c: &[u128]) -> Vec<NodeId> {
    (0..n)
        .map(|i| {
            let ci = c.get(i).copied().unwrap_or(0);
            g.konst(if i == 0 { (1 << 64) - ci } else { M64 - ci })
        })
        .collect()
}

/// `-p⁻¹ mod 2^64` for `p ≡ -c (mod 2^64)`: `c⁻¹`, by Newton's iteration (c odd).
fn minus_p_inverse(c: u64) -> u64 {
    let mut x: u64 = 1;
    for _ in 0..6 {
        x = x.wrapping_mul(2u64.wrapping_sub(c.wrapping_mul(x)));
    }
    assert_eq!(c.wrapping_mul(x), 1);
    x
}

/// One Montgomery step for `p = 2^128 - c` (two words; `c = 159`): Fiat's `m·p` as two
/// full products in one carry chain, against the pseudo-Mersenne fold of
/// `gen::fields::montgomery` (`m` added to the top word, `⌊m·c / 2^64⌋` subtracted with
/// a borrow chain, the top word less the last borrow). The pairs: the two words and the
/// top word; with `wrong`, the fold's top word forgets the borrow.
fn pseudo_mersenne_step(g: &mut Graph, wrong: bool) -> [(NodeId, NodeId); 3] {
    let c: u128 = 159;
    let mp = minus_p_inverse(c as u64);
    let s = [0, 1, 2].map(|i| word(g, i, M64));
    let kmp = g.konst(mp as u128);
    let t = g.prod(s[0], kmp);
    let m = g.slice(t, 0, 64);
    // Fiat: m·p0 and m·p1 (p1 = 2^64 - 1) in one chain.
    let (k0, k1) = (g.konst((1u128 << 64) - c), g.konst(M64));
    let (pr0, pr1) = (g.prod(m, k0), g.prod(m, k1));
    let [lo0, hi0, lo1, hi1] =
        [(pr0, 0), (pr0, 64), (pr1, 0), (pr1, 64)].map(|(v, f)| g.slice(v, f, 64));
    let c0 = g.carry(64, &[s[0], lo0], 0);
    let x1 = g.add(64, &[(s[1], 1), (hi0, 1), (lo1, 1), (c0, 1)], 0);
    let c1 = g.carry(64, &[s[1], hi0, lo1, c0], 0);
    let x2 = g.add(64, &[(s[2], 1), (hi1, 1), (c1, 1)], 0);
    let c2 = g.carry(64, &[s[2], hi1, c1], 0);
    // The fold: (S + m·p) / 2^64 = S_1.. + m·2^64 - ⌊m·c / 2^64⌋.
    let kc = g.konst(c);
    let pc = g.prod(m, kc);
    let hc = g.slice(pc, 64, 64);
    let y = g.add(64, &[(s[2], 1), (m, 1)], 0);
    let cy = g.carry(64, &[s[2], m], 0);
    let d0 = g.add(64, &[(s[1], 1), (hc, M64)], 0);
    let b0 = g.borrow(s[1], &[hc], 0);
    let d1 = g.add(64, &[(y, 1), (b0, M64)], 0);
    let b1 = g.borrow(y, &[b0], 0);
    let top = if wrong {
        cy
    } else {
        g.add(64, &[(cy, 1), (b1, M64)], 0)
    };
    [(x1, d0), (x2, d1), (c2, top)]
}

#[test]
fn pseudo_mersenne_montgomery_step() {
    for (i, what) in ["word 0", "word 1", "top word"].into_iter().enumerate() {
        assert!(
            check(what, |g| pseudo_mersenne_step(g, false)[i]),
            "{what} of the pseudo-Mersenne step"
        );
    }
    // The top word is not negative only because the borrow is paid by the m added to
    // the top: without the borrow it differs (when the subtraction borrows).
    assert!(!check("top word without the borrow", |g| {
        pseudo_mersenne_step(g, true)[2]
    }));
}

/// How [`montgomery_n`] adds `m·p`.
#[derive(Clone, Copy, PartialEq)]
enum MontgomeryShape {
    /// Fiat's: one full product per limb of p, in one carry chain.
    Fiat,
    /// The pseudo-Mersenne fold of `gen::fields::montgomery`.
    Fold,
    /// The fold with the top word forgetting the borrow out of the words below it (a
    /// wrong twin: it differs whenever the subtraction of `⌊m·c / 2^64⌋` borrows).
    FoldWithoutBorrow,
}

/// Montgomery multiplication modulo `p = 2^(64n) - c` (c odd, given as its words, fewer
/// than n) word by word (`a.len()` steps, as `gen::fields::montgomery::mul_sum`), `m·p`
/// added as `shape` says: the `n` words and the top word before the final subtraction.
fn montgomery_n(
    g: &mut Graph,
    a: &[NodeId],
    b: &[NodeId],
    c: &[u128],
    shape: MontgomeryShape,
) -> Vec<NodeId> {
    let n = b.len();
    let mp = minus_p_inverse(c[0] as u64);
    let zero = g.konst(0);
    let p = p_words(g, n, c);
    let kmp = g.konst(mp as u128);
    let kc: Vec<NodeId> = c.iter().map(|&w| g.konst(w)).collect();
    let mut t = vec![zero; n + 1];
    for &ai in a {
        let row = mul_word(g, ai, b);
        let mut s = Vec::new();
        let mut cin = zero;
        for i in 0..=n {
            let (w, c) = adc(g, t[i], row[i], cin);
            s.push(w);
            cin = c;
        }
        let over = cin;
        let q = g.prod(s[0], kmp);
        let m = g.slice(q, 0, 64);
        t = if shape != MontgomeryShape::Fiat {
            // (S + m·p) / 2^64 = S_1.. + m·2^(64(n-1)) - ⌊m·c / 2^64⌋.
            let mc = if c.len() == 1 {
                let pc = g.prod(m, kc[0]);
                vec![g.slice(pc, 0, 64), g.slice(pc, 64, 64)]
            } else {
                mul_word(g, m, &kc)
            };
            let (y, cy) = adc(g, s[n], m, zero);
            let mut out = Vec::new();
            let mut bin = zero;
            for (i, &x) in s[1..n].iter().chain([&y]).enumerate() {
                let sub = mc.get(i + 1).copied().unwrap_or(zero);
                let (d, b) = sbb(g, x, sub, bin);
                out.push(d);
                bin = b;
            }
            let up = g.add(64, &[(over, 1), (cy, 1)], 0);
            if shape == MontgomeryShape::FoldWithoutBorrow {
                out.push(up);
            } else {
                out.push(g.add(64, &[(up, 1), (bin, M64)], 0));
            }
            out
        } else {
            let mq = mul_word(g, m, &p);
            let mut out = Vec::new();
            let mut cin = zero;
            for i in 0..=n {
                let (x, e) = adc(g, s[i], mq[i], cin);
                if i > 0 {
                    out.push(x);
                }
                cin = e;
            }
            out.push(g.add(64, &[(cin, 1), (over, 1)], 0));
            out
        };
    }
    t
}

/// Which words of Fiat's Montgomery multiplication and `shape`'s (`n` words, `p =
/// 2^(64n) - c`) are proved equal, in order, each proved pair told to the views (as
/// the sweep does).
fn montgomery_words(n: usize, c: &[u128], shape: MontgomeryShape) -> Vec<bool> {
    montgomery_steps(n, n, c, shape)
}

/// [`montgomery_words`] after the first `steps` steps only.
fn montgomery_steps(steps: usize, n: usize, c: &[u128], shape: MontgomeryShape) -> Vec<bool> {
    let mut g = Graph::new();
    let (a, b) = montgomery_inputs(&mut g, steps, n);
    let fiat = montgomery_n(&mut g, &a, &b, c, MontgomeryShape::Fiat);
    let fold = montgomery_n(&mut g, &a, &b, c, shape);
    prove_in_order(&mut super::Views::new(&g), &fiat, &fold)
}

/// The multiplier words `a` (one per step) and the multiplicand words `b` (n).
fn montgomery_inputs(g: &mut Graph, steps: usize, n: usize) -> (Vec<NodeId>, Vec<NodeId>) {
    let a = (0..steps as u32).map(|i| word(g, i, M64)).collect();
    let b = (0..n as u32).map(|i| word(g, n as u32 + i, M64)).collect();
    (a, b)
}

/// Which pairs `(fiat[i], fold[i])` the views prove, in order, each proved pair told to
/// the views (as the sweep does).
fn prove_in_order(v: &mut super::Views<'_>, fiat: &[NodeId], fold: &[NodeId]) -> Vec<bool> {
    fiat.iter()
        .zip(fold)
        .map(|(&x, &y)| {
            let ok = v.equal(x, y) || v.equal_by_second_forms(x, y);
            if ok {
                v.alias(y, x);
            }
            ok
        })
        .collect()
}

/// Pseudo-Mersenne Montgomery multiplication (secp256k1's form, four words) against
/// Fiat's: every word of every step below the top word, whose last word is `y − borrow`
/// over a chain whose whole value is not negative (an interval over the two truncations
/// of the quotient so far, `M − 2^64·m_1`, and over the difference read as one). Before,
/// word 3 was not proved. The top word alone is not yet (the programs' outputs are,
/// after the final subtraction: `crates/cli/tests/algorithms.rs`); without its borrow it
/// must not be.
#[test]
fn pseudo_mersenne_montgomery_multiplication() {
    use MontgomeryShape::{Fold, FoldWithoutBorrow};
    let secp256k1 = (1 << 32) + 977;
    let words = montgomery_words(4, &[secp256k1], Fold);
    assert_eq!(words[..4], [true; 4], "{words:?}");
    let wrong = montgomery_words(4, &[secp256k1], FoldWithoutBorrow);
    assert!(!wrong[4], "the top word without its borrow: {wrong:?}");
}

/// P-384's fold (c = 2^128 + 2^96 - 2^32 + 1, three words: `m·c` as two products and
/// m itself, subtracted by a borrow chain) against Fiat's, step by step as the sweep
/// sees it (each step's words proved and merged before the next): how far the checker
/// gets. The first step is proved whole, through the second forms of module `alt`
/// (word 2: Fiat's `lo(S − m·c, 192)` as the chain's `lo(S, 192) − lo(m·c, 192)` and its
/// borrow, `lo(m·c, 192)` as `m·c` less `2^192` when it wraps; the words above through
/// the words below, proved). Before them, words 0 and 1 only. The second step's word 2
/// is not yet, so `gen`'s `MAX_PSEUDO_WORDS` keeps P-384 on the full fold.
#[test]
fn p384_montgomery_steps() {
    let c = [0xffff_ffff_0000_0001, 0xffff_ffff, 1];
    let words = montgomery_steps(1, 6, &c, MontgomeryShape::Fold);
    assert_eq!(words, [true; 7], "{words:?}");
    let steps = montgomery_stepwise(2, 6, &c);
    assert_eq!(steps[0], [true; 7], "{steps:?}");
    assert_eq!(steps[1][..2], [true; 2], "{steps:?}");
}

/// [`montgomery_n`]'s fold against Fiat's after 1, 2, … `steps` steps, each step's words
/// proved (and the proved ones merged) before the next step's, as the SAT sweep
/// proves a program's words in order.
fn montgomery_stepwise(steps: usize, n: usize, c: &[u128]) -> Vec<Vec<bool>> {
    let mut g = Graph::new();
    let (a, b) = montgomery_inputs(&mut g, steps, n);
    let pairs: Vec<(Vec<NodeId>, Vec<NodeId>)> = (1..=steps)
        .map(|s| {
            let fiat = montgomery_n(&mut g, &a[..s], &b, c, MontgomeryShape::Fiat);
            let fold = montgomery_n(&mut g, &a[..s], &b, c, MontgomeryShape::Fold);
            (fiat, fold)
        })
        .collect();
    let mut v = super::Views::new(&g);
    pairs
        .iter()
        .map(|(fiat, fold)| prove_in_order(&mut v, fiat, fold))
        .collect()
}

/// REDC of an n-word low half `L` plus an n-word high half `H`, modulo `p = 2^(64n) -
/// c` (one-word c): Fiat's (`m·p` as full products, word by word) against one borrow
/// chain (`gen::fields::montgomery`'s `redc_pseudo`: `⌊m_i·c / 2^64⌋` subtracted at word
/// i + 1 of `(L_1 … L_{n-1}, m_0 … m_{n-1})`, its last borrow owed by the top of
/// `t + H`). The pairs: the quotients, the n words of `T = (L + M·p)/R + H` and its top
/// word. `lh` gives L and H (inputs, or the halves of a product).
fn redc_chain_pairs(
    g: &mut Graph,
    n: usize,
    c: u128,
    lh: impl Fn(&mut Graph) -> (Vec<NodeId>, Vec<NodeId>),
) -> Vec<(NodeId, NodeId)> {
    let mp = g.konst(minus_p_inverse(c as u64) as u128);
    let zero = g.konst(0);
    let (l, h) = lh(g);
    let quotient = |g: &mut Graph, x: NodeId| {
        let q = g.prod(x, mp);
        g.slice(q, 0, 64)
    };
    let p = p_words(g, n, &[c]);
    // Fiat: T = L; n times: m = T_0·mp, T = (T + m·p) / 2^64 (n + 1 words).
    let mut t: Vec<NodeId> = l.clone();
    t.push(zero);
    let mut pairs = Vec::new();
    let mut fiat_ms = Vec::new();
    for _ in 0..n {
        let m = quotient(g, t[0]);
        fiat_ms.push(m);
        let mpw = mul_word(g, m, &p);
        let (mut next, cin) = add_words(g, &t, &mpw);
        next.remove(0);
        next.push(cin);
        t = next;
    }
    let (f, cin) = add_words(g, &t[..n], &h);
    let top_f = g.add(64, &[(t[n], 1), (cin, 1)], 0);
    // The chain.
    let kc = g.konst(c);
    let mut ms = Vec::new();
    let mut word = l[0];
    let mut borrow = zero;
    let mut last = zero;
    for i in 0..n {
        let m = quotient(g, word);
        ms.push(m);
        let v = g.prod(m, kc);
        let hm = g.slice(v, 64, 64);
        if i + 1 < n {
            (word, borrow) = sbb(g, l[i + 1], hm, borrow);
        } else {
            last = hm;
        }
    }
    let mut u = Vec::new();
    for (j, &m) in ms.iter().enumerate() {
        let (w, b) = sbb(g, m, if j == 0 { last } else { zero }, borrow);
        u.push(w);
        borrow = b;
    }
    let (o, cin) = add_words(g, &u, &h);
    let top = g.add(64, &[(cin, 1), (borrow, M64)], 0);
    pairs.extend(fiat_ms.into_iter().zip(ms));
    pairs.extend(f.into_iter().zip(o));
    pairs.push((top_f, top));
    pairs
}

/// Which of [`redc_chain_pairs`] are proved, in order, each proved pair told to the views.
fn redc_chain(n: usize, c: u128, product: bool) -> Vec<bool> {
    let mut g = Graph::new();
    let pairs = redc_chain_pairs(&mut g, n, c, |g| {
        if !product {
            let w: Vec<NodeId> = (0..2 * n as u32).map(|i| word(g, i, M64)).collect();
            return (w[..n].to_vec(), w[n..].to_vec());
        }
        // The square of an n-word input, schoolbook, as 2n words.
        let a: Vec<NodeId> = (0..n as u32).map(|i| word(g, i, M64)).collect();
        let zero = g.konst(0);
        let mut acc = vec![zero; 2 * n];
        for i in 0..n {
            let mut cin = zero;
            let mut hi_prev = zero;
            for j in 0..n {
                let v = g.prod(a[i], a[j]);
                let (lo, hi) = (g.slice(v, 0, 64), g.slice(v, 64, 64));
                let x = g.add(64, &[(acc[i + j], 1), (lo, 1), (hi_prev, 1), (cin, 1)], 0);
                cin = g.carry(64, &[acc[i + j], lo, hi_prev, cin], 0);
                acc[i + j] = x;
                hi_prev = hi;
            }
            acc[i + n] = g.add(64, &[(hi_prev, 1), (cin, 1)], 0);
        }
        (acc[..n].to_vec(), acc[n..].to_vec())
    });
    // The model itself: each pair equal on random inputs (else a proof would be wrong).
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..200 {
        let vals = g.eval(&mut |_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed as u128
        });
        for &(x, y) in &pairs {
            assert_eq!(
                vals[x.index()],
                vals[y.index()],
                "the model's pair {x:?} {y:?}"
            );
        }
    }
    let mut v = super::Views::new(&g);
    pairs
        .iter()
        .map(|&(x, y)| {
            let ok = x == y || v.equal(x, y);
            if ok {
                v.alias(y, x);
            }
            ok
        })
        .collect()
}

/// secp256k1's REDC as one borrow chain (the separated algorithm's, s2n-bignum's
/// shape) against Fiat's word-by-word REDC, over inputs and over a square's halves: the
/// quotients, the words of `T` and its top word are proved. The top word needs the
/// bound of a truncation zero in its low words (`lo.rs`'s `zero_words`): the quotient
/// written as `M − m_0` is below `R − 2^64`, so `L + M·p < R·(p + 1)` and the sign test
/// that tells the chain's two forms of `T` apart is decided. Before it, only two words
/// were proved.
#[test]
fn pseudo_mersenne_redc_chain() {
    for (n, c) in [(2, 159), (3, 159), (4, (1 << 32) + 977)] {
        for product in [false, true] {
            let got = redc_chain(n, c, product);
            let (words, top) = got.split_at(got.len() - 1);
            assert!(
                words.iter().all(|&w| w),
                "n {n}, product {product}: {got:?}"
            );
            assert!(top[0], "n {n}, product {product}: the top word");
        }
    }
}
