//! The search: random local search with bet-and-run over candidates (an order of the
//! lowered function's operations and the templates' decisions), every candidate timed
//! on this CPU against the current one and a C-compiler baseline.
//!
//! * [`mutate`]: the permutation and decision mutations;
//! * [`rls`]: the search loop, bet-and-run, and the resumable [`rls::State`];
//! * [`native`]: the evaluator that runs and times candidates on this CPU.
//!
//! The search never emits or runs code itself: an [`rls::Evaluator`] does.

pub mod error;
pub mod mutate;
pub mod native;
pub mod rls;

pub use error::{Error, Result};
pub use mutate::Mutation;
pub use rls::{run, Comparison, Evaluator, Event, Params, Phase, State, Walk};
