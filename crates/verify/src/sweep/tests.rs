//! Tests of the sweep: bit-blasting against [`Graph::eval`] on the graph fuzzer's random
//! graphs, and a table of equal and unequal pairs that the normal form leaves apart.
//!
//! These tests must never be adapted to what the sweep proves: an "equal" case is an
//! identity of integers, a "differs" case has an input that tells the sides apart.

use proptest::prelude::*;

use super::circuit::{Bits, Circuit, Config};
use super::*;
use crate::graph::tests::fuzz::{build_graph, random_graphs};
use crate::graph::Sym;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Every node of a random graph, bit-blasted over leaves pinned to values, has the
    /// value the graph's evaluator gives it.
    #[test]
    fn blasting_agrees_with_eval((bounds, ops, vals) in random_graphs(2)) {
        let (g, _, _) = build_graph(&bounds, &ops);
        for leaf in &vals {
            let env = |s: Sym| match s {
                Sym::Input { index, .. } => leaf[index as usize],
                _ => 0,
            };
            let want = g.eval(&mut { env });
            let mut c = Circuit::new();
            let mut bits: Vec<Bits> = Vec::with_capacity(g.len());
            for (i, &v) in want.iter().enumerate() {
                let id = NodeId(i as u32);
                let b = match g.node(id) {
                    Node::Sym(_) => {
                        let x = c.fresh_bits(128);
                        for (j, &l) in x.iter().enumerate() {
                            c.clause(&[if (v >> j) & 1 == 1 { l } else { -l }]);
                        }
                        x
                    }
                    _ => blast::node_bits(&mut c, &g, id, &|a| bits[a.index()].clone()),
                };
                bits.push(b);
            }
            prop_assert_eq!(c.solve(1_000_000, Config::Default), Some(true));
            for (i, b) in bits.iter().enumerate() {
                let mut v = 0u128;
                for (j, &l) in b.iter().enumerate() {
                    if c.value(l) == Some(true) {
                        v |= 1 << j;
                    }
                }
                prop_assert_eq!(v, want[i], "node {}: {}", i, g.show_shallow(NodeId(i as u32), 2));
            }
        }
    }
}

/// One case: the "IR" side and the "program" side built from the same leaves (two full
/// words, a bit, two more words), and whether they are equal.
struct Case {
    what: &'static str,
    ir: fn(&mut Graph, [NodeId; 5]) -> NodeId,
    program: fn(&mut Graph, [NodeId; 5]) -> NodeId,
    equal: bool,
}

fn leaves(g: &mut Graph) -> [NodeId; 5] {
    let bounds = [
        u64::MAX as u128,
        u64::MAX as u128,
        1,
        u64::MAX as u128,
        u64::MAX as u128,
    ];
    let mut l = [NodeId(0); 5];
    for (i, &b) in bounds.iter().enumerate() {
        let s = Sym::Input {
            param: 0,
            index: i as u32,
        };
        l[i] = g.sym(s, b, format!("x{i}"));
    }
    l
}

/// `(x ^ y) + c·(x & y) mod 2^64` (`x + y` for `c = 2`).
fn xor_and_sum(g: &mut Graph, x: NodeId, y: NodeId, c: u128) -> NodeId {
    let o = g.xor(64, &[x, y]);
    let a = g.and(64, &[x, y]);
    g.add(64, &[(o, 1), (a, c)], 0)
}

/// A full word made when first asked for (the same node after that).
fn late_leaf(g: &mut Graph) -> NodeId {
    g.sym(Sym::Input { param: 1, index: 0 }, u64::MAX as u128, "z")
}

/// `t` if bit `b` else `e`, as compilers select: `(t & m) | (e & !m)` with the mask
/// `m = -b mod 2^64` (`sbb r, r`; `and`, `andn`, `or`).
fn masked_select(g: &mut Graph, b: NodeId, t: NodeId, e: NodeId) -> NodeId {
    let m = g.add(64, &[(b, u64::MAX as u128)], 0);
    let t = g.and(64, &[t, m]);
    let nm = g.not(64, m);
    let e = g.and(64, &[e, nm]);
    g.or(64, &[t, e])
}

/// The mask of a two-word borrow chain `x - y`, `u - v`, as clang keeps it: each borrow
/// as the signed high word of a 128-bit difference (0 or -1), the mask its sign. With
/// `carry = false`, the wrong twin that drops the low half's carry into the high word.
fn signed_borrow_mask(g: &mut Graph, [x, y, _, u, v]: [NodeId; 5], carry: bool) -> NodeId {
    let b0 = g.borrow(x, &[y], 0);
    let h0 = g.add(64, &[(b0, u128::MAX)], 0);
    let h0 = g.sar(64, h0, 63);
    let bb = g.borrow(u, &[v], 0);
    let mut terms = vec![(h0, 1), (bb, u128::MAX)];
    if carry {
        let d1 = g.add(64, &[(u, 1), (v, u128::MAX)], 0);
        terms.push((g.carry(64, &[d1, h0], 0), 1));
    }
    let h1 = g.add(64, &terms, 0);
    g.sar(64, h1, 63)
}

/// The same mask as the IR writes it: a select on the borrow of the chain.
fn ir_borrow_mask(g: &mut Graph, [x, y, _, u, v]: [NodeId; 5]) -> NodeId {
    let b0 = g.borrow(x, &[y], 0);
    let b1 = g.borrow(u, &[v, b0], 0);
    let ones = g.konst(u64::MAX as u128);
    let zero = g.konst(0);
    g.ite(b1, ones, zero)
}

/// `u + mask` (leaf 3 plus the mask `mask` builds), so the mask is used as a word.
fn u_plus(
    g: &mut Graph,
    l: [NodeId; 5],
    mask: impl FnOnce(&mut Graph, [NodeId; 5]) -> NodeId,
) -> NodeId {
    let m = mask(g, l);
    g.sum(64, &[l[3], m])
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            what: "a borrow chain's mask from signed high words = the select on its borrow",
            ir: |g, l| u_plus(g, l, ir_borrow_mask),
            program: |g, l| u_plus(g, l, |g, l| signed_borrow_mask(g, l, true)),
            equal: true,
        },
        Case {
            what: "wrong twin: the signed high word without the low half's carry",
            ir: |g, l| u_plus(g, l, ir_borrow_mask),
            program: |g, l| u_plus(g, l, |g, l| signed_borrow_mask(g, l, false)),
            equal: false,
        },
        Case {
            what: "x ^ y = (x | y) - (x & y)",
            ir: |g, [x, y, ..]| g.xor(64, &[x, y]),
            program: |g, [x, y, ..]| {
                let o = g.or(64, &[x, y]);
                let a = g.and(64, &[x, y]);
                g.add(64, &[(o, 1), (a, u64::MAX as u128)], 0)
            },
            equal: true,
        },
        Case {
            what: "x + y = (x ^ y) + 2·(x & y) mod 2^64",
            ir: |g, [x, y, ..]| g.sum(64, &[x, y]),
            program: |g, [x, y, ..]| xor_and_sum(g, x, y, 2),
            equal: true,
        },
        Case {
            what: "a product of factors proved equal (congruence, no multiplier blasted)",
            ir: |g, [x, y, ..]| {
                // The factor z is made after the IR's sum and before the program's, so
                // the two products list their factors in opposite orders.
                let s = g.sum(64, &[x, y]);
                let z = late_leaf(g);
                g.prod(s, z)
            },
            program: |g, [x, y, ..]| {
                let z = late_leaf(g);
                let s = xor_and_sum(g, x, y, 2);
                g.prod(z, s)
            },
            equal: true,
        },
        Case {
            what: "wrong twin: a product of a factor that differs",
            ir: |g, [x, y, ..]| {
                // The factor z is made after the IR's sum and before the program's, so
                // the two products list their factors in opposite orders.
                let s = g.sum(64, &[x, y]);
                let z = late_leaf(g);
                g.prod(s, z)
            },
            program: |g, [x, y, ..]| {
                let z = late_leaf(g);
                let s = xor_and_sum(g, x, y, 1);
                g.prod(z, s)
            },
            equal: false,
        },
        Case {
            what: "wrong twin: x + y against (x ^ y) + (x & y)",
            ir: |g, [x, y, ..]| g.sum(64, &[x, y]),
            program: |g, [x, y, ..]| xor_and_sum(g, x, y, 1),
            equal: false,
        },
        Case {
            what: "select by a bit = select by its sbb mask (and/andn/or)",
            ir: |g, [x, y, b, ..]| g.ite(b, x, y),
            program: |g, [x, y, b, ..]| masked_select(g, b, x, y),
            equal: true,
        },
        Case {
            what: "wrong twin: the select with its arms swapped",
            ir: |g, [x, y, b, ..]| g.ite(b, x, y),
            program: |g, [x, y, b, ..]| masked_select(g, b, y, x),
            equal: false,
        },
        Case {
            what: "two-limb borrow = high word of the 128-bit difference, & 1 (gcc's subborrowx)",
            ir: |g, [x, y, _, u, v]| {
                let b0 = g.borrow(x, &[y], 0);
                g.borrow(u, &[v, b0], 0)
            },
            program: |g, [x, y, _, u, v]| {
                // As gcc computes `subborrowx` through `unsigned __int128`: the 128-bit
                // difference u - v - b0, and the borrow as bit 64 of it.
                let b0 = g.borrow(x, &[y], 0);
                let d = g.add(128, &[(u, 1), (v, u128::MAX), (b0, u128::MAX)], 0);
                g.slice(d, 64, 1)
            },
            equal: true,
        },
        Case {
            what: "carry of a three-term sum = carries of the sum split the other way",
            ir: |g, [x, y, _, u, _]| g.carry(64, &[x, y, u], 0),
            program: |g, [x, y, _, u, _]| {
                let s = g.sum(64, &[y, u]);
                let c1 = g.carry(64, &[y, u], 0);
                let c2 = g.carry(64, &[x, s], 0);
                g.sum(64, &[c1, c2])
            },
            equal: true,
        },
        Case {
            what: "wrong twin: the split carry missing the inner carry",
            ir: |g, [x, y, _, u, _]| g.carry(64, &[x, y, u], 0),
            program: |g, [x, y, _, u, _]| {
                let s = g.sum(64, &[y, u]);
                g.carry(64, &[x, s], 0)
            },
            equal: false,
        },
    ]
}

fn check(case: &Case) -> Stats {
    let mut g = Graph::new();
    let l = leaves(&mut g);
    let want = (case.ir)(&mut g, l);
    let found = (case.program)(&mut g, l);
    let (proved, stats) = prove_pairs(&g, &[(want, found)], Limits::default());
    assert_eq!(
        proved,
        case.equal,
        "{}: {} against {}",
        case.what,
        g.show(want, 200),
        g.show(found, 200)
    );
    stats
}

#[test]
fn sweep_proves_identities_and_rejects_twins() {
    for case in cases() {
        check(&case);
    }
}

/// A pair the exact-integer form proves costs no SAT query (the first pass asks none;
/// in one pass, queries about the signed high words came first); one it cannot (a
/// bitwise identity) is proved by the full pass after it.
#[test]
fn queries_only_for_what_the_exact_form_leaves() {
    let by_name = |what: &str| cases().into_iter().find(|c| c.what == what).unwrap();
    let exact = check(&by_name(
        "a borrow chain's mask from signed high words = the select on its borrow",
    ));
    assert_eq!(exact.queries, 0, "{exact:?}");
    let bitwise = check(&by_name("x ^ y = (x | y) - (x & y)"));
    assert!(bitwise.queries >= 1, "{bitwise:?}");
}

/// The signed high word is related to the IR's borrow by negation (not merged into it:
/// the values differ), and the query of the output then stands on that relation.
#[test]
fn a_borrow_kept_as_a_signed_word_is_related_by_negation() {
    let mut g = Graph::new();
    let l = leaves(&mut g);
    let b0 = g.borrow(l[0], &[l[1]], 0);
    let b1 = g.borrow(l[3], &[l[4], b0], 0);
    let want = g.sum(64, &[l[3], b1]);
    let h = signed_borrow_mask(&mut g, l, true);
    let found = g.add(64, &[(l[3], 1), (h, u128::MAX)], 0);
    let (proved, stats) = prove_pairs(&g, &[(want, found)], Limits::default());
    assert!(
        proved,
        "{} against {}",
        g.show(want, 200),
        g.show(found, 200)
    );
    assert!(stats.negated >= 1, "{stats:?}");
}

/// Of two IR nodes with the program node's value, the query is asked first against the
/// one whose region is smaller: `x ^ y` as the IR computes it last rather than
/// `(x | y) - (x & y)` computed first (both queries would succeed; in id order the
/// program node would be merged into the first).
#[test]
fn the_candidate_with_the_smaller_region_is_tried_first() {
    let mut g = Graph::new();
    let [x, y, ..] = leaves(&mut g);
    let or = g.or(64, &[x, y]);
    let and = g.and(64, &[x, y]);
    let far = g.add(64, &[(or, 1), (and, u64::MAX as u128)], 0);
    let near = g.xor(64, &[x, y]);
    let want = g.and(64, &[far, near]);
    let m = g.add(64, &[(x, 1), (y, 1), (and, u64::MAX as u128 - 1)], 0);
    let m2 = g.xor(64, &[or, and]);
    let found = g.and(64, &[m, m2]);
    let pairs = [(want, found)];
    let mut s = Sweep::new(&g, &pairs, Limits::default());
    assert_eq!(s.candidates(s.sig[m.index()]), &[far, near, want]);
    assert!(s.run(&pairs));
    assert_eq!(s.find(m), near);
}

/// Which queries may be large: a word's against a node or a negated bit, not a bit's,
/// not one against a constant, not a word's against a negated carry of more than a bit
/// (a rarely-set carry simulates like the bit a mask was made from).
#[test]
fn large_queries_are_for_words() {
    let mut g = Graph::new();
    let [x, y, b, u, _] = leaves(&mut g);
    let carry = g.carry(64, &[x, y, u], 0);
    let pairs = [(x, y)];
    let s = Sweep::new(&g, &pairs, Limits::default());
    let (large, small) = (s.limits.large_vars, s.limits.vars);
    for (m, target, want) in [
        (x, Target::Node(y), large),
        (x, Target::Neg(b, 64), large),
        (x, Target::Neg(carry, 64), small),
        (x, Target::Const(0), small),
        (b, Target::Node(y), small),
    ] {
        assert_eq!(s.vars_allowed(m, target, false), want, "{}", g.show(m, 50));
        assert_eq!(s.vars_allowed(m, target, true), large, "last chance");
    }
}

/// A sum in the region that differs by a constant from a sum just below it (`lo(s + 1)`
/// beside the carry of `s + 1`, `s` a long sum of products) is blasted as that sum plus
/// the constant, not from its products: a few hundred variables, not tens of thousands.
#[test]
fn a_sum_below_the_region_is_a_base() {
    let mut g = Graph::new();
    let [x, y, _, u, v] = leaves(&mut g);
    let (p, q) = (g.prod(x, y), g.prod(u, v));
    let (k1, k2) = (0x4de9_f12b_03de_e531, 0x2bac_7d8b_2aec_e900);
    let s = g.add(64, &[(p, k1), (q, k2)], 0);
    let lo = g.add(64, &[(p, k1), (q, k2)], 1);
    let carry = g.carry(64, &[s], 1);
    let region = [lo, carry];
    let parent: Vec<NodeId> = (0..g.len() as u32).map(NodeId).collect();
    let (known, neg) = (HashMap::new(), HashMap::new());
    let mut q = query::Query::new(&g, &parent, &known, &neg, &region);
    for id in region {
        q.bits(id);
    }
    assert!(q.c.vars() < 1000, "{} variables", q.c.vars());
}
