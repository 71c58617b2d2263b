//! The one error type of the x86 crate.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum Error {
    /// A line of assembly text could not be read; `line` is 1-based.
    #[error("line {line}: {error}: `{text}`")]
    Parse {
        line: usize,
        text: String,
        /// What is wrong with it.
        error: LineError,
    },
    /// An instruction has no encoding (wrong operand kinds or sizes).
    #[error("cannot encode `{inst}`: {message}")]
    Encode { inst: String, message: String },
}

/// What is wrong with one line of assembly text (the part it could not read); the
/// line itself is in [`Error::Parse`]. Names are as the line writes them (lower case,
/// except for symbols).
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum LineError {
    // Lines.
    /// An empty line where an instruction must be.
    #[error("no instruction")]
    NoInstruction,
    #[error("unknown instruction `{name}`")]
    UnknownInstruction { name: String },
    #[error(
        "data directive `{directive}` among instructions: what it encodes would run unchecked"
    )]
    DataAmongInstructions { directive: String },
    #[error("unknown directive `{directive}`")]
    UnknownDirective { directive: String },
    #[error("an instruction outside a code section")]
    OutsideCode,

    // Instructions.
    #[error("too many operands for `{name}`")]
    TooManyOperands { name: String },
    #[error("empty operand")]
    EmptyOperand,
    /// AT&T: a `(` without its `)`, or the other way round, or nested ones.
    #[error("unbalanced parentheses")]
    UnbalancedParentheses,
    /// A memory operand without a size, and nothing in the instruction to give it one.
    #[error("operand size not specified for `{name}`")]
    SizeNotSpecified { name: String },
    /// No encoding of the instruction has these operands ([`crate::encode::check`]).
    #[error("unsupported operand form for `{name}`: {reason}")]
    UnsupportedForm { name: String, reason: &'static str },
    /// A broadcast `{1toN}` whose N elements do not fill the vector operand.
    #[error("`{{1to{lanes}}}` does not fill the vector operand")]
    BroadcastDoesNotFill { lanes: u32 },
    /// `error`, in the operand written `operand`.
    #[error("{error} in operand `{operand}`")]
    InOperand {
        operand: String,
        error: Box<LineError>,
    },

    // Operands.
    /// Intel: an operand that is neither register, immediate nor memory.
    #[error("unknown operand `{operand}`")]
    UnknownOperand { operand: String },
    /// AT&T: `%name` that names no register.
    #[error("unknown register `%{name}`")]
    UnknownRegister { name: String },
    /// AT&T: `$value` that is not a number.
    #[error("`{value}` is not a number")]
    ImmediateNotANumber { value: String },
    /// AT&T: `*operand`.
    #[error("an indirect operand")]
    Indirect,
    /// A `{...}` after an operand that is no broadcast `{1toN}`.
    #[error("unknown decoration `{{1to{lanes}}}`")]
    UnknownDecoration { lanes: String },
    #[error("a broadcast of something not in memory")]
    BroadcastNotMemory,
    /// Intel: `qword` and the like before something not in memory.
    #[error("a size keyword must be followed by a memory operand")]
    SizeWithoutMemory,

    // Memory operands.
    #[error("unterminated memory operand")]
    UnterminatedMemory,
    #[error("empty memory operand")]
    EmptyMemory,
    #[error("expected `+` or `-` in memory operand")]
    ExpectedSign,
    #[error("missing term in memory operand")]
    MissingTerm,
    #[error("unknown term `{term}` in memory operand")]
    UnknownTerm { term: String },
    /// `error`, in the address term written `term`.
    #[error("{error} in `{term}`")]
    InTerm { term: String, error: Box<LineError> },
    /// A product of two registers or of no register (`rsi*rdi`, `2*4`).
    #[error("bad scaled index `{term}`")]
    BadScaledIndex { term: String },
    /// A second scaled index, or a negated one.
    #[error("bad index `{term}`")]
    BadIndex { term: String },
    /// A third register, or a negated one.
    #[error("bad register term `{term}`")]
    BadRegisterTerm { term: String },
    /// `rip` twice, or negated.
    #[error("bad term `{term}`")]
    BadTerm { term: String },
    #[error("scale must be 1, 2, 4 or 8, not `{scale}`")]
    BadScale { scale: String },
    /// A register of another width where an address needs a 64-bit one.
    #[error("`{register}` is not a 64-bit address register")]
    NotAddressRegister { register: String },
    #[error("more than two address registers")]
    TooManyRegisters,
    #[error("displacement out of range")]
    DisplacementOutOfRange,
    /// AT&T: `disp(...)` with a `disp` that is no number.
    #[error("displacement `{disp}` is not a number (a symbol or %rip-relative address?)")]
    DisplacementNotANumber { disp: String },
    /// AT&T: `(base, index, scale, more)`.
    #[error("more than three parts in a memory operand")]
    TooManyParts,
    /// AT&T: `()`, `8(,)`.
    #[error("a memory operand without a register")]
    NoRegister,
    /// AT&T: a number or symbol without parentheses.
    #[error("an absolute address or a symbol (not an operand this reads)")]
    AbsoluteOrSymbol,

    // Constants (rip-relative operands, [`crate::data`]).
    /// A rip-relative operand that also has a base or index register.
    #[error("{rip}-relative with another register")]
    RipWithRegister { rip: Rip },
    /// AT&T: `%rip` somewhere else than alone in the parentheses.
    #[error("a %rip-relative address with a register")]
    AttRipWithRegister,
    #[error("a {rip}-relative address without a symbol (not a constant this reads)")]
    RipWithoutSymbol { rip: Rip },
    #[error("an absolute address of `{symbol}` (only {rip}-relative constants are read)")]
    AbsoluteSymbol { symbol: String, rip: Rip },
    /// A rip-relative operand in a single instruction ([`crate::parse::parse_inst`]),
    /// with no file to define its data.
    #[error("a rip-relative constant outside a file that defines it")]
    ConstantOutsideFile,
    #[error("more than 256 constants in one file")]
    TooManyConstants,
    #[error(
        "`{name}` is no data this file defines (only local labels in a data section are read \
         as constants)"
    )]
    UndefinedSymbol { name: String },
    #[error("the data at `{name}` {error}")]
    UnreadableData { name: String, error: DataError },
}

/// How a message spells the instruction pointer: as Intel syntax (`rip`) or AT&T
/// syntax (`%rip`) writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rip {
    Intel,
    Att,
}

impl std::fmt::Display for Rip {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Rip::Intel => "rip",
            Rip::Att => "%rip",
        })
    }
}

impl LineError {
    /// The same error, with `rip` spelled as AT&T syntax writes it (`%rip`).
    pub(crate) fn in_att_syntax(self) -> Self {
        let rip = Rip::Att;
        match self {
            LineError::RipWithRegister { .. } => LineError::RipWithRegister { rip },
            LineError::RipWithoutSymbol { .. } => LineError::RipWithoutSymbol { rip },
            LineError::AbsoluteSymbol { symbol, .. } => LineError::AbsoluteSymbol { symbol, rip },
            e => e,
        }
    }
}

/// Why the data under a label cannot be read exactly (an error only if an instruction
/// addresses it); each reads after "the data at `label`".
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum DataError {
    /// An alignment directive inside the datum asks for more than its own alignment.
    #[error("is padded by `{directive}` beyond its own alignment")]
    PaddedBeyondAlignment { directive: String },
    /// `.zero`, `.space`, `.skip` with a count or fill that is not a number in range.
    #[error("has a `{directive} {args}` this does not read")]
    UnreadableFill { directive: String, args: String },
    /// A data directive this does not read (`.ascii`, `.float` ...).
    #[error("is written with `{directive}`, which this does not read")]
    UnreadableDirective { directive: String },
    #[error("has the value `{value}`, which is not a number")]
    NotANumber { value: String },
    #[error("has `{value}`, too wide for `{directive}`")]
    TooWide { value: String, directive: String },
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
