//! A msgpack reader for untrusted bytes.
//!
//! PAL metadata comes from files fmtstr did not write, so this reader never trusts a length:
//! a string, binary or extension must fit in the bytes that are left, and an array or map that
//! claims more elements than there are bytes left (every element takes at least one byte) is an
//! error before anything is allocated. Nesting deeper than [`MAX_DEPTH`] is an error too, so a
//! 10,000-deep document cannot exhaust the stack.
//!
//! The reader yields [`Token`]s that borrow from the input, decodes whole values into
//! [`rmpv::Value`] (which keeps map key order, duplicate keys and non-string keys), and skips
//! values without allocating. Writing uses `rmp`/`rmpv` directly.

use std::fmt;

use rmpv::Value;

/// The deepest nesting of arrays and maps the reader accepts. PAL metadata nests about six deep.
pub const MAX_DEPTH: usize = 64;

/// One msgpack item: a scalar, or the header of an array or map (its elements follow).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Token<'a> {
    /// nil (0xc0).
    Nil,
    /// false or true (0xc2, 0xc3).
    Bool(bool),
    /// Any unsigned encoding (positive fixint, uint 8/16/32/64).
    UInt(u64),
    /// Any signed encoding (negative fixint, int 8/16/32/64), whatever its value.
    Int(i64),
    /// A float 32 (0xca).
    F32(f32),
    /// A float 64 (0xcb).
    F64(f64),
    /// The bytes of a str (not checked for UTF-8 here).
    Str(&'a [u8]),
    /// The bytes of a bin (bin 8/16/32).
    Bin(&'a [u8]),
    /// An extension value (fixext or ext 8/16/32): its type and its data bytes.
    Ext(i8, &'a [u8]),
    /// An array header with its element count.
    Array(u32),
    /// A map header with its pair count.
    Map(u32),
}

impl Token<'_> {
    /// What the token is, for messages: "an unsigned integer", "a string", ...
    pub fn kind(&self) -> &'static str {
        match self {
            Token::Nil => "nil",
            Token::Bool(_) => "a boolean",
            Token::UInt(_) => "an unsigned integer",
            Token::Int(_) => "a signed integer",
            Token::F32(_) | Token::F64(_) => "a float",
            Token::Str(_) => "a string",
            Token::Bin(_) => "binary data",
            Token::Ext(..) => "an extension value",
            Token::Array(_) => "an array",
            Token::Map(_) => "a map",
        }
    }

    /// The value as a non-negative integer, whichever integer encoding holds it.
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            Token::UInt(value) => Some(value),
            Token::Int(value) => u64::try_from(value).ok(),
            _ => None,
        }
    }
}

/// What went wrong while reading msgpack.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DecodeErrorKind {
    /// The bytes end inside an item.
    Truncated {
        /// What was being read.
        what: &'static str,
        /// Bytes the item needs.
        needed: u64,
        /// Bytes that were left.
        left: usize,
    },
    /// An array or map claims more elements than the bytes left could hold.
    TooManyElements {
        /// "an array" or "a map".
        what: &'static str,
        /// The element count the header gives (pairs, for a map).
        claimed: u64,
        /// Bytes that were left after the header.
        left: usize,
    },
    /// Arrays and maps nest deeper than [`MAX_DEPTH`].
    TooDeep,
    /// The byte 0xc1, which msgpack never uses.
    ReservedMarker,
}

impl fmt::Display for DecodeErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeErrorKind::Truncated { what, needed, left } => write!(
                f,
                "the msgpack data ends inside {what}: it needs {needed} bytes and {left} are left \
                 (the note is truncated or its size is wrong)"
            ),
            DecodeErrorKind::TooManyElements {
                what,
                claimed,
                left,
            } => write!(
                f,
                "{what} claims {claimed} elements but only {left} bytes are left \
                 (a corrupt length; the note cannot be this size)"
            ),
            DecodeErrorKind::TooDeep => write!(
                f,
                "arrays and maps nest deeper than {MAX_DEPTH} levels (PAL metadata nests about 6; \
                 this is corrupt or hostile data)"
            ),
            DecodeErrorKind::ReservedMarker => write!(
                f,
                "byte 0xc1 is not a msgpack type (this is not msgpack, or it is corrupt)"
            ),
        }
    }
}

/// A msgpack decoding error at a byte offset into the data given to the [`Reader`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("at msgpack byte {offset}: {kind}")]
pub struct DecodeError {
    /// The offset of the first byte of the item that could not be read.
    pub offset: usize,
    /// What was wrong with it.
    pub kind: DecodeErrorKind,
}

/// A cursor over msgpack bytes.
#[derive(Clone, Debug)]
pub struct Reader<'a> {
    bytes: &'a [u8],
    position: usize,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `bytes`; offsets in its errors count from there.
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, position: 0 }
    }

    /// The offset of the next byte.
    pub fn position(&self) -> usize {
        self.position
    }

    /// The bytes not read yet.
    pub fn rest(&self) -> &'a [u8] {
        &self.bytes[self.position..]
    }

    /// The bytes this reader was made with.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Moves to a byte offset (at most the end), e.g. to read an item again as a whole value.
    pub fn seek(&mut self, position: usize) {
        self.position = position.min(self.bytes.len());
    }

    /// Whether every byte has been read.
    pub fn is_at_end(&self) -> bool {
        self.position >= self.bytes.len()
    }

    fn left(&self) -> usize {
        self.bytes.len() - self.position
    }

    fn error(&self, offset: usize, kind: DecodeErrorKind) -> DecodeError {
        DecodeError { offset, kind }
    }

    fn take(
        &mut self,
        count: u64,
        what: &'static str,
        start: usize,
    ) -> Result<&'a [u8], DecodeError> {
        let left = self.left();
        match usize::try_from(count) {
            Ok(count) if count <= left => {
                let slice = &self.bytes[self.position..self.position + count];
                self.position += count;
                Ok(slice)
            }
            _ => Err(self.error(
                start,
                DecodeErrorKind::Truncated {
                    what,
                    needed: count,
                    left,
                },
            )),
        }
    }

    fn be(&mut self, width: u64, what: &'static str, start: usize) -> Result<u64, DecodeError> {
        let bytes = self.take(width, what, start)?;
        Ok(bytes.iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b)))
    }

    /// Reads a fixstr (a str of at most 31 bytes, the form of every key PAL metadata has) if
    /// one comes next and fits; else reads nothing and returns `None`, leaving any error to
    /// [`Reader::next_token`]. Inlined, where a whole token is a call.
    #[inline]
    pub fn next_fixstr(&mut self) -> Option<&'a [u8]> {
        let rest = self.rest();
        let marker = *rest.first()?;
        if marker & 0xe0 != 0xa0 {
            return None;
        }
        let end = 1 + usize::from(marker & 0x1f);
        let bytes = rest.get(1..end)?;
        self.position += end;
        Some(bytes)
    }

    /// Reads one token. Array and map headers are checked against the bytes left.
    ///
    /// The forms a format-string entry takes (a fixmap, fixarray, positive fixint, fixstr,
    /// str 8 or uint 64) are read inline, when whole; the rest, and errors, in
    /// [`Reader::any_token`].
    #[inline]
    pub fn next_token(&mut self) -> Result<Token<'a>, DecodeError> {
        let rest = self.rest();
        match rest.first() {
            Some(&marker @ 0x00..=0x7f) => {
                self.position += 1;
                return Ok(Token::UInt(u64::from(marker)));
            }
            Some(&marker @ 0x80..=0x9f) => {
                let len = u32::from(marker & 0x0f);
                let (elements, token) = if marker < 0x90 {
                    (2 * len, Token::Map(len))
                } else {
                    (len, Token::Array(len))
                };
                // Every element takes a byte after the header's.
                if (elements as usize) < rest.len() {
                    self.position += 1;
                    return Ok(token);
                }
            }
            Some(0xa0..=0xbf) => {
                if let Some(bytes) = self.next_fixstr() {
                    return Ok(Token::Str(bytes));
                }
            }
            Some(0xd9) => {
                let len = rest.get(1).map_or(usize::MAX, |len| usize::from(*len));
                if let Some(bytes) = rest.get(2..).and_then(|r| r.get(..len)) {
                    self.position += 2 + len;
                    return Ok(Token::Str(bytes));
                }
            }
            Some(0xcf) => {
                if let Some(bytes) = rest.get(1..).and_then(<[u8]>::first_chunk::<8>) {
                    self.position += 9;
                    return Ok(Token::UInt(u64::from_be_bytes(*bytes)));
                }
            }
            _ => {}
        }
        self.any_token()
    }

    /// [`Reader::next_token`] for every form, and every error.
    fn any_token(&mut self) -> Result<Token<'a>, DecodeError> {
        let start = self.position;
        let marker = self.take(1, "a value", start)?[0];
        let token = match marker {
            0x00..=0x7f => Token::UInt(u64::from(marker)),
            0x80..=0x8f => return self.map_header(u64::from(marker & 0x0f), start),
            0x90..=0x9f => return self.array_header(u64::from(marker & 0x0f), start),
            0xa0..=0xbf => Token::Str(self.take(u64::from(marker & 0x1f), "a string", start)?),
            0xc0 => Token::Nil,
            0xc1 => return Err(self.error(start, DecodeErrorKind::ReservedMarker)),
            0xc2 => Token::Bool(false),
            0xc3 => Token::Bool(true),
            0xc4..=0xc6 => {
                let width = 1u64 << (marker - 0xc4);
                let len = self.be(width, "a binary length", start)?;
                Token::Bin(self.take(len, "binary data", start)?)
            }
            0xc7..=0xc9 => {
                let width = 1u64 << (marker - 0xc7);
                let len = self.be(width, "an extension length", start)?;
                let kind = self.take(1, "an extension type", start)?[0] as i8;
                Token::Ext(kind, self.take(len, "an extension value", start)?)
            }
            0xca => Token::F32(f32::from_bits(self.be(4, "a float", start)? as u32)),
            0xcb => Token::F64(f64::from_bits(self.be(8, "a float", start)?)),
            0xcc..=0xcf => Token::UInt(self.be(1 << (marker - 0xcc), "an integer", start)?),
            0xd0..=0xd3 => {
                let width = 1u32 << (marker - 0xd0);
                let raw = self.be(u64::from(width), "an integer", start)?;
                // Sign-extend from `width` bytes.
                let shift = 64 - 8 * width;
                Token::Int(((raw << shift) as i64) >> shift)
            }
            0xd4..=0xd8 => {
                let len = 1u64 << (marker - 0xd4);
                let kind = self.take(1, "an extension type", start)?[0] as i8;
                Token::Ext(kind, self.take(len, "an extension value", start)?)
            }
            0xd9..=0xdb => {
                let width = 1u64 << (marker - 0xd9);
                let len = self.be(width, "a string length", start)?;
                Token::Str(self.take(len, "a string", start)?)
            }
            0xdc | 0xdd => {
                let len = self.be(if marker == 0xdc { 2 } else { 4 }, "an array length", start)?;
                return self.array_header(len, start);
            }
            0xde | 0xdf => {
                let len = self.be(if marker == 0xde { 2 } else { 4 }, "a map length", start)?;
                return self.map_header(len, start);
            }
            0xe0..=0xff => Token::Int(i64::from(marker as i8)),
        };
        Ok(token)
    }

    fn array_header(&self, len: u64, start: usize) -> Result<Token<'a>, DecodeError> {
        if len > self.left() as u64 {
            return Err(self.error(
                start,
                DecodeErrorKind::TooManyElements {
                    what: "an array",
                    claimed: len,
                    left: self.left(),
                },
            ));
        }
        Ok(Token::Array(len as u32))
    }

    fn map_header(&self, len: u64, start: usize) -> Result<Token<'a>, DecodeError> {
        if len.saturating_mul(2) > self.left() as u64 {
            return Err(self.error(
                start,
                DecodeErrorKind::TooManyElements {
                    what: "a map",
                    claimed: len,
                    left: self.left(),
                },
            ));
        }
        Ok(Token::Map(len as u32))
    }

    /// Skips one whole value (with everything nested in it) without allocating more than the
    /// nesting stack. `depth` is how deep the value already sits.
    pub fn skip_value(&mut self, depth: usize) -> Result<(), DecodeError> {
        // Elements still to skip at each open level.
        let mut pending: Vec<u64> = Vec::new();
        let mut remaining: u64 = 1;
        loop {
            while remaining == 0 {
                match pending.pop() {
                    Some(outer) => remaining = outer,
                    None => return Ok(()),
                }
            }
            remaining -= 1;
            let start = self.position;
            let children = match self.next_token()? {
                Token::Array(len) => u64::from(len),
                Token::Map(len) => 2 * u64::from(len),
                _ => continue,
            };
            if children > 0 {
                if depth + pending.len() + 1 > MAX_DEPTH {
                    return Err(self.error(start, DecodeErrorKind::TooDeep));
                }
                pending.push(remaining);
                remaining = children;
            }
        }
    }

    /// Decodes one whole value. `depth` is how deep the value already sits.
    pub fn read_value(&mut self, depth: usize) -> Result<Value, DecodeError> {
        let start = self.position;
        let token = self.next_token()?;
        Ok(match token {
            Token::Nil => Value::Nil,
            Token::Bool(value) => Value::Boolean(value),
            Token::UInt(value) => Value::from(value),
            Token::Int(value) => Value::from(value),
            Token::F32(value) => Value::F32(value),
            Token::F64(value) => Value::F64(value),
            Token::Str(bytes) => string_value(bytes),
            Token::Bin(bytes) => Value::Binary(bytes.to_vec()),
            Token::Ext(kind, bytes) => Value::Ext(kind, bytes.to_vec()),
            Token::Array(len) => {
                if len > 0 && depth + 1 > MAX_DEPTH {
                    return Err(self.error(start, DecodeErrorKind::TooDeep));
                }
                let mut items = Vec::with_capacity(bounded_capacity(len));
                for _ in 0..len {
                    items.push(self.read_value(depth + 1)?);
                }
                Value::Array(items)
            }
            Token::Map(len) => {
                if len > 0 && depth + 1 > MAX_DEPTH {
                    return Err(self.error(start, DecodeErrorKind::TooDeep));
                }
                let mut pairs = Vec::with_capacity(bounded_capacity(len));
                for _ in 0..len {
                    let key = self.read_value(depth + 1)?;
                    let value = self.read_value(depth + 1)?;
                    pairs.push((key, value));
                }
                Value::Map(pairs)
            }
        })
    }
}

/// A capacity to reserve for `len` claimed elements: the claim is checked against the bytes
/// left, but each nested level may claim nearly all of them, so reserve little and let it grow.
fn bounded_capacity(len: u32) -> usize {
    (len as usize).min(1024)
}

/// A msgpack str value with these bytes, UTF-8 or not (rmpv keeps invalid bytes as they are).
pub fn string_value(bytes: &[u8]) -> Value {
    if let Ok(text) = std::str::from_utf8(bytes) {
        return Value::from(text);
    }
    // rmpv builds a `Utf8String` holding invalid bytes only while decoding.
    let mut encoded = Vec::with_capacity(bytes.len() + 5);
    write_str(&mut encoded, bytes);
    rmpv::decode::read_value(&mut encoded.as_slice()).unwrap_or(Value::Nil)
}

/// Encodes a value into `out` (the compact msgpack encoding of its type and value). A str
/// whose bytes are not UTF-8 stays a str with the same bytes, as it was read.
pub fn write_value(out: &mut Vec<u8>, value: &Value) {
    match value {
        // rmpv would write these bytes as bin, another type.
        Value::String(text) if text.as_str().is_none() => write_str(out, text.as_bytes()),
        Value::Array(items) => {
            write_array_len(out, items.len() as u32);
            for item in items {
                write_value(out, item);
            }
        }
        Value::Map(pairs) => {
            write_map_len(out, pairs.len() as u32);
            for (key, item) in pairs {
                write_value(out, key);
                write_value(out, item);
            }
        }
        // Writing into a Vec cannot fail.
        other => {
            let _ = rmpv::encode::write_value(out, other);
        }
    }
}

/// Appends a str header and the bytes.
pub fn write_str(out: &mut Vec<u8>, text: &[u8]) {
    let len = text.len();
    if len < 32 {
        out.push(0xa0 | len as u8);
    } else if len < 0x100 {
        out.extend_from_slice(&[0xd9, len as u8]);
    } else if len < 0x10000 {
        out.push(0xda);
        out.extend_from_slice(&(len as u16).to_be_bytes());
    } else {
        out.push(0xdb);
        out.extend_from_slice(&(len as u32).to_be_bytes());
    }
    out.extend_from_slice(text);
}

/// The size of [`write_str`]'s output.
pub fn str_len(len: usize) -> usize {
    len + match len {
        0..=31 => 1,
        32..=0xff => 2,
        0x100..=0xffff => 3,
        _ => 5,
    }
}

/// Appends an unsigned integer in its smallest encoding.
pub fn write_uint(out: &mut Vec<u8>, value: u64) {
    if value < 0x80 {
        out.push(value as u8);
    } else if value < 0x100 {
        out.extend_from_slice(&[0xcc, value as u8]);
    } else if value < 0x10000 {
        out.push(0xcd);
        out.extend_from_slice(&(value as u16).to_be_bytes());
    } else if value < 0x1_0000_0000 {
        out.push(0xce);
        out.extend_from_slice(&(value as u32).to_be_bytes());
    } else {
        out.push(0xcf);
        out.extend_from_slice(&value.to_be_bytes());
    }
}

/// The size of [`write_uint`]'s output.
pub fn uint_len(value: u64) -> usize {
    match value {
        0..=0x7f => 1,
        0x80..=0xff => 2,
        0x100..=0xffff => 3,
        0x1_0000..=0xffff_ffff => 5,
        _ => 9,
    }
}

/// Appends an array header.
pub fn write_array_len(out: &mut Vec<u8>, len: u32) {
    if len < 16 {
        out.push(0x90 | len as u8);
    } else if len < 0x10000 {
        out.push(0xdc);
        out.extend_from_slice(&(len as u16).to_be_bytes());
    } else {
        out.push(0xdd);
        out.extend_from_slice(&len.to_be_bytes());
    }
}

/// Appends a map header.
pub fn write_map_len(out: &mut Vec<u8>, len: u32) {
    if len < 16 {
        out.push(0x80 | len as u8);
    } else if len < 0x10000 {
        out.push(0xde);
        out.extend_from_slice(&(len as u16).to_be_bytes());
    } else {
        out.push(0xdf);
        out.extend_from_slice(&len.to_be_bytes());
    }
}

/// The size of an array or map header for `len` elements.
pub fn header_len(len: u32) -> usize {
    match len {
        0..=15 => 1,
        16..=0xffff => 3,
        _ => 5,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The inline forms of `next_token` read exactly what the general reader reads: the same
    /// token, error and position, for every marker, whole or cut short.
    #[test]
    fn next_token_agrees_with_the_general_reader() {
        let mut checked = 0;
        for marker in 0..=255u8 {
            for fill in [0x00u8, 0x03, 0x41, 0xff] {
                for len in 1..=12 {
                    let mut bytes = vec![fill; len];
                    bytes[0] = marker;
                    let (mut fast, mut general) = (Reader::new(&bytes), Reader::new(&bytes));
                    // As text: a NaN float is not equal to itself.
                    let expected = format!("{:?}", general.any_token());
                    assert_eq!(format!("{:?}", fast.next_token()), expected, "{bytes:02x?}");
                    assert_eq!(fast.position(), general.position(), "{bytes:02x?}");
                    checked += 1;
                }
            }
        }
        assert_eq!(checked, 256 * 4 * 12);
    }

    /// `next_fixstr` reads what `next_token` would read as a short str, and nothing else.
    #[test]
    fn next_fixstr_reads_only_a_whole_fixstr() {
        let mut reader = Reader::new(b"\xa2ab\xa0\xd9\x01c\x01\xa3ab");
        assert_eq!(reader.next_fixstr(), Some(&b"ab"[..]));
        assert_eq!(reader.next_fixstr(), Some(&b""[..]));
        // A str 8, an integer and a truncated fixstr are left to `next_token`.
        assert_eq!(reader.next_fixstr(), None);
        assert_eq!(reader.next_token(), Ok(Token::Str(b"c")));
        assert_eq!(reader.next_fixstr(), None);
        assert_eq!(reader.next_token(), Ok(Token::UInt(1)));
        assert_eq!(reader.next_fixstr(), None);
        assert_eq!(reader.position(), 8);
        assert!(reader.next_token().is_err());
        assert_eq!(Reader::new(b"").next_fixstr(), None);
    }

    #[test]
    fn a_str_that_is_not_utf8_is_written_back_as_the_same_str() {
        // A map whose value is an array holding a 3-byte str with an invalid byte (0xff), and
        // a valid str: fixmap 1, fixstr "k", fixarray 2, fixstr 3 bytes, fixstr "ok".
        let bytes = [
            0x81, 0xa1, b'k', 0x92, 0xa3, b'a', 0xff, b'b', 0xa2, b'o', b'k',
        ];
        let value = rmpv::decode::read_value(&mut &bytes[..]).unwrap();
        let mut out = Vec::new();
        write_value(&mut out, &value);
        assert_eq!(out, bytes);
        let mut single = Vec::new();
        write_value(&mut single, &string_value(b"x\xfey"));
        assert_eq!(single, [0xa3, b'x', 0xfe, b'y']);
    }

    fn encode(value: &Value) -> Vec<u8> {
        let mut out = Vec::new();
        write_value(&mut out, value);
        out
    }

    #[test]
    fn reads_back_what_rmpv_writes() {
        let value = Value::Map(vec![
            (Value::from("a"), Value::from(1u64)),
            (Value::from(7u64), Value::from(-3i64)),
            (
                Value::from("a"),
                Value::Array(vec![Value::Nil, Value::from(true)]),
            ),
            (Value::from("f"), Value::F32(1.5)),
            (Value::from("d"), Value::F64(-2.25)),
            (Value::from("b"), Value::Binary(vec![1, 2, 3])),
            (Value::from("e"), Value::Ext(5, vec![9; 4])),
            (Value::from("big"), Value::from(u64::MAX)),
            (Value::from("neg"), Value::from(i64::MIN)),
            (Value::from("long"), Value::from("x".repeat(300).as_str())),
        ]);
        let bytes = encode(&value);
        let mut reader = Reader::new(&bytes);
        assert_eq!(reader.read_value(0), Ok(value));
        assert!(reader.is_at_end());
        let mut skipper = Reader::new(&bytes);
        skipper.skip_value(0).expect("skips");
        assert!(skipper.is_at_end());
    }

    #[test]
    fn helpers_match_rmp_encodings() {
        for value in [
            0u64,
            127,
            128,
            255,
            256,
            65535,
            65536,
            u32::MAX as u64,
            1 << 40,
        ] {
            let mut ours = Vec::new();
            write_uint(&mut ours, value);
            assert_eq!(ours, encode(&Value::from(value)), "{value}");
            assert_eq!(ours.len(), uint_len(value));
        }
        for len in [0usize, 31, 32, 255, 256, 65535, 65536] {
            let text = "y".repeat(len);
            let mut ours = Vec::new();
            write_str(&mut ours, text.as_bytes());
            assert_eq!(ours, encode(&Value::from(text.as_str())), "{len}");
            assert_eq!(ours.len(), str_len(len));
        }
        for len in [0u32, 15, 16, 65535, 65536] {
            let mut array = Vec::new();
            write_array_len(&mut array, len);
            let mut expected = Vec::new();
            rmp::encode::write_array_len(&mut expected, len).expect("vec");
            assert_eq!(array, expected);
            assert_eq!(array.len(), header_len(len));
            let mut map = Vec::new();
            write_map_len(&mut map, len);
            expected.clear();
            rmp::encode::write_map_len(&mut expected, len).expect("vec");
            assert_eq!(map, expected);
        }
    }

    #[test]
    fn huge_length_claims_fail_before_allocating() {
        for bytes in [
            &[0xdd, 0xff, 0xff, 0xff, 0xff, 0x01][..],
            &[0xdf, 0xff, 0xff, 0xff, 0xff, 0x01, 0x01][..],
            &[0xdb, 0xff, 0xff, 0xff, 0xff, b'a'][..],
            &[0xc6, 0xff, 0xff, 0xff, 0xff][..],
            &[0xc9, 0xff, 0xff, 0xff, 0xff, 0x01][..],
        ] {
            let error = Reader::new(bytes).read_value(0).expect_err("rejected");
            assert_eq!(error.offset, 0);
            assert!(Reader::new(bytes).skip_value(0).is_err());
        }
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let mut bytes = vec![0x91; 10_000];
        bytes.push(0xc0);
        let error = Reader::new(&bytes).read_value(0).expect_err("too deep");
        assert_eq!(error.kind, DecodeErrorKind::TooDeep);
        assert_eq!(error.offset, MAX_DEPTH);
        let error = Reader::new(&bytes).skip_value(0).expect_err("too deep");
        assert_eq!(error.kind, DecodeErrorKind::TooDeep);
        // Exactly MAX_DEPTH levels are fine.
        let mut ok = vec![0x91; MAX_DEPTH];
        ok.push(0xc0);
        assert!(Reader::new(&ok).read_value(0).is_ok());
        assert!(Reader::new(&ok).skip_value(0).is_ok());
    }

    #[test]
    fn truncation_and_reserved_bytes() {
        for cut in [
            &[0xcd, 0x01][..],
            &[0xa5, b'a'][..],
            &[0x92, 0x01][..],
            &[][..],
        ] {
            assert!(matches!(
                Reader::new(cut).read_value(0),
                Err(DecodeError {
                    kind: DecodeErrorKind::Truncated { .. }
                        | DecodeErrorKind::TooManyElements { .. },
                    ..
                })
            ));
        }
        assert_eq!(
            Reader::new(&[0xc1]).next_token().map_err(|e| e.kind),
            Err(DecodeErrorKind::ReservedMarker)
        );
    }

    #[test]
    fn signed_encodings_sign_extend() {
        assert_eq!(Reader::new(&[0xd0, 0xff]).next_token(), Ok(Token::Int(-1)));
        assert_eq!(
            Reader::new(&[0xd1, 0x80, 0x00]).next_token(),
            Ok(Token::Int(-32768))
        );
        assert_eq!(Reader::new(&[0xd0, 0x05]).next_token(), Ok(Token::Int(5)));
        assert_eq!(Reader::new(&[0xe0]).next_token(), Ok(Token::Int(-32)));
        assert_eq!(Token::Int(5).as_u64(), Some(5));
        assert_eq!(Token::Int(-5).as_u64(), None);
    }
}
