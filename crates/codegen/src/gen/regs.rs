//! Register allocation and spilling: who holds each register (a value, a pointer
//! argument, or the current operation's scratch), pinning of the current operation's
//! registers, eviction of the holder whose next use is furthest away (chosen by
//! `crate::evict`, the policy the vector allocator shares; to a spill slot unless it
//! has another home), rdx for `mulx` and rax/rdx for `mul` (`vacate`), and
//! freeing what dies.
//!
//! It must never evict a pinned register (an operand of the current operation), never
//! leave a live value without a location, and never write a flag (its moves are `mov`s).

use cryptopt_ir::{Operand as IrOperand, Value};
use cryptopt_x86::{ArgLoc, Inst, Mem, Mnemonic as M, Operand as X, Reg, Size};

use super::flags::FlagReg;
use super::{Generator, MemLoc, Owner, INF};
use crate::error::{Error, Result};
use crate::evict::{self, Holder};

impl Generator<'_> {
    /// The position of the next use of value `v` (`INF`: none).
    fn next_use(&self, v: u32) -> u32 {
        let c = self.st.use_cur[v as usize];
        if c < self.use_off[v as usize + 1] {
            self.st.use_pos[c as usize]
        } else {
            INF
        }
    }

    /// The next use of pointer argument `k`: its next load or store, or "soon" while
    /// values still wait in its array (they are read through it).
    fn abi_next_use(&self, k: u8) -> u32 {
        if self.st.abi_mem_live[k as usize] > 0 {
            return self.st.cur.pos + 1;
        }
        let c = self.st.abi_use_cur[k as usize];
        if c < self.abi_use_off[k as usize + 1] {
            self.st.abi_use_pos[c as usize]
        } else {
            INF
        }
    }

    pub(super) fn pin(&mut self, r: Reg) {
        self.st.pinned |= 1 << r.index();
    }

    pub(super) fn unpin(&mut self, r: Reg) {
        self.st.pinned &= !(1 << r.index());
    }

    fn is_pinned(&self, r: Reg) -> bool {
        self.st.pinned & (1 << r.index()) != 0
    }

    pub(super) fn slot_mem(s: u32, size: Size) -> Mem {
        Mem::at(Reg::Rsp, 8 * s as i32, size)
    }

    pub(super) fn alloc_slot(&mut self) -> u32 {
        if let Some(s) = self.st.slots_free.pop() {
            s
        } else {
            self.st.nslots += 1;
            self.st.nslots - 1
        }
    }

    /// A register for the current operation, evicting the holder whose next use is
    /// furthest away if none is free. The register comes back pinned.
    pub(super) fn alloc_reg(&mut self) -> Result<Reg> {
        let free = self
            .allocatable
            .iter()
            .copied()
            .find(|&r| !self.is_pinned(r) && self.st.owner[r.index()] == Owner::Free);
        if let Some(r) = free {
            self.take(r);
            return Ok(r);
        }
        // Offered in allocation order (the last tie-break of the policy).
        let holders = self.allocatable.iter().filter_map(|&r| {
            if self.is_pinned(r) {
                return None;
            }
            // (next use, whether dropping it needs no store)
            let (next_use, cheap) = match self.st.owner[r.index()] {
                // Never used again as a value, and dropped for free.
                Owner::Const(_) => (INF, true),
                Owner::Val(v) => (
                    self.next_use(v),
                    self.st.v_mem[v as usize].is_some() || self.st.v_flag[v as usize].is_some(),
                ),
                Owner::Abi(k) => (self.abi_next_use(k), self.abi_home(k).is_some()),
                Owner::Free | Owner::Temp | Owner::Reserved => return None,
            };
            Some(Holder {
                reg: r,
                next_use,
                cheap,
            })
        });
        let r = evict::victim(holders)
            .ok_or_else(|| Error::Internal("every register is pinned".into()))?;
        self.evict(r);
        self.take(r);
        Ok(r)
    }

    /// A free register outside the mask `touched` (by [`Reg::index`]), taken and pinned
    /// like [`Self::alloc_reg`]'s; none if every free register is in it.
    pub(super) fn take_free_outside(&mut self, touched: u16) -> Option<Reg> {
        let r = self.allocatable.iter().copied().find(|&r| {
            !self.is_pinned(r)
                && self.st.owner[r.index()] == Owner::Free
                && touched & (1 << r.index()) == 0
        })?;
        self.take(r);
        Some(r)
    }

    fn take(&mut self, r: Reg) {
        self.st.owner[r.index()] = Owner::Temp;
        self.pin(r);
        if self.opts.abi.is_callee_saved(r) {
            self.st.used_callee_saved |= 1 << r.index();
        }
    }

    /// Moves the holder of `r` elsewhere (a stack slot unless it has another home).
    fn evict(&mut self, r: Reg) {
        match self.st.owner[r.index()] {
            Owner::Val(v) => {
                let vi = v as usize;
                if self.st.v_mem[vi].is_none() && self.st.v_flag[vi].is_none() {
                    let s = self.alloc_slot();
                    self.st.body.push(Inst::op2(
                        M::Mov,
                        X::Mem(Self::slot_mem(s, Size::B64)),
                        X::r64(r),
                    ));
                    self.st.v_mem[vi] = Some(MemLoc::Slot(s));
                }
                self.st.v_reg[vi] = None;
            }
            Owner::Abi(k) => {
                let ki = k as usize;
                if self.abi_home(k).is_none() {
                    let s = self.alloc_slot();
                    self.st.body.push(Inst::op2(
                        M::Mov,
                        X::Mem(Self::slot_mem(s, Size::B64)),
                        X::r64(r),
                    ));
                    self.st.abi_slot[ki] = Some(s);
                }
                self.st.abi_reg[ki] = None;
            }
            Owner::Free | Owner::Const(_) | Owner::Temp | Owner::Reserved => {}
        }
        self.st.owner[r.index()] = Owner::Free;
    }

    /// Makes `r` hold value `v` (64-bit, zero-extended).
    pub(super) fn bind(&mut self, v: Value, r: Reg) {
        self.st.owner[r.index()] = Owner::Val(v.0);
        self.st.v_reg[v.index()] = Some(r);
    }

    /// Whether value `v` is also in memory (its input element or a spill slot).
    fn in_memory(&self, v: u32) -> bool {
        self.st.v_mem[v as usize].is_some()
    }

    /// A free allocatable register that is not pinned, if any; else one that only
    /// holds a literal (free to drop).
    fn free_reg(&self) -> Option<Reg> {
        let unpinned = |want: fn(Owner) -> bool| {
            self.allocatable
                .iter()
                .copied()
                .find(|&r| want(self.st.owner[r.index()]) && !self.is_pinned(r))
        };
        unpinned(|o| o == Owner::Free).or_else(|| unpinned(|o| matches!(o, Owner::Const(_))))
    }

    /// A register that holds literal `c` (see `const_reg`), if any.
    pub(super) fn holding_const(&self, c: u64) -> Option<Reg> {
        self.allocatable
            .iter()
            .copied()
            .find(|&r| self.st.owner[r.index()] == Owner::Const(c))
    }

    /// A free register, taken (pinned, Temp), if any.
    pub(super) fn take_free(&mut self) -> Option<Reg> {
        let r = self.free_reg()?;
        self.take(r);
        Some(r)
    }

    /// Empties `r` for an instruction that writes it implicitly (rdx for `mulx`'s
    /// factor, rax and rdx for `mul`): its holder moves to another register (a free one,
    /// or any when it is an operand of the current operation) or is dropped to its
    /// memory home or a spill slot. `r` comes back taken (pinned, Temp).
    pub(super) fn vacate(&mut self, r: Reg) -> Result<()> {
        // Pinned first, so that moving its holder never picks r itself.
        self.pin(r);
        match self.st.owner[r.index()] {
            Owner::Val(w) if self.in_memory(w) => {
                // Dropped, not copied: its later uses read memory (an operand in place,
                // or a load where a register is needed), which costs no more than the
                // copy, and the register stays free.
                self.evict(r);
            }
            Owner::Val(w) if self.occurrences(w) > 0 => {
                // An operand of the current operation is in r: move it out of the way.
                let to = self.alloc_reg()?;
                self.st.body.push(Inst::op2(M::Mov, X::r64(to), X::r64(r)));
                self.bind(Value(w), to);
                self.st.owner[r.index()] = Owner::Free;
            }
            Owner::Free | Owner::Const(_) => {}
            Owner::Temp | Owner::Reserved => {
                return Err(Error::Internal(format!("{r:?} is busy")));
            }
            _ => {
                // Evicting r's holder: prefer a free register over the stack.
                if let Some(to) = self.free_reg() {
                    self.take(to);
                    self.st.body.push(Inst::op2(M::Mov, X::r64(to), X::r64(r)));
                    match self.st.owner[r.index()] {
                        Owner::Val(w) => self.bind(Value(w), to),
                        Owner::Abi(k) => {
                            self.st.owner[to.index()] = Owner::Abi(k);
                            self.st.abi_reg[k as usize] = Some(to);
                        }
                        _ => {}
                    }
                    self.unpin(to);
                    self.st.owner[r.index()] = Owner::Free;
                } else {
                    self.evict(r);
                }
            }
        }
        self.take(r);
        Ok(())
    }

    /// Whether rdx holds `x` now (its value, or the literal a previous `mulx` left).
    pub(super) fn in_rdx(&self, x: IrOperand) -> bool {
        match x {
            IrOperand::Value(v) => self.st.v_reg[v.index()] == Some(Reg::Rdx),
            IrOperand::Const(c) => self.st.owner[Reg::Rdx.index()] == Owner::Const(c as u64),
        }
    }

    /// Puts `x` into rdx (pinned), moving whatever rdx held.
    pub(super) fn load_rdx(&mut self, x: IrOperand) -> Result<()> {
        if self.in_rdx(x) {
            self.pin(Reg::Rdx);
            return Ok(());
        }
        let rdx = Reg::Rdx;
        self.vacate(rdx)?;
        match x {
            IrOperand::Const(c) => {
                // mulx only reads rdx: the literal stays for the next one.
                self.load_const(rdx, c as u64);
                self.st.owner[rdx.index()] = Owner::Const(c as u64);
            }
            IrOperand::Value(v) => {
                let vi = v.index();
                if let Some(r) = self.st.v_reg[vi] {
                    // Move the value into rdx.
                    self.st.body.push(Inst::op2(M::Mov, X::r64(rdx), X::r64(r)));
                    self.st.owner[r.index()] = Owner::Free;
                    self.unpin(r);
                } else if let Some(m) = self.st.v_mem[vi] {
                    let mo = self.mem_operand(m, Size::B64)?;
                    self.st
                        .body
                        .push(Inst::op2(M::Mov, X::r64(rdx), X::Mem(mo)));
                    self.release(X::Mem(mo), rdx);
                } else if let Some(fl) = self.st.v_flag[vi] {
                    let set = if fl == FlagReg::CF { M::Setc } else { M::Seto };
                    self.st.body.push(Inst::op1(set, X::r8(rdx)));
                    self.st
                        .body
                        .push(Inst::op2(M::Movzx, X::r32(rdx), X::r8(rdx)));
                } else {
                    return Err(Error::Internal(format!("value {v} has no location")));
                }
                self.bind(v, rdx);
            }
        }
        Ok(())
    }

    /// Unpins a spent operand's registers (not `keep`).
    pub(super) fn release(&mut self, x: X, keep: Reg) {
        match x {
            X::Reg(r, _) if r != keep => self.unpin(r),
            X::Mem(m) => {
                if let Some(b) = m.base {
                    if b != keep && b != Reg::Rsp {
                        self.unpin(b);
                    }
                }
            }
            _ => {}
        }
    }

    /// The pointer register of abi argument `k`, reloaded if it was spilled; pinned.
    pub(super) fn abi_ptr(&mut self, k: u8) -> Result<Reg> {
        if let Some(r) = self.st.abi_reg[k as usize] {
            self.pin(r);
            return Ok(r);
        }
        let r = self.alloc_reg()?;
        self.reload_abi(k, r)?;
        self.st.owner[r.index()] = Owner::Abi(k);
        self.st.abi_reg[k as usize] = Some(r);
        Ok(r)
    }

    /// Where argument `k` is in memory while no register holds it: its spill slot, or
    /// the caller's stack for an argument passed there (before the frame is known:
    /// `frame` rebases it).
    pub(super) fn abi_home(&self, k: u8) -> Option<Mem> {
        match (
            self.st.abi_slot[k as usize],
            self.opts.abi.arg_location(k as usize),
        ) {
            (Some(s), _) => Some(Self::slot_mem(s, Size::B64)),
            (None, ArgLoc::Stack(off)) => Some(Mem::at(Reg::Rsp, off, Size::B64)),
            (None, ArgLoc::Reg(_)) => None,
        }
    }

    /// `mov r, home` for argument `k` (its register is not bound here).
    pub(super) fn reload_abi(&mut self, k: u8, r: Reg) -> Result<()> {
        let m = self
            .abi_home(k)
            .ok_or_else(|| Error::Internal(format!("argument {k} lost")))?;
        if self.st.abi_slot[k as usize].is_none() {
            self.st.incoming.push(self.st.body.len() as u32);
        }
        self.st.body.push(Inst::op2(M::Mov, X::r64(r), X::Mem(m)));
        Ok(())
    }

    pub(super) fn kill(&mut self, v: u32) {
        let vi = v as usize;
        if let Some(r) = self.st.v_reg[vi].take() {
            if self.st.owner[r.index()] == Owner::Val(v) {
                self.st.owner[r.index()] = Owner::Free;
            }
        }
        match self.st.v_mem[vi].take() {
            Some(MemLoc::Slot(s)) => self.st.slots_free.push(s),
            Some(MemLoc::Arg { abi, .. }) => {
                self.st.abi_mem_live[abi as usize] -= 1;
                self.maybe_release_abi(abi);
            }
            None => {}
        }
        if let Some(fl) = self.st.v_flag[vi].take() {
            if self.st.flag[fl as usize] == Some(v) {
                self.st.flag[fl as usize] = None;
            }
        }
    }

    pub(super) fn maybe_release_abi(&mut self, k: u8) {
        let ki = k as usize;
        if self.st.abi_ops_left[ki] == 0 && self.st.abi_mem_live[ki] == 0 {
            if let Some(r) = self.st.abi_reg[ki].take() {
                if self.st.owner[r.index()] == Owner::Abi(k) {
                    self.st.owner[r.index()] = Owner::Free;
                }
            }
            if let Some(s) = self.st.abi_slot[ki].take() {
                self.st.slots_free.push(s);
            }
        }
    }
}
