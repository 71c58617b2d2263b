//! Moduli: the expression parser (`2^255 - 19`, `2^216 * 3^137 - 1`, decimal, `0x` hex)
//! and the Miller–Rabin primality test.
//!
//! The parser works on signed big integers so that any order of terms is accepted
//! (`-19 + 2^255`); only the final value must be positive. Powers are bounded (the
//! result may have at most [`MAX_EXPR_BITS`] bits) so that a typo such as `2^2550000000`
//! is an error, not an allocation of gigabytes.

use num_bigint::{BigInt, BigUint, Sign};
use num_traits::{One, ToPrimitive, Zero};

use super::FieldError;

/// The largest value (in bits) an expression may produce, intermediate results included.
pub const MAX_EXPR_BITS: u64 = 1 << 16;

/// Parses a modulus: an expression with `+ - * ^` (`**` is accepted for `^`), parentheses,
/// decimal and `0x` hexadecimal literals. `^` binds tightest and groups to the right
/// (`2^3^2 = 2^9`); a leading `-` negates. The value must be positive.
///
/// Errors name the 1-based column of the offending character.
pub fn parse_prime(s: &str) -> Result<BigUint, FieldError> {
    let mut p = ExprParser {
        src: s,
        chars: s.char_indices().collect(),
        pos: 0,
    };
    p.skip_ws();
    if p.pos == p.chars.len() {
        return Err(p.err_at(0, "empty expression".into()));
    }
    let v = p.expr()?;
    p.skip_ws();
    if p.pos < p.chars.len() {
        let c = p.chars[p.pos].1;
        return Err(p.err(format!("unexpected `{c}`")));
    }
    match v.to_biguint() {
        Some(u) if !u.is_zero() => Ok(u),
        _ => Err(p.err_at(0, format!("the value {v} is not positive"))),
    }
}

struct ExprParser<'a> {
    src: &'a str,
    chars: Vec<(usize, char)>,
    /// Index into `chars`.
    pos: usize,
}

impl ExprParser<'_> {
    fn err(&self, message: String) -> FieldError {
        self.err_at(self.pos, message)
    }

    fn err_at(&self, pos: usize, message: String) -> FieldError {
        FieldError::Parse {
            input: self.src.to_string(),
            column: pos + 1,
            message,
        }
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).map(|&(_, c)| c)
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.pos += 1;
        }
    }

    /// Consumes `tok` (after whitespace) if it comes next.
    fn eat(&mut self, tok: &str) -> bool {
        self.skip_ws();
        let mut k = self.pos;
        for t in tok.chars() {
            if self.chars.get(k).map(|&(_, c)| c) != Some(t) {
                return false;
            }
            k += 1;
        }
        self.pos = k;
        true
    }

    fn check_size(&self, v: &BigInt, at: usize) -> Result<(), FieldError> {
        if v.bits() > MAX_EXPR_BITS {
            return Err(self.err_at(
                at,
                format!("the value is too large (more than {MAX_EXPR_BITS} bits)"),
            ));
        }
        Ok(())
    }

    /// expr := term (('+' | '-') term)*
    fn expr(&mut self) -> Result<BigInt, FieldError> {
        let mut acc = self.term()?;
        loop {
            self.skip_ws();
            let at = self.pos;
            if self.eat("+") {
                acc += self.term()?;
            } else if self.eat("-") {
                acc -= self.term()?;
            } else {
                return Ok(acc);
            }
            self.check_size(&acc, at)?;
        }
    }

    /// term := unary ('*' unary)*   (but not `**`, which is a power)
    fn term(&mut self) -> Result<BigInt, FieldError> {
        let mut acc = self.unary()?;
        loop {
            self.skip_ws();
            let at = self.pos;
            if self.peek() == Some('*') && self.chars.get(self.pos + 1).map(|c| c.1) != Some('*') {
                self.pos += 1;
                let rhs = self.unary()?;
                if acc.bits() + rhs.bits() > MAX_EXPR_BITS + 1 {
                    return Err(self.err_at(
                        at,
                        format!("the value is too large (more than {MAX_EXPR_BITS} bits)"),
                    ));
                }
                acc *= rhs;
                self.check_size(&acc, at)?;
            } else {
                return Ok(acc);
            }
        }
    }

    /// unary := '-' unary | power
    fn unary(&mut self) -> Result<BigInt, FieldError> {
        if self.eat("-") {
            return Ok(-self.unary()?);
        }
        self.power()
    }

    /// power := atom (('^' | '**') unary)?   (right-associative)
    fn power(&mut self) -> Result<BigInt, FieldError> {
        let base = self.atom()?;
        self.skip_ws();
        let at = self.pos;
        if !(self.eat("^") || self.eat("**")) {
            return Ok(base);
        }
        let exp_at = {
            self.skip_ws();
            self.pos
        };
        let exp = self.unary()?;
        if exp.sign() == Sign::Minus {
            return Err(self.err_at(exp_at, format!("negative exponent {exp}")));
        }
        let small = exp.to_u64().filter(|&e| {
            // |base|^e has at most bits(base)·e bits; 0^e, 1^e and (-1)^e stay small.
            base.magnitude() <= &BigUint::one()
                || (base.bits().saturating_mul(e)) <= MAX_EXPR_BITS + 1
        });
        let Some(e) = small else {
            return Err(self.err_at(
                at,
                format!("the power is too large (more than {MAX_EXPR_BITS} bits)"),
            ));
        };
        let v = num_traits::pow::pow(base, e as usize);
        self.check_size(&v, at)?;
        Ok(v)
    }

    /// atom := number | '(' expr ')'
    fn atom(&mut self) -> Result<BigInt, FieldError> {
        self.skip_ws();
        let start = self.pos;
        match self.peek() {
            Some('(') => {
                self.pos += 1;
                let v = self.expr()?;
                if !self.eat(")") {
                    return Err(match self.peek() {
                        Some(c) => self.err(format!("expected `)`, found `{c}`")),
                        None => self.err_at(start, "unclosed `(`".into()),
                    });
                }
                Ok(v)
            }
            Some(c) if c.is_ascii_digit() => {
                let hex = c == '0'
                    && matches!(self.chars.get(self.pos + 1).map(|c| c.1), Some('x' | 'X'));
                let (radix, first) = if hex {
                    (16, self.pos + 2)
                } else {
                    (10, self.pos)
                };
                let mut end = first;
                while self.chars.get(end).is_some_and(|&(_, c)| c.is_digit(radix)) {
                    end += 1;
                }
                if end == first {
                    return Err(self.err_at(first, "expected hexadecimal digits after `0x`".into()));
                }
                if self
                    .chars
                    .get(end)
                    .is_some_and(|&(_, c)| c.is_alphanumeric() || c == '_')
                {
                    let c = self.chars[end].1;
                    return Err(self.err_at(end, format!("unexpected `{c}` in a number")));
                }
                let from = self.chars[first].0;
                let to = self.chars.get(end).map_or(self.src.len(), |&(i, _)| i);
                self.pos = end;
                let v = BigUint::parse_bytes(&self.src.as_bytes()[from..to], radix)
                    .expect("digits checked");
                let v = BigInt::from(v);
                self.check_size(&v, start)?;
                Ok(v)
            }
            Some(c) => Err(self.err(format!("expected a number or `(`, found `{c}`"))),
            None => Err(self.err("expected a number or `(`, found the end".into())),
        }
    }
}

/// Primes below 1000, for trial division and as the first Miller–Rabin bases.
fn small_primes() -> impl Iterator<Item = u32> {
    (2u32..1000).filter(|&n| (2..n).take_while(|d| d * d <= n).all(|d| n % d != 0))
}

/// Miller–Rabin bases: the first primes, then bases derived from the number.
const FIXED_BASES: usize = 24;
const DERIVED_BASES: usize = 40;

/// Miller–Rabin after trial division by the primes below 1000: the first 24 primes as
/// bases (which alone decide primality of every number below 3.3·10^24), then 40
/// further bases drawn from a generator seeded by the number itself. A composite passes
/// a random round with probability at most 1/4, so the error is below 2^-80 for all but
/// deliberately constructed inputs, and those would also have to survive the fixed
/// bases.
pub fn is_probable_prime(n: &BigUint) -> bool {
    let two = BigUint::from(2u32);
    if n < &two {
        return false;
    }
    let primes: Vec<u32> = small_primes().collect();
    for &q in &primes {
        let q = BigUint::from(q);
        if n == &q {
            return true;
        }
        if (n % &q).is_zero() {
            return false;
        }
    }
    // n is odd and above 1000 now.
    let n1 = n - 1u32;
    let s = n1.trailing_zeros().expect("n - 1 > 0");
    let d = &n1 >> s;
    let witness = |a: &BigUint| -> bool {
        // true if `a` proves n composite.
        let mut x = a.modpow(&d, n);
        if x.is_one() || x == n1 {
            return false;
        }
        for _ in 1..s {
            x = x.modpow(&two, n);
            if x == n1 {
                return false;
            }
            if x.is_one() {
                return true;
            }
        }
        true
    };
    if primes[..FIXED_BASES]
        .iter()
        .any(|&a| witness(&BigUint::from(a)))
    {
        return false;
    }
    // Derived bases in [2, n-2]: splitmix64 seeded by the low digits of n.
    let mut state = n.iter_u64_digits().fold(0x9e37_79b9_7f4a_7c15u64, |h, d| {
        (h ^ d).wrapping_mul(0xbf58_476d_1ce4_e5b9)
    });
    let mut next = || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let words = n.iter_u64_digits().count();
    let span = n - 3u32;
    (0..DERIVED_BASES).all(|_| {
        let raw = BigUint::from_slice(
            &(0..words * 2)
                .map(|k| {
                    let w = next();
                    if k % 2 == 0 {
                        w as u32
                    } else {
                        (w >> 32) as u32
                    }
                })
                .collect::<Vec<u32>>(),
        );
        let a = raw % &span + 2u32;
        !witness(&a)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pow2(n: u32) -> BigUint {
        BigUint::one() << n
    }

    #[test]
    fn expressions() {
        let cases: &[(&str, BigUint)] = &[
            ("2^255 - 19", pow2(255) - 19u32),
            ("2^255-19", pow2(255) - 19u32),
            ("-19 + 2^255", pow2(255) - 19u32),
            (
                "2^256 - 2^224 + 2^192 + 2^96 - 1",
                pow2(256) - pow2(224) + pow2(192) + pow2(96) - 1u32,
            ),
            (
                "2^216 * 3^137 - 1",
                pow2(216) * num_traits::pow(BigUint::from(3u32), 137) - 1u32,
            ),
            ("2**130 - 5", pow2(130) - 5u32),
            ("(2^2)^3", pow2(6)),
            ("2^3^2", pow2(9)),
            ("0x3fffffffffffffffffffffffffffffffb", pow2(130) - 5u32),
            ("0XfF", BigUint::from(255u32)),
            ("1000000007", BigUint::from(1_000_000_007u32)),
            (" ( 7 ) ", BigUint::from(7u32)),
            ("2 * 3 + 1", BigUint::from(7u32)),
            ("-(-7)", BigUint::from(7u32)),
            ("2^-(-3)", pow2(3)),
        ];
        for (s, want) in cases {
            assert_eq!(&parse_prime(s).unwrap(), want, "{s}");
        }
    }

    #[test]
    fn expression_errors_name_the_column() {
        let cases: &[(&str, &str)] = &[
            ("", "column 1: empty expression"),
            ("   ", "column 1: empty expression"),
            ("2^255 - 1x9", "column 10: unexpected `x` in a number"),
            (
                "2^255 -",
                "column 8: expected a number or `(`, found the end",
            ),
            ("2^^3", "column 3: expected a number or `(`, found `^`"),
            ("(2^255 - 19", "column 1: unclosed `(`"),
            ("2^255 - 19)", "column 11: unexpected `)`"),
            ("0x", "column 3: expected hexadecimal digits after `0x`"),
            ("p256", "column 1: expected a number or `(`, found `p`"),
            ("2^-3", "column 3: negative exponent -3"),
            ("2^100000", "column 2: the power is too large"),
            ("2^65536 * 2^65536", "too large"),
            ("1 - 2", "column 1: the value -1 is not positive"),
            ("0", "the value 0 is not positive"),
            ("2 % 3", "column 3: unexpected `%`"),
        ];
        for (s, want) in cases {
            let e = parse_prime(s).unwrap_err().to_string();
            assert!(e.contains(want), "{s:?}: got {e:?}, want {want:?}");
            assert!(!e.contains('\n'), "one line: {e:?}");
        }
    }

    #[test]
    fn primality() {
        let primes = [
            "2",
            "3",
            "997",
            "1009",
            "2^61 - 1",
            "2^127 - 1",
            "2^255 - 19",
            "2^521 - 1",
            "2^448 - 2^224 - 1",
            "2^216 * 3^137 - 1",
        ];
        for s in primes {
            assert!(is_probable_prime(&parse_prime(s).unwrap()), "{s} is prime");
        }
        let composites = [
            "0",
            "1",
            "4",
            "1001",
            "2^255 - 21",
            "2^256 - 1",
            // Carmichael numbers and a strong pseudoprime to bases 2, 3, 5, 7.
            "561",
            "41041",
            "3215031751",
            // 3825123056546413051 is a strong pseudoprime to the first 9 prime bases.
            "3825123056546413051",
            // (2^127 - 1)·(2^89 - 1): no small factors.
            "(2^127 - 1) * (2^89 - 1)",
        ];
        for s in composites {
            assert!(
                !is_probable_prime(&parse_prime(s).unwrap_or_default()),
                "{s} is composite"
            );
        }
    }
}
