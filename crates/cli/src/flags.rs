//! Errors as the command line speaks: the library crates name parameters (`batches`,
//! `cycle goal`), the user typed flags (`--batches`, `--cycle-goal`). This module is the
//! one place that maps one to the other, and turns an error's chain into one line.

/// A parameter's name in the libraries' errors and the flag that sets it.
const FLAGS: &[(&str, &str)] = &[
    ("batches", "--batches"),
    ("cycle goal", "--cycle-goal"),
    ("cpu", "--cpu"),
    ("function", "--function"),
    ("evals", "--evals"),
    ("bets", "--bets"),
    ("bet ratio", "--bet-ratio"),
    ("repeats", "--repeats"),
    ("compilers", "--compilers"),
    ("calls", "--calls"),
    ("jobs", "--jobs"),
    ("algorithm", "--algorithm"),
];

/// Phrases of the libraries' messages that stand for a flag, and the flag's words.
const PHRASES: &[(&str, &str)] = &[
    (
        "(allow composite moduli to use it)",
        "(use --allow-composite)",
    ),
    ("the limb count applies to", "--limbs applies to"),
    (
        "the solinas representation (unsaturated limbs) or the saturated one",
        "--repr solinas (unsaturated limbs) or --repr saturated",
    ),
    (
        "the montgomery representation (saturated limbs)",
        "--repr montgomery (saturated limbs)",
    ),
    (
        "the ifma representation with the formula x25519-ladderstep over the field curve25519 only",
        "--repr ifma with --formula x25519-ladderstep --field curve25519 only",
    ),
    ("the ifma representation", "--repr ifma"),
    ("the vector representation", "--repr ifma"),
    (
        "latency measurement is not available",
        "--measure latency is not available",
    ),
    ("counter core-cycles: ", "--counter core-cycles: "),
    ("choose another C compiler", "choose another with --cc"),
    ("the Rust module: ", "--emit rust: "),
    ("choose another symbol", "choose another with --symbol"),
];

/// The flag that sets `param` (the parameter's own name where no flag does).
pub(crate) fn flag(param: &str) -> String {
    FLAGS
        .iter()
        .find(|(p, _)| *p == param)
        .map_or_else(|| param.to_string(), |(_, f)| f.to_string())
}

/// The error as one line: the chain of causes joined by `: ` (a cause already written
/// out by the one above it is not repeated), a parameter spelled as its flag.
pub(crate) fn message(e: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if out.ends_with(&text) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&text);
    }
    if let Some((param, problem)) = e.chain().find_map(param_of) {
        let said = format!("{param} {problem}");
        out = out.replacen(&said, &format!("{} {problem}", flag(param)), 1);
    }
    for (said, flagged) in PHRASES {
        out = out.replacen(said, flagged, 1);
    }
    if let Some(c) = e
        .chain()
        .find_map(|c| match c.downcast_ref::<cryptopt_gen::FieldError>() {
            Some(cryptopt_gen::FieldError::BadConstant { c, .. }) => Some(*c),
            _ => None,
        })
    {
        out = out.replacen(&format!("multiplier {c}:"), &format!("--scmul {c}:"), 1);
    }
    out.replace('\n', " ")
}

/// The parameter an error (of any library crate) is about, and what is wrong with it.
fn param_of(e: &(dyn std::error::Error + 'static)) -> Option<(&'static str, String)> {
    use cryptopt_driver::Error as Driver;
    // The driver's nested errors are boxed (`Error::In`); its transparent variants hide
    // the wrapped error from the chain.
    let driver = e
        .downcast_ref::<Driver>()
        .or_else(|| e.downcast_ref::<Box<Driver>>().map(|b| &**b));
    let search = match driver {
        Some(Driver::Param { param, problem }) => return Some((param, problem.clone())),
        Some(Driver::Search(s)) => Some(s),
        Some(_) => None,
        None => e.downcast_ref::<cryptopt_search::Error>(),
    };
    match search {
        Some(cryptopt_search::Error::Param { param, problem }) => Some((param, problem.clone())),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_spelled_as_flags() {
        let e: anyhow::Error =
            cryptopt_driver::Error::param("cycle goal", "must be at least 1").into();
        assert_eq!(message(&e), "--cycle-goal must be at least 1");
        let search: anyhow::Error = cryptopt_driver::Error::from(cryptopt_search::Error::param(
            "bet ratio",
            "must be between 0 and 1",
        ))
        .into();
        assert_eq!(message(&search), "--bet-ratio must be between 0 and 1");
        let nested = cryptopt_driver::Error::In {
            context: "f.json".into(),
            source: Box::new(cryptopt_driver::Error::param("function", "must be named")),
        };
        assert_eq!(message(&nested.into()), "f.json: --function must be named");
        let e = anyhow::anyhow!("plain").context("outer");
        assert_eq!(message(&e), "outer: plain");
    }
}
