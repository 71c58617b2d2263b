//! Complete projective point formulas for prime-order short Weierstrass curves
//! `y² = x³ + a·x + b`, from Renes, Costello and Batina, "Complete addition formulas for
//! prime order elliptic curves" (EUROCRYPT 2016, ePrint 2015/1060):
//!
//! | formula            | curve     | algorithm  | cost           |
//! |--------------------|-----------|------------|----------------|
//! | `p256-add`         | a = −3    | Algorithm 4 | 12M + 2m_b + 29a |
//! | `p256-double`      | a = −3    | Algorithm 6 | 8M + 3S + 2m_b + 21a |
//! | `secp256k1-add`    | a = 0     | Algorithm 7 | 12M + 2m_3b + 19a |
//! | `secp256k1-double` | a = 0     | Algorithm 9 | 6M + 2S + 1m_3b + 9a |
//!
//! And doublings in Jacobian coordinates (x = X/Z², y = Y/Z³), for runs of doublings
//! between additions (the Explicit-Formulas Database,
//! <https://hyperelliptic.org/EFD/g1p/auto-shortw-jacobian-3.html>): `*-double-jacobian`
//! (`dbl-2001-b` for a = −3, `dbl-2009-l` for a = 0), `*-double-to-jacobian` (the same
//! from a projective point), `*-double-via-jacobian` (2·P, projective in and out) and
//! `*-double5` (32·P, projective in and out). They are not
//! complete in general, but on a prime-order curve only the point at infinity is
//! special, and there every coordinate they make is a multiple of Z (Z3 = 2·Y·Z), so a
//! point with Z = 0 stays one: the caller fixes up that one point.
//!
//! Each function below is the paper's algorithm line by line (its temporaries `t0 … t4`
//! and its reuse of `X3, Y3, Z3` as scratch), over any implementation of the field
//! operations ([`Ops`]), except that a product which the paper only adds to (subtracts
//! from) another product is computed with it as one [`Ops::mul_add`] (`a·b ± c·d`, one
//! Montgomery reduction for both; the comments name the lines it stands for).
//! Complete: the same straight-line code for every pair of inputs, the point at
//! infinity (0 : 1 : 0) and `P + P` included, so no branch is ever needed.
//!
//! Signatures: `add` takes `X1, Y1, Z1, X2, Y2, Z2`, `double` takes `X, Y, Z`; both
//! return `X3, Y3, Z3`.

use num_bigint::BigUint;

use super::Ops;
use crate::fields::FieldError;

/// Lines 1–18 of Algorithms 4 and 7 (the same in both): `t0 = X1·X2`, `t1 = Y1·Y2`,
/// `t2 = Z1·Z2`, and the cross terms `t3 = X1·Y2 + X2·Y1`, `t4 = Y1·Z2 + Y2·Z1`,
/// `Y3 = X1·Z2 + X2·Z1`, each by Karatsuba's trick as the paper writes it.
fn cross_products<O: Ops>(
    u: &mut O,
    [x1, y1, z1, x2, y2, z2]: [O::Fe; 6],
) -> Result<[O::Fe; 6], FieldError> {
    let t0 = u.mul(&x1, &x2, false)?; // 1. t0 = X1·X2
    let t1 = u.mul(&y1, &y2, false)?; // 2. t1 = Y1·Y2
    let t2 = u.mul(&z1, &z2, false)?; // 3. t2 = Z1·Z2
    let t3 = u.add(&x1, &y1)?; // 4. t3 = X1+Y1
    let t4 = u.add(&x2, &y2)?; // 5. t4 = X2+Y2
    let t3 = u.mul(&t3, &t4, false)?; // 6. t3 = t3·t4
    let t4 = u.add(&t0, &t1)?; // 7. t4 = t0+t1
    let t3 = u.sub(&t3, &t4)?; // 8. t3 = t3−t4
    let t4 = u.add(&y1, &z1)?; // 9. t4 = Y1+Z1
    let x3 = u.add(&y2, &z2)?; // 10. X3 = Y2+Z2
    let t4 = u.mul(&t4, &x3, false)?; // 11. t4 = t4·X3
    let x3 = u.add(&t1, &t2)?; // 12. X3 = t1+t2
    let t4 = u.sub(&t4, &x3)?; // 13. t4 = t4−X3
    let x3 = u.add(&x1, &z1)?; // 14. X3 = X1+Z1
    let y3 = u.add(&x2, &z2)?; // 15. Y3 = X2+Z2
    let x3 = u.mul(&x3, &y3, false)?; // 16. X3 = X3·Y3
    let y3 = u.add(&t0, &t2)?; // 17. Y3 = t0+t2
    let y3 = u.sub(&x3, &y3)?; // 18. Y3 = X3−Y3
    Ok([t0, t1, t2, t3, t4, y3])
}

/// Algorithm 4: `(X1:Y1:Z1) + (X2:Y2:Z2)` for `a = −3`; `b` is the curve constant.
pub(crate) fn add_a_minus3<O: Ops>(
    u: &mut O,
    b: &BigUint,
    [x1, y1, z1, x2, y2, z2]: [O::Fe; 6],
) -> Result<[O::Fe; 3], FieldError> {
    let b = u.constant(b);
    let [t0, t1, t2, t3, t4, y3] = cross_products(u, [x1, y1, z1, x2, y2, z2])?;
    let z3 = u.mul(&b, &t2, false)?; // 19. Z3 = b·t2
    let x3 = u.sub(&y3, &z3)?; // 20. X3 = Y3−Z3
    let z3 = u.add(&x3, &x3)?; // 21. Z3 = X3+X3
    let x3 = u.add(&x3, &z3)?; // 22. X3 = X3+Z3
    let z3 = u.sub(&t1, &x3)?; // 23. Z3 = t1−X3
    let x3 = u.add(&t1, &x3)?; // 24. X3 = t1+X3
    let y3 = u.mul(&b, &y3, false)?; // 25. Y3 = b·Y3
    let t1 = u.add(&t2, &t2)?; // 26. t1 = t2+t2
    let t2 = u.add(&t1, &t2)?; // 27. t2 = t1+t2
    let y3 = u.sub(&y3, &t2)?; // 28. Y3 = Y3−t2
    let y3 = u.sub(&y3, &t0)?; // 29. Y3 = Y3−t0
    let t1 = u.add(&y3, &y3)?; // 30. t1 = Y3+Y3
    let y3 = u.add(&t1, &y3)?; // 31. Y3 = t1+Y3
    let t1 = u.add(&t0, &t0)?; // 32. t1 = t0+t0
    let t0 = u.add(&t1, &t0)?; // 33. t0 = t1+t0
    let t0 = u.sub(&t0, &t2)?; // 34. t0 = t0−t2

    // 35–43: each output is a sum of two products ([`Ops::mul_add`]).
    let y3_out = u.mul_add([&x3, &z3, &t0, &y3], false)?; // 36–38. Y3 = X3·Z3 + t0·Y3
    let x3_out = u.mul_add([&t3, &x3, &t4, &y3], true)?; // 35, 39–40. X3 = t3·X3 − t4·Y3
    let z3_out = u.mul_add([&t4, &z3, &t3, &t0], false)?; // 41–43. Z3 = t4·Z3 + t3·t0
    Ok([x3_out, y3_out, z3_out])
}

/// Algorithm 6: `2·(X:Y:Z)` for `a = −3`; `b` is the curve constant.
pub(crate) fn double_a_minus3<O: Ops>(
    u: &mut O,
    b: &BigUint,
    [x, y, z]: [O::Fe; 3],
) -> Result<[O::Fe; 3], FieldError> {
    let b = u.constant(b);
    let t0 = u.mul(&x, &x, true)?; // 1. t0 = X·X
    let t1 = u.mul(&y, &y, true)?; // 2. t1 = Y·Y
    let t2 = u.mul(&z, &z, true)?; // 3. t2 = Z·Z
    let t3 = u.mul(&x, &y, false)?; // 4. t3 = X·Y
    let t3 = u.add(&t3, &t3)?; // 5. t3 = t3+t3
    let z3 = u.mul(&x, &z, false)?; // 6. Z3 = X·Z
    let z3 = u.add(&z3, &z3)?; // 7. Z3 = Z3+Z3
    let y3 = u.mul(&b, &t2, false)?; // 8. Y3 = b·t2
    let y3 = u.sub(&y3, &z3)?; // 9. Y3 = Y3−Z3
    let x3 = u.add(&y3, &y3)?; // 10. X3 = Y3+Y3
    let y3 = u.add(&x3, &y3)?; // 11. Y3 = X3+Y3
    let x3 = u.sub(&t1, &y3)?; // 12. X3 = t1−Y3
    let y3 = u.add(&t1, &y3)?; // 13. Y3 = t1+Y3

    // 14. Y3 = X3·Y3 and 15. X3 = X3·t3: each joins a later product (lines 27, 31).
    let (x3_12, y3_13, t3_5) = (x3, y3, t3);
    let t3 = u.add(&t2, &t2)?; // 16. t3 = t2+t2
    let t2 = u.add(&t2, &t3)?; // 17. t2 = t2+t3
    let z3 = u.mul(&b, &z3, false)?; // 18. Z3 = b·Z3
    let z3 = u.sub(&z3, &t2)?; // 19. Z3 = Z3−t2
    let z3 = u.sub(&z3, &t0)?; // 20. Z3 = Z3−t0
    let t3 = u.add(&z3, &z3)?; // 21. t3 = Z3+Z3
    let z3 = u.add(&z3, &t3)?; // 22. Z3 = Z3+t3
    let t3 = u.add(&t0, &t0)?; // 23. t3 = t0+t0
    let t0 = u.add(&t3, &t0)?; // 24. t0 = t3+t0
    let t0 = u.sub(&t0, &t2)?; // 25. t0 = t0−t2
    let y3 = u.mul_add([&x3_12, &y3_13, &t0, &z3], false)?; // 14, 26–27. Y3 = X3·Y3 + t0·Z3
    let t0 = u.mul(&y, &z, false)?; // 28. t0 = Y·Z
    let t0 = u.add(&t0, &t0)?; // 29. t0 = t0+t0
    let x3 = u.mul_add([&x3_12, &t3_5, &t0, &z3], true)?; // 15, 30–31. X3 = X3·t3 − t0·Z3
    let z3 = u.mul(&t0, &t1, false)?; // 32. Z3 = t0·t1
    let z3 = u.add(&z3, &z3)?; // 33. Z3 = Z3+Z3
    let z3 = u.add(&z3, &z3)?; // 34. Z3 = Z3+Z3
    Ok([x3, y3, z3])
}

/// Algorithm 7: `(X1:Y1:Z1) + (X2:Y2:Z2)` for `a = 0`; `b3 = 3·b` is a small constant.
pub(crate) fn add_a0<O: Ops>(
    u: &mut O,
    b3: u64,
    [x1, y1, z1, x2, y2, z2]: [O::Fe; 6],
) -> Result<[O::Fe; 3], FieldError> {
    let [t0, t1, t2, t3, t4, y3] = cross_products(u, [x1, y1, z1, x2, y2, z2])?;
    let x3 = u.add(&t0, &t0)?; // 19. X3 = t0+t0
    let t0 = u.add(&x3, &t0)?; // 20. t0 = X3+t0
    let t2 = u.mul_small(&t2, b3)?; // 21. t2 = b3·t2
    let z3 = u.add(&t1, &t2)?; // 22. Z3 = t1+t2
    let t1 = u.sub(&t1, &t2)?; // 23. t1 = t1−t2
    let y3 = u.mul_small(&y3, b3)?; // 24. Y3 = b3·Y3

    // 25–33: each output is a sum of two products ([`Ops::mul_add`]).
    let x3 = u.mul_add([&t3, &t1, &t4, &y3], true)?; // 25–27. X3 = t3·t1 − t4·Y3
    let y3_out = u.mul_add([&t1, &z3, &y3, &t0], false)?; // 28–30. Y3 = t1·Z3 + Y3·t0
    let z3 = u.mul_add([&z3, &t4, &t0, &t3], false)?; // 31–33. Z3 = Z3·t4 + t0·t3
    Ok([x3, y3_out, z3])
}

/// Algorithm 9: `2·(X:Y:Z)` for `a = 0`; `b3 = 3·b` is a small constant.
pub(crate) fn double_a0<O: Ops>(
    u: &mut O,
    b3: u64,
    [x, y, z]: [O::Fe; 3],
) -> Result<[O::Fe; 3], FieldError> {
    let t0 = u.mul(&y, &y, true)?; // 1. t0 = Y·Y
    let z3 = u.add(&t0, &t0)?; // 2. Z3 = t0+t0
    let z3 = u.add(&z3, &z3)?; // 3. Z3 = Z3+Z3
    let z3 = u.add(&z3, &z3)?; // 4. Z3 = Z3+Z3
    let t1 = u.mul(&y, &z, false)?; // 5. t1 = Y·Z
    let t2 = u.mul(&z, &z, true)?; // 6. t2 = Z·Z
    let t2 = u.mul_small(&t2, b3)?; // 7. t2 = b3·t2

    // 8. X3 = t2·Z3: joins line 14's product in line 15.
    let y3 = u.add(&t0, &t2)?; // 9. Y3 = t0+t2
    let z3_10 = u.mul(&t1, &z3, false)?; // 10. Z3 = t1·Z3
    let t1 = u.add(&t2, &t2)?; // 11. t1 = t2+t2
    let t2_12 = u.add(&t1, &t2)?; // 12. t2 = t1+t2
    let t0 = u.sub(&t0, &t2_12)?; // 13. t0 = t0−t2
    let y3 = u.mul_add([&t2, &z3, &t0, &y3], false)?; // 8, 14–15. Y3 = t2·Z3 + t0·Y3
    let t1 = u.mul(&x, &y, false)?; // 16. t1 = X·Y
    let x3 = u.mul(&t0, &t1, false)?; // 17. X3 = t0·t1
    let x3 = u.add(&x3, &x3)?; // 18. X3 = X3+X3
    Ok([x3, y3, z3_10])
}

/// `2·(X:Y:Z)` in Jacobian coordinates: `dbl-2001-b` (Bernstein 2001, EFD) for a = −3,
/// `dbl-2009-l` (Lange 2009) for a = 0, both as [`jacobian_tail`] finishes them: the
/// slope's `t` (α = 3t) is (X−δ)·(X+δ) with δ = Z² for a = −3 and X² for a = 0, and
/// g = Y². 5M + 3S (a = −3) or 4M + 3S (a = 0).
pub(crate) fn double_jacobian<O: Ops>(
    u: &mut O,
    a_minus3: bool,
    inputs: Inputs,
    [x, y, z]: [O::Fe; 3],
) -> Result<[O::Fe; 3], FieldError> {
    let delta = if a_minus3 {
        Some(u.mul(&z, &z, true)?) // delta = Z²
    } else {
        None
    };
    let t = slope(u, &x, delta.as_ref())?;
    let g = u.mul(&y, &y, true)?; // gamma = B = Y²
    jacobian_tail(u, &x, &t, &g, YZ::Make(&y, &z), inputs)
}

/// `2·(X:Y:Z)` from projective coordinates into Jacobian ones, for the first doubling of
/// a run: [`double_jacobian`] of (X·Z : Y·Z² : Z), the projective point's Jacobian form,
/// rescaled by Z⁻² (X3 by Z⁻⁴, Y3 by Z⁻⁶), which removes every power of Z but one: the
/// same [`jacobian_tail`] with t = (X−Z)·(X+Z) (a = −3) or X² (a = 0), g = Y²·Z = Y·(Y·Z)
/// and Y·Z. 6M + 1S (a = −3) or 5M + 2S (a = 0), where converting first costs 2M + 1S
/// more than the doubling. The point at infinity (0 : Y : 0) gives (0 : 0 : 0).
pub(crate) fn double_projective_to_jacobian<O: Ops>(
    u: &mut O,
    a_minus3: bool,
    [x, y, z]: [O::Fe; 3],
) -> Result<[O::Fe; 3], FieldError> {
    let t = slope(u, &x, a_minus3.then_some(&z))?;
    let yz = u.mul(&y, &z, false)?;
    let g = u.mul(&y, &yz, false)?; // Y²·Z
    jacobian_tail(u, &x, &t, &g, YZ::Made(yz), Inputs::Any)
}

/// The doublings' `t` (the slope's numerator over 3): (X−w)·(X+w) for a = −3 (`w` is δ
/// or Z), X² for a = 0 (no `w`).
fn slope<O: Ops>(u: &mut O, x: &O::Fe, w: Option<&O::Fe>) -> Result<O::Fe, FieldError> {
    match w {
        Some(w) => {
            let xm = u.sub(x, w)?;
            let xp = u.add(x, w)?;
            u.mul(&xm, &xp, false)
        }
        None => u.mul(x, x, true),
    }
}

/// What both Jacobian doublings share, written for fewer modular additions than the
/// EFD's text (11 instead of 16 for a = −3, 9 instead of 13 for a = 0; one costs about a
/// quarter of a multiplication): α = 3t, 4β = X·(4g), X3 = α² − 8β,
/// Y3 = α·(4β − X3) − (2g)·(4g) (8γ² as a product of the doublings already made), and
/// Z3 = 2·(Y·Z) rather than (Y+Z)² − γ − δ.
fn jacobian_tail<O: Ops>(
    u: &mut O,
    x: &O::Fe,
    t: &O::Fe,
    g: &O::Fe,
    yz: YZ<'_, O::Fe>,
    inputs: Inputs,
) -> Result<[O::Fe; 3], FieldError> {
    let alpha = u.add(t, t)?;
    let alpha = u.add(&alpha, t)?; // alpha = 3t
    let g2 = u.add(g, g)?;
    let g4 = u.add(&g2, &g2)?;
    let beta4 = u.mul(x, &g4, false)?; // 4·beta = X·(4g)
    let beta8 = u.add(&beta4, &beta4)?;
    let x3 = u.mul(&alpha, &alpha, true)?;
    let x3 = u.sub(&x3, &beta8)?; // X3 = alpha² − 8·beta
    let yz = match yz {
        YZ::Made(yz) => yz,
        YZ::Make(y, z) => u.mul(y, z, false)?,
    };
    let z3 = u.add(&yz, &yz)?; // Z3 = 2·Y·Z
    let d = u.sub(&beta4, &x3)?;
    // Y3 = alpha·(4·beta − X3) − (2g)·(4g). One shared reduction (`mul_add`) needs
    // operands below p, which alpha is not when an input is not (X ≥ p makes t too
    // large for one final subtraction): with such inputs, two products.
    let y3 = match inputs {
        Inputs::Below => u.mul_add([&alpha, &d, &g2, &g4], true)?,
        Inputs::Any => super::two_products(u, [&alpha, &d, &g2, &g4], true)?,
    };
    Ok([x3, y3, z3])
}

/// What a doubling may assume of its inputs' values (their words are any 64-bit values
/// either way).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Inputs {
    /// Any: the function's own arguments.
    Any,
    /// Below p: what a fully reducing operation made (all of Montgomery's do, for
    /// operands below p), so products may share a reduction.
    Below,
}

/// Y·Z for [`jacobian_tail`]: already made (the doubling from projective coordinates
/// needs it first), or to make where the EFD's text makes Z3, after X3 (the order the
/// schedule breaks its ties by; earlier, P-256's ECDH measured 0.5% slower).
enum YZ<'a, Fe> {
    Made(Fe),
    Make(&'a Fe, &'a Fe),
}

/// `32·(X:Y:Z)` in projective coordinates: [`double_projective_to_jacobian`], four
/// [`double_jacobian`], and back to projective coordinates, (X·Z : Y : Z³); one function
/// so that the doublings' operations are scheduled and their values kept in registers
/// across the five (the ECDH driver's window). The first doubling's outputs are brought
/// below p (`x + 0`: one conditional subtraction, enough for any 256-bit value since
/// p > 2^255) whatever the inputs, so the four after it share the reduction of Y3's two
/// products. The point at infinity (0 : Y : 0) comes out as (0 : 0 : 0): the caller
/// restores Y.
pub(crate) fn double5<O: Ops>(
    u: &mut O,
    a_minus3: bool,
    p: [O::Fe; 3],
) -> Result<[O::Fe; 3], FieldError> {
    let zero = u.constant(&BigUint::ZERO);
    let mut p = double_projective_to_jacobian(u, a_minus3, p)?;
    for c in &mut p {
        *c = u.add(c, &zero)?;
    }
    for _ in 0..4 {
        p = double_jacobian(u, a_minus3, Inputs::Below, p)?;
    }
    to_projective(u, p)
}

/// `2·(X:Y:Z)` in projective coordinates by [`double_projective_to_jacobian`] and the way
/// back ([`to_projective`]): 8M + 2S (a = −3) or 7M + 3S (a = 0) and 11 or 9 additions,
/// against Algorithm 6's 8M + 3S + 2m_b + 21a (Algorithm 9's 6M + 2S + 1m_3b + 9a). Not
/// complete: the point at infinity (0 : Y : 0) comes out as (0 : 0 : 0) (for the ECDH
/// driver's table, whose entries j·P, 1 ≤ j ≤ 16, are never it).
pub(crate) fn double_via_jacobian<O: Ops>(
    u: &mut O,
    a_minus3: bool,
    p: [O::Fe; 3],
) -> Result<[O::Fe; 3], FieldError> {
    let p = double_projective_to_jacobian(u, a_minus3, p)?;
    to_projective(u, p)
}

/// A Jacobian point (X : Y : Z) in projective coordinates: (X·Z : Y : Z³).
fn to_projective<O: Ops>(u: &mut O, [x, y, z]: [O::Fe; 3]) -> Result<[O::Fe; 3], FieldError> {
    let zz = u.mul(&z, &z, true)?;
    let z3 = u.mul(&zz, &z, false)?;
    let x3 = u.mul(&x, &z, false)?;
    Ok([x3, y, z3])
}
