//! The range analysis of the expression graph: for every node an [`Info`], an upper
//! bound of its value and the bits that may be nonzero, computed by the smart
//! constructors from their arguments' infos; and the integer helpers on bit patterns it
//! (and the constructors) compute with.
//!
//! The rules use these ranges (to trim slices, drop carries that cannot occur, see that
//! bits are disjoint), so this module must never claim a bound that a value within the
//! leaves' declared bounds can exceed: a range that is too tight makes the checker
//! unsound. A range that is too loose only makes it incomplete.

use super::arena::{Graph, Node, NodeId, Seg};

/// What the range analysis knows about a node: `value ≤ ub` and `value & !nz == 0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Info {
    /// Bits that may be nonzero.
    pub nz: u128,
    /// An upper bound of the value.
    pub ub: u128,
}

/// `2^bits - 1` (all ones for 128 or more).
pub const fn mask(bits: u32) -> u128 {
    if bits >= 128 {
        u128::MAX
    } else {
        (1u128 << bits) - 1
    }
}

/// Number of significant bits.
pub const fn sig(x: u128) -> u32 {
    128 - x.leading_zeros()
}

pub(super) const fn sh_r(x: u128, n: u32) -> u128 {
    if n >= 128 {
        0
    } else {
        x >> n
    }
}

pub(super) const fn sh_l(x: u128, n: u32) -> u128 {
    if n >= 128 {
        0
    } else {
        x << n
    }
}

/// All ones in the low 64 bits.
pub(super) const M64: u128 = u64::MAX as u128;

/// The `bits`-bit pattern `v` read as signed, as a 128-bit pattern.
pub(super) fn sext_value(v: u128, bits: u32) -> u128 {
    let v = v & mask(bits);
    if bits < 128 && (v >> (bits - 1)) & 1 == 1 {
        v | !mask(bits)
    } else {
        v
    }
}

impl Graph {
    /// The bits node `id` may have nonzero.
    pub(super) fn nz(&self, id: NodeId) -> u128 {
        self.info[id.index()].nz
    }

    /// An upper bound of node `id`.
    pub(super) fn ub(&self, id: NodeId) -> u128 {
        self.info[id.index()].ub
    }

    /// How many low bits of `x` are known zero: those of its possible bits, and of a
    /// sum those every term's coefficient (times its node's) and the constant have.
    /// Not part of [`Info`]: a sum's masks are kept coarse (trailing zeros in every
    /// sum's mask changed normal forms that gcc's Solinas multiplication is proved
    /// by); this is asked only where operands are tested for disjoint bits.
    pub(super) fn low_zeros(&self, x: NodeId) -> u32 {
        let own = self.nz(x).trailing_zeros();
        let Node::Add { w, k, terms } = &self.nodes[x.index()] else {
            return own;
        };
        let w = u32::from(*w);
        let mut tz = if *k == 0 { w } else { k.trailing_zeros() };
        for &(t, c) in terms.iter() {
            tz = tz.min(c.trailing_zeros() + self.nz(t).trailing_zeros());
        }
        tz.min(w).max(own)
    }

    /// The bits `k` and `xs` may set together, when no two of them may set the same bit
    /// (counting a sum's known trailing zeros, [`Graph::low_zeros`]): then their sum is
    /// their `|`, with no carry between them. `None` when two may overlap.
    pub(super) fn disjoint_bits(&self, xs: &[NodeId], k: u128) -> Option<u128> {
        let mut seen = k;
        for &x in xs {
            let nz = self.nz(x) & !mask(self.low_zeros(x));
            if nz & seen != 0 {
                return None;
            }
            seen |= nz;
        }
        Some(seen)
    }

    /// An upper bound of `t mod (m + 1)` for `m = 2^w - 1`: `t`'s bound, or its possible
    /// bits below `2^w` (the low word of a square is at most `2^64 - 3`: its bit 1 is 0).
    pub(super) fn ub_mod(&self, t: NodeId, m: u128) -> u128 {
        self.ub(t).min(self.nz(t) & m)
    }

    /// The range of `(k + Σ c·t) mod (m + 1)`: the exact bound when the sum cannot wrap,
    /// else `m`.
    pub(super) fn add_range(&self, terms: &[(NodeId, u128)], k: u128, m: u128) -> Info {
        let mut bound = Some(k);
        for &(t, c) in terms {
            bound = bound.and_then(|b| {
                self.ub_mod(t, m)
                    .checked_mul(c)
                    .and_then(|p| b.checked_add(p))
            });
        }
        let ub = match bound {
            Some(b) if b <= m => b,
            _ => m,
        };
        Info {
            nz: mask(sig(ub)),
            ub,
        }
    }

    /// The range of the concatenation `k | Σ slices`; its parts must not share a bit
    /// they may set (checked in debug builds).
    pub(super) fn concat_range(&self, segs: &[Seg], k: u128) -> Info {
        let mut nz = k;
        let mut ub = k;
        for s in segs {
            let inf = self.info[s.node.index()];
            let (from, len, at) = (s.from as u32, s.len as u32, s.at as u32);
            // The invariant that makes the concatenation an OR of its parts: the bits a
            // segment may set are disjoint from the bits the others may set. (Ranges
            // may overlap where one side is known zero, e.g. after `bitwise-disjoint`.)
            // The segment's possible bits, in place; its value is at most those bits and
            // at most its node's bound shifted down.
            let own = sh_r(inf.nz, from) & mask(len);
            let bits = sh_l(own, at);
            debug_assert_eq!(nz & bits, 0, "overlapping nonzero bits in a concatenation");
            nz |= bits;
            ub = ub.saturating_add(sh_l(sh_r(inf.ub, from).min(own), at));
        }
        Info { nz, ub }
    }
}
