//! Writing a checked program's files: the program (`.asm`, `.S`, `.h`, each headed by
//! its provenance) with the run's other files, the Rust module, the dispatcher's
//! folder. The text is `cryptopt_emit`'s; this module only places it, atomically, and
//! never writes a program that the caller has not checked.

use std::path::{Path, PathBuf};

use cryptopt_codegen::{Abi, Options, Target};
use cryptopt_emit::header::Provenance;
use cryptopt_ir::Function;
use cryptopt_x86::object::Object;

use crate::files::{write_all, write_atomically};
use crate::{Error, Outcome, Result};

/// Where [`write_program`] put the two program files.
pub struct Written {
    pub asm: PathBuf,
    pub gas: PathBuf,
}

/// Writes the winner into `dir`: `<name>.asm`, `<name>.S` and `<name>.h`, each headed
/// by its provenance, and the `extra` files (name, contents). A finished search is
/// never lost: if its folder cannot take the files any more, they go to a fresh folder
/// in the temporary directory (and the error says where).
pub fn write_program(
    dir: PathBuf,
    provenance: &Provenance<'_>,
    program: &cryptopt_x86::Program,
    extra: Vec<(String, String)>,
) -> Result<Written> {
    let name = &provenance.f.name;
    let (asm_name, gas_name) = (format!("{name}.asm"), format!("{name}.S"));
    let mut files = vec![
        (asm_name.clone(), provenance.nasm(program)),
        (gas_name.clone(), provenance.gas(program)),
        (format!("{name}.h"), provenance.header(program)),
    ];
    files.extend(extra);
    if let Err(e) = write_all(&dir, &files) {
        let rescue =
            std::env::temp_dir().join(format!("cryptopt-rescue-{name}-{}", std::process::id()));
        if let Err(again) = write_all(&rescue, &files) {
            return Err(Error::Unsupported(format!(
                "{e}; rescue failed too: {again}"
            )));
        }
        return Err(Error::Unsupported(format!(
            "{e}; the results were written to {} instead",
            rescue.display()
        )));
    }
    Ok(Written {
        asm: dir.join(asm_name),
        gas: dir.join(gas_name),
    })
}

/// Writes `<name>.rs` (the Rust module of `o`'s program) beside its `.S`; returns its
/// path.
pub fn write_rust(
    f: &Function,
    o: &Outcome,
    object: &Object,
    opts: &Options,
    representation: Option<&str>,
    seed: u64,
) -> Result<PathBuf> {
    let how = cryptopt_emit::rust::How {
        object,
        abi: opts.abi,
        aliasing: opts.aliasing,
        red_zone: opts.red_zone,
        representation,
        seed,
    };
    let text = cryptopt_emit::rust::module(f, &o.program, &o.header, &how)?;
    let dir = o.gas_path.parent().unwrap_or(Path::new("."));
    let path = dir.join(cryptopt_emit::rust::file_name(&o.program, object));
    write_atomically(&path, text.as_bytes())?;
    Ok(path)
}

/// Writes DIR/<public>_dispatch/ from the targets' GNU as files (`gas`, in
/// [`Target::ALL`] order, all of the calling convention `abi`, which the dispatcher's
/// entry keeps too); returns the folder.
pub fn write_dispatch(
    out: &Path,
    f: &Function,
    public: &str,
    abi: Abi,
    gas: &[(Target, PathBuf)],
) -> Result<PathBuf> {
    use cryptopt_emit::dispatch;
    let dir = out.join(format!("{public}_dispatch"));
    std::fs::create_dir_all(&dir).map_err(|e| Error::io("create", &dir, e))?;
    for (t, path) in gas {
        let text = std::fs::read(path).map_err(|e| Error::io("read", path, e))?;
        write_atomically(
            &dir.join(format!("{}.S", dispatch::symbol(public, *t))),
            &text,
        )?;
    }
    write_atomically(
        &dir.join(format!("{public}.h")),
        dispatch::header(f, public, abi).as_bytes(),
    )?;
    write_atomically(
        &dir.join(format!("{public}_dispatch.c")),
        dispatch::source(f, public, abi).as_bytes(),
    )?;
    Ok(dir)
}
