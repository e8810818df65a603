//! The PAL metadata document: one msgpack map whose `amdpal.format_strings` value fmtstr
//! reads and replaces, and whose every other byte it keeps.

use std::ops::Range;

use fmtstr_meta::msgpack::{self, DecodeError, Reader, Token};
use fmtstr_meta::table::{self, Table, TableError};
use rmpv::Value;

/// What is wrong with a metadata document; offsets count from the document's first byte.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DocumentError {
    /// The msgpack itself is broken: truncated, a corrupt length, too deep, a reserved byte.
    #[error("{0}")]
    Decode(#[from] DecodeError),
    /// The document is not a msgpack map.
    #[error("at msgpack byte {offset}: the document is {found}; PAL metadata is one msgpack map")]
    NotAMap {
        /// Always 0: the document's first value is at fault.
        offset: usize,
        /// What it is instead ([`Token::kind`]).
        found: &'static str,
    },
    /// The top-level map has the `amdpal.format_strings` key twice.
    #[error(
        "at msgpack byte {offset}: `amdpal.format_strings` appears twice in the document \
         (first at byte {first}); readers would disagree on which one counts, so remove one"
    )]
    DuplicateTable {
        /// Offset of the second key.
        offset: usize,
        /// Offset of the first key's value.
        first: usize,
    },
    /// Bytes other than zero padding follow the document's map.
    #[error(
        "at msgpack byte {offset}: {count} bytes follow the document's map and belong to no value"
    )]
    TrailingBytes {
        /// Offset just past the map.
        offset: usize,
        /// How many bytes follow it (zeros among them counted).
        count: usize,
    },
    /// The `amdpal.format_strings` value is not a valid table (a missing key, a wrong type,
    /// an ID out of range, ...).
    #[error("at msgpack byte {offset}: {error}", offset = .0.offset, error = .0)]
    Table(#[from] TableError),
}

impl DocumentError {
    /// The offset of the problem inside the document.
    pub fn offset(&self) -> usize {
        match self {
            DocumentError::Decode(error) => error.offset,
            DocumentError::NotAMap { offset, .. }
            | DocumentError::DuplicateTable { offset, .. }
            | DocumentError::TrailingBytes { offset, .. } => *offset,
            DocumentError::Table(error) => error.offset,
        }
    }
}

/// A decoded PAL metadata document.
#[derive(Clone, Debug)]
pub struct Document<'a> {
    bytes: &'a [u8],
    /// The top-level map's header bytes and its pair count.
    header: Range<usize>,
    pairs: u32,
    /// Where the map ends (zero bytes may follow).
    end: usize,
    /// The `amdpal.format_strings` value's bytes and the table it holds.
    format_strings: Option<(Range<usize>, Table<'a>)>,
    /// Each top-level pair's key and value bytes, in order.
    pair_ranges: Vec<(Range<usize>, Range<usize>)>,
}

impl<'a> Document<'a> {
    /// Checks the whole document (structure, lengths, depth) and decodes its format-string
    /// table. Other values are checked, not decoded.
    ///
    /// The document is walked token by token rather than deserialized (rmp-serde was measured
    /// for the table's entries, see fmtstr-meta's `decode_entry`): every pair but the table is
    /// kept as its byte range, which no serde type gives.
    pub fn parse(bytes: &'a [u8]) -> Result<Document<'a>, DocumentError> {
        let mut reader = Reader::new(bytes);
        let Token::Map(pairs) = reader.next_token()? else {
            let found = Reader::new(bytes).next_token()?.kind();
            return Err(DocumentError::NotAMap { offset: 0, found });
        };
        let header = 0..reader.position();
        let mut format_strings: Option<(Range<usize>, Table<'a>)> = None;
        let mut pair_ranges = Vec::new();
        for _ in 0..pairs {
            let key_at = reader.position();
            let is_table =
                matches!(reader.next_token()?, Token::Str(key) if key == table::KEY.as_bytes());
            if !is_table {
                reader.seek(key_at);
                reader.skip_value(1)?;
                let value_at = reader.position();
                reader.skip_value(1)?;
                pair_ranges.push((key_at..value_at, value_at..reader.position()));
                continue;
            }
            if let Some((first, _)) = &format_strings {
                return Err(DocumentError::DuplicateTable {
                    offset: key_at,
                    first: first.start,
                });
            }
            let start = reader.position();
            let table = Table::decode_from(&mut reader, 1)?;
            format_strings = Some((start..reader.position(), table));
            pair_ranges.push((key_at..start, start..reader.position()));
        }
        let end = reader.position();
        let trailing = &bytes[end..];
        if trailing.iter().any(|b| *b != 0) {
            return Err(DocumentError::TrailingBytes {
                offset: end,
                count: trailing.len(),
            });
        }
        Ok(Document {
            bytes,
            header,
            pairs,
            end,
            format_strings,
            pair_ranges,
        })
    }

    /// The document's bytes.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The format-string table, if the document has one.
    pub fn format_strings(&self) -> Option<&Table<'a>> {
        self.format_strings.as_ref().map(|(_, table)| table)
    }

    /// The table, taken out of the document (the document still knows where it was).
    pub fn take_format_strings(&mut self) -> Option<Table<'a>> {
        self.format_strings
            .as_mut()
            .map(|(_, table)| std::mem::take(table))
    }

    /// The byte range of the `amdpal.format_strings` value, if there is one.
    pub fn format_strings_range(&self) -> Option<Range<usize>> {
        self.format_strings.as_ref().map(|(range, _)| range.clone())
    }

    /// The whole document as a msgpack value (key order, duplicate and non-string keys kept).
    pub fn to_value(&self) -> Result<Value, DocumentError> {
        Ok(Reader::new(&self.bytes[..self.end]).read_value(0)?)
    }

    /// The top-level pairs as msgpack values, in order (duplicate keys kept); the values that
    /// `skip` selects by key are not decoded (a table of a million strings is not worth a tree
    /// of values when only the other keys are wanted).
    pub fn top_level_pairs(
        &self,
        skip: impl Fn(&Value) -> bool,
    ) -> Result<Vec<(Value, Option<Value>)>, DocumentError> {
        self.pair_ranges
            .iter()
            .map(|(key, value)| {
                let key = self.read_value_at(key)?;
                let value = if skip(&key) {
                    None
                } else {
                    Some(self.read_value_at(value)?)
                };
                Ok((key, value))
            })
            .collect()
    }

    /// The value of the first top-level key equal to the string `key`, if any, decoding
    /// nothing else.
    pub fn value_of(&self, key: &str) -> Result<Option<Value>, DocumentError> {
        for (key_range, value) in &self.pair_ranges {
            let mut reader = Reader::new(&self.bytes[key_range.clone()]);
            let token = reader
                .next_token()
                .map_err(|error| at_document_offset(error, key_range.start))?;
            if matches!(token, Token::Str(k) if k == key.as_bytes()) {
                return Ok(Some(self.read_value_at(value)?));
            }
        }
        Ok(None)
    }

    /// Decodes the top-level key or value in `range`; an error's offset counts from the
    /// document's start, as every [`DocumentError`]'s does.
    fn read_value_at(&self, range: &Range<usize>) -> Result<Value, DecodeError> {
        Reader::new(&self.bytes[range.clone()])
            .read_value(1)
            .map_err(|error| at_document_offset(error, range.start))
    }

    /// The size of the document once its table is `table`.
    pub fn len_with(&self, table: &Table<'_>) -> usize {
        match &self.format_strings {
            Some((range, _)) => self.bytes.len() - range.len() + table.encoded_len(),
            None => {
                self.bytes.len() - self.header.len()
                    + msgpack::header_len(self.pairs + 1)
                    + msgpack::str_len(table::KEY.len())
                    + table.encoded_len()
            }
        }
    }

    /// Appends the document with its table replaced by `table` (or added as the last key):
    /// every other byte is copied as it was.
    pub fn write_with(&self, table: &Table<'_>, out: &mut Vec<u8>) {
        match &self.format_strings {
            Some((range, _)) => {
                out.extend_from_slice(&self.bytes[..range.start]);
                table.encode(out);
                out.extend_from_slice(&self.bytes[range.end..]);
            }
            None => {
                msgpack::write_map_len(out, self.pairs + 1);
                out.extend_from_slice(&self.bytes[self.header.end..self.end]);
                msgpack::write_str(out, table::KEY.as_bytes());
                table.encode(out);
                out.extend_from_slice(&self.bytes[self.end..]);
            }
        }
    }
}

#[cfg(test)]
impl<'a> Document<'a> {
    /// This document over other bytes of the same length: how tests get a document whose
    /// values fail to decode, which [`Document::parse`] never returns.
    pub(crate) fn over(&self, bytes: &'a [u8]) -> Document<'a> {
        assert_eq!(bytes.len(), self.bytes.len());
        Document {
            bytes,
            ..self.clone()
        }
    }
}

/// `error`, from a reader over the document's bytes from `start` on, with its offset counted
/// from the document's start instead.
fn at_document_offset(mut error: DecodeError, start: usize) -> DecodeError {
    error.offset += start;
    error
}

/// The size of a new document holding only `table`.
pub fn new_document_len(table: &Table<'_>) -> usize {
    msgpack::header_len(1) + msgpack::str_len(table::KEY.len()) + table.encoded_len()
}

/// Appends a new document holding only `table`.
pub fn write_new_document(table: &Table<'_>, out: &mut Vec<u8>) {
    msgpack::write_map_len(out, 1);
    msgpack::write_str(out, table::KEY.as_bytes());
    table.encode(out);
}

#[cfg(test)]
mod tests {
    use super::*;
    use fmtstr_meta::{Entry, FormatId, Mask};

    fn document(pairs: &[(&str, Value)]) -> Vec<u8> {
        let mut out = Vec::new();
        msgpack::write_map_len(&mut out, pairs.len() as u32);
        for (key, value) in pairs {
            msgpack::write_str(&mut out, key.as_bytes());
            msgpack::write_value(&mut out, value);
        }
        out
    }

    fn table_value(entries: &[(u64, &str)]) -> Value {
        Value::Map(vec![
            (
                Value::from(".strings"),
                Value::Array(
                    entries
                        .iter()
                        .map(|(id, text)| {
                            Value::Map(vec![
                                (
                                    Value::from(".64bit_arguments"),
                                    Value::Array(vec![Value::from(0u64)]),
                                ),
                                (Value::from(".argument_count"), Value::from(0u64)),
                                (Value::from(".index"), Value::from(*id)),
                                (Value::from(".string"), Value::from(*text)),
                            ])
                        })
                        .collect(),
                ),
            ),
            (Value::from(".version"), Value::from(1u64)),
        ])
    }

    fn pipelines() -> Value {
        Value::Array(vec![Value::Map(vec![(
            Value::from(".registers"),
            Value::Map(vec![(Value::from(11776u64), Value::from(32768u64))]),
        )])])
    }

    #[test]
    fn replaces_only_the_table_bytes() {
        let bytes = document(&[
            ("amdpal.format_strings", table_value(&[(5, "a")])),
            ("amdpal.pipelines", pipelines()),
            (
                "amdpal.version",
                Value::Array(vec![Value::from(3u64), Value::from(0u64)]),
            ),
        ]);
        let doc = Document::parse(&bytes).expect("parses");
        assert_eq!(doc.format_strings().map(|t| t.entries.len()), Some(1));
        let range = doc.format_strings_range().expect("has a table");
        let mut table = doc.format_strings().cloned().expect("table");
        table.entries.push(Entry::new(
            FormatId::new(9).unwrap(),
            "b %d",
            1,
            Mask::from_words(&[0]),
        ));
        let mut out = Vec::new();
        doc.write_with(&table, &mut out);
        assert_eq!(out.len(), doc.len_with(&table));
        assert_eq!(&out[..range.start], &bytes[..range.start]);
        let tail = &bytes[range.end..];
        assert_eq!(&out[out.len() - tail.len()..], tail);
        let again = Document::parse(&out).expect("reparses");
        assert_eq!(again.format_strings().map(|t| t.entries.len()), Some(2));
    }

    #[test]
    fn adds_the_table_as_the_last_key_even_past_fifteen_keys() {
        let keys: Vec<String> = (0..15).map(|i| format!("key{i:02}")).collect();
        let pairs: Vec<(&str, Value)> = keys
            .iter()
            .map(|k| (k.as_str(), Value::from(1u64)))
            .collect();
        let bytes = document(&pairs);
        assert_eq!(bytes[0], 0x8f);
        let doc = Document::parse(&bytes).expect("parses");
        assert!(doc.format_strings().is_none());
        let table = Table {
            entries: vec![Entry::for_format("x", 0, Mask::default())],
            ..Default::default()
        };
        let mut out = Vec::new();
        doc.write_with(&table, &mut out);
        assert_eq!(out.len(), doc.len_with(&table));
        assert_eq!(&out[..3], &[0xde, 0, 16]);
        let again = Document::parse(&out).expect("reparses");
        assert_eq!(
            again.format_strings().map(|t| t.entries[0].string()),
            Some("x")
        );
        let Value::Map(pairs) = again.to_value().expect("value") else {
            panic!("a map")
        };
        assert_eq!(
            pairs[..15],
            Document::parse(&bytes)
                .unwrap()
                .to_value()
                .unwrap()
                .as_map()
                .unwrap()[..]
        );
    }

    #[test]
    fn errors_reading_top_level_pairs_count_from_the_documents_start() {
        // 82 | a1 'a' | c0 | a1 'b' | 01: the value of "b" is byte 6, its key byte 4.
        let bytes = document(&[("a", Value::Nil), ("b", Value::from(1u64))]);
        assert_eq!(bytes, [0x82, 0xa1, b'a', 0xc0, 0xa1, b'b', 0x01]);
        let doc = Document::parse(&bytes).expect("parses");
        let mut broken_value = bytes.clone();
        broken_value[6] = 0xc1;
        let broken = doc.over(&broken_value);
        let error = broken
            .top_level_pairs(|_| false)
            .expect_err("0xc1 is no value");
        assert_eq!(error.offset(), 6);
        assert_eq!(broken.value_of("b").expect_err("0xc1").offset(), 6);
        let mut broken_key = bytes.clone();
        broken_key[4] = 0xc1;
        let broken = doc.over(&broken_key);
        assert_eq!(
            broken.top_level_pairs(|_| true).expect_err("0xc1").offset(),
            4
        );
        assert_eq!(broken.value_of("b").expect_err("0xc1").offset(), 4);
    }

    #[test]
    fn rejects_broken_documents() {
        assert!(matches!(
            Document::parse(&[0x91, 0x01]),
            Err(DocumentError::NotAMap { .. })
        ));
        let twice = document(&[
            ("amdpal.format_strings", table_value(&[])),
            ("amdpal.format_strings", table_value(&[])),
        ]);
        assert!(matches!(
            Document::parse(&twice),
            Err(DocumentError::DuplicateTable { .. })
        ));
        let mut trailing = document(&[("a", Value::Nil)]);
        trailing.push(0x01);
        assert!(matches!(
            Document::parse(&trailing),
            Err(DocumentError::TrailingBytes { .. })
        ));
        let mut padded = document(&[("a", Value::Nil)]);
        padded.extend_from_slice(&[0, 0, 0]);
        assert!(Document::parse(&padded).is_ok());
        let mut deep = vec![0x81, 0xa1, b'a'];
        deep.extend(std::iter::repeat_n(0x91, 10_000));
        deep.push(0xc0);
        assert!(matches!(
            Document::parse(&deep),
            Err(DocumentError::Decode(_))
        ));
    }
}
