//! The hot path allocates nothing: encoding through a reused `Assembler` into a buffer
//! with room makes no heap allocation (counted by a global allocator on this thread).

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use cryptopt_x86::encode::Assembler;

struct Counting;

thread_local! {
    static ALLOCS: Cell<usize> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn encoding_allocates_nothing() {
    let insts = common::sample_every_form(2);
    let mut asm = Assembler::new();
    let mut buf = Vec::with_capacity(64 * 1024);
    asm.encode(&insts, &mut buf).unwrap();
    let before = ALLOCS.with(|c| c.get());
    for _ in 0..100 {
        buf.clear();
        asm.encode(&insts, &mut buf).unwrap();
    }
    let after = ALLOCS.with(|c| c.get());
    assert_eq!(after - before, 0, "allocations while encoding");
    assert!(!buf.is_empty());
    // The counter counts: growing an empty buffer allocates.
    let mut empty = Vec::new();
    asm.encode(&insts, &mut empty).unwrap();
    assert!(ALLOCS.with(|c| c.get()) > after);
}
