//! The constants of a Gallant–Lambert–Vanstone scalar split, derived from the
//! endomorphism's eigenvalue λ and the group order n (never typed in): a short basis
//! (a1, b1), (a2, b2) of the lattice {(x, y) : x + y·λ ≡ 0 (mod n)} by the extended
//! Euclidean algorithm (Guide to Elliptic Curve Cryptography, Algorithm 3.74), and
//! g1 = round(2^384·b2 / n), g2 = round(2^384·(−b1) / n), so that the driver's
//! c1 = round(k·g1 / 2^384), c2 = round(k·g2 / 2^384) approximate k·b2/n and −k·b1/n and
//! k1 = k − c1·a1 − c2·a2, k2 = −c1·b1 − c2·b2 are short with k ≡ k1 + k2·λ (mod n).
//! For secp256k1 these are libsecp256k1's constants (the test says so).

use num_bigint::{BigInt, BigUint, Sign};
use num_traits::{Signed, Zero};

/// The split's constants, each as the driver uses it (nonnegative; `minus_b1` is −b1).
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Split {
    pub a1: BigUint,
    pub minus_b1: BigUint,
    pub a2: BigUint,
    pub b2: BigUint,
    pub g1: BigUint,
    pub g2: BigUint,
}

/// The split for eigenvalue `lambda` of a group of prime order `n`; `None` if the basis
/// has a sign the driver does not handle (a1, a2, b2 ≥ 0 and b1 < 0, as for secp256k1).
pub(super) fn split(lambda: &BigUint, n: &BigUint) -> Option<Split> {
    let n_i = BigInt::from(n.clone());
    let sqrt_n = BigInt::from(n.sqrt());
    // Remainders r and coefficients t with r ≡ t·λ (mod n), from (n, 0) and (λ, 1).
    let (mut r0, mut r1) = (n_i.clone(), BigInt::from(lambda.clone()));
    let (mut t0, mut t1) = (BigInt::zero(), BigInt::from(1));
    while r1 >= sqrt_n {
        let q = &r0 / &r1;
        let r2 = &r0 - &q * &r1;
        let t2 = &t0 - &q * &t1;
        (r0, r1, t0, t1) = (r1, r2, t1, t2);
    }
    // r1 is the first remainder below √n: (a1, b1) = (r1, −t1); the second vector is
    // the shorter of (r0, −t0) and the next (r2, −t2).
    let (a1, b1) = (r1.clone(), -t1.clone());
    let q = &r0 / &r1;
    let (r2, t2) = (&r0 - &q * &r1, &t0 - &q * &t1);
    let norm = |a: &BigInt, b: &BigInt| a * a + b * b;
    let (a2, b2) = if norm(&r0, &t0) <= norm(&r2, &t2) {
        (r0, -t0)
    } else {
        (r2, -t2)
    };
    if !b1.is_negative() {
        return None;
    }
    let unsigned = |x: &BigInt| (x.sign() != Sign::Minus).then(|| x.magnitude().clone());
    let round_div = |x: BigInt| (x + &n_i / 2) / &n_i;
    let g1 = round_div(b2.clone() << 384);
    let g2 = round_div(-b1.clone() << 384);
    Some(Split {
        a1: unsigned(&a1)?,
        minus_b1: unsigned(&-b1)?,
        a2: unsigned(&a2)?,
        b2: unsigned(&b2)?,
        g1: unsigned(&g1)?,
        g2: unsigned(&g2)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> BigUint {
        BigUint::parse_bytes(s.as_bytes(), 16).unwrap()
    }

    /// k1 + k2·λ ≡ k (mod n) with both halves below 2^128, computed as the driver does
    /// (exact integers), on edge and spread-out scalars; and the constants are
    /// libsecp256k1's (src/scalar_impl.h, secp256k1_scalar_split_lambda).
    #[test]
    fn secp256k1_split_is_libsecp256k1s_and_short() {
        let n = hex("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141");
        let lambda = hex("5363ad4cc05c30e0a5261c028812645a122e22ea20816678df02967c1b23bd72");
        let s = split(&lambda, &n).expect("secp256k1's basis has the driver's signs");
        assert_eq!(s.minus_b1, hex("e4437ed6010e88286f547fa90abfe4c3"));
        assert_eq!(s.b2, hex("3086d221a7d46bcde86c90e49284eb15"));
        assert_eq!(
            s.g1,
            hex("3086d221a7d46bcde86c90e49284eb153daa8a1471e8ca7fe893209a45dbb031")
        );
        assert_eq!(
            s.g2,
            hex("e4437ed6010e88286f547fa90abfe4c4221208ac9df506c61571b4ae8ac47f71")
        );
        let big = |x: &BigUint| BigInt::from(x.clone());
        let half = BigInt::from(1) << 383;
        let bound = BigInt::from(1) << 128;
        let mut ks: Vec<BigUint> = vec![1u32.into(), 2u32.into(), &n - 1u32, &n / 2u32];
        let mut x = BigUint::from(0x9e37_79b9_7f4a_7c15u64);
        for _ in 0..2000 {
            x = (&x * &x + 0x6a09_e667u32) % &n;
            ks.push(x.clone());
        }
        for k in ks {
            let kb = big(&k);
            let c1: BigInt = (&kb * big(&s.g1) + &half) >> 384;
            let c2: BigInt = (&kb * big(&s.g2) + &half) >> 384;
            let k1: BigInt = &kb - &c1 * big(&s.a1) - &c2 * big(&s.a2);
            let k2: BigInt = &c1 * big(&s.minus_b1) - &c2 * big(&s.b2);
            assert!(k1.abs() < bound && k2.abs() < bound, "{k:x}: {k1} {k2}");
            let back = (k1 + k2 * big(&lambda) - kb) % big(&n);
            assert!(back.is_zero(), "{k:x}");
        }
    }
}
