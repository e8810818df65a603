//! The `amdpal.format_strings` table and its msgpack form.
//!
//! ```text
//! amdpal.format_strings:
//!   .version: 1
//!   .strings:
//!     - .index: 12345678            # the 48-bit ID
//!       .string: "x=%d\n"
//!       .argument_count: 1
//!       .64bit_arguments: [0]       # (argc + 63) / 64 words; bit i = argument i is 64 bits
//! ```
//!
//! Today's LLPC also writes `.user_data_offset` beside `.version` (the printf buffer's user-data
//! offset in dwords; [`Table::user_data_offset`]), and `.strings` may hold shader-abort message
//! entries, which have no `.string` (`.is_abort_message`, `.data_count`, `.constant_status`,
//! `.constants`; [`AbortEntry`]): they are read, kept in place and written back as they were.
//!
//! Keys fmtstr does not know (newer LLPC writes some) are kept, in order, at both levels.
//! A table decoded from a file borrows its strings from the file's bytes and remembers each
//! entry's exact encoding, so writing it back copies entries byte for byte.

use std::borrow::Cow;
use std::fmt;

use rmpv::Value;

use crate::mask::Mask;
use crate::msgpack::{self, DecodeErrorKind, Reader, Token};
use crate::FormatId;

/// The only `.version` of `amdpal.format_strings` there is.
pub const VERSION: u64 = 1;

/// The key of the table in the PAL metadata document.
pub const KEY: &str = "amdpal.format_strings";

/// Key names, exactly as PAL metadata spells them.
pub mod keys {
    /// The table's version number; always [`VERSION`](super::VERSION).
    pub const VERSION: &str = ".version";
    /// The table's array of entry maps (printf and shader-abort entries).
    pub const STRINGS: &str = ".strings";
    /// An entry's 48-bit format-string ID, as the shader writes it in each record's header.
    pub const INDEX: &str = ".index";
    /// A printf entry's format string.
    pub const STRING: &str = ".string";
    /// How many arguments a printf entry's records carry after the header.
    pub const ARGUMENT_COUNT: &str = ".argument_count";
    /// A printf entry's array of 64-bit words: bit i set when argument i is 64 bits wide.
    pub const MASK: &str = ".64bit_arguments";
    /// The table's printf buffer user-data offset, in dwords.
    pub const USER_DATA_OFFSET: &str = ".user_data_offset";
    /// Marks a shader-abort message entry, which has no `.string`.
    pub const IS_ABORT_MESSAGE: &str = ".is_abort_message";
    /// An abort entry's message length in 32-bit words.
    pub const DATA_COUNT: &str = ".data_count";
    /// An abort entry's bit vector (64-bit words): bit i set when message word i is constant.
    pub const CONSTANT_STATUS: &str = ".constant_status";
    /// An abort entry's constant message words, in message order.
    pub const CONSTANTS: &str = ".constants";
}

/// The key of an entry's call sites (`fmtstr lower --prefix site`): an array of
/// `file:line:column` strings (a function's name without debug information). Readers other
/// than fmtstr pass over it.
pub const SITES_KEY: &str = ".fmtstr_sites";
/// With `fmtstr lower --runtime-strings N`, an entry whose `%s` arguments travel as copies of
/// their bytes lists them under this key: an array of `[argument index (0-based), bytes
/// reserved]` pairs. Such an argument's payload is a length word (the bytes copied in bits 0
/// to 30, bit 31 set when the string went on past them, all ones for a null pointer), then the
/// bytes reserved, in dwords.
pub const INLINE_STRINGS_KEY: &str = ".fmtstr_inline_strings";

/// What follows a site in the line that `fmtstr lower --limit-per-site N` prints once a site
/// went over its limit: `FILE:LINE: further output of this call dropped (limit N)`.
pub const LIMIT_MARKER: &str = ": further output of this call dropped (limit ";

/// One format string with its ID and argument layout.
#[derive(Clone, Debug)]
pub struct Entry<'a> {
    id: FormatId,
    string: Cow<'a, str>,
    argument_count: u64,
    mask: Mask,
    extra: Vec<(Value, Value)>,
    /// The entry's exact msgpack encoding when it was decoded from a file.
    raw: Option<&'a [u8]>,
}

impl<'a> Entry<'a> {
    /// A new entry.
    pub fn new(
        id: FormatId,
        string: impl Into<Cow<'a, str>>,
        argument_count: u64,
        mask: Mask,
    ) -> Entry<'a> {
        Entry {
            id,
            string: string.into(),
            argument_count,
            mask,
            extra: Vec::new(),
            raw: None,
        }
    }

    /// The entry fmtstr writes for a format string: fmtstr's own ID ([`FormatId::of`]).
    pub fn for_format(
        string: impl Into<Cow<'a, str>>,
        argument_count: u64,
        mask: Mask,
    ) -> Entry<'a> {
        let string = string.into();
        Entry::new(
            FormatId::of(string.as_bytes()),
            string,
            argument_count,
            mask,
        )
    }

    /// The same entry with these unknown keys (written after the known ones).
    pub fn with_extra(mut self, extra: Vec<(Value, Value)>) -> Entry<'a> {
        self.extra = extra;
        self.raw = None;
        self
    }

    /// The entry's 48-bit ID (`.index`), which the shader writes in each record's header.
    pub fn id(&self) -> FormatId {
        self.id
    }

    /// The format string (always UTF-8: msgpack strings are).
    pub fn string(&self) -> &str {
        &self.string
    }

    /// The format string's bytes.
    pub fn bytes(&self) -> &[u8] {
        self.string.as_bytes()
    }

    /// `.argument_count`: how many arguments each record of this format string carries.
    pub fn argument_count(&self) -> u64 {
        self.argument_count
    }

    /// `.64bit_arguments`: which arguments are 64 bits (two dwords) wide, the rest 32.
    pub fn mask(&self) -> &Mask {
        &self.mask
    }

    /// Keys fmtstr does not know, in file order.
    pub fn extra(&self) -> &[(Value, Value)] {
        &self.extra
    }

    /// The call sites that print this format, as `fmtstr lower --prefix site` lists them
    /// under [`SITES_KEY`] (none when the key is absent or not an array of strings).
    pub fn sites(&self) -> Vec<&str> {
        self.extra
            .iter()
            .find(|(key, _)| key.as_str() == Some(SITES_KEY))
            .and_then(|(_, value)| value.as_array())
            .map(|sites| sites.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default()
    }

    /// The `%s` arguments whose bytes travel in the entry, as `(argument index, bytes
    /// reserved)` pairs listed under [`INLINE_STRINGS_KEY`] (none when the key is absent or
    /// malformed).
    pub fn inline_strings(&self) -> Vec<(u64, u64)> {
        self.extra
            .iter()
            .find(|(key, _)| key.as_str() == Some(INLINE_STRINGS_KEY))
            .and_then(|(_, value)| value.as_array())
            .map(|pairs| {
                pairs
                    .iter()
                    .filter_map(|pair| match pair.as_array()?.as_slice() {
                        [index, bytes] => Some((index.as_u64()?, bytes.as_u64()?)),
                        _ => None,
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The exact bytes this entry had in its file, if it came from one.
    pub fn raw(&self) -> Option<&'a [u8]> {
        self.raw
    }

    /// Whether the two entries say the same thing (ID, string, argument count, mask bits and
    /// inline strings; other keys are not compared).
    pub fn same_as(&self, other: &Entry<'_>) -> bool {
        self.id == other.id
            && self.string == other.string
            && self.argument_count == other.argument_count
            && self.mask.same_bits(&other.mask)
            && self.inline_strings() == other.inline_strings()
    }

    /// An owned copy that no longer borrows from the file.
    pub fn into_owned(self) -> Entry<'static> {
        Entry {
            id: self.id,
            string: Cow::Owned(self.string.into_owned()),
            argument_count: self.argument_count,
            mask: self.mask,
            extra: self.extra,
            raw: None,
        }
    }

    /// The size of [`Entry::encode`]'s output.
    pub fn encoded_len(&self) -> usize {
        if let Some(raw) = self.raw {
            return raw.len();
        }
        let mut extra = Vec::new();
        for (key, value) in &self.extra {
            msgpack::write_value(&mut extra, key);
            msgpack::write_value(&mut extra, value);
        }
        msgpack::header_len(4 + self.extra.len() as u32)
            + msgpack::str_len(keys::INDEX.len())
            + msgpack::uint_len(self.id.get())
            + msgpack::str_len(keys::STRING.len())
            + msgpack::str_len(self.string.len())
            + msgpack::str_len(keys::ARGUMENT_COUNT.len())
            + msgpack::uint_len(self.argument_count)
            + msgpack::str_len(keys::MASK.len())
            + msgpack::header_len(self.mask.len() as u32)
            + self
                .mask
                .words()
                .iter()
                .map(|w| msgpack::uint_len(*w))
                .sum::<usize>()
            + extra.len()
    }

    /// Appends the entry's msgpack map: its original bytes when it came from a file, else
    /// `.index`, `.string`, `.argument_count`, `.64bit_arguments` and then the unknown keys.
    pub fn encode(&self, out: &mut Vec<u8>) {
        if let Some(raw) = self.raw {
            out.extend_from_slice(raw);
            return;
        }
        msgpack::write_map_len(out, 4 + self.extra.len() as u32);
        msgpack::write_str(out, keys::INDEX.as_bytes());
        msgpack::write_uint(out, self.id.get());
        msgpack::write_str(out, keys::STRING.as_bytes());
        msgpack::write_str(out, self.string.as_bytes());
        msgpack::write_str(out, keys::ARGUMENT_COUNT.as_bytes());
        msgpack::write_uint(out, self.argument_count);
        msgpack::write_str(out, keys::MASK.as_bytes());
        msgpack::write_array_len(out, self.mask.len() as u32);
        for word in self.mask.words() {
            msgpack::write_uint(out, *word);
        }
        for (key, value) in &self.extra {
            msgpack::write_value(out, key);
            msgpack::write_value(out, value);
        }
    }
}

/// An entry of `.strings` without `.string`: a shader-abort message (`.is_abort_message`),
/// documented beside printf entries in LLPC's DdnDebugPrintf.md. fmtstr does not render these;
/// it keeps them, byte for byte when they came from a file, and says what they are.
#[derive(Clone, Debug, PartialEq)]
pub struct AbortEntry<'a> {
    /// How many printf entries ([`Table::entries`]) precede it in `.strings`: where it is
    /// written back.
    pub position: usize,
    id: Option<FormatId>,
    /// Every key of the entry, in file order.
    pairs: Vec<(Value, Value)>,
    raw: Option<&'a [u8]>,
}

impl<'a> AbortEntry<'a> {
    /// An entry from its keys (`.index` read from them when it is a valid ID), written
    /// `position` printf entries into `.strings`.
    pub fn new(position: usize, pairs: Vec<(Value, Value)>) -> AbortEntry<'a> {
        let id = pairs
            .iter()
            .find(|(key, _)| key.as_str() == Some(keys::INDEX))
            .and_then(|(_, value)| value.as_u64())
            .and_then(FormatId::new);
        AbortEntry {
            position,
            id,
            pairs,
            raw: None,
        }
    }

    /// `.index`, when the entry has a valid one.
    pub fn id(&self) -> Option<FormatId> {
        self.id
    }

    /// Every key of the entry, in file order.
    pub fn pairs(&self) -> &[(Value, Value)] {
        &self.pairs
    }

    fn get(&self, key: &str) -> Option<&Value> {
        self.pairs
            .iter()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(_, value)| value)
    }

    fn words(&self, key: &str) -> Option<Vec<u64>> {
        self.get(key)?
            .as_array()?
            .iter()
            .map(Value::as_u64)
            .collect()
    }

    /// Whether `.is_abort_message` says so (a true boolean or a non-zero integer).
    pub fn is_abort_message(&self) -> bool {
        match self.get(keys::IS_ABORT_MESSAGE) {
            Some(Value::Boolean(flag)) => *flag,
            Some(value) => value.as_u64().is_some_and(|v| v != 0),
            None => false,
        }
    }

    /// `.data_count`: the message's 32-bit words.
    pub fn data_count(&self) -> Option<u64> {
        self.get(keys::DATA_COUNT)?.as_u64()
    }

    /// `.constant_status`: 64-bit words of a bit vector, bit i set when word i is constant.
    pub fn constant_status(&self) -> Option<Vec<u64>> {
        self.words(keys::CONSTANT_STATUS)
    }

    /// `.constants`: the constant words, in message order.
    pub fn constants(&self) -> Option<Vec<u64>> {
        self.words(keys::CONSTANTS)
    }

    /// The message words that come from the buffer rather than `.constants`: `.data_count`
    /// less the bits set in `.constant_status` (when both are there and agree).
    pub fn runtime_words(&self) -> Option<u64> {
        let count = self.data_count()?;
        let status = self.constant_status().unwrap_or_default();
        let constant: u64 = (0..count)
            .filter(|&i| {
                status
                    .get((i / 64) as usize)
                    .is_some_and(|w| w >> (i % 64) & 1 == 1)
            })
            .count() as u64;
        Some(count - constant)
    }

    /// The exact bytes this entry had in its file, if it came from one.
    pub fn raw(&self) -> Option<&'a [u8]> {
        self.raw
    }

    /// What the entry's own keys contradict, if anything (what can be checked without a
    /// format string): a valid `.index`, `.data_count`, and as many `.constants` as
    /// `.constant_status` marks among the `.data_count` words.
    pub fn inconsistency(&self) -> Option<String> {
        if self.id.is_none() {
            return Some(
                "has no valid .index (a 48-bit ID, not 0), so no buffer entry can refer to it"
                    .to_owned(),
            );
        }
        let Some(count) = self.data_count() else {
            return Some(
                "has no .data_count (an unsigned integer: the message's 32-bit words)".to_owned(),
            );
        };
        let status = self.constant_status().unwrap_or_default();
        let constants = self.constants().unwrap_or_default();
        let marked = (0..count.min(status.len() as u64 * 64))
            .filter(|&i| status[(i / 64) as usize] >> (i % 64) & 1 == 1)
            .count();
        if marked != constants.len() {
            return Some(format!(
                ".constant_status marks {marked} of its {count} words constant, but .constants \
                 holds {} values",
                constants.len()
            ));
        }
        None
    }

    /// An owned copy that no longer borrows from the file.
    pub fn into_owned(self) -> AbortEntry<'static> {
        AbortEntry {
            position: self.position,
            id: self.id,
            pairs: self.pairs,
            raw: None,
        }
    }

    /// Whether the two say the same (their keys and values, in order).
    pub fn same_as(&self, other: &AbortEntry<'_>) -> bool {
        self.pairs == other.pairs
    }

    /// The size of [`AbortEntry::encode`]'s output.
    pub fn encoded_len(&self) -> usize {
        match self.raw {
            Some(raw) => raw.len(),
            None => {
                let mut out = Vec::new();
                self.encode(&mut out);
                out.len()
            }
        }
    }

    /// Appends the entry's msgpack map: its original bytes when it came from a file.
    pub fn encode(&self, out: &mut Vec<u8>) {
        if let Some(raw) = self.raw {
            out.extend_from_slice(raw);
            return;
        }
        msgpack::write_map_len(out, self.pairs.len() as u32);
        for (key, value) in &self.pairs {
            msgpack::write_value(out, key);
            msgpack::write_value(out, value);
        }
    }
}

/// The `amdpal.format_strings` map: version 1, its entries, and unknown keys.
#[derive(Clone, Debug, Default)]
pub struct Table<'a> {
    /// The printf entries of `.strings`, in order.
    pub entries: Vec<Entry<'a>>,
    /// The entries of `.strings` without `.string` (shader-abort messages), in order; each
    /// says where among the printf entries it stands.
    pub aborts: Vec<AbortEntry<'a>>,
    /// `.user_data_offset`: the printf buffer's user-data offset in dwords (LLPC writes 0 when
    /// there is none); `None` when the table has no such key (LLPC before mid 2024).
    pub user_data_offset: Option<u64>,
    /// Keys of the map other than `.version`, `.strings` and `.user_data_offset`, in file order.
    pub extra: Vec<(Value, Value)>,
}

impl<'a> Table<'a> {
    /// A table with no entries, no `.user_data_offset` and no other keys.
    pub fn new() -> Table<'a> {
        Table::default()
    }

    /// The first entry with this ID.
    pub fn get(&self, id: FormatId) -> Option<&Entry<'a>> {
        self.entries.iter().find(|entry| entry.id == id)
    }

    /// An owned copy that no longer borrows from the file.
    pub fn into_owned(self) -> Table<'static> {
        Table {
            entries: self.entries.into_iter().map(Entry::into_owned).collect(),
            aborts: self
                .aborts
                .into_iter()
                .map(AbortEntry::into_owned)
                .collect(),
            user_data_offset: self.user_data_offset,
            extra: self.extra,
        }
    }

    /// The abort entry with this ID, if any.
    pub fn abort(&self, id: FormatId) -> Option<&AbortEntry<'a>> {
        self.aborts.iter().find(|entry| entry.id == Some(id))
    }

    /// `.strings` in file order: printf entries and abort entries where they stand.
    pub fn strings(&self) -> impl Iterator<Item = Item<'_, 'a>> {
        let mut aborts = self.aborts.iter().peekable();
        let mut entries = self.entries.iter();
        let mut written = 0;
        let total = self.entries.len();
        std::iter::from_fn(move || {
            if let Some(abort) = aborts.next_if(|a| a.position <= written || written == total) {
                return Some(Item::Abort(abort));
            }
            let entry = entries.next()?;
            written += 1;
            Some(Item::Printf(entry))
        })
    }

    /// The index in `.strings` of printf entry `entry` (an index into [`Table::entries`]): the
    /// abort entries written before it, as [`Table::strings`] orders them, counted in.
    pub fn strings_index(&self, entry: usize) -> usize {
        entry
            + self
                .aborts
                .iter()
                .take_while(|abort| abort.position <= entry)
                .count()
    }

    /// How many maps `.strings` holds.
    pub fn strings_len(&self) -> usize {
        self.entries.len() + self.aborts.len()
    }

    /// Decodes the value of `amdpal.format_strings` from exactly its msgpack bytes. Offsets in
    /// errors count from the start of `bytes`.
    pub fn decode(bytes: &'a [u8]) -> Result<Table<'a>, TableError> {
        let mut reader = Reader::new(bytes);
        let table = decode_table(&mut reader, 1)?;
        if !reader.is_at_end() {
            return Err(TableError {
                offset: reader.position(),
                path: KEY.to_owned(),
                problem: Problem::TrailingBytes(reader.rest().len()),
            });
        }
        Ok(table)
    }

    /// Decodes the table that starts at the reader's position (which sits `depth` deep in its
    /// document), leaving the reader after it.
    pub fn decode_from(reader: &mut Reader<'a>, depth: usize) -> Result<Table<'a>, TableError> {
        decode_table(reader, depth)
    }

    /// The size of [`Table::encode`]'s output.
    pub fn encoded_len(&self) -> usize {
        let mut extra = Vec::new();
        self.encode_extra(&mut extra);
        let offset = self.user_data_offset.map_or(0, |offset| {
            msgpack::str_len(keys::USER_DATA_OFFSET.len()) + msgpack::uint_len(offset)
        });
        msgpack::header_len(self.map_len())
            + msgpack::str_len(keys::VERSION.len())
            + msgpack::uint_len(VERSION)
            + msgpack::str_len(keys::STRINGS.len())
            + msgpack::header_len(self.strings_len() as u32)
            + self.entries.iter().map(Entry::encoded_len).sum::<usize>()
            + self
                .aborts
                .iter()
                .map(AbortEntry::encoded_len)
                .sum::<usize>()
            + offset
            + extra.len()
    }

    fn map_len(&self) -> u32 {
        2 + u32::from(self.user_data_offset.is_some()) + self.extra.len() as u32
    }

    /// Appends the table's msgpack map: `.version`, `.strings` (abort entries where they
    /// stood), `.user_data_offset` when set, then the unknown keys.
    pub fn encode(&self, out: &mut Vec<u8>) {
        msgpack::write_map_len(out, self.map_len());
        msgpack::write_str(out, keys::VERSION.as_bytes());
        msgpack::write_uint(out, VERSION);
        msgpack::write_str(out, keys::STRINGS.as_bytes());
        msgpack::write_array_len(out, self.strings_len() as u32);
        for item in self.strings() {
            match item {
                Item::Printf(entry) => entry.encode(out),
                Item::Abort(entry) => entry.encode(out),
            }
        }
        if let Some(offset) = self.user_data_offset {
            msgpack::write_str(out, keys::USER_DATA_OFFSET.as_bytes());
            msgpack::write_uint(out, offset);
        }
        self.encode_extra(out);
    }

    /// The table's msgpack bytes.
    pub fn to_msgpack(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.encoded_len());
        self.encode(&mut out);
        out
    }

    fn encode_extra(&self, out: &mut Vec<u8>) {
        for (key, value) in &self.extra {
            msgpack::write_value(out, key);
            msgpack::write_value(out, value);
        }
    }
}

/// One map of `.strings`.
#[derive(Clone, Copy, Debug)]
pub enum Item<'t, 'a> {
    /// A map with a `.string`: a printf format string.
    Printf(&'t Entry<'a>),
    /// A shader-abort message map (no `.string`).
    Abort(&'t AbortEntry<'a>),
}

/// What is wrong with a format-string table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// The msgpack itself is broken.
    Decode(DecodeErrorKind),
    /// A value of the wrong msgpack type for its key (`.strings` not an array, `.index` not an
    /// integer, ...).
    WrongType {
        /// The type the key needs, for messages: "a map", "an unsigned integer", ...
        expected: &'static str,
        /// The type found ([`Token::kind`]).
        found: &'static str,
    },
    /// A key every table or entry must have is absent; carries its name.
    MissingKey(&'static str),
    /// A known key appears twice in one map; carries its name.
    DuplicateKey(String),
    /// `.version` is not [`VERSION`]; carries the version found.
    UnsupportedVersion(u64),
    /// `.index` is 0 or does not fit in 48 bits.
    IdOutOfRange(u64),
    /// `.string` is not valid UTF-8.
    NotUtf8 {
        /// How many bytes of the string are valid UTF-8 before the first bad one.
        valid_up_to: usize,
    },
    /// Bytes after the table's map (only when decoding exact bytes).
    TrailingBytes(usize),
    /// More entries, words or keys than a msgpack array or map can hold.
    TooLarge(usize),
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Decode(kind) => write!(f, "{kind}"),
            Problem::WrongType { expected, found } => write!(
                f,
                "is {found}; it must be {expected} (see schemas/format-strings.schema.json)"
            ),
            Problem::MissingKey(key) => write!(
                f,
                "has no `{key}` key; every table has `.version` and `.strings`, and every entry \
                 has `.index`, `.string`, `.argument_count` and `.64bit_arguments` (or, for a \
                 shader-abort message, `.is_abort_message`)"
            ),
            Problem::DuplicateKey(key) => write!(
                f,
                "has the key `{key}` twice; readers would disagree on which one counts, so \
                 remove one"
            ),
            Problem::UnsupportedVersion(version) => write!(
                f,
                "is version {version}, but fmtstr reads version {VERSION} of \
                 amdpal.format_strings (a newer producer wrote it; update fmtstr)"
            ),
            Problem::IdOutOfRange(id) => write!(
                f,
                "is {id:#x}, which is not a format-string ID (IDs are 48 bits and never 0, \
                 because the printf buffer's entry header holds 48 bits and 0 marks free space)"
            ),
            Problem::NotUtf8 { valid_up_to } => write!(
                f,
                "is not UTF-8 (the bytes go wrong at byte {valid_up_to}); msgpack strings must \
                 be UTF-8, so the producer wrote a corrupt string"
            ),
            Problem::TrailingBytes(count) => {
                write!(f, "is followed by {count} bytes that belong to no value")
            }
            Problem::TooLarge(count) => write!(
                f,
                "has {count} elements, more than a msgpack array or map can hold (2^32 - 1)"
            ),
        }
    }
}

/// A problem in a format-string table: where (byte offset and key path) and what.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{path} {problem}")]
pub struct TableError {
    /// Byte offset of the offending value, counted like the decoder's input.
    pub offset: usize,
    /// Where in the document: `amdpal.format_strings.strings[3].index`.
    pub path: String,
    /// What is wrong with the value there.
    pub problem: Problem,
}

fn fail<T>(offset: usize, path: impl Into<String>, problem: Problem) -> Result<T, TableError> {
    Err(TableError {
        offset,
        path: path.into(),
        problem,
    })
}

#[inline]
fn token<'a>(
    reader: &mut Reader<'a>,
    path: &dyn Fn() -> String,
) -> Result<(usize, Token<'a>), TableError> {
    let offset = reader.position();
    match reader.next_token() {
        Ok(token) => Ok((offset, token)),
        Err(error) => fail(error.offset, path(), Problem::Decode(error.kind)),
    }
}

fn read_value(
    reader: &mut Reader<'_>,
    depth: usize,
    path: &dyn Fn() -> String,
) -> Result<Value, TableError> {
    reader
        .read_value(depth)
        .or_else(|error| fail(error.offset, path(), Problem::Decode(error.kind)))
}

/// Reads a map key: the str bytes when it is a string, else the whole key as a value.
enum Key<'a> {
    Str(&'a [u8]),
    Other(Value),
}

fn read_key<'a>(
    reader: &mut Reader<'a>,
    depth: usize,
    path: &dyn Fn() -> String,
) -> Result<Key<'a>, TableError> {
    if let Some(bytes) = reader.next_fixstr() {
        return Ok(Key::Str(bytes));
    }
    let start = reader.position();
    let (_, key) = token(reader, path)?;
    if let Token::Str(bytes) = key {
        return Ok(Key::Str(bytes));
    }
    reader.seek(start);
    let value = read_value(reader, depth, path)?;
    Ok(Key::Other(value))
}

fn decode_table<'a>(reader: &mut Reader<'a>, depth: usize) -> Result<Table<'a>, TableError> {
    let here = || KEY.to_owned();
    let (offset, header) = token(reader, &here)?;
    let Token::Map(pairs) = header else {
        return fail(
            offset,
            KEY,
            Problem::WrongType {
                expected: "a map",
                found: header.kind(),
            },
        );
    };
    let mut version = None;
    let mut entries = None;
    let mut user_data_offset = None;
    let mut extra: Vec<(Value, Value)> = Vec::new();
    for _ in 0..pairs {
        let key_offset = reader.position();
        match read_key(reader, depth + 1, &here)? {
            Key::Str(name) if name == keys::VERSION.as_bytes() => {
                let path = || format!("{KEY}{}", keys::VERSION);
                if version.is_some() {
                    return fail(key_offset, KEY, Problem::DuplicateKey(keys::VERSION.into()));
                }
                let (offset, value) = token(reader, &path)?;
                match value.as_u64() {
                    Some(VERSION) => version = Some(VERSION),
                    Some(other) => return fail(offset, path(), Problem::UnsupportedVersion(other)),
                    None => {
                        return fail(
                            offset,
                            path(),
                            Problem::WrongType {
                                expected: "the unsigned integer 1",
                                found: value.kind(),
                            },
                        )
                    }
                }
            }
            Key::Str(name) if name == keys::STRINGS.as_bytes() => {
                if entries.is_some() {
                    return fail(key_offset, KEY, Problem::DuplicateKey(keys::STRINGS.into()));
                }
                entries = Some(decode_entries(reader, depth + 1)?);
            }
            Key::Str(name) if name == keys::USER_DATA_OFFSET.as_bytes() => {
                let path = || format!("{KEY}{}", keys::USER_DATA_OFFSET);
                if user_data_offset.is_some() {
                    return fail(
                        key_offset,
                        KEY,
                        Problem::DuplicateKey(keys::USER_DATA_OFFSET.into()),
                    );
                }
                let (offset, value) = token(reader, &path)?;
                match value.as_u64() {
                    Some(dwords) => user_data_offset = Some(dwords),
                    None => {
                        return fail(
                            offset,
                            path(),
                            Problem::WrongType {
                                expected: "an unsigned integer (dwords)",
                                found: value.kind(),
                            },
                        )
                    }
                }
            }
            key => {
                let key = match key {
                    Key::Str(bytes) => msgpack::string_value(bytes),
                    Key::Other(value) => value,
                };
                if extra.iter().any(|(seen, _)| *seen == key) {
                    return fail(key_offset, KEY, Problem::DuplicateKey(key.to_string()));
                }
                let value = read_value(reader, depth + 1, &here)?;
                extra.push((key, value));
            }
        }
    }
    if version.is_none() {
        return fail(offset, KEY, Problem::MissingKey(keys::VERSION));
    }
    let Some((entries, aborts)) = entries else {
        return fail(offset, KEY, Problem::MissingKey(keys::STRINGS));
    };
    Ok(Table {
        entries,
        aborts,
        user_data_offset,
        extra,
    })
}

/// A decoded map of `.strings`.
enum Decoded<'a> {
    Printf(Entry<'a>),
    Abort(AbortEntry<'a>),
}

type Strings<'a> = (Vec<Entry<'a>>, Vec<AbortEntry<'a>>);

fn decode_entries<'a>(reader: &mut Reader<'a>, depth: usize) -> Result<Strings<'a>, TableError> {
    let here = || format!("{KEY}{}", keys::STRINGS);
    let (offset, header) = token(reader, &here)?;
    let Token::Array(count) = header else {
        return fail(
            offset,
            here(),
            Problem::WrongType {
                expected: "an array of maps",
                found: header.kind(),
            },
        );
    };
    // Each entry takes at least 40 bytes (its four keys alone), so this cannot over-reserve.
    let mut entries = Vec::with_capacity((count as usize).min(reader.rest().len() / 40 + 1));
    let mut aborts = Vec::new();
    for index in 0..count as usize {
        if let Some(entry) = plain_entry(reader) {
            entries.push(entry);
            continue;
        }
        match decode_entry(reader, depth + 1, index)? {
            Decoded::Printf(entry) => entries.push(entry),
            Decoded::Abort(mut entry) => {
                entry.position = entries.len();
                aborts.push(entry);
            }
        }
    }
    Ok((entries, aborts))
}

/// The keys of an entry, in the order fmtstr writes them.
const ENTRY_KEYS: [&str; 4] = [keys::INDEX, keys::STRING, keys::ARGUMENT_COUNT, keys::MASK];

/// A printf entry of the plain shape nearly every table has, read without the bookkeeping
/// that errors need: a fixmap of the four known keys (fixstrs, each once, in any order) whose
/// values are what they must be, and a mask of at most one word. The same entry
/// [`decode_entry`] would make; `None`, reading nothing, for anything else, which
/// [`decode_entry`] then reads (and names what is wrong with).
#[inline]
fn plain_entry<'a>(reader: &mut Reader<'a>) -> Option<Entry<'a>> {
    let mut ahead = reader.clone();
    let start = ahead.position();
    let Ok(Token::Map(4)) = ahead.next_token() else {
        return None;
    };
    let (mut id, mut string, mut argument_count, mut mask) = (None, None, None, None);
    for _ in 0..4 {
        let slot = entry_key(ahead.next_fixstr()?)?;
        let value = ahead.next_token().ok()?;
        match (slot, value) {
            (0, _) if id.is_none() => id = Some(FormatId::new(value.as_u64()?)?),
            (1, Token::Str(bytes)) if string.is_none() => {
                string = Some(std::str::from_utf8(bytes).ok()?);
            }
            (2, _) if argument_count.is_none() => argument_count = Some(value.as_u64()?),
            (3, Token::Array(0)) if mask.is_none() => mask = Some(Mask::default()),
            (3, Token::Array(1)) if mask.is_none() => {
                let word = ahead.next_token().ok()?.as_u64()?;
                mask = Some(Mask::from_words(&[word]));
            }
            _ => return None,
        }
    }
    let entry = Entry {
        id: id?,
        string: Cow::Borrowed(string?),
        argument_count: argument_count?,
        mask: mask?,
        extra: Vec::new(),
        raw: Some(&ahead.bytes()[start..ahead.position()]),
    };
    *reader = ahead;
    Some(entry)
}

/// Which of [`ENTRY_KEYS`] `name` is. Their lengths differ, so one comparison of a known
/// length (inline, not a call to memcmp) decides.
#[inline(always)]
fn entry_key(name: &[u8]) -> Option<usize> {
    let is = |known: &str| name == known.as_bytes();
    match name.len() {
        6 if is(keys::INDEX) => Some(0),
        7 if is(keys::STRING) => Some(1),
        15 if is(keys::ARGUMENT_COUNT) => Some(2),
        16 if is(keys::MASK) => Some(3),
        _ => None,
    }
}

/// Decodes one map of `.strings`.
///
/// Why entries are decoded by hand and not by `#[derive(Deserialize)]` through rmp-serde: it
/// was tried with rmp-serde 1.3.1, an entry struct of the four known keys and
/// `#[serde(flatten)]` of the rest into a visitor that keeps them in a `Vec<(Value, Value)>`,
/// on an entry with unknown keys of every kind (an array, an integer key, a str that is not
/// UTF-8, an ext, a bin; `unknown_entry_keys_keep_order_and_type` pins what this decoder keeps
/// of them) and on a 1,000,000-entry table (87.6 MiB):
/// - the unknown keys kept their order, but not their types: rmp-serde hands a str whose bytes
///   are not UTF-8 to the visitor as bytes, so `.latin1: "caf\xe9"` (a4 63 61 66 e9) came back
///   a msgpack bin; this decoder keeps it a str;
/// - a derived struct has no byte span, so the entry's exact bytes (`Entry::raw`, which writing
///   copies back) would take a second pass over the same bytes;
/// - a shader-abort entry has no `.string`: the struct refused it ("missing field `.string`"),
///   where this decoder keeps it in place (an untagged enum would buffer every entry again);
/// - its errors say neither where nor which key: a `.index` written as the string "5" gave
///   "wrong msgpack marker FixStr(1)", here "at byte 29: amdpal.format_strings.strings[0].index
///   is a string; it must be an unsigned integer";
/// - it was slower: in 4 runs (best of 5 each, on a loaded machine: this decoder took 139 to
///   367 ms) the flattened struct took 1.17x to 1.22x this decoder's time, and a struct that
///   drops unknown keys altogether 1.03x to 1.12x.
///
/// The readers of the known keys' values and [`EntryFields::finish`] are `#[inline(always)]`:
/// left to the compiler, a table of a million entries decoded about 5% slower than with them
/// written out in this loop.
fn decode_entry<'a>(
    reader: &mut Reader<'a>,
    depth: usize,
    index: usize,
) -> Result<Decoded<'a>, TableError> {
    let start = reader.position();
    let here = || format!("{KEY}{}[{index}]", keys::STRINGS);
    let (offset, header) = token(reader, &here)?;
    let Token::Map(pairs) = header else {
        return fail(
            offset,
            here(),
            Problem::WrongType {
                expected: "a map",
                found: header.kind(),
            },
        );
    };
    let mut id = None;
    let mut string = None;
    let mut argument_count = None;
    let mut mask = None;
    let mut extra: Vec<(Value, Value)> = Vec::new();
    for _ in 0..pairs {
        let key_offset = reader.position();
        let key = read_key(reader, depth + 1, &here)?;
        // Which known key (0 .index, 1 .string, 2 .argument_count, 3 .64bit_arguments).
        let known = match &key {
            Key::Str(name) => entry_key(name),
            Key::Other(_) => None,
        };
        let Some(slot) = known else {
            read_extra(reader, depth + 1, key, key_offset, &mut extra, &here)?;
            continue;
        };
        let name = ENTRY_KEYS[slot];
        let path = || format!("{}{name}", here());
        let duplicate = match slot {
            0 => id.is_some(),
            1 => string.is_some(),
            2 => argument_count.is_some(),
            _ => mask.is_some(),
        };
        if duplicate {
            return fail(key_offset, here(), Problem::DuplicateKey(name.into()));
        }
        let (offset, value) = token(reader, &path)?;
        match slot {
            0 => id = Some(entry_id(offset, value, &path)?),
            1 => string = Some(entry_string(offset, value, &path)?),
            2 => argument_count = Some(unsigned(offset, value, &path)?),
            _ => mask = Some(entry_mask(reader, offset, value, &path)?),
        }
    }
    let fields = EntryFields {
        id,
        string,
        argument_count,
        mask,
        extra,
    };
    fields.finish(reader, start, offset, depth, &here)
}

/// A key of a map that is not one fmtstr knows, and its value, kept in `extra` in the order
/// written; a key written twice is an error.
fn read_extra(
    reader: &mut Reader<'_>,
    depth: usize,
    key: Key<'_>,
    key_offset: usize,
    extra: &mut Vec<(Value, Value)>,
    here: &dyn Fn() -> String,
) -> Result<(), TableError> {
    let key = match key {
        Key::Str(bytes) => msgpack::string_value(bytes),
        Key::Other(value) => value,
    };
    if extra.iter().any(|(seen, _)| *seen == key) {
        return fail(key_offset, here(), Problem::DuplicateKey(key.to_string()));
    }
    let value = read_value(reader, depth, here)?;
    extra.push((key, value));
    Ok(())
}

/// The keys of one map of `.strings`: the four known ones, and the others in the order
/// written.
struct EntryFields<'a> {
    id: Option<FormatId>,
    string: Option<&'a str>,
    argument_count: Option<u64>,
    mask: Option<Mask>,
    extra: Vec<(Value, Value)>,
}

impl<'a> EntryFields<'a> {
    /// The entry these keys make. Without `.string` but marked `.is_abort_message`, it is a
    /// shader-abort message, kept whole (its bytes from `start`, its keys read again in order);
    /// else each of the four known keys must be there, or the error names the first missing,
    /// at `offset`, the map's.
    #[inline(always)]
    fn finish(
        self,
        reader: &mut Reader<'a>,
        start: usize,
        offset: usize,
        depth: usize,
        here: &dyn Fn() -> String,
    ) -> Result<Decoded<'a>, TableError> {
        let missing = |key| fail(offset, here(), Problem::MissingKey(key));
        let is_abort = self
            .extra
            .iter()
            .any(|(key, _)| key.as_str() == Some(keys::IS_ABORT_MESSAGE));
        if self.string.is_none() && is_abort {
            let end = reader.position();
            reader.seek(start);
            let Value::Map(pairs) = read_value(reader, depth, here)? else {
                return missing(keys::STRING);
            };
            reader.seek(end);
            let mut entry = AbortEntry::new(0, pairs);
            entry.raw = Some(&reader.bytes()[start..end]);
            return Ok(Decoded::Abort(entry));
        }
        let Some(id) = self.id else {
            return missing(keys::INDEX);
        };
        let Some(string) = self.string else {
            return missing(keys::STRING);
        };
        let Some(argument_count) = self.argument_count else {
            return missing(keys::ARGUMENT_COUNT);
        };
        let Some(mask) = self.mask else {
            return missing(keys::MASK);
        };
        Ok(Decoded::Printf(Entry {
            id,
            string: Cow::Borrowed(string),
            argument_count,
            mask,
            extra: self.extra,
            raw: Some(&reader.bytes()[start..reader.position()]),
        }))
    }
}

/// An unsigned integer value at `offset` (the path of its key is `path`).
#[inline(always)]
fn unsigned(offset: usize, value: Token<'_>, path: &dyn Fn() -> String) -> Result<u64, TableError> {
    match value.as_u64() {
        Some(n) => Ok(n),
        None => fail(
            offset,
            path(),
            Problem::WrongType {
                expected: "an unsigned integer",
                found: value.kind(),
            },
        ),
    }
}

/// `.index`: an unsigned integer that is a 48-bit ID.
#[inline(always)]
fn entry_id(
    offset: usize,
    value: Token<'_>,
    path: &dyn Fn() -> String,
) -> Result<FormatId, TableError> {
    let raw = unsigned(offset, value, path)?;
    match FormatId::new(raw) {
        Some(valid) => Ok(valid),
        None => fail(offset, path(), Problem::IdOutOfRange(raw)),
    }
}

/// `.string`: a msgpack str whose bytes are UTF-8, borrowed from the document.
#[inline(always)]
fn entry_string<'a>(
    offset: usize,
    value: Token<'a>,
    path: &dyn Fn() -> String,
) -> Result<&'a str, TableError> {
    let Token::Str(bytes) = value else {
        return fail(
            offset,
            path(),
            Problem::WrongType {
                expected: "a string",
                found: value.kind(),
            },
        );
    };
    std::str::from_utf8(bytes).or_else(|error| {
        fail(
            offset,
            path(),
            Problem::NotUtf8 {
                valid_up_to: error.valid_up_to(),
            },
        )
    })
}

/// `.64bit_arguments`: an array of unsigned integers (the mask's words, lowest first), whose
/// header `value` was read at `offset`; its words are read from `reader`.
#[inline(always)]
fn entry_mask(
    reader: &mut Reader<'_>,
    offset: usize,
    value: Token<'_>,
    path: &dyn Fn() -> String,
) -> Result<Mask, TableError> {
    let Token::Array(len) = value else {
        return fail(
            offset,
            path(),
            Problem::WrongType {
                expected: "an array of unsigned integers",
                found: value.kind(),
            },
        );
    };
    let mut word = |word_index: u32| {
        let word_path = || format!("{}[{word_index}]", path());
        let (offset, word) = token(reader, &word_path)?;
        unsigned(offset, word, &word_path)
    };
    // Most masks have one word, which the mask keeps inline: read it without a vector.
    if len == 1 {
        return Ok(Mask::from_words(&[word(0)?]));
    }
    let mut words = Vec::with_capacity((len as usize).min(64));
    for word_index in 0..len {
        words.push(word(word_index)?);
    }
    Ok(Mask::from_words(&words))
}

#[cfg(test)]
mod tests;
