//! Reading assembly text back into [`Program`]s: NASM and GNU as Intel syntax
//! (`.intel_syntax noprefix`), which is what [`crate::print`] writes, and GNU as AT&T
//! syntax through [`crate::att`] (what compilers print by default); what compilers and
//! hand-written `.asm`/`.S` files of straight-line code look like.
//!
//! A file is a sequence of lines:
//!
//! * blank lines and comments (`;`, `#`, `//`, and `/*` as a one-line C comment, to the end
//!   of the line) are skipped;
//! * directives: those that cannot run are skipped (`.globl`, `.type`, `.size`,
//!   `.p2align`, `.cfi_*`, `.seh_*`, `.loc`, `.ident` …, NASM's `global`, `extern`, `default`,
//!   `bits`, `align`, `cpu` and `[...]` forms); section directives say whether what
//!   follows is code; `.intel_syntax`/`.att_syntax` switch the syntax; data (`.byte`,
//!   `.quad`, `.ascii` …) and unknown directives are refused among instructions (they
//!   would assemble into code the checker never sees), and an instruction outside a
//!   code section is refused;
//! * a label `name:` starts a new [`Program`] called `name` (an instruction may follow it
//!   on the same line); local labels (`.L1:`) are skipped in code; instructions before
//!   any label go to a program with an empty name;
//! * in other sections, a local label, the data directives after it (NASM's `db` …
//!   `dq` too) and the alignment before it define a constant that rip-relative
//!   operands may read ([`crate::data`]); other data there is skipped;
//! * anything else is one instruction: a mnemonic (any case; the aliases `cmovb`,
//!   `cmovnae`, `cmovae`, `cmovnb`, `cmove`, `cmovne`, `setb`, `setnae`, `sete`, `setne`,
//!   `movabs`, `sal` are read as their canonical [`Mnemonic`]) and up to three operands:
//!   registers of any width, immediates (`0x1f`, `1fh`, `31`, `-1`), memory
//!   `[base + index*scale ± disp]` with an optional `byte`/`word`/`dword`/`qword`
//!   (`ptr`) size; without one, the size is that of the instruction's register operand.
//!
//! Every instruction read must have an encoding ([`crate::encode::check`]), so what parses
//! can be measured. The parser never panics, whatever the input: anything it does not
//! understand is an [`Error::Parse`] naming the 1-based line, the line, and the part it
//! could not read. It never guesses: an operand of unknown size is an error, not a qword.

use crate::data::Pool;
use crate::error::{Error, LineError, Result, Rip};
use crate::inst::{Inst, Mem, Mnemonic, Operand, Program, Reg, Size, VReg};

/// Which assembly syntax a file is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Syntax {
    /// Told by the file: `.intel_syntax` and `.att_syntax` switch (as in GNU as);
    /// before either, the file is AT&T if any instruction in it has a `%` register or a
    /// `$` immediate, else Intel (NASM, or GNU as after `.intel_syntax noprefix`).
    #[default]
    Auto,
    /// Intel syntax: NASM or GNU as `.intel_syntax noprefix`.
    Intel,
    /// GNU as AT&T syntax, what `gcc -S` and `clang -S` print ([`crate::att`]).
    Att,
}

/// All the functions in a file, in order, its syntax told by the file ([`Syntax::Auto`]).
pub fn parse(text: &str) -> Result<Vec<Program>> {
    parse_with(text, Syntax::Auto)
}

/// All the functions in a file written in `syntax`, in order, each with the constants
/// it addresses ([`crate::data`]).
pub fn parse_with(text: &str, syntax: Syntax) -> Result<Vec<Program>> {
    let mut progs: Vec<Program> = Vec::new();
    let mut pool = Pool::default();
    let mut declared = None;
    // Code until a section directive says otherwise (NASM files and snippets have none).
    let mut in_code = true;
    let file_att = text.lines().any(|l| {
        let s = strip_comment(l).trim();
        directive(s).is_none() && s.contains(['%', '$'])
    });
    for (n, raw) in text.lines().enumerate() {
        let err = |error: LineError| Error::Parse {
            line: n + 1,
            text: raw.trim().to_string(),
            error,
        };
        let mut s = strip_comment(raw).trim();
        if let Some((label, rest)) = split_label(s) {
            if !label.starts_with('.') {
                progs.push(Program::new(label, Vec::new()));
            } else if !in_code {
                pool.label(label);
            }
            s = rest.trim();
        }
        if s.is_empty() {
            continue;
        }
        let lower = s.to_ascii_lowercase();
        let (word, args) = match lower.split_once(char::is_whitespace) {
            Some((w, a)) => (w, a.trim()),
            None => (lower.as_str(), ""),
        };
        if !in_code && crate::data::is_align(word) {
            pool.align(word, args);
            continue;
        }
        if !in_code && NASM_DATA.contains(&word) {
            pool.data(word, args);
            continue;
        }
        if let Some(d) = directive(s) {
            match d {
                Directive::Syntax(d) => declared = Some(d),
                Directive::Code => {
                    in_code = true;
                    pool.section();
                }
                Directive::OtherSection => {
                    in_code = false;
                    pool.section();
                }
                Directive::Harmless => {}
                Directive::Data if in_code => {
                    return Err(err(LineError::DataAmongInstructions {
                        directive: word.to_string(),
                    }))
                }
                Directive::Unknown if in_code => {
                    return Err(err(LineError::UnknownDirective {
                        directive: word.to_string(),
                    }))
                }
                Directive::Data | Directive::Unknown => pool.data(word, args),
            }
            continue;
        }
        if !in_code {
            return Err(err(LineError::OutsideCode));
        }
        let att = match (syntax, declared) {
            (Syntax::Att, _) => true,
            (Syntax::Intel, _) => false,
            (Syntax::Auto, Some(d)) => d == Syntax::Att,
            (Syntax::Auto, None) => file_att,
        };
        pool.line = (n + 1, raw.trim().to_string());
        let inst = if att {
            crate::att::parse_line(s, &mut pool)
        } else {
            parse_line(s, &mut pool)
        }
        .map_err(err)?;
        match progs.last_mut() {
            Some(p) => p.insts.push(inst),
            None => progs.push(Program::new("", vec![inst])),
        }
    }
    pool.attach(&mut progs)?;
    Ok(progs)
}

/// NASM's data words, read as data in a data section.
const NASM_DATA: [&str; 4] = ["db", "dw", "dd", "dq"];

/// One instruction (a trailing comment is allowed); errors say line 1. A rip-relative
/// operand has no data to address here (only a whole file defines constants): it is an
/// error.
pub fn parse_inst(line: &str) -> Result<Inst> {
    let s = strip_comment(line).trim();
    let mut pool = Pool::default();
    let result = if s.is_empty() {
        Err(LineError::NoInstruction)
    } else {
        parse_line(s, &mut pool)
    };
    let result = result.and_then(|i| match i.data() {
        Some(_) => Err(LineError::ConstantOutsideFile),
        None => Ok(i),
    });
    result.map_err(|error| Error::Parse {
        line: 1,
        text: line.trim().to_string(),
        error,
    })
}

/// The mnemonic for a name, aliases included (lower case).
pub fn mnemonic(name: &str) -> Option<Mnemonic> {
    use Mnemonic::*;
    if let Some(m) = Mnemonic::ALL.iter().find(|m| m.name() == name) {
        return Some(*m);
    }
    Some(match name {
        "cmovb" | "cmovnae" => Cmovc,
        "cmovae" | "cmovnb" => Cmovnc,
        "cmove" => Cmovz,
        "cmovne" => Cmovnz,
        "setb" | "setnae" => Setc,
        "sete" => Setz,
        "setne" => Setnz,
        "movabs" => Mov,
        "movsxd" => Movsx,
        "sal" => Shl,
        _ => return None,
    })
}

pub(crate) fn strip_comment(line: &str) -> &str {
    let mut end = line.len();
    for pat in [";", "#", "//", "/*"] {
        if let Some(i) = line.find(pat) {
            end = end.min(i);
        }
    }
    &line[..end]
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$' | '@' | '?')
}

/// `name: rest` when the line starts with a label.
fn split_label(s: &str) -> Option<(&str, &str)> {
    let (label, rest) = s.split_once(':')?;
    let ok = !label.is_empty()
        && label.chars().all(is_ident_char)
        && !label.starts_with(|c: char| c.is_ascii_digit());
    ok.then_some((label, rest))
}

/// What a directive means to the reader.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Directive {
    /// `.intel_syntax`, `.att_syntax`.
    Syntax(Syntax),
    /// A switch to a code section (`.text`, `.section .text…`, NASM `section .text`).
    Code,
    /// A switch to any other section (data, constants, notes, debug information).
    OtherSection,
    /// Data (`.byte`, `.quad`, `.ascii` …): refused among instructions.
    Data,
    /// Symbols, alignment, sizes, call-frame and debug notes: nothing that runs.
    Harmless,
    /// Anything else: refused among instructions, never ignored.
    Unknown,
}

/// What a line is if it is a directive (it starts with `.` or `[`, or with a NASM
/// directive word), else `None`: an instruction.
fn directive(s: &str) -> Option<Directive> {
    let lower = s.to_ascii_lowercase();
    let mut words = lower.split(|c: char| c.is_whitespace() || c == ',');
    let word = words.next().unwrap_or("");
    // Mach-O names a section by segment and section (`__TEXT,__text`).
    let section = |name: Option<&str>, sub: Option<&str>| {
        let name = name.unwrap_or("").trim_matches('"');
        if name == ".text"
            || name.starts_with(".text.")
            || (name == "__text" && sub == Some("__text"))
        {
            Directive::Code
        } else {
            Directive::OtherSection
        }
    };
    const DATA: [&str; 26] = [
        ".byte", ".word", ".short", ".value", ".long", ".int", ".quad", ".octa", ".2byte",
        ".4byte", ".8byte", ".ascii", ".asciz", ".string", ".zero", ".fill", ".space", ".skip",
        ".incbin", ".insn", ".inst", ".uleb128", ".sleb128", ".float", ".double", ".single",
    ];
    const HARMLESS: [&str; 20] = [
        ".globl",
        ".private_extern",
        ".def",
        ".scl",
        ".endef",
        ".global",
        ".type",
        ".size",
        ".p2align",
        ".align",
        ".balign",
        ".file",
        ".ident",
        ".hidden",
        ".local",
        ".weak",
        ".loc",
        ".addrsig",
        ".addrsig_sym",
        ".end",
    ];
    const NASM: [&str; 6] = ["global", "extern", "default", "bits", "align", "cpu"];
    Some(match word {
        ".intel_syntax" => Directive::Syntax(Syntax::Intel),
        ".att_syntax" => Directive::Syntax(Syntax::Att),
        ".text" => Directive::Code,
        ".data" | ".bss" | ".rodata" => Directive::OtherSection,
        ".section" | "section" | "segment" => {
            let mut names = words.filter(|w| !w.is_empty());
            section(names.next(), names.next())
        }
        w if w.starts_with(".cfi_") || w.starts_with(".seh_") || w.starts_with('[') => {
            Directive::Harmless
        }
        w if w.starts_with(".dc.") || DATA.contains(&w) => Directive::Data,
        w if HARMLESS.contains(&w) || NASM.contains(&w) => Directive::Harmless,
        w if w.starts_with('.') => Directive::Unknown,
        _ => return None,
    })
}

/// An operand as read, before the size of a memory operand is known: a memory operand
/// with the size written (if any) and the N of a broadcast `{1toN}` written after it.
#[derive(Clone, Copy)]
pub(crate) enum Parsed {
    Reg(Reg, Size),
    Vec(VReg, Size),
    Mem(Mem, Option<Size>, Option<u32>),
    Imm(i64),
}

/// An operand that may end in AVX-512's broadcast `{1toN}` (both syntaxes): `read`
/// reads the rest, which must be memory; N is checked against the instruction by
/// [`assemble`].
pub(crate) fn with_broadcast<E: From<LineError>>(
    t: &str,
    read: impl FnOnce(&str) -> std::result::Result<Parsed, E>,
) -> std::result::Result<Parsed, E> {
    let Some((m, n)) = t.strip_suffix('}').and_then(|r| r.rsplit_once("{1to")) else {
        return read(t);
    };
    let n: u32 = n.parse().map_err(|_| LineError::UnknownDecoration {
        lanes: n.to_string(),
    })?;
    match read(m.trim_end())? {
        Parsed::Mem(m, size, None) => Ok(Parsed::Mem(m, size, Some(n))),
        _ => Err(LineError::BroadcastNotMemory.into()),
    }
}

/// One instruction, comment and label already removed.
fn parse_line(s: &str, pool: &mut Pool) -> std::result::Result<Inst, LineError> {
    let s = s.to_ascii_lowercase();
    let (name, rest) = match s.split_once(char::is_whitespace) {
        Some((n, r)) => (n, r.trim()),
        None => (s.as_str(), ""),
    };
    let mn = mnemonic(name).ok_or_else(|| LineError::UnknownInstruction {
        name: name.to_string(),
    })?;
    let mut parsed = [Parsed::Imm(0); 4];
    let mut n = 0;
    if !rest.is_empty() {
        for text in rest.split(',') {
            let text = text.trim();
            if n == 4 {
                return Err(LineError::TooManyOperands {
                    name: name.to_string(),
                });
            }
            if text.is_empty() {
                return Err(LineError::EmptyOperand);
            }
            parsed[n] = with_broadcast(text, |t| operand(t, pool)).map_err(|e| match e {
                Some(e) => LineError::InOperand {
                    operand: text.to_string(),
                    error: Box::new(e),
                },
                None => LineError::UnknownOperand {
                    operand: text.to_string(),
                },
            })?;
            n += 1;
        }
    }
    assemble(mn, name, &parsed[..n], None)
}

/// The instruction from its mnemonic and operands in Intel order: a memory operand
/// without a size gets `size` (an AT&T suffix's) or the one the instruction implies;
/// a broadcast's N must fill the vector operand; every instruction must have an
/// encoding.
pub(crate) fn assemble(
    mn: Mnemonic,
    name: &str,
    parsed: &[Parsed],
    size: Option<Size>,
) -> std::result::Result<Inst, LineError> {
    let n = parsed.len();
    if n > 4 {
        return Err(LineError::TooManyOperands {
            name: name.to_string(),
        });
    }
    let mut ops = [Operand::Imm(0); 4];
    let mut bcst = None;
    let suffix_size = size;
    for (k, p) in parsed.iter().enumerate() {
        ops[k] = match *p {
            Parsed::Reg(r, s) => Operand::Reg(r, s),
            Parsed::Vec(v, s) => Operand::Vec(v, s),
            Parsed::Imm(v) => Operand::Imm(v),
            Parsed::Mem(mut m, size, n) => {
                bcst = bcst.or(n);
                m.bcst = n.is_some();
                m.size = match (mn, size.or(suffix_size)) {
                    // The size of lea's operand means nothing; qword is canonical.
                    (Mnemonic::Lea, _) => Size::B64,
                    (_, Some(s)) => s,
                    (_, None) => {
                        implied_size(mn, parsed, k).ok_or_else(|| LineError::SizeNotSpecified {
                            name: name.to_string(),
                        })?
                    }
                };
                Operand::Mem(m)
            }
        };
    }
    let inst = Inst::new(mn, &ops[..n]);
    crate::encode::check(&inst).map_err(|reason| LineError::UnsupportedForm {
        name: name.to_string(),
        reason,
    })?;
    match bcst {
        Some(n) if inst.broadcast_lanes() != Some(n) => {
            Err(LineError::BroadcastDoesNotFill { lanes: n })
        }
        _ => Ok(inst),
    }
}

/// The size of a memory operand written without one: fixed by the mnemonic, or that of
/// the register operands (not counting a shift count in `cl`).
pub(crate) fn implied_size(mn: Mnemonic, ops: &[Parsed], mem_at: usize) -> Option<Size> {
    use Mnemonic::*;
    match mn {
        Movzx | Movsx | Setc | Seto | Setz | Setnz => return Some(Size::B8),
        Push | Pop | Vmovq | Vpinsrq | Vpextrq | Vpbroadcastq => return Some(Size::B64),
        Vinserti128 | Vextracti128 => return Some(Size::B128),
        _ => {}
    }
    if let (Vpmovsxbw, Some(Parsed::Vec(_, s))) = (mn, ops.first()) {
        // Half the destination's width: 8 bytes to an xmm, 16 to a ymm.
        return Some(if *s == Size::B256 {
            Size::B128
        } else {
            Size::B64
        });
    }
    if matches!(ops.get(mem_at), Some(Parsed::Mem(_, _, Some(_)))) {
        // A broadcast reads one element (`vpandq`'s is a qword).
        return Some(Size::B64);
    }
    let count_at = match mn {
        Shl | Shr | Sar => Some(1),
        Shld | Shrd => Some(2),
        _ => None,
    };
    ops.iter().enumerate().find_map(|(k, p)| match *p {
        Parsed::Reg(_, s) | Parsed::Vec(_, s) if k != mem_at && Some(k) != count_at => Some(s),
        _ => None,
    })
}

/// One operand; `Err(None)` when it is no operand at all.
fn operand(t: &str, pool: &mut Pool) -> std::result::Result<Parsed, Option<LineError>> {
    let mut t = t;
    let mut size = None;
    for (kw, s) in [
        ("byte", Size::B8),
        ("word", Size::B16),
        ("dword", Size::B32),
        ("qword", Size::B64),
        ("xmmword", Size::B128),
        ("oword", Size::B128),
        ("ymmword", Size::B256),
        ("yword", Size::B256),
    ] {
        if let Some(rest) = t.strip_prefix(kw) {
            if rest.starts_with(|c: char| c.is_whitespace() || c == '[') {
                size = Some(s);
                t = rest.trim_start();
                if let Some(rest) = t.strip_prefix("ptr") {
                    if rest.starts_with(|c: char| c.is_whitespace() || c == '[') {
                        t = rest.trim_start();
                    }
                }
                break;
            }
        }
    }
    // `[...]`, or gcc's `disp[...]` (`QWORD PTR 16[rsi]`, `YMMWORD PTR .LC0[rip]`).
    if let Some(open) = t
        .find('[')
        .filter(|&i| i == 0 || size.is_some() || number(t[..i].trim()).is_some())
    {
        let inner = t[open + 1..]
            .strip_suffix(']')
            .ok_or(Some(LineError::UnterminatedMemory))?;
        let disp = t[..open].trim();
        let m = if disp.is_empty() {
            mem(inner, pool)
        } else {
            mem(&format!("{inner} + {disp}"), pool)
        };
        return Ok(Parsed::Mem(m.map_err(Some)?, size, None));
    }
    if size.is_some() {
        return Err(Some(LineError::SizeWithoutMemory));
    }
    if let Some((r, s)) = Reg::parse(t) {
        return Ok(Parsed::Reg(r, s));
    }
    if let Some((v, s)) = VReg::parse(t) {
        return Ok(Parsed::Vec(v, s));
    }
    if let Some(v) = number(t) {
        return Ok(Parsed::Imm(v));
    }
    Err(None)
}

/// `0x1f`, `1fh` (starting with a digit), `31`, each with an optional sign. Values up to
/// `u64::MAX` are read as their 64-bit two's complement pattern.
pub(crate) fn number(t: &str) -> Option<i64> {
    let (neg, body) = match t.strip_prefix('-') {
        Some(b) => (true, b.trim_start()),
        None => (false, t.strip_prefix('+').unwrap_or(t).trim_start()),
    };
    let digits = |s: &str, radix: u32| {
        if !s.is_empty() && s.chars().all(|c| c.is_digit(radix)) {
            u64::from_str_radix(s, radix).ok()
        } else {
            None
        }
    };
    let mag = if let Some(h) = body.strip_prefix("0x") {
        digits(h, 16)?
    } else if let Some(h) = body.strip_suffix('h') {
        if !h.starts_with(|c: char| c.is_ascii_digit()) {
            return None;
        }
        digits(h, 16)?
    } else {
        digits(body, 10)?
    };
    if neg {
        (mag <= 1 << 63).then(|| (mag as i64).wrapping_neg())
    } else {
        Some(mag as i64)
    }
}

/// A register as an address part: one of 64 bits, or `None` for a word that names no
/// register (both syntaxes).
pub(crate) fn addr_reg(s: &str) -> std::result::Result<Option<Reg>, LineError> {
    match Reg::parse(s.trim()) {
        Some((r, Size::B64)) => Ok(Some(r)),
        Some(_) => Err(LineError::NotAddressRegister {
            register: s.trim().to_string(),
        }),
        None => Ok(None),
    }
}

/// An index's scale: 1, 2, 4 or 8 (both syntaxes).
pub(crate) fn scale(k: &str) -> std::result::Result<u8, LineError> {
    match number(k) {
        Some(s @ (1 | 2 | 4 | 8)) => Ok(s as u8),
        _ => Err(LineError::BadScale {
            scale: k.to_string(),
        }),
    }
}

/// The inside of `[...]`: `base`, `base + disp`, `base + index*scale - disp`,
/// `index*scale`, `disp` ... (terms in any order; a register without a scale is the base
/// if none is yet, else the index), or `rip + symbol ± disp`: a constant of the file
/// ([`crate::data`]). Also what AT&T's `symbol+disp(%rip)` reads as.
pub(crate) fn mem(inner: &str, pool: &mut Pool) -> std::result::Result<Mem, LineError> {
    // NASM's `[rel label]` is `[rip + label]`.
    let (inner, mut rip) = match inner.trim_start().strip_prefix("rel ") {
        Some(rest) => (rest, true),
        None => (inner, false),
    };
    let mut symbol: Option<&str> = None;
    let mut plain: [Option<Reg>; 2] = [None; 2];
    let mut nplain = 0;
    let mut scaled: Option<(Reg, u8)> = None;
    let mut disp: i128 = 0;
    let mut rest = inner.trim();
    let mut first = true;
    if rest.is_empty() {
        return Err(LineError::EmptyMemory);
    }
    while !rest.is_empty() {
        // Signs: `+`, `-`, `+ -` ...
        let mut neg = false;
        let mut signed = false;
        while let Some(c) = rest.chars().next().filter(|c| *c == '+' || *c == '-') {
            neg ^= c == '-';
            signed = true;
            rest = rest[1..].trim_start();
        }
        if !signed && !first {
            return Err(LineError::ExpectedSign);
        }
        first = false;
        let end = rest.find(['+', '-']).unwrap_or(rest.len());
        let term = rest[..end].trim();
        rest = &rest[end..];
        if term.is_empty() {
            return Err(LineError::MissingTerm);
        }
        if let Some((a, b)) = term.split_once('*') {
            let (r, k) = match (addr_reg(a)?, addr_reg(b)?) {
                (Some(r), None) => (r, b),
                (None, Some(r)) => (r, a),
                _ => return Err(LineError::BadScaledIndex { term: term.into() }),
            };
            let scale = scale(k.trim()).map_err(|e| LineError::InTerm {
                term: term.to_string(),
                error: Box::new(e),
            })?;
            if neg || scaled.is_some() {
                return Err(LineError::BadIndex { term: term.into() });
            }
            scaled = Some((r, scale));
        } else if let Some(r) = addr_reg(term)? {
            if neg || nplain == 2 {
                return Err(LineError::BadRegisterTerm { term: term.into() });
            }
            plain[nplain] = Some(r);
            nplain += 1;
        } else if term == "rip" {
            if neg || rip {
                return Err(LineError::BadTerm { term: term.into() });
            }
            rip = true;
        } else if let Some(v) = number(term) {
            let v = v as i128;
            disp += if neg { -v } else { v };
            if disp.abs() > 1 << 64 {
                return Err(LineError::DisplacementOutOfRange);
            }
        } else if is_symbol(term) && !neg && symbol.is_none() {
            symbol = Some(term);
        } else {
            return Err(LineError::UnknownTerm { term: term.into() });
        }
    }
    let disp32 = |d: i128| i32::try_from(d).map_err(|_| LineError::DisplacementOutOfRange);
    match (rip, symbol) {
        (true, Some(sym)) if plain[0].is_none() && scaled.is_none() => {
            let id = pool.symbol(sym)?;
            return Ok(Mem::constant(id, disp32(disp)?, Size::B64));
        }
        (true, Some(_)) => return Err(LineError::RipWithRegister { rip: Rip::Intel }),
        (true, None) => return Err(LineError::RipWithoutSymbol { rip: Rip::Intel }),
        (false, Some(sym)) => {
            return Err(LineError::AbsoluteSymbol {
                symbol: sym.to_string(),
                rip: Rip::Intel,
            })
        }
        (false, None) => {}
    }
    let (base, index, scale) = match (plain, scaled) {
        ([b, None], Some((x, s))) => (b, Some(x), s),
        ([_, Some(_)], Some(_)) => return Err(LineError::TooManyRegisters),
        ([b, x], None) => (b, x, 1),
    };
    Ok(Mem {
        base,
        index,
        scale,
        disp: disp32(disp)?,
        ..Mem::ZERO
    })
}

/// A label as an operand names it: `.LC0`, `.LCPI0_1`, `table` (not a number).
fn is_symbol(term: &str) -> bool {
    term.starts_with(|c: char| c.is_ascii_alphabetic() || c == '.' || c == '_')
        && term.chars().all(is_ident_char)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        let table: &[(&str, Option<i64>)] = &[
            ("0x1f", Some(31)),
            ("1fh", Some(31)),
            ("0ffh", Some(255)),
            ("ffh", None),
            ("31", Some(31)),
            ("-1", Some(-1)),
            ("- 0x10", Some(-16)),
            ("0xffffffffffffffff", Some(-1)),
            ("-0x8000000000000000", Some(i64::MIN)),
            ("-0x8000000000000001", None),
            ("0x10000000000000000", None),
            ("0x", None),
            ("+-1", None),
            ("1e3", None),
        ];
        for (s, want) in table {
            assert_eq!(number(s), *want, "{s}");
        }
    }

    /// Directives: what cannot run is skipped, data among instructions and unknown
    /// directives in code are refused (they would assemble into code the checker never
    /// sees), data in other sections is fine, an instruction outside code is refused.
    #[test]
    fn directives() {
        let ok = [
            "\t.text\n\t.globl f\n\t.p2align 4\n\t.type f, @function\nf:\n.LFB0:\n\t.cfi_startproc\n\tret\n\t.cfi_endproc\n\t.size f, .-f\n\t.ident \"GCC\"\n\t.section .note.GNU-stack,\"\",@progbits\n",
            "\t.text\nf:\n\tret\n\t.section .rodata.cst8,\"aM\",@progbits,8\n\t.p2align 3\n.LCPI0_0:\n\t.quad 0x1\n",
            "\t.file \"f.c\"\n\t.text\nf:\n\t.loc 1 2 3\n\tret\n\t.section .debug_info\n\t.uleb128 0x1\n\t.byte 0x2\n",
            "SECTION .text\nGLOBAL f\nf:\n    ret\n",
            "f:\n    ret\n",
            // Mach-O (clang's section names, `.private_extern`) and COFF (`.def` records).
            "\t.section __TEXT,__const\n.LC0:\n\t.quad 1\n\t.section __TEXT,__text,regular,pure_instructions\n\t.globl _f\n\t.private_extern _f\n_f:\n\tret\n",
            "\t.text\n\t.globl f\n\t.def f; .scl 2; .type 32; .endef\nf:\n\tret\n\t.section .rdata,\"dr\"\n",
            "SECTION .text\nGLOBAL _f:private_extern\n_f:\n    ret\n",
        ];
        for text in ok {
            assert!(parse(text).is_ok(), "{text}: {:?}", parse(text));
        }
        let refused = [
            ("f:\n\t.byte 0x0f, 0x0b\n\tret\n", "data directive `.byte`"),
            ("\t.text\nf:\n\tret\n\t.quad 5\n", "data directive `.quad`"),
            (
                "f:\n\t.frobnicate\n\tret\n",
                "unknown directive `.frobnicate`",
            ),
            ("\t.data\nf:\n\tret\n", "outside a code section"),
            ("\t.section .rodata\n\tret\n", "outside a code section"),
            (
                "\t.section __TEXT,__const\n\tret\n",
                "outside a code section",
            ),
        ];
        for (text, want) in refused {
            let e = parse(text).unwrap_err().to_string();
            assert!(e.contains(want), "{text}: {e}");
        }
    }

    /// gcc's Intel syntax puts a displacement before the brackets.
    #[test]
    fn displacement_before_brackets() {
        for (gcc, plain) in [
            (
                "mov rax, QWORD PTR 16[rsi]",
                "mov rax, qword ptr [rsi + 16]",
            ),
            ("mov QWORD PTR -8[rsp], rdx", "mov qword ptr [rsp - 8], rdx"),
            ("lea rcx, 0[r13+rbp]", "lea rcx, [r13 + rbp]"),
            ("lea rcx, 8[rax+rax*2]", "lea rcx, [rax + rax*2 + 8]"),
        ] {
            assert_eq!(parse_inst(gcc).ok(), parse_inst(plain).ok(), "{gcc}");
            assert!(parse_inst(gcc).is_ok(), "{gcc}");
        }
        assert!(parse_inst("mov rax, x[rsi]").is_err());
    }
}
