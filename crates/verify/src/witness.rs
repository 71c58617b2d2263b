//! Counterexamples: concrete inputs on which two nodes of one graph have different
//! values, searched by evaluation ([`Graph::eval_node`]) on input vectors of edge values
//! and random values within the leaves' bounds.
//!
//! This is the one place where such vectors are chosen ([`pick`]): for the sweep's
//! simulation (which only picks the queries to ask) and for a report's counterexample
//! (which tells a user whose program is wrong *where* it is wrong, and tells apart a
//! program that is wrong from one the checker could not prove).
//!
//! A counterexample refutes: the two values differ on an input the declared bounds
//! allow. No number of vectors on which they agree proves anything, and this module
//! must never be used to conclude that two nodes are equal.

use std::collections::HashMap;

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::graph::{mask, sig, Graph, Node, NodeId, Sym};

/// Input vectors a report's counterexample search evaluates (it stops at the first
/// vector that tells a pair apart).
pub(crate) const VECTORS: usize = 2_000;

/// Concrete leaf values on which some pair differs.
pub(crate) struct Found {
    /// Every leaf in the pairs' cones, ascending, with its value.
    pub leaves: Vec<(NodeId, u128)>,
    /// Each pair's values `(first, second)` on those leaves.
    pub values: Vec<(u128, u128)>,
}

/// The first of `vectors` input vectors (seeded: the same graph gives the same answer)
/// on which some pair `(a, b)` of `pairs` has `a ≠ b`, if any.
pub(crate) fn search(g: &Graph, pairs: &[(NodeId, NodeId)], vectors: usize) -> Option<Found> {
    let cone = g.reachable(pairs.iter().flat_map(|&(a, b)| [a, b]));
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(0xc0de_7e57);
    let mut vals = vec![0u128; g.len()];
    for v in 0..vectors {
        vector(g, &cone, &mut vals, &mut rng, v);
        if pairs
            .iter()
            .any(|&(a, b)| vals[a.index()] != vals[b.index()])
        {
            let leaves = (0..g.len())
                .filter(|&i| cone[i] && matches!(g.node(NodeId(i as u32)), Node::Sym(_)))
                .map(|i| (NodeId(i as u32), vals[i]))
                .collect();
            let values = pairs
                .iter()
                .map(|&(a, b)| (vals[a.index()], vals[b.index()]))
                .collect();
            return Some(Found { leaves, values });
        }
    }
    None
}

/// The values `vals` of the nodes in `cone` on input vector `v` (in id order, so
/// arguments first): each leaf symbol gets one value from [`leaf`], whichever of its
/// nodes asks first. The sweep's simulation and [`search`] both evaluate so.
pub(crate) fn vector(
    g: &Graph,
    cone: &[bool],
    vals: &mut [u128],
    rng: &mut Xoshiro256PlusPlus,
    v: usize,
) {
    let mut env: HashMap<Sym, u128> = HashMap::new();
    for i in (0..g.len()).filter(|&i| cone[i]) {
        let id = NodeId(i as u32);
        vals[i] = match g.node(id) {
            Node::Sym(s) => *env
                .entry(*s)
                .or_insert_with(|| leaf(rng, *s, g.info(id).ub, v)),
            // A leaf the cone reaches is evaluated before the nodes above it.
            _ => g.eval_node(id, vals, &mut |s| env.get(&s).copied().unwrap_or(0)),
        };
    }
}

/// The value of leaf `s` (at most `ub`) in input vector `v`. Addresses get values a
/// real call could have, so that a counterexample never rests on an impossible one
/// (an odd stack pointer): rsp at entry 8 above a multiple of 16 in the user stack's
/// range, argument pointers, frame bases and constant addresses multiples of 64 in a
/// heap-like range. Everything else is [`pick`]ed within its bound.
fn leaf(rng: &mut Xoshiro256PlusPlus, s: Sym, ub: u128, v: usize) -> u128 {
    match s {
        Sym::Rsp0 => {
            let r: u64 = rng.random_range(0x7ff0_0000_0000..0x7fff_ffff_0000);
            ((r & !0xf) | 8) as u128
        }
        Sym::Pointer(_) | Sym::Frame(_) | Sym::Data(_) => {
            let r: u64 = rng.random_range(0x5500_0000_0000..0x5600_0000_0000);
            (r & !0x3f) as u128
        }
        _ => pick(rng, ub, v),
    }
}

/// A value at most `ub` for input vector `v`: all zero, all at the bound, then random
/// values mixed with the bound and small ones (carries need both extremes).
fn pick(rng: &mut Xoshiro256PlusPlus, ub: u128, v: usize) -> u128 {
    let r: u128 = rng.random();
    let rand_le = |r: u128| {
        let x = r & mask(sig(ub));
        if x > ub {
            x % ub.wrapping_add(1).max(1)
        } else {
            x
        }
    };
    match v {
        0 => 0,
        1 => ub,
        _ => match r % 8 {
            0 => ub,
            1 => ub.saturating_sub(r >> 120),
            2 => (r >> 100) & ub.min(0xff),
            _ => rand_le(r.rotate_right(3)),
        },
    }
}
