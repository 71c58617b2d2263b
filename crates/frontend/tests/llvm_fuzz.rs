//! The LLVM IR reader never panics: random edits of the example files (lines dropped,
//! duplicated, swapped, truncated; bytes and numbers replaced) and random text give a
//! function or an error, nothing else. A property test run briefly with every
//! `cargo test` (the fuzz target of issue 17).

use cryptopt_frontend::llvm;
use proptest::prelude::*;

fn examples() -> Vec<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/llvm");
    ["secp256k1_5x52.ll", "x25519_bitint.ll"]
        .iter()
        .map(|f| std::fs::read_to_string(dir.join(f)).expect("the example .ll files"))
        .collect()
}

/// Pieces a mutation may put in: tokens of the subset and of what is outside it.
const PIECES: [&str; 16] = [
    "%",
    "@",
    ",",
    "i64",
    "i0",
    "i99999999",
    "ptr",
    "-1",
    "340282366920938463463374607431768211456",
    "getelementptr i8, ptr %1, i64 -8",
    "br label %3",
    "{",
    "}",
    "\"",
    "é",
    "x",
];

/// Applies one edit, chosen by `kind`, at positions drawn from `a` and `b`.
fn mutate(text: &str, kind: u8, a: u64, b: u64) -> String {
    let mut lines: Vec<&str> = text.lines().collect();
    let n = lines.len().max(1) as u64;
    let (i, j) = ((a % n) as usize, (b % n) as usize);
    match kind % 7 {
        0 if !lines.is_empty() => {
            lines.remove(i);
            lines.join("\n")
        }
        1 if !lines.is_empty() => {
            lines.insert(j, lines[i]);
            lines.join("\n")
        }
        2 if !lines.is_empty() => {
            lines.swap(i, j);
            lines.join("\n")
        }
        3 => {
            let mut cut = (a as usize) % (text.len() + 1);
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text[..cut].to_string()
        }
        4 => {
            let mut at = (a as usize) % (text.len() + 1);
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            let piece = PIECES[(b % PIECES.len() as u64) as usize];
            format!("{}{piece}{}", &text[..at], &text[at..])
        }
        5 => {
            // Replace every occurrence of one number with another.
            let nums = ["8", "64", "52", "1", "0", "255", "256"];
            let from = nums[(a % nums.len() as u64) as usize];
            let to = nums[(b % nums.len() as u64) as usize];
            text.replacen(from, to, 3)
        }
        _ => {
            let words = [
                "add", "mul", "lshr", "urem", "zext", "trunc", "load", "store",
            ];
            let from = words[(a % words.len() as u64) as usize];
            let to = words[(b % words.len() as u64) as usize];
            text.replacen(from, to, 1)
        }
    }
}

proptest! {
    // 300 cases by default; PROPTEST_CASES=100000 for a longer run.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(300),
        ..ProptestConfig::default()
    })]

    #[test]
    fn mutated_examples_never_panic(
        file in 0usize..2,
        edits in prop::collection::vec((any::<u8>(), any::<u64>(), any::<u64>()), 1..5),
    ) {
        let mut text = examples()[file].clone();
        for (k, a, b) in edits {
            text = mutate(&text, k, a, b);
        }
        let _ = llvm::function_names(&text);
        let _ = llvm::parse_functions(&text);
    }

    #[test]
    fn random_text_never_panics(text in "\\PC{0,300}") {
        let _ = llvm::parse_functions(&text);
        let with_header = format!("define void @f(ptr %0, ptr %1) {{\n{text}\n}}\n");
        let _ = llvm::parse_functions(&with_header);
    }
}

#[test]
fn the_examples_read() {
    for text in examples() {
        let fs = llvm::parse_functions(&text).expect("the examples are in the subset");
        assert!(!fs.is_empty());
    }
}
