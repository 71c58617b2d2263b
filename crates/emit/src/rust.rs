//! `optimize --emit rust`: the proved program as a Rust module, `DIR/<function>/<name>.rs`,
//! beside the `.asm`, `.S` and `.h` of the same run.
//!
//! ```text
//!  //! header (the .S file's lines: proof, features, bounds, memory contract)
//!  global_asm!(ELF)  global_asm!(Mach-O)  global_asm!(COFF)   one per cfg, the .S text
//!  mod sys { unsafe extern "sysv64" { fn <name>(…); } }      the C prototype's types
//!                                                   ("win64" for --abi win64)
//!  pub fn <name>(&mut [u64; N], &[u64; M], …)                 safe: checks CPU features
//!  pub unsafe fn <name>_raw(*mut u64, *const u64, …)          the aliasing contract
//!  pub fn <name>_supported() -> bool                          the CPU check alone
//!  #[cfg(test)] known answers from the reference interpreter
//! ```
//!
//! The extern declaration has the types of [`c::prototype_for`] (one home: the C header and
//! the Rust module declare the same function), the inputs of the tests are
//! [`cryptopt_ir::inputs`]' and their outputs the interpreter's. This module only names and
//! writes text; it never makes or changes a program.

use std::fmt::Write;

use cryptopt_ir::{inputs, interp, Aliasing, Function, Param};
use cryptopt_x86::object::{Format, Object};
use cryptopt_x86::{Abi, Feature, Mem, Operand, Program, Reg};

use crate::c;
use crate::header::{aliasing_contract, argument};
use crate::ident::{is_rust_identifier, RUST_KEYWORDS as KEYWORDS};
use crate::{Error, Result};

/// How the module is written: the run's choices besides the program.
pub struct How<'a> {
    /// The `.S` file's object conventions (symbol, visibility); each block gets its own
    /// format.
    pub object: &'a Object,
    /// The calling convention the program was made for.
    pub abi: Abi,
    /// Which outputs callers may pass as the same memory as which inputs.
    pub aliasing: Aliasing,
    /// Whether the program may use the red zone (then no COFF block: Windows has none).
    pub red_zone: bool,
    /// How the limbs stand for a field element, where known.
    pub representation: Option<&'a str>,
    /// Seed of the random known-answer inputs.
    pub seed: u64,
}

/// Random known-answer cases, after the edge cases of [`inputs::edge_cases`].
const RANDOM_CASES: usize = 4;

/// Refuses, in one line, a function whose name Rust cannot take (`--symbol`, or the
/// input's name): called before the search, so that a long run is not lost to it.
pub fn check(f: &Function, object: &Object) -> Result<()> {
    let name = object.symbol.as_deref().unwrap_or(&f.name);
    if !is_rust_identifier(name) {
        return Err(Error::RustName {
            name: name.to_string(),
        });
    }
    for p in f.returns.iter().chain(&f.params) {
        rust_type(p)?;
    }
    Ok(())
}

/// The module's file name: `<name>.rs`, the name the assembly defines.
pub fn file_name(p: &Program, object: &Object) -> String {
    format!("{}.rs", object.c_name(p))
}

/// The calling convention's name in `extern "…"`: the one the program is made for
/// (`--abi`), explicit so that it holds on every OS.
fn abi_keyword(abi: Abi) -> &'static str {
    match abi {
        Abi::SysV => "sysv64",
        Abi::Win64 => "win64",
    }
}

/// Rust's name of a CPU feature in `is_x86_feature_detected!` and `target_feature`:
/// CPUID's, lower case (`bmi1`, `bmi2`, `adx`, `avx2`).
fn rust_feature(f: Feature) -> String {
    f.name().to_ascii_lowercase()
}

/// The Rust type of an argument element: the C prototype's ([`c::interface_type`]),
/// spelled in Rust.
fn rust_type(p: &Param) -> Result<&'static str> {
    Ok(match c::interface_type(p.ty) {
        "fiat_uint1" | "uint8_t" => "u8",
        "uint16_t" => "u16",
        "uint32_t" => "u32",
        "uint64_t" => "u64",
        "fiat_uint128" => "u128",
        other => {
            return Err(Error::RustType {
                param: p.name.clone(),
                c_type: other,
            })
        }
    })
}

/// One argument as the Rust text sees it.
struct Arg<'a> {
    p: &'a Param,
    /// The C prototype's name, with `_` appended where it is a Rust keyword.
    name: String,
    ty: &'static str,
    out: bool,
}

impl Arg<'_> {
    /// The safe wrapper's parameter type.
    fn safe_type(&self) -> String {
        match (self.p.len, self.out) {
            (Some(n), true) => format!("&mut [{}; {n}]", self.ty),
            (Some(n), false) => format!("&[{}; {n}]", self.ty),
            (None, true) => format!("&mut {}", self.ty),
            (None, false) => self.ty.to_string(),
        }
    }

    /// The raw (and extern) parameter type.
    fn raw_type(&self) -> String {
        match (self.p.len, self.out) {
            (_, true) => format!("*mut {}", self.ty),
            (Some(_), false) => format!("*const {}", self.ty),
            (None, false) => self.ty.to_string(),
        }
    }

    /// The safe wrapper's argument passed on to the raw function.
    fn to_raw(&self) -> String {
        match (self.p.len, self.out) {
            (Some(_), true) => format!("{}.as_mut_ptr()", self.name),
            (Some(_), false) => format!("{}.as_ptr()", self.name),
            (None, true) => format!("{} as *mut {}", self.name, self.ty),
            (None, false) => self.name.clone(),
        }
    }

    /// A value of this argument as a Rust literal: `[0x1, 0x2]` or `0x1`.
    fn literal(&self, v: &[u128]) -> String {
        let items: Vec<String> = v.iter().map(|x| format!("{x:#x}")).collect();
        match self.p.len {
            Some(_) => format!("[{}]", items.join(", ")),
            None => items.join(""),
        }
    }

    /// `[0u64; 4]` or `0u8`: a fresh output.
    fn zero(&self) -> String {
        match self.p.len {
            Some(n) => format!("[0{}; {n}]", self.ty),
            None => format!("0{}", self.ty),
        }
    }
}

/// The arguments in the prototype's order: outputs, then inputs.
fn args(f: &Function) -> Result<Vec<Arg<'_>>> {
    let names = c::argument_names(f);
    let mut taken: Vec<String> = Vec::new();
    let all = f.returns.iter().map(|p| (p, true));
    let all = all.chain(f.params.iter().map(|p| (p, false)));
    all.zip(names)
        .map(|((p, out), name)| {
            let mut name = name;
            while KEYWORDS.contains(&name.as_str()) || taken.contains(&name) {
                name.push('_');
            }
            taken.push(name.clone());
            Ok(Arg {
                p,
                name,
                ty: rust_type(p)?,
                out,
            })
        })
        .collect()
}

/// What every part of the module is written from.
struct Module<'a> {
    f: &'a Function,
    p: &'a Program,
    how: &'a How<'a>,
    /// The symbol and the Rust functions' stem.
    name: &'a str,
    args: Vec<Arg<'a>>,
    /// The convention's name in `extern "…"`.
    abi: &'static str,
    features: Vec<Feature>,
    /// The features in words (`BMI2 + ADX`).
    needs: String,
    /// The aliasing contract in words.
    contract: &'static str,
    /// Clippy's allowance for a long parameter list, where the functions have one.
    many: &'static str,
}

/// The whole module: `header` (the written program's provenance lines) on top, then the
/// blocks of the module doc's picture. Refuses what [`check`] refuses.
pub fn module(f: &Function, p: &Program, header: &[String], how: &How<'_>) -> Result<String> {
    check(f, how.object)?;
    let features = p.required_features();
    let needs = if features.is_empty() {
        "nothing beyond baseline x86-64".to_string()
    } else {
        features
            .iter()
            .map(|x| x.name())
            .collect::<Vec<_>>()
            .join(" + ")
    };
    let args = args(f)?;
    let m = Module {
        f,
        p,
        how,
        name: how.object.c_name(p),
        many: if args.len() > 7 {
            "#[allow(clippy::too_many_arguments)]\n"
        } else {
            ""
        },
        args,
        abi: abi_keyword(how.abi),
        features,
        needs,
        contract: aliasing_contract(how.aliasing),
    };
    let mut s = String::new();
    m.head(&mut s, header);
    m.blocks(&mut s);
    m.extern_block(&mut s);
    m.supported(&mut s);
    m.safe_wrapper(&mut s);
    m.raw_function(&mut s);
    s.push_str(&tests(
        f,
        m.name,
        &m.args,
        how,
        &m.needs,
        !m.features.is_empty(),
    )?);
    Ok(s)
}

impl Module<'_> {
    /// The parameters of the raw function and the extern declaration.
    fn raw_params(&self) -> String {
        self.args
            .iter()
            .map(|a| format!("{}: {}", a.name, a.raw_type()))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The header: the `.S` file's lines, and how to use the module.
    fn head(&self, s: &mut String, header: &[String]) {
        let Module {
            f,
            name,
            abi,
            contract,
            ..
        } = self;
        // The header: the .S file's lines, and how to use the module.
        let _ = writeln!(s, "//! `{name}`: x86-64 code proved equal to `{}`.", f.name);
        s.push_str("//!\n//! ```text\n");
        for l in header {
            let _ = writeln!(s, "//! {l}");
        }
        s.push_str("//! ```\n//!\n");
        s.push_str(&wrap(
            "//! ",
            "//! ",
            &format!(
                "The program is the `.S` file's beside this one, in `global_asm!` for the object \
             format of the target (ELF, Mach-O or COFF), called with the calling convention it \
             was made for (`extern \"{abi}\"`) on every OS. [`{name}`] is the safe entry point (it \
             checks the CPU features first); [`{name}_raw`] takes raw pointers, for buffers \
             that share memory as the contract allows ({contract}) and for callers that check \
             the CPU themselves. [`{name}_supported`] is the CPU check (it needs `std`)."
            ),
        ));
        let _ = write!(
            s,
            "\
//!
//! The symbol `{name}` is global: link this module into a program once.
//!
//! Regenerate with `cryptopt optimize … --emit rust`; do not edit.

// Written by a tool: rustfmt leaves it as it is.
#![cfg_attr(rustfmt, rustfmt::skip)]

#[cfg(not(target_arch = \"x86_64\"))]
compile_error!(\"{name}.rs is x86-64 code\");
"
        );
    }

    /// The program, once per object format.
    fn blocks(&self, s: &mut String) {
        let Module { p, how, name, .. } = self;
        // The program, once per object format.
        let blocks = [
            (
                "all(target_arch = \"x86_64\", not(any(target_vendor = \"apple\", windows, target_os = \"uefi\")))",
                Format::Elf,
                "ELF (Linux, the BSDs)",
            ),
            (
                "all(target_arch = \"x86_64\", target_vendor = \"apple\")",
                Format::MachO,
                "Mach-O (macOS)",
            ),
            (
                "all(target_arch = \"x86_64\", any(windows, target_os = \"uefi\"))",
                Format::Coff,
                "COFF (Windows)",
            ),
        ];
        for (cfg, format, what) in blocks {
            let _ = writeln!(s, "\n// {what}.\n#[cfg({cfg})]");
            if format == Format::Coff && how.red_zone && below_stack_pointer(p) {
                let _ = writeln!(
                    s,
                    "compile_error!(\"{name} was made with System V's red zone (it keeps values below rsp), which Windows does not preserve; make it with --no-red-zone to use it on Windows\");"
                );
                continue;
            }
            let object = Object {
                format,
                ..how.object.clone()
            };
            let _ = writeln!(
                s,
                "core::arch::global_asm!({});",
                raw_string(&asm_text(p, &object))
            );
        }
    }

    /// The extern declaration.
    fn extern_block(&self, s: &mut String) {
        let Module { name, abi, .. } = self;
        // The extern declaration.
        let _ = write!(
            s,
            "
/// The program's symbol, with the C prototype's types.
mod sys {{
    unsafe extern \"{abi}\" {{
        pub fn {name}({});
    }}
}}
",
            self.raw_params()
        );
    }

    /// The CPU check.
    fn supported(&self, s: &mut String) {
        let Module {
            name,
            features,
            needs,
            ..
        } = self;
        // The CPU check.
        let detected: Vec<String> = features
            .iter()
            .map(|&x| format!("std::is_x86_feature_detected!(\"{}\")", rust_feature(x)))
            .collect();
        let enabled: Vec<String> = features
            .iter()
            .map(|&x| format!("target_feature = \"{}\"", rust_feature(x)))
            .collect();
        let body = if features.is_empty() {
            "true".to_string()
        } else {
            let detected = match &detected[..] {
                [one] => one.clone(),
                _ => format!("({})", detected.join(" && ")),
            };
            format!("cfg!(all({}))\n        || {detected}", enabled.join(", "))
        };
        let _ = write!(
            s,
            "
/// Whether this CPU can run [`{name}`]: it needs {needs}.
#[inline]
pub fn {name}_supported() -> bool {{
    {body}
}}
"
        );
    }

    /// The safe wrapper.
    fn safe_wrapper(&self, s: &mut String) {
        let Module {
            f,
            how,
            name,
            args,
            features,
            needs,
            many,
            ..
        } = self;
        // The safe wrapper.
        let docs: String = args
            .iter()
            .map(|a| {
                let role = if a.out { "output" } else { "input" };
                let shape = argument(a.p);
                let shape = shape.strip_prefix(&a.p.name).unwrap_or(&shape).trim();
                format!("/// * `{}`: {role}, `{shape}`\n", a.name)
            })
            .collect();
        let data = how.representation.map_or(String::new(), |r| {
            format!("///\n/// The data:\n///\n/// ```text\n/// {r}\n/// ```\n")
        });
        let safe_params: Vec<String> = args
            .iter()
            .map(|a| format!("{}: {}", a.name, a.safe_type()))
            .collect();
        let to_raw: Vec<String> = args.iter().map(Arg::to_raw).collect();
        let (panics, assert) = if features.is_empty() {
            (String::new(), String::new())
        } else {
            (
                format!(
                    "///\n/// # Panics\n///\n/// If this CPU lacks {needs} ([`{name}_supported`]).\n"
                ),
                format!("    assert!({name}_supported(), \"{name} needs a CPU with {needs}\");\n"),
            )
        };
        let _ = write!(
            s,
            "
/// `{fname}` by the proved program.
///
{docs}{data}///
{proved}{panics}#[inline]
{many}pub fn {name}({safe}) {{
{assert}    // SAFETY: every array has the length the program reads or writes, a `&mut` never
    // overlaps another reference, and the CPU has the features the program needs.
    unsafe {{ sys::{name}({to_raw}) }}
}}
",
            fname = f.name,
            proved = wrap(
                "/// ",
                "/// ",
                &format!(
                    "The program is proved equal to `{}` for inputs within these bounds; other \
                 inputs give unspecified values (never undefined behaviour: the code is \
                 straight-line and touches only these arguments and its own stack). Rust's \
                 borrow rules make the outputs and the inputs disjoint, which every aliasing \
                 contract allows.",
                    f.name
                )
            ),
            safe = safe_params.join(", "),
            to_raw = to_raw.join(", "),
        );
    }

    /// The raw function.
    fn raw_function(&self, s: &mut String) {
        let Module {
            how,
            name,
            args,
            features,
            needs,
            contract,
            many,
            ..
        } = self;
        // The raw function.
        let valid: String = args
            .iter()
            .filter(|a| a.out || a.p.len.is_some())
            .map(|a| {
                let (how_, n) = match (a.out, a.p.len) {
                    (true, Some(n)) => ("writes", n),
                    (true, None) => ("writes", 1),
                    (false, n) => ("reads", n.unwrap_or(1)),
                };
                let what = if n == 1 {
                    format!("one `{}`", a.ty)
                } else {
                    format!("{n} `{}`s", a.ty)
                };
                format!("/// * `{}` must be valid for {how_} of {what};\n", a.name)
            })
            .collect();
        let (cpu, end) = if features.is_empty() {
            (String::new(), ".")
        } else {
            (
                format!("/// * the CPU must have {needs} ([`{name}_supported`]).\n"),
                ";",
            )
        };
        let _ = write!(
            s,
            "
/// [`{name}`] on raw pointers, without the CPU check.
///
/// # Safety
///
{valid}{memory}{cpu}#[inline]
{many}pub unsafe fn {name}_raw({raw}) {{
    // SAFETY: the caller keeps the contract above, which is the program's.
    unsafe {{ sys::{name}({names}) }}
}}
",
            raw = self.raw_params(),
            names = args
                .iter()
                .map(|a| a.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            memory = wrap(
                "/// * ",
                "///   ",
                &match how.aliasing {
                    cryptopt_ir::Aliasing::None => {
                        format!("memory: {contract}; no two outputs overlap{end}")
                    }
                    _ => format!(
                        "memory: {contract} (the very same address, for buffers of the same shape; \
                     never a partial overlap); no two outputs overlap{end}"
                    ),
                }
            ),
        );
    }
}

/// The known-answer tests: edge cases and seeded random inputs within the bounds, with
/// the interpreter's outputs; in place too where the contract lets `out1` be `arg1`.
fn tests(
    f: &Function,
    name: &str,
    args: &[Arg<'_>],
    how: &How<'_>,
    needs: &str,
    check_cpu: bool,
) -> Result<String> {
    use rand::SeedableRng;
    let mut cases: Vec<(String, Vec<Vec<u128>>)> = inputs::edge_cases(f)
        .into_iter()
        .enumerate()
        .map(|(k, i)| (format!("edge case {k}"), i))
        .collect();
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(how.seed);
    for k in 0..RANDOM_CASES {
        cases.push((
            format!("random {k}, seed {}", how.seed),
            inputs::random(f, &mut rng),
        ));
    }
    let (outs, ins): (Vec<&Arg<'_>>, Vec<&Arg<'_>>) = args.iter().partition(|a| a.out);
    let skip = |test: &str| {
        if check_cpu {
            format!(
                "        if !super::{name}_supported() {{\n            eprintln!(\"SKIPPED {test}: this CPU lacks {needs}\");\n            return;\n        }}\n"
            )
        } else {
            String::new()
        }
    };
    // out1 and arg1 one buffer, where the contract allows it and their shapes agree.
    let in_place = match (outs.first(), ins.first()) {
        (Some(o), Some(i))
            if how.aliasing.may_alias(0, 0)
                && o.p.len.is_some()
                && o.p.len == i.p.len
                && o.ty == i.ty =>
        {
            Some((o.name.clone(), i.name.clone()))
        }
        _ => None,
    };

    let mut s = String::new();
    let _ = write!(
        s,
        "
#[cfg(test)]
mod tests {{
    /// Inputs within the bounds (edge cases, then random ones) and the outputs cryptopt's
    /// reference interpreter computes for them.
    #[test]
    fn known_answers() {{
{skip}",
        skip = skip("known_answers"),
    );
    let mut in_place_body = String::new();
    for (label, input) in &cases {
        let output = interp::run(f, input).map_err(|source| Error::Interp {
            function: f.name.clone(),
            source,
        })?;
        // The safe wrapper.
        let _ = writeln!(s, "        // {label}");
        for (k, o) in outs.iter().enumerate() {
            let _ = writeln!(s, "        let mut o{k} = {};", o.zero());
        }
        let call: Vec<String> = (0..outs.len())
            .map(|k| format!("&mut o{k}"))
            .chain(ins.iter().zip(input).map(|(a, v)| match a.p.len {
                Some(_) => format!("&{}", a.literal(v)),
                None => a.literal(v),
            }))
            .collect();
        let _ = writeln!(s, "        super::{name}({});", call.join(", "));
        for (k, (o, v)) in outs.iter().zip(&output).enumerate() {
            let _ = writeln!(
                s,
                "        assert_eq!(o{k}, {}, \"{label}: {}\");",
                o.literal(v),
                o.name
            );
        }
        // The raw function, out1 in arg1's buffer.
        if in_place.is_some() {
            let b = &mut in_place_body;
            let _ = writeln!(b, "        // {label}");
            let _ = writeln!(
                b,
                "        let mut o0: {} = {};",
                ins[0].safe_type().trim_start_matches('&'),
                ins[0].literal(&input[0])
            );
            for (k, o) in outs.iter().enumerate().skip(1) {
                let _ = writeln!(b, "        let mut o{k} = {};", o.zero());
            }
            let _ = writeln!(b, "        let shared = o0.as_mut_ptr();");
            let call: Vec<String> =
                (0..outs.len())
                    .map(|k| match (k, outs[k].p.len) {
                        (0, _) => "shared".to_string(),
                        (_, Some(_)) => format!("o{k}.as_mut_ptr()"),
                        (_, None) => format!("&mut o{k} as *mut {}", outs[k].ty),
                    })
                    .chain(ins.iter().zip(input).enumerate().map(|(j, (a, v))| {
                        match (j, a.p.len) {
                            (0, _) => "shared".to_string(),
                            (_, Some(_)) => format!("{}.as_ptr()", a.literal(v)),
                            (_, None) => a.literal(v),
                        }
                    }))
                    .collect();
            let _ = writeln!(
                b,
                "        // SAFETY: every buffer has its length; out1 is arg1, as the contract allows.\n        unsafe {{ super::{name}_raw({}) }}",
                call.join(", ")
            );
            for (k, (o, v)) in outs.iter().zip(&output).enumerate() {
                let _ = writeln!(
                    b,
                    "        assert_eq!(o{k}, {}, \"{label}: {}\");",
                    o.literal(v),
                    o.name
                );
            }
        }
    }
    s.push_str("    }\n");
    if let Some((o, i)) = in_place {
        let _ = write!(
            s,
            "
    /// The same cases through `{name}_raw` with `{o}` and `{i}` one buffer.
    #[test]
    fn known_answers_in_place() {{
{skip}{in_place_body}    }}
",
            skip = skip("known_answers_in_place"),
        );
    }
    s.push_str("}\n");
    Ok(s)
}

/// `text` as lines of at most 92 characters, the first after `first`, the others after
/// `rest` (a doc comment's paragraph or list item).
fn wrap(first: &str, rest: &str, text: &str) -> String {
    let mut out = String::new();
    let mut line = first.to_string();
    let mut empty = true;
    for word in text.split_whitespace() {
        if !empty && line.chars().count() + 1 + word.chars().count() > 92 {
            out.push_str(line.trim_end());
            out.push('\n');
            line = rest.to_string();
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(word);
        empty = false;
    }
    out.push_str(line.trim_end());
    out.push('\n');
    out
}

/// Whether the program addresses memory below the stack pointer (System V's red zone):
/// a negative displacement from rsp, or from rbp (a saved frame pointer is rsp's value
/// when the frame is made).
fn below_stack_pointer(p: &Program) -> bool {
    p.insts.iter().any(|i| {
        i.operands().iter().any(|o| {
            matches!(o, Operand::Mem(Mem { base: Some(Reg::Rsp | Reg::Rbp), disp, .. }) if *disp < 0)
        })
    })
}

/// The GNU as text of `p` for `object`, as `global_asm!` takes it: Intel syntax is already
/// its default (`.intel_syntax` dropped), rustc writes the non-executable-stack note itself
/// (ELF's `.note.GNU-stack` dropped), braces doubled (they are the template's), and the
/// assembler left in `.text`.
fn asm_text(p: &Program, object: &Object) -> String {
    let text = cryptopt_x86::print::gas_for(p, object);
    let kept: Vec<&str> = text
        .lines()
        .filter(|l| {
            let l = l.trim();
            !l.starts_with(".intel_syntax") && !l.starts_with(".section .note.GNU-stack")
        })
        .collect();
    let mut out = String::from("\n");
    for l in &kept {
        out.push_str(&l.replace('{', "{{").replace('}', "}}"));
        out.push('\n');
    }
    let last_section = kept
        .iter()
        .map(|l| l.trim())
        .rfind(|l| *l == ".text" || l.starts_with(".section") || l.starts_with(".data"));
    if last_section != Some(".text") {
        out.push_str(".text\n");
    }
    out
}

/// `text` as a raw string literal: `r#"…"#` with enough `#`s.
fn raw_string(text: &str) -> String {
    let mut longest = 0;
    for (k, _) in text.match_indices('"') {
        let run = text[k + 1..].chars().take_while(|&c| c == '#').count();
        longest = longest.max(run);
    }
    let hashes = "#".repeat(longest + 1);
    format!("r{hashes}\"{text}\"{hashes}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_strings_take_any_text() {
        assert_eq!(raw_string("a"), "r#\"a\"#");
        assert_eq!(
            raw_string(".section .rdata,\"dr\""),
            "r#\".section .rdata,\"dr\"\"#"
        );
        assert_eq!(raw_string("x\"## y"), "r###\"x\"## y\"###");
    }

    #[test]
    fn feature_names_are_rusts() {
        let names: Vec<String> = Feature::ALL.into_iter().map(rust_feature).collect();
        assert_eq!(names, ["bmi1", "bmi2", "adx", "avx2", "avx512ifma"]);
    }

    #[test]
    fn names_rust_cannot_take_are_refused_in_one_line() {
        let f = cryptopt_gen::fields::builtin("fiat_p256_mul")
            .expect("a preset")
            .expect("generates");
        assert!(check(&f, &Object::default()).is_ok());
        for bad in ["fn", "self", "_", "loop"] {
            let object = Object {
                symbol: Some(bad.to_string()),
                ..Object::default()
            };
            let e = check(&f, &object).unwrap_err().to_string();
            assert!(e.contains(&format!("`{bad}`")) && !e.contains('\n'), "{e}");
        }
    }

    /// The module of a generated program: three `global_asm!` blocks without the lines
    /// rustc must not get, each ending in `.text`; the wrapper, the raw function and
    /// the known answers.
    #[test]
    fn module_shape() {
        use cryptopt_codegen::{Candidate, Generator, Options};
        let f = cryptopt_gen::fields::builtin("fiat_p256_mul")
            .expect("a preset")
            .expect("generates");
        let g = cryptopt_ir::lower::lower(&f).expect("lowers");
        let program = |opts: Options| {
            let mut gen = Generator::new(&g, opts).expect("generator");
            let first = Candidate::first(gen.deps());
            gen.generate(&first).expect("generates");
            gen.program()
        };
        let object = Object::default();
        let opts = Options {
            red_zone: false,
            ..Options::default()
        };
        let how_of = |opts: &Options| How {
            object: &object,
            abi: opts.abi,
            aliasing: opts.aliasing,
            red_zone: opts.red_zone,
            representation: Some("Montgomery"),
            seed: 1,
        };
        let how = how_of(&opts);
        let p = program(opts);
        let text = module(&f, &p, &["header line".to_string()], &how).expect("module");
        let blocks = |text: &str| text.matches("core::arch::global_asm!(").count();
        assert_eq!(blocks(&text), 3, "{text}");
        assert!(!text.contains(".intel_syntax"), "{text}");
        assert!(!text.contains("GNU-stack"), "{text}");
        assert!(text.contains("unsafe extern \"sysv64\""), "{text}");
        assert!(text.contains(
            "pub fn fiat_p256_mul(out1: &mut [u64; 4], arg1: &[u64; 4], arg2: &[u64; 4])"
        ));
        assert!(text.contains(
            "pub unsafe fn fiat_p256_mul_raw(out1: *mut u64, arg1: *const u64, arg2: *const u64)"
        ));
        assert!(text.contains("fn known_answers_in_place()"), "{text}");
        assert!(
            text.contains("\n_fiat_p256_mul:\n"),
            "Mach-O's symbol: {text}"
        );
        // Each block leaves the assembler in `.text`.
        for block in text.split("core::arch::global_asm!(").skip(1) {
            let asm = &block[..block.find("\"#);").expect("closed")];
            let last = asm
                .lines()
                .map(str::trim)
                .rfind(|l| l.starts_with(".section") || *l == ".text");
            assert_eq!(last, Some(".text"), "{asm}");
        }
        // A program that keeps values in the red zone refuses Windows.
        let red = Options {
            red_zone: true,
            ..opts
        };
        let p = program(red);
        let text = module(&f, &p, &[], &how_of(&red)).expect("module");
        if below_stack_pointer(&p) {
            assert_eq!(blocks(&text), 2, "{text}");
            assert!(text.contains("--no-red-zone"), "{text}");
        } else {
            assert_eq!(blocks(&text), 3, "{text}");
        }
        // Windows x64 code is declared with its convention.
        let win = Options {
            abi: Abi::Win64,
            ..opts
        };
        let p = program(win);
        let text = module(&f, &p, &[], &how_of(&win)).expect("module");
        assert!(text.contains("unsafe extern \"win64\""), "{text}");
        assert_eq!(blocks(&text), 3, "{text}");
    }
}
