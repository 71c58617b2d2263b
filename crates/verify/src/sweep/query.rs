//! One SAT query of the sweep: "can node `m` differ from the target?", over a region of
//! the graph that is bit-blasted; every other node it reaches is a free value.
//!
//! Free values keep what is known of them without blasting their cones:
//! * their **range** (the analysis's upper bound and possibly-nonzero bits);
//! * for modular sums, their **linear relation** to the sums already in the query or just
//!   below its region: a sum `Y = k' + Σ c'·t mod 2^w` that differs from such a sum `X`
//!   in a few terms is blasted as `X + (k' - k) + Σ (c' - c)·t mod 2^w` — an identity
//!   of linear forms, true for all values — so that, say, `lo(s + k)` and the carry of
//!   `s + k` stay tied to `s` although none of the three is computed from the products
//!   beneath.
//!
//! This module must never give a node bits that are not its value for every value of the
//! free nodes within their ranges.

use std::collections::{HashMap, HashSet};

use super::blast;
use super::circuit::{Bits, Circuit, FALSE};
use crate::graph::{sig, Graph, Node, NodeId};

pub(crate) struct Query<'a> {
    g: &'a Graph,
    parent: &'a [NodeId],
    /// Nodes proved constant (without a constant node to stand for them).
    known: &'a HashMap<NodeId, u128>,
    /// Nodes proved to be `-r mod 2^w` of another.
    neg: &'a HashMap<NodeId, (NodeId, u8)>,
    region: HashSet<NodeId>,
    pub(crate) c: Circuit,
    bits: HashMap<NodeId, Bits>,
    /// The sums that have bits, by width (bases for the linear relation).
    sums: HashMap<u8, Vec<NodeId>>,
    /// The sums just below the region (arguments of its nodes, free), by width: bases
    /// too, before they have bits (`lo(s + 1)` in the region, `s` the carry's argument
    /// beside it, is `s + 1` however late the query reaches `s`).
    below: HashMap<u8, Vec<NodeId>>,
}

impl<'a> Query<'a> {
    pub(crate) fn new(
        g: &'a Graph,
        parent: &'a [NodeId],
        known: &'a HashMap<NodeId, u128>,
        neg: &'a HashMap<NodeId, (NodeId, u8)>,
        region: &[NodeId],
    ) -> Query<'a> {
        let inside: HashSet<NodeId> = region.iter().copied().collect();
        let mut below: HashMap<u8, Vec<NodeId>> = HashMap::new();
        for &id in region {
            g.for_each_arg(id, |a| {
                let a = super::find(parent, a);
                if let Node::Add { w, .. } = g.node(a) {
                    if !inside.contains(&a) && !below.get(w).is_some_and(|v| v.contains(&a)) {
                        below.entry(*w).or_default().push(a);
                    }
                }
            });
        }
        Query {
            g,
            parent,
            known,
            neg,
            region: inside,
            c: Circuit::new(),
            bits: HashMap::new(),
            sums: HashMap::new(),
            below,
        }
    }

    fn find(&self, x: NodeId) -> NodeId {
        super::find(self.parent, x)
    }

    /// The bits of node `id` (its representative's): computed from its arguments in the
    /// region, else free.
    pub(crate) fn bits(&mut self, id: NodeId) -> Bits {
        let id = self.find(id);
        if let Some(b) = self.bits.get(&id) {
            return b.clone();
        }
        let g = self.g;
        let b = match (self.neg.get(&id), self.known.get(&id), g.node(id)) {
            (Some(&(r, w)), ..) => {
                let rb = self.bits(r);
                self.c.neg_mod(&rb, w as usize)
            }
            (None, Some(&k), _) | (None, None, &Node::Const(k)) => {
                Circuit::constant(k, sig(k) as usize)
            }
            (None, None, Node::Add { w, k, terms }) => match self.base(id, *w, terms) {
                Some(x) => self.relative(x, *w, *k, terms),
                None if self.region.contains(&id) => self.computed(id),
                None => self.free(id),
            },
            _ if self.region.contains(&id) => self.computed(id),
            _ => self.free(id),
        };
        if let Node::Add { w, .. } = g.node(id) {
            self.sums.entry(*w).or_default().push(id);
        }
        self.bits.insert(id, b.clone());
        b
    }

    /// Bits from the node's definition, its arguments first.
    fn computed(&mut self, id: NodeId) -> Bits {
        let mut args = Vec::new();
        self.g.for_each_arg(id, |a| args.push(a));
        for &a in &args {
            self.bits(a);
        }
        let (bits, parent) = (&self.bits, self.parent);
        blast::node_bits(&mut self.c, self.g, id, &|a| {
            bits[&super::find(parent, a)].clone()
        })
    }

    /// A value the query does not compute: free bits within its range.
    fn free(&mut self, id: NodeId) -> Bits {
        let info = self.g.info(id);
        if super::debug() >= 4 {
            eprintln!("  free {:?} ub {:x}: {}", id, info.ub, self.g.show(id, 200));
        }
        let x = self.c.fresh_bits(sig(info.nz) as usize);
        self.c.constrain(&x, info.nz, info.ub);
        x
    }

    /// The sum of width `w` with bits or just below the region, and a smaller id, whose
    /// terms differ least from `terms`, if it differs in fewer terms than `terms` has.
    fn base(&self, id: NodeId, w: u8, terms: &[(NodeId, u128)]) -> Option<NodeId> {
        let mut best: Option<(usize, NodeId)> = None;
        let (sums, below) = (self.sums.get(&w), self.below.get(&w));
        for &x in sums.into_iter().chain(below).flatten() {
            if x >= id {
                continue;
            }
            let Node::Add { terms: xt, .. } = self.g.node(x) else {
                continue;
            };
            let d = self.diff(terms, xt).len();
            if d < terms.len() && best.is_none_or(|(bd, _)| d < bd) {
                best = Some((d, x));
            }
        }
        best.map(|(_, x)| x)
    }

    /// `Σ (c' - c)·t` for the terms of `y` minus those of `x` (nonzero coefficients,
    /// modulo 2^128; callers reduce modulo their width).
    fn diff(&self, y: &[(NodeId, u128)], x: &[(NodeId, u128)]) -> Vec<(NodeId, u128)> {
        let negated = x.iter().map(|&(t, c)| (t, c.wrapping_neg()));
        super::combine(self.parent, y.iter().copied().chain(negated))
    }

    /// The sum `k + Σ terms mod 2^w` as sum `x` plus the difference.
    fn relative(&mut self, x: NodeId, w: u8, k: u128, terms: &[(NodeId, u128)]) -> Bits {
        let Node::Add {
            k: xk, terms: xt, ..
        } = self.g.node(x)
        else {
            unreachable!("bases are sums")
        };
        let d = self.diff(terms, xt);
        let w = w as usize;
        let mut acc = self.bits(x);
        let kd = Circuit::constant(k.wrapping_sub(*xk), w);
        acc = self.c.add_mod(&acc, &kd, FALSE, w);
        for (t, c) in d {
            let tb = self.bits(t);
            let p = self.c.mul_const(&tb, c, w);
            acc = self.c.add_mod(&acc, &p, FALSE, w);
        }
        acc
    }
}
