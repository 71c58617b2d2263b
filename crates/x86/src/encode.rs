//! Encoding (to be written).
