//! The small commands: `list`, `interp`, `ir`, `emit-c`, `gen`, `codegen`, `check`.
//! Each reads its input, calls the library crates, and prints to `out`; none of them
//! writes a file except `codegen -o`, through [`write_atomically`].

use std::io::Write;

use anyhow::{anyhow, bail, Context, Result};
use cryptopt_codegen::{Candidate, Generator};
use cryptopt_frontend::fiat;
use cryptopt_ir::{interp, lower, text, Function};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::args::{
    CheckArgs, CodegenArgs, EmitCArgs, GenArgs, InterpArgs, IrArgs, ListArgs, OrderArg, Syntax,
};
use cryptopt_driver::checks::{check_natively, prove};
use cryptopt_driver::files::{load, load_all, read, write_atomically};
use cryptopt_driver::Error;

pub(crate) fn list(a: ListArgs, out: &mut dyn Write) -> Result<()> {
    for f in load_all(&a.input)? {
        writeln!(out, "{}", signature(&f))?;
    }
    Ok(())
}

pub(crate) fn interp(a: InterpArgs, out: &mut dyn Write) -> Result<()> {
    let f = load_input(&a.input, a.lowered)?;
    let inputs = parse_args(&f, &a.args)?;
    let outputs = interp::run(&f, &inputs)?;
    let obj: serde_json::Map<String, serde_json::Value> = f
        .returns
        .iter()
        .zip(outputs)
        .map(|(p, vals)| {
            let hex = vals
                .iter()
                .map(|v| serde_json::Value::String(format!("{v:#x}")))
                .collect();
            (p.name.clone(), serde_json::Value::Array(hex))
        })
        .collect();
    writeln!(out, "{}", serde_json::Value::Object(obj))?;
    Ok(())
}

pub(crate) fn ir(a: IrArgs, out: &mut dyn Write) -> Result<()> {
    let f = load_input(&a.input, a.lowered)?;
    write!(out, "{}", text::render(&f))?;
    Ok(())
}

pub(crate) fn emit_c(a: EmitCArgs, out: &mut dyn Write) -> Result<()> {
    let f = load_input(&a.input, false)?;
    write!(out, "{}", cryptopt_emit::c::emit(&f))?;
    Ok(())
}

pub(crate) fn gen(a: GenArgs, out: &mut dyn Write) -> Result<()> {
    if a.field.field.is_none() {
        bail!("gen needs --field (a preset or a prime)");
    }
    let (f, _) = a.field.function()?.expect("--field given");
    let algorithm: cryptopt_gen::fields::Algorithm = a.algorithm.parse()?;
    let Some(v) = cryptopt_gen::fields::variants(&f)?
        .into_iter()
        .find(|v| v.algorithm == algorithm)
    else {
        bail!("{}: no `{algorithm}` algorithm for this function", f.name);
    };
    let json = cryptopt_emit::to_fiat_json(&v.function)?;
    writeln!(
        out,
        "{}",
        serde_json::to_string_pretty(&serde_json::Value::Array(vec![json]))?
    )?;
    Ok(())
}

/// One candidate (random, or a named starting order): generated, run against the interpreter, proved, then printed.
pub(crate) fn codegen(a: CodegenArgs, out: &mut dyn Write) -> Result<()> {
    let f = load_input(&a.input, false)?;
    let g = lower::lower(&f)?;
    let opts = a.cg.options();
    let mut gen = Generator::new(&g, opts)?;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(a.seed);
    let cand = match a.order {
        OrderArg::Random => Candidate::random(&g, gen.deps(), &mut rng),
        OrderArg::First => Candidate::first(gen.deps()),
        OrderArg::DepthFirst => Candidate::depth_first(&g, gen.deps()),
        OrderArg::DemandDriven => Candidate::demand_driven(&g, gen.deps()),
        OrderArg::LowPressure => Candidate::low_pressure(&g, gen.deps()),
        OrderArg::DeepestFirst => Candidate::deepest_first(&g, gen.deps()),
    };
    gen.generate(&cand)?;
    let program = gen.program();
    check_natively(&f, &program, &opts, a.seed)?;
    prove(&f, &program, &opts)?;
    let object = a.object.object();
    let text = match a.syntax {
        Syntax::Nasm => cryptopt_x86::print::nasm_for(&program, &object),
        Syntax::Gas => cryptopt_x86::print::gas_for(&program, &object),
    };
    match a.out {
        Some(path) => write_atomically(&path, text.as_bytes())?,
        None => write!(out, "{text}")?,
    }
    Ok(())
}

/// Anyone's program against a function: `equivalent`, or the report and exit code 1.
pub(crate) fn check(a: CheckArgs, out: &mut dyn Write) -> Result<()> {
    let f = load_input(&a.input, false)?;
    let asm = read(&a.program)?;
    let opts = cryptopt_verify::CheckOptions {
        aliasing: a.aliasing.aliasing.policy(),
        stack_limit: a.max_stack,
        sweep: !a.no_sweep,
        target: a.target,
        abi: a.abi,
    };
    let src = cryptopt_verify::AsmSource {
        syntax: a.syntax.syntax(),
        symbol: a.symbol.as_deref(),
    };
    match cryptopt_verify::check_asm_in(&f, &asm, src, opts)
        .with_context(|| a.program.display().to_string())?
    {
        cryptopt_verify::Verdict::Equivalent => writeln!(out, "equivalent")?,
        cryptopt_verify::Verdict::NotEquivalent(report) => {
            // A program shown wrong (a counterexample, an unsafe access) is "not
            // equivalent"; one the checker could not prove equal, on no input found
            // different, is "not proved". Both fail the check.
            let (verdict, relation) = if report.refuted() {
                ("not equivalent", "not equivalent to")
            } else {
                ("not proved", "not proved equivalent to")
            };
            writeln!(out, "{verdict}\n{report}")?;
            out.flush()?;
            return Err(Error::CheckFailed(format!(
                "{} is {relation} {}",
                a.program.display(),
                f.name
            ))
            .into());
        }
    }
    Ok(())
}

/// `name(arg1: u64[4], arg2: u64[4]) -> (out1: u64[4])`
fn signature(f: &Function) -> String {
    let list = |ps: &[cryptopt_ir::Param]| {
        ps.iter()
            .map(|p| format!("{}: {}", p.name, p.shape()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!("{}({}) -> ({})", f.name, list(&f.params), list(&f.returns))
}

/// Parses `--args` against the function's signature.
fn parse_args(f: &Function, json: &str) -> Result<Vec<Vec<u128>>> {
    let v: serde_json::Value =
        serde_json::from_str(json).map_err(|e| anyhow!("--args is not valid JSON: {e}"))?;
    let items = v
        .as_array()
        .ok_or_else(|| anyhow!("--args must be a JSON array with one entry per argument"))?;
    if items.len() != f.params.len() {
        bail!(
            "--args has {} entries but `{}` takes {} argument(s): {}",
            items.len(),
            f.name,
            f.params.len(),
            f.params
                .iter()
                .map(|p| format!("{}: {}", p.name, p.shape()))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let mut inputs = Vec::with_capacity(items.len());
    for (p, item) in f.params.iter().zip(items) {
        let elems: Vec<&serde_json::Value> = match item {
            serde_json::Value::Array(a) => a.iter().collect(),
            other => vec![other],
        };
        if elems.len() != p.elems() {
            bail!(
                "--args: {} has {} element(s), expected {} ({})",
                p.name,
                elems.len(),
                p.elems(),
                p.shape()
            );
        }
        let mut vals = Vec::with_capacity(elems.len());
        for (i, e) in elems.into_iter().enumerate() {
            let s = e.as_str().ok_or_else(|| {
                anyhow!("--args: {}[{i}] must be a string such as \"0x1f\"", p.name)
            })?;
            let x = fiat::parse_literal(s).ok_or_else(|| {
                anyhow!(
                    "--args: {}[{i}] = {s:?} is not a hex (0x...) or decimal number",
                    p.name
                )
            })?;
            if p.ty.wrap(x) != x {
                bail!("--args: {}[{i}] = {s} does not fit {}", p.name, p.ty);
            }
            let (lo, hi) = cryptopt_ir::inputs::bounds(p, i);
            if x < lo || x > hi {
                eprintln!("cryptopt: warning: {}[{i}] = {s} is outside the declared bounds [{lo:#x}, {hi:#x}]", p.name);
            }
            vals.push(x);
        }
        inputs.push(vals);
    }
    Ok(inputs)
}

/// The function a command's `INPUT [--function NAME]` names, lowered if asked.
fn load_input(i: &crate::args::InputArgs, lowered: bool) -> Result<Function> {
    Ok(load(&i.input, i.function.as_deref(), lowered)?)
}
