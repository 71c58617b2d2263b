//! Printing and parsing agree: `parse(print(p)) == p` in both syntaxes, on a table of
//! hand-written lines covering every mnemonic and operand form, and on random valid
//! instructions.

mod common;

use cryptopt_x86::parse::{parse, parse_inst};
use cryptopt_x86::print::{gas, inst_gas, inst_nasm, nasm};
use cryptopt_x86::{encode, Inst, Mnemonic, Program};
use proptest::prelude::*;

/// The GNU as spelling of a canonical NASM line: `ptr` after each size keyword, and
/// GNU's names of the vector sizes (`oword` is `xmmword`, `yword` `ymmword`).
fn nasm_to_gas(line: &str) -> String {
    let mut s = line.to_string();
    for (kw, gas) in [
        ("byte", "byte"),
        ("word", "word"),
        ("dword", "dword"),
        ("qword", "qword"),
        ("oword", "xmmword"),
        ("yword", "ymmword"),
    ] {
        s = s.replace(&format!(" {kw} ["), &format!(" {gas} ptr ["));
    }
    s
}

/// Reads `input`, checks it prints as `canonical` in NASM (and as its `ptr` spelling in
/// GNU as), that both printed forms read back to the same instruction, and that it
/// encodes.
fn check(input: &str, canonical: &str) {
    let i = parse_inst(input).unwrap_or_else(|e| panic!("{input}: {e}"));
    assert_eq!(inst_nasm(&i), canonical, "NASM printing of `{input}`");
    let g = inst_gas(&i);
    assert_eq!(g, nasm_to_gas(canonical), "GNU as printing of `{input}`");
    for text in [canonical.to_string(), g] {
        let back = parse_inst(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(back, i, "`{text}` read back");
    }
    let mut bytes = Vec::new();
    encode::encode(&[i], &mut bytes).unwrap_or_else(|e| panic!("{e}"));
}

/// Canonical lines: they print as they are written.
#[rustfmt::skip]
const CANONICAL: &[&str] = &[
    // mov, all widths and forms
    "mov rax, qword [rsi + 0x8]", "mov qword [rdi + 0x10], rax", "mov rax, rbx",
    "mov rax, 0x1", "mov rax, -0x1", "mov rax, 0xffffffff", "mov rax, 0x100000000",
    "mov r15, -0x8000000000000000", "mov qword [rsp - 0x8], 0x7fffffff",
    "mov qword [rsp], -0x80000000", "mov eax, dword [rsi]", "mov dword [rsi], r8d",
    "mov r9d, 0xffffffff", "mov dword [rdi + rcx*4], -0x1", "mov byte [rdi + 0x1f], al",
    "mov sil, byte [rdx]", "mov r8b, dil", "mov al, 0xff", "mov byte [rax], -0x80",
    "mov ax, word [rbx]", "mov word [rbx], r11w", "mov cx, 0x7fff", "mov word [rbx], 0xffff",
    // movzx, lea, xchg
    "movzx eax, byte [rsi + 0x3]", "movzx rax, byte [rsi]", "movzx r10d, bpl",
    "movzx r10, spl", "movzx cx, byte [r12]", "movzx eax, word [rsi]", "movzx rdx, r9w",
    "lea rax, [rax + rbx*2]", "lea rax, [rsp - 0x8]", "lea r13, [r13 + r12*8 + 0x7fffffff]",
    "lea rax, [rbx*1]", "lea rax, [rbx*2 + 0x1]", "lea eax, [rdi + rsi]", "lea rax, [0x10]",
    "lea rcx, [rbp]", "lea rcx, [r13 - 0x80000000]",
    "xchg rax, rbx", "xchg rbx, rax", "xchg r8, r9", "xchg rax, rax", "xchg qword [rsp], rbx",
    "xchg rdx, qword [rdi + 0x8]",
    // the ALU, with accumulator and imm8 forms
    "add rax, rbx", "add qword [rdi], rax", "add rax, qword [rdi + 0x8]", "add rax, 0x1",
    "add rax, 0x80", "add rbx, -0x80000000", "add qword [rsp + 0x8], 0x7f",
    "adc r8, r9", "adc rdx, 0x0", "adc al, 0x1", "sub rsp, 0x18", "sub eax, 0xffffffff",
    "sbb rax, rax", "sbb cl, byte [rsi]", "and rax, 0x7fffffff", "and r10, -0x1",
    "or ax, 0x100", "or word [rax], bx", "xor eax, eax", "xor r12d, dword [r12]",
    "cmp rax, qword [rsi]", "cmp byte [rdi], 0xff", "cmp spl, 0x1",
    "test rax, rbx", "test qword [rsi], rax", "test rax, qword [rsi]", "test rax, 0xff",
    "test al, 0x1", "test r9b, 0x80", "test dword [rdi], 0x1000",
    "adcx rax, rbx", "adcx r8, qword [rsi + 0x18]", "adox r9, r10", "adox rax, qword [rsp]",
    "adcx eax, ecx", "adox r8d, dword [rsi]",
    // one-operand
    "inc rax", "inc qword [rdi]", "dec r15d", "dec byte [rsi]", "neg rdx", "neg word [rax]",
    "not rax", "not byte [rsp + 0x7]", "mul rdx", "mul qword [rsi + 0x8]", "mul ecx",
    "mul byte [rdi]", "imul rbx", "imul qword [rsi]",
    // imul, bt, mulx
    "imul rax, rbx", "imul rax, qword [rsi]", "imul rax, rbx, 0x5", "imul rax, rbx, -0x80000000",
    "imul r8, qword [rsi + 0x8], 0x13", "imul ecx, edx, 0xffffffff", "imul cx, dx, 0x1000",
    "bt rax, rbx", "bt qword [rsi], rcx", "bt rax, 0x3f", "bt dword [rdi], 0xff",
    "mulx r8, r9, qword [rsi]", "mulx rax, rbx, rdx", "mulx r8d, r9d, dword [rsi]",
    // shifts
    "shl rax, 0x1", "shl rax, 0x3f", "shl qword [rdi], 0x4", "shl rax, cl",
    "shl byte [rdi], cl", "shr r8, 0x33", "shr eax, 0x1f", "shr word [rax], cl",
    "sar rax, 0x3f", "sar r9b, 0x1", "sar qword [rsp], cl",
    "shlx rax, rbx, rcx", "shlx rax, qword [rsi], rcx", "shrx r8, r9, r10", "sarx eax, ebx, ecx",
    "shld rax, rbx, 0xd", "shld qword [rdi], rax, cl", "shrd rax, rbx, 0x33", "shrd rax, rbx, cl",
    "shrd qword [rsi + 0x8], r8, 0x1", "shld ax, bx, 0x3",
    "rorx rax, rbx, 0x3", "rorx r8, qword [rsi], 0x3f", "rorx eax, ebx, 0x1f",
    "bzhi rax, rbx, rcx", "bzhi rax, qword [rsi], rcx", "bzhi r8d, r9d, r10d",
    "andn rax, rbx, rcx", "andn rax, rbx, qword [rsi + 0x8]", "andn r8d, r9d, r10d",
    // flags, set, cmov
    "clc", "stc", "setc al", "setc byte [rdi]", "seto r8b", "setz sil", "setnz byte [rsp - 0x1]",
    "cmovc rax, rbx", "cmovc rax, qword [rsi]", "cmovnc r8, r9", "cmovo rax, rbx",
    "cmovno eax, ebx", "cmovz rax, qword [rsp + 0x10]", "cmovnz cx, dx",
    // stack and return
    "push rbx", "push r15", "push qword [rsi]", "pop rbp", "pop r12", "pop qword [rdi]", "ret", "endbr64",
    // sign extension and bit fields
    "movsx rax, byte [rsi]", "movsx rbx, r15b", "movsx eax, word [rdi]", "movsx rax, ecx",
    "bextr rax, rbx, rcx", "bextr r8d, dword [rsi], r9d",
    // AVX2, as compilers use it
    "vmovq xmm0, rdi", "vmovq rax, xmm15", "vmovq xmm3, qword [rsp - 0x10]",
    "vmovq qword [rdi], xmm1", "vmovq xmm1, xmm2",
    "vmovdqu yword [rdi], ymm0", "vmovdqu ymm1, yword [rsi + 0x20]", "vmovdqu xmm2, xmm3",
    "vmovdqu oword [rsp - 0x20], xmm4", "vmovdqa ymm0, ymm1", "vmovdqa xmm5, oword [rsp]",
    "vpinsrq xmm0, xmm0, rax, 0x1", "vpinsrq xmm1, xmm2, qword [rsp - 0x8], 0x1",
    "vpextrq rax, xmm0, 0x1", "vinserti128 ymm0, ymm0, xmm1, 0x1",
    "vinserti128 ymm0, ymm1, oword [rsi], 0x1", "vextracti128 xmm0, ymm1, 0x1",
    "vpbroadcastq ymm0, xmm1", "vpbroadcastq xmm0, qword [rsi]",
    "vpunpcklqdq xmm0, xmm1, xmm2", "vpand ymm0, ymm1, ymm2", "vpor xmm0, xmm1, oword [rsi]",
    "vpxor ymm3, ymm3, ymm3", "vpaddq ymm0, ymm0, yword [rsi]", "vpsubq ymm0, ymm1, yword [rdx]",
    "vpmovsxbw ymm0, oword [rsi]", "vpmovsxbw xmm1, xmm2", "vpandq ymm0, ymm1, ymm2",
    "vpandq ymm0, ymm1, qword [rsi]{1to4}", "vpandq xmm0, xmm1, qword [rsi + 0x8]{1to2}",
    "vzeroupper",
    // vector code generation's lane arithmetic
    "vpsrlq ymm0, ymm1, 0x33", "vpsllq xmm2, xmm3, 0x1", "vpermq ymm0, ymm1, 0xb1",
    "vpermq ymm2, yword [rsi], 0x44", "vpblendd ymm0, ymm1, ymm2, 0xcc",
    "vpblendd ymm0, ymm1, yword [rsp + 0x20], 0x3", "vpmullq ymm0, ymm1, ymm2",
    "vpmullq ymm3, ymm4, yword [rsi]", "vpmadd52luq ymm0, ymm1, ymm2",
    "vpmadd52huq ymm15, ymm14, yword [rsp - 0x40]", "vpmadd52luq xmm0, xmm1, xmm2",
    // SSE2, as compilers use it without -march
    "movdqu xmm0, oword [rsi + 0x10]", "movdqu oword [rdi], xmm1", "movdqa xmm2, xmm3",
    "movups xmm4, oword [rsi]", "movups oword [rdi + 0x10], xmm5", "movaps xmm6, xmm7",
    "paddq xmm0, xmm1", "psubq xmm2, oword [rdx]", "pand xmm8, xmm9", "por xmm10, xmm11",
    "pxor xmm12, oword [rsp - 0x10]", "punpcklqdq xmm13, xmm14", "xorps xmm15, xmm15",
    "vxorps ymm0, ymm1, ymm2", "vxorps xmm3, xmm3, oword [rsi]", "vmovups yword [rdi], ymm0",
    "vmovups xmm1, oword [rsi + 0x8]",
];

/// Lines in other spellings: (input, canonical NASM).
#[rustfmt::skip]
const RESPELLED: &[(&str, &str)] = &[
    ("MOV RAX, QWORD PTR [RSI+8]", "mov rax, qword [rsi + 0x8]"),
    ("mov rax, [rsi+8]", "mov rax, qword [rsi + 0x8]"),
    ("mov [rdi], al", "mov byte [rdi], al"),
    ("movzx eax, [rsi+3]", "movzx eax, byte [rsi + 0x3]"),
    ("movabs rax, 0x123456789", "mov rax, 0x123456789"),
    ("mov rax, 0xffffffffffffffff", "mov rax, -0x1"),
    ("mov rax, 1fh", "mov rax, 0x1f"),
    ("mov rax, 0ffffh", "mov rax, 0xffff"),
    ("mov rax, 31", "mov rax, 0x1f"),
    ("mov rax, -1", "mov rax, -0x1"),
    ("mov rax, qword [rsp-8]", "mov rax, qword [rsp - 0x8]"),
    ("mov rax, qword [rsp + -8]", "mov rax, qword [rsp - 0x8]"),
    ("mov rax, qword [8 + rsp]", "mov rax, qword [rsp + 0x8]"),
    ("mov rax, qword [rsi + 4 + 4]", "mov rax, qword [rsi + 0x8]"),
    ("mov rax, qword [rsi + 0]", "mov rax, qword [rsi]"),
    ("lea rax, [rax + 2*rbx]", "lea rax, [rax + rbx*2]"),
    ("lea rax, [rbx*8 + rax]", "lea rax, [rax + rbx*8]"),
    ("lea rax, [rax + rbx*1]", "lea rax, [rax + rbx]"),
    ("lea rax, qword ptr [rax]", "lea rax, [rax]"),
    ("lea rax, dword [rax]", "lea rax, [rax]"),
    ("mov rax, qword ptr[rsi]", "mov rax, qword [rsi]"),
    ("cmovb rax, rbx", "cmovc rax, rbx"),
    ("cmovnae rax, rbx", "cmovc rax, rbx"),
    ("cmovae rax, rbx", "cmovnc rax, rbx"),
    ("cmovnb rax, rbx", "cmovnc rax, rbx"),
    ("cmove rax, rbx", "cmovz rax, rbx"),
    ("cmovne rax, rbx", "cmovnz rax, rbx"),
    ("setb al", "setc al"),
    ("setnae al", "setc al"),
    ("sete al", "setz al"),
    ("setne al", "setnz al"),
    ("sal rax, 3", "shl rax, 0x3"),
    ("shl qword [rdi], cl", "shl qword [rdi], cl"),
    ("shld [rdi], rax, cl", "shld qword [rdi], rax, cl"),
    ("add [rdi], rax", "add qword [rdi], rax"),
    ("push [rsi]", "push qword [rsi]"),
    ("setc [rdi]", "setc byte [rdi]"),
    ("movsxd rax, dword [rsi]", "movsx rax, dword [rsi]"),
    ("vmovdqu YMMWORD PTR [rax], ymm0", "vmovdqu yword [rax], ymm0"),
    ("vmovdqu xmm0, XMMWORD PTR 16[rsi]", "vmovdqu xmm0, oword [rsi + 0x10]"),
    ("vmovq xmm0, [rsi]", "vmovq xmm0, qword [rsi]"),
    ("vpinsrq xmm0, xmm0, [rsp-8], 1", "vpinsrq xmm0, xmm0, qword [rsp - 0x8], 0x1"),
    ("vinserti128 ymm0, ymm0, [rsi], 1", "vinserti128 ymm0, ymm0, oword [rsi], 0x1"),
    ("ret ; done", "ret"),
    ("  ret   # done", "ret"),
    ("ret // done", "ret"),
    ("mulx r8,r9,[rsi]", "mulx r8, r9, qword [rsi]"),
];

#[test]
fn canonical_lines() {
    for line in CANONICAL {
        check(line, line);
    }
    // Every mnemonic is in the table.
    for mn in Mnemonic::ALL {
        assert!(
            CANONICAL
                .iter()
                .any(|l| l.split(' ').next() == Some(mn.name())),
            "{mn} missing from the table"
        );
    }
}

#[test]
fn respelled_lines() {
    for (input, canonical) in RESPELLED {
        check(input, canonical);
    }
}

#[test]
fn every_form_of_the_table_round_trips() {
    let insts = common::sample_every_form(4);
    let p = Program::new("f", insts);
    for text in [nasm(&p), gas(&p)] {
        let back = parse(&text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(back, vec![p.clone()]);
    }
}

#[test]
fn files_with_several_functions_and_directives() {
    let nasm_file = "\
; generated
default rel
section .text
global f
global g:function
f:
    mov rax, qword [rsi + 8] ; load
    ret

[bits 64]
g:  add rax, rbx
    ret
SECTION .note.GNU-stack noalloc noexec nowrite progbits
";
    let gas_file = "\
    .intel_syntax noprefix
    .text
    .globl f
    .hidden f
    .type f, @function
    .p2align 4, 0x90
f:                                      # @f
    .cfi_startproc
    mov rax, qword ptr [rsi + 8]
    ret
.Lfunc_end0:
    .size f, .Lfunc_end0-f
    .cfi_endproc
    .globl g
g:
    add rax, rbx // sum
    ret
    .section .note.GNU-stack,\"\",@progbits
    .ident \"clang version 18: x\"
";
    let f = Program::new(
        "f",
        vec![
            parse_inst("mov rax, qword [rsi + 0x8]").unwrap(),
            Inst::op0(Mnemonic::Ret),
        ],
    );
    let g = Program::new(
        "g",
        vec![
            parse_inst("add rax, rbx").unwrap(),
            Inst::op0(Mnemonic::Ret),
        ],
    );
    for file in [nasm_file, gas_file] {
        assert_eq!(parse(file).unwrap(), vec![f.clone(), g.clone()], "{file}");
    }
    // Our own output, both syntaxes, one and several functions per file.
    for p in [&f, &g] {
        assert_eq!(parse(&nasm(p)).unwrap(), vec![p.clone()]);
        assert_eq!(parse(&gas(p)).unwrap(), vec![p.clone()]);
    }
    let both = format!("{}{}", gas(&f), gas(&g));
    assert_eq!(parse(&both).unwrap(), vec![f, g]);
}

#[test]
fn printed_files() {
    let p = Program::new(
        "fiat_p256_mul",
        vec![
            parse_inst("push rbx").unwrap(),
            parse_inst("sub rsp, 0x10").unwrap(),
            parse_inst("mov rax, qword [rsi + 0x8]").unwrap(),
            parse_inst("mulx r8, r9, qword [rsi]").unwrap(),
            parse_inst("add rsp, 0x10").unwrap(),
            parse_inst("pop rbx").unwrap(),
            parse_inst("ret").unwrap(),
        ],
    );
    assert_eq!(
        nasm(&p),
        "\
SECTION .text
GLOBAL fiat_p256_mul:function
fiat_p256_mul:
    push rbx
    sub rsp, 0x10
    mov rax, qword [rsi + 0x8]
    mulx r8, r9, qword [rsi]
    add rsp, 0x10
    pop rbx
    ret
SECTION .note.GNU-stack noalloc noexec nowrite progbits
"
    );
    assert_eq!(
        gas(&p),
        "\
.intel_syntax noprefix
.text
.globl fiat_p256_mul
.type fiat_p256_mul, @function
.p2align 4
fiat_p256_mul:
    .cfi_startproc
    push rbx
    .cfi_adjust_cfa_offset 8
    .cfi_rel_offset rbx, 0
    sub rsp, 0x10
    .cfi_adjust_cfa_offset 16
    mov rax, qword ptr [rsi + 0x8]
    mulx r8, r9, qword ptr [rsi]
    add rsp, 0x10
    .cfi_adjust_cfa_offset -16
    pop rbx
    .cfi_adjust_cfa_offset -8
    .cfi_restore rbx
    ret
    .cfi_endproc
.size fiat_p256_mul, .-fiat_p256_mul
.section .note.GNU-stack,\"\",@progbits
"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Random valid instructions: print, parse back, same instruction, in both syntaxes;
    /// and every one of them encodes.
    #[test]
    fn print_parse_round_trip(insts in prop::collection::vec(common::inst(), 1..8)) {
        let p = Program::new("f", insts);
        for i in &p.insts {
            prop_assert_eq!(parse_inst(&inst_nasm(i)).map_err(|e| e.to_string()), Ok(*i));
            prop_assert_eq!(parse_inst(&inst_gas(i)).map_err(|e| e.to_string()), Ok(*i));
        }
        prop_assert_eq!(parse(&nasm(&p)).map_err(|e| e.to_string()), Ok(vec![p.clone()]));
        prop_assert_eq!(parse(&gas(&p)).map_err(|e| e.to_string()), Ok(vec![p.clone()]));
        let mut bytes = Vec::new();
        prop_assert!(encode::encode(&p.insts, &mut bytes).is_ok());
    }
}
