//! Files: reading inputs (with the path in every error), loading a function from Fiat
//! JSON or LLVM IR, and writing outputs atomically. Nothing is ever left half-written:
//! every write goes through [`write_atomically`].

use std::path::Path;

use cryptopt_frontend::{fiat, llvm};
use cryptopt_ir::{lower, Function};

use crate::{Error, Result, Within};

/// Writes `bytes` to `path` through a temporary file in the same folder and a rename, so
/// that no half-written file is ever left behind.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let Some(name) = path.file_name() else {
        let e = std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a file name");
        return Err(Error::io("write", path, e));
    };
    let tmp = dir.join(format!(
        ".{}.tmp{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    let result = std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(|e| Error::io("write", path, e))
}

/// Makes folder `dir` and checks that files can be written there (a probe file is
/// written and removed): called before a long run, so that a bad `--out` fails at once.
pub fn ensure_writable(dir: &Path) -> Result<()> {
    let probe = dir.join(format!(".cryptopt-probe{}", std::process::id()));
    std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::write(&probe, b""))
        .and_then(|()| std::fs::remove_file(&probe))
        .map_err(|e| Error::io("write results to", dir, e))
}

/// The text of `path`.
pub fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|e| Error::io("read", path, e))
}

/// Whether `path` is LLVM IR text (`.ll`) rather than Fiat JSON.
pub fn is_llvm(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "ll")
}

type ParseFn = fn(&str, &str) -> cryptopt_frontend::Result<Function>;
type NamesFn = fn(&str) -> cryptopt_frontend::Result<Vec<String>>;
type AllFn = fn(&str) -> cryptopt_frontend::Result<Vec<Function>>;

/// The front end of a file, by its extension (the one place that decides): one
/// function by name, the names, every function.
fn reader(path: &Path) -> (ParseFn, NamesFn, AllFn) {
    if is_llvm(path) {
        (
            llvm::parse_function,
            llvm::function_names,
            llvm::parse_functions,
        )
    } else {
        (
            fiat::parse_function,
            fiat::function_names,
            fiat::parse_functions,
        )
    }
}

/// Every function in an input file (Fiat JSON, or LLVM IR for `.ll`).
pub fn load_all(path: &Path) -> Result<Vec<Function>> {
    let text = read(path)?;
    reader(path).2(&text).within(|| path.display().to_string())
}

/// Reads the named function (or the only one) from a Fiat JSON file or an LLVM IR file
/// (`.ll`), lowered if asked.
pub fn load(path: &Path, name: Option<&str>, lowered: bool) -> Result<Function> {
    let text = read(path)?;
    let ctx = || path.display().to_string();
    let (parse, names, _) = reader(path);
    let f = match name {
        Some(n) => parse(&text, n).within(ctx)?,
        None => {
            let names = names(&text).within(ctx)?;
            match &names[..] {
                [one] => parse(&text, one).within(ctx)?,
                _ => {
                    return Err(Error::param(
                        "function",
                        format!(
                            "must be named: {} has {} functions (e.g. {})",
                            path.display(),
                            names.len(),
                            names.first().map_or("none", |s| s.as_str())
                        ),
                    ))
                }
            }
        }
    };
    if lowered {
        lower::lower(&f).within(ctx)
    } else {
        Ok(f)
    }
}

/// Writes `files` (name, contents) into `dir`, each atomically.
pub fn write_all(dir: &Path, files: &[(String, String)]) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io("create", dir, e))?;
    for (name, text) in files {
        write_atomically(&dir.join(name), text.as_bytes())?;
    }
    Ok(())
}
