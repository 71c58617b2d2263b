//! The machine of the x86 executor: its state (the sixteen registers as 64-bit nodes,
//! the sixteen vector registers as four 64-bit lanes each, the flags, memory), running a program from the function's entry to its `ret`, reading
//! and writing operands (writes to 32-bit registers zero-extend, 8- and 16-bit writes
//! keep the other bits), and handing each instruction to the file of its family.
//!
//! This module must never give an instruction a meaning itself (that is the families'
//! job, and never [`cryptopt_x86::Mnemonic::flags`]'s), and never end a run early except
//! with the error or problem that stopped it.

use std::collections::HashMap;

use cryptopt_ir::Function;
use cryptopt_x86::{ArgLoc, Datum, Inst, Mnemonic as M, Operand as X, Program, Reg, Size};

use super::flags::{FlagState, CF, OF};
use super::memory::{assemble, stack_words, Base, Byte, Clobber, Frame};
use crate::abi::{Abi, ArgSlot};
use crate::error::{Error, Result};
use crate::graph::{mask, Graph, NodeId, Sym};
use crate::verdict::{Aliasing, Problem};

/// Why a run stopped early.
pub(super) enum Fail {
    Error(Error),
    Problem(Box<Problem>),
}

impl Fail {
    pub(super) fn boxed(p: Problem) -> Fail {
        Fail::Problem(Box::new(p))
    }
}

impl From<Error> for Fail {
    fn from(e: Error) -> Fail {
        Fail::Error(e)
    }
}

/// The outcome of executing (part of) one instruction.
pub(super) type Step<T> = std::result::Result<T, Fail>;

/// The state after `ret` (or after a problem).
pub(crate) struct Final {
    pub regs: [NodeId; 16],
    pub vregs: [[NodeId; 4]; 16],
    /// The problem that stopped the run, if any.
    pub problem: Option<Problem>,
    /// With tracing: (instruction, node written), in order.
    pub trace: Vec<(usize, NodeId)>,
    mem: HashMap<(Base, i64), Byte>,
}

impl Final {
    /// The node in `n` bytes at `off` of base `b`, if all were written (by one node or
    /// several: the bytes are concatenated).
    pub fn read(&self, g: &mut Graph, b: Base, off: i64, n: i64) -> Option<NodeId> {
        let mut bytes = Vec::with_capacity(n as usize);
        for i in 0..n {
            bytes.push(*self.mem.get(&(b, off + i))?);
        }
        Some(assemble(g, &bytes))
    }
}

/// The state of a run: the graph the values are built in, the function and argument
/// placement the program is checked against, registers, flags, memory, and the
/// instruction being executed.
pub(crate) struct Machine<'a> {
    pub(super) g: &'a mut Graph,
    pub(super) f: &'a Function,
    pub(super) abi: &'a Abi,
    pub(super) aliasing: Aliasing,
    pub(super) regs: [NodeId; 16],
    /// `ymm0`..`ymm15` as 64-bit lanes, lowest first (`xmm`n is lanes 0 and 1).
    pub(super) vregs: [[NodeId; 4]; 16],
    pub(super) flags: [FlagState; 4],
    pub(super) mem: HashMap<(Base, i64), Byte>,
    /// Input bytes that may have been overwritten through an aliased output.
    pub(super) clobbered: HashMap<(u8, i64), Clobber>,
    /// rsp: a stack base ([`Base::Stack`] or an aligned frame) and an offset from it.
    pub(super) rsp: (Base, i64),
    /// The aligned stack frames made so far (`Base::Frame(k)` is `frames[k]`).
    pub(super) frames: Vec<Frame>,
    /// The program's constants (`Base::Data(k)` is `data[k]`).
    pub(super) data: Vec<Datum>,
    /// How far below the entry rsp rsp may go (`CheckOptions::stack_limit`).
    stack_limit: u32,
    /// The position of the instruction being executed, and the instruction.
    pub(super) index: usize,
    pub(super) inst: Inst,
    /// With tracing: (instruction, node written) for every register, memory and
    /// carry-flag write, in order.
    pub trace: Option<Vec<(usize, NodeId)>>,
}

pub(super) fn bits(s: Size) -> u32 {
    s.bits()
}

pub(super) fn size_of(op: X) -> Option<Size> {
    match op {
        X::Reg(_, s) | X::Vec(_, s) => Some(s),
        X::Mem(m) => Some(m.size),
        X::Imm(_) => None,
    }
}

impl<'a> Machine<'a> {
    pub fn new(g: &'a mut Graph, f: &'a Function, abi: &'a Abi, aliasing: Aliasing) -> Self {
        let mut regs = [NodeId(0); 16];
        for r in Reg::ALL {
            regs[r.index()] = g.sym(Sym::Init(r), u64::MAX as u128, format!("{r}0"));
        }
        regs[Reg::Rsp.index()] = g.sym(Sym::Rsp0, u64::MAX as u128, "rsp0");
        let mut vregs = [[NodeId(0); 4]; 16];
        for (reg, lanes) in vregs.iter_mut().enumerate() {
            for (lane, v) in lanes.iter_mut().enumerate() {
                let (reg, lane) = (reg as u8, lane as u8);
                let name = format!("ymm{reg}0[{lane}]");
                *v = g.sym(Sym::InitVec { reg, lane }, u64::MAX as u128, name);
            }
        }
        let mut stack_args = Vec::new();
        for (k, arg) in abi.args.iter().enumerate() {
            let word = match *arg {
                ArgSlot::Output { ret } => g.sym(
                    Sym::Pointer(k as u8),
                    u64::MAX as u128,
                    format!("&{}", f.returns[ret].name),
                ),
                ArgSlot::Array { param } => g.sym(
                    Sym::Pointer(k as u8),
                    u64::MAX as u128,
                    format!("&{}", f.params[param].name),
                ),
                ArgSlot::Scalar { param } => {
                    // The C type's bytes hold the value; the ABI leaves the rest undefined.
                    let p = &f.params[param];
                    let cbits = 8 * p.elem_bytes();
                    let x = crate::abi::input(g, f, param, 0);
                    if cbits >= 64 {
                        x
                    } else {
                        let junk = g.sym(
                            Sym::Junk(k as u8),
                            u64::MAX as u128,
                            format!("junk({})", p.name),
                        );
                        g.with_low(junk, x, cbits as u8)
                    }
                }
            };
            match abi.conv.arg_location(k) {
                ArgLoc::Reg(r) => regs[r.index()] = word,
                ArgLoc::Stack(off) => stack_args.push((off as i64, word)),
            }
        }
        Machine {
            g,
            f,
            abi,
            aliasing,
            regs,
            vregs,
            flags: [FlagState::Undef { by: None }; 4],
            mem: stack_words(&stack_args),
            clobbered: HashMap::new(),
            rsp: (Base::Stack, 0),
            frames: Vec::new(),
            data: Vec::new(),
            stack_limit: crate::verdict::DEFAULT_STACK_LIMIT,
            index: 0,
            inst: Inst::op0(M::Ret),
            trace: None,
        }
    }

    /// The bound on the stack's depth (the default is [`crate::DEFAULT_STACK_LIMIT`]).
    pub fn with_stack_limit(mut self, limit: u32) -> Self {
        self.stack_limit = limit;
        self
    }

    /// Runs `p` to its `ret`. Errors are input problems; a wrong program ends with a
    /// problem in [`Final::problem`].
    pub fn execute(mut self, p: &Program) -> Result<Final> {
        self.data = p.data.clone();
        let mut problem = Some(Problem::NoRet);
        for (i, inst) in p.insts.iter().enumerate() {
            self.index = i;
            self.inst = *inst;
            let before = self.flags;
            match self.step() {
                Ok(true) => {
                    let count = p.insts.len() - i - 1;
                    problem = (count > 0).then_some(Problem::CodeAfterRet { index: i, count });
                    break;
                }
                Ok(false) => {}
                Err(Fail::Error(e)) => return Err(e),
                Err(Fail::Problem(pr)) => {
                    problem = Some(*pr);
                    break;
                }
            }
            if self.trace.is_some() {
                for fl in [CF, OF] {
                    if self.flags[fl] != before[fl]
                        && !matches!(self.flags[fl], FlagState::Undef { .. })
                    {
                        if let Ok(n) = self.flag(fl) {
                            self.record(n);
                        }
                    }
                }
            }
        }
        Ok(Final {
            regs: self.regs,
            vregs: self.vregs,
            problem,
            trace: self.trace.unwrap_or_default(),
            mem: self.mem,
        })
    }

    pub(super) fn record(&mut self, n: NodeId) {
        let i = self.index;
        if let Some(t) = &mut self.trace {
            t.push((i, n));
        }
    }

    // ---------------------------------------------------------------------------------
    // errors

    /// The instruction being executed as reports show it (constants by their labels).
    pub(super) fn inst_text(&self) -> String {
        cryptopt_x86::print::inst_in(&self.inst, &self.data)
    }

    pub(super) fn unsupported(&self, message: impl Into<String>) -> Fail {
        Fail::Error(Error::Unsupported {
            index: self.index,
            inst: self.inst_text(),
            message: message.into(),
        })
    }

    /// A count register that does not hold a constant (a failed check, not an error).
    pub(super) fn variable_count(&self) -> Fail {
        Fail::boxed(Problem::VariableCount {
            index: self.index,
            inst: self.inst_text(),
        })
    }

    pub(super) fn bad_form(&self) -> Fail {
        self.unsupported("operand form not modelled")
    }

    /// The error for an instruction whose operands no semantics here covers.
    pub(super) fn not_modelled(&self) -> Fail {
        self.unsupported(format!(
            "`{}` with these operands is not modelled",
            self.inst.mn.name()
        ))
    }

    // ---------------------------------------------------------------------------------
    // registers and operands

    pub(super) fn set_reg(&mut self, r: Reg, v: NodeId) -> Step<()> {
        self.regs[r.index()] = v;
        self.record(v);
        if r == Reg::Rsp {
            let new = match self.decompose(v) {
                Some(x @ (Base::Stack | Base::Frame(_), _)) => x,
                _ => {
                    return Err(Fail::boxed(Problem::LostStack {
                        index: self.index,
                        inst: self.inst_text(),
                    }))
                }
            };
            let (lo, _) = self.span(new.0, new.1).expect("a stack base");
            if -lo > self.stack_limit as i64 {
                return Err(Fail::boxed(Problem::StackLimit {
                    index: self.index,
                    inst: self.inst_text(),
                    bytes: -lo,
                    limit: self.stack_limit,
                }));
            }
            if new.0 != self.rsp.0 || new.1 > self.rsp.1 {
                self.forget_below_red_zone(new);
            }
            self.rsp = new;
        }
        Ok(())
    }

    pub(super) fn read(&mut self, op: X, size: Size) -> Step<NodeId> {
        match op {
            X::Reg(r, s) => {
                let v = self.regs[r.index()];
                Ok(self.g.trunc(v, bits(s)))
            }
            X::Mem(m) => {
                let (b, off) = self.locate(m)?;
                self.load(b, off, m.size.bytes() as i64)
            }
            X::Imm(v) => Ok(self.g.konst(v as u64 as u128 & mask(bits(size)))),
            // Vector registers are read lane by lane (`vector.rs`).
            X::Vec(..) => Err(self.bad_form()),
        }
    }

    pub(super) fn write(&mut self, op: X, v: NodeId) -> Step<()> {
        match op {
            X::Reg(r, s) => {
                let w = bits(s);
                let new = match s {
                    Size::B64 | Size::B32 => self.g.trunc(v, w),
                    Size::B16 | Size::B8 => {
                        let old = self.regs[r.index()];
                        self.g.with_low(old, v, w as u8)
                    }
                    Size::B128 | Size::B256 => return Err(self.bad_form()),
                };
                self.set_reg(r, new)
            }
            X::Mem(m) => {
                let (b, off) = self.locate(m)?;
                let v = self.g.trunc(v, bits(m.size));
                self.record(v);
                self.store(b, off, m.size.bytes() as i64, v)
            }
            X::Imm(_) | X::Vec(..) => Err(self.bad_form()),
        }
    }

    // ---------------------------------------------------------------------------------
    // instructions

    /// Executes one instruction; `Ok(true)` at `ret`.
    pub(super) fn step(&mut self) -> Step<bool> {
        let inst = self.inst;
        let ops = inst.operands();
        let mn = inst.mn;
        match mn {
            M::Ret if ops.is_empty() => return Ok(true),
            M::Ret => return Err(self.not_modelled()),
            // A marker that writes nothing (no register, flag or memory).
            M::Endbr64 if ops.is_empty() => {}
            M::Endbr64 => return Err(self.bad_form()),
            M::Mov
            | M::Movzx
            | M::Movsx
            | M::Lea
            | M::Xchg
            | M::Cmovc
            | M::Cmovnc
            | M::Cmovo
            | M::Cmovno
            | M::Cmovz
            | M::Cmovnz
            | M::Setc
            | M::Seto
            | M::Setz
            | M::Setnz
            | M::Push
            | M::Pop => self.moves(mn, ops)?,
            M::Add
            | M::Adc
            | M::Sub
            | M::Sbb
            | M::Cmp
            | M::Adcx
            | M::Adox
            | M::Inc
            | M::Dec
            | M::Neg
            | M::Clc
            | M::Stc => self.arith(mn, ops)?,
            M::Mul | M::Imul | M::Mulx => self.mul(mn, ops)?,
            M::Not | M::And | M::Or | M::Xor | M::Test | M::Bt | M::Bzhi | M::Andn | M::Bextr => {
                self.logic(mn, ops)?
            }
            cryptopt_x86::vector_mnemonic!() => self.vector(mn, ops)?,
            M::Shl
            | M::Shr
            | M::Sar
            | M::Shld
            | M::Shrd
            | M::Shlx
            | M::Shrx
            | M::Sarx
            | M::Rorx => self.shift(mn, ops)?,
        }
        Ok(false)
    }
}
