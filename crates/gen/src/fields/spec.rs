//! Fields: the presets, the validation of a modulus, and the choice of representation.

use std::fmt::Write;

use num_bigint::BigUint;
use num_traits::{One, ToPrimitive, Zero};

use super::prime::{is_probable_prime, parse_prime};
use super::solinas::{self, Params};
use super::{FieldError, FieldOp};

/// Smallest modulus size in bits: more than one 64-bit word.
pub const MIN_BITS: u64 = 65;
/// Largest modulus size in bits (16 Montgomery limbs).
pub const MAX_BITS: u64 = 1024;

/// How field elements are represented (see the module documentation of
/// [`crate::fields`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Repr {
    /// Word-by-word Montgomery on `⌈log2 p / 64⌉` saturated 64-bit limbs.
    Montgomery,
    /// Unsaturated Solinas for `p = 2^k - c`, on `limbs` limbs of about `k/limbs` bits.
    Solinas { limbs: u32 },
    /// Saturated Solinas: `⌈log2 p / 64⌉` full 64-bit limbs, any value below `2^(64n)`,
    /// reduced by `2^(64n) ≡ c (mod p)` for a small `c` (curve25519: 38).
    Saturated,
}

/// The representation asked for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ReprChoice {
    /// A preset's own; for other moduli unsaturated Solinas where `p = 2^k - c` fits some
    /// limb count (as a Fiat user would choose), else Montgomery. With a limb count:
    /// Solinas.
    #[default]
    Auto,
    Montgomery,
    Solinas,
    Saturated,
}

/// Options of [`FieldSpec::new`] and [`resolve`] (the command line's `--repr`,
/// `--limbs`, `--allow-composite`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FieldOptions {
    pub repr: ReprChoice,
    /// Unsaturated limb count; `None` for Fiat's automatic choice.
    pub limbs: Option<u32>,
    /// Accept a modulus that is not prime (it must still be odd).
    pub allow_composite: bool,
}

/// A validated field: its modulus and representation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldSpec {
    /// The part of the function names after `fiat_` (`p256`, `25519`, `custom`).
    pub name: String,
    /// The modulus as written (`2^255 - 19`), for documentation and messages.
    pub formula: String,
    pub p: BigUint,
    pub repr: Repr,
    solinas: Option<Params>,
}

struct Preset {
    /// Command-line name.
    key: &'static str,
    /// Function-name prefix, as in fiat-crypto.
    name: &'static str,
    formula: &'static str,
    solinas: bool,
    why: &'static str,
}

const PRESET_TABLE: &[Preset] = &[
    Preset {
        key: "curve25519",
        name: "25519",
        formula: "2^255 - 19",
        solinas: true,
        why: "2^k - c with c = 19: unsaturated Solinas, as fiat-crypto's curve25519_64",
    },
    Preset {
        key: "p224",
        name: "p224",
        formula: "2^224 - 2^96 + 1",
        solinas: false,
        why: "c = 2^96 - 1 is not small: Montgomery, as fiat-crypto's p224_64",
    },
    Preset {
        key: "p256",
        name: "p256",
        formula: "2^256 - 2^224 + 2^192 + 2^96 - 1",
        solinas: false,
        why: "c = 2^224 - 2^192 - 2^96 + 1 is not small: Montgomery, as fiat-crypto's p256_64",
    },
    Preset {
        key: "p384",
        name: "p384",
        formula: "2^384 - 2^128 - 2^96 + 2^32 - 1",
        solinas: false,
        why: "c = 2^128 + 2^96 - 2^32 + 1 is not small: Montgomery, as fiat-crypto's p384_64",
    },
    Preset {
        key: "p434",
        name: "p434",
        formula: "2^216 * 3^137 - 1",
        solinas: false,
        why: "not of the form 2^k - c: Montgomery, as fiat-crypto's p434_64 (SIKEp434)",
    },
    Preset {
        key: "p448",
        name: "p448",
        formula: "2^448 - 2^224 - 1",
        solinas: true,
        why: "2^k - c with the two taps 2^224 and 1: unsaturated Solinas, as fiat-crypto's p448_solinas_64",
    },
    Preset {
        key: "p521",
        name: "p521",
        formula: "2^521 - 1",
        solinas: true,
        why: "2^k - c with c = 1: unsaturated Solinas, as fiat-crypto's p521_64",
    },
    Preset {
        key: "p127",
        name: "p127",
        formula: "2^127 - 1",
        solinas: true,
        why: "2^k - c with c = 1: unsaturated Solinas (3 limbs); the Kummer surface's field (\"Kummer strikes back\")",
    },
    Preset {
        key: "poly1305",
        name: "poly1305",
        formula: "2^130 - 5",
        solinas: true,
        why: "2^k - c with c = 5: unsaturated Solinas, as fiat-crypto's poly1305_64",
    },
    Preset {
        key: "secp256k1",
        name: "secp256k1_montgomery",
        formula: "2^256 - 2^32 - 977",
        solinas: false,
        why: "c = 2^32 + 977 needs 6 unsaturated limbs: Montgomery, as fiat-crypto's secp256k1_montgomery_64",
    },
    Preset {
        key: "bls12-381-p",
        name: "bls12_381_p",
        formula: "0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab",
        solinas: false,
        why: "the BLS12-381 base field, not of the form 2^k - c: Montgomery",
    },
];

/// The preset names, as the command line takes them.
pub const PRESETS: &[&str] = &[
    "curve25519",
    "p224",
    "p256",
    "p384",
    "p434",
    "p448",
    "p521",
    "p127",
    "poly1305",
    "secp256k1",
    "bls12-381-p",
];

/// A preset with its own representation, or `None` for an unknown name.
pub fn preset(name: &str) -> Option<FieldSpec> {
    resolve_preset(name, &FieldOptions::default()).map(|r| r.expect("presets are valid"))
}

fn resolve_preset(key: &str, opts: &FieldOptions) -> Option<Result<FieldSpec, FieldError>> {
    let pr = PRESET_TABLE.iter().find(|pr| pr.key == key)?;
    let p = parse_prime(pr.formula).expect("preset formulas parse");
    let mut opts = opts.clone();
    if opts.repr == ReprChoice::Auto && opts.limbs.is_none() {
        opts.repr = if pr.solinas {
            ReprChoice::Solinas
        } else {
            ReprChoice::Montgomery
        };
    }
    Some(FieldSpec::new(pr.name, pr.formula, p, &opts))
}

/// `field` is a preset name or a modulus expression (see [`parse_prime`]); a custom
/// modulus gets the name `custom` (`fiat_custom_mul`). With a preset, a representation
/// or limb count in `opts` replaces the preset's own.
pub fn resolve(field: &str, opts: &FieldOptions) -> Result<FieldSpec, FieldError> {
    let field = field.trim();
    if let Some(r) = resolve_preset(field, opts) {
        return r;
    }
    let looks_like_name = field
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && field
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if looks_like_name {
        return Err(FieldError::UnknownField {
            name: field.to_string(),
            suggestion: cryptopt_ir::names::did_you_mean(field, PRESETS.iter().copied()),
            presets: PRESETS.join(", "),
        });
    }
    let p = parse_prime(field)?;
    FieldSpec::new("custom", field, p, opts)
}

fn hex(p: &BigUint) -> String {
    format!("{p:#x}")
}

impl FieldSpec {
    /// Validates `p` (odd, [`MIN_BITS`]..=[`MAX_BITS`] bits, prime unless
    /// `opts.allow_composite`) and chooses the representation (see [`ReprChoice`]).
    /// `name` becomes part of the function names; `formula` is kept for messages.
    pub fn new(
        name: &str,
        formula: &str,
        p: BigUint,
        opts: &FieldOptions,
    ) -> Result<FieldSpec, FieldError> {
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(FieldError::BadName {
                name: name.to_string(),
            });
        }
        if !p.bit(0) {
            return Err(FieldError::Even { p: hex(&p) });
        }
        let bits = p.bits();
        if bits < MIN_BITS {
            return Err(FieldError::TooSmall { p: hex(&p), bits });
        }
        if bits > MAX_BITS {
            return Err(FieldError::TooLarge { p: hex(&p), bits });
        }
        if !opts.allow_composite && !is_probable_prime(&p) {
            return Err(FieldError::Composite { p: hex(&p) });
        }
        let mont_limbs = bits.div_ceil(64) as u32;
        let (repr, solinas) = match (opts.repr, opts.limbs) {
            (ReprChoice::Montgomery, Some(l)) if l != mont_limbs => {
                return Err(FieldError::LimbsForMontgomery { needed: mont_limbs })
            }
            (ReprChoice::Montgomery, _) => (Repr::Montgomery, None),
            (ReprChoice::Saturated, Some(l)) if l != mont_limbs => {
                return Err(FieldError::LimbsForMontgomery { needed: mont_limbs })
            }
            (ReprChoice::Saturated, _) => {
                if super::saturated::fold_constant(&p, mont_limbs).is_none() {
                    let c = (BigUint::one() << (64 * mont_limbs)) % &p;
                    return Err(FieldError::NotSaturated {
                        p: hex(&p),
                        bits: 64 * mont_limbs,
                        c: hex(&c),
                    });
                }
                (Repr::Saturated, None)
            }
            (_, Some(n)) => {
                let s = solinas_exact(&p, n)?;
                (Repr::Solinas { limbs: n }, Some(s))
            }
            (ReprChoice::Solinas, None) => {
                let s = solinas_search(&p)?;
                (Repr::Solinas { limbs: s.n }, Some(s))
            }
            (ReprChoice::Auto, None) => match solinas_search(&p) {
                Ok(s) => (Repr::Solinas { limbs: s.n }, Some(s)),
                Err(_) => (Repr::Montgomery, None),
            },
        };
        Ok(FieldSpec {
            name: name.to_string(),
            formula: formula.trim().to_string(),
            p,
            repr,
            solinas,
        })
    }

    pub(crate) fn solinas_params(&self) -> Option<&Params> {
        self.solinas.as_ref()
    }

    /// Number of limbs.
    pub fn limbs(&self) -> u32 {
        match self.repr {
            Repr::Montgomery | Repr::Saturated => self.p.bits().div_ceil(64) as u32,
            Repr::Solinas { limbs } => limbs,
        }
    }

    /// The exponent of each limb's weight: `eval z = Σ z[i]·2^weights[i]`.
    pub fn weights(&self) -> Vec<u32> {
        match &self.solinas {
            Some(s) => s.weights[..s.n as usize].to_vec(),
            None => (0..self.limbs()).map(|i| 64 * i).collect(),
        }
    }

    /// Bits per limb (64 for Montgomery).
    pub fn limb_widths(&self) -> Vec<u32> {
        match &self.solinas {
            Some(s) => s.widths(),
            None => vec![64; self.limbs() as usize],
        }
    }

    /// Per-limb upper bounds of a fully carried element: Solinas `2^width`
    /// (`carry_mul`'s output, `add`'s input); Montgomery `2^64 - 1` (values must also be
    /// `< p` as a whole).
    pub fn tight_bounds(&self) -> Vec<u128> {
        match &self.solinas {
            Some(s) => s.tight(),
            None => vec![u64::MAX as u128; self.limbs() as usize],
        }
    }

    /// Per-limb upper bounds of an uncarried element: Solinas `3·2^width` (`add`'s
    /// output, `carry_mul`'s input); Montgomery as [`Self::tight_bounds`].
    pub fn loose_bounds(&self) -> Vec<u128> {
        match &self.solinas {
            Some(s) => s.loose(),
            None => self.tight_bounds(),
        }
    }

    /// Fiat's name of the function for `op`: `fiat_p256_mul`, `fiat_25519_carry_mul`.
    pub fn function_name(&self, op: FieldOp) -> String {
        let suffix = match (self.repr, op) {
            (Repr::Solinas { .. }, FieldOp::Mul) => "carry_mul",
            (Repr::Solinas { .. }, FieldOp::Square) => "carry_square",
            _ => op.name(),
        };
        format!("fiat_{}_{suffix}", self.prefix())
    }

    /// The function-name prefix after `fiat_`: the field's name, with `_solinas` for
    /// the saturated Solinas representation (Fiat's `fiat_curve25519_solinas_mul`).
    pub fn prefix(&self) -> String {
        match self.repr {
            Repr::Saturated => format!("{}_solinas", self.name),
            _ => self.name.clone(),
        }
    }

    /// `eval z = Σ z[i]·2^weights[i]` (not reduced, not converted from the Montgomery
    /// domain).
    pub fn eval(&self, limbs: &[u128]) -> BigUint {
        limbs
            .iter()
            .zip(self.weights())
            .fold(BigUint::zero(), |acc, (&z, w)| {
                acc + (BigUint::from(z) << w)
            })
    }

    /// The limbs of `x < 2^(top weight + top width)`, each below `2^width`.
    pub fn to_limbs(&self, x: &BigUint) -> Vec<u128> {
        self.weights()
            .into_iter()
            .zip(self.limb_widths())
            .map(|(w, b)| {
                ((x >> w) & ((BigUint::one() << b) - 1u32))
                    .to_u128()
                    .expect("a limb fits")
            })
            .collect()
    }

    /// The limbs that stand for the field element `x` in this representation:
    /// Montgomery's `x·R mod p`, otherwise `x mod p` (each limb within its width).
    pub fn encode(&self, x: &BigUint) -> Vec<u128> {
        let x = x % &self.p;
        match self.repr {
            Repr::Montgomery => self.to_limbs(&((x << (64 * self.limbs())) % &self.p)),
            Repr::Solinas { .. } | Repr::Saturated => self.to_limbs(&x),
        }
    }

    /// How a limb vector stands for a field element, in one line (also the `data:` line
    /// of the header on every program made from a generated function).
    pub fn representation(&self) -> String {
        let n = self.limbs();
        if self.repr == Repr::Saturated {
            let c = super::saturated::fold_constant(&self.p, n).unwrap_or(0);
            return format!(
                "saturated Solinas, {n} 64-bit limbs, 2^{} ≡ {c} (mod p); a limb vector z stands for Σ z[i]·2^(64i) mod p (any value below 2^{}), p = {}",
                64 * n,
                64 * n,
                self.formula
            );
        }
        match &self.solinas {
            None => format!(
                "word-by-word Montgomery, {n} saturated 64-bit limbs, R = 2^{}; a limb vector z stands for (Σ z[i]·2^(64i))·R⁻¹ mod p, p = {}",
                64 * n,
                self.formula
            ),
            Some(sp) => {
                let weights: Vec<String> = self.weights().iter().map(|w| w.to_string()).collect();
                format!(
                    "unsaturated Solinas {}, {}; a limb vector z stands for Σ z[i]·2^W[i] mod p, W = [{}]",
                    solinas::form(sp.k, &sp.taps),
                    solinas::limbs_text(sp.k, sp.n),
                    weights.join(", ")
                )
            }
        }
    }

    /// A few lines for `cryptopt gen --describe` and the docs: modulus, representation,
    /// limb weights, bounds, laws, and for a preset why this representation.
    pub fn describe(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{} (fiat_{}_*): p = {} = {} ({} bits)",
            PRESET_TABLE
                .iter()
                .find(|pr| pr.name == self.name && pr.formula == self.formula)
                .map_or(self.name.as_str(), |pr| pr.key),
            self.name,
            self.formula,
            hex(&self.p),
            self.p.bits()
        );
        let hexes = |v: &[u128]| {
            v.iter()
                .map(|x| format!("{x:#x}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let _ = writeln!(s, "  representation: {}", self.representation());
        match &self.solinas {
            None => {
                let _ = writeln!(
                    s,
                    "  bounds: every limb in [0, 2^64-1]; every input must be < p (Fiat's precondition), every output is < p"
                );
                let _ = writeln!(
                    s,
                    "  laws: mul out·R ≡ a·b, square out·R ≡ a², add out ≡ a + b, sub out ≡ a - b, opp out ≡ -a (mod p)"
                );
            }
            Some(sp) => {
                let _ = writeln!(s, "  tight bounds: [{}]", hexes(&self.tight_bounds()));
                let _ = writeln!(s, "  loose bounds: [{}]", hexes(&self.loose_bounds()));
                let chain: Vec<String> = sp.carry_chain().iter().map(|c| c.to_string()).collect();
                let _ = writeln!(
                    s,
                    "  carry_mul, carry_square: loose in, tight out (carry chain {}); add, sub, opp: tight in, loose out",
                    chain.join(", ")
                );
            }
        }
        if let Some(pr) = PRESET_TABLE
            .iter()
            .find(|pr| pr.name == self.name && pr.formula == self.formula)
        {
            let _ = writeln!(s, "  why: {}", pr.why);
        }
        s
    }
}

fn solinas_exact(p: &BigUint, n: u32) -> Result<Params, FieldError> {
    let (k, taps) = solinas::taps(p).map_err(|e| FieldError::SolinasLimbs {
        form: hex(p),
        limbs: format!("{n} limbs"),
        reason: e.to_string(),
    })?;
    solinas::params(p, k, &taps, n).map_err(|e| FieldError::SolinasLimbs {
        form: solinas::form(k, &taps),
        limbs: solinas::limbs_text(k, n),
        reason: e.to_string(),
    })
}

/// Fiat's `(auto)` limb count: the first `n` in `⌈k/64⌉ .. 2·⌈k/64⌉` that works.
fn solinas_search(p: &BigUint) -> Result<Params, FieldError> {
    let k = p.bits() as u32;
    let min = k.div_ceil(64);
    let max = 2 * min - 1;
    let (k, taps) = solinas::taps(p).map_err(|e| FieldError::NotSolinas {
        form: hex(p),
        min,
        max,
        reason: e.to_string(),
    })?;
    let mut last = String::new();
    for n in min..=max {
        match solinas::params(p, k, &taps, n) {
            Ok(s) => return Ok(s),
            Err(e) => last = format!("with {}: {e}", solinas::limbs_text(k, n)),
        }
    }
    Err(FieldError::NotSolinas {
        form: solinas::form(k, &taps),
        min,
        max,
        reason: last,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_table_and_list_agree() {
        let keys: Vec<&str> = PRESET_TABLE.iter().map(|p| p.key).collect();
        assert_eq!(keys, PRESETS);
    }

    /// The representation of every preset, and Fiat's limb counts.
    #[test]
    fn preset_representations() {
        let cases: &[(&str, Repr, &[u32], u64)] = &[
            ("curve25519", Repr::Solinas { limbs: 5 }, &[51; 5], 255),
            ("p224", Repr::Montgomery, &[64; 4], 224),
            ("p256", Repr::Montgomery, &[64; 4], 256),
            ("p384", Repr::Montgomery, &[64; 6], 384),
            ("p434", Repr::Montgomery, &[64; 7], 434),
            ("p448", Repr::Solinas { limbs: 8 }, &[56; 8], 448),
            (
                "p521",
                Repr::Solinas { limbs: 9 },
                &[58, 58, 58, 58, 58, 58, 58, 58, 57],
                521,
            ),
            ("p127", Repr::Solinas { limbs: 3 }, &[43, 42, 42], 127),
            ("poly1305", Repr::Solinas { limbs: 3 }, &[44, 43, 43], 130),
            ("secp256k1", Repr::Montgomery, &[64; 4], 256),
            ("bls12-381-p", Repr::Montgomery, &[64; 6], 381),
        ];
        for &(key, repr, widths, bits) in cases {
            let s = preset(key).unwrap();
            assert_eq!(s.repr, repr, "{key}");
            assert_eq!(s.limb_widths(), widths, "{key}");
            assert_eq!(s.p.bits(), bits, "{key}");
            assert!(s.describe().contains("why:"), "{key}");
        }
        assert_eq!(
            preset("curve25519").unwrap().function_name(FieldOp::Mul),
            "fiat_25519_carry_mul"
        );
        assert_eq!(
            preset("secp256k1").unwrap().function_name(FieldOp::Opp),
            "fiat_secp256k1_montgomery_opp"
        );
        assert!(preset("p255").is_none());
    }

    /// Bad input: one clear line each.
    #[test]
    fn errors() {
        let opts = FieldOptions::default();
        let limbs = |n| FieldOptions {
            limbs: Some(n),
            ..FieldOptions::default()
        };
        let mont = FieldOptions {
            repr: ReprChoice::Montgomery,
            ..FieldOptions::default()
        };
        let solinas = FieldOptions {
            repr: ReprChoice::Solinas,
            ..FieldOptions::default()
        };
        let cases: &[(&str, &FieldOptions, &str)] = &[
            ("p255", &opts, "unknown field `p255`; did you mean `p256`? (presets: curve25519, p224, p256, p384, p434, p448, p521, p127, poly1305, secp256k1, bls12-381-p)"),
            ("ed448", &opts, "unknown field `ed448` (presets: curve25519"),
            ("2^255 - 20", &opts, "modulus 0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffec is even"),
            ("2^61 - 1", &opts, "modulus 0x1fffffffffffffff is too small: 61 bits, at least 65 are required"),
            ("2^25 - 39", &opts, "is too small: 25 bits"),
            ("2^2000 - 1", &opts, "is too large: 2000 bits, at most 1024"),
            ("2^255 - 21", &opts, "modulus 0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffeb is not prime (allow composite moduli to use it)"),
            ("2^255 - 19 + ", &opts, "invalid modulus `2^255 - 19 +`: column 13: expected a number or `(`, found the end"),
            ("curve25519", &limbs(4), "2^255 - 19 does not fit 4 limbs of 64/63 bits: limbs of 64 bits leave no headroom"),
            ("p521", &limbs(8), "2^521 - 1 does not fit 8 limbs of 66/65 bits"),
            ("p256", &solinas, "has no unsaturated Solinas representation with 4 to 7 limbs (c = 2^256 - p has a 128-bit term"),
            ("p256", &limbs(5), "does not fit 5 limbs"),
            ("p256", &FieldOptions { repr: ReprChoice::Montgomery, limbs: Some(5), allow_composite: false }, "the limb count applies to the unsaturated Solinas representation; Montgomery uses 4 limbs"),
            ("2^255 - 19", &FieldOptions { limbs: Some(0), ..FieldOptions::default() }, "does not fit 0 limbs"),
        ];
        for (field, o, want) in cases {
            let e = resolve(field, o).unwrap_err().to_string();
            assert!(e.contains(want), "{field}: got {e:?}, want {want:?}");
            assert!(!e.contains('\n'), "one line: {e:?}");
        }
        // Allowed composites are fine (odd only), and an explicit Montgomery choice too.
        let c = FieldOptions {
            allow_composite: true,
            ..mont.clone()
        };
        assert!(resolve("2^255 - 21", &c).is_ok());
        assert_eq!(resolve("2^255 - 19", &mont).unwrap().repr, Repr::Montgomery);
    }

    /// `Auto` picks Solinas for small c, Montgomery otherwise; limbs may be overridden.
    #[test]
    fn auto_choice_and_limb_override() {
        let auto = FieldOptions::default();
        let cases: &[(&str, Repr)] = &[
            ("2^255 - 19", Repr::Solinas { limbs: 5 }),
            ("2^127 - 1", Repr::Solinas { limbs: 3 }),
            ("2^130 - 5", Repr::Solinas { limbs: 3 }),
            ("2^256 - 2^224 + 2^192 + 2^96 - 1", Repr::Montgomery),
            ("2^216 * 3^137 - 1", Repr::Montgomery),
        ];
        for &(f, repr) in cases {
            assert_eq!(resolve(f, &auto).unwrap().repr, repr, "{f}");
        }
        let six = FieldOptions {
            limbs: Some(6),
            ..FieldOptions::default()
        };
        let s = resolve("curve25519", &six).unwrap();
        assert_eq!(s.repr, Repr::Solinas { limbs: 6 });
        assert_eq!(s.limb_widths(), [43, 42, 43, 42, 43, 42]);
        assert_eq!(s.name, "25519");
        let custom = resolve(
            "0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffed",
            &auto,
        )
        .unwrap();
        assert_eq!(custom.name, "custom");
        assert_eq!(custom.p, preset("curve25519").unwrap().p);
    }
}
