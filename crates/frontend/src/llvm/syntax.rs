//! The text of LLVM IR, as far as straight-line integer functions need it: a lexer of one
//! line at a time and a parser of function headers and instructions into a small syntax
//! tree. Module-level lines (target, attributes, metadata, declarations) are skipped.
//!
//! What is not in the subset is still *parsed* as far as needed to name it: an unknown
//! instruction becomes [`Kind::Other`] with its opcode, so that the builder can refuse
//! it with its line number and a reason. This module must never panic on any input.

use num_bigint::BigInt;

/// A type, as far as the subset has them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Type {
    Int(u32),
    Ptr,
    Void,
    /// `{ i64, i1 }` (what the `*.with.overflow` intrinsics return).
    Struct(Vec<Type>),
    /// `[n x T]` (a `getelementptr` source type).
    Array(u64, Box<Type>),
    /// Anything else (`<2 x i64>`, `float`, `label`, ...), by its text.
    Other(String),
}

impl std::fmt::Display for Type {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Type::Int(n) => write!(f, "i{n}"),
            Type::Ptr => write!(f, "ptr"),
            Type::Void => write!(f, "void"),
            Type::Struct(ts) => {
                let inner: Vec<String> = ts.iter().map(|t| t.to_string()).collect();
                write!(f, "{{ {} }}", inner.join(", "))
            }
            Type::Array(n, t) => write!(f, "[{n} x {t}]"),
            Type::Other(s) => write!(f, "{s}"),
        }
    }
}

/// An operand: a local value, an integer literal or a boolean.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Arg {
    Local(String),
    Int(BigInt),
    /// `poison`, `undef`, a global, a constant expression: refused where used.
    Other(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BinOp {
    Add,
    Sub,
    Mul,
    And,
    Or,
    Xor,
    Shl,
    Lshr,
    Ashr,
    Udiv,
    Urem,
    Sdiv,
    Srem,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CastOp {
    Zext,
    Sext,
    Trunc,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pred {
    Eq,
    Ne,
    Ult,
    Ule,
    Ugt,
    Uge,
    Slt,
    Sle,
    Sgt,
    Sge,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Bin {
        op: BinOp,
        /// `nuw`: the operation does not wrap as unsigned (LLVM: poison if it would).
        nuw: bool,
        ty: Type,
        a: Arg,
        b: Arg,
    },
    Icmp {
        pred: Pred,
        ty: Type,
        a: Arg,
        b: Arg,
    },
    Select {
        cond: Arg,
        ty: Type,
        t: Arg,
        f: Arg,
    },
    Cast {
        op: CastOp,
        /// `trunc nuw`: no set bit is cut off.
        nuw: bool,
        from: Type,
        x: Arg,
        to: Type,
    },
    Freeze {
        ty: Type,
        x: Arg,
    },
    Load {
        ty: Type,
        ptr: Arg,
    },
    Store {
        ty: Type,
        val: Arg,
        ptr: Arg,
    },
    Gep {
        elem: Type,
        ptr: Arg,
        indices: Vec<(Type, Arg)>,
    },
    Call {
        ret: Type,
        callee: String,
        args: Vec<(Type, Arg)>,
    },
    ExtractValue {
        agg: Arg,
        index: u32,
    },
    Ret {
        val: Option<(Type, Arg)>,
    },
    /// An instruction outside the subset, by its opcode (`br`, `phi`, `fadd`, ...).
    Other(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Inst {
    /// 1-based line in the file.
    pub line: usize,
    pub result: Option<String>,
    pub kind: Kind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Param {
    pub ty: Type,
    pub name: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Func {
    pub name: String,
    pub line: usize,
    pub ret: Type,
    pub params: Vec<Param>,
    pub body: Vec<Inst>,
    /// A label after the first instruction (a second basic block): its line.
    pub second_block: Option<usize>,
}

/// A syntax error: the 1-based line and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SyntaxError {
    pub line: usize,
    pub error: LineError,
}

/// What is wrong with one line of LLVM IR text (before its number is known).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum LineError {
    /// `%"...`, `@"...`, `"...` or a vector type or parameter attribute without its end.
    #[error("unterminated {0}")]
    Unterminated(Unterminated),
    /// `%` or `@` with no name after it.
    #[error("a lone `{0}`")]
    LoneSigil(char),
    #[error("malformed number `{0}`")]
    MalformedNumber(String),
    /// A character no token starts with (non-ASCII included).
    #[error("unexpected character `{0}`")]
    UnexpectedChar(char),
    /// Something else than `wanted` where it must be.
    #[error("expected {wanted}{found}")]
    Expected { wanted: Wanted, found: Found },
    /// `wanted` is missing (the message does not say what is there instead).
    #[error("expected {0}")]
    Missing(Wanted),
    /// An array type `[n x T]` whose length does not fit 64 bits (or is negative).
    #[error("array length")]
    ArrayLength,
    #[error("unknown icmp predicate `{0}`")]
    UnknownPredicate(String),
    /// An `extractvalue` index that does not fit 32 bits (or is negative).
    #[error("bad extractvalue index")]
    BadExtractIndex,
    #[error("a `define` without a function name")]
    DefineWithoutName,
    #[error("a `define` without a return type")]
    DefineWithoutReturnType,
    /// A function header with no `{` after it.
    #[error("@{0}: expected `{{` after the header")]
    NoBody(String),
    /// A function whose body runs to the end of the file.
    #[error("@{0}: the function body is never closed with `}}`")]
    NeverClosed(String),
}

/// What [`LineError::Unterminated`] names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Unterminated {
    QuotedName,
    String,
    VectorType,
    ParameterAttribute,
}

impl std::fmt::Display for Unterminated {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Unterminated::QuotedName => "quoted name",
            Unterminated::String => "string",
            Unterminated::VectorType => "vector type",
            Unterminated::ParameterAttribute => "parameter attribute",
        })
    }
}

/// What the parser wanted where it found something else ([`LineError::Expected`],
/// [`LineError::Missing`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Wanted {
    /// A punctuation character: `,`, `(`, `}` ...
    Punct(char),
    /// A keyword: `x`, `to`, `call`.
    Word(&'static str),
    Type,
    Operand,
    Instruction,
    ArrayLength,
    IcmpPredicate,
    Callee,
    ExtractValueIndex,
    FunctionName,
}

impl std::fmt::Display for Wanted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Wanted::Punct(c) => write!(f, "`{c}`"),
            Wanted::Word(w) => write!(f, "`{w}`"),
            Wanted::Type => f.write_str("a type"),
            Wanted::Operand => f.write_str("an operand"),
            Wanted::Instruction => f.write_str("an instruction"),
            Wanted::ArrayLength => f.write_str("an array length"),
            Wanted::IcmpPredicate => f.write_str("an icmp predicate"),
            Wanted::Callee => f.write_str("the name of the called function"),
            Wanted::ExtractValueIndex => f.write_str("an extractvalue index"),
            Wanted::FunctionName => f.write_str("the function name"),
        }
    }
}

/// What the parser found instead ([`LineError::Expected`]); displayed as the end of
/// the message (", found `x`").
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Found {
    EndOfLine,
    /// A token, as the line writes it (`%x`, `@f`, `12`, `,`).
    Token(String),
    Metadata,
}

impl std::fmt::Display for Found {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Found::EndOfLine => f.write_str(" at the end of the line"),
            Found::Token(t) => write!(f, ", found `{t}`"),
            Found::Metadata => f.write_str(", found metadata"),
        }
    }
}

type PResult<T> = std::result::Result<T, LineError>;

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    /// A keyword or type name (`add`, `i64`, `nuw`, `x`).
    Word(String),
    Local(String),
    Global(String),
    Int(BigInt),
    Punct(char),
    /// `!tbaa`, `!5`, `#0`, strings: only skipped.
    Skip,
}

fn lex(line: &str) -> PResult<Vec<Tok>> {
    let b = line.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    let ident = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'$' | b'-');
    while i < b.len() {
        let c = b[i];
        if c == b';' {
            break;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        match c {
            b'%' | b'@' => {
                i += 1;
                let name = if b.get(i) == Some(&b'"') {
                    let end = line[i + 1..]
                        .find('"')
                        .ok_or(LineError::Unterminated(Unterminated::QuotedName))?;
                    let s = line[i + 1..i + 1 + end].to_string();
                    i += end + 2;
                    s
                } else {
                    while i < b.len() && ident(b[i]) {
                        i += 1;
                    }
                    line[start + 1..i].to_string()
                };
                if name.is_empty() {
                    return Err(LineError::LoneSigil(c as char));
                }
                out.push(if c == b'%' {
                    Tok::Local(name)
                } else {
                    Tok::Global(name)
                });
            }
            b'!' | b'#' => {
                i += 1;
                while i < b.len() && ident(b[i]) {
                    i += 1;
                }
                out.push(Tok::Skip);
            }
            b'"' => {
                let end = line[i + 1..]
                    .find('"')
                    .ok_or(LineError::Unterminated(Unterminated::String))?;
                i += end + 2;
                out.push(Tok::Skip);
            }
            b'-' | b'0'..=b'9' => {
                i += 1;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
                let text = &line[start..i];
                if i < b.len() && ident(b[i]) {
                    // `0x...` floats, `1.0`: not integers; keep as a word.
                    while i < b.len() && ident(b[i]) {
                        i += 1;
                    }
                    out.push(Tok::Word(line[start..i].to_string()));
                } else {
                    let v: BigInt = text
                        .parse()
                        .map_err(|_| LineError::MalformedNumber(text.to_string()))?;
                    out.push(Tok::Int(v));
                }
            }
            c if ident(c) => {
                while i < b.len() && ident(b[i]) {
                    i += 1;
                }
                out.push(Tok::Word(line[start..i].to_string()));
            }
            b',' | b'=' | b'(' | b')' | b'{' | b'}' | b'[' | b']' | b'<' | b'>' | b'*' | b':' => {
                i += 1;
                out.push(Tok::Punct(c as char));
            }
            _ => {
                // Any other byte (non-ASCII included): named whole in the error.
                let c = line[i..]
                    .chars()
                    .next()
                    .unwrap_or(char::REPLACEMENT_CHARACTER);
                return Err(LineError::UnexpectedChar(c));
            }
        }
    }
    Ok(out)
}

/// A cursor over one line's tokens.
struct P {
    toks: Vec<Tok>,
    at: usize,
}

impl P {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at)
    }
    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.at).cloned();
        self.at += 1;
        t
    }
    fn is_word(&self, w: &str) -> bool {
        matches!(self.peek(), Some(Tok::Word(x)) if x == w)
    }
    fn is_punct(&self, c: char) -> bool {
        self.peek() == Some(&Tok::Punct(c))
    }
    fn eat_word(&mut self, w: &str) -> bool {
        let yes = self.is_word(w);
        if yes {
            self.at += 1;
        }
        yes
    }
    fn eat_punct(&mut self, c: char) -> bool {
        let yes = self.is_punct(c);
        if yes {
            self.at += 1;
        }
        yes
    }
    fn expect_punct(&mut self, c: char) -> PResult<()> {
        if self.eat_punct(c) {
            Ok(())
        } else {
            Err(self.expected(Wanted::Punct(c)))
        }
    }
    /// What is at the cursor, for an error.
    fn found(&self) -> Found {
        match self.peek() {
            None => Found::EndOfLine,
            Some(Tok::Word(w)) => Found::Token(w.clone()),
            Some(Tok::Local(n)) => Found::Token(format!("%{n}")),
            Some(Tok::Global(n)) => Found::Token(format!("@{n}")),
            Some(Tok::Int(v)) => Found::Token(v.to_string()),
            Some(Tok::Punct(c)) => Found::Token(c.to_string()),
            Some(Tok::Skip) => Found::Metadata,
        }
    }
    /// `wanted` was expected where the cursor is.
    fn expected(&self, wanted: Wanted) -> LineError {
        LineError::Expected {
            wanted,
            found: self.found(),
        }
    }
    /// `wanted` was expected where the token just read is.
    fn expected_prev(&mut self, wanted: Wanted) -> LineError {
        LineError::Expected {
            wanted,
            found: self.found_prev(),
        }
    }
    /// Skips flag words (`nuw`, `nsw`, `exact`, `disjoint`, `nneg`, `inbounds`, ...);
    /// whether `nuw` was among them.
    fn flags(&mut self, flags: &[&str]) -> bool {
        let mut nuw = false;
        while flags.iter().any(|f| self.is_word(f)) {
            nuw |= self.is_word("nuw");
            self.at += 1;
        }
        nuw
    }

    fn ty(&mut self) -> PResult<Type> {
        match self.next() {
            Some(Tok::Word(w)) => Ok(match w.as_str() {
                "ptr" => Type::Ptr,
                "void" => Type::Void,
                _ => match w.strip_prefix('i').and_then(|d| d.parse::<u32>().ok()) {
                    Some(n) if (1..=(1 << 23)).contains(&n) => Type::Int(n),
                    _ => Type::Other(w),
                },
            }),
            Some(Tok::Punct('{')) => {
                let mut ts = Vec::new();
                while !self.eat_punct('}') {
                    ts.push(self.ty()?);
                    if !self.eat_punct(',') {
                        self.expect_punct('}')?;
                        break;
                    }
                }
                Ok(Type::Struct(ts))
            }
            Some(Tok::Punct('[')) => {
                let n = match self.next() {
                    Some(Tok::Int(n)) => u64::try_from(n).map_err(|_| LineError::ArrayLength)?,
                    _ => return Err(LineError::Missing(Wanted::ArrayLength)),
                };
                if !self.eat_word("x") {
                    return Err(self.expected(Wanted::Word("x")));
                }
                let t = self.ty()?;
                self.expect_punct(']')?;
                Ok(Type::Array(n, Box::new(t)))
            }
            Some(Tok::Punct('<')) => {
                let mut depth = 1;
                let mut text = String::from("<");
                while depth > 0 {
                    match self.next() {
                        None => return Err(LineError::Unterminated(Unterminated::VectorType)),
                        Some(Tok::Punct('<')) => depth += 1,
                        Some(Tok::Punct('>')) => depth -= 1,
                        Some(Tok::Int(n)) => text.push_str(&format!("{n} ")),
                        Some(Tok::Word(w)) => text.push_str(&format!("{w} ")),
                        _ => {}
                    }
                }
                Ok(Type::Other(format!("{}>", text.trim_end())))
            }
            _ => Err(self.expected_prev(Wanted::Type)),
        }
    }
    fn found_prev(&mut self) -> Found {
        self.at = self.at.saturating_sub(1);
        let s = self.found();
        self.at += 1;
        s
    }

    fn arg(&mut self) -> PResult<Arg> {
        match self.next() {
            Some(Tok::Local(n)) => Ok(Arg::Local(n)),
            Some(Tok::Int(v)) => Ok(Arg::Int(v)),
            Some(Tok::Word(w)) if w == "true" => Ok(Arg::Int(1.into())),
            Some(Tok::Word(w)) if w == "false" || w == "zeroinitializer" || w == "null" => {
                Ok(Arg::Int(0.into()))
            }
            Some(Tok::Word(w)) => Ok(Arg::Other(w)),
            Some(Tok::Global(g)) => Ok(Arg::Other(format!("@{g}"))),
            _ => Err(self.expected_prev(Wanted::Operand)),
        }
    }

    /// `volatile` or `atomic` after `load`/`store`, if there.
    fn ordering(&self) -> Option<&'static str> {
        ["volatile", "atomic"].into_iter().find(|w| self.is_word(w))
    }

    fn typed_arg(&mut self) -> PResult<(Type, Arg)> {
        let t = self.ty()?;
        // Parameter attributes inside calls (`noundef`, `zeroext`).
        self.flags(&["noundef", "zeroext", "signext", "immarg"]);
        Ok((t, self.arg()?))
    }
}

const BINOPS: [(&str, BinOp); 13] = [
    ("add", BinOp::Add),
    ("sub", BinOp::Sub),
    ("mul", BinOp::Mul),
    ("and", BinOp::And),
    ("or", BinOp::Or),
    ("xor", BinOp::Xor),
    ("shl", BinOp::Shl),
    ("lshr", BinOp::Lshr),
    ("ashr", BinOp::Ashr),
    ("udiv", BinOp::Udiv),
    ("urem", BinOp::Urem),
    ("sdiv", BinOp::Sdiv),
    ("srem", BinOp::Srem),
];

const PREDS: [(&str, Pred); 10] = [
    ("eq", Pred::Eq),
    ("ne", Pred::Ne),
    ("ult", Pred::Ult),
    ("ule", Pred::Ule),
    ("ugt", Pred::Ugt),
    ("uge", Pred::Uge),
    ("slt", Pred::Slt),
    ("sle", Pred::Sle),
    ("sgt", Pred::Sgt),
    ("sge", Pred::Sge),
];

/// One instruction line (after `%x =`, if any).
fn instruction(p: &mut P) -> PResult<Kind> {
    let Some(Tok::Word(op)) = p.next() else {
        return Err(p.expected_prev(Wanted::Instruction));
    };
    if let Some(&(_, b)) = BINOPS.iter().find(|(n, _)| *n == op) {
        let nuw = p.flags(&["nuw", "nsw", "exact", "disjoint"]);
        let ty = p.ty()?;
        let a = p.arg()?;
        p.expect_punct(',')?;
        let b2 = p.arg()?;
        return Ok(Kind::Bin {
            op: b,
            nuw,
            ty,
            a,
            b: b2,
        });
    }
    Ok(match op.as_str() {
        "icmp" => {
            p.flags(&["samesign"]);
            let pred = match p.next() {
                Some(Tok::Word(w)) => PREDS
                    .iter()
                    .find(|(n, _)| *n == w)
                    .map(|&(_, x)| x)
                    .ok_or(LineError::UnknownPredicate(w))?,
                _ => return Err(LineError::Missing(Wanted::IcmpPredicate)),
            };
            let ty = p.ty()?;
            let a = p.arg()?;
            p.expect_punct(',')?;
            let b = p.arg()?;
            Kind::Icmp { pred, ty, a, b }
        }
        "select" => {
            let (_, cond) = p.typed_arg()?;
            p.expect_punct(',')?;
            let (ty, t) = p.typed_arg()?;
            p.expect_punct(',')?;
            let (_, f) = p.typed_arg()?;
            Kind::Select { cond, ty, t, f }
        }
        "zext" | "sext" | "trunc" => {
            let nuw = p.flags(&["nneg", "nuw", "nsw"]);
            let from = p.ty()?;
            let x = p.arg()?;
            if !p.eat_word("to") {
                return Err(p.expected(Wanted::Word("to")));
            }
            let to = p.ty()?;
            let op = match op.as_str() {
                "zext" => CastOp::Zext,
                "sext" => CastOp::Sext,
                _ => CastOp::Trunc,
            };
            Kind::Cast {
                op,
                nuw,
                from,
                x,
                to,
            }
        }
        "freeze" => {
            let (ty, x) = p.typed_arg()?;
            Kind::Freeze { ty, x }
        }
        "load" => {
            if let Some(q) = p.ordering() {
                return Ok(Kind::Other(format!("load {q}")));
            }
            let ty = p.ty()?;
            p.expect_punct(',')?;
            let (_, ptr) = p.typed_arg()?;
            Kind::Load { ty, ptr }
        }
        "store" => {
            if let Some(q) = p.ordering() {
                return Ok(Kind::Other(format!("store {q}")));
            }
            let (ty, val) = p.typed_arg()?;
            p.expect_punct(',')?;
            let (_, ptr) = p.typed_arg()?;
            Kind::Store { ty, val, ptr }
        }
        "getelementptr" => {
            p.flags(&["inbounds", "nuw", "nusw"]);
            let elem = p.ty()?;
            p.expect_punct(',')?;
            let (_, ptr) = p.typed_arg()?;
            let mut indices = Vec::new();
            while p.eat_punct(',') {
                if matches!(p.peek(), Some(Tok::Skip)) {
                    break;
                }
                p.flags(&["inrange"]);
                indices.push(p.typed_arg()?);
            }
            Kind::Gep { elem, ptr, indices }
        }
        "call" | "tail" | "musttail" | "notail" => {
            if op != "call" && !p.eat_word("call") {
                return Err(p.expected(Wanted::Word("call")));
            }
            p.flags(&["fastcc", "ccc", "noundef", "zeroext", "signext"]);
            let ret = p.ty()?;
            let callee = match p.next() {
                Some(Tok::Global(g)) => g,
                _ => return Err(LineError::Missing(Wanted::Callee)),
            };
            p.expect_punct('(')?;
            let mut args = Vec::new();
            if !p.eat_punct(')') {
                loop {
                    args.push(p.typed_arg()?);
                    if p.eat_punct(')') {
                        break;
                    }
                    p.expect_punct(',')?;
                }
            }
            Kind::Call { ret, callee, args }
        }
        "extractvalue" => {
            let (_, agg) = p.typed_arg()?;
            p.expect_punct(',')?;
            let index = match p.next() {
                Some(Tok::Int(n)) => u32::try_from(n).map_err(|_| LineError::BadExtractIndex)?,
                _ => return Err(LineError::Missing(Wanted::ExtractValueIndex)),
            };
            if p.eat_punct(',') && !matches!(p.peek(), Some(Tok::Skip)) {
                return Ok(Kind::Other("extractvalue with nested indices".to_string()));
            }
            Kind::ExtractValue { agg, index }
        }
        "ret" => {
            if p.eat_word("void") {
                Kind::Ret { val: None }
            } else {
                Kind::Ret {
                    val: Some(p.typed_arg()?),
                }
            }
        }
        _ => Kind::Other(op),
    })
}

/// The function header's parameters: `(ptr noundef %0, i64 %x, ...)`.
fn params(p: &mut P) -> PResult<Vec<Param>> {
    p.expect_punct('(')?;
    let mut out = Vec::new();
    if p.eat_punct(')') {
        return Ok(out);
    }
    loop {
        let ty = p.ty()?;
        // Attributes up to the name, the comma or the `)`; `align 8`,
        // `dereferenceable(40)`, `captures(none)` included.
        let mut name = None;
        loop {
            match p.peek() {
                Some(Tok::Local(n)) => {
                    name = Some(n.clone());
                    p.at += 1;
                }
                Some(Tok::Punct(',')) | Some(Tok::Punct(')')) | None => break,
                Some(Tok::Punct('(')) => {
                    while !p.eat_punct(')') {
                        if p.next().is_none() {
                            return Err(LineError::Unterminated(Unterminated::ParameterAttribute));
                        }
                    }
                }
                _ => p.at += 1,
            }
        }
        let name = name.unwrap_or_else(|| out.len().to_string());
        out.push(Param { ty, name });
        if p.eat_punct(')') {
            return Ok(out);
        }
        p.expect_punct(',')?;
    }
}

/// Every function defined in the text, with its body parsed.
pub(crate) fn parse(text: &str) -> std::result::Result<Vec<Func>, SyntaxError> {
    let mut funcs = Vec::new();
    let mut cur: Option<Func> = None;
    for (k, raw) in text.lines().enumerate() {
        let line = k + 1;
        let err = |error: LineError| SyntaxError { line, error };
        let toks = lex(raw).map_err(err)?;
        if toks.is_empty() {
            continue;
        }
        let mut p = P { toks, at: 0 };
        match cur.as_mut() {
            None => {
                if !p.eat_word("define") {
                    continue;
                }
                // Linkage, visibility and return attributes up to the return type and
                // `@name`.
                let at_name = p
                    .toks
                    .iter()
                    .position(|t| matches!(t, Tok::Global(_)))
                    .ok_or_else(|| err(LineError::DefineWithoutName))?;
                if at_name == 0 {
                    return Err(err(LineError::DefineWithoutReturnType));
                }
                p.at = at_name - 1;
                let ret = p.ty().map_err(err)?;
                let Some(Tok::Global(name)) = p.next() else {
                    return Err(err(LineError::Missing(Wanted::FunctionName)));
                };
                let params = params(&mut p).map_err(err)?;
                if !p.toks.contains(&Tok::Punct('{')) {
                    return Err(err(LineError::NoBody(name)));
                }
                cur = Some(Func {
                    name,
                    line,
                    ret,
                    params,
                    body: Vec::new(),
                    second_block: None,
                });
            }
            Some(f) => {
                if p.is_punct('}') {
                    funcs.push(cur.take().expect("inside a function"));
                    continue;
                }
                // A label: `3:` or `entry:`.
                if p.toks.len() >= 2 && p.toks[1] == Tok::Punct(':') {
                    if !f.body.is_empty() && f.second_block.is_none() {
                        f.second_block = Some(line);
                    }
                    continue;
                }
                let result = match (p.toks.first(), p.toks.get(1)) {
                    (Some(Tok::Local(n)), Some(Tok::Punct('='))) => {
                        let n = n.clone();
                        p.at = 2;
                        Some(n)
                    }
                    _ => None,
                };
                let kind = instruction(&mut p).map_err(err)?;
                f.body.push(Inst { line, result, kind });
            }
        }
    }
    if let Some(f) = cur {
        return Err(SyntaxError {
            line: f.line,
            error: LineError::NeverClosed(f.name),
        });
    }
    Ok(funcs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(line: &str) -> Kind {
        let text = format!("define void @f(ptr %0) {{\n  {line}\n}}\n");
        let fs = parse(&text).unwrap();
        fs[0].body[0].kind.clone()
    }

    #[test]
    fn instructions() {
        assert_eq!(
            one("%5 = add nuw nsw i128 %3, -1"),
            Kind::Bin {
                op: BinOp::Add,
                nuw: true,
                ty: Type::Int(128),
                a: Arg::Local("3".into()),
                b: Arg::Int((-1).into())
            }
        );
        assert_eq!(
            one("%x = getelementptr inbounds i8, ptr %1, i64 8"),
            Kind::Gep {
                elem: Type::Int(8),
                ptr: Arg::Local("1".into()),
                indices: vec![(Type::Int(64), Arg::Int(8.into()))]
            }
        );
        assert_eq!(
            one("%r = tail call { i64, i1 } @llvm.uadd.with.overflow.i64(i64 %a, i64 %b)"),
            Kind::Call {
                ret: Type::Struct(vec![Type::Int(64), Type::Int(1)]),
                callee: "llvm.uadd.with.overflow.i64".into(),
                args: vec![
                    (Type::Int(64), Arg::Local("a".into())),
                    (Type::Int(64), Arg::Local("b".into()))
                ]
            }
        );
        assert_eq!(
            one("store i64 %v, ptr %0, align 8, !tbaa !5"),
            Kind::Store {
                ty: Type::Int(64),
                val: Arg::Local("v".into()),
                ptr: Arg::Local("0".into())
            }
        );
        assert_eq!(one("br label %3"), Kind::Other("br".into()));
        assert_eq!(
            one("%v = load <2 x i64>, ptr %0, align 8"),
            Kind::Load {
                ty: Type::Other("<2 x i64>".into()),
                ptr: Arg::Local("0".into())
            }
        );
    }

    #[test]
    fn header_and_blocks() {
        let text = "; comment\ndefine dso_local void @g(ptr nocapture noundef writeonly %0, i64 noundef %x, ptr dereferenceable(8) %p) local_unnamed_addr #0 {\n  ret void\n5:\n  ret void\n}\n";
        let fs = parse(text).unwrap();
        assert_eq!(fs[0].name, "g");
        let names: Vec<&str> = fs[0].params.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["0", "x", "p"]);
        assert_eq!(fs[0].second_block, Some(4));
    }

    #[test]
    fn errors_name_the_line() {
        let e = parse("define void @f() {\n  %1 = add i64 %0\n}\n").unwrap_err();
        assert_eq!(e.line, 2);
        let message = e.error.to_string();
        assert!(message.contains("expected `,`"), "{message}");
        let e = parse("define void @f() {\n  ret void\n").unwrap_err();
        let message = e.error.to_string();
        assert!(message.contains("never closed"), "{message}");
    }
}
