//! NASM and GNU as printing (to be written).
