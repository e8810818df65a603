//! HSA code objects (OpenCL and HIP on AMD without PAL): the `amdhsa.printf` array.
//!
//! LLVM's AMDGPUPrintfRuntimeBinding pass (the writer, LLVM 19) gives each printf call an ID
//! (1, 2, ... in the module) and records it in the metadata document as one string:
//!
//! ```text
//! ID:N:SIZE1:...:SIZEk:FORMAT        e.g.  4:3:4:4:8:x=%d f=%f l=%ld\n
//! ```
//!
//! - N is the call's number of arguments after the format; k, the number of sizes, is N or
//!   fewer: the writer stops at the last conversion it recognised (`cdieEfgGaosuxXp`), so
//!   `printf("hi\n", x)` gives `1:1:hi\n`.
//! - SIZEi is the number of bytes argument i takes in the buffer: the type's alloc size, with
//!   types narrower than 4 bytes widened to 4 (`char`/`short`, and `char2` to `int2`), a `%f`
//!   whose argument is a float constant or an `fpext` from float stored as its 4-byte float,
//!   and a `%s` of a constant string stored inline (`strlen + 1` rounded up to 4).
//! - FORMAT has no raw `:`: the writer spells `:` as `\72`, and BEL BS FF LF CR VT as `\a \b
//!   \f \n \r \v`; every other byte (a tab, a backslash) is written as it is. A backslash in
//!   the C string followed by one of those letters therefore reads back as the control
//!   character: the runtime reads it that way too, and so does fmtstr.
//!
//! The buffer itself is described in `fmtstr_decode::hsa`.
//!
//! # HIP's buffered printf: `0:0:HASH,FORMAT`
//!
//! HIP code compiled with `-mprintf-kind=buffered` (clang 19 and 22; the IR then has the module
//! flag `amdgpu_printf_kind` = `"buffered"`) does not go through that pass: clang's printf
//! lowering (LLVM's `AMDGPUEmitPrintf.cpp`, its buffered path) writes each call's record itself
//! and names the format by a hash, not by a call number:
//!
//! ```text
//! 0:0:HASH,FORMAT        e.g.  0:0:415b92beca7d5e27,int %d<LF>
//! ```
//!
//! - HASH is the low 64 bits of the MD5 of the format's bytes (without its NUL), that is the
//!   first 8 bytes of the digest read as a little-endian integer, written in lowercase hex
//!   *without leading zeros* (1 to 16 digits): [`format_hash`] computes it;
//! - FORMAT is the format's bytes as they are: nothing is escaped (a `:`, a `,`, a newline or
//!   a backslash is itself), so everything after the first `,` is the format;
//! - one entry is written per call, so a format printed by two calls is listed twice, with the
//!   same hash: that is not a collision (though the rocclr source read for this,
//!   `populateFormatStringHashMap` in ROCm/clr's `rocclr/device/devhcprintf.cpp`, refuses any
//!   hash seen twice and then prints nothing; fmtstr reads such tables);
//! - a module whose only printf calls have formats the compiler cannot see gets the one
//!   placeholder entry `0:0:ffffffff,"Non const format string"` ([`PLACEHOLDER`]); such calls
//!   carry their format in the buffer.
//!
//! The reader is ROCm's runtime (rocclr: `Kernel::InitPrintf` keeps what follows `0:0:`,
//! `populateFormatStringHashMap` splits it at the first `,` and reads the hash with
//! `strtoull(.., 16)`). [`printf_table`] tells the two kinds apart: a table whose entries start
//! with `0:0:` is HIP's (the pass numbers its calls from 1, so it never writes ID 0).

use fmtstr_format::Format;
use fmtstr_meta::escape;
use md5::{Digest, Md5};
use rmpv::Value;

use crate::Document;

/// The metadata key of the HSA printf table.
pub const KEY: &str = "amdhsa.printf";

/// One `amdhsa.printf` entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrintfEntry {
    /// The call's ID, as the buffer's records carry it.
    pub id: u32,
    /// The call's number of arguments (N).
    pub argument_count: u32,
    /// Bytes each argument takes in the buffer, in order (at most N).
    pub sizes: Vec<u32>,
    /// The format string, unescaped (`\72` is `:`, `\n` a newline).
    pub format: Vec<u8>,
    /// The entry as written in the metadata.
    pub raw: String,
}

impl PrintfEntry {
    /// The bytes one record of this call takes in the buffer: the 4-byte ID and the arguments.
    pub fn record_len(&self) -> u64 {
        4 + self.sizes.iter().map(|s| u64::from(*s)).sum::<u64>()
    }

    /// The format string as a C literal body.
    pub fn escaped_format(&self) -> String {
        escape::escape(&self.format)
    }
}

/// What is wrong with an `amdhsa.printf` entry; `index` is its position in the array.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HsaError {
    /// `amdhsa.printf` is not an array.
    #[error("`{KEY}` is {found}, not an array of strings")]
    NotAnArray {
        /// The value it has, as text.
        found: String,
    },
    /// An element of the array is not a string.
    #[error("`{KEY}`[{index}] is {found}, not a string `ID:N:SIZE1:...:SIZEN:FORMAT`")]
    NotAString {
        /// Its position in the array.
        index: usize,
        /// The value it has, as text.
        found: String,
    },
    /// A numbered entry has fewer than two `:`, so it cannot hold an ID, a count and a format.
    #[error(
        "`{KEY}`[{index}] \"{entry}\" has too few `:`-separated fields: an entry is \
         `ID:N:SIZE1:...:SIZEN:FORMAT` (at least `ID:N:FORMAT`)"
    )]
    TooFewFields {
        /// Its position in the array.
        index: usize,
        /// The entry as written (lossy UTF-8).
        entry: String,
    },
    /// A numbered entry's ID, argument count or a size is not a decimal `u32`.
    #[error(
        "`{KEY}`[{index}] \"{entry}\": its {field} `{text}` is not a decimal number below 2^32 \
         (an entry is `ID:N:SIZE1:...:SIZEN:FORMAT`)"
    )]
    NotANumber {
        /// Its position in the array.
        index: usize,
        /// The entry as written (lossy UTF-8).
        entry: String,
        /// Which field: `ID`, `argument count` or `size of argument I` (1-based).
        field: String,
        /// The field's text.
        text: String,
    },
    /// A numbered entry lists more argument sizes than its argument count N.
    #[error(
        "`{KEY}`[{index}] \"{entry}\" lists {sizes} argument sizes but says the call has {count} \
         arguments"
    )]
    TooManySizes {
        /// Its position in the array.
        index: usize,
        /// The entry as written (lossy UTF-8).
        entry: String,
        /// How many sizes it lists.
        sizes: usize,
        /// Its argument count N.
        count: u32,
    },
    /// A buffered entry has no `,` after its hash, or the hash is not 1 to 16 hex digits.
    #[error(
        "`{KEY}`[{index}] \"{entry}\": `{text}` is not the hash of a HIP buffered printf entry: \
         an entry is `0:0:HASH,FORMAT`, HASH 1 to 16 hex digits (the low 64 bits of the \
         format's MD5, as clang -mprintf-kind=buffered writes it)"
    )]
    BadHash {
        /// Its position in the array.
        index: usize,
        /// The entry as written (lossy UTF-8).
        entry: String,
        /// The text read as the hash (the whole entry when it lacks the `0:0:` prefix).
        text: String,
    },
    /// The array holds both numbered entries and HIP buffered (`0:0:`) ones.
    #[error(
        "`{KEY}`[{index}] \"{entry}\" is {found} entry, but `{KEY}`[0] is {first} one: a table \
         holds the entries of one printf kind (`ID:N:SIZES:FORMAT` from OpenCL's \
         AMDGPUPrintfRuntimeBinding, or `0:0:HASH,FORMAT` from HIP's buffered printf)"
    )]
    MixedKinds {
        /// The position of the first entry not of the first entry's kind.
        index: usize,
        /// That entry as written (lossy UTF-8).
        entry: String,
        /// Its kind, for the message.
        found: &'static str,
        /// The kind of entry 0, for the message.
        first: &'static str,
    },
    /// [`printf_entries`] was asked for numbered entries of a HIP buffered printf table.
    #[error(
        "`{KEY}` holds HIP buffered printf entries (`0:0:HASH,FORMAT`), not numbered ones: read \
         it with `printf_table`"
    )]
    Buffered,
}

impl HsaError {
    /// The position of the entry in the array, when one entry is at fault.
    pub fn index(&self) -> Option<usize> {
        match self {
            HsaError::NotAnArray { .. } | HsaError::Buffered => None,
            HsaError::NotAString { index, .. }
            | HsaError::TooFewFields { index, .. }
            | HsaError::NotANumber { index, .. }
            | HsaError::TooManySizes { index, .. }
            | HsaError::BadHash { index, .. }
            | HsaError::MixedKinds { index, .. } => Some(*index),
        }
    }
}

/// The prefix of every HIP buffered printf entry.
pub const BUFFERED_PREFIX: &str = "0:0:";

/// The entry clang writes for a module whose printf formats are all unknown at compile time.
pub const PLACEHOLDER: &str = "0:0:ffffffff,\"Non const format string\"";

/// The hash HIP's buffered printf names `format` by: the low 64 bits of its MD5 (the first 8
/// bytes of the digest, little-endian), as LLVM's `MD5Result::low` gives them.
pub fn format_hash(format: &[u8]) -> u64 {
    let digest = Md5::digest(format);
    let mut low = [0u8; 8];
    low.copy_from_slice(&digest[..8]);
    u64::from_le_bytes(low)
}

/// One entry of HIP's buffered printf (`0:0:HASH,FORMAT`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferedEntry {
    /// The hash the buffer's records carry (read from the entry, not computed).
    pub hash: u64,
    /// The format's bytes (nothing is escaped in this kind of entry).
    pub format: Vec<u8>,
    /// The arguments the format takes (each `*` counts one), `None` when it does not parse.
    pub argument_count: Option<u32>,
    /// The entry as written in the metadata.
    pub raw: String,
}

impl BufferedEntry {
    /// Whether this is clang's placeholder for formats unknown at compile time ([`PLACEHOLDER`]).
    pub fn is_placeholder(&self) -> bool {
        self.raw == PLACEHOLDER
    }

    /// Whether the hash is the one the format has ([`format_hash`]).
    pub fn hash_matches(&self) -> bool {
        format_hash(&self.format) == self.hash
    }

    /// The format string as a C literal body.
    pub fn escaped_format(&self) -> String {
        escape::escape(&self.format)
    }
}

/// An `amdhsa.printf` array, by the printf that wrote it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PrintfTable {
    /// OpenCL's (and HIP's older non-hostcall) printf: numbered `ID:N:SIZES:FORMAT` entries.
    Numbered(Vec<PrintfEntry>),
    /// HIP's buffered printf (`-mprintf-kind=buffered`): `0:0:HASH,FORMAT` entries.
    Buffered(Vec<BufferedEntry>),
}

impl PrintfTable {
    /// The name of the kind, as `fmtstr dump --json` gives it (`printf_kind`).
    pub fn kind(&self) -> &'static str {
        match self {
            PrintfTable::Numbered(_) => "numbered",
            PrintfTable::Buffered(_) => "buffered",
        }
    }

    /// The number of entries (one per printf call, for both kinds).
    pub fn len(&self) -> usize {
        match self {
            PrintfTable::Numbered(entries) => entries.len(),
            PrintfTable::Buffered(entries) => entries.len(),
        }
    }

    /// Whether the table has no entries.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The numbered `amdhsa.printf` entries of a metadata document (OpenCL's kind): `None` when
/// the document has no such key, else every entry or the first one that does not parse. A table
/// of HIP's buffered printf is [`HsaError::Buffered`]: [`printf_table`] reads both kinds.
pub fn printf_entries(document: &Document<'_>) -> Option<Result<Vec<PrintfEntry>, HsaError>> {
    Some(match printf_table(document)? {
        Ok(PrintfTable::Numbered(entries)) => Ok(entries),
        Ok(PrintfTable::Buffered(_)) => Err(HsaError::Buffered),
        Err(error) => Err(error),
    })
}

/// The `amdhsa.printf` table of a metadata document, of either kind: `None` when the document
/// has no such key, else every entry or the first one that does not parse.
pub fn printf_table(document: &Document<'_>) -> Option<Result<PrintfTable, HsaError>> {
    // The document was checked when it was parsed, so reading one value cannot fail.
    let value = document.value_of(KEY).ok()??;
    Some(parse_table(&value))
}

fn parse_table(value: &Value) -> Result<PrintfTable, HsaError> {
    let Value::Array(items) = value else {
        return Err(HsaError::NotAnArray {
            found: value.to_string(),
        });
    };
    let mut strings = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        match item {
            Value::String(text) => strings.push(text.as_bytes()),
            _ => {
                return Err(HsaError::NotAString {
                    index,
                    found: item.to_string(),
                })
            }
        }
    }
    let buffered = |bytes: &[u8]| bytes.starts_with(BUFFERED_PREFIX.as_bytes());
    let first_is_buffered = strings.first().is_some_and(|bytes| buffered(bytes));
    let kind = |is_buffered: bool| {
        if is_buffered {
            "a HIP buffered printf (`0:0:HASH,FORMAT`)"
        } else {
            "a numbered (`ID:N:SIZES:FORMAT`)"
        }
    };
    if let Some(index) = strings
        .iter()
        .position(|b| buffered(b) != first_is_buffered)
    {
        return Err(HsaError::MixedKinds {
            index,
            entry: String::from_utf8_lossy(strings[index]).into_owned(),
            found: kind(!first_is_buffered),
            first: kind(first_is_buffered),
        });
    }
    let entries = strings.into_iter().enumerate();
    Ok(if first_is_buffered {
        PrintfTable::Buffered(
            entries
                .map(|(index, bytes)| parse_buffered_entry(index, bytes))
                .collect::<Result<_, _>>()?,
        )
    } else {
        PrintfTable::Numbered(
            entries
                .map(|(index, bytes)| parse_entry_bytes(index, bytes))
                .collect::<Result<_, _>>()?,
        )
    })
}

/// Whether the document is an HSA code object's (it has `amdhsa.version`).
pub fn is_code_object(document: &Document<'_>) -> bool {
    matches!(document.value_of("amdhsa.version"), Ok(Some(_)))
}

/// Whether a kernel of the code object takes a hostcall buffer (an argument whose
/// `.value_kind` is `hidden_hostcall_buffer`). HIP's default printf (`-mprintf-kind=hostcall`)
/// sends its calls through it to the runtime, which prints them as the kernel runs: it writes
/// no `amdhsa.printf` table and leaves no buffer to decode. (A kernel compiled at -O0 takes the
/// buffer whether or not it prints.)
pub fn takes_hostcall_buffer(document: &Document<'_>) -> bool {
    let Ok(Some(Value::Array(kernels))) = document.value_of("amdhsa.kernels") else {
        return false;
    };
    let field = |map: &Value, name: &str| -> Option<Value> {
        let Value::Map(pairs) = map else { return None };
        pairs
            .iter()
            .find(|(key, _)| key.as_str() == Some(name))
            .map(|(_, value)| value.clone())
    };
    kernels.iter().any(|kernel| match field(kernel, ".args") {
        Some(Value::Array(args)) => args.iter().any(|arg| {
            field(arg, ".value_kind").and_then(|kind| kind.as_str().map(str::to_owned))
                == Some("hidden_hostcall_buffer".to_owned())
        }),
        _ => false,
    })
}

/// Parses one `0:0:HASH,FORMAT` string (entry `index` of the array) of HIP's buffered printf.
pub fn parse_buffered_entry(index: usize, bytes: &[u8]) -> Result<BufferedEntry, HsaError> {
    let raw = String::from_utf8_lossy(bytes).into_owned();
    let Some(rest) = bytes.strip_prefix(BUFFERED_PREFIX.as_bytes()) else {
        return Err(HsaError::BadHash {
            index,
            text: raw.clone(),
            entry: raw,
        });
    };
    let comma = rest.iter().position(|b| *b == b',');
    let hex = &rest[..comma.unwrap_or(rest.len())];
    let hash = comma
        .filter(|_| !hex.is_empty() && hex.len() <= 16 && hex.iter().all(u8::is_ascii_hexdigit))
        .and_then(|_| std::str::from_utf8(hex).ok())
        .and_then(|digits| u64::from_str_radix(digits, 16).ok());
    let (Some(hash), Some(comma)) = (hash, comma) else {
        return Err(HsaError::BadHash {
            index,
            entry: raw,
            text: String::from_utf8_lossy(hex).into_owned(),
        });
    };
    let format = rest[comma + 1..].to_vec();
    let argument_count = Format::parse(&format)
        .ok()
        .and_then(|parsed| u32::try_from(parsed.argument_count()).ok());
    Ok(BufferedEntry {
        hash,
        format,
        argument_count,
        raw,
    })
}

/// Parses one `ID:N:SIZE1:...:SIZEk:FORMAT` string (entry `index` of the array).
pub fn parse_entry(index: usize, text: &str) -> Result<PrintfEntry, HsaError> {
    parse_entry_bytes(index, text.as_bytes())
}

/// [`parse_entry`] for a string that may not be UTF-8 (the format's bytes are kept exactly).
pub fn parse_entry_bytes(index: usize, bytes: &[u8]) -> Result<PrintfEntry, HsaError> {
    let raw = String::from_utf8_lossy(bytes).into_owned();
    let too_few = || HsaError::TooFewFields {
        index,
        entry: raw.clone(),
    };
    // The format has no raw ':' (the writer spells it \72): it follows the last one.
    let last = bytes.iter().rposition(|b| *b == b':').ok_or_else(too_few)?;
    let fields: Vec<&[u8]> = bytes[..last].split(|b| *b == b':').collect();
    if fields.len() < 2 {
        return Err(too_few());
    }
    let number = |field: String, value: &[u8]| -> Result<u32, HsaError> {
        let not_a_number = || HsaError::NotANumber {
            index,
            entry: raw.clone(),
            field: field.clone(),
            text: String::from_utf8_lossy(value).into_owned(),
        };
        if value.is_empty() || !value.iter().all(u8::is_ascii_digit) {
            return Err(not_a_number());
        }
        std::str::from_utf8(value)
            .ok()
            .and_then(|digits| digits.parse::<u32>().ok())
            .ok_or_else(not_a_number)
    };
    let id = number("ID".into(), fields[0])?;
    let argument_count = number("argument count".into(), fields[1])?;
    let sizes = fields[2..]
        .iter()
        .enumerate()
        .map(|(i, size)| number(format!("size of argument {}", i + 1), size))
        .collect::<Result<Vec<u32>, _>>()?;
    if sizes.len() > argument_count as usize {
        return Err(HsaError::TooManySizes {
            index,
            entry: raw,
            sizes: sizes.len(),
            count: argument_count,
        });
    }
    Ok(PrintfEntry {
        id,
        argument_count,
        sizes,
        format: unescape(&bytes[last + 1..]),
        raw,
    })
}

/// The writer's escapes undone: `\72` is `:`, `\a \b \f \n \r \v` their control characters;
/// any other backslash stays.
fn unescape(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        if text[i] == b'\\' {
            let control = match text.get(i + 1) {
                Some(b'a') => Some(0x07),
                Some(b'b') => Some(0x08),
                Some(b'f') => Some(0x0c),
                Some(b'n') => Some(b'\n'),
                Some(b'r') => Some(b'\r'),
                Some(b'v') => Some(0x0b),
                _ => None,
            };
            if let Some(byte) = control {
                out.push(byte);
                i += 2;
                continue;
            }
            if text.get(i + 1..i + 3) == Some(b"72") {
                out.push(b':');
                i += 3;
                continue;
            }
        }
        out.push(text[i]);
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_what_clang_writes() {
        let entry = parse_entry(0, "4:3:4:4:8:x=%d f=%f l=%ld\\n").expect("parses");
        assert_eq!(entry.id, 4);
        assert_eq!(entry.argument_count, 3);
        assert_eq!(entry.sizes, [4, 4, 8]);
        assert_eq!(entry.format, b"x=%d f=%f l=%ld\n");
        assert_eq!(entry.record_len(), 20);
        let colon = parse_entry(1, "1:0:no args\\72 \\a tab\there").expect("parses");
        assert_eq!(colon.format, b"no args: \x07 tab\there");
        assert!(colon.sizes.is_empty());
    }

    #[test]
    fn refuses_broken_entries() {
        assert!(matches!(
            parse_entry(0, "1:x=%d"),
            Err(HsaError::TooFewFields { .. })
        ));
        assert!(matches!(
            parse_entry(0, "1:1:four:x=%d"),
            Err(HsaError::NotANumber { .. })
        ));
        assert!(matches!(
            parse_entry(0, "-1:0:x"),
            Err(HsaError::NotANumber { .. })
        ));
        assert!(matches!(
            parse_entry(0, "1:1:4:4:%d %d"),
            Err(HsaError::TooManySizes { .. })
        ));
        assert!(matches!(
            parse_entry(0, "99999999999:0:x"),
            Err(HsaError::NotANumber { .. })
        ));
        // A format that is not UTF-8 keeps its bytes.
        let latin1 = parse_entry_bytes(0, b"7:1:4:caf\xe9 %d").expect("parses");
        assert_eq!(latin1.format, b"caf\xe9 %d");
    }

    #[test]
    fn buffered_entries_name_their_format_by_its_md5() {
        // What clang 19 and 22 write for `printf("int %d\n", x)`.
        let entry = parse_buffered_entry(0, b"0:0:415b92beca7d5e27,int %d\n").expect("parses");
        assert_eq!(entry.hash, 0x415b_92be_ca7d_5e27);
        assert_eq!(entry.format, b"int %d\n");
        assert_eq!(entry.argument_count, Some(1));
        assert!(entry.hash_matches());
        assert_eq!(format_hash(b"none\n"), 0xdaf8_63cf_2f15_5b7e);
        // Nothing is escaped: ':' ',' and a backslash are themselves.
        let raw = parse_buffered_entry(1, b"0:0:1,a:b, c\\n %*d").expect("parses");
        assert_eq!(raw.format, b"a:b, c\\n %*d");
        assert_eq!(raw.argument_count, Some(2));
        assert!(!raw.hash_matches());
        let placeholder = parse_buffered_entry(0, PLACEHOLDER.as_bytes()).expect("parses");
        assert!(placeholder.is_placeholder());
        assert_eq!(placeholder.hash, 0xffff_ffff);
        for broken in [
            &b"0:0:415b92beca7d5e27"[..],
            b"0:0:,x",
            b"0:0:xyz,x",
            b"0:0:10000000000000000,x",
            b"0:0:-1,x",
        ] {
            assert!(
                matches!(
                    parse_buffered_entry(0, broken),
                    Err(HsaError::BadHash { .. })
                ),
                "{}",
                String::from_utf8_lossy(broken)
            );
        }
    }

    #[test]
    fn a_table_is_of_one_kind() {
        let table = |entries: &[&str]| {
            parse_table(&Value::Array(
                entries.iter().map(|e| Value::from(*e)).collect(),
            ))
        };
        assert!(matches!(
            table(&["0:0:1,a", "0:0:2,b"]),
            Ok(PrintfTable::Buffered(entries)) if entries.len() == 2
        ));
        assert!(matches!(
            table(&["1:0:a", "2:0:b"]),
            Ok(PrintfTable::Numbered(entries)) if entries.len() == 2
        ));
        assert!(matches!(table(&[]), Ok(PrintfTable::Numbered(e)) if e.is_empty()));
        let mixed = table(&["1:0:a", "0:0:1,b"]).unwrap_err();
        assert!(
            matches!(mixed, HsaError::MixedKinds { index: 1, .. }),
            "{mixed}"
        );
        assert_eq!(mixed.index(), Some(1));
        assert!(matches!(
            table(&["0:0:1,a", "0:0:zz,b"]),
            Err(HsaError::BadHash { index: 1, .. })
        ));
    }
}
