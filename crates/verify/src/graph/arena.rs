//! The arena of the expression graph: the node kinds, the [`Graph`] that holds every
//! node once (a `Vec` of nodes and a memo from node to id: hash-consing), its leaves
//! (constants and symbols), and traversal of the nodes it holds.
//!
//! Only the smart constructors may add a node (`Graph::intern` is not public): this
//! module must never intern a node that is not in normal form, nor change a node once it
//! is interned (ids are positions, and a node's arguments always have smaller ids).

use std::collections::HashMap;

use cryptopt_x86::Reg;

use super::range::{mask, sig, Info};
use super::rules::Rule;

/// A node: index into the graph's arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

impl NodeId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A leaf: a value the check treats as unknown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Sym {
    /// Element `index` of IR parameter `param` (0 for a scalar).
    Input { param: u32, index: u32 },
    /// The pointer passed in System V argument register `k` (outputs first).
    Pointer(u8),
    /// rsp at entry.
    Rsp0,
    /// The base of the `k`-th stack frame aligned by `and rsp, -2^n`: rsp then, rounded
    /// down to an unknown amount below (see `x86::memory`). Only addresses use it.
    Frame(u8),
    /// The address of the program's constant `k` (`Program::data`): read-only bytes at
    /// an address the program only knows rip-relative. Only addresses use it.
    Data(u8),
    /// The value a register has at entry when it is not an argument.
    Init(Reg),
    /// 64-bit lane `lane` of vector register `reg` at entry.
    InitVec { reg: u8, lane: u8 },
    /// The undefined upper bits of narrow scalar argument register `k`.
    Junk(u8),
}

/// Bits `from..from+len` of `node`, placed at bits `at..at+len` of a [`Node::Concat`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Seg {
    pub node: NodeId,
    pub from: u8,
    pub len: u8,
    pub at: u8,
}

/// The node kinds. Only the smart constructors of [`Graph`] build them, so every node
/// in a graph is in normal form.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    Const(u128),
    Sym(Sym),
    /// `(k + Σ c·t) mod 2^w`; terms sorted by node, coefficients nonzero mod 2^w.
    Add {
        w: u8,
        k: u128,
        terms: Box<[(NodeId, u128)]>,
    },
    /// The exact product `a · b` (at most 128 bits), `a ≤ b` with a constant last.
    Prod(NodeId, NodeId),
    /// `Π args mod 2^w` (three or more factors, or factors too wide for [`Node::Prod`]).
    MulMod {
        w: u8,
        args: Box<[NodeId]>,
    },
    /// `⌊(k + Σ args) / 2^shift⌋`, exact (args sorted): the carry out of an addition.
    Carry {
        shift: u8,
        k: u128,
        args: Box<[NodeId]>,
    },
    /// `1` if `a < k + Σ subs`, else `0`: the borrow out of a subtraction.
    Borrow {
        a: NodeId,
        k: u128,
        subs: Box<[NodeId]>,
    },
    /// Bitwise operations on the exact values, arguments sorted (a constant is one of
    /// them). `And` has no constant argument: masks become [`Node::Concat`]s.
    And(Box<[NodeId]>),
    Or(Box<[NodeId]>),
    Xor(Box<[NodeId]>),
    /// `k | Σ slices`, slices sorted by position, disjoint from each other and from `k`.
    Concat {
        k: u128,
        segs: Box<[Seg]>,
    },
    /// `if c != 0 { t } else { e }` with `c` a bit.
    Ite {
        c: NodeId,
        t: NodeId,
        e: NodeId,
    },
    /// `1` if the value is zero, else `0`.
    Eqz(NodeId),
    /// The `w`-bit pattern `x` read as signed, shifted right by `n` (arithmetically),
    /// as a `w`-bit pattern.
    Sar {
        w: u8,
        n: u8,
        x: NodeId,
    },
    /// The `from`-bit pattern `x` read as signed, as a `w`-bit pattern.
    Sext {
        from: u8,
        w: u8,
        x: NodeId,
    },
}

impl Node {
    /// Calls `f` on every argument, in order.
    pub fn for_each_arg(&self, mut f: impl FnMut(NodeId)) {
        match self {
            Node::Const(_) | Node::Sym(_) => {}
            Node::Add { terms, .. } => terms.iter().for_each(|&(t, _)| f(t)),
            &Node::Prod(a, b) => {
                f(a);
                f(b);
            }
            Node::MulMod { args, .. }
            | Node::Carry { args, .. }
            | Node::And(args)
            | Node::Or(args)
            | Node::Xor(args) => args.iter().for_each(|&a| f(a)),
            Node::Borrow { a, subs, .. } => {
                f(*a);
                subs.iter().for_each(|&s| f(s));
            }
            Node::Concat { segs, .. } => segs.iter().for_each(|s| f(s.node)),
            &Node::Ite { c, t, e } => {
                f(c);
                f(t);
                f(e);
            }
            &Node::Eqz(x) | &Node::Sar { x, .. } | &Node::Sext { x, .. } => f(x),
        }
    }
}

/// The arena: nodes, their range information, the memo for hash-consing, names of the
/// leaves for printing, and how often each rule fired.
#[derive(Default)]
pub struct Graph {
    pub(super) nodes: Vec<Node>,
    pub(super) info: Vec<Info>,
    pub(super) memo: HashMap<Node, NodeId>,
    pub(super) names: HashMap<Sym, String>,
    pub(super) fired: Vec<u64>,
    /// Whether sums wider than 64 bits are split into 64-bit halves (rule
    /// `wide-add-split`, which machine code needs); off only to compare two IR functions,
    /// whose wide sums then stay one flattened node (see `check_functions`).
    pub(super) keep_wide_sums: bool,
    /// The low word `(Σ args + k) mod 2^64` of every 64-bit carry node, made when the
    /// carry is (rule `carry-telescope` finds chained carries by it; making it there
    /// each time instead costs a sum per carry per pass, 3.5x the check time).
    pub(super) lows: HashMap<NodeId, NodeId>,
    /// The first written form of each sum, carry and borrow whose constructor flattened
    /// a sum among its operands (see [`Graph::written`]).
    pub(super) written: HashMap<NodeId, Node>,
}

impl Graph {
    pub fn new() -> Graph {
        Graph {
            fired: vec![0; Rule::COUNT],
            ..Graph::default()
        }
    }

    /// A graph that keeps sums wider than 64 bits whole (no `wide-add-split`): two IR
    /// functions that add the same terms in different groupings get the same node. Every
    /// rule it keeps is sound, so equal nodes still mean equal values; only machine code,
    /// whose sums are 64-bit, needs the split.
    pub fn keeping_wide_sums() -> Graph {
        Graph {
            keep_wide_sums: true,
            ..Graph::new()
        }
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }

    pub fn info(&self, id: NodeId) -> Info {
        self.info[id.index()]
    }

    /// How node `id` was first written, where that differs from its normal form by a
    /// flattened sum: a [`Node::Add`], [`Node::Carry`] or [`Node::Borrow`] as it was
    /// asked of its constructor, over the operands as the program held them, never
    /// interned (so not in normal form). The same value, by the constructors' contract.
    /// The normal form forgets that a program added a word it had already computed;
    /// where another procedure proved that word equal to one of the IR's, the written
    /// form lets a check go on in the IR's terms (module `exact`).
    pub fn written(&self, id: NodeId) -> Option<&Node> {
        self.written.get(&id)
    }

    /// Records that node `id` is the value of `form`, when an operand of `form` is a sum
    /// (so the normal form flattened it) and `id` has no written form yet.
    pub(super) fn note_written(
        &mut self,
        id: NodeId,
        form: impl FnOnce() -> Node,
        operands: impl Iterator<Item = NodeId> + Clone,
    ) {
        // A form must be over smaller ids, like a node's arguments (a sum that folds to
        // one of its operands is not written as itself).
        if self.written.contains_key(&id)
            || matches!(self.nodes[id.index()], Node::Const(_))
            || operands.clone().any(|o| o >= id)
        {
            return;
        }
        if operands
            .into_iter()
            .any(|o| matches!(self.nodes[o.index()], Node::Add { .. }))
        {
            let f = form();
            self.written.insert(id, f);
        }
    }

    /// The constant value of a node, if it is a constant.
    pub fn as_const(&self, id: NodeId) -> Option<u128> {
        match self.nodes[id.index()] {
            Node::Const(c) => Some(c),
            _ => None,
        }
    }

    /// How often `rule` has rewritten a node in this graph.
    pub fn fired(&self, rule: Rule) -> u64 {
        self.fired.get(rule.index()).copied().unwrap_or(0)
    }

    /// Counts one rewrite by `rule`.
    pub(super) fn fire(&mut self, rule: Rule) {
        if self.fired.is_empty() {
            self.fired = vec![0; Rule::COUNT];
        }
        self.fired[rule.index()] += 1;
    }

    /// The id of `n` (in normal form, with range `info`): the node's existing id, or a
    /// new one (hash-consing).
    pub(super) fn intern(&mut self, n: Node, info: Info) -> NodeId {
        if let Some(&id) = self.memo.get(&n) {
            return id;
        }
        if info.nz == 0 && !matches!(n, Node::Const(_)) {
            // (Defensive: the constructors fold such nodes before they get here.)
            return self.konst(0);
        }
        let id = NodeId(self.nodes.len() as u32);
        self.nodes.push(n.clone());
        self.info.push(Info {
            nz: info.nz,
            ub: info.ub.min(info.nz),
        });
        self.memo.insert(n, id);
        id
    }

    // -----------------------------------------------------------------------------------
    // leaves

    /// The constant `v`.
    pub fn konst(&mut self, v: u128) -> NodeId {
        self.intern(Node::Const(v), Info { nz: v, ub: v })
    }

    /// The leaf `s`, known to be at most `ub`, printed as `name`.
    pub fn sym(&mut self, s: Sym, ub: u128, name: impl Into<String>) -> NodeId {
        self.names.entry(s).or_insert_with(|| name.into());
        if ub == 0 {
            return self.konst(0);
        }
        self.intern(
            Node::Sym(s),
            Info {
                nz: mask(sig(ub)),
                ub,
            },
        )
    }

    // -----------------------------------------------------------------------------------
    // traversal

    /// Calls `f` on every argument of node `id`.
    pub fn for_each_arg(&self, id: NodeId, f: impl FnMut(NodeId)) {
        self.nodes[id.index()].for_each_arg(f)
    }

    /// Marks every node reachable from `roots` (arguments have smaller ids).
    pub fn reachable(&self, roots: impl IntoIterator<Item = NodeId>) -> Vec<bool> {
        self.reach(roots, None)
    }

    /// Marks every node reachable from `roots` through arguments and the operands of
    /// the written forms ([`Graph::written`]) of nodes not marked in `besides`: the
    /// values a program computed on the way, including words the normal form flattened
    /// away (but not the ways of computing the nodes it shares with `besides`, the IR's).
    pub fn reachable_written(
        &self,
        roots: impl IntoIterator<Item = NodeId>,
        besides: &[bool],
    ) -> Vec<bool> {
        self.reach(roots, Some(besides))
    }

    fn reach(
        &self,
        roots: impl IntoIterator<Item = NodeId>,
        written: Option<&[bool]>,
    ) -> Vec<bool> {
        let mut mark = vec![false; self.nodes.len()];
        let mut hi = 0;
        for r in roots {
            mark[r.index()] = true;
            hi = hi.max(r.index() + 1);
        }
        for i in (0..hi).rev() {
            if mark[i] {
                let id = NodeId(i as u32);
                self.for_each_arg(id, |a| mark[a.index()] = true);
                let follow = written.is_some_and(|besides| !besides[i]);
                if let (true, Some(f)) = (follow, self.written.get(&id)) {
                    f.for_each_arg(|a| mark[a.index()] = true);
                }
            }
        }
        mark
    }

    /// The arguments of node `id`, in order.
    pub fn args(&self, id: NodeId) -> Vec<NodeId> {
        let mut v = Vec::new();
        self.for_each_arg(id, |a| v.push(a));
        v
    }

    /// Descends from `a` and `b` while they are nodes of the same shape (kind, widths,
    /// constants, coefficients, slice positions) differing in exactly the arguments at
    /// the same positions, and returns the innermost differing pair: where two
    /// expressions really part ways.
    pub fn innermost_difference(&self, a: NodeId, b: NodeId) -> (NodeId, NodeId) {
        let (mut a, mut b) = (a, b);
        loop {
            if a == b {
                return (a, b);
            }
            let (na, nb) = (&self.nodes[a.index()], &self.nodes[b.index()]);
            if !same_shape(na, nb) {
                return (a, b);
            }
            let (xa, xb) = (self.args(a), self.args(b));
            let diffs: Vec<(NodeId, NodeId)> =
                xa.into_iter().zip(xb).filter(|(x, y)| x != y).collect();
            match diffs[..] {
                [(x, y)] => (a, b) = (x, y),
                _ => return (a, b),
            }
        }
    }
}

/// Whether `a` and `b` are nodes of the same kind with the same widths, constants,
/// coefficients and slice positions (so that they differ at most in their arguments).
fn same_shape(a: &Node, b: &Node) -> bool {
    match (a, b) {
        (
            Node::Add { w, k, terms },
            Node::Add {
                w: w2,
                k: k2,
                terms: t2,
            },
        ) => {
            w == w2
                && k == k2
                && terms.len() == t2.len()
                && terms.iter().zip(t2.iter()).all(|(x, y)| x.1 == y.1)
        }
        (Node::Prod(..), Node::Prod(..)) => true,
        (Node::MulMod { w, args }, Node::MulMod { w: w2, args: a2 }) => {
            w == w2 && args.len() == a2.len()
        }
        (
            Node::Carry { shift, k, args },
            Node::Carry {
                shift: s2,
                k: k2,
                args: a2,
            },
        ) => shift == s2 && k == k2 && args.len() == a2.len(),
        (
            Node::Borrow { k, subs, .. },
            Node::Borrow {
                k: k2, subs: s2, ..
            },
        ) => k == k2 && subs.len() == s2.len(),
        (Node::And(x), Node::And(y))
        | (Node::Or(x), Node::Or(y))
        | (Node::Xor(x), Node::Xor(y)) => x.len() == y.len(),
        (Node::Concat { k, segs }, Node::Concat { k: k2, segs: s2 }) => {
            k == k2
                && segs.len() == s2.len()
                && segs
                    .iter()
                    .zip(s2.iter())
                    .all(|(x, y)| (x.from, x.len, x.at) == (y.from, y.len, y.at))
        }
        (Node::Ite { .. }, Node::Ite { .. }) | (Node::Eqz(_), Node::Eqz(_)) => true,
        (Node::Sar { w, n, .. }, Node::Sar { w: w2, n: n2, .. }) => w == w2 && n == n2,
        (
            Node::Sext { from, w, .. },
            Node::Sext {
                from: f2, w: w2, ..
            },
        ) => from == f2 && w == w2,
        _ => false,
    }
}
