//! Bit-blasting: the meaning of one graph node as a circuit over the bits of its
//! arguments — the same meaning [`Graph::eval`] gives it, bit for bit.
//!
//! This module must never use a rule or a node's range to compute a value: a node's
//! bits come from its definition alone (the sweep constrains only the values it leaves
//! free by their ranges). The tests check it against [`Graph::eval`] on the graph
//! fuzzer's random graphs.

use super::circuit::{bit, Bits, Circuit, FALSE, TRUE};
use crate::graph::{Graph, Node, NodeId};

/// The bits of node `id` (at most 128: every node's value is below 2^128), given the
/// bits of its arguments.
pub(crate) fn node_bits(
    c: &mut Circuit,
    g: &Graph,
    id: NodeId,
    arg: &dyn Fn(NodeId) -> Bits,
) -> Bits {
    let mut out = match g.node(id) {
        Node::Const(k) => Circuit::constant(*k, 128),
        Node::Sym(_) => unreachable!("a leaf is never blasted: the sweep leaves it free"),
        Node::Add { w, k, terms } => {
            let w = *w as usize;
            let mut acc = Circuit::constant(*k, w);
            for &(t, coeff) in terms.iter() {
                let x = arg(t);
                let p = c.mul_const(&x, coeff, w);
                acc = c.add_mod(&acc, &p, FALSE, w);
            }
            acc
        }
        &Node::Prod(a, b) => {
            let (x, y) = (arg(a), arg(b));
            c.mul(&x, &y, 128)
        }
        Node::MulMod { w, args } => {
            let w = *w as usize;
            let mut acc = Circuit::constant(1, w);
            for &a in args.iter() {
                let x = arg(a);
                acc = c.mul(&acc, &x, w);
            }
            acc
        }
        Node::Carry { shift, k, args } => {
            let xs: Vec<Bits> = args.iter().map(|&a| arg(a)).collect();
            let s = c.sum(&xs, *k);
            s.into_iter().skip(*shift as usize).collect()
        }
        Node::Borrow { a, k, subs } => {
            let x = arg(*a);
            let xs: Vec<Bits> = subs.iter().map(|&s| arg(s)).collect();
            let s = c.sum(&xs, *k);
            vec![c.less(&x, &s)]
        }
        Node::And(args) => bitwise(c, args, arg, Circuit::and, true),
        Node::Or(args) => bitwise(c, args, arg, Circuit::or, false),
        Node::Xor(args) => bitwise(c, args, arg, Circuit::xor, false),
        Node::Concat { k, segs } => {
            let mut out = Circuit::constant(*k, 128);
            for s in segs.iter() {
                let x = arg(s.node);
                for j in 0..s.len as usize {
                    let (from, to) = (s.from as usize + j, s.at as usize + j);
                    if to >= 128 {
                        break;
                    }
                    let b = x.get(from).copied().unwrap_or(FALSE);
                    out[to] = c.or(out[to], b);
                }
            }
            out
        }
        &Node::Ite { c: cond, t, e } => {
            let (x, y, z) = (arg(cond), arg(t), arg(e));
            let sel = c.any(&x);
            let n = y.len().max(z.len());
            (0..n)
                .map(|i| {
                    let (a, b) = (bit(&y, i), bit(&z, i));
                    c.mux(sel, a, b)
                })
                .collect()
        }
        &Node::Eqz(x) => {
            let x = arg(x);
            vec![-c.any(&x)]
        }
        &Node::Sar { w, n, x } => {
            let (w, n) = (w as usize, n as usize);
            let x = arg(x);
            let sign = bit(&x, w - 1);
            (0..w)
                .map(|i| if i + n < w { bit(&x, i + n) } else { sign })
                .collect()
        }
        &Node::Sext { from, w, x } => {
            let (from, w) = (from as usize, w as usize);
            let x = arg(x);
            let sign = bit(&x, from.min(128) - 1);
            (0..w)
                .map(|i| if i < from { bit(&x, i) } else { sign })
                .collect()
        }
    };
    out.truncate(128);
    out
}

/// A bitwise operation on all `args`, bit by bit over the longest (missing bits are
/// zero; `and` starts from all ones, so its result is as long as the shortest).
fn bitwise(
    c: &mut Circuit,
    args: &[NodeId],
    arg: &dyn Fn(NodeId) -> Bits,
    op: fn(&mut Circuit, i32, i32) -> i32,
    and: bool,
) -> Bits {
    let xs: Vec<Bits> = args.iter().map(|&a| arg(a)).collect();
    let n = if and {
        xs.iter().map(|x| x.len()).min().unwrap_or(128)
    } else {
        xs.iter().map(|x| x.len()).max().unwrap_or(0)
    };
    (0..n)
        .map(|i| {
            let init = if and { TRUE } else { FALSE };
            xs.iter().fold(init, |acc, x| op(c, acc, bit(x, i)))
        })
        .collect()
}
