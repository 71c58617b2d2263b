//! Executable memory and calling generated code (to be written).
