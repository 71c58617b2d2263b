//! Front end for LLVM IR text, as `clang -O1|-O2 -S -emit-llvm` prints it, for
//! straight-line functions over `uint64_t`, `unsigned __int128` and `_BitInt(N)`.
//!
//! ```text
//!   .ll text ──syntax::parse──▶ Func (instructions, one line each) ──build──▶ Function
//!                                                                   (wide: iN as limbs)
//! ```
//!
//! * `syntax`: a lexer and parser of the subset (function headers, instructions); what
//!   is outside it is still parsed far enough to be named;
//! * `build`: pointer arguments to word arrays (read ones are inputs, written ones
//!   outputs, outputs first as in every cryptopt function), values to limbs, each
//!   instruction to word operations;
//! * `wide`: integers of any width as 64-bit limbs — carry chains, schoolbook products,
//!   shifts across limbs, compares, selects — and `urem` by `2^n - c` as Crandall
//!   reduction with a bound analysis.
//!
//! Why a parser of the subset rather than LLVM's own (through `llvm-sys`/`inkwell`): the
//! subset is small (a few dozen instruction forms), a parser of it builds without LLVM's
//! development libraries, can be fuzzed, and names the line of everything it refuses;
//! LLVM's parser would accept far more than cryptopt can use and hand back a module to
//! walk anyway.
//!
//! Every error names the line and the reason; refused: branches, phi, calls other than
//! a few intrinsics, variable addresses, stack memory, floating point, vectors. This
//! module must never panic on any input.

mod build;
mod crandall;
mod syntax;
mod wide;

use cryptopt_ir::func::Function;
use cryptopt_ir::validate;

use crate::error::{Error, Result};

fn syntax_error(e: syntax::SyntaxError) -> Error {
    Error::Input {
        location: format!("line {}", e.line),
        message: e.error.to_string(),
    }
}

/// Names of the functions defined in an LLVM IR text.
pub fn function_names(text: &str) -> Result<Vec<String>> {
    Ok(syntax::parse(text)
        .map_err(syntax_error)?
        .into_iter()
        .map(|f| f.name)
        .collect())
}

/// Every function defined in the text, converted.
pub fn parse_functions(text: &str) -> Result<Vec<Function>> {
    syntax::parse(text)
        .map_err(syntax_error)?
        .iter()
        .map(convert)
        .collect()
}

/// The function `name` (`@name` in the text).
pub fn parse_function(text: &str, name: &str) -> Result<Function> {
    let funcs = syntax::parse(text).map_err(syntax_error)?;
    match funcs.iter().find(|f| f.name == name) {
        Some(f) => convert(f),
        None => Err(Error::NoSuchFunction {
            name: name.to_string(),
            suggestion: cryptopt_ir::names::did_you_mean(
                name,
                funcs.iter().map(|f| f.name.as_str()),
            ),
            available: if funcs.is_empty() {
                "no function definitions".to_string()
            } else {
                funcs
                    .iter()
                    .map(|f| f.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            },
        }),
    }
}

fn convert(f: &syntax::Func) -> Result<Function> {
    let out = build::build(f).map_err(|(line, message)| Error::Input {
        location: format!("line {line}: @{}", f.name),
        message,
    })?;
    validate::validate(&out, validate::Dialect::Fiat)?;
    Ok(out)
}
