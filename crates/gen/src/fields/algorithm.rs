//! Algorithms as choices: for a field function, the other functions of the same
//! signature and the same meaning that compute it another way, for the search to choose
//! among ([`variants`]).
//!
//! ```text
//!  fiat_p256_mul (Fiat's JSON) ──▶ builtin_spec ──▶ (p256, mul) ─┬─ input: the function itself
//!                                                                ├─ word-by-word: m·p by p's form
//!                                                                └─ separated: product, then REDC
//! ```
//!
//! Montgomery `mul` and `square` (any preset of that representation):
//!
//! * [`Algorithm::WordByWord`]: Fiat's `word_by_word_montgomery` (the CIOS of Koç,
//!   Acar and Kaliski, "Analyzing and comparing Montgomery multiplication algorithms",
//!   1996), with `m·p` added as the prime's form allows ([`super::montgomery`]'s `Fold`:
//!   P-256's `p_0 = 2^64 − 1` makes the quotient word the low word itself and `m·p` one
//!   product and two shifts; secp256k1's `p = 2^256 − c` one product `m·c`).
//! * [`Algorithm::Separated`] (and [`Algorithm::SeparatedGeneric`], the same with `m·p`
//!   one product per limb of p, as Fiat adds it): the whole 2n-word product first (schoolbook rows; for a
//!   square each cross product once, doubled, plus the diagonal squares), then
//!   Montgomery's REDC of its low half word by word (the same `m·p` by form; for
//!   secp256k1 one borrow chain, as `bignum_montsqr_p256k1`), the high half added, one
//!   conditional subtraction: the structure of s2n-bignum's `bignum_montsqr_p256` and
//!   `bignum_montmul_p256` (awslabs/s2n-bignum, `x86/p256/`). The checker proves it for
//!   P-256, P-384 and secp256k1.
//!
//! Why each computes the same function as Fiat's, for every input (not only below p):
//! both produce the exact integer `T = (a·b + M·p) / R` before the one conditional
//! subtraction, with `M` the unique value in `[0, R)` making the numerator divisible by
//! `R` (each quotient word is determined by the running low word modulo 2^64, and the
//! low half of `a·b` is the same however it is summed). That argument is for the reader:
//! nothing downstream trusts it. The driver runs each variant against the input on
//! random inputs before searching it, and every written program is proved equal to the
//! *input* function by the checker, never to the variant.
//!
//! This module must never return a variant whose signature (parameters, bounds, returns)
//! differs from the input's.

use std::fmt;
use std::str::FromStr;

use cryptopt_ir::func::{Function, Param, Ty};

use super::build::Builder;
use super::montgomery::{self, arg_words, k, p_limbs, Words, W, ZERO};
use super::{builtin_spec, product, FieldError, FieldOp, FieldSpec, Repr};

/// How a field function is computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Algorithm {
    /// The function as it was given (Fiat's own algorithm, or whatever made it).
    Input,
    /// Word-by-word Montgomery with `m·p` by the prime's form.
    WordByWord,
    /// The full product (a dedicated square for `square`), then REDC of its low half.
    Separated,
    /// [`Algorithm::Separated`] with `m·p` as one product per nonzero limb of p, whatever
    /// its form (offered where the form makes a difference).
    SeparatedGeneric,
}

impl Algorithm {
    pub const ALL: [Algorithm; 4] = [
        Algorithm::Input,
        Algorithm::WordByWord,
        Algorithm::Separated,
        Algorithm::SeparatedGeneric,
    ];

    /// The name on the command line and in headers: `input`, `word-by-word`, `separated`.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Input => "input",
            Algorithm::WordByWord => "word-by-word",
            Algorithm::Separated => "separated",
            Algorithm::SeparatedGeneric => "separated-generic",
        }
    }

    /// One line for a program's header: what the algorithm does for `op`.
    pub fn describe(self, op: Option<FieldOp>) -> String {
        let name = self.name();
        match (self, op) {
            (Algorithm::Input, _) => format!("{name} (the function's own)"),
            (Algorithm::WordByWord, _) => {
                format!("{name} (Montgomery, word by word, m·p by the prime's form)")
            }
            (Algorithm::Separated, Some(FieldOp::Square)) => {
                format!("{name} (dedicated square, then Montgomery reduction by the prime's form)")
            }
            (Algorithm::Separated, _) => {
                format!("{name} (full product, then Montgomery reduction by the prime's form)")
            }
            (Algorithm::SeparatedGeneric, Some(FieldOp::Square)) => {
                format!("{name} (dedicated square, then Montgomery reduction limb by limb of p)")
            }
            (Algorithm::SeparatedGeneric, _) => {
                format!("{name} (full product, then Montgomery reduction limb by limb of p)")
            }
        }
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Algorithm {
    type Err = FieldError;
    fn from_str(s: &str) -> Result<Algorithm, FieldError> {
        Algorithm::ALL
            .into_iter()
            .find(|a| a.name() == s)
            .ok_or_else(|| FieldError::UnknownAlgorithm {
                name: s.to_string(),
                suggestion: cryptopt_ir::names::did_you_mean(
                    s,
                    Algorithm::ALL.into_iter().map(Algorithm::name),
                ),
                known: Algorithm::ALL.map(Algorithm::name).join(", "),
            })
    }
}

/// One way of computing a function.
#[derive(Clone, Debug)]
pub struct Variant {
    pub algorithm: Algorithm,
    pub function: Function,
    /// The operation, where the function is a field operation the generator knows.
    pub op: Option<FieldOp>,
}

/// The ways of computing `f`: always `f` itself first ([`Algorithm::Input`]), then, when
/// `f` is (by its Fiat name) a Montgomery `mul` or `square` of a preset, the other
/// algorithms above, each with `f`'s name and signature. A variant that comes out as
/// `f` itself (the generator made `f`) is left out.
pub fn variants(f: &Function) -> Result<Vec<Variant>, FieldError> {
    let spec_op = builtin_spec(&f.name).filter(|(spec, op)| {
        spec.repr == Repr::Montgomery && matches!(op, FieldOp::Mul | FieldOp::Square)
    });
    let op = spec_op.as_ref().map(|(_, op)| *op);
    let mut out = vec![Variant {
        algorithm: Algorithm::Input,
        function: f.clone(),
        op,
    }];
    let Some((spec, op)) = spec_op else {
        return Ok(out);
    };
    for algorithm in &Algorithm::ALL[1..] {
        let algorithm = *algorithm;
        let g = montgomery_variant(&spec, op, algorithm)?;
        let same_signature = g.params == f.params && g.returns == f.returns;
        let new = g != *f && out.iter().all(|v| v.function != g);
        if same_signature && new {
            out.push(Variant {
                algorithm,
                function: g,
                op: Some(op),
            });
        }
    }
    Ok(out)
}

/// `op` (mul or square) of a Montgomery field by `algorithm` (not `Input`).
fn montgomery_variant(
    spec: &FieldSpec,
    op: FieldOp,
    algorithm: Algorithm,
) -> Result<Function, FieldError> {
    if algorithm == Algorithm::WordByWord {
        return montgomery::generate(spec, op);
    }
    let n = spec.limbs() as usize;
    let arr = |name: &str| Param::array(name, Ty::U64, &vec![u64::MAX as u128; n]);
    let params: Vec<Param> = (1..=op.arity()).map(|i| arr(&format!("arg{i}"))).collect();
    let mut g = Words {
        b: Builder::new(spec.function_name(op), params, vec![arr("out1")]),
    };
    let p: Vec<W> = p_limbs(&spec.p, n).into_iter().map(k).collect();
    let a = arg_words(0, n);
    let by_form = algorithm == Algorithm::Separated;
    let out = match op {
        FieldOp::Square => separated(&mut g, &p, &a, None, by_form),
        _ => separated(&mut g, &p, &a, Some(&arg_words(1, n)), by_form),
    };
    for (i, w) in out.into_iter().enumerate() {
        g.b.store(0, i as u32, w.o);
    }
    g.b.finish()
}

/// `a·b·R⁻¹ mod p` (`a²·R⁻¹` without `b`): the 2n-word product `H·R + L`, then
/// `(L + M·p)/R + H` (below `2p` for inputs below p: `(L + M·p)/R ≤ p` and `H < p`), then
/// one conditional subtraction.
fn separated(g: &mut Words, p: &[W], a: &[W], b: Option<&[W]>, by_form: bool) -> Vec<W> {
    let n = p.len();
    let full = match b {
        Some(b) => product::product(g, a, b),
        None => product::square(g, a),
    };
    let (low, high) = full.split_at(n);
    let (t, top, owed) = montgomery::redc_low(g, p, low, by_form);
    let (s, c) = g.adc_chain(&t, high);
    // The sum is below R + p + 1 < 2R for any input (L, H < R): the top is 0 or 1.
    let top = g.adc(ZERO, top, c).0;
    let top = g.pay(top, owed);
    montgomery::reduce(g, p, s, top, 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_bigint::BigUint;
    use rand::{Rng, SeedableRng};

    /// Every variant of each preset's Montgomery mul and square against the generator's
    /// word-by-word function on the interpreter, on edge words and random inputs of any
    /// value (not only below p: the variants must agree everywhere).
    fn check(preset: &str) {
        let spec = crate::fields::preset(preset).expect("a preset");
        let n = spec.limbs() as usize;
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(9);
        for op in [FieldOp::Mul, FieldOp::Square] {
            let reference = montgomery::generate(&spec, op).expect("generates");
            let vs = variants(&reference).expect("variants");
            assert!(vs.len() >= 2, "{preset} {op}: a variant besides the input");
            let words = |rng: &mut rand_xoshiro::Xoshiro256PlusPlus| -> Vec<u128> {
                (0..n)
                    .map(|_| match rng.random_range(0..4) {
                        0 => 0,
                        1 => u64::MAX as u128,
                        _ => rng.random::<u64>() as u128,
                    })
                    .collect()
            };
            let p = &spec.p;
            let below_p = |rng: &mut rand_xoshiro::Xoshiro256PlusPlus| -> Vec<u128> {
                let bytes: Vec<u8> = (0..8 * n).map(|_| rng.random()).collect();
                spec.to_limbs(&(BigUint::from_bytes_le(&bytes) % p))
            };
            for round in 0..400 {
                let args: Vec<Vec<u128>> = (0..op.arity())
                    .map(|_| {
                        if round % 2 == 0 {
                            words(&mut rng)
                        } else {
                            below_p(&mut rng)
                        }
                    })
                    .collect();
                let want = cryptopt_ir::interp::run(&reference, &args).expect("runs");
                for v in &vs {
                    let got = cryptopt_ir::interp::run(&v.function, &args).expect("runs");
                    assert_eq!(got, want, "{preset} {op} {}: {args:x?}", v.algorithm);
                }
            }
        }
    }

    #[test]
    fn variants_agree_with_word_by_word_everywhere() {
        for preset in ["p224", "p256", "p384", "secp256k1", "p434", "bls12-381-p"] {
            check(preset);
        }
    }

    #[test]
    fn separated_square_takes_fewer_products() {
        let spec = crate::fields::preset("p256").expect("a preset");
        let f = montgomery_variant(&spec, FieldOp::Square, Algorithm::Separated).unwrap();
        let mulx = f
            .insts
            .iter()
            .filter(|i| matches!(i.op, cryptopt_ir::func::Op::Mulx { .. }))
            .count();
        // 6 cross products and 4 squares; REDC by p256's form: one product per step.
        assert_eq!(mulx, 6 + 4 + 4);
    }

    /// secp256k1's REDC is one borrow chain (s2n-bignum's shape): 2n − 1 borrows, where
    /// a step that ripples its borrow through the words above takes n per step; plus the
    /// n + 1 of the final subtraction.
    #[test]
    fn pseudo_mersenne_redc_is_one_borrow_chain() {
        let spec = crate::fields::preset("secp256k1").expect("a preset");
        let f = montgomery_variant(&spec, FieldOp::Square, Algorithm::Separated).unwrap();
        let count = |want: fn(&cryptopt_ir::func::Op) -> bool| {
            f.insts.iter().filter(|i| want(&i.op)).count()
        };
        use cryptopt_ir::func::Op as O;
        assert_eq!(
            count(|o| matches!(o, O::SubBorrow { .. })),
            (2 * 4 - 1) + (4 + 1)
        );
        // 6 cross products, 4 squares and one m·c per step.
        assert_eq!(count(|o| matches!(o, O::Mulx { .. })), 6 + 4 + 4);
    }

    #[test]
    fn names_round_trip_and_misspellings_are_refused() {
        for a in Algorithm::ALL {
            assert_eq!(a.name().parse::<Algorithm>(), Ok(a));
        }
        let e = "seperated".parse::<Algorithm>().unwrap_err().to_string();
        assert!(e.contains("did you mean `separated`"), "{e}");
    }

    #[test]
    fn a_function_that_is_not_a_montgomery_field_operation_has_only_itself() {
        let spec = crate::fields::preset("curve25519").expect("a preset");
        let f = crate::fields::generate(&spec, FieldOp::Mul).unwrap();
        let vs = variants(&f).unwrap();
        assert_eq!(vs.len(), 1);
        assert_eq!(vs[0].algorithm, Algorithm::Input);
    }
}
