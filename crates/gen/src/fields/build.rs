//! The builder the generators write through. It produces functions in the *canonical
//! form* that `cryptopt_frontend::fiat::parse_functions` produces from the JSON that
//! [`crate::to_fiat_json`] writes, so that the JSON round trip gives back an identical
//! [`Function`] (value names included):
//!
//! * an argument element is loaded right before the first instruction that reads it, in
//!   operand order, and the load's value is named `arg1[3]` (the front end's rule);
//! * results are named `x1`, `x2`, … in order of creation; a result that nothing reads
//!   has no name (Fiat's `_`);
//! * an output element is stored by a `store` right after the instruction that computes
//!   it when that value has no other use (its name is then dropped, as the front end
//!   binds `out1[0] = expr` without a variable); otherwise through an unnamed `cast`, as
//!   Fiat's `out1[0] = static_cast(x12)`.

use std::collections::HashMap;

use cryptopt_ir::func::{Function, Op, Operand, Param, Ty, Value};
use cryptopt_ir::validate::{self, Dialect};

use super::FieldError;

/// An operand while building: a value, a literal, or an argument element not read yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Opnd {
    V(Value),
    K(u128),
    /// Element `index` of argument `param`.
    Arg(u32, u32),
}

/// A point to roll a [`Builder`] back to.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Mark {
    insts: usize,
    values: usize,
    next_name: u32,
}

pub(crate) struct Builder {
    f: Function,
    loads: HashMap<(u32, u32), Value>,
    next_name: u32,
}

impl Builder {
    pub fn new(name: String, params: Vec<Param>, returns: Vec<Param>) -> Builder {
        Builder {
            f: Function::new(name, params, returns),
            loads: HashMap::new(),
            next_name: 1,
        }
    }

    fn resolve(&mut self, o: Opnd) -> Operand {
        match o {
            Opnd::V(v) => Operand::Value(v),
            Opnd::K(c) => Operand::Const(c),
            Opnd::Arg(param, index) => {
                if let Some(&v) = self.loads.get(&(param, index)) {
                    return Operand::Value(v);
                }
                let p = &self.f.params[param as usize];
                let (ty, name) = match p.len {
                    Some(_) => (p.ty, format!("{}[{index}]", p.name)),
                    None => (p.ty, p.name.clone()),
                };
                let v = self.f.push1(Op::Load { param, index }, vec![], ty);
                self.f.values[v.index()].name = Some(name);
                self.loads.insert((param, index), v);
                Operand::Value(v)
            }
        }
    }

    /// Appends `op` with named results of the given types.
    pub fn op(&mut self, op: Op, args: &[Opnd], tys: &[Ty]) -> Vec<Opnd> {
        let args: Vec<Operand> = args.iter().map(|&a| self.resolve(a)).collect();
        let results = self.f.push(op, args, tys).to_vec();
        for &r in &results {
            self.f.values[r.index()].name = Some(format!("x{}", self.next_name));
            self.next_name += 1;
        }
        results.into_iter().map(Opnd::V).collect()
    }

    pub fn op1(&mut self, op: Op, args: &[Opnd], ty: Ty) -> Opnd {
        self.op(op, args, &[ty])[0]
    }

    pub fn op2(&mut self, op: Op, args: &[Opnd], tys: [Ty; 2]) -> (Opnd, Opnd) {
        let r = self.op(op, args, &tys);
        (r[0], r[1])
    }

    /// Where the function stands now, to [`Builder::rollback`] to.
    pub fn mark(&self) -> Mark {
        Mark {
            insts: self.f.insts.len(),
            values: self.f.values.len(),
            next_name: self.next_name,
        }
    }

    /// Forgets everything appended since `m` (an attempt whose bounds did not work).
    pub fn rollback(&mut self, m: Mark) {
        self.f.insts.truncate(m.insts);
        self.f.values.truncate(m.values);
        self.loads.retain(|_, v| v.index() < m.values);
        self.next_name = m.next_name;
    }

    /// Stores `x` into element `index` of return `ret`.
    pub fn store(&mut self, ret: u32, index: u32, x: Opnd) {
        let x = self.resolve(x);
        self.f.push(Op::Store { ret, index }, vec![x], &[]);
    }

    /// The canonical, verified function.
    pub fn finish(self) -> Result<Function, FieldError> {
        let f = canonicalize(&self.f);
        validate::validate(&f, Dialect::Fiat).map_err(|e| FieldError::Internal {
            function: f.name.clone(),
            message: e.to_string(),
        })?;
        Ok(f)
    }
}

/// Rewrites stores and result names into the canonical form (see the module docs).
/// Loads are already where the front end puts them: the builder emits them at first use.
fn canonicalize(old: &Function) -> Function {
    let mut uses = vec![0u32; old.values.len()];
    for data in &old.insts {
        for a in &data.args {
            if let Operand::Value(v) = a {
                uses[v.index()] += 1;
            }
        }
    }
    let mut new = Function::new(old.name.clone(), old.params.clone(), old.returns.clone());
    let mut map: Vec<Option<Value>> = vec![None; old.values.len()];
    let get = |map: &[Option<Value>], o: Operand| match o {
        Operand::Value(v) => Operand::Value(map[v.index()].expect("operands point backwards")),
        c => c,
    };
    for data in &old.insts {
        let args: Vec<Operand> = data.args.iter().map(|&a| get(&map, a)).collect();
        if let Op::Store { ret, .. } = data.op {
            let direct = match (data.args[0], args[0]) {
                (Operand::Value(old_v), Operand::Value(v)) => {
                    let def = new.values[v.index()].def;
                    let last = new.insts.len().checked_sub(1);
                    let d = &old.insts[old.values[old_v.index()].def.index()];
                    last == Some(def.index())
                        && d.results.len() == 1
                        && !matches!(d.op, Op::Load { .. })
                        && uses[old_v.index()] == 1
                }
                _ => false,
            };
            let x = if direct {
                let v = args[0].value().expect("a value");
                new.values[v.index()].name = None;
                args[0]
            } else {
                let ty = new.returns[ret as usize].ty;
                Operand::Value(new.push1(Op::Cast, args, ty))
            };
            new.push(data.op, vec![x], &[]);
            continue;
        }
        let tys: Vec<Ty> = data.results.iter().map(|&r| old.ty(r)).collect();
        let rs = new.push(data.op, args, &tys).to_vec();
        for (&o, &n) in data.results.iter().zip(&rs) {
            map[o.index()] = Some(n);
            new.values[n.index()].name = if uses[o.index()] == 0 {
                None
            } else {
                old.values[o.index()].name.clone()
            };
        }
    }
    new
}
