//! Differential testing of machine code against the reference interpreter.
//!
//! A [`Runner`] loads encoded code into executable memory and calls it through the
//! ABI-checking [`Trampoline`] with the System V signature of Fiat's C function: one
//! pointer per output (outputs first), then one pointer per input array or the value of
//! a scalar input. Inputs and outputs live in buffers with their natural element size
//! (`u8` arrays are bytes), surrounded by guard words that must stay untouched.
//!
//! [`Runner::check`] compares the code's outputs with [`cryptopt_ir::interp`] on given
//! inputs, optionally with an output buffer that *is* an input buffer (the aliasing C
//! callers are allowed): Fiat functions read all inputs before writing outputs, so the
//! expected outputs do not change.
//!
//! This module must never report success for code it did not run on every input.

use cryptopt_ir::{interp, Function, Param};

use crate::error::{Error, Result};
use crate::exec::{ExecMem, Trampoline};

/// Guard words before and after every buffer.
const GUARD_WORDS: usize = 8;
const GUARD: u64 = 0x6a09_e667_f3bc_c908;
/// What an output buffer holds before the call.
const POISON: u8 = 0xa5;

/// Which output buffer is also which input buffer in a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Aliasing {
    /// All buffers distinct.
    None,
    /// Output `ret` is the same buffer as input `param` (indices into returns/params).
    Same { ret: usize, param: usize },
}

/// Calls encoded functions and compares them with the interpreter.
pub struct Runner {
    tramp: Trampoline,
    mem: ExecMem,
    /// Backing store of the buffers, in u64 words (so everything is 8-byte aligned).
    words: Vec<u64>,
}

/// One buffer: its element size and where it starts in `words` (in bytes).
#[derive(Clone, Copy)]
struct Buf {
    start: usize,
    elem_bytes: usize,
    elems: usize,
}

fn elem_bytes(p: &Param) -> usize {
    match p.ty.bits {
        0..=8 => 1,
        9..=16 => 2,
        17..=32 => 4,
        _ => 8,
    }
}

impl Runner {
    pub fn new() -> Result<Runner> {
        Ok(Runner {
            tramp: Trampoline::new()?,
            mem: ExecMem::with_capacity(1 << 16)?,
            words: Vec::new(),
        })
    }

    /// Loads machine code to be called by [`Runner::run`] / [`Runner::check`].
    pub fn load(&mut self, code: &[u8]) -> Result<()> {
        if code.len() > self.mem.capacity() {
            self.mem = ExecMem::with_capacity(code.len().next_power_of_two())?;
        }
        self.mem.load(code)
    }

    fn bytes(&mut self) -> &mut [u8] {
        // SAFETY: u64 storage viewed as bytes; length and alignment are those of the Vec.
        unsafe {
            std::slice::from_raw_parts_mut(self.words.as_mut_ptr() as *mut u8, self.words.len() * 8)
        }
    }

    /// Runs the loaded code on `inputs` (one `Vec` per parameter of `f`); returns the
    /// outputs (one `Vec` per return of `f`).
    pub fn run(
        &mut self,
        f: &Function,
        inputs: &[Vec<u128>],
        alias: Aliasing,
    ) -> Result<Vec<Vec<u128>>> {
        let code = self.mem.ptr();
        // SAFETY: the loaded code is what `load` put there.
        unsafe { self.run_at(code, f, inputs, alias) }
    }

    /// [`Runner::run`] for a function somewhere else in memory (e.g. from `dlopen`).
    ///
    /// # Safety
    /// `code` must be executable machine code with the System V signature of `f`.
    pub unsafe fn run_at(
        &mut self,
        code: *const u8,
        f: &Function,
        inputs: &[Vec<u128>],
        alias: Aliasing,
    ) -> Result<Vec<Vec<u128>>> {
        interp::check_inputs(f, inputs).map_err(|e| Error::Mismatch(e.to_string()))?;
        if f.returns.len() + f.params.len() > 6 {
            return Err(Error::Mismatch(format!(
                "`{}` has more than 6 arguments",
                f.name
            )));
        }
        // Lay out the buffers: guard, data (rounded up to words), guard.
        let mut bufs: Vec<Option<Buf>> = Vec::new();
        let mut bytes = 0usize;
        let place = |p: &Param, bytes: &mut usize| {
            *bytes += GUARD_WORDS * 8;
            let b = Buf {
                start: *bytes,
                elem_bytes: elem_bytes(p),
                elems: p.elems(),
            };
            *bytes += (b.elem_bytes * b.elems).div_ceil(8) * 8;
            b
        };
        for r in &f.returns {
            bufs.push(Some(place(r, &mut bytes)));
        }
        for (i, p) in f.params.iter().enumerate() {
            match alias {
                Aliasing::Same { ret, param } if param == i => {
                    let (r, q) = (&f.returns[ret], p);
                    if r.ty.bits != q.ty.bits || r.len != q.len {
                        return Err(Error::Mismatch(format!(
                            "cannot alias {} with {}: shapes differ",
                            r.name, q.name
                        )));
                    }
                    bufs.push(bufs[ret]);
                }
                _ if p.len.is_none() => bufs.push(None),
                _ => bufs.push(Some(place(p, &mut bytes))),
            }
        }
        bytes += GUARD_WORDS * 8;
        self.words.clear();
        self.words.resize(bytes / 8, GUARD);
        // Poison outputs, then write inputs (an aliased output starts as the input).
        for b in bufs[..f.returns.len()].iter().flatten() {
            let (s, n) = (b.start, b.elem_bytes * b.elems);
            self.bytes()[s..s + n].fill(POISON);
        }
        let mut args = [0u64; 6];
        for (i, (p, x)) in f.params.iter().zip(inputs).enumerate() {
            match bufs[f.returns.len() + i] {
                Some(b) => {
                    for (j, &v) in x.iter().enumerate() {
                        let at = b.start + j * b.elem_bytes;
                        let eb = b.elem_bytes;
                        self.bytes()[at..at + eb].copy_from_slice(&(v as u64).to_le_bytes()[..eb]);
                    }
                }
                None => args[f.returns.len() + i] = x[0] as u64 & p.ty.mask() as u64,
            }
        }
        let base = self.words.as_mut_ptr() as u64;
        for (k, b) in bufs.iter().enumerate() {
            if let Some(b) = b {
                args[k] = base + b.start as u64;
            }
        }
        // SAFETY: the code was loaded by `load`; its arguments point into `words`, which
        // is large enough for every array of the signature. A wrong program can still
        // write out of bounds: the guards below catch what stays inside `words`.
        unsafe { self.tramp.call(code, &args) }?;
        // Guards intact?
        let mut in_use = vec![false; self.words.len()];
        for b in bufs.iter().flatten() {
            in_use[b.start / 8..(b.start + b.elem_bytes * b.elems).div_ceil(8)].fill(true);
        }
        if let Some(w) = (0..self.words.len()).find(|&w| !in_use[w] && self.words[w] != GUARD) {
            return Err(Error::Mismatch(format!(
                "wrote outside the output buffers (word {w} of the buffer area)"
            )));
        }
        let out = f
            .returns
            .iter()
            .zip(&bufs)
            .map(|(_, b)| {
                let b = b.expect("returns are buffers");
                (0..b.elems)
                    .map(|j| {
                        let at = b.start + j * b.elem_bytes;
                        let mut w = [0u8; 8];
                        w[..b.elem_bytes].copy_from_slice(&self.bytes()[at..at + b.elem_bytes]);
                        u64::from_le_bytes(w) as u128
                    })
                    .collect()
            })
            .collect();
        Ok(out)
    }

    /// Runs the loaded code and compares with the interpreter's outputs for `f`.
    pub fn check(&mut self, f: &Function, inputs: &[Vec<u128>], alias: Aliasing) -> Result<()> {
        let want = interp::run(f, inputs).map_err(|e| Error::Mismatch(e.to_string()))?;
        self.check_against(f, inputs, &want, alias)
    }

    /// Like [`Runner::check`] with the expected outputs already computed.
    pub fn check_against(
        &mut self,
        f: &Function,
        inputs: &[Vec<u128>],
        want: &[Vec<u128>],
        alias: Aliasing,
    ) -> Result<()> {
        let got = self.run(f, inputs, alias)?;
        if got != want {
            let (r, i) = want
                .iter()
                .zip(&got)
                .enumerate()
                .find_map(|(r, (w, g))| w.iter().zip(g).position(|(a, b)| a != b).map(|i| (r, i)))
                .unwrap_or((0, 0));
            return Err(Error::Mismatch(format!(
                "{}[{i}] = {:#x}, expected {:#x} (aliasing {alias:?}) on inputs {inputs:x?}",
                f.returns[r].name, got[r][i], want[r][i]
            )));
        }
        Ok(())
    }
}

/// The aliasing patterns a program generated under `may_alias` must survive: no
/// aliasing, and every (output, input) pair of the same shape that `may_alias` allows.
pub fn aliasings(f: &Function, may_alias: impl Fn(usize, usize) -> bool) -> Vec<Aliasing> {
    let mut v = vec![Aliasing::None];
    for (r, rp) in f.returns.iter().enumerate() {
        for (p, pp) in f.params.iter().enumerate() {
            if rp.len.is_some() && rp.len == pp.len && rp.ty.bits == pp.ty.bits && may_alias(r, p) {
                v.push(Aliasing::Same { ret: r, param: p });
            }
        }
    }
    v
}
