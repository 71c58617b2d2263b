//! The X25519 ladder step computed four field operations at a time, in the vector
//! dialect ([`cryptopt_ir::vector`]): AVX-512 IFMA's 52-bit multiply-adds on four 64-bit
//! lanes, the four lanes holding x2, z2, x3, z3.
//!
//! Elements are five limbs of radix 2^51 (the 5×51 representation, limbs below 2^52, the
//! multiply-adds' operand width). Limb k of the four lanes is one vector value; the
//! step gathers them from the 5×51 step's arguments and scatters them back, so it has
//! that step's signature. One step (RFC 7748 §5, the swap folded in) is three rounds of four
//! products and a multiplication by a24:
//!
//! ```text
//!   S = swap? [x3, z3, x2, z2] : [x2, z2, x3, z3]
//!   T = [A, B', C, D'] = [x2 + z2, z2 − x2, x3 + z3, z3 − x3]       (B' = −B, D' = −D)
//!   W = [A, B', D', C] ∘ [A, B', A, B'] = [AA, BB, −DA, −CB]
//!   Y = [E, ·, s, t]   = [AA − BB, ·, −DA − CB, DA − CB]           (s² = (DA + CB)²)
//!   F = AA + a24·E
//!   M = [AA, E, s, t] ∘ [BB, F, s, t]  = [x2', z2', x3', t²]
//!   R = M ∘ [1, 1, 1, x1]              = [x2', z2', x3', z3']
//! ```
//!
//! A product of two elements is 25 low and 25 high multiply-adds into ten columns (a
//! high half weighs 2^52 = 2·2^51, so the high columns are doubled), the upper five
//! columns folded down times 19 (2^255 ≡ 19), and two rounds of parallel carries (each
//! limb keeps 51 bits and passes the rest up; the top limb's carry comes back times 19)
//! that bring every limb below 2^52 again. A difference adds 4p first so it cannot go
//! below zero. The builder of the dialect checks every bound as the step is built:
//! operands of the multiply-adds below 2^52, no sum or product above 2^64, no difference
//! below zero.
//!
//! This module must never branch on data or address memory by it: the swap is a mask.

use cryptopt_ir::vector::{Builder, VFunction, VVal};

use super::Formula;
use crate::fields::{FieldError, FieldSpec};
use cryptopt_ir::{Param, Ty};

/// Limbs of an element.
const N: usize = 5;

/// The limbs of four elements, one per lane.
type Fe4 = [VVal; N];

/// RFC 7748's a24 = 121665, in `z2 = E·(AA + a24·E)`.
const A24: u64 = 121_665;

/// 4p limb by limb: what a difference adds so that it stays non-negative.
const FOUR_P: [u64; N] = [
    (1 << 53) - 76,
    (1 << 53) - 4,
    (1 << 53) - 4,
    (1 << 53) - 4,
    (1 << 53) - 4,
];

/// The largest limb of an element in and out: the multiply-adds' operand width.
pub const LIMB_MAX: u128 = (1 << 52) - 1;

/// The builder and the constants every operation uses (one value each).
struct Lanes {
    b: Builder,
    m51: VVal,
    c19: VVal,
    zero: VVal,
    four_p: Fe4,
}

impl Lanes {
    /// One round of parallel carries: limb k keeps its low 51 bits and gets limb k−1's
    /// carry; limb 0 gets 19 times limb 4's (a multiply-add: the carry is below 2^13).
    fn carry(&mut self, x: Fe4) -> Result<Fe4, FieldError> {
        let mut c = [self.zero; N];
        let mut m = [self.zero; N];
        for k in 0..N {
            c[k] = self.b.shr(x[k], 51)?;
            m[k] = self.b.and(x[k], self.m51)?;
        }
        let mut r = [self.zero; N];
        // The top carry is small (the builder checks it is below 2^52): one multiply-add
        // takes 19 times it into limb 0, exactly.
        r[0] = self.b.madd52(m[0], c[N - 1], self.c19, false)?;
        for k in 1..N {
            r[k] = self.b.add(m[k], c[k - 1])?;
        }
        Ok(r)
    }

    /// Lane by lane `a + b` (`a − b + 4p` with `minus` where `minus[lane]`), carried.
    fn add_sub(&mut self, a: Fe4, b: Fe4, minus: [bool; 4]) -> Result<Fe4, FieldError> {
        let mut r = [self.zero; N];
        for k in 0..N {
            let neg = self.b.sub(self.four_p[k], b[k])?;
            let q = self.b.blend(b[k], neg, minus);
            r[k] = self.b.add(a[k], q)?;
        }
        self.carry(r)
    }

    /// The four lanes' products, limbs below 2^52 again.
    /// Column by column (product scanning), column k beside column k + 5 and folded
    /// into it at once, so that few sums are live at a time: the search's first order.
    fn mul(&mut self, a: Fe4, b: Fe4) -> Result<Fe4, FieldError> {
        let mut r = [self.zero; N];
        for (k, rk) in r.iter_mut().enumerate() {
            let low = self.product_column(a, b, k)?;
            let high = self.product_column(a, b, k + N)?;
            let folded = self.b.mul_lo(high, self.c19)?;
            *rk = self.b.add(low, folded)?;
        }
        let r = self.carry(r)?;
        self.carry(r)
    }

    /// Column `k` of the product: the low halves of the `a[i]·b[j]` with `i + j = k`
    /// plus twice the high halves of those with `i + j = k − 1`.
    fn product_column(&mut self, a: Fe4, b: Fe4, k: usize) -> Result<VVal, FieldError> {
        let mut lo = None;
        let mut hi = None;
        for (i, &ai) in a.iter().enumerate() {
            if let Some(j) = k.checked_sub(i).filter(|&j| j < N) {
                let acc = lo.unwrap_or(self.zero);
                lo = Some(self.b.madd52(acc, ai, b[j], false)?);
            }
            if let Some(j) = (k + N).checked_sub(i + 1 + N).filter(|&j| j < N) {
                let acc = hi.unwrap_or(self.zero);
                hi = Some(self.b.madd52(acc, ai, b[j], true)?);
            }
        }
        self.column(lo, hi)
    }

    /// A column's value: its low halves plus twice its high halves.
    fn column(&mut self, lo: Option<VVal>, hi: Option<VVal>) -> Result<VVal, FieldError> {
        Ok(match (lo, hi) {
            (Some(l), Some(h)) => {
                let h2 = self.b.add(h, h)?;
                self.b.add(l, h2)?
            }
            (Some(l), None) => l,
            (None, Some(h)) => self.b.add(h, h)?,
            (None, None) => self.zero,
        })
    }

    /// The four lanes times the one-limb constants `k` (below 2^52), carried.
    fn mul_small(&mut self, a: Fe4, k: VVal) -> Result<Fe4, FieldError> {
        let mut r = [self.zero; N];
        let mut carry_in = None;
        for i in 0..N {
            let l = self.b.madd52(self.zero, a[i], k, false)?;
            r[i] = self.column(Some(l), carry_in)?;
            carry_in = Some(self.b.madd52(self.zero, a[i], k, true)?);
        }
        let top = self.column(None, carry_in)?;
        let folded = self.b.mul_lo(top, self.c19)?;
        r[0] = self.b.add(r[0], folded)?;
        let r = self.carry(r)?;
        self.carry(r)
    }

    fn permute(&mut self, a: Fe4, sel: [u8; 4]) -> Result<Fe4, FieldError> {
        let mut r = [self.zero; N];
        for k in 0..N {
            r[k] = self.b.permute(a[k], sel)?;
        }
        Ok(r)
    }

    fn blend(&mut self, a: Fe4, b: Fe4, from_b: [bool; 4]) -> Fe4 {
        std::array::from_fn(|k| self.b.blend(a[k], b[k], from_b))
    }
}

/// `formula` over `spec` four field operations at a time: the X25519 ladder step over
/// curve25519 in 5 limbs is the one there is. Named `fiat_<prefix>_ladderstep_ifma`.
pub fn generate(formula: Formula, spec: &FieldSpec) -> Result<VFunction, FieldError> {
    let p25519 = crate::fields::parse_prime("2^255 - 19").expect("a valid modulus");
    if formula != Formula::X25519Ladderstep || spec.p != p25519 || spec.limbs() != N as u32 {
        return Err(FieldError::FormulaRepr {
            formula: formula.name(),
            repr: "the ifma representation".to_string(),
            supported: "the ifma representation with the formula x25519-ladderstep over the field curve25519 only",
        });
    }
    let name = format!("fiat_{}_ladderstep_ifma", spec.prefix());
    x25519_ladderstep(&name).map_err(|e| FieldError::Internal {
        function: name,
        message: e.to_string(),
    })
}

/// The 4-way ladder step with the signature of the 5×51 one (`x25519-ladderstep`):
/// outputs x2, z2, x3, z3 after the step (`out1`..`out4`, five limbs each), arguments
/// the swap bit, x1, x2, z2, x3, z3. Every limb in is at most [`LIMB_MAX`] (the 5×51
/// step's input bounds are below it); every limb out is below 2^51 + 19: steps chain,
/// and the 5×51 multiplication takes the result (its loose bounds).
pub fn x25519_ladderstep(name: &str) -> Result<VFunction, FieldError> {
    let limbs = || vec![LIMB_MAX; N];
    let mut params = vec![Param::scalar("arg1", Ty::U1, 1)];
    for k in 2..=6 {
        params.push(Param::array(&format!("arg{k}"), Ty::U64, &limbs()));
    }
    let returns = (1..=4)
        .map(|k| Param::array(&format!("out{k}"), Ty::U64, &limbs()))
        .collect();
    let mut b = Builder::new(name, params, returns);
    let m51 = b.splat_const((1 << 51) - 1);
    let c19 = b.splat_const(19);
    let zero = b.splat_const(0);
    let four_p = FOUR_P.map(|x| b.splat_const(x));
    let mut v = Lanes {
        b,
        m51,
        c19,
        zero,
        four_p,
    };
    const T: bool = true;
    const F: bool = false;
    // The swap: lanes (x2, z2) and (x3, z3) exchanged where the bit is set.
    let mask = v.b.mask(0)?;
    let mut s = [zero; N];
    for (k, sk) in s.iter_mut().enumerate() {
        let x = v.b.gather([2, 3, 4, 5], k as u32)?;
        let swapped = v.b.permute(x, [2, 3, 0, 1])?;
        *sk = v.b.select(mask, x, swapped)?;
    }
    // [A, B', C, D'] = [x2 + z2, z2 − x2, x3 + z3, z3 − x3]
    let p = v.permute(s, [1, 0, 3, 2])?;
    let t = v.add_sub(s, p, [F, T, F, T])?;
    // [AA, BB, D'A, CB']
    let u = v.permute(t, [0, 1, 3, 2])?;
    let w = v.permute(t, [0, 1, 0, 1])?;
    let w = v.mul(u, w)?;
    // [E, AA + BB, s, t] = [AA − BB, ·, D'A + CB', CB' − D'A]
    let ws = v.permute(w, [1, 0, 3, 2])?;
    let y = v.add_sub(w, ws, [T, F, F, T])?;
    // F = AA + a24·E in lane 0
    let k = v.b.splat_const(A24);
    let z = v.mul_small(y, k)?;
    let mut fz = [zero; N];
    for (k, x) in fz.iter_mut().enumerate() {
        *x = v.b.add(w[k], z[k])?;
    }
    let f = v.carry(fz)?;
    // [AA, E, s, t] ∘ [BB, F, s, t]
    let yp = v.permute(y, [0, 0, 2, 3])?;
    let u2 = v.blend(yp, w, [T, F, F, F]);
    let g = v.blend(y, f, [T, F, F, F]);
    let gp = v.permute(g, [0, 0, 2, 3])?;
    let wp = v.permute(w, [1, 1, 1, 1])?;
    let v2 = v.blend(gp, wp, [T, F, F, F]);
    let m = v.mul(u2, v2)?;
    // [x2', z2', x3', t²] ∘ [1, 1, 1, x1]
    let mut x1 = [zero; N];
    for (k, x) in x1.iter_mut().enumerate() {
        let one =
            v.b.konst([(k == 0) as u64, (k == 0) as u64, (k == 0) as u64, 0]);
        let e = v.b.splat(1, k as u32)?;
        *x = v.b.blend(one, e, [F, F, F, T]);
    }
    let r = v.mul(m, x1)?;
    for (k, &x) in r.iter().enumerate() {
        v.b.scatter([0, 1, 2, 3], k as u32, x)?;
    }
    let f = v.b.finish()?;
    // Within the inputs' bounds, so that steps chain, and within the 5×51
    // multiplication's (loose bounds), so that the inversion after the ladder takes it.
    let loose = crate::fields::preset("curve25519")
        .ok_or_else(|| FieldError::compose("no curve25519 preset"))?
        .loose_bounds();
    for r in &f.returns {
        if let Some((u, l)) = r
            .ubound
            .iter()
            .zip(&loose)
            .find(|&(u, l)| *u > LIMB_MAX.min(*l))
        {
            return Err(FieldError::compose(format!(
                "an output limb may reach {u:#x}, above {:#x}",
                LIMB_MAX.min(*l)
            )));
        }
    }
    Ok(f)
}
