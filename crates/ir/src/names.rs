//! "Did you mean": the one home of the suggestion every "unknown name" error gives
//! (functions in a file, field presets, operations). Pure string work, no I/O.

/// The known name closest to `name`, when it is close enough to be a likely typo
/// (Jaro–Winkler similarity at least 0.8, or `name` a case-insensitive prefix of it).
pub fn closest<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let lower = name.to_ascii_lowercase();
    known
        .into_iter()
        .map(|k| {
            let score = if !lower.is_empty() && k.to_ascii_lowercase().starts_with(&lower) {
                1.0
            } else {
                strsim::jaro_winkler(&lower, &k.to_ascii_lowercase())
            };
            (k, score)
        })
        .filter(|&(_, s)| s >= 0.8)
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(k, _)| k)
}

/// `"; did you mean `x`?"`, or nothing: appended to an "unknown name" message.
pub fn did_you_mean<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> String {
    closest(name, known).map_or_else(String::new, |k| format!("; did you mean `{k}`?"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(name: &str, known: &[&str], expect: Option<&str>) {
        assert_eq!(closest(name, known.iter().copied()), expect, "{name}");
    }

    #[test]
    fn suggestions() {
        let fns = [
            "fiat_p256_mul",
            "fiat_p256_square",
            "fiat_p256_add",
            "fiat_p384_mul",
        ];
        check("fiat_p256_mull", &fns, Some("fiat_p256_mul"));
        check("fiat_p256_sqaure", &fns, Some("fiat_p256_square"));
        check("FIAT_P384_MUL", &fns, Some("fiat_p384_mul"));
        check("fiat_p256_sq", &fns, Some("fiat_p256_square"));
        check("xyz", &fns, None);
        let presets = ["curve25519", "p224", "p256", "secp256k1"];
        check("curve2519", &presets, Some("curve25519"));
        check("secp256k", &presets, Some("secp256k1"));
        check("ed448", &presets, None);
        assert_eq!(did_you_mean("p265", presets), "; did you mean `p256`?");
        assert_eq!(did_you_mean("zzzz", presets), "");
    }
}
