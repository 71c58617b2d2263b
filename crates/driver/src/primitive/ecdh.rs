//! The Weierstrass ECDH primitives (`p256`, `secp256k1`): their pieces (the complete point
//! formulas and the Montgomery field operations), and the driver's prelude, the curve's
//! constants computed here from the field generator's own encoding, so that the C
//! template `ecdh_weierstrass.c` holds no number that could disagree with the pieces.

use std::fmt::Write as _;

use crate::Result;
use num_bigint::BigUint;
use num_traits::One;

use cryptopt_gen::fields::{self, FieldOp, FieldSpec, ReprChoice};
use cryptopt_gen::formulas::{self, Formula};

use super::Primitive;
use super::{base, field, glv, Piece, Recipe};

/// One curve: its field preset, formulas, group order, header and self-test answers.
struct Curve {
    /// The name in the driver's first line: `P-256`.
    title: &'static str,
    field: &'static str,
    add: Formula,
    /// The table's doubling: one doubling through Jacobian coordinates (its entries j·P,
    /// 1 ≤ j ≤ 16, are never the point at infinity, so it need not be complete).
    double: Formula,
    /// The window's five doublings as one function (Jacobian inside).
    double5: Formula,
    /// The order n of the base point (the group's order: both curves have cofactor 1).
    order: &'static str,
    /// libsecp256k1's hashed output instead of the bare x-coordinate.
    hashed: bool,
    /// An endomorphism (x, y) -> (β·x, y) acting as λ: `(λ, β)` in hex, for a
    /// Gallant–Lambert–Vanstone split of the scalar (half the doublings).
    glv: Option<(&'static str, &'static str)>,
    header: &'static str,
    vectors: &'static str,
}

fn curve(name: Primitive) -> Curve {
    match name {
        Primitive::P256 => Curve {
            title: "P-256",
            field: "p256",
            add: Formula::P256Add,
            double: Formula::P256DoubleViaJacobian,
            double5: Formula::P256Double5,
            order: "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551",
            hashed: false,
            glv: None,
            header: include_str!("cryptopt_p256.h"),
            vectors: include_str!("p256_vectors.c"),
        },
        Primitive::Secp256k1 => Curve {
            title: "secp256k1",
            field: "secp256k1",
            add: Formula::Secp256k1Add,
            double: Formula::Secp256k1DoubleViaJacobian,
            double5: Formula::Secp256k1Double5,
            order: "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141",
            hashed: true,
            // SEC 2's secp256k1 endomorphism (libsecp256k1's lambda and beta).
            glv: Some((
                "5363ad4cc05c30e0a5261c028812645a122e22ea20816678df02967c1b23bd72",
                "7ae96a2b657c07106e64479eac3434e99cf0497512f58995c1396c28719501ee",
            )),
            header: include_str!("cryptopt_secp256k1.h"),
            vectors: include_str!("secp256k1_vectors.c"),
        },
        Primitive::X25519 | Primitive::Kummer => {
            unreachable!("{} is not a Weierstrass curve", name.as_str())
        }
    }
}

pub(super) fn recipe(name: Primitive) -> Result<Recipe> {
    let c = curve(name);
    let spec = field(c.field, ReprChoice::Montgomery)?;
    let representation = spec.representation();
    let named = |f, suffix: &str| Piece::new(f, name, suffix, &representation);
    let (add, _) = formulas::generate(c.add, &spec)?;
    let (double, _) = formulas::generate(c.double, &spec)?;
    let (double5, _) = formulas::generate(c.double5, &spec)?;
    let mut pieces = vec![
        named(add, "point_add"),
        named(double, "point_double"),
        named(double5, "point_double5"),
    ];
    for op in [FieldOp::Mul, FieldOp::Square, FieldOp::Add, FieldOp::Sub] {
        pieces.push(named(fields::generate(&spec, op)?, op.name()));
    }
    Ok(Recipe {
        name,
        pieces,
        driver: format!(
            "{}{}",
            prelude(name, &c, &spec),
            include_str!("ecdh_weierstrass.c")
        ),
        header: c.header,
        selftest: format!(
            "{}#define ORDER_HEX \"{}\"\n{}",
            c.vectors,
            c.order,
            include_str!("ecdh_selftest.c")
        ),
    })
}

/// The lines before the template: what the curve is, its pieces' names, its constants.
fn prelude(name: Primitive, c: &Curve, spec: &FieldSpec) -> String {
    let (a, b) = c.add.curve().expect("a Weierstrass formula");
    let order = BigUint::parse_bytes(c.order.as_bytes(), 16).expect("a hex literal");
    let c_words = |limbs: Vec<u128>| -> String {
        let words: Vec<String> = limbs.iter().map(|w| format!("0x{w:016x}ULL")).collect();
        words.join(", ")
    };
    let words = |x: &BigUint| c_words(spec.to_limbs(x));
    let encoded = |x: &BigUint| c_words(spec.encode(x));
    let p = &spec.p;
    let r2 = (BigUint::one() << (2 * 64 * spec.limbs())) % p;
    let base = base(name);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "/* {base}: {} ECDH, written by `cryptopt primitive {}`: the curve and its \
         constants (little-endian 64-bit words; MONT_ marks the Montgomery domain). */",
        c.title,
        name.as_str()
    );
    let _ = writeln!(s, "#include <stdint.h>\n\n#include \"{base}.h\"\n");
    let _ = writeln!(s, "#define PIECE(x) {base}_##x");
    let _ = writeln!(s, "#define ECDH {base}_ecdh");
    let _ = writeln!(s, "#define A_IS_MINUS_3 {}", u8::from(a == -3));
    let _ = writeln!(s, "#define HASHED {}", u8::from(c.hashed));
    let _ = writeln!(s, "#define GLV {}", u8::from(c.glv.is_some()));
    for (cname, value) in [
        ("FIELD_P", words(p)),
        ("ORDER_N", words(&order)),
        ("P_MINUS_2", words(&(p - 2u32))),
        ("MONT_R2", words(&r2)),
        ("MONT_ONE", encoded(&BigUint::one())),
        ("CURVE_B", encoded(&b)),
    ] {
        let _ = writeln!(s, "static const uint64_t {cname}[4] = {{{value}}};");
    }
    if let Some((lambda, beta)) = c.glv {
        let hex = |x: &str| BigUint::parse_bytes(x.as_bytes(), 16).expect("a hex literal");
        let g = glv::split(&hex(lambda), &order)
            .expect("the curve's GLV basis has the signs the driver handles");
        for (cname, value) in [
            ("MONT_BETA", encoded(&hex(beta))),
            ("GLV_A1", words(&g.a1)),
            ("GLV_MINUS_B1", words(&g.minus_b1)),
            ("GLV_A2", words(&g.a2)),
            ("GLV_B2", words(&g.b2)),
            ("GLV_G1", words(&g.g1)),
            ("GLV_G2", words(&g.g2)),
        ] {
            let _ = writeln!(s, "static const uint64_t {cname}[4] = {{{value}}};");
        }
    }
    s.push('\n');
    s
}
