//! Passes where aws-lc-sys built AWS-LC (its `links` root: the static library and the
//! headers) to the binary, for `bench --primitives`'s AWS-LC column.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    for (key, root) in std::env::vars() {
        let Some(links) = key
            .strip_prefix("DEP_")
            .and_then(|k| k.strip_suffix("_ROOT"))
            .filter(|k| k.starts_with("AWS_LC_"))
        else {
            continue;
        };
        // The library's symbol prefix is its `links` name: aws_lc_0_47_0.
        println!("cargo:rustc-env=CRYPTOPT_AWS_LC_ROOT={root}");
        println!(
            "cargo:rustc-env=CRYPTOPT_AWS_LC_PREFIX={}",
            links.to_lowercase()
        );
    }
}
