//! One step of the X25519 Montgomery ladder, RFC 7748 §5, with the conditional swap that
//! begins each step folded in:
//!
//! ```text
//!   (x2, x3) = cswap(swap, x2, x3);  (z2, z3) = cswap(swap, z2, z3)
//!   A = x2 + z2    AA = A²    B = x2 - z2    BB = B²    E = AA - BB
//!   C = x3 + z3    D = x3 - z3    DA = D·A    CB = C·B
//!   x3 = (DA + CB)²              z3 = x1 · (DA - CB)²
//!   x2 = AA · BB                 z2 = E · (AA + a24 · E),   a24 = 121665
//! ```
//!
//! Signature: `arg1` the swap bit (u1; the caller's `swap ^ k_t`), `arg2` … `arg6` the
//! limbs of x1, x2, z2, x3, z3 within the tight bounds; `out1` … `out4` x2, z2, x3, z3
//! after the step, within the tight bounds, so that steps chain.

use super::Ops;
use crate::fields::FieldError;

/// `(A - 2) / 4` for curve25519's `A = 486662`.
pub(crate) const A24: u64 = 121665;

/// The step itself over any implementation of the field operations (inline in one
/// function, or calls of a library: `driver`): `[x1, x2, z2, x3, z3]` to
/// `[x2, z2, x3, z3]`, the swap being the implementation's own.
pub(crate) fn step<O: Ops>(
    u: &mut O,
    [x1, x2, z2, x3, z3]: [O::Fe; 5],
) -> Result<[O::Fe; 4], FieldError> {
    let (x2, x3) = u.cswap(&x2, &x3);
    let (z2, z3) = u.cswap(&z2, &z3);
    let a = u.add(&x2, &z2)?;
    let aa = u.mul(&a, &a, true)?;
    let b = u.sub(&x2, &z2)?;
    let bb = u.mul(&b, &b, true)?;
    let e = u.sub(&aa, &bb)?;
    let c = u.add(&x3, &z3)?;
    let d = u.sub(&x3, &z3)?;
    let da = u.mul(&d, &a, false)?;
    let cb = u.mul(&c, &b, false)?;
    let s = u.add(&da, &cb)?;
    let x3 = u.mul(&s, &s, true)?;
    let t = u.sub(&da, &cb)?;
    let t2 = u.mul(&t, &t, true)?;
    let z3 = u.mul(&x1, &t2, false)?;
    let x2 = u.mul(&aa, &bb, false)?;
    let a24e = u.mul_small(&e, A24)?;
    let sum = u.add(&aa, &a24e)?;
    let z2 = u.mul(&e, &sum, false)?;
    Ok([x2, z2, x3, z3])
}
