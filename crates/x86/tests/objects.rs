//! Object conventions (`cryptopt_x86::object`): every format × visibility × symbol
//! name × syntax prints a file that reads back as the same program under the expected
//! symbol, assembles with the assemblers of that format (nasm; GNU as for ELF; llvm-mc
//! for all three), and defines the symbol global, in the code section, with the
//! visibility asked for, its code starting with the program's first instruction.

mod common;

use std::path::Path;
use std::process::Command;

use common::{have, output, run, TempDir};
use cryptopt_x86::object::{Format, Object, Visibility};
use cryptopt_x86::parse::parse;
use cryptopt_x86::print::{gas_for, nasm_for};
use cryptopt_x86::{DataId, Datum, Inst, Mem, Mnemonic as M, Operand as X, Program, Reg, Size};

/// A program with what the wrappers must carry: `endbr64` first, pushes and pops (CFI),
/// a constant read rip-relative.
fn sample() -> Program {
    let mut p = Program::new(
        "fiat_f",
        vec![
            Inst::op0(M::Endbr64),
            Inst::op1(M::Push, X::r64(Reg::Rbx)),
            Inst::op2(
                M::Mov,
                X::r64(Reg::Rax),
                X::Mem(Mem::constant(DataId(0), 8, Size::B64)),
            ),
            Inst::op2(M::Add, X::r64(Reg::Rax), X::r64(Reg::Rbx)),
            Inst::op1(M::Pop, X::r64(Reg::Rbx)),
            Inst::op0(M::Ret),
        ],
    );
    p.data = vec![Datum {
        label: ".LC0".into(),
        align: 16,
        bytes: (1u8..=16).collect(),
    }];
    p
}

/// llvm-mc's target triple for a format.
fn triple(f: Format) -> &'static str {
    match f {
        Format::Elf => "x86_64-unknown-linux-gnu",
        Format::MachO => "x86_64-apple-macos11",
        Format::Coff => "x86_64-pc-windows-gnu",
    }
}

/// The object `path` defines `sym` as a global symbol in its code section, with the
/// visibility `o` asks for, and its first instruction is `endbr64`.
fn check_object(path: &Path, sym: &str, o: &Object, what: &str) {
    let nm = output(Command::new("llvm-nm-19").arg(path));
    assert!(
        nm.lines().any(|l| l.ends_with(&format!(" T {sym}"))),
        "{what}: no global code symbol `{sym}` in:\n{nm}"
    );
    let hidden = o.visibility == Visibility::Hidden;
    match o.format {
        Format::Elf => {
            let syms = output(Command::new("llvm-readobj-19").arg("--symbols").arg(path));
            let entry = syms
                .split("Symbol {")
                .find(|e| e.contains(&format!("Name: {sym} ")))
                .unwrap_or_else(|| panic!("{what}: `{sym}` not in:\n{syms}"));
            assert_eq!(entry.contains("STV_HIDDEN"), hidden, "{what}:\n{entry}");
            assert!(entry.contains("Type: Function"), "{what}:\n{entry}");
        }
        Format::MachO => {
            let m = output(Command::new("llvm-nm-19").arg("-m").arg(path));
            let line = m
                .lines()
                .find(|l| l.ends_with(&format!(" {sym}")))
                .unwrap_or_else(|| panic!("{what}: `{sym}` not in:\n{m}"));
            assert_eq!(line.contains("private external"), hidden, "{what}: {line}");
        }
        // COFF has no visibility: both print the same symbol.
        Format::Coff => {}
    }
    let dis = output(Command::new("llvm-objdump-19").arg("-d").arg(path));
    let body = dis
        .split(&format!("<{sym}>:"))
        .nth(1)
        .unwrap_or_else(|| panic!("{what}: no `{sym}` in:\n{dis}"));
    let first = body.lines().find(|l| l.contains(':')).unwrap_or("");
    assert!(first.contains("endbr64"), "{what}: starts with {first}");
}

#[test]
fn every_convention_reads_back_assembles_and_defines_its_symbol() {
    let test = "objects";
    if !(have("nasm", test)
        && have("llvm-mc-19", test)
        && have("llvm-nm-19", test)
        && have("llvm-readobj-19", test)
        && have("llvm-objdump-19", test))
    {
        return;
    }
    let gnu_as = have("as", test);
    let dir = TempDir::new(test);
    let p = sample();
    let mut n = 0;
    for format in [Format::Elf, Format::MachO, Format::Coff] {
        for visibility in [Visibility::Default, Visibility::Hidden] {
            for symbol in [None, Some("my_mul".to_string())] {
                let o = Object {
                    format,
                    visibility,
                    symbol,
                };
                let sym = o.symbol(&p);
                for (dialect, text) in [("nasm", nasm_for(&p, &o)), ("gas", gas_for(&p, &o))] {
                    let what = format!("{o:?} {dialect}");
                    // Reads back as the same program, named by the symbol.
                    let back = parse(&text).unwrap_or_else(|e| panic!("{what}: {e}\n{text}"));
                    let mut want = p.clone();
                    want.name = sym.clone();
                    assert_eq!(back, vec![want], "{what}:\n{text}");
                    let src = dir.path().join(format!("t{n}.s"));
                    std::fs::write(&src, &text).unwrap();
                    let mut objects = Vec::new();
                    let obj = |tool: &str| dir.path().join(format!("t{n}.{tool}.o"));
                    if dialect == "nasm" {
                        run(Command::new("nasm")
                            .args(["-f", o.nasm_format(), "-o"])
                            .arg(obj("nasm"))
                            .arg(&src));
                        objects.push(obj("nasm"));
                    } else {
                        run(Command::new("llvm-mc-19")
                            .args(["-filetype=obj", "-triple", triple(format), "-o"])
                            .arg(obj("mc"))
                            .arg(&src));
                        objects.push(obj("mc"));
                        if format == Format::Elf && gnu_as {
                            run(Command::new("as").arg("-o").arg(obj("as")).arg(&src));
                            objects.push(obj("as"));
                        }
                    }
                    for path in &objects {
                        check_object(path, &sym, &o, &what);
                    }
                    n += 1;
                }
            }
        }
    }
}
