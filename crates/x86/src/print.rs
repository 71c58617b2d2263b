//! Printing programs and instructions as assembly text: NASM, and GNU as in Intel syntax
//! (`.intel_syntax noprefix`).
//!
//! Both are what cryptopt ships (`.asm` and `.S`), so every printed instruction must read
//! back through [`crate::parse`] to the same [`Inst`] and assemble, with `nasm` and with
//! `gcc -c`, to an instruction that means the same as what [`crate::encode`] makes of it
//! (the tests check all three). Printing never fails and never panics: an instruction
//! with no encoding is still printed as written. It never rewrites an instruction either
//! (no alias, no shortening): the text is the `Inst`, operand for operand.
//!
//! Conventions (both syntaxes): lower case, immediates and displacements in hex
//! (`0x1f`, `-0x8`), every memory operand carries its size (`qword [rsi + 0x8]`, GNU as:
//! `qword ptr [...]`) except `lea`'s, a scale is written only when it is not 1 or there is
//! no base (`[rax + rbx*2]`, `[rbx*1]`).

use std::fmt::{self, Write};

use crate::inst::{Datum, Inst, Mem, Mnemonic, Operand, Program, Reg, Size};
use crate::object::{Dialect, Object};

/// The whole program as a NASM source file (`nasm -f elf64`; other formats:
/// [`nasm_for`]).
pub fn nasm(p: &Program) -> String {
    nasm_for(p, &Object::default())
}

/// The whole program as a GNU as source file in Intel syntax, with CFI (`gcc -c`; other
/// formats: [`gas_for`]).
pub fn gas(p: &Program) -> String {
    gas_for(p, &Object::default())
}

/// One instruction in NASM syntax, without indentation: `mov rax, qword [rsi + 0x8]`.
pub fn inst_nasm(i: &Inst) -> String {
    let mut s = String::new();
    let _ = write_inst(&mut s, i, Dialect::Nasm, &[]);
    s
}

/// One instruction of a program in NASM syntax, its constants named by their labels
/// (`vpaddq ymm0, ymm0, yword [rel .LC0]`).
pub fn inst_in(i: &Inst, data: &[Datum]) -> String {
    let mut s = String::new();
    let _ = write_inst(&mut s, i, Dialect::Nasm, data);
    s
}

/// One instruction in GNU as Intel syntax: `mov rax, qword ptr [rsi + 0x8]`.
pub fn inst_gas(i: &Inst) -> String {
    let mut s = String::new();
    let _ = write_inst(&mut s, i, Dialect::Gas, &[]);
    s
}

/// NASM syntax (what error messages show).
impl fmt::Display for Inst {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_inst(f, self, Dialect::Nasm, &[])
    }
}

/// The whole program as a NASM source file for `o`'s format (`nasm -f
/// {o.nasm_format()}`), symbol and visibility.
pub fn nasm_for(p: &Program, o: &Object) -> String {
    let mut s = String::with_capacity(64 + 32 * p.insts.len());
    let _ = write_nasm(&mut s, p, o);
    s
}

/// The whole program as a GNU as source file in Intel syntax for `o`'s format, symbol
/// and visibility, with CFI where the format has it.
pub fn gas_for(p: &Program, o: &Object) -> String {
    let mut s = String::with_capacity(256 + 40 * p.insts.len());
    let _ = write_gas(&mut s, p, o);
    s
}

/// Writes [`nasm_for`]'s text.
fn write_nasm(out: &mut impl Write, p: &Program, o: &Object) -> fmt::Result {
    let sym = o.symbol(p);
    for l in o.header(&sym, Dialect::Nasm) {
        writeln!(out, "{l}")?;
    }
    writeln!(out, "{sym}:")?;
    for i in &p.insts {
        out.write_str("    ")?;
        write_inst(out, i, Dialect::Nasm, &p.data)?;
        out.write_char('\n')?;
    }
    write_data(out, &p.data, Dialect::Nasm, o)?;
    match o.trailer(Dialect::Nasm) {
        Some(t) => writeln!(out, "{t}"),
        None => Ok(()),
    }
}

/// Writes [`gas_for`]'s text.
fn write_gas(out: &mut impl Write, p: &Program, o: &Object) -> fmt::Result {
    let sym = o.symbol(p);
    writeln!(out, ".intel_syntax noprefix")?;
    for l in o.header(&sym, Dialect::Gas) {
        writeln!(out, "{l}")?;
    }
    writeln!(out, "{sym}:")?;
    let cfi = o.cfi();
    if cfi {
        writeln!(out, "    .cfi_startproc")?;
    }
    // Windows unwind data: the prologue's pushes and allocation, then its end.
    let prologue = o.seh().then(|| prologue_len(p));
    if prologue.is_some() {
        writeln!(out, "    .seh_proc {sym}")?;
    }
    for (k, i) in p.insts.iter().enumerate() {
        if prologue == Some(k) {
            writeln!(out, "    .seh_endprologue")?;
        }
        out.write_str("    ")?;
        write_inst(out, i, Dialect::Gas, &p.data)?;
        out.write_char('\n')?;
        if cfi {
            write_cfi(out, i)?;
        }
        if prologue.is_some_and(|n| k < n) {
            write_seh(out, i)?;
        }
    }
    if cfi {
        writeln!(out, "    .cfi_endproc")?;
    }
    if prologue.is_some() {
        writeln!(out, "    .seh_endproc")?;
    }
    for l in o.footer(&sym, Dialect::Gas) {
        writeln!(out, "{l}")?;
    }
    write_data(out, &p.data, Dialect::Gas, o)?;
    match o.trailer(Dialect::Gas) {
        Some(t) => writeln!(out, "{t}"),
        None => Ok(()),
    }
}

/// The call frame bookkeeping after an instruction that moves `rsp` (the CFA is tracked
/// as an offset from `rsp` throughout).
fn write_cfi(out: &mut impl Write, i: &Inst) -> fmt::Result {
    let rsp = Operand::Reg(Reg::Rsp, Size::B64);
    match (i.mn, i.operands()) {
        (Mnemonic::Push, [op]) => {
            writeln!(out, "    .cfi_adjust_cfa_offset 8")?;
            if let Operand::Reg(r, Size::B64) = op {
                writeln!(out, "    .cfi_rel_offset {}, 0", r.name(Size::B64))?;
            }
        }
        (Mnemonic::Pop, [op]) => {
            writeln!(out, "    .cfi_adjust_cfa_offset -8")?;
            if let Operand::Reg(r, Size::B64) = op {
                writeln!(out, "    .cfi_restore {}", r.name(Size::B64))?;
            }
        }
        (Mnemonic::Sub, [d, Operand::Imm(v)]) if *d == rsp => {
            writeln!(out, "    .cfi_adjust_cfa_offset {v}")?;
        }
        (Mnemonic::Add, [d, Operand::Imm(v)]) if *d == rsp => {
            writeln!(out, "    .cfi_adjust_cfa_offset {}", -(*v as i128))?;
        }
        _ => {}
    }
    Ok(())
}

/// How many instructions at the start of `p` are its prologue as Windows unwinds it:
/// `endbr64`, pushes of 64-bit registers, `mov rbp, rsp` (no unwind code: rsp does not
/// move in the body, so the unwinder needs no frame register), `sub rsp, imm`. Code
/// generation makes exactly this shape; anything else ends the prologue.
fn prologue_len(p: &Program) -> usize {
    let rsp = Operand::Reg(Reg::Rsp, Size::B64);
    let rbp = Operand::Reg(Reg::Rbp, Size::B64);
    p.insts
        .iter()
        .take_while(|i| match (i.mn, i.operands()) {
            (Mnemonic::Endbr64, []) | (Mnemonic::Push, [Operand::Reg(_, Size::B64)]) => true,
            (Mnemonic::Mov, [d, s]) => *d == rbp && *s == rsp,
            (Mnemonic::Sub, [d, Operand::Imm(_)]) => *d == rsp,
            _ => false,
        })
        .count()
}

/// The unwind directive after prologue instruction `i`, if it has one.
fn write_seh(out: &mut impl Write, i: &Inst) -> fmt::Result {
    match (i.mn, i.operands()) {
        (Mnemonic::Push, [Operand::Reg(r, _)]) => {
            writeln!(out, "    .seh_pushreg {}", r.name(Size::B64))
        }
        (Mnemonic::Sub, [_, Operand::Imm(v)]) => writeln!(out, "    .seh_stackalloc {v}"),
        _ => Ok(()),
    }
}

/// A program's constants in a read-only data section, under their own labels: 8-byte
/// words as `.quad`/`dq`, the rest as bytes.
fn write_data(out: &mut impl Write, data: &[Datum], syntax: Dialect, o: &Object) -> fmt::Result {
    if data.is_empty() {
        return Ok(());
    }
    let nasm = syntax == Dialect::Nasm;
    writeln!(out, "{}", o.rodata(syntax))?;
    for d in data {
        if nasm {
            writeln!(out, "align {}", d.align.max(1))?;
        } else {
            writeln!(out, ".balign {}", d.align.max(1))?;
        }
        writeln!(out, "{}:", d.label)?;
        let words = d.bytes.chunks_exact(8);
        let rest = words.remainder();
        for w in words {
            let v = u64::from_le_bytes(w.try_into().unwrap_or([0; 8]));
            writeln!(out, "    {} {v:#x}", if nasm { "dq" } else { ".quad" })?;
        }
        for b in rest {
            writeln!(out, "    {} {b:#x}", if nasm { "db" } else { ".byte" })?;
        }
    }
    if nasm {
        writeln!(out, "SECTION .text")
    } else {
        writeln!(out, ".text")
    }
}

/// One instruction; a constant is named by its label in `data` (by its number,
/// `.Ldata0`, where the program is not at hand).
fn write_inst(out: &mut impl Write, i: &Inst, syntax: Dialect, data: &[Datum]) -> fmt::Result {
    out.write_str(i.mn.name())?;
    for (k, op) in i.operands().iter().enumerate() {
        out.write_str(if k == 0 { " " } else { ", " })?;
        match *op {
            Operand::Reg(r, size) => out.write_str(r.name(size))?,
            Operand::Vec(v, size) => out.write_str(v.name(size))?,
            Operand::Imm(v) => write_signed_hex(out, v)?,
            Operand::Mem(m) => {
                if i.mn != Mnemonic::Lea {
                    out.write_str(size_keyword(m.size, syntax))?;
                    out.write_str(if syntax == Dialect::Gas { " ptr " } else { " " })?;
                }
                if let Some(id) = m.data {
                    match data.get(id.index()) {
                        Some(d) => write_constant(out, &d.label, m.disp, syntax)?,
                        None => write_constant(out, &format!(".Ldata{}", id.0), m.disp, syntax)?,
                    }
                } else {
                    write_mem(out, &m)?;
                }
                if let Some(n) = i.broadcast_lanes() {
                    write!(out, "{{1to{n}}}")?;
                }
            }
        }
    }
    Ok(())
}

fn size_keyword(s: Size, syntax: Dialect) -> &'static str {
    match s {
        Size::B128 if syntax == Dialect::Gas => "xmmword",
        Size::B256 if syntax == Dialect::Gas => "ymmword",
        Size::B8 => "byte",
        Size::B16 => "word",
        Size::B32 => "dword",
        Size::B64 => "qword",
        Size::B128 => "oword",
        Size::B256 => "yword",
    }
}

/// `0x1f`, `-0x1`, `0x0` (also right for `i64::MIN`).
fn write_signed_hex(out: &mut impl Write, v: i64) -> fmt::Result {
    if v < 0 {
        write!(out, "-{:#x}", v.unsigned_abs())
    } else {
        write!(out, "{v:#x}")
    }
}

/// `[rel label + disp]` (NASM), `[rip + label + disp]` (GNU as).
fn write_constant(out: &mut impl Write, label: &str, disp: i32, syntax: Dialect) -> fmt::Result {
    let rip = if syntax == Dialect::Nasm {
        "rel "
    } else {
        "rip + "
    };
    write!(out, "[{rip}{label}")?;
    write_disp(out, disp)?;
    out.write_char(']')
}

/// ` + 0x8`, ` - 0x10`, nothing for 0: a displacement after a base or a label.
fn write_disp(out: &mut impl Write, disp: i32) -> fmt::Result {
    if disp != 0 {
        let sign = if disp < 0 { '-' } else { '+' };
        write!(out, " {sign} {:#x}", disp.unsigned_abs())?;
    }
    Ok(())
}

/// `[base + index*scale + disp]`, leaving out what is absent; `[0x0]` when all is.
fn write_mem(out: &mut impl Write, m: &Mem) -> fmt::Result {
    out.write_char('[')?;
    let mut first = true;
    if let Some(b) = m.base {
        out.write_str(b.name(Size::B64))?;
        first = false;
    }
    if let Some(x) = m.index {
        if !first {
            out.write_str(" + ")?;
        }
        out.write_str(x.name(Size::B64))?;
        if m.scale != 1 || m.base.is_none() {
            write!(out, "*{}", m.scale)?;
        }
        first = false;
    }
    if first {
        write_signed_hex(out, m.disp as i64)?;
    } else {
        write_disp(out, m.disp)?;
    }
    out.write_char(']')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_forms() {
        let m = |base, index, scale, disp| Mem {
            base,
            index,
            scale,
            disp,
            ..Mem::ZERO
        };
        let table: &[(Mem, &str)] = &[
            (m(Some(Reg::Rsi), None, 1, 8), "[rsi + 0x8]"),
            (m(Some(Reg::Rsp), None, 1, -8), "[rsp - 0x8]"),
            (m(Some(Reg::Rsp), None, 1, i32::MIN), "[rsp - 0x80000000]"),
            (m(Some(Reg::Rax), Some(Reg::Rbx), 2, 0), "[rax + rbx*2]"),
            (m(Some(Reg::Rax), Some(Reg::Rbx), 1, 0), "[rax + rbx]"),
            (m(None, Some(Reg::Rbx), 1, 0), "[rbx*1]"),
            (m(None, Some(Reg::Rbx), 8, -16), "[rbx*8 - 0x10]"),
            (m(None, None, 1, 0x10), "[0x10]"),
            (m(None, None, 1, -1), "[-0x1]"),
        ];
        for (mem, want) in table {
            let mut s = String::new();
            write_mem(&mut s, mem).unwrap();
            assert_eq!(&s, want);
        }
    }

    #[test]
    fn immediates() {
        for (v, want) in [
            (0, "0x0"),
            (31, "0x1f"),
            (-1, "-0x1"),
            (i64::MIN, "-0x8000000000000000"),
            (i64::MAX, "0x7fffffffffffffff"),
        ] {
            let mut s = String::new();
            write_signed_hex(&mut s, v).unwrap();
            assert_eq!(s, want);
        }
    }
}
