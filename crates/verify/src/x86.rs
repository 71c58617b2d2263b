//! Symbolic execution of an x86-64 [`Program`]: the checker's own definition of what
//! every instruction does.
//!
//! State: the sixteen registers (64-bit nodes), the flags CF, OF, ZF, SF (each a node,
//! a not-yet-built recipe for one, or undefined), and memory as bytes keyed by
//! (base, offset), where a base is one of the pointer arguments or the entry rsp. A byte
//! holds "byte `i` of node `x`", so a word written and read back is the same node, and
//! narrower or misaligned accesses become slices.
//!
//! Semantics follow the Intel SDM (and, where AMD's manual is stricter, AMD's: `bt`
//! leaves ZF undefined): writes to 32-bit registers zero-extend, 8- and 16-bit writes
//! keep the other bits, flags an instruction leaves undefined become undefined (reading
//! one is an error naming the instruction), shift counts are masked, a zero count
//! changes no flag.
//!
//! Memory rules (System V): input arrays may be read within their bounds, output arrays
//! written within their bounds and read back after being written, the stack between the
//! red zone below the current rsp and the entry rsp read after being written. Anything
//! else ends the run with a [`Problem`] (a wrong program) or an [`Error`] (reading what
//! was never written, which the brief calls an input problem).
//!
//! This module must never use [`cryptopt_x86::Mnemonic::flags`] or anything else of the
//! code generator's: it *is* the meaning of the instructions for the checker.

use std::collections::HashMap;

use cryptopt_ir::Function;
use cryptopt_x86::{Inst, Mem, Mnemonic as M, Operand as X, Program, Reg, Size};

use crate::abi::{Abi, ArgSlot};
use crate::error::{Error, Result};
use crate::graph::{mask, Graph, Node, NodeId, Seg, Sym};
use crate::verdict::{Aliasing, Problem};

pub(crate) const FLAG_NAMES: [&str; 4] = ["CF", "OF", "ZF", "SF"];
const CF: usize = 0;
const OF: usize = 1;
const ZF: usize = 2;
const SF: usize = 3;

/// A flag's value: a node, a recipe for one (built only when read), or undefined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FlagState {
    /// Undefined since instruction `by` (`None`: since the function's entry).
    Undef {
        by: Option<usize>,
    },
    Node(NodeId),
    /// `⌊(a + b + c) / 2^w⌋`.
    Carry {
        w: u8,
        a: NodeId,
        b: NodeId,
        c: NodeId,
    },
    /// `a < b + c`.
    Borrow {
        a: NodeId,
        b: NodeId,
        c: NodeId,
    },
    /// `r == 0`.
    Zero(NodeId),
    /// Bit `w - 1` of `r`.
    Sign {
        r: NodeId,
        w: u8,
    },
    /// Signed overflow of `a + b (+ carry)` giving `r`.
    OvfAdd {
        a: NodeId,
        b: NodeId,
        r: NodeId,
        w: u8,
    },
    /// Signed overflow of `a - b (- borrow)` giving `r`.
    OvfSub {
        a: NodeId,
        b: NodeId,
        r: NodeId,
        w: u8,
    },
}

/// A memory base.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Base {
    /// The memory argument register `k` points to.
    Arg(u8),
    /// The stack, offsets relative to the entry rsp.
    Stack,
}

/// Byte `idx` of node `node`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Byte {
    node: NodeId,
    idx: u8,
}

/// An input byte that may have been overwritten through an aliased output.
#[derive(Clone, Copy, Debug)]
struct Clobber {
    out: u8,
    off: i64,
    index: usize,
}

/// Why a run stopped early.
pub(crate) enum Fail {
    Error(Error),
    Problem(Box<Problem>),
}

impl Fail {
    fn boxed(p: Problem) -> Fail {
        Fail::Problem(Box::new(p))
    }
}

impl From<Error> for Fail {
    fn from(e: Error) -> Fail {
        Fail::Error(e)
    }
}

type Step<T> = std::result::Result<T, Fail>;

/// The state after `ret` (or after a problem).
pub(crate) struct Final {
    pub regs: [NodeId; 16],
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

/// The node made of `bytes` (byte 0 lowest).
fn assemble(g: &mut Graph, bytes: &[Byte]) -> NodeId {
    let first = bytes[0].node;
    let whole = bytes
        .iter()
        .enumerate()
        .all(|(i, b)| b.node == first && b.idx as usize == i);
    if whole && g.info(first).nz >> (8 * bytes.len()).min(127) == 0 {
        return first;
    }
    let segs: Vec<Seg> = bytes
        .iter()
        .enumerate()
        .map(|(i, b)| Seg {
            node: b.node,
            from: 8 * b.idx,
            len: 8,
            at: 8 * i as u8,
        })
        .collect();
    g.concat(&segs, 0)
}

pub(crate) struct Machine<'a> {
    g: &'a mut Graph,
    f: &'a Function,
    abi: &'a Abi,
    aliasing: Aliasing,
    regs: [NodeId; 16],
    flags: [FlagState; 4],
    mem: HashMap<(Base, i64), Byte>,
    clobbered: HashMap<(u8, i64), Clobber>,
    /// rsp relative to the entry rsp.
    rsp_off: i64,
    index: usize,
    inst: Inst,
    /// With tracing: (instruction, node written) for every register, memory and
    /// carry-flag write, in order.
    pub trace: Option<Vec<(usize, NodeId)>>,
}

fn bits(s: Size) -> u32 {
    s.bits()
}

fn size_of(op: X) -> Option<Size> {
    match op {
        X::Reg(_, s) => Some(s),
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
        for (k, arg) in abi.args.iter().enumerate() {
            let r = Reg::ARGS[k];
            regs[r.index()] = match *arg {
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
                        g.concat(
                            &[
                                Seg {
                                    node: x,
                                    from: 0,
                                    len: cbits as u8,
                                    at: 0,
                                },
                                Seg {
                                    node: junk,
                                    from: cbits as u8,
                                    len: (64 - cbits) as u8,
                                    at: cbits as u8,
                                },
                            ],
                            0,
                        )
                    }
                }
            };
        }
        Machine {
            g,
            f,
            abi,
            aliasing,
            regs,
            flags: [FlagState::Undef { by: None }; 4],
            mem: HashMap::new(),
            clobbered: HashMap::new(),
            rsp_off: 0,
            index: 0,
            inst: Inst::op0(M::Ret),
            trace: None,
        }
    }

    /// Runs `p` to its `ret`. Errors are input problems; a wrong program ends with a
    /// problem in [`Final::problem`].
    pub fn execute(mut self, p: &Program) -> Result<Final> {
        let mut problem = Some(Problem::NoRet);
        for (i, inst) in p.insts.iter().enumerate() {
            self.index = i;
            self.inst = *inst;
            let before = self.flags;
            match self.step() {
                Ok(true) => {
                    problem = None;
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
            problem,
            trace: self.trace.unwrap_or_default(),
            mem: self.mem,
        })
    }

    fn record(&mut self, n: NodeId) {
        let i = self.index;
        if let Some(t) = &mut self.trace {
            t.push((i, n));
        }
    }

    // ---------------------------------------------------------------------------------
    // errors

    fn unsupported(&self, message: impl Into<String>) -> Fail {
        Fail::Error(Error::Unsupported {
            index: self.index,
            inst: self.inst.to_string(),
            message: message.into(),
        })
    }

    fn bad_form(&self) -> Fail {
        self.unsupported("operand form not modelled")
    }

    // ---------------------------------------------------------------------------------
    // flags

    fn flag(&mut self, i: usize) -> Step<NodeId> {
        let g = &mut *self.g;
        let n = match self.flags[i] {
            FlagState::Undef { by } => {
                let why = match by {
                    None => "flags are undefined at function entry".to_string(),
                    Some(k) => format!("instruction {k} left it undefined"),
                };
                return Err(Fail::Error(Error::UndefinedFlag {
                    index: self.index,
                    inst: self.inst.to_string(),
                    flag: FLAG_NAMES[i],
                    why,
                }));
            }
            FlagState::Node(n) => return Ok(n),
            FlagState::Carry { w, a, b, c } => g.carry(w as u32, &[a, b, c], 0),
            FlagState::Borrow { a, b, c } => g.borrow(a, &[b, c], 0),
            FlagState::Zero(r) => g.eqz(r),
            FlagState::Sign { r, w } => g.slice(r, w as u32 - 1, 1),
            FlagState::OvfAdd { a, b, r, w } => {
                let w = w as u32;
                let x = g.xor(w, &[a, r]);
                let y = g.xor(w, &[b, r]);
                let z = g.and(w, &[x, y]);
                g.slice(z, w - 1, 1)
            }
            FlagState::OvfSub { a, b, r, w } => {
                let w = w as u32;
                let x = g.xor(w, &[a, b]);
                let y = g.xor(w, &[a, r]);
                let z = g.and(w, &[x, y]);
                g.slice(z, w - 1, 1)
            }
        };
        self.flags[i] = FlagState::Node(n);
        Ok(n)
    }

    fn undef(&mut self, i: usize) {
        self.flags[i] = FlagState::Undef {
            by: Some(self.index),
        };
    }

    /// ZF and SF from a result of width `w`.
    fn zf_sf(&mut self, r: NodeId, w: u32) {
        self.flags[ZF] = FlagState::Zero(r);
        self.flags[SF] = FlagState::Sign { r, w: w as u8 };
    }

    fn not1(&mut self, x: NodeId) -> NodeId {
        self.g.not(1, x)
    }

    /// The condition of `cmovcc`/`setcc`.
    fn cond(&mut self, mn: M) -> Step<NodeId> {
        Ok(match mn {
            M::Cmovc | M::Setc => self.flag(CF)?,
            M::Cmovnc => {
                let c = self.flag(CF)?;
                self.not1(c)
            }
            M::Cmovo | M::Seto => self.flag(OF)?,
            M::Cmovno => {
                let c = self.flag(OF)?;
                self.not1(c)
            }
            M::Cmovz | M::Setz => self.flag(ZF)?,
            M::Cmovnz | M::Setnz => {
                let c = self.flag(ZF)?;
                self.not1(c)
            }
            _ => return Err(self.bad_form()),
        })
    }

    // ---------------------------------------------------------------------------------
    // registers and memory

    fn set_reg(&mut self, r: Reg, v: NodeId) -> Step<()> {
        self.regs[r.index()] = v;
        self.record(v);
        if r == Reg::Rsp {
            let off = match self.decompose(v) {
                Some((Base::Stack, off)) => off,
                _ => {
                    return Err(self
                        .unsupported("rsp is no longer the entry rsp plus a constant".to_string()))
                }
            };
            if off > self.rsp_off {
                // What is now below the red zone may be overwritten (signal handlers).
                let limit = off - 128;
                self.mem.retain(|&(b, o), _| b != Base::Stack || o >= limit);
            }
            self.rsp_off = off;
        }
        Ok(())
    }

    fn read(&mut self, op: X, size: Size) -> Step<NodeId> {
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
        }
    }

    fn write(&mut self, op: X, v: NodeId) -> Step<()> {
        match op {
            X::Reg(r, s) => {
                let w = bits(s);
                let new = match s {
                    Size::B64 | Size::B32 => self.g.trunc(v, w),
                    Size::B16 | Size::B8 => {
                        let old = self.regs[r.index()];
                        self.g.concat(
                            &[
                                Seg {
                                    node: v,
                                    from: 0,
                                    len: w as u8,
                                    at: 0,
                                },
                                Seg {
                                    node: old,
                                    from: w as u8,
                                    len: (64 - w) as u8,
                                    at: w as u8,
                                },
                            ],
                            0,
                        )
                    }
                };
                self.set_reg(r, new)
            }
            X::Mem(m) => {
                let (b, off) = self.locate(m)?;
                let v = self.g.trunc(v, bits(m.size));
                self.record(v);
                self.store(b, off, m.size.bytes() as i64, v)
            }
            X::Imm(_) => Err(self.bad_form()),
        }
    }

    /// The address of `m` as a node.
    fn address(&mut self, m: Mem) -> NodeId {
        let mut terms = Vec::with_capacity(2);
        if let Some(b) = m.base {
            terms.push((self.regs[b.index()], 1));
        }
        if let Some(i) = m.index {
            terms.push((self.regs[i.index()], m.scale as u128));
        }
        self.g.add(64, &terms, m.disp as i64 as u64 as u128)
    }

    /// `(base, offset)` of an address node, if it is a base plus a constant.
    fn decompose(&self, a: NodeId) -> Option<(Base, i64)> {
        let base_of = |n: NodeId| match self.g.node(n) {
            Node::Sym(Sym::Pointer(k)) => Some(Base::Arg(*k)),
            Node::Sym(Sym::Rsp0) => Some(Base::Stack),
            _ => None,
        };
        if let Some(b) = base_of(a) {
            return Some((b, 0));
        }
        match self.g.node(a) {
            Node::Add { w: 64, k, terms } if terms.len() == 1 && terms[0].1 == 1 => {
                Some((base_of(terms[0].0)?, *k as u64 as i64))
            }
            _ => None,
        }
    }

    fn locate(&mut self, m: Mem) -> Step<(Base, i64)> {
        let a = self.address(m);
        match self.decompose(a) {
            Some(x) => Ok(x),
            None => Err(Fail::Error(Error::Address {
                index: self.index,
                inst: self.inst.to_string(),
                address: self.g.show(a, 120),
            })),
        }
    }

    fn describe(&self, b: Base, off: i64) -> String {
        match b {
            Base::Arg(k) => self.abi.describe(self.f, k as usize, off),
            Base::Stack => format!("the stack slot [rsp0 {off:+}]"),
        }
    }

    fn byte(&mut self, b: Base, off: i64) -> Step<Byte> {
        if let Some(&x) = self.mem.get(&(b, off)) {
            return Ok(x);
        }
        match b {
            Base::Arg(k) => {
                let arg = self.abi.args.get(k as usize).copied();
                let size = self.abi.array(self.f, k as usize).map(|(_, s)| s);
                match (arg, size) {
                    (Some(ArgSlot::Array { param }), Some(size)) if (0..size).contains(&off) => {
                        if let Some(c) = self.clobbered.get(&(k, off)).copied() {
                            return Err(Fail::boxed(Problem::AliasedRead {
                                index: self.index,
                                inst: self.inst.to_string(),
                                input: self.describe(b, off),
                                output: self.abi.describe(self.f, c.out as usize, c.off),
                                written_at: c.index,
                            }));
                        }
                        let eb = self.f.params[param].elem_bytes() as i64;
                        let node = crate::abi::input(self.g, self.f, param, (off / eb) as usize);
                        Ok(Byte {
                            node,
                            idx: (off % eb) as u8,
                        })
                    }
                    (Some(ArgSlot::Output { .. }), Some(size)) if (0..size).contains(&off) => {
                        Err(Fail::Error(Error::UndefinedRead {
                            index: self.index,
                            inst: self.inst.to_string(),
                            what: self.describe(b, off),
                        }))
                    }
                    _ => Err(Fail::boxed(Problem::ReadOutside {
                        index: self.index,
                        inst: self.inst.to_string(),
                        what: self.describe(b, off),
                    })),
                }
            }
            Base::Stack if off >= 0 => Err(Fail::boxed(Problem::ReadOutside {
                index: self.index,
                inst: self.inst.to_string(),
                what: format!("[rsp0 {off:+}] (the return address or the caller's frame)"),
            })),
            Base::Stack => Err(Fail::Error(Error::UndefinedRead {
                index: self.index,
                inst: self.inst.to_string(),
                what: self.describe(b, off),
            })),
        }
    }

    fn load(&mut self, b: Base, off: i64, n: i64) -> Step<NodeId> {
        let mut bytes = Vec::with_capacity(n as usize);
        for i in 0..n {
            bytes.push(self.byte(b, off + i)?);
        }
        Ok(assemble(self.g, &bytes))
    }

    fn store(&mut self, b: Base, off: i64, n: i64, v: NodeId) -> Step<()> {
        let outside = |what: String, m: &Self| {
            Fail::boxed(Problem::WriteOutside {
                index: m.index,
                inst: m.inst.to_string(),
                what,
            })
        };
        match b {
            Base::Stack => {
                if off + n > 0 {
                    return Err(outside(
                        format!("[rsp0 {off:+}] (the return address or the caller's frame)"),
                        self,
                    ));
                }
                if off < self.rsp_off - 128 {
                    return Err(outside(
                        format!(
                            "[rsp0 {off:+}], below the red zone (rsp is rsp0 {:+})",
                            self.rsp_off
                        ),
                        self,
                    ));
                }
            }
            Base::Arg(k) => {
                let arg = self.abi.args.get(k as usize).copied();
                let size = self.abi.array(self.f, k as usize).map(|(_, s)| s);
                match (arg, size) {
                    (Some(ArgSlot::Output { ret }), Some(size)) if off >= 0 && off + n <= size => {
                        self.clobber_aliased(ret, k, off, n);
                    }
                    (Some(ArgSlot::Output { .. }), _) => {
                        return Err(outside(self.describe(b, off), self));
                    }
                    _ => {
                        return Err(outside(
                            format!("{} (an input)", self.describe(b, off)),
                            self,
                        ))
                    }
                }
            }
        }
        for i in 0..n {
            self.mem.insert(
                (b, off + i),
                Byte {
                    node: v,
                    idx: i as u8,
                },
            );
        }
        Ok(())
    }

    /// With aliasing, writing output `ret` makes the same bytes of every input array it
    /// may alias unreadable.
    fn clobber_aliased(&mut self, ret: usize, out: u8, off: i64, n: i64) {
        for (k, arg) in self.abi.args.iter().enumerate() {
            if let ArgSlot::Array { param } = *arg {
                if self.aliasing.may_alias(ret, param) {
                    for i in off..off + n {
                        self.clobbered.entry((k as u8, i)).or_insert(Clobber {
                            out,
                            off,
                            index: self.index,
                        });
                    }
                }
            }
        }
    }

    // ---------------------------------------------------------------------------------
    // instructions

    /// A constant shift count from an immediate or cl.
    fn count(&mut self, op: X) -> Step<u32> {
        match op {
            X::Imm(v) => Ok((v & 0xff) as u32),
            X::Reg(r, _) => {
                let c = self.g.trunc(self.regs[r.index()], 8);
                match self.g.as_const(c) {
                    Some(v) => Ok(v as u32),
                    None => Err(self.unsupported("the count register does not hold a constant")),
                }
            }
            X::Mem(_) => Err(self.bad_form()),
        }
    }

    /// Executes one instruction; `Ok(true)` at `ret`.
    fn step(&mut self) -> Step<bool> {
        let inst = self.inst;
        let ops = inst.operands();
        let mn = inst.mn;
        match (mn, ops) {
            (M::Ret, []) => return Ok(true),
            (M::Mov, &[d, s]) => {
                let sz = size_of(d).ok_or_else(|| self.bad_form())?;
                let v = self.read(s, sz)?;
                self.write(d, v)?;
            }
            (M::Movzx, &[d @ X::Reg(..), s]) => {
                let ss = size_of(s).ok_or_else(|| self.bad_form())?;
                let v = self.read(s, ss)?;
                self.write(d, v)?;
            }
            (M::Lea, &[d @ X::Reg(_, s), X::Mem(m)]) => {
                let a = self.address(m);
                let a = self.g.trunc(a, bits(s));
                self.write(d, a)?;
            }
            (M::Xchg, &[a, b]) => {
                let sz = size_of(a).ok_or_else(|| self.bad_form())?;
                let va = self.read(a, sz)?;
                let vb = self.read(b, sz)?;
                self.write(a, vb)?;
                self.write(b, va)?;
            }
            (M::Add | M::Adc | M::Sub | M::Sbb | M::Cmp, &[d, s]) => {
                let sz = size_of(d).ok_or_else(|| self.bad_form())?;
                let w = bits(sz);
                let a = self.read(d, sz)?;
                let b = self.read(s, sz)?;
                let c = if matches!(mn, M::Adc | M::Sbb) {
                    self.flag(CF)?
                } else {
                    self.g.konst(0)
                };
                let m = mask(w);
                if matches!(mn, M::Add | M::Adc) {
                    let r = self.g.sum(w, &[a, b, c]);
                    self.flags[CF] = FlagState::Carry {
                        w: w as u8,
                        a,
                        b,
                        c,
                    };
                    self.flags[OF] = FlagState::OvfAdd {
                        a,
                        b,
                        r,
                        w: w as u8,
                    };
                    self.zf_sf(r, w);
                    self.write(d, r)?;
                } else {
                    let r = self.g.add(w, &[(a, 1), (b, m), (c, m)], 0);
                    self.flags[CF] = FlagState::Borrow { a, b, c };
                    self.flags[OF] = FlagState::OvfSub {
                        a,
                        b,
                        r,
                        w: w as u8,
                    };
                    self.zf_sf(r, w);
                    if mn != M::Cmp {
                        self.write(d, r)?;
                    }
                }
            }
            (M::Adcx | M::Adox, &[d @ X::Reg(_, sz), s]) => {
                let w = bits(sz);
                let fl = if mn == M::Adcx { CF } else { OF };
                let a = self.read(d, sz)?;
                let b = self.read(s, sz)?;
                let c = self.flag(fl)?;
                let r = self.g.sum(w, &[a, b, c]);
                self.flags[fl] = FlagState::Carry {
                    w: w as u8,
                    a,
                    b,
                    c,
                };
                self.write(d, r)?;
            }
            (M::Inc | M::Dec, &[d]) => {
                let sz = size_of(d).ok_or_else(|| self.bad_form())?;
                let w = bits(sz);
                let a = self.read(d, sz)?;
                let one = self.g.konst(1);
                let r = if mn == M::Inc {
                    let r = self.g.sum(w, &[a, one]);
                    self.flags[OF] = FlagState::OvfAdd {
                        a,
                        b: one,
                        r,
                        w: w as u8,
                    };
                    r
                } else {
                    let r = self.g.add(w, &[(a, 1)], mask(w));
                    self.flags[OF] = FlagState::OvfSub {
                        a,
                        b: one,
                        r,
                        w: w as u8,
                    };
                    r
                };
                self.zf_sf(r, w);
                self.write(d, r)?;
            }
            (M::Neg, &[d]) => {
                let sz = size_of(d).ok_or_else(|| self.bad_form())?;
                let w = bits(sz);
                let a = self.read(d, sz)?;
                let zero = self.g.konst(0);
                let r = self.g.add(w, &[(a, mask(w))], 0);
                self.flags[CF] = FlagState::Borrow {
                    a: zero,
                    b: a,
                    c: zero,
                };
                self.flags[OF] = FlagState::OvfSub {
                    a: zero,
                    b: a,
                    r,
                    w: w as u8,
                };
                self.zf_sf(r, w);
                self.write(d, r)?;
            }
            (M::Not, &[d]) => {
                let sz = size_of(d).ok_or_else(|| self.bad_form())?;
                let a = self.read(d, sz)?;
                let r = self.g.not(bits(sz), a);
                self.write(d, r)?;
            }
            (M::And | M::Or | M::Xor | M::Test, &[d, s]) => {
                let sz = size_of(d).ok_or_else(|| self.bad_form())?;
                let w = bits(sz);
                let a = self.read(d, sz)?;
                let b = self.read(s, sz)?;
                let r = match mn {
                    M::And | M::Test => self.g.and(w, &[a, b]),
                    M::Or => self.g.or(w, &[a, b]),
                    _ => self.g.xor(w, &[a, b]),
                };
                let zero = self.g.konst(0);
                self.flags[CF] = FlagState::Node(zero);
                self.flags[OF] = FlagState::Node(zero);
                self.zf_sf(r, w);
                if mn != M::Test {
                    self.write(d, r)?;
                }
            }
            (M::Bt, &[base, off]) => {
                let sz = size_of(base).ok_or_else(|| self.bad_form())?;
                let w = bits(sz);
                let i = match (base, off) {
                    (_, X::Imm(v)) => (v as u32 & 0xff) % w,
                    (X::Reg(..), X::Reg(..)) => self.count_reg(off)? % w,
                    (X::Mem(_), X::Reg(..)) => {
                        let i = self.count_reg(off)?;
                        if i >= w {
                            return Err(self.unsupported("bit offset outside the memory operand"));
                        }
                        i
                    }
                    _ => return Err(self.bad_form()),
                };
                let v = self.read(base, sz)?;
                let b = self.g.slice(v, i, 1);
                self.flags[CF] = FlagState::Node(b);
                // Intel: ZF unaffected; AMD: undefined. OF and SF undefined on both.
                self.undef(OF);
                self.undef(SF);
                self.undef(ZF);
            }
            (M::Mul, &[s]) => {
                let sz = size_of(s).ok_or_else(|| self.bad_form())?;
                let w = bits(sz);
                let a = self.g.trunc(self.regs[Reg::Rax.index()], w);
                let b = self.read(s, sz)?;
                let p = self.g.prod(a, b);
                let lo = self.g.trunc(p, w);
                let hi = self.g.slice(p, w, w);
                self.write_wide(sz, lo, hi)?;
                let o = self.g.nonzero(hi);
                self.flags[CF] = FlagState::Node(o);
                self.flags[OF] = FlagState::Node(o);
                self.undef(ZF);
                self.undef(SF);
            }
            (M::Imul, &[s]) => {
                let sz = size_of(s).ok_or_else(|| self.bad_form())?;
                let w = bits(sz);
                let a = self.g.trunc(self.regs[Reg::Rax.index()], w);
                let b = self.read(s, sz)?;
                let (lo, hi, o) = self.signed_product(a, b, w);
                self.write_wide(sz, lo, hi)?;
                self.flags[CF] = FlagState::Node(o);
                self.flags[OF] = FlagState::Node(o);
                self.undef(ZF);
                self.undef(SF);
            }
            (M::Imul, &[d @ X::Reg(_, sz), s]) | (M::Imul, &[d @ X::Reg(_, sz), s, X::Imm(_)]) => {
                let w = bits(sz);
                let (a, b) = if ops.len() == 3 {
                    (self.read(s, sz)?, self.read(ops[2], sz)?)
                } else {
                    (self.read(d, sz)?, self.read(s, sz)?)
                };
                let (lo, _, o) = self.signed_product(a, b, w);
                self.flags[CF] = FlagState::Node(o);
                self.flags[OF] = FlagState::Node(o);
                self.undef(ZF);
                self.undef(SF);
                self.write(d, lo)?;
            }
            (M::Mulx, &[hi @ X::Reg(_, sz), lo @ X::Reg(..), s]) => {
                let w = bits(sz);
                let a = self.g.trunc(self.regs[Reg::Rdx.index()], w);
                let b = self.read(s, sz)?;
                let p = self.g.prod(a, b);
                let l = self.g.trunc(p, w);
                let h = self.g.slice(p, w, w);
                // With the same register twice, it ends up holding the high half.
                self.write(lo, l)?;
                self.write(hi, h)?;
            }
            (M::Shl | M::Shr | M::Sar, &[d, cnt]) => {
                let sz = size_of(d).ok_or_else(|| self.bad_form())?;
                let w = bits(sz);
                let c = self.count(cnt)? & if w == 64 { 63 } else { 31 };
                let a = self.read(d, sz)?;
                if c == 0 {
                    // No flag changes; the (unchanged) value is still written.
                    self.write(d, a)?;
                    return Ok(false);
                }
                // CF is the last bit shifted out; undefined when the count reaches the
                // operand size (possible for 8- and 16-bit operands only).
                let cf = if c < w {
                    let bit = if mn == M::Shl { w - c } else { c - 1 };
                    FlagState::Node(self.g.slice(a, bit, 1))
                } else {
                    FlagState::Undef {
                        by: Some(self.index),
                    }
                };
                let r = match mn {
                    M::Shl => self.g.shl(a, c, w),
                    M::Shr => self.g.shr(a, c),
                    _ => self.g.sar(w, a, c.min(w - 1)),
                };
                self.flags[CF] = cf;
                self.flags[OF] = if c == 1 {
                    match mn {
                        M::Shl => {
                            let top = self.g.slice(r, w - 1, 1);
                            let cfn = self.flag(CF)?;
                            FlagState::Node(self.g.xor(1, &[top, cfn]))
                        }
                        M::Shr => FlagState::Node(self.g.slice(a, w - 1, 1)),
                        _ => FlagState::Node(self.g.konst(0)),
                    }
                } else {
                    FlagState::Undef {
                        by: Some(self.index),
                    }
                };
                self.zf_sf(r, w);
                self.write(d, r)?;
            }
            (M::Shld | M::Shrd, &[d, s @ X::Reg(..), cnt]) => {
                let sz = size_of(d).ok_or_else(|| self.bad_form())?;
                let w = bits(sz);
                let c = self.count(cnt)? & if w == 64 { 63 } else { 31 };
                let a = self.read(d, sz)?;
                if c == 0 {
                    self.write(d, a)?;
                    return Ok(false);
                }
                if w < 32 {
                    return Err(self.unsupported("16-bit double shifts are not modelled"));
                }
                let b = self.read(s, sz)?;
                let (r, cf) = if mn == M::Shld {
                    let r = self.g.concat(
                        &[
                            Seg {
                                node: b,
                                from: (w - c) as u8,
                                len: c as u8,
                                at: 0,
                            },
                            Seg {
                                node: a,
                                from: 0,
                                len: (w - c) as u8,
                                at: c as u8,
                            },
                        ],
                        0,
                    );
                    (r, self.g.slice(a, w - c, 1))
                } else {
                    let r = self.g.concat(
                        &[
                            Seg {
                                node: a,
                                from: c as u8,
                                len: (w - c) as u8,
                                at: 0,
                            },
                            Seg {
                                node: b,
                                from: 0,
                                len: c as u8,
                                at: (w - c) as u8,
                            },
                        ],
                        0,
                    );
                    (r, self.g.slice(a, c - 1, 1))
                };
                self.flags[CF] = FlagState::Node(cf);
                self.flags[OF] = if c == 1 {
                    let x = self.g.xor(w, &[a, r]);
                    FlagState::Node(self.g.slice(x, w - 1, 1))
                } else {
                    FlagState::Undef {
                        by: Some(self.index),
                    }
                };
                self.zf_sf(r, w);
                self.write(d, r)?;
            }
            (M::Shlx | M::Shrx | M::Sarx, &[d @ X::Reg(_, sz), s, cnt @ X::Reg(..)]) => {
                let w = bits(sz);
                let c = self.count_reg(cnt)? & (w - 1);
                let a = self.read(s, sz)?;
                let r = match mn {
                    M::Shlx => self.g.shl(a, c, w),
                    M::Shrx => self.g.shr(a, c),
                    _ => self.g.sar(w, a, c),
                };
                self.write(d, r)?;
            }
            (M::Rorx, &[d @ X::Reg(_, sz), s, X::Imm(v)]) => {
                let w = bits(sz);
                let c = (v as u32) & (w - 1);
                let a = self.read(s, sz)?;
                let r = self.g.concat(
                    &[
                        Seg {
                            node: a,
                            from: c as u8,
                            len: (w - c) as u8,
                            at: 0,
                        },
                        Seg {
                            node: a,
                            from: 0,
                            len: c as u8,
                            at: (w - c) as u8,
                        },
                    ],
                    0,
                );
                self.write(d, r)?;
            }
            (M::Bzhi, &[d @ X::Reg(_, sz), s, idx @ X::Reg(..)]) => {
                let w = bits(sz);
                let n = self.count_reg(idx)? & 0xff;
                let a = self.read(s, sz)?;
                let (r, cf) = if n < w {
                    (self.g.trunc(a, n), 0)
                } else {
                    (a, 1)
                };
                self.flags[CF] = FlagState::Node(self.g.konst(cf));
                self.flags[OF] = FlagState::Node(self.g.konst(0));
                self.zf_sf(r, w);
                self.write(d, r)?;
            }
            (
                M::Cmovc | M::Cmovnc | M::Cmovo | M::Cmovno | M::Cmovz | M::Cmovnz,
                &[d @ X::Reg(_, sz), s],
            ) => {
                let c = self.cond(mn)?;
                let v = self.read(s, sz)?;
                let old = self.read(d, sz)?;
                let r = self.g.ite(c, v, old);
                self.write(d, r)?;
            }
            (M::Setc | M::Seto | M::Setz | M::Setnz, &[d]) => {
                if size_of(d) != Some(Size::B8) {
                    return Err(self.bad_form());
                }
                let c = self.cond(mn)?;
                self.write(d, c)?;
            }
            (M::Clc, []) => self.flags[CF] = FlagState::Node(self.g.konst(0)),
            (M::Stc, []) => self.flags[CF] = FlagState::Node(self.g.konst(1)),
            (M::Push, &[s]) => {
                if matches!(s, X::Reg(_, sz) if sz != Size::B64)
                    || matches!(s, X::Mem(m) if m.size != Size::B64)
                {
                    return Err(self.bad_form());
                }
                let v = self.read(s, Size::B64)?;
                let rsp = self.regs[Reg::Rsp.index()];
                let new = self.g.add(64, &[(rsp, 1)], mask(64) - 7);
                self.set_reg(Reg::Rsp, new)?;
                let (b, off) = self.decompose(new).ok_or_else(|| self.bad_form())?;
                self.record(v);
                self.store(b, off, 8, v)?;
            }
            (M::Pop, &[d]) => {
                if size_of(d) != Some(Size::B64) {
                    return Err(self.bad_form());
                }
                let rsp = self.regs[Reg::Rsp.index()];
                let (b, off) = self.decompose(rsp).ok_or_else(|| self.bad_form())?;
                let v = self.load(b, off, 8)?;
                let new = self.g.add(64, &[(rsp, 1)], 8);
                self.set_reg(Reg::Rsp, new)?;
                self.write(d, v)?;
            }
            _ => {
                return Err(self.unsupported(format!(
                    "`{}` with these operands is not modelled",
                    mn.name()
                )))
            }
        }
        Ok(false)
    }

    /// A constant count in a register (low 8 bits).
    fn count_reg(&mut self, op: X) -> Step<u32> {
        match op {
            X::Reg(r, _) => {
                let c = self.g.trunc(self.regs[r.index()], 8);
                match self.g.as_const(c) {
                    Some(v) => Ok(v as u32),
                    None => Err(self.unsupported("the count register does not hold a constant")),
                }
            }
            _ => Err(self.bad_form()),
        }
    }

    /// The result of one-operand `mul`/`imul`: AX (8-bit) or DX:AX, EDX:EAX, RDX:RAX.
    fn write_wide(&mut self, sz: Size, lo: NodeId, hi: NodeId) -> Step<()> {
        match sz {
            Size::B8 => {
                let ax = self.g.concat(
                    &[
                        Seg {
                            node: lo,
                            from: 0,
                            len: 8,
                            at: 0,
                        },
                        Seg {
                            node: hi,
                            from: 0,
                            len: 8,
                            at: 8,
                        },
                    ],
                    0,
                );
                self.write(X::Reg(Reg::Rax, Size::B16), ax)
            }
            _ => {
                self.write(X::Reg(Reg::Rax, sz), lo)?;
                self.write(X::Reg(Reg::Rdx, sz), hi)
            }
        }
    }

    /// Low half, high half and overflow bit of the signed product of the `w`-bit
    /// patterns `a` and `b`.
    fn signed_product(&mut self, a: NodeId, b: NodeId, w: u32) -> (NodeId, NodeId, NodeId) {
        let g = &mut *self.g;
        let m = mask(w);
        let p = g.prod(a, b);
        let lo = g.trunc(p, w);
        let hi_u = g.slice(p, w, w);
        // hi_signed = hi_unsigned - (a < 0 ? b : 0) - (b < 0 ? a : 0)  (mod 2^w)
        let zero = g.konst(0);
        let sa = g.slice(a, w - 1, 1);
        let sb = g.slice(b, w - 1, 1);
        let fa = g.ite(sa, b, zero);
        let fb = g.ite(sb, a, zero);
        let hi = g.add(w, &[(hi_u, 1), (fa, m), (fb, m)], 0);
        // Overflow: the high half is not the sign extension of the low half.
        let ext = g.sar(w, lo, w - 1);
        let diff = g.xor(w, &[hi, ext]);
        let o = g.nonzero(diff);
        (lo, hi, o)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::graph::NodeId;
    use cryptopt_ir::Function;

    /// The outcome of running a snippet symbolically: register nodes, flag nodes
    /// (`None`: undefined), and the graph to evaluate them in.
    pub(crate) struct Snippet {
        pub g: Graph,
        pub regs: [NodeId; 16],
        pub flags: [Option<NodeId>; 4],
    }

    /// Runs `insts` from registers holding their `Init` symbols and flags set to the
    /// given constants (`None`: undefined, as at a function's entry).
    pub(crate) fn run_insts(insts: &[Inst], flags: [Option<u128>; 4]) -> Result<Snippet> {
        let f = Function::new("t", vec![], vec![]);
        let abi = Abi::new(&f)?;
        let mut g = Graph::new();
        let (regs, out_flags) = {
            let mut m = Machine::new(&mut g, &f, &abi, Aliasing::None);
            for (i, v) in flags.iter().enumerate() {
                if let Some(v) = v {
                    m.flags[i] = FlagState::Node(m.g.konst(*v));
                }
            }
            for (i, inst) in insts.iter().enumerate() {
                m.index = i;
                m.inst = *inst;
                match m.step() {
                    Ok(_) => {}
                    Err(Fail::Error(e)) => return Err(e),
                    Err(Fail::Problem(p)) => panic!("problem: {p}"),
                }
            }
            let mut fl = [None; 4];
            for (i, slot) in fl.iter_mut().enumerate() {
                *slot = m.flag(i).ok();
            }
            (m.regs, fl)
        };
        Ok(Snippet {
            g,
            regs,
            flags: out_flags,
        })
    }

    /// Concrete values of a snippet's registers and flags for initial registers `init`.
    pub(crate) fn evaluate(s: &Snippet, init: &[u64; 16]) -> ([u64; 16], [Option<u64>; 4]) {
        let vals = s.g.eval(&mut |sym| match sym {
            Sym::Init(r) => init[r.index()] as u128,
            Sym::Rsp0 => init[Reg::Rsp.index()] as u128,
            _ => 0,
        });
        let mut regs = [0u64; 16];
        for (r, n) in regs.iter_mut().zip(s.regs) {
            *r = vals[n.index()] as u64;
        }
        let mut flags = [None; 4];
        for (f, n) in flags.iter_mut().zip(s.flags) {
            *f = n.map(|n| vals[n.index()] as u64);
        }
        (regs, flags)
    }

    fn parse(asm: &str) -> Vec<Inst> {
        asm.split(';')
            .map(|l| cryptopt_x86::parse::parse_inst(l.trim()).expect("test asm"))
            .collect()
    }

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

    /// Reading a flag that is undefined (at entry, or left undefined) is an error that
    /// names the instruction; so are unknown operand forms and unmodelled counts.
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

    /// The checker's meaning of each instruction against the CPU it runs on: every
    /// snippet runs natively (through the measure crate's ABI-checking runner) and
    /// symbolically, from the same random registers and each of four flag states; every
    /// register, and every flag the checker says is defined, must agree.
    #[test]
    fn cpu_agrees() {
        use cryptopt_ir::{Param, Ty};
        use cryptopt_measure::diff::{Pairing, Runner};
        use cryptopt_x86::{Mnemonic as M, Operand as X};
        use rand::{Rng, SeedableRng};

        const TESTED: [Reg; 13] = [
            Rax, Rbx, Rcx, Rdx, Rbp, R8, R9, R10, R11, R12, R13, R14, R15,
        ];
        let param = |name: &str, n: usize| Param {
            name: name.into(),
            ty: Ty::U64,
            len: Some(n as u32),
            lbound: vec![0; n],
            ubound: vec![u64::MAX as u128; n],
        };
        let f = Function::new("snippet", vec![param("arg1", 13)], vec![param("out1", 16)]);
        // (setup, CF, OF, ZF, SF)
        let setups: [(&str, [u128; 4]); 4] = [
            ("xor eax, eax", [0, 0, 1, 0]),
            ("xor eax, eax; stc", [1, 0, 1, 0]),
            ("mov rax, 0x7fffffffffffffff; add rax, 1", [0, 1, 0, 1]),
            ("mov rax, 0x7fffffffffffffff; add rax, 1; stc", [1, 1, 0, 1]),
        ];
        let snippets = [
            "add rax, rbx",
            "add eax, ebx",
            "add ax, bx",
            "add al, bl",
            "add rax, 0x7f",
            "add rax, -3",
            "adc rax, rbx",
            "adc ecx, edx",
            "adc r8w, r9w",
            "adc r10b, r11b",
            "adc rax, 0",
            "sub rax, rbx",
            "sub ebp, r12d",
            "sub r13w, r14w",
            "sub r15b, al",
            "sbb rax, rbx",
            "sbb edx, ecx",
            "sbb bx, cx",
            "sbb dl, r8b",
            "cmp rax, rbx",
            "cmp eax, 5",
            "adcx rax, rbx",
            "adcx r9d, r10d",
            "adox rax, rbx",
            "adox r11d, r12d",
            "inc rax",
            "inc ecx",
            "inc dx",
            "inc bl",
            "dec rax",
            "dec r8d",
            "dec r9w",
            "dec r10b",
            "neg rax",
            "neg ebx",
            "neg cx",
            "neg dl",
            "not rax",
            "not ebx",
            "not cx",
            "not dl",
            "and rax, rbx",
            "and eax, ebx",
            "and ax, bx",
            "and al, bl",
            "and rax, 0xff",
            "or rcx, rdx",
            "or ecx, 0x10",
            "xor r8, r9",
            "xor r8d, r8d",
            "xor al, 0x5a",
            "test rax, rbx",
            "test ecx, edx",
            "test rax, rax",
            "bt rax, 5",
            "bt eax, 35",
            "bt rax, 63",
            "mov ecx, 70; bt rax, rcx",
            "mul rbx",
            "mul ecx",
            "mul r8w",
            "mul r9b",
            "imul rbx",
            "imul ecx",
            "imul r9w",
            "imul rax, rbx",
            "imul eax, ebx",
            "imul ax, bx",
            "imul rax, rbx, 0x13",
            "imul r8d, r9d, -7",
            "mulx r8, r9, rcx",
            "mulx r10d, r11d, ebx",
            "mulx r8, r8, rcx",
            "shl rax, 1",
            "shl rax, 13",
            "shl eax, 1",
            "shl eax, 31",
            "shl ax, 3",
            "shl al, 1",
            "shl al, 7",
            "shr rbx, 1",
            "shr rbx, 51",
            "shr ebx, 7",
            "shr bx, 1",
            "shr bl, 3",
            "sar rcx, 1",
            "sar rcx, 63",
            "sar ecx, 5",
            "sar cx, 1",
            "sar r8b, 2",
            "mov ecx, 0; shl rax, cl",
            "mov ecx, 0; shl eax, cl",
            "mov ecx, 65; shl rax, cl",
            "mov ecx, 9; shl al, cl",
            "mov ecx, 17; shr bx, cl",
            "shld rax, rbx, 1",
            "shld rax, rbx, 13",
            "shld eax, ebx, 5",
            "shrd rax, rbx, 1",
            "shrd rax, rbx, 51",
            "shrd r8d, r9d, 31",
            "mov ecx, 7; shlx rax, rbx, rcx",
            "mov ecx, 70; shrx rax, rbx, rcx",
            "mov ecx, 63; sarx rax, rbx, rcx",
            "mov ecx, 33; shlx eax, ebx, ecx",
            "rorx rax, rbx, 13",
            "rorx eax, ebx, 31",
            "mov ecx, 13; bzhi rax, rbx, rcx",
            "mov ecx, 64; bzhi rax, rbx, rcx",
            "mov ecx, 0x107; bzhi rax, rbx, rcx",
            "mov ecx, 5; bzhi eax, ebx, ecx",
            "mov ecx, 0; bzhi rax, rbx, rcx",
            "cmovc rax, rbx",
            "cmovnc eax, ebx",
            "cmovo rcx, rdx",
            "cmovno ecx, edx",
            "cmovz r8, r9",
            "cmovnz r8d, r9d",
            "setc al",
            "seto bl",
            "setz r9b",
            "setnz r10b",
            "clc",
            "stc",
            "mov eax, ebx",
            "mov ax, bx",
            "mov al, bl",
            "movzx eax, bl",
            "movzx rax, bx",
            "movzx ax, bl",
            "lea rax, [rbx + rcx*8 + 0x10]",
            "lea eax, [rbx + rcx]",
            "xchg rax, rbx",
            "mov rax, 0x123456789abcdef",
            "push rax; pop rbx",
            "add rax, rbx; adc rcx, rdx; setc r8b; movzx r8d, r8b",
            "test rax, rax; adox rax, rbx; adcx rcx, rdx; seto r9b",
            "sub rax, rbx; sbb rcx, rdx; sbb r8, r8",
            "mov r8, rax; shl r8, 13; shr r8, 13",
            "shr rax, 51; shl rbx, 13; or rax, rbx",
        ];
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(11);
        let edge = [
            0u64,
            1,
            2,
            u64::MAX,
            1 << 63,
            (1 << 63) - 1,
            0xffff_ffff,
            0x8000_0000,
            0x80,
            0x7f,
            0xff,
        ];
        let mut runner = Runner::new().expect("runner");
        let mut code = Vec::new();
        let mut runs = 0;
        for snip in snippets {
            let body = parse(snip);
            for (setup, fl) in setups {
                let sym = run_insts(&body, fl.map(Some)).unwrap_or_else(|e| panic!("{snip}: {e}"));
                // prologue, flags, loads, the snippet, stores, epilogue
                let mut insts: Vec<Inst> = Vec::new();
                for r in Reg::CALLEE_SAVED {
                    insts.push(Inst::op1(M::Push, X::r64(r)));
                }
                insts.extend(parse(setup));
                for (k, r) in TESTED.iter().enumerate() {
                    insts.push(Inst::op2(
                        M::Mov,
                        X::r64(*r),
                        X::Mem(Mem::qword(Reg::Rsi, 8 * k as i32)),
                    ));
                }
                insts.extend(body.iter().copied());
                for (k, r) in TESTED.iter().enumerate() {
                    insts.push(Inst::op2(
                        M::Mov,
                        X::Mem(Mem::qword(Reg::Rdi, 8 * k as i32)),
                        X::r64(*r),
                    ));
                }
                for (i, mn) in [(CF, M::Setc), (OF, M::Seto), (ZF, M::Setz)] {
                    insts.push(Inst::op1(
                        mn,
                        X::Mem(Mem::at(Reg::Rdi, 8 * (13 + i as i32), Size::B8)),
                    ));
                }
                for r in Reg::CALLEE_SAVED.iter().rev() {
                    insts.push(Inst::op1(M::Pop, X::r64(*r)));
                }
                insts.push(Inst::op0(M::Ret));
                code.clear();
                cryptopt_x86::encode::encode(&insts, &mut code).expect("encodes");
                runner.load(&code).expect("loads");
                for trial in 0..24 {
                    let vals: Vec<u64> = (0..13)
                        .map(|_| {
                            if trial < 8 || rng.random_range(0..3) == 0 {
                                edge[rng.random_range(0..edge.len())]
                            } else {
                                rng.random()
                            }
                        })
                        .collect();
                    let input = vec![vals.iter().map(|&v| v as u128).collect::<Vec<u128>>()];
                    let out = runner
                        .run(&f, &input, Pairing::Distinct)
                        .unwrap_or_else(|e| panic!("{snip}: {e}"));
                    let mut init = [0u64; 16];
                    for (k, r) in TESTED.iter().enumerate() {
                        init[r.index()] = vals[k];
                    }
                    init[Reg::Rsp.index()] = 0x7fff_f000;
                    let (regs, flags) = evaluate(&sym, &init);
                    for (k, r) in TESTED.iter().enumerate() {
                        assert_eq!(
                            regs[r.index()],
                            out[0][k] as u64,
                            "`{snip}` after `{setup}` on {vals:x?}: {r}"
                        );
                    }
                    for i in [CF, OF, ZF] {
                        if let Some(v) = flags[i] {
                            assert_eq!(
                                v,
                                out[0][13 + i] as u64 & 0xff,
                                "`{snip}` after `{setup}` on {vals:x?}: {}",
                                FLAG_NAMES[i]
                            );
                        }
                    }
                    runs += 1;
                }
            }
        }
        eprintln!(
            "cpu_agrees: {} snippets, {runs} native runs",
            snippets.len()
        );
    }
}
