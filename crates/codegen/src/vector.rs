//! Code generation for the vector dialect ([`cryptopt_ir::vector`]): a [`VFunction`] and
//! an order of its instructions become an x86-64 program on `ymm` registers (AVX2 lane
//! operations, AVX-512's `vpmullq` and IFMA's multiply-adds), System V signature of the
//! scalar expansion (outputs first).
//!
//! * each instruction is one x86 instruction (a select three, a multiply-add whose
//!   accumulator lives on one more for the copy);
//! * registers: the sixteen `ymm`s, allocated in the order given; when none is free, the
//!   value used furthest in the future (the scalar allocator's policy, `crate::evict`)
//!   goes to a 32-byte stack slot (a constant is reloaded from the program's constant
//!   pool instead: it is never spilled);
//! * the last source operand of most instructions may be memory: a spilled value or a
//!   constant is read from there without a register;
//! * constants live in the program's read-only data ([`cryptopt_x86::Program::data`]);
//! * `vzeroupper` before `ret`.
//!
//! Aliasing: every load comes before the first store in the order (checked), so an
//! output may share any input's buffer. It must never emit a branch or an address that
//! depends on data.

use std::collections::HashMap;

use cryptopt_ir::vector::{VFunction, VOp, LANES};
use cryptopt_x86::{
    Abi, ArgLoc, DataId, Datum, Inst, Mem, Mnemonic as M, Operand as X, Program, Reg, Size, VReg,
};

use crate::error::{Error, Result};
use crate::evict::{self, Holder};

const Y: Size = Size::B256;
const NREGS: usize = 16;

/// Where a value is now.
#[derive(Clone, Copy, Debug, Default)]
struct Home {
    reg: Option<VReg>,
    slot: Option<u32>,
}

struct Emitter<'f> {
    f: &'f VFunction,
    /// Per value, the positions (in the order) of its uses, last first (popped as passed).
    uses: Vec<Vec<u32>>,
    homes: Vec<Home>,
    /// Which value each register holds.
    holder: [Option<usize>; NREGS],
    nslots: u32,
    consts: HashMap<[u64; LANES], DataId>,
    data: Vec<Datum>,
    body: Vec<Inst>,
    /// Argument `k`'s pointer (or value) register.
    args: Vec<Reg>,
    /// A general register the masks are made in.
    scratch: Reg,
}

/// The program for `f` with its instructions in `order` (a topological order of all of
/// them), under `abi` (System V only: Windows x64 keeps xmm6–xmm15).
pub fn emit(f: &VFunction, order: &[u32], abi: Abi) -> Result<Program> {
    if abi != Abi::SysV {
        return Err(Error::Unsupported(
            "vector code for the Windows x64 convention (xmm6-xmm15 are callee-saved)".into(),
        ));
    }
    check_order(f, order)?;
    let gprs = Gprs::new(f, abi)?;
    let mut uses = vec![Vec::new(); f.insts.len()];
    for (pos, &i) in order.iter().enumerate().rev() {
        for a in &f.insts[i as usize].args {
            uses[a.index()].push(pos as u32);
        }
    }
    let mut e = Emitter {
        f,
        uses,
        homes: vec![Home::default(); f.insts.len()],
        holder: [None; NREGS],
        nslots: 0,
        consts: HashMap::new(),
        data: Vec::new(),
        body: Vec::new(),
        args: gprs.args.clone(),
        scratch: gprs.scratch,
    };
    for &i in order {
        e.inst(i as usize)?;
    }
    let frame = 32 * e.nslots as i64;
    let mut insts = Vec::with_capacity(e.body.len() + 16);
    for &r in &gprs.saved {
        insts.push(Inst::op1(M::Push, X::r64(r)));
    }
    // Stack-passed pointers, addressed from the entry rsp, now below the pushes.
    for &(r, at) in &gprs.from_stack {
        let m = Mem::qword(Reg::Rsp, at + 8 * gprs.saved.len() as i32);
        insts.push(Inst::op2(M::Mov, X::r64(r), X::Mem(m)));
    }
    if frame > 0 {
        insts.push(Inst::op2(M::Sub, X::r64(Reg::Rsp), X::Imm(frame)));
    }
    insts.extend(e.body);
    if frame > 0 {
        insts.push(Inst::op2(M::Add, X::r64(Reg::Rsp), X::Imm(frame)));
    }
    for &r in gprs.saved.iter().rev() {
        insts.push(Inst::op1(M::Pop, X::r64(r)));
    }
    insts.push(Inst::op0(M::Vzeroupper));
    insts.push(Inst::op0(M::Ret));
    Ok(Program {
        name: f.name.clone(),
        insts,
        data: e.data,
    })
}

/// The general registers: one per argument (its pointer, or the value of a scalar),
/// stack-passed ones loaded into free registers at entry (callee-saved ones pushed),
/// and one scratch register for the masks.
struct Gprs {
    args: Vec<Reg>,
    from_stack: Vec<(Reg, i32)>,
    saved: Vec<Reg>,
    scratch: Reg,
}

impl Gprs {
    fn new(f: &VFunction, abi: Abi) -> Result<Gprs> {
        let nargs = f.returns.len() + f.params.len();
        let mut args = Vec::with_capacity(nargs);
        let mut stack = Vec::new();
        for k in 0..nargs {
            match abi.arg_location(k) {
                ArgLoc::Reg(r) => args.push(r),
                ArgLoc::Stack(at) => {
                    stack.push((args.len(), at));
                    args.push(Reg::Rsp);
                }
            }
        }
        // Free registers, caller-saved first; rsp is never one.
        let mut pool = Reg::ALL
            .into_iter()
            .filter(|&r| r != Reg::Rsp && !args.contains(&r))
            .collect::<Vec<Reg>>();
        pool.sort_by_key(|&r| abi.is_callee_saved(r));
        let mut pool = pool.into_iter();
        let mut take = || {
            pool.next()
                .ok_or_else(|| Error::Unsupported(format!("vector code with {nargs} arguments")))
        };
        let mut from_stack = Vec::new();
        for (k, at) in stack {
            let r = take()?;
            args[k] = r;
            from_stack.push((r, at));
        }
        let scratch = take()?;
        let mut saved: Vec<Reg> = args
            .iter()
            .chain([&scratch])
            .copied()
            .filter(|&r| abi.is_callee_saved(r))
            .collect();
        saved.sort();
        saved.dedup();
        Ok(Gprs {
            args,
            from_stack,
            saved,
            scratch,
        })
    }
}

/// `order` is a permutation of `f`'s instructions in which arguments come before their
/// uses and every load before the first store.
pub fn check_order(f: &VFunction, order: &[u32]) -> Result<()> {
    let bad = |why: String| Err(Error::BadCandidate(format!("vector order: {why}")));
    if order.len() != f.insts.len() {
        return bad(format!("{} of {} instructions", order.len(), f.insts.len()));
    }
    let mut pos = vec![u32::MAX; f.insts.len()];
    for (p, &i) in order.iter().enumerate() {
        match pos.get_mut(i as usize) {
            Some(x) if *x == u32::MAX => *x = p as u32,
            _ => return bad(format!("instruction {i} twice or out of range")),
        }
    }
    let mut first_store = u32::MAX;
    let mut last_load = 0;
    for (i, inst) in f.insts.iter().enumerate() {
        for a in &inst.args {
            if pos[a.index()] >= pos[i] {
                return bad(format!("instruction {i} before its argument {}", a.0));
            }
        }
        if inst.op.is_store() {
            first_store = first_store.min(pos[i]);
        }
        if inst.op.is_load() {
            last_load = last_load.max(pos[i]);
        }
    }
    if last_load > first_store {
        return bad("a load after a store (outputs may alias inputs)".into());
    }
    Ok(())
}

fn ymm(r: VReg) -> X {
    X::Vec(r, Y)
}

fn xmm(r: VReg) -> X {
    X::Vec(r, Size::B128)
}

impl Emitter<'_> {
    fn inst(&mut self, i: usize) -> Result<()> {
        let inst = &self.f.insts[i];
        let args: Vec<usize> = inst.args.iter().map(|a| a.index()).collect();
        for &a in &args {
            self.uses[a].pop();
        }
        let imm = |x: u64| X::Imm(x as i64);
        match inst.op {
            VOp::Load { param, index } => {
                let base = self.arg(self.f.returns.len() + param as usize);
                let d = self.def(i, &[])?;
                let m = Mem::at(base, 8 * index as i32, Y);
                self.body.push(Inst::op2(M::Vmovdqu, ymm(d), X::Mem(m)));
            }
            VOp::Splat { param, index } => {
                let base = self.arg(self.f.returns.len() + param as usize);
                let d = self.def(i, &[])?;
                let m = Mem::qword(base, 8 * index as i32);
                self.body
                    .push(Inst::op2(M::Vpbroadcastq, ymm(d), X::Mem(m)));
            }
            VOp::Gather { params, index } => {
                // Lanes 0 and 1 into the low half, 2 and 3 through a temporary.
                let d = self.def(i, &[])?;
                let t = self.free(&[], &[d])?;
                let at = |e: &Self, k: usize| {
                    let base = e.arg(e.f.returns.len() + params[k] as usize);
                    X::Mem(Mem::qword(base, 8 * index as i32))
                };
                let (xd, xt) = (xmm(d), xmm(t));
                self.body.push(Inst::op2(M::Vmovq, xd, at(self, 0)));
                self.body
                    .push(Inst::new(M::Vpinsrq, &[xd, xd, at(self, 1), X::Imm(1)]));
                self.body.push(Inst::op2(M::Vmovq, xt, at(self, 2)));
                self.body
                    .push(Inst::new(M::Vpinsrq, &[xt, xt, at(self, 3), X::Imm(1)]));
                self.body
                    .push(Inst::new(M::Vinserti128, &[ymm(d), ymm(d), xt, X::Imm(1)]));
            }
            VOp::Mask { param } => {
                let r = self.arg(self.f.returns.len() + param as usize);
                let d = self.def(i, &[])?;
                let t = self.scratch;
                self.body.push(Inst::op2(M::Movzx, X::r32(t), X::r8(r)));
                self.body.push(Inst::op1(M::Neg, X::r64(t)));
                self.body
                    .push(Inst::op2(M::Vpbroadcastq, ymm(d), X::r64(t)));
            }
            // Materialized where they are used (see `src`); nothing to emit here.
            VOp::Const(c) => {
                self.constant(c)?;
            }
            VOp::Add | VOp::Sub | VOp::And | VOp::Xor | VOp::MulLo => {
                let mn = match inst.op {
                    VOp::Add => M::Vpaddq,
                    VOp::Sub => M::Vpsubq,
                    VOp::And => M::Vpand,
                    VOp::Xor => M::Vpxor,
                    _ => M::Vpmullq,
                };
                let commutes = inst.op != VOp::Sub;
                let (mut a, mut b) = (args[0], args[1]);
                if commutes && self.homes[a].reg.is_none() && self.homes[b].reg.is_some() {
                    std::mem::swap(&mut a, &mut b);
                }
                let ra = self.reg(a, &[b])?;
                let sb = self.src(b, &[a])?;
                let d = self.def(i, &[])?;
                self.body.push(Inst::op3(mn, ymm(d), ymm(ra), sb));
            }
            VOp::Shr(n) | VOp::Shl(n) => {
                let mn = if matches!(inst.op, VOp::Shr(_)) {
                    M::Vpsrlq
                } else {
                    M::Vpsllq
                };
                let ra = self.reg(args[0], &[])?;
                let d = self.def(i, &[])?;
                self.body
                    .push(Inst::op3(mn, ymm(d), ymm(ra), imm(n as u64)));
            }
            VOp::Permute(sel) => {
                let s = self.src(args[0], &[])?;
                let d = self.def(i, &[])?;
                let k = sel
                    .iter()
                    .enumerate()
                    .fold(0u64, |k, (j, &s)| k | (s as u64) << (2 * j));
                self.body.push(Inst::op3(M::Vpermq, ymm(d), s, imm(k)));
            }
            VOp::Blend(from_b) => {
                let ra = self.reg(args[0], &[args[1]])?;
                let sb = self.src(args[1], &[args[0]])?;
                let d = self.def(i, &[])?;
                let k = (0..LANES)
                    .filter(|&j| from_b[j])
                    .fold(0u64, |k, j| k | 3 << (2 * j));
                self.body
                    .push(Inst::new(M::Vpblendd, &[ymm(d), ymm(ra), sb, imm(k)]));
            }
            VOp::Select => {
                // d = a ^ ((a ^ b) & m): `d` must not be `a`'s register.
                let (m, a, b) = (args[0], args[1], args[2]);
                let ra = self.reg(a, &[m, b])?;
                let rb = self.reg(b, &[m, a])?;
                let sm = self.src(m, &[a, b])?;
                // `m` is read after `d` is first written.
                let mut avoid = vec![ra];
                avoid.extend(self.homes[m].reg);
                let d = self.def(i, &avoid)?;
                self.body
                    .push(Inst::op3(M::Vpxor, ymm(d), ymm(ra), ymm(rb)));
                self.body.push(Inst::op3(M::Vpand, ymm(d), ymm(d), sm));
                self.body.push(Inst::op3(M::Vpxor, ymm(d), ymm(ra), ymm(d)));
            }
            VOp::Madd52Lo | VOp::Madd52Hi => {
                let mn = if inst.op == VOp::Madd52Lo {
                    M::Vpmadd52luq
                } else {
                    M::Vpmadd52huq
                };
                let (acc, mut a, mut b) = (args[0], args[1], args[2]);
                if self.homes[a].reg.is_none() && self.homes[b].reg.is_some() {
                    std::mem::swap(&mut a, &mut b);
                }
                let ra = self.reg(a, &[acc, b])?;
                let sb = self.src(b, &[acc, a])?;
                let d = self.accumulator(i, acc, &[a, b])?;
                self.body.push(Inst::op3(mn, ymm(d), ymm(ra), sb));
            }
            VOp::Scatter { rets, index } => {
                let r = self.reg(args[0], &[])?;
                let t = self.free(&[args[0]], &[r])?;
                let at = |e: &Self, k: usize| {
                    X::Mem(Mem::qword(e.arg(rets[k] as usize), 8 * index as i32))
                };
                let (xr, xt) = (xmm(r), xmm(t));
                self.body.push(Inst::op2(M::Vmovq, at(self, 0), xr));
                self.body
                    .push(Inst::op3(M::Vpextrq, at(self, 1), xr, X::Imm(1)));
                self.body
                    .push(Inst::op3(M::Vextracti128, xt, ymm(r), X::Imm(1)));
                self.body.push(Inst::op2(M::Vmovq, at(self, 2), xt));
                self.body
                    .push(Inst::op3(M::Vpextrq, at(self, 3), xt, X::Imm(1)));
            }
            VOp::Store { ret, index } => {
                let base = self.arg(ret as usize);
                let r = self.reg(args[0], &[])?;
                let m = Mem::at(base, 8 * index as i32, Y);
                self.body.push(Inst::op2(M::Vmovdqu, X::Mem(m), ymm(r)));
            }
        }
        // Registers of values no longer used are free.
        for &a in &args {
            if self.uses[a].is_empty() {
                if let Some(r) = self.homes[a].reg.take() {
                    self.holder[r.index()] = None;
                }
            }
        }
        if self.uses[i].is_empty() {
            if let Some(r) = self.homes[i].reg.take() {
                self.holder[r.index()] = None;
            }
        }
        Ok(())
    }

    fn arg(&self, k: usize) -> Reg {
        self.args[k]
    }

    fn constant(&mut self, c: [u64; LANES]) -> Result<DataId> {
        if let Some(&id) = self.consts.get(&c) {
            return Ok(id);
        }
        let id = u8::try_from(self.data.len())
            .map(DataId)
            .map_err(|_| Error::Unsupported("more than 256 vector constants".into()))?;
        self.data.push(Datum {
            label: format!(".Lc{}", self.data.len()),
            align: 32,
            bytes: c.iter().flat_map(|x| x.to_le_bytes()).collect(),
        });
        self.consts.insert(c, id);
        Ok(id)
    }

    fn const_of(&self, v: usize) -> Option<[u64; LANES]> {
        match self.f.insts[v].op {
            VOp::Const(c) => Some(c),
            _ => None,
        }
    }

    /// `v` as a last source operand: its register, else its stack slot or constant.
    fn src(&mut self, v: usize, keep: &[usize]) -> Result<X> {
        if let Some(r) = self.homes[v].reg {
            return Ok(ymm(r));
        }
        if let Some(c) = self.const_of(v) {
            return Ok(X::Mem(Mem::constant(self.constant(c)?, 0, Y)));
        }
        match self.homes[v].slot {
            Some(s) => Ok(X::Mem(Mem::at(Reg::Rsp, 32 * s as i32, Y))),
            None => self.reg(v, keep).map(ymm),
        }
    }

    /// `v` in a register (reloaded from its slot or the constant pool if needed),
    /// without evicting the values of `keep`.
    fn reg(&mut self, v: usize, keep: &[usize]) -> Result<VReg> {
        if let Some(r) = self.homes[v].reg {
            return Ok(r);
        }
        let r = self.free(keep, &[])?;
        if let Some(c) = self.const_of(v) {
            if c == [0; LANES] {
                self.body.push(Inst::op3(M::Vpxor, ymm(r), ymm(r), ymm(r)));
            } else {
                let m = Mem::constant(self.constant(c)?, 0, Y);
                self.body.push(Inst::op2(M::Vmovdqu, ymm(r), X::Mem(m)));
            }
        } else {
            let s = self.homes[v].slot.ok_or_else(|| {
                Error::Internal(format!("vector value {v} used before it is defined"))
            })?;
            let m = Mem::at(Reg::Rsp, 32 * s as i32, Y);
            self.body.push(Inst::op2(M::Vmovdqu, ymm(r), X::Mem(m)));
        }
        self.bind(v, r);
        Ok(r)
    }

    fn bind(&mut self, v: usize, r: VReg) {
        self.homes[v].reg = Some(r);
        self.holder[r.index()] = Some(v);
    }

    /// A register for the result of instruction `i`, not one of `avoid`.
    fn def(&mut self, i: usize, avoid: &[VReg]) -> Result<VReg> {
        // A dying argument's register may be the destination (three-operand forms).
        let args: Vec<usize> = self.f.insts[i].args.iter().map(|a| a.index()).collect();
        for &a in &args {
            if self.uses[a].is_empty() {
                if let Some(r) = self.homes[a].reg {
                    if !avoid.contains(&r) {
                        self.homes[a].reg = None;
                        self.holder[r.index()] = None;
                    }
                }
            }
        }
        let r = self.free(&args, avoid)?;
        self.bind(i, r);
        Ok(r)
    }

    /// The multiply-add's destination: the accumulator's register where this is its
    /// last use, else a copy of it.
    fn accumulator(&mut self, i: usize, acc: usize, keep: &[usize]) -> Result<VReg> {
        if self.uses[acc].is_empty() {
            if let Some(r) = self.homes[acc].reg.take() {
                self.holder[r.index()] = None;
                self.bind(i, r);
                return Ok(r);
            }
        }
        let mut keep = keep.to_vec();
        keep.push(acc);
        let r = self.free(&keep, &[])?;
        match (self.const_of(acc), self.homes[acc].reg) {
            (Some(c), _) if c == [0; LANES] => {
                self.body.push(Inst::op3(M::Vpxor, ymm(r), ymm(r), ymm(r)));
            }
            (_, Some(s)) => self.body.push(Inst::op2(M::Vmovdqa, ymm(r), ymm(s))),
            _ => {
                let s = self.src(acc, &keep)?;
                self.body.push(Inst::op2(M::Vmovdqu, ymm(r), s));
            }
        }
        self.bind(i, r);
        if self.uses[acc].is_empty() {
            if let Some(s) = self.homes[acc].reg.take() {
                self.holder[s.index()] = None;
            }
        }
        Ok(r)
    }

    /// A free register, evicting (Belady: the value next used furthest away) if none
    /// is; never one holding a value of `keep`, never one of `avoid`.
    fn free(&mut self, keep: &[usize], avoid: &[VReg]) -> Result<VReg> {
        if let Some(k) =
            (0..NREGS).find(|&k| self.holder[k].is_none() && !avoid.contains(&VReg(k as u8)))
        {
            return Ok(VReg(k as u8));
        }
        // Offered from the highest register down: of holders used equally far away,
        // the highest-numbered one goes (the policy takes the first offered). Every
        // holder counts as costly to drop, so the policy's preference for a cheap one
        // never applies here.
        let holders = (0..NREGS)
            .rev()
            .filter(|&k| !avoid.contains(&VReg(k as u8)))
            .filter_map(|k| self.holder[k].map(|v| (k, v)))
            .filter(|(_, v)| !keep.contains(v))
            .map(|(k, v)| Holder {
                reg: (k, v),
                next_use: self.uses[v].last().copied().unwrap_or(u32::MAX),
                cheap: false,
            });
        let (k, v) = evict::victim(holders)
            .ok_or_else(|| Error::Unsupported("no vector register to spill".into()))?;
        if self.const_of(v).is_none() && self.homes[v].slot.is_none() {
            let s = self.nslots;
            self.nslots += 1;
            self.homes[v].slot = Some(s);
            let m = Mem::at(Reg::Rsp, 32 * s as i32, Y);
            self.body
                .push(Inst::op2(M::Vmovdqu, X::Mem(m), ymm(VReg(k as u8))));
        }
        self.homes[v].reg = None;
        self.holder[k] = None;
        Ok(VReg(k as u8))
    }
}
