//! Statistics across repeated measurements: when a comparison of programs is trusted,
//! and how speed-ups are summed up.
//!
//! ```text
//!   repeat: timing::measure(programs) ──▶ one median per program
//!   until `repeats` repetitions are quiet (no program slower than 1.03× its best)
//!   per quiet repetition, each program's median over the first's ──▶ ratios
//!   split each program's ratios randomly in halves ──▶ Welch's t-test (5%): agreed?
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

/// At most this many times `repeats` repetitions are measured while waiting for quiet
/// ones.
pub const ATTEMPTS: usize = 5;
/// A repetition is quiet when every program's median is within this factor of the
/// lowest median of that program over the whole comparison.
pub const QUIET: f64 = 1.03;

/// One trusted (or, failing that, the last) repeated comparison.
#[derive(Clone, Debug, PartialEq)]
pub struct Compared {
    /// Per program (in the order given): the mean of its medians over the quiet
    /// repetitions.
    pub means: Vec<f64>,
    /// Per program: the geometric mean over the quiet repetitions of its median over
    /// the first program's median in the same repetition (the first program's is 1).
    /// Speed-ups are read from here.
    pub ratios: Vec<f64>,
    /// Did the halves t-test find the two random halves of the ratios alike for every
    /// program?
    pub agreed: bool,
    /// Repetitions measured, and how many of them were quiet (the ones used).
    pub measured: usize,
    pub quiet: usize,
}

/// Measures `programs` repeatedly ([`timing::measure`], interleaved) until `repeats`
/// repetitions are quiet (see [`QUIET`]) or `ATTEMPTS · repeats` were measured, and sums
/// up the quiet ones (the `repeats` least disturbed if fewer were quiet).
///
/// Why quiet repetitions: on a machine whose other logical CPU belongs to someone else
/// (a KVM guest's vCPUs are often hyperthreads of a host core), that CPU's load slows
/// every program by up to 2×, and not every program by the same factor, so even ratios
/// measured side by side move with it. A repetition in which no program is slower than
/// its best is one the load did not touch.
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
    let mut reps: Vec<Vec<f64>> = Vec::new();
    while reps.len() < repeats * ATTEMPTS {
        // SAFETY: the caller's contract.
        let m = unsafe { timing::measure(f, programs, cfg, counter, rng, check) }?;
        reps.push(m.per_call.iter().map(|s| s.median).collect());
        if reps.len() >= repeats && quiet(&disturbances(&reps)).count() >= repeats {
            break;
        }
    }
    let (used, quiet) = used_repetitions(&reps, repeats);
    let mut per_program: Vec<Vec<f64>> = (0..programs.len())
        .map(|p| used.iter().map(|&i| reps[i][p] / reps[i][0]).collect())
        .collect();
    let means = (0..programs.len())
        .map(|p| used.iter().map(|&i| reps[i][p]).sum::<f64>() / used.len() as f64)
        .collect();
    let ratios = per_program
        .iter()
        .map(|r| geomean(r.iter().copied()))
        .collect();
    let agreed = per_program.iter_mut().all(|r| halves_agree(r, rng));
    Ok(Compared {
        means,
        ratios,
        agreed,
        measured: reps.len(),
        quiet,
    })
}

/// Which repetitions (rows of one median per program) a comparison sums up, and how
/// many of them are quiet: a repetition is quiet when every program's median is within
/// [`QUIET`] of that program's lowest over all of them. All quiet ones when there are at
/// least `repeats`; otherwise the `repeats` least disturbed (by their worst program's
/// median over its lowest), so that a run where one program was mostly slow is summed
/// up by its best moments rather than by all of them. In measurement order.
fn used_repetitions(reps: &[Vec<f64>], repeats: usize) -> (Vec<usize>, usize) {
    let d = disturbances(reps);
    let quiet: Vec<usize> = quiet(&d).collect();
    let count = quiet.len();
    if count >= repeats {
        return (quiet, count);
    }
    let mut by_disturbance: Vec<usize> = (0..reps.len()).collect();
    by_disturbance.sort_by(|&a, &b| d[a].total_cmp(&d[b]));
    by_disturbance.truncate(repeats);
    by_disturbance.sort_unstable();
    (by_disturbance, count)
}

/// Per repetition: its worst program's median over that program's lowest median.
fn disturbances(reps: &[Vec<f64>]) -> Vec<f64> {
    let n = reps.first().map_or(0, Vec::len);
    let min: Vec<f64> = (0..n)
        .map(|p| reps.iter().map(|r| r[p]).fold(f64::INFINITY, f64::min))
        .collect();
    reps.iter()
        .map(|r| r.iter().zip(&min).map(|(x, m)| x / m).fold(1.0, f64::max))
        .collect()
}

/// The quiet repetitions (disturbance at most [`QUIET`]), in measurement order.
fn quiet(disturbances: &[f64]) -> impl Iterator<Item = usize> + '_ {
    (0..disturbances.len()).filter(|&i| disturbances[i] <= QUIET)
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

/// Two-sided significance level of [`sign_decided`].
pub const SIGN_ALPHA: f64 = 0.07;

/// The sign test: in `rounds` paired rounds, one program was faster `wins` times; is
/// that far enough from an even split (binomial, p = 1/2, two-sided p-value at most
/// [`SIGN_ALPHA`]) to say which is faster? Five rounds decide only when unanimous.
/// Ties count against deciding (a tie is a loss for the first program).
pub fn sign_decided(wins: usize, rounds: usize) -> bool {
    if rounds == 0 || wins > rounds {
        return false;
    }
    let k = wins.min(rounds - wins);
    // P(X <= k) for X ~ Binomial(rounds, 1/2), doubled.
    let mut term = 0.5f64.powi(rounds as i32); // C(n, 0) / 2^n
    let mut tail = term;
    for i in 1..=k {
        term *= (rounds + 1 - i) as f64 / i as f64;
        tail += term;
    }
    2.0 * tail <= SIGN_ALPHA
}

/// The sign test on paired samples: does it say which of `a` and `b` (one time per
/// round each) is faster? `a` wins a round when its time is strictly lower.
pub fn paired_sign_decided(a: &[f64], b: &[f64]) -> bool {
    let wins = a.iter().zip(b).filter(|(x, y)| x < y).count();
    sign_decided(wins, a.len().min(b.len()))
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

    /// Rows of medians (two programs) → the repetitions used and the quiet count.
    #[test]
    fn used_repetitions_cases() {
        let check = |reps: &[[f64; 2]], repeats: usize, want: &[usize], quiet: usize| {
            let rows: Vec<Vec<f64>> = reps.iter().map(|r| r.to_vec()).collect();
            assert_eq!(
                used_repetitions(&rows, repeats),
                (want.to_vec(), quiet),
                "{reps:?}, {repeats}"
            );
        };
        // Enough quiet ones: all of them (the 1.05 and 1.2 rows are not).
        check(
            &[[10.0, 20.0], [10.5, 20.0], [10.1, 20.5], [10.0, 24.0]],
            2,
            &[0, 2],
            2,
        );
        // More quiet ones than asked for: all of them.
        check(
            &[[10.0, 20.0], [10.1, 20.1], [10.2, 20.2]],
            2,
            &[0, 1, 2],
            3,
        );
        // Too few quiet: the least disturbed, in measurement order, worst program first.
        check(
            &[[10.0, 24.0], [11.0, 20.0], [10.2, 22.0], [10.0, 23.0]],
            2,
            &[1, 2],
            0,
        );
        check(&[], 3, &[], 0);
    }

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
    fn sign_test_cases() {
        // (wins, rounds, decided)
        for (wins, rounds, want) in [
            (0, 0, false),
            (0, 4, false), // 2/16 = 0.125
            (4, 4, false),
            (0, 5, true), // 2/32 = 0.0625
            (5, 5, true),
            (1, 5, false),
            (4, 5, false),
            (1, 8, false), // 2·9/256 = 0.0703
            (1, 9, true),  // 2·10/512 = 0.039
            (15, 31, false),
            (9, 31, true),   // 0.029
            (10, 31, false), // 0.071
            (22, 31, true),
            (6, 3, false), // impossible counts never decide
        ] {
            assert_eq!(sign_decided(wins, rounds), want, "{wins} of {rounds}");
        }
        // Laws: symmetric in wins and losses, and monotone towards the extremes.
        for n in 1..40 {
            for w in 0..=n {
                assert_eq!(sign_decided(w, n), sign_decided(n - w, n), "{w}/{n}");
                if w > 0 && sign_decided(w, n) && w <= n / 2 {
                    assert!(sign_decided(w - 1, n), "{w}/{n}");
                }
            }
        }
    }

    #[test]
    fn paired_sign_test_counts_strict_wins() {
        // (a, b, decided?)
        for (a, b, want) in [
            (
                &[1.0, 1.0, 1.0, 1.0, 1.0][..],
                &[2.0, 2.0, 2.0, 2.0, 2.0][..],
                true,
            ),
            (&[2.0; 5][..], &[1.0; 5][..], true),
            // Ties are not wins for a: five ties are five losses, which decides.
            (&[1.0; 5][..], &[1.0; 5][..], true),
            (&[1.0, 1.0, 1.0, 1.0, 3.0][..], &[2.0; 5][..], false),
            // Paired by round, not by the medians.
            (&[1.0, 9.0, 1.0, 9.0][..], &[2.0, 8.0, 2.0, 8.0][..], false),
            (&[][..], &[][..], false),
        ] {
            assert_eq!(paired_sign_decided(a, b), want, "{a:?} vs {b:?}");
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
