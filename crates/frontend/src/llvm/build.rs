//! From a parsed LLVM function to cryptopt IR: pointer arguments become word arrays
//! (read-only ones inputs, write-only ones outputs), integer values become limbs
//! ([`super::wide`]), and each instruction of the subset becomes word operations.
//! Everything outside the subset is refused with its line and the reason. Values only
//! ever used modulo a constant are kept incompletely reduced (`lazy`).

use std::collections::{HashMap, HashSet};

use num_bigint::{BigInt, BigUint};
use num_traits::{One, Zero};

use cryptopt_ir::func::{Function, Op, Operand, Param, Ty};

mod assume;
mod lazy;

use super::syntax::{Arg, BinOp, CastOp, Func, Inst, Kind, Pred, Type};
use super::wide::{limbs, max_of, Emit, Wide};
use assume::assumed_bounds;
use lazy::{idioms, mod_only, users, Idioms};

/// An error: the line it is on and what is wrong.
pub(crate) type Fail = (usize, String);

/// An integer value of the function while it is read (pointers are resolved before,
/// in `pointers`).
#[derive(Clone, Debug)]
enum Val {
    Int(Wide),
    /// What a `*.with.overflow` intrinsic returns.
    Pair(Wide, Wide),
}

/// How a pointer argument is used.
#[derive(Clone, Copy, Debug, Default)]
struct Use {
    loaded: bool,
    stored: bool,
    /// Words touched: one past the highest.
    words: u32,
}

/// Pointer values by name: (argument, constant byte offset).
type Ptrs = HashMap<String, (usize, i64)>;

/// Where an LLVM argument went: an IR parameter or return.
#[derive(Clone, Copy, Debug)]
enum Slot {
    Input(u32),
    Output(u32),
}

/// The width LLVM reserves in memory for a type (what `getelementptr` steps by).
fn alloc_bytes(t: &Type) -> Option<u64> {
    match t {
        Type::Int(n) if *n <= 64 => Some((n.div_ceil(8) as u64).next_power_of_two()),
        Type::Int(n) => Some(limbs(*n) as u64 * 8),
        Type::Ptr => Some(8),
        Type::Array(k, e) => alloc_bytes(e)?.checked_mul(*k),
        _ => None,
    }
}

fn int_bits(t: &Type, line: usize, what: &str) -> Result<u32, Fail> {
    match t {
        Type::Int(n) if *n <= 4096 => Ok(*n),
        Type::Int(n) => Err((line, format!("{what}: i{n} is wider than 4096 bits"))),
        other => Err((
            line,
            format!("{what}: type `{other}` is not supported (integers and pointers only)"),
        )),
    }
}

/// A literal as a `bits`-bit pattern (LLVM prints negative literals for high bits).
fn literal(v: &BigInt, bits: u32) -> BigUint {
    let m = BigInt::one() << bits;
    let r = ((v % &m) + &m) % &m;
    r.to_biguint().unwrap_or_default()
}

/// The most words a pointer argument may span.
const MAX_WORDS: u64 = 1 << 12;

/// Why an instruction outside the subset is refused.
fn why(op: &str) -> &'static str {
    match op {
        "br" | "switch" | "indirectbr" | "phi" | "callbr" | "invoke" | "unreachable" => {
            "branches and loops are not straight-line code"
        }
        "alloca" => "stack memory is not supported (pass data through pointer arguments)",
        "fadd" | "fsub" | "fmul" | "fdiv" | "frem" | "fneg" | "fcmp" | "fptoui" | "fptosi"
        | "uitofp" | "sitofp" | "fpext" | "fptrunc" => "floating point is not supported",
        "inttoptr" | "ptrtoint" => "addresses computed from data are not supported",
        "load volatile" | "load atomic" | "store volatile" | "store atomic" => {
            "volatile and atomic memory accesses are not supported"
        }
        "insertelement" | "extractelement" | "shufflevector" => {
            "vector operations are not supported (compile with -fno-vectorize -fno-slp-vectorize)"
        }
        _ => "it is outside the subset cryptopt reads (integer arithmetic, loads and stores)",
    }
}

pub(crate) fn build(func: &Func) -> Result<Function, Fail> {
    let mut disabled: HashSet<String> = HashSet::new();
    loop {
        let mut retry = None;
        match build_without(func, &disabled, &mut retry) {
            Err(_) if retry.is_some() => {
                let name = retry.unwrap_or_default();
                if !disabled.insert(name) {
                    return Err((func.line, "internal error: an idiom retried twice".into()));
                }
            }
            r => return r,
        }
    }
}

/// [`build`] with the `x mod P` idioms named in `disabled` built as written.
fn build_without(
    func: &Func,
    disabled: &HashSet<String>,
    retry: &mut Option<String>,
) -> Result<Function, Fail> {
    let name = &func.name;
    // The earliest refusal first: an instruction outside the subset, or a second block.
    let refused = |i: &&Inst| matches!(i.kind, Kind::Other(_) | Kind::Ret { val: Some(_) });
    if let Some(i) = func.body.iter().find(refused) {
        if func.second_block.is_none_or(|l| i.line < l) {
            return Err(match &i.kind {
                Kind::Other(op) => (i.line, format!("`{op}` is not supported: {}", why(op))),
                _ => (
                    i.line,
                    "ret with a value: cryptopt functions return void".to_string(),
                ),
            });
        }
    }
    if let Some(line) = func.second_block {
        return Err((
            line,
            "a second basic block: branches and loops are not straight-line code".to_string(),
        ));
    }
    if func.ret != Type::Void {
        return Err((
            func.line,
            format!(
                "returns `{}`: write results through pointer arguments (cryptopt functions return void)",
                func.ret
            ),
        ));
    }
    let (ptrs, uses) = pointers(func)?;
    // The signature: outputs (written pointers) first, then inputs.
    let mut params = Vec::new();
    let mut returns = Vec::new();
    let mut slots = Vec::new();
    let mut seen_input: Option<&str> = None;
    for (k, p) in func.params.iter().enumerate() {
        let u = uses[k];
        match &p.ty {
            Type::Ptr => {
                if u.loaded && u.stored {
                    return Err((
                        func.line,
                        format!(
                            "%{} is both read and written; pass the output through its own pointer",
                            p.name
                        ),
                    ));
                }
                if !u.loaded && !u.stored {
                    return Err((func.line, format!("%{} is never read or written", p.name)));
                }
                if u.stored {
                    if let Some(i) = seen_input {
                        return Err((
                            func.line,
                            format!(
                                "output %{} comes after input %{i}: cryptopt's C interface takes outputs first",
                                p.name
                            ),
                        ));
                    }
                    let n = format!("out{}", returns.len() + 1);
                    slots.push(Slot::Output(returns.len() as u32));
                    returns.push(words(&n, u.words));
                } else {
                    seen_input = Some(p.name.as_str());
                    let n = format!("arg{}", params.len() + 1);
                    slots.push(Slot::Input(params.len() as u32));
                    params.push(words(&n, u.words));
                }
            }
            t => {
                let bits = int_bits(t, func.line, &format!("parameter %{}", p.name))?;
                if bits > 64 {
                    return Err((
                        func.line,
                        format!("parameter %{} is i{bits}: scalars wider than 64 bits are not supported", p.name),
                    ));
                }
                seen_input = Some(p.name.as_str());
                let n = format!("arg{}", params.len() + 1);
                slots.push(Slot::Input(params.len() as u32));
                params.push(Param::scalar(
                    &n,
                    Ty::uint(bits as u8),
                    Ty::uint(bits as u8).mask(),
                ));
            }
        }
    }
    for (&(p, w), ub) in &assumed_bounds(func, &ptrs, &slots) {
        let bound = &mut params[p as usize].ubound[w as usize];
        *bound = (*bound).min(u128::try_from(ub).unwrap_or(u128::MAX));
    }
    let mut b = Builder {
        e: Emit::new(Function::new(name.clone(), params, returns)),
        env: HashMap::new(),
        ptrs,
        loads: HashMap::new(),
        stores: HashMap::new(),
        idioms: Idioms::default(),
        add_carries: HashMap::new(),
        mod_only: HashMap::new(),
        lazy: HashMap::new(),
        retry: None,
    };
    let users = users(&func.body);
    b.idioms = idioms(&func.body, &users, disabled);
    b.mod_only = mod_only(&func.body, &users, &b.idioms);
    for (k, p) in func.params.iter().enumerate() {
        match (&p.ty, slots[k]) {
            (Type::Ptr, _) | (_, Slot::Output(_)) => {}
            (t, Slot::Input(i)) => {
                let bits = int_bits(t, func.line, "parameter")?;
                let v = b.e.f.push1(
                    Op::Load { param: i, index: 0 },
                    vec![],
                    Ty::uint(bits as u8),
                );
                b.env.insert(
                    p.name.clone(),
                    Val::Int(Wide {
                        bits,
                        limbs: vec![v.into()],
                        ub: max_of(bits),
                    }),
                );
            }
        }
    }
    for inst in &func.body {
        if let Err(e) = b.inst(inst, &slots) {
            *retry = b.retry.take();
            return Err(e);
        }
    }
    // The stores, word by word, in order.
    for (r, ret) in b.e.f.returns.clone().iter().enumerate() {
        for i in 0..ret.elems() {
            let Some(&v) = b.stores.get(&(r as u32, i as u32)) else {
                let arg = slots
                    .iter()
                    .position(|s| matches!(s, Slot::Output(o) if *o == r as u32))
                    .map_or(String::new(), |k| func.params[k].name.clone());
                return Err((
                    func.line,
                    format!("word {i} of output %{arg} is never written"),
                ));
            };
            b.e.f.push(
                Op::Store {
                    ret: r as u32,
                    index: i as u32,
                },
                vec![v],
                &[],
            );
        }
    }
    Ok(b.e.f)
}

/// Pass 1: every pointer value as (argument, constant byte offset), and how each
/// pointer argument is used (read, written, how many words).
fn pointers(func: &Func) -> Result<(Ptrs, Vec<Use>), Fail> {
    let mut ptrs: Ptrs = HashMap::new();
    let mut uses: Vec<Use> = vec![Use::default(); func.params.len()];
    for (k, p) in func.params.iter().enumerate() {
        if p.ty == Type::Ptr {
            ptrs.insert(p.name.clone(), (k, 0));
        }
    }
    for inst in &func.body {
        let line = inst.line;
        match &inst.kind {
            Kind::Gep { elem, ptr, indices } => {
                let (arg, off) = resolve(&ptrs, ptr, line)?;
                let off = off + gep_offset(elem, indices, line)?;
                if let Some(r) = &inst.result {
                    ptrs.insert(r.clone(), (arg, off));
                }
            }
            Kind::Load { ty, ptr } | Kind::Store { ty, ptr, .. } => {
                let store = matches!(inst.kind, Kind::Store { .. });
                let what = if store { "store" } else { "load" };
                let (arg, off) = resolve(&ptrs, ptr, line)?;
                let bits = int_bits(ty, line, what)?;
                if bits % 64 != 0 || off % 8 != 0 || off < 0 {
                    return Err((
                        line,
                        format!(
                            "{what} of i{bits} at byte offset {off}: only whole 64-bit words are supported"
                        ),
                    ));
                }
                if (off / 8) as u64 + bits as u64 / 64 > MAX_WORDS {
                    return Err((
                        line,
                        format!("{what} at byte offset {off}: arguments of more than {MAX_WORDS} words are not supported"),
                    ));
                }
                let u = &mut uses[arg];
                if store {
                    u.stored = true;
                } else {
                    u.loaded = true;
                }
                u.words = u.words.max((off / 8) as u32 + bits / 64);
            }
            _ => {}
        }
    }
    Ok((ptrs, uses))
}

/// A pointer operand as (argument, byte offset).
fn resolve(ptrs: &Ptrs, a: &Arg, line: usize) -> Result<(usize, i64), Fail> {
    match a {
        Arg::Local(n) => ptrs.get(n).copied().ok_or_else(|| {
            (
                line,
                format!("%{n} is not a pointer argument plus a constant offset"),
            )
        }),
        _ => Err((line, "a pointer that is not an argument".to_string())),
    }
}

/// A pointer argument as `n` words, each any value (LLVM IR declares no bounds).
fn words(name: &str, n: u32) -> Param {
    Param::array(name, Ty::U64, &vec![u64::MAX as u128; n as usize])
}

/// The byte offset of a `getelementptr` with constant indices.
fn gep_offset(elem: &Type, indices: &[(Type, Arg)], line: usize) -> Result<i64, Fail> {
    let mut off: i64 = 0;
    let mut ty = elem.clone();
    for (k, (_, ix)) in indices.iter().enumerate() {
        let Arg::Int(v) = ix else {
            return Err((
                line,
                "getelementptr with a variable index: addresses must not depend on data"
                    .to_string(),
            ));
        };
        let v =
            i64::try_from(v).map_err(|_| (line, "getelementptr index out of range".to_string()))?;
        let step = if k == 0 {
            alloc_bytes(&ty)
        } else {
            match ty.clone() {
                Type::Array(_, e) => {
                    ty = *e;
                    alloc_bytes(&ty)
                }
                _ => None,
            }
        }
        .ok_or_else(|| {
            (
                line,
                format!("getelementptr over type `{ty}` is not supported"),
            )
        })?;
        off = v
            .checked_mul(step as i64)
            .and_then(|d| off.checked_add(d))
            .ok_or_else(|| (line, "getelementptr offset overflows".to_string()))?;
    }
    Ok(off)
}

struct Builder {
    e: Emit,
    env: HashMap<String, Val>,
    /// Pointer values as (argument, byte offset) ([`pointers`]).
    ptrs: Ptrs,
    /// Each word of each input is loaded once.
    loads: HashMap<(u32, u32), Operand>,
    /// The last value stored to each output word.
    stores: HashMap<(u32, u32), Operand>,
    /// The values only ever used modulo a constant ([`mod_only`]).
    mod_only: HashMap<String, BigUint>,
    /// The values held incompletely reduced (congruent to the LLVM value modulo their
    /// `mod_only` constant, exact integers below the bound of their `Wide`, as wide as
    /// it needs), each with an upper bound of its LLVM value (what idioms need).
    lazy: HashMap<String, BigUint>,
    /// clang's `x mod P` idioms ([`idioms`]).
    idioms: Idioms,
    /// An idiom whose precondition failed: the build is started again without it.
    retry: Option<String>,
    /// For each `%s = add %a, %b`: its operands and the carry out of the sum, so that
    /// C's carry test `s < a` (`icmp ult %s, %a`) is that carry, as clang reads it.
    add_carries: HashMap<String, (Arg, Arg, Operand)>,
}

impl Builder {
    fn int(&self, a: &Arg, bits: u32, line: usize) -> Result<Wide, Fail> {
        match a {
            Arg::Local(n) if self.lazy.contains_key(n) => Err((
                line,
                format!("internal error: %{n}, kept incompletely reduced, is used here"),
            )),
            Arg::Local(n) => match self.env.get(n) {
                Some(Val::Int(w)) if w.bits == bits => Ok(w.clone()),
                Some(Val::Int(w)) => Err((line, format!("%{n} is i{}, used as i{bits}", w.bits))),
                Some(_) => Err((line, format!("%{n} is not an integer"))),
                None => Err((line, format!("use of undefined value %{n}"))),
            },
            Arg::Int(v) => Ok(Wide::constant(&literal(v, bits), bits)),
            Arg::Other(o) => Err((line, format!("operand `{o}` is not supported"))),
        }
    }

    fn bit(&self, a: &Arg, line: usize) -> Result<Operand, Fail> {
        Ok(self.int(a, 1, line)?.limbs[0])
    }

    fn ptr(&self, a: &Arg, line: usize) -> Result<(usize, i64), Fail> {
        resolve(&self.ptrs, a, line)
    }

    fn define(&mut self, inst: &Inst, v: Val) {
        if let Some(r) = &inst.result {
            self.env.insert(r.clone(), v);
        }
    }

    fn inst(&mut self, inst: &Inst, slots: &[Slot]) -> Result<(), Fail> {
        let line = inst.line;
        if self.lazy_inst(inst)? {
            return Ok(());
        }
        match &inst.kind {
            Kind::Bin { op, ty, a, b, .. } => {
                let bits = int_bits(ty, line, &format!("{op:?}").to_lowercase())?;
                let x = self.int(a, bits, line)?;
                let y = self.int(b, bits, line)?;
                let r = if *op == BinOp::Add {
                    let (r, carry) = self.e.add(&x, &y, bits);
                    if let Some(name) = &inst.result {
                        self.add_carries
                            .insert(name.clone(), (a.clone(), b.clone(), carry));
                    }
                    r
                } else {
                    self.binary(*op, &x, &y, bits, line)?
                };
                self.define(inst, Val::Int(r));
            }
            Kind::Icmp { pred, ty, a, b } => {
                if let Some(carry) = self.carry_test(*pred, a, b) {
                    self.define(inst, Val::Int(bit_wide(carry)));
                    return Ok(());
                }
                let bits = int_bits(ty, line, "icmp")?;
                let mut x = self.int(a, bits, line)?;
                let mut y = self.int(b, bits, line)?;
                if matches!(pred, Pred::Slt | Pred::Sle | Pred::Sgt | Pred::Sge) {
                    // Signed order is unsigned order with the sign bits flipped.
                    let s = Wide::constant(&(BigUint::one() << (bits - 1)), bits);
                    x = self.e.bitwise(Op::Xor, &x, &s, bits);
                    y = self.e.bitwise(Op::Xor, &y, &s, bits);
                }
                let r = match pred {
                    Pred::Eq => self.e.eq(&x, &y),
                    Pred::Ne => {
                        let e = self.e.eq(&x, &y);
                        self.e.not1(e)
                    }
                    Pred::Ult | Pred::Slt => self.e.ult(&x, &y),
                    Pred::Ugt | Pred::Sgt => self.e.ult(&y, &x),
                    Pred::Uge | Pred::Sge => {
                        let l = self.e.ult(&x, &y);
                        self.e.not1(l)
                    }
                    Pred::Ule | Pred::Sle => {
                        let g = self.e.ult(&y, &x);
                        self.e.not1(g)
                    }
                };
                self.define(inst, Val::Int(bit_wide(r)));
            }
            Kind::Select { cond, ty, t, f } => {
                let bits = int_bits(ty, line, "select")?;
                let c = self.bit(cond, line)?;
                let x = self.int(t, bits, line)?;
                let y = self.int(f, bits, line)?;
                let r = self.e.select(c, &x, &y);
                self.define(inst, Val::Int(r));
            }
            Kind::Cast {
                op, from, x, to, ..
            } => {
                let fb = int_bits(from, line, "cast")?;
                let tb = int_bits(to, line, "cast")?;
                let v = self.int(x, fb, line)?;
                let r = match op {
                    CastOp::Zext if tb >= fb => self.e.resize(&v, tb),
                    CastOp::Sext if tb >= fb => self.e.sext(&v, tb),
                    CastOp::Trunc if tb <= fb => self.e.resize(&v, tb),
                    _ => return Err((line, format!("{op:?} from i{fb} to i{tb}").to_lowercase())),
                };
                self.define(inst, Val::Int(r));
            }
            Kind::Freeze { ty, x } => {
                let bits = int_bits(ty, line, "freeze")?;
                let v = self.int(x, bits, line)?;
                self.define(inst, Val::Int(v));
            }
            // Resolved in `pointers`; refused before building.
            Kind::Gep { .. } | Kind::Ret { .. } | Kind::Other(_) => {}
            Kind::Load { ty, ptr } => {
                let bits = int_bits(ty, line, "load")?;
                let (arg, off) = self.ptr(ptr, line)?;
                let Slot::Input(param) = slots[arg] else {
                    return Err((line, "load from an output".to_string()));
                };
                let first = (off / 8) as u32;
                let mut ls = Vec::new();
                for i in 0..bits / 64 {
                    let key = (param, first + i);
                    let v = match self.loads.get(&key) {
                        Some(&v) => v,
                        None => {
                            let v: Operand = self
                                .e
                                .f
                                .push1(
                                    Op::Load {
                                        param,
                                        index: first + i,
                                    },
                                    vec![],
                                    Ty::U64,
                                )
                                .into();
                            self.loads.insert(key, v);
                            v
                        }
                    };
                    ls.push(v);
                }
                // A word's declared bound (an assumption's, see `assume`); a wider load
                // keeps its type's.
                let ub = match self.e.f.params[param as usize].ubound.get(first as usize) {
                    Some(&b) if bits == 64 => BigUint::from(b),
                    _ => max_of(bits),
                };
                self.define(
                    inst,
                    Val::Int(Wide {
                        bits,
                        limbs: ls,
                        ub,
                    }),
                );
            }
            Kind::Store { ty, val, ptr } => {
                let bits = int_bits(ty, line, "store")?;
                let v = self.int(val, bits, line)?;
                let (arg, off) = self.ptr(ptr, line)?;
                let Slot::Output(ret) = slots[arg] else {
                    return Err((line, "store to an input".to_string()));
                };
                for (i, &l) in v.limbs.iter().enumerate() {
                    self.stores.insert((ret, (off / 8) as u32 + i as u32), l);
                }
            }
            Kind::Call { callee, args, .. } => {
                let v = self.call(callee, args, line)?;
                self.define(inst, v);
            }
            Kind::ExtractValue { agg, index } => {
                let Arg::Local(n) = agg else {
                    return Err((line, "extractvalue of a literal".to_string()));
                };
                let v = match (self.env.get(n), index) {
                    (Some(Val::Pair(a, _)), 0) => a.clone(),
                    (Some(Val::Pair(_, b)), 1) => b.clone(),
                    _ => return Err((line, format!("extractvalue {index} of %{n}"))),
                };
                self.define(inst, Val::Int(v));
            }
        }
        Ok(())
    }

    /// The carry out of `%s = add %a, %b` when the comparison is C's carry test of that
    /// sum, `s < a` or `s < b` (or `a > s`): for words below `2^n`, `(a + b) mod 2^n` is
    /// below `a` exactly when the sum wrapped.
    fn carry_test(&self, pred: Pred, a: &Arg, b: &Arg) -> Option<Operand> {
        let (sum, other) = match pred {
            Pred::Ult => (a, b),
            Pred::Ugt => (b, a),
            _ => return None,
        };
        let Arg::Local(name) = sum else {
            return None;
        };
        let (x, y, carry) = self.add_carries.get(name)?;
        (other == x || other == y).then_some(*carry)
    }

    fn binary(
        &mut self,
        op: BinOp,
        x: &Wide,
        y: &Wide,
        bits: u32,
        line: usize,
    ) -> Result<Wide, Fail> {
        let shift = |y: &Wide| -> Result<u32, Fail> {
            match y.as_const().and_then(|v| u32::try_from(v).ok()) {
                Some(s) if s < bits => Ok(s),
                Some(s) => Err((line, format!("shift by {s} of an i{bits} (poison in LLVM)"))),
                None => Err((
                    line,
                    format!("{op:?} by a variable amount: shifts must be by constants")
                        .to_lowercase(),
                )),
            }
        };
        Ok(match op {
            BinOp::Add => self.e.add(x, y, bits).0,
            BinOp::Sub => self.e.sub(x, y, bits).0,
            BinOp::Mul => self.e.mul(x, y, bits),
            BinOp::And => self.e.bitwise(Op::And, x, y, bits),
            BinOp::Or => self.e.bitwise(Op::Or, x, y, bits),
            BinOp::Xor => self.e.bitwise(Op::Xor, x, y, bits),
            BinOp::Shl => self.e.shl(x, shift(y)?),
            BinOp::Lshr => self.e.lshr(x, shift(y)?),
            BinOp::Ashr => self.e.ashr(x, shift(y)?),
            BinOp::Udiv | BinOp::Urem => {
                let Some(d) = y.as_const() else {
                    return Err((
                        line,
                        format!("{op:?} by a variable: only division by constants is supported")
                            .to_lowercase(),
                    ));
                };
                if d.is_zero() {
                    return Err((line, "division by zero".to_string()));
                }
                let pow = d.count_ones() == 1;
                match (op, pow) {
                    (BinOp::Udiv, true) => self.e.lshr(x, d.bits() as u32 - 1),
                    (BinOp::Urem, true) => {
                        let m = Wide::constant(&(&d - 1u32), bits);
                        self.e.bitwise(Op::And, x, &m, bits)
                    }
                    (BinOp::Urem, false) => {
                        if x.ub < d {
                            x.clone()
                        } else {
                            self.e.reduce(x, &d, bits, true).ok_or_else(|| {
                                (
                                    line,
                                    format!(
                                        "urem by {d}: only powers of two and moduli 2^n - c with c < 2^(n-2) are supported"
                                    ),
                                )
                            })?
                        }
                    }
                    _ => {
                        return Err((
                            line,
                            format!("udiv by {d}: only division by powers of two is supported"),
                        ))
                    }
                }
            }
            BinOp::Sdiv | BinOp::Srem => {
                return Err((
                    line,
                    format!("{op:?}: signed division is not supported").to_lowercase(),
                ))
            }
        })
    }

    fn call(&mut self, callee: &str, args: &[(Type, Arg)], line: usize) -> Result<Val, Fail> {
        let base = callee
            .strip_prefix("llvm.")
            .and_then(|s| s.rsplit_once('.'))
            .map(|(b, _)| b)
            .unwrap_or("");
        let ints = |b: &Builder, n: usize| -> Result<Vec<Wide>, Fail> {
            if args.len() != n {
                return Err((line, format!("@{callee} takes {n} arguments")));
            }
            args.iter()
                .map(|(t, a)| b.int(a, int_bits(t, line, callee)?, line))
                .collect()
        };
        if callee == "llvm.assume" {
            // A precondition: read by `assume` where it bounds an input word, and
            // otherwise unused (sound: proved on more inputs than it needs).
            let [(Type::Int(1), c)] = args else {
                return Err((line, "@llvm.assume takes one i1".to_string()));
            };
            self.bit(c, line)?;
            return Ok(Val::Int(bit_wide(Operand::Const(0))));
        }
        Ok(match base {
            "uadd.with.overflow" | "usub.with.overflow" | "umul.with.overflow" => {
                let v = ints(self, 2)?;
                let bits = v[0].bits;
                let (r, o) = match base {
                    "uadd.with.overflow" => self.e.add(&v[0], &v[1], bits),
                    "usub.with.overflow" => self.e.sub(&v[0], &v[1], bits),
                    _ => {
                        let a = self.e.resize(&v[0], 2 * bits);
                        let b = self.e.resize(&v[1], 2 * bits);
                        let full = self.e.mul(&a, &b, 2 * bits);
                        let lo = self.e.resize(&full, bits);
                        let hi = self.e.lshr(&full, bits);
                        let zero = Wide::constant(&BigUint::zero(), 2 * bits);
                        let z = self.e.eq(&hi, &zero);
                        (lo, self.e.not1(z))
                    }
                };
                Val::Pair(r, bit_wide(o))
            }
            "fshl" | "fshr" => {
                let v = ints(self, 3)?;
                let bits = v[0].bits;
                let s = v[2]
                    .as_const()
                    .map(|s| (s % BigUint::from(bits)).try_into().unwrap_or(0u32))
                    .ok_or_else(|| (line, format!("@{callee} by a variable amount")))?;
                if s == 0 {
                    Val::Int(if base == "fshl" {
                        v[0].clone()
                    } else {
                        v[1].clone()
                    })
                } else {
                    let (l, r) = if base == "fshl" {
                        (s, bits - s)
                    } else {
                        (bits - s, s)
                    };
                    let hi = self.e.shl(&v[0], l);
                    let lo = self.e.lshr(&v[1], r);
                    Val::Int(self.e.bitwise(Op::Or, &hi, &lo, bits))
                }
            }
            "umin" | "umax" => {
                let v = ints(self, 2)?;
                let lt = self.e.ult(&v[0], &v[1]);
                Val::Int(if base == "umin" {
                    self.e.select(lt, &v[0], &v[1])
                } else {
                    self.e.select(lt, &v[1], &v[0])
                })
            }
            _ => {
                return Err((
                    line,
                    format!(
                        "call to @{callee}: only the intrinsics uadd/usub/umul.with.overflow, fshl/fshr, umin/umax and assume are supported"
                    ),
                ));
            }
        })
    }
}

/// A `u1` as a 1-bit integer.
fn bit_wide(b: Operand) -> Wide {
    let ub = match b {
        Operand::Const(c) => BigUint::from(c),
        _ => BigUint::one(),
    };
    Wide {
        bits: 1,
        limbs: vec![b],
        ub,
    }
}

/// The operands of an instruction that are values or literals.
fn operands(k: &Kind) -> Vec<&Arg> {
    match k {
        Kind::Bin { a, b, .. } | Kind::Icmp { a, b, .. } => vec![a, b],
        Kind::Select { cond, t, f, .. } => vec![cond, t, f],
        Kind::Cast { x, .. } | Kind::Freeze { x, .. } => vec![x],
        Kind::Load { ptr, .. } => vec![ptr],
        Kind::Store { val, ptr, .. } => vec![val, ptr],
        Kind::Gep { ptr, indices, .. } => std::iter::once(ptr)
            .chain(indices.iter().map(|(_, a)| a))
            .collect(),
        Kind::Call { args, .. } => args.iter().map(|(_, a)| a).collect(),
        Kind::ExtractValue { agg, .. } => vec![agg],
        Kind::Ret { val } => val.iter().map(|(_, a)| a).collect(),
        Kind::Other(_) => Vec::new(),
    }
}
