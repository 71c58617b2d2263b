//! The Renes–Costello–Batina point formulas (`p256-add`, `p256-double`, `secp256k1-add`,
//! `secp256k1-double`) against an independent model: textbook affine chord-and-tangent
//! arithmetic on num-bigint (not the generator, not projective formulas), over the
//! interpreter, on ≥ 1,000 random pairs of points per formula plus the edge cases a
//! complete formula must get right: `P + P`, `P + (−P)`, `P + O`, `O + O`, `2·O`.
//! Every output is checked to be on the curve (projectively) and fully reduced (below
//! p, as every Montgomery function's output).

use cryptopt_frontend::fiat;
use cryptopt_gen::fields::{self, FieldSpec};
use cryptopt_gen::formulas::{self, Formula};
use cryptopt_ir::{interp, lower, Function};
use num_bigint::BigUint;
use num_traits::{One, Zero};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// A short Weierstrass curve y² = x³ + a·x + b over F_p, written out here (SEC 2).
struct Curve {
    p: BigUint,
    a: BigUint,
    b: BigUint,
}

fn hex(s: &str) -> BigUint {
    BigUint::parse_bytes(s.as_bytes(), 16).unwrap()
}

fn p256() -> Curve {
    let p = hex("ffffffff00000001000000000000000000000000ffffffffffffffffffffffff");
    Curve {
        a: &p - 3u32,
        b: hex("5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b"),
        p,
    }
}

fn secp256k1() -> Curve {
    Curve {
        p: hex("fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f"),
        a: BigUint::zero(),
        b: BigUint::from(7u32),
    }
}

/// A uniform-enough element below `n` (≤ 2^256): 320 random bits reduced.
fn below(rng: &mut Xoshiro256PlusPlus, n: &BigUint) -> BigUint {
    let words: Vec<u32> = (0..10).map(|_| rng.random()).collect();
    BigUint::from_slice(&words) % n
}

/// An affine point, `None` the point at infinity.
type Affine = Option<(BigUint, BigUint)>;

impl Curve {
    fn inv(&self, x: &BigUint) -> BigUint {
        x.modpow(&(&self.p - 2u32), &self.p)
    }
    fn sub(&self, x: &BigUint, y: &BigUint) -> BigUint {
        (x + &self.p - y % &self.p) % &self.p
    }
    fn rhs(&self, x: &BigUint) -> BigUint {
        let p = &self.p;
        (x * x % p * x + &self.a * x + &self.b) % p
    }
    fn on_curve(&self, q: &Affine) -> bool {
        match q {
            None => true,
            Some((x, y)) => y * y % &self.p == self.rhs(x),
        }
    }
    /// The textbook group law.
    fn add(&self, s: &Affine, t: &Affine) -> Affine {
        let p = &self.p;
        let (Some((x1, y1)), Some((x2, y2))) = (s, t) else {
            return s.clone().or_else(|| t.clone());
        };
        let lambda = if x1 == x2 {
            if (y1 + y2) % p == BigUint::zero() {
                return None;
            }
            (BigUint::from(3u32) * x1 * x1 + &self.a) % p * self.inv(&(y1 * 2u32 % p)) % p
        } else {
            self.sub(y2, y1) * self.inv(&self.sub(x2, x1)) % p
        };
        let x3 = self.sub(&self.sub(&(&lambda * &lambda % p), x1), x2);
        let y3 = self.sub(&(&lambda * self.sub(x1, &x3) % p), y1);
        Some((x3, y3))
    }
    fn neg(&self, q: &Affine) -> Affine {
        q.as_ref()
            .map(|(x, y)| (x.clone(), self.sub(&BigUint::zero(), y)))
    }
    /// A random point (p ≡ 3 mod 4 for both curves: the square root is a power).
    fn random_point(&self, rng: &mut Xoshiro256PlusPlus) -> Affine {
        let p = &self.p;
        loop {
            let x = below(rng, p);
            let r = self.rhs(&x);
            let y = r.modpow(&((p + 1u32) >> 2), p);
            if &y * &y % p == r {
                let y = if rng.random::<bool>() {
                    self.sub(&BigUint::zero(), &y)
                } else {
                    y
                };
                return Some((x, y));
            }
        }
    }
    /// (λx : λy : λ) for a random λ ≠ 0; infinity as (0 : λ : 0).
    fn projective(&self, q: &Affine, rng: &mut Xoshiro256PlusPlus) -> [BigUint; 3] {
        let l = below(rng, &(&self.p - 1u32)) + 1u32;
        match q {
            None => [BigUint::zero(), l, BigUint::zero()],
            Some((x, y)) => [x * &l % &self.p, y * &l % &self.p, l],
        }
    }
    /// (λ²x : λ³y : λ) for a random λ ≠ 0, a finite point in Jacobian coordinates.
    fn jacobian(&self, q: &Affine, rng: &mut Xoshiro256PlusPlus) -> [BigUint; 3] {
        let p = &self.p;
        let l = below(rng, &(p - 1u32)) + 1u32;
        let (x, y) = q.as_ref().expect("a finite point");
        let l2 = &l * &l % p;
        [x * &l2 % p, y * &l2 % p * &l % p, l]
    }
    fn affine(&self, [x, y, z]: &[BigUint; 3]) -> Affine {
        if z.is_zero() {
            return None;
        }
        let zi = self.inv(z);
        Some((x * &zi % &self.p, y * &zi % &self.p))
    }
    /// Y²Z = X³ + aXZ² + bZ³, and not (0 : 0 : 0).
    fn on_curve_projective(&self, [x, y, z]: &[BigUint; 3]) -> bool {
        let p = &self.p;
        let lhs = y * y % p * z % p;
        let rhs = (x * x % p * x + &self.a * x % p * z % p * z + &self.b * z % p * z % p * z) % p;
        lhs == rhs && !(x.is_zero() && y.is_zero() && z.is_zero())
    }
}

/// The formula's function and field, and the Montgomery conversions (R = 2^256).
struct Case {
    formula: Formula,
    curve: Curve,
    spec: FieldSpec,
    f: Function,
}

fn case(formula: Formula, field: &str, curve: Curve) -> Case {
    let spec = fields::preset(field).unwrap();
    let (f, _) = formulas::generate(formula, &spec).unwrap();
    Case {
        formula,
        curve,
        spec,
        f,
    }
}

impl Case {
    fn encode(&self, x: &BigUint) -> Vec<u128> {
        let m = (x << 256u32) % &self.curve.p;
        let mut w: Vec<u128> = m.iter_u64_digits().map(u128::from).collect();
        w.resize(4, 0);
        w
    }
    fn decode(&self, w: &[u128]) -> BigUint {
        let v = self.spec.eval(w);
        assert!(
            v < self.curve.p,
            "{}: an output is not below p",
            self.f.name
        );
        let r_inv = self
            .curve
            .inv(&((BigUint::one() << 256u32) % &self.curve.p));
        v * r_inv % &self.curve.p
    }
    /// Runs the formula on projective points; returns the result's coordinates.
    fn run(&self, points: &[[BigUint; 3]]) -> [BigUint; 3] {
        let input: Vec<Vec<u128>> = points.iter().flatten().map(|c| self.encode(c)).collect();
        let out = interp::run(&self.f, &input).unwrap_or_else(|e| panic!("{}: {e}", self.f.name));
        [0, 1, 2].map(|i| self.decode(&out[i]))
    }
}

/// A pair for the addition: random, equal, opposite, or with the point at infinity.
fn pair(c: &Curve, k: usize, rng: &mut Xoshiro256PlusPlus) -> (Affine, Affine) {
    let s = c.random_point(rng);
    match k % 8 {
        0 => (s.clone(), s),
        1 => (s.clone(), c.neg(&s)),
        2 => (s, None),
        3 => (None, s),
        4 if k % 64 == 4 => (None, None),
        _ => (s, c.random_point(rng)),
    }
}

fn check_add(case: &Case) {
    let c = &case.curve;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2016);
    for k in 0..1000 {
        let (s, t) = pair(c, k, &mut rng);
        assert!(c.on_curve(&s) && c.on_curve(&t));
        let ps = c.projective(&s, &mut rng);
        let pt = c.projective(&t, &mut rng);
        let got = case.run(&[ps, pt]);
        assert!(
            c.on_curve_projective(&got),
            "{}: case {k} is off the curve",
            case.f.name
        );
        assert_eq!(c.affine(&got), c.add(&s, &t), "{}: case {k}", case.f.name);
    }
}

fn check_double(case: &Case, add: &Case) {
    let c = &case.curve;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1060);
    for k in 0..1000 {
        let s = if k % 50 == 0 {
            None
        } else {
            c.random_point(&mut rng)
        };
        let ps = c.projective(&s, &mut rng);
        let got = case.run(std::slice::from_ref(&ps));
        assert!(
            c.on_curve_projective(&got),
            "{}: case {k} is off the curve",
            case.f.name
        );
        let want = c.add(&s, &s);
        assert_eq!(c.affine(&got), want, "{}: case {k}", case.f.name);
        // add(P, P) == double(P), as points (the coordinates may differ by a factor).
        if k % 10 == 0 {
            let sum = add.run(&[ps.clone(), ps]);
            assert_eq!(c.affine(&sum), want, "add(P, P) vs double(P), case {k}");
        }
    }
}

#[test]
fn p256_add_matches_the_group_law() {
    check_add(&case(Formula::P256Add, "p256", p256()));
}

#[test]
fn p256_double_matches_the_group_law() {
    let add = case(Formula::P256Add, "p256", p256());
    check_double(&case(Formula::P256Double, "p256", p256()), &add);
}

#[test]
fn secp256k1_add_matches_the_group_law() {
    check_add(&case(Formula::Secp256k1Add, "secp256k1", secp256k1()));
}

#[test]
fn secp256k1_double_matches_the_group_law() {
    let add = case(Formula::Secp256k1Add, "secp256k1", secp256k1());
    check_double(
        &case(Formula::Secp256k1Double, "secp256k1", secp256k1()),
        &add,
    );
}

/// The Jacobian doublings (`p256-double-jacobian`, `dbl-2001-b`; `secp256k1-double-
/// jacobian`, `dbl-2009-l`) on Jacobian points (λ²x : λ³y : λ), and the doublings from
/// projective into Jacobian coordinates (`*-double-to-jacobian`) on projective points
/// (λx : λy : λ), against the affine model; the point at infinity as the ECDH driver
/// brings it, (0 : 0 : 0) or (0 : 1 : 0), comes out as (0 : 0 : 0); outputs are fully
/// reduced (`decode`).
#[test]
fn jacobian_doublings_match_the_group_law() {
    for (formula, field, curve, muls, projective_in) in [
        (
            Formula::P256DoubleJacobian,
            "p256",
            p256 as fn() -> Curve,
            8,
            false,
        ),
        (
            Formula::Secp256k1DoubleJacobian,
            "secp256k1",
            secp256k1,
            7,
            false,
        ),
        (Formula::P256DoubleToJacobian, "p256", p256, 7, true),
        (
            Formula::Secp256k1DoubleToJacobian,
            "secp256k1",
            secp256k1,
            7,
            true,
        ),
    ] {
        check_jacobian_double(&case(formula, field, curve()), muls, projective_in);
    }
}

fn check_jacobian_double(d: &Case, muls: usize, projective_in: bool) {
    let c = &d.curve;
    let p = &c.p;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2001);
    for k in 0..1000 {
        let s = c.random_point(&mut rng);
        let input = if projective_in {
            c.projective(&s, &mut rng)
        } else {
            c.jacobian(&s, &mut rng)
        };
        let [x3, y3, z3] = d.run(&[input]);
        assert!(!z3.is_zero(), "{} case {k}: 2·P is finite", d.formula);
        let zi = c.inv(&z3);
        let zi2 = &zi * &zi % p;
        let got = Some((x3 * &zi2 % p, y3 * zi2 % p * zi % p));
        assert!(c.on_curve(&got), "{} case {k} is off the curve", d.formula);
        assert_eq!(got, c.add(&s, &s), "{} case {k}", d.formula);
    }
    let zero = [BigUint::zero(), BigUint::zero(), BigUint::zero()];
    let infinity = if projective_in {
        [BigUint::zero(), BigUint::one(), BigUint::zero()]
    } else {
        zero.clone()
    };
    assert_eq!(
        d.run(std::slice::from_ref(&infinity)),
        zero,
        "{}: 2·O from {infinity:?}",
        d.formula
    );
    // No shared reduction (see `double_jacobian_a_minus3`).
    let (f, stats) = formulas::generate(d.formula, &d.spec).unwrap();
    assert_eq!(
        (stats.muls, stats.shared_reductions),
        (muls, 0),
        "{}",
        d.formula
    );
    assert!(f.name.contains("_point_double_"), "{}", f.name);
}

/// `*-double5` (five doublings, projective in and out, Jacobian inside) is 32·P by the
/// affine model on projective points (λx : λy : λ); its outputs are on the curve and
/// fully reduced; the point at infinity (0 : 1 : 0) comes out with Z = 0; it counts the
/// products of one doubling into Jacobian coordinates, four Jacobian ones and the
/// conversion back.
#[test]
fn double5_is_32_times_the_point() {
    for (formula, field, curve, muls) in [
        (
            Formula::P256Double5,
            "p256",
            p256 as fn() -> Curve,
            7 + 4 * 8 + 3,
        ),
        (
            Formula::Secp256k1Double5,
            "secp256k1",
            secp256k1,
            7 + 4 * 7 + 3,
        ),
    ] {
        let d = case(formula, field, curve());
        let c = &d.curve;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(32);
        for k in 0..200 {
            let s = c.random_point(&mut rng);
            let out = d.run(&[c.projective(&s, &mut rng)]);
            let mut want = s.clone();
            for _ in 0..5 {
                want = c.add(&want, &want);
            }
            assert_eq!(c.affine(&out), want, "{formula} case {k}");
        }
        let infinity = [BigUint::zero(), BigUint::one(), BigUint::zero()];
        assert!(d.run(&[infinity])[2].is_zero(), "{formula}: 32·O");
        let (_, stats) = formulas::generate(formula, &d.spec).unwrap();
        // The four Jacobian doublings after the first share Y3's reduction.
        assert_eq!(
            (stats.muls, stats.shared_reductions),
            (muls, 4),
            "{formula}"
        );
    }
}

/// `*-double-via-jacobian` (one doubling into Jacobian coordinates and back) is 2·P by
/// the affine model on projective points, on the curve and fully reduced, with the
/// products of the doubling into Jacobian coordinates and the three of the way back;
/// the point at infinity comes out with Z = 0.
#[test]
fn double_via_jacobian_is_twice_the_point() {
    for (formula, field, curve) in [
        (
            Formula::P256DoubleViaJacobian,
            "p256",
            p256 as fn() -> Curve,
        ),
        (Formula::Secp256k1DoubleViaJacobian, "secp256k1", secp256k1),
    ] {
        let d = case(formula, field, curve());
        let c = &d.curve;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
        for k in 0..1000 {
            let s = c.random_point(&mut rng);
            let out = d.run(&[c.projective(&s, &mut rng)]);
            assert!(
                c.on_curve_projective(&out),
                "{formula}: case {k} is off the curve"
            );
            assert_eq!(c.affine(&out), c.add(&s, &s), "{formula} case {k}");
        }
        let infinity = [BigUint::zero(), BigUint::one(), BigUint::zero()];
        assert!(d.run(&[infinity])[2].is_zero(), "{formula}: 2·O");
        let (_, stats) = formulas::generate(formula, &d.spec).unwrap();
        assert_eq!(stats.muls, 7 + 3, "{formula}");
    }
}

/// `*-double5` on inputs at or above p (any 256-bit words, as its bounds allow) is its
/// pieces run one after another: the first doubling (`*-double-to-jacobian`) on the raw
/// words, its outputs brought below p, four `*-double-jacobian` (two products for Y3,
/// no shared reduction) and the conversion back. The inputs include ones whose first
/// doubling leaves a coordinate at or above p, the values the reduction after it is
/// there for (a shared reduction needs operands below p): for P-256 the test counts
/// them (Y = Z = 2^256 − 1 makes Z3 ≥ p) and fails if there are none; for secp256k1 a
/// product lands there only from a window of width 2^256 − p ≈ 2^32 among sums near
/// 2^257, which no input here reaches.
#[test]
fn double5_is_its_pieces_on_unreduced_inputs() {
    for (formula, first, rest, field, curve, reaches_p) in [
        (
            Formula::P256Double5,
            Formula::P256DoubleToJacobian,
            Formula::P256DoubleJacobian,
            "p256",
            p256 as fn() -> Curve,
            true,
        ),
        (
            Formula::Secp256k1Double5,
            Formula::Secp256k1DoubleToJacobian,
            Formula::Secp256k1DoubleJacobian,
            "secp256k1",
            secp256k1,
            false,
        ),
    ] {
        let d = case(formula, field, curve());
        let (first, rest) = (case(first, field, curve()), case(rest, field, curve()));
        let p = &d.curve.p;
        let r_inv = d.curve.inv(&((BigUint::one() << 256u32) % p));
        let mont = |x: &BigUint, y: &BigUint| x * y % p * &r_inv % p;
        let words = |x: &BigUint| -> Vec<u128> {
            let mut w: Vec<u128> = x.iter_u64_digits().map(u128::from).collect();
            w.resize(4, 0);
            w
        };
        let value = |w: &[u128]| {
            w.iter()
                .rev()
                .fold(BigUint::zero(), |acc, &x| (acc << 64) + x)
        };
        let run = |f: &Function, input: &[Vec<u128>]| {
            interp::run(f, input).unwrap_or_else(|e| panic!("{}: {e}", f.name))
        };
        let top = (BigUint::one() << 256u32) - 1u32;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        let mut unreduced = 0;
        let mut values = vec![top.clone(), &top - 1u32, p.clone(), p + 1u32];
        values.extend((0..4).map(|_| &top - below(&mut rng, &(&top - p))));
        values.extend((0..4).map(|_| below(&mut rng, p)));
        for (k, x) in values.iter().enumerate() {
            for y in &values {
                let z = &values[(k + 5) % values.len()];
                let raw: Vec<Vec<u128>> = [x, y, z].iter().map(|c| words(c)).collect();
                let first_out = run(&first.f, &raw);
                unreduced += first_out.iter().filter(|c| value(c) >= *p).count();
                let mut q: Vec<Vec<u128>> =
                    first_out.iter().map(|c| words(&(value(c) % p))).collect();
                for _ in 0..4 {
                    q = run(&rest.f, &q);
                }
                let [qx, qy, qz] = [0, 1, 2].map(|i| value(&q[i]));
                let want = vec![
                    words(&mont(&qx, &qz)),
                    words(&qy),
                    words(&mont(&mont(&qz, &qz), &qz)),
                ];
                assert_eq!(run(&d.f, &raw), want, "{formula}: {x:#x} {y:#x} {z:#x}");
            }
        }
        assert_eq!(
            unreduced > 0,
            reaches_p,
            "{formula}: first doublings leaving a coordinate ≥ p: {unreduced}"
        );
    }
}

/// The complete formulas' special cases, spelled out: P + (−P) is the point at infinity
/// (Z = 0), P + O = P, O + O = O, 2·O = O.
#[test]
fn identities_of_the_complete_formulas() {
    for (add, dbl, field, curve) in [
        (
            Formula::P256Add,
            Formula::P256Double,
            "p256",
            p256 as fn() -> Curve,
        ),
        (
            Formula::Secp256k1Add,
            Formula::Secp256k1Double,
            "secp256k1",
            secp256k1,
        ),
    ] {
        let a = case(add, field, curve());
        let d = case(dbl, field, curve());
        let c = &a.curve;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        for _ in 0..20 {
            let s = c.random_point(&mut rng);
            let ps = c.projective(&s, &mut rng);
            let neg = c.projective(&c.neg(&s), &mut rng);
            let inf = c.projective(&None, &mut rng);
            let [_, y, z] = a.run(&[ps.clone(), neg]);
            assert!(z.is_zero() && !y.is_zero(), "{add}: P + (−P) is not O");
            assert_eq!(
                c.affine(&a.run(&[ps.clone(), inf.clone()])),
                s,
                "{add}: P + O"
            );
            assert_eq!(
                c.affine(&a.run(&[inf.clone(), inf.clone()])),
                None,
                "{add}: O + O"
            );
            assert_eq!(c.affine(&d.run(&[inf])), None, "{dbl}: 2·O");
        }
    }
}

/// The paper's operation counts (multiplications and squarings; the multiplications by
/// b count as multiplications in Montgomery form, by 3b as additions), the pairs of
/// products that share one Montgomery reduction (every product the paper only adds to
/// another: lines 35–43 of Algorithm 4 and 25–33 of Algorithm 7 make three each,
/// Algorithm 6 two, Algorithm 9
/// one), and the shape of the functions: 6 or 3 input elements, 3 outputs, nine or six
/// pointer arguments.
#[test]
fn formulas_have_the_papers_shape() {
    let cases = [
        (Formula::P256Add, "p256", 12 + 2, 3, 6),
        (Formula::P256Double, "p256", 8 + 3 + 2, 2, 3),
        (Formula::Secp256k1Add, "secp256k1", 12, 3, 6),
        (Formula::Secp256k1Double, "secp256k1", 6 + 2, 1, 3),
    ];
    for (formula, field, muls, shared, ins) in cases {
        let spec = fields::preset(field).unwrap();
        let (f, stats) = formulas::generate(formula, &spec).unwrap();
        assert_eq!(stats.muls, muls, "{formula}");
        assert_eq!(stats.shared_reductions, shared, "{formula}");
        assert_eq!(f.params.len(), ins, "{formula}");
        assert_eq!(f.returns.len(), 3, "{formula}");
        assert_eq!(
            f.name,
            format!(
                "fiat_{}_{}",
                spec.name,
                if ins == 6 {
                    "point_add"
                } else {
                    "point_double"
                }
            )
        );
    }
}

/// The lowered function computes the same, and the function survives its Fiat JSON
/// round trip.
#[test]
fn point_formulas_lower_and_round_trip() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    for (formula, field) in [
        (Formula::P256Add, "p256"),
        (Formula::P256Double, "p256"),
        (Formula::P256DoubleJacobian, "p256"),
        (Formula::Secp256k1Add, "secp256k1"),
        (Formula::Secp256k1Double, "secp256k1"),
        (Formula::Secp256k1DoubleJacobian, "secp256k1"),
        (Formula::P256DoubleToJacobian, "p256"),
        (Formula::Secp256k1DoubleToJacobian, "secp256k1"),
        (Formula::P256Double5, "p256"),
        (Formula::Secp256k1Double5, "secp256k1"),
        (Formula::P256DoubleViaJacobian, "p256"),
        (Formula::Secp256k1DoubleViaJacobian, "secp256k1"),
    ] {
        let spec = fields::preset(field).unwrap();
        let (f, _) = formulas::generate(formula, &spec).unwrap();
        let g = lower::lower(&f).unwrap();
        for _ in 0..20 {
            let input = cryptopt_ir::inputs::random(&f, &mut rng);
            assert_eq!(
                interp::run(&g, &input).unwrap(),
                interp::run(&f, &input).unwrap()
            );
        }
        let json = cryptopt_emit::to_fiat_json(&f).unwrap();
        let text = serde_json::to_string(&serde_json::Value::Array(vec![json])).unwrap();
        assert_eq!(fiat::parse_functions(&text).unwrap(), vec![f], "{formula}");
    }
}

/// A point formula needs its curve's field in the Montgomery representation.
#[test]
fn point_formulas_refuse_other_fields() {
    let err = formulas::generate(Formula::P256Add, &fields::preset("secp256k1").unwrap())
        .unwrap_err()
        .to_string();
    assert!(err.contains("fields: p256"), "{err}");
    // secp256k1 forced into unsaturated limbs (p256 has no such form): refused.
    let k1 = fields::resolve(
        "secp256k1",
        &fields::FieldOptions {
            repr: fields::ReprChoice::Solinas,
            ..Default::default()
        },
    )
    .unwrap();
    let err = formulas::generate(Formula::Secp256k1Add, &k1)
        .unwrap_err()
        .to_string();
    assert!(err.contains("the montgomery representation"), "{err}");
}
