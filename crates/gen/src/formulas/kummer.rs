//! One step of the Diffie–Hellman ladder on the squared Kummer surface of Gaudry–Schost
//! over p = 2^127 − 1, `(a² : b² : c² : d²) = (11 : −22 : −19 : −3)`, as in Bernstein,
//! Chuengsatiansup, Lange and Schwabe, "Kummer strikes back: new DH speed records"
//! (Asiacrypt 2014), Fig. 2.4(b) with the constants of its §2.6, and the conditional
//! swap placed after the first row of Hadamard transforms as in its §4.5. The same
//! formulas are spelled out as pseudocode (`xDBLADD` on the squared Kummer) by Renes,
//! Schwabe, Smith and Batina, "μKummer" (CHES 2016).
//!
//! ```text
//!   inputs: R0 = X(nB), R1 = X((n+1)B), four coordinates each; (x1/y1, x1/z1, x1/t1)
//!           of the base point (the ladder's difference); swap
//!   A = H(R0)   B = H(R1)
//!   U = c1∘A∘B                   (4 M; symmetric in R0, R1: no swap needed)
//!   D = swap ? B : A    V = c1∘D∘D   (4 S: the point being doubled)
//!                                c1 = (−833 : 2499 : 1617 : 561) = (1 : A²/B² : A²/C² : A²/D²)
//!   U = H(U)²   V = c2∘H(V)²     (8 S)
//!                                c2 = (−114 : 57 : 66 : 418) = (1 : a²/b² : a²/c² : a²/d²)
//!   U ∘= (1, x1/y1, x1/z1, x1/t1)   (3 M)
//!   (R0, R1) = swap ? (U, V) : (V, U)
//! ```
//!
//! `∘` is coordinate-wise; `H(x, y, z, t) = (x+y+z+t, x+y−z−t, x−y+z−t, x−y−z+t)`;
//! `(A² : B² : C² : D²) = H(a² : b² : c² : d²) = (−33 : 11 : 17 : 49)`. With bit `b` of
//! the scalar as `swap`, the step maps `(X(nB), X((n+1)B))` to `(X((2n+b)B),
//! X((2n+b+1)B))`: V is the double of the swapped-in point, U the differential sum.
//!
//! Every multiplication by a constant follows a product, and is one operation with it
//! ([`Ops::mul_scaled`]: in saturated words the unreduced product's halves are each
//! multiplied by the constant and reduced once). The two Hadamard transforms of scaled
//! products take them unreduced, add and subtract them unreduced, and reduce each
//! output once ([`Ops::mul_scaled`] with `wide`, [`Ops::add_lazy`], [`Ops::sub_lazy`],
//! [`Ops::settle`]; saturated words: one word more, 4 folds per transform instead of
//! 12). Negative constants are multiplications
//! by their absolute value with the sign carried along ([`Signed`]): a Hadamard
//! transform combines signed inputs by adding or subtracting (choosing the result's sign
//! so that no negation is needed) and a squaring drops the sign, so the only negation
//! emitted is the doubled point's first coordinate.

use super::Ops;
use crate::fields::FieldError;

/// `(1 : A²/B² : A²/C² : A²/D²)` scaled to integers (the paper's §2.6).
pub(crate) const C1: [i64; 4] = [-833, 2499, 1617, 561];
/// `(1 : a²/b² : a²/c² : a²/d²)` scaled to integers (the paper's §2.6).
pub(crate) const C2: [i64; 4] = [-114, 57, 66, 418];

/// A field element held as `v` or as its negation `−v`.
#[derive(Clone)]
struct Signed<F> {
    v: F,
    neg: bool,
}

fn pos<F>(v: F) -> Signed<F> {
    Signed { v, neg: false }
}

/// `x + y` of two signed elements, as a sum or a difference; the sign of the result is
/// chosen positive where the operands' signs allow. With `wide`, the operations of
/// unreduced elements ([`Ops::add_lazy`], [`Ops::sub_lazy`]).
fn add_signed<O: Ops>(
    u: &mut O,
    x: &Signed<O::Fe>,
    y: &Signed<O::Fe>,
    wide: bool,
) -> Result<Signed<O::Fe>, FieldError> {
    let add = |u: &mut O, a: &O::Fe, b: &O::Fe| if wide { u.add_lazy(a, b) } else { u.add(a, b) };
    let sub = |u: &mut O, a: &O::Fe, b: &O::Fe| if wide { u.sub_lazy(a, b) } else { u.sub(a, b) };
    Ok(match (x.neg, y.neg) {
        (false, false) => pos(add(u, &x.v, &y.v)?),
        (true, true) => Signed {
            v: add(u, &x.v, &y.v)?,
            neg: true,
        },
        // −a + b = b − a
        (true, false) => pos(sub(u, &y.v, &x.v)?),
        (false, true) => pos(sub(u, &x.v, &y.v)?),
    })
}

fn negated<F: Clone>(x: &Signed<F>) -> Signed<F> {
    Signed {
        v: x.v.clone(),
        neg: !x.neg,
    }
}

/// The Hadamard transform of signed elements, as the fast butterfly (8 additions or
/// subtractions). With `wide` the inputs may be unreduced (the scaled products of
/// [`scaled_products`] with `wide`), the 8 operations leave their results unreduced, and
/// each output is settled once: 4 folds instead of 8, and none in the products.
fn hadamard_signed<O: Ops>(
    u: &mut O,
    x: &[Signed<O::Fe>; 4],
    wide: bool,
) -> Result<[Signed<O::Fe>; 4], FieldError> {
    let t1 = add_signed(u, &x[0], &x[1], wide)?;
    let t2 = add_signed(u, &x[2], &x[3], wide)?;
    let t3 = add_signed(u, &x[0], &negated(&x[1]), wide)?;
    let t4 = add_signed(u, &x[2], &negated(&x[3]), wide)?;
    let h = [
        add_signed(u, &t1, &t2, wide)?,
        add_signed(u, &t1, &negated(&t2), wide)?,
        add_signed(u, &t3, &t4, wide)?,
        add_signed(u, &t3, &negated(&t4), wide)?,
    ];
    if !wide {
        return Ok(h);
    }
    let settle = |u: &mut O, h: &Signed<O::Fe>| -> Result<Signed<O::Fe>, FieldError> {
        Ok(Signed {
            v: u.settle(&h.v)?,
            neg: h.neg,
        })
    };
    Ok([
        settle(u, &h[0])?,
        settle(u, &h[1])?,
        settle(u, &h[2])?,
        settle(u, &h[3])?,
    ])
}

/// `c ∘ x ∘ y` (`c ∘ x²` without `y`) for small integer constants, each product and
/// its constant with one reduction where the representation can ([`Ops::mul_scaled`]);
/// negative constants flip the sign. With `wide` the products are left unreduced
/// ([`Ops::mul_scaled`] with `wide`) for a wide [`hadamard_signed`].
fn scaled_products<O: Ops>(
    u: &mut O,
    x: &[Signed<O::Fe>; 4],
    y: Option<&[Signed<O::Fe>; 4]>,
    c: [i64; 4],
    wide: bool,
) -> Result<[Signed<O::Fe>; 4], FieldError> {
    let one = |u: &mut O, i: usize| -> Result<Signed<O::Fe>, FieldError> {
        let (v, neg) = match y {
            Some(y) => (
                u.mul_scaled(&x[i].v, &y[i].v, false, c[i].unsigned_abs(), wide)?,
                x[i].neg ^ y[i].neg,
            ),
            None => (
                u.mul_scaled(&x[i].v, &x[i].v, true, c[i].unsigned_abs(), wide)?,
                false,
            ),
        };
        Ok(Signed {
            v,
            neg: neg ^ (c[i] < 0),
        })
    };
    Ok([one(u, 0)?, one(u, 1)?, one(u, 2)?, one(u, 3)?])
}

/// Coordinate-wise squares (the signs drop out).
fn squares<O: Ops>(u: &mut O, x: &[Signed<O::Fe>; 4]) -> Result<[Signed<O::Fe>; 4], FieldError> {
    let one = |u: &mut O, i: usize| Ok::<_, FieldError>(pos(u.mul(&x[i].v, &x[i].v, true)?));
    Ok([one(u, 0)?, one(u, 1)?, one(u, 2)?, one(u, 3)?])
}

/// The element's value: `v`, or `0 − v` when it is held negated.
fn value<O: Ops>(u: &mut O, x: &Signed<O::Fe>) -> Result<O::Fe, FieldError> {
    if x.neg {
        let zero = u.constant(&0u32.into());
        u.sub(&zero, &x.v)
    } else {
        Ok(x.v.clone())
    }
}

/// `H(x, y, z, t)` of four field elements.
pub(crate) fn hadamard<O: Ops>(u: &mut O, x: [O::Fe; 4]) -> Result<[O::Fe; 4], FieldError> {
    let h = hadamard_signed(u, &x.map(pos), false)?;
    Ok([
        value(u, &h[0])?,
        value(u, &h[1])?,
        value(u, &h[2])?,
        value(u, &h[3])?,
    ])
}

/// `n` ladder steps, step `k` by swap bit `k` (the first bit is the scalar's higher).
pub(crate) fn steps<O: Ops>(
    u: &mut O,
    args: [O::Fe; 11],
    n: usize,
) -> Result<[O::Fe; 8], FieldError> {
    let [x2, y2, z2, t2, x3, y3, z3, t3, d1, d2, d3] = args;
    let mut r = [x2, y2, z2, t2, x3, y3, z3, t3];
    for k in 0..n {
        u.use_swap(k);
        let [a, b, c, d, e, f, g, h] = r;
        r = step(
            u,
            [a, b, c, d, e, f, g, h, d1.clone(), d2.clone(), d3.clone()],
        )?;
    }
    Ok(r)
}

/// The ladder step over any implementation of the field operations: elements
/// `[R0 (4), R1 (4), x1/y1, x1/z1, x1/t1]` to `[R0' (4), R1' (4)]`, the swap being the
/// implementation's own.
pub(crate) fn step<O: Ops>(u: &mut O, args: [O::Fe; 11]) -> Result<[O::Fe; 8], FieldError> {
    let [x2, y2, z2, t2, x3, y3, z3, t3, d1, d2, d3] = args;
    let a = hadamard_signed(u, &[x2, y2, z2, t2].map(pos), false)?;
    let b = hadamard_signed(u, &[x3, y3, z3, t3].map(pos), false)?;
    // U = c1∘A∘B (the sum's product) before the swap: it is the same either way. The
    // scaled products are left unreduced for the Hadamard transforms they feed.
    let uu = scaled_products(u, &a, Some(&b), C1, true)?;
    let mut d = Vec::with_capacity(4);
    for i in 0..4 {
        d.push(pos(u.cswap(&a[i].v, &b[i].v).0));
    }
    let d: [Signed<O::Fe>; 4] = d
        .try_into()
        .map_err(|_| FieldError::compose("four coordinates"))?;
    let v = scaled_products(u, &d, None, C1, true)?;
    let v = hadamard_signed(u, &v, true)?;
    let uu = hadamard_signed(u, &uu, true)?;
    let v = scaled_products(u, &v, None, C2, false)?;
    let uu = squares(u, &uu)?;
    let sum = [
        uu[0].v.clone(),
        u.mul(&uu[1].v, &d1, false)?,
        u.mul(&uu[2].v, &d2, false)?,
        u.mul(&uu[3].v, &d3, false)?,
    ];
    let dbl = [
        value(u, &v[0])?,
        value(u, &v[1])?,
        value(u, &v[2])?,
        value(u, &v[3])?,
    ];
    let mut out0 = Vec::with_capacity(4);
    let mut out1 = Vec::with_capacity(4);
    for i in 0..4 {
        let (r0, r1) = u.cswap(&dbl[i], &sum[i]);
        out0.push(r0);
        out1.push(r1);
    }
    out0.extend(out1);
    out0.try_into()
        .map_err(|_| FieldError::compose("eight coordinates"))
}
