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

use fmtstr_meta::escape;
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
    #[error("`{KEY}` is {found}, not an array of strings")]
    NotAnArray { found: String },
    #[error("`{KEY}`[{index}] is {found}, not a string `ID:N:SIZE1:...:SIZEN:FORMAT`")]
    NotAString { index: usize, found: String },
    #[error(
        "`{KEY}`[{index}] \"{entry}\" has too few `:`-separated fields: an entry is \
         `ID:N:SIZE1:...:SIZEN:FORMAT` (at least `ID:N:FORMAT`)"
    )]
    TooFewFields { index: usize, entry: String },
    #[error(
        "`{KEY}`[{index}] \"{entry}\": its {field} `{text}` is not a decimal number below 2^32 \
         (an entry is `ID:N:SIZE1:...:SIZEN:FORMAT`)"
    )]
    NotANumber {
        index: usize,
        entry: String,
        field: String,
        text: String,
    },
    #[error(
        "`{KEY}`[{index}] \"{entry}\" lists {sizes} argument sizes but says the call has {count} \
         arguments"
    )]
    TooManySizes {
        index: usize,
        entry: String,
        sizes: usize,
        count: u32,
    },
}

/// The `amdhsa.printf` entries of a metadata document: `None` when the document has no such
/// key, else every entry or the first one that does not parse.
pub fn printf_entries(document: &Document<'_>) -> Option<Result<Vec<PrintfEntry>, HsaError>> {
    // The document was checked when it was parsed, so reading one value cannot fail.
    let value = document.value_of(KEY).ok()??;
    Some(parse_array(&value))
}

fn parse_array(value: &Value) -> Result<Vec<PrintfEntry>, HsaError> {
    let Value::Array(items) = value else {
        return Err(HsaError::NotAnArray {
            found: value.to_string(),
        });
    };
    items
        .iter()
        .enumerate()
        .map(|(index, item)| match item {
            Value::String(text) => parse_entry_bytes(index, text.as_bytes()),
            _ => Err(HsaError::NotAString {
                index,
                found: item.to_string(),
            }),
        })
        .collect()
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
}
