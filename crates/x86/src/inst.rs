//! The x86-64 instruction model: registers, operands, instructions, programs.
//!
//! Syntax only: this module says what an instruction *is*, never what it computes (the
//! meaning of instructions lives in the equivalence checker, which must not share it).
//! The one exception is [`Mnemonic::flags`], the flag effects code generation needs to
//! keep a live carry alive; the checker never uses it.

use std::fmt;

/// A general-purpose register, numbered as in the hardware encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Reg {
    Rax = 0,
    Rcx = 1,
    Rdx = 2,
    Rbx = 3,
    Rsp = 4,
    Rbp = 5,
    Rsi = 6,
    Rdi = 7,
    R8 = 8,
    R9 = 9,
    R10 = 10,
    R11 = 11,
    R12 = 12,
    R13 = 13,
    R14 = 14,
    R15 = 15,
}

/// Where an integer argument is at a function's entry ([`crate::Abi::arg_location`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgLoc {
    /// In this register.
    Reg(Reg),
    /// In the 8-byte word at this offset from the entry rsp (above the return address).
    Stack(i32),
}

impl Reg {
    /// All sixteen, in encoding order.
    pub const ALL: [Reg; 16] = [
        Reg::Rax,
        Reg::Rcx,
        Reg::Rdx,
        Reg::Rbx,
        Reg::Rsp,
        Reg::Rbp,
        Reg::Rsi,
        Reg::Rdi,
        Reg::R8,
        Reg::R9,
        Reg::R10,
        Reg::R11,
        Reg::R12,
        Reg::R13,
        Reg::R14,
        Reg::R15,
    ];

    pub fn from_index(i: u8) -> Reg {
        Reg::ALL[(i & 15) as usize]
    }

    pub fn index(self) -> usize {
        self as usize
    }

    /// The register's name at a width: `rax`/`eax`/`ax`/`al`, `r8`/`r8d`/`r8w`/`r8b`
    /// (a general register has no vector width: those print as 64 bits, and nothing
    /// makes such an operand).
    pub fn name(self, size: Size) -> &'static str {
        const N64: [&str; 16] = [
            "rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi", "r8", "r9", "r10", "r11",
            "r12", "r13", "r14", "r15",
        ];
        const N32: [&str; 16] = [
            "eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi", "r8d", "r9d", "r10d", "r11d",
            "r12d", "r13d", "r14d", "r15d",
        ];
        const N16: [&str; 16] = [
            "ax", "cx", "dx", "bx", "sp", "bp", "si", "di", "r8w", "r9w", "r10w", "r11w", "r12w",
            "r13w", "r14w", "r15w",
        ];
        const N8: [&str; 16] = [
            "al", "cl", "dl", "bl", "spl", "bpl", "sil", "dil", "r8b", "r9b", "r10b", "r11b",
            "r12b", "r13b", "r14b", "r15b",
        ];
        let i = self.index();
        match size {
            Size::B64 | Size::B128 | Size::B256 => N64[i],
            Size::B32 => N32[i],
            Size::B16 => N16[i],
            Size::B8 => N8[i],
        }
    }

    /// Parses any width's name: `rax`, `eax`, `ax`, `al`, `r10d`, `sil` ...
    pub fn parse(s: &str) -> Option<(Reg, Size)> {
        for size in [Size::B64, Size::B32, Size::B16, Size::B8] {
            for r in Reg::ALL {
                if r.name(size).eq_ignore_ascii_case(s) {
                    return Some((r, size));
                }
            }
        }
        None
    }
}

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name(Size::B64))
    }
}

/// An operand width: of a general register or memory (`B8`..`B64`), or of a vector
/// register or memory (`B128`, `B256`: `xmm`/`ymm`, `xmmword`/`ymmword`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Size {
    B8,
    B16,
    B32,
    B64,
    B128,
    B256,
}

impl Size {
    /// The size of `bytes` bytes (1, 2, 4 or 8).
    pub fn from_bytes(bytes: u32) -> Option<Size> {
        match bytes {
            1 => Some(Size::B8),
            2 => Some(Size::B16),
            4 => Some(Size::B32),
            8 => Some(Size::B64),
            16 => Some(Size::B128),
            32 => Some(Size::B256),
            _ => None,
        }
    }

    pub fn bits(self) -> u32 {
        match self {
            Size::B8 => 8,
            Size::B16 => 16,
            Size::B32 => 32,
            Size::B64 => 64,
            Size::B128 => 128,
            Size::B256 => 256,
        }
    }
    pub fn bytes(self) -> u32 {
        self.bits() / 8
    }
}

/// A memory operand `[base + index*scale + disp]` accessing `size` bytes (`size` is
/// irrelevant for `lea`), or, when `data` names one of the program's constants,
/// `[rip + constant + disp]` (no base, no index).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Mem {
    pub base: Option<Reg>,
    pub index: Option<Reg>,
    /// 1, 2, 4 or 8.
    pub scale: u8,
    /// AVX-512's embedded broadcast (`{1to4}`): the `size` bytes read are repeated in
    /// every lane of the vector operand.
    pub bcst: bool,
    pub disp: i32,
    pub size: Size,
    /// A rip-relative address of [`Program::data`]`[id]`.
    pub data: Option<DataId>,
}

impl Mem {
    /// `qword [base + disp]`.
    pub fn qword(base: Reg, disp: i32) -> Mem {
        Mem {
            base: Some(base),
            disp,
            ..Mem::ZERO
        }
    }

    /// `[base + disp]` of the given size.
    pub fn at(base: Reg, disp: i32, size: Size) -> Mem {
        Mem {
            size,
            ..Mem::qword(base, disp)
        }
    }

    /// `qword [rip + data + disp]`: bytes of the program's constant `data`.
    pub fn constant(data: DataId, disp: i32, size: Size) -> Mem {
        Mem {
            data: Some(data),
            disp,
            size,
            ..Mem::ZERO
        }
    }

    /// `qword [0]`: no base, no index, no displacement; the start of a struct update.
    pub const ZERO: Mem = Mem {
        base: None,
        index: None,
        scale: 1,
        bcst: false,
        disp: 0,
        size: Size::B64,
        data: None,
    };
}

/// A constant of a program ([`Program::data`]), by position. One byte, so that a
/// [`Mem`] and with it every [`Operand`] stays 16 bytes (the search's hot path copies
/// instructions by the thousand): a program addresses at most 256 constants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DataId(pub u8);

impl DataId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Read-only data a program addresses rip-relative (a compiler's constant pool: `.LC0:
/// .quad ...` in `.rodata`): its label as written, its alignment in bytes, its bytes.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Datum {
    pub label: String,
    pub align: u32,
    pub bytes: Vec<u8>,
}

/// A vector register by number (0..=15): `xmm`n at 128 bits, `ymm`n at 256.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VReg(pub u8);

impl VReg {
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// `xmm3` at [`Size::B128`], `ymm3` at [`Size::B256`].
    pub fn name(self, size: Size) -> &'static str {
        const X: [&str; 16] = [
            "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
            "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15",
        ];
        const Y: [&str; 16] = [
            "ymm0", "ymm1", "ymm2", "ymm3", "ymm4", "ymm5", "ymm6", "ymm7", "ymm8", "ymm9",
            "ymm10", "ymm11", "ymm12", "ymm13", "ymm14", "ymm15",
        ];
        let t = if size == Size::B256 { &Y } else { &X };
        t[self.index() & 15]
    }

    /// `xmm0`..`xmm15`, `ymm0`..`ymm15` (any case).
    pub fn parse(s: &str) -> Option<(VReg, Size)> {
        let s = s.to_ascii_lowercase();
        let (size, n) = if let Some(n) = s.strip_prefix("xmm") {
            (Size::B128, n)
        } else {
            (Size::B256, s.strip_prefix("ymm")?)
        };
        let ok = !n.is_empty() && n.len() <= 2 && n.bytes().all(|b| b.is_ascii_digit());
        let k: u8 = if ok { n.parse().ok()? } else { return None };
        (k < 16 && !(n.len() == 2 && n.starts_with('0'))).then_some((VReg(k), size))
    }
}

/// An instruction operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    Reg(Reg, Size),
    /// A vector register at 128 or 256 bits.
    Vec(VReg, Size),
    Mem(Mem),
    /// An immediate, as the signed value the instruction sees (imm32 sign-extended,
    /// imm8 for shifts, imm64 for `mov r64, imm64`).
    Imm(i64),
}

impl Operand {
    pub fn r64(r: Reg) -> Operand {
        Operand::Reg(r, Size::B64)
    }
    pub fn r32(r: Reg) -> Operand {
        Operand::Reg(r, Size::B32)
    }
    pub fn r8(r: Reg) -> Operand {
        Operand::Reg(r, Size::B8)
    }
    pub fn reg(self) -> Option<Reg> {
        match self {
            Operand::Reg(r, _) => Some(r),
            _ => None,
        }
    }
    pub fn mem(self) -> Option<Mem> {
        match self {
            Operand::Mem(m) => Some(m),
            _ => None,
        }
    }
}

/// Defines [`Mnemonic`], [`Mnemonic::name`] and [`Mnemonic::ALL`] from one table, so a
/// mnemonic is listed once.
macro_rules! mnemonics {
    ($($(#[$doc:meta])* $v:ident = $name:literal,)*) => {
        /// The mnemonics cryptopt emits and reads. Aliases (`cmovb`, `setb`, `cmove`,
        /// `movabs`) are parsed to these canonical ones.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Mnemonic {
            $($(#[$doc])* $v,)*
        }

        impl Mnemonic {
            /// The canonical name (Intel syntax, lower case).
            pub fn name(self) -> &'static str {
                match self {
                    $(Mnemonic::$v => $name,)*
                }
            }

            /// Every mnemonic, for tables and tests.
            pub const ALL: [Mnemonic; [$($name),*].len()] = [$(Mnemonic::$v),*];
        }
    };
}

mnemonics! {
    Mov = "mov",
    Movzx = "movzx",
    /// `movsx` and `movsxd`: sign-extending moves.
    Movsx = "movsx",
    Lea = "lea",
    Xchg = "xchg",
    Add = "add",
    Adc = "adc",
    Adcx = "adcx",
    Adox = "adox",
    Sub = "sub",
    Sbb = "sbb",
    Inc = "inc",
    Dec = "dec",
    Neg = "neg",
    Not = "not",
    And = "and",
    Or = "or",
    Xor = "xor",
    Test = "test",
    Cmp = "cmp",
    Bt = "bt",
    /// One-operand `mul r/m64` (rdx:rax = rax * src).
    Mul = "mul",
    /// `imul` with one, two or three operands.
    Imul = "imul",
    Mulx = "mulx",
    Shl = "shl",
    Shr = "shr",
    Sar = "sar",
    Shlx = "shlx",
    Shrx = "shrx",
    Sarx = "sarx",
    Shld = "shld",
    Shrd = "shrd",
    Rorx = "rorx",
    Bzhi = "bzhi",
    Andn = "andn",
    Bextr = "bextr",
    Clc = "clc",
    Stc = "stc",
    Setc = "setc",
    Seto = "seto",
    Setz = "setz",
    Setnz = "setnz",
    Cmovc = "cmovc",
    Cmovnc = "cmovnc",
    Cmovo = "cmovo",
    Cmovno = "cmovno",
    Cmovz = "cmovz",
    Cmovnz = "cmovnz",
    Push = "push",
    Pop = "pop",
    Ret = "ret",
    /// CET's indirect-branch target marker (`--cet`): a no-op that writes nothing.
    Endbr64 = "endbr64",
    // AVX2 (VEX) moves and lane operations on 64-bit lanes, as compilers use vector
    // registers for spills, stores and the odd vectorized limb operation.
    Vmovq = "vmovq",
    Vmovdqu = "vmovdqu",
    Vmovdqa = "vmovdqa",
    Vpinsrq = "vpinsrq",
    Vpextrq = "vpextrq",
    Vinserti128 = "vinserti128",
    Vextracti128 = "vextracti128",
    Vpbroadcastq = "vpbroadcastq",
    Vpunpcklqdq = "vpunpcklqdq",
    Vpand = "vpand",
    Vpor = "vpor",
    Vpxor = "vpxor",
    Vpaddq = "vpaddq",
    Vpsubq = "vpsubq",
    /// The float-domain spellings of `vpxor` and `vmovdqu` (clang zeroes and copies
    /// memory with them): the same bits.
    Vxorps = "vxorps",
    Vmovups = "vmovups",
    /// `vpmovsxbw`: bytes sign-extended to 16-bit words (clang loads small constants
    /// with it).
    Vpmovsxbw = "vpmovsxbw",
    /// AVX-512's `vpandq` (EVEX), for its embedded broadcast from memory (`{1to4}`).
    Vpandq = "vpandq",
    Vzeroupper = "vzeroupper",
    // Lane arithmetic of vector code generation (4 x 64-bit lanes): AVX2's shifts by a
    // constant, lane permutation and blend, and AVX-512's (EVEX, with VL on ymm) 64-bit
    // lane product and the IFMA multiply-adds of 52-bit lanes.
    Vpsrlq = "vpsrlq",
    Vpsllq = "vpsllq",
    /// `vpermq dst, src, imm8`: lane i of dst is lane `(imm >> 2i) & 3` of src.
    Vpermq = "vpermq",
    /// `vpblendd dst, a, b, imm8`: dword i from b where bit i of imm is set, else from a.
    Vpblendd = "vpblendd",
    /// AVX-512DQ: the low 64 bits of each lane's product.
    Vpmullq = "vpmullq",
    /// AVX-512 IFMA: `dst += low 52 bits of (a mod 2^52)·(b mod 2^52)`, per lane.
    Vpmadd52luq = "vpmadd52luq",
    /// AVX-512 IFMA: `dst += bits 52..103 of (a mod 2^52)·(b mod 2^52)`, per lane.
    Vpmadd52huq = "vpmadd52huq",
    // SSE and SSE2 (legacy encoding, 128 bits, two operands: `dst = dst op src`), what
    // gcc and clang emit for the same moves and lane sums without `-march` (x86-64's
    // baseline): a write keeps bits 128..255 of the register, unlike the VEX forms.
    Movdqu = "movdqu",
    Movdqa = "movdqa",
    Movups = "movups",
    Movaps = "movaps",
    Paddq = "paddq",
    Psubq = "psubq",
    Pand = "pand",
    Por = "por",
    Pxor = "pxor",
    Punpcklqdq = "punpcklqdq",
    Xorps = "xorps",
}

/// The vector mnemonics (AVX2, AVX-512, and SSE2's legacy forms) as one pattern:
/// [`Mnemonic::is_vector`], and every dispatcher that sends them to its vector family
/// (encoder, checker).
#[macro_export]
macro_rules! vector_mnemonic {
    () => {
        $crate::Mnemonic::Vmovq
            | $crate::Mnemonic::Vmovdqu
            | $crate::Mnemonic::Vmovdqa
            | $crate::Mnemonic::Vpinsrq
            | $crate::Mnemonic::Vpextrq
            | $crate::Mnemonic::Vinserti128
            | $crate::Mnemonic::Vextracti128
            | $crate::Mnemonic::Vpbroadcastq
            | $crate::Mnemonic::Vpunpcklqdq
            | $crate::Mnemonic::Vpand
            | $crate::Mnemonic::Vpor
            | $crate::Mnemonic::Vpxor
            | $crate::Mnemonic::Vpaddq
            | $crate::Mnemonic::Vpsubq
            | $crate::Mnemonic::Vxorps
            | $crate::Mnemonic::Vmovups
            | $crate::Mnemonic::Vpmovsxbw
            | $crate::Mnemonic::Vpandq
            | $crate::Mnemonic::Vzeroupper
            | $crate::Mnemonic::Vpsrlq
            | $crate::Mnemonic::Vpsllq
            | $crate::Mnemonic::Vpermq
            | $crate::Mnemonic::Vpblendd
            | $crate::Mnemonic::Vpmullq
            | $crate::Mnemonic::Vpmadd52luq
            | $crate::Mnemonic::Vpmadd52huq
            | $crate::sse2_mnemonic!()
    };
}

/// The SSE2 (legacy-encoded) vector mnemonics as one pattern: part of
/// [`vector_mnemonic!`], in x86-64's baseline (no feature), and two-operand with the
/// register's upper half kept ([`Mnemonic::is_sse2`]).
#[macro_export]
macro_rules! sse2_mnemonic {
    () => {
        $crate::Mnemonic::Movdqu
            | $crate::Mnemonic::Movdqa
            | $crate::Mnemonic::Movups
            | $crate::Mnemonic::Movaps
            | $crate::Mnemonic::Paddq
            | $crate::Mnemonic::Psubq
            | $crate::Mnemonic::Pand
            | $crate::Mnemonic::Por
            | $crate::Mnemonic::Pxor
            | $crate::Mnemonic::Punpcklqdq
            | $crate::Mnemonic::Xorps
    };
}

/// Which flags an instruction writes (defines or leaves undefined) and reads, as far as
/// code generation's flag tracking needs: CF and OF only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct FlagEffect {
    pub writes_cf: bool,
    pub writes_of: bool,
    pub reads_cf: bool,
    pub reads_of: bool,
}

/// A CPU feature beyond baseline x86-64 that an instruction may need (CPUID's names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Feature {
    Bmi1,
    Bmi2,
    Adx,
    Avx2,
    /// AVX-512 IFMA with VL on 256-bit registers (`vpmadd52luq`/`vpmadd52huq`), and the
    /// AVX-512F/VL/DQ every such CPU has (`vpmullq`).
    Avx512Ifma,
}

impl Feature {
    pub const ALL: [Feature; 5] = [
        Feature::Bmi1,
        Feature::Bmi2,
        Feature::Adx,
        Feature::Avx2,
        Feature::Avx512Ifma,
    ];

    /// CPUID's name: `BMI1`, `BMI2`, `ADX`, `AVX2`, `AVX512IFMA`.
    pub fn name(self) -> &'static str {
        match self {
            Feature::Bmi1 => "BMI1",
            Feature::Bmi2 => "BMI2",
            Feature::Adx => "ADX",
            Feature::Avx2 => "AVX2",
            Feature::Avx512Ifma => "AVX512IFMA",
        }
    }

    /// Whether the CPU this runs on has it (AVX512IFMA: with VL and DQ, what vector
    /// code uses beside it). The one home of that question for the binary and the tests.
    pub fn detected(self) -> bool {
        match self {
            Feature::Bmi1 => std::arch::is_x86_feature_detected!("bmi1"),
            Feature::Bmi2 => std::arch::is_x86_feature_detected!("bmi2"),
            Feature::Adx => std::arch::is_x86_feature_detected!("adx"),
            Feature::Avx2 => std::arch::is_x86_feature_detected!("avx2"),
            Feature::Avx512Ifma => {
                std::arch::is_x86_feature_detected!("avx512ifma")
                    && std::arch::is_x86_feature_detected!("avx512vl")
                    && std::arch::is_x86_feature_detected!("avx512dq")
            }
        }
    }
}

impl fmt::Display for Feature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Mnemonic {
    /// Whether this is one of the vector instructions (AVX2, AVX-512, SSE2).
    pub fn is_vector(self) -> bool {
        matches!(self, vector_mnemonic!())
    }

    /// Whether this is one of SSE2's legacy-encoded vector instructions.
    pub fn is_sse2(self) -> bool {
        matches!(self, sse2_mnemonic!())
    }

    /// The CPU feature beyond baseline x86-64 that the instruction needs: BMI1 for andn
    /// and bextr, BMI2 for mulx, shlx/shrx/sarx, rorx and bzhi, ADX for adcx/adox, AVX2
    /// for the vector instructions, AVX-512 IFMA for `vpmullq` and the IFMA
    /// multiply-adds; none for the rest.
    pub fn feature(self) -> Option<Feature> {
        use Mnemonic::*;
        if matches!(self, Vpmullq | Vpmadd52luq | Vpmadd52huq) {
            return Some(Feature::Avx512Ifma);
        }
        if self.is_sse2() {
            return None;
        }
        if self.is_vector() {
            return Some(Feature::Avx2);
        }
        match self {
            Andn | Bextr => Some(Feature::Bmi1),
            Mulx | Shlx | Shrx | Sarx | Rorx | Bzhi => Some(Feature::Bmi2),
            Adcx | Adox => Some(Feature::Adx),
            _ => None,
        }
    }

    /// CF/OF effects (conservative: "undefined afterwards" counts as written).
    pub fn flags(self) -> FlagEffect {
        use Mnemonic::*;
        let w = |cf, of| FlagEffect {
            writes_cf: cf,
            writes_of: of,
            ..FlagEffect::default()
        };
        match self {
            Mov | Movzx | Movsx | Lea | Xchg | Not | Mulx | Shlx | Shrx | Sarx | Rorx | Push
            | Pop | Ret | Endbr64 => FlagEffect::default(),
            Setz | Setnz | Cmovz | Cmovnz => FlagEffect::default(),
            Setc | Cmovc | Cmovnc => FlagEffect {
                reads_cf: true,
                ..FlagEffect::default()
            },
            Seto | Cmovo | Cmovno => FlagEffect {
                reads_of: true,
                ..FlagEffect::default()
            },
            Adc | Sbb => FlagEffect {
                reads_cf: true,
                ..w(true, true)
            },
            Adcx => FlagEffect {
                reads_cf: true,
                ..w(true, false)
            },
            Adox => FlagEffect {
                reads_of: true,
                ..w(false, true)
            },
            Clc | Stc => w(true, false),
            Inc | Dec => w(false, true),
            Add | Sub | Neg | And | Or | Xor | Test | Cmp | Bt | Mul | Imul | Shl | Shr | Sar
            | Shld | Shrd | Bzhi | Andn | Bextr => w(true, true),
            vector_mnemonic!() => FlagEffect::default(),
        }
    }
}

impl fmt::Display for Mnemonic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One instruction: a mnemonic and up to four operands (Intel order: destination
/// first; four only for `vpinsrq`/`vinserti128`). Fixed size, no allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Inst {
    pub mn: Mnemonic,
    ops: [Operand; 4],
    n: u8,
}

const NONE: Operand = Operand::Imm(0);

impl Inst {
    pub fn new(mn: Mnemonic, ops: &[Operand]) -> Inst {
        assert!(ops.len() <= 4, "at most four operands");
        let mut a = [NONE; 4];
        a[..ops.len()].copy_from_slice(ops);
        Inst {
            mn,
            ops: a,
            n: ops.len() as u8,
        }
    }
    pub fn op0(mn: Mnemonic) -> Inst {
        Inst::new(mn, &[])
    }
    pub fn op1(mn: Mnemonic, a: Operand) -> Inst {
        Inst::new(mn, &[a])
    }
    pub fn op2(mn: Mnemonic, a: Operand, b: Operand) -> Inst {
        Inst::new(mn, &[a, b])
    }
    pub fn op3(mn: Mnemonic, a: Operand, b: Operand, c: Operand) -> Inst {
        Inst::new(mn, &[a, b, c])
    }
    pub fn operands(&self) -> &[Operand] {
        &self.ops[..self.n as usize]
    }
    pub fn operands_mut(&mut self) -> &mut [Operand] {
        &mut self.ops[..self.n as usize]
    }

    /// The program constant the instruction addresses, if any.
    pub fn data(&self) -> Option<DataId> {
        self.operands().iter().find_map(|o| o.mem()?.data)
    }

    /// With an embedded broadcast, the lanes it fills: the vector operand's width over
    /// the element's (`{1to4}` for a qword into a ymm).
    pub fn broadcast_lanes(&self) -> Option<u32> {
        let m = self
            .operands()
            .iter()
            .find_map(|o| o.mem().filter(|m| m.bcst))?;
        self.operands().iter().find_map(|o| match o {
            Operand::Vec(_, s) => Some(s.bits() / m.size.bits()),
            _ => None,
        })
    }

    /// The general registers the instruction reads or writes, as a mask by
    /// [`Reg::index`]: those it names (address registers included) and those it uses
    /// without naming them (rdx for `mulx`, rax and rdx for one-operand `mul`, rsp for
    /// `push`, `pop` and `ret`).
    pub fn regs(&self) -> u16 {
        let bit = |r: Reg| 1u16 << r.index();
        let implicit = match (self.mn, self.n) {
            (Mnemonic::Mulx, _) => bit(Reg::Rdx),
            (Mnemonic::Mul, 1) => bit(Reg::Rax) | bit(Reg::Rdx),
            (Mnemonic::Push | Mnemonic::Pop | Mnemonic::Ret, _) => bit(Reg::Rsp),
            _ => 0,
        };
        self.operands().iter().fold(implicit, |acc, o| match *o {
            Operand::Reg(r, _) => acc | bit(r),
            Operand::Mem(m) => [m.base, m.index]
                .into_iter()
                .flatten()
                .fold(acc, |a, r| a | bit(r)),
            Operand::Imm(_) | Operand::Vec(..) => acc,
        })
    }
}

/// A function: a global symbol, its straight-line body (ending in `ret`), and the
/// read-only data it addresses (empty for what cryptopt generates).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Program {
    pub name: String,
    pub insts: Vec<Inst>,
    pub data: Vec<Datum>,
}

impl Program {
    /// A program without data.
    pub fn new(name: impl Into<String>, insts: Vec<Inst>) -> Program {
        Program {
            name: name.into(),
            insts,
            data: Vec::new(),
        }
    }
}

impl Program {
    /// The CPU features beyond baseline x86-64 that the program's instructions need
    /// (each [`Mnemonic::feature`]), in the order of [`Feature::ALL`]; what a caller
    /// must check (CPUID) before calling it.
    pub fn required_features(&self) -> Vec<Feature> {
        Feature::ALL
            .into_iter()
            .filter(|&f| self.insts.iter().any(|i| i.mn.feature() == Some(f)))
            .collect()
    }

    /// Bytes of stack the program uses: its pushes, its `sub rsp, n`, and the deepest
    /// slot below rsp (the red zone). Read off the instructions, not from any code
    /// generator's bookkeeping, so it applies to anyone's program.
    pub fn stack_bytes(&self) -> u32 {
        let mut bytes = 0u32;
        let mut below = 0i32;
        for i in &self.insts {
            match (i.mn, i.operands()) {
                (Mnemonic::Push, _) => bytes += 8,
                (Mnemonic::Sub, [Operand::Reg(Reg::Rsp, _), Operand::Imm(n)]) => bytes += *n as u32,
                _ => {}
            }
            for o in i.operands() {
                if let Operand::Mem(m) = o {
                    if m.base == Some(Reg::Rsp) && m.disp < 0 {
                        below = below.max(-m.disp);
                    }
                }
            }
        }
        bytes + below as u32
    }
}

#[cfg(test)]
mod layout_tests {
    /// Constants and broadcasts made `Mem` larger: an operand must stay 16 bytes (an
    /// instruction 72), what the code generator's hot loop copies.
    #[test]
    fn operands_stay_small() {
        assert_eq!(std::mem::size_of::<super::Operand>(), 16);
        assert_eq!(std::mem::size_of::<super::Inst>(), 72);
    }
}

#[cfg(test)]
mod stack_tests {
    #[test]
    fn stack_bytes() {
        let check = |text: &str, want: u32| {
            let p = &crate::parse::parse(text).expect("parses")[0];
            assert_eq!(p.stack_bytes(), want, "{text}");
        };
        let f = |body: &str| format!("SECTION .text\nGLOBAL f\nf:\n{body}\n    ret\n");
        check(&f("    mov rax, rdi"), 0);
        check(
            &f("    push rbx\n    push r12\n    pop r12\n    pop rbx"),
            16,
        );
        check(&f("    sub rsp, 0x20\n    add rsp, 0x20"), 32);
        check(&f("    mov qword [rsp - 0x18], rdi"), 24);
        check(
            &f("    push rbx\n    mov qword [rsp - 0x8], rdi\n    pop rbx"),
            16,
        );
    }
}

#[cfg(test)]
mod regs_tests {
    use super::Reg::{self, *};

    /// Named registers (of any width, in addresses too) and implicit ones.
    #[test]
    fn regs() {
        let table: &[(&str, &[Reg])] = &[
            ("mov eax, r9d", &[Rax, R9]),
            ("adc qword [rsi + rcx*8 + 8], rbx", &[Rsi, Rcx, Rbx]),
            ("mulx r8, r9, qword [rsi]", &[R8, R9, Rsi, Rdx]),
            ("mul rbx", &[Rax, Rdx, Rbx]),
            ("imul rbx, rcx", &[Rbx, Rcx]),
            ("setc r10b", &[R10]),
            ("push r12", &[R12, Rsp]),
            ("ret", &[Rsp]),
            ("clc", &[]),
        ];
        for (text, want) in table {
            let i = crate::parse::parse_inst(text).expect("parses");
            let want = want.iter().fold(0u16, |m, r| m | 1 << r.index());
            assert_eq!(i.regs(), want, "{text}");
        }
    }
}
