//! Hand-written programs through `check_asm`, as a table: what is equivalent, what is
//! not (and what the report says), what is an input error (and what it names).

use cryptopt_frontend::fiat;
use cryptopt_ir::Function;
use cryptopt_verify::{
    check, check_asm, Aliasing, CheckOptions, Counterexample, Problem, Report, Verdict,
};

/// A Fiat JSON function with u64 arrays/scalars and the given body statements.
fn function(name: &str, args: &[(&str, &str)], rets: &[(&str, &str)], body: &str) -> Function {
    let param = |(n, t): &(&str, &str)| {
        let (lb, ub) = match t.split_once('[') {
            Some((ty, len)) => {
                let k: usize = len.trim_end_matches(']').parse().unwrap();
                let max = if ty == "u1" {
                    "\"0x1\""
                } else {
                    "\"0xffffffffffffffff\""
                };
                (
                    format!("[{}]", vec!["\"0x0\""; k].join(",")),
                    format!("[{}]", vec![max; k].join(",")),
                )
            }
            None => (
                "\"0x0\"".to_string(),
                if *t == "u1" {
                    "\"0x1\""
                } else {
                    "\"0xffffffffffffffff\""
                }
                .to_string(),
            ),
        };
        format!(r#"{{"datatype":"{t}","name":"{n}","lbound":{lb},"ubound":{ub}}}"#)
    };
    let args: Vec<String> = args.iter().map(param).collect();
    let rets: Vec<String> = rets.iter().map(param).collect();
    let json = format!(
        r#"{{"operation":"{name}","arguments":[{}],"returns":[{}],"body":[{body}]}}"#,
        args.join(","),
        rets.join(",")
    );
    fiat::parse_function(&json, name).unwrap()
}

/// out1 = arg1 + arg2 as 128-bit numbers in two limbs.
fn add128() -> Function {
    function(
        "t",
        &[("arg1", "u64[2]"), ("arg2", "u64[2]")],
        &[("out1", "u64[2]")],
        r#"{"datatype":"(auto)","name":["x1","x2"],"operation":"addcarryx","parameters":{"size":64},"arguments":["0x0","arg1[0]","arg2[0]"]},
           {"datatype":"(auto)","name":["x3","_"],"operation":"addcarryx","parameters":{"size":64},"arguments":["x2","arg1[1]","arg2[1]"]},
           {"datatype":"u64","name":["out1[0]"],"operation":"static_cast","arguments":["x1"]},
           {"datatype":"u64","name":["out1[1]"],"operation":"static_cast","arguments":["x3"]}"#,
    )
}

/// out1 = arg1 ? arg3 : arg2 (Fiat's cmovznz), arg1 a u1 scalar.
fn select() -> Function {
    function(
        "t",
        &[("arg1", "u1"), ("arg2", "u64"), ("arg3", "u64")],
        &[("out1", "u64")],
        r#"{"datatype":"u64","name":["out1"],"operation":"cmovznz","arguments":["arg1","arg2","arg3"]}"#,
    )
}

/// out1 = the 128-bit product of two u64 scalars.
fn mul128() -> Function {
    function(
        "t",
        &[("arg1", "u64"), ("arg2", "u64")],
        &[("out1", "u64[2]")],
        r#"{"datatype":"u128","name":["x1"],"operation":"*","arguments":[{"datatype":"u128","name":[],"operation":"static_cast","arguments":["arg1"]},{"datatype":"u128","name":[],"operation":"static_cast","arguments":["arg2"]}]},
           {"datatype":"u64","name":["out1[0]"],"operation":"static_cast","arguments":["x1"]},
           {"datatype":"u64","name":["out1[1]"],"operation":"static_cast","arguments":[{"datatype":"u128","name":[],"operation":">>","arguments":["x1","64"]}]}"#,
    )
}

/// out1 = 19·(arg1 + arg2) for u32 scalars: a multiple of a sum that cannot wrap.
fn times19() -> Function {
    function(
        "t",
        &[("arg1", "u32"), ("arg2", "u32")],
        &[("out1", "u64")],
        r#"{"datatype":"u64","name":["x1"],"operation":"+","arguments":[{"datatype":"u64","name":[],"operation":"static_cast","arguments":["arg1"]},{"datatype":"u64","name":[],"operation":"static_cast","arguments":["arg2"]}]},
           {"datatype":"u64","name":["out1"],"operation":"*","arguments":["x1","0x13"]}"#,
    )
}

const TIMES19: &str = "t:
    mov esi, esi
    mov edx, edx
    lea rax, [rsi + rdx]
    lea rcx, [rax + rax*8]
    lea rcx, [rax + rcx*2]
    mov qword [rdi], rcx
    ret";

/// out1 = arg1 + … + arg7 (u64 scalars): eight arguments, arg6 and arg7 on the stack.
fn sum7() -> Function {
    let args: Vec<(String, &str)> = (1..=7).map(|k| (format!("arg{k}"), "u64")).collect();
    let args: Vec<(&str, &str)> = args.iter().map(|(n, t)| (n.as_str(), *t)).collect();
    let operands: Vec<String> = (1..=7).map(|k| format!("\"arg{k}\"")).collect();
    function(
        "t",
        &args,
        &[("out1", "u64")],
        &format!(
            r#"{{"datatype":"u64","name":["out1"],"operation":"+","arguments":[{}]}}"#,
            operands.join(",")
        ),
    )
}

/// out1 = arg6[1]: a pointer argument on the stack (the seventh).
fn stack_pointer() -> Function {
    function(
        "t",
        &[
            ("arg1", "u64"),
            ("arg2", "u64"),
            ("arg3", "u64"),
            ("arg4", "u64"),
            ("arg5", "u64"),
            ("arg6", "u64[2]"),
        ],
        &[("out1", "u64")],
        r#"{"datatype":"u64","name":["out1"],"operation":"static_cast","arguments":["arg6[1]"]}"#,
    )
}

/// `SUM7` under the Windows x64 convention: out1 in rcx, arg1..arg3 in rdx, r8, r9,
/// arg4..arg7 above the return address and the 32-byte home space.
const SUM7_WIN64: &str = "t:
    mov rax, rdx
    add rax, r8
    add rax, r9
    add rax, qword [rsp + 40]
    add rax, qword [rsp + 48]
    add rax, qword [rsp + 56]
    add rax, qword [rsp + 64]
    mov qword [rcx], rax
    ret";

const SUM7: &str = "t:
    mov rax, rsi
    add rax, rdx
    add rax, rcx
    add rax, r8
    add rax, r9
    add rax, qword [rsp + 8]
    add rax, qword [rsp + 16]
    mov qword [rdi], rax
    ret";

/// `TIMES19` with the 19 from a constant pool (`.LC0`, 16 bytes, 16-aligned).
const TIMES19_POOL: &str = "t:
    mov esi, esi
    mov edx, edx
    lea rax, [rsi + rdx]
    imul rax, qword [rip + .LC0 + 8]
    mov qword [rdi], rax
    ret
    .section .rodata
    .p2align 4
.LC0:
    .quad 7
    .quad 19";

/// `ADD` in gcc's realigned frame: rbp kept, rsp rounded down to 32 bytes, a spill
/// through the aligned rsp, rsp restored from rbp.
const ALIGNED: &str = "t:
    push rbp
    mov rbp, rsp
    push rbx
    and rsp, -32
    sub rsp, 64
    mov rax, qword [rsi]
    add rax, qword [rdx]
    mov qword [rsp + 32], rax
    mov rcx, qword [rsi + 8]
    adc rcx, qword [rdx + 8]
    mov rbx, qword [rsp + 32]
    mov qword [rdi], rbx
    mov qword [rdi + 8], rcx
    lea rsp, [rbp - 8]
    pop rbx
    pop rbp
    ret";

const ADD: &str = "t:
    mov rax, qword [rsi]
    add rax, qword [rdx]
    mov rcx, qword [rsi + 8]
    adc rcx, qword [rdx + 8]
    mov qword [rdi], rax
    mov qword [rdi + 8], rcx
    ret";

/// Fiat's cmovznz (`select`) with masks: `-arg1` kept by `and`, its complement by `andn`.
const MASK_SELECT: &str = "t:
    movzx eax, sil
    neg rax
    mov r8, rcx
    and r8, rax
    andn rax, rax, rdx
    or rax, r8
    mov qword [rdi], rax
    ret";

/// What a check must give.
enum Want {
    Equivalent,
    /// Not equivalent, the report containing every string.
    Not(&'static [&'static str]),
    /// An error containing the string.
    Error(&'static str),
}
use Want::*;

fn opts(a: Aliasing) -> CheckOptions {
    CheckOptions {
        aliasing: a,
        ..CheckOptions::default()
    }
}

#[test]
fn table() {
    let none = opts(Aliasing::None);
    let o1a1 = opts(Aliasing::Out1Arg1);
    let all = opts(Aliasing::All);
    let win = CheckOptions {
        abi: cryptopt_verify::Abi::Win64,
        ..all
    };
    // 19 read from a vector constant by SSE2's paddq (memory operand aligned or not).
    let sse2_19 = TIMES19_POOL.replace(
        "imul rax, qword [rip + .LC0 + 8]",
        "pxor xmm1, xmm1\n    paddq xmm1, oword [rip + .LC0]\n    vpextrq rcx, xmm1, 1\n    imul rax, rcx",
    );
    #[allow(clippy::type_complexity)]
    let table: Vec<(&str, fn() -> Function, String, CheckOptions, Want)> = vec![
        ("add/adc", add128, ADD.into(), all, Equivalent),
        ("arguments 7 and 8 on the stack", sum7, SUM7.into(), all, Equivalent),
        (
            "stack arguments after a push",
            sum7,
            SUM7.replace("[rsp + 16]", "[rsp + 24]")
                .replace("[rsp + 8]", "[rsp + 16]")
                .replace("t:\n", "t:\n    push rbx\n")
                .replace("    ret", "    pop rbx\n    ret"),
            all,
            Equivalent,
        ),
        (
            "a stack argument read one word too high",
            sum7,
            SUM7.replace("[rsp + 16]", "[rsp + 24]"),
            all,
            Not(&["reads [rsp0 +24] (the return address or the caller's frame)"]),
        ),
        (
            "arguments 7 and 8 swapped",
            sum7,
            SUM7.replace("[rsp + 16]", "[rsp + X]")
                .replace("[rsp + 8]", "[rsp + 16]")
                .replace("[rsp + X]", "[rsp + 8]"),
            all,
            Equivalent,
        ),
        (
            "the return address read as an argument",
            sum7,
            SUM7.replace("[rsp + 16]", "[rsp]"),
            all,
            Not(&["reads [rsp0 +0] (the return address or the caller's frame)"]),
        ),
        (
            "a stack argument written (the caller's frame)",
            sum7,
            SUM7.replace("    mov qword [rdi], rax", "    mov qword [rsp + 8], rax\n    mov qword [rdi], rax"),
            all,
            Not(&["writes [rsp0 +8] (the return address or the caller's frame)"]),
        ),
        ("win64: arguments in rcx, rdx, r8, r9, then above the home space", sum7, SUM7_WIN64.into(), win, Equivalent),
        (
            "win64 code checked as System V",
            sum7,
            SUM7_WIN64.into(),
            all,
            Not(&["reads [rsp0 +40] (the return address or the caller's frame)"]),
        ),
        (
            "win64: a spill to the home space (the callee's)",
            sum7,
            SUM7_WIN64.replace("    mov qword [rcx], rax", "    mov qword [rsp + 32], rax\n    mov rax, qword [rsp + 32]\n    mov qword [rcx], rax"),
            win,
            Equivalent,
        ),
        (
            "win64: a stack argument written (the caller's frame)",
            sum7,
            SUM7_WIN64.replace("    mov qword [rcx], rax", "    mov qword [rsp + 40], rax\n    mov qword [rcx], rax"),
            win,
            Not(&["writes [rsp0 +40] (the return address or the caller's frame)"]),
        ),
        (
            "win64: a store across the end of the home space",
            sum7,
            SUM7_WIN64.replace("    mov qword [rcx], rax", "    mov qword [rsp + 36], rax\n    mov qword [rcx], rax"),
            win,
            Not(&["writes [rsp0 +36]"]),
        ),
        (
            "win64: rsi is callee-saved",
            sum7,
            SUM7_WIN64.replace("    mov qword [rcx], rax", "    mov rsi, rax\n    mov qword [rcx], rsi"),
            win,
            Not(&["callee-saved rsi is not restored"]),
        ),
        (
            "win64: rsi saved and restored",
            sum7,
            "t:
    push rsi
    mov rax, rdx
    add rax, r8
    add rax, r9
    add rax, qword [rsp + 48]
    add rax, qword [rsp + 56]
    add rax, qword [rsp + 64]
    add rax, qword [rsp + 72]
    mov rsi, rax
    mov qword [rcx], rsi
    pop rsi
    ret"
            .into(),
            win,
            Equivalent,
        ),
        (
            "System V: rsi is the callee's",
            sum7,
            SUM7.replace("    mov qword [rdi], rax", "    mov rsi, rax\n    mov qword [rdi], rsi"),
            all,
            Equivalent,
        ),
        (
            "win64: xmm6 is callee-saved",
            sum7,
            SUM7_WIN64.replace("    ret", "    vmovq xmm6, rax\n    ret"),
            win,
            Not(&["callee-saved xmm6 is not restored"]),
        ),
        (
            "win64: xmm5 is not",
            sum7,
            SUM7_WIN64.replace("    ret", "    vmovq xmm5, rax\n    ret"),
            win,
            Equivalent,
        ),
        (
            "win64: no red zone",
            sum7,
            SUM7_WIN64.replace("    mov qword [rcx], rax", "    mov qword [rsp - 8], rax\n    mov rax, qword [rsp - 8]\n    mov qword [rcx], rax"),
            win,
            Not(&["below the red zone"]),
        ),
        (
            "System V: the same spill in its red zone",
            sum7,
            SUM7.replace("    mov qword [rdi], rax", "    mov qword [rsp - 8], rax\n    mov rax, qword [rsp - 8]\n    mov qword [rdi], rax"),
            all,
            Equivalent,
        ),
        (
            "a pointer argument on the stack",
            stack_pointer,
            "t:
    mov rax, qword [rsp + 8]
    mov rax, qword [rax + 8]
    mov qword [rdi], rax
    ret"
            .into(),
            all,
            Equivalent,
        ),
        (
            "a pointer argument on the stack, the wrong element",
            stack_pointer,
            "t:
    mov rax, qword [rsp + 8]
    mov rax, qword [rax]
    mov qword [rdi], rax
    ret"
            .into(),
            all,
            Not(&["out1 differs", "found (asm):    arg6[0]"]),
        ),
        (
            "adc replaced by add",
            add128,
            ADD.replace("adc rcx", "add rcx"),
            none,
            Not(&[
                "out1[1] differs",
                "expected (IR):  (carry64(arg1[0] + arg2[0]) + arg1[1] + arg2[1])",
                "found (asm):    (arg1[1] + arg2[1])",
                "first divergence: instruction 3 `add rcx, qword [rdx + 0x8]` writes (arg1[1] + arg2[1])",
            ]),
        ),
        (
            "adcx/adox chains",
            add128,
            "t:
    clc
    mov rax, qword [rsi]
    adcx rax, qword [rdx]
    mov rcx, qword [rsi + 8]
    adcx rcx, qword [rdx + 8]
    mov qword [rdi], rax
    mov qword [rdi + 8], rcx
    ret"
            .into(),
            all,
            Equivalent,
        ),
        (
            "adox reads OF (the add's signed overflow), not the carry in CF",
            add128,
            "t:
    xor r8d, r8d
    mov rax, qword [rsi]
    add rax, qword [rdx]
    mov rcx, qword [rsi + 8]
    adox rcx, qword [rdx + 8]
    mov qword [rdi], rax
    mov qword [rdi + 8], rcx
    ret"
            .into(),
            all,
            Not(&[
                "out1[1] differs",
                "first divergence: instruction 2 `add rax, qword [rdx]` writes ((arg1[0] ^ (arg1[0] + arg2[0])) & (arg2[0] ^ (arg1[0] + arg2[0])))[63..64]",
            ]),
        ),
        (
            "carry saved with setc/movzx and reloaded with bt",
            add128,
            "t:
    mov rax, qword [rsi]
    add rax, qword [rdx]
    setc r8b
    movzx r8d, r8b
    mov qword [rsp - 8], r8
    xor r9d, r9d
    mov rcx, qword [rsi + 8]
    bt qword [rsp - 8], 0
    adc rcx, qword [rdx + 8]
    mov qword [rdi], rax
    mov qword [rdi + 8], rcx
    ret"
            .into(),
            all,
            Equivalent,
        ),
        (
            "writes out1[0] before reading arg2[0]: fine unless out1 may be arg2",
            add128,
            "t:
    mov rax, qword [rsi]
    mov qword [rdi], rax
    add rax, qword [rdx]
    mov rcx, qword [rsi + 8]
    adc rcx, qword [rdx + 8]
    mov qword [rdi], rax
    mov qword [rdi + 8], rcx
    ret"
            .into(),
            o1a1,
            Equivalent,
        ),
        (
            "... and with every aliasing",
            add128,
            "t:
    mov rax, qword [rsi]
    mov qword [rdi], rax
    add rax, qword [rdx]
    mov rcx, qword [rsi + 8]
    adc rcx, qword [rdx + 8]
    mov qword [rdi], rax
    mov qword [rdi + 8], rcx
    ret"
            .into(),
            all,
            Not(&["instruction 2 `add rax, qword [rdx]` reads arg2[0] after instruction 1 wrote out1[0], which may be the same memory"]),
        ),
        (
            "reads arg1[0] again after writing out1[0]",
            add128,
            ADD.replace(
                "    ret",
                "    mov rax, qword [rsi]\n    mov qword [rdi], rax\n    ret",
            ),
            o1a1,
            Not(&["instruction 6 `mov rax, qword [rsi]` reads arg1[0] after instruction 4 wrote out1[0]"]),
        ),
        (
            "out1[1] never written",
            add128,
            ADD.replace("    mov qword [rdi + 8], rcx\n", ""),
            none,
            Not(&["out1[1] is never written"]),
        ),
        (
            "callee-saved rbx clobbered",
            add128,
            ADD.replace("rcx", "rbx"),
            none,
            Not(&["callee-saved rbx is not restored at ret"]),
        ),
        (
            "callee-saved rbx pushed and popped",
            add128,
            ADD.replace("rcx", "rbx")
                .replace("t:\n", "t:\n    push rbx\n")
                .replace("    ret", "    pop rbx\n    ret"),
            all,
            Equivalent,
        ),
        (
            "rsp not restored",
            add128,
            ADD.replace("t:\n", "t:\n    push rbx\n"),
            none,
            Not(&["rsp is not restored at ret (it is (rsp0 + 0xfffffffffffffff8))"]),
        ),
        (
            "writes an input",
            add128,
            ADD.replace("mov qword [rdi], rax", "mov qword [rsi], rax"),
            none,
            Not(&["instruction 4 `mov qword [rsi], rax` writes arg1[0] (an input)"]),
        ),
        (
            "writes past the output",
            add128,
            ADD.replace("[rdi + 8]", "[rdi + 16]"),
            none,
            Not(&["writes out1+16 (outside u64[2])"]),
        ),
        (
            "writes the return address",
            add128,
            ADD.replace("mov qword [rdi], rax", "mov qword [rsp], rax"),
            none,
            Not(&["writes [rsp0 +0] (the return address or the caller's frame)"]),
        ),
        (
            "writes below the red zone",
            add128,
            ADD.replace("mov qword [rdi], rax", "mov qword [rsp - 0x90], rax"),
            none,
            Not(&["below the red zone"]),
        ),
        (
            "reads past an input",
            add128,
            ADD.replace("[rsi + 8]", "[rsi + 16]"),
            none,
            Not(&["reads arg1+16 (outside u64[2])"]),
        ),
        ("no ret", add128, ADD.replace("    ret", ""), none, Not(&["ends without ret"])),
        (
            "a second entry label: the first function falls into the second",
            add128,
            ADD.replace("    mov qword [rdi], rax", "u:\n    mov qword [rdi], rax"),
            none,
            Not(&["ends without ret"]),
        ),
        (
            "code after ret",
            add128,
            ADD.replace("    ret", "    ret\n    mov qword [rdi], rcx"),
            none,
            Not(&["1 instruction(s) after the `ret` at instruction 6"]),
        ),
        ("a spill in a realigned frame", add128, ALIGNED.into(), none, Equivalent),
        (
            "a realigned frame read before it is written",
            add128,
            ALIGNED.replace("mov rbx, qword [rsp + 32]", "mov rbx, qword [rsp + 40]"),
            none,
            Not(&["`mov rbx, qword [rsp + 0x28]` reads the stack slot [frame0 -24] (rsp0 -71 to -40) before it is written"]),
        ),
        (
            "a realigned spill that may overwrite a saved register",
            add128,
            ALIGNED.replace("    sub rsp, 64\n", "").replace("[rsp + 32]", "[rsp + 8]"),
            none,
            Not(&["`pop rbx` reads the stack slot [rsp0 -16] before it is written"]),
        ),
        (
            "a realigned spill that may overwrite the return address",
            add128,
            ALIGNED.replace("    sub rsp, 64\n", "").replace("[rsp + 32]", "[rsp + 24]"),
            none,
            Not(&["writes [frame0 +24] (rsp0 -23 to +8) (the return address or the caller's frame)"]),
        ),
        (
            "a realigned spill below the red zone",
            add128,
            ALIGNED.replace("[rsp + 32]", "[rsp - 0x88]"),
            none,
            Not(&["below the red zone (rsp is frame0 -64)"]),
        ),
        (
            "rsp restored by add instead of from rbp",
            add128,
            ALIGNED.replace("lea rsp, [rbp - 8]", "add rsp, 64"),
            none,
            Not(&["`pop rbx` reads the stack slot [frame0 +0] (rsp0 -47 to -16) before it is written"]),
        ),
        (
            "a frame within the stack bound",
            add128,
            ADD.replace("t:\n", "t:\n    sub rsp, 0x10000\n")
                .replace("    ret", "    add rsp, 0x10000\n    ret"),
            none,
            Equivalent,
        ),
        (
            "a frame larger than the stack bound",
            add128,
            ADD.replace("t:\n", "t:\n    sub rsp, 0x10008\n")
                .replace("    ret", "    add rsp, 0x10008\n    ret"),
            none,
            Not(&["instruction 0 `sub rsp, 0x10008`: rsp goes 65544 bytes below the entry rsp, more than the stated bound of 65536"]),
        ),
        (
            "pushes past a stated bound of 8 bytes",
            add128,
            ADD.replace("t:\n", "t:\n    push rbx\n    push rbp\n")
                .replace("    ret", "    pop rbp\n    pop rbx\n    ret"),
            CheckOptions {
                stack_limit: 8,
                ..none
            },
            Not(&["instruction 1 `push rbp`: rsp goes 16 bytes below the entry rsp"]),
        ),
        (
            "reads the output before writing it",
            add128,
            ADD.replace("mov rcx, qword [rsi + 8]", "mov rcx, qword [rdi + 8]"),
            none,
            Not(&["instruction 2 `mov rcx, qword [rdi + 0x8]` reads out1[1] before it is written"]),
        ),
        (
            "reads a stack slot before writing it",
            add128,
            ADD.replace("mov rcx, qword [rsi + 8]", "mov rcx, qword [rsp - 8]"),
            none,
            Not(&["reads the stack slot [rsp0 -8] before it is written"]),
        ),
        (
            "adc without a carry",
            add128,
            ADD.replace("add rax", "adc rax"),
            none,
            Not(&["instruction 1 `adc rax, qword [rdx]` reads CF, which is undefined here (flags are undefined at function entry)"]),
        ),
        (
            "data-dependent address",
            add128,
            ADD.replace("[rsi + 8]", "[rsi + rax*8]"),
            none,
            Not(&["is not an argument pointer or rsp plus a constant"]),
        ),
        (
            "unknown instruction",
            add128,
            ADD.replace("    ret", "    cpuid\n    ret"),
            none,
            Error("line 8: unknown instruction `cpuid`"),
        ),
        (
            "cmovznz as test; cmovnz (arg1 is a byte in sil)",
            select,
            "t:
    mov rax, rdx
    test sil, sil
    cmovnz rax, rcx
    mov qword [rdi], rax
    ret"
            .into(),
            all,
            Equivalent,
        ),
        (
            "cmovznz by masks, andn for the kept side",
            select,
            MASK_SELECT.into(),
            all,
            Equivalent,
        ),
        (
            "cmovznz by masks, andn's operands swapped",
            select,
            MASK_SELECT.replace("andn rax, rax, rdx", "andn rax, rdx, rax"),
            all,
            Not(&["out1 differs"]),
        ),
        (
            "cmovznz in AT&T syntax, as gcc -S prints it",
            select,
            "t:
\tmovq\t%rdx, %rax
\ttestb\t%sil, %sil
\tcmovne\t%rcx, %rax
\tmovq\t%rax, (%rdi)
\tret"
                .into(),
            all,
            Equivalent,
        ),
        (
            "cmovznz testing the undefined upper bits of arg1",
            select,
            "t:
    mov rax, rdx
    test esi, esi
    cmovnz rax, rcx
    mov qword [rdi], rax
    ret"
            .into(),
            all,
            Not(&["out1 differs", "junk(arg1)"]),
        ),
        (
            "cmovznz with the operands the other way round",
            select,
            "t:
    mov rax, rcx
    test sil, sil
    cmovz rax, rdx
    mov qword [rdi], rax
    ret"
            .into(),
            all,
            Equivalent,
        ),
        (
            "u128 product by mul",
            mul128,
            "t:
    mov rax, rsi
    mul rdx
    mov qword [rdi], rax
    mov qword [rdi + 8], rdx
    ret"
            .into(),
            all,
            Equivalent,
        ),
        ("19·x of a sum by imul", times19, TIMES19.replace("lea rcx, [rax + rax*8]\n    lea rcx, [rax + rcx*2]", "imul rcx, rax, 0x13"), all, Equivalent),
        ("19·x of a sum as x + 2·(9·x) (two lea, clang's)", times19, TIMES19.into(), all, Equivalent),
        ("19 from a constant pool", times19, TIMES19_POOL.into(), all, Equivalent),
        (
            "the wrong word of a constant pool",
            times19,
            TIMES19_POOL.replace(".LC0 + 8]", ".LC0]"),
            all,
            Not(&["out1 differs"]),
        ),
        (
            "19 from a vector constant (vmovdqa of an aligned constant, vpextrq)",
            times19,
            TIMES19_POOL.replace(
                "imul rax, qword [rip + .LC0 + 8]",
                "vmovdqa xmm1, oword [rip + .LC0]\n    vpextrq rcx, xmm1, 1\n    imul rax, rcx",
            ),
            all,
            Equivalent,
        ),
        (
            "vmovdqa of a constant not aligned to 16",
            times19,
            TIMES19_POOL
                .replace("imul rax, qword [rip + .LC0 + 8]", "vmovdqa xmm1, oword [rip + .LC0]")
                .replace(".p2align 4", ".p2align 3"),
            all,
            Error("`vmovdqa xmm1, oword [rel .LC0]`: `vmovdqa` with memory: its alignment is not known"),
        ),
        (
            "19 from a vector constant by SSE2 (paddq of an aligned constant)",
            times19,
            sse2_19.clone(),
            all,
            Equivalent,
        ),
        (
            "SSE2's paddq of a constant not aligned to 16",
            times19,
            sse2_19.replace(".p2align 4", ".p2align 3"),
            all,
            Error("`paddq xmm1, oword [rel .LC0]`: `paddq` with memory: its alignment is not known"),
        ),
        (
            "a read past the end of a constant",
            times19,
            TIMES19_POOL.replace(".LC0 + 8]", ".LC0 + 12]"),
            all,
            Not(&["`imul rax, qword [rel .LC0 + 0xc]` reads byte 16 of the constant `.LC0` (it has 16 bytes)"]),
        ),
        (
            "a write to a constant",
            times19,
            TIMES19_POOL.replace("mov qword [rdi], rax", "mov qword [rip + .LC0], rax"),
            all,
            Not(&["writes byte 0 of the constant `.LC0` (read-only data)"]),
        ),
        (
            "a constant's address through lea",
            times19,
            TIMES19_POOL.replace(
                "imul rax, qword [rip + .LC0 + 8]",
                "lea rcx, [rip + .LC0]\n    imul rax, qword [rcx + 8]",
            ),
            all,
            Equivalent,
        ),
        (
            "37·x is not 19·x",
            times19,
            TIMES19.replace("[rax + rcx*2]", "[rax + rcx*4]"),
            all,
            Not(&["out1 differs"]),
        ),
        (
            "u128 product by mulx",
            mul128,
            "t:
    mulx rcx, rax, rsi
    mov qword [rdi], rax
    mov qword [rdi + 8], rcx
    ret"
            .into(),
            all,
            Equivalent,
        ),
        (
            "u128 product by imul (only the low half is right)",
            mul128,
            "t:
    mov rax, rsi
    imul rax, rdx
    mov qword [rdi], rax
    mov qword [rdi + 8], rdx
    ret"
            .into(),
            all,
            Not(&["out1[1] differs", "expected (IR):  (arg1 * arg2)[64..128]", "found (asm):    arg2"]),
        ),
        (
            "mul leaves ZF undefined",
            mul128,
            "t:
    mov rax, rsi
    mul rdx
    cmovz rax, rdx
    mov qword [rdi], rax
    mov qword [rdi + 8], rdx
    ret"
            .into(),
            all,
            Not(&["instruction 2 `cmovz rax, rdx` reads ZF, which is undefined here (instruction 1 left it undefined)"]),
        ),
    ];
    for (what, f, asm, o, want) in table {
        let f = f();
        let got = check_asm(&f, &asm, o);
        match (want, got) {
            (Equivalent, Ok(Verdict::Equivalent)) => {}
            (Not(parts), Ok(Verdict::NotEquivalent(r))) => {
                let text = r.to_string();
                for p in parts {
                    assert!(text.contains(p), "{what}: report lacks {p:?}:\n{text}");
                }
            }
            (Error(part), Err(e)) => {
                let text = e.to_string();
                assert!(text.contains(part), "{what}: error lacks {part:?}: {text}");
            }
            (_, got) => panic!("{what}: unexpected {got:?}"),
        }
    }
}

/// The whole report for one wrong program (golden text).
#[test]
fn report_text() {
    let f = add128();
    let asm = ADD.replace("adc rcx", "add rcx");
    let Ok(Verdict::NotEquivalent(r)) = check_asm(&f, &asm, CheckOptions::default()) else {
        panic!("not rejected");
    };
    assert_eq!(
        r.to_string(),
        "`t` is not equivalent to `t`:
  - out1[1] differs
    expected (IR):  (carry64(arg1[0] + arg2[0]) + arg1[1] + arg2[1])
    found (asm):    (arg1[1] + arg2[1])
    first divergence: instruction 3 `add rcx, qword [rdx + 0x8]` writes (arg1[1] + arg2[1])
  counterexample (inputs within the declared bounds):
    arg1[0] = 0xffffffffffffffff
    arg1[1] = 0xffffffffffffffff
    arg2[0] = 0xffffffffffffffff
    arg2[1] = 0xffffffffffffffff
    out1[1]: the IR gives 0xffffffffffffffff, the program 0xfffffffffffffffe"
    );
    let c = r.counterexample.as_ref().expect("a counterexample");
    assert_eq!(c.args, vec![vec![u64::MAX as u128; 2]; 2]);
    assert!(c.reproducible);
    assert!(matches!(
        &r.problems[..],
        [Problem::OutputDiffers { divergence: Some(d), .. }] if d.index == 3
    ));
}

/// A report that shows nothing wrong reads "not proved"; a counterexample, or a problem
/// other than an output the checker could not prove equal, makes it "not equivalent".
#[test]
fn not_proved_or_refuted() {
    let differs = || Problem::OutputDiffers {
        output: "out1[0]".into(),
        expected: "x".into(),
        found: "y".into(),
        innermost: None,
        divergence: None,
    };
    let cex = Counterexample {
        inputs: vec![("arg1[0]".into(), 1)],
        args: vec![vec![1]],
        reproducible: true,
        outputs: vec![("out1[0]".into(), 1, 2)],
    };
    let unwritten = Problem::OutputNotWritten {
        output: "out1[1]".into(),
    };
    for (problems, counterexample, refuted, heading) in [
        (
            vec![differs()],
            None,
            false,
            "`p` is not proved equivalent to `f` (",
        ),
        (
            vec![differs()],
            Some(cex.clone()),
            true,
            "`p` is not equivalent to `f`:",
        ),
        (
            vec![differs(), unwritten.clone()],
            None,
            true,
            "`p` is not equivalent to `f`:",
        ),
        (vec![unwritten], None, true, "`p` is not equivalent to `f`:"),
    ] {
        let r = Report {
            function: "f".into(),
            program: "p".into(),
            problems,
            counterexample,
        };
        assert_eq!(r.refuted(), refuted, "{r}");
        assert!(r.to_string().starts_with(heading), "{r}");
    }
}

/// The program is picked by the function's name, or is the only one; NASM and GNU as
/// text (as cryptopt prints them) both check.
#[test]
fn program_selection_and_syntax() {
    let f = add128();
    let two = format!("other:\n    ret\n{ADD}");
    assert!(check_asm(&f, &two, CheckOptions::default())
        .unwrap()
        .is_equivalent());
    let only = ADD.replace("t:", "renamed:");
    assert!(check_asm(&f, &only, CheckOptions::default())
        .unwrap()
        .is_equivalent());
    let neither = "a:\n    ret\nb:\n    ret\n";
    let e = check_asm(&f, neither, CheckOptions::default()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "no function `t` in the assembly (it has: a, b)"
    );
    let p = &cryptopt_x86::parse::parse(ADD).unwrap()[0];
    for text in [cryptopt_x86::print::nasm(p), cryptopt_x86::print::gas(p)] {
        assert!(check_asm(&f, &text, CheckOptions::default())
            .unwrap()
            .is_equivalent());
    }
    assert!(check(&f, p, CheckOptions::default())
        .unwrap()
        .is_equivalent());
}
