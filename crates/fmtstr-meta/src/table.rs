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
    pub const VERSION: &str = ".version";
    pub const STRINGS: &str = ".strings";
    pub const INDEX: &str = ".index";
    pub const STRING: &str = ".string";
    pub const ARGUMENT_COUNT: &str = ".argument_count";
    pub const MASK: &str = ".64bit_arguments";
}

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

    pub fn argument_count(&self) -> u64 {
        self.argument_count
    }

    pub fn mask(&self) -> &Mask {
        &self.mask
    }

    /// Keys fmtstr does not know, in file order.
    pub fn extra(&self) -> &[(Value, Value)] {
        &self.extra
    }

    /// The exact bytes this entry had in its file, if it came from one.
    pub fn raw(&self) -> Option<&'a [u8]> {
        self.raw
    }

    /// Whether the two entries say the same thing (ID, string, argument count and mask bits;
    /// unknown keys are not compared).
    pub fn same_as(&self, other: &Entry<'_>) -> bool {
        self.id == other.id
            && self.string == other.string
            && self.argument_count == other.argument_count
            && self.mask.same_bits(&other.mask)
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

/// The `amdpal.format_strings` map: version 1, its entries, and unknown keys.
#[derive(Clone, Debug, Default)]
pub struct Table<'a> {
    pub entries: Vec<Entry<'a>>,
    /// Keys of the map other than `.version` and `.strings`, in file order.
    pub extra: Vec<(Value, Value)>,
}

impl<'a> Table<'a> {
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
            extra: self.extra,
        }
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
        msgpack::header_len(2 + self.extra.len() as u32)
            + msgpack::str_len(keys::VERSION.len())
            + msgpack::uint_len(VERSION)
            + msgpack::str_len(keys::STRINGS.len())
            + msgpack::header_len(self.entries.len() as u32)
            + self.entries.iter().map(Entry::encoded_len).sum::<usize>()
            + extra.len()
    }

    /// Appends the table's msgpack map: `.version`, `.strings`, then the unknown keys.
    pub fn encode(&self, out: &mut Vec<u8>) {
        msgpack::write_map_len(out, 2 + self.extra.len() as u32);
        msgpack::write_str(out, keys::VERSION.as_bytes());
        msgpack::write_uint(out, VERSION);
        msgpack::write_str(out, keys::STRINGS.as_bytes());
        msgpack::write_array_len(out, self.entries.len() as u32);
        for entry in &self.entries {
            entry.encode(out);
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

/// What is wrong with a format-string table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// The msgpack itself is broken.
    Decode(DecodeErrorKind),
    WrongType {
        expected: &'static str,
        found: &'static str,
    },
    MissingKey(&'static str),
    DuplicateKey(String),
    UnsupportedVersion(u64),
    /// `.index` is 0 or does not fit in 48 bits.
    IdOutOfRange(u64),
    NotUtf8 {
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
                "is {found}; it must be {expected} (see DESIGN.md, amdpal.format_strings)"
            ),
            Problem::MissingKey(key) => write!(
                f,
                "has no `{key}` key; every table has `.version` and `.strings`, and every entry \
                 has `.index`, `.string`, `.argument_count` and `.64bit_arguments`"
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
    pub problem: Problem,
}

fn fail<T>(offset: usize, path: impl Into<String>, problem: Problem) -> Result<T, TableError> {
    Err(TableError {
        offset,
        path: path.into(),
        problem,
    })
}

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
    let Some(entries) = entries else {
        return fail(offset, KEY, Problem::MissingKey(keys::STRINGS));
    };
    Ok(Table { entries, extra })
}

fn decode_entries<'a>(reader: &mut Reader<'a>, depth: usize) -> Result<Vec<Entry<'a>>, TableError> {
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
    for index in 0..count as usize {
        entries.push(decode_entry(reader, depth + 1, index)?);
    }
    Ok(entries)
}

/// The keys of an entry, in the order fmtstr writes them.
const ENTRY_KEYS: [&str; 4] = [keys::INDEX, keys::STRING, keys::ARGUMENT_COUNT, keys::MASK];

fn decode_entry<'a>(
    reader: &mut Reader<'a>,
    depth: usize,
    index: usize,
) -> Result<Entry<'a>, TableError> {
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
            Key::Str(name) => ENTRY_KEYS
                .iter()
                .position(|known| known.as_bytes() == *name),
            Key::Other(_) => None,
        };
        let Some(slot) = known else {
            let key = match key {
                Key::Str(bytes) => msgpack::string_value(bytes),
                Key::Other(value) => value,
            };
            if extra.iter().any(|(seen, _)| *seen == key) {
                return fail(key_offset, here(), Problem::DuplicateKey(key.to_string()));
            }
            let value = read_value(reader, depth + 1, &here)?;
            extra.push((key, value));
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
            0 => {
                let Some(raw) = value.as_u64() else {
                    return fail(
                        offset,
                        path(),
                        Problem::WrongType {
                            expected: "an unsigned integer",
                            found: value.kind(),
                        },
                    );
                };
                let Some(valid) = FormatId::new(raw) else {
                    return fail(offset, path(), Problem::IdOutOfRange(raw));
                };
                id = Some(valid);
            }
            1 => {
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
                match std::str::from_utf8(bytes) {
                    Ok(text) => string = Some(text),
                    Err(error) => {
                        return fail(
                            offset,
                            path(),
                            Problem::NotUtf8 {
                                valid_up_to: error.valid_up_to(),
                            },
                        )
                    }
                }
            }
            2 => {
                let Some(count) = value.as_u64() else {
                    return fail(
                        offset,
                        path(),
                        Problem::WrongType {
                            expected: "an unsigned integer",
                            found: value.kind(),
                        },
                    );
                };
                argument_count = Some(count);
            }
            _ => {
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
                let mut words = Vec::with_capacity((len as usize).min(64));
                for word_index in 0..len {
                    let word_path = || format!("{}[{word_index}]", path());
                    let (offset, word) = token(reader, &word_path)?;
                    let Some(word) = word.as_u64() else {
                        return fail(
                            offset,
                            word_path(),
                            Problem::WrongType {
                                expected: "an unsigned integer",
                                found: word.kind(),
                            },
                        );
                    };
                    words.push(word);
                }
                mask = Some(Mask::from_words(&words));
            }
        }
    }
    let missing = |key| fail(offset, here(), Problem::MissingKey(key));
    let Some(id) = id else {
        return missing(keys::INDEX);
    };
    let Some(string) = string else {
        return missing(keys::STRING);
    };
    let Some(argument_count) = argument_count else {
        return missing(keys::ARGUMENT_COUNT);
    };
    let Some(mask) = mask else {
        return missing(keys::MASK);
    };
    Ok(Entry {
        id,
        string: Cow::Borrowed(string),
        argument_count,
        mask,
        extra,
        raw: Some(&reader.bytes()[start..reader.position()]),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An entry map written key by key, in the order given.
    fn entry_bytes(pairs: &[(&str, Value)]) -> Vec<u8> {
        let mut out = Vec::new();
        msgpack::write_map_len(&mut out, pairs.len() as u32);
        for (key, value) in pairs {
            msgpack::write_str(&mut out, key.as_bytes());
            msgpack::write_value(&mut out, value);
        }
        out
    }

    fn table_bytes(entries: &[Vec<u8>], version: Value) -> Vec<u8> {
        // LLVM sorts keys: .strings comes before .version.
        let mut out = Vec::new();
        msgpack::write_map_len(&mut out, 2);
        msgpack::write_str(&mut out, b".strings");
        msgpack::write_array_len(&mut out, entries.len() as u32);
        for entry in entries {
            out.extend_from_slice(entry);
        }
        msgpack::write_str(&mut out, b".version");
        msgpack::write_value(&mut out, &version);
        out
    }

    fn llvm_entry(id: u64, string: &str, argc: u64, mask: &[u64]) -> Vec<u8> {
        entry_bytes(&[
            (
                ".64bit_arguments",
                Value::Array(mask.iter().map(|w| Value::from(*w)).collect()),
            ),
            (".argument_count", Value::from(argc)),
            (".index", Value::from(id)),
            (".string", Value::from(string)),
        ])
    }

    #[test]
    fn decodes_llvm_key_order_and_keeps_entry_bytes() {
        let first = llvm_entry(12345678, "Sample %i format %f", 2, &[0]);
        let second = entry_bytes(&[
            (".index", Value::from(31415926u64)),
            (".user_data_offset", Value::from(7u64)),
            (".string", Value::from("Another: %ld")),
            (".argument_count", Value::from(1u64)),
            (".64bit_arguments", Value::Array(vec![Value::from(1u64)])),
        ]);
        let bytes = table_bytes(&[first.clone(), second.clone()], Value::from(1u64));
        let table = Table::decode(&bytes).expect("decodes");
        assert_eq!(table.entries.len(), 2);
        let entry = &table.entries[0];
        assert_eq!(entry.id().get(), 12345678);
        assert_eq!(entry.string(), "Sample %i format %f");
        assert_eq!(entry.argument_count(), 2);
        assert_eq!(entry.mask().words(), &[0]);
        assert_eq!(entry.raw(), Some(first.as_slice()));
        assert_eq!(
            table.entries[1].extra(),
            &[(Value::from(".user_data_offset"), Value::from(7u64))]
        );
        // Re-encoding copies each entry's bytes and writes .version first.
        let again = table.to_msgpack();
        assert_eq!(again.len(), table.encoded_len());
        let back = Table::decode(&again).expect("decodes its own output");
        assert_eq!(back.entries[1].raw(), Some(second.as_slice()));
        // Owned entries are written canonically, and read back the same.
        let owned = table.clone().into_owned();
        let canonical = owned.to_msgpack();
        assert_eq!(canonical.len(), owned.encoded_len());
        let reread = Table::decode(&canonical).expect("canonical");
        for (a, b) in reread.entries.iter().zip(&table.entries) {
            assert!(a.same_as(b));
            assert_eq!(a.extra(), b.extra());
        }
    }

    fn problem(bytes: &[u8]) -> TableError {
        Table::decode(bytes).expect_err("rejected")
    }

    #[test]
    fn rejects_what_the_issue_lists_with_paths() {
        let index_as_string = entry_bytes(&[
            (".index", Value::from("12")),
            (".string", Value::from("a")),
            (".argument_count", Value::from(0u64)),
            (".64bit_arguments", Value::Array(vec![])),
        ]);
        let error = problem(&table_bytes(&[index_as_string], Value::from(1u64)));
        assert_eq!(error.path, "amdpal.format_strings.strings[0].index");
        assert!(matches!(
            error.problem,
            Problem::WrongType {
                found: "a string",
                ..
            }
        ));
        assert!(
            error.to_string().contains("must be an unsigned integer"),
            "{error}"
        );

        let error = problem(&table_bytes(&[], Value::from(2u64)));
        assert_eq!(error.problem, Problem::UnsupportedVersion(2));
        assert_eq!(error.path, "amdpal.format_strings.version");

        let duplicate =
            entry_bytes(&[(".index", Value::from(1u64)), (".index", Value::from(2u64))]);
        let error = problem(&table_bytes(&[duplicate], Value::from(1u64)));
        assert_eq!(error.problem, Problem::DuplicateKey(".index".into()));

        let mut not_utf8 = Vec::new();
        msgpack::write_map_len(&mut not_utf8, 1);
        msgpack::write_str(&mut not_utf8, b".string");
        msgpack::write_str(&mut not_utf8, b"ok\xff");
        let error = problem(&table_bytes(&[not_utf8], Value::from(1u64)));
        assert_eq!(error.problem, Problem::NotUtf8 { valid_up_to: 2 });

        let zero = llvm_entry(0, "a", 0, &[]);
        assert_eq!(
            problem(&table_bytes(&[zero], Value::from(1u64))).problem,
            Problem::IdOutOfRange(0)
        );
        let wide = llvm_entry(1 << 48, "a", 0, &[]);
        assert_eq!(
            problem(&table_bytes(&[wide], Value::from(1u64))).problem,
            Problem::IdOutOfRange(1 << 48)
        );

        let missing = entry_bytes(&[(".index", Value::from(1u64))]);
        let error = problem(&table_bytes(&[missing], Value::from(1u64)));
        assert_eq!(error.problem, Problem::MissingKey(".string"));

        let mut no_version = Vec::new();
        msgpack::write_map_len(&mut no_version, 1);
        msgpack::write_str(&mut no_version, b".strings");
        msgpack::write_array_len(&mut no_version, 0);
        assert_eq!(
            problem(&no_version).problem,
            Problem::MissingKey(".version")
        );

        assert!(matches!(
            problem(&[0x91, 0x01]).problem,
            Problem::WrongType {
                expected: "a map",
                ..
            }
        ));
        let truncated = table_bytes(&[llvm_entry(5, "abc", 0, &[])], Value::from(1u64));
        for cut in 0..truncated.len() {
            assert!(Table::decode(&truncated[..cut]).is_err(), "cut at {cut}");
        }
    }

    #[test]
    fn huge_claims_inside_the_table_are_rejected() {
        let mut bytes = Vec::new();
        msgpack::write_map_len(&mut bytes, 2);
        msgpack::write_str(&mut bytes, b".version");
        msgpack::write_uint(&mut bytes, 1);
        msgpack::write_str(&mut bytes, b".strings");
        bytes.extend_from_slice(&[0xdd, 0xff, 0xff, 0xff, 0xff]);
        let error = problem(&bytes);
        assert!(matches!(
            error.problem,
            Problem::Decode(DecodeErrorKind::TooManyElements { .. })
        ));
        assert_eq!(error.offset, bytes.len() - 5);
    }

    #[test]
    fn unknown_table_keys_are_kept() {
        let mut bytes = Vec::new();
        msgpack::write_map_len(&mut bytes, 3);
        msgpack::write_uint(&mut bytes, 42);
        msgpack::write_str(&mut bytes, b"non-string key");
        msgpack::write_str(&mut bytes, b".version");
        msgpack::write_uint(&mut bytes, 1);
        msgpack::write_str(&mut bytes, b".strings");
        msgpack::write_array_len(&mut bytes, 0);
        let table = Table::decode(&bytes).expect("decodes");
        assert_eq!(
            table.extra,
            vec![(Value::from(42u64), Value::from("non-string key"))]
        );
        let encoded = table.to_msgpack();
        let again = Table::decode(&encoded).expect("again");
        assert_eq!(again.extra, table.extra);
    }
}
