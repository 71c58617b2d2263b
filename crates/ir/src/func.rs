//! The IR data model: types, values, operations, functions.
//!
//! A [`Function`] is a topologically ordered `Vec` of [`Inst`]s whose operands point
//! backwards (egg's `RecExpr`, cranelift's entities). Values are named by [`Value`], a
//! `u32` newtype indexing [`Function::values`]; instructions by [`Inst`] indexing
//! [`Function::insts`]. There are no pointers and no interior mutability: a pass builds a
//! new function (see [`Builder`]) or rewrites the vectors in place.
//!
//! One data model serves two dialects:
//!
//! * the **Fiat dialect**, as read from Fiat Cryptography's JSON: types up to 128 bits,
//!   signed and unsigned, `static_cast`s everywhere;
//! * the **lowered dialect** (see [`crate::lower`]): unsigned types of at most 64 bits
//!   only, `Shrd`/`Sar`/`Sext` made explicit, no identity casts.
//!
//! Semantics (shared by both, defined by [`crate::interp`]): every operation computes on
//! the exact integer values of its operands (a signed operand is read as signed) and the
//! result wraps to the operation's result type, exactly as Fiat's C output behaves.
//!
//! This module must never know about x86: it is the input of code generation, not a
//! part of it.

use std::fmt;

/// An integer type: `u1`..`u128` or `i1`..`i128`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Ty {
    /// Width in bits, 1..=128.
    pub bits: u8,
    pub signed: bool,
}

impl Ty {
    pub const U1: Ty = Ty::uint(1);
    pub const U8: Ty = Ty::uint(8);
    pub const U32: Ty = Ty::uint(32);
    pub const U64: Ty = Ty::uint(64);
    pub const U128: Ty = Ty::uint(128);

    pub const fn uint(bits: u8) -> Ty {
        Ty {
            bits,
            signed: false,
        }
    }

    pub const fn int(bits: u8) -> Ty {
        Ty { bits, signed: true }
    }

    /// Mask of the low `bits` bits.
    pub const fn mask(self) -> u128 {
        if self.bits >= 128 {
            u128::MAX
        } else {
            (1u128 << self.bits) - 1
        }
    }

    /// Reduces an exact value (given modulo 2^128) to this type's stored bit pattern:
    /// the low `bits` bits, zero above.
    pub const fn wrap(self, x: u128) -> u128 {
        x & self.mask()
    }

    /// Reads a stored bit pattern as an exact value modulo 2^128: sign-extended for
    /// signed types, zero-extended for unsigned ones.
    pub const fn extend(self, pattern: u128) -> u128 {
        if self.signed && self.bits < 128 && (pattern >> (self.bits - 1)) & 1 == 1 {
            pattern | !self.mask()
        } else {
            pattern
        }
    }

    /// Parses `u64`, `i1`, `u128`, ...
    pub fn parse(s: &str) -> Option<Ty> {
        let (signed, digits) = match s.as_bytes().first()? {
            b'u' => (false, &s[1..]),
            b'i' => (true, &s[1..]),
            _ => return None,
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let bits: u32 = digits.parse().ok()?;
        (1..=128).contains(&bits).then_some(Ty {
            bits: bits as u8,
            signed,
        })
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", if self.signed { 'i' } else { 'u' }, self.bits)
    }
}

/// An SSA value: index into [`Function::values`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Value(pub u32);

/// An instruction: index into [`Function::insts`]. Serialized as its plain `u32`
/// index (saved candidates and search states depend on that form).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(transparent)]
pub struct Inst(pub u32);

impl Value {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl Inst {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "v{}", self.0)
    }
}

/// An operand: a value defined earlier, or an untyped literal (its exact value).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Operand {
    Value(Value),
    Const(u128),
}

impl Operand {
    pub fn value(self) -> Option<Value> {
        match self {
            Operand::Value(v) => Some(v),
            Operand::Const(_) => None,
        }
    }
    pub fn constant(self) -> Option<u128> {
        match self {
            Operand::Const(c) => Some(c),
            Operand::Value(_) => None,
        }
    }
}

impl From<Value> for Operand {
    fn from(v: Value) -> Self {
        Operand::Value(v)
    }
}

/// The operations. Arity and result count are fixed per operation; see [`Op::arity`]
/// and [`Op::results`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// Read element `index` of argument `param` (a scalar argument has only index 0).
    Load {
        param: u32,
        index: u32,
    },
    /// Write the single operand to element `index` of return `ret`. No result.
    Store {
        ret: u32,
        index: u32,
    },
    /// `static_cast` / `=`: the operand converted to the result type (wraps; a signed
    /// operand is sign-extended first).
    Cast,
    /// n-ary (at least 2 operands) sum, product and bitwise operations.
    Add,
    Mul,
    And,
    Or,
    Xor,
    /// `a - b`.
    Sub,
    /// Bitwise complement `~a`.
    Not,
    /// Logical negation `!a`: 1 when a is zero, else 0.
    LNot,
    /// `a << b`.
    Shl,
    /// `a >> b`: logical for unsigned `a`, arithmetic for signed `a`.
    Shr,
    /// Lowered dialect: arithmetic shift right by a constant, the low `from` bits of
    /// the operand read as a signed number.
    Sar {
        from: u8,
    },
    /// Lowered dialect: the low `from` bits of the operand read as a signed number,
    /// converted to the result type (sign extension).
    Sext {
        from: u8,
    },
    /// Lowered dialect: `(lo >> n) | (hi << (64 - n))` on 64-bit operands, 0 < n < 64.
    Shrd {
        n: u8,
    },
    /// `(lo, hi)` of the full product of two `size`-bit operands.
    Mulx {
        size: u8,
    },
    /// `(c + a + b) mod 2^size` and the carry out (u1). Operands `(c, a, b)`.
    AddCarry {
        size: u8,
    },
    /// `(a - b - c) mod 2^size` and the borrow out (u1). Operands `(c, a, b)`.
    SubBorrow {
        size: u8,
    },
    /// `if c == 0 { z } else { nz }`. Operands `(c, z, nz)`.
    Cmovznz,
}

impl Op {
    /// Number of operands; `None` for the n-ary operations (two or more).
    pub fn arity(self) -> Option<usize> {
        use Op::*;
        match self {
            Load { .. } => Some(0),
            Store { .. } | Cast | Not | LNot | Sext { .. } => Some(1),
            Sub | Shl | Shr | Sar { .. } | Shrd { .. } | Mulx { .. } => Some(2),
            AddCarry { .. } | SubBorrow { .. } | Cmovznz => Some(3),
            Add | Mul | And | Or | Xor => None,
        }
    }

    /// Number of results.
    pub fn results(self) -> usize {
        match self {
            Op::Store { .. } => 0,
            Op::Mulx { .. } | Op::AddCarry { .. } | Op::SubBorrow { .. } => 2,
            _ => 1,
        }
    }

    /// Commutative and associative, so operands may be flattened and sorted.
    pub fn is_ac(self) -> bool {
        matches!(self, Op::Add | Op::Mul | Op::And | Op::Or | Op::Xor)
    }

    /// Operands may be swapped: the AC operations and the full product `mulx` (so a
    /// square's `xᵢ·xⱼ` and `xⱼ·xᵢ` are one product after CSE).
    pub fn is_commutative(self) -> bool {
        self.is_ac() || matches!(self, Op::Mulx { .. })
    }

    /// The mnemonic used by the text form.
    pub fn name(self) -> &'static str {
        use Op::*;
        match self {
            Load { .. } => "load",
            Store { .. } => "store",
            Cast => "cast",
            Add => "add",
            Mul => "mul",
            And => "and",
            Or => "or",
            Xor => "xor",
            Sub => "sub",
            Not => "not",
            LNot => "lnot",
            Shl => "shl",
            Shr => "shr",
            Sar { .. } => "sar",
            Sext { .. } => "sext",
            Shrd { .. } => "shrd",
            Mulx { .. } => "mulx",
            AddCarry { .. } => "addcarry",
            SubBorrow { .. } => "subborrow",
            Cmovznz => "cmovznz",
        }
    }
}

/// One instruction: an operation, its operands and its results.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct InstData {
    pub op: Op,
    pub args: Vec<Operand>,
    /// Zero, one or two results, in the order of [`Op`]'s documentation.
    pub results: Vec<Value>,
}

/// What is known about a value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValueData {
    pub ty: Ty,
    /// The instruction that defines it.
    pub def: Inst,
    /// The name it had in the input (`x12`), for diagnostics and the text form.
    pub name: Option<String>,
}

/// An argument or return of a function: a scalar or an array of `ty` elements, with the
/// bounds Fiat gives for each element.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    pub name: String,
    pub ty: Ty,
    /// `None` for a scalar, `Some(n)` for an array of `n` elements.
    pub len: Option<u32>,
    /// Per element (one entry for a scalar).
    pub lbound: Vec<u128>,
    pub ubound: Vec<u128>,
}

impl Param {
    /// A parameter whose every element may be any value of its type (bounds `[0,
    /// ty.mask()]`): a scalar for `len: None`, an array of `n` for `Some(n)`.
    pub fn unbounded(name: &str, ty: Ty, len: Option<u32>) -> Param {
        match len {
            Some(n) => Param::array(name, ty, &vec![ty.mask(); n as usize]),
            None => Param::scalar(name, ty, ty.mask()),
        }
    }

    /// An array of `ubound.len()` elements of `ty`, element `i` in `[0, ubound[i]]`.
    pub fn array(name: &str, ty: Ty, ubound: &[u128]) -> Param {
        Param {
            name: name.to_string(),
            ty,
            len: Some(ubound.len() as u32),
            lbound: vec![0; ubound.len()],
            ubound: ubound.to_vec(),
        }
    }

    /// A scalar of `ty` in `[0, ubound]`.
    pub fn scalar(name: &str, ty: Ty, ubound: u128) -> Param {
        Param {
            name: name.to_string(),
            ty,
            len: None,
            lbound: vec![0],
            ubound: vec![ubound],
        }
    }

    /// Number of elements (1 for a scalar).
    pub fn elems(&self) -> usize {
        self.len.unwrap_or(1) as usize
    }

    /// `u64[4]` or `u1`.
    pub fn shape(&self) -> String {
        match self.len {
            Some(n) => format!("{}[{}]", self.ty, n),
            None => self.ty.to_string(),
        }
    }
}

/// A straight-line function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Function {
    pub name: String,
    pub params: Vec<Param>,
    pub returns: Vec<Param>,
    pub insts: Vec<InstData>,
    pub values: Vec<ValueData>,
}

impl Function {
    pub fn new(name: impl Into<String>, params: Vec<Param>, returns: Vec<Param>) -> Function {
        Function {
            name: name.into(),
            params,
            returns,
            insts: Vec::new(),
            values: Vec::new(),
        }
    }

    pub fn ty(&self, v: Value) -> Ty {
        self.values[v.index()].ty
    }

    pub fn inst(&self, i: Inst) -> &InstData {
        &self.insts[i.index()]
    }

    /// Appends an instruction, creating its results with the given types.
    pub fn push(&mut self, op: Op, args: Vec<Operand>, result_tys: &[Ty]) -> &[Value] {
        let inst = Inst(self.insts.len() as u32);
        let results = result_tys
            .iter()
            .map(|&ty| {
                let v = Value(self.values.len() as u32);
                self.values.push(ValueData {
                    ty,
                    def: inst,
                    name: None,
                });
                v
            })
            .collect();
        self.insts.push(InstData { op, args, results });
        &self.insts.last().expect("just pushed").results
    }

    /// Appends a one-result instruction and returns its result.
    pub fn push1(&mut self, op: Op, args: Vec<Operand>, ty: Ty) -> Value {
        self.push(op, args, &[ty])[0]
    }

    /// Number of operations that are not loads or stores.
    pub fn compute_len(&self) -> usize {
        self.insts
            .iter()
            .filter(|i| !matches!(i.op, Op::Load { .. } | Op::Store { .. }))
            .count()
    }

    /// The type of an operand: a value's type, or `None` for a literal.
    pub fn operand_ty(&self, o: Operand) -> Option<Ty> {
        o.value().map(|v| self.ty(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ty_parse_display_roundtrip() {
        for s in ["u1", "u8", "u32", "u64", "u128", "i1", "i64", "i128", "u51"] {
            assert_eq!(Ty::parse(s).unwrap().to_string(), s);
        }
        for bad in ["", "u", "u0", "u129", "x64", "u6x", "i-1", "(auto)"] {
            assert_eq!(Ty::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn wrap_and_extend() {
        let i1 = Ty::int(1);
        assert_eq!(i1.wrap(u128::MAX), 1);
        assert_eq!(i1.extend(1), u128::MAX);
        assert_eq!(Ty::U1.extend(1), 1);
        assert_eq!(Ty::int(64).extend(1 << 63), !0u128 << 63);
        assert_eq!(Ty::U128.wrap(u128::MAX), u128::MAX);
        assert_eq!(Ty::int(128).extend(5), 5);
    }
}
