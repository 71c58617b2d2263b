//! The Kummer formulas (`gen --formula kummer-ladderstep | kummer-hadamard` over p127)
//! against an independent model: the squared-Kummer-surface pseudo-doubling and
//! differential addition written out on num-bigint field elements from the surface's
//! theta constants (divisions by `A², B², …` and by the difference's coordinates as field
//! inverses, not the generator's scaled integer constants), compared projectively.
//!
//! * the ladder step in both representations (2×64 saturated, 3 unsaturated limbs) on
//!   10,000 (saturated) and 2,000 (unsaturated) random inputs within the declared bounds
//!   plus edge values, the swap bit both ways;
//! * the surface: the base point of the paper (appendix D) and the identity
//!   `(a² : b² : c² : d²)` lie on the squared Kummer surface, and so does every output of
//!   the generated step on surface points;
//! * the order: the ladder driven by the generated step over the interpreter from
//!   `(identity, B)` gives `[ℓ]B = identity` and `[ℓ+1]B = B` for the prime ℓ of the
//!   Jacobian order 16·ℓ the paper gives (§2.6), and a random scalar agrees with the
//!   model's ladder;
//! * the lazy reduction's counts, and the Hadamard formula.

use cryptopt_gen::fields::{self, FieldSpec};
use cryptopt_gen::formulas::{self, Formula};
use cryptopt_ir::{inputs, interp, Function};
use num_bigint::{BigInt, BigUint};
use num_traits::{One, Zero};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// The field p = 2^127 − 1 and its arithmetic.
struct Fp {
    p: BigUint,
}

impl Fp {
    fn new() -> Fp {
        Fp {
            p: (BigUint::one() << 127u32) - 1u32,
        }
    }
    fn int(&self, v: i64) -> BigUint {
        let v = BigInt::from(v) % BigInt::from(self.p.clone());
        let v = if v < BigInt::zero() {
            v + BigInt::from(self.p.clone())
        } else {
            v
        };
        v.to_biguint().unwrap()
    }
    fn add(&self, a: &BigUint, b: &BigUint) -> BigUint {
        (a + b) % &self.p
    }
    fn sub(&self, a: &BigUint, b: &BigUint) -> BigUint {
        (a + &self.p - (b % &self.p)) % &self.p
    }
    fn mul(&self, a: &BigUint, b: &BigUint) -> BigUint {
        (a * b) % &self.p
    }
    fn inv(&self, a: &BigUint) -> BigUint {
        a.modpow(&(&self.p - 2u32), &self.p)
    }
}

type Point = [BigUint; 4];

/// The paper's squared theta constants `(a² : b² : c² : d²)` (§2.6).
const THETA2: [i64; 4] = [11, -22, -19, -3];

/// The model of the surface: the Hadamard transform, pseudo-doubling and differential
/// addition on the squared Kummer surface, from the theta constants alone.
struct Model {
    f: Fp,
    /// `(a², b², c², d²)` and `(A², B², C², D²) = H(a², b², c², d²)`.
    t2: Point,
    big2: Point,
}

impl Model {
    fn new() -> Model {
        let f = Fp::new();
        let t2 = THETA2.map(|v| f.int(v));
        let big2 = Model::h_with(&f, &t2);
        Model { f, t2, big2 }
    }

    fn h_with(f: &Fp, x: &Point) -> Point {
        let [a, b, c, d] = x;
        // Written out as the definition, not as a butterfly.
        [
            f.add(&f.add(a, b), &f.add(c, d)),
            f.sub(&f.add(a, b), &f.add(c, d)),
            f.sub(&f.add(a, c), &f.add(b, d)),
            f.sub(&f.add(a, d), &f.add(b, c)),
        ]
    }

    fn h(&self, x: &Point) -> Point {
        Model::h_with(&self.f, x)
    }

    fn each(&self, x: &Point, g: impl Fn(usize, &BigUint) -> BigUint) -> Point {
        [0, 1, 2, 3].map(|i| g(i, &x[i]))
    }

    fn divide_by(&self, x: &Point, d: &Point) -> Point {
        self.each(x, |i, v| self.f.mul(v, &self.f.inv(&d[i])))
    }

    /// `[2]P`: H, squares, divided by (A², B², C², D²), H, squares, divided by (a², …).
    fn double(&self, p: &Point) -> Point {
        let v = self.h(p);
        let v = self.each(&v, |_, x| self.f.mul(x, x));
        let v = self.divide_by(&v, &self.big2);
        let v = self.h(&v);
        let v = self.each(&v, |_, x| self.f.mul(x, x));
        self.divide_by(&v, &self.t2)
    }

    /// `P + Q` from `P`, `Q` and `P − Q` (all coordinates of the difference nonzero).
    fn add(&self, p: &Point, q: &Point, diff: &Point) -> Point {
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
    fn surface(&self, x: &Point) -> BigUint {
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
    fn same(&self, x: &Point, y: &Point) -> bool {
        (0..4).all(|i| (0..4).all(|j| self.f.mul(&x[i], &y[j]) == self.f.mul(&x[j], &y[i])))
    }

    /// The point with inverted-affine coordinates `(x/y, x/z, x/t) = (u, v, w)`:
    /// `(1 : 1/u : 1/v : 1/w)`.
    fn point_of_inverted(&self, uvw: &[BigUint; 3]) -> Point {
        let f = &self.f;
        [
            BigUint::one(),
            f.inv(&uvw[0]),
            f.inv(&uvw[1]),
            f.inv(&uvw[2]),
        ]
    }

    /// `[n]B` by the Montgomery ladder from `(identity, B)`.
    fn ladder(&self, n: &BigUint, b: &Point) -> Point {
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
fn base_inverted(f: &Fp) -> [BigUint; 3] {
    [
        f.int(6),
        "142514137003289508520683013813888233576".parse().unwrap(),
        f.int(1),
    ]
}

/// The prime ℓ of the Jacobian order 16·ℓ (§2.6).
fn ell() -> BigUint {
    "1809251394333065553571917326471206521441306174399683558571672623546356726339"
        .parse()
        .unwrap()
}

fn spec(repr: fields::ReprChoice) -> FieldSpec {
    fields::resolve(
        "p127",
        &fields::FieldOptions {
            repr,
            ..Default::default()
        },
    )
    .unwrap()
}

fn both() -> [(FieldSpec, Function, formulas::Stats); 2] {
    [fields::ReprChoice::Saturated, fields::ReprChoice::Solinas].map(|r| {
        let s = spec(r);
        let (f, stats) = formulas::generate(Formula::KummerLadderstep, &s).unwrap();
        (s, f, stats)
    })
}

/// Element `e` of a parameter's limbs.
fn element(spec: &FieldSpec, limbs: &[u128], e: usize) -> BigUint {
    let n = spec.limbs() as usize;
    spec.eval(&limbs[e * n..(e + 1) * n]) % &spec.p
}

fn elements<const K: usize>(spec: &FieldSpec, limbs: &[u128]) -> [BigUint; K] {
    std::array::from_fn(|e| element(spec, limbs, e))
}

/// One step over the interpreter: `(R0', R1')` from `(R0, R1)`, the difference's
/// inverted-affine coordinates and the swap bit.
fn step(
    spec: &FieldSpec,
    f: &Function,
    swap: bool,
    d: &[BigUint; 3],
    r: [&Point; 2],
) -> [Point; 2] {
    let limbs =
        |xs: &[BigUint]| -> Vec<u128> { xs.iter().flat_map(|x| spec.to_limbs(x)).collect() };
    let input = vec![limbs(r[0]), limbs(r[1]), limbs(d), vec![swap as u128]];
    let out = interp::run(f, &input).unwrap_or_else(|e| panic!("{}: {e}", f.name));
    [elements(spec, &out[0]), elements(spec, &out[1])]
}

#[test]
fn base_point_and_identity_are_on_the_surface() {
    let m = Model::new();
    let b = m.point_of_inverted(&base_inverted(&m.f));
    assert!(m.surface(&b).is_zero(), "the paper's base point");
    assert!(
        m.surface(&m.t2).is_zero(),
        "the identity (a² : b² : c² : d²)"
    );
    let d = m.double(&b);
    assert!(m.surface(&d).is_zero(), "[2]B");
    let mut off = b.clone();
    off[3] = m.f.add(&off[3], &BigUint::one());
    assert!(
        !m.surface(&off).is_zero(),
        "a point off the surface is told apart"
    );
    // The model's group law: doubling the identity is the identity.
    assert!(m.same(&m.double(&m.t2), &m.t2));
}

#[test]
fn ladderstep_matches_the_model() {
    let m = Model::new();
    for ((spec, f, _), n) in both().iter().zip([10_000, 2_000]) {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(2014);
        let mut cases = inputs::edge_cases(f);
        cases.extend((0..n).map(|_| inputs::random(f, &mut rng)));
        let mut swaps = [0usize; 2];
        for (k, input) in cases.iter().enumerate() {
            let mut input = input.clone();
            let swap = k % 2 == 1;
            input[3][0] = swap as u128;
            swaps[swap as usize] += 1;
            let d: [BigUint; 3] = elements(spec, &input[2]);
            let r: [Point; 2] = [elements(spec, &input[0]), elements(spec, &input[1])];
            let got = interp::run(f, &input).unwrap_or_else(|e| panic!("{e} on {input:x?}"));
            // The ladder's difference is R1 − R0 with inverted-affine coordinates d.
            if d.iter().any(|x| x.is_zero()) {
                continue;
            }
            let diff = m.point_of_inverted(&d);
            let (p, q) = if swap { (&r[1], &r[0]) } else { (&r[0], &r[1]) };
            let dbl = m.double(p);
            let sum = m.add(p, q, &diff);
            let want = if swap { [sum, dbl] } else { [dbl, sum] };
            for (o, w) in got.iter().zip(&want) {
                let o: Point = elements(spec, o);
                // Degenerate inputs (a zero product) give the zero vector on both sides.
                let zero = |x: &Point| x.iter().all(|v| v.is_zero());
                assert_eq!(zero(&o), zero(w), "{}: {input:x?}", f.name);
                assert!(m.same(&o, w), "{}: output differs on {input:x?}", f.name);
            }
        }
        assert!(swaps[0] >= n / 2 && swaps[1] >= n / 2);
    }
}

#[test]
fn ladder_over_the_interpreter_has_the_papers_order() {
    let m = Model::new();
    let bi = base_inverted(&m.f);
    let b = m.point_of_inverted(&bi);
    let id = m.t2.clone();
    for (spec, f, _) in both() {
        let ladder = |n: &BigUint| -> Point {
            let (mut r0, mut r1) = (id.clone(), b.clone());
            for i in (0..n.bits()).rev() {
                let [a, c] = step(&spec, &f, n.bit(i), &bi, [&r0, &r1]);
                for x in [&a, &c] {
                    assert!(
                        m.surface(x).is_zero(),
                        "{}: a step left the surface",
                        f.name
                    );
                }
                (r0, r1) = (a, c);
            }
            r0
        };
        let l = ell();
        assert!(m.same(&ladder(&l), &id), "{}: [ℓ]B is the identity", f.name);
        assert!(m.same(&ladder(&(&l + 1u32)), &b), "{}: [ℓ+1]B = B", f.name);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(54389);
        let n = BigUint::from_bytes_le(&rng.random::<[u8; 32]>());
        assert!(
            m.same(&ladder(&n), &m.ladder(&n, &b)),
            "{}: a random scalar",
            f.name
        );
    }
}

#[test]
fn reductions_only_where_bounds_need_them() {
    let [(_, sat, sat_stats), (_, unsat, stats)] = both();
    assert_eq!(sat.name, "fiat_p127_solinas_ladderstep");
    assert_eq!(unsat.name, "fiat_p127_ladderstep");
    for s in [sat_stats, stats] {
        assert_eq!(s.muls, 4 + 4 + 8 + 3, "7 multiplications and 12 squarings");
        assert_eq!(s.small_muls, 12, "three rows of constants");
    }
    assert_eq!(
        sat_stats.extra_carries, 0,
        "saturated words: no carry chains at all"
    );
    assert!(
        stats.extra_carries <= 8,
        "3 limbs: carries only where a Hadamard row's bounds need them ({})",
        stats.extra_carries
    );
}

#[test]
fn hadamard_formula_is_the_transform() {
    let m = Model::new();
    for r in [fields::ReprChoice::Saturated, fields::ReprChoice::Solinas] {
        let spec = spec(r);
        let (f, _) = formulas::generate(Formula::KummerHadamard, &spec).unwrap();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(4);
        let mut cases = inputs::edge_cases(&f);
        cases.extend((0..1000).map(|_| inputs::random(&f, &mut rng)));
        for input in cases {
            let x: Point = elements(&spec, &input[0]);
            let got = interp::run(&f, &input).unwrap();
            let got: Point = elements(&spec, &got[0]);
            assert_eq!(got, m.h(&x), "{}: {input:x?}", f.name);
        }
    }
}
