//! Where a function's arguments live in memory when it is called in-process.
//!
//! A [`Layout`] places, in one area of u64 words, a buffer for every return and every
//! array parameter with its natural element size ([`cryptopt_ir::Ty::elem_bytes`]),
//! each between guard words; an output that shares its buffer with an input is a
//! [`Pairing`] (one concrete choice among those the [`cryptopt_ir::Aliasing`] policy
//! allows, enumerated by [`pairings`]).
//!
//! Used by the differential runner ([`crate::diff`]) and the timing loop
//! ([`crate::timing`]), which calls verified code directly in its batches. This module
//! never runs code and never allocates after [`Layout::reset`] has sized an area.

use cryptopt_ir::{Aliasing, Function, Param};

use crate::error::{Error, Result};
use crate::exec::MAX_ARGS;

/// Bytes of a page: addresses that agree modulo this much look alike to a load that
/// checks earlier stores (see [`Layout::reset_at`]).
pub(crate) const PAGE: usize = 4096;
/// Guard words before and after every buffer.
const GUARD_WORDS: usize = 8;
const GUARD: u64 = 0x6a09_e667_f3bc_c908;
/// What an output buffer holds before the call.
const POISON: u8 = 0xa5;

/// Which output buffer is also which input buffer in one call: a concrete pairing, not
/// a policy (the policy is [`cryptopt_ir::Aliasing`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pairing {
    /// All buffers distinct.
    Distinct,
    /// Output `ret` is the same buffer as input `param` (indices into returns/params).
    Same { ret: usize, param: usize },
}

/// The pairings a program generated under the policy `aliasing` must survive: all
/// buffers distinct, and every (output, input) pair of the same shape that the policy
/// allows.
pub fn pairings(f: &Function, aliasing: Aliasing) -> Vec<Pairing> {
    let mut v = vec![Pairing::Distinct];
    for (r, rp) in f.returns.iter().enumerate() {
        for (p, pp) in f.params.iter().enumerate() {
            if rp.len.is_some()
                && rp.len == pp.len
                && rp.ty.bits == pp.ty.bits
                && aliasing.may_alias(r, p)
            {
                v.push(Pairing::Same { ret: r, param: p });
            }
        }
    }
    v
}

/// One buffer: its element size and where it starts in the buffer area (in bytes).
#[derive(Clone, Copy)]
struct Buf {
    start: usize,
    elem_bytes: usize,
    elems: usize,
}

impl Buf {
    /// Bytes of data (without padding to whole words).
    fn bytes(&self) -> usize {
        self.elem_bytes * self.elems
    }
}

/// The argument words of one call, in System V order (what goes in rdi, rsi, … and then
/// on the stack): buffer addresses and scalars by value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Args {
    pub(crate) words: [u64; MAX_ARGS],
    pub(crate) len: usize,
}

impl Args {
    pub(crate) fn as_slice(&self) -> &[u64] {
        &self.words[..self.len]
    }
}

/// Bytes of a word area.
fn as_bytes(words: &[u64]) -> &[u8] {
    // SAFETY: u64 storage viewed as bytes; length and alignment are those of the slice,
    // and every byte pattern is a valid u8.
    unsafe { std::slice::from_raw_parts(words.as_ptr().cast::<u8>(), words.len() * 8) }
}

/// Bytes of a word area, mutably.
fn as_bytes_mut(words: &mut [u64]) -> &mut [u8] {
    // SAFETY: as in `as_bytes`; the borrow of `words` is exclusive for the result's lifetime.
    unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<u8>(), words.len() * 8) }
}

/// Where the arguments of a function live in a buffer area of u64 words: for every
/// return and every array parameter a buffer with its natural element size (`u8` arrays
/// are bytes), each preceded by [`GUARD_WORDS`] guard words, with guard words after the
/// last one; data is padded to whole words. An output aliased with an input shares its
/// buffer. Scalar parameters are passed by value and have no buffer.
///
/// Shared by [`crate::diff::Runner`] and the timing loop ([`crate::timing`]).
pub(crate) struct Layout {
    /// One per return, then one per parameter (`None`: a scalar passed by value).
    bufs: Vec<Option<Buf>>,
    /// Number of returns (the first entries of `bufs`).
    returns: usize,
    /// Size of the area in words.
    words: usize,
}

impl Layout {
    /// The layout for calls of `f` with the given aliasing. Errors if `f` has more than
    /// [`MAX_ARGS`] arguments or the aliased buffers differ in shape.
    pub(crate) fn new(f: &Function, pairing: Pairing) -> Result<Layout> {
        let nargs = f.returns.len() + f.params.len();
        if nargs > MAX_ARGS {
            return Err(Error::Mismatch(format!(
                "`{}` has {nargs} arguments; calls in-process pass at most {MAX_ARGS}",
                f.name
            )));
        }
        // Guard, data (rounded up to words), guard.
        let mut bufs: Vec<Option<Buf>> = Vec::new();
        let mut bytes = 0usize;
        let place = |p: &Param, bytes: &mut usize| {
            *bytes += GUARD_WORDS * 8;
            let b = Buf {
                start: *bytes,
                elem_bytes: p.elem_bytes() as usize,
                elems: p.elems(),
            };
            *bytes += b.bytes().div_ceil(8) * 8;
            b
        };
        for r in &f.returns {
            bufs.push(Some(place(r, &mut bytes)));
        }
        for (i, p) in f.params.iter().enumerate() {
            match pairing {
                Pairing::Same { ret, param } if param == i => {
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
        Ok(Layout {
            bufs,
            returns: f.returns.len(),
            words: bytes / 8,
        })
    }

    /// Makes `area` a fresh area for this layout: all guard words.
    pub(crate) fn reset(&self, area: &mut Vec<u64>) {
        area.clear();
        area.resize(self.words, GUARD);
    }

    /// Makes a fresh area for this layout (all guard words) inside `store`, starting at
    /// an address that is `page_offset` modulo [`PAGE`] bytes (`page_offset` a multiple
    /// of 8), and returns it. `store` grows by up to a page to make room.
    pub(crate) fn reset_at<'a>(
        &self,
        store: &'a mut Vec<u64>,
        page_offset: usize,
    ) -> &'a mut [u64] {
        debug_assert!(page_offset.is_multiple_of(8) && page_offset < PAGE);
        store.clear();
        store.resize(self.words + PAGE / 8, GUARD);
        let start = store.as_ptr() as usize;
        let skip = (page_offset + PAGE - start % PAGE) % PAGE / 8;
        &mut store[skip..skip + self.words]
    }

    /// Fills the output buffers with [`POISON`] bytes.
    pub(crate) fn poison_outputs(&self, area: &mut [u64]) {
        let bytes = as_bytes_mut(area);
        for b in self.bufs[..self.returns].iter().flatten() {
            bytes[b.start..b.start + b.bytes()].fill(POISON);
        }
    }

    /// Writes `inputs` (one `Vec` per parameter of `f`, checked by the caller) into
    /// their buffers; returns the argument words for an area at `base`: buffer
    /// addresses, and scalar inputs by value (masked to their type).
    pub(crate) fn write_inputs(
        &self,
        f: &Function,
        inputs: &[Vec<u128>],
        area: &mut [u64],
    ) -> Args {
        let base = area.as_ptr() as u64;
        let bytes = as_bytes_mut(area);
        let mut args = [0u64; MAX_ARGS];
        for (i, (p, x)) in f.params.iter().zip(inputs).enumerate() {
            match self.bufs[self.returns + i] {
                Some(b) => {
                    let eb = b.elem_bytes;
                    for (j, &v) in x.iter().enumerate().take(b.elems) {
                        let at = b.start + j * eb;
                        bytes[at..at + eb].copy_from_slice(&(v as u64).to_le_bytes()[..eb]);
                    }
                }
                None => args[self.returns + i] = x[0] as u64 & p.ty.mask() as u64,
            }
        }
        for (k, b) in self.bufs.iter().enumerate() {
            if let Some(b) = b {
                args[k] = base + b.start as u64;
            }
        }
        Args {
            words: args,
            len: self.bufs.len(),
        }
    }

    /// Reads the outputs into `out` (one `Vec` per return, resized as needed).
    pub(crate) fn read_outputs(&self, area: &[u64], out: &mut [Vec<u128>]) {
        let bytes = as_bytes(area);
        for (o, b) in out.iter_mut().zip(&self.bufs[..self.returns]) {
            let b = b.expect("returns are buffers");
            o.clear();
            o.extend((0..b.elems).map(|j| {
                let at = b.start + j * b.elem_bytes;
                let mut w = [0u8; 8];
                w[..b.elem_bytes].copy_from_slice(&bytes[at..at + b.elem_bytes]);
                u64::from_le_bytes(w) as u128
            }));
        }
    }

    /// The first word of `area` outside every buffer that is not a guard word any more.
    pub(crate) fn broken_guard(&self, area: &[u64]) -> Option<usize> {
        // Buffers in address order (aliased ones twice; harmless), each with its guard
        // words just before it; the final guard words after the last buffer.
        let mut next = 0;
        let mut starts = [usize::MAX; MAX_ARGS];
        let mut ends = [usize::MAX; MAX_ARGS];
        let mut n = 0;
        for b in self.bufs.iter().flatten() {
            starts[n] = b.start / 8;
            ends[n] = (b.start + b.bytes()).div_ceil(8);
            n += 1;
        }
        let (starts, ends) = (&mut starts[..n], &mut ends[..n]);
        starts.sort_unstable();
        ends.sort_unstable();
        for (&s, &e) in starts.iter().zip(ends.iter()) {
            if let Some(w) = (next..s).find(|&w| area[w] != GUARD) {
                return Some(w);
            }
            next = next.max(e);
        }
        (next..area.len()).find(|&w| area[w] != GUARD)
    }
}

#[cfg(test)]
mod tests {
    use cryptopt_ir::Ty;

    use super::*;

    fn param(name: &str, ty: Ty, len: Option<u32>) -> Param {
        Param::unbounded(name, ty, len)
    }

    /// `broken_guard` finds exactly the words outside every buffer (data rounded up to
    /// words) that changed, lowest first, for every aliasing of a mixed signature.
    #[test]
    fn guards_are_the_words_outside_buffers() {
        let f = Function::new(
            "mixed",
            vec![
                param("arg1", Ty::U8, Some(3)),
                param("arg2", Ty::U64, None),
                param("arg3", Ty::U32, Some(3)),
            ],
            vec![
                param("out1", Ty::U8, Some(3)),
                param("out2", Ty::U32, Some(3)),
            ],
        );
        for alias in pairings(&f, Aliasing::All) {
            let layout = Layout::new(&f, alias).unwrap();
            let mut area = Vec::new();
            layout.reset(&mut area);
            let mut in_use = vec![false; area.len()];
            for b in layout.bufs.iter().flatten() {
                in_use[b.start / 8..(b.start + b.bytes()).div_ceil(8)].fill(true);
            }
            let buffers = match alias {
                Pairing::Distinct => 4,
                Pairing::Same { .. } => 3,
            };
            assert_eq!(in_use.iter().filter(|&&u| !u).count(), (buffers + 1) * 8);
            assert_eq!(layout.broken_guard(&area), None, "{alias:?}");
            for w in 0..area.len() {
                let mut a = area.clone();
                a[w] ^= 1;
                let want = (!in_use[w]).then_some(w);
                assert_eq!(layout.broken_guard(&a), want, "{alias:?}, word {w}");
                // With a later guard broken too, the lower one is reported.
                *a.last_mut().unwrap() ^= 2;
                let want = if in_use[w] { area.len() - 1 } else { w };
                assert_eq!(layout.broken_guard(&a), Some(want), "{alias:?}, word {w}");
            }
        }
    }

    /// `reset_at` gives an area of guard words starting at the asked page offset, for
    /// offsets across the page and a store that is reused.
    #[test]
    fn reset_at_places_the_area_at_a_page_offset() {
        let f = Function::new(
            "f",
            vec![param("arg1", Ty::U64, Some(9))],
            vec![param("out1", Ty::U64, Some(9))],
        );
        let layout = Layout::new(&f, Pairing::Distinct).unwrap();
        let mut store = Vec::new();
        for off in [0, 8, 256, 2048, PAGE - 8] {
            let area = layout.reset_at(&mut store, off);
            assert_eq!(area.as_ptr() as usize % PAGE, off);
            assert_eq!(area.len(), layout.words);
            assert_eq!(layout.broken_guard(area), None);
        }
    }

    /// Inputs land at their natural element sizes and outputs read back the same way.
    #[test]
    fn inputs_and_outputs_round_trip() {
        let f = Function::new(
            "mixed",
            vec![
                param("arg1", Ty::U8, Some(3)),
                param("arg2", Ty::U64, None),
                param("arg3", Ty::U32, Some(3)),
            ],
            vec![param("out1", Ty::U8, Some(3))],
        );
        let layout = Layout::new(&f, Pairing::Same { ret: 0, param: 0 }).unwrap();
        let mut area = Vec::new();
        layout.reset(&mut area);
        layout.poison_outputs(&mut area);
        let mut out = vec![Vec::new()];
        layout.read_outputs(&area, &mut out);
        assert_eq!(out, vec![vec![0xa5; 3]]);
        let inputs = vec![
            vec![1, 2, 0xff],
            vec![u64::MAX as u128],
            vec![7, 8, 0xffff_ffff],
        ];
        let args = layout
            .write_inputs(&f, &inputs, &mut area)
            .as_slice()
            .to_vec();
        assert_eq!(args.len(), 4);
        assert_eq!(args[0], args[1], "out1 is arg1");
        assert_eq!(args[2], u64::MAX);
        layout.read_outputs(&area, &mut out);
        assert_eq!(out, vec![vec![1, 2, 0xff]]);
        // SAFETY: args[3] points at arg3's three u32s inside `area`.
        let arg3 = unsafe { std::slice::from_raw_parts(args[3] as *const u32, 3) };
        assert_eq!(arg3, [7, 8, 0xffff_ffff]);
        assert_eq!(layout.broken_guard(&area), None);
    }
}
