//! The smart constructors of bitwise operations (`&`, `|`, `^`, `!`, flattened and
//! sorted, masks and disjoint operands turned into concatenations), of conditions
//! (`== 0`, `!= 0`, `if`), and of the signed operations (arithmetic shift right, sign
//! extension).
//!
//! This module must never treat a value as a fixed-width bit vector where it is an
//! integer: widths enter only as the explicit `w` of an operation.

use super::arena::{Graph, Node, NodeId, Seg};
use super::range::{mask, sext_value, sh_r, Info};
use super::rules::Rule;

impl Graph {
    /// `(& args) mod 2^w`.
    pub fn and(&mut self, w: u32, args: &[NodeId]) -> NodeId {
        // A mask by a bit selects (rule `select-lift`) a value that is not a constant (a
        // constant masked stays a slice of the mask, as `bzhi` and `movzx` cut it).
        if args.iter().filter(|&&a| self.as_const(a).is_none()).count() > 1 {
            for (i, &a) in args.iter().enumerate() {
                let Some((c, t, e)) = self.as_select(a, w) else {
                    continue;
                };
                if self.as_const(t).is_some() && self.as_const(e).is_some() {
                    self.fire(Rule::SelectLift);
                    let mut side = args.to_vec();
                    side[i] = t;
                    let t = self.and(w, &side);
                    side[i] = e;
                    let e = self.and(w, &side);
                    return self.ite(c, t, e);
                }
            }
        }
        let mut cm = mask(w);
        let mut xs: Vec<NodeId> = Vec::with_capacity(args.len());
        let mut work: Vec<NodeId> = args.to_vec();
        while let Some(a) = work.pop() {
            match &self.nodes[a.index()] {
                Node::Const(v) => cm &= *v,
                Node::And(inner) => {
                    work.extend_from_slice(inner);
                    self.fire(Rule::BitwiseAc);
                }
                _ => xs.push(a),
            }
        }
        xs.sort_unstable();
        let before = xs.len();
        xs.dedup();
        if xs.len() < before {
            self.fire(Rule::BitwiseAc);
        }
        if xs.is_empty() || cm == 0 {
            return self.konst(if xs.is_empty() { cm } else { 0 });
        }
        let common = xs.iter().fold(cm, |acc, &x| acc & self.nz(x));
        if common == 0 {
            self.fire(Rule::BitwiseAbsorb);
            return self.konst(0);
        }
        if xs.len() > 1 {
            // Bits outside every operand's range are 0 in the result: each operand is
            // cut to the common ones (`bit & x` = `bit & x[0..1]`), so that how much of
            // an operand a program masked first does not matter.
            for x in xs.iter_mut() {
                if self.nz(*x) & !common != 0 {
                    self.fire(Rule::AndMask);
                    *x = self.select(*x, common);
                }
            }
            xs.sort_unstable();
            xs.dedup();
        }
        let core = if xs.len() == 1 {
            xs[0]
        } else {
            let nz = xs.iter().fold(u128::MAX, |acc, &x| acc & self.nz(x));
            let ub = xs.iter().map(|&x| self.ub(x)).min().unwrap_or(0);
            self.intern(Node::And(xs.into_boxed_slice()), Info { nz, ub })
        };
        if self.nz(core) & !cm == 0 {
            if cm != mask(w) {
                // The mask cannot clear anything the range analysis allows.
                self.fire(Rule::SliceTrim);
            }
            core
        } else {
            self.fire(Rule::AndMask);
            self.select(core, cm)
        }
    }

    /// `(| args) mod 2^w`.
    pub fn or(&mut self, w: u32, args: &[NodeId]) -> NodeId {
        self.or_xor(w, args, false)
    }

    /// `(^ args) mod 2^w`.
    pub fn xor(&mut self, w: u32, args: &[NodeId]) -> NodeId {
        self.or_xor(w, args, true)
    }

    /// `!x mod 2^w`.
    pub fn not(&mut self, w: u32, x: NodeId) -> NodeId {
        let m = self.konst(mask(w));
        self.xor(w, &[x, m])
    }

    /// `x` as a select by a bit: `(c, t, e)` for `Ite(c, t, e)`, and for the mask
    /// `-c mod 2^w` of a bit `c`, `(c, 2^w − 1, 0)`.
    fn as_select(&mut self, x: NodeId, w: u32) -> Option<(NodeId, NodeId, NodeId)> {
        // `-c` of a bit is its exact product with 2^w − 1 (rule `mul-const`), or a
        // one-term sum.
        let bit = match &self.nodes[x.index()] {
            Node::Ite { c, t, e } => return Some((*c, *t, *e)),
            Node::Prod(c, k) if self.as_const(*k) == Some(mask(w)) => *c,
            Node::Add { w: aw, k: 0, terms }
                if terms.len() == 1 && u32::from(*aw) == w && terms[0].1 == mask(w) =>
            {
                terms[0].0
            }
            _ => return None,
        };
        if self.nz(bit) > 1 {
            return None;
        }
        let (m, zero) = (self.konst(mask(w)), self.konst(0));
        Some((bit, m, zero))
    }

    fn or_xor(&mut self, w: u32, args: &[NodeId], is_xor: bool) -> NodeId {
        // Selects by one bit, and constants (rule `select-lift`).
        let mut cond = None;
        let mut sides: Vec<(NodeId, NodeId)> = Vec::with_capacity(args.len());
        for &a in args {
            if self.as_const(a).is_some() {
                sides.push((a, a));
                continue;
            }
            match self.as_select(a, w) {
                Some((c, t, e)) if cond.is_none_or(|k| k == c) => {
                    cond = Some(c);
                    sides.push((t, e));
                }
                _ => {
                    cond = None;
                    sides.clear();
                    break;
                }
            }
        }
        if let Some(c) = cond {
            self.fire(Rule::SelectLift);
            let (ts, es): (Vec<NodeId>, Vec<NodeId>) = sides.into_iter().unzip();
            let t = self.or_xor(w, &ts, is_xor);
            let e = self.or_xor(w, &es, is_xor);
            return self.ite(c, t, e);
        }
        let m = mask(w);
        let mut kk = 0u128;
        let mut xs: Vec<NodeId> = Vec::with_capacity(args.len());
        let mut work: Vec<NodeId> = args.to_vec();
        while let Some(a) = work.pop() {
            let a = self.slice(a, 0, w);
            match &self.nodes[a.index()] {
                Node::Const(v) => {
                    if is_xor {
                        kk ^= v & m
                    } else {
                        kk |= v & m
                    }
                }
                Node::Or(inner) if !is_xor => {
                    work.extend_from_slice(inner);
                    self.fire(Rule::BitwiseAc);
                }
                Node::Xor(inner) if is_xor => {
                    work.extend_from_slice(inner);
                    self.fire(Rule::BitwiseAc);
                }
                _ => xs.push(a),
            }
        }
        let mut xs = self.sort_or_xor_args(xs, is_xor);
        if xs.is_empty() {
            return self.konst(kk);
        }
        let mut seen = kk;
        let mut disjoint = true;
        for &x in &xs {
            let nz = self.nz(x);
            if nz & seen != 0 {
                disjoint = false;
            }
            seen |= nz;
        }
        if disjoint {
            if xs.len() > 1 || kk != 0 {
                self.fire(Rule::BitwiseDisjoint);
            }
            let segs: Vec<Seg> = xs
                .iter()
                .map(|&x| Seg {
                    node: x,
                    from: 0,
                    len: 128,
                    at: 0,
                })
                .collect();
            return self.concat(&segs, kk);
        }
        // Disjoint only by a sum's trailing zeros: the sum of the arguments (rule
        // `bitwise-disjoint-sum`; a concatenation of a sum would not meet the sum the
        // IR adds the two with).
        if self.disjoint_bits(&xs, kk).is_some() {
            self.fire(Rule::BitwiseDisjointSum);
            let terms: Vec<(NodeId, u128)> = xs.iter().map(|&x| (x, 1)).collect();
            return self.add(w, &terms, kk);
        }
        if !is_xor && seen & !kk == 0 {
            self.fire(Rule::BitwiseAbsorb);
            return self.konst(kk);
        }
        let ub = xs
            .iter()
            .fold(kk, |acc, &x| acc.saturating_add(self.ub(x)))
            .min(seen);
        if kk != 0 {
            let c = self.konst(kk);
            xs.push(c);
            xs.sort_unstable();
        }
        let node = if is_xor {
            Node::Xor(xs.into_boxed_slice())
        } else {
            Node::Or(xs.into_boxed_slice())
        };
        self.intern(node, Info { nz: seen, ub })
    }

    /// The arguments of `|` or `^` sorted, duplicates removed (`|`) or cancelled in pairs
    /// (`^`: `x ^ x = 0`) (rule `bitwise-ac`).
    fn sort_or_xor_args(&mut self, mut xs: Vec<NodeId>, is_xor: bool) -> Vec<NodeId> {
        xs.sort_unstable();
        if is_xor {
            let mut kept: Vec<NodeId> = Vec::with_capacity(xs.len());
            for x in xs {
                if kept.last() == Some(&x) {
                    kept.pop();
                    self.fire(Rule::BitwiseAc);
                } else {
                    kept.push(x);
                }
            }
            xs = kept;
        } else {
            let before = xs.len();
            xs.dedup();
            if xs.len() < before {
                self.fire(Rule::BitwiseAc);
            }
        }
        xs
    }

    // -----------------------------------------------------------------------------------
    // conditions

    /// `1` if `x == 0`, else `0`.
    pub fn eqz(&mut self, x: NodeId) -> NodeId {
        if let Some(v) = self.as_const(x) {
            self.fire(Rule::ConstFold);
            return self.konst((v == 0) as u128);
        }
        if self.nz(x) == 1 {
            self.fire(Rule::EqzBit);
            let one = self.konst(1);
            return self.xor(1, &[x, one]);
        }
        self.intern(Node::Eqz(x), Info { nz: 1, ub: 1 })
    }

    /// `1` if `x != 0`, else `0`.
    pub fn nonzero(&mut self, x: NodeId) -> NodeId {
        if self.nz(x) <= 1 {
            return x;
        }
        let z = self.eqz(x);
        self.not(1, z)
    }

    /// `if c != 0 { t } else { e }`; `c` must be a bit (`nz ≤ 1`).
    pub fn ite(&mut self, c: NodeId, t: NodeId, e: NodeId) -> NodeId {
        debug_assert!(self.nz(c) <= 1, "the condition of an Ite is a bit");
        if let Some(v) = self.as_const(c) {
            self.fire(Rule::IteConst);
            return if v != 0 { t } else { e };
        }
        if t == e {
            self.fire(Rule::IteSame);
            return t;
        }
        if let Node::Xor(args) = &self.nodes[c.index()] {
            if args.len() == 2 {
                let (x, y) = (args[0], args[1]);
                let (v, one) = if self.as_const(y) == Some(1) {
                    (x, true)
                } else {
                    (y, self.as_const(x) == Some(1))
                };
                if one && self.nz(v) == 1 {
                    self.fire(Rule::IteNegated);
                    return self.ite(v, e, t);
                }
            }
        }
        match (self.as_const(t), self.as_const(e)) {
            (Some(1), Some(0)) => {
                self.fire(Rule::IteBit);
                return c;
            }
            (Some(0), Some(1)) => {
                self.fire(Rule::IteBit);
                return self.not(1, c);
            }
            _ => {}
        }
        let (it, ie) = (self.info[t.index()], self.info[e.index()]);
        self.intern(
            Node::Ite { c, t, e },
            Info {
                nz: it.nz | ie.nz,
                ub: it.ub.max(ie.ub),
            },
        )
    }

    // -----------------------------------------------------------------------------------
    // signed

    /// The `w`-bit pattern of `x` read as signed, shifted right arithmetically by `n`.
    pub fn sar(&mut self, w: u32, x: NodeId, n: u32) -> NodeId {
        let w = w.clamp(1, 128);
        let x = self.slice(x, 0, w);
        if n == 0 {
            return x;
        }
        let n = n.min(w - 1);
        if let Some(v) = self.as_const(x) {
            self.fire(Rule::ConstFold);
            let s = sext_value(v, w) as i128 >> n;
            return self.konst(s as u128 & mask(w));
        }
        if sh_r(self.nz(x), w - 1) & 1 == 0 {
            self.fire(Rule::SignPositive);
            return self.slice(x, n, w - n);
        }
        if let Node::Concat { k: 0, segs } = &self.nodes[x.index()] {
            if let [s] = segs[..] {
                let (at, len) = (s.at as u32, s.len as u32);
                if at + len == w && n >= at && at > 0 {
                    // sar(y << p, n) for n ≥ p: y's `len` bits read as signed, shifted by
                    // n - p, sign-extended (`shl r, 63; sar r, 63` = sext of a bit).
                    self.fire(Rule::ShlSar);
                    let y = self.slice(s.node, s.from as u32, len);
                    let r = self.sar(len, y, n - at);
                    return self.sext(len, w, r);
                }
            }
        }
        self.intern(
            Node::Sar {
                w: w as u8,
                n: n as u8,
                x,
            },
            Info {
                nz: mask(w),
                ub: mask(w),
            },
        )
    }

    /// The `from`-bit pattern of `x` read as signed, as a `w`-bit pattern.
    pub fn sext(&mut self, from: u32, w: u32, x: NodeId) -> NodeId {
        let (from, w) = (from.clamp(1, 128), w.clamp(1, 128));
        if w <= from {
            return self.slice(x, 0, w);
        }
        let x = self.slice(x, 0, from);
        if let Some(v) = self.as_const(x) {
            self.fire(Rule::ConstFold);
            return self.konst(sext_value(v, from) & mask(w));
        }
        if sh_r(self.nz(x), from - 1) & 1 == 0 {
            self.fire(Rule::SignPositive);
            return x;
        }
        self.intern(
            Node::Sext {
                from: from as u8,
                w: w as u8,
                x,
            },
            Info {
                nz: mask(w),
                ub: mask(w),
            },
        )
    }
}
