//! The format strings a buffer's IDs refer to: tables merged by ID, each format parsed once
//! (the first time an entry uses it) with the payload layout its table entry describes.

use std::fmt;
use std::sync::OnceLock;

use fmtstr_format::{ArgClass, ArgSlot, Format, Spec};
use fmtstr_meta::merge::{IdMap, MergeFinding, Merger, Relation};
use fmtstr_meta::{escape, AbortEntry, Entry, Table};

use crate::ops::{inline_dwords, Op, INLINE_MOST_BYTES};

/// Every format string the given tables know, by ID.
#[derive(Debug, Default)]
pub struct Formats {
    by_id: IdMap<u64, Known>,
    /// Shader-abort message entries (no `.string`), by ID: their buffer entries are marked.
    aborts: IdMap<u64, AbortEntry<'static>>,
    sources: Vec<String>,
    findings: Vec<MergeFinding>,
    /// Whether some entry is a `%s` string fmtstr interned (key [`INTERNED_KEY`]).
    interns: bool,
    /// Whether some entry has inline strings ([`fmtstr_meta::INLINE_STRINGS_KEY`]).
    inline_strings: bool,
    /// The longest string of any entry: what a 64-bit `%s` naming an entry can print.
    longest_string: u64,
}

/// The key `fmtstr lower --stage buffer` adds to a table entry that is the string of a `%s`
/// argument rather than a format: the payload carries such an argument as the entry's 48-bit
/// ID in two dwords (its 64-bit mask bit set), and the decoder prints the entry's string.
pub const INTERNED_KEY: &str = ".fmtstr_interned";

/// One format string: its table entry, where it came from, and its parsed form once used.
#[derive(Debug)]
pub struct Known {
    entry: Entry<'static>,
    source: usize,
    compiled: OnceLock<Result<Compiled, String>>,
}

impl Known {
    /// The table entry (the first one given for the ID).
    pub fn entry(&self) -> &Entry<'static> {
        &self.entry
    }

    /// Index of the table it came from (see [`Formats::sources`]).
    pub fn source(&self) -> usize {
        self.source
    }

    /// The parsed format and its payload layout, parsed on first use; an error says why the
    /// table's string is not a format fmtstr can render.
    pub fn compiled(&self) -> Result<&Compiled, &str> {
        self.compiled
            .get_or_init(|| Compiled::new(&self.entry))
            .as_ref()
            .map_err(String::as_str)
    }
}

impl Formats {
    /// No formats.
    pub fn new() -> Formats {
        Formats::default()
    }

    /// Merges tables in order, each named by its source (a file name, for messages). An ID
    /// given twice keeps its first entry; when the two entries differ, a finding records it
    /// (see [`Formats::findings`]): the AMD driver should warn about this and does not.
    pub fn from_tables<'t>(tables: impl IntoIterator<Item = (String, Table<'t>)>) -> Formats {
        let mut merger = Merger::new();
        let mut sources = Vec::new();
        for (name, table) in tables {
            merger.add(sources.len(), table);
            sources.push(name);
        }
        let mut merged = merger.finish();
        let mut aborts = IdMap::default();
        for abort in std::mem::take(&mut merged.table.aborts) {
            if let Some(id) = abort.id() {
                aborts.entry(id.get()).or_insert_with(|| abort.into_owned());
            }
        }
        let mut by_id = IdMap::default();
        by_id.reserve(merged.table.entries.len());
        let interns = merged.table.entries.iter().any(|entry| {
            entry.extra().iter().any(|(key, value)| {
                key.as_str() == Some(INTERNED_KEY) && value.as_bool() == Some(true)
            })
        });
        let inline_strings = merged
            .table
            .entries
            .iter()
            .any(|entry| !entry.inline_strings().is_empty());
        let longest_string = merged
            .table
            .entries
            .iter()
            .map(|entry| entry.bytes().len() as u64)
            .max()
            .unwrap_or(0);
        for (entry, origin) in merged.table.entries.into_iter().zip(merged.origins) {
            by_id.insert(
                entry.id().get(),
                Known {
                    entry: entry.into_owned(),
                    source: origin.source,
                    compiled: OnceLock::new(),
                },
            );
        }
        Formats {
            by_id,
            aborts,
            sources,
            findings: merged.findings,
            interns,
            inline_strings,
            longest_string,
        }
    }

    /// The most bytes one entry of `compiled` can print with these tables: its own bound
    /// ([`Compiled::text_bound`]) and, for each 64-bit `%s`, the longest string an ID in the
    /// payload could name.
    pub fn text_bound(&self, compiled: &Compiled) -> u64 {
        compiled
            .text_bound()
            .saturating_add(compiled.wide_strings().saturating_mul(self.longest_string))
    }

    /// Whether some entry is a `%s` string fmtstr interned: then a 64-bit `%s` argument is
    /// read as the ID of one.
    pub fn interns(&self) -> bool {
        self.interns
    }

    /// Whether some format's `%s` arguments travel as their bytes in the entry.
    pub fn has_inline_strings(&self) -> bool {
        self.inline_strings
    }

    /// The shader-abort message entry with this ID, if a table has one.
    pub fn abort(&self, id: u64) -> Option<&AbortEntry<'static>> {
        self.aborts.get(&id)
    }

    /// The format for an ID.
    #[inline]
    pub fn get(&self, id: u64) -> Option<&Known> {
        self.by_id.get(&id)
    }

    /// The number of IDs known.
    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    /// Whether no table gave a format (every entry's ID will be unknown).
    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    /// The names the tables were given, in order.
    pub fn sources(&self) -> &[String] {
        &self.sources
    }

    /// IDs given with different strings (collisions) or the same string with different
    /// argument layouts (conflicts) by the tables; the first entry is the one used.
    pub fn findings(&self) -> &[MergeFinding] {
        &self.findings
    }

    /// One line per finding, naming both tables.
    pub fn describe_findings(&self) -> Vec<String> {
        self.findings
            .iter()
            .map(|finding| {
                let what = finding.describe(&self.sources);
                match finding.relation {
                    Relation::Collision => {
                        format!("{what}; entries with this ID are decoded with the first string")
                    }
                    _ => format!("{what}; entries with this ID are decoded with the first layout"),
                }
            })
            .collect()
    }
}

/// How one payload value is turned into a rendering argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// An `int` for `*`.
    Star,
    /// `d i`: a 32-bit payload is sign-extended (the value the shader wrote).
    Signed,
    /// `u o x X c`.
    Unsigned,
    /// A float: a 32-bit payload is an IEEE single, widened exactly.
    Float,
    /// `%p`.
    Pointer,
    /// `%s`: only a pointer travels.
    String,
}

/// The payload layout of one argument (a vector is one argument with several components).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Slot {
    pub(crate) kind: Kind,
    /// Two dwords per component (its bit is set in the 64-bit mask).
    pub(crate) wide: bool,
    /// Components: the vector length, or 1.
    pub(crate) components: u8,
    /// A `%s` whose bytes travel in the entry: the bytes reserved.
    pub(crate) inline: Option<u32>,
}

/// A format parsed once, with the payload layout its table entry gives.
#[derive(Debug)]
pub struct Compiled {
    format: Format,
    pub(crate) slots: Vec<Slot>,
    /// One per scalar value, in payload order.
    pub(crate) ops: Vec<Op>,
    /// The payload byte offset of each op's value.
    pub(crate) op_at: Vec<u32>,
    /// The format as steps that read the payload directly (the hot path).
    pub(crate) plan: Option<Vec<crate::plan::Step>>,
    /// Whether `plan` is all text, integer and float steps, which cannot fail, printing at
    /// most a few KiB: entries with the whole payload the format reads are then rendered in
    /// batches (see `stream`).
    pub(crate) batched: bool,
    payload_dwords: u32,
    text_bound: u64,
    notes: Vec<FormatNote>,
}

impl Compiled {
    /// Parses the entry's format and lays out its payload as the entry's mask and inline
    /// strings say; an error when the format does not parse or the inline strings do not fit it.
    fn new(entry: &Entry<'_>) -> Result<Compiled, String> {
        let format = Format::parse(entry.bytes()).map_err(|error| error.to_string())?;
        let specs: Vec<&Spec> = format.specs().collect();
        let arguments = format.arguments();
        let mut slots = Vec::with_capacity(arguments.len());
        let mut notes = Vec::new();
        let mut payload_dwords: u32 = 0;
        if entry.argument_count() != arguments.len() as u64 {
            notes.push(FormatNote::ArgumentCount {
                table: entry.argument_count(),
                format: arguments.len(),
            });
        }
        let inline = entry.inline_strings();
        check_inline_strings(&inline, &arguments, &specs)?;
        let inline_bytes = |index: usize| {
            inline
                .iter()
                .find(|(at, _)| *at == index as u64)
                .map(|&(_, bytes)| bytes as u32)
        };
        for (index, &slot) in arguments.iter().enumerate() {
            let slot = match inline_bytes(index) {
                Some(bytes) => Slot {
                    kind: Kind::String,
                    wide: false,
                    components: 1,
                    inline: Some(bytes),
                },
                None => value_slot(entry, &format, &specs, index, slot, &mut notes),
            };
            payload_dwords = payload_dwords.saturating_add(slot_dwords(&slot));
            slots.push(slot);
        }
        let ops = ops_of(&slots);
        let op_at = op_offsets(&ops);
        // Inline strings borrow from the payload: they are rendered off the planned path.
        let plan = if inline.is_empty() {
            crate::plan::compile(&format, &ops, &op_at)
        } else {
            None
        };
        let text_bound = inline
            .iter()
            .fold(text_bound(&format), |bound, (_, bytes)| {
                bound.saturating_add(*bytes)
            });
        let batched = plan
            .as_ref()
            .is_some_and(|steps| crate::plan::batchable(steps, text_bound));
        Ok(Compiled {
            text_bound,
            format,
            slots,
            ops,
            op_at,
            plan,
            batched,
            payload_dwords,
            notes,
        })
    }

    /// The parsed format.
    pub fn format(&self) -> &Format {
        &self.format
    }

    /// Payload dwords an entry needs: one per argument (per component for vectors), two where
    /// the argument's bit is set in the 64-bit mask.
    pub fn payload_dwords(&self) -> u32 {
        self.payload_dwords
    }

    /// The most bytes one entry of this format can print (a generous bound: `%f` of the
    /// largest double, a `*` of 65536, ...), but for the strings its 64-bit `%s` arguments
    /// name: [`Formats::text_bound`] counts those.
    pub fn text_bound(&self) -> u64 {
        self.text_bound
    }

    /// How many of the payload's values are 64-bit `%s` arguments: IDs of table entries
    /// whose strings are printed (interned strings).
    pub fn wide_strings(&self) -> u64 {
        self.ops.iter().filter(|op| **op == Op::Str64).count() as u64
    }

    /// What is odd about the format and its table entry (said once per format).
    pub fn notes(&self) -> &[FormatNote] {
        &self.notes
    }

    /// Whether some `%s` of the format travels as its bytes in the entry.
    pub fn has_inline_strings(&self) -> bool {
        self.slots.iter().any(|slot| slot.inline.is_some())
    }

    /// Whether argument `index` (0-based, as [`Format::arguments`] counts) is read as two
    /// dwords per component.
    pub fn is_wide(&self, index: usize) -> bool {
        self.slots.get(index).is_some_and(|slot| slot.wide)
    }
}

/// Checks the entry's inline strings (argument index, bytes reserved) against the format:
/// each must be a scalar `%s` and reserve 1 to [`INLINE_MOST_BYTES`] bytes.
fn check_inline_strings(
    inline: &[(u64, u64)],
    arguments: &[ArgSlot],
    specs: &[&Spec],
) -> Result<(), String> {
    for &(index, bytes) in inline {
        let is_string = arguments.get(index as usize).is_some_and(|slot| {
            matches!(slot, ArgSlot::Value { spec } if specs[*spec].class() == ArgClass::String && specs[*spec].vector_len().is_none())
        });
        if !is_string {
            return Err(format!(
                "the table's {} lists argument {} as string bytes, but it is not a %s",
                fmtstr_meta::INLINE_STRINGS_KEY,
                index + 1
            ));
        }
        if bytes == 0 || bytes > INLINE_MOST_BYTES {
            return Err(format!(
                "the table's {} reserves {bytes} bytes for argument {}: 1 to \
                 {INLINE_MOST_BYTES} are possible",
                fmtstr_meta::INLINE_STRINGS_KEY,
                index + 1
            ));
        }
    }
    Ok(())
}

/// The payload layout of argument `index` (0-based) that travels as a value: its kind from
/// the conversion that reads it, its width from the entry's mask. A width other than the C
/// type's, and any `%s`, is noted.
fn value_slot(
    entry: &Entry<'_>,
    format: &Format,
    specs: &[&Spec],
    index: usize,
    slot: ArgSlot,
    notes: &mut Vec<FormatNote>,
) -> Slot {
    let wide = entry.mask().bit(index as u64);
    let (kind, spec) = match slot {
        ArgSlot::Star { spec } => (Kind::Star, specs[spec]),
        ArgSlot::Value { spec } => {
            let spec = specs[spec];
            let kind = match spec.class() {
                ArgClass::Signed => Kind::Signed,
                ArgClass::Unsigned | ArgClass::Char => Kind::Unsigned,
                ArgClass::Float => Kind::Float,
                ArgClass::Pointer => Kind::Pointer,
                ArgClass::String => Kind::String,
            };
            (kind, spec)
        }
    };
    let components = match kind {
        Kind::Star => 1,
        _ => spec.vector_len().unwrap_or(1),
    };
    let payload_bits = if wide { 64 } else { 32 };
    let c_bits = match kind {
        Kind::Star => 32,
        // Floats travel as float or double whatever the modifier says; the mask picks.
        Kind::Float => payload_bits,
        // A 32-bit pointer is a pointer too.
        Kind::Pointer | Kind::String => payload_bits,
        _ => spec.c_width().max(32),
    };
    if c_bits != payload_bits {
        notes.push(FormatNote::Width {
            argument: index + 1,
            spec: spec_text(format, spec, matches!(slot, ArgSlot::Star { .. })),
            payload_bits,
            c_bits,
        });
    }
    if kind == Kind::String {
        notes.push(FormatNote::String {
            argument: index + 1,
        });
    }
    Slot {
        kind,
        wide,
        components,
        inline: None,
    }
}

/// The payload dwords of one argument: its inline string's, else one per component, two
/// where it is wide.
fn slot_dwords(slot: &Slot) -> u32 {
    match slot.inline {
        Some(bytes) => inline_dwords(bytes),
        None => u32::from(slot.components) * if slot.wide { 2 } else { 1 },
    }
}

/// How each scalar value of the payload is read, in payload order (a vector's components one
/// by one).
fn ops_of(slots: &[Slot]) -> Vec<Op> {
    slots
        .iter()
        .flat_map(|slot| {
            if let Some(bytes) = slot.inline {
                return std::iter::repeat_n(Op::StrInline(bytes), 1);
            }
            let op = match (slot.kind, slot.wide) {
                (Kind::Star | Kind::Unsigned, false) => Op::Zero32,
                (Kind::Signed, false) => Op::Sign32,
                (Kind::Star | Kind::Unsigned | Kind::Signed, true) => Op::Int64,
                (Kind::Float, false) => Op::Float32,
                (Kind::Float, true) => Op::Float64,
                (Kind::Pointer, false) => Op::Ptr32,
                (Kind::Pointer, true) => Op::Ptr64,
                (Kind::String, false) => Op::Str32,
                (Kind::String, true) => Op::Str64,
            };
            std::iter::repeat_n(op, usize::from(slot.components))
        })
        .collect()
}

/// The payload byte offset of each op's value: the ops lie back to back, 64-bit values in 8
/// bytes, an inline string in its dwords.
fn op_offsets(ops: &[Op]) -> Vec<u32> {
    let mut op_at = Vec::with_capacity(ops.len());
    let mut at = 0u32;
    for op in ops {
        op_at.push(at);
        at = at.saturating_add(match op {
            Op::Int64 | Op::Float64 | Op::Ptr64 | Op::Str64 => 8,
            Op::StrInline(bytes) => 4 * inline_dwords(*bytes),
            _ => 4,
        });
    }
    op_at
}

/// The most bytes a format can print for one entry.
fn text_bound(format: &Format) -> u64 {
    use fmtstr_format::{Count, Piece};
    const STAR: u64 = fmtstr_format::MAX_COUNT as u64;
    let mut bound = 0u64;
    for piece in format.pieces() {
        bound += match piece {
            Piece::Literal(range) => range.len() as u64,
            Piece::Percent => 1,
            Piece::Spec(spec) => {
                let width = match spec.width {
                    Some(Count::Fixed(width)) => u64::from(width),
                    Some(Count::Star) => STAR,
                    None => 0,
                };
                let precision = match spec.precision {
                    Some(Count::Fixed(precision)) => Some(u64::from(precision)),
                    Some(Count::Star) => Some(STAR),
                    None => None,
                };
                let value = match spec.conversion.as_byte() {
                    // 309 integer digits of the largest double, the point, the sign.
                    b'f' | b'F' => 312 + precision.unwrap_or(6),
                    b'e' | b'E' | b'g' | b'G' => 16 + precision.unwrap_or(6),
                    b'a' | b'A' => 24 + precision.unwrap_or(13),
                    b'c' => 1,
                    b's' => 16 + precision.unwrap_or(0).min(16),
                    // glibc pads a pointer's digits to the precision, as for integers.
                    b'p' => 24 + precision.unwrap_or(0),
                    _ => 26 + precision.unwrap_or(0),
                };
                (width.max(value) + 1) * u64::from(spec.vector.unwrap_or(1))
            }
        };
    }
    bound
}

/// The text of a spec (or `*` for a star argument), for messages.
fn spec_text(format: &Format, spec: &Spec, star: bool) -> String {
    if star {
        return format!(
            "'*' of {}",
            String::from_utf8_lossy(&format.bytes()[spec.offset..spec.offset + spec.len])
        );
    }
    String::from_utf8_lossy(&format.bytes()[spec.offset..spec.offset + spec.len]).into_owned()
}

/// Something odd about a format and its table entry; decoding goes on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FormatNote {
    /// `.argument_count` differs from what the format consumes; the format's count is used.
    ArgumentCount {
        /// The table entry's `.argument_count`.
        table: u64,
        /// The arguments the format consumes: one per `*` and one per value (a vector is one).
        format: usize,
    },
    /// An argument's payload width (from the mask) differs from the C type its conversion
    /// reads. A 32-bit payload for a 64-bit signed conversion is sign-extended, for an
    /// unsigned one zero-extended; a 64-bit payload for a narrower conversion is truncated.
    Width {
        /// 1-based argument number.
        argument: usize,
        /// The conversion as written (`%ld`), or `'*' of %*d` for a star argument.
        spec: String,
        /// Bits per component in the payload: 64 when the mask bit is set, else 32.
        payload_bits: u32,
        /// Bits of the C type the conversion reads: 32 for `int` and the types promoted to it,
        /// 64 for the length modifiers `l`, `ll`, `j`, `z`, `t` and `L`.
        c_bits: u32,
    },
    /// `%s`: a printf buffer carries the pointer, not the characters; non-null pointers are
    /// printed as [`crate::STRING_PLACEHOLDER`].
    String {
        /// 1-based argument number.
        argument: usize,
    },
}

impl fmt::Display for FormatNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FormatNote::ArgumentCount { table, format } => write!(
                f,
                "the table says {table} argument{}, the format consumes {format}; the payload is \
                 read as the format says",
                if *table == 1 { "" } else { "s" }
            ),
            FormatNote::Width {
                argument,
                spec,
                payload_bits,
                c_bits,
            } => {
                let how = if payload_bits < c_bits {
                    "extended"
                } else {
                    "truncated"
                };
                write!(
                    f,
                    "argument {argument} ({spec}) is {payload_bits} bits in the buffer (its \
                     64-bit mask bit is {}) but {c_bits} bits in C; it is {how}",
                    if *payload_bits == 64 { "set" } else { "clear" }
                )
            }
            FormatNote::String { argument } => write!(
                f,
                "argument {argument} is a %s: the buffer holds only a pointer, so a null one \
                 prints as (null) and any other as {}",
                String::from_utf8_lossy(crate::STRING_PLACEHOLDER)
            ),
        }
    }
}

/// The format of an ID as a C literal in quotes, for messages.
pub fn quoted(entry: &Entry<'_>) -> String {
    format!("\"{}\"", escape::escape(entry.bytes()))
}
