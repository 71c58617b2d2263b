//! Front end for Fiat Cryptography's JSON IR (`fiat-crypto ... --lang JSON`).
//!
//! A file is an array of function objects or one function object. Each function has
//! `operation` (its name), `arguments` and `returns` (name, `datatype` such as `u64[4]`,
//! per-element `lbound`/`ubound`), and a `body` of statements. A statement is an
//! expression tree whose top level names its results (`["x5", "x6"]`, `["out1[0]"]`,
//! `"_"` for an unused one); leaves are variables, `argN`/`argN[i]` reads and literals.
//!
//! The tree is flattened into the backward-pointing instruction list of
//! [`cryptopt_ir::Function`]: one instruction per node, loads at the first read of an argument
//! element, stores for `outN[i]` results. Nothing is simplified here: the front end is
//! faithful to the text, and [`cryptopt_ir::lower`] does the rest.
//!
//! Every error names the function and the JSON path of the offending construct. This
//! module must never panic on any input.

use std::collections::HashMap;

use serde_json::Value as Json;

use cryptopt_ir::func::{Function, Op, Operand, Param, Ty, Value, ValueData};
use cryptopt_ir::validate;

use crate::error::{Error, Result};

/// Names of the functions in a Fiat JSON text, without converting their bodies.
pub fn function_names(text: &str) -> Result<Vec<String>> {
    let json: Json = serde_json::from_str(text)?;
    function_objects(&json)?
        .iter()
        .enumerate()
        .map(|(i, f)| function_name(f, i))
        .collect()
}

/// Parses every function in a Fiat JSON text (an array of functions or one function).
pub fn parse_functions(text: &str) -> Result<Vec<Function>> {
    let json: Json = serde_json::from_str(text)?;
    function_objects(&json)?
        .iter()
        .enumerate()
        .map(|(i, f)| parse_function_json(f, i))
        .collect()
}

/// Parses the one function called `name`.
pub fn parse_function(text: &str, name: &str) -> Result<Function> {
    let json: Json = serde_json::from_str(text)?;
    let objects = function_objects(&json)?;
    let mut names = Vec::with_capacity(objects.len());
    for (i, f) in objects.iter().enumerate() {
        let n = function_name(f, i)?;
        if n == name {
            return parse_function_json(f, i);
        }
        names.push(n);
    }
    Err(Error::NoSuchFunction {
        name: name.to_string(),
        suggestion: cryptopt_ir::names::did_you_mean(name, names.iter().map(String::as_str)),
        available: if names.is_empty() {
            "no functions".to_string()
        } else {
            names.join(", ")
        },
    })
}

fn function_objects(json: &Json) -> Result<Vec<&Json>> {
    match json {
        Json::Array(items) => Ok(items.iter().collect()),
        Json::Object(_) => Ok(vec![json]),
        _ => Err(Error::Input {
            location: "top level".into(),
            message: "expected an array of functions or one function object".into(),
        }),
    }
}

fn function_name(f: &Json, i: usize) -> Result<String> {
    f.get("operation")
        .and_then(Json::as_str)
        .map(str::to_string)
        .ok_or_else(|| Error::Input {
            location: format!("function #{i}"),
            message: "missing string field `operation` (the function's name)".into(),
        })
}

/// Converts one function object.
pub fn parse_function_json(f: &Json, i: usize) -> Result<Function> {
    let name = function_name(f, i)?;
    let mut p = Parser {
        func: Function::new(name.clone(), Vec::new(), Vec::new()),
        vars: HashMap::new(),
        loads: HashMap::new(),
        fname: name,
    };
    p.func.params = p.params(f, "arguments")?;
    p.func.returns = p.params(f, "returns")?;
    let body = p
        .field(f, "body", "")?
        .as_array()
        .ok_or_else(|| p.err("body", "`body` must be an array of statements".to_string()))?;
    for (k, stmt) in body.iter().enumerate() {
        p.statement(stmt, &format!("body[{k}]"))?;
    }
    validate::validate(&p.func, validate::Dialect::Fiat)?;
    Ok(p.func)
}

struct Parser {
    func: Function,
    /// `xN` variables and their values.
    vars: HashMap<String, Value>,
    /// (param, index) -> the load already emitted for it.
    loads: HashMap<(u32, u32), Value>,
    fname: String,
}

/// Where a statement's result goes.
enum Dest {
    Var(String),
    Out { ret: u32, index: u32 },
    Discard,
}

impl Parser {
    fn err(&self, path: &str, message: String) -> Error {
        Error::Input {
            location: if path.is_empty() {
                self.fname.clone()
            } else {
                format!("{}: {}", self.fname, path)
            },
            message,
        }
    }

    fn field<'a>(&self, obj: &'a Json, key: &str, path: &str) -> Result<&'a Json> {
        obj.get(key).ok_or_else(|| {
            self.err(
                path,
                format!(
                    "missing field `{key}`{}",
                    if obj.is_object() {
                        ""
                    } else {
                        " (not an object)"
                    }
                ),
            )
        })
    }

    fn str_field<'a>(&self, obj: &'a Json, key: &str, path: &str) -> Result<&'a str> {
        self.field(obj, key, path)?
            .as_str()
            .ok_or_else(|| self.err(path, format!("field `{key}` must be a string")))
    }

    fn params(&self, f: &Json, key: &str) -> Result<Vec<Param>> {
        let list = self
            .field(f, key, "")?
            .as_array()
            .ok_or_else(|| self.err(key, format!("`{key}` must be an array")))?;
        let mut out: Vec<Param> = Vec::with_capacity(list.len());
        for (k, item) in list.iter().enumerate() {
            let path = format!("{key}[{k}]");
            let name = self.str_field(item, "name", &path)?.to_string();
            let dt = self.str_field(item, "datatype", &path)?;
            let (ty, len) = parse_datatype(dt)
                .ok_or_else(|| self.err(&path, format!("unsupported datatype `{dt}`")))?;
            let n = len.unwrap_or(1) as usize;
            let bound = |b: &str| -> Result<Vec<u128>> {
                let v = self.field(item, b, &path)?;
                let strs: Vec<&Json> = match (v, len) {
                    (Json::String(_), None) => vec![v],
                    (Json::Array(a), Some(_)) => a.iter().collect(),
                    _ => {
                        return Err(self.err(
                            &path,
                            format!("`{b}` must be a string for a scalar, an array for an array"),
                        ))
                    }
                };
                if strs.len() != n {
                    return Err(self.err(
                        &path,
                        format!("`{b}` has {} entries, expected {n}", strs.len()),
                    ));
                }
                strs.iter()
                    .map(|s| {
                        s.as_str().and_then(parse_literal).ok_or_else(|| {
                            self.err(&path, format!("`{b}` entry {s} is not a number"))
                        })
                    })
                    .collect()
            };
            let lbound = bound("lbound")?;
            let ubound = bound("ubound")?;
            if out.iter().any(|p| p.name == name) {
                return Err(self.err(&path, format!("duplicate name `{name}`")));
            }
            out.push(Param {
                name,
                ty,
                len,
                lbound,
                ubound,
            });
        }
        Ok(out)
    }

    fn statement(&mut self, stmt: &Json, path: &str) -> Result<()> {
        let names = self
            .field(stmt, "name", path)?
            .as_array()
            .ok_or_else(|| self.err(path, "statement `name` must be an array".into()))?;
        if names.is_empty() {
            return Err(self.err(path, "statement binds no name".into()));
        }
        let mut dests = Vec::with_capacity(names.len());
        for n in names {
            let n = n
                .as_str()
                .ok_or_else(|| self.err(path, "names must be strings".into()))?;
            dests.push(self.dest(n, path)?);
        }
        // The type an `(auto)` single-result statement gets: the output's element type.
        let auto = match &dests[..] {
            [Dest::Out { ret, .. }] => Some(self.func.returns[*ret as usize].ty),
            _ => None,
        };
        let results = self.node(stmt, path, auto, dests.len())?;
        for (dest, res) in dests.into_iter().zip(results) {
            match dest {
                Dest::Var(name) => {
                    if let Some(v) = res.value() {
                        self.func.values[v.index()].name.get_or_insert(name.clone());
                        self.vars.insert(name, v);
                    } else {
                        // A literal bound to a variable: materialize it with its own type.
                        return Err(self.err(path, format!("`{name}` is bound to a bare literal")));
                    }
                }
                Dest::Out { ret, index } => {
                    self.func.push(Op::Store { ret, index }, vec![res], &[]);
                }
                Dest::Discard => {}
            }
        }
        Ok(())
    }

    /// The element `reference` (`x` or `x[i]`, already split into `index`) names of
    /// parameter or return `p`: a scalar takes no index, an array an index below its
    /// length.
    fn element(&self, p: &Param, reference: &str, index: Option<u32>, path: &str) -> Result<u32> {
        match (index, p.len) {
            (None, None) => Ok(0),
            (Some(i), Some(n)) if i < n => Ok(i),
            _ => Err(self.err(
                path,
                format!(
                    "`{reference}` does not match the shape {} of `{}`",
                    p.shape(),
                    p.name
                ),
            )),
        }
    }

    fn dest(&self, name: &str, path: &str) -> Result<Dest> {
        if name == "_" {
            return Ok(Dest::Discard);
        }
        if let Some((base, index)) = split_ref(name) {
            if let Some(ret) = self.func.returns.iter().position(|p| p.name == base) {
                let index = self.element(&self.func.returns[ret], name, index, path)?;
                return Ok(Dest::Out {
                    ret: ret as u32,
                    index,
                });
            }
            if self.func.params.iter().any(|p| p.name == base) {
                return Err(self.err(path, format!("assignment to argument `{name}`")));
            }
            if index.is_none() {
                if self.vars.contains_key(name) {
                    return Err(self.err(path, format!("variable `{name}` is assigned twice")));
                }
                return Ok(Dest::Var(name.to_string()));
            }
        }
        Err(self.err(path, format!("cannot assign to `{name}`")))
    }

    /// Converts an expression node, emitting its instruction; returns its results
    /// (`want` of them). `auto` is the type `(auto)` stands for in a single-result node.
    fn node(
        &mut self,
        e: &Json,
        path: &str,
        auto: Option<Ty>,
        want: usize,
    ) -> Result<Vec<Operand>> {
        if let Some(s) = e.as_str() {
            if want != 1 {
                return Err(self.err(path, format!("`{s}` gives one value, {want} are bound")));
            }
            return Ok(vec![self.leaf(s, path)?]);
        }
        if !e.is_object() {
            return Err(self.err(
                path,
                format!("expected an expression object or a name, found {e}"),
            ));
        }
        let opname = self.str_field(e, "operation", path)?;
        let dt = self.str_field(e, "datatype", path)?;
        let args_json = self
            .field(e, "arguments", path)?
            .as_array()
            .ok_or_else(|| self.err(path, "`arguments` must be an array".into()))?;
        let size = || -> Result<u8> {
            let s = e
                .get("parameters")
                .and_then(|p| p.get("size"))
                .and_then(Json::as_u64)
                .ok_or_else(|| self.err(path, format!("`{opname}` needs `parameters.size`")))?;
            if (1..=64).contains(&s) {
                Ok(s as u8)
            } else {
                Err(self.err(
                    path,
                    format!("`{opname}` size {s} is not supported (1..=64)"),
                ))
            }
        };
        let op = match opname {
            "static_cast" | "=" => Op::Cast,
            "+" => Op::Add,
            "-" => Op::Sub,
            "*" => Op::Mul,
            "&" => Op::And,
            "|" => Op::Or,
            "^" => Op::Xor,
            "~" => Op::Not,
            "!" => Op::LNot,
            ">>" => Op::Shr,
            "<<" => Op::Shl,
            "mulx" => Op::Mulx { size: size()? },
            "addcarryx" => Op::AddCarry { size: size()? },
            "subborrowx" => Op::SubBorrow { size: size()? },
            "cmovznz" => Op::Cmovznz,
            other => return Err(self.err(path, format!("unsupported operation `{other}`"))),
        };
        let nres = op.results();
        if nres != want {
            return Err(self.err(
                path,
                format!("`{opname}` gives {nres} result(s), {want} are bound"),
            ));
        }
        match op.arity() {
            Some(n) if n != args_json.len() => {
                return Err(self.err(
                    path,
                    format!(
                        "`{opname}` takes {n} argument(s), found {}",
                        args_json.len()
                    ),
                ))
            }
            None if args_json.len() < 2 => {
                return Err(self.err(
                    path,
                    format!(
                        "`{opname}` takes at least 2 arguments, found {}",
                        args_json.len()
                    ),
                ))
            }
            _ => {}
        }
        let mut args = Vec::with_capacity(args_json.len());
        for (k, a) in args_json.iter().enumerate() {
            let sub = format!("{path}.arguments[{k}]");
            args.push(self.node(a, &sub, None, 1)?[0]);
        }
        let tys: Vec<Ty> = match op {
            Op::Mulx { size } => vec![Ty::uint(size); 2],
            Op::AddCarry { size } | Op::SubBorrow { size } => vec![Ty::uint(size), Ty::U1],
            _ => {
                let ty = if dt == "(auto)" {
                    let from_arg = if opname == "=" {
                        args[0].value().map(|v| self.func.ty(v))
                    } else {
                        None
                    };
                    auto.or(from_arg).ok_or_else(|| {
                        self.err(
                            path,
                            format!("datatype `(auto)` cannot be resolved for `{opname}`"),
                        )
                    })?
                } else {
                    Ty::parse(dt)
                        .ok_or_else(|| self.err(path, format!("unsupported datatype `{dt}`")))?
                };
                vec![ty]
            }
        };
        if nres == 2 && dt != "(auto)" {
            // Fiat writes `(auto)` here; accept an explicit type only if it agrees.
            if Ty::parse(dt) != Some(tys[0]) {
                return Err(self.err(path, format!("datatype `{dt}` does not fit `{opname}`")));
            }
        }
        let results = self.func.push(op, args, &tys);
        Ok(results.iter().map(|&v| Operand::Value(v)).collect())
    }

    fn leaf(&mut self, s: &str, path: &str) -> Result<Operand> {
        if let Some(c) = parse_literal(s) {
            return Ok(Operand::Const(c));
        }
        if let Some(&v) = self.vars.get(s) {
            return Ok(Operand::Value(v));
        }
        if let Some((base, index)) = split_ref(s) {
            if let Some(param) = self.func.params.iter().position(|p| p.name == base) {
                let p = &self.func.params[param];
                let index = self.element(p, s, index, path)?;
                let key = (param as u32, index);
                if let Some(&v) = self.loads.get(&key) {
                    return Ok(Operand::Value(v));
                }
                let ty = p.ty;
                let v = self.func.push1(
                    Op::Load {
                        param: key.0,
                        index,
                    },
                    vec![],
                    ty,
                );
                self.func.values[v.index()].name = Some(s.to_string());
                self.loads.insert(key, v);
                return Ok(Operand::Value(v));
            }
            if self.func.returns.iter().any(|p| p.name == base) {
                return Err(self.err(path, format!("reading output `{s}` is not supported")));
            }
        }
        Err(self.err(path, format!("use of undefined name `{s}`")))
    }
}

/// `u64[4]` -> (u64, Some(4)); `u1` -> (u1, None).
fn parse_datatype(s: &str) -> Option<(Ty, Option<u32>)> {
    match s.split_once('[') {
        None => Some((Ty::parse(s)?, None)),
        Some((t, rest)) => {
            let n: u32 = rest.strip_suffix(']')?.parse().ok()?;
            (n > 0).then_some((Ty::parse(t)?, Some(n)))
        }
    }
}

/// `out1[3]` -> ("out1", Some(3)); `x7` -> ("x7", None). Names are identifiers.
fn split_ref(s: &str) -> Option<(&str, Option<u32>)> {
    let (base, index) = match s.split_once('[') {
        None => (s, None),
        Some((b, rest)) => (b, Some(rest.strip_suffix(']')?.parse().ok()?)),
    };
    let ok = !base.is_empty()
        && base.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && !base.as_bytes()[0].is_ascii_digit();
    ok.then_some((base, index))
}

/// A literal: `0x...` hex or decimal digits, at most 128 bits.
pub fn parse_literal(s: &str) -> Option<u128> {
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        if h.is_empty() || !h.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        u128::from_str_radix(h, 16).ok()
    } else if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
        s.parse().ok()
    } else {
        None
    }
}

/// The name of the variable a value had in the input, if any (for diagnostics).
pub fn value_name(f: &Function, v: Value) -> Option<&str> {
    let ValueData { name, .. } = &f.values[v.index()];
    name.as_deref()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err_of(json: &str) -> String {
        match parse_functions(json) {
            Ok(_) => "ok".into(),
            Err(e) => e.to_string(),
        }
    }

    const HEAD: &str = r#"{"operation":"f","arguments":[{"datatype":"u64","name":"arg1","lbound":"0x0","ubound":"0xffffffffffffffff"}],"returns":[{"datatype":"u64","name":"out1","lbound":"0x0","ubound":"0xffffffffffffffff"}],"body":"#;

    fn with_body(body: &str) -> String {
        format!("{HEAD}{body}}}")
    }

    /// Malformed or unsupported inputs give an error naming the construct and place.
    #[test]
    fn errors_name_the_construct() {
        let cases: &[(&str, &str)] = &[
            ("[1", "invalid JSON"),
            ("5", "expected an array of functions"),
            (
                &with_body(
                    r#"[{"datatype":"u64","name":["out1"],"operation":"frob","arguments":["arg1"]}]"#,
                ),
                "f: body[0]: unsupported operation `frob`",
            ),
            (
                &with_body(
                    r#"[{"datatype":"u64","name":["out1"],"operation":"static_cast","arguments":["x9"]}]"#,
                ),
                "use of undefined name `x9`",
            ),
            (
                &with_body(
                    r#"[{"datatype":"u77x","name":["out1"],"operation":"static_cast","arguments":["arg1"]}]"#,
                ),
                "unsupported datatype `u77x`",
            ),
            (
                &with_body(
                    r#"[{"datatype":"u64","name":["out1"],"operation":"+","arguments":["arg1"]}]"#,
                ),
                "at least 2 arguments",
            ),
            (
                &with_body(
                    r#"[{"datatype":"u64","name":["out1"],"operation":"static_cast","arguments":["arg1[3]"]}]"#,
                ),
                "`arg1[3]` does not match the shape u64 of `arg1`",
            ),
            (
                &with_body(
                    r#"[{"datatype":"u64","name":["out1[2]"],"operation":"static_cast","arguments":["arg1"]}]"#,
                ),
                "`out1[2]` does not match the shape u64 of `out1`",
            ),
            (&with_body(r#"[]"#), "out1 is never written"),
            (
                &with_body(
                    r#"[{"datatype":"u64","name":["out1"],"operation":"static_cast","arguments":["arg1"]},{"datatype":"u64","name":["out1"],"operation":"static_cast","arguments":["arg1"]}]"#,
                ),
                "written 2 times",
            ),
            (
                &with_body(
                    r#"[{"datatype":"(auto)","name":["x1","x2"],"operation":"mulx","arguments":["arg1","arg1"]}]"#,
                ),
                "needs `parameters.size`",
            ),
            (
                &with_body(
                    r#"[{"datatype":"(auto)","name":["x1"],"operation":"mulx","parameters":{"size":64},"arguments":["arg1","arg1"]}]"#,
                ),
                "gives 2 result(s), 1 are bound",
            ),
            (&with_body(r#"{}"#), "`body` must be an array"),
        ];
        for (input, want) in cases {
            let got = err_of(input);
            assert!(
                got.contains(want),
                "input {input}\n  want error containing {want:?}\n  got {got:?}"
            );
        }
    }

    #[test]
    fn literals() {
        assert_eq!(parse_literal("0x10"), Some(16));
        assert_eq!(parse_literal("64"), Some(64));
        assert_eq!(parse_literal("0x"), None);
        assert_eq!(parse_literal("x1"), None);
        assert_eq!(
            parse_literal("0xffffffffffffffffffffffffffffffff"),
            Some(u128::MAX)
        );
        assert_eq!(parse_literal("0x1ffffffffffffffffffffffffffffffff"), None);
    }

    #[test]
    fn no_such_function_lists_what_exists() {
        let e = parse_function(&with_body(r#"[{"datatype":"u64","name":["out1"],"operation":"static_cast","arguments":["arg1"]}]"#), "g").unwrap_err();
        assert_eq!(
            e.to_string(),
            "no function named `g` in the input (it has: f)"
        );
    }
}
