//! Calling conventions (`--abi`): where a function's integer arguments are at entry,
//! which registers it must give back unchanged, and which memory beside its own frame
//! it may use. The one home of these rules: code generation places arguments and saves
//! registers by them, the checker holds a program to them, and the measurement's
//! trampoline lays out its calls by them. It knows nothing of what code computes.
//!
//! ```text
//!               System V (Linux, BSD, macOS)      Windows x64
//!  arguments    rdi rsi rdx rcx r8 r9, stack      rcx rdx r8 r9, stack
//!  stack args   [rsp0 + 8 + 8·(k−6)]              [rsp0 + 40 + 8·(k−4)]
//!  saved        rbx rbp r12–r15                   rbx rbp rdi rsi r12–r15, xmm6–xmm15
//!  red zone     128 bytes below rsp               none
//!  home space   none                              [rsp0 + 8, rsp0 + 40): the callee's
//! ```

use crate::{ArgLoc, Reg};

const SYSV_SAVED: &[Reg] = &[Reg::Rbx, Reg::Rbp, Reg::R12, Reg::R13, Reg::R14, Reg::R15];
const WIN64_SAVED: &[Reg] = &[
    Reg::Rbx,
    Reg::Rbp,
    Reg::Rdi,
    Reg::Rsi,
    Reg::R12,
    Reg::R13,
    Reg::R14,
    Reg::R15,
];

/// The registers of `regs` as bits by [`Reg::index`].
const fn mask(regs: &[Reg]) -> u16 {
    let (mut m, mut i) = (0u16, 0);
    while i < regs.len() {
        m |= 1 << regs[i] as u8;
        i += 1;
    }
    m
}

/// A calling convention. Saved (serde) and given on the command line by its
/// [`Abi::name`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Abi {
    /// The System V AMD64 ABI: Linux, the BSDs, macOS.
    #[default]
    SysV,
    /// The Windows x64 calling convention (Microsoft's "x64 ABI"; gcc's `ms_abi`).
    Win64,
}

impl Abi {
    /// Both, the default first.
    pub const ALL: [Abi; 2] = [Abi::SysV, Abi::Win64];

    /// Its name on the command line and in saved results (the one home of the names).
    pub fn name(self) -> &'static str {
        match self {
            Abi::SysV => "sysv",
            Abi::Win64 => "win64",
        }
    }

    /// The ABI of that [`Abi::name`].
    pub fn from_name(name: &str) -> Option<Abi> {
        Abi::ALL.into_iter().find(|a| a.name() == name)
    }

    /// The integer argument registers, in order.
    pub fn args(self) -> &'static [Reg] {
        match self {
            Abi::SysV => &[Reg::Rdi, Reg::Rsi, Reg::Rdx, Reg::Rcx, Reg::R8, Reg::R9],
            Abi::Win64 => &[Reg::Rcx, Reg::Rdx, Reg::R8, Reg::R9],
        }
    }

    /// Where integer argument `k` (0-based) is at a function's entry.
    pub fn arg_location(self, k: usize) -> ArgLoc {
        let regs = self.args();
        match regs.get(k) {
            Some(&r) => ArgLoc::Reg(r),
            None => ArgLoc::Stack(self.stack_args_at() + 8 * (k - regs.len()) as i32),
        }
    }

    /// The offset from the entry rsp of the first stack-passed argument: above the
    /// return address, and on Windows above the 32-byte home space.
    pub fn stack_args_at(self) -> i32 {
        8 + self.home_space()
    }

    /// The general registers a function must give back unchanged (besides rsp).
    pub fn callee_saved(self) -> &'static [Reg] {
        match self {
            Abi::SysV => SYSV_SAVED,
            Abi::Win64 => WIN64_SAVED,
        }
    }

    /// The most registers [`Abi::callee_saved`] lists for any ABI (for fixed arrays).
    pub const MAX_CALLEE_SAVED: usize = 8;

    /// Whether `r` is one of [`Abi::callee_saved`] (a bit test: code generation asks it
    /// for every register it takes).
    pub fn is_callee_saved(self, r: Reg) -> bool {
        const SYSV: u16 = mask(SYSV_SAVED);
        const WIN64: u16 = mask(WIN64_SAVED);
        let m = match self {
            Abi::SysV => SYSV,
            Abi::Win64 => WIN64,
        };
        m & (1 << r.index()) != 0
    }

    /// The vector registers whose low 128 bits a function must give back unchanged
    /// (`xmm6`–`xmm15` on Windows; the upper lanes of their ymm/zmm are volatile).
    pub fn callee_saved_xmm(self) -> std::ops::Range<u8> {
        match self {
            Abi::SysV => 0..0,
            Abi::Win64 => 6..16,
        }
    }

    /// Bytes below rsp a function may use without moving rsp (signal and interrupt
    /// handlers leave them alone): 128 on System V, none on Windows.
    pub fn red_zone(self) -> i64 {
        match self {
            Abi::SysV => 128,
            Abi::Win64 => 0,
        }
    }

    /// Bytes above the return address that belong to the callee (Windows' "home"
    /// or "shadow" space, reserved by every caller for the four register arguments):
    /// `[rsp0 + 8, rsp0 + 8 + home_space)` may be written.
    pub fn home_space(self) -> i32 {
        match self {
            Abi::SysV => 0,
            Abi::Win64 => 32,
        }
    }
}

impl std::fmt::Display for Abi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl serde::Serialize for Abi {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for Abi {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Abi, D::Error> {
        let name = String::deserialize(d)?;
        Abi::from_name(&name).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "unknown ABI `{name}` (one of: {})",
                Abi::ALL.map(Abi::name).join(", ")
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn argument_locations() {
        let check = |abi: Abi, k: usize, want: ArgLoc| {
            assert_eq!(abi.arg_location(k), want, "{abi} argument {k}");
        };
        check(Abi::SysV, 0, ArgLoc::Reg(Reg::Rdi));
        check(Abi::SysV, 5, ArgLoc::Reg(Reg::R9));
        check(Abi::SysV, 6, ArgLoc::Stack(8));
        check(Abi::SysV, 9, ArgLoc::Stack(32));
        check(Abi::Win64, 0, ArgLoc::Reg(Reg::Rcx));
        check(Abi::Win64, 3, ArgLoc::Reg(Reg::R9));
        check(Abi::Win64, 4, ArgLoc::Stack(40));
        check(Abi::Win64, 9, ArgLoc::Stack(80));
    }

    #[test]
    fn names_round_trip() {
        for a in Abi::ALL {
            assert_eq!(Abi::from_name(a.name()), Some(a));
        }
        assert_eq!(Abi::from_name("ms"), None);
    }

    #[test]
    fn callee_saved_sets() {
        assert!(!Abi::SysV.is_callee_saved(Reg::Rdi));
        assert!(Abi::Win64.is_callee_saved(Reg::Rdi));
        assert!(Abi::Win64.is_callee_saved(Reg::Rsi));
        for a in Abi::ALL {
            assert!(a.callee_saved().len() <= Abi::MAX_CALLEE_SAVED);
            assert!(!a.is_callee_saved(Reg::Rsp));
            for r in a.args() {
                assert!(!a.is_callee_saved(*r), "{a}: argument register {r:?} saved");
            }
        }
    }
}
