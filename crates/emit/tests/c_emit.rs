//! The C emitter (`cryptopt_emit::c`): a golden file for the running example (and the first
//! lines of fiat_p256_mul), and the shape of the C for every function of
//! ../shared/fiat-json: no branches, every output element assigned exactly once, the
//! prototype is the definition's first line. Whether the C computes what the interpreter
//! computes is tested in crates/measure/tests/baseline.rs, where it is compiled and run.
//!
//! Set `CRYPTOPT_BLESS=1` to rewrite the golden files after an intended change, then
//! review the diff.

use cryptopt_testkit as common;

use std::path::Path;

use cryptopt_emit::c;
use cryptopt_frontend::fiat;
use cryptopt_ir::Function;

/// Where the golden files are (rewrite them with CRYPTOPT_BLESS=1, then review the diff).
const GOLDEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden");

fn golden(name: &str, got: &str) {
    cryptopt_testkit::golden(GOLDEN, name, got)
}

#[test]
fn running_example_golden() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/running_example.json");
    let f =
        fiat::parse_function(&std::fs::read_to_string(path).unwrap(), "example_running").unwrap();
    check_shape(&f);
    golden("running_example.c", &c::emit(&f));
    assert_eq!(
        c::prototype(&f),
        "void example_running(uint64_t out1[2], uint64_t arg1, uint64_t arg2, uint64_t arg3);"
    );
}

#[test]
fn p256_mul_first_lines_golden() {
    let Some(dir) = common::fiat_dir("p256_mul_first_lines_golden") else {
        return;
    };
    let f = common::function(&dir, "p256_64.json", "fiat_p256_mul");
    let text = c::emit(&f);
    let head: Vec<&str> = text.lines().take(40).collect();
    golden("fiat_p256_mul.head.c", &(head.join("\n") + "\n"));
}

/// The shape every emitted function must have.
fn check_shape(f: &Function) {
    let text = c::emit(f);
    let proto = c::prototype(f);
    let def = format!("{} {{", proto.trim_end_matches(';'));
    assert!(text.starts_with(c::PRELUDE), "{}: no prelude", f.name);
    assert_eq!(
        text.lines().filter(|l| *l == def).count(),
        1,
        "{}: the prototype {proto} is not the definition's first line",
        f.name
    );
    let body = &text[text.find(&def).unwrap()..];
    for branchy in ["?", " if ", "if (", "while", "for (", "goto", "switch"] {
        assert!(
            !body.contains(branchy),
            "{}: `{branchy}` in\n{body}",
            f.name
        );
    }
    // Every output element is assigned exactly once (outputs keep their Fiat names).
    for r in &f.returns {
        for i in 0..r.elems() {
            let lhs = match r.len {
                Some(_) => format!("  {}[{i}] = ", r.name),
                None => format!("  *{} = ", r.name),
            };
            let n = body.lines().filter(|l| l.starts_with(&lhs)).count();
            assert_eq!(n, 1, "{}: `{}` assigned {n} times", f.name, lhs.trim());
        }
    }
}

#[test]
fn every_function_has_the_shape() {
    let Some(dir) = common::fiat_dir("every_function_has_the_shape") else {
        return;
    };
    let mut n = 0;
    for (_, funcs) in common::all_files(&dir) {
        for f in &funcs {
            check_shape(f);
            n += 1;
        }
    }
    eprintln!("checked the C of {n} functions");
    assert!(n >= 150, "only {n} functions");
}
