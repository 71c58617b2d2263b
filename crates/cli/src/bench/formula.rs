//! `bench --field F --formula NAME`: a whole formula three ways, side by side — optimized
//! as one function (ours), as C calling the field operations it is made of, each
//! optimized separately with the same budget (column `ops`), and as C under each
//! compiler.
//!
//! ```text
//!   formulas::generate ──▶ the formula's function ─┐
//!   formulas::library  ──▶ its field operations ────┴─▶ optimized like any --functions
//!                      └─▶ C driver + each operation's winner (.s) ──gcc──▶ column `ops`
//! ```
//!
//! The driver is run against the interpreter before it is measured, like every
//! baseline: it must compute the formula's exact limbs.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use cryptopt_emit::c;
use cryptopt_gen::formulas::{self, Library};
use cryptopt_measure::baseline::CompiledC;
use cryptopt_x86::Program;

use super::Benched;
use crate::args::BenchArgs;
use cryptopt_driver::checks::check_compiled;

use cryptopt_driver::bench::OPS_COLUMN as COLUMN;

/// The formula's function and the library its driver calls.
pub(super) struct FromOps {
    /// The formula's function (whose signature the driver has).
    pub function: cryptopt_ir::Function,
    pub library: Library,
}

impl FromOps {
    /// The driver's C: the C emitter's prelude and declarations of the operations, and
    /// the library's body under the formula's signature.
    fn source(&self) -> String {
        let f = &self.function;
        let sig =
            cryptopt_ir::Function::new(&self.library.symbol, f.params.clone(), f.returns.clone());
        let mut s = String::from(c::PRELUDE);
        for op in &self.library.ops {
            s.push_str(&c::prototype(op));
            s.push('\n');
        }
        s.push_str(&format!(
            "\n{} {{\n{}}}\n",
            c::signature(&sig),
            self.library.body
        ));
        s
    }
}

/// With `--field` (and `--formula`): the functions to optimize — the formula's, then
/// each operation its driver calls — or the one generated operation.
pub(super) fn resolve(args: &BenchArgs) -> Result<Option<(Vec<Benched>, Option<FromOps>)>> {
    let Some(spec) = args.field.spec()? else {
        return Ok(None);
    };
    if args.paper || !args.functions.is_empty() {
        bail!("--field cannot be used with --paper or --functions");
    }
    let representation = Some(spec.representation());
    let benched = |f: cryptopt_ir::Function| Benched {
        input: PathBuf::from(format!("the built-in field generator ({})", f.name)),
        f,
        representation: representation.clone(),
        vector: None,
    };
    let Some(name) = &args.field.formula else {
        let f = cryptopt_gen::fields::generate(&spec, args.field.op.parse()?)?;
        return Ok(Some((vec![benched(f)], None)));
    };
    let formula = name.parse()?;
    let (f, _) = formulas::generate(formula, &spec)?;
    let library = formulas::library(formula, &spec, &f)?;
    // With --repr ifma: the vector form first, then the formula in the field's own
    // representation and its operations, as without it.
    let mut out = Vec::new();
    if let Some(v) = args.field.vector()? {
        out.push(Benched {
            input: PathBuf::from(format!("the built-in field generator ({})", v.name)),
            f: v.expand(),
            representation: Some(format!(
                "{}, four at a time (AVX-512 IFMA)",
                spec.representation()
            )),
            vector: Some(v),
        });
    }
    out.push(benched(f.clone()));
    out.extend(library.ops.iter().cloned().map(benched));
    Ok(Some((
        out,
        Some(FromOps {
            function: f,
            library,
        }),
    )))
}

/// The driver compiled by gcc with each operation's winner (`winner(name)`), written as
/// GNU as text into `dir/ops/`, where they stay for the user to look at; run against the
/// interpreter before it is returned.
pub(super) fn build(
    from: &FromOps,
    winner: impl Fn(&str) -> Option<Program>,
    dir: &Path,
) -> Result<CompiledC> {
    let ops_dir = dir.join(COLUMN);
    std::fs::create_dir_all(&ops_dir)
        .with_context(|| format!("cannot create {}", ops_dir.display()))?;
    let mut files = Vec::new();
    for op in &from.library.ops {
        let Some(p) = winner(&op.name) else {
            bail!("{}: no optimized program for the driver", op.name);
        };
        let path = ops_dir.join(format!("{}.s", op.name));
        cryptopt_driver::files::write_atomically(&path, cryptopt_x86::print::gas(&p).as_bytes())?;
        files.push(path.to_string_lossy().into_owned());
    }
    let source = from.source();
    let driver = ops_dir.join(format!("{}.c", from.library.symbol));
    cryptopt_driver::files::write_atomically(&driver, source.as_bytes())?;
    let flags: Vec<&str> = files.iter().map(String::as_str).collect();
    let compiled = CompiledC::build(&source, &from.library.symbol, "gcc", &flags)?;
    check_compiled(
        &from.function,
        &compiled,
        cryptopt_codegen::Abi::SysV,
        "the formula from its optimized operations",
    )?;
    Ok(compiled)
}
