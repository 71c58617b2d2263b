//! Machine code for instructions, through iced-x86's encoder.
//!
//! This is the optimizer's hot path (mutate → generate → **encode** → measure): it runs
//! thousands of times a second, so it does no string work and allocates nothing but the
//! caller's buffer, which it appends to. Keep an [`Assembler`] and reuse it; [`encode`]
//! is the one-shot convenience.
//!
//! Each [`Inst`] is mapped by one match on its mnemonic and operand kinds to an iced
//! [`Code`] (see `lower`), choosing the same encoding NASM picks for the printed text,
//! so that what is measured is byte for byte what ships:
//!
//! * register–register forms put the destination in ModRM.rm (`mov rax, rbx` = `89 d8`),
//!   except `xchg`, whose first operand goes in ModRM.reg as NASM does;
//! * the short forms: `op r/m, imm8` when the immediate fits a sign-extended byte, then
//!   `op al/ax/eax/rax, imm`, `shl r/m, 1`, `xchg rax, r64` (`90+r`), `mov r8, imm8`;
//! * `mov r64, imm` becomes `mov r32, imm32` (zero-extending, 5 or 6 bytes) when the
//!   value is in `0..=u32::MAX`, `mov r/m64, imm32` (sign-extending) when it is a
//!   negative `i32`, and `movabs` (imm64) otherwise;
//! * memory: no displacement when it is 0 (but `[rbp]`/`[r13]` need a `disp8` 0),
//!   `disp8` when it fits; `[x*1]` is `[x]`, `[x*2]` is `[x + x]`, `[b + rsp]` is
//!   `[rsp + b]`.
//!
//! It must never panic and never emit something other than what the instruction says:
//! anything it cannot encode exactly (operand kinds or sizes that do not match, an
//! immediate out of range, `rsp` as a scaled index, `xchg` of 32-bit registers, whose
//! `xchg eax, eax` would be a `nop`) is an [`Error::Encode`] naming the instruction.
//! Semantics are not its business: it does not know what the instructions compute.

use iced_x86::{Code, Encoder, Instruction, MemoryOperand, OpKind, Register};

use crate::error::{Error, Result};
use crate::inst::{Inst, Mem, Mnemonic, Operand, Program, Reg, Size};

mod vector;
use vector::{vector, vreg};

/// A reusable encoder: keep one per thread and call [`Assembler::encode`] as often as
/// needed; it allocates nothing of its own after the first call.
pub struct Assembler {
    enc: Encoder,
}

impl Default for Assembler {
    fn default() -> Self {
        Assembler::new()
    }
}

impl std::fmt::Debug for Assembler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Assembler")
    }
}

impl Assembler {
    pub fn new() -> Self {
        Assembler {
            enc: Encoder::new(64),
        }
    }

    /// Appends the machine code of `insts` to `out`. On error `out` is left as it was
    /// and the error names the first instruction that has no encoding. Instructions
    /// that address a program's constants need the program: [`Assembler::encode_program`].
    pub fn encode(&mut self, insts: &[Inst], out: &mut Vec<u8>) -> Result<()> {
        self.encode_at(insts, out, None)
    }

    /// Appends the machine code of a whole program: its instructions, then its
    /// constants ([`Program::data`]), each at its alignment counted from the start of
    /// the code (so the code must be placed at an address at least that aligned: a
    /// page), every rip-relative operand pointing at its constant. On error `out` is
    /// left as it was.
    pub fn encode_program(&mut self, p: &Program, out: &mut Vec<u8>) -> Result<()> {
        if p.data.is_empty() {
            return self.encode(&p.insts, out);
        }
        // rip-relative operands are always disp32: the code's size does not depend on
        // where the data goes, so one pass measures it and the second one is final.
        let mut code = Vec::new();
        self.encode_at(&p.insts, &mut code, Some(&vec![0; p.data.len()]))?;
        let mut at = Vec::with_capacity(p.data.len());
        let mut end = code.len() as u64;
        for d in &p.data {
            end = end.next_multiple_of(d.align.max(1) as u64);
            at.push(end);
            end += d.bytes.len() as u64;
        }
        code.clear();
        self.encode_at(&p.insts, &mut code, Some(&at))?;
        for (d, &a) in p.data.iter().zip(&at) {
            code.resize(a as usize, 0xcc);
            code.extend_from_slice(&d.bytes);
        }
        out.extend_from_slice(&code);
        Ok(())
    }

    /// [`Assembler::encode`], with the offsets of the program's constants from the
    /// start of the code when there is a program.
    fn encode_at(&mut self, insts: &[Inst], out: &mut Vec<u8>, data: Option<&[u64]>) -> Result<()> {
        let start = out.len();
        // The encoder writes into its own Vec: lend it the caller's (no copy, no
        // allocation) and take it back.
        self.enc.set_buffer(std::mem::take(out));
        let mut result = Ok(());
        let mut ip = 0u64;
        for inst in insts {
            let step = lower(inst)
                .and_then(|mut ins| {
                    // (Only constants lower to rip-relative operands.)
                    if ins.is_ip_rel_memory_operand() {
                        let at = data
                            .zip(inst.data())
                            .and_then(|(d, id)| d.get(id.index()))
                            .ok_or("a rip-relative constant: encode the whole program")?;
                        ins.set_memory_displacement64(at.wrapping_add(ins.memory_displacement64()));
                    }
                    Ok(ins)
                })
                .map_err(str::to_string)
                .and_then(|ins| self.enc.encode(&ins, ip).map_err(|e| e.to_string()));
            match step {
                Ok(len) => ip += len as u64,
                Err(message) => {
                    result = Err(Error::Encode {
                        inst: inst.to_string(),
                        message,
                    });
                    break;
                }
            }
        }
        *out = self.enc.take_buffer();
        if result.is_err() {
            out.truncate(start);
        }
        result
    }
}

/// Appends the machine code of `insts` to `out` with a fresh [`Assembler`].
pub fn encode(insts: &[Inst], out: &mut Vec<u8>) -> Result<()> {
    Assembler::new().encode(insts, out)
}

/// Appends the machine code of a program and its constants to `out` with a fresh
/// [`Assembler`] (see [`Assembler::encode_program`]).
pub fn encode_program(p: &Program, out: &mut Vec<u8>) -> Result<()> {
    Assembler::new().encode_program(p, out)
}

/// Whether the instruction has an encoding, and if not why (the message
/// [`Error::Encode`] would carry). Cheap: no encoding, no allocation.
pub fn check(inst: &Inst) -> std::result::Result<(), &'static str> {
    lower(inst).map(|_| ())
}

/// The iced instruction `inst` is encoded as (for tests and disassembly).
pub fn to_iced(inst: &Inst) -> Result<Instruction> {
    lower(inst).map_err(|message| Error::Encode {
        inst: inst.to_string(),
        message: message.to_string(),
    })
}

// ---------------------------------------------------------------------------------------
// Operands.

type Res = std::result::Result<Instruction, &'static str>;

const FORM: &str = "no such operand form";
const IMM: &str = "immediate out of range for the operand size";
const COUNT: &str = "count out of range 0..=255";

/// iced's registers by hardware number, per width (`spl`..`dil`, never `ah`..`bh`).
fn reg(r: Reg, s: Size) -> Register {
    use Register::*;
    const R64: [Register; 16] = [
        RAX, RCX, RDX, RBX, RSP, RBP, RSI, RDI, R8, R9, R10, R11, R12, R13, R14, R15,
    ];
    const R32: [Register; 16] = [
        EAX, ECX, EDX, EBX, ESP, EBP, ESI, EDI, R8D, R9D, R10D, R11D, R12D, R13D, R14D, R15D,
    ];
    const R16: [Register; 16] = [
        AX, CX, DX, BX, SP, BP, SI, DI, R8W, R9W, R10W, R11W, R12W, R13W, R14W, R15W,
    ];
    const R8B: [Register; 16] = [
        AL, CL, DL, BL, SPL, BPL, SIL, DIL, R8L, R9L, R10L, R11L, R12L, R13L, R14L, R15L,
    ];
    let t = match s {
        // Vector widths never reach here with a general register (`lower` refuses them).
        Size::B64 | Size::B128 | Size::B256 => &R64,
        Size::B32 => &R32,
        Size::B16 => &R16,
        Size::B8 => &R8B,
    };
    t[r.index()]
}

/// The memory operand, normalized as NASM does (see the module docs).
fn mem(m: &Mem) -> std::result::Result<MemoryOperand, &'static str> {
    if m.bcst {
        return Err("an embedded broadcast `{1toN}` outside an AVX-512 instruction");
    }
    if m.data.is_some() {
        // rip-relative: iced takes the target address; `Assembler::encode_program`
        // puts the constant's address here (until then, the displacement alone).
        return Ok(MemoryOperand::with_base_displ(Register::RIP, m.disp as i64));
    }
    let (mut base, mut index, mut scale) = (m.base, m.index, m.scale as u32);
    if index.is_none() {
        scale = 1;
    } else if !matches!(scale, 1 | 2 | 4 | 8) {
        return Err("scale must be 1, 2, 4 or 8");
    }
    if base.is_none() && (scale == 1 || scale == 2) {
        // [x*1] -> [x], [x*2] -> [x + x*1]: no disp32 needed.
        base = index;
        index = if scale == 2 { base } else { None };
        scale = 1;
    }
    if index == Some(Reg::Rsp) {
        if scale == 1 && base != Some(Reg::Rsp) {
            std::mem::swap(&mut base, &mut index);
        } else {
            return Err("rsp cannot be an index register");
        }
    }
    let r = |x: Option<Reg>| x.map_or(Register::None, |x| reg(x, Size::B64));
    let displ_size = if m.disp == 0 { 0 } else { 1 };
    Ok(MemoryOperand::with_base_index_scale_displ_size(
        r(base),
        r(index),
        scale,
        m.disp as i64,
        displ_size,
    ))
}

/// An operand as iced takes it; an immediate with the kind its field has in the chosen
/// [`Code`] (see [`full`], [`sx8`]).
#[derive(Clone, Copy)]
enum Op {
    R(Register),
    M(MemoryOperand),
    I(i64, OpKind),
}

/// A register or memory operand (immediates need their kind: see [`Op::I`]).
#[inline]
fn op(o: &Operand) -> std::result::Result<Op, &'static str> {
    match *o {
        Operand::Reg(r, s) => Ok(Op::R(reg(r, s))),
        Operand::Vec(v, s) => Ok(Op::R(vreg(v, s))),
        Operand::Mem(m) => Ok(Op::M(mem(&m)?)),
        Operand::Imm(_) => Err(FORM),
    }
}

/// The immediate kind of the full-width `op r/m, imm` forms: imm8, imm16, imm32, and
/// the sign-extended imm32 of 64-bit operations.
#[inline]
fn full(s: Size) -> OpKind {
    [
        OpKind::Immediate8,
        OpKind::Immediate16,
        OpKind::Immediate32,
        OpKind::Immediate32to64,
    ][w(s)]
}

/// The immediate kind of the sign-extended imm8 forms (`83 /r ib`, `6b /r ib`).
#[inline]
fn sx8(s: Size) -> OpKind {
    [
        OpKind::Immediate8,
        OpKind::Immediate8to16,
        OpKind::Immediate8to32,
        OpKind::Immediate8to64,
    ][w(s)]
}

/// The instruction `code` with these operands, built field by field (iced's
/// `Instruction::with2` and friends look the immediate's kind up in its tables on every
/// call, which costs more than the encoding itself). The encoder checks every operand
/// kind against the code, and the immediate is checked against its field here, so a
/// mistake is an error, never wrong bytes.
#[inline]
fn make(code: Code, ops: &[Op]) -> Res {
    if code == Code::INVALID {
        return Err(FORM);
    }
    let mut ins = Instruction::default();
    ins.set_code(code);
    for (k, o) in ops.iter().enumerate() {
        let kind = match *o {
            Op::R(r) => {
                match k {
                    0 => ins.set_op0_register(r),
                    1 => ins.set_op1_register(r),
                    2 => ins.set_op2_register(r),
                    _ => ins.set_op3_register(r),
                }
                OpKind::Register
            }
            Op::M(m) => {
                ins.set_memory_base(m.base);
                ins.set_memory_index(m.index);
                ins.set_memory_index_scale(m.scale);
                ins.set_memory_displ_size(m.displ_size);
                ins.set_memory_displacement64(m.displacement as u64);
                OpKind::Memory
            }
            Op::I(v, kind) => {
                set_imm(&mut ins, v, kind)?;
                kind
            }
        };
        match k {
            0 => ins.set_op0_kind(kind),
            1 => ins.set_op1_kind(kind),
            2 => ins.set_op2_kind(kind),
            _ => ins.set_op3_kind(kind),
        }
    }
    Ok(ins)
}

#[inline]
fn set_imm(ins: &mut Instruction, v: i64, kind: OpKind) -> std::result::Result<(), &'static str> {
    let fits = |lo: i64, hi: i64| {
        if (lo..=hi).contains(&v) {
            Ok(())
        } else {
            Err(IMM)
        }
    };
    match kind {
        OpKind::Immediate8 => fits(-0x80, 0xff).map(|_| ins.set_immediate8(v as u8)),
        OpKind::Immediate8to16 => fits(-0x80, 0x7f).map(|_| ins.set_immediate8to16(v as i16)),
        OpKind::Immediate8to32 => fits(-0x80, 0x7f).map(|_| ins.set_immediate8to32(v as i32)),
        OpKind::Immediate8to64 => fits(-0x80, 0x7f).map(|_| ins.set_immediate8to64(v)),
        OpKind::Immediate16 => fits(-0x8000, 0xffff).map(|_| ins.set_immediate16(v as u16)),
        OpKind::Immediate32 => {
            fits(i32::MIN as i64, u32::MAX as i64).map(|_| ins.set_immediate32(v as u32))
        }
        OpKind::Immediate32to64 => {
            fits(i32::MIN as i64, i32::MAX as i64).map(|_| ins.set_immediate32to64(v))
        }
        OpKind::Immediate64 => {
            ins.set_immediate64(v as u64);
            Ok(())
        }
        _ => Err(FORM),
    }
}

/// The width of a register or memory operand; `None` for an immediate.
fn width(o: &Operand) -> Option<Size> {
    match *o {
        Operand::Reg(_, s) | Operand::Vec(_, s) => Some(s),
        Operand::Mem(m) => Some(m.size),
        Operand::Imm(_) => None,
    }
}

fn is_cl(o: &Operand) -> bool {
    *o == Operand::Reg(Reg::Rcx, Size::B8)
}

/// An immediate for an operation of width `s`, as the instruction's immediate field
/// holds it (sign-extended to i32): accepts both the signed and the unsigned reading of
/// the width (`0xff` and `-1` for a byte), except for 64 bits, where the field is a
/// sign-extended imm32.
fn imm(s: Size, v: i64) -> std::result::Result<i64, &'static str> {
    let ok = match s {
        Size::B8 => (-0x80..=0xff).contains(&v),
        Size::B16 => (-0x8000..=0xffff).contains(&v),
        Size::B32 => (i32::MIN as i64..=u32::MAX as i64).contains(&v),
        Size::B64 => (i32::MIN as i64..=i32::MAX as i64).contains(&v),
        Size::B128 | Size::B256 => false,
    };
    if !ok {
        return Err(IMM);
    }
    Ok(match s {
        Size::B8 => v as i8 as i64,
        Size::B16 => v as i16 as i64,
        _ => v as i32 as i64,
    })
}

fn fits_i8(v: i64) -> bool {
    (-0x80..0x80).contains(&v)
}

/// A shift or rotate count, a bit index: an unsigned byte.
fn count(v: i64) -> std::result::Result<i64, &'static str> {
    if (0..=0xff).contains(&v) {
        Ok(v)
    } else {
        Err(COUNT)
    }
}

/// Table index of a width (vector widths never get here: `lower` refuses them for the
/// general instructions, the only ones with tables).
fn w(s: Size) -> usize {
    match s {
        Size::B8 => 0,
        Size::B16 => 1,
        Size::B32 => 2,
        Size::B64 | Size::B128 | Size::B256 => 3,
    }
}

// ---------------------------------------------------------------------------------------
// Code tables, indexed by width (8, 16, 32, 64); `INVALID` where there is no form.

const X: Code = Code::INVALID;

/// The eight two-operand ALU operations.
struct Alu {
    rm_r: [Code; 4],
    r_rm: [Code; 4],
    rm_imm: [Code; 4],
    rm_imm8: [Code; 4],
    acc_imm: [Code; 4],
}

macro_rules! alu {
    ($($rm_r:ident $r_rm:ident $rm_imm:ident $rm_imm8:ident $acc:ident),* $(,)?) => {
        Alu {
            rm_r: [$(Code::$rm_r),*],
            r_rm: [$(Code::$r_rm),*],
            rm_imm: [$(Code::$rm_imm),*],
            rm_imm8: [$(Code::$rm_imm8),*],
            acc_imm: [$(Code::$acc),*],
        }
    };
}

#[rustfmt::skip]
mod alu_tables {
    use super::*;
    pub(super) const ADD: Alu = alu!(
        Add_rm8_r8 Add_r8_rm8 Add_rm8_imm8 Add_rm8_imm8 Add_AL_imm8,
        Add_rm16_r16 Add_r16_rm16 Add_rm16_imm16 Add_rm16_imm8 Add_AX_imm16,
        Add_rm32_r32 Add_r32_rm32 Add_rm32_imm32 Add_rm32_imm8 Add_EAX_imm32,
        Add_rm64_r64 Add_r64_rm64 Add_rm64_imm32 Add_rm64_imm8 Add_RAX_imm32,
    );
    pub(super) const ADC: Alu = alu!(
        Adc_rm8_r8 Adc_r8_rm8 Adc_rm8_imm8 Adc_rm8_imm8 Adc_AL_imm8,
        Adc_rm16_r16 Adc_r16_rm16 Adc_rm16_imm16 Adc_rm16_imm8 Adc_AX_imm16,
        Adc_rm32_r32 Adc_r32_rm32 Adc_rm32_imm32 Adc_rm32_imm8 Adc_EAX_imm32,
        Adc_rm64_r64 Adc_r64_rm64 Adc_rm64_imm32 Adc_rm64_imm8 Adc_RAX_imm32,
    );
    pub(super) const SUB: Alu = alu!(
        Sub_rm8_r8 Sub_r8_rm8 Sub_rm8_imm8 Sub_rm8_imm8 Sub_AL_imm8,
        Sub_rm16_r16 Sub_r16_rm16 Sub_rm16_imm16 Sub_rm16_imm8 Sub_AX_imm16,
        Sub_rm32_r32 Sub_r32_rm32 Sub_rm32_imm32 Sub_rm32_imm8 Sub_EAX_imm32,
        Sub_rm64_r64 Sub_r64_rm64 Sub_rm64_imm32 Sub_rm64_imm8 Sub_RAX_imm32,
    );
    pub(super) const SBB: Alu = alu!(
        Sbb_rm8_r8 Sbb_r8_rm8 Sbb_rm8_imm8 Sbb_rm8_imm8 Sbb_AL_imm8,
        Sbb_rm16_r16 Sbb_r16_rm16 Sbb_rm16_imm16 Sbb_rm16_imm8 Sbb_AX_imm16,
        Sbb_rm32_r32 Sbb_r32_rm32 Sbb_rm32_imm32 Sbb_rm32_imm8 Sbb_EAX_imm32,
        Sbb_rm64_r64 Sbb_r64_rm64 Sbb_rm64_imm32 Sbb_rm64_imm8 Sbb_RAX_imm32,
    );
    pub(super) const AND: Alu = alu!(
        And_rm8_r8 And_r8_rm8 And_rm8_imm8 And_rm8_imm8 And_AL_imm8,
        And_rm16_r16 And_r16_rm16 And_rm16_imm16 And_rm16_imm8 And_AX_imm16,
        And_rm32_r32 And_r32_rm32 And_rm32_imm32 And_rm32_imm8 And_EAX_imm32,
        And_rm64_r64 And_r64_rm64 And_rm64_imm32 And_rm64_imm8 And_RAX_imm32,
    );
    pub(super) const OR: Alu = alu!(
        Or_rm8_r8 Or_r8_rm8 Or_rm8_imm8 Or_rm8_imm8 Or_AL_imm8,
        Or_rm16_r16 Or_r16_rm16 Or_rm16_imm16 Or_rm16_imm8 Or_AX_imm16,
        Or_rm32_r32 Or_r32_rm32 Or_rm32_imm32 Or_rm32_imm8 Or_EAX_imm32,
        Or_rm64_r64 Or_r64_rm64 Or_rm64_imm32 Or_rm64_imm8 Or_RAX_imm32,
    );
    pub(super) const XOR: Alu = alu!(
        Xor_rm8_r8 Xor_r8_rm8 Xor_rm8_imm8 Xor_rm8_imm8 Xor_AL_imm8,
        Xor_rm16_r16 Xor_r16_rm16 Xor_rm16_imm16 Xor_rm16_imm8 Xor_AX_imm16,
        Xor_rm32_r32 Xor_r32_rm32 Xor_rm32_imm32 Xor_rm32_imm8 Xor_EAX_imm32,
        Xor_rm64_r64 Xor_r64_rm64 Xor_rm64_imm32 Xor_rm64_imm8 Xor_RAX_imm32,
    );
    pub(super) const CMP: Alu = alu!(
        Cmp_rm8_r8 Cmp_r8_rm8 Cmp_rm8_imm8 Cmp_rm8_imm8 Cmp_AL_imm8,
        Cmp_rm16_r16 Cmp_r16_rm16 Cmp_rm16_imm16 Cmp_rm16_imm8 Cmp_AX_imm16,
        Cmp_rm32_r32 Cmp_r32_rm32 Cmp_rm32_imm32 Cmp_rm32_imm8 Cmp_EAX_imm32,
        Cmp_rm64_r64 Cmp_r64_rm64 Cmp_rm64_imm32 Cmp_rm64_imm8 Cmp_RAX_imm32,
    );
    /// `test` has no `r, r/m` or imm8 forms; `test r, m` is encoded as `test m, r`.
    pub(super) const TEST: Alu = alu!(
        Test_rm8_r8 Test_rm8_r8 Test_rm8_imm8 INVALID Test_AL_imm8,
        Test_rm16_r16 Test_rm16_r16 Test_rm16_imm16 INVALID Test_AX_imm16,
        Test_rm32_r32 Test_rm32_r32 Test_rm32_imm32 INVALID Test_EAX_imm32,
        Test_rm64_r64 Test_rm64_r64 Test_rm64_imm32 INVALID Test_RAX_imm32,
    );
}
use alu_tables::*;

use Code::*;

const MOV_RM_R: [Code; 4] = [Mov_rm8_r8, Mov_rm16_r16, Mov_rm32_r32, Mov_rm64_r64];
const MOV_R_RM: [Code; 4] = [Mov_r8_rm8, Mov_r16_rm16, Mov_r32_rm32, Mov_r64_rm64];
const MOV_R_IMM: [Code; 4] = [Mov_r8_imm8, Mov_r16_imm16, Mov_r32_imm32, Mov_r64_imm64];
const MOV_RM_IMM: [Code; 4] = [Mov_rm8_imm8, Mov_rm16_imm16, Mov_rm32_imm32, Mov_rm64_imm32];
const MOVZX_RM8: [Code; 4] = [X, Movzx_r16_rm8, Movzx_r32_rm8, Movzx_r64_rm8];
const MOVZX_RM16: [Code; 4] = [X, X, Movzx_r32_rm16, Movzx_r64_rm16];
const MOVSX_RM8: [Code; 4] = [X, Movsx_r16_rm8, Movsx_r32_rm8, Movsx_r64_rm8];
const MOVSX_RM16: [Code; 4] = [X, X, Movsx_r32_rm16, Movsx_r64_rm16];
const BEXTR: [Code; 4] = [X, X, VEX_Bextr_r32_rm32_r32, VEX_Bextr_r64_rm64_r64];
const LEA: [Code; 4] = [X, Lea_r16_m, Lea_r32_m, Lea_r64_m];
const ADCX: [Code; 4] = [X, X, Adcx_r32_rm32, Adcx_r64_rm64];
const ADOX: [Code; 4] = [X, X, Adox_r32_rm32, Adox_r64_rm64];
const INC: [Code; 4] = [Inc_rm8, Inc_rm16, Inc_rm32, Inc_rm64];
const DEC: [Code; 4] = [Dec_rm8, Dec_rm16, Dec_rm32, Dec_rm64];
const NEG: [Code; 4] = [Neg_rm8, Neg_rm16, Neg_rm32, Neg_rm64];
const NOT: [Code; 4] = [Not_rm8, Not_rm16, Not_rm32, Not_rm64];
const MUL: [Code; 4] = [Mul_rm8, Mul_rm16, Mul_rm32, Mul_rm64];
const IMUL1: [Code; 4] = [Imul_rm8, Imul_rm16, Imul_rm32, Imul_rm64];
const IMUL2: [Code; 4] = [X, Imul_r16_rm16, Imul_r32_rm32, Imul_r64_rm64];
const IMUL3: [Code; 4] = [
    X,
    Imul_r16_rm16_imm16,
    Imul_r32_rm32_imm32,
    Imul_r64_rm64_imm32,
];
const IMUL3_8: [Code; 4] = [
    X,
    Imul_r16_rm16_imm8,
    Imul_r32_rm32_imm8,
    Imul_r64_rm64_imm8,
];
const BT_R: [Code; 4] = [X, Bt_rm16_r16, Bt_rm32_r32, Bt_rm64_r64];
const BT_IMM: [Code; 4] = [X, Bt_rm16_imm8, Bt_rm32_imm8, Bt_rm64_imm8];
const MULX: [Code; 4] = [X, X, VEX_Mulx_r32_r32_rm32, VEX_Mulx_r64_r64_rm64];
const SHLX: [Code; 4] = [X, X, VEX_Shlx_r32_rm32_r32, VEX_Shlx_r64_rm64_r64];
const SHRX: [Code; 4] = [X, X, VEX_Shrx_r32_rm32_r32, VEX_Shrx_r64_rm64_r64];
const SARX: [Code; 4] = [X, X, VEX_Sarx_r32_rm32_r32, VEX_Sarx_r64_rm64_r64];
const BZHI: [Code; 4] = [X, X, VEX_Bzhi_r32_rm32_r32, VEX_Bzhi_r64_rm64_r64];
const ANDN: [Code; 4] = [X, X, VEX_Andn_r32_r32_rm32, VEX_Andn_r64_r64_rm64];
const RORX: [Code; 4] = [X, X, VEX_Rorx_r32_rm32_imm8, VEX_Rorx_r64_rm64_imm8];

/// A shift: by an immediate, by 1, by `cl`.
struct Shift {
    imm: [Code; 4],
    one: [Code; 4],
    cl: [Code; 4],
}
const SHL: Shift = Shift {
    imm: [Shl_rm8_imm8, Shl_rm16_imm8, Shl_rm32_imm8, Shl_rm64_imm8],
    one: [Shl_rm8_1, Shl_rm16_1, Shl_rm32_1, Shl_rm64_1],
    cl: [Shl_rm8_CL, Shl_rm16_CL, Shl_rm32_CL, Shl_rm64_CL],
};
const SHR: Shift = Shift {
    imm: [Shr_rm8_imm8, Shr_rm16_imm8, Shr_rm32_imm8, Shr_rm64_imm8],
    one: [Shr_rm8_1, Shr_rm16_1, Shr_rm32_1, Shr_rm64_1],
    cl: [Shr_rm8_CL, Shr_rm16_CL, Shr_rm32_CL, Shr_rm64_CL],
};
const SAR: Shift = Shift {
    imm: [Sar_rm8_imm8, Sar_rm16_imm8, Sar_rm32_imm8, Sar_rm64_imm8],
    one: [Sar_rm8_1, Sar_rm16_1, Sar_rm32_1, Sar_rm64_1],
    cl: [Sar_rm8_CL, Sar_rm16_CL, Sar_rm32_CL, Sar_rm64_CL],
};
/// Double shifts: `[imm8, cl]`.
const SHLD: [[Code; 4]; 2] = [
    [
        X,
        Shld_rm16_r16_imm8,
        Shld_rm32_r32_imm8,
        Shld_rm64_r64_imm8,
    ],
    [X, Shld_rm16_r16_CL, Shld_rm32_r32_CL, Shld_rm64_r64_CL],
];
const SHRD: [[Code; 4]; 2] = [
    [
        X,
        Shrd_rm16_r16_imm8,
        Shrd_rm32_r32_imm8,
        Shrd_rm64_r64_imm8,
    ],
    [X, Shrd_rm16_r16_CL, Shrd_rm32_r32_CL, Shrd_rm64_r64_CL],
];
const CMOVC: [Code; 4] = [X, Cmovb_r16_rm16, Cmovb_r32_rm32, Cmovb_r64_rm64];
const CMOVNC: [Code; 4] = [X, Cmovae_r16_rm16, Cmovae_r32_rm32, Cmovae_r64_rm64];
const CMOVO: [Code; 4] = [X, Cmovo_r16_rm16, Cmovo_r32_rm32, Cmovo_r64_rm64];
const CMOVNO: [Code; 4] = [X, Cmovno_r16_rm16, Cmovno_r32_rm32, Cmovno_r64_rm64];
const CMOVZ: [Code; 4] = [X, Cmove_r16_rm16, Cmove_r32_rm32, Cmove_r64_rm64];
const CMOVNZ: [Code; 4] = [X, Cmovne_r16_rm16, Cmovne_r32_rm32, Cmovne_r64_rm64];

// ---------------------------------------------------------------------------------------
// The mapping.

/// The iced instruction for `i`: one match on the mnemonic, then on the operand kinds.
fn lower(i: &Inst) -> Res {
    use Mnemonic as Mn;
    use Operand::{Imm, Mem as M, Reg as R};
    let ops = i.operands();
    let vector_width = |o: &Operand| matches!(width(o), Some(Size::B128 | Size::B256));
    if !i.mn.is_vector() && (ops.len() > 3 || ops.iter().any(vector_width)) {
        return Err(FORM);
    }
    match i.mn {
        Mn::Mov => mov(ops),
        Mn::Add => alu(&ADD, ops),
        Mn::Adc => alu(&ADC, ops),
        Mn::Sub => alu(&SUB, ops),
        Mn::Sbb => alu(&SBB, ops),
        Mn::And => alu(&AND, ops),
        Mn::Or => alu(&OR, ops),
        Mn::Xor => alu(&XOR, ops),
        Mn::Cmp => alu(&CMP, ops),
        Mn::Test => match *ops {
            // `test r, m` is `test m, r`: the same instruction, as NASM encodes it.
            [a @ R(_, s), b @ M(m)] if m.size == s => alu(&TEST, &[b, a]),
            _ => alu(&TEST, ops),
        },
        Mn::Movzx => match *ops {
            [R(_, s), ref b] if is_rm(b) => match width(b) {
                Some(Size::B8) => two(&MOVZX_RM8, s, ops),
                Some(Size::B16) => two(&MOVZX_RM16, s, ops),
                _ => Err(FORM),
            },
            _ => Err(FORM),
        },
        Mn::Movsx => match *ops {
            [R(_, s), ref b] if is_rm(b) => match (s, width(b)) {
                (_, Some(Size::B8)) => two(&MOVSX_RM8, s, ops),
                (_, Some(Size::B16)) => two(&MOVSX_RM16, s, ops),
                (Size::B64, Some(Size::B32)) => two(&[Movsxd_r64_rm32; 4], s, ops),
                _ => Err(FORM),
            },
            _ => Err(FORM),
        },
        Mn::Bextr => r_rm_r(&BEXTR, ops),
        Mn::Lea => match *ops {
            [R(_, s), M(_)] => two(&LEA, s, ops),
            _ => Err(FORM),
        },
        Mn::Xchg => match *ops {
            // NASM's choices: `xchg r64, rax` and `xchg rax, r64` as `90+r`; otherwise
            // the first register operand in ModRM.reg.
            [R(a, Size::B64), R(b, Size::B64)] => {
                let (x, y) = if b == Reg::Rax { (a, b) } else { (b, a) };
                let code = if y == Reg::Rax {
                    Xchg_r64_RAX
                } else {
                    Xchg_rm64_r64
                };
                make(code, &[Op::R(reg(x, Size::B64)), Op::R(reg(y, Size::B64))])
            }
            [R(_, Size::B64), M(m)] | [M(m), R(_, Size::B64)] if m.size == Size::B64 => {
                let r = ops.iter().find_map(|o| o.reg()).unwrap_or(Reg::Rax);
                make(Xchg_rm64_r64, &[Op::M(mem(&m)?), Op::R(reg(r, Size::B64))])
            }
            _ => Err(FORM),
        },
        Mn::Adcx => r_rm(&ADCX, ops),
        Mn::Adox => r_rm(&ADOX, ops),
        Mn::Inc => one(&INC, ops),
        Mn::Dec => one(&DEC, ops),
        Mn::Neg => one(&NEG, ops),
        Mn::Not => one(&NOT, ops),
        Mn::Mul => one(&MUL, ops),
        Mn::Imul => match *ops {
            [_] => one(&IMUL1, ops),
            [_, _] => r_rm(&IMUL2, ops),
            [R(a, s), ref b, Imm(v)] if width(b) == Some(s) => {
                let v = imm(s, v)?;
                let (code, kind) = if fits_i8(v) {
                    (IMUL3_8[w(s)], sx8(s))
                } else {
                    (IMUL3[w(s)], full(s))
                };
                make(code, &[Op::R(reg(a, s)), op(b)?, Op::I(v, kind)])
            }
            _ => Err(FORM),
        },
        Mn::Bt => match *ops {
            [ref a, R(_, s)] if width(a) == Some(s) => two(&BT_R, s, ops),
            [ref a, Imm(v)] => match width(a) {
                Some(s) => make(
                    BT_IMM[w(s)],
                    &[op(a)?, Op::I(count(v)?, OpKind::Immediate8)],
                ),
                None => Err(FORM),
            },
            _ => Err(FORM),
        },
        Mn::Mulx => r_r_rm(&MULX, ops),
        Mn::Andn => r_r_rm(&ANDN, ops),
        Mn::Shl => shift(&SHL, ops),
        Mn::Shr => shift(&SHR, ops),
        Mn::Sar => shift(&SAR, ops),
        Mn::Shlx => r_rm_r(&SHLX, ops),
        Mn::Shrx => r_rm_r(&SHRX, ops),
        Mn::Sarx => r_rm_r(&SARX, ops),
        Mn::Bzhi => r_rm_r(&BZHI, ops),
        Mn::Shld => double_shift(&SHLD, ops),
        Mn::Shrd => double_shift(&SHRD, ops),
        Mn::Rorx => match *ops {
            [R(a, s), ref b, Imm(v)] if width(b) == Some(s) => make(
                RORX[w(s)],
                &[
                    Op::R(reg(a, s)),
                    op(b)?,
                    Op::I(count(v)?, OpKind::Immediate8),
                ],
            ),
            _ => Err(FORM),
        },
        Mn::Clc => none(Clc, ops),
        Mn::Stc => none(Stc, ops),
        Mn::Ret => none(Retnq, ops),
        Mn::Endbr64 => none(Endbr64, ops),
        Mn::Setc => setcc(Setb_rm8, ops),
        Mn::Seto => setcc(Seto_rm8, ops),
        Mn::Setz => setcc(Sete_rm8, ops),
        Mn::Setnz => setcc(Setne_rm8, ops),
        Mn::Cmovc => r_rm(&CMOVC, ops),
        Mn::Cmovnc => r_rm(&CMOVNC, ops),
        Mn::Cmovo => r_rm(&CMOVO, ops),
        Mn::Cmovno => r_rm(&CMOVNO, ops),
        Mn::Cmovz => r_rm(&CMOVZ, ops),
        Mn::Cmovnz => r_rm(&CMOVNZ, ops),
        Mn::Push => push_pop(Push_r64, Push_rm64, ops),
        Mn::Pop => push_pop(Pop_r64, Pop_rm64, ops),
        crate::vector_mnemonic!() => vector(i.mn, ops),
    }
}

fn is_rm(o: &Operand) -> bool {
    !matches!(o, Operand::Imm(_))
}

/// All operands as they are, with the code for width `s`.
fn two(t: &[Code; 4], s: Size, ops: &[Operand]) -> Res {
    let mut v = [Op::R(Register::None); 3];
    for (d, o) in v.iter_mut().zip(ops) {
        *d = op(o)?;
    }
    make(t[w(s)], &v[..ops.len()])
}

fn none(code: Code, ops: &[Operand]) -> Res {
    if ops.is_empty() {
        make(code, &[])
    } else {
        Err(FORM)
    }
}

/// `op r/m` of any width the table has.
fn one(t: &[Code; 4], ops: &[Operand]) -> Res {
    match ops {
        [a] => match width(a) {
            Some(s) => two(t, s, ops),
            None => Err(FORM),
        },
        _ => Err(FORM),
    }
}

/// `op r, r/m` of one width.
fn r_rm(t: &[Code; 4], ops: &[Operand]) -> Res {
    match *ops {
        [Operand::Reg(_, s), ref b] if width(b) == Some(s) => two(t, s, ops),
        _ => Err(FORM),
    }
}

/// `op r, r/m, r` of one width (BMI2 shifts, `bzhi`).
/// `r, r, r/m` of one width (`mulx`, `andn`).
fn r_r_rm(t: &[Code; 4], ops: &[Operand]) -> Res {
    match *ops {
        [Operand::Reg(_, s), Operand::Reg(_, u), ref c] if u == s && width(c) == Some(s) => {
            two(t, s, ops)
        }
        _ => Err(FORM),
    }
}

fn r_rm_r(t: &[Code; 4], ops: &[Operand]) -> Res {
    match *ops {
        [Operand::Reg(_, s), ref b, Operand::Reg(_, u)] if width(b) == Some(s) && u == s => {
            two(t, s, ops)
        }
        _ => Err(FORM),
    }
}

fn setcc(code: Code, ops: &[Operand]) -> Res {
    match ops {
        [a] if width(a) == Some(Size::B8) => two(&[code; 4], Size::B8, ops),
        _ => Err(FORM),
    }
}

fn push_pop(r64: Code, rm64: Code, ops: &[Operand]) -> Res {
    match *ops {
        [Operand::Reg(r, Size::B64)] => make(r64, &[Op::R(reg(r, Size::B64))]),
        [Operand::Mem(m)] if m.size == Size::B64 => make(rm64, &[Op::M(mem(&m)?)]),
        _ => Err(FORM),
    }
}

fn alu(t: &Alu, ops: &[Operand]) -> Res {
    use Operand::{Imm, Mem as M, Reg as R};
    match *ops {
        [ref a, R(b, s)] if width(a) == Some(s) => make(t.rm_r[w(s)], &[op(a)?, Op::R(reg(b, s))]),
        [R(a, s), M(m)] if m.size == s => make(t.r_rm[w(s)], &[Op::R(reg(a, s)), Op::M(mem(&m)?)]),
        [ref a, Imm(v)] => {
            let Some(s) = width(a) else {
                return Err(FORM);
            };
            let v = imm(s, v)?;
            let acc = matches!(a, R(Reg::Rax, _));
            if s != Size::B8 && fits_i8(v) && t.rm_imm8[w(s)] != X {
                make(t.rm_imm8[w(s)], &[op(a)?, Op::I(v, sx8(s))])
            } else if acc {
                make(t.acc_imm[w(s)], &[op(a)?, Op::I(v, full(s))])
            } else {
                make(t.rm_imm[w(s)], &[op(a)?, Op::I(v, full(s))])
            }
        }
        _ => Err(FORM),
    }
}

fn mov(ops: &[Operand]) -> Res {
    use Operand::{Imm, Mem as M, Reg as R};
    match *ops {
        [ref a, R(b, s)] if width(a) == Some(s) => {
            make(MOV_RM_R[w(s)], &[op(a)?, Op::R(reg(b, s))])
        }
        [R(a, s), M(m)] if m.size == s => {
            make(MOV_R_RM[w(s)], &[Op::R(reg(a, s)), Op::M(mem(&m)?)])
        }
        [R(a, Size::B64), Imm(v)] => {
            if (0..=u32::MAX as i64).contains(&v) {
                // Writing the 32-bit register zero-extends: the same instruction, shorter.
                make(
                    Mov_r32_imm32,
                    &[Op::R(reg(a, Size::B32)), Op::I(v, OpKind::Immediate32)],
                )
            } else if i32::try_from(v).is_ok() {
                make(
                    Mov_rm64_imm32,
                    &[Op::R(reg(a, Size::B64)), Op::I(v, OpKind::Immediate32to64)],
                )
            } else {
                make(
                    Mov_r64_imm64,
                    &[Op::R(reg(a, Size::B64)), Op::I(v, OpKind::Immediate64)],
                )
            }
        }
        // `mov r8/r16/r32, imm` (B0+r, B8+r): the immediate is as wide as the register.
        [R(a, s), Imm(v)] => make(
            MOV_R_IMM[w(s)],
            &[Op::R(reg(a, s)), Op::I(imm(s, v)?, full(s))],
        ),
        [M(m), Imm(v)] => make(
            MOV_RM_IMM[w(m.size)],
            &[Op::M(mem(&m)?), Op::I(imm(m.size, v)?, full(m.size))],
        ),
        _ => Err(FORM),
    }
}

fn shift(t: &Shift, ops: &[Operand]) -> Res {
    match *ops {
        [ref a, ref c] if is_rm(a) && is_cl(c) => {
            let s = width(a).unwrap_or(Size::B64);
            make(t.cl[w(s)], &[op(a)?, Op::R(Register::CL)])
        }
        [ref a, Operand::Imm(v)] if is_rm(a) => {
            let s = width(a).unwrap_or(Size::B64);
            let v = count(v)?;
            let code = if v == 1 { t.one[w(s)] } else { t.imm[w(s)] };
            make(code, &[op(a)?, Op::I(v, OpKind::Immediate8)])
        }
        _ => Err(FORM),
    }
}

fn double_shift(t: &[[Code; 4]; 2], ops: &[Operand]) -> Res {
    match *ops {
        [ref a, Operand::Reg(b, s), ref c] if width(a) == Some(s) => {
            let b = Op::R(reg(b, s));
            if is_cl(c) {
                make(t[1][w(s)], &[op(a)?, b, Op::R(Register::CL)])
            } else if let Operand::Imm(v) = *c {
                make(
                    t[0][w(s)],
                    &[op(a)?, b, Op::I(count(v)?, OpKind::Immediate8)],
                )
            } else {
                Err(FORM)
            }
        }
        _ => Err(FORM),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inst::Operand as O;

    fn bytes(i: Inst) -> Vec<u8> {
        let mut v = vec![0xcc];
        encode(&[i], &mut v).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(v[0], 0xcc, "appends");
        v.split_off(1)
    }

    #[test]
    fn short_forms() {
        use Mnemonic::*;
        let (rax, rbx, r9) = (O::r64(Reg::Rax), O::r64(Reg::Rbx), O::r64(Reg::R9));
        let table: &[(Inst, &[u8])] = &[
            (Inst::op2(Mov, rax, rbx), &[0x48, 0x89, 0xd8]),
            (Inst::op2(Mov, rax, O::Imm(1)), &[0xb8, 1, 0, 0, 0]),
            (Inst::op2(Mov, r9, O::Imm(5)), &[0x41, 0xb9, 5, 0, 0, 0]),
            (
                Inst::op2(Mov, rax, O::Imm(-1)),
                &[0x48, 0xc7, 0xc0, 0xff, 0xff, 0xff, 0xff],
            ),
            (
                Inst::op2(Mov, rax, O::Imm(1 << 32)),
                &[0x48, 0xb8, 0, 0, 0, 0, 1, 0, 0, 0],
            ),
            (Inst::op2(Add, rax, O::Imm(1)), &[0x48, 0x83, 0xc0, 0x01]),
            (
                Inst::op2(Add, rax, O::Imm(0x1000)),
                &[0x48, 0x05, 0, 0x10, 0, 0],
            ),
            (Inst::op2(Xchg, rbx, rax), &[0x48, 0x93]),
            (Inst::op2(Shl, rax, O::Imm(1)), &[0x48, 0xd1, 0xe0]),
            (Inst::op0(Ret), &[0xc3]),
        ];
        for (i, want) in table {
            assert_eq!(&bytes(*i), want, "{i}");
        }
    }

    #[test]
    fn errors_leave_the_buffer_alone() {
        use Mnemonic::*;
        let mut v = vec![1, 2, 3];
        let bad = [
            Inst::op0(Ret),
            Inst::op2(Add, O::r64(Reg::Rax), O::Imm(1 << 31)),
        ];
        let e = encode(&bad, &mut v).unwrap_err().to_string();
        assert_eq!(v, [1, 2, 3]);
        assert!(e.contains("add rax, 0x80000000"), "{e}");
        assert!(e.contains("immediate out of range"), "{e}");
    }
}
