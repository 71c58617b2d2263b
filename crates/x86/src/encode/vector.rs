//! The vector part of the mapping (see the parent module): the AVX2 instructions
//! compilers emit and the checker reads, encoded so that whatever parses can be run and
//! measured, and the lane arithmetic of vector code generation (shifts, `vpermq`,
//! `vpblendd`, AVX-512's `vpmullq` and IFMA's `vpmadd52luq`/`vpmadd52huq`, EVEX).

use iced_x86::{Code, OpKind, Register};

use super::{count, make, op, width, Op, Res, FORM};
use crate::inst::{Mem, Mnemonic, Operand, Size, VReg};
use Code::*;

/// iced's vector registers by number: `xmm`n, `ymm`n.
pub(super) fn vreg(v: VReg, s: Size) -> Register {
    let base = if s == Size::B256 {
        Register::YMM0 as u32
    } else {
        Register::XMM0 as u32
    };
    // XMM0..XMM15 and YMM0..YMM15 are consecutive in iced's register enum.
    Register::values()
        .nth((base + (v.0 & 15) as u32) as usize)
        .unwrap_or(Register::None)
}

/// The AVX2 instructions: each has one form per operand shape, by the width of its
/// vector registers (`xmm` 128, `ymm` 256).
pub(super) fn vector(mn: Mnemonic, ops: &[Operand]) -> Res {
    use Mnemonic as Mn;
    use Operand::{Imm, Mem as M, Reg as R, Vec as V};
    const B64: Size = Size::B64;
    const X: Size = Size::B128;
    const Y: Size = Size::B256;
    // An embedded broadcast (`{1to4}`) is AVX-512's, of a qword, in `vpandq` only.
    let bcst = ops.iter().any(|o| matches!(o, M(m) if m.bcst));
    if bcst && (mn != Mn::Vpandq || ops.iter().any(|o| matches!(o, M(m) if m.size != B64))) {
        return Err("an embedded broadcast this instruction does not have");
    }
    let all = |code: Code| {
        let mut v = [Op::R(Register::None); 4];
        for (d, o) in v.iter_mut().zip(ops) {
            *d = match *o {
                Imm(k) => Op::I(count(k)?, OpKind::Immediate8),
                M(m) => op(&M(Mem { bcst: false, ..m }))?,
                _ => op(o)?,
            };
        }
        let mut ins = make(code, &v[..ops.len()])?;
        ins.set_is_broadcast(bcst);
        Ok(ins)
    };
    let vx = |o: &Operand, s: Size| matches!(*o, V(_, t) if t == s);
    // A vector register or memory operand of `s` bits.
    let vm = |o: &Operand, s: Size| vx(o, s) || matches!(*o, M(m) if m.size == s);
    let code = match (mn, ops) {
        // SSE2: 128 bits, the destination also the first source.
        (Mn::Movdqu | Mn::Movdqa | Mn::Movups | Mn::Movaps, [a, b]) => match (mn, a, b) {
            (Mn::Movdqu, V(_, X), b) if vm(b, X) => Movdqu_xmm_xmmm128,
            (Mn::Movdqa, V(_, X), b) if vm(b, X) => Movdqa_xmm_xmmm128,
            (Mn::Movups, V(_, X), b) if vm(b, X) => Movups_xmm_xmmm128,
            (Mn::Movaps, V(_, X), b) if vm(b, X) => Movaps_xmm_xmmm128,
            (Mn::Movdqu, M(m), V(_, X)) if m.size == X => Movdqu_xmmm128_xmm,
            (Mn::Movdqa, M(m), V(_, X)) if m.size == X => Movdqa_xmmm128_xmm,
            (Mn::Movups, M(m), V(_, X)) if m.size == X => Movups_xmmm128_xmm,
            (Mn::Movaps, M(m), V(_, X)) if m.size == X => Movaps_xmmm128_xmm,
            _ => return Err(FORM),
        },
        (
            Mn::Paddq | Mn::Psubq | Mn::Pand | Mn::Por | Mn::Pxor | Mn::Punpcklqdq | Mn::Xorps,
            [V(_, X), b],
        ) if vm(b, X) => match mn {
            Mn::Xorps => Xorps_xmm_xmmm128,
            Mn::Paddq => Paddq_xmm_xmmm128,
            Mn::Psubq => Psubq_xmm_xmmm128,
            Mn::Pand => Pand_xmm_xmmm128,
            Mn::Por => Por_xmm_xmmm128,
            Mn::Pxor => Pxor_xmm_xmmm128,
            _ => Punpcklqdq_xmm_xmmm128,
        },
        (Mn::Vmovq, [V(_, X), R(_, B64)]) => VEX_Vmovq_xmm_rm64,
        (Mn::Vmovq, [R(_, B64), V(_, X)]) => VEX_Vmovq_rm64_xmm,
        (Mn::Vmovq, [V(_, X), b]) if vx(b, X) || matches!(*b, M(m) if m.size == B64) => {
            VEX_Vmovq_xmm_xmmm64
        }
        (Mn::Vmovq, [M(m), V(_, X)]) if m.size == B64 => VEX_Vmovq_xmmm64_xmm,
        (Mn::Vmovups, [a, b]) => match (a, b) {
            (V(_, X), b) if vm(b, X) => VEX_Vmovups_xmm_xmmm128,
            (V(_, Y), b) if vm(b, Y) => VEX_Vmovups_ymm_ymmm256,
            (M(m), V(_, X)) if m.size == X => VEX_Vmovups_xmmm128_xmm,
            (M(m), V(_, Y)) if m.size == Y => VEX_Vmovups_ymmm256_ymm,
            _ => return Err(FORM),
        },
        (Mn::Vxorps, [V(_, s), V(_, t), c]) if s == t && vm(c, *s) => pick(
            *s == X,
            VEX_Vxorps_xmm_xmm_xmmm128,
            VEX_Vxorps_ymm_ymm_ymmm256,
        ),
        (Mn::Vmovdqu | Mn::Vmovdqa, [a, b]) => {
            let u = mn == Mn::Vmovdqu;
            match (a, b) {
                (V(_, X), b) if vm(b, X) => {
                    pick(u, VEX_Vmovdqu_xmm_xmmm128, VEX_Vmovdqa_xmm_xmmm128)
                }
                (V(_, Y), b) if vm(b, Y) => {
                    pick(u, VEX_Vmovdqu_ymm_ymmm256, VEX_Vmovdqa_ymm_ymmm256)
                }
                (M(m), V(_, X)) if m.size == X => {
                    pick(u, VEX_Vmovdqu_xmmm128_xmm, VEX_Vmovdqa_xmmm128_xmm)
                }
                (M(m), V(_, Y)) if m.size == Y => {
                    pick(u, VEX_Vmovdqu_ymmm256_ymm, VEX_Vmovdqa_ymmm256_ymm)
                }
                _ => return Err(FORM),
            }
        }
        (Mn::Vpinsrq, [V(_, X), V(_, X), b, Imm(_)]) if matches!(width(b), Some(B64)) => {
            VEX_Vpinsrq_xmm_xmm_rm64_imm8
        }
        (Mn::Vpextrq, [a, V(_, X), Imm(_)]) if matches!(width(a), Some(B64)) => {
            VEX_Vpextrq_rm64_xmm_imm8
        }
        (Mn::Vinserti128, [V(_, Y), V(_, Y), c, Imm(_)]) if vm(c, X) => {
            VEX_Vinserti128_ymm_ymm_xmmm128_imm8
        }
        (Mn::Vextracti128, [a, V(_, Y), Imm(_)]) if vm(a, X) => VEX_Vextracti128_xmmm128_ymm_imm8,
        (Mn::Vpbroadcastq, [V(_, s), b]) if vx(b, X) || matches!(*b, M(m) if m.size == B64) => {
            pick(
                *s == X,
                VEX_Vpbroadcastq_xmm_xmmm64,
                VEX_Vpbroadcastq_ymm_xmmm64,
            )
        }
        // AVX-512VL: from a general register.
        (Mn::Vpbroadcastq, [V(_, s), R(_, B64)]) => pick(
            *s == X,
            EVEX_Vpbroadcastq_xmm_k1z_r64,
            EVEX_Vpbroadcastq_ymm_k1z_r64,
        ),
        (
            Mn::Vpunpcklqdq | Mn::Vpand | Mn::Vpor | Mn::Vpxor | Mn::Vpaddq | Mn::Vpsubq,
            [V(_, s), V(_, t), c],
        ) if s == t && vm(c, *s) => {
            let (x, y) = match mn {
                Mn::Vpunpcklqdq => (
                    VEX_Vpunpcklqdq_xmm_xmm_xmmm128,
                    VEX_Vpunpcklqdq_ymm_ymm_ymmm256,
                ),
                Mn::Vpand => (VEX_Vpand_xmm_xmm_xmmm128, VEX_Vpand_ymm_ymm_ymmm256),
                Mn::Vpor => (VEX_Vpor_xmm_xmm_xmmm128, VEX_Vpor_ymm_ymm_ymmm256),
                Mn::Vpxor => (VEX_Vpxor_xmm_xmm_xmmm128, VEX_Vpxor_ymm_ymm_ymmm256),
                Mn::Vpaddq => (VEX_Vpaddq_xmm_xmm_xmmm128, VEX_Vpaddq_ymm_ymm_ymmm256),
                _ => (VEX_Vpsubq_xmm_xmm_xmmm128, VEX_Vpsubq_ymm_ymm_ymmm256),
            };
            pick(*s == X, x, y)
        }
        (Mn::Vpandq, [V(_, s), V(_, t), c]) if s == t && (bcst || vm(c, *s)) => pick(
            *s == X,
            EVEX_Vpandq_xmm_k1z_xmm_xmmm128b64,
            EVEX_Vpandq_ymm_k1z_ymm_ymmm256b64,
        ),
        (Mn::Vpmovsxbw, [V(_, X), b]) if vx(b, X) || matches!(*b, M(m) if m.size == B64) => {
            VEX_Vpmovsxbw_xmm_xmmm64
        }
        (Mn::Vpmovsxbw, [V(_, Y), b]) if vm(b, X) => VEX_Vpmovsxbw_ymm_xmmm128,
        (Mn::Vzeroupper, []) => VEX_Vzeroupper,
        (Mn::Vpsrlq | Mn::Vpsllq, [V(_, s), V(_, t), Imm(_)]) if s == t => {
            match (mn == Mn::Vpsrlq, *s == X) {
                (true, true) => VEX_Vpsrlq_xmm_xmm_imm8,
                (true, false) => VEX_Vpsrlq_ymm_ymm_imm8,
                (false, true) => VEX_Vpsllq_xmm_xmm_imm8,
                (false, false) => VEX_Vpsllq_ymm_ymm_imm8,
            }
        }
        (Mn::Vpermq, [V(_, Y), b, Imm(_)]) if vm(b, Y) => VEX_Vpermq_ymm_ymmm256_imm8,
        (Mn::Vpblendd, [V(_, s), V(_, t), c, Imm(_)]) if s == t && vm(c, *s) => pick(
            *s == X,
            VEX_Vpblendd_xmm_xmm_xmmm128_imm8,
            VEX_Vpblendd_ymm_ymm_ymmm256_imm8,
        ),
        // AVX-512 (EVEX): no masking, no broadcast.
        (Mn::Vpmullq | Mn::Vpmadd52luq | Mn::Vpmadd52huq, [V(_, s), V(_, t), c])
            if s == t && vm(c, *s) =>
        {
            let (x, y) = match mn {
                Mn::Vpmullq => (
                    EVEX_Vpmullq_xmm_k1z_xmm_xmmm128b64,
                    EVEX_Vpmullq_ymm_k1z_ymm_ymmm256b64,
                ),
                Mn::Vpmadd52luq => (
                    EVEX_Vpmadd52luq_xmm_k1z_xmm_xmmm128b64,
                    EVEX_Vpmadd52luq_ymm_k1z_ymm_ymmm256b64,
                ),
                _ => (
                    EVEX_Vpmadd52huq_xmm_k1z_xmm_xmmm128b64,
                    EVEX_Vpmadd52huq_ymm_k1z_ymm_ymmm256b64,
                ),
            };
            pick(*s == X, x, y)
        }
        _ => return Err(FORM),
    };
    all(code)
}

fn pick(first: bool, a: Code, b: Code) -> Code {
    if first {
        a
    } else {
        b
    }
}
