//! The C-compiler baseline: C source (from `cryptopt_emit::c`) compiled by gcc or clang
//! into a shared object, loaded into this process, so that the optimizer's code can be
//! measured against what a C compiler makes of the same function.
//!
//! ```text
//!   C source ──cc -O3 -march=native -fPIC -shared──▶ tmp/…/baseline.so ──dlopen/dlsym──▶ fn ptr
//! ```
//!
//! [`CompiledC::build_many`] writes the source into a fresh temporary directory, runs the
//! compiler, `dlopen`s the result (`RTLD_NOW | RTLD_LOCAL`) and looks up the symbols;
//! dropping the [`CompiledC`] `dlclose`s it and removes the directory. The function
//! pointers are valid only while the [`CompiledC`] lives.
//!
//! This module must never panic (a missing compiler, a compile error, a failed `dlopen`
//! are [`Error`]s), never leave its temporary directory behind, and never run code: it
//! only hands out addresses (calling them is [`crate::diff`]'s or [`crate::timing`]'s job).

use std::ffi::{c_void, CStr, CString};
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Error, Result};

/// Flags always passed to the compiler, before the caller's.
pub const DEFAULT_FLAGS: &[&str] = &["-O3", "-march=native", "-mtune=native", "-fPIC", "-shared"];

/// The flags, after [`DEFAULT_FLAGS`], that give the compilers the instruction set of
/// cryptopt's `target` (the last `-march` wins): the baseline x86-64 target against
/// `-march=x86-64-v2` (no BMI), x86-64-bmi2 against `-march=x86-64-v3` (BMI2, no ADX),
/// x86-64-adx and x86-64-avx512ifma against the machine's own `-march=native` (a
/// superset of BMI2 + ADX, and of AVX-512 IFMA where vector code can run at all).
pub fn target_flags(target: cryptopt_x86::Target) -> &'static [&'static str] {
    match target {
        cryptopt_x86::Target::X86_64 => &["-march=x86-64-v2"],
        cryptopt_x86::Target::Bmi2 => &["-march=x86-64-v3"],
        cryptopt_x86::Target::Adx | cryptopt_x86::Target::Avx512Ifma => &[],
    }
}

/// The compilers' flags for `target` as one line ([`DEFAULT_FLAGS`], then
/// [`target_flags`]): what reports and messages print.
pub fn flags_line(target: cryptopt_x86::Target) -> String {
    DEFAULT_FLAGS
        .iter()
        .chain(target_flags(target))
        .copied()
        .collect::<Vec<_>>()
        .join(" ")
}

/// How many lines of the compiler's stderr a [`Error::CompileFailed`] keeps.
const STDERR_LINES: usize = 20;

/// A shared object compiled from C and loaded into this process, with the addresses of
/// the symbols asked for.
pub struct CompiledC {
    // Field order is drop order: close the library before removing its directory.
    _lib: Library,
    /// `(name, address)` in the order asked for.
    symbols: Vec<(String, *const u8)>,
    version: String,
    _dir: TempDir,
}

// SAFETY: the `dlopen` handle and the symbol addresses are process-wide; `dlclose` may be
// called from any thread, and nothing here is mutated after construction.
unsafe impl Send for CompiledC {}
// SAFETY: as above; `&CompiledC` only reads the addresses and the version string.
unsafe impl Sync for CompiledC {}

impl CompiledC {
    /// Compiles `source` with `cc` and [`DEFAULT_FLAGS`] followed by `flags`, loads it and
    /// looks up `symbol`.
    pub fn build(source: &str, symbol: &str, cc: &str, flags: &[&str]) -> Result<CompiledC> {
        Self::build_many(source, &[symbol], cc, flags)
    }

    /// Like [`CompiledC::build`] for several symbols from one source (one compiler run).
    pub fn build_many(
        source: &str,
        symbols: &[&str],
        cc: &str,
        flags: &[&str],
    ) -> Result<CompiledC> {
        let version = compiler_version(cc)?;
        let dir = TempDir::new()?;
        let c = dir.path.join("baseline.c");
        let so = dir.path.join("baseline.so");
        std::fs::write(&c, source).map_err(|err| Error::TempFile {
            path: c.clone(),
            err,
        })?;
        let out = Command::new(cc)
            .args(DEFAULT_FLAGS)
            .args(flags)
            .arg("-o")
            .arg(&so)
            .arg(&c)
            .output()
            .map_err(|err| spawn_error(cc, err))?;
        if !out.status.success() {
            let stderr = String::from_utf8_lossy(&out.stderr);
            let mut lines: Vec<&str> = stderr.lines().take(STDERR_LINES + 1).collect();
            if lines.len() > STDERR_LINES {
                lines[STDERR_LINES] = "...";
            }
            return Err(Error::CompileFailed {
                cc: cc.to_string(),
                status: out.status.to_string(),
                stderr: lines.join("\n"),
            });
        }
        let lib = Library::open(&so)?;
        let symbols = symbols
            .iter()
            .map(|&name| Ok((name.to_string(), lib.symbol(name)?)))
            .collect::<Result<Vec<_>>>()?;
        Ok(CompiledC {
            _lib: lib,
            symbols,
            version,
            _dir: dir,
        })
    }

    /// The address of the first symbol asked for (the one of [`CompiledC::build`]); null
    /// if none was asked for.
    pub fn ptr(&self) -> *const u8 {
        self.symbols.first().map_or(std::ptr::null(), |s| s.1)
    }

    /// The address of `name`, if it was one of the symbols asked for.
    pub fn symbol(&self, name: &str) -> Option<*const u8> {
        self.symbols.iter().find(|s| s.0 == name).map(|s| s.1)
    }

    /// The first line of `cc --version` (`gcc (Debian 12.2.0-14) 12.2.0`).
    pub fn compiler_version(&self) -> String {
        self.version.clone()
    }
}

/// The first line of `cc --version` (stdout, or stderr when stdout is empty).
pub fn compiler_version(cc: &str) -> Result<String> {
    let out = Command::new(cc)
        .arg("--version")
        .output()
        .map_err(|err| spawn_error(cc, err))?;
    let text = if out.stdout.is_empty() {
        out.stderr
    } else {
        out.stdout
    };
    Ok(String::from_utf8_lossy(&text)
        .lines()
        .next()
        .unwrap_or("")
        .trim()
        .to_string())
}

fn spawn_error(cc: &str, err: io::Error) -> Error {
    if err.kind() == io::ErrorKind::NotFound {
        Error::CompilerNotFound { cc: cc.to_string() }
    } else {
        Error::CompilerRun {
            cc: cc.to_string(),
            err,
        }
    }
}

/// The last `dlerror()` message, or `fallback`.
fn dlerror(fallback: &str) -> String {
    // SAFETY: dlerror has no preconditions; its result is null or a NUL-terminated string
    // that stays valid until the next dl* call on this thread, and is copied at once.
    unsafe {
        let p = libc::dlerror();
        if p.is_null() {
            fallback.to_string()
        } else {
            CStr::from_ptr(p).to_string_lossy().into_owned()
        }
    }
}

/// A `dlopen` handle, closed on drop.
struct Library(*mut c_void);

impl Library {
    fn open(path: &Path) -> Result<Library> {
        let fail = |message: String| Error::Dlopen {
            path: path.to_path_buf(),
            message,
        };
        let cpath = CString::new(path.as_os_str().as_encoded_bytes())
            .map_err(|_| fail("the path contains a NUL byte".to_string()))?;
        // SAFETY: `cpath` is a NUL-terminated path; the library is our freshly compiled
        // object, whose initializers (none: plain C functions) run here.
        let handle = unsafe { libc::dlopen(cpath.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        if handle.is_null() {
            return Err(fail(dlerror("dlopen returned null")));
        }
        Ok(Library(handle))
    }

    fn symbol(&self, name: &str) -> Result<*const u8> {
        let fail = |message: String| Error::Dlsym {
            symbol: name.to_string(),
            message,
        };
        let cname =
            CString::new(name).map_err(|_| fail("the name contains a NUL byte".to_string()))?;
        // SAFETY: clear any stale error so that a null result can be told apart from a
        // symbol whose address is null (dlsym's documented protocol).
        unsafe { libc::dlerror() };
        // SAFETY: `self.0` is a live handle from dlopen; `cname` is NUL-terminated.
        let p = unsafe { libc::dlsym(self.0, cname.as_ptr()) };
        if p.is_null() {
            return Err(fail(dlerror("no such symbol")));
        }
        Ok(p as *const u8)
    }
}

impl Drop for Library {
    fn drop(&mut self) {
        // SAFETY: `self.0` came from a successful dlopen and is closed exactly once; the
        // addresses handed out are documented to die with the `CompiledC`.
        unsafe { libc::dlclose(self.0) };
    }
}

/// A fresh directory under `std::env::temp_dir()`, removed (with its contents) on drop.
struct TempDir {
    path: PathBuf,
}

impl TempDir {
    fn new() -> Result<TempDir> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let base = std::env::temp_dir();
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let mut last = None;
        for _ in 0..64 {
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let path = base.join(format!("cryptopt-cc-{}-{n}-{nanos:x}", std::process::id()));
            match std::fs::create_dir(&path) {
                Ok(()) => return Ok(TempDir { path }),
                Err(err) if err.kind() == io::ErrorKind::AlreadyExists => last = Some(err),
                Err(err) => return Err(Error::TempFile { path, err }),
            }
        }
        Err(Error::TempFile {
            path: base,
            err: last.unwrap_or_else(|| io::Error::other("no free temporary name")),
        })
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        // Best effort: a leftover directory in /tmp is not worth a panic in drop.
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = "int cryptopt_answer(void) { return 42; }\n";

    /// Builds `source` with `cc` for `symbols`; `None` (after printing why) when a
    /// compiler the test expects to exist is not installed.
    fn check(source: &str, cc: &str, symbols: &[&str]) -> Option<Result<CompiledC>> {
        match CompiledC::build_many(source, symbols, cc, &[]) {
            Err(Error::CompilerNotFound { .. }) if !cc.starts_with("cryptopt-no-such") => {
                eprintln!("SKIPPED {cc}: not installed");
                None
            }
            r => Some(r),
        }
    }

    #[test]
    fn builds_loads_and_cleans_up() {
        let Some(r) = check(SOURCE, "gcc", &["cryptopt_answer"]) else {
            return;
        };
        let c = r.unwrap();
        assert!(!c.ptr().is_null());
        assert_eq!(c.symbol("cryptopt_answer"), Some(c.ptr()));
        assert_eq!(c.symbol("other"), None);
        assert!(
            c.compiler_version().contains("gcc"),
            "{}",
            c.compiler_version()
        );
        // SAFETY: the symbol is `int cryptopt_answer(void)` from SOURCE, alive while `c` is.
        let f: extern "C" fn() -> i32 = unsafe { std::mem::transmute(c.ptr()) };
        assert_eq!(f(), 42);
        let dir = c._dir.path.clone();
        assert!(dir.join("baseline.so").is_file());
        drop(c);
        assert!(!dir.exists(), "{} left behind", dir.display());
    }

    #[test]
    fn errors() {
        // (source, compiler, symbols, expected message fragment)
        let cases: &[(&str, &str, &[&str], &str)] = &[
            (
                SOURCE,
                "cryptopt-no-such-cc",
                &["cryptopt_answer"],
                "compiler `cryptopt-no-such-cc` not found: install it or choose another C compiler",
            ),
            ("int f( {", "gcc", &["f"], "compiling with `gcc` failed"),
            (
                SOURCE,
                "gcc",
                &["cryptopt_missing"],
                "dlsym(cryptopt_missing)",
            ),
            (SOURCE, "gcc", &["a\0b"], "NUL byte"),
        ];
        for (source, cc, symbols, want) in cases {
            match check(source, cc, symbols) {
                None => {}
                Some(Ok(_)) => panic!("{cc} {symbols:?}: built"),
                Some(Err(e)) => assert!(e.to_string().contains(want), "{e}"),
            }
        }
    }
}
