//! A private stack with a page-aligned top, for running timed batches at the same
//! addresses in every process.
//!
//! ```text
//!   OwnStack::run(body) ──call_on_stack──▶ rsp = top (page-aligned) ──▶ body() ──▶ back
//!   mapping:  guard page (---) | stack (rw-) ◀── top
//! ```
//!
//! Why: a thread's stack starts at a random address (to 16 bytes) in every process, and
//! where the measured code's spills fall against cache lines and against the page offsets
//! of its arguments changes how fast it runs (by 3% on p521 square, up to 30% on gcc's
//! p384 square: see [`crate::timing`]). On this stack, the frames of the batch loop and of
//! the measured calls sit at the same page offsets in every process.
//!
//! What this module must never do: run anything but the given closure on the stack, or
//! return before it has switched back to the caller's stack. A panic in the closure is
//! caught on the private stack and resumed on the caller's, never unwound through the
//! switch.

use std::panic::{self, AssertUnwindSafe};

use super::mem::{page_size, round_to_pages, Mapping, Prot};
use crate::error::Result;

/// Bytes of the stack (the batch loop and the calls it times use a few KiB; signal
/// handlers that run meanwhile need room too).
const STACK_BYTES: usize = 256 * 1024;

/// A private stack: a guard page, then [`STACK_BYTES`] of `rw-` memory whose top is
/// page-aligned.
pub(crate) struct OwnStack {
    map: Mapping,
}

impl OwnStack {
    pub(crate) fn new() -> Result<OwnStack> {
        let page = page_size();
        let map = Mapping::new(page + round_to_pages(STACK_BYTES))?;
        map.protect(0, page, Prot::None)?;
        Ok(OwnStack { map })
    }

    /// Runs `body` with the stack pointer at this stack's top, and returns its result on
    /// the caller's stack. A panic in `body` is resumed after the switch back.
    pub(crate) fn run<R>(&self, body: impl FnOnce() -> R) -> R {
        let mut body = Some(body);
        let mut out: Option<std::thread::Result<R>> = None;
        let mut thunk = || {
            if let Some(b) = body.take() {
                out = Some(panic::catch_unwind(AssertUnwindSafe(b)));
            }
        };
        // SAFETY: the top of our own `rw-` mapping, page-aligned (so 16-byte aligned as
        // the call needs); the guard page below stops an overflow. `enter::<F>` is given
        // a pointer to an `F` that lives until `call_on_stack` returns, and `thunk`
        // catches every panic, so nothing unwinds through the switch.
        let entry = enter_of(&thunk);
        unsafe {
            let top = self.map.base().add(self.map.len());
            call_on_stack(std::ptr::from_mut(&mut thunk).cast::<u8>(), entry, top);
        }
        match out.expect("the body ran") {
            Ok(r) => r,
            Err(p) => panic::resume_unwind(p),
        }
    }
}

/// The entry for a closure of type `F` (`enter::<F>`), inferred from a reference.
fn enter_of<F: FnMut()>(_: &F) -> unsafe extern "C" fn(*mut u8) {
    enter::<F>
}

/// Calls the closure `ctx` points to.
///
/// # Safety
/// `ctx` points to a live `F`, used by nothing else for the call.
unsafe extern "C" fn enter<F: FnMut()>(ctx: *mut u8) {
    // SAFETY: the caller's contract.
    let f = unsafe { &mut *ctx.cast::<F>() };
    f();
}

/// `body(ctx)` with `rsp = top`, then back to the caller's stack.
///
/// # Safety
/// `top` is the 16-byte-aligned top of writable memory large enough for `body`; `body`
/// returns normally (it must not unwind).
#[unsafe(naked)]
unsafe extern "C" fn call_on_stack(
    ctx: *mut u8,
    body: unsafe extern "C" fn(*mut u8),
    top: *mut u8,
) {
    // rbp keeps the caller's stack pointer (it is callee-saved, so `body` returns it
    // unchanged); rdi is still `ctx` for the call.
    std::arch::naked_asm!(
        "push rbp",
        "mov rbp, rsp",
        "mov rsp, rdx",
        "call rsi",
        "mov rsp, rbp",
        "pop rbp",
        "ret",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rsp() -> usize {
        let sp: usize;
        // SAFETY: reads rsp; touches no memory.
        unsafe { std::arch::asm!("mov {}, rsp", out(reg) sp, options(nomem, nostack)) };
        sp
    }

    #[test]
    fn runs_on_its_own_stack_and_returns_the_result() {
        let s = OwnStack::new().unwrap();
        let (lo, hi) = (s.map.base() as usize, s.map.base() as usize + s.map.len());
        let (sp, r) = s.run(|| (rsp(), 6 * 7));
        assert_eq!(r, 42);
        assert!(lo < sp && sp < hi, "rsp {sp:#x} outside {lo:#x}..{hi:#x}");
        // Back on the caller's stack afterwards.
        let here = rsp();
        assert!(!(lo..hi).contains(&here));
    }

    /// The body's frames start just below a page-aligned top, so their page offsets are
    /// the same in every process.
    #[test]
    fn the_body_runs_just_below_a_page_aligned_top() {
        let s = OwnStack::new().unwrap();
        let top = s.map.base() as usize + s.map.len();
        assert_eq!(top % page_size(), 0);
        let sp = s.run(rsp);
        assert!(
            top - sp < 1024,
            "rsp {sp:#x} is {} bytes below the top",
            top - sp
        );
    }

    #[test]
    fn a_panic_comes_back_to_the_caller() {
        let s = OwnStack::new().unwrap();
        let r = panic::catch_unwind(AssertUnwindSafe(|| s.run(|| panic!("inside"))));
        assert!(r.is_err());
        // The stack is usable again.
        assert_eq!(s.run(|| 1), 1);
    }
}
