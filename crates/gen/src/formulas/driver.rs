//! A formula as C calling a library of separately built field operations: what a library
//! does today (Fiat's operations, composed by BoringSSL's or libsodium's C), and the
//! benchmark's point of comparison for a formula optimized as one function.
//!
//! ```text
//!   Formula::run ──Ops for Driver──▶ C statements: one call per operation into tN[]
//!                                    temporaries, the swap as masks, the outputs copied
//!                └── the operations it called ──▶ one Function each (Fiat's conventions:
//!                    add/sub tight → loose, carry_mul/carry_square/carry_scmul loose → tight)
//! ```
//!
//! Every operation is the field generator's own (`fields::generate`) or, for the
//! multiplication by a small constant, the same code the inline formula uses (`inline`), so
//! the driver computes exactly the formula's limbs whenever the inline composition
//! needed no carry beyond the multiplications' (the case for the X25519 ladder step).
//! The C declarations are the C emitter's (`cryptopt_emit::c`), not this module's: it
//! only writes the body. The driver must never branch on data (the swap is masks) and
//! never call an operation with an element outside that operation's input bounds: it
//! tracks which elements are tight and which loose, and refuses a formula that would
//! need a carry it has no operation for.

use std::collections::BTreeMap;
use std::fmt::Write;

use num_bigint::BigUint;

use cryptopt_ir::func::Function;

use super::inline::{inline, Body};
use super::{Formula, Ops};
use crate::fields::{FieldError, FieldOp, FieldSpec, Repr};

/// A formula as C over a library of field operations.
pub struct Library {
    /// The operations the C calls, one function each (Fiat dialect), by name.
    pub ops: Vec<Function>,
    /// The statements of the driver's body: with the formula's own signature (its
    /// parameter and output names) under the name `symbol`, calling `ops` by name.
    pub body: String,
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

struct Driver<'s> {
    spec: &'s FieldSpec,
    /// The C names of the formula's swap bits, and the one `cswap` uses now.
    swaps: Vec<String>,
    swap: usize,
    body: String,
    temps: usize,
    /// Each operation called, built at its first call.
    used: BTreeMap<Call, Function>,
}

impl Driver<'_> {
    fn temp(&mut self) -> String {
        self.temps += 1;
        let t = format!("t{}", self.temps);
        let _ = writeln!(self.body, "    uint64_t {t}[{}];", self.spec.limbs());
        t
    }

    /// A new temporary = `call(args…)`; with `tight_in`, every argument must be tight.
    fn call(&mut self, call: Call, args: &[&Elem], tight_in: bool) -> Result<Elem, FieldError> {
        if let Some(a) = args.iter().find(|a| tight_in && !a.tight) {
            return Err(FieldError::compose(format!(
                "{call:?} needs tight operands and `{}` is loose (no carry operation to call)",
                a.name
            )));
        }
        if !self.used.contains_key(&call) {
            let f = match call {
                Call::Field(op) => crate::fields::generate(self.spec, op),
                Call::Scmul(c) => scmul(self.spec, c),
            };
            self.used.insert(call, f?);
        }
        let name = self.used[&call].name.clone();
        let t = self.temp();
        let list: Vec<&str> = args.iter().map(|a| a.name.as_str()).collect();
        let _ = writeln!(self.body, "    {name}({t}, {});", list.join(", "));
        Ok(Elem {
            name: t,
            tight: self.tight_out(call),
        })
    }

    /// Whether `call`'s output is within the tight bounds (else loose): Solinas
    /// additions and subtractions leave their result loose; every Montgomery operation
    /// reduces fully.
    fn tight_out(&self, call: Call) -> bool {
        matches!(self.spec.repr, Repr::Montgomery | Repr::Saturated)
            || !matches!(
                call,
                Call::Field(FieldOp::Add | FieldOp::Sub | FieldOp::Opp)
            )
    }
}

impl Ops for Driver<'_> {
    type Fe = Elem;
    fn add(&mut self, a: &Elem, b: &Elem) -> Result<Elem, FieldError> {
        self.call(Call::Field(FieldOp::Add), &[a, b], true)
    }
    fn sub(&mut self, a: &Elem, b: &Elem) -> Result<Elem, FieldError> {
        self.call(Call::Field(FieldOp::Sub), &[a, b], true)
    }
    fn mul(&mut self, a: &Elem, b: &Elem, square: bool) -> Result<Elem, FieldError> {
        if square {
            self.call(Call::Field(FieldOp::Square), &[a], false)
        } else {
            self.call(Call::Field(FieldOp::Mul), &[a, b], false)
        }
    }
    fn mul_small(&mut self, a: &Elem, c: u64) -> Result<Elem, FieldError> {
        self.call(Call::Scmul(c), &[a], false)
    }
    /// A `static const` array holding `c` in the representation (`FieldSpec::encode`:
    /// Montgomery's `c·R`).
    fn constant(&mut self, c: &BigUint) -> Elem {
        let words: Vec<String> = self
            .spec
            .encode(c)
            .iter()
            .map(|w| format!("{w:#x}"))
            .collect();
        self.temps += 1;
        let name = format!("k{}", self.temps);
        let _ = writeln!(
            self.body,
            "    static const uint64_t {name}[{}] = {{{}}};",
            words.len(),
            words.join(", ")
        );
        Elem { name, tight: true }
    }
    fn use_swap(&mut self, k: usize) {
        self.swap = k;
    }
    fn cswap(&mut self, a: &Elem, b: &Elem) -> (Elem, Elem) {
        let (x, y) = (self.temp(), self.temp());
        let _ = writeln!(
            self.body,
            "    for (int i = 0; i < {}; i++) {{ uint64_t m = 0 - (uint64_t)({s} & 1); \
             {x}[i] = ({a}[i] & ~m) | ({b}[i] & m); {y}[i] = ({b}[i] & ~m) | ({a}[i] & m); }}",
            self.spec.limbs(),
            s = self.swaps[self.swap],
            a = a.name,
            b = b.name
        );
        // The pair is as tight as both inputs.
        let tight = a.tight && b.tight;
        (Elem { name: x, tight }, Elem { name: y, tight })
    }
}

/// `formula` over `spec` as C calling separately built field operations; `f` is the
/// formula's own function ([`super::generate`]), whose signature the driver has.
pub fn library(formula: Formula, spec: &FieldSpec, f: &Function) -> Result<Library, FieldError> {
    let internal = |message: String| FieldError::Internal {
        function: f.name.clone(),
        message,
    };
    let swaps = formula
        .swap_params()
        .map(|p| format!("arg{}", p + 1))
        .collect();
    let mut d = Driver {
        spec,
        swaps,
        swap: 0,
        body: String::new(),
        temps: 0,
        used: BTreeMap::new(),
    };
    // Arguments are within the tight bounds (the function's declared bounds).
    let param = |k: usize| 1 + formula.input_param(k);
    let limbs = spec.limbs() as usize;
    // Element `e` of a parameter holding several is a pointer into it.
    let at = |param: String, n: usize, e: usize| {
        if n == 1 {
            param
        } else {
            format!("({param} + {})", e * limbs)
        }
    };
    let args = formula
        .params_in()
        .iter()
        .enumerate()
        .flat_map(|(k, &n)| (0..n).map(move |e| (k, n, e)))
        .map(|(k, n, e)| Elem {
            name: at(format!("arg{}", param(k)), n, e),
            tight: true,
        })
        .collect();
    // The text's order: one call at a time as written (scheduling across operations
    // is what the formula as one function adds).
    let outs = formula
        .text(&mut d, args)
        .map_err(|e| internal(e.to_string()))?;
    let places = formula
        .params_out()
        .iter()
        .enumerate()
        .flat_map(|(k, &n)| (0..n).map(move |e| (k, n, e)));
    for (x, (k, n, e)) in outs.iter().zip(places) {
        if !x.tight {
            return Err(internal(format!("output {} would be loose", k + 1)));
        }
        let _ = writeln!(
            d.body,
            "    for (int i = 0; i < {limbs}; i++) {}[i] = {}[i];",
            at(format!("out{}", k + 1), n, e),
            x.name
        );
    }
    Ok(Library {
        ops: d.used.into_values().collect(),
        body: d.body,
        symbol: format!("{}_from_ops", f.name),
    })
}

/// `fiat_<field>_carry_scmul_<c>` (unsaturated: loose in, tight out) or
/// `fiat_<field>_scmul_<c>` (saturated words): `out1 = c·arg1`, by the same code the
/// inline formulas use (each representation's `mul_small`, through `inline`); also
/// `gen --scmul C`.
pub fn scmul(spec: &FieldSpec, c: u64) -> Result<Function, FieldError> {
    if c == 0 || c >= 1 << 32 {
        return Err(FieldError::BadConstant { c });
    }
    let op = match spec.repr {
        Repr::Solinas { .. } => "carry_scmul",
        Repr::Montgomery | Repr::Saturated => "scmul",
    };
    let name = format!("fiat_{}_{op}_{c}", spec.prefix());
    Ok(inline(Body::Scmul(c), name, spec)?.0)
}
