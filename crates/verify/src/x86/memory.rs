//! The memory model of the x86 executor: an address is a base (a pointer argument, the
//! entry rsp, or an aligned stack frame) plus a constant offset; memory is bytes keyed by
//! (base, offset), each byte "byte `i` of node `x`", so a word written and read back is
//! the same node and narrower or misaligned accesses become slices.
//!
//! An aligned frame is what `and rsp, -2^n` makes (gcc realigns the stack for 32-byte
//! vector spills): its base is rsp0 + `at` − δ for an unknown δ in 0..2^n, so an offset
//! from it is a *range* of offsets from rsp0 (its [`span`](Machine::span)). Every stack
//! rule is checked for the whole range; a byte stored through one stack base makes every
//! byte of another stack base that may share its address unreadable, and rsp rising
//! drops every byte that may now lie below the red zone, so a read never sees a value the
//! address may no longer hold.
//!
//! The rules (of the ABI checked, [`cryptopt_x86::Abi`]): arguments passed on the stack
//! may be read, input arrays read within their bounds, output arrays written within
//! their bounds and read back after being written, the stack between the red zone below
//! the current rsp (none on Windows) and the entry rsp read after being written, and on
//! Windows the callee's 32-byte home space above the return address as well; with
//! aliasing, an input byte read after an output that may share its memory was written
//! is a problem. Anything else ends the run with a [`Problem`] (a wrong program) or an
//! [`Error`] (reading what was never written).
//!
//! This module must never guess an address it cannot prove to be a base plus a
//! constant, nor let a program read or write memory outside these rules.

use std::collections::HashMap;

use cryptopt_x86::Mem;

use super::machine::{Fail, Machine, Step};
use crate::abi::ArgSlot;
use crate::graph::{Graph, Node, NodeId, Seg, Sym};
use crate::verdict::Problem;

/// A memory base.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Base {
    /// The memory argument register `k` points to.
    Arg(u8),
    /// The stack, offsets relative to the entry rsp.
    Stack,
    /// Aligned stack frame `k` (offsets relative to its base, [`Frame`]).
    Frame(u8),
    /// The program's constant `k` (`Program::data`): read-only, its bytes known.
    Data(u8),
}

/// A stack frame made by `and rsp, -align` when rsp was rsp0 + `at`: its base is
/// rsp0 + `at` − δ for an unknown δ in 0..=`slack` (`align` − 1).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Frame {
    at: i64,
    slack: i64,
}

/// Byte `idx` of node `node`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Byte {
    node: NodeId,
    idx: u8,
}

/// An input byte that may have been overwritten through an aliased output.
#[derive(Clone, Copy, Debug)]
pub(super) struct Clobber {
    out: u8,
    off: i64,
    index: usize,
}

/// The offsets from rsp0 a stack address may have: `(lowest, highest)`; `None` for an
/// argument's memory or a constant.
fn span(frames: &[Frame], b: Base, off: i64) -> Option<(i64, i64)> {
    match b {
        Base::Arg(_) | Base::Data(_) => None,
        Base::Stack => Some((off, off)),
        Base::Frame(k) => {
            let f = frames[k as usize];
            Some((f.at - f.slack + off, f.at + off))
        }
    }
}

/// Whether the stack byte at `(b, off)` may lie below `rsp - red` (rsp being `rsp`, red
/// the ABI's red zone: 128 bytes on System V, none on Windows).
fn may_be_below_red_zone(frames: &[Frame], red: i64, b: Base, off: i64, rsp: (Base, i64)) -> bool {
    if b == rsp.0 {
        return off < rsp.1 - red;
    }
    match (span(frames, b, off), span(frames, rsp.0, rsp.1)) {
        (Some((lo, _)), Some((_, rsp_hi))) => lo < rsp_hi - red,
        _ => false,
    }
}

/// The memory at entry: the words of the caller's stack that hold arguments passed
/// there, as (offset from the entry rsp, word). The callee may read them; writing them
/// is writing the caller's frame (refused by [`Machine::store`], as the code generator
/// never does it).
pub(super) fn stack_words(words: &[(i64, NodeId)]) -> HashMap<(Base, i64), Byte> {
    let mut mem = HashMap::new();
    for &(off, node) in words {
        for idx in 0..8u8 {
            mem.insert((Base::Stack, off + idx as i64), Byte { node, idx });
        }
    }
    mem
}

/// The node made of `bytes` (byte 0 lowest).
pub(super) fn assemble(g: &mut Graph, bytes: &[Byte]) -> NodeId {
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

impl Machine<'_> {
    /// The address of `m` as a node.
    pub(super) fn address(&mut self, m: Mem) -> NodeId {
        if let Some(id) = m.data {
            let label = format!("&{}", self.data[id.index()].label);
            let at = self.g.sym(Sym::Data(id.0), u64::MAX as u128, label);
            return self.g.add(64, &[(at, 1)], m.disp as i64 as u64 as u128);
        }
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
    pub(super) fn decompose(&self, a: NodeId) -> Option<(Base, i64)> {
        let base_of = |n: NodeId| match self.g.node(n) {
            Node::Sym(Sym::Pointer(k)) => Some(Base::Arg(*k)),
            Node::Sym(Sym::Rsp0) => Some(Base::Stack),
            Node::Sym(Sym::Frame(k)) => Some(Base::Frame(*k)),
            Node::Sym(Sym::Data(k)) => Some(Base::Data(*k)),
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

    pub(super) fn locate(&mut self, m: Mem) -> Step<(Base, i64)> {
        let a = self.address(m);
        match self.decompose(a) {
            Some(x) => Ok(x),
            None => Err(Fail::boxed(Problem::DataAddress {
                index: self.index,
                inst: self.inst_text(),
                address: self.g.show(a, 120),
            })),
        }
    }

    fn describe(&self, b: Base, off: i64) -> String {
        match b {
            Base::Arg(k) => self.abi.describe(self.f, k as usize, off),
            Base::Stack | Base::Frame(_) => format!("the stack slot {}", self.slot(b, off)),
            Base::Data(k) => format!(
                "byte {off} of the constant `{}`",
                self.data[k as usize].label
            ),
        }
    }

    /// A stack address in brackets: `[rsp0 -8]`, or `[frame0 -16] (rsp0 -95 to -64)` for
    /// an aligned frame.
    fn slot(&self, b: Base, off: i64) -> String {
        match (b, self.span(b, off)) {
            (Base::Frame(k), Some((lo, hi))) => {
                format!("[frame{k} {off:+}] (rsp0 {lo:+} to {hi:+})")
            }
            _ => format!("[rsp0 {off:+}]"),
        }
    }

    /// The offsets from rsp0 a stack address may have (see [`span`]).
    pub(super) fn span(&self, b: Base, off: i64) -> Option<(i64, i64)> {
        span(&self.frames, b, off)
    }

    /// `and rsp, -align` (`align` a power of two): rsp becomes the base of a new
    /// aligned frame. Returns the new rsp.
    pub(super) fn align_rsp(&mut self, align: i64) -> Step<NodeId> {
        let (lo, hi) = self
            .span(self.rsp.0, self.rsp.1)
            .expect("rsp is on the stack");
        let k = u8::try_from(self.frames.len())
            .map_err(|_| self.unsupported("more than 255 stack realignments"))?;
        // A frame of a frame: its base is at most `align - 1` below the lowest rsp.
        self.frames.push(Frame {
            at: hi,
            slack: hi - lo + align - 1,
        });
        Ok(self
            .g
            .sym(Sym::Frame(k), u64::MAX as u128, format!("frame{k}")))
    }

    /// rsp is moving to `new`: what may now be below the red zone may be overwritten
    /// (signal handlers), so it is forgotten.
    pub(super) fn forget_below_red_zone(&mut self, new: (Base, i64)) {
        let (frames, red) = (&self.frames, self.abi.conv.red_zone());
        self.mem
            .retain(|&(b, o), _| !may_be_below_red_zone(frames, red, b, o, new));
    }

    /// A store of `n` bytes at `(b, off)` on the stack: forget the bytes of other stack
    /// bases that may share an address with it.
    fn forget_overlapping(&mut self, b: Base, off: i64, n: i64) {
        if self.frames.is_empty() {
            return;
        }
        let frames = &self.frames;
        let (lo, hi) = span(frames, b, off).expect("a stack base");
        self.mem.retain(|&(b2, o2), _| {
            b2 == b || !span(frames, b2, o2).is_some_and(|(lo2, hi2)| lo2 < hi + n && hi2 >= lo)
        });
    }

    /// "`[slot]` (the return address or the caller's frame)": a stack address that may
    /// be at or above rsp0.
    fn callers(&self, b: Base, off: i64) -> String {
        format!(
            "{} (the return address or the caller's frame)",
            self.slot(b, off)
        )
    }

    fn byte(&mut self, b: Base, off: i64) -> Step<Byte> {
        if let Some(&x) = self.mem.get(&(b, off)) {
            return Ok(x);
        }
        match b {
            Base::Data(k) => {
                let d = &self.data[k as usize];
                match usize::try_from(off).ok().and_then(|i| d.bytes.get(i)) {
                    Some(&v) => Ok(Byte {
                        node: self.g.konst(v as u128),
                        idx: 0,
                    }),
                    None => Err(Fail::boxed(Problem::ReadOutside {
                        index: self.index,
                        inst: self.inst_text(),
                        what: format!("{} (it has {} bytes)", self.describe(b, off), d.bytes.len()),
                    })),
                }
            }
            Base::Arg(k) => {
                let arg = self.abi.args.get(k as usize).copied();
                let size = self.abi.array(self.f, k as usize).map(|(_, s)| s);
                match (arg, size) {
                    (Some(ArgSlot::Array { param }), Some(size)) if (0..size).contains(&off) => {
                        if let Some(c) = self.clobbered.get(&(k, off)).copied() {
                            return Err(Fail::boxed(Problem::AliasedRead {
                                index: self.index,
                                inst: self.inst_text(),
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
                        Err(Fail::boxed(Problem::UndefinedRead {
                            index: self.index,
                            inst: self.inst_text(),
                            what: self.describe(b, off),
                        }))
                    }
                    _ => Err(Fail::boxed(Problem::ReadOutside {
                        index: self.index,
                        inst: self.inst_text(),
                        what: self.describe(b, off),
                    })),
                }
            }
            Base::Stack | Base::Frame(_) if self.span(b, off).is_some_and(|s| s.1 >= 0) => {
                Err(Fail::boxed(Problem::ReadOutside {
                    index: self.index,
                    inst: self.inst_text(),
                    what: self.callers(b, off),
                }))
            }
            Base::Stack | Base::Frame(_) => Err(Fail::boxed(Problem::UndefinedRead {
                index: self.index,
                inst: self.inst_text(),
                what: self.describe(b, off),
            })),
        }
    }

    pub(super) fn load(&mut self, b: Base, off: i64, n: i64) -> Step<NodeId> {
        let mut bytes = Vec::with_capacity(n as usize);
        for i in 0..n {
            bytes.push(self.byte(b, off + i)?);
        }
        Ok(assemble(self.g, &bytes))
    }

    pub(super) fn store(&mut self, b: Base, off: i64, n: i64, v: NodeId) -> Step<()> {
        let outside = |what: String, m: &Self| {
            Fail::boxed(Problem::WriteOutside {
                index: m.index,
                inst: m.inst_text(),
                what,
            })
        };
        match b {
            Base::Data(_) => {
                let what = format!("{} (read-only data)", self.describe(b, off));
                return Err(outside(what, self));
            }
            Base::Stack | Base::Frame(_) => {
                let (lo, hi) = self.span(b, off).expect("a stack base");
                // Above the return address, only the ABI's home space is the callee's.
                let home = 8..8 + self.abi.conv.home_space() as i64;
                let in_home = home.contains(&lo) && hi + n <= home.end;
                if hi + n > 0 && !in_home {
                    return Err(outside(self.callers(b, off), self));
                }
                if may_be_below_red_zone(&self.frames, self.abi.conv.red_zone(), b, off, self.rsp) {
                    return Err(outside(
                        format!(
                            "{}, below the red zone (rsp is {})",
                            self.slot(b, off),
                            match self.rsp {
                                (Base::Frame(k), o) => format!("frame{k} {o:+}"),
                                (_, o) => format!("rsp0 {o:+}"),
                            }
                        ),
                        self,
                    ));
                }
                self.forget_overlapping(b, off, n);
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
}
