//! The documentation stays true to the tree: every repository path that ARCHITECTURE.md
//! and README.md name (in inline code) exists, both files keep to their length limits
//! (a map and a front page, not a changelog), and every link of the book's SUMMARY.md
//! points at a page that exists.

use std::path::{Path, PathBuf};

const ARCHITECTURE_MAX_LINES: usize = 300;
const README_MAX_LINES: usize = 200;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(rel: &str) -> String {
    let path = repo_root().join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// The text outside fenced code blocks (commands and diagrams are not claims about paths).
fn prose(text: &str) -> String {
    let mut out = String::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// The contents of every inline code span (`...`) of markdown prose.
fn code_spans(text: &str) -> Vec<String> {
    let mut spans = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find('`') {
        let after = &rest[start..];
        let ticks = after.len() - after.trim_start_matches('`').len();
        let body = &after[ticks..];
        let fence = "`".repeat(ticks);
        match body.find(&fence) {
            Some(end) => {
                spans.push(body[..end].trim().to_string());
                rest = &body[end + ticks..];
            }
            None => break,
        }
    }
    spans
}

/// Whether a code span names a path in the repository: it starts with one of the
/// repository's top folders, or it ends in a source or document extension and has a `/`.
fn looks_like_path(token: &str) -> bool {
    if token.is_empty() || token.chars().any(char::is_whitespace) {
        return false;
    }
    let rooted = ["crates/", "docs/", "examples/", ".ci/"]
        .iter()
        .any(|p| token.starts_with(p));
    let by_ext = token.contains('/') && [".rs", ".md", ".toml"].iter().any(|e| token.ends_with(e));
    rooted || by_ext
}

/// Whether a named path exists relative to the repository root; a `*` in its last
/// component matches any file name there (`examples/llvm/*.c`).
fn exists(root: &Path, token: &str) -> bool {
    let token = token.trim_end_matches(['.', ',', ';', ':', ')']);
    if !token.contains('*') {
        return root.join(token).exists();
    }
    let (dir, pattern) = token.rsplit_once('/').unwrap_or(("", token));
    let Some((prefix, suffix)) = pattern.split_once('*') else {
        return false;
    };
    std::fs::read_dir(root.join(dir))
        .map(|entries| {
            entries.flatten().any(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                name.len() >= prefix.len() + suffix.len()
                    && name.starts_with(prefix)
                    && name.ends_with(suffix)
            })
        })
        .unwrap_or(false)
}

fn missing_paths(rel: &str) -> Vec<String> {
    let root = repo_root();
    let mut missing: Vec<String> = code_spans(&prose(&read(rel)))
        .into_iter()
        .filter(|t| looks_like_path(t))
        .filter(|t| !exists(&root, t))
        .collect();
    missing.sort();
    missing.dedup();
    missing
}

#[test]
fn every_path_the_architecture_and_readme_name_exists() {
    let mut problems = Vec::new();
    for doc in ["ARCHITECTURE.md", "README.md"] {
        for path in missing_paths(doc) {
            problems.push(format!("{doc}: `{path}` does not exist"));
        }
    }
    assert!(
        problems.is_empty(),
        "paths named in the docs that are not in the tree ({}):\n  {}",
        problems.len(),
        problems.join("\n  ")
    );
}

#[test]
fn architecture_and_readme_keep_to_their_length() {
    let mut problems = Vec::new();
    for (doc, max) in [
        ("ARCHITECTURE.md", ARCHITECTURE_MAX_LINES),
        ("README.md", README_MAX_LINES),
    ] {
        let lines = read(doc).lines().count();
        if lines > max {
            problems.push(format!(
                "{doc} has {lines} lines, more than {max}: move narrative and figures to docs/"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_page_of_the_book_summary_exists() {
    let summary = read("docs/src/SUMMARY.md");
    let src = repo_root().join("docs/src");
    let mut links = Vec::new();
    let mut rest = summary.as_str();
    while let Some(i) = rest.find("](") {
        let after = &rest[i + 2..];
        let Some(end) = after.find(')') else { break };
        links.push(after[..end].to_string());
        rest = &after[end..];
    }
    assert!(!links.is_empty(), "docs/src/SUMMARY.md links to no page");
    let missing: Vec<&String> = links
        .iter()
        .filter(|l| !l.is_empty())
        .filter(|l| !src.join(l.split('#').next().unwrap_or(l)).is_file())
        .collect();
    assert!(
        missing.is_empty(),
        "pages linked from docs/src/SUMMARY.md that do not exist under docs/src: {missing:?}"
    );
}

#[test]
fn the_path_detector_finds_what_it_should() {
    let spans = code_spans("see `crates/ir` and `a b` and ``x`` and `src/lib.rs`, `Foo::bar`");
    assert_eq!(spans, ["crates/ir", "a b", "x", "src/lib.rs", "Foo::bar"]);
    assert!(looks_like_path("crates/ir"));
    assert!(looks_like_path("src/lib.rs"));
    assert!(looks_like_path(".ci/run"));
    assert!(!looks_like_path("lib.rs"));
    assert!(!looks_like_path("Foo::bar"));
    assert!(!looks_like_path("cargo test --workspace"));
    assert_eq!(prose("a\n```sh\n`crates/nothing`\n```\nb\n"), "a\nb\n");
}
