//! Helpers shared by the integration tests (included with `mod common;`): the table of
//! operand forms code generation uses, random valid instructions of those forms, and the
//! external assemblers.
//!
//! The form table is written from the Intel manual's point of view, independently of
//! `encode.rs`'s match: every form listed here must print, parse back and encode, and
//! encode as NASM does.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use cryptopt_x86::{Inst, Mem, Mnemonic, Operand, Reg, Size, VReg};
use proptest::prelude::*;
use proptest::strategy::{BoxedStrategy, Strategy, ValueTree};
use proptest::test_runner::TestRunner;

/// The kind of one operand in a form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum K {
    /// Any register of the width.
    R(Size),
    /// Any vector register of the width (`xmm` 128, `ymm` 256).
    V(Size),
    /// The accumulator of the width (`al`, `eax`, `rax`): short forms.
    Acc(Size),
    /// `cl`, as a shift count.
    Cl,
    /// A random memory operand of the width.
    M(Size),
    /// `lea`'s memory operand (its size is canonically qword).
    Addr,
    /// An immediate valid for an operation of the width (imm8, imm16 or imm32; for 64
    /// bits a sign-extended imm32).
    I(Size),
    /// Any 64-bit immediate (`mov r64, imm64`).
    I64,
    /// A count or bit index `0..=255`.
    Count,
    /// The immediate 1 (`shl r/m, 1`).
    One,
}

use Size::{B128, B16, B256, B32, B64, B8};
use K::*;

/// Every (mnemonic, operand kinds) form code generation may emit, and then some.
pub fn forms() -> Vec<(Mnemonic, Vec<K>)> {
    use Mnemonic::*;
    let mut f: Vec<(Mnemonic, Vec<K>)> = Vec::new();
    let mut add = |mn, ks: &[K]| f.push((mn, ks.to_vec()));
    for s in [B8, B16, B32, B64] {
        add(Mov, &[R(s), R(s)]);
        add(Mov, &[R(s), M(s)]);
        add(Mov, &[M(s), R(s)]);
        add(Mov, &[M(s), I(s)]);
        if s != B64 {
            add(Mov, &[R(s), I(s)]);
        }
        for mn in [Add, Adc, Sub, Sbb, And, Or, Xor, Cmp] {
            add(mn, &[R(s), R(s)]);
            add(mn, &[M(s), R(s)]);
            add(mn, &[R(s), M(s)]);
            add(mn, &[R(s), I(s)]);
            add(mn, &[Acc(s), I(s)]);
            add(mn, &[M(s), I(s)]);
        }
        add(Test, &[R(s), R(s)]);
        add(Test, &[M(s), R(s)]);
        add(Test, &[R(s), M(s)]);
        add(Test, &[R(s), I(s)]);
        add(Test, &[Acc(s), I(s)]);
        add(Test, &[M(s), I(s)]);
        for mn in [Inc, Dec, Neg, Not, Mul, Imul] {
            add(mn, &[R(s)]);
            add(mn, &[M(s)]);
        }
        for mn in [Shl, Shr, Sar] {
            add(mn, &[R(s), Count]);
            add(mn, &[M(s), Count]);
            add(mn, &[R(s), One]);
            add(mn, &[R(s), Cl]);
            add(mn, &[M(s), Cl]);
        }
    }
    add(Mov, &[R(B64), I64]);
    add(Mov, &[Acc(B64), I64]);
    for s in [B16, B32, B64] {
        add(Movzx, &[R(s), R(B8)]);
        add(Movzx, &[R(s), M(B8)]);
        add(Lea, &[R(s), Addr]);
        add(Imul, &[R(s), R(s)]);
        add(Imul, &[R(s), M(s)]);
        add(Imul, &[R(s), R(s), I(s)]);
        add(Imul, &[R(s), M(s), I(s)]);
        add(Bt, &[R(s), R(s)]);
        add(Bt, &[M(s), R(s)]);
        add(Bt, &[R(s), Count]);
        add(Bt, &[M(s), Count]);
        for mn in [Shld, Shrd] {
            add(mn, &[R(s), R(s), Count]);
            add(mn, &[M(s), R(s), Count]);
            add(mn, &[R(s), R(s), Cl]);
            add(mn, &[M(s), R(s), Cl]);
        }
        for mn in [Cmovc, Cmovnc, Cmovo, Cmovno, Cmovz, Cmovnz] {
            add(mn, &[R(s), R(s)]);
            add(mn, &[R(s), M(s)]);
        }
    }
    for s in [B32, B64] {
        add(Movzx, &[R(s), R(B16)]);
        add(Movzx, &[R(s), M(B16)]);
        for mn in [Adcx, Adox] {
            add(mn, &[R(s), R(s)]);
            add(mn, &[R(s), M(s)]);
        }
        add(Mulx, &[R(s), R(s), R(s)]);
        add(Mulx, &[R(s), R(s), M(s)]);
        for mn in [Shlx, Shrx, Sarx, Bzhi] {
            add(mn, &[R(s), R(s), R(s)]);
            add(mn, &[R(s), M(s), R(s)]);
        }
        add(Rorx, &[R(s), R(s), Count]);
        add(Rorx, &[R(s), M(s), Count]);
    }
    add(Xchg, &[R(B64), R(B64)]);
    add(Xchg, &[Acc(B64), R(B64)]);
    add(Xchg, &[R(B64), Acc(B64)]);
    add(Xchg, &[R(B64), M(B64)]);
    add(Xchg, &[M(B64), R(B64)]);
    for mn in [Setc, Seto, Setz, Setnz] {
        add(mn, &[R(B8)]);
        add(mn, &[M(B8)]);
    }
    for mn in [Push, Pop] {
        add(mn, &[R(B64)]);
        add(mn, &[M(B64)]);
    }
    for mn in [Clc, Stc, Ret, Endbr64] {
        add(mn, &[]);
    }
    for s in [B16, B32, B64] {
        add(Movsx, &[R(s), R(B8)]);
        add(Movsx, &[R(s), M(B8)]);
    }
    for s in [B32, B64] {
        add(Movsx, &[R(s), R(B16)]);
        add(Movsx, &[R(s), M(B16)]);
        add(Bextr, &[R(s), R(s), R(s)]);
        add(Bextr, &[R(s), M(s), R(s)]);
    }
    add(Movsx, &[R(B64), R(B32)]);
    add(Movsx, &[R(B64), M(B32)]);
    // The AVX2 instructions compilers use (foreign code only; code generation never
    // emits them).
    add(Vmovq, &[V(B128), R(B64)]);
    add(Vmovq, &[R(B64), V(B128)]);
    add(Vmovq, &[V(B128), M(B64)]);
    add(Vmovq, &[M(B64), V(B128)]);
    add(Vmovq, &[V(B128), V(B128)]);
    for mn in [Vmovdqu, Vmovdqa] {
        for s in [B128, B256] {
            add(mn, &[V(s), V(s)]);
            add(mn, &[V(s), M(s)]);
            add(mn, &[M(s), V(s)]);
        }
    }
    add(Vpinsrq, &[V(B128), V(B128), R(B64), Count]);
    add(Vpinsrq, &[V(B128), V(B128), M(B64), Count]);
    add(Vpextrq, &[R(B64), V(B128), Count]);
    add(Vpextrq, &[M(B64), V(B128), Count]);
    add(Vinserti128, &[V(B256), V(B256), V(B128), Count]);
    add(Vinserti128, &[V(B256), V(B256), M(B128), Count]);
    add(Vextracti128, &[V(B128), V(B256), Count]);
    add(Vextracti128, &[M(B128), V(B256), Count]);
    for s in [B128, B256] {
        add(Vpbroadcastq, &[V(s), V(B128)]);
        add(Vpbroadcastq, &[V(s), M(B64)]);
        for mn in [Vpunpcklqdq, Vpand, Vpandq, Vpor, Vpxor, Vpaddq, Vpsubq] {
            add(mn, &[V(s), V(s), V(s)]);
            add(mn, &[V(s), V(s), M(s)]);
        }
    }
    add(Vpmovsxbw, &[V(B128), V(B128)]);
    add(Vpmovsxbw, &[V(B128), M(B64)]);
    add(Vpmovsxbw, &[V(B256), V(B128)]);
    add(Vpmovsxbw, &[V(B256), M(B128)]);
    add(Vzeroupper, &[]);
    for s in [B128, B256] {
        for mn in [Vpsrlq, Vpsllq] {
            add(mn, &[V(s), V(s), Count]);
        }
        add(Vpblendd, &[V(s), V(s), V(s), Count]);
        add(Vpblendd, &[V(s), V(s), M(s), Count]);
        for mn in [Vpmullq, Vpmadd52luq, Vpmadd52huq] {
            add(mn, &[V(s), V(s), V(s)]);
            add(mn, &[V(s), V(s), M(s)]);
        }
    }
    add(Vpermq, &[V(B256), V(B256), Count]);
    add(Vpermq, &[V(B256), M(B256), Count]);
    f
}

fn reg() -> impl Strategy<Value = Reg> {
    (0u8..16).prop_map(Reg::from_index)
}

/// `[base + index*scale + disp]`: mostly a base, sometimes an index (never `rsp`),
/// displacements of every encoding size, and the special bases `rsp`/`rbp`/`r12`/`r13`.
fn mem(size: Size) -> BoxedStrategy<Mem> {
    let base = prop_oneof![
        6 => reg().prop_map(Some),
        2 => prop::sample::select(vec![Reg::Rsp, Reg::Rbp, Reg::R12, Reg::R13]).prop_map(Some),
        1 => Just(None),
    ];
    let index = prop_oneof![
        2 => Just(None),
        1 => reg().prop_filter("rsp is no index", |r| *r != Reg::Rsp).prop_map(Some),
    ];
    let disp = prop_oneof![
        3 => Just(0i32),
        3 => -128i32..128,
        1 => prop::sample::select(vec![-129, 128, i32::MIN, i32::MAX]),
        1 => any::<i32>(),
    ];
    (base, index, prop::sample::select(vec![1u8, 2, 4, 8]), disp)
        .prop_map(move |(base, index, scale, disp)| Mem {
            base,
            index,
            scale: if index.is_some() { scale } else { 1 },
            disp,
            size,
            ..Mem::ZERO
        })
        .boxed()
}

/// Immediates valid for an operation of width `s`, edges included.
fn imm(s: Size) -> BoxedStrategy<i64> {
    let (lo, hi): (i64, i64) = match s {
        B8 => (-0x80, 0xff),
        B16 => (-0x8000, 0xffff),
        B32 => (i32::MIN as i64, u32::MAX as i64),
        B64 | B128 | B256 => (i32::MIN as i64, i32::MAX as i64),
    };
    let edges: Vec<i64> = [lo, hi, -129, 128, 0]
        .into_iter()
        .filter(|v| (lo..=hi).contains(v))
        .collect();
    prop_oneof![
        3 => -128i64..128,
        1 => prop::sample::select(edges),
        2 => lo..=hi,
    ]
    .boxed()
}

pub fn operand(k: K) -> BoxedStrategy<Operand> {
    match k {
        R(s) => reg().prop_map(move |r| Operand::Reg(r, s)).boxed(),
        V(s) => (0u8..16)
            .prop_map(move |v| Operand::Vec(VReg(v), s))
            .boxed(),
        Acc(s) => Just(Operand::Reg(Reg::Rax, s)).boxed(),
        Cl => Just(Operand::Reg(Reg::Rcx, B8)).boxed(),
        M(s) => mem(s).prop_map(Operand::Mem).boxed(),
        Addr => mem(B64).prop_map(Operand::Mem).boxed(),
        I(s) => imm(s).prop_map(Operand::Imm).boxed(),
        I64 => {
            let edges = vec![
                i64::MIN,
                i64::MAX,
                u32::MAX as i64,
                1 << 32,
                -1,
                i32::MIN as i64 - 1,
            ];
            prop_oneof![
                2 => -128i64..128,
                1 => 0..=u32::MAX as i64,
                1 => i32::MIN as i64..0,
                2 => any::<i64>(),
                1 => prop::sample::select(edges),
            ]
            .prop_map(Operand::Imm)
            .boxed()
        }
        Count => prop_oneof![0i64..64, 0i64..=255]
            .prop_map(Operand::Imm)
            .boxed(),
        One => Just(Operand::Imm(1)).boxed(),
    }
}

pub fn form_inst(mn: Mnemonic, ks: &[K]) -> BoxedStrategy<Inst> {
    let ops: Vec<_> = ks.iter().map(|k| operand(*k)).collect();
    ops.prop_map(move |ops| Inst::new(mn, &ops)).boxed()
}

/// A random instruction of a random form.
pub fn inst() -> BoxedStrategy<Inst> {
    let forms = forms();
    prop::sample::select(forms)
        .prop_flat_map(|(mn, ks)| form_inst(mn, &ks))
        .boxed()
}

/// `n` instances of every form, the same on every run.
pub fn sample_every_form(n: usize) -> Vec<Inst> {
    let mut runner = TestRunner::deterministic();
    let mut out = Vec::new();
    for (mn, ks) in forms() {
        let s = form_inst(mn, &ks);
        for _ in 0..n {
            out.push(s.new_tree(&mut runner).unwrap().current());
        }
    }
    out
}

/// Whether `tool` runs (`tool -v` / `--version`); if not, prints why `test` is skipped.
pub fn have(tool: &str, test: &str) -> bool {
    let ok = Command::new(tool)
        .arg(if tool == "nasm" { "-v" } else { "--version" })
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("SKIPPED {test}: {tool} not found");
    }
    ok
}

/// A fresh scratch folder for one test, removed when dropped.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new(test: &str) -> TempDir {
        let d = std::env::temp_dir().join(format!("cryptopt-x86-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        TempDir(d)
    }
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What `nasm -f bin` makes of `src` (flat machine code), assembled in a fresh
/// directory for `test`.
pub fn nasm_bin(test: &str, src: &str) -> Vec<u8> {
    let dir = TempDir::new(test);
    let (asm, bin) = (dir.path().join("t.asm"), dir.path().join("t.bin"));
    std::fs::write(&asm, src).unwrap();
    run(Command::new("nasm")
        .args(["-f", "bin", "-o"])
        .arg(&bin)
        .arg(&asm));
    std::fs::read(&bin).unwrap()
}

/// Runs a command, panicking with its stderr if it fails.
pub fn run(cmd: &mut Command) {
    output(cmd);
}

/// Runs a command and returns its standard output, panicking with its stderr if it
/// fails.
pub fn output(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}
