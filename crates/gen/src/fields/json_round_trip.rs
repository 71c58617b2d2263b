//! The Fiat JSON writer (`cryptopt_emit::to_fiat_json`) on the builder's canonical forms:
//! every way the generators store an output reads back as the same function.

use super::build::{Builder, Opnd};
use cryptopt_emit::to_fiat_json;
use cryptopt_ir::func::{Op, Param, Ty};
use serde_json::json;

fn arr(name: &str, n: u32) -> Param {
    Param::unbounded(name, Ty::U64, Some(n))
}

/// Every way the generators store an output survives the round trip: a value
/// computed right before its store, a value read again later, an argument, a literal;
/// and an unused second result is written as `_`.
#[test]
fn canonical_forms_round_trip() {
    let mut b = Builder::new(
        "f".into(),
        vec![
            arr("arg1", 2),
            Param {
                len: None,
                lbound: vec![0],
                ubound: vec![1],
                ty: Ty::U1,
                name: "arg2".into(),
            },
        ],
        vec![arr("out1", 5)],
    );
    let (s, _carry) = b.op2(
        Op::AddCarry { size: 64 },
        &[Opnd::Arg(1, 0), Opnd::Arg(0, 0), Opnd::Arg(0, 1)],
        [Ty::U64, Ty::U1],
    );
    let t = b.op1(Op::Mul, &[s, Opnd::K(19)], Ty::U64);
    b.store(0, 0, t); // direct: computed right before, read once
    let u = b.op1(Op::Xor, &[s, Opnd::K(1)], Ty::U64);
    b.store(0, 1, s); // read twice: through a cast
    b.store(0, 2, Opnd::Arg(0, 1)); // an argument: through a cast
    b.store(0, 3, Opnd::K(7)); // a literal: through a cast
    b.store(0, 4, u); // not right before its store: through a cast
    let f = b.finish().unwrap();
    let j = to_fiat_json(&f).unwrap();
    assert_eq!(j["body"][0]["name"], json!(["x1", "_"]));
    assert_eq!(
        j["body"][0]["arguments"],
        json!(["arg2", "arg1[0]", "arg1[1]"])
    );
    assert_eq!(j["body"][1]["name"], json!(["out1[0]"]));
    assert_eq!(j["body"][1]["operation"], "*");
    let back = cryptopt_frontend::fiat::parse_functions(&j.to_string()).unwrap();
    assert_eq!(back, [f]);
}
