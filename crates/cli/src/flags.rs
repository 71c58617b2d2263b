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
    out.replace('\n', " ")
}

/// The parameter an error (of any library crate) is about, and what is wrong with it.
fn param_of(e: &(dyn std::error::Error + 'static)) -> Option<(&'static str, String)> {
    match e.downcast_ref::<cryptopt_driver::Error>()? {
        cryptopt_driver::Error::Param { param, problem } => Some((param, problem.clone())),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_spelled_as_flags() {
        let e: anyhow::Error = cryptopt_driver::Error::param("cycle goal", "must be at least 1").into();
        assert_eq!(message(&e), "--cycle-goal must be at least 1");
        let nested = cryptopt_driver::Error::In {
            context: "f.json".into(),
            source: Box::new(cryptopt_driver::Error::param("function", "must be named")),
        };
        assert_eq!(message(&nested.into()), "f.json: --function must be named");
        let e = anyhow::anyhow!("plain").context("outer");
        assert_eq!(message(&e), "outer: plain");
    }
}
