//! Constant pools: the read-only data a file defines under local labels outside its code
//! (`.LC0: .quad ...` in `.rodata`, what gcc and clang emit for vector constants and
//! masks) and the rip-relative operands that address it (`.LC0(%rip)`,
//! `[rip + .LCPI0_0]`, `.LC0[rip]`).
//!
//! The reader ([`crate::parse`]) hands this module every label, data directive and
//! alignment it meets in a data section, and every symbol an operand names; an operand
//! gets a file-wide [`DataId`] until the file is read, and [`Pool::attach`] then gives
//! each program the data it addresses, renumbered in the order of first use.
//!
//! It must never guess a byte: data it cannot read exactly (a symbol or an expression as
//! a value, an unknown directive) is kept as the reason, and only an error if an
//! instruction addresses it; a symbol no data defines is an error naming the line that
//! used it.

use std::collections::HashMap;

use crate::error::{DataError, Error, LineError, Result};
use crate::inst::{DataId, Datum, Operand, Program};
use crate::parse::number;

/// What a file defines and uses: data by label, symbols by first use.
#[derive(Default)]
pub(crate) struct Pool {
    /// Symbols named by operands, in order of first use (the file-wide [`DataId`]):
    /// (name, line, text of the line).
    used: Vec<(String, usize, String)>,
    by_name: HashMap<String, DataId>,
    /// Data in order of definition: its bytes, or why they cannot be read.
    defined: Vec<std::result::Result<Datum, DataError>>,
    by_label: HashMap<String, usize>,
    /// The datum data directives now append to.
    current: Option<usize>,
    /// The alignment the next label gets (from `.p2align`, `.align`, `.balign`).
    align: u32,
    /// An alignment directive after the current datum's data, as (bytes, text): padding
    /// inside it if more of its data follows, only the next label's alignment if a
    /// label does.
    pending: Option<(u32, String)>,
    /// The line being read (for [`Pool::symbol`]).
    pub(crate) line: (usize, String),
}

impl Pool {
    /// The file-wide id of the symbol an operand names. The line readers see lower
    /// case; labels are case-sensitive, so the name is taken as the line writes it.
    pub(crate) fn symbol(&mut self, lower: &str) -> std::result::Result<DataId, LineError> {
        let name = as_written(&self.line.1, lower).unwrap_or(lower);
        if let Some(&id) = self.by_name.get(name) {
            return Ok(id);
        }
        let id = u8::try_from(self.used.len())
            .map(DataId)
            .map_err(|_| LineError::TooManyConstants)?;
        let name = name.to_string();
        self.by_name.insert(name.clone(), id);
        self.used.push((name, self.line.0, self.line.1.clone()));
        Ok(id)
    }

    /// A label in a data section: data directives after it define it. Right after
    /// another datum (clang's `.LCPI0_1` after a 16-byte `.LCPI0_0`) it is aligned as
    /// far as that datum's alignment and size both allow, or by the alignment directive
    /// between them.
    pub(crate) fn label(&mut self, name: &str) {
        let after = match self.current.map(|c| &self.defined[c]) {
            Some(Ok(prev)) => match u32::try_from(prev.bytes.len()) {
                Ok(0) => prev.align,
                Ok(n) => prev.align.min(1 << n.trailing_zeros()),
                Err(_) => 1,
            },
            _ => 1,
        };
        self.defined.push(Ok(Datum {
            label: name.to_string(),
            align: self.align.max(after).max(1),
            bytes: Vec::new(),
        }));
        self.current = Some(self.defined.len() - 1);
        self.by_label
            .insert(name.to_string(), self.defined.len() - 1);
        self.align = 1;
        self.pending = None;
    }

    /// A section switch: what follows belongs to no label until one comes.
    pub(crate) fn section(&mut self) {
        self.current = None;
        self.align = 1;
        self.pending = None;
    }

    /// An alignment directive in a data section (`word` lower case, `args` as written):
    /// the next label's alignment, and padding after the current datum, which is known
    /// only up to the datum's own alignment (beyond it, an error only if more of the
    /// datum follows).
    pub(crate) fn align(&mut self, word: &str, args: &str) {
        let first = args.split(',').next().unwrap_or("").trim();
        let Some(n) = number(first).filter(|n| (0..=4096).contains(n)) else {
            return;
        };
        let bytes = match word {
            ".p2align" if n <= 12 => 1u32 << n,
            ".p2align" => return,
            _ => n as u32,
        };
        self.align = self.align.max(bytes);
        if self.current.is_some() {
            self.pending = Some((bytes, format!("{word} {args}")));
        }
    }

    /// A data directive in a data section: its bytes go to the current label.
    pub(crate) fn data(&mut self, word: &str, args: &str) {
        let Some(d) = self.current.map(|c| &mut self.defined[c]) else {
            return;
        };
        // Padding inside the datum: known only up to its own alignment.
        match (self.pending.take(), &mut *d) {
            (Some((bytes, _)), Ok(datum)) if bytes <= datum.align => {
                while datum.bytes.len() % bytes as usize != 0 {
                    datum.bytes.push(0);
                }
            }
            (Some((_, text)), Ok(_)) => {
                *d = Err(DataError::PaddedBeyondAlignment { directive: text });
            }
            _ => {}
        }
        if let Ok(datum) = d {
            match data_bytes(word, args) {
                Ok(b) => datum.bytes.extend(b),
                Err(why) => *d = Err(why),
            }
        }
    }

    /// Gives each program the data its operands address, renumbered in the order of
    /// first use; a symbol no data defines, or data that cannot be read, is an error
    /// at the first line that uses it.
    pub(crate) fn attach(&self, progs: &mut [Program]) -> Result<()> {
        for p in progs {
            let mut local: HashMap<DataId, DataId> = HashMap::new();
            for i in &mut p.insts {
                for op in i.operands_mut() {
                    let Operand::Mem(m) = op else { continue };
                    let Some(id) = m.data else { continue };
                    if let Some(&new) = local.get(&id) {
                        m.data = Some(new);
                        continue;
                    }
                    let (name, line, text) = &self.used[id.index()];
                    let err = |error: LineError| Error::Parse {
                        line: *line,
                        text: text.clone(),
                        error,
                    };
                    match self.by_label.get(name).map(|&k| &self.defined[k]) {
                        Some(Ok(d)) => p.data.push(d.clone()),
                        Some(Err(why)) => {
                            return Err(err(LineError::UnreadableData {
                                name: name.clone(),
                                error: why.clone(),
                            }))
                        }
                        None => return Err(err(LineError::UndefinedSymbol { name: name.clone() })),
                    }
                    // (At most 256 file-wide ids, so at most 256 per program.)
                    let new = DataId(local.len() as u8);
                    local.insert(id, new);
                    m.data = Some(new);
                }
            }
        }
        Ok(())
    }
}

/// `lower` as `line` writes it: the first occurrence, ignoring case, that is a whole
/// symbol (not part of a longer one).
fn as_written<'a>(line: &'a str, lower: &str) -> Option<&'a str> {
    let ident = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$' | '@' | '?');
    (0..line.len().saturating_sub(lower.len() - 1)).find_map(|i| {
        let s = line.get(i..i + lower.len())?;
        let before = line[..i].chars().next_back().is_none_or(|c| !ident(c));
        let after = line[i + lower.len()..]
            .chars()
            .next()
            .is_none_or(|c| !ident(c));
        (s.eq_ignore_ascii_case(lower) && before && after).then_some(s)
    })
}

/// Whether a directive word (lower case) is an alignment directive.
pub(crate) fn is_align(word: &str) -> bool {
    matches!(word, ".p2align" | ".align" | ".balign" | "align")
}

/// The bytes of one data directive, little-endian: `.byte`/`db`, `.short`/`.value`/
/// `.word`/`.2byte`/`dw`, `.long`/`.int`/`.4byte`/`dd`, `.quad`/`.8byte`/`dq` with
/// number values, `.zero n`, `.space n[, fill]`, `.skip n[, fill]`.
fn data_bytes(word: &str, args: &str) -> std::result::Result<Vec<u8>, DataError> {
    let width = match word {
        ".byte" | "db" => 1,
        ".short" | ".value" | ".word" | ".2byte" | "dw" => 2,
        ".long" | ".int" | ".4byte" | "dd" => 4,
        ".quad" | ".8byte" | "dq" => 8,
        ".zero" | ".space" | ".skip" => {
            let mut it = args.split(',').map(str::trim);
            let n = it
                .next()
                .and_then(number)
                .filter(|n| (0..=1 << 20).contains(n));
            let fill = it.next().map_or(Some(0), number);
            return match (n, fill) {
                (Some(n), Some(f)) => Ok(vec![f as u8; n as usize]),
                _ => Err(DataError::UnreadableFill {
                    directive: word.to_string(),
                    args: args.to_string(),
                }),
            };
        }
        _ => {
            return Err(DataError::UnreadableDirective {
                directive: word.to_string(),
            })
        }
    };
    let mut out = Vec::new();
    for v in args.split(',').map(str::trim) {
        let n = number(v).ok_or_else(|| DataError::NotANumber {
            value: v.to_string(),
        })?;
        let fits = width == 8 || {
            let bits = 8 * width;
            (-(1i64 << (bits - 1))..1i64 << bits).contains(&n)
        };
        if !fits {
            return Err(DataError::TooWide {
                value: v.to_string(),
                directive: word.to_string(),
            });
        }
        out.extend_from_slice(&n.to_le_bytes()[..width]);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::{data_bytes, Pool};

    /// A label right after a datum is aligned as far as the datum's alignment and size
    /// allow (or by an alignment directive between them): each line is a label, its
    /// data directives and the alignment it must get.
    #[test]
    fn labels_after_a_datum_inherit_its_alignment() {
        type Line = (&'static str, &'static [(&'static str, &'static str)], u32);
        let lines: &[Line] = &[
            (".A", &[(".quad", "1"), (".quad", "2")], 16),
            (".B", &[(".quad", "3")], 16),
            (".C", &[(".long", "4")], 8),
            (".D", &[(".byte", "5")], 4),
            (".E", &[(".ascii", "\"x\"")], 1),
            (".F", &[(".quad", "6")], 1),
        ];
        let mut pool = Pool::default();
        pool.section();
        pool.align(".p2align", "4");
        for (label, data, want) in lines {
            pool.label(label);
            let got = pool.defined.last().unwrap().as_ref().unwrap().align;
            assert_eq!(got, *want, "{label}");
            for (word, args) in *data {
                pool.data(word, args);
            }
        }
        // An alignment directive between them still counts.
        pool.align(".p2align", "3");
        pool.label(".G");
        assert_eq!(pool.defined.last().unwrap().as_ref().unwrap().align, 8);
    }

    /// (directive, its arguments, the bytes or a fragment of the reason).
    type Case = (
        &'static str,
        &'static str,
        Result<&'static [u8], &'static str>,
    );

    #[test]
    fn data_directives() {
        let table: &[Case] = &[
            (".byte", "218, 0xff, -1", Ok(&[218, 255, 255])),
            (".quad", "1", Ok(&[1, 0, 0, 0, 0, 0, 0, 0])),
            (".long", "0xffffffff", Ok(&[255; 4])),
            (".short", "-2", Ok(&[254, 255])),
            ("dq", "0x0102030405060708", Ok(&[8, 7, 6, 5, 4, 3, 2, 1])),
            (".zero", "3", Ok(&[0, 0, 0])),
            (".space", "2, 7", Ok(&[7, 7])),
            (".byte", "256", Err("too wide")),
            (".quad", ".LC1", Err("not a number")),
            (".ascii", "\"x\"", Err("does not read")),
        ];
        for (word, args, want) in table {
            let got = data_bytes(word, args);
            match want {
                Ok(b) => assert_eq!(got.as_deref(), Ok(*b), "{word} {args}"),
                Err(e) => assert!(got.unwrap_err().to_string().contains(e), "{word} {args}"),
            }
        }
    }
}
