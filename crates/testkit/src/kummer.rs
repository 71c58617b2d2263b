//! An independent model of the Kummer surface of "Kummer strikes back" (Gaudry–Schost,
//! over 2^127 − 1) for the tests of the generator's formulas and of `cryptopt primitive
//! kummer`: the squared-Kummer-surface pseudo-doubling and differential addition
//! written out on num-bigint field elements from the surface's theta constants
//! (divisions by `A², B², …` and by the difference's coordinates as field inverses, not
//! the generator's scaled integer constants), the surface's equation, and a ladder.
//!
//! It must never use the generator: it is what the generator is held against.

use num_bigint::{BigInt, BigUint};
use num_traits::{One, Zero};

/// The field p = 2^127 − 1 and its arithmetic.
pub struct Fp {
    pub p: BigUint,
}

impl Default for Fp {
    fn default() -> Fp {
        Fp::new()
    }
}

impl Default for Model {
    fn default() -> Model {
        Model::new()
    }
}

impl Fp {
    pub fn new() -> Fp {
        Fp {
            p: (BigUint::one() << 127u32) - 1u32,
        }
    }
    pub fn int(&self, v: i64) -> BigUint {
        let v = BigInt::from(v) % BigInt::from(self.p.clone());
        let v = if v < BigInt::zero() {
            v + BigInt::from(self.p.clone())
        } else {
            v
        };
        v.to_biguint().unwrap()
    }
    pub fn add(&self, a: &BigUint, b: &BigUint) -> BigUint {
        (a + b) % &self.p
    }
    pub fn sub(&self, a: &BigUint, b: &BigUint) -> BigUint {
        (a + &self.p - (b % &self.p)) % &self.p
    }
    pub fn mul(&self, a: &BigUint, b: &BigUint) -> BigUint {
        (a * b) % &self.p
    }
    pub fn inv(&self, a: &BigUint) -> BigUint {
        a.modpow(&(&self.p - 2u32), &self.p)
    }
}

pub type Point = [BigUint; 4];

/// The paper's squared theta constants `(a² : b² : c² : d²)` (§2.6).
pub const THETA2: [i64; 4] = [11, -22, -19, -3];

/// The model of the surface: the Hadamard transform, pseudo-doubling and differential
/// addition on the squared Kummer surface, from the theta constants alone.
pub struct Model {
    pub f: Fp,
    /// `(a², b², c², d²)` and `(A², B², C², D²) = H(a², b², c², d²)`.
    pub t2: Point,
    pub big2: Point,
}

impl Model {
    pub fn new() -> Model {
        let f = Fp::new();
        let t2 = THETA2.map(|v| f.int(v));
        let big2 = Model::h_with(&f, &t2);
        Model { f, t2, big2 }
    }

    pub fn h_with(f: &Fp, x: &Point) -> Point {
        let [a, b, c, d] = x;
        // Written out as the definition, not as a butterfly.
        [
            f.add(&f.add(a, b), &f.add(c, d)),
            f.sub(&f.add(a, b), &f.add(c, d)),
            f.sub(&f.add(a, c), &f.add(b, d)),
            f.sub(&f.add(a, d), &f.add(b, c)),
        ]
    }

    pub fn h(&self, x: &Point) -> Point {
        Model::h_with(&self.f, x)
    }

    pub fn each(&self, x: &Point, g: impl Fn(usize, &BigUint) -> BigUint) -> Point {
        [0, 1, 2, 3].map(|i| g(i, &x[i]))
    }

    pub fn divide_by(&self, x: &Point, d: &Point) -> Point {
        self.each(x, |i, v| self.f.mul(v, &self.f.inv(&d[i])))
    }

    /// `[2]P`: H, squares, divided by (A², B², C², D²), H, squares, divided by (a², …).
    pub fn double(&self, p: &Point) -> Point {
        let v = self.h(p);
        let v = self.each(&v, |_, x| self.f.mul(x, x));
        let v = self.divide_by(&v, &self.big2);
        let v = self.h(&v);
        let v = self.each(&v, |_, x| self.f.mul(x, x));
        self.divide_by(&v, &self.t2)
    }

    /// `P + Q` from `P`, `Q` and `P − Q` (all coordinates of the difference nonzero).
    pub fn add(&self, p: &Point, q: &Point, diff: &Point) -> Point {
        let (hp, hq) = (self.h(p), self.h(q));
        let v = self.each(&hp, |i, x| self.f.mul(x, &hq[i]));
        let v = self.divide_by(&v, &self.big2);
        let v = self.h(&v);
        let v = self.each(&v, |_, x| self.f.mul(x, x));
        self.divide_by(&v, diff)
    }

    /// The squared Kummer surface's equation at `x` (zero on the surface):
    /// `(Σx² − F(xt+yz) − G(xz+yt) − H(xy+zt))² − 4E²·xyzt`, with `F, G, H, E²` from the
    /// theta constants (Gaudry's fast Kummer surface, its coordinates squared).
    pub fn surface(&self, x: &Point) -> BigUint {
        let f = &self.f;
        let [a2, b2, c2, d2] = &self.t2;
        let sq = |v: &BigUint| f.mul(v, v);
        let (a4, b4, c4, d4) = (sq(a2), sq(b2), sq(c2), sq(d2));
        let div = |n: &BigUint, d: &BigUint| f.mul(n, &f.inv(d));
        let cf = div(
            &f.sub(&f.add(&a4, &d4), &f.add(&b4, &c4)),
            &f.sub(&f.mul(a2, d2), &f.mul(b2, c2)),
        );
        let cg = div(
            &f.sub(&f.add(&b4, &d4), &f.add(&a4, &c4)),
            &f.sub(&f.mul(b2, d2), &f.mul(a2, c2)),
        );
        let ch = div(
            &f.sub(&f.add(&c4, &d4), &f.add(&a4, &b4)),
            &f.sub(&f.mul(c2, d2), &f.mul(a2, b2)),
        );
        // E² = a²b²c²d² (A²B²C²D²)² / ((a²d² − b²c²)(b²d² − a²c²)(c²d² − a²b²))²
        let [aa, bb, cc, dd] = &self.big2;
        let num = f.mul(
            &f.mul(&f.mul(a2, b2), &f.mul(c2, d2)),
            &sq(&f.mul(&f.mul(aa, bb), &f.mul(cc, dd))),
        );
        let den = sq(&f.mul(
            &f.mul(
                &f.sub(&f.mul(a2, d2), &f.mul(b2, c2)),
                &f.sub(&f.mul(b2, d2), &f.mul(a2, c2)),
            ),
            &f.sub(&f.mul(c2, d2), &f.mul(a2, b2)),
        ));
        let e2 = div(&num, &den);
        let [x0, x1, x2, x3] = x;
        let s = f.add(&f.add(&sq(x0), &sq(x1)), &f.add(&sq(x2), &sq(x3)));
        let s = f.sub(&s, &f.mul(&cf, &f.add(&f.mul(x0, x3), &f.mul(x1, x2))));
        let s = f.sub(&s, &f.mul(&cg, &f.add(&f.mul(x0, x2), &f.mul(x1, x3))));
        let s = f.sub(&s, &f.mul(&ch, &f.add(&f.mul(x0, x1), &f.mul(x2, x3))));
        let xyzt = f.mul(&f.mul(x0, x1), &f.mul(x2, x3));
        f.sub(&sq(&s), &f.mul(&f.mul(&f.int(4), &e2), &xyzt))
    }

    /// Whether `x` and `y` are the same projective point (both nonzero).
    pub fn same(&self, x: &Point, y: &Point) -> bool {
        (0..4).all(|i| (0..4).all(|j| self.f.mul(&x[i], &y[j]) == self.f.mul(&x[j], &y[i])))
    }

    /// The point with inverted-affine coordinates `(x/y, x/z, x/t) = (u, v, w)`:
    /// `(1 : 1/u : 1/v : 1/w)`.
    pub fn point_of_inverted(&self, uvw: &[BigUint; 3]) -> Point {
        let f = &self.f;
        [
            BigUint::one(),
            f.inv(&uvw[0]),
            f.inv(&uvw[1]),
            f.inv(&uvw[2]),
        ]
    }

    /// `[n]B` by the Montgomery ladder from `(identity, B)`.
    pub fn ladder(&self, n: &BigUint, b: &Point) -> Point {
        let mut r0 = self.t2.clone();
        let mut r1 = b.clone();
        for i in (0..n.bits().max(1)).rev() {
            if n.bit(i) {
                r0 = self.add(&r0, &r1, b);
                r1 = self.double(&r1);
            } else {
                r1 = self.add(&r0, &r1, b);
                r0 = self.double(&r0);
            }
        }
        r0
    }
}

/// The paper's base point (appendix D): `(x/y : x/z : x/t)`.
pub fn base_inverted(f: &Fp) -> [BigUint; 3] {
    [
        f.int(6),
        "142514137003289508520683013813888233576".parse().unwrap(),
        f.int(1),
    ]
}

/// The prime ℓ of the Jacobian order 16·ℓ (§2.6).
pub fn ell() -> BigUint {
    "1809251394333065553571917326471206521441306174399683558571672623546356726339"
        .parse()
        .unwrap()
}
