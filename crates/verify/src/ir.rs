//! Symbolic execution of an IR [`Function`] (Fiat dialect or lowered dialect) into the
//! expression graph.
//!
//! The semantics are those of [`cryptopt_ir::interp`], restated here on nodes: every
//! operation computes on the *exact* values of its operands (a signed operand is read as
//! signed) and its result wraps to the result type. Values are kept as their bit pattern
//! (a node below 2^bits); where only the low `w` bits of an operand can matter (sums,
//! products, bitwise operations at result width `w`) the operand is used as is, and the
//! graph's constructors take it modulo 2^w.
//!
//! This module must never share code with the lowering passes: it is what checks them.

use cryptopt_ir::{Function, InstData, Op, Operand, Ty};

use crate::abi;
use crate::error::{Error, Result};
use crate::graph::{mask, Graph, NodeId};

/// What executing a function gives.
pub(crate) struct IrResult {
    /// The node of every value.
    pub values: Vec<Option<NodeId>>,
    /// Per return, per element: the stored node.
    pub outputs: Vec<Vec<Option<NodeId>>>,
}

struct Exec<'a> {
    g: &'a mut Graph,
    f: &'a Function,
    vals: Vec<Option<NodeId>>,
}

/// Executes `f` symbolically into `g`: the node of every value and of every output
/// element the function stores.
pub(crate) fn execute(g: &mut Graph, f: &Function) -> Result<IrResult> {
    let mut outputs: Vec<Vec<Option<NodeId>>> =
        f.returns.iter().map(|r| vec![None; r.elems()]).collect();
    let mut ex = Exec {
        g,
        f,
        vals: vec![None; f.values.len()],
    };
    for (k, d) in f.insts.iter().enumerate() {
        if let Op::Store { ret, index } = d.op {
            let r = &f.returns[ret as usize];
            let bits = r.ty.bits as u32;
            let x = ex.exact(d.args[0], bits, k)?;
            let x = ex.g.trunc(x, bits);
            if let Some(slot) = outputs
                .get_mut(ret as usize)
                .and_then(|o| o.get_mut(index as usize))
            {
                *slot = Some(x);
            }
            continue;
        }
        let rs = ex.inst(d, k)?;
        for (&v, &n) in d.results.iter().zip(&rs) {
            ex.vals[v.index()] = Some(n);
        }
    }
    Ok(IrResult {
        values: ex.vals,
        outputs,
    })
}

impl Exec<'_> {
    fn fail(&self, k: usize, message: String) -> Error {
        Error::Function {
            function: self.f.name.clone(),
            message: format!("instruction {k} of the IR: {message}"),
        }
    }

    /// The node and type of an operand (`None` type for a literal).
    fn get(&mut self, o: Operand, k: usize) -> Result<(NodeId, Option<Ty>)> {
        match o {
            Operand::Const(c) => Ok((self.g.konst(c), None)),
            Operand::Value(v) => match self.vals.get(v.index()).copied().flatten() {
                Some(n) => Ok((n, Some(self.f.ty(v)))),
                None => Err(self.fail(k, format!("{v} is used before it is defined"))),
            },
        }
    }

    /// The exact value of `o` modulo 2^w (sign-extended when its type is signed).
    fn exact(&mut self, o: Operand, w: u32, k: usize) -> Result<NodeId> {
        let (n, ty) = self.get(o, k)?;
        Ok(match ty {
            Some(t) if t.signed && (t.bits as u32) < w => self.g.sext(t.bits as u32, w, n),
            _ => self.g.trunc(n, w),
        })
    }

    fn exact_all(&mut self, args: &[Operand], w: u32, k: usize) -> Result<Vec<NodeId>> {
        args.iter().map(|&a| self.exact(a, w, k)).collect()
    }

    fn unsigned(&mut self, o: Operand, k: usize) -> Result<NodeId> {
        let (n, ty) = self.get(o, k)?;
        if ty.is_some_and(|t| t.signed) {
            return Err(self.fail(k, "signed operand of a carry operation".into()));
        }
        Ok(n)
    }

    fn shift_amount(&self, d: &InstData, k: usize) -> Result<u32> {
        d.args[1]
            .constant()
            .map(|n| n.min(255) as u32)
            .ok_or_else(|| self.fail(k, "variable shift amount".into()))
    }

    fn inst(&mut self, d: &InstData, k: usize) -> Result<Vec<NodeId>> {
        let f = self.f;
        let rt = |i: usize| f.ty(d.results[i]);
        let w = rt(0).bits as u32;
        let m = mask(w);
        let one = match d.op {
            Op::Load { param, index } => {
                let p = f.params.get(param as usize);
                if p.is_none_or(|p| index as usize >= p.elems()) {
                    return Err(self.fail(k, "load outside the parameters".into()));
                }
                abi::input(self.g, f, param as usize, index as usize)
            }
            Op::Store { .. } => unreachable!("stores are handled by execute()"),
            Op::Cast => self.exact(d.args[0], w, k)?,
            Op::Add => {
                let xs = self.exact_all(&d.args, w, k)?;
                self.g.sum(w, &xs)
            }
            Op::Sub => {
                let a = self.exact(d.args[0], w, k)?;
                let b = self.exact(d.args[1], w, k)?;
                self.g.add(w, &[(a, 1), (b, m)], 0)
            }
            Op::Mul => {
                let xs = self.exact_all(&d.args, w, k)?;
                self.g.mul(w, &xs)
            }
            Op::And => {
                let xs = self.exact_all(&d.args, w, k)?;
                self.g.and(w, &xs)
            }
            Op::Or => {
                let xs = self.exact_all(&d.args, w, k)?;
                self.g.or(w, &xs)
            }
            Op::Xor => {
                let xs = self.exact_all(&d.args, w, k)?;
                self.g.xor(w, &xs)
            }
            Op::Not => {
                let a = self.exact(d.args[0], w, k)?;
                self.g.not(w, a)
            }
            Op::LNot => {
                // The exact value is zero exactly when the bit pattern is.
                let (a, _) = self.get(d.args[0], k)?;
                self.g.eqz(a)
            }
            Op::Shl => {
                let n = self.shift_amount(d, k)?;
                let a = self.exact(d.args[0], w, k)?;
                self.g.shl(a, n, w)
            }
            Op::Shr => {
                let n = self.shift_amount(d, k)?;
                let (a, ty) = self.get(d.args[0], k)?;
                match ty {
                    Some(t) if t.signed => {
                        let x = self.g.sext(t.bits as u32, 128, a);
                        self.g.sar(128, x, n.min(127))
                    }
                    _ => self.g.shr(a, n),
                }
            }
            Op::Sar { from } => {
                let n = self.shift_amount(d, k)?;
                let (a, _) = self.get(d.args[0], k)?;
                let from = from as u32;
                let r = self.g.sar(from, a, n.min(from - 1));
                self.g.sext(from, w, r)
            }
            Op::Sext { from } => {
                let (a, _) = self.get(d.args[0], k)?;
                self.g.sext(from as u32, w, a)
            }
            Op::Shrd { n } => {
                let (lo, _) = self.get(d.args[0], k)?;
                let (hi, _) = self.get(d.args[1], k)?;
                let n = n as u32;
                if !(1..64).contains(&n) {
                    return Err(self.fail(k, format!("shrd by {n}")));
                }
                let lo = self.g.trunc(lo, 64);
                let hi = self.g.trunc(hi, 64);
                let a = self.g.shr(lo, n);
                let b = self.g.shl(hi, 64 - n, 64);
                self.g.or(64, &[a, b])
            }
            Op::Cmovznz => {
                let (c, _) = self.get(d.args[0], k)?;
                let cond = self.g.nonzero(c);
                let z = self.exact(d.args[1], w, k)?;
                let nz = self.exact(d.args[2], w, k)?;
                self.g.ite(cond, nz, z)
            }
            Op::Mulx { size } => {
                let a = self.unsigned(d.args[0], k)?;
                let b = self.unsigned(d.args[1], k)?;
                let p = self.g.mul(128, &[a, b]);
                let size = size as u32;
                let lo = self.g.trunc(p, size);
                let hi = self.g.slice(p, size, size);
                let (t0, t1) = (rt(0).bits as u32, rt(1).bits as u32);
                let lo = self.g.trunc(lo, t0);
                let hi = self.g.trunc(hi, t1);
                return Ok(vec![lo, hi]);
            }
            Op::AddCarry { size } => {
                let xs = [
                    self.unsigned(d.args[0], k)?,
                    self.unsigned(d.args[1], k)?,
                    self.unsigned(d.args[2], k)?,
                ];
                let size = size as u32;
                let s = self.g.sum(size, &xs);
                let c = self.g.carry(size, &xs, 0);
                let s = self.g.trunc(s, rt(0).bits as u32);
                let c = self.g.trunc(c, rt(1).bits as u32);
                return Ok(vec![s, c]);
            }
            Op::SubBorrow { size } => {
                let c = self.unsigned(d.args[0], k)?;
                let a = self.unsigned(d.args[1], k)?;
                let b = self.unsigned(d.args[2], k)?;
                let size = size as u32;
                let sm = mask(size);
                let diff = self.g.add(size, &[(a, 1), (b, sm), (c, sm)], 0);
                // Fiat's borrow is -⌊(a - b - c) / 2^size⌋ mod 2^t. For size 64 (operands
                // below 2^64, b + c ≤ 2^64) it is the comparison a < b + c. For a narrow
                // size with size + t ≤ 64 it is minus bits size..size+t of the difference
                // mod 2^64 (the bits above 64 do not reach them).
                let (ia, ib, ic) = (self.g.info(a), self.g.info(b), self.g.info(c));
                let t = rt(1).bits as u32;
                let fits = ia.ub <= sm
                    && ib
                        .ub
                        .checked_add(ic.ub)
                        .is_some_and(|s| s <= sm.saturating_add(1));
                let bo = if size == 64 && fits {
                    self.g.borrow(a, &[b, c], 0)
                } else if size < 64 && size + t <= 64 && ia.ub.max(ib.ub).max(ic.ub) <= mask(64) {
                    let d = self.g.add(64, &[(a, 1), (b, mask(64)), (c, mask(64))], 0);
                    let q = self.g.slice(d, size, t);
                    self.g.add(t, &[(q, mask(t))], 0)
                } else {
                    return Err(self.fail(
                        k,
                        format!("subborrowx.{size} with a {t}-bit borrow and these operand bounds"),
                    ));
                };
                let diff = self.g.trunc(diff, rt(0).bits as u32);
                let bo = self.g.trunc(bo, rt(1).bits as u32);
                return Ok(vec![diff, bo]);
            }
        };
        Ok(vec![self.g.trunc(one, w)])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::Sym;
    use cryptopt_frontend::fiat;
    use cryptopt_ir::{inputs, interp, lower};
    use rand::SeedableRng;

    /// The symbolic execution, evaluated on concrete inputs, agrees with the reference
    /// interpreter on every function of ../shared/fiat-json, in both dialects.
    #[test]
    fn agrees_with_the_interpreter() {
        let Some(dir) = std::env::var_os("CRYPTOPT_FIAT_JSON") else {
            eprintln!("SKIPPED agrees_with_the_interpreter: CRYPTOPT_FIAT_JSON is not set");
            return;
        };
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(5);
        let (mut functions, mut runs) = (0, 0);
        let mut refused = Vec::new();
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .expect("fiat-json folder")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        files.sort();
        for path in files {
            let text = std::fs::read_to_string(&path).expect("readable");
            for f in fiat::parse_functions(&text).expect("parses") {
                let lowered = lower::lower(&f).ok();
                for (dialect, func) in [("fiat", Some(&f)), ("lowered", lowered.as_ref())] {
                    let Some(func) = func else { continue };
                    let mut g = Graph::new();
                    let r = match execute(&mut g, func) {
                        Ok(r) => r,
                        Err(e) => {
                            refused.push(format!("{} ({dialect}): {e}", f.name));
                            continue;
                        }
                    };
                    functions += 1;
                    let mut cases = inputs::edge_cases(&f);
                    cases.extend((0..16).map(|_| inputs::random(&f, &mut rng)));
                    for x in &cases {
                        let want = interp::run(&f, x).expect("interpreter");
                        let vals = g.eval(&mut |s| match s {
                            Sym::Input { param, index } => x[param as usize][index as usize],
                            _ => 0,
                        });
                        for (ret, outs) in r.outputs.iter().enumerate() {
                            for (i, n) in outs.iter().enumerate() {
                                let n = n.expect("every output is stored");
                                assert_eq!(
                                    vals[n.index()],
                                    want[ret][i],
                                    "{} ({dialect}) {}[{i}] on {x:x?}",
                                    f.name,
                                    f.returns[ret].name
                                );
                            }
                        }
                        runs += 1;
                    }
                }
            }
        }
        eprintln!(
            "agrees_with_the_interpreter: {functions} function bodies, {runs} input sets; \
             refused {}: {refused:#?}",
            refused.len()
        );
        assert!(functions >= 300, "only {functions} function bodies checked");
    }
}
