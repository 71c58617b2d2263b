//! The three views of one graph that the SAT sweep holds ([`Views`]): this file only
//! dispatches a question to the views that can answer it and tells every view every
//! merge; it must never translate or decide anything itself (that is [`Exact`]'s).

use super::Exact;
use crate::graph::{Graph, NodeId};

/// Three views of one graph for the SAT sweep, told the same merges: one that translates
/// every node from its normal form, one that translates a node written over a merged
/// one from its written form ([`Graph::written`]), and one without rule `near` of module
/// `lo`. Each is exact; a pair is proved equal when any view proves it. Several because
/// none subsumes the others: the written form keeps a program's own word where the IR
/// has the same word (clang's signed borrow chain over words the sweep merged), the
/// normal form keeps the flattened sum that a program regrouped differently (gcc's
/// reductions), and without `near` a carry stays a floor whose range the chain's value
/// bounds (a pseudo-Mersenne Montgomery step's words against Fiat's), where `near`'s
/// sign test keeps compilers' wrapped words comparable. The third is asked only when
/// the others fail.
pub(crate) struct Views<'g> {
    plain: Exact<'g>,
    written: Exact<'g>,
    far: Exact<'g>,
}

impl<'g> Views<'g> {
    pub fn new(g: &'g Graph) -> Views<'g> {
        let mut written = Exact::new(g);
        written.use_written = true;
        let mut far = Exact::new(g);
        far.use_near = false;
        Views {
            plain: Exact::new(g),
            written,
            far,
        }
    }

    // The written view is asked only where it can differ: where a node of the pair is
    // derived there (else its polynomials are the plain view's, and so its answer).

    /// Whether nodes `a` and `b` are proved equal.
    pub fn equal(&mut self, a: NodeId, b: NodeId) -> bool {
        self.plain.equal(a, b) || (self.written.any_derived(&[a, b]) && self.written.equal(a, b))
    }

    /// [`Views::equal`] with module `alt`'s second forms: a last resort (see
    /// [`Exact::equal_by_second_forms`]).
    pub fn equal_by_second_forms(&mut self, a: NodeId, b: NodeId) -> bool {
        self.plain.equal_by_second_forms(a, b)
            || (self.written.any_derived(&[a, b]) && self.written.equal_by_second_forms(a, b))
    }

    /// Whether node `m` is proved to be the constant `k`.
    pub fn equal_const(&mut self, m: NodeId, k: u128) -> bool {
        self.plain.equal_const(m, k)
            || (self.written.any_derived(&[m]) && self.written.equal_const(m, k))
            || self.far.equal_const(m, k)
    }

    /// Whether node `m` is proved to be `-r mod 2^w`.
    pub fn equal_neg(&mut self, m: NodeId, r: NodeId, w: u32) -> bool {
        self.plain.equal_neg(m, r, w)
            || (self.written.any_derived(&[m, r]) && self.written.equal_neg(m, r, w))
            || self.far.equal_neg(m, r, w)
    }

    /// Records that node `m` is proved equal to node `r`.
    pub fn alias(&mut self, m: NodeId, r: NodeId) {
        self.plain.alias(m, r);
        self.written.alias(m, r);
        self.far.alias(m, r);
    }

    /// Records that node `m` is `-r mod 2^w`.
    pub fn alias_neg(&mut self, m: NodeId, r: NodeId, w: u32) {
        self.plain.alias_neg(m, r, w);
        self.written.alias_neg(m, r, w);
        self.far.alias_neg(m, r, w);
    }

    /// Records that node `m` is the constant `k`.
    pub fn alias_const(&mut self, m: NodeId, k: u128) {
        self.plain.alias_const(m, k);
        self.written.alias_const(m, k);
        self.far.alias_const(m, k);
    }
}
