//! The serde form of instruction indices: [`cryptopt_ir::Inst`] is written as its plain
//! `u32` index, the form saved candidates and search states have always had (the IR
//! itself has no serde). Use with `#[serde(with = "...")]`: this module for one
//! instruction, [`seq`] for a `Vec` of them.
//!
//! It must never change that form: old `state.json` files must still resume.

use cryptopt_ir::Inst;
use serde::{Deserialize, Deserializer, Serializer};

pub fn serialize<S: Serializer>(inst: &Inst, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u32(inst.0)
}

pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Inst, D::Error> {
    u32::deserialize(d).map(Inst)
}

/// A sequence of instructions as a sequence of indices.
pub mod seq {
    use cryptopt_ir::Inst;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(insts: &[Inst], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(insts.iter().map(|i| i.0))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Inst>, D::Error> {
        Vec::<u32>::deserialize(d).map(|v| v.into_iter().map(Inst).collect())
    }
}
