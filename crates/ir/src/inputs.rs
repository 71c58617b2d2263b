//! Concrete inputs for a function: random ones within its declared bounds, and edge
//! cases (all at the lower bound, all at the upper bound, alternating). Used by the
//! differential tests here and, later, by code generation and measurement.

use rand::Rng;

use crate::func::{Function, Param};

/// One uniformly random element in `[lo, hi]`.
fn in_range<R: Rng + ?Sized>(rng: &mut R, lo: u128, hi: u128) -> u128 {
    if lo >= hi {
        return lo;
    }
    let span = hi - lo;
    if span == u128::MAX {
        rng.random::<u128>()
    } else {
        lo + rng.random_range(0..=span)
    }
}

/// Random inputs: each element uniform within its bounds; with probability 1/8 an
/// element is put at one of its bounds instead, so carries and edge values show up.
pub fn random<R: Rng + ?Sized>(f: &Function, rng: &mut R) -> Vec<Vec<u128>> {
    f.params
        .iter()
        .map(|p| {
            (0..p.elems())
                .map(|i| {
                    let (lo, hi) = bounds(p, i);
                    match rng.random_range(0..16u8) {
                        0 => lo,
                        1 => hi,
                        _ => in_range(rng, lo, hi),
                    }
                })
                .collect()
        })
        .collect()
}

/// Edge-case inputs: every element at its lower bound; every element at its upper
/// bound; and the two alternating patterns.
pub fn edge_cases(f: &Function) -> Vec<Vec<Vec<u128>>> {
    let pick = |which: fn(usize) -> bool| -> Vec<Vec<u128>> {
        f.params
            .iter()
            .map(|p| {
                (0..p.elems())
                    .map(|i| {
                        let (lo, hi) = bounds(p, i);
                        if which(i) {
                            hi
                        } else {
                            lo
                        }
                    })
                    .collect()
            })
            .collect()
    };
    vec![
        pick(|_| false),
        pick(|_| true),
        pick(|i| i % 2 == 0),
        pick(|i| i % 2 == 1),
    ]
}

/// The bounds of element `i`, clamped to what the type can hold.
pub fn bounds(p: &Param, i: usize) -> (u128, u128) {
    let m = p.ty.mask();
    let lo = p.lbound[i].min(m);
    let hi = p.ubound[i].min(m).max(lo);
    (lo, hi)
}
