//! Turning one entry into text: find its format, read its payload as the layout says, render.

use std::fmt;
use std::io::Write as _;

use fmtstr_format::{Arg, RenderError};

use crate::buffer::{byte_offset, RawEntry, Stop};
use crate::formats::{Compiled, FormatNote, Formats, Kind, Known};

/// What a non-null `%s` pointer prints as: the characters never reach the buffer.
pub const STRING_PLACEHOLDER: &[u8] = b"<string>";

/// What went wrong with an entry (or at the place an entry should start).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ProblemKind {
    /// The walk over entries cannot go on.
    #[error(transparent)]
    Stop(#[from] Stop),
    /// No table has the ID.
    #[error("unknown format ID {id:#x} in an entry of {size} dwords; skipped")]
    UnknownId { id: u64, size: u32 },
    /// ID 0, which marks unwritten space.
    #[error(
        "format ID 0 (reserved: it marks unwritten space) in an entry of {size} dwords; skipped"
    )]
    ReservedId { size: u32 },
    /// The table's string is not a format fmtstr can render.
    #[error("format ID {id:#x} has the string {format}, which cannot be rendered: {message}")]
    BadFormat {
        id: u64,
        format: String,
        message: String,
    },
    /// Fewer payload dwords than the format reads.
    #[error(
        "format ID {id:#x} ({format}) reads {needs} payload dwords but the entry has {has}; skipped"
    )]
    ShortPayload {
        id: u64,
        format: String,
        needs: u32,
        has: u32,
    },
    /// More payload dwords than the format reads: the text is printed, the rest ignored.
    #[error(
        "format ID {id:#x} ({format}) reads {needs} payload dwords but the entry has {has}; the \
         last {} were ignored",
        .has - .needs
    )]
    LongPayload {
        id: u64,
        format: String,
        needs: u32,
        has: u32,
    },
    /// A value the renderer refuses (a `*` width above 65536).
    #[error("format ID {id:#x} ({format}): {error}; skipped")]
    Render {
        id: u64,
        format: String,
        error: RenderError,
    },
    /// Something odd about a format and its table entry, said the first time an entry uses it.
    #[error("format ID {id:#x} ({format}): {note}")]
    Format {
        id: u64,
        format: String,
        note: FormatNote,
    },
}

/// A problem at a place in the buffer.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    /// Dword offset after the buffer header (the unit of `bufferOffset`).
    pub offset: u64,
    pub kind: ProblemKind,
}

impl Problem {
    /// Byte offset in the buffer.
    pub fn byte_offset(&self) -> u64 {
        byte_offset(self.offset)
    }

    /// Whether the entry's text was replaced by a marker line (nothing could be printed).
    pub fn marks_entry(&self) -> bool {
        !matches!(
            self.kind,
            ProblemKind::LongPayload { .. } | ProblemKind::Format { .. }
        )
    }

    /// Whether decoding stopped here.
    pub fn stops(&self) -> bool {
        matches!(self.kind, ProblemKind::Stop(_))
    }

    /// Appends the marker line that stands in the text for an entry that could not be printed:
    /// `<fmtstr: dword N (byte B): ...>` and a newline.
    pub fn write_marker(&self, out: &mut Vec<u8>) {
        let _ = writeln!(out, "<fmtstr: {self}>");
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "dword {} (byte {}): {}",
            self.offset,
            self.byte_offset(),
            self.kind
        )
    }
}

/// An entry read as its format says: the format and the flat argument list for rendering.
#[derive(Debug)]
pub struct Interpreted<'d> {
    pub known: &'d Known,
    pub compiled: &'d Compiled,
    /// One [`Arg`] per scalar value, as [`fmtstr_format::Format::render`] takes them.
    pub args: &'d [Arg<'static>],
    /// Payload dwords the format read.
    pub needs: u32,
}

/// Decodes entries one at a time, reusing its scratch space. One per thread.
#[derive(Debug)]
pub struct Decoder<'f> {
    formats: &'f Formats,
    args: Vec<Arg<'static>>,
}

impl<'f> Decoder<'f> {
    pub fn new(formats: &'f Formats) -> Decoder<'f> {
        Decoder {
            formats,
            args: Vec::with_capacity(16),
        }
    }

    /// The formats this decoder looks IDs up in.
    pub fn formats(&self) -> &'f Formats {
        self.formats
    }

    /// Finds the entry's format and reads its payload into rendering arguments.
    pub fn interpret(&mut self, entry: &RawEntry<'_>) -> Result<Interpreted<'_>, ProblemKind> {
        let formats = self.formats;
        let Some(known) = formats.get(entry.id) else {
            return Err(if entry.id == 0 {
                ProblemKind::ReservedId { size: entry.size }
            } else {
                ProblemKind::UnknownId {
                    id: entry.id,
                    size: entry.size,
                }
            });
        };
        let compiled = known.compiled().map_err(|message| ProblemKind::BadFormat {
            id: entry.id,
            format: crate::formats::quoted(known.entry()),
            message: message.to_owned(),
        })?;
        let needs = compiled.payload_dwords();
        let has = entry.payload_dwords();
        if has < needs {
            return Err(ProblemKind::ShortPayload {
                id: entry.id,
                format: crate::formats::quoted(known.entry()),
                needs,
                has,
            });
        }
        self.args.clear();
        let mut at = 0usize;
        for slot in &compiled.slots {
            for _ in 0..slot.components {
                let low = entry.dword(at);
                let bits = if slot.wide {
                    let high = entry.dword(at + 1);
                    at += 2;
                    u64::from(low) | u64::from(high) << 32
                } else {
                    at += 1;
                    u64::from(low)
                };
                let arg = match slot.kind {
                    Kind::Star | Kind::Unsigned => Arg::Int(bits),
                    Kind::Signed if !slot.wide => Arg::Int(low as i32 as i64 as u64),
                    Kind::Signed => Arg::Int(bits),
                    Kind::Float if slot.wide => Arg::Float(f64::from_bits(bits)),
                    Kind::Float => Arg::Float(f64::from(f32::from_bits(low))),
                    Kind::Pointer => Arg::Ptr(bits),
                    Kind::String if bits == 0 => Arg::Ptr(0),
                    Kind::String => Arg::Str(STRING_PLACEHOLDER),
                };
                self.args.push(arg);
            }
        }
        Ok(Interpreted {
            known,
            compiled,
            args: &self.args,
            needs,
        })
    }

    /// Appends the entry's text to `out`, exactly as C's printf prints it. `Ok(Some(_))` is a
    /// warning about an entry that was printed anyway (a payload longer than the format
    /// reads); on `Err` nothing was appended.
    #[inline]
    pub fn render(
        &mut self,
        entry: &RawEntry<'_>,
        out: &mut Vec<u8>,
    ) -> Result<Option<ProblemKind>, ProblemKind> {
        let interpreted = self.interpret(entry)?;
        let known = interpreted.known;
        let needs = interpreted.needs;
        interpreted
            .compiled
            .format()
            .render(interpreted.args, out)
            .map_err(|error| ProblemKind::Render {
                id: entry.id,
                format: crate::formats::quoted(known.entry()),
                error,
            })?;
        let has = entry.payload_dwords();
        Ok((has > needs).then(|| ProblemKind::LongPayload {
            id: entry.id,
            format: crate::formats::quoted(known.entry()),
            needs,
            has,
        }))
    }
}
