//! The one register-eviction policy of both code generators (the scalar allocator in
//! `gen::regs` and the vector one in [`crate::vector`]): when no register is free, the
//! victim is the holder whose next use is furthest away (Belady), and among holders
//! used equally far away, one that is cheap to drop (its value has another home, so no
//! store is needed), and among those the first one offered.
//!
//! The callers decide what a register is, which ones may be evicted and in which order
//! they are offered (that order is the last tie-break); this module only chooses. It
//! must never change a tie-break: the generated code, byte for byte, depends on it.

/// A register that may be evicted, as the allocator sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Holder<R> {
    pub reg: R,
    /// The position of the holder's next use (`u32::MAX`: never used again).
    pub next_use: u32,
    /// Whether dropping the holder needs no store (it has another home).
    pub cheap: bool,
}

/// The register to evict among `holders`, offered in order of preference: the furthest
/// next use, then a cheap one, then the first offered. `None` when nothing is offered.
pub(crate) fn victim<R>(holders: impl IntoIterator<Item = Holder<R>>) -> Option<R> {
    let mut best: Option<Holder<R>> = None;
    for h in holders {
        let better = match &best {
            None => true,
            Some(b) => h.next_use > b.next_use || (h.next_use == b.next_use && h.cheap && !b.cheap),
        };
        if better {
            best = Some(h);
        }
    }
    best.map(|b| b.reg)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(reg: u8, next_use: u32, cheap: bool) -> Holder<u8> {
        Holder {
            reg,
            next_use,
            cheap,
        }
    }

    #[test]
    fn furthest_next_use_then_cheap_then_first() {
        assert_eq!(victim::<u8>([]), None);
        assert_eq!(
            victim([h(0, 3, false), h(1, 9, false), h(2, 5, true)]),
            Some(1)
        );
        // Equal next use: the cheap one, wherever it is offered.
        assert_eq!(
            victim([h(0, 9, false), h(1, 9, true), h(2, 9, true)]),
            Some(1)
        );
        // Equal in both: the first offered.
        assert_eq!(victim([h(4, 9, false), h(1, 9, false)]), Some(4));
        assert_eq!(victim([h(4, 9, true), h(1, 9, true)]), Some(4));
        // A cheap holder never beats a further one.
        assert_eq!(victim([h(0, 8, true), h(1, u32::MAX, false)]), Some(1));
    }
}
