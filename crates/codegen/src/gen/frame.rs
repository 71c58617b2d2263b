//! The prologue and epilogue, added once the body is generated and the frame is known:
//! CET's `endbr64` first (`--cet`), the frame pointer (`--frame-pointer save`), pushes
//! and pops of the callee-saved registers the body used, and the spill area (in the red
//! zone below rsp, or made with `sub rsp`), with the body's spill slots rebased to it,
//! (only where the ABI has one: [`cryptopt_x86::Abi::red_zone`]), and the loads of
//! stack-passed arguments rebased from the entry rsp to the final one;
//! then `ret`. Before that, stores to spill slots that nothing reads are dropped (a
//! literal homed to a slot whose register was never evicted, a value spilled and never
//! reloaded): [`Generator::drop_dead_stores`].
//!
//! It must never touch rbp unless the options allow it, and never use memory below rsp
//! without the red zone.

use cryptopt_x86::{Abi, Inst, Mem, Mnemonic as M, Operand as X, Reg, Size};

use super::Generator;
use crate::options::FramePointer;

/// The most spill slots [`Generator::drop_dead_stores`] tracks (one bit each); a body
/// with more keeps every store.
const TRACKED_SLOTS: u32 = 128;

impl Generator<'_> {
    /// Removes each `mov [slot], r64` whose slot is not read before it is stored again
    /// or the body ends: one backward pass with the set of slots read later. Any other
    /// access to a slot (a load, an operand, a narrower or vector access) counts as a
    /// read of every slot it touches, so only a store nothing can observe is removed;
    /// a `mov` writes no flag, so nothing else changes. The loads of stack-passed
    /// arguments (`incoming`, addressed from the entry rsp) are not slot accesses, and
    /// their positions are kept in step.
    fn drop_dead_stores(&mut self) {
        let st = &mut self.st;
        if st.nslots == 0 || st.nslots > TRACKED_SLOTS {
            return;
        }
        let slot_bits = |m: &Mem| -> u128 {
            if m.base != Some(Reg::Rsp) || m.index.is_some() || m.disp < 0 {
                return 0;
            }
            let (from, to) = (m.disp as u32 / 8, (m.disp as u32 + m.size.bytes() - 1) / 8);
            (from..=to.min(TRACKED_SLOTS - 1)).fold(0, |b, s| b | 1 << s)
        };
        let mut read_later: u128 = 0;
        let mut removed = 0usize;
        let mut incoming = st.incoming.iter().rev().copied().peekable();
        // Marked from the end (`keep`), then compacted.
        let n = st.body.len();
        st.keep.clear();
        st.keep.resize(n, true);
        for at in (0..n).rev() {
            if incoming.next_if_eq(&(at as u32)).is_some() {
                continue;
            }
            let i = &st.body[at];
            let ops = i.operands();
            if let (M::Mov, [X::Mem(m), X::Reg(_, Size::B64)]) = (i.mn, ops) {
                if m.size == Size::B64 && m.disp % 8 == 0 {
                    let b = slot_bits(m);
                    if b != 0 {
                        if read_later & b == 0 {
                            st.keep[at] = false;
                            removed += 1;
                        }
                        read_later &= !b;
                        continue;
                    }
                }
            }
            for o in ops {
                if let X::Mem(m) = o {
                    read_later |= slot_bits(m);
                }
            }
        }
        if removed == 0 {
            return;
        }
        let mut w = 0;
        let mut inc = 0;
        for at in 0..n {
            while inc < st.incoming.len() && st.incoming[inc] as usize == at {
                st.incoming[inc] = w as u32;
                inc += 1;
            }
            if st.keep[at] {
                st.body[w] = st.body[at];
                w += 1;
            }
        }
        st.body.truncate(w);
    }

    pub(super) fn assemble(&mut self) {
        self.drop_dead_stores();
        let st = &mut self.st;
        // The used callee-saved registers (rbp has its own push in frame-pointer mode);
        // a fixed array, as nothing in generation allocates once warm.
        let fp = self.opts.frame_pointer == FramePointer::Save;
        let (mut saved, mut n) = ([Reg::Rbx; Abi::MAX_CALLEE_SAVED], 0);
        for &r in self.opts.abi.callee_saved() {
            if st.used_callee_saved & (1 << r.index()) != 0 && !(fp && r == Reg::Rbp) {
                saved[n] = r;
                n += 1;
            }
        }
        let pushes = &saved[..n];
        let slots_bytes = 8 * st.nslots as i32;
        let use_red_zone = self.opts.red_zone && slots_bytes as i64 <= self.opts.abi.red_zone();
        let frame = if use_red_zone { 0 } else { slots_bytes };
        if self.opts.cet {
            st.out.push(Inst::op0(M::Endbr64));
        }
        if self.opts.frame_pointer == FramePointer::Save {
            st.out.push(Inst::op1(M::Push, X::r64(Reg::Rbp)));
            st.out
                .push(Inst::op2(M::Mov, X::r64(Reg::Rbp), X::r64(Reg::Rsp)));
        }
        for &r in pushes {
            st.out.push(Inst::op1(M::Push, X::r64(r)));
        }
        if frame > 0 {
            st.out
                .push(Inst::op2(M::Sub, X::r64(Reg::Rsp), X::Imm(frame as i64)));
        }
        // Slots are [rsp + 8k] below a lowered rsp, or [rsp - 8n + 8k] in the red zone.
        let shift = if use_red_zone { -slots_bytes } else { 0 };
        // Stack-passed arguments were addressed from the entry rsp; rsp is now below the
        // frame pointer, the pushes and the frame.
        let below_entry = 8 * (pushes.len() as i32 + fp as i32) + frame;
        let mut incoming = st.incoming.iter().copied().peekable();
        for (at, i) in st.body.iter().enumerate() {
            let mut i = *i;
            if incoming.next_if_eq(&(at as u32)).is_some() {
                for o in i.operands_mut() {
                    if let X::Mem(m) = o {
                        m.disp += below_entry;
                    }
                }
            } else if shift != 0 {
                for o in i.operands_mut() {
                    if let X::Mem(m) = o {
                        if m.base == Some(Reg::Rsp) {
                            m.disp += shift;
                        }
                    }
                }
            }
            st.out.push(i);
        }
        if frame > 0 {
            st.out
                .push(Inst::op2(M::Add, X::r64(Reg::Rsp), X::Imm(frame as i64)));
        }
        for &r in pushes.iter().rev() {
            st.out.push(Inst::op1(M::Pop, X::r64(r)));
        }
        if self.opts.frame_pointer == FramePointer::Save {
            st.out.push(Inst::op1(M::Pop, X::r64(Reg::Rbp)));
        }
        st.out.push(Inst::op0(M::Ret));
    }
}
