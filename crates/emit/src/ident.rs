//! What a name may be: the one home of the identifier rules every emitter and the
//! command line's argument checks use.
//!
//! A C name (a header's prototype, a dispatcher's symbol, `--symbol`) is
//! `[A-Za-z_][A-Za-z0-9_]*` and not a keyword of C or C++ (the header is included by
//! both); a Rust name (`--emit rust`) is the same shape and not a Rust keyword. The C
//! emitter's own local names are stricter still (see `c`), but always C names.

use crate::{Error, Result};

/// The keywords of C (C89 to C23) and the C++ keywords a header included from C++ must
/// not use as a function name.
pub const C_KEYWORDS: &[&str] = &[
    "auto",
    "break",
    "case",
    "char",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extern",
    "float",
    "for",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "register",
    "restrict",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "struct",
    "switch",
    "typedef",
    "union",
    "unsigned",
    "void",
    "volatile",
    "while",
    "bool",
    "true",
    "false",
    "asm",
    "typeof",
    "alignas",
    "alignof",
    "constexpr",
    "nullptr",
    "static_assert",
    "thread_local",
    "typeof_unqual",
    "_Alignas",
    "_Alignof",
    "_Atomic",
    "_BitInt",
    "_Bool",
    "_Complex",
    "_Decimal128",
    "_Decimal32",
    "_Decimal64",
    "_Generic",
    "_Imaginary",
    "_Noreturn",
    "_Static_assert",
    "_Thread_local",
    "class",
    "delete",
    "explicit",
    "friend",
    "mutable",
    "namespace",
    "new",
    "noexcept",
    "operator",
    "private",
    "protected",
    "public",
    "template",
    "this",
    "throw",
    "try",
    "catch",
    "virtual",
    "using",
    "typename",
    "decltype",
];

/// Rust's strict and reserved keywords (2015 to 2024 editions).
pub const RUST_KEYWORDS: &[&str] = &[
    "_", "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn",
    "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref",
    "return", "self", "Self", "static", "struct", "super", "trait", "true", "type", "unsafe",
    "use", "where", "while", "async", "await", "dyn", "abstract", "become", "box", "do", "final",
    "macro", "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "gen",
];

/// `[A-Za-z_][A-Za-z0-9_]*`: the shape C and Rust identifiers share.
pub fn has_identifier_shape(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Whether `s` can name a C function: the identifier shape, and not a keyword.
pub fn is_c_identifier(s: &str) -> bool {
    has_identifier_shape(s) && !C_KEYWORDS.contains(&s)
}

/// `s` as a C function name, or the error saying why it cannot be one.
pub fn c_identifier(s: &str) -> Result<()> {
    let why = if !has_identifier_shape(s) {
        "letters, digits and `_`, not starting with a digit"
    } else if C_KEYWORDS.contains(&s) {
        "it is a keyword of C or C++"
    } else {
        return Ok(());
    };
    Err(Error::CName {
        name: s.to_string(),
        why,
    })
}

/// Whether `s` can name a Rust function: the identifier shape, and not a keyword.
pub fn is_rust_identifier(s: &str) -> bool {
    has_identifier_shape(s) && !RUST_KEYWORDS.contains(&s)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One table: (name, a C name, a Rust name).
    #[test]
    fn names() {
        for (name, c, rust) in [
            ("fiat_p256_mul", true, true),
            ("_x", true, true),
            ("x1", true, true),
            ("", false, false),
            ("1x", false, false),
            ("a-b", false, false),
            ("a b", false, false),
            ("é", false, false),
            ("while", false, false),
            ("int", false, true),
            ("class", false, true),
            ("_Bool", false, true),
            ("fn", true, false),
            ("mod", true, false),
            ("_", true, false),
        ] {
            assert_eq!(is_c_identifier(name), c, "C: {name:?}");
            assert_eq!(c_identifier(name).is_ok(), c, "C: {name:?}");
            assert_eq!(is_rust_identifier(name), rust, "Rust: {name:?}");
        }
    }

    #[test]
    fn the_error_says_why() {
        let e = c_identifier("while").unwrap_err().to_string();
        assert_eq!(
            e,
            "`while` is not a C identifier (it is a keyword of C or C++)"
        );
        let e = c_identifier("9lives").unwrap_err().to_string();
        assert!(e.contains("not starting with a digit"), "{e}");
    }
}
