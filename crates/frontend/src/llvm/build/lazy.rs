//! Incomplete reduction (issue 17): which values are only ever used modulo a constant
//! (`mod_only`, with clang's own `x mod P` idiom recognized by `idioms`), and the
//! building of instructions on such values (`Builder::lazy_inst`): held as exact
//! integers congruent to their LLVM value, reduced completely only where a value is
//! observed. This module must never hold a value incompletely reduced unless every use
//! of it is congruence-preserving (the soundness argument is on `lazy_inst`).

use std::collections::{HashMap, HashSet};

use num_bigint::BigUint;
use num_traits::Zero;

use super::super::syntax::{Arg, BinOp, CastOp, Inst, Kind, Pred, Type};
use super::super::wide::{bits_for, max_of, Wide};
use super::{int_bits, literal, operands, Builder, Fail, Val};

impl Builder {
    /// An operand of an operation on residues: a lazy value as it is held, else the
    /// value (or literal) as an exact `bits`-bit integer.
    fn residue(&self, a: &Arg, bits: u32, line: usize) -> Result<Wide, Fail> {
        match a {
            Arg::Local(n) if self.lazy.contains_key(n) => match self.env.get(n) {
                Some(Val::Int(w)) => Ok(w.clone()),
                _ => Err((line, format!("internal error: %{n} is not an integer"))),
            },
            _ => self.int(a, bits, line),
        }
    }

    fn is_lazy(&self, a: &Arg) -> bool {
        matches!(a, Arg::Local(n) if self.lazy.contains_key(n))
    }

    /// Incomplete reduction (issue 17): an instruction on values kept incompletely
    /// reduced, or an `urem` whose result is only used modulo its divisor. Returns
    /// whether it handled the instruction.
    ///
    /// Why sound: a lazy value `v'` satisfies `v' ≡ v (mod P)` for the LLVM value `v`,
    /// and every use of `v` is (transitively) an operation that is congruence-preserving
    /// when computed exactly — `zext`, `trunc nuw`, `freeze`, `add nuw`, `mul nuw`,
    /// `sub nuw` (the `nuw` says LLVM's result is the exact integer, not wrapped) —
    /// ending in `urem` by `P`, which maps congruent values to the same result. Here
    /// those operations are computed on exact integers as wide as their bounds need (a
    /// subtraction adds a multiple of `P` that keeps it non-negative), so each lazy
    /// result is congruent to the LLVM value, and the final `urem` is complete.
    pub(super) fn lazy_inst(&mut self, inst: &Inst) -> Result<bool, Fail> {
        let line = inst.line;
        let Some(r) = inst.result.clone() else {
            return Ok(false);
        };
        // An intermediate of an idiom on a lazy x: the idiom's result stands for it.
        if let Some((_, x, _)) = self.idioms.of_inner(&r) {
            if self.lazy.contains_key(x) {
                return Ok(true);
            }
        }
        let wanted = self.mod_only.get(&r).cloned();
        // The bound of the LLVM value of an operand.
        let tu = |b: &Builder, a: &Arg, bits: u32| -> Result<BigUint, Fail> {
            match a {
                Arg::Local(n) if b.lazy.contains_key(n) => Ok(b.lazy[n].clone()),
                _ => Ok(b.int(a, bits, line)?.ub),
            }
        };
        // A reduction of x by P (and whether x is lazy): clang's idiom on a lazy x, or
        // an `urem`.
        let reduction = match &inst.kind {
            Kind::Bin {
                op: BinOp::And,
                ty: Type::Int(bits),
                ..
            } => match self.idioms.by_result.get(&r) {
                Some((x, p)) if self.lazy.contains_key(x) => {
                    let (x, p) = (x.clone(), p.clone());
                    if self.lazy[&x] >= &p * 2u32 {
                        self.retry = Some(r);
                        return Err((line, "retry without the idiom".into()));
                    }
                    Some((self.residue(&Arg::Local(x), *bits, line)?, p, *bits, true))
                }
                _ => None,
            },
            Kind::Bin {
                op: BinOp::Urem,
                ty,
                a,
                b: Arg::Int(d),
                ..
            } if self.is_lazy(a) || wanted.is_some() => {
                let bits = int_bits(ty, line, "urem")?;
                let x = self.residue(a, bits, line)?;
                Some((x, literal(d, bits), bits, self.is_lazy(a)))
            }
            _ => None,
        };
        let (v, truth) = if let Some((x, p, bits, x_lazy)) = reduction {
            let complete = wanted.as_ref() != Some(&p);
            let Some(v) = self.e.reduce(&x, &p, bits, complete) else {
                // Not a modulus Crandall reduction takes: a plain `urem` refuses it.
                if x_lazy {
                    return Err((line, format!("cannot reduce by {p}")));
                }
                return Ok(false);
            };
            if complete {
                self.define(inst, Val::Int(v));
                return Ok(true);
            }
            (v, &p - 1u32)
        } else {
            match &inst.kind {
                Kind::Bin {
                    op: op @ (BinOp::Add | BinOp::Sub | BinOp::Mul),
                    nuw: true,
                    ty,
                    a,
                    b,
                } if self.is_lazy(a) || self.is_lazy(b) => {
                    let Some(p) = wanted.as_ref() else {
                        return Err((line, "internal error: a residue escapes".to_string()));
                    };
                    let bits = int_bits(ty, line, "arithmetic")?;
                    let x = self.residue(a, bits, line)?;
                    let y = self.residue(b, bits, line)?;
                    let (ta, tb) = (tu(self, a, bits)?, tu(self, b, bits)?);
                    let top = max_of(bits);
                    match op {
                        // A multiple of P added (C's `a + P - b`) is congruent to none.
                        BinOp::Add if multiple_of(&y, p) => (x, (ta + tb).min(top)),
                        BinOp::Add if multiple_of(&x, p) => (y, (ta + tb).min(top)),
                        BinOp::Add => {
                            let w = bits_for(&(&x.ub + &y.ub));
                            (self.e.add(&x, &y, w).0, (ta + tb).min(top))
                        }
                        BinOp::Mul => {
                            let w = bits_for(&(&x.ub * &y.ub));
                            (self.e.mul(&x, &y, w), (ta * tb).min(top))
                        }
                        // x - y wrapped at the word boundary (Emit::sub_mod), else
                        // x + k·P - y with k·P ≥ y: non-negative, congruent to x - y.
                        _ => match self.e.sub_mod(&x, &y, p) {
                            Some(d) => (d, ta),
                            None => {
                                let k = (&y.ub + p - 1u32) / p;
                                let kp = &k * p;
                                let ub = &x.ub + &kp;
                                let w = bits_for(&ub);
                                let kpw = Wide::constant(&kp, bits_for(&kp));
                                let (s, _) = self.e.add(&x, &kpw, w);
                                let (mut d, _) = self.e.sub(&s, &y, w);
                                d.ub = ub;
                                (d, ta)
                            }
                        },
                    }
                }
                Kind::Cast {
                    op: CastOp::Zext,
                    x,
                    ..
                }
                | Kind::Cast {
                    op: CastOp::Trunc,
                    nuw: true,
                    x,
                    ..
                }
                | Kind::Freeze { x, .. }
                    if self.is_lazy(x) =>
                {
                    (self.residue(x, 0, line)?, tu(self, x, 0)?)
                }
                _ => return Ok(false),
            }
        };
        if wanted.is_none() {
            return Err((line, "internal error: a residue escapes".to_string()));
        }
        self.lazy.insert(r, truth);
        self.define(inst, Val::Int(v));
        Ok(true)
    }
}

/// Whether `w` is a literal multiple of `p` (zero included).
fn multiple_of(w: &Wide, p: &BigUint) -> bool {
    w.as_const().is_some_and(|c| (c % p).is_zero())
}

/// Who uses each value: the indices of the instructions that read it.
pub(super) fn users(body: &[Inst]) -> HashMap<&str, Vec<usize>> {
    let mut users: HashMap<&str, Vec<usize>> = HashMap::new();
    for (k, inst) in body.iter().enumerate() {
        for a in operands(&inst.kind) {
            if let Arg::Local(n) = a {
                users.entry(n.as_str()).or_default().push(k);
            }
        }
    }
    users
}

/// clang's rewrite of `x % P` for `x < 2P` (`P = 2^n - k`): `(x <u P ? x : x + k) &
/// (2^n - 1)`, five instructions with single-use intermediates. With `x` held
/// incompletely reduced it is built as the reduction of `x` it computes, once
/// `x < 2P` is shown from the bounds of the LLVM values (else the build starts again
/// with the idiom built as written).
#[derive(Default)]
pub(super) struct Idioms {
    /// By the `and`'s result: `x` and `P`.
    by_result: HashMap<String, (String, BigUint)>,
    /// The intermediates (the compare, the sum, the select) by name: their idiom's result.
    inner: HashMap<String, String>,
}

impl Idioms {
    /// The idiom (result, x, P) that `name` is an intermediate of.
    fn of_inner(&self, name: &str) -> Option<(&str, &str, &BigUint)> {
        let r = self.inner.get(name)?;
        let (x, p) = self.by_result.get(r)?;
        Some((r.as_str(), x.as_str(), p))
    }
}

pub(super) fn idioms(
    body: &[Inst],
    users: &HashMap<&str, Vec<usize>>,
    disabled: &HashSet<String>,
) -> Idioms {
    let def: HashMap<&str, &Kind> = body
        .iter()
        .filter_map(|i| Some((i.result.as_deref()?, &i.kind)))
        .collect();
    let once = |n: &str| users.get(n).is_some_and(|u| u.len() == 1);
    let mut out = Idioms::default();
    for inst in body {
        let (
            Some(y),
            Kind::Bin {
                op: BinOp::And,
                ty: Type::Int(bits),
                a: Arg::Local(sel),
                b: Arg::Int(mask),
                ..
            },
        ) = (&inst.result, &inst.kind)
        else {
            continue;
        };
        if disabled.contains(y) || !once(sel) {
            continue;
        }
        let mask = literal(mask, *bits);
        let n = mask.bits() as u32;
        if mask != max_of(n) || n + 1 > *bits {
            continue;
        }
        let Some(Kind::Select {
            cond: Arg::Local(c),
            t: Arg::Local(x),
            f: Arg::Local(xk),
            ..
        }) = def.get(sel.as_str())
        else {
            continue;
        };
        let (
            Some(Kind::Icmp {
                pred: Pred::Ult,
                a: Arg::Local(x1),
                b: Arg::Int(p),
                ..
            }),
            Some(Kind::Bin {
                op: BinOp::Add,
                a: Arg::Local(x2),
                b: Arg::Int(k),
                ..
            }),
        ) = (def.get(c.as_str()), def.get(xk.as_str()))
        else {
            continue;
        };
        let (p, k) = (literal(p, *bits), literal(k, *bits));
        if x1 != x || x2 != x || !once(c) || !once(xk) || k.is_zero() || &p + &k != max_of(n) + 1u32
        {
            continue;
        }
        out.by_result.insert(y.clone(), (x.clone(), p));
        for i in [c, xk, sel] {
            out.inner.insert(i.clone(), y.clone());
        }
    }
    out
}

/// The values only ever used modulo one constant `P`: every use is the dividend of an
/// `urem` by `P` (or the `x` of an [`Idioms`] `x mod P`), or a `zext`, `trunc nuw`,
/// `freeze`, `add nuw`, `sub nuw` or `mul nuw`
/// whose result is itself only used modulo `P` (computed from the last instruction up,
/// so a value's uses are decided before it). Such a value may be held incompletely
/// reduced ([`Builder::lazy_inst`]).
pub(super) fn mod_only(
    body: &[Inst],
    users: &HashMap<&str, Vec<usize>>,
    idioms: &Idioms,
) -> HashMap<String, BigUint> {
    let mut out: HashMap<String, BigUint> = HashMap::new();
    for inst in body.iter().rev() {
        let Some(r) = &inst.result else { continue };
        let Some(us) = users.get(r.as_str()) else {
            continue;
        };
        let mut modulus: Option<BigUint> = None;
        let mut all = true;
        for &u in us {
            let user = &body[u];
            let through = || user.result.as_ref().and_then(|x| out.get(x)).cloned();
            let idiom = user
                .result
                .as_ref()
                .and_then(|u| idioms.of_inner(u))
                .filter(|&(_, x, _)| x == r);
            let m = match &user.kind {
                _ if idiom.is_some() => idiom.map(|(_, _, p)| p.clone()),
                Kind::Bin {
                    op: BinOp::Urem,
                    ty: Type::Int(bits),
                    a: Arg::Local(x),
                    b: Arg::Int(d),
                    ..
                } if x == r && d.sign() == num_bigint::Sign::Plus => {
                    let p = literal(d, *bits);
                    (p.count_ones() > 1).then_some(p)
                }
                Kind::Bin {
                    op: BinOp::Add | BinOp::Sub | BinOp::Mul,
                    nuw: true,
                    ..
                }
                | Kind::Cast {
                    op: CastOp::Zext, ..
                }
                | Kind::Cast {
                    op: CastOp::Trunc,
                    nuw: true,
                    ..
                }
                | Kind::Freeze { .. } => through(),
                _ => None,
            };
            match (m, &modulus) {
                (Some(m), None) => modulus = Some(m),
                (Some(m), Some(q)) if m == *q => {}
                _ => {
                    all = false;
                    break;
                }
            }
        }
        if let (true, Some(m)) = (all, modulus) {
            out.insert(r.clone(), m);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use num_bigint::BigUint;

    /// `a² · a mod p` (p = 2^255 - 19) through one intermediate `urem`; with `store_t`
    /// the intermediate is also stored (observed), so it must be reduced completely.
    fn cube(store_t: bool) -> String {
        let p = "57896044618658097711785492504343953926634992332820282019728792003956564819949";
        let outs = if store_t { "ptr %t, " } else { "" };
        let st = if store_t {
            "  %tt = trunc nuw i510 %r1 to i256\n  store i256 %tt, ptr %t\n"
        } else {
            ""
        };
        format!(
            "define void @cube(ptr %r, {outs}ptr %a) {{\n  %x = load i256, ptr %a\n  %m = lshr i256 %x, 1\n  %w = zext i256 %m to i510\n  %s = mul nuw i510 %w, %w\n  %r1 = urem i510 %s, {p}\n{st}  %c = mul nuw i510 %r1, %w\n  %r2 = urem i510 %c, {p}\n  %o = trunc nuw i510 %r2 to i256\n  store i256 %o, ptr %r\n  ret void\n}}\n"
        )
    }

    fn words(v: &BigUint) -> Vec<u128> {
        let d = v.to_u64_digits();
        (0..4)
            .map(|i| d.get(i).copied().unwrap_or(0) as u128)
            .collect()
    }

    #[test]
    fn an_intermediate_only_used_mod_p_is_reduced_incompletely() {
        let lazy = crate::llvm::parse_function(&cube(false), "cube").unwrap();
        let full = crate::llvm::parse_function(&cube(true), "cube").unwrap();
        // The lazy intermediate skips the step at bit 255 and the final subtraction.
        assert!(
            lazy.insts.len() + 12 < full.insts.len(),
            "{} vs {}",
            lazy.insts.len(),
            full.insts.len()
        );
        let p = (BigUint::from(1u32) << 255u32) - 19u32;
        let cases = [
            BigUint::from(0u32),
            BigUint::from(3u32),
            (BigUint::from(1u32) << 256u32) - 1u32,
            &p + 5u32,
            BigUint::parse_bytes(
                b"123456789abcdef0fedcba9876543210f0e1d2c3b4a5968778695a4b3c2d1e0f",
                16,
            )
            .unwrap(),
        ];
        for a in cases {
            let m = &a >> 1u32;
            let want = (&m * &m * &m) % &p;
            let got = cryptopt_ir::interp::run(&lazy, &[words(&a)]).unwrap();
            assert_eq!(got[0], words(&want), "a = {a:x}");
            let got = cryptopt_ir::interp::run(&full, &[words(&a)]).unwrap();
            assert_eq!(got[0], words(&want), "a = {a:x}");
        }
    }
}
