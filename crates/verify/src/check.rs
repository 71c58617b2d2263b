//! The check: both sides into one graph, then the verdict.
//!
//! ```text
//!   Function ──ir::execute──────────▶ output nodes ─┐
//!                                                   ├─ same NodeId per output element?
//!   Program ──x86::Machine::execute──▶ memory ──────┘  + ABI rules (callee-saved, rsp,
//!                                                        writes, aliasing)
//! ```
//!
//! When an output differs, the program is run again with a trace of every value it
//! writes, and the report names the first instruction that writes a value the IR never
//! computes and that the differing output is built from.
//!
//! This module must never call [`Verdict::Equivalent`] anything it has not compared node
//! for node, output for output.

use cryptopt_ir::Function;
use cryptopt_x86::{Program, Reg};

use crate::abi::{Abi, ArgSlot};
use crate::error::{Error, Result};
use crate::graph::{Graph, Node, NodeId, Sym};
use crate::verdict::{
    CheckOptions, Counterexample, Divergence, Problem, Report, Verdict, SHOW_LIMIT,
};
use crate::x86::{Base, Machine};
use crate::{exact, ir, ir::IrResult, sweep, witness};

/// The program for function `name` among `programs`: the one with that name, or the
/// only one.
pub fn select_program<'p>(programs: &'p [Program], name: &str) -> Result<&'p Program> {
    // Mach-O's C symbols carry a leading `_`.
    let named = programs.iter().find(|p| p.name == name).or_else(|| {
        programs
            .iter()
            .find(|p| p.name.strip_prefix('_') == Some(name))
    });
    match (named, programs) {
        (Some(p), _) | (None, [p]) => Ok(p),
        _ => Err(no_such_program(programs, name)),
    }
}

/// "No function `name`", naming those there are.
fn no_such_program(programs: &[Program], name: &str) -> Error {
    Error::NoSuchProgram {
        name: name.to_string(),
        available: if programs.is_empty() {
            "no functions".to_string()
        } else {
            programs
                .iter()
                .map(|p| {
                    if p.name.is_empty() {
                        "(unnamed)"
                    } else {
                        p.name.as_str()
                    }
                })
                .collect::<Vec<_>>()
                .join(", ")
        },
    }
}

/// Parses assembly text (NASM, GNU as Intel or AT&T syntax, told by the file) and
/// checks the program named like `f` (or the only one) against `f`.
pub fn check_asm(f: &Function, asm: &str, opts: CheckOptions) -> Result<Verdict> {
    check_asm_in(f, asm, AsmSource::default(), opts)
}

/// Where in a file the program to check is, and how the file is written.
#[derive(Clone, Copy, Debug, Default)]
pub struct AsmSource<'a> {
    pub syntax: cryptopt_x86::parse::Syntax,
    /// The program's label, when it is not `f`'s name: then it must be in the file
    /// (no falling back to a file's only program).
    pub symbol: Option<&'a str>,
}

/// [`check_asm`] with the syntax and the program's label given.
pub fn check_asm_in(
    f: &Function,
    asm: &str,
    src: AsmSource<'_>,
    opts: CheckOptions,
) -> Result<Verdict> {
    let programs = cryptopt_x86::parse::parse_with(asm, src.syntax)?;
    let p = match src.symbol {
        Some(name) => programs
            .iter()
            .find(|p| p.name == name)
            .ok_or_else(|| no_such_program(&programs, name))?,
        None => select_program(&programs, &f.name)?,
    };
    check(f, p, opts)
}

/// Checks that `program` computes what `f` computes, for every input within `f`'s
/// declared bounds, under the aliasing `opts` allows, and keeps the calling convention
/// `opts.abi` (System V by default).
///
/// The graph's normal form follows how a program associates its carry chains, so a
/// program made from `f` with its sums reassociated ([`cryptopt_ir::reassoc`], the first
/// step of lowering) is first checked against that rewrite, which is then proved equal
/// to `f` ([`check_functions`]): equivalent by transitivity. The rewrite is only a hint:
/// both steps are this crate's own proofs. When that does not prove it, the program is
/// checked against `f` directly, and a failure reports that check.
pub fn check(f: &Function, program: &Program, opts: CheckOptions) -> Result<Verdict> {
    if let Some(target) = opts.target {
        let beyond: Vec<Problem> = target
            .beyond(program)
            .map(|(index, i, feature)| Problem::BeyondTarget {
                index,
                inst: i.to_string(),
                feature,
                target,
            })
            .collect();
        if !beyond.is_empty() {
            return Ok(Verdict::NotEquivalent(Report {
                function: f.name.clone(),
                program: program.name.clone(),
                problems: beyond,
                counterexample: None,
            }));
        }
    }
    let hint = cryptopt_ir::reassoc::share_sums(f);
    // The hint is tried by the normal form alone: the sweep, if needed, runs once, in
    // the direct check (against the hint too it would double the cost of a failure).
    let by_normal_form = CheckOptions {
        sweep: false,
        ..opts
    };
    if hint != *f
        && check_exact(&hint, program, by_normal_form, false)? == Verdict::Equivalent
        && check_functions(f, &hint)? == Verdict::Equivalent
    {
        return Ok(Verdict::Equivalent);
    }
    check_exact(f, program, opts, true)
}

/// [`check`] against `f` exactly as written. Without `explain`, a program that is not
/// proved gets a report with no problems listed (the hint's attempt only asks yes or no,
/// and a report's expressions and divergence trace cost a second run).
fn check_exact(
    f: &Function,
    program: &Program,
    opts: CheckOptions,
    explain: bool,
) -> Result<Verdict> {
    let abi = Abi::new(f, opts.abi)?;
    let mut g = Graph::new();
    let irr = ir::execute(&mut g, f)?;
    let fin = Machine::new(&mut g, f, &abi, opts.aliasing)
        .with_stack_limit(opts.stack_limit)
        .execute(program)?;
    let report = |problems: Vec<Problem>, counterexample: Option<Counterexample>| {
        Verdict::NotEquivalent(Report {
            function: f.name.clone(),
            program: program.name.clone(),
            problems,
            counterexample,
        })
    };
    if let Some(p) = fin.problem {
        return Ok(report(vec![p], None));
    }
    let mut problems = Vec::new();
    let mut differing: Vec<(String, NodeId, NodeId)> = Vec::new();
    for (k, arg) in abi.args.iter().enumerate() {
        let ArgSlot::Output { ret } = *arg else {
            continue;
        };
        let r = &f.returns[ret];
        let eb = r.elem_bytes() as i64;
        for i in 0..r.elems() {
            let name = abi.describe(f, k, i as i64 * eb);
            let want = irr.outputs[ret][i].ok_or_else(|| Error::Function {
                function: f.name.clone(),
                message: format!("{name} is never written by the IR (not verified?)"),
            })?;
            match fin.read(&mut g, Base::Arg(k as u8), i as i64 * eb, eb) {
                None => problems.push(Problem::OutputNotWritten { output: name }),
                Some(n) if n == want => {}
                Some(n) => differing.push((name, want, n)),
            }
        }
    }
    let rsp0 = g.sym(Sym::Rsp0, u64::MAX as u128, "rsp0");
    if fin.regs[Reg::Rsp.index()] != rsp0 {
        problems.push(Problem::StackPointer {
            found: g.show(fin.regs[Reg::Rsp.index()], SHOW_LIMIT),
        });
    }
    for &r in opts.abi.callee_saved() {
        let init = g.sym(Sym::Init(r), u64::MAX as u128, format!("{r}0"));
        if fin.regs[r.index()] != init {
            problems.push(Problem::CalleeSaved {
                reg: r,
                found: g.show(fin.regs[r.index()], SHOW_LIMIT),
            });
        }
    }
    for reg in opts.abi.callee_saved_xmm() {
        // The low 128 bits (lanes 0 and 1); the upper lanes are volatile.
        for lane in 0..2u8 {
            let init = g.sym(
                Sym::InitVec { reg, lane },
                u64::MAX as u128,
                format!("ymm{reg}0[{lane}]"),
            );
            let now = fin.vregs[reg as usize][lane as usize];
            if now != init {
                problems.push(Problem::CalleeSavedXmm {
                    reg,
                    found: g.show(now, SHOW_LIMIT),
                });
                break;
            }
        }
    }
    if differing.is_empty() && problems.is_empty() {
        return Ok(Verdict::Equivalent);
    }
    if problems.is_empty() && opts.sweep {
        // The exact-integer form first (cheap, association-free), then the sweep for
        // what it leaves.
        let pairs: Vec<(NodeId, NodeId)> = differing.iter().map(|d| (d.1, d.2)).collect();
        let proved = exact::prove_pairs(&g, &pairs);
        let left: Vec<(NodeId, NodeId)> = pairs
            .iter()
            .zip(&proved)
            .filter(|(_, &p)| !p)
            .map(|(&pair, _)| pair)
            .collect();
        if left.is_empty() || sweep::prove_pairs(&g, &left, sweep::Limits::default()).0 {
            return Ok(Verdict::Equivalent);
        }
    }
    if !explain {
        return Ok(report(Vec::new(), None));
    }
    let counterexample = counterexample(&g, f, &differing);
    let mut first = true;
    let mut diffs = Vec::new();
    for (output, want, found) in differing {
        let divergence = if first {
            divergence(&mut g, f, &abi, opts, program, &irr, found)?
        } else {
            None
        };
        first = false;
        let (x, y) = g.innermost_difference(want, found);
        let innermost =
            ((x, y) != (want, found)).then(|| (g.show(x, SHOW_LIMIT), g.show(y, SHOW_LIMIT)));
        diffs.push(Problem::OutputDiffers {
            output,
            expected: g.show(want, SHOW_LIMIT),
            found: g.show(found, SHOW_LIMIT),
            innermost,
            divergence,
        });
    }
    diffs.extend(problems);
    Ok(report(diffs, counterexample))
}

/// Inputs on which some of the `differing` outputs (name, the IR's node, the program's)
/// have other values than the IR's, if the search finds any.
fn counterexample(
    g: &Graph,
    f: &Function,
    differing: &[(String, NodeId, NodeId)],
) -> Option<Counterexample> {
    let pairs: Vec<(NodeId, NodeId)> = differing.iter().map(|d| (d.1, d.2)).collect();
    let found = witness::search(g, &pairs, witness::VECTORS)?;
    let mut args: Vec<Vec<u128>> = f.params.iter().map(|p| vec![0; p.elems()]).collect();
    for &(n, v) in &found.leaves {
        if let Node::Sym(Sym::Input { param, index }) = g.node(n) {
            args[*param as usize][*index as usize] = v;
        }
    }
    let reproducible = found
        .leaves
        .iter()
        .all(|&(n, _)| matches!(g.node(n), Node::Sym(Sym::Input { .. })));
    Some(Counterexample {
        args,
        reproducible,
        inputs: {
            // The IR's inputs in parameter order, then the program's other leaves.
            let mut leaves = found.leaves.clone();
            leaves.sort_by_key(|&(n, _)| match g.node(n) {
                Node::Sym(Sym::Input { param, index }) => (0, *param, *index),
                _ => (1, n.0, 0),
            });
            leaves
                .iter()
                .map(|&(n, v)| (g.show(n, SHOW_LIMIT), v))
                .collect()
        },
        outputs: differing
            .iter()
            .zip(&found.values)
            .filter(|(_, (a, b))| a != b)
            .map(|(d, &(a, b))| (d.0.clone(), a, b))
            .collect(),
    })
}

/// Checks that `g` computes what `f` computes, for every input within `f`'s declared
/// bounds: both functions executed into one graph, output for output. They must have the
/// same signature and bounds. Used to prove a rewritten function (a code generator's
/// reassociation, say) equal to the one it was made from, so that a program proved
/// against the rewrite is proved against the original by transitivity.
pub fn check_functions(f: &Function, g: &Function) -> Result<Verdict> {
    if f.params != g.params || f.returns != g.returns {
        return Err(Error::Function {
            function: g.name.clone(),
            message: format!("its signature or bounds differ from `{}`'s", f.name),
        });
    }
    let mut gr = Graph::keeping_wide_sums();
    let a = ir::execute(&mut gr, f)?;
    let b = ir::execute(&mut gr, g)?;
    let mut problems = Vec::new();
    let mut differing = Vec::new();
    for (ret, r) in f.returns.iter().enumerate() {
        for i in 0..r.elems() {
            let output = format!("{}[{i}]", r.name);
            match (a.outputs[ret][i], b.outputs[ret][i]) {
                (Some(x), Some(y)) if x == y => {}
                (Some(x), Some(y)) => {
                    differing.push((output.clone(), x, y));
                    problems.push(Problem::OutputDiffers {
                        output,
                        expected: gr.show(x, SHOW_LIMIT),
                        found: gr.show(y, SHOW_LIMIT),
                        innermost: None,
                        divergence: None,
                    })
                }
                _ => problems.push(Problem::OutputNotWritten { output }),
            }
        }
    }
    Ok(if problems.is_empty() {
        Verdict::Equivalent
    } else {
        Verdict::NotEquivalent(Report {
            function: f.name.clone(),
            program: g.name.clone(),
            problems,
            counterexample: counterexample(&gr, f, &differing),
        })
    })
}

/// Runs the program again with a trace and finds the first instruction that writes a
/// node in the cone of `found` that the IR side does not contain.
fn divergence(
    g: &mut Graph,
    f: &Function,
    abi: &Abi,
    opts: CheckOptions,
    program: &Program,
    irr: &IrResult,
    found: NodeId,
) -> Result<Option<Divergence>> {
    let roots = irr
        .values
        .iter()
        .flatten()
        .chain(irr.outputs.iter().flatten().flatten())
        .copied();
    let ir_mark = g.reachable(roots);
    let mut m = Machine::new(g, f, abi, opts.aliasing).with_stack_limit(opts.stack_limit);
    m.trace = Some(Vec::new());
    let trace = m.execute(program)?.trace;
    let cone = g.reachable([found]);
    for (index, n) in trace {
        let in_ir = ir_mark.get(n.index()).copied().unwrap_or(false);
        if cone.get(n.index()).copied().unwrap_or(false) && !in_ir {
            return Ok(Some(Divergence {
                index,
                inst: cryptopt_x86::print::inst_in(&program.insts[index], &program.data),
                value: g.show(n, SHOW_LIMIT),
            }));
        }
    }
    Ok(None)
}
