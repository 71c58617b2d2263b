//! Unsaturated Solinas arithmetic (Fiat's `unsaturated_solinas`) for `p = 2^k - c`.
//!
//! `c` is split into *taps*, `2^k ≡ Σ v·2^e (mod p)`: one tap `(0, c)` for a small `c`
//! (2^255 - 19), several where `c` has far-apart terms (`2^448 - 2^224 - 1` has the taps
//! `(224, 1)` and `(0, 1)`). Limb `i` has weight `W_i = ⌈k·i/n⌉`.
//!
//! `carry_mul`: every partial product `a_i·b_j` has weight `W_i + W_j`; while that is at
//! least `k` it is replaced by one term per tap (weight `- k + e`, coefficient `·v`); the
//! term then lands in the limb `l` with the largest `W_l` not above its weight, times
//! `2^(weight - W_l)`. A column is the sum of its terms, each `a_i · (b_j·κ)` with the
//! scaling done in 64 bits (Fiat's shape), or split between both factors, or applied to
//! the 128-bit product where 64 bits would overflow. Terms are summed in Fiat's
//! associational order, so that lowering shares the same partial sums as it does for
//! Fiat's code. Then the carry chain: at index `l`, `limb_{l+1} += limb_l >> width_l`,
//! `limb_l &= mask`; from the last limb the carry has weight `2^k` and goes to the taps'
//! limbs instead.
//!
//! All of it is generated with an exact bounds analysis: every value carries its upper
//! bound (inputs at their declared bounds), its type is the narrowest of `u1`/`u64`/
//! `u128` that holds the bound, and generation fails — with the reason — where a bound
//! would exceed 128 bits, where an output could exceed its declared bound, or where
//! `sub`'s balance is too small. The limb-count search ([`params`]) uses that failure.

use num_bigint::BigUint;
use num_traits::{One, ToPrimitive};

use std::collections::BTreeMap;

use cryptopt_ir::func::{Function, Op, Param, Ty};

use super::build::{Builder, Opnd};
use super::{FieldError, FieldOp};

/// One term `v·2^e` of `2^k ≡ Σ v·2^e (mod p)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Tap {
    pub e: u32,
    pub v: u64,
}

/// Parameters of one unsaturated representation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Params {
    pub k: u32,
    pub n: u32,
    /// `W_0 = 0, …, W_n = k`.
    pub weights: Vec<u32>,
    pub taps: Vec<Tap>,
    /// The limbs of `p` (`balance = 2·p_limbs`).
    pub p_limbs: Vec<u128>,
}

impl Params {
    pub fn width(&self, i: usize) -> u32 {
        self.weights[i + 1] - self.weights[i]
    }

    pub fn widths(&self) -> Vec<u32> {
        (0..self.n as usize).map(|i| self.width(i)).collect()
    }

    /// Tight upper bounds: `2^width` per limb (fiat-crypto 0.3.0's).
    pub fn tight(&self) -> Vec<u128> {
        self.widths().iter().map(|&w| 1u128 << w).collect()
    }

    /// Loose upper bounds: `3·2^width` per limb (tight + max(2·tight, balance)).
    pub fn loose(&self) -> Vec<u128> {
        self.widths().iter().map(|&w| 3u128 << w).collect()
    }

    /// The carry chain, as Fiat computes it: `0..n, 0, 1` for one tap; for several,
    /// chains interleaved from the limbs just below the taps.
    pub fn carry_chain(&self) -> Vec<usize> {
        let n = self.n as usize;
        if self.taps.len() < 2 {
            let mut c: Vec<usize> = (0..n).collect();
            c.extend([0, 1].iter().map(|&x| x % n));
            return c;
        }
        // Taps by decreasing weight: this order reproduces fiat-crypto's chain for p448.
        let mut by_weight: Vec<u32> = self.taps.iter().map(|t| t.e).collect();
        by_weight.sort_unstable_by(|a, b| b.cmp(a));
        let starts: Vec<usize> = by_weight
            .iter()
            .map(|&e| {
                // ⌊e / (k/n)⌋ - 1 mod n
                let q = (e as u64 * n as u64 / self.k as u64) as i64;
                (q - 1).rem_euclid(n as i64) as usize
            })
            .collect();
        let mut chain2: Vec<usize> = Vec::new();
        for step in 1..n {
            for &j in &starts {
                let x = (j + step) % n;
                if !chain2.contains(&x) {
                    chain2.push(x);
                }
            }
        }
        let chain3 = starts.iter().map(|&x| (x + 1) % n);
        starts.iter().copied().chain(chain2).chain(chain3).collect()
    }

    /// Where a term of weight `e` lands: (limb, coefficient) pairs after reduction.
    fn place(&self, e: u32, coef: u128, out: &mut Vec<(usize, u128)>) -> Result<(), FieldError> {
        if e >= self.k {
            for t in &self.taps {
                let c = coef.checked_mul(t.v as u128).ok_or_else(|| {
                    FieldError::compose("a reduction coefficient exceeds 128 bits")
                })?;
                self.place(e - self.k + t.e, c, out)?;
            }
            return Ok(());
        }
        let l = self.weights[..self.n as usize]
            .iter()
            .rposition(|&w| w <= e)
            .expect("W_0 = 0");
        let shift = e - self.weights[l];
        let c = if shift >= 128 {
            None
        } else {
            coef.checked_mul(1u128 << shift)
        };
        out.push((
            l,
            c.ok_or_else(|| FieldError::compose("a reduction coefficient exceeds 128 bits"))?,
        ));
        Ok(())
    }
}

/// `p = 2^k - c` with `c` split into taps (groups of set bits, split where 64 or more
/// zero bits separate them), highest first; an error if a tap is wider than 64 bits.
pub(crate) fn taps(p: &BigUint) -> Result<(u32, Vec<Tap>), FieldError> {
    let k = p.bits() as u32;
    let c = (BigUint::one() << k) - p;
    // Set bits of c, grouped.
    let bits: Vec<u32> = (0..c.bits() as u32).filter(|&b| c.bit(b as u64)).collect();
    let mut groups: Vec<(u32, u32)> = Vec::new(); // (lowest, highest)
    for &b in &bits {
        match groups.last_mut() {
            Some(g) if b - g.1 <= 64 => g.1 = b,
            _ => groups.push((b, b)),
        }
    }
    let mut out = Vec::new();
    for (lo, hi) in groups.into_iter().rev() {
        if hi - lo >= 64 {
            return Err(FieldError::compose(format!(
                "c = 2^{k} - p has a {}-bit term, and taps of at most 64 bits are supported",
                hi - lo + 1
            )));
        }
        let v = ((&c >> lo) & ((BigUint::one() << (hi - lo + 1)) - 1u32))
            .to_u64()
            .expect("at most 64 bits");
        out.push(Tap { e: lo, v });
    }
    Ok((k, out))
}

/// `2^k - Σ v·2^e`, as the user would write it.
pub(crate) fn form(k: u32, taps: &[Tap]) -> String {
    let mut s = format!("2^{k}");
    for t in taps {
        let v = if t.v < 1 << 32 {
            t.v.to_string()
        } else {
            format!("{:#x}", t.v)
        };
        let term = match (t.e, t.v) {
            (0, _) => v,
            (e, 1) => format!("2^{e}"),
            (e, _) => format!("{v}*2^{e}"),
        };
        s.push_str(" - ");
        s.push_str(&term);
    }
    s
}

/// "5 limbs of 51 bits", "3 limbs of 44/43 bits".
pub(crate) fn limbs_text(k: u32, n: u32) -> String {
    let w: Vec<u32> = (0..n)
        .map(|i| weight(k, n, i + 1) - weight(k, n, i))
        .collect();
    let (lo, hi) = (w.iter().min(), w.iter().max());
    match (lo, hi) {
        (Some(lo), Some(hi)) if lo == hi => format!("{n} limbs of {hi} bits"),
        (Some(lo), Some(hi)) => format!("{n} limbs of {hi}/{lo} bits"),
        _ => format!("{n} limbs"),
    }
}

fn weight(k: u32, n: u32, i: u32) -> u32 {
    (k as u64 * i as u64).div_ceil(n as u64) as u32
}

/// The representation with `n` limbs, if it works: every function generates without
/// overflow and within its bounds.
pub(crate) fn params(p: &BigUint, k: u32, taps: &[Tap], n: u32) -> Result<Params, FieldError> {
    if n == 0 || n > k {
        return Err(FieldError::compose(format!(
            "{n} limbs cannot hold {k} bits"
        )));
    }
    let weights: Vec<u32> = (0..=n).map(|i| weight(k, n, i)).collect();
    let widths: Vec<u32> = weights.windows(2).map(|w| w[1] - w[0]).collect();
    if let Some(&w) = widths.iter().max() {
        if w > 62 {
            return Err(FieldError::compose(format!(
                "limbs of {w} bits leave no headroom: the loose bound 3·2^{w} does not fit a 64-bit word"
            )));
        }
    }
    let p_limbs = (0..n as usize)
        .map(|i| {
            ((p >> weights[i]) & ((BigUint::one() << widths[i]) - 1u32))
                .to_u128()
                .expect("at most 62 bits")
        })
        .collect();
    let params = Params {
        k,
        n,
        weights,
        taps: taps.to_vec(),
        p_limbs,
    };
    for op in [FieldOp::Mul, FieldOp::Square, FieldOp::Sub] {
        emit(&params, "check", op)?;
    }
    Ok(params)
}

/// Generates `op` as `fiat_{prefix}_...`.
pub(crate) fn generate(spec: &super::FieldSpec, op: FieldOp) -> Result<Function, FieldError> {
    let params = spec
        .solinas_params()
        .expect("a Solinas spec has parameters");
    let b = emit(params, &spec.name, op).map_err(|e| FieldError::Internal {
        function: spec.function_name(op),
        message: e.to_string(),
    })?;
    b.finish()
}

/// A value and its upper bound.
#[derive(Clone, Copy, Debug)]
pub(crate) struct B {
    pub o: Opnd,
    pub max: u128,
}

/// The narrowest of `u1`, `u64`, `u128` that holds `max`.
pub(crate) fn ty_for(max: u128) -> Ty {
    if max <= 1 {
        Ty::U1
    } else if max <= u64::MAX as u128 {
        Ty::U64
    } else {
        Ty::U128
    }
}

/// The builder with the bounds-checked operations the field functions (and the curve
/// formulas, `crate::formulas`) are made of.
pub(crate) struct Gen {
    pub b: Builder,
}

impl Gen {
    /// A product, in 128 bits (Fiat's columns are `u128`).
    pub fn mul(&mut self, x: B, y: B) -> Result<B, FieldError> {
        let max = x
            .max
            .checked_mul(y.max)
            .ok_or_else(|| FieldError::compose("a partial product exceeds 128 bits"))?;
        Ok(B {
            o: self.b.op1(Op::Mul, &[x.o, y.o], Ty::U128),
            max,
        })
    }

    /// `x·k` in 64 bits; the caller checked that it fits.
    fn scale(&mut self, x: B, k: u128) -> B {
        let max = x.max * k;
        debug_assert!(max <= u64::MAX as u128);
        B {
            o: self.b.op1(Op::Mul, &[x.o, Opnd::K(k)], Ty::U64),
            max,
        }
    }

    /// A sum, right-nested as Fiat writes it; `Err` if it could exceed 128 bits.
    pub fn add(&mut self, xs: &[B]) -> Result<B, FieldError> {
        if xs.len() == 1 {
            return Ok(xs[0]);
        }
        let mut max = 0u128;
        for x in xs {
            max = max
                .checked_add(x.max)
                .ok_or_else(|| FieldError::compose("a column sum exceeds 128 bits"))?;
        }
        // Right-nested binary sums, `x0 + (x1 + (… + xn))`, as Fiat writes them: the
        // equivalence checker matches carry chains in the association the code has, and
        // lowering turns each binary u128 sum into one add/adc pair.
        let mut acc = xs[xs.len() - 1];
        for x in xs[..xs.len() - 1].iter().rev() {
            let m = acc.max + x.max;
            acc = B {
                o: self.b.op1(Op::Add, &[x.o, acc.o], ty_for(m).max(Ty::U64)),
                max: m,
            };
        }
        debug_assert_eq!(acc.max, max);
        Ok(acc)
    }
}

/// Builds `op`; `Err` says why the representation cannot do it.
fn emit(p: &Params, prefix: &str, op: FieldOp) -> Result<Builder, FieldError> {
    let n = p.n as usize;
    let (tight, loose) = (p.tight(), p.loose());
    let arr = |name: &str, ub: &[u128]| Param::array(name, Ty::U64, ub);
    let (fname, in_b, out_b) = match op {
        FieldOp::Mul => ("carry_mul", &loose, &tight),
        FieldOp::Square => ("carry_square", &loose, &tight),
        FieldOp::Add => ("add", &tight, &loose),
        FieldOp::Sub => ("sub", &tight, &loose),
        FieldOp::Opp => ("opp", &tight, &loose),
    };
    let params: Vec<Param> = (1..=op.arity())
        .map(|k| arr(&format!("arg{k}"), in_b))
        .collect();
    let mut g = Gen {
        b: Builder::new(
            format!("fiat_{prefix}_{fname}"),
            params,
            vec![arr("out1", out_b)],
        ),
    };
    let arg = |a: u32, i: usize| B {
        o: Opnd::Arg(a, i as u32),
        max: in_b[i],
    };
    let outs: Vec<B> = match op {
        FieldOp::Mul | FieldOp::Square => carry_mul(&mut g, p, op == FieldOp::Square, &arg)?,
        FieldOp::Add => (0..n)
            .map(|i| {
                let (x, y) = (arg(0, i), arg(1, i));
                g.add(&[x, y])
            })
            .collect::<Result<_, _>>()?,
        FieldOp::Sub | FieldOp::Opp => {
            let mut outs = Vec::with_capacity(n);
            for (i, (&limb, &bound)) in p.p_limbs.iter().zip(in_b.iter()).enumerate() {
                let bal = 2 * limb;
                if bal < bound {
                    return Err(FieldError::compose(format!(
                        "limb {i} of 2p ({bal:#x}) is below the tight bound {bound:#x}, so sub could go negative"
                    )));
                }
                let minuend = if op == FieldOp::Sub {
                    g.add(&[
                        B {
                            o: Opnd::K(bal),
                            max: bal,
                        },
                        arg(0, i),
                    ])?
                } else {
                    B {
                        o: Opnd::K(bal),
                        max: bal,
                    }
                };
                let sub = if op == FieldOp::Sub {
                    arg(1, i)
                } else {
                    arg(0, i)
                };
                outs.push(B {
                    o: g.b.op1(Op::Sub, &[minuend.o, sub.o], Ty::U64),
                    max: minuend.max,
                });
            }
            outs
        }
    };
    for (i, x) in outs.iter().enumerate() {
        if x.max > out_b[i] {
            return Err(FieldError::compose(format!(
                "limb {i} of {fname}'s output may reach {:#x}, above its bound {:#x}",
                x.max, out_b[i]
            )));
        }
    }
    for (i, x) in outs.into_iter().enumerate() {
        g.b.store(0, i as u32, x.o);
    }
    Ok(g.b)
}

/// Columns, then the carry chain; returns the output limbs. `arg(0, i)` and `arg(1, i)`
/// are limb `i` of the two factors (only `arg(0, _)` is read for a square).
pub(crate) fn carry_mul(
    g: &mut Gen,
    p: &Params,
    square: bool,
    arg: &dyn Fn(u32, usize) -> B,
) -> Result<Vec<B>, FieldError> {
    let n = p.n as usize;
    // The partial products in Fiat's associational order: (i, j) row by row, then
    // repeatedly `lo ++ taps × hi` until no weight reaches 2^k. Reduction paths stay
    // apart (2^448 - 2^224 - 1 sends some products to a limb twice, and Fiat adds such
    // a product twice rather than scaling it by 2).
    let mut terms: Vec<(u32, usize, usize, u128)> = Vec::new(); // (weight, i, j, κ)
    for i in 0..n {
        for j in 0..n {
            if square && j < i {
                continue;
            }
            let factor = if square && i != j { 2 } else { 1 };
            terms.push((p.weights[i] + p.weights[j], i, j, factor));
        }
    }
    while terms.iter().any(|t| t.0 >= p.k) {
        let (hi, mut lo): (Vec<_>, Vec<_>) = terms.into_iter().partition(|t| t.0 >= p.k);
        for tap in &p.taps {
            for &(e, i, j, c) in &hi {
                let c = c.checked_mul(tap.v as u128).ok_or_else(|| {
                    FieldError::compose("a reduction coefficient exceeds 128 bits")
                })?;
                lo.push((e - p.k + tap.e, i, j, c));
            }
        }
        terms = lo;
    }
    // Columns; Fiat folds from the right, so the last term is the innermost: reversed
    // here, where the column sum is one n-ary `+` that lowering folds from the left.
    let mut cols: Vec<Vec<(usize, usize, u128)>> = vec![Vec::new(); n];
    let mut placed = Vec::new();
    for &(e, i, j, c) in terms.iter().rev() {
        placed.clear();
        p.place(e, c, &mut placed)?;
        for &(l, c) in &placed {
            cols[l].push((i, j, c));
        }
    }
    let second = if square { 0 } else { 1 };
    // Scaled limbs `b_j·κ` and products, each computed once.
    let mut scaled: BTreeMap<(u32, usize, u128), B> = BTreeMap::new();
    let mut products: BTreeMap<(usize, usize, u128), B> = BTreeMap::new();
    let mut limbs: Vec<B> = Vec::with_capacity(n);
    for col in &cols {
        let mut terms = Vec::with_capacity(col.len());
        for &(i, j, kappa) in col {
            if let Some(&t) = products.get(&(i, j, kappa)) {
                terms.push(t);
                continue;
            }
            let (x, y) = (arg(0, i), arg(second, j));
            // Scale one factor by κ in 64 bits, or each by a part of κ (its power of two
            // and its odd part), or else scale the 128-bit product.
            let fits = |b: &B, k: u128| b.max.checked_mul(k).is_some_and(|m| m <= u64::MAX as u128);
            let two = 1u128 << kappa.trailing_zeros();
            let split = [
                (1, kappa),
                (kappa, 1),
                (two, kappa / two),
                (kappa / two, two),
            ]
            .into_iter()
            .find(|&(kx, ky)| fits(&x, kx) && fits(&y, ky));
            let t = match split {
                Some((kx, ky)) => {
                    let mut scaled_by = |which: u32, idx: usize, b: B, k: u128| {
                        if k == 1 {
                            b
                        } else {
                            *scaled
                                .entry((which, idx, k))
                                .or_insert_with(|| g.scale(b, k))
                        }
                    };
                    let sy = scaled_by(second, j, y, ky);
                    let sx = scaled_by(0, i, x, kx);
                    g.mul(sx, sy)?
                }
                None => {
                    let xy = g.mul(x, y)?;
                    g.mul(
                        xy,
                        B {
                            o: Opnd::K(kappa),
                            max: kappa,
                        },
                    )?
                }
            };
            products.insert((i, j, kappa), t);
            terms.push(t);
        }
        limbs.push(if terms.is_empty() {
            B {
                o: Opnd::K(0),
                max: 0,
            }
        } else {
            g.add(&terms)?
        });
    }
    carry(g, p, limbs)
}

/// Fiat's carry chain on `limbs` (see [`Params::carry_chain`]): at each step a limb keeps
/// its low `width` bits and passes the rest to the next limb, the top limb's to the
/// taps' limbs. `Err` if a sum could exceed 128 bits.
pub(crate) fn carry(g: &mut Gen, p: &Params, mut limbs: Vec<B>) -> Result<Vec<B>, FieldError> {
    let n = p.n as usize;
    // The carry reduction targets: a carry out of the top limb has weight 2^k.
    let mut top = Vec::new();
    p.place(p.k, 1, &mut top)?;
    for l in p.carry_chain() {
        let w = p.width(l);
        let x = limbs[l];
        let cmax = x.max >> w;
        let carry = B {
            o: g.b.op1(Op::Shr, &[x.o, Opnd::K(w as u128)], ty_for(cmax)),
            max: cmax,
        };
        let mask = (1u128 << w) - 1;
        let low_max = x.max.min(mask);
        limbs[l] = B {
            o: g.b
                .op1(Op::And, &[x.o, Opnd::K(mask)], ty_for(low_max).max(Ty::U64)),
            max: low_max,
        };
        if l + 1 < n {
            limbs[l + 1] = g.add(&[carry, limbs[l + 1]])?;
        } else {
            for &(t, kappa) in &top {
                let c = if kappa == 1 {
                    carry
                } else {
                    let max = carry
                        .max
                        .checked_mul(kappa)
                        .ok_or_else(|| FieldError::compose("a carry times c exceeds 128 bits"))?;
                    B {
                        o: g.b.op1(
                            Op::Mul,
                            &[carry.o, Opnd::K(kappa)],
                            ty_for(max).max(Ty::U64),
                        ),
                        max,
                    }
                };
                limbs[t] = g.add(&[limbs[t], c])?;
            }
        }
    }
    Ok(limbs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fields::parse_prime;

    fn params_of(s: &str, n: u32) -> Result<Params, FieldError> {
        let p = parse_prime(s).unwrap();
        let (k, t) = taps(&p)?;
        params(&p, k, &t, n)
    }

    /// Fiat's computed values (fiat-crypto 0.3.0 file headers): limb weights and carry
    /// chains.
    #[test]
    fn weights_and_chains_match_fiat() {
        let cases: &[(&str, u32, &[u32], &[usize])] = &[
            (
                "2^255 - 19",
                5,
                &[0, 51, 102, 153, 204, 255],
                &[0, 1, 2, 3, 4, 0, 1],
            ),
            ("2^130 - 5", 3, &[0, 44, 87, 130], &[0, 1, 2, 0, 1]),
            (
                "2^521 - 1",
                9,
                &[0, 58, 116, 174, 232, 290, 348, 406, 464, 521],
                &[0, 1, 2, 3, 4, 5, 6, 7, 8, 0, 1],
            ),
            (
                "2^448 - 2^224 - 1",
                8,
                &[0, 56, 112, 168, 224, 280, 336, 392, 448],
                &[3, 7, 4, 0, 5, 1, 6, 2, 7, 3, 4, 0],
            ),
        ];
        for &(s, n, w, chain) in cases {
            let p = params_of(s, n).unwrap();
            assert_eq!(p.weights, w, "{s}");
            assert_eq!(p.carry_chain(), chain, "{s}");
        }
    }

    #[test]
    fn taps_and_forms() {
        let cases: &[(&str, &str)] = &[
            ("2^255 - 19", "2^255 - 19"),
            ("2^448 - 2^224 - 1", "2^448 - 2^224 - 1"),
            ("2^521 - 1", "2^521 - 1"),
            ("2^256 - 2^32 - 977", "2^256 - 0x1000003d1"),
            ("2^200 - 3*2^100 - 5", "2^200 - 3*2^100 - 5"),
        ];
        for (s, want) in cases {
            let (k, t) = taps(&parse_prime(s).unwrap()).unwrap();
            assert_eq!(form(k, &t), *want);
        }
        let e = taps(&parse_prime("2^224 - 2^96 + 1").unwrap()).unwrap_err();
        assert!(e.to_string().contains("has a 96-bit term"), "{e}");
    }

    #[test]
    fn limb_counts_that_do_not_fit() {
        let e = params_of("2^255 - 19", 4).unwrap_err();
        assert!(e.to_string().contains("64 bits leave no headroom"), "{e}");
        // 2^521 - 1 in 8 limbs: 66-bit limbs.
        assert!(params_of("2^521 - 1", 8).is_err());
        assert_eq!(limbs_text(255, 4), "4 limbs of 64/63 bits");
        assert_eq!(limbs_text(256, 4), "4 limbs of 64 bits");
        assert_eq!(limbs_text(130, 3), "3 limbs of 44/43 bits");
    }
}
