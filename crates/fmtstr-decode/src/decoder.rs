//! Turning one entry into text: find its format, read its payload as the layout says, render.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;
use std::io::Write as _;

use fmtstr_format::{Arg, RenderError};

use crate::buffer::{byte_offset, RawEntry, Stop};
use crate::formats::{Compiled, FormatNote, Formats, Known};
use crate::plan::{self, Step};

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
    UnknownId {
        /// The entry's 48-bit format ID.
        id: u64,
        /// The entry's size in dwords, header included.
        size: u32,
    },
    /// The ID of a shader-abort message entry (no `.string`): not a printf, not rendered.
    #[error(
        "shader-abort message (format ID {id:#x}, an entry of {size} dwords): message words \
         [{}]; fmtstr does not render abort messages",
        words.iter().map(|w| format!("{w:#x}")).collect::<Vec<_>>().join(", ")
    )]
    AbortMessage {
        /// The entry's 48-bit format ID.
        id: u64,
        /// The entry's size in dwords, header included.
        size: u32,
        /// The message's 32-bit words: `.constants` where `.constant_status` says, the
        /// entry's payload elsewhere (as far as both reach, at most 64).
        words: Vec<u32>,
    },
    /// ID 0, which marks unwritten space.
    #[error(
        "format ID 0 (reserved: it marks unwritten space) in an entry of {size} dwords; skipped"
    )]
    ReservedId {
        /// The entry's size in dwords, header included.
        size: u32,
    },
    /// The table's string is not a format fmtstr can render.
    #[error("format ID {id:#x} has the string {format}, which cannot be rendered: {message}")]
    BadFormat {
        /// The entry's 48-bit format ID.
        id: u64,
        /// The table's string for the ID as a quoted C literal, for messages.
        format: String,
        /// Why it cannot be rendered: the parse error, or a table's inline-strings list that
        /// does not fit the format.
        message: String,
    },
    /// Fewer payload dwords than the format reads.
    #[error(
        "format ID {id:#x} ({format}) reads {needs} payload dwords but the entry has {has}; skipped"
    )]
    ShortPayload {
        /// The entry's 48-bit format ID.
        id: u64,
        /// The table's string for the ID as a quoted C literal, for messages.
        format: String,
        /// Payload dwords the format reads (its [`Compiled::payload_dwords`]).
        needs: u32,
        /// Payload dwords the entry holds: its size less the 2-dword header.
        has: u32,
    },
    /// More payload dwords than the format reads: the text is printed, the rest ignored.
    #[error(
        "format ID {id:#x} ({format}) reads {needs} payload dwords but the entry has {has}; the \
         last {} were ignored",
        .has - .needs
    )]
    LongPayload {
        /// The entry's 48-bit format ID.
        id: u64,
        /// The table's string for the ID as a quoted C literal, for messages.
        format: String,
        /// Payload dwords the format reads (its [`Compiled::payload_dwords`]).
        needs: u32,
        /// Payload dwords the entry holds: its size less the 2-dword header.
        has: u32,
    },
    /// A value the renderer refuses (a `*` width above 65536).
    #[error("format ID {id:#x} ({format}): {error}; skipped")]
    Render {
        /// The entry's 48-bit format ID.
        id: u64,
        /// The table's string for the ID as a quoted C literal, for messages.
        format: String,
        /// What the renderer refused.
        error: RenderError,
    },
    /// Something odd about a format and its table entry, said the first time an entry uses it.
    #[error("format ID {id:#x} ({format}): {note}")]
    Format {
        /// The entry's 48-bit format ID.
        id: u64,
        /// The table's string for the ID as a quoted C literal, for messages.
        format: String,
        /// What is odd, and how the payload is read despite it.
        note: FormatNote,
    },
}

/// A problem at a place in the buffer.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    /// Dword offset after the buffer header (the unit of `bufferOffset`).
    pub offset: u64,
    /// What went wrong there.
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
    /// The entry's format as the tables give it (the first table's, for an ID given twice).
    pub known: &'d Known,
    /// The parsed format and the payload layout the entry was read with.
    pub compiled: &'d Compiled,
    /// One [`Arg`] per scalar value, as [`fmtstr_format::Format::render`] takes them.
    pub args: Cow<'d, [Arg<'d>]>,
    /// Payload dwords the format read.
    pub needs: u32,
}

/// Slots of a decoder's ID cache (a power of two).
pub(crate) const CACHE_SLOTS: usize = 1024;

/// The slot of an ID in a decoder's cache.
#[inline]
fn cache_slot(id: u64) -> usize {
    (id.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 54) as usize % CACHE_SLOTS
}

/// What the hot path found: the details of a problem are worked out again, off the hot path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Quick {
    Printed,
    /// Printed; the payload is longer than the format reads.
    Long,
    /// Not printed; nothing was appended.
    Failed,
}

/// Decodes entries one at a time, reusing its scratch space. One per thread.
#[derive(Debug)]
pub struct Decoder<'f> {
    formats: &'f Formats,
    args: Vec<Arg<'f>>,
    /// A direct-mapped cache of IDs whose format compiled: (ID, known, compiled).
    cache: Vec<Option<(u64, &'f Known, &'f Compiled)>>,
    /// IDs whose format notes were given.
    noted: HashSet<u64>,
    notes: Vec<Problem>,
}

impl<'f> Decoder<'f> {
    /// A decoder that looks IDs up in `formats`, with an empty ID cache.
    pub fn new(formats: &'f Formats) -> Decoder<'f> {
        Decoder {
            formats,
            args: Vec::with_capacity(16),
            cache: vec![None; CACHE_SLOTS],
            noted: HashSet::new(),
            notes: Vec::new(),
        }
    }

    /// Moves the [`ProblemKind::Format`] notes of formats used for the first time (by this
    /// decoder) since the last call into `problems`, at the offset of the entry that used them.
    #[inline]
    pub fn take_notes(&mut self, problems: &mut Vec<Problem>) {
        if !self.notes.is_empty() {
            problems.append(&mut self.notes);
        }
    }

    /// The formats this decoder looks IDs up in.
    pub fn formats(&self) -> &'f Formats {
        self.formats
    }

    /// The format of an ID that compiled, through the cache; notes a format's oddities the
    /// first time it is used.
    #[inline]
    fn lookup(&mut self, id: u64, offset: u64) -> Option<(&'f Known, &'f Compiled)> {
        let slot = cache_slot(id);
        if let Some((cached, known, compiled)) = self.cache[slot] {
            if cached == id {
                return Some((known, compiled));
            }
        }
        self.lookup_slow(id, offset, slot)
    }

    /// The steps of an entry that renders in a batch: its format is in the cache (so its
    /// notes were given), its plan [`batchable`](crate::plan::batchable), its payload
    /// exactly what the format reads. Also the cache slot, which stands for the format
    /// within a batch. `None`: render the entry with [`Decoder::render`].
    #[inline]
    pub(crate) fn batchable(&self, entry: &RawEntry<'_>) -> Option<(&'f [Step], usize)> {
        let slot = cache_slot(entry.id);
        let (cached, _, compiled) = self.cache[slot]?;
        if cached != entry.id
            || !compiled.batched
            || compiled.payload_dwords() != entry.payload_dwords()
        {
            return None;
        }
        Some((compiled.plan.as_deref()?, slot))
    }

    #[cold]
    fn lookup_slow(
        &mut self,
        id: u64,
        offset: u64,
        slot: usize,
    ) -> Option<(&'f Known, &'f Compiled)> {
        let known = self.formats.get(id)?;
        let compiled = known.compiled().ok()?;
        if !compiled.notes().is_empty() && self.noted.insert(id) {
            for note in compiled.notes() {
                // A 64-bit %s is an interned string's ID where the tables intern strings.
                if let FormatNote::String { argument } = note {
                    if self.formats.interns() && compiled.is_wide(argument - 1) {
                        continue;
                    }
                }
                self.notes.push(Problem {
                    offset,
                    kind: ProblemKind::Format {
                        id,
                        format: crate::formats::quoted(known.entry()),
                        note: note.clone(),
                    },
                });
            }
        }
        self.cache[slot] = Some((id, known, compiled));
        Some((known, compiled))
    }

    /// Reads the payload into `self.args`; the payload holds at least what `compiled` reads.
    #[inline]
    fn fill(&mut self, compiled: &Compiled, payload: &[u8]) {
        self.args.clear();
        let formats = self.formats;
        self.args.extend(
            compiled
                .ops
                .iter()
                .zip(&compiled.op_at)
                .map(|(op, at)| argument(formats, *op, payload, *at as usize)),
        );
    }

    /// Finds the entry's format and reads its payload into rendering arguments.
    pub fn interpret<'d>(
        &'d mut self,
        entry: &RawEntry<'d>,
    ) -> Result<Interpreted<'d>, ProblemKind> {
        let formats = self.formats;
        let Some(known) = formats.get(entry.id) else {
            if let Some(abort) = formats.abort(entry.id) {
                return Err(ProblemKind::AbortMessage {
                    id: entry.id,
                    size: entry.size,
                    words: abort_words(abort, entry.payload),
                });
            }
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
        // Notes the format's oddities on first use.
        let _ = self.lookup(entry.id, entry.offset);
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
        let args = if compiled.has_inline_strings() {
            Cow::Owned(arguments_of(formats, compiled, entry.payload))
        } else {
            self.fill(compiled, entry.payload);
            Cow::Borrowed(self.args.as_slice())
        };
        Ok(Interpreted {
            known,
            compiled,
            args,
            needs,
        })
    }

    // Always inlined, as `render` is, into the walk's loop: otherwise the loop passes the
    // entry and takes `render`'s large result through memory for every entry (2% of the
    // instructions).
    #[inline(always)]
    fn quick(&mut self, entry: &RawEntry<'_>, out: &mut Vec<u8>) -> Quick {
        let Some((_, compiled)) = self.lookup(entry.id, entry.offset) else {
            return Quick::Failed;
        };
        let needs = compiled.payload_dwords();
        let has = entry.payload_dwords();
        if has < needs {
            return Quick::Failed;
        }
        let payload = entry.payload;
        match &compiled.plan {
            Some(steps) => {
                let start = out.len();
                for step in steps {
                    match step {
                        Step::Short(text) => text.push(out),
                        Step::Long(bytes) => out.extend_from_slice(bytes),
                        Step::Int(text, int) => {
                            text.push(out);
                            plan::render_int(int, payload, out);
                        }
                        Step::Float(text, float) => {
                            text.push(out);
                            plan::render_float(float, payload, out);
                        }
                        Step::Spec { format, ops } => {
                            self.args.clear();
                            for index in ops.clone() {
                                self.args.push(argument(
                                    self.formats,
                                    compiled.ops[index],
                                    payload,
                                    compiled.op_at[index] as usize,
                                ));
                            }
                            if format.render(&self.args, out).is_err() {
                                out.truncate(start);
                                return Quick::Failed;
                            }
                        }
                    }
                }
            }
            None if compiled.has_inline_strings() => {
                let args = arguments_of(self.formats, compiled, payload);
                if compiled.format().render(&args, out).is_err() {
                    return Quick::Failed;
                }
            }
            None => {
                self.fill(compiled, payload);
                if compiled.format().render(&self.args, out).is_err() {
                    return Quick::Failed;
                }
            }
        }
        if has > needs {
            Quick::Long
        } else {
            Quick::Printed
        }
    }

    /// Appends the entry's text to `out`, exactly as C's printf prints it. `Ok(Some(_))` is a
    /// warning about an entry that was printed anyway (a payload longer than the format
    /// reads); on `Err` nothing was appended.
    // Always inlined: see `quick`.
    #[inline(always)]
    pub fn render(
        &mut self,
        entry: &RawEntry<'_>,
        out: &mut Vec<u8>,
    ) -> Result<Option<ProblemKind>, ProblemKind> {
        match self.quick(entry, out) {
            Quick::Printed => Ok(None),
            Quick::Long => Ok(Some(self.long_payload(entry))),
            Quick::Failed => self.failure(entry, out),
        }
    }

    #[cold]
    fn long_payload(&self, entry: &RawEntry<'_>) -> ProblemKind {
        let (format, needs) = match self.formats.get(entry.id) {
            Some(known) => (
                crate::formats::quoted(known.entry()),
                known.compiled().map_or(0, Compiled::payload_dwords),
            ),
            None => (String::new(), 0),
        };
        ProblemKind::LongPayload {
            id: entry.id,
            format,
            needs,
            has: entry.payload_dwords(),
        }
    }

    /// Why the quick path did not print the entry.
    #[cold]
    fn failure(
        &mut self,
        entry: &RawEntry<'_>,
        out: &mut Vec<u8>,
    ) -> Result<Option<ProblemKind>, ProblemKind> {
        let interpreted = self.interpret(entry)?;
        let known = interpreted.known;
        interpreted
            .compiled
            .format()
            .render(&interpreted.args, out)
            .map_err(|error| ProblemKind::Render {
                id: entry.id,
                format: crate::formats::quoted(known.entry()),
                error,
            })?;
        // Not reached: the quick path fails only where `interpret` or `render` does.
        Ok(None)
    }
}

/// The argument `op` reads at payload byte `at`; a 64-bit `%s` argument is the 48-bit ID of a
/// string fmtstr interned (a table entry of its own, `.fmtstr_interned`): its string, when a
/// table has the ID (else the placeholder, as for any pointer).
#[inline]
fn argument<'f>(formats: &'f Formats, op: crate::ops::Op, payload: &[u8], at: usize) -> Arg<'f> {
    let arg = plan::arg(op, payload, at);
    if op == crate::ops::Op::Str64 && matches!(arg, Arg::Str(_)) {
        let id = plan::wide_at(payload, at) & ((1 << 48) - 1);
        if let Some(known) = formats.get(id) {
            return Arg::Str(known.entry().bytes());
        }
    }
    arg
}

/// Every argument of an entry whose format has inline strings, which borrow from the payload.
fn arguments_of<'a>(formats: &'a Formats, compiled: &Compiled, payload: &'a [u8]) -> Vec<Arg<'a>> {
    compiled
        .ops
        .iter()
        .zip(&compiled.op_at)
        .map(|(op, at)| match *op {
            crate::ops::Op::StrInline(bytes) => plan::inline_string(payload, *at as usize, bytes).0,
            op => argument(formats, op, payload, *at as usize),
        })
        .collect()
}

/// How many of an entry's inline strings were cut (0 for a format without them).
pub(crate) fn strings_cut(compiled: &Compiled, payload: &[u8]) -> u64 {
    compiled
        .ops
        .iter()
        .zip(&compiled.op_at)
        .filter(|(op, at)| match **op {
            crate::ops::Op::StrInline(bytes) => {
                plan::inline_string(payload, **at as usize, bytes).1
            }
            _ => false,
        })
        .count() as u64
}

/// The words of an abort message: `.constants` where `.constant_status` has a bit set, the
/// payload's dwords elsewhere, as far as `.data_count` (or the payload, without one) and both
/// sources reach; at most 64.
fn abort_words(abort: &fmtstr_meta::AbortEntry<'_>, payload: &[u8]) -> Vec<u32> {
    const MOST: usize = 64;
    let status = abort.constant_status().unwrap_or_default();
    let constants = abort.constants().unwrap_or_default();
    let dwords: Vec<u32> = payload
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let count = abort
        .data_count()
        .map_or(dwords.len() + constants.len(), |n| {
            usize::try_from(n).unwrap_or(usize::MAX)
        })
        .min(MOST);
    let (mut constant, mut runtime) = (constants.iter(), dwords.iter());
    let mut words = Vec::with_capacity(count);
    for i in 0..count {
        let is_constant = status.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1);
        let next = if is_constant {
            constant.next().map(|&w| w as u32)
        } else {
            runtime.next().copied()
        };
        match next {
            Some(word) => words.push(word),
            None => break,
        }
    }
    words
}
