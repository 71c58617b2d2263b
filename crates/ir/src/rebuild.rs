//! The rebuilding passes of lowering, each a copy of the function instruction by
//! instruction through [`Rebuild`]: `simplify` (constant folding, identities, CSE, and
//! the one home of how a product by a literal is made without the multiplier:
//! [`shift_add_factors`], [`lea_base_factors`]), `flatten` (n-ary `& | ^ +`),
//! `fuse_shrd` (`(a >> n) | (b << 64 − n)`), `shifted_masks` (`(y << s) & (M << s)` as
//! two shifts) and `dce`. [`crate::lower`] runs them until
//! nothing changes; `reassoc` rebuilds through [`Rebuild`] too.
//!
//! Like every lowering pass, they must never change what a function computes (each is
//! followed by the validator in debug builds, and the pipeline is property-tested
//! against the interpreter).

use std::collections::HashMap;

use crate::func::{Function, InstData, Op, Operand, Ty, Value};
use crate::interp;

/// Copies a function instruction by instruction into a new one, remapping operands
/// (also the rebuild of `reassoc`).
pub(crate) struct Rebuild<'a> {
    old: &'a Function,
    pub(crate) new: Function,
    pub(crate) map: Vec<Operand>,
}

impl<'a> Rebuild<'a> {
    pub(crate) fn new(old: &'a Function) -> Self {
        Rebuild {
            old,
            new: Function::new(old.name.clone(), old.params.clone(), old.returns.clone()),
            map: vec![Operand::Const(0); old.values.len()],
        }
    }

    pub(crate) fn arg(&self, o: Operand) -> Operand {
        match o {
            Operand::Value(v) => self.map[v.index()],
            c => c,
        }
    }

    pub(crate) fn args(&self, data: &InstData) -> Vec<Operand> {
        data.args.iter().map(|&a| self.arg(a)).collect()
    }

    /// Emits `op` with `args` and the result types of `data`, mapping `data`'s results.
    pub(crate) fn emit_like(&mut self, data: &InstData, op: Op, args: Vec<Operand>) -> Vec<Value> {
        let tys: Vec<Ty> = data.results.iter().map(|&v| self.old.ty(v)).collect();
        let rs = self.new.push(op, args, &tys).to_vec();
        for (&o, &n) in data.results.iter().zip(&rs) {
            self.map[o.index()] = Operand::Value(n);
            self.new.values[n.index()]
                .name
                .clone_from(&self.old.values[o.index()].name);
        }
        rs
    }

    fn bits(&self, o: Operand) -> u32 {
        match o {
            Operand::Const(c) => 128 - c.leading_zeros(),
            Operand::Value(v) => self.new.ty(v).bits as u32,
        }
    }

    /// Does the exact value of `o` always fit in `w` bits?
    fn fits(&self, o: Operand, w: u8) -> bool {
        self.bits(o) <= w as u32
    }
}

/// How many times each value is used.
pub(crate) fn use_counts(f: &Function) -> Vec<u32> {
    let mut n = vec![0; f.values.len()];
    for d in &f.insts {
        for a in &d.args {
            if let Operand::Value(v) = a {
                n[v.index()] += 1;
            }
        }
    }
    n
}

/// Constant folding, algebraic identities, removal of casts that do not truncate, and
/// common-subexpression elimination (hash-consing), in one forward sweep.
pub fn simplify(f: &Function) -> Function {
    let mut rb = Rebuild::new(f);
    let mut memo: HashMap<(Op, Vec<Operand>, Vec<Ty>), Vec<Value>> = HashMap::new();
    for data in &f.insts {
        let mut args = rb.args(data);
        if matches!(data.op, Op::Load { .. } | Op::Store { .. }) {
            rb.emit_like(data, data.op, args);
            continue;
        }
        let r0 = f.ty(data.results[0]);
        // Fold an operation on literals.
        if args.iter().all(|a| matches!(a, Operand::Const(_))) {
            let vals: Vec<u128> = args.iter().map(|a| a.constant().unwrap_or(0)).collect();
            let tys = [r0, data.results.get(1).map_or(Ty::U1, |&v| f.ty(v))];
            let r = interp::eval(data.op, &vals, &vec![None; vals.len()], tys);
            for (k, &v) in data.results.iter().enumerate() {
                rb.map[v.index()] = Operand::Const(r[k]);
            }
            continue;
        }
        let mut op = data.op;
        if let Some(replacement) = identity(&rb, op, &mut args, r0) {
            match replacement {
                Simple::Operand(o) => {
                    rb.map[data.results[0].index()] = o;
                    continue;
                }
                Simple::Op(new_op) => op = new_op,
            }
        }
        if op.is_ac() {
            args.sort();
        }
        // Commutative operations are found in either order; mulx keeps its own (code
        // generation's first choice puts its first factor in rdx).
        let mut key_args = args.clone();
        if op.is_commutative() {
            key_args.sort();
        }
        let key = (
            op,
            key_args,
            data.results.iter().map(|&v| f.ty(v)).collect::<Vec<_>>(),
        );
        if let Some(prev) = memo.get(&key) {
            for (&o, &n) in data.results.iter().zip(prev) {
                rb.map[o.index()] = Operand::Value(n);
            }
            continue;
        }
        let rs = rb.emit_like(data, op, args);
        memo.insert(key, rs);
    }
    rb.new
}

enum Simple {
    /// The result is this operand.
    Operand(Operand),
    /// The operation becomes this one (operands possibly edited in place).
    Op(Op),
}

/// Algebraic identities for one operation with (remapped) operands `args` and result
/// type `rt`. May edit `args` (drop neutral literals, merge literals).
fn identity(rb: &Rebuild<'_>, op: Op, args: &mut Vec<Operand>, rt: Ty) -> Option<Simple> {
    let w = rt.bits;
    let mask = rt.mask();
    let only = |rb: &Rebuild<'_>, o: Operand| -> Option<Simple> {
        rb.fits(o, w).then_some(Simple::Operand(o))
    };
    match op {
        Op::Cast => only(rb, args[0]),
        Op::Add | Op::Or | Op::Xor | Op::And | Op::Mul => {
            // Merge literals into one, last.
            let consts: Vec<u128> = args.iter().filter_map(|a| a.constant()).collect();
            if consts.len() > 1
                || (consts.len() == 1 && args.last().and_then(|a| a.constant()).is_none())
            {
                let merged = interp::eval(op, &consts, &vec![None; consts.len()], [rt, Ty::U1])[0];
                args.retain(|a| a.constant().is_none());
                args.push(Operand::Const(merged));
            }
            if op == Op::Mul {
                fold_constant_factors(rb, args, rt);
            }
            let c = args.last().and_then(|a| a.constant()).map(|c| c & mask);
            match (op, c) {
                (Op::And | Op::Mul, Some(0)) => return Some(Simple::Operand(Operand::Const(0))),
                (Op::Add | Op::Or | Op::Xor, Some(0)) | (Op::Mul, Some(1)) => {
                    args.pop();
                }
                (Op::And, Some(c)) => {
                    // A mask that keeps every bit the other operands can have.
                    let covers = args[..args.len() - 1].iter().all(|&a| {
                        let m = Ty::uint(rb.bits(a).clamp(1, 128) as u8).mask();
                        c & m == m
                    });
                    if covers {
                        args.pop();
                    }
                }
                _ => {}
            }
            if args.len() == 1 {
                return only(rb, args[0]).or(Some(Simple::Op(Op::Cast)));
            }
            None
        }
        Op::Sub if args[1] == Operand::Const(0) => only(rb, args[0]),
        Op::Shl | Op::Shr | Op::Sar { .. } if args[1] == Operand::Const(0) => only(rb, args[0]),
        Op::Shr
            if args[1]
                .constant()
                .is_some_and(|n| n >= rb.bits(args[0]) as u128) =>
        {
            Some(Simple::Operand(Operand::Const(0)))
        }
        Op::Sar { from } if rb.bits(args[0]) < from as u32 => Some(Simple::Op(Op::Shr)),
        Op::Sext { from } if rb.bits(args[0]) < from as u32 => {
            only(rb, args[0]).or(Some(Simple::Op(Op::Cast)))
        }
        Op::Cmovznz => match args[0].constant() {
            Some(0) => only(rb, args[1]),
            Some(_) => only(rb, args[2]),
            None if args[1] == args[2] => only(rb, args[1]),
            None => None,
        },
        _ => None,
    }
}

/// `(x·a)·b` → `x·(a·b)`: a product by a literal whose other factor is itself a product
/// by a literal of the same unsigned type, when `a·b` is made without the multiplier
/// ([`shift_add_factors`]). Both wrap modulo `2^w`, so this is exact whatever `x`; the
/// inner product stays if it has other uses (then both are computed from `x` side by
/// side instead of one after the other), else `dce` removes it. Fiat's unsaturated
/// squares build `20·x` as `((x·5)·2)·2`: three dependent steps become `lea` and `shl`.
/// A product that would need `imul` is left alone: it would move work from the ALUs
/// to the multiplier, which the partial products already keep busy.
fn fold_constant_factors(rb: &Rebuild<'_>, args: &mut [Operand], rt: Ty) {
    let [Operand::Value(y), Operand::Const(b)] = *args else {
        return;
    };
    let inner = rb.new.inst(rb.new.values[y.index()].def);
    if inner.op != Op::Mul || rt.signed || rb.new.ty(y) != rt {
        return;
    }
    if let [x @ Operand::Value(_), Operand::Const(a)] = inner.args[..] {
        let c = a.wrapping_mul(b) & rt.mask();
        if u64::try_from(c).is_ok_and(|c| shift_add_factors(c).is_some()) {
            args[0] = x;
            args[1] = Operand::Const(c);
        }
    }
}

/// How `x·c` is made by at most two shift-and-add instructions: `c = m·n` with `m` one
/// of 1, 3, 5, 9 (`lea [x + x·(m−1)]`, nothing for 1) and `n` a power of two or, when
/// `m > 1`, also 3, 5 or 9 (`shl`, or a second `lea`). The one home of that rule: the
/// fold above and code generation's templates for products by a literal both ask it.
pub fn shift_add_factors(c: u64) -> Option<(u64, u64)> {
    if c.is_power_of_two() {
        return Some((1, c));
    }
    [3, 5, 9].into_iter().find_map(|m| {
        let n = c / m;
        (c.is_multiple_of(m) && (n.is_power_of_two() || matches!(n, 3 | 5 | 9))).then_some((m, n))
    })
}

/// How `x·c` is made by two `lea` that keep `x`: `c = 1 + k·m` with `m` one of 3, 5, 9
/// (`t = lea [x + x·(m−1)]`) and `k` one of 2, 4, 8 (`lea [x + t·k]`); 19 = 1 + 2·9,
/// curve25519's wrap-around factor, as clang makes it. Code generation offers it; the
/// fold above does not ask it (`x·38` would then need a `shl` of the sum, which the
/// checker keeps as a bit slice and does not meet the IR's `38·x` with).
pub fn lea_base_factors(c: u64) -> Option<(u8, u8)> {
    [3u8, 5, 9].into_iter().find_map(|m| {
        [2u8, 4, 8]
            .into_iter()
            .find(|&k| c == 1 + k as u64 * m as u64)
            .map(|k| (m, k))
    })
}

/// Flattens chains of `&`, `|`, `^`, `+` of one result type into n-ary operations when
/// the inner operation has no other use.
pub fn flatten(f: &Function) -> Function {
    let uses = use_counts(f);
    let mut rb = Rebuild::new(f);
    // The final operand list of each flattenable instruction, by its old result.
    let mut flat: HashMap<Value, Vec<Operand>> = HashMap::new();
    for data in &f.insts {
        // Sums that take a carry stay binary: `hi + b.hi + carry` next to the `lo + b.lo`
        // that produced the carry is an `add`/`adc` pair; one n-ary sum of many carries
        // would make every carry wait in a register.
        let takes_carry = |args: &[Operand]| args.iter().any(|a| f.operand_ty(*a) == Some(Ty::U1));
        let flattenable = matches!(data.op, Op::And | Op::Or | Op::Xor)
            || (data.op == Op::Add && !takes_carry(&data.args));
        if !flattenable {
            let args = rb.args(data);
            rb.emit_like(data, data.op, args);
            continue;
        }
        let rt = f.ty(data.results[0]);
        let mut args = Vec::with_capacity(data.args.len());
        for &a in &data.args {
            let inner = a.value().filter(|v| {
                let d = f.inst(f.values[v.index()].def);
                d.op == data.op
                    && f.ty(*v) == rt
                    && uses[v.index()] == 1
                    && !(d.op == Op::Add && takes_carry(&d.args))
            });
            match inner.and_then(|v| flat.get(&v)) {
                Some(spliced) => args.extend_from_slice(spliced),
                None => args.push(rb.arg(a)),
            }
        }
        flat.insert(data.results[0], args.clone());
        rb.emit_like(data, data.op, args);
    }
    rb.new
}

/// Fuses `(a >> n) | (b << (64 - n))` (64-bit, each shift used once) into `shrd.n a, b`.
pub fn fuse_shrd(f: &Function) -> Function {
    let uses = use_counts(f);
    let mut rb = Rebuild::new(f);
    // A single-use shift by a literal: (op, remapped operand, amount).
    let shift = |rb: &Rebuild<'_>, o: Operand, want: Op| -> Option<(Operand, u32)> {
        let v = o.value()?;
        let d = f.inst(f.values[v.index()].def);
        let n = d.args.get(1)?.constant()?;
        (d.op == want && f.ty(v) == Ty::U64 && uses[v.index()] == 1 && (1..64).contains(&n))
            .then(|| (rb.arg(d.args[0]), n as u32))
    };
    for data in &f.insts {
        let mut args = rb.args(data);
        if data.op == Op::Or && f.ty(data.results[0]) == Ty::U64 {
            'search: for i in 0..data.args.len() {
                for j in 0..data.args.len() {
                    if i == j {
                        continue;
                    }
                    if let (Some((lo, n)), Some((hi, m))) = (
                        shift(&rb, data.args[i], Op::Shr),
                        shift(&rb, data.args[j], Op::Shl),
                    ) {
                        if n + m == 64 && rb.fits(lo, 64) && rb.fits(hi, 64) {
                            let sd = Operand::Value(rb.new.push1(
                                Op::Shrd { n: n as u8 },
                                vec![lo, hi],
                                Ty::U64,
                            ));
                            let rest: Vec<Operand> = (0..args.len())
                                .filter(|&k| k != i && k != j)
                                .map(|k| args[k])
                                .collect();
                            args = std::iter::once(sd).chain(rest).collect();
                            break 'search;
                        }
                    }
                }
            }
            if args.len() == 1 {
                rb.map[data.results[0].index()] = args[0];
                continue;
            }
        }
        rb.emit_like(data, data.op, args);
    }
    rb.new
}

/// `(y << s) & ((2^k - 1) << s)` → `(y << (64 - k)) >> (64 - k - s)`, for a single-use
/// `u64` shift and a mask too wide for an `and` immediate (`k + s < 64`, the mask above
/// `2^31`): both are `(y mod 2^k)·2^s`, as the left shift keeps the low `k` bits of `y`
/// at the top and the right shift brings them down to bit `s`; two shifts instead of a
/// shift, a 64-bit literal in a register and an `and`. (libsecp256k1's
/// `u0 = (d & M) << 4`, which clang prints as `shl` and `and 0xFFFFFFFFFFFFF0`.)
pub fn shifted_masks(f: &Function) -> Function {
    let uses = use_counts(f);
    let mut rb = Rebuild::new(f);
    for data in &f.insts {
        match shifted_mask(f, &uses, data).map(|(y, s, k)| (rb.arg(y), s, k)) {
            Some((y, s, k)) => {
                let up = rb
                    .new
                    .push1(Op::Shl, vec![y, Operand::Const((64 - k) as u128)], Ty::U64);
                rb.emit_like(
                    data,
                    Op::Shr,
                    vec![Operand::Value(up), Operand::Const((64 - k - s) as u128)],
                );
            }
            None => {
                let args = rb.args(data);
                rb.emit_like(data, data.op, args);
            }
        }
    }
    rb.new
}

/// `data` as `(y << s) & ((2^k - 1) << s)` of [`shifted_masks`]: `(y, s, k)`.
fn shifted_mask(f: &Function, uses: &[u32], data: &InstData) -> Option<(Operand, u32, u32)> {
    if data.op != Op::And || data.args.len() != 2 || f.ty(data.results[0]) != Ty::U64 {
        return None;
    }
    let (x, c) = match (data.args[0], data.args[1]) {
        (Operand::Value(x), Operand::Const(c)) | (Operand::Const(c), Operand::Value(x)) => (x, c),
        _ => return None,
    };
    let d = f.inst(f.values[x.index()].def);
    if d.op != Op::Shl || f.ty(x) != Ty::U64 || uses[x.index()] != 1 || c <= i32::MAX as u128 {
        return None;
    }
    let s = d.args[1].constant().filter(|s| (1..64).contains(s))? as u32;
    let k = (c >> s).count_ones();
    (k >= 1 && k + s < 64 && c == ((1u128 << k) - 1) << s).then_some((d.args[0], s, k))
}

/// `a + shrd(lo, hi, n)` as `a + (lo >> n) + (hi << (64 − n))`: the two shifted halves
/// have no bit in common and sum below `2^64`, so their sum is the `shrd` exactly, and a
/// 64-bit `addcarry` of a single-use `shrd` whose carry only feeds additions becomes two
/// `addcarry`s whose carries both feed them (`c = c₁ + c₂`: the whole sum is below
/// `2^65`). Why: an accumulator shifted down and added into the next sum — libsecp256k1's
/// `d >>= 52; d += …`, every column of an unsaturated carry chain — has `shrd` (two
/// cycles, several µops on AMD) on its critical path; split, the low half is added as
/// soon as it is known and the high half one cycle later, a cycle less per column.
pub fn split_shifted_sums(f: &Function) -> Function {
    let uses = use_counts(f);
    // Values whose every use is an n-ary `add` (where a carry may be two carries).
    let mut only_added = vec![true; f.values.len()];
    for d in &f.insts {
        if d.op != Op::Add {
            for a in &d.args {
                if let Operand::Value(v) = a {
                    only_added[v.index()] = false;
                }
            }
        }
    }
    let mut rb = Rebuild::new(f);
    let mut split: HashMap<Value, (Operand, Operand)> = HashMap::new();
    'insts: for data in &f.insts {
        if data.op == (Op::AddCarry { size: 64 })
            && data.args[0] == Operand::Const(0)
            && only_added[data.results[1].index()]
        {
            for k in [1, 2] {
                let Some(sv) = data.args[k].value() else {
                    continue;
                };
                let sd = f.inst(f.values[sv.index()].def);
                let Op::Shrd { n } = sd.op else { continue };
                if uses[sv.index()] != 1 || !(1..64).contains(&n) {
                    continue;
                }
                let (lo, hi) = (rb.arg(sd.args[0]), rb.arg(sd.args[1]));
                let n = n as u128;
                let u = rb.new.push1(Op::Shr, vec![lo, Operand::Const(n)], Ty::U64);
                let w = rb
                    .new
                    .push1(Op::Shl, vec![hi, Operand::Const(64 - n)], Ty::U64);
                let first = rb
                    .new
                    .push(
                        Op::AddCarry { size: 64 },
                        vec![Operand::Const(0), rb.arg(data.args[3 - k]), u.into()],
                        &[Ty::U64, Ty::U1],
                    )
                    .to_vec();
                let second = rb
                    .new
                    .push(
                        Op::AddCarry { size: 64 },
                        vec![Operand::Const(0), first[0].into(), w.into()],
                        &[Ty::U64, Ty::U1],
                    )
                    .to_vec();
                rb.map[data.results[0].index()] = second[0].into();
                split.insert(data.results[1], (first[1].into(), second[1].into()));
                continue 'insts;
            }
        }
        // A sum reads a split carry as its two carries.
        let args: Vec<Operand> = if data.op == Op::Add {
            let mut args = Vec::with_capacity(data.args.len());
            for a in &data.args {
                match a.value().and_then(|v| split.get(&v)) {
                    Some(&(c1, c2)) => args.extend([c1, c2]),
                    None => args.push(rb.arg(*a)),
                }
            }
            args
        } else {
            rb.args(data)
        };
        rb.emit_like(data, data.op, args);
    }
    rb.new
}

/// Removes instructions whose results are never used (stores are always live).
pub fn dce(f: &Function) -> Function {
    let mut live = vec![false; f.insts.len()];
    for (k, d) in f.insts.iter().enumerate().rev() {
        if matches!(d.op, Op::Store { .. }) {
            live[k] = true;
        }
        if live[k] {
            for a in &d.args {
                if let Operand::Value(v) = a {
                    live[f.values[v.index()].def.index()] = true;
                }
            }
        }
    }
    let mut rb = Rebuild::new(f);
    for (k, d) in f.insts.iter().enumerate() {
        if live[k] {
            let args = rb.args(d);
            rb.emit_like(d, d.op, args);
        }
    }
    rb.new
}
