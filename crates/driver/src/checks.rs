//! The checks every emitted program passes before it is written or measured: natively
//! against the interpreter (every aliasing the options allow) and, where asked, the
//! equivalence checker, always against the *original* function. A failed check is an
//! [`Error::CheckFailed`] (the binary's exit code 1). This module is the one place that
//! decides what "checked" means; it never writes files and never changes a program.

use cryptopt_codegen::{Abi, Options};
use cryptopt_ir::Function;
use cryptopt_measure::diff::{pairings, Pairing, Runner};
use cryptopt_measure::ExecMem;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::{Error, Result};

/// Proves `program` equivalent to `f` under the aliasing `opts` allows; a program that
/// is not proved is a CheckFailed (exit 1) with the checker's report.
pub fn prove(f: &Function, program: &cryptopt_x86::Program, opts: &Options) -> Result<()> {
    let opts = cryptopt_verify::CheckOptions {
        aliasing: opts.aliasing,
        abi: opts.abi,
        ..Default::default()
    };
    match cryptopt_verify::check(f, program, opts)? {
        cryptopt_verify::Verdict::Equivalent => Ok(()),
        cryptopt_verify::Verdict::NotEquivalent(report) => {
            // One line: the first problem, shortened (`cryptopt check` prints them all).
            let first = report
                .problems
                .first()
                .map(|p| p.to_string())
                .unwrap_or_default();
            let first: String = first
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .chars()
                .take(400)
                .collect();
            Err(Error::CheckFailed(format!(
                "the equivalence checker did not prove {} ({} problem(s)); first: {first}",
                f.name,
                report.problems.len()
            )))
        }
    }
}

/// Runs `program` natively on random and edge-case inputs (and every aliasing the
/// options allow) and compares with the interpreter on `f`; an error is a CheckFailed.
/// First, the program must use only instructions its target has (code generation's
/// templates ask the target too; this is the check of what is written out, on every
/// path that writes, proved or not, so `prove` does not repeat it).
pub fn check_natively(
    f: &Function,
    program: &cryptopt_x86::Program,
    opts: &Options,
    seed: u64,
) -> Result<()> {
    if let Some((k, i, feature)) = opts.target.beyond(program).next() {
        return Err(Error::CheckFailed(format!(
            "the code for {}: instruction {k} `{i}` needs {feature}, which target {} does not have",
            f.name, opts.target
        )));
    }
    let mem = ExecMem::from_program(program)?;
    let alias = pairings(f, opts.aliasing);
    // SAFETY: the code was generated for f's signature and is loaded in `mem`.
    unsafe { check_code(f, mem.ptr(), opts.abi, &alias, 200, seed, "generated code") }
}

/// Runs the machine code at `ptr` against the interpreter on `f`'s edge cases and
/// `random` random inputs, under each aliasing in `alias` ([`Runner::check_at`]); a
/// difference (an output, or a write outside the output buffers) is a CheckFailed that
/// names `what`.
///
/// # Safety
/// `ptr` must be executable code with `f`'s signature under `abi` (it is called through
/// the ABI-checking trampoline).
pub unsafe fn check_code(
    f: &Function,
    ptr: *const u8,
    abi: Abi,
    alias: &[Pairing],
    random: usize,
    seed: u64,
    what: &str,
) -> Result<()> {
    let mut runner = Runner::with_abi(abi)?;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x5eed);
    let mut cases = cryptopt_ir::inputs::edge_cases(f);
    cases.extend((0..random).map(|_| cryptopt_ir::inputs::random(f, &mut rng)));
    for x in &cases {
        let want = cryptopt_ir::interp::run(f, x)?;
        for &a in alias {
            // SAFETY: the caller's promise.
            match unsafe { runner.check_at(ptr, f, x, &want, a) } {
                Err(cryptopt_measure::Error::Mismatch(m)) => {
                    return Err(Error::CheckFailed(format!(
                        "{what} differs from the interpreter: {m}"
                    )))
                }
                r => r?,
            }
        }
    }
    Ok(())
}

/// A compiled C function (a baseline, a formula's driver) must compute what the
/// interpreter computes on `f` before it is measured; `c` is loaded code of `f`'s
/// symbol, compiled from C with `f`'s signature.
pub fn check_compiled(
    f: &Function,
    c: &cryptopt_measure::baseline::CompiledC,
    abi: Abi,
    what: &str,
) -> Result<()> {
    check_baseline(f, c.ptr(), abi, what)
}

/// A C baseline (or any program taken as given) must compute what the interpreter
/// computes before it is measured.
pub(crate) fn check_baseline(f: &Function, ptr: *const u8, abi: Abi, what: &str) -> Result<()> {
    // SAFETY: `ptr` is compiled (or assembled) code with f's signature under `abi`.
    unsafe { check_code(f, ptr, abi, &[Pairing::Distinct], 100, 99, what) }
}

/// Someone else's program (`bench --compare`, a program read back): proved equivalent
/// to `f` under `aliasing` (no overlap for an external program), then run against the
/// interpreter (an error names it `what`), before it may be measured.
pub fn check_program(
    f: &Function,
    program: &cryptopt_x86::Program,
    aliasing: cryptopt_ir::Aliasing,
    what: &str,
) -> Result<()> {
    let opts = cryptopt_verify::CheckOptions {
        aliasing,
        ..Default::default()
    };
    if let cryptopt_verify::Verdict::NotEquivalent(r) = cryptopt_verify::check(f, program, opts)? {
        let first = r
            .problems
            .first()
            .map(|p| p.to_string())
            .unwrap_or_default();
        return Err(Error::CheckFailed(format!(
            "{what}: not proved equivalent to {}: {first}",
            f.name
        )));
    }
    let mem = ExecMem::from_program(program)?;
    check_baseline(f, mem.ptr(), opts.abi, what)
}

/// A program an earlier run wrote (`path`, the function `f.name` in it), read back and
/// checked again as if new (the file may have been edited since): run natively under
/// every aliasing `opts` allows, and proved.
pub fn reread(
    f: &Function,
    path: &std::path::Path,
    opts: &Options,
    seed: u64,
) -> Result<cryptopt_x86::Program> {
    let text = crate::files::read(path)?;
    let programs = cryptopt_x86::parse::parse(&text).map_err(|e| Error::In {
        context: path.display().to_string(),
        source: Box::new(e.into()),
    })?;
    let program = programs
        .into_iter()
        .find(|p| p.name == f.name)
        .ok_or_else(|| {
            Error::Unsupported(format!("{} has no function `{}`", path.display(), f.name))
        })?;
    check_natively(f, &program, opts, seed)?;
    prove(f, &program, opts)?;
    Ok(program)
}
