//! Lowering (work in progress).
