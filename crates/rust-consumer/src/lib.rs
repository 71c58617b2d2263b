//! A consumer of `cryptopt optimize --emit rust`: the module the tool wrote for P-256's
//! Montgomery multiplication, used as any crate would use it, and tested against the
//! reference interpreter (`tests/interpreter.rs`).
//!
//! `fiat_p256_mul.rs` is the tool's output, unedited. Regenerate it from the workspace
//! root with
//!
//! ```text
//! cargo run --release -p cryptopt -- optimize --field p256 --op mul --evals 2000 --emit rust --out /tmp/x
//! cp /tmp/x/fiat_p256_mul/fiat_p256_mul.rs crates/rust-consumer/src/
//! ```
//!
//! and run `cargo test -p cryptopt-rust-consumer` (its own known-answer tests and the
//! comparison with the interpreter).

pub mod fiat_p256_mul;
