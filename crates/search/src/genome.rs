//! What the search mutates: a [`Genome`] is one point of a program space, which an
//! [`crate::Evaluator`] turns into a program, and which [`Genome::mutate`] moves to a
//! neighbouring point. The random local search ([`crate::rls`]) is written once over
//! this trait; its implementations are
//!
//! * [`Candidate`] (scalar programs: an order of the lowered function's operations and
//!   the templates' decisions), read against the function's [`Deps`], with the hot
//!   decisions of its last generation as hints;
//! * `Vec<u32>` (vector programs: an order of a [`cryptopt_ir::vector::VFunction`]'s
//!   instructions), read against a [`crate::vector::VectorSpace`], without hints.
//!
//! A genome never generates, runs or times code, and a mutation must never make a
//! genome its space rejects, nor change which random numbers it draws or in which
//! order (a seed names a search path).

use std::fmt::Debug;

use rand::Rng;

use cryptopt_codegen::{Candidate, Deps, Hot};

use crate::error::{Error, Result};
use crate::mutate::{self, Mutation};

/// A point of a program space that the search mutates.
pub trait Genome: Clone + PartialEq {
    /// What a genome is read against (its dependencies, its instructions).
    type Space: ?Sized;
    /// What the evaluator tells a mutation about the current genome's last program
    /// (the scalar generator's hot decisions).
    type Hint: Copy;
    /// What a mutation did, for logs.
    type Mutation: Copy + Debug;
    /// Buffers a mutation reuses from one step to the next.
    type Scratch: Default;

    /// Moves `self` (a copy of the current genome) to a neighbour in `space`, drawing
    /// from `rng`. An error when nothing can be mutated at all.
    fn mutate<R: Rng + ?Sized>(
        &mut self,
        space: &Self::Space,
        hints: &[Self::Hint],
        scratch: &mut Self::Scratch,
        rng: &mut R,
    ) -> Result<Self::Mutation>;
}

/// A scalar candidate: half of its steps try a decision first (when some are hot),
/// the others a permutation, falling back to a decision.
impl Genome for Candidate {
    type Space = Deps;
    type Hint = Hot;
    type Mutation = Mutation;
    /// The positions of the operations in the order.
    type Scratch = Vec<u32>;

    fn mutate<R: Rng + ?Sized>(
        &mut self,
        deps: &Deps,
        hot: &[Hot],
        pos: &mut Vec<u32>,
        rng: &mut R,
    ) -> Result<Mutation> {
        let decision_first = rng.random_bool(0.5) && !hot.is_empty();
        let mutation = if decision_first {
            mutate::flip_decision(self, hot, rng)
        } else {
            mutate::permute(self, deps, pos, rng).or_else(|| mutate::flip_decision(self, hot, rng))
        };
        mutation.ok_or(Error::NothingToMutate)
    }
}
