//! The C interface contract of a function, independent of any target: how big an array
//! element is in memory, and which outputs may be the same memory as which inputs.
//!
//! These are the *one home* of both rules. Code generation (what it must keep correct),
//! the checker (what it must prove), the differential runner and the timing loop (how
//! buffers are laid out and shared) all ask here; none restates them.

use crate::func::{Param, Ty};

impl Ty {
    /// Bytes of one array element of this type in memory (u1 is a byte, as Fiat's C
    /// `fiat_uint1` is `unsigned char`; wider types take the smallest of 1, 2, 4, 8).
    pub const fn elem_bytes(self) -> u32 {
        match self.bits {
            0..=8 => 1,
            9..=16 => 2,
            17..=32 => 4,
            _ => 8,
        }
    }
}

impl Param {
    /// Bytes of one element of this argument in memory ([`Ty::elem_bytes`]).
    pub const fn elem_bytes(&self) -> u32 {
        self.ty.elem_bytes()
    }
}

/// Which output arrays may be the same memory as which input arrays in C callers
/// (exactly the same address: Fiat's C API allows `out == arg`, never a partial
/// overlap). The policy under which code is generated and proved.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
pub enum Aliasing {
    /// Outputs and inputs are disjoint.
    None,
    /// `out1` may be `arg1` (the `fiat_p256_mul(x, x, y)` idiom).
    Out1Arg1,
    /// Any output may alias any input: no argument is read after an output is written.
    ///
    /// The default, because it is the only one that is safe for every C caller: Fiat's
    /// C API permits `out == arg`, and code that reads an argument after writing an
    /// output would silently compute garbage for such callers.
    #[default]
    All,
}

impl Aliasing {
    /// Every policy, weakest first.
    pub const ALL: [Aliasing; 3] = [Aliasing::None, Aliasing::Out1Arg1, Aliasing::All];

    /// May return `ret` be the same memory as parameter `param` (indices into the
    /// function's returns and params)?
    pub fn may_alias(self, ret: usize, param: usize) -> bool {
        match self {
            Aliasing::None => false,
            Aliasing::Out1Arg1 => ret == 0 && param == 0,
            Aliasing::All => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn element_bytes() {
        for (bits, bytes) in [
            (1, 1),
            (8, 1),
            (9, 2),
            (16, 2),
            (17, 4),
            (32, 4),
            (33, 8),
            (64, 8),
        ] {
            assert_eq!(Ty::uint(bits).elem_bytes(), bytes, "u{bits}");
        }
    }

    #[test]
    fn may_alias() {
        let cases = [
            (Aliasing::None, 0, 0, false),
            (Aliasing::Out1Arg1, 0, 0, true),
            (Aliasing::Out1Arg1, 0, 1, false),
            (Aliasing::Out1Arg1, 1, 0, false),
            (Aliasing::All, 1, 1, true),
        ];
        for (a, ret, param, want) in cases {
            assert_eq!(a.may_alias(ret, param), want, "{a:?} {ret} {param}");
        }
    }
}
