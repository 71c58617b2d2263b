//! Tests of the expression graph: every named rule (it fires, both sides are one node,
//! and random values within the leaves' bounds evaluate to a directly computed
//! reference), and the instruction-level identities of the issue. The random-DAG fuzzer
//! that checks every node against independent reference semantics and its range
//! information is in `fuzz`.
//!
//! These tests must never be adapted to what the graph computes: the references are
//! computed directly on integers.

use proptest::prelude::*;

use super::range::M64;
use super::*;

pub(crate) mod fuzz;

/// The leaves of the rule tests: two full words, a bit, a 40-bit and a 51-bit value.
const BOUNDS: [u128; 5] = [
    u64::MAX as u128,
    u64::MAX as u128,
    1,
    (1 << 40) - 1,
    (1 << 51) - 1,
];

/// `$PROPTEST_CASES` when set (for long fuzzing runs), else `n`.
fn cases_or(n: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(n)
}

fn leaves(g: &mut Graph) -> [NodeId; 5] {
    let mut l = [NodeId(0); 5];
    for (i, &b) in BOUNDS.iter().enumerate() {
        l[i] = g.sym(
            Sym::Input {
                param: 0,
                index: i as u32,
            },
            b,
            format!("x{i}"),
        );
    }
    l
}

fn m64(x: u128) -> u128 {
    x & M64
}

/// One rule test: builds the left side (and the right side it must be the same node as,
/// if any) from the leaves; `reference` computes the left side's value directly.
struct Case {
    rule: Rule,
    what: &'static str,
    build: fn(&mut Graph, [NodeId; 5]) -> (NodeId, Option<NodeId>),
    reference: fn(&[u128; 5]) -> u128,
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            rule: Rule::ConstFold,
            what: "sum and carry of constants",
            build: |g, _| {
                let (a, b) = (g.konst(u64::MAX as u128), g.konst(5));
                let s = g.sum(64, &[a, b]);
                let c = g.carry(64, &[a, b], 0);
                let r = g.sum(64, &[s, c]);
                (r, Some(g.konst(5)))
            },
            reference: |_| 5,
        },
        Case {
            rule: Rule::AddFlatten,
            what: "(a + b) + c = a + b + c; lea [a+b] = add a, b (+0 carry-in)",
            build: |g, [a, b, _, c, _]| {
                let ab = g.sum(64, &[a, b]);
                let l = g.sum(64, &[ab, c]);
                let zero = g.konst(0);
                let r = g.sum(64, &[zero, a, c, b]);
                (l, Some(r))
            },
            reference: |v| m64(v[0] + v[1] + v[3]),
        },
        Case {
            rule: Rule::AddCollect,
            what: "a + 2a = 3a (lea [a + a*2] = imul a, 3)",
            build: |g, [a, ..]| {
                let l = g.add(64, &[(a, 1), (a, 2)], 0);
                let three = g.konst(3);
                let r = g.mul(64, &[a, three]);
                (l, Some(r))
            },
            reference: |v| m64(v[0].wrapping_mul(3)),
        },
        Case {
            rule: Rule::AddFactor,
            what: "19a + 19b = 19·(a + b) once a + b is made (two lea = imul x, 19)",
            build: |g, [_, _, _, d, e]| {
                // d, e below 2^51: 19·(d + e) cannot wrap.
                let x = g.sum(64, &[d, e]);
                let nine = g.add(64, &[(x, 9)], 0);
                let l = g.add(64, &[(x, 1), (nine, 2)], 0);
                let k = g.konst(19);
                (l, Some(g.mul(64, &[x, k])))
            },
            reference: |v| m64((v[3] + v[4]) * 19),
        },
        Case {
            rule: Rule::AddShlTerm,
            what: "(a << 2) + b = 4a + b; lea [a*4] = shl a, 2",
            build: |g, [a, b, ..]| {
                let s = g.shl(a, 2, 64);
                let l = g.sum(64, &[s, b]);
                let r = g.add(64, &[(a, 4), (b, 1)], 0);
                let lea = g.add(64, &[(a, 4)], 0);
                assert_eq!(lea, s, "lea [a*4] = shl a, 2");
                (l, Some(r))
            },
            reference: |v| m64((v[0] << 2) + v[1]),
        },
        Case {
            rule: Rule::AddSingle,
            what: "a sum of one term is the term (mod 2^w)",
            build: |g, [a, ..]| {
                let l = g.add(32, &[(a, 1)], 0);
                (l, Some(g.trunc(a, 32)))
            },
            reference: |v| v[0] & 0xffff_ffff,
        },
        Case {
            rule: Rule::MulConst,
            what: "Lo64(Prod(a, c)) = imul a, c",
            build: |g, [a, ..]| {
                let c = g.konst(0xffff_ffff_0000_0001);
                let p = g.prod(a, c);
                let mulx_lo = g.slice(p, 0, 64);
                let imul = g.mul(64, &[a, c]);
                (mulx_lo, Some(imul))
            },
            reference: |v| m64(v[0].wrapping_mul(0xffff_ffff_0000_0001)),
        },
        Case {
            rule: Rule::ConstProdHigh,
            what: "shld h, a, 32; shl l, 32; sub l, a; sbb h, 0 = the high word of a·(2^32 - 1)",
            build: |g, [a, ..]| {
                let c = g.konst(0xffff_ffff);
                let p = g.prod(a, c);
                let mulx_hi = g.slice(p, 64, 64);
                let (h, l) = (g.slice(a, 32, 32), g.shl(a, 32, 64));
                let b = g.borrow(l, &[a], 0);
                let sbb = g.add(64, &[(h, 1), (b, M64)], 0);
                (sbb, Some(mulx_hi))
            },
            reference: |v| (v[0] >> 32) - ((m64(v[0] << 32) < v[0]) as u128),
        },
        Case {
            rule: Rule::ConstProdHigh,
            what: "shld h, a, 9; shl l, 9; add l, a; adc h, 0 = the high word of a·(2^9 + 1)",
            build: |g, [a, ..]| {
                let c = g.konst(513);
                let p = g.prod(a, c);
                let mulx_hi = g.slice(p, 64, 64);
                let (h, l) = (g.slice(a, 55, 9), g.shl(a, 9, 64));
                let cf = g.carry(64, &[l, a], 0);
                let adc = g.sum(64, &[h, cf]);
                (adc, Some(mulx_hi))
            },
            reference: |v| (v[0] >> 55) + ((m64(v[0] << 9) + v[0]) >> 64),
        },
        Case {
            rule: Rule::AddTermWiden,
            what: "(m << 32) - m = 0xffffffff·m for m = d - hi(a·b) (shl keeps 32 bits of each term)",
            build: |g, [a, b, _, d, _]| {
                let p = g.prod(a, b);
                let hi = g.slice(p, 64, 64);
                let m = g.add(64, &[(d, 1), (hi, M64)], 0);
                let s = g.shl(m, 32, 64);
                let shifted = g.add(64, &[(s, 1), (m, M64)], 0);
                (shifted, Some(g.add(64, &[(m, 0xffff_ffff)], 0)))
            },
            reference: |v| m64((v[3].wrapping_sub((v[0] * v[1]) >> 64) & M64) * 0xffff_ffff),
        },
        Case {
            rule: Rule::CarryFlatten,
            what: "carry(((a << 32) + c) mod 2^64 + b) = carry((a << 32) + c + b): a sum with a coefficient that cannot wrap",
            build: |g, [a, b, c, ..]| {
                let s = g.shl(a, 32, 64);
                let low = g.add(64, &[(a, 1 << 32), (c, 1)], 0);
                let two = g.carry(64, &[low, b], 0);
                (two, Some(g.carry(64, &[s, c, b], 0)))
            },
            reference: |v| (m64(v[0] << 32) + v[2] + v[1]) >> 64,
        },
        Case {
            rule: Rule::ProdPow2,
            what: "a · 8 = a << 3",
            build: |g, [a, ..]| {
                let c = g.konst(8);
                let l = g.prod(a, c);
                (l, Some(g.shl(a, 3, 128)))
            },
            reference: |v| v[0] << 3,
        },
        Case {
            rule: Rule::ShlArith,
            what: "shl (s·19), 1 = s·38 (s < 2^40: the products do not wrap)",
            build: |g, [_, _, _, s, _]| {
                let c19 = g.konst(19);
                let s19 = g.mul(64, &[s, c19]);
                let l = g.shl(s19, 1, 64);
                let c38 = g.konst(38);
                (l, Some(g.mul(64, &[s, c38])))
            },
            reference: |v| v[3] * 38,
        },
        Case {
            rule: Rule::CarryZero,
            what: "the carry of two 40-bit values and a bit is 0",
            build: |g, [_, _, c, s, _]| {
                let l = g.carry(64, &[s, s, c], 0);
                let b = g.borrow(s, &[], 0);
                assert_eq!(b, g.konst(0));
                (l, Some(g.konst(0)))
            },
            reference: |_| 0,
        },
        Case {
            rule: Rule::CarryZero,
            what: "the carry of a square's low word and a bit is 0 (bit 1 of a square is 0)",
            build: |g, [x, _, c, _, _]| {
                let sq = g.prod(x, x);
                let lo = g.slice(sq, 0, 64);
                assert_eq!(g.slice(sq, 1, 1), g.konst(0));
                (g.carry(64, &[lo, c], 0), Some(g.konst(0)))
            },
            reference: |v| ((v[0] * v[0]) % (1 << 64) + v[2]) >> 64,
        },
        Case {
            rule: Rule::CarrySlice,
            what: "carry out of bit 51 of two 51-bit values = bit 51 of their 64-bit sum",
            build: |g, [_, _, _, _, t]| {
                let l = g.carry(51, &[t, t], 1);
                let s = g.add(64, &[(t, 2)], 1);
                (l, Some(g.slice(s, 51, 13)))
            },
            reference: |v| (2 * v[4] + 1) >> 51,
        },
        Case {
            rule: Rule::CarryDouble,
            what: "carry of a + a = bit 63 of a (add a, a = shl a, 1)",
            build: |g, [a, ..]| {
                let l = g.carry(64, &[a, a], 0);
                (l, Some(g.slice(a, 63, 1)))
            },
            reference: |v| v[0] >> 63,
        },
        Case {
            rule: Rule::CarryTelescope,
            what: "addcarryx(c, a, b) as add a, b; add lo, c: carry(a+b) + carry(lo+c) = carry(a+b+c)",
            build: |g, [a, b, c, ..]| {
                let lo = g.sum(64, &[a, b]);
                let c1 = g.carry(64, &[a, b], 0);
                let c2 = g.carry(64, &[lo, c], 0);
                let l = g.sum(64, &[c1, c2]);
                (l, Some(g.carry(64, &[a, b, c], 0)))
            },
            reference: |v| (v[0] + v[1] + v[2]) >> 64,
        },
        Case {
            rule: Rule::CarryTelescope,
            what: "chained carries inside a carry's arguments (adc hi, 0 twice, then its carry)",
            build: |g, [a, b, c, d, _]| {
                let lo = g.sum(64, &[a, b]);
                let c1 = g.carry(64, &[a, b], 0);
                let c2 = g.carry(64, &[lo, c], 0);
                let l = g.carry(64, &[d, c1, c2], 3);
                let c12 = g.carry(64, &[a, b, c], 0);
                (l, Some(g.carry(64, &[d, c12], 3)))
            },
            reference: |v| (v[3] + ((v[0] + v[1]) >> 64) + (((v[0] + v[1]) % (1 << 64) + v[2]) >> 64) + 3) >> 64,
        },
        Case {
            rule: Rule::CarryFlatten,
            what: "carry of (x + c) + a, x + c not wrapping, = carry of x + c + a",
            build: |g, [a, _, c, x, _]| {
                let s = g.sum(64, &[x, c]);
                let l = g.carry(64, &[s, a], 0);
                (l, Some(g.carry(64, &[x, c, a], 0)))
            },
            reference: |v| (v[3] + v[2] + v[0]) >> 64,
        },
        Case {
            rule: Rule::CarryFlatten,
            what: "carry of (a² + c) mod 2^64 + b = carry of lo(a²) + c + b: the sum's term \
                   counts by its low word, which a bit cannot wrap (bit 1 of a square is 0)",
            build: |g, [a, b, c, ..]| {
                let sq = g.prod(a, a);
                let s = g.add(64, &[(sq, 1), (c, 1)], 0);
                let l = g.carry(64, &[s, b], 0);
                let lo = g.slice(sq, 0, 64);
                (l, Some(g.carry(64, &[lo, c, b], 0)))
            },
            reference: |v| (m64(v[0] * v[0]) + v[2] + v[1]) >> 64,
        },
        Case {
            rule: Rule::CarryFlatten,
            what: "carry of lo(-2^32·m) + hi(m·(2^32 - 1)) + x, added as words, = carry of the \
                   three (disjoint bits; m = a + b a sum itself, its terms flattened)",
            build: |g, [a, b, _, x, _]| {
                let parts = |g: &mut Graph, m: NodeId| {
                    let lo = g.add(64, &[(m, M64 << 32 & M64)], 0);
                    let c = g.konst(0xffff_ffff);
                    let p = g.prod(m, c);
                    (lo, g.slice(p, 64, 64))
                };
                // A word `m`: two terms, disjoint.
                let (lo, hi) = parts(g, a);
                let s = g.sum(64, &[lo, hi]);
                assert_eq!(g.carry(64, &[s, x], 0), g.carry(64, &[lo, hi, x], 0));
                // A sum `m`: its terms scaled by -2^32, and the high word.
                let m = g.sum(64, &[a, b]);
                let (lo, hi) = parts(g, m);
                let s = g.sum(64, &[lo, hi]);
                (g.carry(64, &[s, x], 0), Some(g.carry(64, &[lo, hi, x], 0)))
            },
            reference: |v| {
                let m = m64(v[0] + v[1]);
                (m64(m.wrapping_neg() << 32) + ((m * 0xffff_ffff) >> 64) + v[3]) >> 64
            },
        },
        Case {
            rule: Rule::WideAddSplit,
            what: "u128 a·b + c·d = the add/adc chain of mulx halves",
            build: |g, [a, b, _, c, d]| {
                let p = g.prod(a, b);
                let q = g.prod(c, d);
                let l = g.sum(128, &[p, q]);
                // x86: mulx; mulx; add lo, lo; adc hi, hi
                let (pl, ph) = (g.slice(p, 0, 64), g.slice(p, 64, 64));
                let (ql, qh) = (g.slice(q, 0, 64), g.slice(q, 64, 64));
                let lo = g.sum(64, &[pl, ql]);
                let cf = g.carry(64, &[pl, ql], 0);
                let hi = g.sum(64, &[ph, qh, cf]);
                let r = g.halves(lo, 64, hi, 64);
                (l, Some(r))
            },
            reference: |v| (v[0] * v[1]).wrapping_add(v[3] * v[4]),
        },
        Case {
            rule: Rule::WideAddSplit,
            what: "u128 a·b - c·d = the sub/sbb chain of mulx halves",
            build: |g, [a, b, _, c, d]| {
                let p = g.prod(a, b);
                let q = g.prod(c, d);
                let l = g.add(128, &[(p, 1), (q, u128::MAX)], 0);
                let (pl, ph) = (g.slice(p, 0, 64), g.slice(p, 64, 64));
                let (ql, qh) = (g.slice(q, 0, 64), g.slice(q, 64, 64));
                let lo = g.add(64, &[(pl, 1), (ql, M64)], 0);
                let cf = g.borrow(pl, &[ql], 0);
                let hi = g.add(64, &[(ph, 1), (qh, M64), (cf, M64)], 0);
                let r = g.halves(lo, 64, hi, 64);
                (l, Some(r))
            },
            reference: |v| (v[0] * v[1]).wrapping_sub(v[3] * v[4]),
        },
        Case {
            rule: Rule::WideMulSplit,
            what: "u128 × u128 mod 2^128",
            build: |g, [a, b, _, c, d]| {
                let p = g.prod(a, b);
                let q = g.prod(c, d);
                let q = g.sum(128, &[q, a]);
                (g.mul(128, &[p, q]), None)
            },
            reference: |v| (v[0] * v[1]).wrapping_mul((v[3] * v[4]).wrapping_add(v[0])),
        },
        Case {
            rule: Rule::SliceExpand,
            what: "shrd lo, hi, 51 = (lo >> 51) | (hi << 13) = bits 51..115 of hi:lo",
            build: |g, [lo, hi, ..]| {
                let x = g.halves(lo, 64, hi, 64);
                let l = g.slice(x, 51, 64);
                let a = g.shr(lo, 51);
                let b = g.shl(hi, 13, 64);
                (l, Some(g.or(64, &[a, b])))
            },
            reference: |v| m64((v[0] >> 51) | (v[1] << 13)),
        },
        Case {
            rule: Rule::SliceTrim,
            what: "x & (2^40 - 1) = x when x < 2^40",
            build: |g, [_, _, _, s, _]| {
                let m = g.konst((1 << 40) - 1);
                (g.and(64, &[s, m]), Some(s))
            },
            reference: |v| v[3],
        },
        Case {
            rule: Rule::SliceMerge,
            what: "bytes of a word read back are the word",
            build: |g, [a, ..]| {
                let segs: Vec<Seg> = (0..8)
                    .map(|i| Seg {
                        node: a,
                        from: 8 * i,
                        len: 8,
                        at: 8 * i,
                    })
                    .collect();
                (g.concat(&segs, 0), Some(a))
            },
            reference: |v| v[0],
        },
        Case {
            rule: Rule::SliceWhole,
            what: "setc al; movzx eax, al; bt rax, 0 gives back the carry",
            build: |g, [a, b, _, c, _]| {
                let cf = g.carry(64, &[a, b], 0);
                // setc al into a register holding c
                let rax = g.concat(
                    &[
                        Seg {
                            node: cf,
                            from: 0,
                            len: 8,
                            at: 0,
                        },
                        Seg {
                            node: c,
                            from: 8,
                            len: 56,
                            at: 8,
                        },
                    ],
                    0,
                );
                let movzx = g.slice(rax, 0, 8);
                let bt = g.slice(movzx, 0, 1);
                (bt, Some(cf))
            },
            reference: |v| (v[0] + v[1]) >> 64,
        },
        Case {
            rule: Rule::SliceAddLow,
            what: "low 32 bits of a 64-bit sum = the 32-bit sum (add eax, ebx)",
            build: |g, [a, b, ..]| {
                let s = g.sum(64, &[a, b]);
                (g.slice(s, 0, 32), Some(g.sum(32, &[a, b])))
            },
            reference: |v| (v[0] + v[1]) & 0xffff_ffff,
        },
        Case {
            rule: Rule::SliceBitRestore,
            what: "bits 8.. of 0xff + b are the bit b (add r8b, 0xff restores a carry)",
            build: |g, [a, b, ..]| {
                let cf = g.carry(64, &[a, b], 0);
                let restored = g.add(64, &[(cf, 1)], 0xff);
                assert_eq!(g.slice(restored, 8, 56), cf);
                (g.slice(restored, 8, 1), Some(cf))
            },
            reference: |v| ((0xff + ((v[0] + v[1]) >> 64)) >> 8) & 1,
        },
        Case {
            rule: Rule::SliceSignedLow,
            what: "low bits of sar are plain bits",
            build: |g, [a, ..]| {
                let s = g.sar(64, a, 4);
                (g.slice(s, 0, 32), Some(g.slice(a, 4, 32)))
            },
            reference: |v| (v[0] >> 4) & 0xffff_ffff,
        },
        Case {
            rule: Rule::AndMask,
            what: "shl x, 13; shr x, 13 = x & (2^51-1) = bzhi x, 51",
            build: |g, [a, ..]| {
                let s = g.shl(a, 13, 64);
                let l = g.shr(s, 13);
                let m = g.konst((1 << 51) - 1);
                let and = g.and(64, &[a, m]);
                assert_eq!(and, g.trunc(a, 51), "and = bzhi");
                (l, Some(and))
            },
            reference: |v| v[0] & ((1 << 51) - 1),
        },
        Case {
            rule: Rule::AndMask,
            what: "bit & x = bit & (x & 1): operands cut to the bits all of them may have",
            build: |g, [a, _, c, ..]| {
                let l = g.and(64, &[c, a]);
                let one = g.konst(1);
                let low = g.and(64, &[a, one]);
                (l, Some(g.and(64, &[low, c])))
            },
            reference: |v| v[2] & v[0] & 1,
        },
        Case {
            rule: Rule::AddShlTerm,
            what: "2·(a + b) = (a + b) << 1 = (a + b) + (a + b), however made; 2a + 2b + c inside a sum",
            build: |g, [_, _, _, d, e]| {
                let s = g.sum(64, &[d, e]);
                let l = g.shl(s, 1, 64);
                assert_eq!(g.add(64, &[(s, 2)], 0), l, "lea [s*2]");
                assert_eq!(g.add(64, &[(s, 1), (s, 1)], 0), l, "add s, s");
                let two = g.konst(2);
                assert_eq!(g.mul(64, &[s, two]), l, "imul s, 2");
                let inside = g.sum(64, &[l, d]);
                assert_eq!(inside, g.add(64, &[(d, 3), (e, 2)], 0), "flattened again");
                (l, None)
            },
            reference: |v| m64((v[3] + v[4]) << 1),
        },
        Case {
            rule: Rule::MulConst,
            what: "19·(a + b) that never wraps = the exact product (imul of a sum, mulx with 19 in rdx)",
            build: |g, [_, _, _, d, e]| {
                let s = g.sum(64, &[d, e]);
                let c = g.konst(19);
                // imul (the IR's mul) against the low half of mulx's exact product.
                let l = g.mul(64, &[s, c]);
                let p = g.prod(s, c);
                (l, Some(g.trunc(p, 64)))
            },
            reference: |v| m64((v[3] + v[4]) * 19),
        },
        Case {
            rule: Rule::AndMask,
            what: "movzx eax, al = x & 0xff; mov eax, eax = x & (2^32-1)",
            build: |g, [a, ..]| {
                let m = g.konst(0xff);
                let l = g.and(64, &[a, m]);
                let m32 = g.konst(0xffff_ffff);
                let l32 = g.and(64, &[a, m32]);
                assert_eq!(l32, g.trunc(a, 32));
                (l, Some(g.trunc(a, 8)))
            },
            reference: |v| v[0] & 0xff,
        },
        Case {
            rule: Rule::BitwiseDisjoint,
            what: "x[0..8] | (y << 8) is a concatenation; so is ^",
            build: |g, [a, b, ..]| {
                let lo = g.trunc(a, 8);
                let hi = g.shl(b, 8, 64);
                let l = g.or(64, &[lo, hi]);
                (l, Some(g.xor(64, &[hi, lo])))
            },
            reference: |v| m64((v[0] & 0xff) | (v[1] << 8)),
        },
        Case {
            rule: Rule::BitwiseDisjointSum,
            what: "lo(-2^32·a) | hi(a·(2^32 - 1)) = lo(-2^32·a) + hi(a·(2^32 - 1)); so is ^",
            build: |g, [a, b, ..]| {
                let lo = g.add(64, &[(a, M64 << 32 & M64)], 0);
                let c = g.konst(0xffff_ffff);
                let p = g.prod(a, c);
                let hi = g.slice(p, 64, 64);
                let l = g.or(64, &[lo, hi]);
                assert_eq!(g.xor(64, &[hi, lo]), l);
                // A carry over it is a carry over its parts (`carry-flatten`), as the
                // IR adds them: the sum's linear form alone could wrap.
                assert_eq!(g.carry(64, &[l, b], 0), g.carry(64, &[lo, hi, b], 0));
                (l, Some(g.add(64, &[(lo, 1), (hi, 1)], 0)))
            },
            reference: |v| m64(v[0].wrapping_neg() << 32) | (v[0] * 0xffff_ffff) >> 64,
        },
        Case {
            rule: Rule::BitwiseAc,
            what: "a ^ (b ^ a) = b; a | a = a",
            build: |g, [a, b, ..]| {
                let ba = g.xor(64, &[b, a]);
                let l = g.xor(64, &[a, ba]);
                assert_eq!(g.or(64, &[a, a]), a);
                (l, Some(b))
            },
            reference: |v| v[1],
        },
        Case {
            rule: Rule::BitwiseAbsorb,
            what: "x[0..8] & (y << 8) = 0",
            build: |g, [a, b, ..]| {
                let lo = g.trunc(a, 8);
                let hi = g.shl(b, 8, 64);
                (g.and(64, &[lo, hi]), Some(g.konst(0)))
            },
            reference: |_| 0,
        },
        Case {
            rule: Rule::IteConst,
            what: "cmovc with CF = 1 after stc",
            build: |g, [a, b, ..]| {
                let one = g.konst(1);
                (g.ite(one, a, b), Some(a))
            },
            reference: |v| v[0],
        },
        Case {
            rule: Rule::IteSame,
            what: "Ite(c, x, x) = x",
            build: |g, [a, _, c, ..]| (g.ite(c, a, a), Some(a)),
            reference: |v| v[0],
        },
        Case {
            rule: Rule::IteNegated,
            what: "cmovnc dst, src = Ite(c, dst, src)",
            build: |g, [a, b, c, ..]| {
                let nc = g.not(1, c);
                (g.ite(nc, b, a), Some(g.ite(c, a, b)))
            },
            reference: |v| if v[2] != 0 { v[0] } else { v[1] },
        },
        Case {
            rule: Rule::IteBit,
            what: "Ite(c, 1, 0) = c",
            build: |g, [_, _, c, ..]| {
                let (one, zero) = (g.konst(1), g.konst(0));
                (g.ite(c, one, zero), Some(c))
            },
            reference: |v| v[2],
        },
        Case {
            rule: Rule::SelectLift,
            what: "(y & -c) | andn(-c, x) = Ite(c, y, x)",
            build: |g, [a, b, c, ..]| {
                let neg = g.add(64, &[(c, u64::MAX as u128)], 0);
                let kept = g.and(64, &[b, neg]);
                let not = g.not(64, neg);
                let other = g.and(64, &[not, a]);
                (g.or(64, &[kept, other]), Some(g.ite(c, b, a)))
            },
            reference: |v| if v[2] != 0 { v[1] } else { v[0] },
        },
        Case {
            rule: Rule::EqzBit,
            what: "test c, c; cmovnz dst, src = cmovc dst, src (c a saved carry)",
            build: |g, [a, b, c, ..]| {
                let z = g.eqz(c);
                let nz = g.not(1, z);
                (g.ite(nz, b, a), Some(g.ite(c, b, a)))
            },
            reference: |v| if v[2] != 0 { v[1] } else { v[0] },
        },
        Case {
            rule: Rule::SignPositive,
            what: "sar of a value below 2^63 is shr; sext of one below 2^31 is itself",
            build: |g, [_, _, _, s, _]| {
                let l = g.sar(64, s, 3);
                let t = g.trunc(s, 30);
                assert_eq!(g.sext(32, 64, t), t);
                (l, Some(g.shr(s, 3)))
            },
            reference: |v| v[3] >> 3,
        },
        Case {
            rule: Rule::ShlSar,
            what: "shl r, 63; sar r, 63 = sext of a bit (Fiat's `0 - (i1)c` mask)",
            build: |g, [_, _, c, ..]| {
                let s = g.shl(c, 63, 64);
                (g.sar(64, s, 63), Some(g.sext(1, 64, c)))
            },
            reference: |v| if v[2] != 0 { u64::MAX as u128 } else { 0 },
        },
        Case {
            rule: Rule::MulConst,
            what: "shrd (imul x, c), (mulx hi of x·c), 51 = (x·c) >> 51",
            build: |g, [a, ..]| {
                let c = g.konst(121666);
                let p = g.prod(a, c);
                let l = g.slice(p, 51, 64);
                let lo = g.mul(64, &[a, c]);
                let hi = g.slice(p, 64, 64);
                let x = g.shr(lo, 51);
                let y = g.shl(hi, 13, 64);
                (l, Some(g.or(64, &[x, y])))
            },
            reference: |v| m64((v[0] * 121666) >> 51),
        },
    ]
}

/// Every rule has at least one test case.
#[test]
fn every_rule_is_tested() {
    let cs = cases();
    for r in Rule::ALL {
        assert!(
            cs.iter().any(|c| c.rule == *r),
            "rule {} has no test",
            r.name()
        );
        assert!(
            !r.doc().trim().is_empty(),
            "rule {} is undocumented",
            r.name()
        );
    }
}

/// Each case fires its rule and makes both sides the same node.
#[test]
fn rules_fire_and_identify() {
    for c in cases() {
        let mut g = Graph::new();
        let l = leaves(&mut g);
        let before = g.fired(c.rule);
        let (lhs, rhs) = (c.build)(&mut g, l);
        assert!(
            g.fired(c.rule) > before,
            "{}: `{}` did not fire",
            c.what,
            c.rule.name()
        );
        if let Some(r) = rhs {
            assert_eq!(
                lhs,
                r,
                "{}: {} vs {}",
                c.what,
                g.show(lhs, 200),
                g.show(r, 200)
            );
        }
    }
}

fn value_in(bound: u128) -> impl Strategy<Value = u128> {
    prop_oneof![
        Just(0u128),
        Just(bound),
        Just(bound / 2),
        Just(1u128.min(bound)),
        (0..=bound),
    ]
}

fn values() -> impl Strategy<Value = [u128; 5]> {
    (
        value_in(BOUNDS[0]),
        value_in(BOUNDS[1]),
        value_in(BOUNDS[2]),
        value_in(BOUNDS[3]),
        value_in(BOUNDS[4]),
    )
        .prop_map(|(a, b, c, d, e)| [a, b, c, d, e])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases_or(256)))]

    /// Both sides of every rule evaluate to the directly computed reference, and every
    /// node's value respects its range information.
    #[test]
    fn rules_are_sound(v in values()) {
        for c in cases() {
            let mut g = Graph::new();
            let l = leaves(&mut g);
            let (lhs, _) = (c.build)(&mut g, l);
            let vals = g.eval(&mut |s| match s {
                Sym::Input { index, .. } => v[index as usize],
                _ => 0,
            });
            prop_assert_eq!(vals[lhs.index()], (c.reference)(&v), "{}", c.what);
            check_ranges(&g, &vals)?;
        }
    }
}

fn check_ranges(g: &Graph, vals: &[u128]) -> std::result::Result<(), TestCaseError> {
    for (i, &x) in vals.iter().enumerate() {
        let inf = g.info(NodeId(i as u32));
        prop_assert!(
            x <= inf.ub && x & !inf.nz == 0,
            "node #{i} = {x:#x} outside its range (ub {:#x}, nz {:#x}): {}",
            inf.ub,
            inf.nz,
            g.show_shallow(NodeId(i as u32), 2)
        );
    }
    Ok(())
}
