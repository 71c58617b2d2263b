//! The named rewrite rules of the expression graph's normal form: the [`Rule`] enum
//! (name, documentation, and how often each fired), and the rewrites that are one rule as
//! a whole (`shl-arith`, `wide-add-split`, `wide-mul-split`). The other rules are applied
//! where they belong, inside the smart constructors, each with a `fire` of its name.
//!
//! Every rule must be sound for all values within the leaves' bounds, documented on its
//! variant, and tested (the graph's tests fail for a rule without a case); a rewrite that
//! this module cannot justify for every input must never be added to it.

use super::arena::{Graph, Node, NodeId, Seg};
use super::range::{mask, M64};

macro_rules! rules {
    ($( $(#[doc = $doc:literal])* $variant:ident = $name:literal, )*) => {
        /// The named rewrite rules of the normal form. Each is applied by a smart
        /// constructor of [`Graph`], documented here, and property-tested (see the tests
        /// of this module) on random values with the concrete evaluator.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Rule {
            $( $(#[doc = $doc])* $variant, )*
        }

        impl Rule {
            /// Every rule, in declaration order.
            pub const ALL: &'static [Rule] = &[$(Rule::$variant),*];

            /// The rule's name (kebab case).
            pub fn name(self) -> &'static str {
                match self { $(Rule::$variant => $name,)* }
            }

            /// The rule's documentation.
            pub fn doc(self) -> &'static str {
                match self { $(Rule::$variant => concat!($($doc, "\n"),*),)* }
            }
        }
    };
}

rules! {
    /// An operation whose operands are all constants is computed.
    ConstFold = "const-fold",
    /// A sum modulo 2^v inside a sum modulo 2^w, v ≥ w, is spliced into it:
    /// `((a + b) mod 2^v + c) mod 2^w = (a + b + c) mod 2^w` (add chains, `adc r, 0`).
    AddFlatten = "add-flatten",
    /// Equal terms of a sum are merged by adding their coefficients: `x + 2x = 3x`
    /// (`lea [x + x*2]` = `imul x, 3`); terms with coefficient 0 disappear.
    AddCollect = "add-collect",
    /// A slice `x << p` (bits of `x` placed at `p`, reaching the top of the sum or covering
    /// all of `x`) inside a sum is the term `2^p·x`, and a sum of the one term `2^p·x` is
    /// `x << p` (`shl x, 2` = `lea [x*4]` = `imul x, 4`).
    AddShlTerm = "add-shl-term",
    /// A sum whose coefficients and constant share a factor `g` (not a power of two) is
    /// `g·x` when the quotient `x` is a sum already made: `x + 2·(9x)` (two `lea`) = `19·x`.
    AddFactor = "add-factor",
    /// A sum of the one term `1·x` is `x mod 2^w` (a slice).
    AddSingle = "add-single",
    /// Multiplication by a constant is a coefficient: `x · c mod 2^w = c·x`, including the
    /// low bits of an exact product with a constant (`mulx` with a constant in rdx = `imul`).
    MulConst = "mul-const",
    /// The high word of `x·(2^p ± 1)` for a word `x`, written with shifts (gcc's generic
    /// tuning: `shld hi, x, p; shl lo, p; sub lo, x; sbb hi, 0`): in a sum,
    /// `x[64-p..64] - borrow((x << p) mod 2^64 < x)` and `x[64-p..64] + carry((x << p)
    /// mod 2^64 + x)` are the high slice of the exact product (the low word is already
    /// the coefficient form, rule `mul-const`).
    ConstProdHigh = "const-prod-high",
    /// An exact product with `2^p` is the shift `x << p`; with 0 or 1 it is 0 or `x`.
    ProdPow2 = "prod-pow2",
    /// A shifted slice `(c·y << p) mod 2^t` of an exact product with a constant is the
    /// sum `2^p·c·y mod 2^t`, so that `shl (x·19), 1` and `x·38` are one node. (Not for
    /// sums: their shifts stay bit slices, which `shrd` done as `shr; shl; or` needs.)
    ShlArith = "shl-arith",
    /// A carry or borrow is 0 when the bounds show the sum cannot reach `2^s` (or the
    /// subtrahends cannot exceed the minuend): e.g. `adc hi, 0` of a product's high half.
    CarryZero = "carry-zero",
    /// The carry `⌊Σ / 2^s⌋` of a sum that fits in 64 bits is the bit slice `s..64` of the
    /// 64-bit sum (narrow `addcarryx` as `add; shr`).
    CarrySlice = "carry-slice",
    /// The carry of `x + x` is bit 63 of `x` (`add x, x` = `shl x, 1`).
    CarryDouble = "carry-double",
    /// Carries of one chain telescope: `⌊(ΣA + k₁)/2^64⌋ + ⌊(L + ΣB + k₂)/2^64⌋ =
    /// ⌊(ΣA + ΣB + k₁ + k₂)/2^64⌋` where `L = (ΣA + k₁) mod 2^64` is the first sum's low
    /// word (exact for all non-negative values: `ΣA + k₁ = 2^64·c₁ + L`). Two such carries
    /// with one coefficient in a sum, or among the arguments of a carry or borrow, become
    /// the one carry: `addcarryx(c, a, b)` computed as `add a, b; add lo, c` (a compiler's
    /// association) has the carry the IR's three-operand sum has.
    CarryTelescope = "carry-telescope",
    /// In a sum modulo 2^w only the low `w - tz(c)` bits of a term with coefficient `c`
    /// count: a slice term `x[f..f+len]` with `len + tz(c) ≥ w` is widened to `x` (for
    /// `f = 0`) or to the slice of up to `w` bits from `f`, so that `2^32·(x mod 2^32)`
    /// (the low half of a 32-bit sum shifted up: `shl r, 32`) and `2^32·x` are one term.
    AddTermWiden = "add-term-widen",
    /// A sum modulo 2^w with coefficients 1 that cannot wrap (the bounds of its terms and
    /// constant add up to less than 2^w) is its exact sum: among the arguments of a carry
    /// or borrow it is replaced by its terms (its constant joins theirs), so a carry
    /// sees the same exact sum however a program grouped the additions before it.
    CarryFlatten = "carry-flatten",
    /// A sum modulo 2^w, w > 64, of terms with coefficients ±1 is split into 64-bit limbs:
    /// `lo = Σ lo(tᵢ) mod 2^64`, `hi = Σ hi(tᵢ) + carry(Σ lo(tᵢ)) mod 2^(w-64)` (minus a
    /// borrow for one negated term): Fiat's u128 `+` becomes the add/adc chain.
    WideAddSplit = "wide-add-split",
    /// A product modulo 2^w, w > 64, of operands wider than 64 bits is split:
    /// `a·b = lo(a)·lo(b) + (lo(a)·hi(b) + hi(a)·lo(b)) << 64 mod 2^w`.
    WideMulSplit = "wide-mul-split",
    /// A slice of a concatenation is the concatenation of the slices of its parts; a slice
    /// of a constant is a constant (shr of a shrd, movzx of a setc-written byte).
    SliceExpand = "slice-expand",
    /// Bits of a node above its range (range analysis) are zero: slices are cut or dropped.
    /// This removes redundant truncations (`x & (2^k-1)` when `x < 2^k`).
    SliceTrim = "slice-trim",
    /// Adjacent slices of one node are merged (`(lo >> n) | (hi << 64-n)` pieces,
    /// byte-wise memory reads of a word).
    SliceMerge = "slice-merge",
    /// A slice from bit 0 covering all bits a node can have is the node itself
    /// (zero-extension is the identity: `movzx` of a saved carry, `bt r, 0` of it).
    SliceWhole = "slice-whole",
    /// The low `k` bits of a sum modulo 2^w, k < w, are the sum modulo 2^k.
    SliceAddLow = "slice-add-low",
    /// Bits `s..` of `2^s - 1 + b` for a bit `b` (a sum that cannot wrap) are `b`: a
    /// carry flag restored from a byte (`add r8b, 0xff`, LLVM's way back from `setc`).
    SliceBitRestore = "slice-bit-restore",
    /// Bits of an arithmetic shift or sign extension below the copies of the sign bit are
    /// plain bits of the operand.
    SliceSignedLow = "slice-signed-low",
    /// `x & m` for a constant `m` selects the runs of ones of `m`: a concatenation of
    /// slices of `x` (`and imm`, `movzx`, `mov r32, r32`, `bzhi`, `shl; shr`).
    AndMask = "and-mask",
    /// `a | b` and `a ^ b` whose possibly-nonzero bits are disjoint are concatenations.
    BitwiseDisjoint = "bitwise-disjoint",
    /// `a | b` and `a ^ b` of words whose bits are disjoint only by a sum's trailing
    /// zeros (every coefficient and the constant a multiple of `2^t`) are the sum
    /// `a + b`: clang's P-384 column `lo(-2^32·m) | hi(m·(2^32 - 1))` is the IR's
    /// `lo(m·p1) + hi(m·p0)`.
    BitwiseDisjointSum = "bitwise-disjoint-sum",
    /// `&`, `|`, `^` are flattened and their arguments sorted; duplicates are removed
    /// (`&`, `|`) or cancel (`^`: `x ^ x = 0`, `xor eax, eax`).
    BitwiseAc = "bitwise-ac",
    /// `a & b` with disjoint possibly-nonzero bits is 0; `a | m` with `m` covering every
    /// possible bit of `a` is `m`.
    BitwiseAbsorb = "bitwise-absorb",
    /// `Ite(c, t, e)` with a constant condition is `t` or `e`.
    IteConst = "ite-const",
    /// `Ite(c, x, x)` is `x`.
    IteSame = "ite-same",
    /// `Ite(c ^ 1, t, e)` is `Ite(c, e, t)` (`cmovnc`; `test c, c; cmovz`).
    IteNegated = "ite-negated",
    /// `Ite(c, 1, 0)` is `c` and `Ite(c, 0, 1)` is `c ^ 1`.
    IteBit = "ite-bit",
    /// A bitwise operation on selects by one bit `c` is a select of the operation on
    /// each side: `x & Ite(c, m, k) = Ite(c, x & m, x & k)` for constants `m`, `k`, and
    /// `Ite(c, t1, e1) | Ite(c, t2, e2) | k = Ite(c, t1 | t2 | k, e1 | e2 | k)` (the
    /// same for `^`), where the mask `-c mod 2^w` (`neg`, `sbb r, r` of a bit) is
    /// `Ite(c, 2^w − 1, 0)`: a select written with masks, `(y & -c) | (x & ~-c)`
    /// (`and`/`andn`/`or`), is `Ite(c, y, x)`, as `cmov` writes it.
    SelectLift = "select-lift",
    /// `x == 0` for a one-bit `x` is `x ^ 1` (`test c, c` then `cmovnz`/`setz`).
    EqzBit = "eqz-bit",
    /// `sar`/`sext` of a value whose sign bit is known zero is a plain shift / the value.
    SignPositive = "sign-positive",
    /// `sar(y << p, n)` with `n ≥ p` (the shift reaching the top) is `y` read as signed,
    /// shifted by `n - p` and sign-extended: `shl r, 63; sar r, 63` = `sext` of a bit.
    ShlSar = "shl-sar",
}

impl Rule {
    /// Number of rules.
    pub const COUNT: usize = Rule::ALL.len();

    /// Position in [`Rule::ALL`] (the declaration order).
    pub(super) fn index(self) -> usize {
        self as usize
    }
}

impl Graph {
    /// The rule `shl-arith` for a lone slice, if it applies.
    pub(super) fn shl_arith(&mut self, s: Seg) -> Option<NodeId> {
        let top = (s.at as u32 + s.len as u32).min(128);
        if s.from != 0 || s.at == 0 || s.at as u32 >= 128 {
            return None;
        }
        // Only for c·y: a shifted *sum* stays a bit slice, so that the pieces of
        // `shr lo, n; shl hi, 64-n; or` still concatenate into shrd's bits even when the
        // shift cuts bits of the sum off (making it arithmetic there breaks that).
        let arithmetic = match &self.nodes[s.node.index()] {
            &Node::Prod(_, c) => self.as_const(c).is_some(),
            _ => false,
        };
        if !arithmetic {
            return None;
        }
        // (x << p) mod 2^top of a sum or of c·y is the sum 2^p·x mod 2^top.
        self.fire(Rule::ShlArith);
        Some(self.add(top, &[(s.node, 1u128 << s.at)], 0))
    }

    /// The rule `wide-add-split`; `None` when the coefficients do not allow it.
    pub(super) fn wide_add(&mut self, w: u32, terms: &[(NodeId, u128)], k: u128) -> Option<NodeId> {
        let m = mask(w);
        // c·t with a small c and t is the exact product Prod(t, c) with coefficient 1.
        let mut owned: Vec<(NodeId, u128)> = Vec::with_capacity(terms.len());
        for &(t, c) in terms {
            if c != 1 && c != m && c <= M64 && self.nz(t) <= M64 {
                let kc = self.konst(c);
                owned.push((self.prod(t, kc), 1));
            } else if (2..=64).contains(&c) {
                // A wide term added c times (hash-consing merged equal products).
                owned.extend(std::iter::repeat_n((t, 1), c as usize));
            } else {
                owned.push((t, c));
            }
        }
        let terms = &owned[..];
        let negated = terms.iter().filter(|&&(_, c)| c == m).count();
        if negated > 1 || terms.iter().any(|&(_, c)| c != 1 && c != m) {
            return None;
        }
        self.fire(Rule::WideAddSplit);
        let (klo, khi) = (k & M64, k >> 64);
        let mut lo_terms = Vec::new();
        let mut hi_terms = Vec::new();
        let mut pos_lo = Vec::new();
        let mut neg_lo = None;
        let hm = mask(w - 64);
        for &(t, c) in terms {
            let lo = self.slice(t, 0, 64);
            let hi = self.slice(t, 64, w - 64);
            lo_terms.push((lo, c & M64));
            hi_terms.push((hi, if c == 1 { 1 } else { hm }));
            if c == 1 {
                pos_lo.push(lo);
            } else {
                neg_lo = Some(lo);
            }
        }
        let lo = self.add(64, &lo_terms, klo);
        let carry = self.carry(64, &pos_lo, klo);
        hi_terms.push((carry, 1));
        if let Some(n) = neg_lo {
            // ⌊(P + k - N) / 2^64⌋ = ⌊(P + k) / 2^64⌋ - [ (P + k) mod 2^64 < N ] for N < 2^64.
            let low_pos = {
                let t: Vec<(NodeId, u128)> = pos_lo.iter().map(|&x| (x, 1)).collect();
                self.add(64, &t, klo)
            };
            let b = self.borrow(low_pos, &[n], 0);
            hi_terms.push((b, hm));
        }
        let hi = self.add(w - 64, &hi_terms, khi);
        Some(self.halves(lo, 64, hi, (w - 64) as u8))
    }

    /// The rule `wide-mul-split`: `a·b mod 2^w`, `w > 64`, with an operand wider than 64
    /// bits, from the 64-bit limbs of `a` and `b`.
    pub(super) fn wide_mul(&mut self, w: u32, a: NodeId, b: NodeId) -> NodeId {
        self.fire(Rule::WideMulSplit);
        let (al, ah) = (self.slice(a, 0, 64), self.slice(a, 64, 64));
        let (bl, bh) = (self.slice(b, 0, 64), self.slice(b, 64, 64));
        let low = self.prod(al, bl);
        let x = self.mul(w - 64, &[al, bh]);
        let y = self.mul(w - 64, &[ah, bl]);
        let cross = self.sum(w - 64, &[x, y]);
        let cross = self.shl(cross, 64, w);
        self.sum(w, &[low, cross])
    }
}
