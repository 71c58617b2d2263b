//! The AVX2 instructions of the x86 executor, on 64-bit lanes: what compilers do with
//! vector registers in this code — spill a general register to an `xmm` and back
//! (`vmovq`), gather limbs into a `ymm` (`vpinsrq`, `vpunpcklqdq`, `vinserti128`,
//! `vpbroadcastq`) to store them at once (`vmovdqu`), and the odd vectorized limb
//! operation (`vpand`, `vpor`, `vpxor`, `vpaddq`, `vpsubq`, each lane on its own, sums
//! modulo 2^64); clang's constant loads `vpmovsxbw` (bytes sign-extended to words) and
//! AVX-512's `vpandq` with a qword broadcast to every lane (`{1to4}`). And the lane
//! arithmetic of vector code generation: shifts by constants (`vpsrlq`, `vpsllq`), lane
//! permutation (`vpermq`) and dword blends (`vpblendd`), AVX-512DQ's `vpmullq` and
//! IFMA's `vpmadd52luq`/`vpmadd52huq` (the low and high 52 bits of the product of the
//! lanes' low 52 bits, added to the destination). None of them changes a flag.
//!
//! A vector register is four 64-bit lanes. These instructions are VEX-encoded, so one
//! that writes an `xmm` zeroes lanes 2 and 3 of its `ymm` (the SDM's "VEX.128 ... bits
//! (MAXVL-1:128) of the destination are zeroed"); `vzeroupper` zeroes lanes 2 and 3 of
//! all sixteen. `vxorps` and `vmovups` are `vpxor`'s and `vmovdqu`'s bits. The SSE
//! forms compilers emit without `-march` (`movdqu`, `movdqa`, `movups`, `movaps`,
//! `paddq`, `psubq`, `pand`, `por`, `pxor`, `xorps`, `punpcklqdq`) are
//! legacy-encoded: 128 bits, two operands (`dst = dst op src`), and a write keeps lanes
//! 2 and 3 ("bits (MAXVL-1:128) of the corresponding destination register remain
//! unchanged"). A vector memory operand is its lanes at consecutive 8-byte offsets,
//! read and written through the same rules as every other access. `vmovdqa`,
//! `movdqa`, `movaps` and the legacy arithmetic fault on an address that is not aligned
//! (only `movdqu`, `movups` and the VEX forms take any address; one rule,
//! [`needs_alignment`]); alignment of argument and stack memory is not known, so they
//! are modelled between registers and from a constant aligned as it needs.
//!
//! Like every file of the executor, this one must never use
//! [`cryptopt_x86::Mnemonic::flags`] or anything else of the code generator's: it *is*
//! the meaning of these instructions for the checker.

use cryptopt_x86::{Mem, Mnemonic as M, Operand as X, Size};

use super::machine::{size_of, Machine, Step};
use crate::graph::{mask, NodeId, Seg};

/// Lanes of a value, lowest first; only the first `n` mean anything.
type Lanes = ([NodeId; 4], usize);

impl Machine<'_> {
    /// The vector instructions (see the module docs).
    pub(super) fn vector(&mut self, mn: M, ops: &[X]) -> Step<()> {
        if needs_alignment(mn) && !ops.iter().all(|&o| self.aligned(o)) {
            return Err(self.unsupported(format!(
                "`{mn}` with memory: its alignment is not known (a fault)"
            )));
        }
        match (mn, ops) {
            (M::Vzeroupper, []) => {
                let zero = self.g.konst(0);
                for v in &mut self.vregs {
                    v[2] = zero;
                    v[3] = zero;
                }
            }
            // To a general register or memory: a lane.
            (M::Vmovq, &[d @ (X::Reg(..) | X::Mem(_)), s @ X::Vec(..)]) => {
                let v = self.qword(s)?;
                self.write(d, v)?;
            }
            (M::Vpextrq, &[d, s @ X::Vec(..), X::Imm(i)]) => {
                let (l, _) = self.lanes(s)?;
                self.write(d, l[(i & 1) as usize])?;
            }
            (M::Vmovq, &[d @ X::Vec(..), s]) => {
                let v = self.qword(s)?;
                self.set_lanes(d, &[v])?;
            }
            (M::Vmovdqu | M::Vmovdqa | M::Vmovups, &[d, s]) => {
                let (l, n) = self.lanes(s)?;
                self.set_lanes(d, &l[..n])?;
            }
            (M::Vpinsrq, &[d, a, b, X::Imm(i)]) => {
                let (mut l, _) = self.lanes(a)?;
                l[(i & 1) as usize] = self.qword(b)?;
                self.set_lanes(d, &l[..2])?;
            }
            (M::Vinserti128, &[d, a, b, X::Imm(i)]) => {
                let (mut l, _) = self.lanes(a)?;
                let (x, _) = self.lanes(b)?;
                let at = 2 * (i & 1) as usize;
                l[at..at + 2].copy_from_slice(&x[..2]);
                self.set_lanes(d, &l)?;
            }
            (M::Vextracti128, &[d, a, X::Imm(i)]) => {
                let (l, _) = self.lanes(a)?;
                let at = 2 * (i & 1) as usize;
                self.set_lanes(d, &l[at..at + 2])?;
            }
            (M::Vpbroadcastq, &[d @ X::Vec(..), s]) => {
                let v = self.qword(s)?;
                self.set_lanes(d, &[v; 4][..lane_count(d)])?;
            }
            (M::Vpunpcklqdq, &[d, a, b]) => {
                let ((x, n), (y, _)) = (self.lanes(a)?, self.lanes(b)?);
                let l = [x[0], y[0], x[2], y[2]];
                self.set_lanes(d, &l[..n])?;
            }
            (
                M::Vpand | M::Vpandq | M::Vpor | M::Vpxor | M::Vxorps | M::Vpaddq | M::Vpsubq,
                &[d, a, b],
            ) => {
                let (x, n) = self.lanes(a)?;
                let (y, _) = match b {
                    // AVX-512's broadcast: one qword in every lane.
                    X::Mem(m) if m.bcst => ([self.qword(b)?; 4], n),
                    _ => self.lanes(b)?,
                };
                let mut l = x;
                for k in 0..n {
                    l[k] = self.lane_op(mn, x[k], y[k]);
                }
                self.set_lanes(d, &l[..n])?;
            }
            (M::Vpmovsxbw, &[d @ X::Vec(..), s]) => {
                // Byte j of the source, sign-extended, is word j of the destination:
                // four per 64-bit lane.
                let n = lane_count(d);
                let src = match s {
                    // Half the destination's bytes: one lane for an xmm, two for a ymm.
                    X::Mem(m) => self.load_lanes(m, n / 2)?,
                    _ => self.lanes(s)?.0,
                };
                let mut l = [self.g.konst(0); 4];
                for (k, lane) in l.iter_mut().enumerate().take(n) {
                    let mut segs = Vec::with_capacity(4);
                    for j in 0..4u8 {
                        let at = 4 * k + j as usize;
                        let byte = self.g.slice(src[at / 8], 8 * (at % 8) as u32, 8);
                        let word = self.g.sext(8, 16, byte);
                        segs.push(Seg {
                            node: word,
                            from: 0,
                            len: 16,
                            at: 16 * j,
                        });
                    }
                    *lane = self.g.concat(&segs, 0);
                }
                self.set_lanes(d, &l[..n])?;
            }
            (M::Vpsrlq | M::Vpsllq, &[d, a, X::Imm(n)]) => {
                let (x, k) = self.lanes(a)?;
                let mut l = x;
                for lane in l.iter_mut().take(k) {
                    *lane = match (n > 63, mn == M::Vpsrlq) {
                        (true, _) => self.g.konst(0),
                        (false, true) => self.g.shr(*lane, n as u32),
                        (false, false) => self.g.shl(*lane, n as u32, 64),
                    };
                }
                self.set_lanes(d, &l[..k])?;
            }
            (M::Vpermq, &[d, a, X::Imm(i)]) => {
                let (x, _) = self.lanes(a)?;
                let l: [NodeId; 4] = std::array::from_fn(|k| x[((i >> (2 * k)) & 3) as usize]);
                self.set_lanes(d, &l)?;
            }
            // Dword j from b where bit j of the immediate is set, else from a: a lane of
            // two dwords from different sources is their concatenation.
            (M::Vpblendd, &[d, a, b, X::Imm(i)]) => {
                let ((x, n), (y, _)) = (self.lanes(a)?, self.lanes(b)?);
                let mut l = x;
                for k in 0..n {
                    let src = |half: usize| {
                        if (i >> (2 * k + half)) & 1 == 1 {
                            y[k]
                        } else {
                            x[k]
                        }
                    };
                    let (lo, hi) = (src(0), src(1));
                    l[k] = if lo == hi {
                        lo
                    } else {
                        let seg = |node, at| Seg {
                            node,
                            from: at,
                            len: 32,
                            at,
                        };
                        self.g.concat(&[seg(lo, 0), seg(hi, 32)], 0)
                    };
                }
                self.set_lanes(d, &l[..n])?;
            }
            // AVX-512: the low 64 bits of each lane's product; IFMA: the low or high 52
            // bits of the 104-bit product of the lanes' low 52 bits, added to the
            // destination's lane modulo 2^64.
            (M::Vpmullq | M::Vpmadd52luq | M::Vpmadd52huq, &[d, a, b]) => {
                let ((x, n), (y, _)) = (self.lanes(a)?, self.lanes(b)?);
                let (acc, _) = self.lanes(d)?;
                let mut l = x;
                for k in 0..n {
                    l[k] = if mn == M::Vpmullq {
                        let p = self.g.prod(x[k], y[k]);
                        self.g.trunc(p, 64)
                    } else {
                        let (u, v) = (self.g.trunc(x[k], 52), self.g.trunc(y[k], 52));
                        let p = self.g.prod(u, v);
                        let part = if mn == M::Vpmadd52luq {
                            self.g.trunc(p, 52)
                        } else {
                            self.g.slice(p, 52, 52)
                        };
                        self.g.add(64, &[(acc[k], 1), (part, 1)], 0)
                    };
                }
                self.set_lanes(d, &l[..n])?;
            }
            // SSE2 (legacy encoding): 128 bits; a write to a register keeps its lanes 2
            // and 3, and the arithmetic is `dst = dst op src`.
            (M::Movdqu | M::Movdqa | M::Movups | M::Movaps, &[d, s]) => {
                let (l, n) = self.lanes(s)?;
                self.set_low_lanes(d, &l[..n])?;
            }
            (M::Punpcklqdq, &[d @ X::Vec(..), s]) => {
                let ((mut l, n), (y, _)) = (self.lanes(d)?, self.lanes(s)?);
                l[1] = y[0];
                self.set_low_lanes(d, &l[..n])?;
            }
            (M::Paddq | M::Psubq | M::Pand | M::Por | M::Pxor | M::Xorps, &[d @ X::Vec(..), s]) => {
                let ((x, n), (y, _)) = (self.lanes(d)?, self.lanes(s)?);
                let mut l = x;
                for k in 0..n {
                    l[k] = self.lane_op(mn, x[k], y[k]);
                }
                self.set_low_lanes(d, &l[..n])?;
            }
            _ => return Err(self.not_modelled()),
        }
        Ok(())
    }

    /// One lane of a lane-wise operation, VEX or legacy: bitwise, or a sum modulo 2^64.
    fn lane_op(&mut self, mn: M, x: NodeId, y: NodeId) -> NodeId {
        match mn {
            M::Vpand | M::Vpandq | M::Pand => self.g.and(64, &[x, y]),
            M::Vpor | M::Por => self.g.or(64, &[x, y]),
            M::Vpxor | M::Vxorps | M::Pxor | M::Xorps => self.g.xor(64, &[x, y]),
            M::Vpaddq | M::Paddq => self.g.add(64, &[(x, 1), (y, 1)], 0),
            _ => self.g.add(64, &[(x, 1), (y, mask(64))], 0),
        }
    }

    /// Whether an aligned access may use `op`: a register, or a constant whose alignment
    /// (`Program::data`) makes the address a multiple of the operand's size. The
    /// alignment of argument and stack memory is not known.
    fn aligned(&self, op: X) -> bool {
        let X::Mem(m) = op else { return true };
        let Some(id) = m.data else { return false };
        let bytes = m.size.bytes();
        self.data[id.index()].align.is_multiple_of(bytes) && m.disp.rem_euclid(bytes as i32) == 0
    }

    /// The low 64 bits of a vector register, or a 64-bit register or memory operand.
    fn qword(&mut self, op: X) -> Step<NodeId> {
        match op {
            X::Vec(v, _) => Ok(self.vregs[v.index() & 15][0]),
            _ => self.read(op, Size::B64),
        }
    }

    /// The lanes of a vector register or a vector-sized memory operand.
    fn lanes(&mut self, op: X) -> Step<Lanes> {
        let n = lane_count(op);
        match op {
            X::Vec(v, _) if n > 0 => Ok((self.vregs[v.index() & 15], n)),
            X::Mem(m) if n > 0 => Ok((self.load_lanes(m, n)?, n)),
            _ => Err(self.bad_form()),
        }
    }

    /// `n` 64-bit lanes from memory at consecutive 8-byte offsets (the rest zero).
    fn load_lanes(&mut self, m: Mem, n: usize) -> Step<[NodeId; 4]> {
        let (b, off) = self.locate(m)?;
        let mut l = [self.g.konst(0); 4];
        for (k, lane) in l.iter_mut().enumerate().take(n) {
            *lane = self.load(b, off + 8 * k as i64, 8)?;
        }
        Ok(l)
    }

    /// Writes `lanes` to a vector register (the lanes above them become zero, as a VEX
    /// write does) or to memory of their size.
    fn set_lanes(&mut self, op: X, lanes: &[NodeId]) -> Step<()> {
        self.write_lanes(op, lanes, false)
    }

    /// Writes `lanes` as a legacy SSE instruction does: the lanes above them keep their
    /// values.
    fn set_low_lanes(&mut self, op: X, lanes: &[NodeId]) -> Step<()> {
        self.write_lanes(op, lanes, true)
    }

    /// Writes `lanes` to a vector register, the lanes above them kept (`keep`) or zeroed,
    /// or to memory of their size.
    fn write_lanes(&mut self, op: X, lanes: &[NodeId], keep: bool) -> Step<()> {
        let n = lane_count(op);
        match op {
            X::Vec(v, _) if lanes.len() <= n => {
                let mut l = if keep {
                    self.vregs[v.index() & 15]
                } else {
                    [self.g.konst(0); 4]
                };
                l[..lanes.len()].copy_from_slice(lanes);
                for &x in lanes {
                    self.record(x);
                }
                self.vregs[v.index() & 15] = l;
                Ok(())
            }
            X::Mem(m) if lanes.len() == n => {
                let (b, off) = self.locate(m)?;
                for (k, &x) in lanes.iter().enumerate() {
                    self.record(x);
                    self.store(b, off + 8 * k as i64, 8, x)?;
                }
                Ok(())
            }
            _ => Err(self.bad_form()),
        }
    }
}

/// Whether `mn` faults on a memory operand that is not aligned to its size: the
/// aligned moves and every legacy SSE operation on a 128-bit memory operand (only
/// `movdqu`, `movups` and the VEX forms take any address).
fn needs_alignment(mn: M) -> bool {
    matches!(
        mn,
        M::Vmovdqa
            | M::Movdqa
            | M::Movaps
            | M::Paddq
            | M::Psubq
            | M::Pand
            | M::Por
            | M::Pxor
            | M::Xorps
            | M::Punpcklqdq
    )
}

/// The 64-bit lanes of a 128- or 256-bit operand; 0 for any other.
fn lane_count(op: X) -> usize {
    match size_of(op) {
        Some(Size::B128) => 2,
        Some(Size::B256) => 4,
        _ => 0,
    }
}
