//! Statistics across repeated measurements: when a comparison of programs is trusted,
//! and how speed-ups are summed up.
//!
//! ```text
//!   repeat `repeats` times: timing::measure(programs) ──▶ one median per program
//!   split each program's medians randomly in halves ──▶ Welch's t-test (5%)
//!   halves alike for every program?  yes: trust the means   no: measure again (≤ 5×)
//! ```
//!
//! One [`timing::measure`] call is one interleaved run; this module only combines
//! several of them. It must never mix numbers of different calls of [`compare`] (each
//! call's programs share batch sizes and inputs; two calls do not).

use rand::seq::SliceRandom;
use rand::Rng;

use crate::counter::Counter;
use crate::error::Result;
use crate::timing::{self, Check, Config};

/// How often [`compare`] measures again when the halves disagree.
pub const ATTEMPTS: usize = 5;

/// One trusted (or, failing that, the last) repeated comparison.
#[derive(Clone, Debug, PartialEq)]
pub struct Compared {
    /// Per program (in the order given): the mean of its repeated medians.
    pub means: Vec<f64>,
    /// Did the halves t-test find the two random halves alike for every program?
    pub agreed: bool,
}

/// Measures `programs` `repeats` times ([`timing::measure`], interleaved), splits each
/// program's medians into random halves, and returns the means once Welch's t-test
/// finds the halves alike for every program; after [`ATTEMPTS`] disagreeing attempts the
/// last one, with `agreed: false`.
///
/// # Safety
/// As [`timing::measure`]: every program must be verified code with `f`'s signature.
pub unsafe fn compare<R: Rng + ?Sized>(
    f: &cryptopt_ir::Function,
    programs: &[*const u8],
    cfg: &Config,
    counter: &Counter,
    repeats: usize,
    rng: &mut R,
    check: &mut Check<'_>,
) -> Result<Compared> {
    let mut last = None;
    for _attempt in 0..ATTEMPTS {
        let mut medians: Vec<Vec<f64>> = vec![Vec::with_capacity(repeats); programs.len()];
        for _ in 0..repeats {
            // SAFETY: the caller's contract.
            let m = unsafe { timing::measure(f, programs, cfg, counter, rng, check) }?;
            for (p, s) in m.per_call.iter().enumerate() {
                medians[p].push(s.median);
            }
        }
        let agreed = medians.iter_mut().all(|m| halves_agree(m, rng));
        let means = medians
            .iter()
            .map(|m| m.iter().sum::<f64>() / m.len() as f64)
            .collect();
        if agreed {
            return Ok(Compared { means, agreed });
        }
        last = Some(Compared { means, agreed });
    }
    Ok(last.expect("measured at least once"))
}

/// Splits `xs` randomly into two halves; true when Welch's t-test does not tell them
/// apart at the 5% level (|t| below the two-sided critical value).
pub fn halves_agree<R: Rng + ?Sized>(xs: &mut [f64], rng: &mut R) -> bool {
    xs.shuffle(rng);
    let (a, b) = xs.split_at(xs.len() / 2);
    let stats = |v: &[f64]| {
        let n = v.len() as f64;
        let mean = v.iter().sum::<f64>() / n;
        let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
        (mean, var, n)
    };
    let ((ma, va, na), (mb, vb, nb)) = (stats(a), stats(b));
    let se = (va / na + vb / nb).sqrt();
    if se == 0.0 {
        return ma == mb;
    }
    let t = (ma - mb).abs() / se;
    // Welch–Satterthwaite degrees of freedom, and the 97.5% quantile of Student's t.
    let df = (va / na + vb / nb).powi(2)
        / ((va / na).powi(2) / (na - 1.0) + (vb / nb).powi(2) / (nb - 1.0));
    t < t_critical(df)
}

/// Two-sided 5% critical value of Student's t with `df` degrees of freedom (the table
/// value of the next tabulated df at or above `df`; 1.96 beyond 60).
pub fn t_critical(df: f64) -> f64 {
    const TABLE: [(f64, f64); 12] = [
        (1.0, 12.706),
        (2.0, 4.303),
        (3.0, 3.182),
        (4.0, 2.776),
        (5.0, 2.571),
        (6.0, 2.447),
        (8.0, 2.306),
        (10.0, 2.228),
        (15.0, 2.131),
        (20.0, 2.086),
        (30.0, 2.042),
        (60.0, 2.000),
    ];
    TABLE
        .iter()
        .find(|(d, _)| df <= *d)
        .map_or(1.96, |(_, t)| *t)
}

/// Geometric mean of the finite values of `xs` (NaN when there are none).
pub fn geomean(xs: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = xs
        .filter(|x| x.is_finite())
        .fold((0.0, 0), |(s, n), x| (s + x.ln(), n + 1));
    if n == 0 {
        f64::NAN
    } else {
        (sum / n as f64).exp()
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    use super::*;

    #[test]
    fn t_critical_table() {
        for (df, want) in [
            (0.5, 12.706),
            (1.0, 12.706),
            (7.0, 2.306),
            (60.0, 2.0),
            (61.0, 1.96),
        ] {
            assert_eq!(t_critical(df), want, "df {df}");
        }
    }

    #[test]
    fn geomean_cases() {
        let check = |xs: &[f64], want: f64| {
            let got = geomean(xs.iter().copied());
            assert!(
                (got - want).abs() < 1e-12 || (got.is_nan() && want.is_nan()),
                "{xs:?}: {got} != {want}"
            );
        };
        check(&[2.0, 8.0], 4.0);
        check(&[3.0], 3.0);
        check(&[1.0, f64::NAN, 4.0], 2.0);
        check(&[], f64::NAN);
    }

    #[test]
    fn halves_agree_cases() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        // Identical samples: alike.
        assert!(halves_agree(&mut [5.0; 20], &mut rng));
        // Noise around one value: alike (for this seed).
        let mut noisy: Vec<f64> = (0..20).map(|i| 100.0 + (i % 5) as f64).collect();
        assert!(halves_agree(&mut noisy, &mut rng));
        // Four 1s and four 9s: a split with all 1s in one half (2 of the 70 splits) has
        // two constant halves with different means, which the test must tell apart;
        // every other split is alike at 5%.
        let mut split = [1.0, 1.0, 1.0, 1.0, 9.0, 9.0, 9.0, 9.0];
        let told_apart = (0..200)
            .filter(|_| !halves_agree(&mut split, &mut rng))
            .count();
        assert!(
            told_apart > 0,
            "a clean 1-vs-9 split must be told apart sometimes"
        );
    }
}
