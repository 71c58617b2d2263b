//! Full products of saturated 64-bit words: the 2n-word `a·b` by schoolbook rows, and
//! the 2n-word `a²` by dedicated squaring (each cross product once, doubled, plus the
//! diagonal squares). Shared by the saturated Solinas representation and the Montgomery
//! algorithms that reduce after the product ([`super::algorithm`]).
//!
//! Every carry these functions drop is zero for every input (the argument is at each
//! drop); they must never drop one that is not.

use super::montgomery::{Words, W, ZERO};

/// The 2n-word product `a·b` (n words each).
pub(crate) fn product(g: &mut Words, a: &[W], b: &[W]) -> Vec<W> {
    let n = a.len();
    // Schoolbook rows: acc (2n words) += a_i·b at word i.
    let mut acc: Vec<W> = vec![ZERO; 2 * n];
    for (i, &ai) in a.iter().enumerate() {
        let row = g.mul_word(ai, b);
        let (sum, c) = g.adc_chain(&acc[i..i + row.len()], &row);
        acc[i..i + row.len()].copy_from_slice(&sum);
        // The carry out of word i + n goes to word i + n + 1 (still 0). Past the last
        // row there is no such word, and none is needed: the whole product is below
        // 2^(128n), so that carry is 0 (the bound analysis cannot see it: the row's
        // top word may reach 2^64 - 1 by its bounds, 2^64 - 2 in fact).
        if c.max != 0 && i + n + 1 < 2 * n {
            acc[i + n + 1] = c;
        }
    }
    acc
}

/// The 2n-word square `a²`: the cross products `a_i·a_j` (i < j) once each as rows,
/// doubled, plus the squares `a_i²` on the diagonal; the product [`product`] makes, from
/// n(n+1)/2 multiplications instead of n².
pub(crate) fn square(g: &mut Words, a: &[W]) -> Vec<W> {
    let n = a.len();
    let mut acc: Vec<W> = vec![ZERO; 2 * n];
    for i in 0..n - 1 {
        // Row i: a_i·(a_{i+1} … a_{n-1}) at word 2i + 1 (n - i words).
        let row = g.mul_word(a[i], &a[i + 1..]);
        let at = 2 * i + 1;
        let (sum, c) = g.adc_chain(&acc[at..at + row.len()], &row);
        acc[at..at + row.len()].copy_from_slice(&sum);
        // Word at + len is still 0 (the previous row's carry went to at + len - 1).
        if c.max != 0 && at + row.len() < 2 * n {
            acc[at + row.len()] = c;
        }
    }
    // Doubled: the cross sum is below 2^(128n)/2 (it is (a² - Σ a_i²·2^(128i))/2), so
    // the doubling's carry out is 0.
    let (twice, _) = g.adc_chain(&acc, &acc);
    let mut diag = Vec::with_capacity(2 * n);
    for &ai in a {
        let (lo, hi) = g.mulx(ai, ai);
        diag.push(lo);
        diag.push(hi);
    }
    // The sum is a² < 2^(128n): its carry out is 0 too.
    g.adc_chain(&twice, &diag).0
}
