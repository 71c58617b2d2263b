//! Code-generation options that change the emitted code's interface with its caller.
//!
//! The aliasing policy is [`cryptopt_ir::Aliasing`] (its one home); here it is only
//! carried as the option `--aliasing`.
//!
//! The defaults must never be unsafe for a C caller: every aliasing Fiat's API allows,
//! and callee-saved registers (rbp included) restored.

use cryptopt_ir::Aliasing;
pub use cryptopt_x86::{Abi, Target};

/// What happens to rbp.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
pub enum FramePointer {
    /// rbp is an ordinary (callee-saved) register: used when needed, saved and restored.
    #[default]
    Omit,
    /// A conventional frame: `push rbp; mov rbp, rsp` at entry, `pop rbp` at exit; rbp is
    /// not allocated.
    Save,
    /// rbp is never touched (BoringSSL's requirement for its assembly).
    Keep,
}

/// All options. The default is the safe one: rbp usable, red zone used, full aliasing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Options {
    pub frame_pointer: FramePointer,
    /// May spill slots live in the 128 bytes below rsp without moving rsp?
    pub red_zone: bool,
    /// Which outputs may alias which inputs in callers (saved as `memory_constraints`).
    #[serde(rename = "memory_constraints")]
    pub aliasing: Aliasing,
    /// An `endbr64` at entry (`--cet`): the function is a valid indirect-branch target
    /// under CET's indirect branch tracking.
    #[serde(default)]
    pub cet: bool,
    /// The instruction-set level (`--target`).
    #[serde(default)]
    pub target: Target,
    /// The calling convention (`--abi`): where arguments are, which registers are
    /// saved, whether there is a red zone ([`Abi`] is the one home of those rules).
    #[serde(default)]
    pub abi: Abi,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            frame_pointer: FramePointer::Omit,
            red_zone: true,
            aliasing: Aliasing::All,
            cet: false,
            target: Target::Adx,
            abi: Abi::SysV,
        }
    }
}

impl Options {
    /// Every combination of the options that change code generation's choices, for
    /// tests; `cet` (one fixed instruction at entry, no choice) is on in the half
    /// without the red zone, and the target turns with the others (each target meets
    /// each frame pointer, each aliasing and both red-zone settings), so that the count
    /// stays 18; the ABI turns with the frame pointer and the aliasing, so each ABI
    /// meets every frame pointer and aliasing, with and without the red zone.
    pub fn all() -> Vec<Options> {
        let mut v = Vec::new();
        for (fi, frame_pointer) in [FramePointer::Omit, FramePointer::Save, FramePointer::Keep]
            .into_iter()
            .enumerate()
        {
            for (ri, red_zone) in [true, false].into_iter().enumerate() {
                for (ai, aliasing) in Aliasing::ALL.into_iter().enumerate() {
                    v.push(Options {
                        frame_pointer,
                        red_zone,
                        aliasing,
                        cet: !red_zone,
                        target: Target::ALL[(fi + ri + ai) % 3],
                        abi: Abi::ALL[(fi + ai) % 2],
                    });
                }
            }
        }
        v
    }
}
