//! The expression graph: hash-consed, normalizing nodes in an arena.
//!
//! Both sides of a check — the IR function and the x86 program — are executed into one
//! [`Graph`]. Every node is built by a *smart constructor* ([`Graph::add`],
//! [`Graph::carry`], [`Graph::slice`], ...) that first rewrites it into a normal form and
//! then interns it (`Vec<Node>` + `HashMap<Node, NodeId>`, egg's `RecExpr` with a memo):
//! two computations that the rules can show equal end up as the same [`NodeId`], and
//! equivalence is then a comparison of ids. There are no e-classes: the normal form is
//! computed eagerly, bottom-up, once per node.
//!
//! # Meaning of a node
//!
//! Every node denotes a **non-negative integer** below 2^128 (not a bit vector of a fixed
//! width): zero-extension is the identity, so a carry bit in CF, the same bit after
//! `setc; movzx` in a 64-bit register, and Fiat's `u1` are one node. Widths appear only
//! where arithmetic wraps (`Add { w }` is a sum modulo 2^w) and in the per-node range
//! information ([`Info`]): an upper bound and a mask of the bits that may be nonzero.
//!
//! # Normal form (why this one)
//!
//! * **Bit structure is a concatenation of slices** ([`Node::Concat`]): shifts by
//!   constants, masks, `movzx`, `mov r32`, `bzhi`, `shl; shr`, `shrd`, `rorx`, `setc` into
//!   a byte of a register, byte-wise memory, the limbs of Fiat's `u128` values — all are
//!   "bits `from..from+len` of node `x` placed at bit `at`". Slices of slices are composed,
//!   adjacent slices merged, and slices trimmed by the range analysis, so every
//!   arrangement of the same bits is one node. The atoms inside are arithmetic nodes.
//! * **Modular sums are linear forms** ([`Node::Add`]): `Σ cᵢ·tᵢ + k mod 2^w`, flattened
//!   and with equal terms collected, so `lea [x+x*2]`, `imul x, 3` and Fiat's `x * 3` are
//!   one node; inside a sum a shift left is a power-of-two coefficient (outside, a lone
//!   `x << p` is the slice form, and the two convert into each other).
//! * **Carries are exact high parts** ([`Node::Carry`]: `⌊(Σ args + k) / 2^s⌋`) and
//!   **borrows are comparisons** ([`Node::Borrow`]: `a < Σ subs + k`). `add`/`adc`/
//!   `adcx`/`adox` and Fiat's `addcarryx` produce the same `Add` and `Carry` nodes from the
//!   same operands; `sub`/`sbb` and `subborrowx` the same `Add` and `Borrow` nodes. A
//!   borrow is kept as its own node rather than as `¬carry(a + ~b + ¬c)` because both
//!   sides compute it directly; the complement form would only add rules.
//! * **Products are exact** ([`Node::Prod`], up to 128 bits): `mulx`/`mul` give its two
//!   64-bit slices; Fiat's `u128` product *is* the node.
//! * **Sums wider than 64 bits are split into 64-bit limbs** as soon as they are built
//!   (rule `wide-add-split`): the low limb is the sum of the low limbs, the high limb the
//!   sum of the high limbs plus the carry of the low sum. Fiat's `u128` arithmetic thereby
//!   becomes the same `add`/`adc` structure the x86 code has.
//!
//! # Known limits (incompleteness, never unsoundness)
//!
//! * Carry chains are matched in the association the program uses; Fiat's `u128` sums
//!   fix it and the code generator keeps it, so no rule re-associates carries.
//! * A shifted *sum* stays a bit slice even when the shift cuts bits off (only exact
//!   products with a constant become arithmetic, rule `shl-arith`): making it arithmetic
//!   would break the bit structure `shrd` done as `shr; shl; or` needs.
//! * The low bits of a product are `Prod` truncated to the product's width: a 32-bit
//!   `imul` of 64-bit values and the low 32 bits of a 64-bit `imul` are equal but not one
//!   node. (Neither the generator nor Fiat produce that.)
//!
//! Each rewrite is a named [`Rule`]; [`Graph::fired`] counts how often each was used,
//! and the property tests check every rule on random values with the concrete
//! evaluator ([`Graph::eval`]).
//!
//! This module must never know about x86 instructions or IR operations: it is pure
//! arithmetic, and its rules must be sound for every input within the declared bounds.

use std::collections::HashMap;
use std::fmt::Write as _;

use cryptopt_x86::Reg;

/// A node: index into the graph's arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

impl NodeId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A leaf: a value the check treats as unknown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Sym {
    /// Element `index` of IR parameter `param` (0 for a scalar).
    Input { param: u32, index: u32 },
    /// The pointer passed in System V argument register `k` (outputs first).
    Pointer(u8),
    /// rsp at entry.
    Rsp0,
    /// The value a register has at entry when it is not an argument.
    Init(Reg),
    /// The undefined upper bits of narrow scalar argument register `k`.
    Junk(u8),
}

/// Bits `from..from+len` of `node`, placed at bits `at..at+len` of a [`Node::Concat`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Seg {
    pub node: NodeId,
    pub from: u8,
    pub len: u8,
    pub at: u8,
}

/// The node kinds. Only the smart constructors of [`Graph`] build them, so every node
/// in a graph is in normal form.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    Const(u128),
    Sym(Sym),
    /// `(k + Σ c·t) mod 2^w`; terms sorted by node, coefficients nonzero mod 2^w.
    Add {
        w: u8,
        k: u128,
        terms: Box<[(NodeId, u128)]>,
    },
    /// The exact product `a · b` (at most 128 bits), `a ≤ b` with a constant last.
    Prod(NodeId, NodeId),
    /// `Π args mod 2^w` (three or more factors, or factors too wide for [`Node::Prod`]).
    MulMod {
        w: u8,
        args: Box<[NodeId]>,
    },
    /// `⌊(k + Σ args) / 2^shift⌋`, exact (args sorted): the carry out of an addition.
    Carry {
        shift: u8,
        k: u128,
        args: Box<[NodeId]>,
    },
    /// `1` if `a < k + Σ subs`, else `0`: the borrow out of a subtraction.
    Borrow {
        a: NodeId,
        k: u128,
        subs: Box<[NodeId]>,
    },
    /// Bitwise operations on the exact values, arguments sorted (a constant is one of
    /// them). `And` has no constant argument: masks become [`Node::Concat`]s.
    And(Box<[NodeId]>),
    Or(Box<[NodeId]>),
    Xor(Box<[NodeId]>),
    /// `k | Σ slices`, slices sorted by position, disjoint from each other and from `k`.
    Concat {
        k: u128,
        segs: Box<[Seg]>,
    },
    /// `if c != 0 { t } else { e }` with `c` a bit.
    Ite {
        c: NodeId,
        t: NodeId,
        e: NodeId,
    },
    /// `1` if the value is zero, else `0`.
    Eqz(NodeId),
    /// The `w`-bit pattern `x` read as signed, shifted right by `n` (arithmetically),
    /// as a `w`-bit pattern.
    Sar {
        w: u8,
        n: u8,
        x: NodeId,
    },
    /// The `from`-bit pattern `x` read as signed, as a `w`-bit pattern.
    Sext {
        from: u8,
        w: u8,
        x: NodeId,
    },
}

/// What the range analysis knows about a node: `value ≤ ub` and `value & !nz == 0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Info {
    /// Bits that may be nonzero.
    pub nz: u128,
    /// An upper bound of the value.
    pub ub: u128,
}

/// `2^bits - 1` (all ones for 128 or more).
pub const fn mask(bits: u32) -> u128 {
    if bits >= 128 {
        u128::MAX
    } else {
        (1u128 << bits) - 1
    }
}

/// Number of significant bits.
pub const fn sig(x: u128) -> u32 {
    128 - x.leading_zeros()
}

const fn sh_r(x: u128, n: u32) -> u128 {
    if n >= 128 {
        0
    } else {
        x >> n
    }
}

const fn sh_l(x: u128, n: u32) -> u128 {
    if n >= 128 {
        0
    } else {
        x << n
    }
}

const M64: u128 = u64::MAX as u128;

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
    /// A sum of the one term `1·x` is `x mod 2^w` (a slice).
    AddSingle = "add-single",
    /// Multiplication by a constant is a coefficient: `x · c mod 2^w = c·x`, including the
    /// low bits of an exact product with a constant (`mulx` with a constant in rdx = `imul`).
    MulConst = "mul-const",
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
    /// Bits of an arithmetic shift or sign extension below the copies of the sign bit are
    /// plain bits of the operand.
    SliceSignedLow = "slice-signed-low",
    /// `x & m` for a constant `m` selects the runs of ones of `m`: a concatenation of
    /// slices of `x` (`and imm`, `movzx`, `mov r32, r32`, `bzhi`, `shl; shr`).
    AndMask = "and-mask",
    /// `a | b` and `a ^ b` whose possibly-nonzero bits are disjoint are concatenations.
    BitwiseDisjoint = "bitwise-disjoint",
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
    fn index(self) -> usize {
        self as usize
    }
}

/// The arena: nodes, their range information, the memo for hash-consing, names of the
/// leaves for printing, and how often each rule fired.
#[derive(Default)]
pub struct Graph {
    nodes: Vec<Node>,
    info: Vec<Info>,
    memo: HashMap<Node, NodeId>,
    names: HashMap<Sym, String>,
    fired: Vec<u64>,
}

impl Graph {
    pub fn new() -> Graph {
        Graph {
            fired: vec![0; Rule::COUNT],
            ..Graph::default()
        }
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }

    pub fn info(&self, id: NodeId) -> Info {
        self.info[id.index()]
    }

    /// The constant value of a node, if it is a constant.
    pub fn as_const(&self, id: NodeId) -> Option<u128> {
        match self.nodes[id.index()] {
            Node::Const(c) => Some(c),
            _ => None,
        }
    }

    /// How often `rule` has rewritten a node in this graph.
    pub fn fired(&self, rule: Rule) -> u64 {
        self.fired.get(rule.index()).copied().unwrap_or(0)
    }

    fn fire(&mut self, rule: Rule) {
        if self.fired.is_empty() {
            self.fired = vec![0; Rule::COUNT];
        }
        self.fired[rule.index()] += 1;
    }

    fn nz(&self, id: NodeId) -> u128 {
        self.info[id.index()].nz
    }

    fn ub(&self, id: NodeId) -> u128 {
        self.info[id.index()].ub
    }

    fn intern(&mut self, n: Node, info: Info) -> NodeId {
        if let Some(&id) = self.memo.get(&n) {
            return id;
        }
        if info.nz == 0 && !matches!(n, Node::Const(_)) {
            // (Defensive: the constructors fold such nodes before they get here.)
            return self.konst(0);
        }
        let id = NodeId(self.nodes.len() as u32);
        self.nodes.push(n.clone());
        self.info.push(Info {
            nz: info.nz,
            ub: info.ub.min(info.nz),
        });
        self.memo.insert(n, id);
        id
    }

    // -----------------------------------------------------------------------------------
    // leaves

    /// The constant `v`.
    pub fn konst(&mut self, v: u128) -> NodeId {
        self.intern(Node::Const(v), Info { nz: v, ub: v })
    }

    /// The leaf `s`, known to be at most `ub`, printed as `name`.
    pub fn sym(&mut self, s: Sym, ub: u128, name: impl Into<String>) -> NodeId {
        self.names.entry(s).or_insert_with(|| name.into());
        if ub == 0 {
            return self.konst(0);
        }
        self.intern(
            Node::Sym(s),
            Info {
                nz: mask(sig(ub)),
                ub,
            },
        )
    }

    // -----------------------------------------------------------------------------------
    // bit structure

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

    /// `x & m` for a constant `m`: the runs of ones of `m` as slices of `x`.
    pub fn select(&mut self, x: NodeId, m: u128) -> NodeId {
        let m = m & self.nz(x);
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
        let mut nz = kk;
        let mut ub = kk;
        for s in &merged {
            let inf = self.info[s.node.index()];
            let (from, len, at) = (s.from as u32, s.len as u32, s.at as u32);
            // The invariant that makes the concatenation an OR of its parts: the bits a
            // segment may set are disjoint from the bits the others may set. (Ranges
            // may overlap where one side is known zero, e.g. after `bitwise-disjoint`.)
            let bits = sh_l(sh_r(inf.nz, from) & mask(len), at);
            debug_assert_eq!(nz & bits, 0, "overlapping nonzero bits in a concatenation");
            nz |= bits;
            ub = ub.saturating_add(sh_l(sh_r(inf.ub, from).min(mask(len)), at));
        }
        self.intern(
            Node::Concat {
                k: kk,
                segs: merged.into_boxed_slice(),
            },
            Info { nz, ub },
        )
    }

    /// The rule `shl-arith` for a lone slice, if it applies.
    fn shl_arith(&mut self, s: Seg) -> Option<NodeId> {
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

    // -----------------------------------------------------------------------------------
    // arithmetic

    /// `(k + Σ c·t) mod 2^w`.
    pub fn add(&mut self, w: u32, terms: &[(NodeId, u128)], k: u128) -> NodeId {
        let w = w.clamp(1, 128);
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
        if merged.is_empty() {
            return self.konst(kk);
        }
        if merged.len() == 1 && kk == 0 {
            let (t, c) = merged[0];
            if c == 1 {
                self.fire(Rule::AddSingle);
                return self.slice(t, 0, w);
            }
            // (Wider sums keep their limb structure: see wide-add-split.)
            if c.is_power_of_two() && (w <= 64 || self.nz(t) <= M64) {
                self.fire(Rule::AddShlTerm);
                return self.shl(t, c.trailing_zeros(), w);
            }
            if self.ub(t).min(m).checked_mul(c).is_some_and(|p| p <= m) && self.nz(t) <= m.min(M64)
            {
                // c·t never wraps: it is the exact product (what `mulx` gives).
                self.fire(Rule::MulConst);
                let kc = self.konst(c);
                return self.prod(t, kc);
            }
        }
        if w > 64 {
            if let Some(n) = self.wide_add(w, &merged, kk) {
                return n;
            }
        }
        let mut bound = Some(kk);
        for &(t, c) in &merged {
            bound = bound.and_then(|b| {
                self.ub(t)
                    .min(m)
                    .checked_mul(c)
                    .and_then(|p| b.checked_add(p))
            });
        }
        let ub = match bound {
            Some(b) if b <= m => b,
            _ => m,
        };
        self.intern(
            Node::Add {
                w: w as u8,
                k: kk,
                terms: merged.into_boxed_slice(),
            },
            Info {
                nz: mask(sig(ub)),
                ub,
            },
        )
    }

    /// `Σ args mod 2^w` (all coefficients 1).
    pub fn sum(&mut self, w: u32, args: &[NodeId]) -> NodeId {
        let terms: Vec<(NodeId, u128)> = args.iter().map(|&a| (a, 1)).collect();
        self.add(w, &terms, 0)
    }

    /// The rule `wide-add-split`; `None` when the coefficients do not allow it.
    fn wide_add(&mut self, w: u32, terms: &[(NodeId, u128)], k: u128) -> Option<NodeId> {
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
        Some(self.concat(
            &[
                Seg {
                    node: lo,
                    from: 0,
                    len: 64,
                    at: 0,
                },
                Seg {
                    node: hi,
                    from: 0,
                    len: (w - 64) as u8,
                    at: 64,
                },
            ],
            0,
        ))
    }

    /// `⌊(k + Σ args) / 2^shift⌋`, exact.
    pub fn carry(&mut self, shift: u32, args: &[NodeId], k: u128) -> NodeId {
        let mut kk = k;
        let mut xs: Vec<NodeId> = Vec::with_capacity(args.len());
        for &a in args {
            match self.as_const(a) {
                Some(v) => match kk.checked_add(v) {
                    Some(s) => kk = s,
                    None => xs.push(a),
                },
                None => xs.push(a),
            }
        }
        xs.sort_unstable();
        if xs.is_empty() {
            self.fire(Rule::ConstFold);
            return self.konst(sh_r(kk, shift));
        }
        let bound = xs
            .iter()
            .try_fold(kk, |acc, &a| acc.checked_add(self.ub(a)));
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
        self.intern(
            Node::Carry {
                shift: shift as u8,
                k: kk,
                args: xs.into_boxed_slice(),
            },
            Info {
                nz: mask(sig(ub)),
                ub,
            },
        )
    }

    /// `1` if `a < k + Σ subs`, else `0`.
    pub fn borrow(&mut self, a: NodeId, subs: &[NodeId], k: u128) -> NodeId {
        let mut kk = k;
        let mut xs: Vec<NodeId> = Vec::with_capacity(subs.len());
        for &s in subs {
            match self.as_const(s) {
                Some(v) => match kk.checked_add(v) {
                    Some(t) => kk = t,
                    None => xs.push(s),
                },
                None => xs.push(s),
            }
        }
        xs.sort_unstable();
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
        self.intern(
            Node::Prod(a, b),
            Info {
                nz: mask(sig(ub)),
                ub,
            },
        )
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
                self.fire(Rule::WideMulSplit);
                let (a, b) = (xs[0], xs[1]);
                let (al, ah) = (self.slice(a, 0, 64), self.slice(a, 64, 64));
                let (bl, bh) = (self.slice(b, 0, 64), self.slice(b, 64, 64));
                let low = self.prod(al, bl);
                let x = self.mul(w - 64, &[al, bh]);
                let y = self.mul(w - 64, &[ah, bl]);
                let cross = self.sum(w - 64, &[x, y]);
                let cross = self.shl(cross, 64, w);
                self.sum(w, &[low, cross])
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

    // -----------------------------------------------------------------------------------
    // bitwise

    /// `(& args) mod 2^w`.
    pub fn and(&mut self, w: u32, args: &[NodeId]) -> NodeId {
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

    fn or_xor(&mut self, w: u32, args: &[NodeId], is_xor: bool) -> NodeId {
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

    // -----------------------------------------------------------------------------------
    // traversal, evaluation, printing

    /// Calls `f` on every argument of node `id`.
    pub fn for_each_arg(&self, id: NodeId, mut f: impl FnMut(NodeId)) {
        match &self.nodes[id.index()] {
            Node::Const(_) | Node::Sym(_) => {}
            Node::Add { terms, .. } => terms.iter().for_each(|&(t, _)| f(t)),
            &Node::Prod(a, b) => {
                f(a);
                f(b);
            }
            Node::MulMod { args, .. }
            | Node::Carry { args, .. }
            | Node::And(args)
            | Node::Or(args)
            | Node::Xor(args) => args.iter().for_each(|&a| f(a)),
            Node::Borrow { a, subs, .. } => {
                f(*a);
                subs.iter().for_each(|&s| f(s));
            }
            Node::Concat { segs, .. } => segs.iter().for_each(|s| f(s.node)),
            &Node::Ite { c, t, e } => {
                f(c);
                f(t);
                f(e);
            }
            &Node::Eqz(x) | &Node::Sar { x, .. } | &Node::Sext { x, .. } => f(x),
        }
    }

    /// Marks every node reachable from `roots` (arguments have smaller ids).
    pub fn reachable(&self, roots: impl IntoIterator<Item = NodeId>) -> Vec<bool> {
        let mut mark = vec![false; self.nodes.len()];
        let mut hi = 0;
        for r in roots {
            mark[r.index()] = true;
            hi = hi.max(r.index() + 1);
        }
        for i in (0..hi).rev() {
            if mark[i] {
                self.for_each_arg(NodeId(i as u32), |a| mark[a.index()] = true);
            }
        }
        mark
    }

    /// The arguments of node `id`, in order.
    pub fn args(&self, id: NodeId) -> Vec<NodeId> {
        let mut v = Vec::new();
        self.for_each_arg(id, |a| v.push(a));
        v
    }

    /// Descends from `a` and `b` while they are nodes of the same shape (kind, widths,
    /// constants, coefficients, slice positions) differing in exactly the arguments at
    /// the same positions, and returns the innermost differing pair: where two
    /// expressions really part ways.
    pub fn innermost_difference(&self, a: NodeId, b: NodeId) -> (NodeId, NodeId) {
        let (mut a, mut b) = (a, b);
        loop {
            if a == b {
                return (a, b);
            }
            let (na, nb) = (&self.nodes[a.index()], &self.nodes[b.index()]);
            let same_shape = match (na, nb) {
                (
                    Node::Add { w, k, terms },
                    Node::Add {
                        w: w2,
                        k: k2,
                        terms: t2,
                    },
                ) => {
                    w == w2
                        && k == k2
                        && terms.len() == t2.len()
                        && terms.iter().zip(t2.iter()).all(|(x, y)| x.1 == y.1)
                }
                (Node::Prod(..), Node::Prod(..)) => true,
                (Node::MulMod { w, args }, Node::MulMod { w: w2, args: a2 }) => {
                    w == w2 && args.len() == a2.len()
                }
                (
                    Node::Carry { shift, k, args },
                    Node::Carry {
                        shift: s2,
                        k: k2,
                        args: a2,
                    },
                ) => shift == s2 && k == k2 && args.len() == a2.len(),
                (
                    Node::Borrow { k, subs, .. },
                    Node::Borrow {
                        k: k2, subs: s2, ..
                    },
                ) => k == k2 && subs.len() == s2.len(),
                (Node::And(x), Node::And(y))
                | (Node::Or(x), Node::Or(y))
                | (Node::Xor(x), Node::Xor(y)) => x.len() == y.len(),
                (Node::Concat { k, segs }, Node::Concat { k: k2, segs: s2 }) => {
                    k == k2
                        && segs.len() == s2.len()
                        && segs
                            .iter()
                            .zip(s2.iter())
                            .all(|(x, y)| (x.from, x.len, x.at) == (y.from, y.len, y.at))
                }
                (Node::Ite { .. }, Node::Ite { .. }) | (Node::Eqz(_), Node::Eqz(_)) => true,
                (Node::Sar { w, n, .. }, Node::Sar { w: w2, n: n2, .. }) => w == w2 && n == n2,
                (
                    Node::Sext { from, w, .. },
                    Node::Sext {
                        from: f2, w: w2, ..
                    },
                ) => from == f2 && w == w2,
                _ => false,
            };
            if !same_shape {
                return (a, b);
            }
            let (xa, xb) = (self.args(a), self.args(b));
            let diffs: Vec<(NodeId, NodeId)> =
                xa.into_iter().zip(xb).filter(|(x, y)| x != y).collect();
            match diffs[..] {
                [(x, y)] => (a, b) = (x, y),
                _ => return (a, b),
            }
        }
    }

    /// The value of every node, given the values of the leaves.
    pub fn eval(&self, env: &mut dyn FnMut(Sym) -> u128) -> Vec<u128> {
        let mut v: Vec<u128> = Vec::with_capacity(self.nodes.len());
        for n in &self.nodes {
            let x = eval_node(n, &v, env);
            v.push(x);
        }
        v
    }

    /// Node `id` down to `depth` levels, deeper arguments as `#id` (for debugging).
    pub fn show_shallow(&self, id: NodeId, depth: u32) -> String {
        if depth == 0 {
            return format!("#{}", id.0);
        }
        let args = self.args(id);
        let mut s = format!("#{}=", id.0);
        let head = match &self.nodes[id.index()] {
            Node::Add { w, k, terms } => format!(
                "add{w}[k={k:#x}; {}]",
                terms
                    .iter()
                    .map(|&(t, c)| format!("{c:#x}*{}", self.show_shallow(t, depth - 1)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Node::Concat { k, segs } => format!(
                "concat[k={k:#x}; {}]",
                segs.iter()
                    .map(|g| format!(
                        "{}[{}..{}]@{}",
                        self.show_shallow(g.node, depth - 1),
                        g.from,
                        g.from as u32 + g.len as u32,
                        g.at
                    ))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            n => format!(
                "{}({})",
                format!("{n:?}")
                    .split(['(', ' ', '{'])
                    .next()
                    .unwrap_or("?"),
                args.iter()
                    .map(|&a| self.show_shallow(a, depth - 1))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        s.push_str(&head);
        s
    }

    /// Node `id` as text, cut after about `limit` characters.
    pub fn show(&self, id: NodeId, limit: usize) -> String {
        let mut s = String::new();
        self.write(id, &mut s, limit);
        if s.len() > limit {
            let mut cut = limit;
            while !s.is_char_boundary(cut) {
                cut -= 1;
            }
            s.truncate(cut);
            s.push('…');
        }
        s
    }

    fn write(&self, id: NodeId, s: &mut String, limit: usize) {
        if s.len() > limit {
            return;
        }
        let list = |g: &Graph, s: &mut String, args: &[NodeId], sep: &str| {
            s.push('(');
            for (i, &a) in args.iter().enumerate() {
                if i > 0 {
                    s.push_str(sep);
                }
                g.write(a, s, limit);
            }
            s.push(')');
        };
        match &self.nodes[id.index()] {
            Node::Const(c) => write_const(s, *c),
            Node::Sym(sym) => match self.names.get(sym) {
                Some(n) => s.push_str(n),
                None => {
                    let _ = write!(s, "{sym:?}");
                }
            },
            Node::Add { w, k, terms } => {
                if *w != 64 {
                    let _ = write!(s, "add{w}");
                }
                s.push('(');
                let m = mask(*w as u32);
                for (i, &(t, c)) in terms.iter().enumerate() {
                    let neg = c > m / 2;
                    let mag = if neg { (m - c).wrapping_add(1) & m } else { c };
                    if i > 0 || neg {
                        s.push_str(if neg { " - " } else { " + " });
                    }
                    if mag != 1 {
                        write_const(s, mag);
                        s.push('*');
                    }
                    self.write(t, s, limit);
                }
                if *k != 0 {
                    s.push_str(" + ");
                    write_const(s, *k);
                }
                s.push(')');
            }
            &Node::Prod(a, b) => list(self, s, &[a, b], " * "),
            Node::MulMod { w, args } => {
                let _ = write!(s, "mul{w}");
                list(self, s, args, " * ");
            }
            Node::Carry { shift, k, args } => {
                let _ = write!(s, "carry{shift}");
                s.push('(');
                for (i, &a) in args.iter().enumerate() {
                    if i > 0 {
                        s.push_str(" + ");
                    }
                    self.write(a, s, limit);
                }
                if *k != 0 {
                    s.push_str(" + ");
                    write_const(s, *k);
                }
                s.push(')');
            }
            Node::Borrow { a, k, subs } => {
                s.push_str("borrow(");
                self.write(*a, s, limit);
                for &x in subs.iter() {
                    s.push_str(" - ");
                    self.write(x, s, limit);
                }
                if *k != 0 {
                    s.push_str(" - ");
                    write_const(s, *k);
                }
                s.push(')');
            }
            Node::And(args) => list(self, s, args, " & "),
            Node::Or(args) => list(self, s, args, " | "),
            Node::Xor(args) => list(self, s, args, " ^ "),
            Node::Concat { k, segs } => {
                let single = segs.len() == 1 && *k == 0 && segs[0].at == 0;
                if !single {
                    s.push('{');
                }
                for (i, seg) in segs.iter().enumerate() {
                    if i > 0 {
                        s.push_str(" | ");
                    }
                    self.write(seg.node, s, limit);
                    let _ = write!(s, "[{}..{}]", seg.from, seg.from as u32 + seg.len as u32);
                    if seg.at != 0 {
                        let _ = write!(s, " << {}", seg.at);
                    }
                }
                if *k != 0 {
                    s.push_str(" | ");
                    write_const(s, *k);
                }
                if !single {
                    s.push('}');
                }
            }
            &Node::Ite { c, t, e } => {
                s.push('(');
                self.write(c, s, limit);
                s.push_str(" ? ");
                self.write(t, s, limit);
                s.push_str(" : ");
                self.write(e, s, limit);
                s.push(')');
            }
            &Node::Eqz(x) => {
                s.push('(');
                self.write(x, s, limit);
                s.push_str(" == 0)");
            }
            &Node::Sar { w, n, x } => {
                let _ = write!(s, "sar{w}(");
                self.write(x, s, limit);
                let _ = write!(s, ", {n})");
            }
            &Node::Sext { from, w, x } => {
                let _ = write!(s, "sext{from}to{w}(");
                self.write(x, s, limit);
                s.push(')');
            }
        }
    }
}

fn write_const(s: &mut String, c: u128) {
    if c < 10 {
        let _ = write!(s, "{c}");
    } else {
        let _ = write!(s, "{c:#x}");
    }
}

/// The `bits`-bit pattern `v` read as signed, as a 128-bit pattern.
pub(crate) fn sext_value(v: u128, bits: u32) -> u128 {
    let v = v & mask(bits);
    if bits < 128 && (v >> (bits - 1)) & 1 == 1 {
        v | !mask(bits)
    } else {
        v
    }
}

/// `(hi, lo)` of the exact sum of `k` and `xs` (256 bits).
fn wide_sum(k: u128, xs: impl Iterator<Item = u128>) -> (u128, u128) {
    let (mut hi, mut lo) = (0u128, k);
    for x in xs {
        let (s, o) = lo.overflowing_add(x);
        lo = s;
        hi += o as u128;
    }
    (hi, lo)
}

fn eval_node(n: &Node, v: &[u128], env: &mut dyn FnMut(Sym) -> u128) -> u128 {
    let val = |id: NodeId| v[id.index()];
    match n {
        Node::Const(c) => *c,
        Node::Sym(s) => env(*s),
        Node::Add { w, k, terms } => {
            let s = terms
                .iter()
                .fold(*k, |acc, &(t, c)| acc.wrapping_add(val(t).wrapping_mul(c)));
            s & mask(*w as u32)
        }
        &Node::Prod(a, b) => val(a).wrapping_mul(val(b)),
        Node::MulMod { w, args } => {
            args.iter().fold(1u128, |acc, &a| acc.wrapping_mul(val(a))) & mask(*w as u32)
        }
        Node::Carry { shift, k, args } => {
            let (hi, lo) = wide_sum(*k, args.iter().map(|&a| val(a)));
            let s = *shift as u32;
            if s == 0 {
                lo
            } else if s >= 128 {
                sh_r(hi, s - 128)
            } else {
                (lo >> s) | (hi << (128 - s))
            }
        }
        Node::Borrow { a, k, subs } => {
            let (hi, lo) = wide_sum(*k, subs.iter().map(|&x| val(x)));
            (hi > 0 || val(*a) < lo) as u128
        }
        Node::And(args) => args.iter().fold(u128::MAX, |acc, &a| acc & val(a)),
        Node::Or(args) => args.iter().fold(0, |acc, &a| acc | val(a)),
        Node::Xor(args) => args.iter().fold(0, |acc, &a| acc ^ val(a)),
        Node::Concat { k, segs } => segs.iter().fold(*k, |acc, s| {
            acc | sh_l(
                sh_r(val(s.node), s.from as u32) & mask(s.len as u32),
                s.at as u32,
            )
        }),
        &Node::Ite { c, t, e } => {
            if val(c) != 0 {
                val(t)
            } else {
                val(e)
            }
        }
        &Node::Eqz(x) => (val(x) == 0) as u128,
        &Node::Sar { w, n, x } => {
            ((sext_value(val(x), w as u32) as i128 >> n) as u128) & mask(w as u32)
        }
        &Node::Sext { from, w, x } => sext_value(val(x), from as u32) & mask(w as u32),
    }
}

#[cfg(test)]
#[path = "graph_tests.rs"]
mod tests;
