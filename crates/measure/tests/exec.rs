//! Executable memory and the ABI-checking trampoline, on small functions assembled here
//! with iced-x86.
//!
//! Every function gets `rdi = out` (4 zeroed words), `rsi = a`, `rdx = b` (4 words each,
//! `a[0] = A`, `b[0] = B`), `rcx = 3`, `r8 = 40`, `r9 = 500`.

use cryptopt_measure::exec::STACK_CANARIES;
use cryptopt_measure::{AbiProblem, CalleeSaved, Error, ExecMem, Trampoline};
use iced_x86::code_asm::*;
use iced_x86::IcedError;

const A: u64 = 0x1234_5678_9abc_def0;
const B: u64 = 0xfedc_ba98_7654_3210;
const PAGE: usize = 4096;
const RFLAGS_DF: u64 = 1 << 10;
const RFLAGS_AC: u64 = 1 << 18;

type Body = fn(&mut CodeAssembler) -> Result<(), IcedError>;

fn assemble(body: Body) -> Vec<u8> {
    let mut a = CodeAssembler::new(64).unwrap();
    body(&mut a).unwrap();
    a.assemble(0).unwrap()
}

/// The permissions (`r-xp`, …) of the mapping holding `addr`, from `/proc/self/maps`.
fn perms_of(addr: usize) -> String {
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
    for line in maps.lines() {
        let mut fields = line.split_whitespace();
        let (range, perms) = (fields.next().unwrap(), fields.next().unwrap());
        let (lo, hi) = range.split_once('-').unwrap();
        let lo = usize::from_str_radix(lo, 16).unwrap();
        let hi = usize::from_str_radix(hi, 16).unwrap();
        if (lo..hi).contains(&addr) {
            return perms.to_string();
        }
    }
    panic!("{addr:#x} is not mapped");
}

/// Calls `f` with the arguments described in the module docs; returns `out`.
fn run(t: &Trampoline, f: *const u8) -> (Result<(), cryptopt_measure::AbiViolation>, [u64; 4]) {
    let mut out = [0u64; 4];
    let a = [A, 1, 2, 3];
    let b = [B, 4, 5, 6];
    let args = [
        out.as_mut_ptr() as u64,
        a.as_ptr() as u64,
        b.as_ptr() as u64,
        3,
        40,
        500,
    ];
    // SAFETY: every test function returns with `ret` to its caller and only touches
    // out/a/b within bounds, its own stack frame and red zone, and the canary words.
    let r = unsafe { t.call(f, &args) };
    (r, out)
}

fn add(a: &mut CodeAssembler) -> Result<(), IcedError> {
    a.mov(rax, qword_ptr(rsi))?;
    a.add(rax, qword_ptr(rdx))?;
    a.mov(qword_ptr(rdi), rax)?;
    a.ret()
}

/// Writes the state a callee starts with: out[0] = MXCSR, out[1] = x87 control word,
/// out[2] = rflags, out[3] = rsp mod 16.
fn entry_state(a: &mut CodeAssembler) -> Result<(), IcedError> {
    a.stmxcsr(dword_ptr(rdi))?;
    a.fnstcw(word_ptr(rdi + 8))?;
    a.pushfq()?;
    a.pop(rax)?;
    a.mov(qword_ptr(rdi + 16), rax)?;
    a.mov(rax, rsp)?;
    a.and(eax, 15)?;
    a.mov(qword_ptr(rdi + 24), rax)?;
    a.ret()
}

struct Case {
    name: &'static str,
    body: Body,
    /// The expected `out[0]`, if checked.
    out: Option<u64>,
    /// The expected problems, in order, each as a prefix of its message; empty: `Ok`.
    problems: &'static [&'static str],
}

struct Harness {
    t: Trampoline,
    mem: ExecMem,
    add: ExecMem,
    entry_state: ExecMem,
}

impl Harness {
    fn new() -> Harness {
        Harness {
            t: Trampoline::new().unwrap(),
            mem: ExecMem::with_capacity(PAGE).unwrap(),
            add: ExecMem::new(&assemble(add)).unwrap(),
            entry_state: ExecMem::new(&assemble(entry_state)).unwrap(),
        }
    }

    /// Runs one case, then checks that the trampoline recovered: a well-behaved function
    /// computes the right value, and the next callee starts in the state the ABI
    /// promises (default MXCSR and x87 control word, DF and AC clear, rsp ≡ 8 mod 16).
    fn check(&mut self, case: &Case) {
        let name = case.name;
        self.mem.load(&assemble(case.body)).unwrap();
        let (r, out) = run(&self.t, self.mem.ptr());
        match r {
            Ok(()) => assert!(
                case.problems.is_empty(),
                "{name}: Ok, expected {:?}",
                case.problems
            ),
            Err(v) => {
                let got: Vec<String> = v.problems.iter().map(|p| p.to_string()).collect();
                assert_eq!(got.len(), case.problems.len(), "{name}: got {got:#?}");
                for (g, want) in got.iter().zip(case.problems) {
                    assert!(g.starts_with(want), "{name}: got `{g}`, want `{want}…`");
                }
                assert!(v.to_string().starts_with("ABI violation: "), "{name}: {v}");
            }
        }
        if let Some(want) = case.out {
            assert_eq!(out[0], want, "{name}: out[0] = {:#x}", out[0]);
        }

        let (r, out) = run(&self.t, self.add.ptr());
        assert_eq!(r, Ok(()), "{name}: next call");
        assert_eq!(out[0], A.wrapping_add(B), "{name}: next call");
        let (r, out) = run(&self.t, self.entry_state.ptr());
        assert_eq!(r, Ok(()), "{name}: entry state");
        assert_eq!(out[0] & !0x3F, 0x1F80, "{name}: MXCSR {:#x}", out[0]);
        assert_eq!(out[1], 0x037F, "{name}: x87 control word {:#x}", out[1]);
        assert_eq!(
            out[2] & (RFLAGS_DF | RFLAGS_AC),
            0,
            "{name}: rflags {:#x}",
            out[2]
        );
        assert_eq!(out[3], 8, "{name}: rsp mod 16 at entry");
    }
}

/// Functions that keep the convention.
const GOOD: &[Case] = &[
    Case {
        name: "out[0] = a[0] + b[0]",
        body: add,
        out: Some(A.wrapping_add(B)),
        problems: &[],
    },
    Case {
        name: "all six argument registers",
        body: |a| {
            a.mov(rax, qword_ptr(rsi + 8))?; // a[1] = 1
            a.add(rax, qword_ptr(rdx + 8))?; // b[1] = 4
            a.add(rax, rcx)?;
            a.add(rax, r8)?;
            a.add(rax, r9)?;
            a.mov(qword_ptr(rdi), rax)?;
            a.ret()
        },
        out: Some(1 + 4 + 3 + 40 + 500),
        problems: &[],
    },
    Case {
        name: "saves, uses and restores every callee-saved register",
        body: |a| {
            let regs = [rbx, rbp, r12, r13, r14, r15];
            for r in regs {
                a.push(r)?;
            }
            for (i, r) in regs.into_iter().enumerate() {
                a.mov(r, i as u64)?;
            }
            a.lea(rax, rbx + rbp * 1)?;
            a.add(rax, r15)?;
            a.mov(qword_ptr(rdi), rax)?;
            for r in regs.into_iter().rev() {
                a.pop(r)?;
            }
            a.ret()
        },
        out: Some(1 + 5),
        problems: &[],
    },
    Case {
        name: "uses the whole red zone",
        body: |a| {
            for i in 1..=16i32 {
                a.mov(qword_ptr(rsp - 8 * i), i)?;
            }
            a.xor(eax, eax)?;
            for i in 1..=16i32 {
                a.add(rax, qword_ptr(rsp - 8 * i))?;
            }
            a.mov(qword_ptr(rdi), rax)?;
            a.ret()
        },
        out: Some(16 * 17 / 2),
        problems: &[],
    },
    Case {
        name: "a frame: push rbp, sub rsp, spills, leave",
        body: |a| {
            a.push(rbp)?;
            a.mov(rbp, rsp)?;
            a.sub(rsp, 4096)?;
            a.mov(qword_ptr(rsp), rsi)?;
            a.mov(qword_ptr(rsp + 4088), rdx)?;
            a.mov(rax, qword_ptr(rsp))?;
            a.mov(rax, qword_ptr(rax))?;
            a.mov(rcx, qword_ptr(rsp + 4088))?;
            a.add(rax, qword_ptr(rcx))?;
            a.mov(qword_ptr(rdi), rax)?;
            a.leave()?;
            a.ret()
        },
        out: Some(A.wrapping_add(B)),
        problems: &[],
    },
    Case {
        name: "rax starts poisoned",
        body: |a| {
            a.mov(qword_ptr(rdi), rax)?;
            a.ret()
        },
        out: Some(cryptopt_measure::exec::POISON),
        problems: &[],
    },
    Case {
        name: "sets an MXCSR exception flag (allowed)",
        body: |a| {
            a.stmxcsr(dword_ptr(rsp - 8))?;
            a.or(dword_ptr(rsp - 8), 0x20)?;
            a.ldmxcsr(dword_ptr(rsp - 8))?;
            a.ret()
        },
        out: None,
        problems: &[],
    },
];

/// Functions that break it, in ways the trampoline survives.
const BAD: &[Case] = &[
    Case {
        name: "clobbers rbx",
        body: |a| {
            a.mov(rbx, 0x1234u64)?;
            a.ret()
        },
        out: None,
        problems: &["rbx clobbered: 0x1234 != canary 0xca11ee5afe000003"],
    },
    Case {
        name: "clobbers rbp",
        body: |a| {
            a.mov(rbp, rsp)?;
            a.ret()
        },
        out: None,
        problems: &["rbp clobbered: 0x"],
    },
    Case {
        name: "clobbers r12",
        body: |a| {
            a.add(r12, 1)?;
            a.ret()
        },
        out: None,
        problems: &["r12 clobbered: 0xca11ee5afe00000d != canary 0xca11ee5afe00000c"],
    },
    Case {
        name: "clobbers r15 after computing the right result",
        body: |a| {
            a.mov(r15, qword_ptr(rsi))?;
            a.add(r15, qword_ptr(rdx))?;
            a.mov(qword_ptr(rdi), r15)?;
            a.ret()
        },
        out: Some(A.wrapping_add(B)),
        problems: &["r15 clobbered: 0x"],
    },
    Case {
        name: "clobbers all six",
        body: |a| {
            for r in [rbx, rbp, r12, r13, r14, r15] {
                a.xor(r, r)?;
            }
            a.ret()
        },
        out: None,
        problems: &[
            "rbx clobbered: 0x0 != canary 0xca11ee5afe000003",
            "rbp clobbered: 0x0 != canary 0xca11ee5afe000005",
            "r12 clobbered: 0x0 != canary 0xca11ee5afe00000c",
            "r13 clobbered: 0x0 != canary 0xca11ee5afe00000d",
            "r14 clobbered: 0x0 != canary 0xca11ee5afe00000e",
            "r15 clobbered: 0x0 != canary 0xca11ee5afe00000f",
        ],
    },
    Case {
        name: "restores rbx from the wrong slot",
        body: |a| {
            a.push(rbx)?;
            a.push(rbp)?;
            a.pop(rbx)?;
            a.pop(rbp)?;
            a.ret()
        },
        out: None,
        problems: &[
            "rbx clobbered: 0xca11ee5afe000005 != canary 0xca11ee5afe000003",
            "rbp clobbered: 0xca11ee5afe000003 != canary 0xca11ee5afe000005",
        ],
    },
    Case {
        name: "rsp 8 lower: sub rsp, 8 and the return address copied down",
        body: |a| {
            a.sub(rsp, 8)?;
            a.mov(rax, qword_ptr(rsp + 8))?;
            a.mov(qword_ptr(rsp), rax)?;
            a.ret()
        },
        out: None,
        problems: &["rsp changed by -8"],
    },
    Case {
        name: "rsp 40 lower: a frame never released",
        body: |a| {
            a.sub(rsp, 40)?;
            a.mov(rax, qword_ptr(rsp + 40))?;
            a.mov(qword_ptr(rsp), rax)?;
            a.mov(qword_ptr(rdi), 7)?;
            a.ret()
        },
        out: Some(7),
        problems: &["rsp changed by -40"],
    },
    Case {
        name: "rsp 8 higher: pop the return address, store it over the canary",
        body: |a| {
            a.pop(rax)?;
            a.mov(qword_ptr(rsp), rax)?;
            a.ret()
        },
        out: None,
        problems: &[
            "rsp changed by 8",
            "stack canary above the return address overwritten: [entry rsp+8] = 0x",
        ],
    },
    Case {
        name: "writes the canary just above the return address",
        body: |a| {
            a.mov(qword_ptr(rsp + 8), 0)?;
            a.ret()
        },
        out: None,
        problems: &["stack canary above the return address overwritten: [entry rsp+8] = 0x0 != canary 0x57acca4a42000000"],
    },
    Case {
        name: "writes 64 bytes above the return address",
        body: |a| {
            a.mov(qword_ptr(rsp + 64), rdi)?;
            a.ret()
        },
        out: None,
        problems: &["stack canary above the return address overwritten: [entry rsp+64] = 0x"],
    },
    Case {
        name: "writes an argument slot the caller never reserved ([rbp+16])",
        body: |a| {
            a.push(rbp)?;
            a.mov(rbp, rsp)?;
            a.mov(qword_ptr(rbp + 16), -1)?;
            a.mov(qword_ptr(rbp + 24), -1)?;
            a.pop(rbp)?;
            a.ret()
        },
        out: None,
        problems: &[
            "stack canary above the return address overwritten: [entry rsp+8] = 0xffffffffffffffff",
            "stack canary above the return address overwritten: [entry rsp+16] = 0xffffffffffffffff",
        ],
    },
    Case {
        name: "leaves the direction flag set",
        body: |a| {
            a.std()?;
            a.ret()
        },
        out: None,
        problems: &["direction flag left set"],
    },
    Case {
        name: "leaves the alignment-check flag set",
        body: |a| {
            a.pushfq()?;
            a.or(dword_ptr(rsp), 1 << 18)?;
            a.popfq()?;
            a.ret()
        },
        out: None,
        problems: &["alignment-check flag left set"],
    },
    Case {
        name: "changes the SSE rounding mode",
        body: |a| {
            a.stmxcsr(dword_ptr(rsp - 8))?;
            a.or(dword_ptr(rsp - 8), 0x6000)?;
            a.ldmxcsr(dword_ptr(rsp - 8))?;
            a.ret()
        },
        out: None,
        problems: &["MXCSR control bits changed: 0x1f8"],
    },
    Case {
        name: "changes the x87 control word",
        body: |a| {
            a.fnstcw(word_ptr(rsp - 8))?;
            a.or(word_ptr(rsp - 8), 0x0C00)?;
            a.fldcw(word_ptr(rsp - 8))?;
            a.ret()
        },
        out: None,
        problems: &["x87 control word changed: 0x037f -> 0x0f7f"],
    },
    Case {
        name: "everything at once",
        body: |a| {
            a.xor(ebx, ebx)?;
            a.mov(r14, rdi)?;
            a.sub(rsp, 16)?;
            a.mov(rax, qword_ptr(rsp + 16))?;
            a.mov(qword_ptr(rsp), rax)?;
            a.mov(qword_ptr(rsp + 40), 5)?;
            a.std()?;
            a.ret()
        },
        out: None,
        problems: &[
            "rbx clobbered: 0x0 != canary",
            "r14 clobbered: 0x",
            "rsp changed by -16",
            "stack canary above the return address overwritten: [entry rsp+24] = 0x5 != canary 0x57acca4a42000002",
            "direction flag left set",
        ],
    },
];

#[test]
fn good_functions_are_ok() {
    let mut h = Harness::new();
    for case in GOOD {
        h.check(case);
    }
}

#[test]
fn bad_functions_are_reported() {
    let mut h = Harness::new();
    for case in BAD {
        h.check(case);
    }
    // And once more in a different order, on the same trampoline.
    for case in BAD.iter().rev() {
        h.check(case);
    }
}

#[test]
fn problems_carry_the_values() {
    let h = Harness::new();
    let f = ExecMem::new(&assemble(|a| {
        a.mov(r13, 42u64)?;
        a.mov(qword_ptr(rsp + 8), 7)?;
        a.ret()
    }))
    .unwrap();
    let (r, _) = run(&h.t, f.ptr());
    assert_eq!(
        r.unwrap_err().problems,
        vec![
            AbiProblem::Clobbered {
                reg: CalleeSaved::R13,
                found: 42,
                canary: CalleeSaved::R13.canary(),
            },
            AbiProblem::StackCanary {
                word: 0,
                found: 7,
                canary: STACK_CANARIES[0],
            },
        ]
    );
    let e = Error::from(run(&h.t, f.ptr()).0.unwrap_err());
    assert!(
        e.to_string()
            .starts_with("ABI violation: r13 clobbered: 0x2a"),
        "{e}"
    );
}

/// The caller's callee-saved registers survive callees that clobber them: values live
/// across the calls sit in rbx, rbp, r12–r15 in optimized Rust code.
#[test]
fn caller_registers_survive() {
    let h = Harness::new();
    let clobber = ExecMem::new(&assemble(|a| {
        for r in [rbx, rbp, r12, r13, r14, r15] {
            a.mov(r, 0xdead_u64)?;
        }
        a.ret()
    }))
    .unwrap();
    let seeds: [u64; 8] = std::hint::black_box([1, 2, 3, 4, 5, 6, 7, 8]);
    let [mut x0, mut x1, mut x2, mut x3, mut x4, mut x5, mut x6, mut x7] = seeds;
    for i in 0..1000u64 {
        let (r, _) = run(&h.t, clobber.ptr());
        assert_eq!(r.unwrap_err().problems.len(), 6);
        x0 = x0.wrapping_mul(3).wrapping_add(i);
        x1 = x1.wrapping_add(x0);
        x2 ^= x1.rotate_left(7);
        x3 = x3.wrapping_add(x2);
        x4 ^= x3.rotate_left(13);
        x5 = x5.wrapping_add(x4);
        x6 ^= x5.rotate_left(17);
        x7 = x7.wrapping_add(x6);
    }
    let (mut y0, mut y1, mut y2, mut y3, mut y4, mut y5, mut y6, mut y7) =
        (1u64, 2u64, 3u64, 4u64, 5u64, 6u64, 7u64, 8u64);
    for i in 0..1000u64 {
        y0 = y0.wrapping_mul(3).wrapping_add(i);
        y1 = y1.wrapping_add(y0);
        y2 ^= y1.rotate_left(7);
        y3 = y3.wrapping_add(y2);
        y4 ^= y3.rotate_left(13);
        y5 = y5.wrapping_add(y4);
        y6 ^= y5.rotate_left(17);
        y7 = y7.wrapping_add(y6);
    }
    assert_eq!(
        [x0, x1, x2, x3, x4, x5, x6, x7],
        [y0, y1, y2, y3, y4, y5, y6, y7]
    );
}

/// One trampoline per thread (it is `Send`, not `Sync`).
#[test]
fn one_trampoline_per_thread() {
    let threads: Vec<_> = (0..4)
        .map(|_| {
            std::thread::spawn(|| {
                let h = Harness::new();
                for _ in 0..10_000 {
                    let (r, out) = run(&h.t, h.add.ptr());
                    assert_eq!(r, Ok(()));
                    assert_eq!(out[0], A.wrapping_add(B));
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

#[test]
fn exec_mem_is_page_aligned_and_read_exec() {
    let code = assemble(add);
    let m = ExecMem::new(&code).unwrap();
    assert_eq!(m.ptr() as usize % PAGE, 0);
    assert_eq!(m.capacity(), PAGE);
    assert_eq!(m.code(), &code[..]);
    assert_eq!(perms_of(m.ptr() as usize), "r-xp");
    // The rest of the page is int3.
    // SAFETY: the whole page is mapped and readable.
    let page = unsafe { std::slice::from_raw_parts(m.ptr(), PAGE) };
    assert!(page[code.len()..].iter().all(|&b| b == 0xCC));

    let empty = ExecMem::new(&[]).unwrap();
    assert!(empty.is_empty());
    assert_eq!(empty.capacity(), PAGE);
    assert_eq!(perms_of(empty.ptr() as usize), "r-xp");
}

#[test]
fn exec_mem_reloads() {
    let t = Trampoline::new().unwrap();
    let mut m = ExecMem::with_capacity(100).unwrap();
    assert_eq!(m.capacity(), PAGE);
    assert!(m.is_empty());
    assert_eq!(perms_of(m.ptr() as usize), "r-xp");
    let ptr = m.ptr();

    // `nop`s (to vary the length), then `out[0] = v`.
    let build = |v: u64, pad: usize| {
        let mut a = CodeAssembler::new(64).unwrap();
        for _ in 0..pad {
            a.nop().unwrap();
        }
        a.mov(qword_ptr(rdi), v as i32).unwrap();
        a.ret().unwrap();
        a.assemble(0).unwrap()
    };
    let mut longest = 0;
    for (v, pad) in [(1, 0), (2, 200), (3, 10), (4, 0)] {
        let code = build(v, pad);
        m.load(&code).unwrap();
        assert_eq!(m.ptr(), ptr, "same mapping");
        assert_eq!(m.code(), &code[..]);
        assert_eq!(perms_of(m.ptr() as usize), "r-xp", "after load {v}");
        let (r, out) = run(&t, m.ptr());
        assert_eq!(r, Ok(()));
        assert_eq!(out[0], v);
        longest = longest.max(code.len());
        // SAFETY: the page is mapped and readable.
        let page = unsafe { std::slice::from_raw_parts(m.ptr(), PAGE) };
        assert!(
            page[code.len()..longest].iter().all(|&b| b == 0xCC),
            "old code behind the new is int3"
        );
    }

    let err = m.load(&vec![0x90; PAGE + 1]).unwrap_err();
    assert!(
        matches!(err, Error::CodeTooLarge { len, capacity } if len == PAGE + 1 && capacity == PAGE)
    );
    assert_eq!(
        err.to_string(),
        "4097 bytes of code do not fit an executable mapping of 4096 bytes"
    );
    // A refused load leaves the old code in place and runnable.
    let (r, out) = run(&t, m.ptr());
    assert_eq!((r, out[0]), (Ok(()), 4));
}

/// `inc rax` 3000 times (9 kB: three pages) then `mov [rdi], rax; ret`.
fn three_pages(a: &mut CodeAssembler) -> Result<(), IcedError> {
    a.xor(eax, eax)?;
    for _ in 0..3000 {
        a.inc(rax)?;
    }
    a.mov(qword_ptr(rdi), rax)?;
    a.ret()
}

#[test]
fn three_page_program() {
    let t = Trampoline::new().unwrap();
    let code = assemble(three_pages);
    assert!(
        code.len() > 2 * PAGE && code.len() <= 3 * PAGE,
        "{} bytes",
        code.len()
    );

    let fresh = ExecMem::new(&code).unwrap();
    let mut reused = ExecMem::with_capacity(3 * PAGE).unwrap();
    reused.load(&assemble(add)).unwrap();
    reused.load(&code).unwrap();
    for m in [&fresh, &reused] {
        assert_eq!(m.capacity(), 3 * PAGE);
        for page in 0..3 {
            assert_eq!(
                perms_of(m.ptr() as usize + page * PAGE),
                "r-xp",
                "page {page}"
            );
        }
        let (r, out) = run(&t, m.ptr());
        assert_eq!(r, Ok(()));
        assert_eq!(out[0], 3000);
    }
}

/// Cost of one checked call (run with `--ignored --nocapture`, in release).
#[test]
#[ignore = "a timing report, not a test: run with --ignored --nocapture in release"]
fn call_cost() {
    let h = Harness::new();
    let n = 10_000_000;
    let start = std::time::Instant::now();
    for _ in 0..n {
        let (r, _) = run(&h.t, h.add.ptr());
        assert!(r.is_ok());
    }
    let ns = start.elapsed().as_secs_f64() * 1e9 / n as f64;
    println!("{ns:.1} ns per checked call (including the callee)");
}

/// `out[0] = Σ` of the arguments after `out` up to `MAX_ARGS` (five in registers, the
/// rest in the words above the return address).
fn sum_all(a: &mut CodeAssembler) -> Result<(), IcedError> {
    a.mov(rax, rsi)?;
    for r in [rdx, rcx, r8, r9] {
        a.add(rax, r)?;
    }
    for k in 0..cryptopt_measure::exec::MAX_ARGS - 6 {
        a.add(rax, qword_ptr(rsp + 8 + 8 * k as i32))?;
    }
    a.mov(qword_ptr(rdi), rax)?;
    a.ret()
}

/// `sum_all` that also overwrites its seventh argument.
fn sum_all_writing(a: &mut CodeAssembler) -> Result<(), IcedError> {
    a.mov(qword_ptr(rsp + 8), 0)?;
    sum_all(a)
}

/// Arguments after the sixth reach the callee in the words above its return address,
/// which must hold them unchanged after the call; a call with fewer arguments finds
/// canaries there again.
#[test]
fn stack_passed_arguments() {
    use cryptopt_measure::exec::MAX_ARGS;
    let t = Trampoline::new().unwrap();
    let (good, bad) = (
        ExecMem::new(&assemble(sum_all)).unwrap(),
        ExecMem::new(&assemble(sum_all_writing)).unwrap(),
    );
    let mut out = [0u64; 4];
    let mut args: Vec<u64> = (0..MAX_ARGS as u64).map(|k| 1 << k).collect();
    args[0] = out.as_mut_ptr() as u64;
    // SAFETY: `sum_all` writes out[0] and reads its arguments only.
    let r = unsafe { t.call(good.ptr(), &args) };
    assert_eq!(r, Ok(()));
    assert_eq!(out[0], (1 << MAX_ARGS) - 2, "every argument arrived");

    // SAFETY: as above; it also writes its own seventh argument's word.
    let r = unsafe { t.call(bad.ptr(), &args) };
    let problems = r.unwrap_err().problems;
    assert_eq!(
        problems,
        [AbiProblem::StackCanary {
            word: 0,
            found: 0,
            canary: 1 << 6
        }]
    );
    assert_eq!(out[0], (1 << MAX_ARGS) - 2 - (1 << 6));

    // With six arguments the words hold the canaries, which `sum_all` now adds.
    let six = &args[..6];
    // SAFETY: as above (it reads the canary words as arguments).
    let r = unsafe { t.call(good.ptr(), six) };
    assert_eq!(r, Ok(()));
    let canaries = STACK_CANARIES[..MAX_ARGS - 6]
        .iter()
        .fold(0u64, |acc, &c| acc.wrapping_add(c));
    assert_eq!(out[0], 0b111110u64.wrapping_add(canaries));
}

/// The Windows x64 form of `sum_all`: `out` in rcx, then rdx, r8, r9, then the words
/// above the 32-byte home space, which it scribbles on (the callee's to use).
fn sum_all_win64(a: &mut CodeAssembler) -> Result<(), IcedError> {
    a.mov(rax, rdx)?;
    for r in [r8, r9] {
        a.add(rax, r)?;
    }
    for k in 0..cryptopt_measure::exec::MAX_ARGS - 4 {
        a.add(rax, qword_ptr(rsp + 40 + 8 * k as i32))?;
    }
    for k in 0..4 {
        a.mov(qword_ptr(rsp + 8 + 8 * k), r9)?;
    }
    a.mov(qword_ptr(rcx), rax)?;
    a.ret()
}

/// Under Windows x64 the trampoline passes the first four arguments in rcx, rdx, r8,
/// r9 and the rest above the home space, lets the callee write its home space, and holds
/// it to rdi and rsi as well as rbx, rbp, r12–r15 (which System V leaves to the callee).
#[test]
fn win64_arguments_home_space_and_saved_registers() {
    use cryptopt_measure::exec::MAX_ARGS;
    use cryptopt_x86::Abi;
    let t = Trampoline::with_abi(Abi::Win64).unwrap();
    let good = ExecMem::new(&assemble(sum_all_win64)).unwrap();
    let mut out = [0u64; 4];
    let mut args: Vec<u64> = (0..MAX_ARGS as u64).map(|k| 1 << k).collect();
    args[0] = out.as_mut_ptr() as u64;
    // SAFETY: it writes out[0] and its home space, and reads its arguments only.
    let r = unsafe { t.call(good.ptr(), &args) };
    assert_eq!(r, Ok(()));
    assert_eq!(out[0], (1 << MAX_ARGS) - 2, "every argument arrived");
    // With four arguments (it scribbled on its home space before) the words above the
    // home space hold canaries again, which it now adds.
    // SAFETY: as above (it reads the canary words as arguments).
    let r = unsafe { t.call(good.ptr(), &args[..4]) };
    assert_eq!(r, Ok(()));
    let canaries = STACK_CANARIES[4..4 + MAX_ARGS - 4]
        .iter()
        .fold(0u64, |acc, &c| acc.wrapping_add(c));
    assert_eq!(out[0], 0b1110u64.wrapping_add(canaries));

    // (a callee's body ending in ret, whether the System V / Windows trampolines object)
    let cases: [(&str, Body, bool, bool); 4] = [
        (
            "clobbers rsi",
            |a| {
                a.mov(rsi, 1u64)?;
                a.ret()
            },
            false,
            true,
        ),
        (
            "clobbers rdi",
            |a| {
                a.mov(rdi, 1u64)?;
                a.ret()
            },
            false,
            true,
        ),
        (
            "clobbers r12",
            |a| {
                a.mov(r12, 1u64)?;
                a.ret()
            },
            true,
            true,
        ),
        (
            "writes [rsp + 40]",
            |a| {
                a.mov(qword_ptr(rsp + 40), 0)?;
                a.ret()
            },
            true,
            true,
        ),
    ];
    let sysv = Trampoline::new().unwrap();
    for (what, body, bad_sysv, bad_win64) in cases {
        let f = ExecMem::new(&assemble(body)).unwrap();
        // Five words: on System V all in registers, so [rsp + 40] is a canary; on
        // Windows the fifth argument.
        let five = [1u64, 2, 3, 4, 5];
        for (tr, want, abi) in [(&sysv, bad_sysv, "sysv"), (&t, bad_win64, "win64")] {
            // SAFETY: the bodies write a register or one stack word, then return.
            let r = unsafe { tr.call(f.ptr(), &five) };
            assert_eq!(r.is_err(), want, "{what} under {abi}: {r:?}");
        }
    }
}
