//! The smart constructors of the bit structure: slices, shifts by constants, constant
//! masks and concatenations, all normalized into one [`Node::Concat`] form (slices of
//! slices composed, adjacent slices merged, slices trimmed to the bits a node can have;
//! rules `slice-*`, `and-mask`'s `select`, `shl-arith`).
//!
//! This module must never build a concatenation whose parts may set the same bit: the
//! concatenation is an OR of disjoint parts, and its range relies on that.

use super::arena::{Graph, Node, NodeId, Seg};
use super::range::{mask, sh_l, sh_r, sig};
use super::rules::Rule;

impl Graph {
    /// Bits `from..from+len` of `x` (`(x >> from) mod 2^len`).
    pub fn slice(&mut self, x: NodeId, from: u32, len: u32) -> NodeId {
        if from == 0 && self.nz(x) & !mask(len) == 0 {
            return x;
        }
        if from >= 128 || len == 0 {
            return self.konst(0);
        }
        self.concat(
            &[Seg {
                node: x,
                from: from as u8,
                len: len.min(128) as u8,
                at: 0,
            }],
            0,
        )
    }

    /// `x mod 2^w`.
    pub fn trunc(&mut self, x: NodeId, w: u32) -> NodeId {
        self.slice(x, 0, w)
    }

    /// `(x << n) mod 2^w`.
    pub fn shl(&mut self, x: NodeId, n: u32, w: u32) -> NodeId {
        if n >= w {
            return self.konst(0);
        }
        self.concat(
            &[Seg {
                node: x,
                from: 0,
                len: (w - n).min(128) as u8,
                at: n as u8,
            }],
            0,
        )
    }

    /// `x >> n` (logical, exact).
    pub fn shr(&mut self, x: NodeId, n: u32) -> NodeId {
        self.slice(x, n, 128u32.saturating_sub(n))
    }

    /// `x & m` for a constant `m`: the runs of ones of `m` as slices of `x` (cut above
    /// `x`'s highest possible bit, not at the holes of its possible bits: `x & (2^52 - 1)`
    /// is one slice of a square, whose bit 1 is known zero, as `slice(x, 0, 52)` is).
    pub fn select(&mut self, x: NodeId, m: u128) -> NodeId {
        let m = m & mask(sig(self.nz(x)));
        let mut segs = Vec::new();
        let mut bit = 0u32;
        while bit < 128 {
            let rest = sh_r(m, bit);
            if rest == 0 {
                break;
            }
            let start = bit + rest.trailing_zeros();
            let ones = (sh_r(m, start)).trailing_ones();
            segs.push(Seg {
                node: x,
                from: start as u8,
                len: ones as u8,
                at: start as u8,
            });
            bit = start + ones;
        }
        self.concat(&segs, 0)
    }

    /// `hi · 2^lo_bits + (lo mod 2^lo_bits)`: bits `0..lo_bits` of `lo` under bits
    /// `0..hi_bits` of `hi` (a wide value from its halves).
    pub fn halves(&mut self, lo: NodeId, lo_bits: u8, hi: NodeId, hi_bits: u8) -> NodeId {
        let segs = [
            Seg {
                node: lo,
                from: 0,
                len: lo_bits,
                at: 0,
            },
            Seg {
                node: hi,
                from: 0,
                len: hi_bits,
                at: lo_bits,
            },
        ];
        self.concat(&segs, 0)
    }

    /// The `w`-bit funnel shift right of `hi:lo` by `c` (`c < w ≤ 64`): bits `c..w` of
    /// `lo`, then bits `0..c` of `hi` above them. `shrd lo, hi, c` is this; `shld a, b, c`
    /// is `funnel_right(b, a, w - c, w)`; a rotation right is `funnel_right(a, a, c, w)`.
    pub fn funnel_right(&mut self, lo: NodeId, hi: NodeId, c: u32, w: u32) -> NodeId {
        let segs = [
            Seg {
                node: lo,
                from: c as u8,
                len: (w - c) as u8,
                at: 0,
            },
            Seg {
                node: hi,
                from: 0,
                len: c as u8,
                at: (w - c) as u8,
            },
        ];
        self.concat(&segs, 0)
    }

    /// The 64-bit `old` with its bits `0..bits` replaced by those of `low` (a write to a
    /// partial register).
    pub fn with_low(&mut self, old: NodeId, low: NodeId, bits: u8) -> NodeId {
        let segs = [
            Seg {
                node: low,
                from: 0,
                len: bits,
                at: 0,
            },
            Seg {
                node: old,
                from: bits,
                len: 64 - bits,
                at: bits,
            },
        ];
        self.concat(&segs, 0)
    }

    /// The concatenation `k | Σ slices` (slices and `k` must be disjoint).
    pub fn concat(&mut self, segs: &[Seg], k: u128) -> NodeId {
        if let ([s], 0) = (segs, k) {
            if let Some(n) = self.shl_arith(*s) {
                return n;
            }
        }
        let mut out: Vec<Seg> = Vec::with_capacity(segs.len() + 2);
        let mut kk = k;
        for &s in segs {
            self.expand(s, &mut out, &mut kk);
        }
        let merged = self.merge_slices(out);
        if merged.is_empty() {
            return self.konst(kk);
        }
        if merged.len() == 1 && kk == 0 {
            let s = merged[0];
            if s.from == 0 && s.at == 0 && s.len as u32 >= sig(self.nz(s.node)) {
                self.fire(Rule::SliceWhole);
                return s.node;
            }
            if let Some(n) = self.shl_arith(s) {
                return n;
            }
        }
        let info = self.concat_range(&merged, kk);
        self.intern(
            Node::Concat {
                k: kk,
                segs: merged.into_boxed_slice(),
            },
            info,
        )
    }

    /// Slices sorted by position, adjacent slices of one node merged (rule
    /// `slice-merge`).
    fn merge_slices(&mut self, mut out: Vec<Seg>) -> Vec<Seg> {
        out.sort_unstable_by_key(|s| (s.at, s.node, s.from, s.len));
        let mut merged: Vec<Seg> = Vec::with_capacity(out.len());
        for s in out {
            if let Some(last) = merged.last_mut() {
                if last.node == s.node
                    && last.from as u32 + last.len as u32 == s.from as u32
                    && last.at as u32 + last.len as u32 == s.at as u32
                {
                    last.len += s.len;
                    self.fire(Rule::SliceMerge);
                    continue;
                }
            }
            merged.push(s);
        }
        merged
    }

    /// Appends the normal form of one slice to `out` (atoms trimmed, concatenations and
    /// constants expanded, low bits of sums and signed shifts rewritten).
    fn expand(&mut self, s: Seg, out: &mut Vec<Seg>, kk: &mut u128) {
        let (from, at) = (s.from as u32, s.at as u32);
        if at >= 128 {
            return;
        }
        let len = (s.len as u32).min(128 - at);
        if len == 0 {
            return;
        }
        let id = s.node;
        match &self.nodes[id.index()] {
            Node::Const(c) => {
                let bits = sh_l(sh_r(*c, from) & mask(len), at);
                *kk |= bits;
            }
            Node::Concat { k, segs } => {
                *kk |= sh_l(sh_r(*k, from) & mask(len), at);
                let n = segs.len();
                self.expand_parts(
                    Seg {
                        len: len as u8,
                        ..s
                    },
                    n,
                    out,
                    kk,
                );
            }
            Node::Add { w, k, terms }
                if from > 0
                    && from < *w as u32
                    && *k == mask(from)
                    && matches!(terms[..], [(b, 1)] if self.ub(b) <= 1) =>
            {
                // 2^from - 1 + b < 2^(from + 1) ≤ 2^w: no wrap, and bit `from` is b.
                let b = terms[0].0;
                self.fire(Rule::SliceBitRestore);
                self.expand(
                    Seg {
                        node: b,
                        from: 0,
                        len: 1,
                        at: at as u8,
                    },
                    out,
                    kk,
                );
            }
            Node::Add { w, k, terms } if from == 0 && len < *w as u32 && len < sig(self.nz(id)) => {
                let (k, terms) = (*k, terms.to_vec());
                self.fire(Rule::SliceAddLow);
                let n = self.add(len, &terms, k);
                self.expand(Seg { node: n, ..s }, out, kk);
            }
            &Node::Prod(x, c)
                if from == 0
                    && len <= 64
                    && len < sig(self.nz(id))
                    && sig(self.nz(id)) <= 64
                    && self.as_const(c).is_some() =>
            {
                // c·x fits a word: its truncations are the wrapping products.
                let c = self.as_const(c).unwrap_or(0);
                self.fire(Rule::MulConst);
                let n = self.add(len, &[(x, c)], 0);
                self.expand(Seg { node: n, ..s }, out, kk);
            }
            &Node::Prod(x, c)
                if from < 64 && sig(self.nz(id)) > 64 && self.as_const(c).is_some() =>
            {
                self.expand_wide_prod(
                    Seg {
                        len: len as u8,
                        ..s
                    },
                    x,
                    c,
                    out,
                    kk,
                );
            }
            &Node::Sar { w, n, x } if from + len <= w as u32 - n as u32 => {
                self.fire(Rule::SliceSignedLow);
                self.expand(
                    Seg {
                        node: x,
                        from: (from + n as u32) as u8,
                        len: len as u8,
                        at: at as u8,
                    },
                    out,
                    kk,
                );
            }
            &Node::Sext { from: fb, x, .. } if from + len <= fb as u32 => {
                self.fire(Rule::SliceSignedLow);
                self.expand(
                    Seg {
                        node: x,
                        len: len as u8,
                        ..s
                    },
                    out,
                    kk,
                );
            }
            _ => {
                let m = sh_r(self.nz(id), from) & mask(len);
                if m == 0 {
                    self.fire(Rule::SliceTrim);
                    return;
                }
                let l = sig(m);
                if l < len {
                    self.fire(Rule::SliceTrim);
                }
                out.push(Seg {
                    node: id,
                    from: from as u8,
                    len: l as u8,
                    at: at as u8,
                });
            }
        }
    }

    /// [`Graph::expand`] of slice `s` (its length within 128 bits) of the concatenation
    /// `s.node` with `n` parts: the parts it overlaps, each expanded again (rule
    /// `slice-expand`).
    fn expand_parts(&mut self, s: Seg, n: usize, out: &mut Vec<Seg>, kk: &mut u128) {
        let (from, len, at) = (s.from as u32, s.len as u32, s.at as u32);
        let id = s.node;
        let mut expanded = false;
        for i in 0..n {
            let is = match &self.nodes[id.index()] {
                Node::Concat { segs, .. } => segs[i],
                _ => unreachable!("still a concatenation"),
            };
            let (ia, il) = (is.at as u32, is.len as u32);
            let lo = ia.max(from);
            let hi = (ia + il).min(from + len);
            if lo < hi {
                // Through expand again: a narrower slice of a part may be
                // rewritten (slice-add-low, mul-const, ...).
                self.expand(
                    Seg {
                        node: is.node,
                        from: (is.from as u32 + (lo - ia)) as u8,
                        len: (hi - lo) as u8,
                        at: (at + (lo - from)) as u8,
                    },
                    out,
                    kk,
                );
                expanded = true;
            }
        }
        if expanded && (from != 0 || at != 0 || len < 128) {
            self.fire(Rule::SliceExpand);
        }
    }

    /// [`Graph::expand`] of slice `s` (below bit 64, its length within 128 bits) of the
    /// product `s.node` = `x·c`, `c` a constant, that is wider than a word (rule
    /// `mul-const`).
    fn expand_wide_prod(
        &mut self,
        s: Seg,
        x: NodeId,
        c: NodeId,
        out: &mut Vec<Seg>,
        kk: &mut u128,
    ) {
        let (from, len, at) = (s.from as u32, s.len as u32, s.at as u32);
        let id = s.node;
        // c·x wider than a word: bits below 64 are those of the wrapping product
        // c·x mod 2^64 (what imul or mulx's low half gives), bits above are the
        // product's own (mulx's high half).
        let c = self.as_const(c).unwrap_or(0);
        self.fire(Rule::MulConst);
        let lo = self.add(64, &[(x, c)], 0);
        let low_len = len.min(64 - from);
        self.expand(
            Seg {
                node: lo,
                from: from as u8,
                len: low_len as u8,
                at: at as u8,
            },
            out,
            kk,
        );
        if len > low_len {
            self.expand(
                Seg {
                    node: id,
                    from: 64,
                    len: (len - low_len) as u8,
                    at: (at + low_len) as u8,
                },
                out,
                kk,
            );
        }
    }
}
