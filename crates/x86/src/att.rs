//! Reading GNU as AT&T syntax, what `gcc -S` and `clang -S` print by default and what
//! most C projects ship: one line at a time, into the same [`Inst`] as Intel syntax
//! ([`crate::parse`] decides which syntax a line is in and handles labels, comments and
//! directives).
//!
//! ```text
//!   addq    %rax, 8(%rsi,%rcx,8)     add qword ptr [rsi + rcx*8 + 8], rax
//!   mulx    %r8, %r14, %r15          mulx r15, r14, r8
//!   movzbl  (%rdi), %eax             movzx eax, byte ptr [rdi]
//!   shrq    %rax                     shr rax, 1
//! ```
//!
//! * operands are source first: they are reversed into Intel order;
//! * registers are `%name`, immediates `$value` (decimal or `0x` hex, signed);
//! * memory is `disp(base, index, scale)` with any part but the parentheses optional;
//! * a size suffix (`b`, `w`, `l`, `q`) on the mnemonic sizes a memory operand that no
//!   register sizes (`movzb*`/`movzw*` and `movsb*`/`movsw*`/`movslq` size their
//!   source); a name that is an instruction
//!   as it stands (`sbb`, `setb`, `mulx`) is never read as one with a suffix.
//!
//! It must never read an operand it cannot place exactly: a `%rip`-relative or absolute
//! address, a symbol, or an indirect `*` operand is an error, not a guess.

use crate::data::Pool;
use crate::error::LineError;
use crate::inst::{Inst, Mem, Mnemonic, Reg, Size, VReg};
use crate::parse::{addr_reg, assemble, mnemonic, number, scale, Parsed};

/// One AT&T instruction, comment and label already removed.
pub(crate) fn parse_line(s: &str, pool: &mut Pool) -> Result<Inst, LineError> {
    let s = s.to_ascii_lowercase();
    let (name, rest) = match s.split_once(char::is_whitespace) {
        Some((n, r)) => (n, r.trim()),
        None => (s.as_str(), ""),
    };
    let (mn, size) = resolve(name).ok_or_else(|| LineError::UnknownInstruction {
        name: name.to_string(),
    })?;
    let mut parsed = Vec::with_capacity(4);
    for text in split_operands(rest)? {
        let op = crate::parse::with_broadcast(text, |t| operand(t, pool));
        parsed.push(op.map_err(|e| LineError::InOperand {
            operand: text.to_string(),
            error: Box::new(e),
        })?);
    }
    if parsed.len() > 4 {
        return Err(LineError::TooManyOperands {
            name: name.to_string(),
        });
    }
    parsed.reverse();
    // `shl %rax` shifts by one.
    if matches!(mn, Mnemonic::Shl | Mnemonic::Shr | Mnemonic::Sar) && parsed.len() == 1 {
        parsed.push(Parsed::Imm(1));
    }
    assemble(mn, name, &parsed, size)
}

/// The instruction a name stands for and the size its suffix gives a memory operand.
fn resolve(name: &str) -> Option<(Mnemonic, Option<Size>)> {
    let movz = match name {
        "movzbw" | "movzbl" | "movzbq" => Some(Size::B8),
        "movzwl" | "movzwq" => Some(Size::B16),
        "movabsq" => return Some((Mnemonic::Mov, Some(Size::B64))),
        _ => None,
    };
    if let Some(src) = movz {
        return Some((Mnemonic::Movzx, Some(src)));
    }
    let movs = match name {
        "movsbw" | "movsbl" | "movsbq" => Some(Size::B8),
        "movswl" | "movswq" => Some(Size::B16),
        "movslq" => Some(Size::B32),
        _ => None,
    };
    if let Some(src) = movs {
        return Some((Mnemonic::Movsx, Some(src)));
    }
    if let Some(mn) = mnemonic(name) {
        return Some((mn, None));
    }
    let size = match name.chars().last()? {
        'b' => Size::B8,
        'w' => Size::B16,
        'l' => Size::B32,
        'q' => Size::B64,
        _ => return None,
    };
    // Vector instructions take no size suffix (`vpandq` is AVX-512's own instruction).
    let mn = mnemonic(&name[..name.len() - 1]).filter(|m| !m.is_vector())?;
    Some((mn, Some(size)))
}

/// The operands, split at the commas outside parentheses.
fn split_operands(rest: &str) -> Result<Vec<&str>, LineError> {
    let mut out = Vec::new();
    if rest.is_empty() {
        return Ok(out);
    }
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in rest.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(rest[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
        if !(0..=1).contains(&depth) {
            return Err(LineError::UnbalancedParentheses);
        }
    }
    if depth != 0 {
        return Err(LineError::UnbalancedParentheses);
    }
    out.push(rest[start..].trim());
    if out.iter().any(|t| t.is_empty()) {
        return Err(LineError::EmptyOperand);
    }
    Ok(out)
}

/// `%reg`, `$imm`, `disp(base, index, scale)` or `symbol+disp(%rip)` (a constant of
/// the file).
fn operand(t: &str, pool: &mut Pool) -> Result<Parsed, LineError> {
    if let Some(r) = t.strip_prefix('%') {
        if let Some((v, s)) = VReg::parse(r) {
            return Ok(Parsed::Vec(v, s));
        }
        return match Reg::parse(r) {
            Some((r, s)) => Ok(Parsed::Reg(r, s)),
            None => Err(LineError::UnknownRegister {
                name: r.to_string(),
            }),
        };
    }
    if let Some(v) = t.strip_prefix('$') {
        return number(v.trim())
            .map(Parsed::Imm)
            .ok_or_else(|| LineError::ImmediateNotANumber {
                value: v.to_string(),
            });
    }
    if t.starts_with('*') {
        return Err(LineError::Indirect);
    }
    if let Some(disp) = t.strip_suffix("(%rip)") {
        // `.LC0+8(%rip)`: the same terms as Intel's `[rip + .LC0 + 8]`.
        let m =
            crate::parse::mem(&format!("rip + {disp}"), pool).map_err(LineError::in_att_syntax)?;
        return Ok(Parsed::Mem(m, None, None));
    }
    if t.contains("%rip") {
        return Err(LineError::AttRipWithRegister);
    }
    let Some(open) = t.find('(') else {
        return Err(LineError::AbsoluteOrSymbol);
    };
    let inner = t[open + 1..]
        .strip_suffix(')')
        .ok_or(LineError::UnterminatedMemory)?;
    let disp = t[..open].trim();
    let disp = if disp.is_empty() {
        0
    } else {
        let v = number(disp).ok_or_else(|| LineError::DisplacementNotANumber {
            disp: disp.to_string(),
        })?;
        i32::try_from(v).map_err(|_| LineError::DisplacementOutOfRange)?
    };
    let parts: Vec<&str> = inner.split(',').map(str::trim).collect();
    let reg = |p: &str| -> Result<Option<Reg>, LineError> {
        if p.is_empty() {
            return Ok(None);
        }
        match p.strip_prefix('%').map(addr_reg).transpose()?.flatten() {
            Some(r) => Ok(Some(r)),
            None => Err(LineError::NotAddressRegister {
                register: p.to_string(),
            }),
        }
    };
    let (base, index, scale) = match parts.as_slice() {
        [b] => (reg(b)?, None, 1),
        [b, x] => (reg(b)?, reg(x)?, 1),
        [b, x, k] => (reg(b)?, reg(x)?, scale(k)?),
        _ => return Err(LineError::TooManyParts),
    };
    if base.is_none() && index.is_none() {
        return Err(LineError::NoRegister);
    }
    Ok(Parsed::Mem(
        Mem {
            base,
            index,
            scale,
            disp,
            ..Mem::ZERO
        },
        None,
        None,
    ))
}

#[cfg(test)]
mod tests {
    use crate::parse::{parse_inst, parse_with, Syntax};

    /// Each AT&T line reads as the Intel line beside it.
    #[test]
    fn att_reads_as_intel() {
        let table = [
            (
                "addq %rax, 8(%rsi,%rcx,8)",
                "add qword ptr [rsi + rcx*8 + 8], rax",
            ),
            ("mulx %r8, %r14, %r15", "mulx r15, r14, r8"),
            (
                "mulxq -16(%rsp), %rax, %rdx",
                "mulx rdx, rax, qword ptr [rsp - 16]",
            ),
            ("movzbl (%rdi), %eax", "movzx eax, byte ptr [rdi]"),
            ("movzbl %al, %eax", "movzx eax, al"),
            ("shrq %rax", "shr rax, 1"),
            ("shrdq $51, %rax, %rbx", "shrd rbx, rax, 51"),
            ("imulq $19, %rax, %rbx", "imul rbx, rax, 19"),
            ("movabsq $-4294967295, %rax", "mov rax, -4294967295"),
            ("xorl %r13d, %r13d", "xor r13d, r13d"),
            ("sbbq $0, %rax", "sbb rax, 0"),
            ("adcb $0, (%rdi)", "adc byte ptr [rdi], 0"),
            ("setb %al", "setc al"),
            ("cmovbq %rcx, %rax", "cmovc rax, rcx"),
            ("salq $3, %rax", "shl rax, 3"),
            ("leaq (%rax,%rax,2), %rcx", "lea rcx, [rax + rax*2]"),
            ("movq %rbx, -120(%rsp)", "mov qword ptr [rsp - 120], rbx"),
            ("pushq %r15", "push r15"),
            ("retq", "ret"),
            ("adcx %rax, %rbx", "adcx rbx, rax"),
            ("andnq %rdi, %r14, %rbx", "andn rbx, r14, rdi"),
            ("movsbq %r15b, %rbx", "movsx rbx, r15b"),
            ("movslq (%rsi), %rax", "movsx rax, dword ptr [rsi]"),
            ("movswl 2(%rdi), %eax", "movsx eax, word ptr [rdi + 2]"),
            ("bextrq %rax, %r9, %rdx", "bextr rdx, r9, rax"),
            ("vmovq %rdi, %xmm0", "vmovq xmm0, rdi"),
            ("vmovq -8(%rsp), %xmm3", "vmovq xmm3, qword ptr [rsp - 8]"),
            ("vmovdqu %ymm0, (%rax)", "vmovdqu ymmword ptr [rax], ymm0"),
            (
                "vpinsrq $1, %rax, %xmm0, %xmm0",
                "vpinsrq xmm0, xmm0, rax, 1",
            ),
            (
                "vinserti128 $0x1, %xmm1, %ymm0, %ymm0",
                "vinserti128 ymm0, ymm0, xmm1, 1",
            ),
            (
                "vpsubq (%rdx), %ymm1, %ymm0",
                "vpsubq ymm0, ymm1, ymmword ptr [rdx]",
            ),
            ("vzeroupper", "vzeroupper"),
            (
                "movdqu 16(%rsi), %xmm0",
                "movdqu xmm0, xmmword ptr [rsi + 16]",
            ),
            ("movups %xmm0, (%rdi)", "movups xmmword ptr [rdi], xmm0"),
            ("psubq %xmm1, %xmm0", "psubq xmm0, xmm1"),
            ("paddq (%rdx), %xmm2", "paddq xmm2, xmmword ptr [rdx]"),
            ("xorps %xmm0, %xmm0", "xorps xmm0, xmm0"),
            (
                "vmovups %ymm0, 32(%rsp)",
                "vmovups ymmword ptr [rsp + 32], ymm0",
            ),
        ];
        for (att, intel) in table {
            let got = parse_with(att, Syntax::Att).map(|p| p[0].insts[0]);
            assert_eq!(got.ok(), parse_inst(intel).ok(), "{att}");
        }
    }

    /// What it must refuse, with the part it names.
    #[test]
    fn att_refuses_what_it_cannot_place() {
        let table = [
            ("movq foo(%rip), %rax", "`foo` is no data this file defines"),
            (
                "movq 8(%rip), %rax",
                "%rip-relative address without a symbol",
            ),
            (
                "movq .LC0(%rip,%rax), %rax",
                "%rip-relative address with a register",
            ),
            ("movq 16, %rax", "absolute address"),
            ("jmp *%rax", "unknown instruction"),
            ("movq %xmm0, %rax", "unsupported operand form"),
            ("movq %zmm0, %rax", "unknown register"),
            ("addq $x, %rax", "not a number"),
            ("movq (%eax), %rax", "64-bit address register"),
            ("movq (%rax,%rcx,3), %rax", "scale"),
            (
                "vpandq (%rsi){1to3}, %ymm0, %ymm0",
                "`{1to3}` does not fill",
            ),
            (
                "vpandq (%rsi){1to4}, %xmm0, %xmm0",
                "`{1to4}` does not fill",
            ),
            ("addq %rax, 8(%rsi", "unbalanced"),
            ("movq (), %rax", "without a register"),
        ];
        for (att, want) in table {
            let err = parse_with(att, Syntax::Att).unwrap_err().to_string();
            assert!(err.contains(want), "{att}: {err}");
        }
    }

    /// The syntax is decided per line: directives switch it, `%` and `$` mark AT&T.
    #[test]
    fn syntax_is_told_by_the_file() {
        let att = "f:\n\tmovq (%rsi), %rax\n\tret\n";
        let intel = "f:\n\tmov rax, qword ptr [rsi]\n\tret\n";
        let switched = ".intel_syntax noprefix\nf:\n mov rax, qword ptr [rsi]\n.att_syntax\n ret\n";
        let a = parse_with(att, Syntax::Auto).unwrap();
        assert_eq!(a, parse_with(intel, Syntax::Auto).unwrap());
        assert_eq!(a, parse_with(switched, Syntax::Auto).unwrap());
        assert!(parse_with(att, Syntax::Intel).is_err());
        assert!(parse_with(intel, Syntax::Att).is_err());
    }
}
