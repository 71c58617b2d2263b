//! The x86-64 instruction model of cryptopt.
//!
//! * [`abi`]: calling conventions (System V, Windows x64);
//! * [`inst`]: registers, operands, instructions, programs;
//! * [`print`]: NASM and GNU as (Intel syntax) text, for the object conventions of
//!   [`object`] (ELF, Mach-O, COFF; symbol name and visibility);
//! * [`parse`]: both syntaxes read back, and GNU as AT&T syntax ([`att`]);
//! * [`encode`]: machine code, through iced-x86.
//!
//! Syntax only: what an instruction computes is defined by the equivalence checker, not
//! here.

pub mod abi;
pub mod att;
mod data;
pub mod encode;
pub mod error;
pub mod inst;
pub mod object;
pub mod parse;
pub mod print;
pub mod target;

pub use abi::Abi;
pub use error::{DataError, Error, LineError, Result, Rip};
pub use inst::{
    ArgLoc, DataId, Datum, Feature, FlagEffect, Inst, Mem, Mnemonic, Operand, Program, Reg, Size,
    VReg,
};
pub use target::Target;
