//! The search: random local search with bet-and-run over candidates (an order of the
//! lowered function's operations and the templates' decisions), every candidate timed
//! on this CPU against the current one and a C-compiler baseline.
//!
//! * [`genome`]: what the search mutates ([`Genome`]: scalar candidates, vector orders);
//! * [`rls`]: the one random local search loop over any genome (mutate, compare, keep
//!   by [`Comparison::keeps`]), driven by a plan, with the [`Evaluator`] trait;
//! * [`mutate`]: the scalar permutation and decision mutations;
//! * [`local_search`]: the scalar plan: bet-and-run, the elite, the winner, and the
//!   resumable [`SearchState`];
//! * [`native`]: the evaluator that runs and times scalar candidates on this CPU;
//! * [`vector`]: the vector plan (one walk over the orders of a vector program) and its
//!   mutation;
//! * [`vector_native`]: the evaluator that runs and times vector programs on this CPU.
//!
//! The search never emits or runs code itself: an [`Evaluator`] does.

pub mod error;
pub mod genome;
pub mod local_search;
pub mod mutate;
pub mod native;
pub mod rls;
pub mod vector;
pub mod vector_native;

pub use error::{Error, Result};
pub use genome::Genome;
pub use local_search::{search, Comparison, Evaluator, Event, Params, Phase, SearchState, Walk};
pub use mutate::Mutation;
