//! The pipeline of cryptopt as a library: what `cryptopt optimize`, `bench` and
//! `primitive` (and, next, campaigns) call.
//!
//! ```text
//!   Job ──optimize──▶ Session (pinned to an allowed CPU, counter, checked C baseline)
//!                  ─▶ search (scalar candidates, or vector orders)
//!                  ─▶ checks: run natively against the interpreter, prove against the
//!                     job's own function
//!                  ─▶ write: DIR/<function>/ .asm .S .h state.json log.csv progress.svg
//!                  ─▶ Outcome
//! ```
//!
//! * [`optimize`]: [`Job`] → [`Outcome`], scalar and vector alike; [`Progress`] is how
//!   a run reports itself (the binary draws it).
//! * [`checks`]: the one definition of "checked" (native run, proof).
//! * [`session`]: pinning, the counter, baselines checked before they are trusted.
//! * [`cpus`]: the CPUs the process was given (its affinity mask) and a worker pool
//!   over them, one search per CPU.
//! * [`files`], [`write`], [`state`], [`log`]: inputs read, results written atomically,
//!   `state.json`, `log.csv` and `progress.svg`.
//! * [`bench_report`]: `bench`'s reports (`bench.md`, `bench.csv`, `bench.html`).
//! * [`primitive`]: what a Diffie–Hellman primitive is made of, its build and self-test.
//!
//! What it must never do: write a program that has not passed [`checks`] against the
//! original function; print (the binary prints, through [`Progress`]); name a
//! command-line flag in an error ([`Error::Param`] names the parameter).

pub mod bench;
pub mod bench_report;
pub mod checks;
pub mod cpus;
mod error;
pub mod files;
pub mod log;
pub mod optimize;
pub mod primitive;
pub mod progress;
pub mod session;
pub mod state;
pub mod write;

pub use error::{Error, ExitClass, Result, Within};
pub use optimize::{optimize, Job, Outcome};
pub use progress::Progress;
pub use session::Session;
