//! Constant pools (`crate::data`): what gcc and clang print for a vector constant is read
//! in both syntaxes into one [`Program`] with its data; what cannot be read exactly is an
//! error naming the line; the printers write it back so that it reads the same; and
//! [`encode_program`] lays the data out after the code with every rip-relative operand
//! pointing at it, byte for byte as `nasm -f bin` assembles the same text.

mod common;

use std::fmt::Write as _;

use common::have;
use cryptopt_x86::encode::encode_program;
use cryptopt_x86::parse::parse;
use cryptopt_x86::print::{gas, inst_in, nasm};
use cryptopt_x86::{DataId, Datum, Mem, Operand, Program, Size};

/// gcc's AT&T output for 25519's sub (data after the code, `.align` in bytes).
const GCC_ATT: &str = "\t.text
\t.globl\tf
\t.type\tf, @function
f:
.LFB0:
\tvmovdqu\t(%rsi), %ymm0
\tvpaddq\t.LC0(%rip), %ymm0, %ymm0
\tmovq\t.LC0+8(%rip), %rax
\tret
\t.size\tf, .-f
\t.section\t.rodata.cst32,\"aM\",@progbits,32
\t.align 32
.LC0:
\t.quad\t4503599627370458
\t.quad\t4503599627370494
\t.quad\t-1
\t.long\t1
\t.long\t2
\t.section\t.note.GNU-stack,\"\",@progbits
";

/// The same with `-masm=intel` (gcc's `disp[rip]`).
const GCC_INTEL: &str = "\t.intel_syntax noprefix
\t.text
f:
\tvmovdqu\tymm0, YMMWORD PTR [rsi]
\tvpaddq\tymm0, ymm0, YMMWORD PTR .LC0[rip]
\tmov\trax, QWORD PTR .LC0[rip+8]
\tret
\t.section\t.rodata.cst32,\"aM\",@progbits,32
\t.align 32
.LC0:
\t.quad\t4503599627370458
\t.quad\t4503599627370494
\t.quad\t-1
\t.long\t1
\t.long\t2
";

/// clang's Intel output (data before the code, `.p2align` as a power of two).
const CLANG_INTEL: &str = "\t.intel_syntax noprefix
\t.section\t.rodata.cst32,\"aM\",@progbits,32
\t.p2align\t5, 0x0
.LCPI0_0:
\t.quad\t4503599627370458                # 0xfffffffffffda
\t.quad\t4503599627370494
\t.quad\t0xffffffffffffffff
\t.long\t1
\t.long\t2
\t.text
\t.globl\tf
f:
\tvmovdqu\tymm0, ymmword ptr [rsi]
\tvpaddq\tymm0, ymm0, ymmword ptr [rip + .LCPI0_0]
\tmov\trax, qword ptr [rip + .LCPI0_0+8]
\tret
";

/// The program all three are: its data is labelled as each file labels it.
fn expected(label: &str) -> Program {
    let bytes: Vec<u8> = [4503599627370458u64, 4503599627370494, u64::MAX]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .chain([1, 0, 0, 0, 2, 0, 0, 0])
        .collect();
    let text = "f:\n vmovdqu ymm0, yword [rsi]\n ret\n";
    let mut p = parse(text).unwrap().remove(0);
    let c = |disp, size| Mem::constant(DataId(0), disp, size);
    p.insts.insert(
        1,
        cryptopt_x86::Inst::op3(
            cryptopt_x86::Mnemonic::Vpaddq,
            Operand::Vec(cryptopt_x86::VReg(0), Size::B256),
            Operand::Vec(cryptopt_x86::VReg(0), Size::B256),
            Operand::Mem(c(0, Size::B256)),
        ),
    );
    p.insts.insert(
        2,
        cryptopt_x86::Inst::op2(
            cryptopt_x86::Mnemonic::Mov,
            Operand::r64(cryptopt_x86::Reg::Rax),
            Operand::Mem(c(8, Size::B64)),
        ),
    );
    p.data.push(Datum {
        label: label.into(),
        align: 32,
        bytes,
    });
    p
}

#[test]
fn compilers_constant_pools_are_read() {
    for (text, label) in [
        (GCC_ATT, ".LC0"),
        (GCC_INTEL, ".LC0"),
        (CLANG_INTEL, ".LCPI0_0"),
    ] {
        let got = parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(got, vec![expected(label)], "{text}");
    }
}

/// Each program gets the data it uses, numbered by first use; labels are
/// case-sensitive; broadcasts and `vpmovsxbw` read in both syntaxes.
#[test]
fn data_is_attached_per_program() {
    let text = "\t.section .rodata
.LC1:
\t.byte 1, 2
.lc1:
\t.byte 3
.LC2:
\t.quad 7
\t.text
f:
\tmovzbl .lc1(%rip), %eax
\tmovzbl .LC1+1(%rip), %ecx
\tret
g:
\tvpandq .LC2(%rip){1to4}, %ymm1, %ymm0
\tvpmovsxbw .LC1(%rip), %xmm2
\tret
";
    let ps = parse(text).unwrap_or_else(|e| panic!("{e}"));
    let labels = |p: &Program| p.data.iter().map(|d| d.label.clone()).collect::<Vec<_>>();
    assert_eq!(labels(&ps[0]), [".lc1", ".LC1"]);
    assert_eq!(ps[0].data[0].bytes, [3]);
    assert_eq!(labels(&ps[1]), [".LC2", ".LC1"]);
    let intel = ".intel_syntax noprefix
.section .rodata
.LC2:
.quad 7
.LC1:
.byte 1, 2
.text
g:
vpandq ymm0, ymm1, qword ptr [rip + .LC2]{1to4}
vpmovsxbw xmm2, qword ptr [rip + .LC1]
ret
";
    assert_eq!(parse(intel).unwrap()[0], ps[1]);
    let Operand::Mem(m) = ps[1].insts[0].operands()[2] else {
        panic!("a memory operand")
    };
    assert!(m.bcst && m.size == Size::B64 && m.data == Some(DataId(0)));
}

/// What cannot be read exactly is an error naming the line that uses it.
#[test]
fn unreadable_constants_are_errors() {
    let table: &[(&str, &str)] = &[
        (
            "f:\n\tmovq .LC9(%rip), %rax\n\tret\n",
            "line 2: `.LC9` is no data this file defines",
        ),
        (
            "\t.section .rodata\n.LC0:\n\t.quad f\n\t.text\nf:\n\tmovq .LC0(%rip), %rax\n\tret\n",
            "line 6: the data at `.LC0` has the value `f`, which is not a number",
        ),
        (
            "\t.section .rodata\n.LC0:\n\t.ascii \"ab\"\n\t.text\nf:\n\tmovq .LC0(%rip), %rax\n",
            "written with `.ascii`",
        ),
        (
            "\t.section .rodata\n\t.p2align 3\n.LC0:\n\t.byte 1\n\t.p2align 4\n\t.byte 2\n\t.text\nf:\n\tmovq .LC0(%rip), %rax\n",
            "padded by `.p2align 4` beyond its own alignment",
        ),
        ("f:\n\tmovq 8(%rip), %rax\n", "without a symbol"),
        ("f:\n\tmovq table, %rax\n", "an absolute address or a symbol"),
        (".intel_syntax noprefix\nf:\n\tmov rax, qword ptr [table]\n", "an absolute address of `table`"),
        (".intel_syntax noprefix\nf:\n\tmov rax, qword ptr [rip + rbx + .L]\n", "rip-relative with another register"),
        (".intel_syntax noprefix\nf:\n\tvpaddq ymm0, ymm0, ymm1{1to4}\n", "a broadcast of something not in memory"),
        (".intel_syntax noprefix\nf:\n\tvpaddq ymm0, ymm0, qword ptr [rsi]{1to4}\n", "embedded broadcast this instruction does not have"),
    ];
    for (text, want) in table {
        let e = parse(text).map(|_| ()).unwrap_err().to_string();
        assert!(e.contains(want), "{text}\nwant: {want}\ngot:  {e}");
    }
    let e = cryptopt_x86::parse::parse_inst("mov rax, qword [rip + .LC0]").unwrap_err();
    assert!(
        e.to_string().contains("outside a file that defines it"),
        "{e}"
    );
}

/// Printed back (NASM and GNU as), a program with data reads as itself: one constant,
/// and several one after the other, each aligned beyond the size of the one before
/// (the alignment between two constants is the next one's, not padding of the first).
#[test]
fn printed_constants_read_back() {
    let p = expected(".LC0");
    let mut several = p.clone();
    for (k, align) in [(1u8, 32u32), (2, 32), (3, 16)] {
        several.data.push(Datum {
            label: format!(".LC{k}"),
            align,
            bytes: (0..8 * k).collect(),
        });
        let at = several.insts.len() - 1;
        several.insts.insert(
            at,
            cryptopt_x86::Inst::op2(
                cryptopt_x86::Mnemonic::Mov,
                Operand::r64(cryptopt_x86::Reg::Rcx),
                Operand::Mem(Mem::constant(DataId(k), 0, Size::B64)),
            ),
        );
    }
    several.data[0].bytes.truncate(8);
    for prog in [p, several] {
        for text in [nasm(&prog), gas(&prog)] {
            assert_eq!(
                parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}")),
                vec![prog.clone()],
                "{text}"
            );
        }
    }
}

/// `encode_program` against `nasm -f bin` of the same text, data laid out after the
/// code at its alignment, padded with `int3`.
#[test]
fn encoded_constants_match_nasm() {
    if !have("nasm", "encoded_constants_match_nasm") {
        return;
    }
    let mut p = expected(".LC0");
    p.data.push(Datum {
        label: ".LC1".into(),
        align: 8,
        bytes: vec![9, 8, 7],
    });
    let at = p.insts.len() - 1;
    p.insts.insert(
        at,
        cryptopt_x86::Inst::op2(
            cryptopt_x86::Mnemonic::Movzx,
            Operand::r32(cryptopt_x86::Reg::Rcx),
            Operand::Mem(Mem::constant(DataId(1), 2, Size::B8)),
        ),
    );
    let mut src = String::from("BITS 64\nf:\n");
    for i in &p.insts {
        writeln!(src, "    {}", inst_in(i, &p.data)).unwrap();
    }
    for d in &p.data {
        writeln!(src, "align {}, db 0xcc\n{}:", d.align, d.label).unwrap();
        for b in &d.bytes {
            writeln!(src, "    db {b:#x}").unwrap();
        }
    }
    let theirs = common::nasm_bin("encoded_constants_match_nasm", &src);
    let mut ours = Vec::new();
    encode_program(&p, &mut ours).unwrap();
    assert_eq!(ours, theirs, "{src}");
    // Without the program, an instruction that addresses a constant has no encoding.
    let e = cryptopt_x86::encode::encode(&p.insts, &mut Vec::new()).unwrap_err();
    assert!(e.to_string().contains("encode the whole program"), "{e}");
}
