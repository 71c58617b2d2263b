//! The object-file conventions of a printed program: the format the assembler makes
//! (ELF, Mach-O, COFF) with its symbol prefix, section names and symbol directives; the
//! symbol's name; its visibility outside the linked image.
//!
//! [`crate::print`] asks this module for every line around the instructions, so one
//! format's rules live here once for both syntaxes. What the program computes depends on
//! none of it (CET's `endbr64` is an instruction of the program, made by code generation).
//!
//! This module must never change an instruction or a constant: only the lines around
//! them.

use crate::inst::Program;

/// The object format the text is written for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Format {
    /// Linux and the BSDs (`nasm -f elf64`, GNU as).
    #[default]
    Elf,
    /// macOS (`nasm -f macho64`, `clang -c`/`llvm-mc`): symbols get a leading `_`, no
    /// `.type`/`.size`, constants in `__TEXT,__const`.
    MachO,
    /// Windows (`nasm -f win64`, MinGW's `as`, `llvm-mc`): `.def` symbol records, no
    /// `.type`/`.size`, constants in `.rdata`; no DWARF call-frame directives: Windows
    /// unwinds through its own tables, which the GNU as text describes (`.seh_*`).
    Coff,
}

/// Who sees the symbol beyond the object file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Visibility {
    /// Exported from a shared library like any global function.
    #[default]
    Default,
    /// Global for the static link, not exported from a shared library (ELF `.hidden`,
    /// Mach-O `.private_extern`). COFF exports nothing without `dllexport`: there it is
    /// the same as `Default`.
    Hidden,
}

/// Everything about the printed file that is not the program.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Object {
    pub format: Format,
    pub visibility: Visibility,
    /// The C name of the function when it is not the program's (`--symbol`).
    pub symbol: Option<String>,
}

/// The assembler dialect a line is for (NASM, or GNU as in Intel syntax): the one
/// type both this module and the printers use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dialect {
    Nasm,
    Gas,
}

impl Object {
    /// The function's name as C code calls it: `--symbol`, else the program's name.
    pub fn c_name<'a>(&'a self, p: &'a Program) -> &'a str {
        self.symbol.as_deref().unwrap_or(&p.name)
    }

    /// The symbol the file defines: the C name, with Mach-O's leading `_`.
    pub fn symbol(&self, p: &Program) -> String {
        let name = self.c_name(p);
        match self.format {
            Format::MachO => format!("_{name}"),
            Format::Elf | Format::Coff => name.to_string(),
        }
    }

    /// The `nasm -f` output format that assembles the NASM text.
    pub fn nasm_format(&self) -> &'static str {
        match self.format {
            Format::Elf => "elf64",
            Format::MachO => "macho64",
            Format::Coff => "win64",
        }
    }

    /// Whether the GNU as text carries DWARF call-frame directives.
    pub(crate) fn cfi(&self) -> bool {
        self.format != Format::Coff
    }

    /// Whether the GNU as text carries Windows x64 unwind directives (`.seh_*`: the
    /// assembler writes the `.pdata`/`.xdata` tables Windows unwinds through).
    pub(crate) fn seh(&self) -> bool {
        self.format == Format::Coff
    }

    /// The lines before the function's label: code section, the symbol's binding,
    /// visibility and type.
    pub(crate) fn header(&self, sym: &str, d: Dialect) -> Vec<String> {
        let hidden = self.visibility == Visibility::Hidden;
        match (d, self.format) {
            (Dialect::Nasm, f) => {
                let attr = match (f, hidden) {
                    (Format::Elf, true) => ":function hidden",
                    (Format::Elf, false) => ":function",
                    (Format::MachO, true) => ":private_extern",
                    _ => "",
                };
                vec!["SECTION .text".into(), format!("GLOBAL {sym}{attr}")]
            }
            (Dialect::Gas, Format::Elf) => {
                let mut v = vec![".text".into(), format!(".globl {sym}")];
                if hidden {
                    v.push(format!(".hidden {sym}"));
                }
                v.push(format!(".type {sym}, @function"));
                v.push(".p2align 4".into());
                v
            }
            (Dialect::Gas, Format::MachO) => {
                let mut v = vec![".text".into(), format!(".globl {sym}")];
                if hidden {
                    v.push(format!(".private_extern {sym}"));
                }
                v.push(".p2align 4".into());
                v
            }
            (Dialect::Gas, Format::Coff) => vec![
                ".text".into(),
                format!(".globl {sym}"),
                // Storage class external (2), type function (0x20).
                format!(".def {sym}; .scl 2; .type 32; .endef"),
                ".p2align 4".into(),
            ],
        }
    }

    /// The lines after the last instruction (GNU as on ELF: the symbol's size).
    pub(crate) fn footer(&self, sym: &str, d: Dialect) -> Vec<String> {
        match (d, self.format) {
            (Dialect::Gas, Format::Elf) => vec![format!(".size {sym}, .-{sym}")],
            _ => Vec::new(),
        }
    }

    /// The section directive for constants.
    pub(crate) fn rodata(&self, d: Dialect) -> &'static str {
        match (d, self.format) {
            (Dialect::Nasm, Format::Coff) => "SECTION .rdata rdata",
            (Dialect::Nasm, _) => "SECTION .rodata",
            (Dialect::Gas, Format::Elf) => ".section .rodata",
            (Dialect::Gas, Format::MachO) => ".section __TEXT,__const",
            (Dialect::Gas, Format::Coff) => ".section .rdata,\"dr\"",
        }
    }

    /// The last line: on ELF, the note that keeps the linked stack non-executable
    /// (without it newer linkers warn and make it executable). A section directive:
    /// the reader skips it.
    pub(crate) fn trailer(&self, d: Dialect) -> Option<&'static str> {
        match (d, self.format) {
            (Dialect::Nasm, Format::Elf) => {
                Some("SECTION .note.GNU-stack noalloc noexec nowrite progbits")
            }
            (Dialect::Gas, Format::Elf) => Some(".section .note.GNU-stack,\"\",@progbits"),
            _ => None,
        }
    }
}
