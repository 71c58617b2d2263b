//! Congruence closure over the sweep's union-find: two nodes are one when they are the
//! same operation on arguments already proved equal, so no query is asked for them and
//! the IR's structure above a merged node stays usable.
//!
//! Nothing here proves anything new: it only reads the merges the sweep made (each on an
//! UNSAT answer or an exact-form proof) and must never add one.

use crate::graph::{mask, Graph, Node, NodeId};

/// The representative of `x` in the union-find `parent`.
pub(super) fn find(parent: &[NodeId], mut x: NodeId) -> NodeId {
    while parent[x.index()] != x {
        x = parent[x.index()];
    }
    x
}

/// Whether `a` and `b` are the same operation on arguments already proved equal
/// (congruence closure: no query needed). Commutative arguments compare as multisets,
/// a sum's terms after equal terms are combined.
pub(super) fn congruent(g: &Graph, parent: &[NodeId], a: NodeId, b: NodeId) -> bool {
    canonical(g, parent, a) == canonical(g, parent, b)
}

/// Node `id` with every argument replaced by its representative, in an order that does
/// not depend on the arguments' ids where the operation does not.
fn canonical(g: &Graph, parent: &[NodeId], id: NodeId) -> Node {
    let f = |x: NodeId| find(parent, x);
    let sorted = |args: &[NodeId]| -> Box<[NodeId]> {
        let mut v: Vec<NodeId> = args.iter().map(|&x| f(x)).collect();
        v.sort();
        v.into()
    };
    match g.node(id) {
        Node::Add { w, k, terms } => {
            let m = mask(*w as u32);
            let mut terms = combine(parent, terms.iter().copied());
            terms.iter_mut().for_each(|t| t.1 &= m);
            terms.retain(|&(_, c)| c != 0);
            Node::Add {
                w: *w,
                k: *k,
                terms: terms.into(),
            }
        }
        &Node::Prod(x, y) => {
            let (x, y) = (f(x), f(y));
            Node::Prod(x.min(y), x.max(y))
        }
        Node::MulMod { w, args } => Node::MulMod {
            w: *w,
            args: sorted(args),
        },
        Node::Carry { shift, k, args } => Node::Carry {
            shift: *shift,
            k: *k,
            args: sorted(args),
        },
        Node::Borrow { a, k, subs } => Node::Borrow {
            a: f(*a),
            k: *k,
            subs: sorted(subs),
        },
        Node::And(args) => Node::And(sorted(args)),
        Node::Or(args) => Node::Or(sorted(args)),
        Node::Xor(args) => Node::Xor(sorted(args)),
        Node::Concat { k, segs } => Node::Concat {
            k: *k,
            segs: segs
                .iter()
                .map(|s| crate::graph::Seg {
                    node: f(s.node),
                    ..*s
                })
                .collect(),
        },
        &Node::Ite { c, t, e } => Node::Ite {
            c: f(c),
            t: f(t),
            e: f(e),
        },
        &Node::Eqz(x) => Node::Eqz(f(x)),
        &Node::Sar { w, n, x } => Node::Sar { w, n, x: f(x) },
        &Node::Sext { from, w, x } => Node::Sext { from, w, x: f(x) },
        n @ (Node::Const(_) | Node::Sym(_)) => n.clone(),
    }
}

/// `Σ c·t` over representatives: equal terms combined (coefficients modulo 2^128;
/// callers reduce modulo their width), zero ones dropped, sorted by node.
pub(super) fn combine(
    parent: &[NodeId],
    terms: impl IntoIterator<Item = (NodeId, u128)>,
) -> Vec<(NodeId, u128)> {
    let mut v: Vec<(NodeId, u128)> = terms
        .into_iter()
        .map(|(t, c)| (find(parent, t), c))
        .collect();
    v.sort_by_key(|t| t.0);
    let mut out: Vec<(NodeId, u128)> = Vec::with_capacity(v.len());
    for (t, c) in v {
        match out.last_mut() {
            Some(last) if last.0 == t => last.1 = last.1.wrapping_add(c),
            _ => out.push((t, c)),
        }
    }
    out.retain(|&(_, c)| c != 0);
    out
}
