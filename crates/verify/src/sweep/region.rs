//! The region of a query: which nodes are bit-blasted when a program node is compared
//! with a target (the nodes in exactly one of the two cones, and the cheap shared nodes
//! just below them); every other node the region reaches is a free value (module
//! `query`).
//!
//! Choosing a region only decides what the solver sees; a smaller region leaves more
//! nodes free, which widens the values a query ranges over and can never make it
//! unsound. This module must never change the graph or the merges.

use std::collections::HashMap;

use super::congruence::find;
use super::{debug, Sweep, Target};
use crate::graph::{Graph, Node, NodeId};

impl Sweep<'_> {
    /// The nodes a query of `m` against `target` blasts (ascending): those in exactly
    /// one of the two cones, and the cheap shared nodes just below them; `None` when
    /// that is over `limits.region`.
    pub(super) fn region(&mut self, m: NodeId, target: Target) -> Option<Vec<NodeId>> {
        self.stamp += 1;
        let stamp = self.stamp;
        let (g, parent, neg) = (self.g, &self.parent, &self.neg);
        mark_cone(g, parent, neg, &mut self.mark_a, stamp, m);
        if let Target::Node(r) | Target::Neg(r, _) = target {
            mark_cone(g, parent, neg, &mut self.mark_b, stamp, r);
        }
        // The region: nodes in exactly one cone; for a constant target, the program's
        // own nodes in m's cone (the IR's nodes are where it stops).
        let hi = m.index().max(match target {
            Target::Node(r) | Target::Neg(r, _) => r.index(),
            Target::Const(_) => 0,
        });
        let mut region = Vec::new();
        for i in 0..=hi {
            let (a, b) = (self.mark_a[i] == stamp, self.mark_b[i] == stamp);
            let inside = match target {
                Target::Node(_) | Target::Neg(..) => a != b,
                Target::Const(_) => a && !self.ir[i],
            };
            if inside && !matches!(self.g.node(NodeId(i as u32)), Node::Sym(_) | Node::Const(_)) {
                region.push(NodeId(i as u32));
                if region.len() > self.limits.region {
                    if debug() >= 2 {
                        eprintln!("sweep: region over {} nodes: not asked", self.limits.region);
                    }
                    return None;
                }
            }
        }
        // Shared nodes just below the region are blasted too, down to `expand` levels
        // (products and leaves stay free): a query often needs how two shared values
        // relate (a sum and its carry, two sums of the same products), not only their
        // ranges.
        let g = self.g;
        let mut inside: std::collections::HashSet<NodeId> = region.iter().copied().collect();
        let mut layer = region.clone();
        for _ in 0..self.limits.expand {
            let mut next = Vec::new();
            for &id in &layer {
                each_arg(g, &self.parent, &self.neg, id, |a| {
                    if cheap(g.node(a)) && inside.insert(a) {
                        next.push(a);
                    }
                });
            }
            if inside.len() > self.limits.region {
                if debug() >= 2 {
                    eprintln!(
                        "sweep: region with shared nodes over {}: not asked",
                        self.limits.region
                    );
                }
                return None;
            }
            region.extend_from_slice(&next);
            layer = next;
        }
        region.sort();
        Some(region)
    }
}

/// Calls `f` with each argument of `id` as the queries see it: a node proved a negation
/// ([`Sweep::neg`]) stands on the node it negates; others on their arguments'
/// representatives.
fn each_arg(
    g: &Graph,
    parent: &[NodeId],
    neg: &HashMap<NodeId, (NodeId, u8)>,
    id: NodeId,
    mut f: impl FnMut(NodeId),
) {
    match neg.get(&id) {
        Some(&(r, _)) => f(find(parent, r)),
        None => g.for_each_arg(id, |a| f(find(parent, a))),
    }
}

/// Marks the cone of `root` (through merges and negations) with `stamp`.
fn mark_cone(
    g: &Graph,
    parent: &[NodeId],
    neg: &HashMap<NodeId, (NodeId, u8)>,
    marks: &mut [u32],
    stamp: u32,
    root: NodeId,
) {
    let mut stack = vec![root];
    marks[root.index()] = stamp;
    while let Some(x) = stack.pop() {
        each_arg(g, parent, neg, x, |a| {
            if marks[a.index()] != stamp {
                marks[a.index()] = stamp;
                stack.push(a);
            }
        });
    }
}

/// Whether a shared node is cheap enough to blast for the relations it gives (slices
/// cost no gates; sums of a few words, selects and bitwise operations a few hundred).
/// Products, leaves and the long sums of a reduction stay free: their relations come
/// from ranges and from the linear relation between sums (`query`).
fn cheap(n: &Node) -> bool {
    match n {
        Node::Sym(_) | Node::Const(_) | Node::Prod(..) | Node::MulMod { .. } => false,
        Node::Add { terms, .. } => terms.len() <= 3,
        Node::Carry { args, .. } => args.len() <= 3,
        Node::Borrow { subs, .. } => subs.len() <= 2,
        _ => true,
    }
}
