//! A whole Diffie–Hellman primitive as a static library built from code cryptopt
//! optimized and proved: what it is made of ([`recipe`]) and how the library is built
//! and self-tested ([`build`]); the searches in between are the caller's (`optimize`).
//!
//! ```text
//!  pieces (generator: ladder step, field ops) ─▶ optimize each (pool; searched, run
//!      against the interpreter, proved) ─▶ DIR/<piece>/<piece>.S
//!  driver C (this folder, constant time) + the .S ─▶ cc -c, ar ─▶ self-test (RFC vectors)
//!      ─▶ DIR/libcryptopt_<name>.a, DIR/cryptopt_<name>.h, DIR/cryptopt_<name>.c
//! ```
//!
//! The driver is C that only sequences proved functions: the scalar loop, the final swap
//! and reduction, byte conversion, all by masks. The library is built in a scratch folder
//! inside DIR and moved into place only after its self-test passed, so a failed or
//! interrupted run never leaves a library behind. This module must never write a
//! library whose pieces were not all proved, and never put a secret-dependent branch or
//! address into a driver (the tests run the library under valgrind to hold it to that).

use std::path::{Path, PathBuf};
use std::process::Command;

use cryptopt_gen::fields::{self, FieldOp, FieldOptions, FieldSpec, ReprChoice};
use cryptopt_gen::formulas::{self, Formula};
use cryptopt_ir::Function;

use crate::{Error, Result};

mod ecdh;
mod glv;

/// The primitives cryptopt builds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Primitive {
    /// X25519 (RFC 7748).
    X25519,
    /// P-256 ECDH.
    P256,
    /// secp256k1 ECDH, libsecp256k1's hashed output.
    Secp256k1,
    /// Diffie–Hellman on the Gaudry–Schost Kummer surface over 2^127 − 1.
    Kummer,
}

impl Primitive {
    pub const ALL: [Primitive; 4] = [
        Primitive::X25519,
        Primitive::P256,
        Primitive::Secp256k1,
        Primitive::Kummer,
    ];

    /// The name in files and symbols: `x25519`.
    pub fn as_str(self) -> &'static str {
        match self {
            Primitive::X25519 => "x25519",
            Primitive::P256 => "p256",
            Primitive::Secp256k1 => "secp256k1",
            Primitive::Kummer => "kummer",
        }
    }
}

/// One function the primitive is made of, under the name its driver calls.
pub struct Piece {
    pub f: Function,
    pub representation: String,
}

impl Piece {
    /// `f` renamed `cryptopt_<primitive>_<suffix>`, the name the driver calls.
    fn new(mut f: Function, name: Primitive, suffix: &str, representation: &str) -> Piece {
        f.name = format!("{}_{suffix}", base(name));
        Piece {
            f,
            representation: representation.to_string(),
        }
    }
}

/// What one primitive consists of: its pieces, and the C around them (the driver and
/// header under the names they are shipped with, [`base`]`.c` and `.h`).
pub struct Recipe {
    pub name: Primitive,
    pub pieces: Vec<Piece>,
    pub driver: String,
    pub header: &'static str,
    pub selftest: String,
}

/// A preset field in the representation a primitive's pieces are made in.
fn field(preset: &str, repr: ReprChoice) -> Result<FieldSpec> {
    Ok(fields::resolve(
        preset,
        &FieldOptions {
            repr,
            ..FieldOptions::default()
        },
    )?)
}

/// What `name` is made of.
pub fn recipe(name: Primitive) -> Result<Recipe> {
    match name {
        // The saturated representation (4×64, 2^256 ≡ 38): its ladder step is the faster
        // of the two on every machine measured so far (issue 13's bench).
        Primitive::X25519 => ladder(
            name,
            field("curve25519", ReprChoice::Saturated)?,
            Formula::X25519Ladderstep,
            [
                include_str!("cryptopt_x25519.c"),
                include_str!("cryptopt_x25519.h"),
                include_str!("x25519_selftest.c"),
            ],
        ),
        // The saturated representation (2×64, 2^128 ≡ 2): no carry chain anywhere in the
        // step (the 3-limb one needs them after the Hadamard rows).
        Primitive::Kummer => ladder(
            name,
            field("p127", ReprChoice::Saturated)?,
            Formula::KummerLadderstep,
            [
                include_str!("cryptopt_kummer.c"),
                include_str!("cryptopt_kummer.h"),
                include_str!("kummer_selftest.c"),
            ],
        ),
        Primitive::P256 | Primitive::Secp256k1 => ecdh::recipe(name),
    }
}

/// A ladder's recipe: its step (`formula`), and the field's mul and square for the
/// inversion, all over `spec`; `[driver, header, selftest]` the C around them.
fn ladder(
    name: Primitive,
    spec: FieldSpec,
    formula: Formula,
    [driver, header, selftest]: [&'static str; 3],
) -> Result<Recipe> {
    let representation = spec.representation();
    let named = |f, suffix: &str| Piece::new(f, name, suffix, &representation);
    let (step, _) = formulas::generate(formula, &spec)?;
    Ok(Recipe {
        name,
        pieces: vec![
            named(step, "ladderstep"),
            named(fields::generate(&spec, FieldOp::Mul)?, "mul"),
            named(fields::generate(&spec, FieldOp::Square)?, "square"),
        ],
        driver: driver.to_string(),
        header,
        selftest: selftest.to_string(),
    })
}

/// The stem of the primitive's files and symbols: `cryptopt_x25519` (the driver
/// `cryptopt_x25519.c`, the header `cryptopt_x25519.h`, the archive
/// `libcryptopt_x25519.a`).
pub fn base(name: Primitive) -> String {
    format!("cryptopt_{}", name.as_str())
}

/// The archive's file name: `libcryptopt_x25519.a`.
pub fn archive_name(name: Primitive) -> String {
    format!("lib{}.a", base(name))
}

/// Compiles the driver and assembles `sources` in a scratch folder inside `out`, archives
/// them, runs the self-test against the archive, and only then moves the archive, the
/// header and the driver's source into `out`. Returns the archive's path.
pub fn build(recipe: &Recipe, sources: &[PathBuf], cc: &str, out: &Path) -> Result<PathBuf> {
    let base = base(recipe.name);
    let header = format!("{base}.h");
    let driver = format!("{base}.c");
    let archive = archive_name(recipe.name);
    in_scratch(out, "build", |scratch| {
        let write = |name: &str, text: &str| {
            let path = scratch.join(name);
            std::fs::write(&path, text).map_err(|e| Error::io("write", path, e))
        };
        write(&header, recipe.header)?;
        write(&driver, &recipe.driver)?;
        write("selftest.c", &recipe.selftest)?;

        let mut objects = Vec::new();
        // -O3: the drivers' masked table reads vectorize (P-256 ECDH 1% faster than -O2).
        let mut compile = |src: &Path, obj: String| -> Result<()> {
            run(Command::new(cc)
                .args(["-O3", "-fPIC", "-Wall", "-c", "-I"])
                .arg(scratch)
                .arg(src)
                .arg("-o")
                .arg(scratch.join(&obj)))?;
            objects.push(obj);
            Ok(())
        };
        compile(&scratch.join(&driver), format!("{base}.o"))?;
        for s in sources {
            let stem = s
                .file_stem()
                .ok_or_else(|| Error::Unsupported(format!("{} has no file name", s.display())))?;
            compile(s, format!("{}.o", stem.to_string_lossy()))?;
        }
        run(Command::new("ar")
            .arg("rcs")
            .arg(&archive)
            .args(&objects)
            .current_dir(scratch))?;

        // The self-test links the archive as a user would.
        run(Command::new(cc)
            .args(["-O2", "-I"])
            .arg(scratch)
            .arg(scratch.join("selftest.c"))
            .arg(scratch.join(&archive))
            .arg("-o")
            .arg(scratch.join("selftest")))?;
        let said = run(&mut Command::new(scratch.join("selftest"))).map_err(|e| Error::In {
            context: "the library's self-test failed; no library is written".into(),
            source: Box::new(e),
        })?;
        if said.trim() != "ok" {
            return Err(Error::CheckFailed(format!(
                "the library's self-test said `{}`",
                said.trim()
            )));
        }

        for name in [&driver, &header, &archive] {
            std::fs::rename(scratch.join(name), out.join(name))
                .map_err(|e| Error::io("move a file into", out, e))?;
        }
        Ok(out.join(&archive))
    })
}

/// `work` in a fresh scratch folder `dir/.TAG-<pid>`, removed afterwards whatever
/// happened (nothing half-made stays in `dir`).
pub fn in_scratch<T, E: From<Error>>(
    dir: &Path,
    tag: &str,
    work: impl FnOnce(&Path) -> Result<T, E>,
) -> Result<T, E> {
    let scratch = dir.join(format!(".{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).map_err(|e| Error::io("create", &scratch, e))?;
    let result = work(&scratch);
    let _ = std::fs::remove_dir_all(&scratch);
    result
}

/// Runs a tool; its stdout, or an error with the command and the first lines it said.
pub fn run(cmd: &mut Command) -> Result<String> {
    let shown = format!("{cmd:?}");
    let o = cmd.output().map_err(|e| Error::io("run", &shown, e))?;
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    if !o.status.success() {
        let said = format!("{stdout}{}", String::from_utf8_lossy(&o.stderr));
        let first: Vec<&str> = said.lines().take(8).collect();
        return Err(Error::Unsupported(format!(
            "{shown} failed ({}): {}",
            o.status,
            first.join(" / ")
        )));
    }
    Ok(stdout)
}
