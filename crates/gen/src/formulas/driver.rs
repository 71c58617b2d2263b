//! A formula as C calling a library of separately built field operations: what a library
//! does today (Fiat's operations, composed by BoringSSL's or libsodium's C), and the
//! benchmark's point of comparison for a formula optimized as one function.
//!
//! ```text
//!   x25519::step ──Ops for Driver──▶ C: one call per operation into tN[] temporaries,
//!                                       the swap as masks, the outputs copied at the end
//!                └── the operations it called ──▶ one Function each (Fiat's conventions:
//!                    add/sub tight → loose, carry_mul/carry_square/carry_scmul loose → tight)
//! ```
//!
//! Every operation is the field generator's own (`fields::generate`) or, for the
//! multiplication by a small constant, the same `Unsat` code the inline formula uses, so
//! the driver computes exactly the formula's limbs whenever the inline composition
//! needed no carry beyond the multiplications' (the case for the X25519 ladder step).
//! The driver must never branch on data (the swap is masks) and never call an operation
//! with an element outside that operation's input bounds: it tracks which elements are
//! tight and which loose, and refuses a formula that would need a carry it has no
//! operation for.

use std::collections::BTreeMap;
use std::fmt::Write;

use cryptopt_ir::func::{Function, Param, Ty};

use super::unsat::{Stats, Unsat};
use super::{x25519, Formula, Ops};
use crate::fields::build::{Builder, Opnd};
use crate::fields::solinas::Gen;
use crate::fields::{FieldError, FieldOp, FieldSpec};

/// A formula as C over a library of field operations.
pub struct Library {
    /// The operations the C calls, one function each (Fiat dialect), by name.
    pub ops: Vec<Function>,
    /// C source (with `stdint.h`) defining `symbol`, of the formula's own C signature,
    /// which calls `ops` (declared `extern` there).
    pub source: String,
    /// `<formula's function name>_from_ops`.
    pub symbol: String,
}

/// An operation the driver calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Call {
    Field(FieldOp),
    /// Multiplication by a small constant, then the carry chain.
    Scmul(u64),
}

/// An element: the C array holding it, and whether it is within the tight bounds.
#[derive(Clone, Debug)]
struct Elem {
    name: String,
    tight: bool,
}

struct Driver {
    prefix: String,
    limbs: usize,
    body: String,
    temps: usize,
    used: BTreeMap<Call, String>,
}

impl Driver {
    fn temp(&mut self) -> String {
        self.temps += 1;
        let t = format!("t{}", self.temps);
        let _ = writeln!(self.body, "    uint64_t {t}[{}];", self.limbs);
        t
    }

    /// `out = op(args…)`; the arguments must be within `need_tight` bounds or loose.
    fn call(&mut self, call: Call, args: &[&Elem], tight_in: bool) -> Result<Elem, String> {
        if tight_in {
            if let Some(a) = args.iter().find(|a| !a.tight) {
                return Err(format!(
                    "{:?} needs tight operands and `{}` is loose (no carry operation to call)",
                    call, a.name
                ));
            }
        }
        let name = match call {
            Call::Field(op) => {
                let fname = match op {
                    FieldOp::Mul => "carry_mul",
                    FieldOp::Square => "carry_square",
                    FieldOp::Add => "add",
                    FieldOp::Sub => "sub",
                    FieldOp::Opp => "opp",
                };
                format!("fiat_{}_{fname}", self.prefix)
            }
            Call::Scmul(c) => format!("fiat_{}_carry_scmul_{c}", self.prefix),
        };
        self.used.insert(call, name.clone());
        let t = self.temp();
        let list: Vec<&str> = args.iter().map(|a| a.name.as_str()).collect();
        let _ = writeln!(self.body, "    {name}({t}, {});", list.join(", "));
        let tight = !matches!(
            call,
            Call::Field(FieldOp::Add | FieldOp::Sub | FieldOp::Opp)
        );
        Ok(Elem { name: t, tight })
    }
}

impl Ops for Driver {
    type Fe = Elem;
    fn add(&mut self, a: &Elem, b: &Elem) -> Result<Elem, String> {
        self.call(Call::Field(FieldOp::Add), &[a, b], true)
    }
    fn sub(&mut self, a: &Elem, b: &Elem) -> Result<Elem, String> {
        self.call(Call::Field(FieldOp::Sub), &[a, b], true)
    }
    fn mul(&mut self, a: &Elem, b: &Elem, square: bool) -> Result<Elem, String> {
        if square {
            self.call(Call::Field(FieldOp::Square), &[a], false)
        } else {
            self.call(Call::Field(FieldOp::Mul), &[a, b], false)
        }
    }
    fn mul_small(&mut self, a: &Elem, c: u64) -> Result<Elem, String> {
        self.call(Call::Scmul(c), &[a], false)
    }
    fn cswap(&mut self, a: &Elem, b: &Elem) -> (Elem, Elem) {
        let (x, y) = (self.temp(), self.temp());
        let _ = writeln!(
            self.body,
            "    for (int i = 0; i < {}; i++) {{ uint64_t m = 0 - (uint64_t)(arg1 & 1); \
             {x}[i] = ({a}[i] & ~m) | ({b}[i] & m); {y}[i] = ({b}[i] & ~m) | ({a}[i] & m); }}",
            self.limbs,
            a = a.name,
            b = b.name
        );
        // The pair is as tight as both inputs.
        let tight = a.tight && b.tight;
        (Elem { name: x, tight }, Elem { name: y, tight })
    }
}

/// `formula` over `spec` as C calling separately built field operations; `f` is the
/// formula's own function ([`super::generate`]), whose C signature the driver has.
pub fn library(formula: Formula, spec: &FieldSpec, f: &Function) -> Result<Library, FieldError> {
    let internal = |message: String| FieldError::Internal {
        function: f.name.clone(),
        message,
    };
    let limbs = spec.limbs() as usize;
    let mut d = Driver {
        prefix: spec.name.clone(),
        limbs,
        body: String::new(),
        temps: 0,
        used: BTreeMap::new(),
    };
    let outs = match formula {
        Formula::X25519Ladderstep => {
            // Arguments are within the tight bounds (the function's declared bounds).
            let arg = |k: u32| Elem {
                name: format!("arg{}", k + 1),
                tight: true,
            };
            x25519::step(&mut d, [1, 2, 3, 4, 5].map(arg))
                .map_err(internal)?
                .to_vec()
        }
    };
    let mut source = String::from("#include <stdint.h>\n\n");
    for (call, name) in &d.used {
        let arity = match call {
            Call::Field(op) => op.arity(),
            Call::Scmul(_) => 1,
        };
        let args: Vec<String> = (1..=arity)
            .map(|k| format!("const uint64_t arg{k}[{limbs}]"))
            .collect();
        let _ = writeln!(
            source,
            "extern void {name}(uint64_t out1[{limbs}], {});",
            args.join(", ")
        );
    }
    let symbol = format!("{}_from_ops", f.name);
    let mut sig = Vec::new();
    for r in &f.returns {
        sig.push(c_param(r, false).map_err(internal)?);
    }
    for p in &f.params {
        sig.push(c_param(p, true).map_err(internal)?);
    }
    let _ = writeln!(source, "\nvoid {symbol}({}) {{", sig.join(", "));
    source.push_str(&d.body);
    for (k, x) in outs.iter().enumerate() {
        if !x.tight {
            return Err(internal(format!("output {} would be loose", k + 1)));
        }
        let _ = writeln!(
            source,
            "    for (int i = 0; i < {limbs}; i++) out{}[i] = {}[i];",
            k + 1,
            x.name
        );
    }
    source.push_str("}\n");

    let mut ops = Vec::new();
    for call in d.used.keys() {
        ops.push(match *call {
            Call::Field(op) => crate::fields::generate(spec, op)?,
            Call::Scmul(c) => scmul(spec, c)?,
        });
    }
    Ok(Library {
        ops,
        source,
        symbol,
    })
}

/// The C parameter for `p`: arrays of u64 and u1 scalars, as Fiat's C has them.
fn c_param(p: &Param, input: bool) -> Result<String, String> {
    match (p.len, p.ty) {
        (Some(n), Ty::U64) => Ok(format!(
            "{}uint64_t {}[{n}]",
            if input { "const " } else { "" },
            p.name
        )),
        (None, Ty::U1) if input => Ok(format!("unsigned char {}", p.name)),
        _ => Err(format!("`{}` of type {} has no C form here", p.name, p.ty)),
    }
}

/// `fiat_<field>_carry_scmul_<c>`: `out1 = c·arg1`, loose in, tight out, by the same
/// code the inline formulas use ([`Unsat::mul_small`]).
fn scmul(spec: &FieldSpec, c: u64) -> Result<Function, FieldError> {
    let name = format!("fiat_{}_carry_scmul_{c}", spec.name);
    let internal = |message: String| FieldError::Internal {
        function: name.clone(),
        message,
    };
    let p = spec
        .solinas_params()
        .ok_or_else(|| internal("needs the unsaturated representation".into()))?;
    let (tight, loose) = (spec.tight_bounds(), spec.loose_bounds());
    let mut u = Unsat {
        g: Gen {
            b: Builder::new(
                name.clone(),
                vec![Param::array("arg1", Ty::U64, &loose)],
                vec![Param::array("out1", Ty::U64, &tight)],
            ),
        },
        p,
        stats: Stats::default(),
        swap: Opnd::K(0),
    };
    let x = u.arg(0, &loose);
    let r = u.mul_small(&x, c).map_err(internal)?;
    let r = u.within(&r, &tight).map_err(internal)?;
    for (i, l) in r.iter().enumerate() {
        u.g.b.store(0, i as u32, l.o);
    }
    u.g.b.finish()
}
