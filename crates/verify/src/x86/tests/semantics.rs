//! The executor's meaning of single instructions and short snippets, as tables of
//! initial and expected registers and flags, and the errors it reports for undefined
//! flags, unmodelled forms and memory it cannot name.
//!
//! The expected values are the Intel SDM's (AMD's where stricter); they must never be
//! copied from the executor's output.

use cryptopt_x86::Reg;

use super::{evaluate, parse, run_insts};
use crate::x86::flags::FLAG_NAMES;

const MAX: u64 = u64::MAX;
const MIN: u64 = 1 << 63;

/// Expected final state: register values and flags (`Some(None)`: undefined).
enum E {
    R(Reg, u64),
    F(usize, Option<u64>),
}
use Reg::*;
use E::{F, R};

/// Instruction semantics: (asm, initial flags CF/OF/ZF/SF, initial registers,
/// expected registers and flags).
#[test]
fn semantics_table() {
    let u = None;
    let c0 = [Some(0), Some(0), Some(0), Some(0)];
    let c1 = [Some(1), Some(0), Some(0), Some(0)];
    let o1 = [Some(0), Some(1), Some(0), Some(0)];
    #[allow(clippy::type_complexity)]
    let table: &[(&str, [Option<u128>; 4], &[(Reg, u64)], &[E])] = &[
        // write widths
        (
            "mov eax, 0xffffffff",
            c0,
            &[(Rax, MAX)],
            &[R(Rax, 0xffff_ffff)],
        ),
        (
            "mov al, 0x12",
            c0,
            &[(Rax, MAX)],
            &[R(Rax, 0xffff_ffff_ffff_ff12)],
        ),
        ("mov ax, 0x1234", c0, &[(Rax, 0)], &[R(Rax, 0x1234)]),
        (
            "mov r9w, ax",
            c0,
            &[(Rax, 0x5678), (R9, MAX)],
            &[R(R9, 0xffff_ffff_ffff_5678)],
        ),
        ("mov r8d, r8d", c0, &[(R8, MAX)], &[R(R8, 0xffff_ffff)]),
        (
            "mov rax, 0x123456789abcdef0",
            c0,
            &[],
            &[R(Rax, 0x1234_5678_9abc_def0)],
        ),
        ("mov rax, -1", c0, &[], &[R(Rax, MAX)]),
        (
            "movzx eax, bl",
            c0,
            &[(Rax, MAX), (Rbx, 0x1ff)],
            &[R(Rax, 0xff)],
        ),
        (
            "movzx rax, bx",
            c0,
            &[(Rax, MAX), (Rbx, 0x12345)],
            &[R(Rax, 0x2345)],
        ),
        (
            "movzx ax, bl",
            c0,
            &[(Rax, MAX), (Rbx, 0x12)],
            &[R(Rax, 0xffff_ffff_ffff_0012)],
        ),
        (
            "lea rax, [rbx + rcx*4 + 8]",
            c0,
            &[(Rbx, 1), (Rcx, 2)],
            &[R(Rax, 17)],
        ),
        (
            "lea eax, [rbx - 1]",
            c0,
            &[(Rbx, 0)],
            &[R(Rax, 0xffff_ffff)],
        ),
        (
            "xchg rax, rbx",
            c0,
            &[(Rax, 1), (Rbx, 2)],
            &[R(Rax, 2), R(Rbx, 1)],
        ),
        // add family
        (
            "add rax, rbx",
            c0,
            &[(Rax, MAX), (Rbx, 1)],
            &[
                R(Rax, 0),
                F(0, Some(1)),
                F(1, Some(0)),
                F(2, Some(1)),
                F(3, Some(0)),
            ],
        ),
        (
            "add rax, 1",
            c0,
            &[(Rax, MIN - 1)],
            &[R(Rax, MIN), F(0, Some(0)), F(1, Some(1)), F(3, Some(1))],
        ),
        (
            "add eax, ebx",
            c0,
            &[(Rax, MAX), (Rbx, 1)],
            &[R(Rax, 0), F(0, Some(1)), F(2, Some(1))],
        ),
        (
            "add al, 0x80",
            c0,
            &[(Rax, 0x180)],
            &[R(Rax, 0x100), F(0, Some(1)), F(1, Some(1))],
        ),
        (
            "adc rax, rbx",
            c1,
            &[(Rax, 1), (Rbx, 2)],
            &[R(Rax, 4), F(0, Some(0))],
        ),
        (
            "adc rax, rbx",
            c1,
            &[(Rax, MAX), (Rbx, MAX)],
            &[R(Rax, MAX), F(0, Some(1))],
        ),
        (
            "adc rax, 0",
            c1,
            &[(Rax, MAX)],
            &[R(Rax, 0), F(0, Some(1)), F(2, Some(1))],
        ),
        (
            "adcx rax, rbx",
            [Some(1), Some(1), Some(0), Some(0)],
            &[(Rax, MAX), (Rbx, 0)],
            &[R(Rax, 0), F(0, Some(1)), F(1, Some(1))],
        ),
        (
            "adox rax, rbx",
            [Some(1), Some(1), Some(0), Some(0)],
            &[(Rax, MAX), (Rbx, 0)],
            &[R(Rax, 0), F(0, Some(1)), F(1, Some(1))],
        ),
        (
            "adox rax, rbx",
            [Some(1), Some(0), Some(0), Some(0)],
            &[(Rax, MAX), (Rbx, 0)],
            &[R(Rax, MAX), F(0, Some(1)), F(1, Some(0))],
        ),
        (
            "adcx eax, ebx",
            c1,
            &[(Rax, 0xffff_ffff), (Rbx, 0)],
            &[R(Rax, 0), F(0, Some(1))],
        ),
        (
            "sub rax, rbx",
            c0,
            &[(Rax, 1), (Rbx, 2)],
            &[R(Rax, MAX), F(0, Some(1)), F(1, Some(0)), F(3, Some(1))],
        ),
        (
            "sub rax, 1",
            c0,
            &[(Rax, MIN)],
            &[R(Rax, MIN - 1), F(0, Some(0)), F(1, Some(1))],
        ),
        (
            "sbb rax, rbx",
            c1,
            &[(Rax, 5), (Rbx, 5)],
            &[R(Rax, MAX), F(0, Some(1))],
        ),
        (
            "sbb rax, rbx",
            c1,
            &[(Rax, 5), (Rbx, 3)],
            &[R(Rax, 1), F(0, Some(0))],
        ),
        (
            "sbb eax, eax",
            c1,
            &[(Rax, 7)],
            &[R(Rax, 0xffff_ffff), F(0, Some(1))],
        ),
        (
            "cmp rax, rbx",
            c0,
            &[(Rax, 1), (Rbx, 2)],
            &[R(Rax, 1), F(0, Some(1)), F(2, Some(0))],
        ),
        (
            "cmp rax, rax",
            c0,
            &[(Rax, 9)],
            &[F(0, Some(0)), F(2, Some(1))],
        ),
        (
            "inc rax",
            c1,
            &[(Rax, MAX)],
            &[R(Rax, 0), F(0, Some(1)), F(2, Some(1)), F(1, Some(0))],
        ),
        (
            "inc rax",
            c0,
            &[(Rax, MIN - 1)],
            &[R(Rax, MIN), F(0, Some(0)), F(1, Some(1))],
        ),
        (
            "dec eax",
            c1,
            &[(Rax, 0)],
            &[R(Rax, 0xffff_ffff), F(0, Some(1)), F(3, Some(1))],
        ),
        (
            "neg rax",
            c0,
            &[(Rax, 5)],
            &[R(Rax, MAX - 4), F(0, Some(1))],
        ),
        (
            "neg rax",
            c1,
            &[(Rax, 0)],
            &[R(Rax, 0), F(0, Some(0)), F(2, Some(1))],
        ),
        ("neg rax", c0, &[(Rax, MIN)], &[R(Rax, MIN), F(1, Some(1))]),
        ("not rax", c1, &[(Rax, 5)], &[R(Rax, !5), F(0, Some(1))]),
        ("not ax", c0, &[(Rax, 0)], &[R(Rax, 0xffff)]),
        // logic
        (
            "and rax, rbx",
            c1,
            &[(Rax, 0xf0), (Rbx, 0x3c)],
            &[R(Rax, 0x30), F(0, Some(0)), F(1, Some(0)), F(2, Some(0))],
        ),
        (
            "or rax, rbx",
            o1,
            &[(Rax, 0xf0), (Rbx, 0x0f)],
            &[R(Rax, 0xff), F(1, Some(0))],
        ),
        (
            "xor eax, eax",
            c1,
            &[(Rax, MAX)],
            &[R(Rax, 0), F(0, Some(0)), F(2, Some(1))],
        ),
        (
            "xor rax, -1",
            c0,
            &[(Rax, 0)],
            &[R(Rax, MAX), F(3, Some(1))],
        ),
        ("and eax, 0xff", c0, &[(Rax, MAX)], &[R(Rax, 0xff)]),
        (
            "test rax, rax",
            c1,
            &[(Rax, 0)],
            &[R(Rax, 0), F(0, Some(0)), F(2, Some(1))],
        ),
        (
            "test rsp, rsp",
            o1,
            &[(Rsp, 0x7fff_0000)],
            &[F(0, Some(0)), F(1, Some(0))],
        ),
        (
            "bt rax, 3",
            c0,
            &[(Rax, 8)],
            &[F(0, Some(1)), F(1, u), F(2, u), F(3, u)],
        ),
        ("bt rax, 67", c0, &[(Rax, 8)], &[F(0, Some(1))]),
        (
            "mov ebx, 63; bt eax, ebx",
            c0,
            &[(Rax, 1 << 31)],
            &[F(0, Some(1))],
        ),
        // multiplication
        (
            "mul rbx",
            c0,
            &[(Rax, MAX), (Rbx, MAX)],
            &[
                R(Rax, 1),
                R(Rdx, MAX - 1),
                F(0, Some(1)),
                F(1, Some(1)),
                F(2, u),
                F(3, u),
            ],
        ),
        (
            "mul rbx",
            c1,
            &[(Rax, 3), (Rbx, 5)],
            &[R(Rax, 15), R(Rdx, 0), F(0, Some(0)), F(1, Some(0))],
        ),
        (
            "mul ebx",
            c0,
            &[(Rax, 0xffff_ffff), (Rbx, 2), (Rdx, MAX)],
            &[R(Rax, 0xffff_fffe), R(Rdx, 1)],
        ),
        (
            "mul bl",
            c0,
            &[(Rax, 0x1_0010), (Rbx, 0x10), (Rdx, 7)],
            &[R(Rax, 0x1_0100), R(Rdx, 7), F(0, Some(1))],
        ),
        (
            "imul rbx",
            c0,
            &[(Rax, MAX - 1), (Rbx, 3)],
            &[R(Rax, MAX - 5), R(Rdx, MAX), F(0, Some(0)), F(1, Some(0))],
        ),
        (
            "imul rbx",
            c0,
            &[(Rax, MIN), (Rbx, 2)],
            &[R(Rax, 0), R(Rdx, MAX), F(0, Some(1))],
        ),
        (
            "imul rax, rbx",
            c0,
            &[(Rax, MAX - 1), (Rbx, 3)],
            &[R(Rax, MAX - 5), F(0, Some(0)), F(2, u)],
        ),
        (
            "imul rax, rbx",
            c0,
            &[(Rax, 1 << 62), (Rbx, 2)],
            &[R(Rax, MIN), F(0, Some(1)), F(1, Some(1))],
        ),
        (
            "imul rax, rbx, 5",
            c0,
            &[(Rbx, 7)],
            &[R(Rax, 35), F(1, Some(0))],
        ),
        (
            "imul eax, ebx, -1",
            c0,
            &[(Rax, MAX), (Rbx, 1)],
            &[R(Rax, 0xffff_ffff), F(1, Some(0))],
        ),
        (
            "mulx r8, r9, rbx",
            c1,
            &[(Rdx, MAX), (Rbx, MAX)],
            &[R(R9, 1), R(R8, MAX - 1), F(0, Some(1))],
        ),
        (
            "mulx r8, r8, rbx",
            c0,
            &[(Rdx, 1 << 40), (Rbx, 1 << 40)],
            &[R(R8, 1 << 16)],
        ),
        (
            "mulx r8d, r9d, ebx",
            c0,
            &[(Rdx, 0xffff_ffff), (Rbx, 0xffff_ffff)],
            &[R(R9, 1), R(R8, 0xffff_fffe)],
        ),
        // shifts
        (
            "shl rax, 4",
            c0,
            &[(Rax, 0x1000_0000_0000_0001)],
            &[R(Rax, 0x10), F(0, Some(1)), F(1, u), F(2, Some(0))],
        ),
        (
            "shl rax, 1",
            c0,
            &[(Rax, MIN)],
            &[R(Rax, 0), F(0, Some(1)), F(1, Some(1)), F(2, Some(1))],
        ),
        ("shl rax, 64", c1, &[(Rax, 3)], &[R(Rax, 3), F(0, Some(1))]),
        (
            "shl eax, 0",
            c1,
            &[(Rax, MAX)],
            &[R(Rax, 0xffff_ffff), F(0, Some(1))],
        ),
        ("shl al, 9", c0, &[(Rax, 0xff)], &[R(Rax, 0), F(0, u)]),
        (
            "shr rax, 1",
            c0,
            &[(Rax, MIN + 1)],
            &[R(Rax, MIN >> 1), F(0, Some(1)), F(1, Some(1))],
        ),
        (
            "shr rax, 63",
            c0,
            &[(Rax, MIN)],
            &[R(Rax, 1), F(0, Some(0)), F(1, u)],
        ),
        (
            "sar rax, 4",
            c0,
            &[(Rax, MIN)],
            &[R(Rax, 0xf800_0000_0000_0000), F(0, Some(0))],
        ),
        (
            "sar rax, 1",
            c0,
            &[(Rax, 3)],
            &[R(Rax, 1), F(0, Some(1)), F(1, Some(0))],
        ),
        (
            "sar eax, 31",
            c0,
            &[(Rax, 0x8000_0000)],
            &[R(Rax, 0xffff_ffff)],
        ),
        ("mov ecx, 0x43; shl rax, cl", c0, &[(Rax, 1)], &[R(Rax, 8)]),
        (
            "shld rax, rbx, 8",
            c0,
            &[(Rax, 0x0100_0000_0000_0002), (Rbx, 0xab00_0000_0000_0000)],
            &[R(Rax, 0x2ab), F(0, Some(1))],
        ),
        (
            "shrd rax, rbx, 8",
            c0,
            &[(Rax, 0x180), (Rbx, 0xcd)],
            &[R(Rax, 0xcd00_0000_0000_0001), F(0, Some(1))],
        ),
        (
            "shrd rax, rbx, 1",
            c0,
            &[(Rax, 2), (Rbx, 1)],
            &[R(Rax, MIN + 1), F(0, Some(0)), F(1, Some(1))],
        ),
        (
            "shrd eax, ebx, 4",
            c0,
            &[(Rax, MAX), (Rbx, 0)],
            &[R(Rax, 0x0fff_ffff)],
        ),
        (
            "mov ecx, 65; shlx rax, rbx, rcx",
            c1,
            &[(Rbx, 3)],
            &[R(Rax, 6), F(0, Some(1))],
        ),
        (
            "mov ecx, 60; shrx rax, rbx, rcx",
            c0,
            &[(Rbx, MAX)],
            &[R(Rax, 15)],
        ),
        (
            "mov ecx, 63; sarx rax, rbx, rcx",
            c0,
            &[(Rbx, MIN)],
            &[R(Rax, MAX)],
        ),
        (
            "mov ecx, 4; sarx eax, ebx, ecx",
            c0,
            &[(Rbx, 0x8000_0000)],
            &[R(Rax, 0xf800_0000)],
        ),
        (
            "rorx rax, rbx, 8",
            c1,
            &[(Rbx, 0x12)],
            &[R(Rax, 0x1200_0000_0000_0000), F(0, Some(1))],
        ),
        (
            "rorx eax, ebx, 4",
            c0,
            &[(Rbx, 0x1_0000_0012)],
            &[R(Rax, 0x2000_0001)],
        ),
        (
            "mov ecx, 8; bzhi rax, rbx, rcx",
            c1,
            &[(Rbx, MAX)],
            &[R(Rax, 0xff), F(0, Some(0)), F(1, Some(0))],
        ),
        (
            "mov ecx, 0x140; bzhi rax, rbx, rcx",
            c0,
            &[(Rbx, MAX)],
            &[R(Rax, MAX), F(0, Some(1))],
        ),
        (
            "mov ecx, 0; bzhi rax, rbx, rcx",
            c0,
            &[(Rbx, MAX)],
            &[R(Rax, 0), F(2, Some(1))],
        ),
        (
            "andn rax, rbx, rcx",
            c1,
            &[(Rbx, 0xff00), (Rcx, 0xffff)],
            &[R(Rax, 0xff), F(0, Some(0)), F(1, Some(0)), F(2, Some(0))],
        ),
        (
            "andn eax, ebx, ecx",
            c1,
            &[(Rax, MAX), (Rbx, MAX), (Rcx, MAX)],
            &[R(Rax, 0), F(0, Some(0)), F(2, Some(1))],
        ),
        // conditional
        ("cmovc rax, rbx", c1, &[(Rax, 1), (Rbx, 2)], &[R(Rax, 2)]),
        ("cmovc rax, rbx", c0, &[(Rax, 1), (Rbx, 2)], &[R(Rax, 1)]),
        ("cmovnc rax, rbx", c0, &[(Rax, 1), (Rbx, 2)], &[R(Rax, 2)]),
        (
            "cmovc eax, ebx",
            c0,
            &[(Rax, MAX), (Rbx, 2)],
            &[R(Rax, 0xffff_ffff)],
        ),
        ("cmovo rax, rbx", o1, &[(Rax, 1), (Rbx, 2)], &[R(Rax, 2)]),
        ("cmovno rax, rbx", o1, &[(Rax, 1), (Rbx, 2)], &[R(Rax, 1)]),
        (
            "cmovz rax, rbx",
            [Some(0), Some(0), Some(1), Some(0)],
            &[(Rax, 1), (Rbx, 2)],
            &[R(Rax, 2)],
        ),
        (
            "cmovnz rax, rbx",
            [Some(0), Some(0), Some(1), Some(0)],
            &[(Rax, 1), (Rbx, 2)],
            &[R(Rax, 1)],
        ),
        ("setc al", c1, &[(Rax, MAX)], &[R(Rax, MAX - 0xfe)]),
        ("seto bl", o1, &[(Rbx, 0)], &[R(Rbx, 1)]),
        (
            "setz r9b",
            [Some(0), Some(0), Some(1), Some(0)],
            &[(R9, 0x100)],
            &[R(R9, 0x101)],
        ),
        (
            "setnz r9b",
            [Some(0), Some(0), Some(1), Some(0)],
            &[(R9, 0xff)],
            &[R(R9, 0)],
        ),
        ("clc", c1, &[], &[F(0, Some(0))]),
        ("stc", c0, &[], &[F(0, Some(1))]),
        // stack
        (
            "push rax; pop rbx",
            c0,
            &[(Rax, 42), (Rsp, 0x1000)],
            &[R(Rbx, 42), R(Rsp, 0x1000)],
        ),
        (
            "push rax; push rbx; pop rax; pop rbx",
            c0,
            &[(Rax, 1), (Rbx, 2), (Rsp, 0x1000)],
            &[R(Rax, 2), R(Rbx, 1)],
        ),
        (
            "sub rsp, 16; mov qword [rsp + 8], rax; mov rbx, qword [rsp + 8]; add rsp, 16",
            c0,
            &[(Rax, 7), (Rsp, 0x1000)],
            &[R(Rbx, 7), R(Rsp, 0x1000)],
        ),
        (
            "mov qword [rsp - 8], rax; mov bl, byte [rsp - 7]",
            c0,
            &[(Rax, 0x1234), (Rsp, 0x1000)],
            &[R(Rbx, 0x12)],
        ),
        (
            "mov dword [rsp - 8], eax; mov dword [rsp - 4], ebx; mov rcx, qword [rsp - 8]",
            c0,
            &[(Rax, 0x1234), (Rbx, 0x5678), (Rsp, 0x1000)],
            &[R(Rcx, 0x5678_0000_1234)],
        ),
        // flag spills as the generator makes them
        (
            "setc al; movzx eax, al; bt rax, 0",
            [Some(1), Some(0), Some(0), Some(0)],
            &[(Rax, MAX)],
            &[R(Rax, 1), F(0, Some(1))],
        ),
    ];
    for (asm, flags, init, expect) in table {
        let insts = parse(asm);
        let s = run_insts(&insts, *flags).unwrap_or_else(|e| panic!("{asm}: {e}"));
        let mut regs = [0u64; 16];
        for &(r, v) in *init {
            regs[r.index()] = v;
        }
        let (got, fl) = evaluate(&s, &regs);
        for e in *expect {
            match *e {
                R(r, v) => assert_eq!(
                    got[r.index()],
                    v,
                    "{asm}: {r} = {:#x}, want {v:#x}",
                    got[r.index()]
                ),
                F(i, v) => assert_eq!(fl[i], v, "{asm}: {}", FLAG_NAMES[i]),
            }
        }
    }
}

/// Reading a flag that is undefined (at entry, or left undefined) is a problem that
/// names the instruction (a failed check); so are counts and addresses from data and a
/// lost rsp; unknown operand forms are input errors.
#[test]
fn errors_table() {
    let u = [None; 4];
    let d = [Some(0), Some(0), Some(0), Some(0)];
    let table: &[(&str, [Option<u128>; 4], &str)] = &[
        ("adc rax, rbx", u, "instruction 0 `adc rax, rbx` reads CF, which is undefined here (flags are undefined at function entry)"),
        ("mul rbx; cmovz rax, rbx", d, "instruction 1 `cmovz rax, rbx` reads ZF, which is undefined here (instruction 0 left it undefined)"),
        ("bt rax, 1; seto al", d, "reads OF"),
        ("shl rax, 2; adox rax, rbx", d, "reads OF"),
        ("imul rax, rbx; setz al", d, "reads ZF"),
        ("shl rax, cl", d, "the count register does not hold a constant"),
        ("bzhi rax, rbx, rcx", d, "the count register does not hold a constant"),
        ("mov rax, qword [rbx]", d, "is not an argument pointer or rsp plus a constant"),
        ("mov rax, qword [rsp - 8]", d, "reads the stack slot [rsp0 -8] before it is written"),
        ("mov rax, qword [rsp + 0x10 + rbx*8]", d, "not an argument pointer"),
        ("shld ax, bx, 3", d, "16-bit double shifts"),
        ("mov rsp, rax", d, "rsp is no longer the entry rsp plus a constant"),
    ];
    for (asm, flags, want) in table {
        let insts = parse(asm);
        let err = match run_insts(&insts, *flags) {
            Err(e) => e.to_string(),
            Ok(_) => "ok".to_string(),
        };
        assert!(err.contains(want), "{asm}\n  want {want:?}\n  got  {err:?}");
    }
}
