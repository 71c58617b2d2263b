//! The two mutations of the random local search.
//!
//! * **Permutation**: pick an instruction, find its window — after its last producer,
//!   before its first consumer (memory-constraint edges included, they are in
//!   [`Deps`]) — and move it there, biased towards the far ends of the window (long
//!   moves change the schedule most).
//! * **Decision**: change one hot decision of the last code generation to another of
//!   its alternatives.
//!
//! Both keep the candidate valid by construction: mutation never needs to know what a
//! decision means, and a move inside the window keeps every dependency.
//!
//! A mutation must never make an invalid candidate, and never change which random
//! numbers it draws or in which order (a seed names a search path).

use rand::Rng;

use cryptopt_codegen::{Candidate, Deps, Hot};
use cryptopt_ir::Inst;

/// What a mutation did, for the log.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Mutation {
    /// Instruction moved from one position to another.
    Permutation { from: u32, to: u32 },
    /// Decision of an instruction set to another alternative.
    Decision {
        inst: Inst,
        slot: u8,
        alternative: u8,
    },
}

impl Mutation {
    pub fn kind(&self) -> &'static str {
        match self {
            Mutation::Permutation { .. } => "permutation",
            Mutation::Decision { .. } => "decision",
        }
    }
}

/// Moves one instruction to another legal position. `pos` is scratch space. Returns
/// `None` when no instruction can move (after a few tries).
pub fn permute<R: Rng + ?Sized>(
    c: &mut Candidate,
    deps: &Deps,
    pos: &mut Vec<u32>,
    rng: &mut R,
) -> Option<Mutation> {
    let n = c.order.len();
    if n < 2 {
        return None;
    }
    pos.clear();
    pos.resize(n, 0);
    for (p, &k) in c.order.iter().enumerate() {
        pos[k.index()] = p as u32;
    }
    for _ in 0..16 {
        let i = rng.random_range(0..n);
        let k = c.order[i].index();
        let lo = deps.preds[k]
            .iter()
            .map(|&p| pos[p.index()] as usize + 1)
            .max()
            .unwrap_or(0);
        let hi = deps.succs[k]
            .iter()
            .map(|&s| pos[s.index()] as usize - 1)
            .min()
            .unwrap_or(n - 1);
        let (left, right) = (i - lo, hi - i);
        if left + right == 0 {
            continue;
        }
        // A side in proportion to its length, then a place near its far end.
        let u: f64 = rng.random();
        let left_side = rng.random_range(0..left + right) < left;
        let len = if left_side { left } else { right };
        let off = ((u * u) * len as f64) as usize; // 0 = the far end
        let j = if left_side { lo + off } else { hi - off };
        if j < i {
            c.order[j..=i].rotate_right(1);
        } else {
            c.order[i..=j].rotate_left(1);
        }
        return Some(Mutation::Permutation {
            from: i as u32,
            to: j as u32,
        });
    }
    None
}

/// Sets one hot decision to a different alternative. `None` when nothing is hot.
pub fn flip_decision<R: Rng + ?Sized>(
    c: &mut Candidate,
    hot: &[Hot],
    rng: &mut R,
) -> Option<Mutation> {
    if hot.is_empty() {
        return None;
    }
    let h = hot[rng.random_range(0..hot.len())];
    let n = h.alternatives.max(2);
    let b = &mut c.decisions[h.inst.index()][h.slot as usize];
    let cur = *b % n;
    let new = (cur + 1 + rng.random_range(0..n - 1)) % n;
    *b = new;
    Some(Mutation::Decision {
        inst: h.inst,
        slot: h.slot as u8,
        alternative: new,
    })
}
