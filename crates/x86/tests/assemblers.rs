//! Our output against independent assemblers: the machine code of every operand form
//! against `nasm -f bin`, and the printed files through `nasm -f elf64` and `gcc -c`.
//! Without nasm (or gcc) a test prints `SKIPPED ...` and passes; CI installs both.

mod common;

use std::fmt::Write as _;
use std::process::Command;

use common::{have, run, TempDir};
use cryptopt_x86::encode::Assembler;
use cryptopt_x86::parse::parse_inst;
use cryptopt_x86::print::{gas, inst_nasm, nasm};
use cryptopt_x86::{Inst, Program};
use iced_x86::{Decoder, DecoderOptions, Instruction, OpKind};

/// Edge cases the random forms may miss: special bases, index-only addresses (which
/// NASM rewrites: `[x*1]` is `[x]`, `[x*2]` is `[x + x]`), `rsp` as an index, immediate
/// boundaries, the short forms.
#[rustfmt::skip]
const EDGES: &[&str] = &[
    "mov rax, qword [rsp]", "mov rax, qword [r12]", "mov rax, qword [rbp]", "mov rax, qword [r13]",
    "mov rax, qword [rbp + rax]", "mov rax, qword [r13 + r12*8]", "mov rax, qword [rsp + rbp*2]",
    "mov rax, qword [rbx*1]", "mov rax, qword [rbx*2]", "mov rax, qword [rbx*4]",
    "mov rax, qword [rbx*2 + 0x8]", "mov rax, qword [r13*1 - 0x8]", "lea rax, [rax + rsp]",
    "lea rax, [r12*2]", "mov rax, qword [0x10]", "mov rax, qword [-0x10]",
    "lea rax, [rax + 0x7f]", "lea rax, [rax + 0x80]", "lea rax, [rax - 0x80]", "lea rax, [rax - 0x81]",
    "mov rax, 0x0", "mov rax, 0x7fffffff", "mov rax, 0x80000000", "mov rax, 0xffffffff",
    "mov rax, 0x100000000", "mov rax, -0x1", "mov rax, -0x80000000", "mov rax, -0x80000001",
    "mov r15, 0x1", "mov r15, -0x1", "mov r15, 0x7fffffffffffffff",
    "add rax, 0x7f", "add rax, 0x80", "add rax, -0x80", "add rax, -0x81", "add eax, 0xffffffff",
    "add eax, 0xffffff80", "add ax, 0xffff", "add al, 0xff", "add bl, 0x1", "add r8b, 0x80",
    "adc rax, 0x1000", "sub rax, 0x1000", "sbb rax, 0x1000", "and rax, 0x1000", "or rax, 0x1000",
    "xor rax, 0x1000", "cmp rax, 0x1000", "test rax, 0x1000", "test eax, 0x1", "test ax, 0x1",
    "test rax, qword [rsi]", "test spl, spl", "test sil, 0x1",
    "imul rax, rax, 0x7f", "imul rax, rax, 0x80", "imul eax, eax, 0xffffffff",
    "shl rax, 0x1", "shl rax, 0x0", "shl rax, 0xff", "sar byte [rdi], 0x1", "shr word [rdi], 0x1",
    "xchg rax, rbx", "xchg rbx, rax", "xchg rax, rax", "xchg r8, rax", "xchg rbx, rcx",
    "xchg rbx, qword [rsi]", "xchg qword [rsi], rbx",
    "mov spl, bpl", "mov sil, dil", "setc spl", "movzx eax, sil", "movzx rax, dil",
    "bt rax, 0x40", "rorx rax, rbx, 0xff", "push rsp", "pop rsp", "push r12", "pop r13",
];

fn edges() -> Vec<Inst> {
    EDGES
        .iter()
        .map(|l| parse_inst(l).unwrap_or_else(|e| panic!("{e}")))
        .collect()
}

fn hex(b: &[u8]) -> String {
    b.iter().fold(String::new(), |mut s, x| {
        let _ = write!(s, "{x:02x}");
        s
    })
}

/// Decodes a flat run of 64-bit code into instructions.
fn decode(code: &[u8]) -> Vec<Instruction> {
    let mut d = Decoder::new(64, code, DecoderOptions::NONE);
    let mut v = Vec::new();
    while d.can_decode() {
        v.push(d.decode());
    }
    v
}

/// Our bytes for each instruction (encoded one by one through one `Assembler`, each
/// appended to one buffer: this also checks that appending works).
fn ours(insts: &[Inst]) -> (Vec<u8>, Vec<std::ops::Range<usize>>) {
    let mut asm = Assembler::new();
    let mut buf = Vec::new();
    let mut ranges = Vec::new();
    for i in insts {
        let start = buf.len();
        asm.encode(std::slice::from_ref(i), &mut buf)
            .unwrap_or_else(|e| panic!("{e}"));
        ranges.push(start..buf.len());
    }
    let mut all = Vec::new();
    asm.encode(insts, &mut all).unwrap();
    assert_eq!(all, buf, "encoding all at once = one by one");
    (buf, ranges)
}

/// Compares our encoding of each instruction with NASM's: byte for byte, or, where the
/// two pick different encodings of the same instruction, by decoding both with iced and
/// comparing the decoded instructions (same operation, same operands: only the choice
/// among equivalent encodings differs, such as which operand goes in ModRM.reg). Returns
/// the list of such differences; panics on anything else.
fn check(test: &str, insts: &[Inst]) -> Vec<String> {
    let mut src = String::from("BITS 64\n");
    for i in insts {
        writeln!(src, "    {}", inst_nasm(i)).unwrap();
    }
    let theirs = common::nasm_bin(test, &src);

    let (our_bytes, ranges) = ours(insts);
    let their_insts = decode(&theirs);
    assert_eq!(
        their_insts.len(),
        insts.len(),
        "nasm made a different number of instructions"
    );
    let mut equivalent = Vec::new();
    let mut wrong = Vec::new();
    let mut at = 0;
    for ((i, r), t) in insts.iter().zip(ranges).zip(&their_insts) {
        let mine = &our_bytes[r];
        let nasm_bytes = &theirs[at..at + t.len()];
        at += t.len();
        if mine == nasm_bytes {
            continue;
        }
        let line = format!("{i}: ours {} nasm {}", hex(mine), hex(nasm_bytes));
        match decode(mine).as_slice() {
            [d] if d == t => equivalent.push(line),
            _ => wrong.push(line),
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} instructions encode differently from nasm:\n{}",
        wrong.len(),
        insts.len(),
        wrong.join("\n")
    );
    equivalent
}

#[test]
fn encoding_matches_nasm() {
    if !have("nasm", "encoding_matches_nasm") {
        return;
    }
    let mut insts = edges();
    insts.extend(common::sample_every_form(16));
    let equivalent = check("encoding_matches_nasm", &insts);
    // encode.rs follows NASM's choices, so with NASM 2.16 all are byte for byte the same;
    // a NASM or iced upgrade that changes a choice shows up here (and is still right).
    for e in &equivalent {
        eprintln!("NOTE encoding_matches_nasm: equivalent, not identical: {e}");
    }
    eprintln!(
        "encoding_matches_nasm: {} instructions, {} byte for byte, {} equivalent",
        insts.len(),
        insts.len() - equivalent.len(),
        equivalent.len()
    );
}

fn program() -> Program {
    let mut insts = vec![
        parse_inst("push rbx").unwrap(),
        parse_inst("push r12").unwrap(),
        parse_inst("sub rsp, 0x28").unwrap(),
    ];
    insts.extend(edges());
    insts.extend(common::sample_every_form(2));
    insts.extend([
        parse_inst("add rsp, 0x28").unwrap(),
        parse_inst("pop r12").unwrap(),
        parse_inst("pop rbx").unwrap(),
        parse_inst("ret").unwrap(),
    ]);
    Program::new("fiat_test_mul", insts)
}

/// An operand kind, immediates of all sizes as one.
fn kind(k: OpKind) -> &'static str {
    match k {
        OpKind::Register => "register",
        OpKind::Memory => "memory",
        _ => "immediate",
    }
}

/// The `.text` bytes of an object file, through objcopy (None without objcopy).
fn text_of(obj: &std::path::Path, dir: &std::path::Path) -> Option<Vec<u8>> {
    let out = dir.join("text.bin");
    let ok = Command::new("objcopy")
        .args(["-O", "binary", "--only-section=.text"])
        .arg(obj)
        .arg(&out)
        .status()
        .is_ok_and(|s| s.success());
    ok.then(|| std::fs::read(&out).unwrap())
}

#[test]
fn nasm_output_assembles() {
    if !have("nasm", "nasm_output_assembles") {
        return;
    }
    let dir = TempDir::new("nasm_output_assembles");
    let p = program();
    let (src, obj) = (dir.path().join("f.asm"), dir.path().join("f.o"));
    std::fs::write(&src, nasm(&p)).unwrap();
    run(Command::new("nasm")
        .args(["-f", "elf64", "-o"])
        .arg(&obj)
        .arg(&src));
    // The object holds our instructions (byte for byte, as encoding_matches_nasm shows;
    // compared decoded here so that an equivalent choice does not fail twice).
    if let Some(text) = text_of(&obj, dir.path()) {
        let theirs = decode(&text);
        let mine = decode(&ours(&p.insts).0);
        assert_eq!(
            theirs.len(),
            p.insts.len(),
            "nasm made a different number of instructions"
        );
        for ((i, a), b) in p.insts.iter().zip(&mine).zip(&theirs) {
            assert_eq!(a, b, "{i}: nasm -f elf64 assembled it differently");
        }
    }
}

#[test]
fn gas_output_assembles() {
    if !have("gcc", "gas_output_assembles") {
        return;
    }
    let dir = TempDir::new("gas_output_assembles");
    let p = program();
    let (src, obj) = (dir.path().join("f.S"), dir.path().join("f.o"));
    std::fs::write(&src, gas(&p)).unwrap();
    run(Command::new("gcc").args(["-c", "-o"]).arg(&obj).arg(&src));
    // GNU as makes its own encoding choices (`mov rax, 1` stays a 7-byte `mov r/m64`,
    // `[x*2]` keeps its disp32); what must agree is the instruction: one per line, the
    // same mnemonic, the same operand kinds and memory sizes.
    if let Some(text) = text_of(&obj, dir.path()) {
        let theirs = decode(&text);
        assert_eq!(
            theirs.len(),
            p.insts.len(),
            "gcc made a different number of instructions"
        );
        let ours = decode(&ours(&p.insts).0);
        for ((i, a), b) in p.insts.iter().zip(&ours).zip(&theirs) {
            let shape = |x: &Instruction| {
                let kinds: Vec<_> = (0..x.op_count()).map(|k| kind(x.op_kind(k))).collect();
                let size = kinds.contains(&"memory").then(|| x.memory_size());
                (x.mnemonic(), size, kinds)
            };
            assert_eq!(shape(a), shape(b), "{i}: gcc assembled it differently");
        }
    }
}
