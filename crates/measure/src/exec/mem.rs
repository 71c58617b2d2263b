//! Page-aligned anonymous mappings, and executable memory built on them.

use std::fmt;
use std::io;
use std::ptr::{self, NonNull};
use std::sync::OnceLock;

use crate::error::{Error, Result};

/// `int3`: what the unused tail of an [`ExecMem`] is filled with, so that running off the
/// end of a program traps at once instead of running stale code.
const INT3: u8 = 0xCC;

/// The page size of this machine (4096 on x86-64 Linux).
pub(crate) fn page_size() -> usize {
    static PAGE: OnceLock<usize> = OnceLock::new();
    *PAGE.get_or_init(|| {
        // SAFETY: sysconf has no preconditions.
        let n = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        usize::try_from(n).ok().filter(|&n| n > 0).unwrap_or(4096)
    })
}

/// Whether `x` is a multiple of the page size (a power of two).
fn page_aligned(x: usize) -> bool {
    x & (page_size() - 1) == 0
}

/// `bytes` rounded up to whole pages, at least one page.
pub(crate) fn round_to_pages(bytes: usize) -> usize {
    let page = page_size();
    bytes.max(1).div_ceil(page) * page
}

/// The protections this crate ever asks for. There is deliberately no read-write-execute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Prot {
    /// `rw-`: being written (code), or data.
    ReadWrite,
    /// `r-x`: code that may run.
    ReadExec,
    /// `---`: guard pages.
    None,
}

impl Prot {
    fn bits(self) -> libc::c_int {
        match self {
            Prot::ReadWrite => libc::PROT_READ | libc::PROT_WRITE,
            Prot::ReadExec => libc::PROT_READ | libc::PROT_EXEC,
            Prot::None => libc::PROT_NONE,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Prot::ReadWrite => "rw-",
            Prot::ReadExec => "r-x",
            Prot::None => "---",
        }
    }
}

/// An owned, page-aligned, private anonymous mapping; unmapped on drop.
pub(crate) struct Mapping {
    base: NonNull<u8>,
    len: usize,
}

impl Mapping {
    /// Maps `len` bytes (a positive multiple of the page size) of zeroed `rw-` memory.
    pub(crate) fn new(len: usize) -> Result<Mapping> {
        debug_assert!(len > 0 && page_aligned(len));
        // SAFETY: a fresh private anonymous mapping at an address the kernel chooses; it
        // cannot alias any memory Rust knows about.
        let p = unsafe {
            libc::mmap(
                ptr::null_mut(),
                len,
                Prot::ReadWrite.bits(),
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(Error::Mmap {
                bytes: len,
                err: io::Error::last_os_error(),
            });
        }
        let base = NonNull::new(p.cast::<u8>()).ok_or_else(|| Error::Mmap {
            bytes: len,
            err: io::Error::other("mmap returned a null pointer"),
        })?;
        Ok(Mapping { base, len })
    }

    pub(crate) fn base(&self) -> *mut u8 {
        self.base.as_ptr()
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Changes the protection of the pages `[offset, offset + len)` of the mapping; both
    /// must be multiples of the page size.
    pub(crate) fn protect(&self, offset: usize, len: usize, prot: Prot) -> Result<()> {
        debug_assert!(page_aligned(offset) && page_aligned(len));
        assert!(offset <= self.len && len <= self.len - offset);
        // SAFETY: the range lies inside our own mapping (checked above). Callers make
        // sure no Rust reference into pages they make inaccessible or read-only is used
        // for writing afterwards.
        let addr = unsafe { self.base.as_ptr().add(offset) };
        // SAFETY: `addr` is page-aligned and `[addr, addr + len)` is mapped (ours).
        let rc = unsafe { libc::mprotect(addr.cast(), len, prot.bits()) };
        if rc != 0 {
            return Err(Error::Mprotect {
                addr: addr as usize,
                bytes: len,
                prot: prot.name(),
                err: io::Error::last_os_error(),
            });
        }
        Ok(())
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: we own the mapping and nothing borrows it any more (all borrows are
        // tied to the owner's lifetime). munmap can only fail for invalid arguments.
        let rc = unsafe { libc::munmap(self.base.as_ptr().cast(), self.len) };
        debug_assert_eq!(rc, 0, "munmap failed: {}", io::Error::last_os_error());
    }
}

/// Machine code in its own page-aligned anonymous mapping, executable and never writable
/// while it is executable.
///
/// The pages are `rw-` only inside [`ExecMem::new`], [`ExecMem::with_capacity`] and
/// [`ExecMem::load`], which all leave them `r-x` on success. Bytes between the end of the
/// code and the end of the mapping are `int3`. Each `ExecMem` starts on its own page.
///
/// `ExecMem` is `Send` and `Sync`: it only changes through `&mut self`.
pub struct ExecMem {
    map: Mapping,
    /// Bytes of code loaded.
    len: usize,
}

// SAFETY: the mapping is owned; shared access only reads it, and it only changes through
// `&mut self` (load) or on drop.
unsafe impl Send for ExecMem {}
// SAFETY: see above.
unsafe impl Sync for ExecMem {}

impl ExecMem {
    /// Maps `code` into fresh executable pages (the code's size rounded up to pages, at
    /// least one page).
    pub fn new(code: &[u8]) -> Result<ExecMem> {
        let map = Mapping::new(round_to_pages(code.len()))?;
        // SAFETY: the mapping is fresh, `rw-`, `map.len() >= code.len()` bytes long, and
        // nothing else refers to it.
        unsafe {
            ptr::copy_nonoverlapping(code.as_ptr(), map.base(), code.len());
            ptr::write_bytes(map.base().add(code.len()), INT3, map.len() - code.len());
        }
        map.protect(0, map.len(), Prot::ReadExec)?;
        Ok(ExecMem {
            map,
            len: code.len(),
        })
    }

    /// Encodes `program` and maps its machine code into fresh executable pages: the one
    /// way a program becomes callable code outside the search's reusable slots.
    pub fn from_program(program: &cryptopt_x86::Program) -> Result<ExecMem> {
        // With its constants, if it has any (they follow the code, which starts a page).
        let mut code = Vec::new();
        cryptopt_x86::encode::Assembler::new().encode_program(program, &mut code)?;
        ExecMem::new(&code)
    }

    /// An empty executable mapping (all `int3`) with room for `bytes` bytes of code
    /// (rounded up to pages, at least one page), for [`ExecMem::load`] to reuse.
    pub fn with_capacity(bytes: usize) -> Result<ExecMem> {
        let map = Mapping::new(round_to_pages(bytes))?;
        // SAFETY: the mapping is fresh, `rw-`, `map.len()` bytes long, unshared.
        unsafe { ptr::write_bytes(map.base(), INT3, map.len()) };
        map.protect(0, map.len(), Prot::ReadExec)?;
        Ok(ExecMem { map, len: 0 })
    }

    /// Replaces the code: flips the pages to `rw-`, copies `code` (and `int3` over the
    /// rest of the previous code), and flips them back to `r-x`.
    ///
    /// Two `mprotect` calls and no `mmap`/`munmap`. On error the contents are
    /// unspecified and the pages may not be executable: load again before calling.
    pub fn load(&mut self, code: &[u8]) -> Result<()> {
        let capacity = self.map.len();
        if code.len() > capacity {
            return Err(Error::CodeTooLarge {
                len: code.len(),
                capacity,
            });
        }
        // Only the pages that held or will hold code need to change.
        let touched = round_to_pages(self.len.max(code.len()));
        self.map.protect(0, touched, Prot::ReadWrite)?;
        // SAFETY: the first `touched >= max(len, code.len())` bytes are `rw-` now;
        // `&mut self` guarantees that no `code()` slice is alive. Running the code is
        // only possible through a raw `ptr()` and an `unsafe` call whose contract says
        // the code stays loaded for the whole call, so nothing executes it meanwhile.
        unsafe {
            ptr::copy_nonoverlapping(code.as_ptr(), self.map.base(), code.len());
            if self.len > code.len() {
                ptr::write_bytes(self.map.base().add(code.len()), INT3, self.len - code.len());
            }
        }
        self.len = code.len();
        self.map.protect(0, touched, Prot::ReadExec)
    }

    /// The first byte of the code (the start of a page).
    pub fn ptr(&self) -> *const u8 {
        self.map.base()
    }

    /// Bytes of code loaded.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no code is loaded.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes of code the mapping can hold (whole pages).
    pub fn capacity(&self) -> usize {
        self.map.len()
    }

    /// The code loaded, read back from the executable pages.
    pub fn code(&self) -> &[u8] {
        // SAFETY: the first `len` bytes are mapped and readable (`r-x`, or `rw-` after a
        // failed load) and only change through `&mut self`.
        unsafe { std::slice::from_raw_parts(self.map.base(), self.len) }
    }
}

impl fmt::Debug for ExecMem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ExecMem")
            .field("ptr", &self.ptr())
            .field("len", &self.len)
            .field("capacity", &self.capacity())
            .finish()
    }
}

/// The permissions (`r-xp`, …) of the mapping holding `addr`, from `/proc/self/maps`.
#[cfg(test)]
pub(crate) fn perms_of(addr: usize) -> String {
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
    for line in maps.lines() {
        let mut fields = line.split_whitespace();
        let (range, perms) = (fields.next().unwrap(), fields.next().unwrap());
        let (lo, hi) = range.split_once('-').unwrap();
        let lo = usize::from_str_radix(lo, 16).unwrap();
        let hi = usize::from_str_radix(hi, 16).unwrap();
        if (lo..hi).contains(&addr) {
            return perms.to_string();
        }
    }
    panic!("{addr:#x} is not mapped");
}
