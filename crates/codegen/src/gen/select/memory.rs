//! Templates for loads and stores (see the table in `select`): 64-bit input elements
//! stay in their array until read, narrower ones are zero-extended into a register,
//! scalar arguments are zero-extended in place; a u1 output may be stored straight from
//! a flag.
//!
//! They must never read an input element after an output that may alias it is written
//! (`t_store` first protects aliased inputs), and never address memory through data.

use cryptopt_ir::{InstData, Operand as IrOperand, Ty};
use cryptopt_x86::{Inst, Mem, Mnemonic as M, Operand as X, Size};

use crate::error::Result;
use crate::gen::flags::FlagReg;
use crate::gen::{fits_imm32, Generator, MemLoc, Owner};

impl Generator<'_> {
    pub(super) fn t_load(&mut self, d: &InstData, param: u32, index: u32) -> Result<()> {
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
            let (size, stride) = elem_size(ty);
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
                let r = self.fresh()?;
                self.reload_abi(k, r)?;
                if let Some(s) = self.st.abi_slot[k as usize].take() {
                    self.st.slots_free.push(s);
                }
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

    pub(super) fn t_store(&mut self, d: &InstData, ret: u32, index: u32) -> Result<()> {
        self.protect_aliased_inputs(ret as usize)?;
        let k = self.ret_abi[ret as usize];
        let ty = self.f.returns[ret as usize].ty;
        let (size, stride) = elem_size(ty);
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
}

/// The memory size and stride of an array element of type `ty` ([`Ty::elem_bytes`], the
/// one home of that rule).
fn elem_size(ty: Ty) -> (Size, i32) {
    let bytes = ty.elem_bytes();
    let size = Size::from_bytes(bytes).expect("element sizes are 1, 2, 4 or 8 bytes");
    (size, bytes as i32)
}
