//! The smart constructors of arithmetic: modular sums as linear forms (flattened,
//! equal terms collected, wide sums split into 64-bit limbs), exact carries and borrows,
//! exact products, and products modulo 2^w.
//!
//! This module must never turn an exact value into a wrapped one (or back) unless the
//! range analysis shows that no wrap can occur.

use super::arena::{Graph, Node, NodeId};
use super::range::{mask, sh_l, sh_r, sig, Info, M64};
use super::rules::Rule;

/// Terms of a sum: `(node, coefficient)`.
type Terms = Vec<(NodeId, u128)>;

impl Graph {
    /// `(k + Σ c·t) mod 2^w`.
    pub fn add(&mut self, w: u32, terms: &[(NodeId, u128)], k: u128) -> NodeId {
        let n = self.add_normal(w, terms, k);
        self.note_written(
            n,
            || Node::Add {
                w: w.clamp(1, 128) as u8,
                k,
                terms: terms.into(),
            },
            terms.iter().map(|&(t, _)| t),
        );
        n
    }

    fn add_normal(&mut self, w: u32, terms: &[(NodeId, u128)], k: u128) -> NodeId {
        let w = w.clamp(1, 128);
        let m = mask(w);
        if let Some(n) = self.scaled_sum(w, terms, k) {
            return n;
        }
        let (acc, kk) = self.add_terms(w, terms, k);
        let mut merged = self.collect_terms(acc, m);
        if self.telescope(&mut merged) {
            merged = self.collect_terms(merged, m);
        }
        if self.const_prod_high(&mut merged, m) {
            merged = self.collect_terms(merged, m);
        }
        if merged.is_empty() {
            return self.konst(kk);
        }
        if merged.len() == 1 && kk == 0 {
            let (t, c) = merged[0];
            if let Some(n) = self.add_one_term(w, t, c) {
                return n;
            }
        }
        if let Some(n) = self.factored_sum(w, &merged, kk) {
            return n;
        }
        if w > 64 && !self.keep_wide_sums {
            if let Some(n) = self.wide_add(w, &merged, kk) {
                return n;
            }
        }
        let info = self.add_range(&merged, kk, m);
        self.intern(
            Node::Add {
                w: w as u8,
                k: kk,
                terms: merged.into_boxed_slice(),
            },
            info,
        )
    }

    /// `c·x mod 2^w` for a sum `x` (as the terms `c_i·x`, adding up to `c`), before `x`
    /// is flattened into the sum: the shift `x << p` for `c = 2^p` (rule `add-shl-term`),
    /// the exact product when it never wraps (rule `mul-const`), as `add_one_term` makes
    /// of any other single term. So a multiple of a sum is one node however a program
    /// makes it (`shl`, `lea [x*2]`, `add x, x`, `imul`, `mulx` with the constant in rdx,
    /// the IR's `mul`), and the shift's slice form meets the bit operations that take
    /// shifted halves apart (`shr lo, 51; shl hi, 13; or`). Inside a larger sum both
    /// forms are flattened again (`add_terms`).
    fn scaled_sum(&mut self, w: u32, terms: &[(NodeId, u128)], k: u128) -> Option<NodeId> {
        let (&(x, _), m) = (terms.first()?, mask(w));
        if k & m != 0 || w > 64 || !terms.iter().all(|&(t, _)| t == x) {
            return None;
        }
        if !matches!(self.nodes[x.index()], Node::Add { .. }) {
            return None;
        }
        let c = terms.iter().fold(0u128, |acc, &(_, c)| acc.wrapping_add(c)) & m;
        if c.is_power_of_two() && c != 1 {
            self.fire(Rule::AddShlTerm);
            return Some(self.shl(x, c.trailing_zeros(), w));
        }
        if c > 1 && self.ub(x).checked_mul(c).is_some_and(|p| p <= m) && self.nz(x) <= m {
            self.fire(Rule::MulConst);
            let kc = self.konst(c);
            return Some(self.prod(x, kc));
        }
        None
    }

    /// `g·x` for a collected sum `k + Σ c·t` whose coefficients and constant share a
    /// factor `g` that is not a power of two, when `x = k/g + Σ (c/g)·t` is a sum already
    /// made (rule `add-factor`): `lea t, [x + x*8]; lea t, [x + t*2]` flattens to
    /// `19·a + 19·b` for `x = a + b`, and is `x·19` as `imul` or the IR's `mul` make it.
    /// Only sums that exist are looked up, so no new node is made and a sum no program
    /// formed keeps its flat form.
    fn factored_sum(&mut self, w: u32, merged: &[(NodeId, u128)], kk: u128) -> Option<NodeId> {
        if w > 64 || merged.len() < 2 {
            return None;
        }
        // Coefficients are residues mod 2^w: the factor is that of their signed values.
        let m = mask(w);
        let neg = |c: u128| c > m >> 1;
        let abs = |c: u128| if neg(c) { m - c + 1 } else { c };
        let div = |c: u128, g: u128| {
            if neg(c) {
                (m - abs(c) / g + 1) & m
            } else {
                c / g
            }
        };
        let g = merged.iter().fold(abs(kk), |g, &(_, c)| gcd(g, abs(c)));
        if g < 3 || g.is_power_of_two() {
            return None;
        }
        let inner = Node::Add {
            w: w as u8,
            k: div(kk, g),
            terms: merged.iter().map(|&(t, c)| (t, div(c, g))).collect(),
        };
        let &x = self.memo.get(&inner)?;
        let n = self.scaled_sum(w, &[(x, g)], 0)?;
        self.fire(Rule::AddFactor);
        Some(n)
    }

    /// The terms of `(k + Σ c·t) mod 2^w` (`w` clamped), flattened (rules `add-flatten`,
    /// `add-shl-term`, `mul-const`) but not yet sorted or collected, and the constant.
    fn add_terms(
        &mut self,
        w: u32,
        terms: &[(NodeId, u128)],
        k: u128,
    ) -> (Vec<(NodeId, u128)>, u128) {
        let m = mask(w);
        let mut acc: Vec<(NodeId, u128)> = Vec::with_capacity(terms.len() + 2);
        let mut kk = k & m;
        // (term, coefficient, whether a term wider than w may still be rewritten by
        // slicing it to w bits).
        let mut work: Vec<(NodeId, u128, bool)> =
            terms.iter().rev().map(|&(t, c)| (t, c, true)).collect();
        while let Some((t, c, raw)) = work.pop() {
            let c = c & m;
            if c == 0 {
                continue;
            }
            match &self.nodes[t.index()] {
                Node::Const(v) => kk = kk.wrapping_add(v.wrapping_mul(c)) & m,
                Node::Add {
                    w: w2,
                    k: k2,
                    terms: t2,
                } if *w2 as u32 >= w || c.trailing_zeros() >= w - *w2 as u32 => {
                    // (With c a multiple of 2^(w - w2), the narrower wrap is invisible.)
                    kk = kk.wrapping_add(k2.wrapping_mul(c)) & m;
                    for &(x, cx) in t2.iter().rev() {
                        work.push((x, cx.wrapping_mul(c), true));
                    }
                    self.fire(Rule::AddFlatten);
                }
                Node::Concat { k: ck, segs } => {
                    if self.info[t.index()].nz & !m != 0 {
                        let tt = self.slice(t, 0, w);
                        work.push((tt, c, true));
                        continue;
                    }
                    if *ck == 0 && segs.len() == 1 {
                        let s = segs[0];
                        let (from, at, len) = (s.from as u32, s.at as u32, s.len as u32);
                        let covers = len >= sig(sh_r(self.nz(s.node), from));
                        if from == 0 && (at + len >= w || covers) {
                            work.push((s.node, sh_l(c, at) & m, false));
                            self.fire(Rule::AddShlTerm);
                            continue;
                        }
                        if from > 0 && at > 0 && (at + len >= w || covers) {
                            // (x[from..] << at): the term 2^at · x[from..].
                            let y = self.slice(s.node, from, len);
                            work.push((y, sh_l(c, at) & m, false));
                            self.fire(Rule::AddShlTerm);
                            continue;
                        }
                        let top = sig(self.nz(s.node));
                        if at == 0 && len < w && len + c.trailing_zeros() >= w && top > from + len {
                            // Bits len.. of the slice are multiplied by 2^w: the widest
                            // slice (or the node itself) is the term.
                            self.fire(Rule::AddTermWiden);
                            let y = if from == 0 {
                                s.node
                            } else {
                                self.slice(s.node, from, (top - from).min(w))
                            };
                            work.push((y, c, true));
                            continue;
                        }
                    }
                    acc.push((t, c));
                }
                &Node::Prod(x, y) if self.as_const(y).is_some() => {
                    // c·x exactly: as a term of a sum it is the coefficient c.
                    let cy = self.as_const(y).unwrap_or(0);
                    work.push((x, cy.wrapping_mul(c), true));
                    self.fire(Rule::MulConst);
                }
                _ => {
                    if raw && self.nz(t) & !m != 0 {
                        // Only the low w bits count: take them as a slice, unless that is
                        // just the plain truncation of t (then t itself is the term).
                        let tt = self.slice(t, 0, w);
                        let plain = matches!(&self.nodes[tt.index()],
                            Node::Concat { k: 0, segs } if segs.len() == 1
                                && segs[0].node == t && segs[0].from == 0 && segs[0].at == 0);
                        if !plain {
                            work.push((tt, c, true));
                            continue;
                        }
                    }
                    acc.push((t, c));
                }
            }
        }
        (acc, kk)
    }

    /// Terms sorted by node, equal nodes merged (rule `add-collect`), zero coefficients
    /// (modulo `m + 1`) dropped.
    fn collect_terms(&mut self, mut acc: Vec<(NodeId, u128)>, m: u128) -> Vec<(NodeId, u128)> {
        acc.sort_unstable_by_key(|&(t, _)| t);
        let mut merged: Vec<(NodeId, u128)> = Vec::with_capacity(acc.len());
        for (t, c) in acc {
            match merged.last_mut() {
                Some(last) if last.0 == t => {
                    last.1 = last.1.wrapping_add(c) & m;
                    self.fire(Rule::AddCollect);
                }
                _ => merged.push((t, c)),
            }
        }
        merged.retain(|&(_, c)| c != 0);
        merged
    }

    /// A sum modulo 2^w of the one term `c·t` and no constant, when a rule makes it
    /// something else than an `Add` node: a slice (`add-single`), a shift
    /// (`add-shl-term`), or an exact product (`mul-const`).
    fn add_one_term(&mut self, w: u32, t: NodeId, c: u128) -> Option<NodeId> {
        let m = mask(w);
        if c == 1 {
            self.fire(Rule::AddSingle);
            return Some(self.slice(t, 0, w));
        }
        // (Wider sums keep their limb structure: see wide-add-split.)
        if c.is_power_of_two() && (w <= 64 || self.nz(t) <= M64) {
            self.fire(Rule::AddShlTerm);
            return Some(self.shl(t, c.trailing_zeros(), w));
        }
        if self.ub(t).min(m).checked_mul(c).is_some_and(|p| p <= m) && self.nz(t) <= m.min(M64) {
            // c·t never wraps: it is the exact product (what `mulx` gives).
            self.fire(Rule::MulConst);
            let kc = self.konst(c);
            return Some(self.prod(t, kc));
        }
        None
    }

    /// `Σ args mod 2^w` (all coefficients 1).
    pub fn sum(&mut self, w: u32, args: &[NodeId]) -> NodeId {
        let terms: Vec<(NodeId, u128)> = args.iter().map(|&a| (a, 1)).collect();
        self.add(w, &terms, 0)
    }

    /// Rule `carry-telescope` on a list of terms (a sum's, or the arguments of a carry or
    /// borrow with coefficient 1): two 64-bit carries with one coefficient, the second
    /// of which adds the first one's low word, become one carry of all their arguments.
    /// Returns whether anything changed (the list may then hold equal terms).
    pub(super) fn telescope(&mut self, terms: &mut Vec<(NodeId, u128)>) -> bool {
        let mut changed = false;
        'again: loop {
            let is_carry = |&&(t, _): &&(NodeId, u128)| {
                matches!(self.nodes[t.index()], Node::Carry { shift: 64, .. })
            };
            if terms.iter().filter(is_carry).count() < 2 {
                return changed;
            }
            for i in 0..terms.len() {
                let (ci, coef) = terms[i];
                let Some(&low) = self.lows.get(&ci) else {
                    continue;
                };
                for j in 0..terms.len() {
                    let (cj, cj_coef) = terms[j];
                    if i == j || cj_coef != coef {
                        continue;
                    }
                    // Borrowed until a pair is found: only a firing allocates.
                    let (Some((ki, ai)), Some((kj, aj))) = (self.carry64(ci), self.carry64(cj))
                    else {
                        continue;
                    };
                    let (Some(at), Some(k)) =
                        (aj.iter().position(|&x| x == low), ki.checked_add(kj))
                    else {
                        continue;
                    };
                    let mut args = ai.to_vec();
                    args.extend(
                        aj.iter()
                            .enumerate()
                            .filter(|&(n, _)| n != at)
                            .map(|(_, &x)| x),
                    );
                    self.fire(Rule::CarryTelescope);
                    let c = self.carry(64, &args, k);
                    terms.remove(i.max(j));
                    terms[i.min(j)] = (c, coef);
                    changed = true;
                    continue 'again;
                }
            }
            return changed;
        }
    }

    /// Rule `const-prod-high` on a sum's collected terms: `x[64-p..64] - borrow((x << p)
    /// mod 2^64 < x)` is the high word of `x·(2^p - 1)`, and `x[64-p..64] + carry((x << p)
    /// mod 2^64 + x)` that of `x·(2^p + 1)`, for `x < 2^64` and `0 < p < 64` (exact:
    /// `x·(2^p ± 1) = 2^64·x[64-p..64] + ((x << p) mod 2^64 ± x)`, and the last sum lies
    /// in `(-2^64, 2^65)`). So a constant product strength-reduced to `shld; shl; sub;
    /// sbb` (gcc's generic tuning) meets the `mulx` high half. Returns whether anything
    /// changed (the list may then hold equal terms).
    fn const_prod_high(&mut self, terms: &mut Vec<(NodeId, u128)>, m: u128) -> bool {
        let mut changed = false;
        let mut i = 0;
        while i < terms.len() {
            let (b, cb) = terms[i];
            // (x, p, whether x·(2^p + 1)), with the coefficient the top slice must have.
            let found = match &self.nodes[b.index()] {
                &Node::Borrow { a, k: 0, ref subs } if subs.len() == 1 => {
                    let x = subs[0];
                    self.shifted(a, x)
                        .map(|p| (x, p, false, cb.wrapping_neg() & m))
                }
                Node::Carry {
                    shift: 64,
                    k: 0,
                    args,
                } if args.len() == 2 => {
                    let (u, v) = (args[0], args[1]);
                    self.shifted(u, v)
                        .map(|p| (v, p))
                        .or_else(|| self.shifted(v, u).map(|p| (u, p)))
                        .map(|(x, p)| (x, p, true, cb))
                }
                _ => None,
            };
            let Some((x, p, plus, want)) = found else {
                i += 1;
                continue;
            };
            let top = self.slice(x, 64 - p, p);
            let Some(j) = terms.iter().position(|&(t, c)| t == top && c == want) else {
                i += 1;
                continue;
            };
            self.fire(Rule::ConstProdHigh);
            let c = self.konst(if plus { (1 << p) + 1 } else { (1 << p) - 1 });
            let prod = self.prod(x, c);
            terms[j] = (self.slice(prod, 64, 64), want);
            terms.remove(i);
            changed = true;
            i = 0;
        }
        changed
    }

    /// `Some(p)` if `a` is `(x << p) mod 2^64` for a word `x` and `0 < p < 64` (as the
    /// shift's own constructor makes it: the low bits of a sum are a narrower sum).
    fn shifted(&mut self, a: NodeId, x: NodeId) -> Option<u32> {
        let Node::Concat { k: 0, segs } = &self.nodes[a.index()] else {
            return None;
        };
        let [s] = segs[..] else {
            return None;
        };
        let p = s.at as u32;
        if p == 0 || p >= 64 || self.nz(x) > M64 {
            return None;
        }
        (self.shl(x, p, 64) == a).then_some(p)
    }

    /// Parts of a sum `a = (k + Σ c·t) mod 2^w`, some coefficient not 1, that add up to
    /// `a` exactly (no wrap), as nodes of their own (rule `carry-flatten`):
    ///
    /// * of two to four terms, its terms `c·t mod 2^w` (`x << 32` for `2^32·x`), when
    ///   these and `k` add up to less than `2^w`, or when their bits are disjoint, one's
    ///   perhaps only by its trailing zeros (the low word of `x·(2^64 - 2^32)` plus a
    ///   carry, or plus `hi(m·(2^32 - 1))` as clang adds it);
    /// * of any number, the sum of the terms whose coefficients are multiples of
    ///   `2^s` (a multiple of `2^s` below `2^w`) and the sum of the others, when those
    ///   and `k` stay below `2^s`: `lo(-2^32·m) + hi(m·(2^32 - 1))` with `m` a sum
    ///   itself, flattened (Fiat adds the two as words, clang with `or`, rule
    ///   `bitwise-disjoint-sum`); a doubled sum plus a carried bit (`2·x + b`: gcc's
    ///   curve25519 Solinas multiplication needs it).
    fn scaled_parts(&mut self, a: NodeId) -> Option<Vec<NodeId>> {
        let Node::Add { w, k, terms } = &self.nodes[a.index()] else {
            return None;
        };
        // (A single term is its own part: nothing to flatten.)
        if terms.len() < 2 || terms.iter().all(|&(_, c)| c == 1) {
            return None;
        }
        let (w, k, terms) = (*w as u32, *k, terms.clone());
        if terms.len() <= 4 {
            if let Some(parts) = self.term_parts(w, k, &terms) {
                return Some(parts);
            }
        }
        self.aligned_parts(w, k, &terms)
    }

    /// The first kind of [`Graph::scaled_parts`]: each term a part.
    fn term_parts(&mut self, w: u32, k: u128, terms: &[(NodeId, u128)]) -> Option<Vec<NodeId>> {
        let parts: Vec<NodeId> = terms
            .iter()
            .map(|&(t, c)| self.add(w, &[(t, c)], 0))
            .collect();
        let bound = parts.iter().try_fold(k, |b, &n| b.checked_add(self.ub(n)));
        let fits = bound.is_some_and(|b| b <= mask(w));
        (fits || self.disjoint_bits(&parts, k).is_some()).then_some(parts)
    }

    /// The second kind of [`Graph::scaled_parts`]: the terms whose coefficients are
    /// multiples of `2^s`, for the largest `s` under which the others stay below `2^s`.
    fn aligned_parts(&mut self, w: u32, k: u128, terms: &[(NodeId, u128)]) -> Option<Vec<NodeId>> {
        let mut shifts: Vec<u32> = terms.iter().map(|&(_, c)| c.trailing_zeros()).collect();
        shifts.sort_unstable();
        shifts.dedup();
        for &s in shifts.iter().rev() {
            if s == 0 || s >= w {
                continue;
            }
            let (high, low): (Terms, Terms) =
                terms.iter().partition(|&&(_, c)| c.trailing_zeros() >= s);
            if low.is_empty() {
                continue;
            }
            let bound = low
                .iter()
                .try_fold(k, |b, &(t, c)| self.ub(t).checked_mul(c)?.checked_add(b));
            if bound.is_some_and(|b| b < 1 << s) {
                let h = self.add(w, &high, 0);
                let l = self.add(w, &low, 0);
                return Some(vec![h, l]);
            }
        }
        None
    }

    /// The constant and arguments of `t` if it is a 64-bit carry.
    fn carry64(&self, t: NodeId) -> Option<(u128, &[NodeId])> {
        match &self.nodes[t.index()] {
            Node::Carry { shift: 64, k, args } => Some((*k, args)),
            _ => None,
        }
    }

    /// The arguments and constant of an exact sum `k + Σ args` (a carry's, or a borrow's
    /// subtrahends) in normal form: sums that cannot wrap spliced in (rule
    /// `carry-flatten`), chained carries merged (rule `carry-telescope`), constants
    /// folded into `k` while it does not overflow, the rest sorted.
    fn exact_args(&mut self, args: &[NodeId], k: u128) -> (Vec<NodeId>, u128) {
        let mut kk = k;
        let mut ts: Vec<(NodeId, u128)> = Vec::with_capacity(args.len());
        let mut work: Vec<NodeId> = args.iter().rev().copied().collect();
        while let Some(a) = work.pop() {
            if let Node::Add { w, k: ka, terms } = &self.nodes[a.index()] {
                // Each term counts by its value mod 2^w (`lo(x²) + b` for a bit `b`
                // cannot wrap), and is spliced as that value.
                let m = mask(*w as u32);
                let fits = terms.iter().all(|&(_, c)| c == 1)
                    && terms
                        .iter()
                        .try_fold(*ka, |acc, &(t, _)| acc.checked_add(self.ub_mod(t, m)))
                        .is_some_and(|b| b <= m);
                if let (true, Some(sum)) = (fits, kk.checked_add(*ka)) {
                    let (w, ts) = (*w as u32, terms.clone());
                    kk = sum;
                    for &(t, _) in ts.iter().rev() {
                        let t = self.slice(t, 0, w);
                        work.push(t);
                    }
                    self.fire(Rule::CarryFlatten);
                    continue;
                }
                let ka = *ka;
                if let Some((parts, sum)) = self.scaled_parts(a).zip(kk.checked_add(ka)) {
                    kk = sum;
                    work.extend(parts.into_iter().rev());
                    self.fire(Rule::CarryFlatten);
                    continue;
                }
            }
            ts.push((a, 1));
        }
        self.telescope(&mut ts);
        let mut xs: Vec<NodeId> = Vec::with_capacity(ts.len());
        for (a, _) in ts {
            match self.as_const(a).and_then(|v| kk.checked_add(v)) {
                Some(sum) => kk = sum,
                None => xs.push(a),
            }
        }
        xs.sort_unstable();
        (xs, kk)
    }

    /// `⌊(k + Σ args) / 2^shift⌋`, exact.
    pub fn carry(&mut self, shift: u32, args: &[NodeId], k: u128) -> NodeId {
        let n = self.carry_normal(shift, args, k);
        self.note_written(
            n,
            || Node::Carry {
                shift: shift as u8,
                k,
                args: args.into(),
            },
            args.iter().copied(),
        );
        n
    }

    fn carry_normal(&mut self, shift: u32, args: &[NodeId], k: u128) -> NodeId {
        let (xs, kk) = self.exact_args(args, k);
        if xs.is_empty() {
            self.fire(Rule::ConstFold);
            return self.konst(sh_r(kk, shift));
        }
        let bound = xs
            .iter()
            .try_fold(kk, |acc, &a| acc.checked_add(self.ub(a)));
        // The arguments as written bound the same exact sum, tighter where a spliced
        // sum's parts overcount it (`lo(-2^32·m) + hi(m·(2^32 - 1))` is below 2^64, its
        // parts' bounds add up above), and arguments whose bits are disjoint (one's
        // perhaps only by a sum's trailing zeros) add up to at most their bits
        // together: Fiat's carry out of `hi(m·p0) + lo(m·p1)` for P-384, which clang
        // never computes.
        let written = args
            .iter()
            .try_fold(k, |acc, &a| acc.checked_add(self.ub(a)));
        let bound = [bound, written, self.disjoint_bits(&xs, kk)]
            .into_iter()
            .flatten()
            .min();
        if let Some(b) = bound {
            if sh_r(b, shift) == 0 {
                self.fire(Rule::CarryZero);
                return self.konst(0);
            }
            if b <= M64 && shift < 64 {
                self.fire(Rule::CarrySlice);
                let terms: Vec<(NodeId, u128)> = xs.iter().map(|&x| (x, 1)).collect();
                let s = self.add(64, &terms, kk);
                return self.slice(s, shift, 64 - shift);
            }
        }
        if shift == 64 && kk == 0 && xs.len() == 2 && xs[0] == xs[1] && self.nz(xs[0]) <= M64 {
            self.fire(Rule::CarryDouble);
            return self.slice(xs[0], 63, 1);
        }
        let ub = match bound {
            Some(b) => sh_r(b, shift),
            None => u128::MAX,
        };
        let terms: Vec<(NodeId, u128)> = xs.iter().map(|&x| (x, 1)).collect();
        let c = self.intern(
            Node::Carry {
                shift: shift as u8,
                k: kk,
                args: xs.into_boxed_slice(),
            },
            Info {
                nz: mask(sig(ub)),
                ub,
            },
        );
        if shift == 64 && !self.lows.contains_key(&c) {
            let low = self.add(64, &terms, kk);
            self.lows.insert(c, low);
        }
        c
    }

    /// `1` if `a < k + Σ subs`, else `0`.
    pub fn borrow(&mut self, a: NodeId, subs: &[NodeId], k: u128) -> NodeId {
        let n = self.borrow_normal(a, subs, k);
        self.note_written(
            n,
            || Node::Borrow {
                a,
                k,
                subs: subs.into(),
            },
            subs.iter().copied(),
        );
        n
    }

    fn borrow_normal(&mut self, a: NodeId, subs: &[NodeId], k: u128) -> NodeId {
        let (xs, kk) = self.exact_args(subs, k);
        let bound = xs
            .iter()
            .try_fold(kk, |acc, &s| acc.checked_add(self.ub(s)));
        if let Some(b) = bound {
            if b == 0 {
                self.fire(Rule::CarryZero);
                return self.konst(0);
            }
            if let Some(ca) = self.as_const(a) {
                if b <= ca {
                    self.fire(Rule::CarryZero);
                    return self.konst(0);
                }
            }
        }
        if xs.is_empty() {
            if let Some(ca) = self.as_const(a) {
                self.fire(Rule::ConstFold);
                return self.konst((ca < kk) as u128);
            }
            if kk > self.ub(a) {
                self.fire(Rule::CarryZero);
                return self.konst(1);
            }
        }
        self.intern(
            Node::Borrow {
                a,
                k: kk,
                subs: xs.into_boxed_slice(),
            },
            Info { nz: 1, ub: 1 },
        )
    }

    /// The exact product `a · b` (the operands' bits must add up to at most 128; wider
    /// products are taken modulo 2^128).
    pub fn prod(&mut self, a: NodeId, b: NodeId) -> NodeId {
        let (a, b) = match (self.as_const(a), self.as_const(b)) {
            (Some(_), None) => (b, a),
            (None, Some(_)) => (a, b),
            _ if a <= b => (a, b),
            _ => (b, a),
        };
        if let (&Node::Prod(y, d), Some(c)) = (&self.nodes[a.index()], self.as_const(b)) {
            if let Some(cd) = self.as_const(d).and_then(|d| d.checked_mul(c)) {
                // (y·d)·c = y·(d·c)
                self.fire(Rule::MulConst);
                let k = self.konst(cd);
                return self.prod(y, k);
            }
        }
        match (self.as_const(a), self.as_const(b)) {
            (Some(x), Some(y)) => {
                self.fire(Rule::ConstFold);
                return self.konst(x.wrapping_mul(y));
            }
            (None, Some(0)) => {
                self.fire(Rule::ProdPow2);
                return self.konst(0);
            }
            (None, Some(1)) => {
                self.fire(Rule::ProdPow2);
                return a;
            }
            (None, Some(c)) if c.is_power_of_two() => {
                self.fire(Rule::ProdPow2);
                return self.shl(a, c.trailing_zeros(), 128);
            }
            _ => {}
        }
        let (ia, ib) = (self.info[a.index()], self.info[b.index()]);
        if sig(ia.nz) + sig(ib.nz) > 128 {
            return self.intern(
                Node::MulMod {
                    w: 128,
                    args: vec![a, b].into_boxed_slice(),
                },
                Info {
                    nz: u128::MAX,
                    ub: u128::MAX,
                },
            );
        }
        let ub = ia.ub.saturating_mul(ib.ub);
        // A square's bit 1 is zero: x² ≡ 0 or 1 (mod 4). (What lets a compiler drop the
        // carry of `lo(x²) + b` for a bit `b`: the low word is at most 2^64 - 3.)
        let nz = mask(sig(ub)) & if a == b { !2 } else { !0 };
        self.intern(Node::Prod(a, b), Info { nz, ub: ub.min(nz) })
    }

    /// `Π args mod 2^w`.
    pub fn mul(&mut self, w: u32, args: &[NodeId]) -> NodeId {
        let w = w.clamp(1, 128);
        let m = mask(w);
        let mut c: u128 = 1;
        let mut xs: Vec<NodeId> = Vec::with_capacity(args.len());
        for &a in args {
            let a = self.slice(a, 0, w);
            match self.as_const(a) {
                Some(v) => c = c.wrapping_mul(v) & m,
                None => xs.push(a),
            }
        }
        if c == 0 || xs.is_empty() {
            return self.konst(if xs.is_empty() { c } else { 0 });
        }
        xs.sort_unstable();
        let core = match xs.len() {
            1 if c != 1 && w > 64 && self.nz(xs[0]) <= M64 && c <= M64 => {
                // Wider than a word: the exact product (its limbs are what x86 computes).
                self.fire(Rule::MulConst);
                let kc = self.konst(c);
                let p = self.prod(xs[0], kc);
                return self.slice(p, 0, w);
            }
            1 => xs[0],
            2 if w > 64 && (self.nz(xs[0]) > M64 || self.nz(xs[1]) > M64) => {
                self.wide_mul(w, xs[0], xs[1])
            }
            2 => {
                let p = self.prod(xs[0], xs[1]);
                self.slice(p, 0, w)
            }
            _ => {
                let bound = xs
                    .iter()
                    .try_fold(1u128, |acc, &x| acc.checked_mul(self.ub(x)));
                let ub = match bound {
                    Some(b) if b <= m => b,
                    _ => m,
                };
                self.intern(
                    Node::MulMod {
                        w: w as u8,
                        args: xs.into_boxed_slice(),
                    },
                    Info {
                        nz: mask(sig(ub)),
                        ub,
                    },
                )
            }
        };
        if c == 1 {
            core
        } else {
            self.fire(Rule::MulConst);
            self.add(w, &[(core, c)], 0)
        }
    }
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}
