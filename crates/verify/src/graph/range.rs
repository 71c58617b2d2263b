//! The range analysis of the expression graph: for every node an [`Info`], an upper
//! bound of its value and the bits that may be nonzero, computed by the smart
//! constructors from their arguments' infos; and the integer helpers on bit patterns it
//! (and the constructors) compute with.
//!
//! The rules use these ranges (to trim slices, drop carries that cannot occur, see that
//! bits are disjoint), so this module must never claim a bound that a value within the
//! leaves' declared bounds can exceed: a range that is too tight makes the checker
//! unsound. A range that is too loose only makes it incomplete.

use super::arena::{Graph, NodeId};

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
    pub(super) fn nz(&self, id: NodeId) -> u128 {
        self.info[id.index()].nz
    }

    pub(super) fn ub(&self, id: NodeId) -> u128 {
        self.info[id.index()].ub
    }
}
