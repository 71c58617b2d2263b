//! Instruction selection: one template family per lowered operation, each with its
//! named alternatives. A template reads its decisions with `decide(slot, n)`; only
//! decisions with more than one applicable alternative are recorded as hot.
//!
//! | operation          | alternatives (Flavor)                          | other decisions          |
//! |--------------------|------------------------------------------------|--------------------------|
//! | addcarry.64, c = 0 | `add` · `clc/test; adcx` · `test; adox`        | Swap (dest), Clear       |
//! | addcarry.64, c set | `adc` · `adcx` (CF); `adox` when c is in OF     | Swap                     |
//! | subborrow.64       | `sub` / `sbb` (`stc`/`bt` to load the borrow)   |                          |
//! | mulx.64            | `mulx`                                         | Swap (which factor → rdx), Mem |
//! | add (n-ary)        | `add`/`adc r, 0` chain · `lea` (two operands)   | Swap (dest)              |
//! | mul by constant    | `imul r, r/m, imm` · `mov; imul` · `mulx` · `shl` · `lea` | |
//! | mul                | `imul` · `mulx`                                |                          |
//! | and with a mask    | `and imm` · `movzx` (0xff) · `mov r32` (2^32-1) · `shl; shr` · `bzhi` | |
//! | shr / shl          | `shr`/`shl imm` · `shrx`/`shlx` · `lea` (shl ≤ 3) |                        |
//! | shrd               | `shrd` · `shr; shl; or`                        |                          |
//! | cmovznz            | `cmovc`/`cmovo` on a live flag, else `test; cmovnz` | Swap (z or nz first) |
//! | cast (truncation)  | `movzx` · `and` · `mov r32` · `shl; shr`       |                          |
//!
//! A template first gets its operands (only flag-neutral moves), then puts a carry-in
//! into its flag, then emits the flag-consuming instruction, so a carry is never lost
//! between being placed and being read.

use cryptopt_ir::{InstData, Op, Operand as IrOperand, Value};
use cryptopt_x86::{Inst, Mem, Mnemonic as M, Operand as X, Reg, Size};

use super::{fits_imm32, FlagReg, Generator, MemLoc, Owner};
use crate::candidate::DecisionSlot;
use crate::error::{Error, Result};

impl Generator<'_> {
    pub(super) fn select(&mut self, d: &InstData) -> Result<()> {
        match d.op {
            Op::Load { param, index } => self.t_load(d, param, index),
            Op::Store { ret, index } => self.t_store(d, ret, index),
            Op::Mulx { size: 64 } => self.t_mulx(d),
            Op::AddCarry { size: 64 } => self.t_addcarry(d),
            Op::SubBorrow { size: 64 } => self.t_subborrow(d),
            Op::AddCarry { size } | Op::SubBorrow { size } => self.t_carry_narrow(d, size),
            Op::Add => self.t_add(d),
            Op::Sub => self.t_sub(d),
            Op::Mul => self.t_mul(d),
            Op::And | Op::Or | Op::Xor => self.t_bitwise(d),
            Op::Not => self.t_not(d),
            Op::LNot => self.t_lnot(d),
            Op::Shl | Op::Shr => self.t_shift(d),
            Op::Sar { from } => self.t_sar(d, from),
            Op::Sext { from } => self.t_sext(d, from),
            Op::Shrd { n } => self.t_shrd(d, n),
            Op::Cmovznz => self.t_cmov(d),
            Op::Cast => self.t_cast(d),
            Op::Mulx { size } => Err(Error::Unsupported(format!("mulx of size {size}"))),
        }
    }

    /// Unpins a spent operand's registers (not `keep`).
    fn release(&mut self, x: X, keep: Reg) {
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

    /// A result register: the register of an operand that dies here if there is one
    /// among `reuse` (and is not pinned by something else), else a fresh one.
    fn result_reg(&mut self, reuse: &[IrOperand]) -> Result<Reg> {
        for &o in reuse {
            if let IrOperand::Value(v) = o {
                if let Some(r) = self.st.v_reg[v.index()] {
                    if self.dies_here(o) {
                        self.st.v_reg[v.index()] = None;
                        self.st.owner[r.index()] = Owner::Temp;
                        self.pin(r);
                        return Ok(r);
                    }
                }
            }
        }
        self.fresh()
    }

    fn t_load(&mut self, d: &InstData, param: u32, index: u32) -> Result<()> {
        let k = self.param_abi[param as usize];
        let v = d.results[0];
        let ty = self.abi[k as usize].ty;
        if self.abi[k as usize].pointer {
            if ty.bits == 64 {
                // Lazy: the value stays in the input array until an instruction reads it.
                self.st.v_mem[v.index()] = Some(MemLoc::Arg {
                    abi: k,
                    disp: 8 * index as i32,
                });
                self.st.abi_mem_live[k as usize] += 1;
                return Ok(());
            }
            let (size, stride) = elem_size(ty.bits);
            let m = Mem::at(self.abi_ptr(k)?, stride * index as i32, size);
            let r = self.fresh()?;
            let i = match size {
                Size::B32 => Inst::op2(M::Mov, X::r32(r), X::Mem(m)),
                _ => Inst::op2(M::Movzx, X::r32(r), X::Mem(m)),
            };
            self.emit(i, None)?;
            self.bind(v, r);
            return Ok(());
        }
        // A scalar argument: its register (or spill slot) becomes the value's.
        let r = match self.st.abi_reg[k as usize].take() {
            Some(r) => {
                self.st.owner[r.index()] = Owner::Temp;
                self.pin(r);
                r
            }
            None => {
                let s = self.st.abi_slot[k as usize]
                    .take()
                    .ok_or_else(|| Error::Internal("scalar argument lost".into()))?;
                let r = self.fresh()?;
                self.st.body.push(Inst::op2(
                    M::Mov,
                    X::r64(r),
                    X::Mem(Self::slot_mem(s, Size::B64)),
                ));
                self.st.slots_free.push(s);
                r
            }
        };
        // The ABI leaves the bits above a narrow scalar undefined: zero-extend.
        match ty.bits {
            64 => {}
            33..=63 => self.truncate(r, ty.bits)?,
            17..=32 => self.emit(Inst::op2(M::Mov, X::r32(r), X::r32(r)), None)?,
            9..=16 => self.emit(Inst::op2(M::Movzx, X::r32(r), X::Reg(r, Size::B16)), None)?,
            _ => self.emit(Inst::op2(M::Movzx, X::r32(r), X::r8(r)), None)?,
        }
        self.bind(v, r);
        Ok(())
    }

    fn t_store(&mut self, d: &InstData, ret: u32, index: u32) -> Result<()> {
        self.protect_aliased_inputs(ret as usize)?;
        let k = self.ret_abi[ret as usize];
        let ty = self.f.returns[ret as usize].ty;
        let (size, stride) = elem_size(ty.bits);
        let a = d.args[0];
        // A u1 output straight from a flag.
        if let IrOperand::Value(v) = a {
            let vi = v.index();
            if size == Size::B8 && self.st.v_reg[vi].is_none() && self.st.v_mem[vi].is_none() {
                if let Some(fl) = self.st.v_flag[vi] {
                    let m = Mem::at(self.abi_ptr(k)?, stride * index as i32, size);
                    let set = if fl == FlagReg::CF { M::Setc } else { M::Seto };
                    return self.emit(Inst::op1(set, X::Mem(m)), None);
                }
            }
        }
        let src = match a {
            IrOperand::Const(c) if size != Size::B64 || fits_imm32(c as u64) => {
                X::Imm(c as u64 as i64)
            }
            _ => X::Reg(self.reg_operand(a)?, size),
        };
        let m = Mem::at(self.abi_ptr(k)?, stride * index as i32, size);
        self.emit(Inst::op2(M::Mov, X::Mem(m), src), None)
    }

    /// Puts `x` into rdx (pinned), moving whatever rdx held.
    fn load_rdx(&mut self, x: IrOperand) -> Result<()> {
        if let IrOperand::Value(v) = x {
            if self.st.v_reg[v.index()] == Some(Reg::Rdx) {
                self.pin(Reg::Rdx);
                return Ok(());
            }
        }
        let rdx = Reg::Rdx;
        // Pinned first, so that moving its holder never picks rdx itself.
        self.pin(rdx);
        match self.st.owner[rdx.index()] {
            Owner::Val(w) if self.occurrences(w) > 0 => {
                // The other operand is in rdx: move it out of the way.
                let r = self.alloc_reg()?;
                self.st.body.push(Inst::op2(M::Mov, X::r64(r), X::r64(rdx)));
                self.bind(Value(w), r);
                self.st.owner[rdx.index()] = Owner::Free;
            }
            Owner::Free => {}
            Owner::Temp | Owner::Reserved => {
                return Err(Error::Internal("rdx is busy".into()));
            }
            _ => {
                // Evicting rdx's holder: prefer a free register over the stack.
                if let Some(r) = self.free_reg() {
                    self.take(r);
                    self.st.body.push(Inst::op2(M::Mov, X::r64(r), X::r64(rdx)));
                    match self.st.owner[rdx.index()] {
                        Owner::Val(w) => self.bind(Value(w), r),
                        Owner::Abi(k) => {
                            self.st.owner[r.index()] = Owner::Abi(k);
                            self.st.abi_reg[k as usize] = Some(r);
                        }
                        _ => {}
                    }
                    self.unpin(r);
                    self.st.owner[rdx.index()] = Owner::Free;
                } else {
                    self.evict(rdx);
                }
            }
        }
        self.take(rdx);
        match x {
            IrOperand::Const(c) => self.load_const(rdx, c as u64),
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

    /// A free allocatable register that is not pinned, if any.
    fn free_reg(&self) -> Option<Reg> {
        self.allocatable
            .iter()
            .copied()
            .find(|&r| self.st.owner[r.index()] == Owner::Free && !self.is_pinned(r))
    }

    fn t_mulx(&mut self, d: &InstData) -> Result<()> {
        let (a, b) = (d.args[0], d.args[1]);
        let (x, y) = if self.decide(DecisionSlot::Swap, 2) == 0 {
            (a, b)
        } else {
            (b, a)
        };
        self.load_rdx(x)?;
        let src = self.operand(y, true, false)?;
        let lo = self.result_reg(&[y, x])?;
        let hi = self.result_reg(&[y, x])?;
        self.emit(Inst::op3(M::Mulx, X::r64(hi), X::r64(lo), src), None)?;
        self.bind(d.results[0], lo);
        self.bind(d.results[1], hi);
        Ok(())
    }

    fn t_addcarry(&mut self, d: &InstData) -> Result<()> {
        #[derive(PartialEq, Clone, Copy)]
        enum F {
            Add,
            Adc,
            Adcx,
            Adox,
        }
        let (c, a, b) = (d.args[0], d.args[1], d.args[2]);
        let c_flag = c.value().and_then(|v| self.st.v_flag[v.index()]);
        let fam = match (c, c_flag) {
            (IrOperand::Const(0), _) => {
                [F::Add, F::Adcx, F::Adox][self.decide(DecisionSlot::Flavor, 3)]
            }
            (_, Some(FlagReg::OF)) => F::Adox,
            _ => [F::Adc, F::Adcx][self.decide(DecisionSlot::Flavor, 2)],
        };
        let (x, y) = if self.decide(DecisionSlot::Swap, 2) == 0 {
            (a, b)
        } else {
            (b, a)
        };
        let dst = self.dest_from(x)?;
        let src = self.operand(y, true, matches!(fam, F::Add | F::Adc))?;
        let (mn, fl, consumed) = match fam {
            F::Add => (M::Add, FlagReg::CF, None),
            F::Adc => (M::Adc, FlagReg::CF, self.carry_into(c, FlagReg::CF, None)?),
            F::Adcx => {
                let clear = if c == IrOperand::Const(0) {
                    Some([M::Clc, M::Test][self.decide(DecisionSlot::Clear, 2)])
                } else {
                    None
                };
                (
                    M::Adcx,
                    FlagReg::CF,
                    self.carry_into(c, FlagReg::CF, clear)?,
                )
            }
            F::Adox => (
                M::Adox,
                FlagReg::OF,
                self.carry_into(c, FlagReg::OF, Some(M::Test))?,
            ),
        };
        self.emit(Inst::op2(mn, X::r64(dst), src), consumed)?;
        self.bind(d.results[0], dst);
        self.bind_flag(d.results[1], fl);
        Ok(())
    }

    fn t_subborrow(&mut self, d: &InstData) -> Result<()> {
        let (c, a, b) = (d.args[0], d.args[1], d.args[2]);
        let dst = self.dest_from(a)?;
        let src = self.operand(b, true, true)?;
        let (mn, consumed) = if c == IrOperand::Const(0) {
            (M::Sub, None)
        } else {
            (M::Sbb, self.carry_into(c, FlagReg::CF, None)?)
        };
        self.emit(Inst::op2(mn, X::r64(dst), src), consumed)?;
        self.bind(d.results[0], dst);
        self.bind_flag(d.results[1], FlagReg::CF);
        Ok(())
    }

    /// addcarry / subborrow of a size below 64: the 64-bit sum (or difference) t, then
    /// sum = t mod 2^size and carry = bit `size` of t (exact for any 64-bit operands).
    fn t_carry_narrow(&mut self, d: &InstData, size: u8) -> Result<()> {
        let (c, a, b) = (d.args[0], d.args[1], d.args[2]);
        let mn = if matches!(d.op, Op::AddCarry { .. }) {
            M::Add
        } else {
            M::Sub
        };
        let dst = self.dest_from(a)?;
        let src = self.operand(b, true, true)?;
        self.emit(Inst::op2(mn, X::r64(dst), src), None)?;
        self.release(src, dst);
        if c != IrOperand::Const(0) {
            let cx = self.operand(c, true, true)?;
            self.emit(Inst::op2(mn, X::r64(dst), cx), None)?;
            self.release(cx, dst);
        }
        if self.st.left[d.results[1].index()] > 0 {
            let k = self.fresh()?;
            self.emit(Inst::op2(M::Mov, X::r64(k), X::r64(dst)), None)?;
            self.emit(Inst::op2(M::Shr, X::r64(k), X::Imm(size as i64)), None)?;
            self.emit(Inst::op2(M::And, X::r64(k), X::Imm(1)), None)?;
            self.bind(d.results[1], k);
        }
        self.truncate(dst, size)?;
        self.bind(d.results[0], dst);
        Ok(())
    }

    fn t_add(&mut self, d: &InstData) -> Result<()> {
        let args = &d.args;
        // Two operands, no carry involved: `lea` leaves the flags alone.
        let flag_free =
            |g: &Self, o: IrOperand| o.value().is_none_or(|v| g.st.v_flag[v.index()].is_none());
        if args.len() == 2
            && flag_free(self, args[0])
            && flag_free(self, args[1])
            && self.decide(DecisionSlot::Flavor, 2) == 1
        {
            let (x, y) = match (args[0], args[1]) {
                (IrOperand::Const(_), v) => (v, args[0]),
                _ => (args[0], args[1]),
            };
            if let IrOperand::Const(c) = x {
                // Both literals cannot happen after simplification; be safe anyway.
                let r = self.fresh()?;
                self.load_const(r, (c as u64).wrapping_add(y.constant().unwrap_or(0) as u64));
                return self.finish_result(d, r);
            }
            let rx = self.reg_operand(x)?;
            let m = match y {
                IrOperand::Const(c) if fits_imm32(c as u64) => Mem {
                    base: Some(rx),
                    index: None,
                    scale: 1,
                    disp: c as u64 as i64 as i32,
                    size: Size::B64,
                },
                _ => Mem {
                    base: Some(rx),
                    index: Some(self.reg_operand(y)?),
                    scale: 1,
                    disp: 0,
                    size: Size::B64,
                },
            };
            let dst = self.result_reg(&[x, y])?;
            self.emit(Inst::op2(M::Lea, X::r64(dst), X::Mem(m)), None)?;
            return self.finish_result(d, dst);
        }
        // Destination: one of the operands that is not only in a flag.
        let cands: Vec<usize> = (0..args.len())
            .filter(|&i| matches!(args[i], IrOperand::Value(v) if self.st.v_flag[v.index()].is_none() || self.st.v_reg[v.index()].is_some()))
            .collect();
        let first = if cands.is_empty() {
            0
        } else {
            cands[self.decide(DecisionSlot::Swap, cands.len())]
        };
        let dst = self.dest_from(args[first])?;
        // A carry waiting in CF is added first, together with another addend if there
        // is one: `adc dst, x` (else `adc dst, 0`).
        let mut done = vec![false; args.len()];
        done[first] = true;
        let in_cf = (0..args.len()).find(|&i| {
            !done[i]
                && matches!(args[i], IrOperand::Value(v)
                    if self.st.v_flag[v.index()] == Some(FlagReg::CF) && self.st.v_reg[v.index()].is_none())
        });
        if let Some(i) = in_cf {
            let v = args[i].value().expect("a value");
            done[i] = true;
            let partner = (0..args.len()).find(|&j| {
                !done[j]
                    && args[j].value().is_none_or(|w| {
                        self.st.v_flag[w.index()].is_none() || self.st.v_reg[w.index()].is_some()
                    })
            });
            let x = match partner {
                Some(j) => {
                    done[j] = true;
                    self.operand(args[j], true, true)?
                }
                None => X::Imm(0),
            };
            self.emit(Inst::op2(M::Adc, X::r64(dst), x), Some(v))?;
            self.release(x, dst);
        }
        for (i, &a) in args.iter().enumerate() {
            if done[i] {
                continue;
            }
            let x = self.operand(a, true, true)?;
            self.emit(Inst::op2(M::Add, X::r64(dst), x), None)?;
            self.release(x, dst);
        }
        self.finish_result(d, dst)
    }

    fn t_sub(&mut self, d: &InstData) -> Result<()> {
        let dst = self.dest_from(d.args[0])?;
        let src = self.operand(d.args[1], true, true)?;
        self.emit(Inst::op2(M::Sub, X::r64(dst), src), None)?;
        self.finish_result(d, dst)
    }

    fn t_mul(&mut self, d: &InstData) -> Result<()> {
        let (a, b) = (d.args[0], d.args[1]);
        let (x, c) = match (a, b) {
            (IrOperand::Value(_), IrOperand::Const(c)) => (a, Some(c as u64)),
            (IrOperand::Const(c), IrOperand::Value(_)) => (b, Some(c as u64)),
            _ => (a, None),
        };
        let Some(c) = c else {
            // value × value: imul or mulx (low half).
            if self.decide(DecisionSlot::Flavor, 2) == 0 {
                let dst = self.dest_from(a)?;
                let src = self.operand(b, true, false)?;
                self.emit(Inst::op2(M::Imul, X::r64(dst), src), None)?;
                return self.finish_result(d, dst);
            }
            self.load_rdx(a)?;
            let src = self.operand(b, true, false)?;
            let lo = self.result_reg(&[b, a])?;
            let hi = self.fresh()?;
            self.emit(Inst::op3(M::Mulx, X::r64(hi), X::r64(lo), src), None)?;
            return self.finish_result(d, lo);
        };
        #[derive(Clone, Copy)]
        enum F {
            Imul3,
            ImulReg,
            Mulx,
            Shl(u32),
            Lea(u8, bool),
        }
        let mut options: [Option<F>; 5] = [None; 5];
        let mut n = 0;
        let mut add = |f: F| {
            options[n] = Some(f);
            n += 1;
        };
        if fits_imm32(c) {
            add(F::Imul3);
        }
        add(F::ImulReg);
        add(F::Mulx);
        if c.is_power_of_two() {
            add(F::Shl(c.trailing_zeros()));
        }
        match c {
            2 | 4 | 8 => add(F::Lea(c as u8, false)),
            3 | 5 | 9 => add(F::Lea(c as u8 - 1, true)),
            _ => {}
        }
        let pick =
            options[self.decide(DecisionSlot::Flavor, n)].expect("chosen among the filled options");
        let dst = match pick {
            F::Imul3 => {
                let src = self.operand(x, true, false)?;
                let dst = self.result_reg(&[x])?;
                self.emit(Inst::op3(M::Imul, X::r64(dst), src, X::Imm(c as i64)), None)?;
                dst
            }
            F::ImulReg => {
                let dst = self.dest_from(x)?;
                let t = self.operand(IrOperand::Const(c as u128), false, false)?;
                self.emit(Inst::op2(M::Imul, X::r64(dst), t), None)?;
                dst
            }
            F::Mulx => {
                self.load_rdx(IrOperand::Const(c as u128))?;
                let src = self.operand(x, true, false)?;
                let lo = self.result_reg(&[x])?;
                let hi = self.fresh()?;
                self.emit(Inst::op3(M::Mulx, X::r64(hi), X::r64(lo), src), None)?;
                lo
            }
            F::Shl(k) => {
                let dst = self.dest_from(x)?;
                if k > 0 {
                    self.emit(Inst::op2(M::Shl, X::r64(dst), X::Imm(k as i64)), None)?;
                }
                dst
            }
            F::Lea(scale, with_base) => {
                let rx = self.reg_operand(x)?;
                let m = Mem {
                    base: with_base.then_some(rx),
                    index: Some(rx),
                    scale,
                    disp: 0,
                    size: Size::B64,
                };
                let dst = self.result_reg(&[x])?;
                self.emit(Inst::op2(M::Lea, X::r64(dst), X::Mem(m)), None)?;
                dst
            }
        };
        self.finish_result(d, dst)
    }

    fn t_bitwise(&mut self, d: &InstData) -> Result<()> {
        let args = &d.args;
        let mn = match d.op {
            Op::And => M::And,
            Op::Or => M::Or,
            _ => M::Xor,
        };
        // `x & (2^k - 1)`: masks have cheaper forms.
        if d.op == Op::And && args.len() == 2 {
            if let (IrOperand::Value(_), IrOperand::Const(m)) = (args[0], args[1]) {
                let m = m as u64;
                if m != 0 && (m & (m + 1)) == 0 && m != u64::MAX {
                    let k = m.count_ones();
                    return self.t_mask(d, args[0], k);
                }
            }
        }
        let first = (0..args.len())
            .find(|&i| args[i].value().is_some())
            .unwrap_or(0);
        let dst = self.dest_from(args[first])?;
        for (i, &a) in args.iter().enumerate() {
            if i == first {
                continue;
            }
            let x = self.operand(a, true, true)?;
            self.emit(Inst::op2(mn, X::r64(dst), x), None)?;
            self.release(x, dst);
        }
        self.finish_result(d, dst)
    }

    /// `x & (2^k - 1)`.
    fn t_mask(&mut self, d: &InstData, x: IrOperand, k: u32) -> Result<()> {
        #[derive(Clone, Copy)]
        enum F {
            AndImm,
            AndReg,
            Movzx8,
            Mov32,
            ShlShr,
            Bzhi,
        }
        let mut options: [Option<F>; 4] = [None; 4];
        let mut n = 0;
        let mut add = |f: F| {
            options[n] = Some(f);
            n += 1;
        };
        if k < 32 {
            add(F::AndImm);
        } else {
            add(F::AndReg);
        }
        match k {
            8 => add(F::Movzx8),
            32 => add(F::Mov32),
            _ => {}
        }
        add(F::ShlShr);
        add(F::Bzhi);
        let pick = options[self.decide(DecisionSlot::Flavor, n)].expect("filled");
        let dst = match pick {
            F::AndImm => {
                let dst = self.dest_from(x)?;
                self.emit(
                    Inst::op2(M::And, X::r64(dst), X::Imm(((1u64 << k) - 1) as i64)),
                    None,
                )?;
                dst
            }
            F::AndReg => {
                let dst = self.dest_from(x)?;
                let t = self.operand(IrOperand::Const(((1u128) << k) - 1), false, false)?;
                self.emit(Inst::op2(M::And, X::r64(dst), t), None)?;
                dst
            }
            F::Movzx8 | F::Mov32 => {
                let rx = self.reg_operand(x)?;
                let dst = self.result_reg(&[x])?;
                let i = match pick {
                    F::Movzx8 => Inst::op2(M::Movzx, X::r32(dst), X::r8(rx)),
                    _ => Inst::op2(M::Mov, X::r32(dst), X::r32(rx)),
                };
                self.emit(i, None)?;
                dst
            }
            F::ShlShr => {
                let dst = self.dest_from(x)?;
                self.emit(Inst::op2(M::Shl, X::r64(dst), X::Imm(64 - k as i64)), None)?;
                self.emit(Inst::op2(M::Shr, X::r64(dst), X::Imm(64 - k as i64)), None)?;
                dst
            }
            F::Bzhi => {
                let src = self.operand(x, true, false)?;
                let cnt = self.fresh()?;
                self.load_const(cnt, k as u64);
                let dst = self.result_reg(&[x])?;
                self.emit(Inst::op3(M::Bzhi, X::r64(dst), src, X::r64(cnt)), None)?;
                dst
            }
        };
        self.finish_result(d, dst)
    }

    fn t_not(&mut self, d: &InstData) -> Result<()> {
        let dst = self.dest_from(d.args[0])?;
        self.emit(Inst::op1(M::Not, X::r64(dst)), None)?;
        self.finish_result(d, dst)
    }

    fn t_lnot(&mut self, d: &InstData) -> Result<()> {
        let dst = self.fresh()?;
        let rx = self.reg_operand(d.args[0])?;
        self.emit(Inst::op2(M::Test, X::r64(rx), X::r64(rx)), None)?;
        self.emit(Inst::op1(M::Setz, X::r8(dst)), None)?;
        self.emit(Inst::op2(M::Movzx, X::r32(dst), X::r8(dst)), None)?;
        self.bind(d.results[0], dst);
        Ok(())
    }

    fn t_shift(&mut self, d: &InstData) -> Result<()> {
        let x = d.args[0];
        let n = d.args[1]
            .constant()
            .ok_or_else(|| Error::Unsupported("variable shift amount".into()))?;
        let left = d.op == Op::Shl;
        if n >= 64 {
            let dst = self.fresh()?;
            self.load_const(dst, 0);
            return self.finish_result(d, dst);
        }
        let alternatives = if left && n <= 3 { 3 } else { 2 };
        let dst = match self.decide(DecisionSlot::Flavor, alternatives) {
            0 => {
                let dst = self.dest_from(x)?;
                if n > 0 {
                    let mn = if left { M::Shl } else { M::Shr };
                    self.emit(Inst::op2(mn, X::r64(dst), X::Imm(n as i64)), None)?;
                }
                dst
            }
            1 => {
                let src = self.operand(x, true, false)?;
                let cnt = self.fresh()?;
                self.load_const(cnt, n as u64);
                let dst = self.result_reg(&[x])?;
                let mn = if left { M::Shlx } else { M::Shrx };
                self.emit(Inst::op3(mn, X::r64(dst), src, X::r64(cnt)), None)?;
                dst
            }
            _ => {
                let rx = self.reg_operand(x)?;
                let m = Mem {
                    base: None,
                    index: Some(rx),
                    scale: 1 << n,
                    disp: 0,
                    size: Size::B64,
                };
                let dst = self.result_reg(&[x])?;
                self.emit(Inst::op2(M::Lea, X::r64(dst), X::Mem(m)), None)?;
                dst
            }
        };
        self.finish_result(d, dst)
    }

    fn t_sar(&mut self, d: &InstData, from: u8) -> Result<()> {
        let n = d.args[1]
            .constant()
            .ok_or_else(|| Error::Unsupported("variable shift amount".into()))?;
        let dst = self.dest_from(d.args[0])?;
        let up = 64 - from as u32;
        if up > 0 {
            self.emit(Inst::op2(M::Shl, X::r64(dst), X::Imm(up as i64)), None)?;
        }
        let total = (up as u128 + n).min(63);
        if total > 0 {
            self.emit(Inst::op2(M::Sar, X::r64(dst), X::Imm(total as i64)), None)?;
        }
        self.finish_result(d, dst)
    }

    fn t_sext(&mut self, d: &InstData, from: u8) -> Result<()> {
        let dst = self.dest_from(d.args[0])?;
        let up = 64 - from as i64;
        if up > 0 {
            self.emit(Inst::op2(M::Shl, X::r64(dst), X::Imm(up)), None)?;
            self.emit(Inst::op2(M::Sar, X::r64(dst), X::Imm(up)), None)?;
        }
        self.finish_result(d, dst)
    }

    fn t_shrd(&mut self, d: &InstData, n: u8) -> Result<()> {
        let (lo, hi) = (d.args[0], d.args[1]);
        let dst = self.dest_from(lo)?;
        if self.decide(DecisionSlot::Flavor, 2) == 0 {
            let rh = self.reg_operand(hi)?;
            self.emit(
                Inst::op3(M::Shrd, X::r64(dst), X::r64(rh), X::Imm(n as i64)),
                None,
            )?;
        } else {
            let src = self.operand(hi, true, false)?;
            let t = self.fresh()?;
            self.emit(Inst::op2(M::Mov, X::r64(t), src), None)?;
            self.emit(Inst::op2(M::Shr, X::r64(dst), X::Imm(n as i64)), None)?;
            self.emit(Inst::op2(M::Shl, X::r64(t), X::Imm(64 - n as i64)), None)?;
            self.emit(Inst::op2(M::Or, X::r64(dst), X::r64(t)), None)?;
        }
        self.finish_result(d, dst)
    }

    fn t_cmov(&mut self, d: &InstData) -> Result<()> {
        let (c, z, nz) = (d.args[0], d.args[1], d.args[2]);
        // Start from z and move nz in when c is nonzero, or the other way round.
        let (first, second, when_nonzero) = if self.decide(DecisionSlot::Swap, 2) == 0 {
            (z, nz, true)
        } else {
            (nz, z, false)
        };
        let dst = self.dest_from(first)?;
        let src = self.operand(second, true, false)?;
        let c_flag = c.value().and_then(|v| {
            let vi = v.index();
            self.st.v_flag[vi]
        });
        let mn = match (c_flag, when_nonzero) {
            (Some(FlagReg::CF), true) => M::Cmovc,
            (Some(FlagReg::CF), false) => M::Cmovnc,
            (Some(FlagReg::OF), true) => M::Cmovo,
            (Some(FlagReg::OF), false) => M::Cmovno,
            (None, nonzero) => {
                let rc = self.reg_operand(c)?;
                self.emit(Inst::op2(M::Test, X::r64(rc), X::r64(rc)), None)?;
                if nonzero {
                    M::Cmovnz
                } else {
                    M::Cmovz
                }
            }
        };
        self.emit(Inst::op2(mn, X::r64(dst), src), None)?;
        self.finish_result(d, dst)
    }

    fn t_cast(&mut self, d: &InstData) -> Result<()> {
        let x = d.args[0];
        let bits = self.f.ty(d.results[0]).bits;
        if bits >= 64 {
            let dst = self.dest_from(x)?;
            self.bind(d.results[0], dst);
            return Ok(());
        }
        let dst = match bits {
            8 if self.decide(DecisionSlot::Flavor, 2) == 0 => {
                let rx = self.reg_operand(x)?;
                let dst = self.result_reg(&[x])?;
                self.emit(Inst::op2(M::Movzx, X::r32(dst), X::r8(rx)), None)?;
                dst
            }
            32 => {
                let rx = self.reg_operand(x)?;
                let dst = self.result_reg(&[x])?;
                self.emit(Inst::op2(M::Mov, X::r32(dst), X::r32(rx)), None)?;
                dst
            }
            b => {
                let dst = self.dest_from(x)?;
                if b < 32 {
                    self.emit(
                        Inst::op2(M::And, X::r64(dst), X::Imm(((1u64 << b) - 1) as i64)),
                        None,
                    )?;
                } else {
                    self.truncate(dst, b)?;
                }
                dst
            }
        };
        self.bind(d.results[0], dst);
        Ok(())
    }
}

/// The memory size and stride of an array element of `bits` bits (u1 is a byte, as in
/// Fiat's C, where `fiat_uint1` is `unsigned char`).
fn elem_size(bits: u8) -> (Size, i32) {
    match bits {
        0..=8 => (Size::B8, 1),
        9..=16 => (Size::B16, 2),
        17..=32 => (Size::B32, 4),
        _ => (Size::B64, 8),
    }
}
