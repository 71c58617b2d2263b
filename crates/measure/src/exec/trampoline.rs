//! The ABI-checking call trampoline.
//!
//! Memory of one [`Trampoline`] (two mappings):
//!
//! ```text
//!   code mapping (ExecMem, r-x)      the trampoline's machine code
//!
//!   data mapping, low to high:
//!     guard page        ---    a stack overflow faults here
//!     private stack     rw-    STACK_BYTES; the callee runs on it
//!       ...
//!       return address         ◀── rsp at the callee's entry (≡ 8 mod 16)
//!       stack words [0..14]    ◀── System V: the arguments after the sixth, then
//!                                  STACK_CANARIES; Windows x64: four words of the
//!                                  callee's home space, the arguments after the
//!                                  fourth, then canaries; written when they change
//!                                  or after a violation
//!     guard page        ---    ◀── stack top: a write further up faults here
//!     record page      rw-    Record: what the callee left behind
//! ```
//!
//! The trampoline, `tramp(f: rdi, args: rsi)`, for the calling convention it was made
//! for ([`cryptopt_x86::Abi`]: its argument registers and callee-saved registers):
//!
//! ```text
//!   push rbx, rbp, r12–r15            caller's callee-saved registers, on the caller's stack
//!   rax ← &record;  record.host_rsp ← rsp;  record MXCSR, x87 control word
//!   r11 ← f;  r10 ← args
//!   rsp ← stack top − 112;  record.rsp_before ← rsp (≡ 0 mod 16)
//!   rbx, rbp, rdi, rsi, r12–r15 ← REGISTER_CANARIES
//!   argument registers (rdi, rsi, rdx, rcx, r8, r9 | rcx, rdx, r8, r9) ← args[..]
//!   rax, r10 ← POISON;  cld
//!   call r11
//!   rax ← &record (an immediate: nothing the callee left in a register or in rsp is used)
//!   record.rsp_after ← rsp;  record.callee_saved ← rbx, rbp, rdi, rsi, r12–r15
//!   rsp ← record.rsp_before           even if the callee unbalanced it
//!   record.rflags ← rflags;  clear AC (if set) and DF
//!   record MXCSR and x87 control word; reload the caller's if they changed
//!   rsp ← record.host_rsp;  pop r15–rbx;  ret
//! ```
//!
//! Rust then compares the record and the canary words with what they must be.

use std::cell::Cell;
use std::fmt;
use std::marker::PhantomData;
use std::mem::{self, offset_of};
use std::ptr;

use cryptopt_x86::{Abi, Reg};
use iced_x86::code_asm::*;
use iced_x86::IcedError;
use thiserror::Error;

use super::mem::{page_size, round_to_pages, ExecMem, Mapping, Prot};
use crate::error::{Error, Result};

/// Size of the private stack the callee runs on.
pub const STACK_BYTES: usize = 64 * 1024;

/// Values of rbx, rbp, rdi, rsi, r12, r13, r14, r15 (in [`CalleeSaved::ALL`] order)
/// while the callee runs (rdi and rsi only where they are callee-saved: Windows x64).
/// Non-canonical addresses (dereferencing one faults) whose low byte is the register's
/// number.
pub const REGISTER_CANARIES: [u64; 8] = [
    0xCA11_EE5A_FE00_0003,
    0xCA11_EE5A_FE00_0005,
    0xCA11_EE5A_FE00_0007,
    0xCA11_EE5A_FE00_0006,
    0xCA11_EE5A_FE00_000C,
    0xCA11_EE5A_FE00_000D,
    0xCA11_EE5A_FE00_000E,
    0xCA11_EE5A_FE00_000F,
];

/// The words above the callee's return address: word `i` is at `[rsp + 8 + 8·i]` for
/// the rsp at the callee's entry, unless it holds a stack-passed argument (or is the
/// callee's home space, on Windows x64). Non-canonical addresses, so a callee whose
/// `ret` pops one of them faults at once instead of jumping somewhere.
pub const STACK_CANARIES: [u64; CANARY_WORDS] = [
    0x57AC_CA4A_4200_0000,
    0x57AC_CA4A_4200_0001,
    0x57AC_CA4A_4200_0002,
    0x57AC_CA4A_4200_0003,
    0x57AC_CA4A_4200_0004,
    0x57AC_CA4A_4200_0005,
    0x57AC_CA4A_4200_0006,
    0x57AC_CA4A_4200_0007,
    0x57AC_CA4A_4200_0008,
    0x57AC_CA4A_4200_0009,
    0x57AC_CA4A_4200_000A,
    0x57AC_CA4A_4200_000B,
    0x57AC_CA4A_4200_000C,
    0x57AC_CA4A_4200_000D,
];

/// What rax and r10 hold when the callee starts: a callee that reads them before writing
/// them computes garbage that output checks see (and faults if it dereferences them).
pub const POISON: u64 = 0xBADC_0FFE_E0DD_F00D;

const CANARY_WORDS: usize = 14;

/// The most arguments [`Trampoline::call`] passes under either convention: System V's
/// six in registers and eight in the stack words above the return address; Windows',
/// four in registers and ten above its home space.
pub const MAX_ARGS: usize = 14;
const _: () = assert!(MAX_ARGS <= 6 + CANARY_WORDS && MAX_ARGS <= 4 + CANARY_WORDS - 4);
const _: () = assert!(
    CANARY_WORDS.is_multiple_of(2),
    "rsp ≡ 0 (mod 16) at the call"
);
const RFLAGS_DF: u64 = 1 << 10;
const RFLAGS_AC: u64 = 1 << 18;
/// MXCSR bits 0–5 are sticky exception flags, which the callee may change; the rest
/// (DAZ, masks, rounding, FZ) are control bits it must preserve.
const MXCSR_CONTROL: u32 = !0x3F;

/// A general-purpose register that is callee-saved under some calling convention
/// ([`Abi::callee_saved`] says which under which).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CalleeSaved {
    Rbx,
    Rbp,
    Rdi,
    Rsi,
    R12,
    R13,
    R14,
    R15,
}

impl CalleeSaved {
    /// All eight, in the order of [`REGISTER_CANARIES`].
    pub const ALL: [CalleeSaved; 8] = [
        CalleeSaved::Rbx,
        CalleeSaved::Rbp,
        CalleeSaved::Rdi,
        CalleeSaved::Rsi,
        CalleeSaved::R12,
        CalleeSaved::R13,
        CalleeSaved::R14,
        CalleeSaved::R15,
    ];

    pub fn name(self) -> &'static str {
        match self {
            CalleeSaved::Rbx => "rbx",
            CalleeSaved::Rbp => "rbp",
            CalleeSaved::Rdi => "rdi",
            CalleeSaved::Rsi => "rsi",
            CalleeSaved::R12 => "r12",
            CalleeSaved::R13 => "r13",
            CalleeSaved::R14 => "r14",
            CalleeSaved::R15 => "r15",
        }
    }

    /// The value the register holds while the callee runs.
    pub fn canary(self) -> u64 {
        REGISTER_CANARIES[self as usize]
    }

    /// Whether `abi` makes the callee keep this register.
    pub fn kept_by(self, abi: Abi) -> bool {
        abi.is_callee_saved(self.reg())
    }

    fn reg(self) -> Reg {
        match self {
            CalleeSaved::Rbx => Reg::Rbx,
            CalleeSaved::Rbp => Reg::Rbp,
            CalleeSaved::Rdi => Reg::Rdi,
            CalleeSaved::Rsi => Reg::Rsi,
            CalleeSaved::R12 => Reg::R12,
            CalleeSaved::R13 => Reg::R13,
            CalleeSaved::R14 => Reg::R14,
            CalleeSaved::R15 => Reg::R15,
        }
    }

    fn asm(self) -> AsmRegister64 {
        match self {
            CalleeSaved::Rbx => rbx,
            CalleeSaved::Rbp => rbp,
            CalleeSaved::Rdi => rdi,
            CalleeSaved::Rsi => rsi,
            CalleeSaved::R12 => r12,
            CalleeSaved::R13 => r13,
            CalleeSaved::R14 => r14,
            CalleeSaved::R15 => r15,
        }
    }
}

impl fmt::Display for CalleeSaved {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One rule of the calling convention that a callee broke.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum AbiProblem {
    /// A callee-saved register does not hold its canary after the call.
    #[error("{reg} clobbered: {found:#x} != canary {canary:#x}")]
    Clobbered {
        reg: CalleeSaved,
        found: u64,
        canary: u64,
    },
    /// rsp after the return differs from rsp before the call (by `delta` bytes, after
    /// minus before). The trampoline restored it.
    #[error("rsp changed by {delta}")]
    RspChanged { delta: i64 },
    /// A word above the return address was written: word `word` is `[rsp + 8 + 8·word]`
    /// for the rsp at the callee's entry.
    #[error(
        "stack canary above the return address overwritten: [entry rsp+{}] = {found:#x} != canary {canary:#x}",
        8 + 8 * word
    )]
    StackCanary {
        word: usize,
        found: u64,
        canary: u64,
    },
    /// The direction flag was set on return (the trampoline cleared it).
    #[error("direction flag left set")]
    DirectionFlag,
    /// The alignment-check flag was set on return (the trampoline cleared it).
    #[error("alignment-check flag left set")]
    AlignmentCheck,
    /// MXCSR control bits (rounding, masks, DAZ, FZ) changed (the trampoline restored
    /// them). Exception flags may change.
    #[error("MXCSR control bits changed: {before:#06x} -> {after:#06x}")]
    Mxcsr { before: u32, after: u32 },
    /// The x87 control word changed (the trampoline restored it).
    #[error("x87 control word changed: {before:#06x} -> {after:#06x}")]
    X87ControlWord { before: u16, after: u16 },
}

/// The ways one call broke the System V calling convention (never empty), in a fixed
/// order: registers, rsp, stack canaries, flags, control words.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("ABI violation: {}", problems.iter().map(|p| p.to_string()).collect::<Vec<_>>().join("; "))]
pub struct AbiViolation {
    pub problems: Vec<AbiProblem>,
}

/// What the trampoline writes in its record page on every call.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
struct Record {
    /// The caller's rsp after the trampoline pushed its callee-saved registers.
    host_rsp: u64,
    rsp_before: u64,
    rsp_after: u64,
    /// rbx, rbp, rdi, rsi, r12, r13, r14, r15 after the call.
    callee_saved: [u64; 8],
    rflags: u64,
    mxcsr_before: u32,
    mxcsr_after: u32,
    x87cw_before: u16,
    x87cw_after: u16,
}

/// Calls generated functions with one calling convention (System V or Windows x64)
/// and checks that they respected it.
///
/// One instance has one private stack and one record page, so it is **not `Sync`**: use
/// it from one thread at a time (it is `Send`; give each measuring thread its own).
/// A call costs a few dozen instructions and no system call: about 11 ns including a
/// trivial callee, against 2.4 ns for calling the callee directly (Xeon under KVM).
///
/// What [`Trampoline::call`] detects:
///
/// * rbx, rbp, r12–r15 (and rdi, rsi on Windows) not restored
///   ([`AbiProblem::Clobbered`]);
/// * rsp after the return different from rsp before the call
///   ([`AbiProblem::RspChanged`]), as long as the callee's `ret` still popped the
///   trampoline's return address (e.g. `sub rsp, 8` with the return address copied
///   down, or the return address popped and stored back one slot higher);
/// * writes to the words above the return address ([`AbiProblem::StackCanary`]), but
///   for Windows' home space, which is the callee's;
/// * DF or AC left set, MXCSR control bits or the x87 control word changed; all are
///   repaired before returning to Rust.
///
/// What it cannot detect or survive:
///
/// * a `ret` that pops something other than the return address (`push rax; ret`,
///   `add rsp, 8; ret`): control goes elsewhere. When it pops a stack canary, the
///   non-canonical address faults at once (SIGSEGV), it never runs on;
/// * writes beyond the canary words above the return address (they hit the guard
///   page: SIGSEGV) or more than about [`STACK_BYTES`] below it (same); writes below
///   the red zone are legal-looking and not observed;
/// * a callee-saved register changed and changed back, or set to exactly its canary;
/// * writes through its pointer arguments out of bounds, reads of uninitialized
///   registers (rax and r10 hold [`POISON`]), infinite loops, vector registers
///   (Windows' callee-saved xmm6–xmm15 are the checker's to prove kept).
///
/// Signal handlers that run while the callee runs use the private stack too (unless
/// they have their own alternate stack), so it keeps room for them.
pub struct Trampoline {
    /// The trampoline's code.
    code: ExecMem,
    /// Guard page, private stack, guard page, record page; owns the memory `record` and
    /// `zone` point into.
    _data: Mapping,
    record: *mut Record,
    /// The words above the callee's return address.
    zone: *mut [u64; CANARY_WORDS],
    /// What they hold before a call and must hold after it: the stack-passed arguments
    /// of the last call, then canaries.
    expected: Cell<[u64; CANARY_WORDS]>,
    /// The calling convention it calls with.
    abi: Abi,
    /// Per register of [`CalleeSaved::ALL`]: all ones where the ABI keeps it, else 0 (the
    /// fast check masks with it instead of asking the ABI on every call).
    kept: [u64; 8],
    /// The first of the words above the return address the callee must keep (after
    /// Windows' home space).
    kept_from: usize,
    /// One record page and one stack: one thread at a time.
    _not_sync: PhantomData<Cell<()>>,
}

// SAFETY: the trampoline owns all the memory it points to; moving it to another thread
// moves that ownership. It is not `Sync` (PhantomData<Cell<()>>): two threads calling it
// at once would share the stack and the record.
unsafe impl Send for Trampoline {}

/// The entry point's type: `tramp(f, args)`.
type Entry = unsafe extern "sysv64" fn(*const u8, *const u64);

impl Trampoline {
    /// [`Trampoline::with_abi`] for System V.
    pub fn new() -> Result<Trampoline> {
        Trampoline::with_abi(Abi::SysV)
    }

    /// Maps the private stack and the record page and assembles the trampoline for them,
    /// calling with `abi`.
    pub fn with_abi(abi: Abi) -> Result<Trampoline> {
        let page = page_size();
        let stack = round_to_pages(STACK_BYTES);
        // guard | stack | guard | record
        let data = Mapping::new(page + stack + page + page)?;
        data.protect(0, page, Prot::None)?;
        data.protect(page + stack, page, Prot::None)?;
        // SAFETY: all offsets are inside the mapping (its length is the sum above).
        let (stack_top, record) = unsafe {
            (
                data.base().add(page + stack),
                data.base().add(page + stack + page).cast::<Record>(),
            )
        };
        // SAFETY: the zone is the last 64 bytes of the `rw-` stack; page-aligned top, so
        // aligned for u64.
        let zone = unsafe {
            stack_top
                .sub(8 * CANARY_WORDS)
                .cast::<[u64; CANARY_WORDS]>()
        };
        // SAFETY: `zone` is valid for writes and unshared.
        unsafe { zone.write(STACK_CANARIES) };

        let code = assemble(abi, record as u64, stack_top as u64).map_err(Error::Assemble)?;
        Ok(Trampoline {
            code: ExecMem::new(&code)?,
            _data: data,
            record,
            zone,
            expected: Cell::new(STACK_CANARIES),
            abi,
            kept: CalleeSaved::ALL.map(|r| if r.kept_by(abi) { u64::MAX } else { 0 }),
            kept_from: abi.home_space() as usize / 8,
            _not_sync: PhantomData,
        })
    }

    /// Calls `f(args[0], …)` on the private stack (in the ABI's argument registers,
    /// the rest in the words above the return address — and Windows' home space — which
    /// must hold them unchanged after the call) and checks that it kept the calling
    /// convention.
    ///
    /// # Panics
    ///
    /// With more than [`MAX_ARGS`] arguments (callers refuse such functions first).
    ///
    /// # Safety
    ///
    /// `f` must point to machine code, executable for the whole call, that returns
    /// (with `ret`, to the address it was called from — see [`Trampoline`] for what
    /// else is survivable), and whose memory accesses through its arguments are valid
    /// for what `args` point to. `f` must not call this same trampoline (it would reuse
    /// the private stack and the record under its own feet). The trampoline catches
    /// breaches of the calling convention, not arbitrary behaviour.
    pub unsafe fn call(&self, f: *const u8, args: &[u64]) -> Result<(), AbiViolation> {
        assert!(args.len() <= MAX_ARGS, "{} arguments", args.len());
        let nregs = self.abi.args().len();
        let mut regs = [0u64; 6];
        let n = args.len().min(nregs);
        regs[..n].copy_from_slice(&args[..n]);
        let mut words = STACK_CANARIES;
        if args.len() > nregs {
            let at = self.kept_from;
            words[at..at + args.len() - nregs].copy_from_slice(&args[nregs..]);
        }
        if words != self.expected.get() {
            self.expected.set(words);
            // SAFETY: `zone` is valid for writes and unshared (`self` is not Sync).
            unsafe { ptr::write_volatile(self.zone, words) };
        }
        // SAFETY: `code` holds the trampoline assembled by `assemble`, whose entry takes
        // (rdi = f, rsi = args) with the sysv64 convention and restores every register
        // and flag the convention asks the callee to keep. It only writes to our record
        // page and private stack (exclusive: `self` is not Sync, and `f` does not call
        // back into it), and `f`'s own behaviour is the caller's promise.
        unsafe {
            let entry: Entry = mem::transmute::<*const u8, Entry>(self.code.ptr());
            entry(f, regs.as_ptr());
        }
        self.check()
    }

    /// Compares the record and the canary words with what a well-behaved callee leaves.
    ///
    /// The fast path reads every field with one scalar volatile load of exactly the
    /// width the trampoline stored it with: a wider (vector) load spanning several
    /// stores that are still in flight cannot be store-forwarded and stalls: comparing
    /// whole arrays made a checked call cost 25 ns instead of 11 (Xeon, KVM).
    #[inline]
    fn check(&self) -> Result<(), AbiViolation> {
        let (r, zone) = (self.record, self.zone);
        // SAFETY: `record` and `zone` point into our `rw-` data mapping, aligned, and are
        // written by the trampoline behind the compiler's back (hence volatile).
        let bad = unsafe {
            let mut bad = 0u64;
            for (i, canary) in REGISTER_CANARIES.iter().enumerate() {
                bad |=
                    (ptr::read_volatile(&raw const (*r).callee_saved[i]) ^ canary) & self.kept[i];
            }
            bad |= ptr::read_volatile(&raw const (*r).rsp_after)
                ^ ptr::read_volatile(&raw const (*r).rsp_before);
            for (i, word) in self.expected.get().iter().enumerate().skip(self.kept_from) {
                bad |= ptr::read_volatile(&raw const (*zone)[i]) ^ word;
            }
            bad |= ptr::read_volatile(&raw const (*r).rflags) & (RFLAGS_DF | RFLAGS_AC);
            bad |= u64::from(
                (ptr::read_volatile(&raw const (*r).mxcsr_before)
                    ^ ptr::read_volatile(&raw const (*r).mxcsr_after))
                    & MXCSR_CONTROL,
            );
            bad |= u64::from(
                ptr::read_volatile(&raw const (*r).x87cw_before)
                    ^ ptr::read_volatile(&raw const (*r).x87cw_after),
            );
            bad
        };
        if bad == 0 {
            Ok(())
        } else {
            Err(self.violation())
        }
    }

    /// Lists the problems (slow path: only after a violation).
    #[cold]
    #[inline(never)]
    fn violation(&self) -> AbiViolation {
        // SAFETY: as in `check`.
        let (rec, zone) = unsafe {
            (
                &ptr::read_volatile(self.record),
                &ptr::read_volatile(self.zone),
            )
        };
        let mut problems = Vec::new();
        for ((reg, &found), &kept) in CalleeSaved::ALL
            .iter()
            .zip(&rec.callee_saved)
            .zip(&self.kept)
        {
            if kept != 0 && found != reg.canary() {
                problems.push(AbiProblem::Clobbered {
                    reg: *reg,
                    found,
                    canary: reg.canary(),
                });
            }
        }
        if rec.rsp_after != rec.rsp_before {
            problems.push(AbiProblem::RspChanged {
                delta: rec.rsp_after.wrapping_sub(rec.rsp_before) as i64,
            });
        }
        let expected = self.expected.get();
        for (word, (&found, &canary)) in zone.iter().zip(&expected).enumerate() {
            if word >= self.kept_from && found != canary {
                problems.push(AbiProblem::StackCanary {
                    word,
                    found,
                    canary,
                });
            }
        }
        if zone[self.kept_from..] != expected[self.kept_from..] {
            // SAFETY: as in `check`; the next call must start from intact words.
            unsafe { ptr::write_volatile(self.zone, expected) };
        }
        if rec.rflags & RFLAGS_DF != 0 {
            problems.push(AbiProblem::DirectionFlag);
        }
        if rec.rflags & RFLAGS_AC != 0 {
            problems.push(AbiProblem::AlignmentCheck);
        }
        if (rec.mxcsr_before ^ rec.mxcsr_after) & MXCSR_CONTROL != 0 {
            problems.push(AbiProblem::Mxcsr {
                before: rec.mxcsr_before,
                after: rec.mxcsr_after,
            });
        }
        if rec.x87cw_before != rec.x87cw_after {
            problems.push(AbiProblem::X87ControlWord {
                before: rec.x87cw_before,
                after: rec.x87cw_after,
            });
        }
        debug_assert!(!problems.is_empty());
        AbiViolation { problems }
    }
}

impl fmt::Debug for Trampoline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Trampoline")
            .field("code", &self.code.ptr())
            .field("record", &self.record)
            .field("stack_top", &self.zone.wrapping_add(1))
            .finish()
    }
}

/// iced's name of a general-purpose register.
fn gpr64(r: Reg) -> AsmRegister64 {
    [
        rax, rcx, rdx, rbx, rsp, rbp, rsi, rdi, r8, r9, r10, r11, r12, r13, r14, r15,
    ][r.index()]
}

/// `[rax + offset of field]` in the record.
macro_rules! rec {
    ($size:ident, $field:ident) => {
        $size(rax + offset_of!(Record, $field) as i32)
    };
}

/// Assembles the trampoline (see the module docs) calling with `abi`, for a record at
/// `record` and a private stack whose top (exclusive, page-aligned) is `stack_top`.
/// Position-independent: the two addresses are immediates.
fn assemble(abi: Abi, record: u64, stack_top: u64) -> Result<Vec<u8>, IcedError> {
    debug_assert!(stack_top & 15 == 0);
    let mut a = CodeAssembler::new(64)?;
    // Every register either convention saves: the caller of this trampoline is System V
    // code (Rust), and rdi, rsi are the callee's canaries on Windows.
    let saved = [rbx, rbp, r12, r13, r14, r15];

    // The caller's callee-saved registers go on the caller's stack, which the callee
    // never sees.
    for r in saved {
        a.push(r)?;
    }
    a.mov(rax, record)?;
    a.mov(rec!(qword_ptr, host_rsp), rsp)?;
    a.stmxcsr(rec!(dword_ptr, mxcsr_before))?;
    a.fnstcw(rec!(word_ptr, x87cw_before))?;
    a.mov(r11, rdi)?;
    a.mov(r10, rsi)?;

    // Private stack: rsp at the stack words, ≡ 0 (mod 16) at the call.
    a.mov(rsp, stack_top - 8 * CANARY_WORDS as u64)?;
    a.mov(rec!(qword_ptr, rsp_before), rsp)?;

    for reg in CalleeSaved::ALL {
        a.mov(reg.asm(), reg.canary())?;
    }
    for (i, &r) in abi.args().iter().enumerate() {
        a.mov(gpr64(r), qword_ptr(r10 + 8 * i as i32))?;
    }
    a.mov(rax, POISON)?;
    a.mov(r10, POISON)?;
    a.cld()?;
    a.call(r11)?;

    // Nothing the callee left in a register, in rsp or on the stack is trusted to find
    // the record: its address is an immediate. rax is caller-saved, free to use.
    a.mov(rax, record)?;
    a.mov(rec!(qword_ptr, rsp_after), rsp)?;
    let callee_saved = offset_of!(Record, callee_saved) as i32;
    for (i, reg) in CalleeSaved::ALL.into_iter().enumerate() {
        a.mov(qword_ptr(rax + callee_saved + 8 * i as i32), reg.asm())?;
    }
    a.mov(rsp, rec!(qword_ptr, rsp_before))?;

    // Flags: record them, clear AC (only popfq can, so only when set) and DF.
    a.pushfq()?;
    a.pop(rcx)?;
    a.mov(rec!(qword_ptr, rflags), rcx)?;
    let mut ac_clear = a.create_label();
    a.test(ecx, RFLAGS_AC as u32)?;
    a.je(ac_clear)?;
    a.and(rcx, !(RFLAGS_AC as i32))?;
    a.push(rcx)?;
    a.popfq()?;
    a.set_label(&mut ac_clear)?;
    a.cld()?;

    // Floating-point control state: record it, reload the caller's when it changed.
    let mut mxcsr_same = a.create_label();
    a.stmxcsr(rec!(dword_ptr, mxcsr_after))?;
    a.mov(ecx, rec!(dword_ptr, mxcsr_after))?;
    a.cmp(ecx, rec!(dword_ptr, mxcsr_before))?;
    a.je(mxcsr_same)?;
    a.ldmxcsr(rec!(dword_ptr, mxcsr_before))?;
    a.set_label(&mut mxcsr_same)?;
    let mut x87cw_same = a.create_label();
    a.fnstcw(rec!(word_ptr, x87cw_after))?;
    a.movzx(ecx, rec!(word_ptr, x87cw_after))?;
    a.cmp(cx, rec!(word_ptr, x87cw_before))?;
    a.je(x87cw_same)?;
    a.fldcw(rec!(word_ptr, x87cw_before))?;
    a.set_label(&mut x87cw_same)?;

    // Back to the caller's stack and registers.
    a.mov(rsp, rec!(qword_ptr, host_rsp))?;
    for r in saved.into_iter().rev() {
        a.pop(r)?;
    }
    a.ret()?;
    a.assemble(0)
}

#[cfg(test)]
mod tests {
    use super::super::mem::perms_of;
    use super::*;

    #[test]
    fn pages_have_the_right_protections() {
        let t = Trampoline::new().unwrap();
        let top = t.zone as usize + 8 * CANARY_WORDS;
        assert_eq!(top % page_size(), 0);
        assert_eq!(perms_of(t.code.ptr() as usize), "r-xp", "code");
        assert_eq!(perms_of(t.record as usize), "rw-p", "record");
        assert_eq!(perms_of(top - 8), "rw-p", "stack top");
        assert_eq!(perms_of(top - STACK_BYTES), "rw-p", "stack bottom");
        assert_eq!(perms_of(top), "---p", "guard above the stack");
        assert_eq!(
            perms_of(top - STACK_BYTES - 1),
            "---p",
            "guard below the stack"
        );
        assert_ne!(
            t.record as usize / page_size(),
            t.code.ptr() as usize / page_size()
        );
    }

    /// The trampoline gives its caller back rbx, rbp, r12–r15, rsp and a clear DF, even
    /// when the callee trashed them. The caller here is machine code (`outer`), itself
    /// called through a second trampoline, so that it can look at its registers.
    #[test]
    fn caller_state_is_restored() {
        let host = [0x1111, 0x2222, 0x3333, 0x4444, 0x5555, 0x6666u64];
        let build = |body: &dyn Fn(&mut CodeAssembler) -> Result<(), IcedError>| {
            let mut a = CodeAssembler::new(64).unwrap();
            body(&mut a).unwrap();
            ExecMem::new(&a.assemble(0).unwrap()).unwrap()
        };
        // outer(rdi = out, rsi = trampoline entry, rdx = f, rcx = args):
        // out[0..6] = rbx, rbp, r12–r15 after the inner call, out[6] = rsp before it,
        // out[7] = rsp after it, out[8] = rflags after it.
        let outer = build(&|a| {
            let regs = [rbx, rbp, r12, r13, r14, r15];
            for r in regs {
                a.push(r)?;
            }
            a.push(rdi)?;
            for (r, v) in regs.into_iter().zip(host) {
                a.mov(r, v)?;
            }
            a.mov(qword_ptr(rdi + 48), rsp)?;
            a.mov(rax, rsi)?;
            a.mov(rdi, rdx)?;
            a.mov(rsi, rcx)?;
            a.call(rax)?;
            a.pop(rdi)?;
            for (i, r) in regs.into_iter().enumerate() {
                a.mov(qword_ptr(rdi + 8 * i as i32), r)?;
            }
            a.lea(rax, qword_ptr(rsp - 8))?; // rsp before `pop rdi`
            a.mov(qword_ptr(rdi + 56), rax)?;
            a.pushfq()?;
            a.pop(qword_ptr(rdi + 64))?;
            for r in regs.into_iter().rev() {
                a.pop(r)?;
            }
            a.ret()
        });
        let trash = build(&|a| {
            for r in [rbx, rbp, r12, r13, r14, r15] {
                a.mov(r, 0xdead_u64)?;
            }
            a.sub(rsp, 24)?;
            a.std()?;
            a.jmp(qword_ptr(rsp + 24)) // "return" without popping anything
        });

        let (t1, t2) = (Trampoline::new().unwrap(), Trampoline::new().unwrap());
        let mut out = [0u64; 9];
        let inner_args = [0u64; 6];
        let args = [
            out.as_mut_ptr() as u64,
            t2.code.ptr() as u64,
            trash.ptr() as u64,
            inner_args.as_ptr() as u64,
            0,
            0,
        ];
        // SAFETY: `outer` keeps the convention and writes out[0..9]; `trash` returns to
        // its caller's return address (with rsp 32 lower, which t2 repairs).
        let r = unsafe { t1.call(outer.ptr(), &args) };
        assert_eq!(r, Ok(()));
        assert_eq!(
            out[..6],
            host,
            "callee-saved registers after the inner call"
        );
        assert_eq!(out[7], out[6], "rsp after the inner call");
        assert_eq!(out[8] & RFLAGS_DF, 0, "DF after the inner call");
        let problems = t2.check().unwrap_err().problems;
        assert_eq!(problems.len(), 6 + 2, "{problems:?}");
        assert_eq!(problems[6], AbiProblem::RspChanged { delta: -32 });
        assert_eq!(problems[7], AbiProblem::DirectionFlag);
    }

    #[test]
    fn record_fits_its_page_and_offsets_fit_disp8() {
        assert!(mem::size_of::<Record>() <= page_size());
        assert!(
            mem::size_of::<Record>() < 128,
            "keeps every [rax+disp] a disp8"
        );
    }

    #[test]
    fn trampoline_is_small() {
        let code = assemble(Abi::Win64, 0x7000_0000_1000, 0x7000_0000_0000).unwrap();
        assert!(code.len() < 400, "{} bytes", code.len());
    }

    #[test]
    fn canaries_are_distinct_and_non_canonical() {
        let all: Vec<u64> = REGISTER_CANARIES
            .iter()
            .chain(&STACK_CANARIES)
            .chain(&[POISON])
            .copied()
            .collect();
        for (i, x) in all.iter().enumerate() {
            assert!(!all[..i].contains(x), "{x:#x} twice");
            // Canonical: bits 63..47 all equal.
            let top = x >> 47;
            assert!(top != 0 && top != 0x1_FFFF, "{x:#x} is canonical");
        }
    }
}
