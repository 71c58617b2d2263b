//! Concrete evaluation of the expression graph: the value of every node for given
//! values of the leaves, from the nodes' definitions alone.
//!
//! This module must never use a rule or the range analysis: the tests check the rules
//! and ranges against it.

use super::arena::{Graph, Node, NodeId, Sym};
use super::range::{mask, sext_value, sh_l, sh_r};

impl Graph {
    /// The value of every node, given the values of the leaves.
    pub fn eval(&self, env: &mut dyn FnMut(Sym) -> u128) -> Vec<u128> {
        let mut v: Vec<u128> = Vec::with_capacity(self.nodes.len());
        for n in &self.nodes {
            let x = eval_node(n, &v, env);
            v.push(x);
        }
        v
    }

    /// The value of node `id`, given the values `v` of the nodes before it (indexed by
    /// id; only its arguments are read).
    pub fn eval_node(&self, id: NodeId, v: &[u128], env: &mut dyn FnMut(Sym) -> u128) -> u128 {
        eval_node(&self.nodes[id.index()], v, env)
    }
}

/// `(hi, lo)` of the exact sum of `k` and `xs` (256 bits).
fn wide_sum(k: u128, xs: impl Iterator<Item = u128>) -> (u128, u128) {
    let (mut hi, mut lo) = (0u128, k);
    for x in xs {
        let (s, o) = lo.overflowing_add(x);
        lo = s;
        hi += o as u128;
    }
    (hi, lo)
}

fn eval_node(n: &Node, v: &[u128], env: &mut dyn FnMut(Sym) -> u128) -> u128 {
    let val = |id: NodeId| v[id.index()];
    match n {
        Node::Const(c) => *c,
        Node::Sym(s) => env(*s),
        Node::Add { w, k, terms } => {
            let s = terms
                .iter()
                .fold(*k, |acc, &(t, c)| acc.wrapping_add(val(t).wrapping_mul(c)));
            s & mask(*w as u32)
        }
        &Node::Prod(a, b) => val(a).wrapping_mul(val(b)),
        Node::MulMod { w, args } => {
            args.iter().fold(1u128, |acc, &a| acc.wrapping_mul(val(a))) & mask(*w as u32)
        }
        Node::Carry { shift, k, args } => {
            let (hi, lo) = wide_sum(*k, args.iter().map(|&a| val(a)));
            let s = *shift as u32;
            if s == 0 {
                lo
            } else if s >= 128 {
                sh_r(hi, s - 128)
            } else {
                (lo >> s) | (hi << (128 - s))
            }
        }
        Node::Borrow { a, k, subs } => {
            let (hi, lo) = wide_sum(*k, subs.iter().map(|&x| val(x)));
            (hi > 0 || val(*a) < lo) as u128
        }
        Node::And(args) => args.iter().fold(u128::MAX, |acc, &a| acc & val(a)),
        Node::Or(args) => args.iter().fold(0, |acc, &a| acc | val(a)),
        Node::Xor(args) => args.iter().fold(0, |acc, &a| acc ^ val(a)),
        Node::Concat { k, segs } => segs.iter().fold(*k, |acc, s| {
            acc | sh_l(
                sh_r(val(s.node), s.from as u32) & mask(s.len as u32),
                s.at as u32,
            )
        }),
        &Node::Ite { c, t, e } => {
            if val(c) != 0 {
                val(t)
            } else {
                val(e)
            }
        }
        &Node::Eqz(x) => (val(x) == 0) as u128,
        &Node::Sar { w, n, x } => {
            ((sext_value(val(x), w as u32) as i128 >> n) as u128) & mask(w as u32)
        }
        &Node::Sext { from, w, x } => sext_value(val(x), from as u32) & mask(w as u32),
    }
}
