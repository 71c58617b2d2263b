//! C source for a function, in the shape of Fiat Cryptography's own C output: the
//! baseline the optimizer's code is measured against (compiled by gcc or clang).
//!
//! [`emit`] writes one `void NAME(...)` with Fiat's C signature — outputs first, as
//! pointers (`uint64_t out1[4]`, `fiat_uint1* out2`), then inputs (`const uint64_t
//! arg1[4]`, scalars by value) — after a guarded prelude (`<stdint.h>` and the
//! `fiat_uint1`/`fiat_int1`/`fiat_uint128`/`fiat_int128` typedefs), so that several
//! emitted functions can be concatenated into one file. [`prototype`] is the declaration
//! alone, for a header (which needs [`PRELUDE`] too). Under the Windows x64 convention
//! ([`emit_for`], [`prototype_for`]) the declaration carries `CRYPTOPT_MS_ABI`, which
//! [`prelude`] defines as nothing on Windows and `__attribute__((ms_abi))` elsewhere
//! (gcc and clang call such a function with Windows' convention on any OS).
//!
//! The body has one C statement per instruction (a few for `cmovznz`, `mulx`,
//! `addcarryx`, `subborrowx`, which Fiat's C writes as helper functions) and a local
//! variable per value, named after the value's Fiat name (`x12`) where it has one.
//!
//! # Semantics
//!
//! The C must compute exactly what [`cryptopt_ir::interp`] computes, for *every* input that
//! fits the argument types (not only those within Fiat's bounds):
//!
//! * a value of type `uN`/`iN` lives in the smallest C type that holds it (`u51` in a
//!   `uint64_t`, `i1` in a `fiat_int1`), holding its exact value (masked, or
//!   sign-extended);
//! * `+ - * & | ^ ~ <<` are computed in the unsigned C type of at least 32 bits that is
//!   as wide as the result (never in `int`, never in a signed type: no promotion
//!   surprises, no undefined overflow) — their result modulo 2^k depends only on the
//!   operands modulo 2^k — then wrapped to the result type;
//! * `>>` reads its operand exactly (arithmetic shift for a signed operand), a shift
//!   amount at or above the width gives 0 (or the sign), never undefined behaviour;
//! * `mulx`/`addcarryx`/`subborrowx` compute in a type wide enough for both results
//!   (`unsigned __int128` for size 64, `uint64_t` for Fiat's 51-bit limbs); the carry or
//!   borrow is bit `size` of the wide result, masked, as the interpreter wraps it to `u1`;
//! * wrapping to a signed type relies on the conversion to a signed type being modular
//!   and `>>` on a negative value being arithmetic (both documented by gcc and clang).
//!
//! Arguments and outputs of a signed type are passed as their bit pattern in the
//! unsigned C type of the same size (the interpreter's and the runner's convention;
//! Fiat's functions have none). Inputs are assumed to fit their types, as the
//! interpreter requires; they are not masked.
//!
//! This module must never emit code whose meaning differs from the interpreter's, nor
//! code with undefined behaviour, nor branches on data (`cmovznz` uses Fiat's mask idiom
//! to stay constant-time). It knows nothing of x86.

use std::collections::HashSet;
use std::fmt::Write;

use cryptopt_ir::func::{Function, InstData, Op, Operand, Param, Ty};
use cryptopt_x86::Abi;

/// Includes and typedefs, guarded, shared by every emitted function.
pub const PRELUDE: &str = "\
#include <stdint.h>
#ifndef CRYPTOPT_FIAT_TYPEDEFS
#define CRYPTOPT_FIAT_TYPEDEFS
typedef unsigned char fiat_uint1;
typedef signed char fiat_int1;
#if defined(__GNUC__) || defined(__clang__)
#  define CRYPTOPT_FIAT_EXTENSION __extension__
#else
#  define CRYPTOPT_FIAT_EXTENSION
#endif
CRYPTOPT_FIAT_EXTENSION typedef unsigned __int128 fiat_uint128;
CRYPTOPT_FIAT_EXTENSION typedef signed __int128 fiat_int128;
#endif
";

/// Defines `CRYPTOPT_MS_ABI`, the attribute of a Windows x64 function: nothing where it
/// is the default (`_WIN32`), gcc's and clang's `ms_abi` elsewhere.
const MS_ABI_MACRO: &str = "\
#ifndef CRYPTOPT_MS_ABI
#  if defined(_WIN32)
#    define CRYPTOPT_MS_ABI
#  else
#    define CRYPTOPT_MS_ABI __attribute__((ms_abi))
#  endif
#endif
";

/// What a file declaring functions of `abi` needs first: [`PRELUDE`], and for Windows x64
/// the definition of `CRYPTOPT_MS_ABI`.
pub fn prelude(abi: Abi) -> String {
    match abi {
        Abi::SysV => PRELUDE.to_string(),
        Abi::Win64 => format!("{PRELUDE}{MS_ABI_MACRO}"),
    }
}

/// The attribute before a declaration's name under `abi` (after [`prelude`]).
fn convention(abi: Abi) -> &'static str {
    match abi {
        Abi::SysV => "",
        Abi::Win64 => "CRYPTOPT_MS_ABI ",
    }
}

/// The C source of `f`: [`PRELUDE`] and the function definition.
pub fn emit(f: &Function) -> String {
    emit_for(f, Abi::SysV)
}

/// [`emit`] of a function with the calling convention `abi`.
pub fn emit_for(f: &Function, abi: Abi) -> String {
    let mut e = Emitter::new(f);
    let mut out = String::new();
    out.push_str(&prelude(abi));
    let _ = writeln!(out, "\n/* {} (cryptopt C baseline) */", f.name);
    let _ = writeln!(out, "{}{} {{", convention(abi), e.signature(&f.name));
    for data in &f.insts {
        e.inst(data);
    }
    out.push_str(&e.body);
    out.push_str("}\n");
    out
}

/// The declaration of `f` with `;`: `void NAME(uint64_t out1[4], const uint64_t arg1[4]);`.
/// A header needs [`PRELUDE`] before it for the `fiat_*` types.
pub fn prototype(f: &Function) -> String {
    prototype_for(f, &f.name, Abi::SysV)
}

/// [`prototype`] under another name (the symbol an assembly file defines for `f`) and
/// the calling convention `abi` (after [`prelude`]).
pub fn prototype_for(f: &Function, name: &str, abi: Abi) -> String {
    format!("{}{};", convention(abi), Emitter::new(f).signature(name))
}

/// The C names of `f`'s arguments in the order of its signature (outputs first): what a
/// wrapper passes on to the function it forwards to.
pub fn argument_names(f: &Function) -> Vec<String> {
    let e = Emitter::new(f);
    e.ret_names.iter().chain(&e.param_names).cloned().collect()
}

/// The head of `f`'s definition, without `;`: `void NAME(uint64_t out1[4], …)`.
pub fn signature(f: &Function) -> String {
    Emitter::new(f).signature(&f.name)
}

/// The C type of an argument or output element of type `ty` in the emitted signature:
/// its bit pattern in the smallest unsigned type that holds it (`fiat_uint1`, `uint8_t`,
/// `uint64_t`, ...).
pub fn interface_type(ty: Ty) -> &'static str {
    CTy::interface(ty).name()
}

/// A C integer type: `bits` is 1 (`fiat_uint1`/`fiat_int1`), 8, 16, 32, 64 or 128.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct CTy {
    bits: u8,
    signed: bool,
}

impl CTy {
    /// The smallest C type that holds every value of `ty`.
    fn holding(ty: Ty) -> CTy {
        let bits = match ty.bits {
            1 => 1,
            2..=8 => 8,
            9..=16 => 16,
            17..=32 => 32,
            33..=64 => 64,
            _ => 128,
        };
        CTy {
            bits,
            signed: ty.signed,
        }
    }

    /// The type of an argument or output element: the bit pattern, unsigned.
    fn interface(ty: Ty) -> CTy {
        CTy::holding(Ty::uint(ty.bits))
    }

    fn unsigned(bits: u8) -> CTy {
        CTy {
            bits,
            signed: false,
        }
    }

    fn signed(bits: u8) -> CTy {
        CTy { bits, signed: true }
    }

    /// Width of arithmetic in this type after C's integer promotions: at least 32.
    fn arith(self) -> u8 {
        self.bits.max(32)
    }

    fn name(self) -> &'static str {
        match (self.bits, self.signed) {
            (1, false) => "fiat_uint1",
            (1, true) => "fiat_int1",
            (8, false) => "uint8_t",
            (8, true) => "int8_t",
            (16, false) => "uint16_t",
            (16, true) => "int16_t",
            (32, false) => "uint32_t",
            (32, true) => "int32_t",
            (64, false) => "uint64_t",
            (64, true) => "int64_t",
            (_, false) => "fiat_uint128",
            (_, true) => "fiat_int128",
        }
    }
}

/// The width (32, 64 or 128) of unsigned arithmetic that is exact modulo 2^`bits`.
fn arith_width(bits: u32) -> u8 {
    match bits {
        0..=32 => 32,
        33..=64 => 64,
        _ => 128,
    }
}

/// A C expression: its text (an identifier, a literal, or parenthesized), its C type,
/// and, for an unsigned one, the number of bits its value is known to fit in.
#[derive(Clone, Debug)]
struct Expr {
    text: String,
    cty: CTy,
    ubits: Option<u32>,
}

impl Expr {
    fn new(text: String, cty: CTy) -> Expr {
        Expr {
            text,
            cty,
            ubits: None,
        }
    }
}

/// `c` modulo 2^`w` as a literal of the unsigned C type of width `w` (32, 64 or 128).
fn lit(c: u128, w: u8) -> String {
    match w {
        32 => format!("UINT32_C({:#x})", c as u32),
        64 => format!("UINT64_C({:#x})", c as u64),
        _ => {
            let (hi, lo) = ((c >> 64) as u64, c as u64);
            if hi == 0 {
                format!("((fiat_uint128)UINT64_C({lo:#x}))")
            } else {
                format!("(((fiat_uint128)UINT64_C({hi:#x}) << 64) | UINT64_C({lo:#x}))")
            }
        }
    }
}

/// Bits needed for `c`.
fn bits_of(c: u128) -> u32 {
    128 - c.leading_zeros()
}

/// `e` converted to `to` (modular, as C converts); no cast when it already has that type.
fn cast(e: &Expr, to: CTy) -> String {
    if e.cty == to {
        e.text.clone()
    } else {
        format!("({}){}", to.name(), e.text)
    }
}

/// `e` wrapped to `ty`: an expression of `ty`'s C type whose value is `ty`'s exact value
/// of `e` modulo 2^bits (sign-extended for a signed `ty`). `e` must be exact, or correct
/// modulo 2^w for some w ≥ `ty.bits`.
fn wrap(e: &Expr, ty: Ty) -> String {
    let t = CTy::holding(ty);
    let k = u32::from(ty.bits);
    if matches!(k, 8 | 16 | 32 | 64 | 128) {
        return cast(e, t);
    }
    if !ty.signed {
        if e.ubits.is_some_and(|b| b <= k) {
            return cast(e, t);
        }
    } else if k == 1 && e.ubits.is_some_and(|b| b <= 1) {
        // Fiat's idiom: a bit to 0 or -1.
        return format!("((fiat_int1)(0 - (int32_t){}))", e.text);
    }
    // Low k bits in the unsigned type of the result's arithmetic width (truncating a
    // wider `e` is modular; extending a narrower one is exact, by the precondition).
    let x = t.arith();
    let ux = CTy::unsigned(x);
    let masked = format!("({} & {})", cast(e, ux), lit(ty.mask(), x));
    if !ty.signed {
        return format!("(({}){masked})", t.name());
    }
    // Sign extension: (v ^ h) - h with h the sign bit, in the signed type (no overflow:
    // v ^ h < 2^k ≤ 2^(x-1)).
    let sx = CTy::signed(x).name();
    let h = lit(1u128 << (k - 1), x);
    format!("(({})(({sx})({masked} ^ {h}) - ({sx}){h}))", t.name())
}

/// Names the emitted code itself uses, which a variable must not take.
const EMITTED_NAMES: &[&str] = &["fiat_uint1", "fiat_int1", "fiat_uint128", "fiat_int128"];

/// A usable local name: a C identifier ([`crate::ident::is_c_identifier`]: no keyword)
/// starting with a letter, not one of [`EMITTED_NAMES`], not a `*_t` type name, not a
/// `UINT64_C`-style macro.
fn usable(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_alphabetic())
        && crate::ident::is_c_identifier(name)
        && !name.ends_with("_t")
        && !name.starts_with("INT")
        && !name.starts_with("UINT")
        && !name.starts_with("CRYPTOPT")
        && !EMITTED_NAMES.contains(&name)
}

struct Emitter<'a> {
    f: &'a Function,
    /// C names of the returns, then of the params.
    ret_names: Vec<String>,
    param_names: Vec<String>,
    /// C name of every value.
    names: Vec<String>,
    taken: HashSet<String>,
    body: String,
}

impl<'a> Emitter<'a> {
    fn new(f: &'a Function) -> Emitter<'a> {
        let mut e = Emitter {
            f,
            ret_names: Vec::new(),
            param_names: Vec::new(),
            names: Vec::new(),
            taken: HashSet::new(),
            body: String::new(),
        };
        e.taken.insert(f.name.clone());
        e.ret_names = (f.returns.iter().enumerate())
            .map(|(i, p)| e.fresh_or(&p.name, &format!("out{}", i + 1)))
            .collect();
        e.param_names = (f.params.iter().enumerate())
            .map(|(i, p)| e.fresh_or(&p.name, &format!("arg{}", i + 1)))
            .collect();
        // Fiat's names first, so that generated ones never take them.
        let mut names: Vec<Option<String>> = f
            .values
            .iter()
            .map(|v| {
                v.name
                    .as_deref()
                    .filter(|n| usable(n) && e.taken.insert(n.to_string()))
            })
            .map(|n| n.map(str::to_string))
            .collect();
        for (i, n) in names.iter_mut().enumerate() {
            if n.is_none() {
                let v = &f.values[i];
                let base = match f.inst(v.def).op {
                    Op::Load { param, index } => {
                        let p = &e.param_names[param as usize];
                        match f.params[param as usize].len {
                            Some(_) => format!("{p}_{index}"),
                            None => format!("{p}_v"),
                        }
                    }
                    _ => format!("v{i}"),
                };
                *n = Some(e.fresh(&base));
            }
        }
        e.names = names.into_iter().map(Option::unwrap_or_default).collect();
        e
    }

    /// `base` if usable and free, else `base_1`, `base_2`, ...
    fn fresh(&mut self, base: &str) -> String {
        let base = if usable(base) { base } else { "v" };
        if self.taken.insert(base.to_string()) {
            return base.to_string();
        }
        (1..)
            .map(|k| format!("{base}_{k}"))
            .find(|n| self.taken.insert(n.clone()))
            .unwrap_or_default()
    }

    /// `name` if usable and free, else a fresh name from `fallback`.
    fn fresh_or(&mut self, name: &str, fallback: &str) -> String {
        if usable(name) && self.taken.insert(name.to_string()) {
            name.to_string()
        } else {
            self.fresh(fallback)
        }
    }

    /// `void NAME(...)` for `f`'s arguments.
    fn signature(&self, name: &str) -> String {
        let mut parts = Vec::new();
        let decl = |p: &Param, name: &str, out: bool| {
            let t = CTy::interface(p.ty).name();
            match (p.len, out) {
                (Some(n), true) => format!("{t} {name}[{n}]"),
                (Some(n), false) => format!("const {t} {name}[{n}]"),
                (None, true) => format!("{t}* {name}"),
                (None, false) => format!("{t} {name}"),
            }
        };
        for (p, n) in self.f.returns.iter().zip(&self.ret_names) {
            parts.push(decl(p, n, true));
        }
        for (p, n) in self.f.params.iter().zip(&self.param_names) {
            parts.push(decl(p, n, false));
        }
        if parts.is_empty() {
            parts.push("void".to_string());
        }
        format!("void {name}({})", parts.join(", "))
    }

    /// The exact value of an operand, in its own C type.
    fn exact(&self, o: Operand) -> Expr {
        match o {
            Operand::Value(v) => {
                let ty = self.f.ty(v);
                Expr {
                    text: self.names[v.index()].clone(),
                    cty: CTy::holding(ty),
                    ubits: (!ty.signed).then_some(u32::from(ty.bits)),
                }
            }
            Operand::Const(c) => {
                let w = if c >> 64 == 0 { 64 } else { 128 };
                Expr {
                    text: lit(c, w),
                    cty: CTy::unsigned(w),
                    ubits: Some(bits_of(c)),
                }
            }
        }
    }

    /// The operand modulo 2^`w`, as an expression of the unsigned C type of width `w`.
    fn modular(&self, o: Operand, w: u8) -> String {
        match o {
            Operand::Const(c) => lit(c, w),
            Operand::Value(_) => cast(&self.exact(o), CTy::unsigned(w)),
        }
    }

    /// An upper bound on the bits of an operand's value, if it is unsigned.
    fn ubits(&self, o: Operand) -> Option<u32> {
        self.exact(o).ubits
    }

    fn line(&mut self, s: String) {
        self.body.push_str("  ");
        self.body.push_str(&s);
        self.body.push('\n');
    }

    /// `T name = expr;` for result `k` of `data`.
    fn define(&mut self, data: &InstData, k: usize, expr: String) {
        let v = data.results[k];
        let t = CTy::holding(self.f.ty(v)).name();
        let name = self.names[v.index()].clone();
        self.line(format!("{t} {name} = {expr};"));
    }

    /// Declares a temporary of type `t` (named after the instruction's first result).
    fn temp(&mut self, data: &InstData, suffix: &str, t: CTy, expr: String) -> String {
        let base = format!("{}_{suffix}", self.names[data.results[0].index()]);
        let name = self.fresh(&base);
        self.line(format!("{} {name} = {expr};", t.name()));
        name
    }

    fn inst(&mut self, data: &InstData) {
        let f = self.f;
        let res_ty = |k: usize| f.ty(data.results[k]);
        match data.op {
            Op::Load { param, index } => {
                let p = &f.params[param as usize];
                let name = &self.param_names[param as usize];
                let text = match p.len {
                    Some(_) => format!("{name}[{index}]"),
                    None => name.clone(),
                };
                let e = Expr {
                    text,
                    cty: CTy::interface(p.ty),
                    ubits: Some(u32::from(p.ty.bits)),
                };
                self.define(data, 0, wrap(&e, res_ty(0)));
            }
            Op::Store { ret, index } => {
                let p = &f.returns[ret as usize];
                let name = &self.ret_names[ret as usize];
                let dst = match p.len {
                    Some(_) => format!("{name}[{index}]"),
                    None => format!("*{name}"),
                };
                let value = wrap(&self.exact(data.args[0]), Ty::uint(p.ty.bits));
                self.line(format!("{dst} = {value};"));
            }
            Op::Cast => {
                let e = self.exact(data.args[0]);
                self.define(data, 0, wrap(&e, res_ty(0)));
            }
            Op::Add | Op::Mul | Op::And | Op::Or | Op::Xor | Op::Sub => {
                let sym = match data.op {
                    Op::Add => " + ",
                    Op::Mul => " * ",
                    Op::And => " & ",
                    Op::Or => " | ",
                    Op::Xor => " ^ ",
                    _ => " - ",
                };
                let w = arith_width(u32::from(res_ty(0).bits));
                let terms: Vec<String> = data.args.iter().map(|&a| self.modular(a, w)).collect();
                let e = Expr::new(format!("({})", terms.join(sym)), CTy::unsigned(w));
                self.define(data, 0, wrap(&e, res_ty(0)));
            }
            Op::Not => {
                let w = arith_width(u32::from(res_ty(0).bits));
                let e = Expr::new(
                    format!("(~{})", self.modular(data.args[0], w)),
                    CTy::unsigned(w),
                );
                self.define(data, 0, wrap(&e, res_ty(0)));
            }
            Op::LNot => {
                let e = Expr {
                    text: format!("(!{})", self.exact(data.args[0]).text),
                    cty: CTy::signed(32),
                    ubits: Some(1),
                };
                self.define(data, 0, wrap(&e, res_ty(0)));
            }
            Op::Shl => {
                let ty = res_ty(0);
                let w = arith_width(u32::from(ty.bits));
                let x = self.modular(data.args[0], w);
                let e = match data.args[1] {
                    // Bits shifted to position k or beyond do not survive the wrap.
                    Operand::Const(n) if n >= u128::from(ty.bits) => {
                        Expr::new(lit(0, w), CTy::unsigned(w))
                    }
                    Operand::Const(n) => Expr::new(format!("({x} << {n})"), CTy::unsigned(w)),
                    // Not Fiat (the verifier rejects variable shifts); kept total anyway.
                    Operand::Value(_) => {
                        let n = self.exact(data.args[1]).text;
                        Expr::new(
                            format!("({n} < {} ? ({x} << {n}) : {})", ty.bits, lit(0, w)),
                            CTy::unsigned(w),
                        )
                    }
                };
                self.define(data, 0, wrap(&e, ty));
            }
            Op::Shr => {
                let a = self.exact(data.args[0]);
                let e = self.shift_right(&a, data.args[1]);
                self.define(data, 0, wrap(&e, res_ty(0)));
            }
            Op::Sar { from } => {
                // The low `from` bits read as signed, then an arithmetic shift.
                let s = Expr::new(
                    wrap(&self.exact(data.args[0]), Ty::int(from)),
                    CTy::holding(Ty::int(from)),
                );
                let e = self.shift_right(&s, data.args[1]);
                self.define(data, 0, wrap(&e, res_ty(0)));
            }
            Op::Sext { from } => {
                let s = Expr::new(
                    wrap(&self.exact(data.args[0]), Ty::int(from)),
                    CTy::holding(Ty::int(from)),
                );
                self.define(data, 0, wrap(&s, res_ty(0)));
            }
            Op::Shrd { n } => {
                // As the interpreter: shifts of 64-bit words (amounts taken mod 64).
                let (lo, hi) = (
                    self.modular(data.args[0], 64),
                    self.modular(data.args[1], 64),
                );
                let (r, l) = (n % 64, (64 - u32::from(n) % 64) % 64);
                let e = Expr::new(
                    format!("(({lo} >> {r}) | ({hi} << {l}))"),
                    CTy::unsigned(64),
                );
                self.define(data, 0, wrap(&e, res_ty(0)));
            }
            Op::Mulx { size } => {
                let size32 = u32::from(size);
                let need = (2 * size32)
                    .max(u32::from(res_ty(0).bits))
                    .max(size32 + u32::from(res_ty(1).bits));
                let w = arith_width(need);
                let u = CTy::unsigned(w);
                let prod = format!(
                    "({} * {})",
                    self.modular(data.args[0], w),
                    self.modular(data.args[1], w)
                );
                let t = self.temp(data, "prod", u, prod);
                let ub = match (self.ubits(data.args[0]), self.ubits(data.args[1])) {
                    (Some(a), Some(b)) if a + b <= u32::from(w) => Some(a + b),
                    _ => None,
                };
                let lo = Expr::new(t.clone(), u);
                let hi = Expr {
                    text: format!("({t} >> {size})"),
                    cty: u,
                    ubits: ub.map(|b| b.saturating_sub(size32)),
                };
                self.define(data, 0, wrap(&lo, res_ty(0)));
                self.define(data, 1, wrap(&hi, res_ty(1)));
            }
            Op::AddCarry { size } | Op::SubBorrow { size } => {
                let size32 = u32::from(size);
                let need = (size32 + 1)
                    .max(u32::from(res_ty(0).bits))
                    .max(size32 + u32::from(res_ty(1).bits));
                let w = arith_width(need);
                let u = CTy::unsigned(w);
                let (c, a, b) = (
                    self.modular(data.args[0], w),
                    self.modular(data.args[1], w),
                    self.modular(data.args[2], w),
                );
                let add = matches!(data.op, Op::AddCarry { .. });
                let expr = if add {
                    format!("(({c} + {a}) + {b})")
                } else {
                    format!("(({a} - {b}) - {c})")
                };
                let t = self.temp(data, if add { "sum" } else { "diff" }, u, expr);
                self.define(data, 0, wrap(&Expr::new(t.clone(), u), res_ty(0)));
                let hi = if add {
                    // A bound on the sum, from the operands' bounds.
                    let bound = data.args.iter().try_fold(0u128, |acc, &o| {
                        let b = self.ubits(o)?;
                        acc.checked_add(if b >= 128 { u128::MAX } else { (1 << b) - 1 })
                    });
                    Expr {
                        text: format!("({t} >> {size})"),
                        cty: u,
                        ubits: bound
                            .filter(|&s| bits_of(s) <= u32::from(w))
                            .map(|s| bits_of(s).saturating_sub(size32)),
                    }
                } else if res_ty(1).bits == 1 {
                    // The borrow -(t >> size) wrapped to one bit is bit `size` of t.
                    Expr::new(format!("({t} >> {size})"), u)
                } else {
                    let s = CTy::signed(w).name();
                    Expr::new(
                        format!("({} - ({})(({s}){t} >> {size}))", lit(0, w), u.name()),
                        u,
                    )
                };
                self.define(data, 1, wrap(&hi, res_ty(1)));
            }
            Op::Cmovznz => {
                let ty = res_ty(0);
                let w = arith_width(u32::from(ty.bits));
                let u = CTy::unsigned(w);
                let cond = self.exact(data.args[0]).text;
                let bit = self.temp(
                    data,
                    "nz",
                    CTy::unsigned(1),
                    format!("(fiat_uint1)(!(!{cond}))"),
                );
                let mask = self.temp(
                    data,
                    "mask",
                    u,
                    format!("({})((fiat_int1)(0 - {bit}))", u.name()),
                );
                let (z, nz) = (self.modular(data.args[1], w), self.modular(data.args[2], w));
                let e = Expr::new(format!("(({mask} & {nz}) | ((~{mask}) & {z}))"), u);
                self.define(data, 0, wrap(&e, ty));
            }
        }
    }

    /// `a >> n`, exact: logical for unsigned `a`, arithmetic for signed `a`.
    fn shift_right(&self, a: &Expr, n: Operand) -> Expr {
        let w = a.cty.arith();
        let t = CTy {
            bits: w,
            signed: a.cty.signed,
        };
        let x = cast(a, t);
        match n {
            Operand::Const(n) if a.cty.signed => {
                Expr::new(format!("({x} >> {})", n.min(u128::from(w) - 1)), t)
            }
            Operand::Const(n) if n >= u128::from(w) => Expr {
                text: lit(0, w),
                cty: t,
                ubits: Some(0),
            },
            Operand::Const(n) => Expr {
                text: format!("({x} >> {n})"),
                cty: t,
                ubits: a.ubits.map(|b| b.saturating_sub(n as u32)),
            },
            // Not Fiat (the verifier rejects variable shifts); kept total anyway.
            Operand::Value(_) => {
                let n = self.exact(n).text;
                let text = if a.cty.signed {
                    format!("({x} >> ({n} < {w} ? {n} : {}))", w - 1)
                } else {
                    format!("({n} < {w} ? ({x} >> {n}) : {})", lit(0, w))
                };
                Expr::new(text, t)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usable_names() {
        for (name, ok) in [
            ("x12", true),
            ("arg1", true),
            ("", false),
            ("1x", false),
            ("_x", false),
            ("int", false),
            ("uint64_t", false),
            ("UINT64_C", false),
            ("a-b", false),
            ("fiat_uint1", false),
        ] {
            assert_eq!(usable(name), ok, "{name}");
        }
    }

    #[test]
    fn literals() {
        for (c, w, want) in [
            (0u128, 32u8, "UINT32_C(0x0)"),
            (0x1_0000_0001, 32, "UINT32_C(0x1)"),
            (u64::MAX as u128, 64, "UINT64_C(0xffffffffffffffff)"),
            (5, 128, "((fiat_uint128)UINT64_C(0x5))"),
            (
                (3u128 << 64) | 7,
                128,
                "(((fiat_uint128)UINT64_C(0x3) << 64) | UINT64_C(0x7))",
            ),
        ] {
            assert_eq!(lit(c, w), want);
        }
    }

    #[test]
    fn wraps() {
        let v = |cty: CTy, ubits: Option<u32>| Expr {
            text: "x".into(),
            cty,
            ubits,
        };
        let u64_ = CTy::unsigned(64);
        for (e, ty, want) in [
            (v(u64_, None), Ty::U64, "x"),
            (v(u64_, None), Ty::U8, "(uint8_t)x"),
            (
                v(u64_, None),
                Ty::uint(51),
                "((uint64_t)(x & UINT64_C(0x7ffffffffffff)))",
            ),
            (v(u64_, Some(51)), Ty::uint(51), "x"),
            (v(u64_, Some(1)), Ty::U1, "(fiat_uint1)x"),
            (
                v(u64_, None),
                Ty::U1,
                "((fiat_uint1)((uint32_t)x & UINT32_C(0x1)))",
            ),
            (v(CTy::unsigned(1), Some(1)), Ty::int(1), "((fiat_int1)(0 - (int32_t)x))"),
            (
                v(CTy::signed(128), None),
                Ty::int(1),
                "((fiat_int1)((int32_t)(((uint32_t)x & UINT32_C(0x1)) ^ UINT32_C(0x1)) - (int32_t)UINT32_C(0x1)))",
            ),
            (v(CTy::signed(1), None), Ty::U64, "(uint64_t)x"),
        ] {
            assert_eq!(wrap(&e, ty), want, "{e:?} to {ty}");
        }
    }
}
