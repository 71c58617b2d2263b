//! Differential testing of machine code against the reference interpreter.
//!
//! A [`Runner`] loads encoded code into executable memory and calls it through the
//! ABI-checking [`Trampoline`] with the signature of Fiat's C function, under the calling
//! convention the code was made for (System V or Windows x64): one
//! pointer per output (outputs first), then one pointer per input array or the value of
//! a scalar input. Inputs and outputs live in buffers with their natural element size
//! (`u8` arrays are bytes), surrounded by guard words that must stay untouched.
//!
//! [`Runner::check`] compares the code's outputs with [`cryptopt_ir::interp`] on given
//! inputs, optionally with an output buffer that *is* an input buffer (the aliasing C
//! callers are allowed): Fiat functions read all inputs before writing outputs, so the
//! expected outputs do not change.
//!
//! Buffers are placed by [`crate::layout`]; which output shares which input's buffer in
//! one call is a [`Pairing`].
//!
//! This module must never report success for code it did not run on every input.

use cryptopt_ir::{interp, Function};

use crate::error::{Error, Result};
use crate::exec::{ExecMem, Trampoline};
use crate::layout::Layout;
pub use crate::layout::{pairings, Pairing};

/// Calls encoded functions and compares them with the interpreter.
pub struct Runner {
    tramp: Trampoline,
    mem: ExecMem,
    /// Backing store of the buffers, in u64 words (so everything is 8-byte aligned).
    words: Vec<u64>,
}

impl Runner {
    /// A runner for System V code.
    pub fn new() -> Result<Runner> {
        Runner::with_abi(cryptopt_x86::Abi::SysV)
    }

    /// A runner for code of the calling convention `abi`.
    pub fn with_abi(abi: cryptopt_x86::Abi) -> Result<Runner> {
        Ok(Runner {
            tramp: Trampoline::with_abi(abi)?,
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

    /// Runs the loaded code on `inputs` (one `Vec` per parameter of `f`); returns the
    /// outputs (one `Vec` per return of `f`).
    pub fn run(
        &mut self,
        f: &Function,
        inputs: &[Vec<u128>],
        pairing: Pairing,
    ) -> Result<Vec<Vec<u128>>> {
        let code = self.mem.ptr();
        // SAFETY: the loaded code is what `load` put there.
        unsafe { self.run_at(code, f, inputs, pairing) }
    }

    /// [`Runner::run`] for a function somewhere else in memory (e.g. from `dlopen`).
    ///
    /// # Safety
    /// `code` must be executable machine code with the signature of `f` under the
    /// runner's calling convention.
    pub unsafe fn run_at(
        &mut self,
        code: *const u8,
        f: &Function,
        inputs: &[Vec<u128>],
        pairing: Pairing,
    ) -> Result<Vec<Vec<u128>>> {
        interp::check_inputs(f, inputs).map_err(|e| Error::Mismatch(e.to_string()))?;
        let layout = Layout::new(f, pairing)?;
        layout.reset(&mut self.words);
        // Poison outputs, then write inputs (an aliased output starts as the input).
        layout.poison_outputs(&mut self.words);
        let args = layout.write_inputs(f, inputs, &mut self.words);
        // SAFETY: the caller guarantees `code` has the signature of `f`; its arguments
        // point into `words`, which is large enough for every array of the signature. A
        // wrong program can still write out of bounds: the guards below catch what stays
        // inside `words`.
        unsafe { self.tramp.call(code, args.as_slice()) }?;
        if let Some(w) = layout.broken_guard(&self.words) {
            return Err(Error::Mismatch(format!(
                "wrote outside the output buffers (word {w} of the buffer area)"
            )));
        }
        let mut out = vec![Vec::new(); f.returns.len()];
        layout.read_outputs(&self.words, &mut out);
        Ok(out)
    }

    /// Runs the loaded code and compares with the interpreter's outputs for `f`.
    pub fn check(&mut self, f: &Function, inputs: &[Vec<u128>], pairing: Pairing) -> Result<()> {
        let want = interp::run(f, inputs).map_err(|e| Error::Mismatch(e.to_string()))?;
        self.check_against(f, inputs, &want, pairing)
    }

    /// Like [`Runner::check`] with the expected outputs already computed.
    pub fn check_against(
        &mut self,
        f: &Function,
        inputs: &[Vec<u128>],
        want: &[Vec<u128>],
        pairing: Pairing,
    ) -> Result<()> {
        let code = self.mem.ptr();
        // SAFETY: the loaded code is what `load` put there.
        unsafe { self.check_at(code, f, inputs, want, pairing) }
    }

    /// [`Runner::check_against`] for a function somewhere else in memory (e.g. from
    /// `dlopen`): an output that differs from `want` is an [`Error::Mismatch`] naming the
    /// first differing element.
    ///
    /// # Safety
    /// As [`Runner::run_at`].
    pub unsafe fn check_at(
        &mut self,
        code: *const u8,
        f: &Function,
        inputs: &[Vec<u128>],
        want: &[Vec<u128>],
        pairing: Pairing,
    ) -> Result<()> {
        // SAFETY: the caller's promise.
        let got = unsafe { self.run_at(code, f, inputs, pairing) }?;
        if got != want {
            let (r, i) = want
                .iter()
                .zip(&got)
                .enumerate()
                .find_map(|(r, (w, g))| w.iter().zip(g).position(|(a, b)| a != b).map(|i| (r, i)))
                .unwrap_or((0, 0));
            return Err(Error::Mismatch(format!(
                "{}[{i}] = {:#x}, expected {:#x} (aliasing {pairing:?}) on inputs {inputs:x?}",
                f.returns[r].name, got[r][i], want[r][i]
            )));
        }
        Ok(())
    }
}

/// The check every timed measurement hands to [`crate::timing::measure`]: each
/// program's outputs must be the interpreter's on the round's inputs. The one home of
/// that rule for the search, `optimize`'s final measurement and `bench`.
///
/// `names` names the programs in the order they are measured (for messages); after an
/// error, [`Oracle::culprit`] says which program differed.
pub struct Oracle<'a> {
    reference: &'a Function,
    names: &'a [&'a str],
    /// Programs checked against another function of the same signature (another
    /// representation of the same formula, whose inputs include the reference's).
    others: Vec<(usize, &'a Function)>,
    scratch: Vec<u128>,
    culprit: Option<(usize, String)>,
}

impl<'a> Oracle<'a> {
    pub fn new(reference: &'a Function, names: &'a [&'a str]) -> Oracle<'a> {
        Oracle {
            reference,
            names,
            others: Vec::new(),
            scratch: Vec::new(),
            culprit: None,
        }
    }

    /// Program `p`'s outputs are checked against `g` instead (the same signature; the
    /// inputs are drawn within the reference's bounds, which must be within `g`'s).
    pub fn with_reference(mut self, p: usize, g: &'a Function) -> Oracle<'a> {
        self.others.push((p, g));
        self
    }

    /// Compares every program's outputs `outs` with the interpreter on `inputs`.
    pub fn check(&mut self, inputs: &[Vec<u128>], outs: &[Vec<Vec<u128>>]) -> Result<()> {
        let want = interp::run_with(self.reference, inputs, &mut self.scratch)
            .map_err(|e| Error::Mismatch(e.to_string()))?;
        let mut other = Vec::new();
        for &(p, g) in &self.others {
            let w = interp::run(g, inputs).map_err(|e| Error::Mismatch(e.to_string()))?;
            other.push((p, w));
        }
        for (p, got) in outs.iter().enumerate() {
            let want = other
                .iter()
                .find(|(q, _)| *q == p)
                .map_or(&want, |(_, w)| w);
            if got != want {
                let what = self.names.get(p).copied().unwrap_or("a program");
                let msg =
                    format!("{what} computed {got:x?} instead of {want:x?} on inputs {inputs:x?}");
                self.culprit = Some((p, msg.clone()));
                return Err(Error::Mismatch(msg));
            }
        }
        Ok(())
    }

    /// The program that differed (index into `names`) and the message, taken out (the
    /// next measurement starts without one). Keep one `Oracle` across measurements: its
    /// interpreter scratch space is reused.
    pub fn take_culprit(&mut self) -> Option<(usize, String)> {
        self.culprit.take()
    }
}
