//! The parser on bad input: every error names the line and what it could not read, and
//! no input whatsoever makes it panic.

mod common;

use cryptopt_x86::parse::{parse, parse_inst};
use cryptopt_x86::print::{inst_gas, inst_nasm};
use cryptopt_x86::Error;
use proptest::prelude::*;

/// Parses `text` (a whole file), expects an error on `line`, and checks that the message
/// contains every fragment.
fn check(text: &str, line: usize, fragments: &[&str]) {
    let e = match parse(text) {
        Ok(p) => panic!("`{text}` parsed: {p:?}"),
        Err(e) => e,
    };
    let Error::Parse { line: got, .. } = e else {
        panic!("`{text}`: not a parse error: {e}");
    };
    let msg = e.to_string();
    assert_eq!(got, line, "`{text}`: {msg}");
    assert!(msg.starts_with(&format!("line {line}: ")), "{msg}");
    for f in fragments {
        assert!(msg.contains(f), "`{text}`: `{msg}` lacks `{f}`");
    }
}

#[rustfmt::skip]
const BAD_LINES: &[(&str, &[&str])] = &[
    ("foo rax, rbx", &["unknown instruction `foo`", "`foo rax, rbx`"]),
    ("movq rax, rbx", &["unknown instruction `movq`"]),
    ("jmp f", &["unknown instruction `jmp`"]),
    ("mov rax, rbx, rcx, rdx, rsi", &["too many operands for `mov`"]),
    ("mov rax, rbx, rcx, rdx", &["unsupported operand form for `mov`"]),
    ("mov rax,", &["empty operand"]),
    ("mov , rax", &["empty operand"]),
    ("mov rax, foo", &["unknown operand `foo`"]),
    ("mov ah, 0x1", &["unknown operand `ah`"]),
    ("mov rax, qword [rsi", &["unterminated memory operand"]),
    ("mov rax, qword []", &["empty memory operand"]),
    ("mov rax, qword [rsi + rdi + rbx]", &["bad register term `rbx`"]),
    ("mov rax, qword [rsi*2 + rdi*4]", &["bad index `rdi*4`"]),
    ("mov rax, qword [rsi + rdi*4 + rbx]", &["more than two address registers"]),
    ("mov rax, qword [rsi*3]", &["scale must be 1, 2, 4 or 8", "`rsi*3`"]),
    ("mov rax, qword [rsi*rdi]", &["bad scaled index `rsi*rdi`"]),
    ("mov rax, qword [esi]", &["`esi` is not a 64-bit address register"]),
    ("mov rax, qword [rip + 0x8]", &["rip-relative address"]),
    ("lea rax, [rip + table]", &["`table` is no data this file defines"]),
    ("vpaddq ymm0, ymm0, YMMWORD PTR .LC0[rip]", &["`.LC0` is no data this file defines"]),
    ("mov rax, qword [rel foo]", &["`foo` is no data this file defines"]),
    ("mov rax, qword [rsi - rdi]", &["bad register term `rdi`"]),
    ("mov rax, qword [rsi rdi]", &["unknown term `rsi rdi`"]),
    ("mov rax, qword [rsi + 0x80000000]", &["displacement out of range"]),
    ("mov rax, qword [rsi - 0x80000001]", &["displacement out of range"]),
    ("mov rax, qword [rsi + 0xffffffffffffffffffff]", &["unknown term"]),
    ("mov rax, qword 0x5", &["a size keyword must be followed by a memory operand"]),
    ("mov rax, 0x1ffffffffffffffff", &["unknown operand `0x1ffffffffffffffff`"]),
    ("mov rax, -0x8000000000000001", &["unknown operand"]),
    ("add rax, 0x80000000", &["unsupported operand form for `add`", "immediate out of range"]),
    ("add eax, 0x100000000", &["immediate out of range"]),
    ("mov byte [rdi], 0x100", &["immediate out of range"]),
    ("add al, -0x81", &["immediate out of range"]),
    ("shl rax, 0x100", &["count out of range"]),
    ("shl rax, -0x1", &["count out of range"]),
    ("rorx rax, rbx, 0x100", &["count out of range"]),
    ("inc [rdi]", &["operand size not specified for `inc`"]),
    ("shl [rdi], cl", &["operand size not specified for `shl`"]),
    ("mov [rdi], 0x1", &["operand size not specified for `mov`"]),
    ("mov rax, ebx", &["unsupported operand form for `mov`", "no such operand form"]),
    ("mov rax, dword [rsi]", &["unsupported operand form for `mov`"]),
    ("mov qword [rdi], qword [rsi]", &["unsupported operand form"]),
    ("mov 0x1, rax", &["unsupported operand form"]),
    ("xchg eax, ebx", &["unsupported operand form for `xchg`"]),
    ("movzx rax, rbx", &["unsupported operand form for `movzx`"]),
    ("lea rax, rbx", &["unsupported operand form for `lea`"]),
    ("lea al, [rbx]", &["unsupported operand form for `lea`"]),
    ("mulx rax, rbx", &["unsupported operand form for `mulx`"]),
    ("adcx al, bl", &["unsupported operand form for `adcx`"]),
    ("setc rax", &["unsupported operand form for `setc`"]),
    ("push eax", &["unsupported operand form for `push`"]),
    ("shl rax, rcx", &["unsupported operand form for `shl`"]),
    ("shrd rax, rbx, rcx", &["unsupported operand form for `shrd`"]),
    ("imul rax, rbx, rcx", &["unsupported operand form for `imul`"]),
    ("bt al, 0x1", &["unsupported operand form for `bt`"]),
    ("mov rax, qword [rsp*2]", &["rsp cannot be an index register"]),
    ("lea rax, [rsp + rsp]", &["rsp cannot be an index register"]),
    ("ret 0x8", &["unsupported operand form for `ret`"]),
    ("clc rax", &["unsupported operand form for `clc`"]),
];

#[test]
fn bad_lines() {
    for (line, fragments) in BAD_LINES {
        check(line, 1, fragments);
        // The same line, inside a file, after a comment and a directive.
        let file = format!("; comment\nglobal f\nf:\n    mov rax, rbx\n    {line}\n    ret\n");
        check(&file, 5, fragments);
    }
}

#[test]
fn parse_inst_errors_say_line_one() {
    for (line, want) in [
        ("", "line 1: no instruction"),
        ("   ; only a comment", "line 1: no instruction"),
        ("bogus", "line 1: unknown instruction `bogus`: `bogus`"),
    ] {
        let e = parse_inst(line).unwrap_err().to_string();
        assert!(e.starts_with(want), "{line}: {e}");
    }
}

/// Edits a line: delete, insert or replace characters (on character boundaries).
fn mutate(line: &str, edits: &[(usize, u8, char)]) -> String {
    let mut c: Vec<char> = line.chars().collect();
    for &(at, op, ch) in edits {
        let at = if c.is_empty() { 0 } else { at % (c.len() + 1) };
        match op % 4 {
            0 if at < c.len() => {
                c.remove(at);
            }
            1 => c.insert(at, ch),
            2 if at < c.len() => c[at] = ch,
            _ => c.truncate(at),
        }
    }
    c.into_iter().collect()
}

/// Characters that matter to the parser, and then any.
fn interesting_char() -> impl Strategy<Value = char> {
    prop_oneof![
        3 => prop::sample::select(vec![
            '[', ']', '+', '-', '*', ',', ':', ';', '#', '/', '.', ' ', '\t', 'x', 'h', '0', '9',
            'f', 'r', 'q', 'w', 'o', 'd', 'p', 't', '\n', '\r', '\u{e9}', '\u{1F600}',
        ]),
        1 => any::<char>(),
    ]
}

/// Words, numbers and punctuation of assembly, in any order.
const ASM_LIKE: &str =
    "([a-z]{1,6}:?|[\\[\\]+*,:;#./ -]|0x[0-9a-f]{1,20}|[0-9]{1,22}|r[a-z0-9]{1,3}|qword|ptr|\n){0,30}";

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn random_text_never_panics(s in "\\PC{0,80}") {
        let _ = parse(&s);
        let _ = parse_inst(&s);
    }

    #[test]
    fn random_asm_like_text_never_panics(s in ASM_LIKE) {
        let _ = parse(&s);
        let _ = parse_inst(&s);
    }

    #[test]
    fn mutated_valid_lines_never_panic(
        i in common::inst(),
        gas in any::<bool>(),
        edits in prop::collection::vec((any::<usize>(), any::<u8>(), interesting_char()), 1..6),
    ) {
        let line = if gas { inst_gas(&i) } else { inst_nasm(&i) };
        let m = mutate(&line, &edits);
        let _ = parse_inst(&m);
        let _ = parse(&format!("f:\n{m}\n{line}\n"));
    }
}
