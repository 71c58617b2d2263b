//! The order a formula's field operations are emitted in. The formula's text runs once
//! over a [`Recorder`] (each field element a node of the operations' graph); then the
//! operations are replayed over the real implementation of [`Ops`] in a list schedule by
//! height: among the operations whose operands exist, the one with the longest chain of
//! estimated latencies to an output goes first (ties: the text's order).
//!
//! ```text
//!   Formula::run ──text──▶ Recorder (graph) ──schedule──▶ order ──replay──▶ O: Ops
//! ```
//!
//! Why: the text is written for reading (the paper's line order), where a product often
//! comes right after the sums it multiplies; in the emitted function the processor then
//! waits at each operation boundary. Sums of inputs first and independent products next
//! to each other gave p256-add's first code 672 TSC ticks instead of 701. The C driver
//! (the benchmark's formula from separately optimized operations) keeps the text's
//! order: one call at a time as written; scheduling across operations is part of what
//! the formula as one function adds.
//!
//! It must never change what is computed: every recorded operation is replayed exactly
//! once, after its operands, with the same operands.

use num_bigint::BigUint;

use super::Ops;
use crate::fields::FieldError;

/// A recorded field element: the index of the node that made it.
pub(crate) type Id = usize;

#[derive(Clone, Debug)]
enum Node {
    /// The formula's argument element `i`.
    Arg(usize),
    Add(Id, Id),
    Sub(Id, Id),
    Mul(Id, Id, bool),
    MulAdd([Id; 4], bool),
    MulSmall(Id, u64),
    /// `c·a·b` (`square`, `c`, `wide`).
    MulScaled(Id, Id, bool, u64, bool),
    AddLazy(Id, Id),
    SubLazy(Id, Id),
    Settle(Id),
    Constant(BigUint),
    /// Defines two elements: this node's and the next node's (a [`Node::Second`]), by
    /// the formula's swap bit of the given index.
    Cswap(Id, Id, usize),
    Second,
}

impl Node {
    fn operands(&self) -> Vec<Id> {
        match *self {
            Node::Arg(_) | Node::Constant(_) | Node::Second => vec![],
            Node::Add(a, b)
            | Node::Sub(a, b)
            | Node::Mul(a, b, _)
            | Node::MulScaled(a, b, _, _, _)
            | Node::AddLazy(a, b)
            | Node::SubLazy(a, b)
            | Node::Cswap(a, b, _) => vec![a, b],
            Node::MulAdd(ids, _) => ids.to_vec(),
            Node::MulSmall(a, _) | Node::Settle(a) => vec![a],
        }
    }

    /// Estimated latency, in additions.
    fn latency(&self) -> u32 {
        match self {
            Node::Mul(..) | Node::MulAdd(..) => 4,
            Node::MulScaled(.., false) => 5,
            // Without its fold.
            Node::MulScaled(.., true) => 4,
            Node::MulSmall(..) | Node::Settle(..) => 2,
            Node::Add(..) | Node::Sub(..) | Node::AddLazy(..) | Node::SubLazy(..) => 1,
            Node::Cswap(..) => 1,
            Node::Arg(_) | Node::Constant(_) | Node::Second => 0,
        }
    }
}

/// The operations' graph, recorded by running a formula's text over it.
#[derive(Debug, Default)]
pub(crate) struct Recorder {
    nodes: Vec<Node>,
    /// The swap bit `cswap` records (`Ops::use_swap`).
    swap: usize,
}

impl Recorder {
    fn push(&mut self, n: Node) -> Id {
        self.nodes.push(n);
        self.nodes.len() - 1
    }

    /// The formula's first `n` argument elements.
    pub(crate) fn args(&mut self, n: usize) -> Vec<Id> {
        (0..n).map(|i| self.push(Node::Arg(i))).collect()
    }

    /// The order the operations are replayed in: a list schedule by height (see the
    /// module doc). Every node once, each after its operands; a `Second` right after
    /// its `Cswap`.
    fn schedule(&self) -> Vec<Id> {
        let n = self.nodes.len();
        let mut users: Vec<Vec<Id>> = vec![Vec::new(); n];
        for (k, node) in self.nodes.iter().enumerate() {
            for a in node.operands() {
                users[a].push(k);
            }
        }
        // Nodes only use earlier nodes, so one backward pass finds every height.
        let mut height = vec![0u32; n];
        for k in (0..n).rev() {
            let below = users[k].iter().map(|&u| height[u]).max().unwrap_or(0);
            height[k] = self.nodes[k].latency() + below;
            if let Node::Cswap(..) = self.nodes[k] {
                height[k] = height[k].max(self.nodes[k].latency() + height[k + 1]);
            }
        }
        let mut missing: Vec<usize> = self.nodes.iter().map(|n| n.operands().len()).collect();
        let mut ready: Vec<Id> = (0..n)
            .filter(|&k| missing[k] == 0 && !matches!(self.nodes[k], Node::Second))
            .collect();
        let mut order = Vec::with_capacity(n);
        while let Some(i) = (0..ready.len()).max_by(|&a, &b| {
            let (x, y) = (ready[a], ready[b]);
            height[x].cmp(&height[y]).then(y.cmp(&x))
        }) {
            let k = ready.swap_remove(i);
            let made: &[Id] = if matches!(self.nodes[k], Node::Cswap(..)) {
                &[k, k + 1]
            } else {
                &[k]
            };
            for &m in made {
                order.push(m);
                for &u in &users[m] {
                    missing[u] -= 1;
                    if missing[u] == 0 {
                        ready.push(u);
                    }
                }
            }
        }
        debug_assert_eq!(order.len(), n, "every node once");
        order
    }

    /// The recorded operations over `u` in schedule order, from the formula's argument
    /// elements `args`: the elements `outs` stand for.
    pub(crate) fn replay<O: Ops>(
        &self,
        u: &mut O,
        args: Vec<O::Fe>,
        outs: &[Id],
    ) -> Result<Vec<O::Fe>, FieldError> {
        let mut args: Vec<Option<O::Fe>> = args.into_iter().map(Some).collect();
        let mut val: Vec<Option<O::Fe>> = vec![None; self.nodes.len()];
        for k in self.schedule() {
            let get = |i: Id| val[i].as_ref().expect("operands come first");
            let x = match &self.nodes[k] {
                Node::Arg(i) => args[*i].take().expect("one node per argument"),
                Node::Add(a, b) => u.add(get(*a), get(*b))?,
                Node::Sub(a, b) => u.sub(get(*a), get(*b))?,
                Node::Mul(a, b, square) => u.mul(get(*a), get(*b), *square)?,
                Node::MulAdd([a, b, c, d], minus) => {
                    u.mul_add([get(*a), get(*b), get(*c), get(*d)], *minus)?
                }
                Node::MulSmall(a, c) => u.mul_small(get(*a), *c)?,
                Node::MulScaled(a, b, square, c, wide) => {
                    u.mul_scaled(get(*a), get(*b), *square, *c, *wide)?
                }
                Node::AddLazy(a, b) => u.add_lazy(get(*a), get(*b))?,
                Node::SubLazy(a, b) => u.sub_lazy(get(*a), get(*b))?,
                Node::Settle(a) => u.settle(get(*a))?,
                Node::Constant(c) => u.constant(c),
                Node::Cswap(a, b, bit) => {
                    u.use_swap(*bit);
                    let (x, y) = u.cswap(get(*a), get(*b));
                    val[k + 1] = Some(y);
                    x
                }
                Node::Second => continue,
            };
            val[k] = Some(x);
        }
        Ok(outs
            .iter()
            .map(|&o| val[o].clone().expect("every node replayed"))
            .collect())
    }
}

impl Ops for Recorder {
    type Fe = Id;
    fn add(&mut self, a: &Id, b: &Id) -> Result<Id, FieldError> {
        Ok(self.push(Node::Add(*a, *b)))
    }
    fn sub(&mut self, a: &Id, b: &Id) -> Result<Id, FieldError> {
        Ok(self.push(Node::Sub(*a, *b)))
    }
    fn mul(&mut self, a: &Id, b: &Id, square: bool) -> Result<Id, FieldError> {
        Ok(self.push(Node::Mul(*a, *b, square)))
    }
    fn mul_add(&mut self, [a, b, c, d]: [&Id; 4], minus: bool) -> Result<Id, FieldError> {
        Ok(self.push(Node::MulAdd([*a, *b, *c, *d], minus)))
    }
    fn mul_small(&mut self, a: &Id, c: u64) -> Result<Id, FieldError> {
        Ok(self.push(Node::MulSmall(*a, c)))
    }
    fn mul_scaled(
        &mut self,
        a: &Id,
        b: &Id,
        square: bool,
        c: u64,
        wide: bool,
    ) -> Result<Id, FieldError> {
        Ok(self.push(Node::MulScaled(*a, *b, square, c, wide)))
    }
    fn add_lazy(&mut self, a: &Id, b: &Id) -> Result<Id, FieldError> {
        Ok(self.push(Node::AddLazy(*a, *b)))
    }
    fn sub_lazy(&mut self, a: &Id, b: &Id) -> Result<Id, FieldError> {
        Ok(self.push(Node::SubLazy(*a, *b)))
    }
    fn settle(&mut self, a: &Id) -> Result<Id, FieldError> {
        Ok(self.push(Node::Settle(*a)))
    }
    fn constant(&mut self, c: &BigUint) -> Id {
        self.push(Node::Constant(c.clone()))
    }
    fn cswap(&mut self, a: &Id, b: &Id) -> (Id, Id) {
        let x = self.push(Node::Cswap(*a, *b, self.swap));
        (x, self.push(Node::Second))
    }
    fn use_swap(&mut self, k: usize) {
        self.swap = k;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formulas::Formula;

    /// Law: the schedule is a permutation of the nodes, each after its operands, a
    /// swap's second element right after it, in every formula.
    #[test]
    fn schedules_are_topological() {
        for formula in Formula::ALL {
            let mut r = Recorder::default();
            let args = r.args(formula.elements_in());
            formula.text(&mut r, args).expect("records");
            let order = r.schedule();
            let mut pos = vec![usize::MAX; r.nodes.len()];
            for (i, &k) in order.iter().enumerate() {
                assert_eq!(pos[k], usize::MAX, "{formula}: node {k} twice");
                pos[k] = i;
            }
            for (k, node) in r.nodes.iter().enumerate() {
                assert!(pos[k] != usize::MAX, "{formula}: node {k} missing");
                for a in node.operands() {
                    assert!(pos[a] < pos[k], "{formula}: node {k} before operand {a}");
                }
                if let Node::Second = node {
                    assert_eq!(pos[k], pos[k - 1] + 1, "{formula}: swap halves apart");
                }
            }
        }
    }
}
