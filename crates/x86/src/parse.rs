//! Parsing (to be written).
