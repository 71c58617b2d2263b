//! Code generation (to be written).
