//! The Windows x64 calling convention (`--abi win64`) through the binary, run for real:
//! on this Linux machine gcc calls functions declared `__attribute__((ms_abi))`, so a C
//! harness links the optimized win64 program and is compared with the interpreter; the
//! same programs assembled as COFF (`nasm -f win64`, MinGW's `as`) link into a Windows
//! executable, which runs under Wine where it is installed. (The dispatcher under
//! `--abi win64` is tested with the System V one, in `targets.rs`.)

use std::path::Path;
use std::process::Command;

mod common;
use common::*;

/// The functions tested: p256 mul (three pointers, register pressure: rdi/rsi used and
/// saved) and addcarryx (five arguments: the fifth above the home space, byte-sized
/// scalars with junk above them).
const MUL: &str = "fiat_p256_mul";
const ADD: &str = "fiat_p256_addcarryx_u64";

/// A C `main` that calls `mul` and `add` (declared by `decls`) on the words in argv and
/// prints their outputs as `cryptopt interp` does, one JSON line each.
fn harness(decls: &str, mul: &str, add: &str) -> String {
    format!(
        r#"#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
{decls}
int main(int argc, char **argv) {{
    uint64_t a[4], b[4], o[4];
    if (argc != 12) return 2;
    for (int i = 0; i < 4; i++) {{
        a[i] = strtoull(argv[1 + i], 0, 16);
        b[i] = strtoull(argv[5 + i], 0, 16);
    }}
    {mul}(o, a, b);
    printf("{{\"out1\":[\"0x%llx\",\"0x%llx\",\"0x%llx\",\"0x%llx\"]}}\n",
           (unsigned long long)o[0], (unsigned long long)o[1],
           (unsigned long long)o[2], (unsigned long long)o[3]);
    uint64_t s; unsigned char c;
    {add}(&s, &c, (unsigned char)strtoul(argv[9], 0, 16), strtoull(argv[10], 0, 16),
          strtoull(argv[11], 0, 16));
    printf("{{\"out1\":[\"0x%llx\"],\"out2\":[\"0x%x\"]}}\n", (unsigned long long)s, c);
    return 0;
}}
"#
    )
}

/// Inputs: (mul's a and b, within p256's bounds; add's carry, x, y).
const CASES: [[&str; 11]; 3] = [
    [
        "1",
        "2",
        "3",
        "4",
        "5",
        "6",
        "7",
        "8",
        "1",
        "ffffffffffffffff",
        "5",
    ],
    [
        "fffffffffffffffe",
        "ffffffff",
        "0",
        "ffffffff00000001",
        "123456789abcdef",
        "fedcba9876543210",
        "1",
        "7fffffffffffffff",
        "0",
        "8000000000000000",
        "8000000000000000",
    ],
    ["0", "0", "0", "0", "0", "0", "0", "0", "1", "0", "0"],
];

/// What the interpreter gives for case `c`: mul's line and add's line.
fn interpreted(p256: &str, c: &[&str; 11]) -> String {
    let hex = |s: &[&str]| {
        s.iter()
            .map(|x| format!("\"0x{x}\""))
            .collect::<Vec<_>>()
            .join(",")
    };
    let mul_args = format!("[[{}],[{}]]", hex(&c[..4]), hex(&c[4..8]));
    let add_args = format!("[{}]", hex(&c[8..]));
    let (code, mul, err) = cryptopt(&["interp", p256, "-f", MUL, "--args", &mul_args]);
    assert_eq!(code, 0, "{err}");
    let (code, add, err) = cryptopt(&["interp", p256, "-f", ADD, "--args", &add_args]);
    assert_eq!(code, 0, "{err}");
    format!("{}\n{}\n", mul.trim_end(), add.trim_end())
}

fn p256_json() -> Option<String> {
    let dir = std::env::var_os("CRYPTOPT_FIAT_JSON")?;
    Some(Path::new(&dir).join("p256_64.json").display().to_string())
}

/// `cryptopt codegen p256 -f NAME --abi win64 EXTRA... -o OUT`.
fn codegen(p256: &str, name: &str, extra: &[&str], out: &Path) {
    let mut args = vec!["codegen", p256, "-f", name, "--abi", "win64"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["-o", out.to_str().unwrap()]);
    let (code, _, err) = cryptopt(&args);
    assert_eq!(code, 0, "codegen {args:?}: {err}");
}

/// optimize --abi win64 writes a program (measured against a C baseline compiled with
/// `ms_abi`, run through the Windows trampoline, proved) and a header whose
/// `CRYPTOPT_MS_ABI` makes gcc on Linux call it with Windows' convention; linked with a
/// C caller, both functions agree with the interpreter.
#[test]
fn win64_program_links_with_an_ms_abi_caller() {
    let Some(p256) = p256_json() else {
        eprintln!(
            "SKIPPED win64_program_links_with_an_ms_abi_caller: CRYPTOPT_FIAT_JSON is not set"
        );
        return;
    };
    if !needs("win64_program_links_with_an_ms_abi_caller", &["gcc"]) {
        return;
    }
    let dir = scratch("win64-sysv-host");
    std::fs::create_dir_all(&dir).unwrap();
    let (code, out, err) = cryptopt(&[
        "optimize",
        &p256,
        "-f",
        MUL,
        "--abi",
        "win64",
        "--evals",
        "200",
        "--bets",
        "2",
        "--batches",
        "5",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("proof=proved"), "{out}");
    let prog = dir.join(MUL);
    let header = std::fs::read_to_string(prog.join(format!("{MUL}.h"))).unwrap();
    assert!(header.contains("__attribute__((ms_abi))"), "{header}");
    assert!(
        header.contains(&format!("CRYPTOPT_MS_ABI void {MUL}(")),
        "{header}"
    );
    let gas = std::fs::read_to_string(prog.join(format!("{MUL}.S"))).unwrap();
    assert!(gas.contains("calling convention: Windows x64"), "{gas}");
    // Its arguments arrive in rcx, rdx, r8: the code reads through them.
    assert!(gas.contains("[r8") || gas.contains("[rdx"), "{gas}");
    // `check` proves it under the convention it is told, and not under System V.
    let file = prog.join(format!("{MUL}.S"));
    let check = |abi: &str| {
        let (code, out, _) = cryptopt(&[
            "check",
            &p256,
            "-f",
            MUL,
            file.to_str().unwrap(),
            "--abi",
            abi,
        ]);
        (code, out)
    };
    let (code, out) = check("win64");
    assert_eq!((code, out.trim()), (0, "equivalent"));
    let (code, out) = check("sysv");
    assert_eq!(code, 1, "{out}");
    assert!(out.starts_with("not equivalent"), "{out}");

    codegen(&p256, ADD, &["--syntax", "gas"], &dir.join("add.S"));
    let decls = format!(
        "#include \"{MUL}.h\"\nCRYPTOPT_MS_ABI void {ADD}(uint64_t*, unsigned char*, unsigned char, uint64_t, uint64_t);"
    );
    std::fs::write(dir.join("main.c"), harness(&decls, MUL, ADD)).unwrap();
    let exe = dir.join("main");
    sh(Command::new("gcc").current_dir(&dir).args([
        "-O2",
        "-I",
        prog.to_str().unwrap(),
        "-o",
        exe.to_str().unwrap(),
        "main.c",
        prog.join(format!("{MUL}.S")).to_str().unwrap(),
        "add.S",
    ]));
    for c in &CASES {
        let got = sh(Command::new(&exe).args(c));
        assert_eq!(got, interpreted(&p256, c), "inputs {c:?}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Wine's loader, if installed (Debian's wine64 puts it under /usr/lib/wine).
fn wine() -> Option<String> {
    ["wine64", "wine", "/usr/lib/wine/wine64"]
        .into_iter()
        .find(|w| {
            Command::new(w)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .map(str::to_string)
}

/// `--abi win64 --format coff`: the NASM text assembles with `nasm -f win64`, the GNU as
/// text with MinGW's assembler; both link into one Windows executable with a C caller
/// (MinGW gcc), which Wine runs where it is installed: every output the interpreter's.
#[test]
fn win64_coff_objects_link_into_a_windows_executable() {
    let test = "win64_coff_objects_link_into_a_windows_executable";
    let Some(p256) = p256_json() else {
        eprintln!("SKIPPED {test}: CRYPTOPT_FIAT_JSON is not set");
        return;
    };
    if !needs(test, &["nasm", "x86_64-w64-mingw32-gcc"]) {
        return;
    }
    let dir = scratch("win64-coff");
    std::fs::create_dir_all(&dir).unwrap();
    let coff = ["--format", "coff"];
    // mul from NASM, add from GNU as, each under its own symbol.
    codegen(
        &p256,
        MUL,
        &[&coff[..], &["--syntax", "nasm", "--symbol", "mul_nasm"]].concat(),
        &dir.join("mul.asm"),
    );
    codegen(
        &p256,
        ADD,
        &[&coff[..], &["--syntax", "gas", "--symbol", "add_gas"]].concat(),
        &dir.join("add.S"),
    );
    sh(Command::new("nasm")
        .current_dir(&dir)
        .args(["-f", "win64", "-o", "mul.obj", "mul.asm"]));
    sh(Command::new("x86_64-w64-mingw32-gcc")
        .current_dir(&dir)
        .args(["-c", "-o", "add.o", "add.S"]));
    // On Windows no attribute is needed: the default convention is this one.
    let decls = "void mul_nasm(uint64_t*, const uint64_t*, const uint64_t*);\n\
                 void add_gas(uint64_t*, unsigned char*, unsigned char, uint64_t, uint64_t);";
    std::fs::write(dir.join("main.c"), harness(decls, "mul_nasm", "add_gas")).unwrap();
    sh(Command::new("x86_64-w64-mingw32-gcc")
        .current_dir(&dir)
        .args(["-O2", "-o", "main.exe", "main.c", "mul.obj", "add.o"]));
    // The GNU as text carries Windows unwind data: every push of the prologue has its
    // unwind code in the object's .xdata (read back by llvm-readobj).
    if have("llvm-readobj-19") {
        let extra = [
            "--syntax",
            "gas",
            "--symbol",
            "mul_gas",
            "--frame-pointer",
            "save",
        ];
        codegen(
            &p256,
            MUL,
            &[&coff[..], &extra].concat(),
            &dir.join("mul.S"),
        );
        sh(Command::new("x86_64-w64-mingw32-gcc")
            .current_dir(&dir)
            .args(["-c", "-o", "mul.o", "mul.S"]));
        let text = std::fs::read_to_string(dir.join("mul.S")).unwrap();
        let pushes: Vec<&str> = text
            .lines()
            .filter_map(|l| l.trim().strip_prefix("push "))
            .collect();
        assert!(pushes.contains(&"rsi") && pushes.contains(&"rbp"), "{text}");
        let unwind = sh(Command::new("llvm-readobj-19")
            .current_dir(&dir)
            .args(["--unwind", "mul.o"]));
        assert!(unwind.contains("StartAddress: mul_gas"), "{unwind}");
        for r in &pushes {
            let code = format!("PUSH_NONVOL reg={}", r.to_uppercase());
            assert!(unwind.contains(&code), "no {code} in\n{unwind}");
        }
    } else {
        eprintln!("SKIPPED the unwind-data check of {test}: llvm-readobj-19 not found");
    }
    let Some(wine) = wine() else {
        eprintln!("SKIPPED running main.exe in {test}: no Wine on this machine (linked only)");
        std::fs::remove_dir_all(&dir).ok();
        return;
    };
    let run = |c: &[&str]| {
        Command::new(&wine)
            .current_dir(&dir)
            .arg("main.exe")
            .args(c)
            .env("WINEDEBUG", "-all")
            .env("WINEPREFIX", dir.join("wineprefix"))
            .output()
            .unwrap()
    };
    // Wine's own start-up in a fresh prefix (before main.exe runs) fails now and then
    // under load ("could not load kernel32.dll"): tried three times, then skipped with
    // the reason; a failure of the program itself is never retried.
    let wine_broken = |o: &std::process::Output| {
        !o.status.success()
            && String::from_utf8_lossy(&o.stderr).contains("could not load kernel32.dll")
    };
    let mut first = run(&CASES[0]);
    for _ in 0..2 {
        if !wine_broken(&first) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_secs(2));
        first = run(&CASES[0]);
    }
    if wine_broken(&first) {
        eprintln!(
            "SKIPPED running main.exe in {test}: Wine could not start (linked only): {}",
            String::from_utf8_lossy(&first.stderr).trim()
        );
        std::fs::remove_dir_all(&dir).ok();
        return;
    }
    for (k, c) in CASES.iter().enumerate() {
        let out = if k == 0 { first.clone() } else { run(c) };
        let got = String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n");
        assert!(
            out.status.success(),
            "wine: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(got, interpreted(&p256, c), "inputs {c:?}");
    }
    std::fs::remove_dir_all(&dir).ok();
}
