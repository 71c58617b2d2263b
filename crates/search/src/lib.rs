//! The search: random local search with bet-and-run over candidates (an order of the
//! lowered function's operations and the templates' decisions), every candidate timed
//! on this CPU against the current one and a C-compiler baseline.
//!
//! * [`mutate`]: the permutation and decision mutations;
//! * [`local_search`]: the search loop (the paper's random local search, RLS),
//!   bet-and-run, and the resumable [`SearchState`];
//! * [`native`]: the evaluator that runs and times candidates on this CPU;
//! * [`vector`]: the search over the orders of a vector program (its own loop, the
//!   same measurement, check and acceptance rule).
//!
//! The search never emits or runs code itself: an [`Evaluator`] does.

pub mod error;
pub mod local_search;
pub mod mutate;
pub mod native;
pub mod vector;

pub use error::{Error, Result};
pub use local_search::{search, Comparison, Evaluator, Event, Params, Phase, SearchState, Walk};
pub use mutate::Mutation;
