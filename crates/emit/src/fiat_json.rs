//! Fiat JSON out: the inverse of `cryptopt_frontend::fiat` (crate cryptopt-frontend) on the
//! functions it produces and on the field generator's canonical functions (`cryptopt_gen`'s
//! builder).
//!
//! A named value becomes a statement binding its name; an unnamed value with one use
//! (what the front end makes of a nested expression or of `out1[0] = expr`) is written
//! nested inside its user; loads are implicit (`arg1[3]` at each read). Reading the text
//! back with `cryptopt_frontend::fiat::parse_functions` gives an identical [`Function`] for every
//! function the front end itself produced (tested over all of ../shared/fiat-json) and
//! for everything `cryptopt_gen::fields::generate` returns. For other functions the output is still a
//! valid Fiat function computing the same thing, with `static_cast`s added where a store
//! reads a named value.

use serde_json::{json, Value as Json};

use cryptopt_ir::func::{Function, Inst, Op, Operand, Param, Value};

use crate::Error;

/// `f` as one Fiat JSON function object (`operation`, `arguments`, `returns`, `body`).
/// Fails on lowered-dialect operations (`sar`, `sext`, `shrd`), which Fiat's JSON cannot
/// express, and on an unnamed value that is read more than once.
pub fn to_fiat_json(f: &Function) -> Result<Json, Error> {
    let mut uses = vec![0u32; f.values.len()];
    for data in &f.insts {
        for a in &data.args {
            if let Operand::Value(v) = a {
                uses[v.index()] += 1;
            }
        }
    }
    let w = Writer { f, uses };
    let mut body = Vec::new();
    for data in &f.insts {
        match data.op {
            Op::Load { .. } => {}
            Op::Store { ret, index } => {
                let r = &f.returns[ret as usize];
                let dest = match r.len {
                    Some(_) => format!("{}[{index}]", r.name),
                    None => r.name.clone(),
                };
                let stmt = match data.args[0] {
                    Operand::Value(v) if w.inline(v) => {
                        w.node(f.values[v.index()].def, vec![dest])?
                    }
                    a => json!({
                        "datatype": r.ty.to_string(),
                        "name": [dest],
                        "operation": "static_cast",
                        "arguments": [w.arg(a)?],
                    }),
                };
                body.push(stmt);
            }
            _ => {
                if data.results.len() == 1 && w.inline(data.results[0]) {
                    continue; // written where it is used
                }
                let mut names = Vec::with_capacity(data.results.len());
                for &r in &data.results {
                    match &f.values[r.index()].name {
                        Some(n) => names.push(n.clone()),
                        None if w.uses[r.index()] == 0 => names.push("_".to_string()),
                        None => {
                            return Err(w.err(format!(
                                "value {r} has no name but is read {} times",
                                w.uses[r.index()]
                            )))
                        }
                    }
                }
                let def = f.values[data.results[0].index()].def;
                body.push(w.node(def, names)?);
            }
        }
    }
    Ok(json!({
        "operation": f.name,
        "arguments": f.params.iter().map(param).collect::<Vec<_>>(),
        "returns": f.returns.iter().map(param).collect::<Vec<_>>(),
        "body": body,
    }))
}

fn param(p: &Param) -> Json {
    let hexes = |v: &[u128]| -> Json {
        match p.len {
            Some(_) => json!(v.iter().map(|x| format!("{x:#x}")).collect::<Vec<_>>()),
            None => json!(format!("{:#x}", v[0])),
        }
    };
    json!({
        "datatype": p.shape(),
        "name": p.name,
        "lbound": hexes(&p.lbound),
        "ubound": hexes(&p.ubound),
    })
}

struct Writer<'a> {
    f: &'a Function,
    uses: Vec<u32>,
}

impl Writer<'_> {
    fn err(&self, message: String) -> Error {
        Error::FiatJson {
            function: self.f.name.clone(),
            message,
        }
    }

    /// Written nested inside its only user.
    fn inline(&self, v: Value) -> bool {
        let vd = &self.f.values[v.index()];
        let def = self.f.inst(vd.def);
        vd.name.is_none()
            && def.results.len() == 1
            && !matches!(def.op, Op::Load { .. })
            && self.uses[v.index()] == 1
    }

    fn arg(&self, a: Operand) -> Result<Json, Error> {
        match a {
            Operand::Const(c) => Ok(json!(format!("{c:#x}"))),
            Operand::Value(v) => {
                let vd = &self.f.values[v.index()];
                if let Op::Load { param, index } = self.f.inst(vd.def).op {
                    let p = &self.f.params[param as usize];
                    return Ok(json!(match p.len {
                        Some(_) => format!("{}[{index}]", p.name),
                        None => p.name.clone(),
                    }));
                }
                if self.inline(v) {
                    return self.node(vd.def, vec![]);
                }
                match &vd.name {
                    Some(n) => Ok(json!(n)),
                    None => Err(self.err(format!("value {v} is read but has no name"))),
                }
            }
        }
    }

    /// The expression object of instruction `i`, binding `names`.
    fn node(&self, i: Inst, names: Vec<String>) -> Result<Json, Error> {
        let data = self.f.inst(i);
        let (opname, size) = match data.op {
            Op::Cast => ("static_cast", None),
            Op::Add => ("+", None),
            Op::Mul => ("*", None),
            Op::And => ("&", None),
            Op::Or => ("|", None),
            Op::Xor => ("^", None),
            Op::Sub => ("-", None),
            Op::Not => ("~", None),
            Op::LNot => ("!", None),
            Op::Shl => ("<<", None),
            Op::Shr => (">>", None),
            Op::Cmovznz => ("cmovznz", None),
            Op::Mulx { size } => ("mulx", Some(size)),
            Op::AddCarry { size } => ("addcarryx", Some(size)),
            Op::SubBorrow { size } => ("subborrowx", Some(size)),
            Op::Load { .. } | Op::Store { .. } => unreachable!("not an expression"),
            Op::Sar { .. } | Op::Sext { .. } | Op::Shrd { .. } => {
                return Err(self.err(format!(
                    "`{}` is a lowered-dialect operation, not a Fiat one",
                    data.op.name()
                )))
            }
        };
        let args = data
            .args
            .iter()
            .map(|&a| self.arg(a))
            .collect::<Result<Vec<_>, _>>()?;
        let mut node = serde_json::Map::new();
        let datatype = match size {
            Some(_) => "(auto)".to_string(),
            None => self.f.ty(data.results[0]).to_string(),
        };
        node.insert("datatype".into(), json!(datatype));
        node.insert("name".into(), json!(names));
        node.insert("operation".into(), json!(opname));
        if let Some(s) = size {
            node.insert("parameters".into(), json!({ "size": s }));
        }
        node.insert("arguments".into(), Json::Array(args));
        Ok(Json::Object(node))
    }
}
