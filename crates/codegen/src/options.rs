//! Code-generation options that change the emitted code's interface with its caller.

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

/// Which output arrays may be the same memory as which input arrays in C callers.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
pub enum MemoryConstraints {
    /// No aliasing: outputs and inputs are disjoint.
    None,
    /// `out1` may be the same memory as `arg1` (the `fiat_p256_mul(x, x, y)` idiom).
    Out1Arg1,
    /// Any output may alias any input: no argument is read after an output is written.
    ///
    /// The default, because it is the only one that is safe for every C caller: Fiat's
    /// C API permits `out == arg`, and code that reads an argument after writing an
    /// output would silently compute garbage for such callers.
    #[default]
    All,
}

/// All options. The default is the safe one: rbp usable, red zone used, full aliasing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Options {
    pub frame_pointer: FramePointer,
    /// May spill slots live in the 128 bytes below rsp without moving rsp?
    pub red_zone: bool,
    pub memory_constraints: MemoryConstraints,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            frame_pointer: FramePointer::Omit,
            red_zone: true,
            memory_constraints: MemoryConstraints::All,
        }
    }
}

impl Options {
    /// Every combination, for tests.
    pub fn all() -> Vec<Options> {
        let mut v = Vec::new();
        for frame_pointer in [FramePointer::Omit, FramePointer::Save, FramePointer::Keep] {
            for red_zone in [true, false] {
                for memory_constraints in [
                    MemoryConstraints::None,
                    MemoryConstraints::Out1Arg1,
                    MemoryConstraints::All,
                ] {
                    v.push(Options {
                        frame_pointer,
                        red_zone,
                        memory_constraints,
                    });
                }
            }
        }
        v
    }

    /// May output `ret` be the same memory as argument `param`?
    pub fn may_alias(&self, ret: usize, param: usize) -> bool {
        match self.memory_constraints {
            MemoryConstraints::None => false,
            MemoryConstraints::Out1Arg1 => ret == 0 && param == 0,
            MemoryConstraints::All => true,
        }
    }
}
