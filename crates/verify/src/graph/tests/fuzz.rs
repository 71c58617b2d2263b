//! The random-DAG fuzzer of the expression graph: random programs of constructor calls
//! on random leaves, each node checked against reference semantics computed directly on
//! integers, and against its range information; and a check that the fuzzer reaches
//! every rule.
//!
//! The reference semantics must never use the graph (or its rules): they are what the
//! graph is checked against.

use proptest::prelude::*;

use super::{cases_or, check_ranges, value_in};
use crate::graph::range::{sext_value, sh_l, sh_r, M64};
use crate::graph::*;

/// A random operation on earlier values (indices into the list built so far), with
/// reference semantics computed directly on integers.
#[derive(Clone, Debug)]
pub(crate) enum Raw {
    Leaf(u128),
    Const(u128),
    Add(u8, Vec<(usize, u128)>, u128),
    Mul(u8, Vec<usize>),
    Prod(usize, usize),
    Carry(u8, Vec<usize>, u128),
    Borrow(usize, Vec<usize>, u128),
    /// `carry(a + b + k1) + carry(lo(a + b + k1) + c + k2)`: a carry chain split in two,
    /// as `add a, b; add lo, c` computes `addcarryx`'s carry.
    Chain(usize, usize, usize, u128, u128),
    /// Bits `s..` of `2^s - 1 + b` for a bit `b` (bit 0 of a value): a carry flag
    /// restored from a byte by `add r8b, 0xff` (`s` = 8).
    Restore(usize, u8, u8),
    And(u8, Vec<usize>),
    Or(u8, Vec<usize>),
    Xor(u8, Vec<usize>),
    Not(u8, usize),
    Slice(usize, u8, u8),
    Shl(usize, u8, u8),
    Concat(usize, u8, u8, usize, u8, u8),
    Ite(usize, usize, usize),
    Eqz(usize),
    Sar(u8, usize, u8),
    Sext(u8, u8, usize),
}

fn widths() -> impl Strategy<Value = u8> {
    prop_oneof![Just(64u8), Just(128), Just(32), Just(1), Just(8), 1u8..=128]
}

fn raw(n: usize) -> BoxedStrategy<Raw> {
    // n: number of earlier values (at least one).
    // Indices biased to the latest values (so operands repeat and chains form).
    let i = prop_oneof![0..n, (n - 1)..n, n.saturating_sub(3)..n];
    let many = proptest::collection::vec(i.clone(), 1..4);
    let coeff = prop_oneof![
        Just(1u128),
        Just(u128::MAX),
        Just(2),
        Just(19),
        Just(1 << 13),
        any::<u128>()
    ];
    prop_oneof![
        any::<u128>().prop_map(Raw::Const),
        (
            widths(),
            proptest::collection::vec((i.clone(), coeff.clone()), 1..5),
            any::<u128>()
        )
            .prop_map(|(w, t, k)| Raw::Add(w, t, k)),
        // A multiple of a sum written out term by term (two `lea` for 19·x).
        (
            prop_oneof![Just(64u8), widths()],
            proptest::collection::vec(i.clone(), 2..3),
            prop_oneof![Just(1u128), Just(19), Just(38), coeff.clone()],
        )
            .prop_map(|(w, t, c)| Raw::Add(w, t.into_iter().map(|t| (t, c)).collect(), 0)),
        (widths(), many.clone()).prop_map(|(w, a)| Raw::Mul(w, a)),
        (i.clone(), i.clone()).prop_map(|(a, b)| Raw::Prod(a, b)),
        (
            prop_oneof![Just(64u8), Just(51), 1u8..=128],
            many.clone(),
            prop_oneof![Just(0u128), 0u128..4]
        )
            .prop_map(|(s, a, k)| Raw::Carry(s, a, k)),
        (i.clone(), many.clone(), prop_oneof![Just(0u128), 0u128..3])
            .prop_map(|(a, s, k)| Raw::Borrow(a, s, k)),
        (widths(), many.clone()).prop_map(|(w, a)| Raw::And(w, a)),
        (widths(), many.clone()).prop_map(|(w, a)| Raw::Or(w, a)),
        (widths(), many.clone()).prop_map(|(w, a)| Raw::Xor(w, a)),
        (widths(), i.clone()).prop_map(|(w, a)| Raw::Not(w, a)),
        (i.clone(), 0u8..128, 1u8..=128).prop_map(|(a, f, l)| Raw::Slice(a, f, l)),
        (i.clone(), 0u8..128, widths()).prop_map(|(a, s, w)| Raw::Shl(a, s, w)),
        (i.clone(), 0u8..128, 1u8..64, i.clone(), 0u8..128, 1u8..64)
            .prop_map(|(a, f, l, b, f2, l2)| Raw::Concat(a, f, l, b, f2, l2)),
        // Two adjacent slices of one value put back in place (a word from its halves).
        (i.clone(), 0u8..64, 1u8..32, 1u8..32).prop_map(|(a, f, l, l2)| Raw::Concat(
            a,
            f,
            l,
            a,
            f + l,
            l2
        )),
        (i.clone(), i.clone(), i.clone()).prop_map(|(c, t, e)| Raw::Ite(c, t, e)),
        i.clone().prop_map(Raw::Eqz),
        (widths(), i.clone(), 0u8..128).prop_map(|(w, a, s)| Raw::Sar(w, a, s)),
        (1u8..=128, widths(), i.clone()).prop_map(|(f, w, a)| Raw::Sext(f, w, a)),
        (i.clone(), i.clone(), i.clone(), 0u128..3, 0u128..3)
            .prop_map(|(a, b, c, k1, k2)| Raw::Chain(a, b, c, k1, k2)),
        (i.clone(), prop_oneof![Just(8u8), 1u8..64], 1u8..=64)
            .prop_map(|(a, s, l)| Raw::Restore(a, s, l)),
    ]
    .boxed()
}

fn program() -> impl Strategy<Value = (Vec<u128>, Vec<Raw>)> {
    let leaf_bounds = proptest::collection::vec(
        prop_oneof![
            Just(u64::MAX as u128),
            Just(u64::MAX as u128),
            Just(1u128),
            Just(0xff),
            Just(u64::MAX as u128),
            Just((1u128 << 51) - 1),
            Just(u128::MAX),
            any::<u128>()
        ],
        2..5,
    );
    leaf_bounds.prop_flat_map(|bounds| {
        let n0 = bounds.len();
        let mut steps: Vec<BoxedStrategy<Raw>> = Vec::new();
        for k in 0..24 {
            steps.push(raw(n0 + k));
        }
        (Just(bounds), steps)
    })
}

/// A raw operation's operands cut to what the constructor is defined on (exact
/// products and carries take words).
fn word(x: u128) -> u128 {
    x & M64
}

fn reference(op: &Raw, v: &[u128]) -> u128 {
    let m = |w: u8| mask(w as u32);
    match op {
        Raw::Leaf(x) | Raw::Const(x) => *x,
        Raw::Add(w, t, k) => {
            t.iter()
                .fold(*k, |acc, &(i, c)| acc.wrapping_add(v[i].wrapping_mul(c)))
                & m(*w)
        }
        Raw::Mul(w, a) => a.iter().fold(1u128, |acc, &i| acc.wrapping_mul(v[i])) & m(*w),
        Raw::Prod(a, b) => word(v[*a]) * word(v[*b]),
        Raw::Carry(s, a, k) => {
            let sum: u128 = a.iter().map(|&i| word(v[i])).sum::<u128>() + k;
            sh_r(sum, *s as u32)
        }
        Raw::Borrow(a, s, k) => {
            let sum: u128 = s.iter().map(|&i| word(v[i])).sum::<u128>() + k;
            (word(v[*a]) < sum) as u128
        }
        Raw::Chain(a, b, c, k1, k2) => {
            let s = word(v[*a]) + word(v[*b]) + k1;
            (s >> 64) + ((s % (1 << 64) + word(v[*c]) + k2) >> 64)
        }
        Raw::Restore(a, s, l) => sh_r((v[*a] & 1) + mask(*s as u32), *s as u32) & mask(*l as u32),
        Raw::And(w, a) => a.iter().fold(u128::MAX, |acc, &i| acc & v[i]) & m(*w),
        Raw::Or(w, a) => a.iter().fold(0, |acc, &i| acc | v[i]) & m(*w),
        Raw::Xor(w, a) => a.iter().fold(0, |acc, &i| acc ^ v[i]) & m(*w),
        Raw::Not(w, a) => !v[*a] & m(*w),
        Raw::Slice(a, f, l) => sh_r(v[*a], *f as u32) & mask(*l as u32),
        Raw::Shl(a, s, w) => sh_l(v[*a], *s as u32) & m(*w),
        Raw::Concat(a, f, l, b, f2, l2) => {
            let x = sh_r(v[*a], *f as u32) & mask(*l as u32);
            let y = sh_r(v[*b], *f2 as u32) & mask(*l2 as u32);
            x | sh_l(y, *l as u32)
        }
        Raw::Ite(c, t, e) => {
            if v[*c] & 1 != 0 {
                v[*t]
            } else {
                v[*e]
            }
        }
        Raw::Eqz(a) => (v[*a] == 0) as u128,
        Raw::Sar(w, a, s) => {
            let w = (*w as u32).max(1);
            let n = (*s as u32).min(w - 1);
            ((sext_value(v[*a], w) as i128 >> n) as u128) & mask(w)
        }
        Raw::Sext(f, w, a) => sext_value(v[*a], *f as u32) & m(*w),
    }
}

fn build(g: &mut Graph, op: &Raw, n: &[NodeId]) -> NodeId {
    let w = |w: u8| (w as u32).max(1);
    match op {
        Raw::Leaf(_) => unreachable!("leaves are made by the caller"),
        Raw::Const(c) => g.konst(*c),
        Raw::Add(wd, t, k) => {
            let terms: Vec<(NodeId, u128)> = t.iter().map(|&(i, c)| (n[i], c)).collect();
            if t.len() > 1 && t[0].1 != 1 && t.iter().all(|&(_, c)| c == t[0].1) {
                // A multiple of a sum written term by term: the sum is made first, as
                // a program makes `x` before `lea t, [x + x*8]; lea t, [x + t*2]`.
                let ones: Vec<(NodeId, u128)> = terms.iter().map(|&(x, _)| (x, 1)).collect();
                g.add(w(*wd), &ones, 0);
            }
            g.add(w(*wd), &terms, *k)
        }
        Raw::Mul(wd, a) => {
            let xs: Vec<NodeId> = a.iter().map(|&i| n[i]).collect();
            g.mul(w(*wd), &xs)
        }
        Raw::Prod(a, b) => {
            let (x, y) = (g.trunc(n[*a], 64), g.trunc(n[*b], 64));
            g.prod(x, y)
        }
        Raw::Carry(s, a, k) => {
            let xs: Vec<NodeId> = a.iter().map(|&i| g.trunc(n[i], 64)).collect();
            g.carry(*s as u32, &xs, *k)
        }
        Raw::Borrow(a, s, k) => {
            let x = g.trunc(n[*a], 64);
            let xs: Vec<NodeId> = s.iter().map(|&i| g.trunc(n[i], 64)).collect();
            g.borrow(x, &xs, *k)
        }
        Raw::Chain(a, b, c, k1, k2) => {
            let (x, y, z) = (g.trunc(n[*a], 64), g.trunc(n[*b], 64), g.trunc(n[*c], 64));
            let c1 = g.carry(64, &[x, y], *k1);
            let lo = g.add(64, &[(x, 1), (y, 1)], *k1);
            let c2 = g.carry(64, &[lo, z], *k2);
            g.sum(64, &[c1, c2])
        }
        Raw::Restore(a, s, l) => {
            let b = g.slice(n[*a], 0, 1);
            let r = g.add(64, &[(b, 1)], mask(*s as u32));
            g.slice(r, *s as u32, *l as u32)
        }
        Raw::And(wd, a) => {
            let xs: Vec<NodeId> = a.iter().map(|&i| n[i]).collect();
            g.and(w(*wd), &xs)
        }
        Raw::Or(wd, a) => {
            let xs: Vec<NodeId> = a.iter().map(|&i| n[i]).collect();
            g.or(w(*wd), &xs)
        }
        Raw::Xor(wd, a) => {
            let xs: Vec<NodeId> = a.iter().map(|&i| n[i]).collect();
            g.xor(w(*wd), &xs)
        }
        Raw::Not(wd, a) => g.not(w(*wd), n[*a]),
        Raw::Slice(a, f, l) => g.slice(n[*a], *f as u32, *l as u32),
        Raw::Shl(a, s, wd) => g.shl(n[*a], *s as u32, w(*wd)),
        Raw::Concat(a, f, l, b, f2, l2) => g.concat(
            &[
                Seg {
                    node: n[*a],
                    from: *f,
                    len: *l,
                    at: 0,
                },
                Seg {
                    node: n[*b],
                    from: *f2,
                    len: *l2,
                    at: *l,
                },
            ],
            0,
        ),
        Raw::Ite(c, t, e) => {
            let c = g.slice(n[*c], 0, 1);
            g.ite(c, n[*t], n[*e])
        }
        Raw::Eqz(a) => g.eqz(n[*a]),
        Raw::Sar(wd, a, s) => g.sar(w(*wd), n[*a], *s as u32),
        Raw::Sext(f, wd, a) => g.sext(*f as u32, w(*wd), n[*a]),
    }
}

fn leaf_values(bounds: &[u128]) -> impl Strategy<Value = Vec<u128>> {
    let per: Vec<BoxedStrategy<u128>> = bounds.iter().map(|&b| value_in(b).boxed()).collect();
    per
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases_or(512)))]

    /// Random programs of constructor calls: the normalized graph computes what the
    /// operations mean, and every node stays within its range information.
    #[test]
    fn normal_form_is_sound(
        (bounds, ops, vals) in random_graphs(8)
    ) {
        fuzz_once(&bounds, &ops, &vals)?;
    }
}

/// Random graphs and values of their leaves, for checks of other modules against
/// [`Graph::eval`] (the sweep's bit-blasting): bounds of the leaves, the operations, and
/// `n` vectors of leaf values within the bounds.
pub(crate) fn random_graphs(
    n: usize,
) -> impl Strategy<Value = (Vec<u128>, Vec<Raw>, Vec<Vec<u128>>)> {
    program().prop_flat_map(move |(b, o)| {
        let v = proptest::collection::vec(leaf_values(&b), n);
        (Just(b), Just(o), v)
    })
}

/// The graph of a random program: its leaves (`Sym::Input { param: 0, index }`) and the
/// node of every step, leaves first.
pub(crate) fn build_graph(bounds: &[u128], ops: &[Raw]) -> (Graph, Vec<NodeId>, Vec<Raw>) {
    let mut g = Graph::new();
    let mut nodes = Vec::new();
    let mut all: Vec<Raw> = Vec::new();
    for (i, &b) in bounds.iter().enumerate() {
        nodes.push(g.sym(
            Sym::Input {
                param: 0,
                index: i as u32,
            },
            b,
            format!("x{i}"),
        ));
        all.push(Raw::Leaf(b));
    }
    for op in ops {
        nodes.push(build(&mut g, op, &nodes));
        all.push(op.clone());
    }
    (g, nodes, all)
}

/// Builds one random program and checks it on the given leaf values; returns how often
/// each rule fired.
fn fuzz_once(
    bounds: &[u128],
    ops: &[Raw],
    vals: &[Vec<u128>],
) -> std::result::Result<Vec<u64>, TestCaseError> {
    let (g, nodes, all) = build_graph(bounds, ops);
    for leaf in vals {
        let mut v: Vec<u128> = Vec::new();
        for (i, op) in all.iter().enumerate() {
            v.push(if i < bounds.len() {
                leaf[i]
            } else {
                reference(op, &v)
            });
        }
        let gv = g.eval(&mut |s| match s {
            Sym::Input { index, .. } => leaf[index as usize],
            _ => 0,
        });
        for (i, op) in all.iter().enumerate() {
            prop_assert_eq!(
                gv[nodes[i].index()],
                v[i],
                "step {} {:?}: {}",
                i,
                op,
                g.show_shallow(nodes[i], 2)
            );
        }
        check_ranges(&g, &gv)?;
    }
    Ok(Rule::ALL.iter().map(|&r| g.fired(r)).collect())
}

/// The fuzzer reaches every rule (so a wrong rule would be caught by it too, not only
/// by its own case).
#[test]
fn fuzzer_covers_every_rule() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let mut fired = vec![0u64; Rule::COUNT];
    for _ in 0..3000 {
        let (bounds, ops) = program().new_tree(&mut runner).expect("tree").current();
        let vals = proptest::collection::vec(leaf_values(&bounds), 2)
            .new_tree(&mut runner)
            .expect("tree")
            .current();
        let f = fuzz_once(&bounds, &ops, &vals).unwrap_or_else(|e| panic!("{e}"));
        for (a, b) in fired.iter_mut().zip(f) {
            *a += b;
        }
    }
    let missing: Vec<&str> = Rule::ALL
        .iter()
        .zip(&fired)
        .filter(|(_, &n)| n == 0)
        .map(|(r, _)| r.name())
        .collect();
    assert!(missing.is_empty(), "the fuzzer never fires {missing:?}");
}
