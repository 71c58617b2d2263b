//! What a check concludes: the [`Verdict`], and for a program that is not equivalent the
//! [`Report`] of its [`Problem`]s, with the texts the checker prints for them; and the
//! [`CheckOptions`] (the [`Aliasing`] the caller allows) a check is made under.
//!
//! Both the check (`check`) and the x86 executor (`x86`) build these; this module
//! imports from neither. It must never decide anything: it only holds and prints what
//! the check found.

use std::fmt;

pub use cryptopt_ir::Aliasing;
use cryptopt_x86::{Abi, Feature, Reg, Target};

/// Length at which printed expressions are cut.
pub const SHOW_LIMIT: usize = 300;

/// The default of [`CheckOptions::stack_limit`]: 64 KiB, far above what straight-line
/// arithmetic uses (hundreds of bytes) and far below a guard page's reach.
pub const DEFAULT_STACK_LIMIT: u32 = 1 << 16;

/// What the check assumes about its callers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CheckOptions {
    pub aliasing: Aliasing,
    /// The most bytes rsp may go below the entry rsp (the red zone below it is not
    /// counted): a program that goes deeper fails the check ([`Problem::StackLimit`]).
    pub stack_limit: u32,
    /// Whether outputs the normal form leaves apart go to the SAT sweep (on by default;
    /// off, a check is the normal form's verdict alone, which is faster on programs that
    /// are not equivalent and proves less foreign code).
    pub sweep: bool,
    /// The instruction-set level the program must keep to, if one is asked: an
    /// instruction beyond it is a [`Problem::BeyondTarget`].
    pub target: Option<Target>,
    /// The calling convention the program is called with and must keep: where its
    /// arguments are, which registers it must restore, whether it has a red zone and
    /// a home space ([`Abi`]).
    pub abi: Abi,
}

impl Default for CheckOptions {
    fn default() -> CheckOptions {
        CheckOptions {
            aliasing: Aliasing::default(),
            stack_limit: DEFAULT_STACK_LIMIT,
            sweep: true,
            target: None,
            abi: Abi::SysV,
        }
    }
}

/// The outcome of a check of a well-formed input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Every output element is the IR's, for all inputs within the declared bounds, and
    /// the program keeps the ABI.
    Equivalent,
    NotEquivalent(Report),
}

impl Verdict {
    pub fn is_equivalent(&self) -> bool {
        matches!(self, Verdict::Equivalent)
    }
}

/// Why a program is not equivalent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// The IR function's name.
    pub function: String,
    /// The program's name.
    pub program: String,
    /// The problems found (at least one), most important first.
    pub problems: Vec<Problem>,
    /// Inputs on which outputs differ from the IR's, when the check found some: the
    /// program is then wrong, not merely unproved.
    pub counterexample: Option<Counterexample>,
}

impl Report {
    /// Whether the report shows the program wrong or unsafe (a counterexample, or a
    /// problem other than an output the checker could not prove equal to the IR's),
    /// rather than only not proved.
    pub fn refuted(&self) -> bool {
        self.counterexample.is_some() || self.beyond_outputs()
    }

    /// Whether a problem other than an output not proved equal is listed (an unsafe
    /// access, a broken ABI rule, an output never written, …).
    pub fn beyond_outputs(&self) -> bool {
        self.problems
            .iter()
            .any(|p| !matches!(p, Problem::OutputDiffers { .. }))
    }
}

/// Concrete inputs, within the function's declared bounds, on which the program's
/// outputs differ from the IR's (found by evaluating both on input vectors).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Counterexample {
    /// Every leaf the compared values depend on (the IR's input elements, and any
    /// entry register or undefined bits the program reads), by name, with its value.
    pub inputs: Vec<(String, u128)>,
    /// The same values as the IR function's arguments, parameter by parameter, element
    /// by element (an element the differing outputs do not depend on is 0): what to run
    /// the program on to see it.
    pub args: Vec<Vec<u128>>,
    /// Whether the compared values depend on the arguments alone (no entry register,
    /// stack address or undefined bits among `inputs`): then running the program on
    /// `args` shows the difference.
    pub reproducible: bool,
    /// Each output that differs on these inputs: its name, the IR's value and the
    /// program's.
    pub outputs: Vec<(String, u128, u128)>,
}

/// The first instruction that writes a value the IR never computes, in the cone of a
/// differing output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Divergence {
    /// Position in the program (0-based).
    pub index: usize,
    pub inst: String,
    /// The value it writes (cut to [`SHOW_LIMIT`] characters).
    pub value: String,
}

/// One thing wrong with a program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// An output element holds something else than the IR computes.
    OutputDiffers {
        output: String,
        expected: String,
        found: String,
        /// The innermost differing pair of subexpressions (expected, found), when the two
        /// expressions have the same shape around it.
        innermost: Option<(String, String)>,
        divergence: Option<Divergence>,
    },
    /// An output element is never written.
    OutputNotWritten { output: String },
    /// A callee-saved register does not hold its entry value at `ret`.
    CalleeSaved { reg: Reg, found: String },
    /// The low 128 bits of a callee-saved vector register (`xmm6`–`xmm15` on Windows)
    /// do not hold their entry value at `ret`.
    CalleeSavedXmm { reg: u8, found: String },
    /// rsp is not the entry rsp at `ret`.
    StackPointer { found: String },
    /// A write outside the output arrays and the stack frame / red zone.
    WriteOutside {
        index: usize,
        inst: String,
        what: String,
    },
    /// A read outside the input arrays, written outputs and the stack frame.
    ReadOutside {
        index: usize,
        inst: String,
        what: String,
    },
    /// With aliasing: an input element read after an output that may be the same memory
    /// was written there.
    AliasedRead {
        index: usize,
        inst: String,
        input: String,
        output: String,
        written_at: usize,
    },
    /// The program ends without `ret`.
    NoRet,
    /// An instruction reads a flag that is undefined at that point.
    UndefinedFlag {
        index: usize,
        inst: String,
        flag: &'static str,
        why: String,
    },
    /// An instruction reads memory (an output element or a stack slot) nobody wrote.
    UndefinedRead {
        index: usize,
        inst: String,
        what: String,
    },
    /// An address that is not an argument pointer or rsp plus a constant: computed from
    /// data (never constant time), or beyond what straight-line code with constant
    /// offsets can be proved to touch.
    DataAddress {
        index: usize,
        inst: String,
        address: String,
    },
    /// A shift or bit count in a register that does not hold a constant.
    VariableCount { index: usize, inst: String },
    /// rsp set to something other than the entry rsp plus a constant.
    LostStack { index: usize, inst: String },
    /// rsp goes further below the entry rsp than the stated bound.
    StackLimit {
        index: usize,
        inst: String,
        bytes: i64,
        limit: u32,
    },
    /// Instructions follow the `ret` that ends the run (dead code, or an entry the check
    /// never saw).
    CodeAfterRet { index: usize, count: usize },
    /// An instruction needs a CPU feature the asked target does not have.
    BeyondTarget {
        index: usize,
        inst: String,
        feature: Feature,
        target: Target,
    },
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::OutputDiffers {
                output,
                expected,
                found,
                innermost,
                divergence,
            } => {
                writeln!(f, "{output} differs")?;
                writeln!(f, "    expected (IR):  {expected}")?;
                write!(f, "    found (asm):    {found}")?;
                if let Some((x, y)) = innermost {
                    write!(
                        f,
                        "\n    innermost difference: {x}\n                     vs: {y}"
                    )?;
                }
                match divergence {
                    Some(d) => write!(
                        f,
                        "\n    first divergence: instruction {} `{}` writes {}",
                        d.index, d.inst, d.value
                    ),
                    None => write!(
                        f,
                        "\n    every value it is built from is one the IR computes \
                         (combined or stored differently)"
                    ),
                }
            }
            Problem::OutputNotWritten { output } => write!(f, "{output} is never written"),
            Problem::BeyondTarget {
                index,
                inst,
                feature,
                target,
            } => write!(
                f,
                "instruction {index} `{inst}` needs {feature}, which target {target} does not have"
            ),
            Problem::CalleeSaved { reg, found } => write!(
                f,
                "callee-saved {reg} is not restored at ret (it holds {found})"
            ),
            Problem::CalleeSavedXmm { reg, found } => write!(
                f,
                "callee-saved xmm{reg} is not restored at ret (it holds {found})"
            ),
            Problem::StackPointer { found } => {
                write!(f, "rsp is not restored at ret (it is {found})")
            }
            Problem::WriteOutside { index, inst, what } => {
                write!(f, "instruction {index} `{inst}` writes {what}")
            }
            Problem::ReadOutside { index, inst, what } => {
                write!(f, "instruction {index} `{inst}` reads {what}")
            }
            Problem::AliasedRead {
                index,
                inst,
                input,
                output,
                written_at,
            } => write!(
                f,
                "instruction {index} `{inst}` reads {input} after instruction {written_at} \
                 wrote {output}, which may be the same memory"
            ),
            Problem::NoRet => write!(f, "the program ends without ret"),
            Problem::UndefinedFlag {
                index,
                inst,
                flag,
                why,
            } => write!(
                f,
                "instruction {index} `{inst}` reads {flag}, which is undefined here ({why})"
            ),
            Problem::UndefinedRead { index, inst, what } => {
                write!(
                    f,
                    "instruction {index} `{inst}` reads {what} before it is written"
                )
            }
            Problem::DataAddress {
                index,
                inst,
                address,
            } => write!(
                f,
                "instruction {index} `{inst}`: the address {address} is not an argument \
                 pointer or rsp plus a constant"
            ),
            Problem::VariableCount { index, inst } => write!(
                f,
                "instruction {index} `{inst}`: the count register does not hold a constant"
            ),
            Problem::LostStack { index, inst } => write!(
                f,
                "instruction {index} `{inst}`: rsp is no longer the entry rsp plus a constant"
            ),
            Problem::StackLimit {
                index,
                inst,
                bytes,
                limit,
            } => write!(
                f,
                "instruction {index} `{inst}`: rsp goes {bytes} bytes below the entry rsp, \
                 more than the stated bound of {limit} (--max-stack)"
            ),
            Problem::CodeAfterRet { index, count } => write!(
                f,
                "{count} instruction(s) after the `ret` at instruction {index}: code the \
                 check never runs"
            ),
        }
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.refuted() {
            write!(
                f,
                "`{}` is not equivalent to `{}`:",
                self.program, self.function
            )?;
        } else {
            write!(
                f,
                "`{}` is not proved equivalent to `{}` (the checker could not prove the \
                 outputs below equal, and no input among the {} it evaluated tells them \
                 apart):",
                self.program,
                self.function,
                crate::witness::VECTORS
            )?;
        }
        for p in &self.problems {
            write!(f, "\n  - {p}")?;
        }
        if let Some(c) = &self.counterexample {
            write!(f, "\n  counterexample (inputs within the declared bounds):")?;
            for (name, v) in &c.inputs {
                write!(f, "\n    {name} = {v:#x}")?;
            }
            for (name, want, found) in &c.outputs {
                write!(
                    f,
                    "\n    {name}: the IR gives {want:#x}, the program {found:#x}"
                )?;
            }
        }
        Ok(())
    }
}
