//! A Boolean circuit written straight into the SAT solver: gates with constant folding
//! and structural hashing (an and-inverter graph with xor gates, Tseitin-encoded as it
//! is built), and the unsigned bit-vector arithmetic the graph's nodes need (sums,
//! products, comparisons), on little-endian vectors of literals.
//!
//! This module must never know what a graph node is: it is exact integer arithmetic on
//! bits, nothing more, and is tested against integer arithmetic directly.

use std::collections::HashMap;

/// A DIMACS literal; variable 1 is the constant true.
pub(crate) type Lit = i32;
pub(crate) const TRUE: Lit = 1;
pub(crate) const FALSE: Lit = -1;

/// An unsigned integer as bits, least significant first; missing high bits are zero.
pub(crate) type Bits = Vec<Lit>;

/// The gates built so far, as clauses (given to a solver only when one is asked: most
/// circuits too large to solve are found so while they are built).
/// The CaDiCaL configurations a query is solved in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Config {
    /// CaDiCaL's defaults.
    Default,
    /// `unsat`: no stabilizing phases, no local search, for queries asked to prove an
    /// equality (the sweep's large queries: see the module's documentation).
    Unsat,
}

impl Config {
    /// Every configuration.
    #[cfg(test)]
    pub(crate) const ALL: [Config; 2] = [Config::Default, Config::Unsat];

    /// CaDiCaL's name of the configuration.
    fn name(self) -> &'static str {
        match self {
            Config::Default => "default",
            Config::Unsat => "unsat",
        }
    }
}

pub(crate) struct Circuit {
    /// Clauses, each ended by a 0 (DIMACS order).
    clauses: Vec<Lit>,
    /// The solver of the last [`Circuit::solve`] (for [`Circuit::value`]).
    sat: Option<cadical::Solver>,
    next: i32,
    ands: HashMap<(Lit, Lit), Lit>,
    xors: HashMap<(Lit, Lit), Lit>,
}

impl Circuit {
    pub(crate) fn new() -> Circuit {
        Circuit {
            clauses: vec![TRUE, 0],
            sat: None,
            next: 2,
            ands: HashMap::new(),
            xors: HashMap::new(),
        }
    }

    /// A new unconstrained literal.
    pub(crate) fn fresh(&mut self) -> Lit {
        let v = self.next;
        self.next += 1;
        v
    }

    /// How many variables the circuit has (its size).
    pub(crate) fn vars(&self) -> usize {
        self.next as usize
    }

    /// `n` new unconstrained bits.
    pub(crate) fn fresh_bits(&mut self, n: usize) -> Bits {
        (0..n).map(|_| self.fresh()).collect()
    }

    pub(crate) fn constant(v: u128, n: usize) -> Bits {
        (0..n)
            .map(|i| {
                if i < 128 && (v >> i) & 1 == 1 {
                    TRUE
                } else {
                    FALSE
                }
            })
            .collect()
    }

    pub(crate) fn and(&mut self, a: Lit, b: Lit) -> Lit {
        let (a, b) = (a.min(b), a.max(b));
        if a == FALSE || a == -b {
            return FALSE;
        }
        if a == TRUE || a == b {
            return b;
        }
        if b == TRUE {
            return a;
        }
        if let Some(&c) = self.ands.get(&(a, b)) {
            return c;
        }
        let c = self.fresh();
        self.clause(&[-c, a]);
        self.clause(&[-c, b]);
        self.clause(&[c, -a, -b]);
        self.ands.insert((a, b), c);
        c
    }

    pub(crate) fn or(&mut self, a: Lit, b: Lit) -> Lit {
        -self.and(-a, -b)
    }

    pub(crate) fn xor(&mut self, a: Lit, b: Lit) -> Lit {
        // Both inputs made positive (a negation moves to the output), ordered.
        let flip = (a < 0) != (b < 0);
        let (a, b) = (a.abs(), b.abs());
        let (a, b) = (a.min(b), a.max(b));
        let out = if a == b {
            FALSE
        } else if a == TRUE {
            -b
        } else if let Some(&c) = self.xors.get(&(a, b)) {
            c
        } else {
            let c = self.fresh();
            self.clause(&[-c, a, b]);
            self.clause(&[-c, -a, -b]);
            self.clause(&[c, -a, b]);
            self.clause(&[c, a, -b]);
            self.xors.insert((a, b), c);
            c
        };
        if flip {
            -out
        } else {
            out
        }
    }

    /// `if c { t } else { e }`.
    pub(crate) fn mux(&mut self, c: Lit, t: Lit, e: Lit) -> Lit {
        if t == e {
            return t;
        }
        let x = self.and(c, t);
        let y = self.and(-c, e);
        self.or(x, y)
    }

    /// Sum and carry of three bits.
    fn full_add(&mut self, a: Lit, b: Lit, c: Lit) -> (Lit, Lit) {
        let ab = self.xor(a, b);
        let s = self.xor(ab, c);
        let g = self.and(a, b);
        let p = self.and(ab, c);
        (s, self.or(g, p))
    }

    /// `a + b + cin`, exact (one bit longer than the longer operand).
    pub(crate) fn add(&mut self, a: &[Lit], b: &[Lit], cin: Lit) -> Bits {
        let n = a.len().max(b.len());
        let mut out = Vec::with_capacity(n + 1);
        let mut c = cin;
        for i in 0..n {
            let x = a.get(i).copied().unwrap_or(FALSE);
            let y = b.get(i).copied().unwrap_or(FALSE);
            let (s, co) = self.full_add(x, y, c);
            out.push(s);
            c = co;
        }
        out.push(c);
        trim(out)
    }

    /// `(a + b + cin) mod 2^w`.
    pub(crate) fn add_mod(&mut self, a: &[Lit], b: &[Lit], cin: Lit, w: usize) -> Bits {
        let a = &a[..a.len().min(w)];
        let b = &b[..b.len().min(w)];
        let mut s = self.add(a, b, cin);
        s.truncate(w);
        s
    }

    /// `(2^w - x) mod 2^w`: the two's complement negation of `x` in `w` bits.
    pub(crate) fn neg_mod(&mut self, x: &[Lit], w: usize) -> Bits {
        let inv: Bits = (0..w).map(|i| -bit(x, i)).collect();
        self.add_mod(&inv, &[], TRUE, w)
    }

    /// The exact sum of `xs` and the constant `k`.
    pub(crate) fn sum(&mut self, xs: &[Bits], k: u128) -> Bits {
        let mut acc = trim(Circuit::constant(k, 128));
        for x in xs {
            acc = self.add(&acc, x, FALSE);
        }
        acc
    }

    /// `a < b`, unsigned.
    pub(crate) fn less(&mut self, a: &[Lit], b: &[Lit]) -> Lit {
        // a - b borrows iff a < b: a + !b + 1 carries out of n bits iff a >= b.
        let n = a.len().max(b.len());
        let mut c = TRUE;
        for i in 0..n {
            let x = a.get(i).copied().unwrap_or(FALSE);
            let y = -b.get(i).copied().unwrap_or(FALSE);
            c = self.full_add(x, y, c).1;
        }
        -c
    }

    /// `(x · c) mod 2^w` for a constant `c`, as shifted copies of `x` added and
    /// subtracted by the non-adjacent form of `c mod 2^w`.
    pub(crate) fn mul_const(&mut self, x: &[Lit], c: u128, w: usize) -> Bits {
        let c = c & mask(w);
        let x = &x[..x.len().min(w)];
        let (mut plus, mut minus): (Vec<Bits>, Vec<Bits>) = (Vec::new(), Vec::new());
        for (shift, digit) in naf(c) {
            if shift >= w {
                continue;
            }
            let mut v = vec![FALSE; shift];
            v.extend_from_slice(x);
            v.truncate(w);
            if digit > 0 {
                plus.push(v);
            } else {
                minus.push(v);
            }
        }
        let mut acc: Bits = Vec::new();
        for p in &plus {
            acc = self.add_mod(&acc, p, FALSE, w);
        }
        if !minus.is_empty() {
            let mut m: Bits = Vec::new();
            for p in &minus {
                m = self.add_mod(&m, p, FALSE, w);
            }
            // acc - m = acc + !m + 1 (mod 2^w)
            let not_m: Bits = (0..w)
                .map(|i| -m.get(i).copied().unwrap_or(FALSE))
                .collect();
            acc = self.add_mod(&acc, &not_m, TRUE, w);
        }
        trim(acc)
    }

    /// `(a · b) mod 2^w`: shifted partial products, summed.
    pub(crate) fn mul(&mut self, a: &[Lit], b: &[Lit], w: usize) -> Bits {
        if let Some(c) = as_const(b) {
            return self.mul_const(a, c, w);
        }
        if let Some(c) = as_const(a) {
            return self.mul_const(b, c, w);
        }
        let mut acc: Bits = Vec::new();
        for (j, &bj) in b.iter().enumerate().take(w) {
            if bj == FALSE {
                continue;
            }
            let mut row = vec![FALSE; j];
            for &ai in a.iter().take(w - j) {
                row.push(self.and(ai, bj));
            }
            acc = self.add_mod(&acc, &row, FALSE, w);
        }
        trim(acc)
    }

    /// Whether `x` and `y` differ in some bit (the miter of two values).
    pub(crate) fn differ(&mut self, x: &[Lit], y: &[Lit]) -> Lit {
        let mut d = FALSE;
        for i in 0..x.len().max(y.len()) {
            let b = self.xor(bit(x, i), bit(y, i));
            d = self.or(d, b);
        }
        d
    }

    /// Whether any bit of `x` is set.
    pub(crate) fn any(&mut self, x: &[Lit]) -> Lit {
        x.iter().fold(FALSE, |acc, &b| self.or(acc, b))
    }

    /// The clauses that say `x ≤ ub` and that no bit outside `nz` is set (the range of a
    /// value the query does not compute).
    pub(crate) fn constrain(&mut self, x: &[Lit], nz: u128, ub: u128) {
        for (i, &b) in x.iter().enumerate() {
            if i >= 128 || (nz >> i) & 1 == 0 {
                self.clause(&[-b]);
            }
        }
        let k = Circuit::constant(ub, 128);
        let over = self.less(&k, x);
        self.clause(&[-over]);
    }

    /// Adds the clause `lits` (an "or" of literals).
    pub(crate) fn clause(&mut self, lits: &[Lit]) {
        self.clauses.extend_from_slice(lits);
        self.clauses.push(0);
    }

    /// Solves with at most `conflicts` conflicts in the configuration `config`:
    /// `Some(true)` for a model.
    pub(crate) fn solve(&mut self, conflicts: i32, config: Config) -> Option<bool> {
        let mut sat = cadical::Solver::with_config(config.name())
            .expect("the configuration is one CaDiCaL defines");
        sat.reserve(self.next);
        for cl in self.clauses.split(|&l| l == 0) {
            if !cl.is_empty() {
                sat.add_clause(cl.iter().copied());
            }
        }
        let _ = sat.set_limit("conflicts", conflicts);
        let r = sat.solve();
        self.sat = Some(sat);
        r
    }

    /// The value of `lit` in the model the last [`Circuit::solve`] found.
    #[cfg(test)]
    pub(crate) fn value(&self, lit: Lit) -> Option<bool> {
        self.sat.as_ref().and_then(|s| s.value(lit))
    }
}

/// `2^w - 1` as a `u128` (all ones for 128 or more).
fn mask(w: usize) -> u128 {
    if w >= 128 {
        u128::MAX
    } else {
        (1u128 << w) - 1
    }
}

/// Bit `i` of `x` (zero beyond its length).
pub(crate) fn bit(x: &[Lit], i: usize) -> Lit {
    x.get(i).copied().unwrap_or(FALSE)
}

/// The value of constant bits.
pub(crate) fn as_const(x: &[Lit]) -> Option<u128> {
    let mut v = 0u128;
    for (i, &b) in x.iter().enumerate() {
        match b {
            FALSE => {}
            TRUE if i < 128 => v |= 1 << i,
            _ => return None,
        }
    }
    Some(v)
}

/// Drops high bits that are constant zero.
fn trim(mut x: Bits) -> Bits {
    while x.last() == Some(&FALSE) {
        x.pop();
    }
    x
}

/// The non-adjacent form of `c`: `(shift, ±1)` digits with `c = Σ ±2^shift` as an
/// integer (a digit may sit at bit 128, beyond every width the callers use).
fn naf(c: u128) -> Vec<(usize, i8)> {
    if c == u128::MAX {
        return vec![(0, -1), (128, 1)];
    }
    let mut out = Vec::new();
    let (mut c, mut i) = (c, 0);
    while c != 0 {
        if c & 3 == 3 {
            // (c + 1 cannot overflow: c < 2^128 - 1 at first, below 2^127 after a shift.)
            out.push((i, -1));
            c += 1;
        } else if c & 1 == 1 {
            out.push((i, 1));
            c -= 1;
        }
        c >>= 1;
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The value of `x` in a model of the solver.
    fn value(c: &mut Circuit, x: &[Lit]) -> u128 {
        let mut v = 0u128;
        for (i, &b) in x.iter().enumerate().take(128) {
            if c.value(b) == Some(true) {
                v |= 1 << i;
            }
        }
        v
    }

    /// Free inputs fixed to `vals` (each `n` bits), then `f` built on them; returns its
    /// value in the (unique) model, which every configuration must find.
    fn run(vals: &[u128], n: usize, f: impl FnOnce(&mut Circuit, &[Bits]) -> Bits) -> u128 {
        let mut c = Circuit::new();
        let xs: Vec<Bits> = vals.iter().map(|_| c.fresh_bits(n)).collect();
        for (x, &v) in xs.iter().zip(vals) {
            for (i, &b) in x.iter().enumerate() {
                c.clause(&[if (v >> i) & 1 == 1 { b } else { -b }]);
            }
        }
        let out = f(&mut c, &xs);
        let values: Vec<u128> = Config::ALL
            .iter()
            .map(|&config| {
                assert_eq!(c.solve(1_000_000, config), Some(true), "{config:?}");
                value(&mut c, &out)
            })
            .collect();
        assert!(values.windows(2).all(|w| w[0] == w[1]), "{values:?}");
        values[0]
    }

    #[test]
    fn naf_digits_sum_to_the_constant() {
        for c in [
            0u128,
            1,
            2,
            3,
            7,
            19,
            38,
            0xffff_ffff,
            u64::MAX as u128,
            u128::MAX,
            0x5555,
        ] {
            let s = naf(c).iter().fold(0u128, |acc, &(i, d)| {
                let p = if i >= 128 { 0 } else { 1u128 << i };
                if d > 0 {
                    acc.wrapping_add(p)
                } else {
                    acc.wrapping_sub(p)
                }
            });
            assert_eq!(s, c, "naf({c:#x})");
        }
    }

    #[test]
    fn arithmetic_matches_integers() {
        let vals: [u128; 6] = [
            0,
            1,
            0xffff_ffff_ffff_ffff,
            0x8000_0000_0000_0001,
            12345,
            0xdead_beef_cafe,
        ];
        for &a in &vals {
            for &b in &vals {
                assert_eq!(
                    run(&[a, b], 64, |c, x| c.add(&x[0], &x[1], TRUE)),
                    a + b + 1
                );
                assert_eq!(run(&[a, b], 64, |c, x| c.mul(&x[0], &x[1], 128)), a * b);
                assert_eq!(
                    run(&[a, b], 64, |c, x| c.add_mod(&x[0], &x[1], FALSE, 64)),
                    (a + b) & mask(64)
                );
                for w in [1, 8, 64, 65] {
                    assert_eq!(
                        run(&[a], 64, |c, x| c.neg_mod(&x[0], w)),
                        a.wrapping_neg() & mask(w),
                        "-{a:#x} mod 2^{w}"
                    );
                }
                assert_eq!(
                    run(&[a, b], 64, |c, x| vec![c.less(&x[0], &x[1])]),
                    (a < b) as u128
                );
                for k in [1u128, 19, 38, 0xffff_ffff, u64::MAX as u128, 1 << 63, 977] {
                    assert_eq!(
                        run(&[a], 64, |c, x| c.mul_const(&x[0], k, 128)),
                        a.wrapping_mul(k),
                        "{a:#x} * {k:#x}"
                    );
                    assert_eq!(
                        run(&[a], 64, |c, x| c.mul_const(&x[0], k, 64)),
                        a.wrapping_mul(k) & mask(64),
                        "{a:#x} * {k:#x} mod 2^64"
                    );
                }
            }
        }
    }
}
