//! Format strings as C string-literal text, and back.
//!
//! Format strings are bytes (not always UTF-8) that people read and type as C literals, so every
//! place that shows or accepts one as text goes through here: `escape` is the inverse of
//! `unescape` for every byte sequence.

use std::fmt::Write;

/// The bytes as the body of a C string literal: printable ASCII stays, `"` and `\` are escaped,
/// the usual control characters use their short escapes and everything else is `\xHH`.
pub fn escape(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(bytes.len());
    for (index, &byte) in bytes.iter().enumerate() {
        match byte {
            b'\n' => text.push_str("\\n"),
            b'\t' => text.push_str("\\t"),
            b'\r' => text.push_str("\\r"),
            b'\\' => text.push_str("\\\\"),
            b'"' => text.push_str("\\\""),
            0x20..=0x7e => {
                // A hex digit right after `\xHH` would be read as part of the escape in C.
                let after_hex_escape = index > 0 && needs_hex(bytes[index - 1]);
                if after_hex_escape && byte.is_ascii_hexdigit() {
                    let _ = write!(text, "\\x{byte:02x}");
                } else {
                    text.push(char::from(byte));
                }
            }
            _ => {
                let _ = write!(text, "\\x{byte:02x}");
            }
        }
    }
    text
}

fn needs_hex(byte: u8) -> bool {
    !matches!(byte, b'\n' | b'\t' | b'\r' | b'\\' | b'"' | 0x20..=0x7e)
}

/// Why text is not a valid C string-literal body.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad escape at byte {offset}: {reason}")]
pub struct UnescapeError {
    /// Byte offset of the backslash in the text.
    pub offset: usize,
    /// What was wrong and what would have been accepted.
    pub reason: &'static str,
}

/// The bytes a C string-literal body denotes: `\n \t \r \a \b \f \v \e \0 \\ \" \' \? \xHH`
/// (one or two hex digits) and `\ooo` (one to three octal digits).
pub fn unescape(text: &str) -> Result<Vec<u8>, UnescapeError> {
    unescape_bytes(text.as_bytes())
}

/// [`unescape`] for text that need not be UTF-8 (a command-line argument on Unix is any bytes):
/// bytes outside the escapes are kept as they are.
pub fn unescape_bytes(bytes: &[u8]) -> Result<Vec<u8>, UnescapeError> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while let Some(&byte) = bytes.get(index) {
        if byte != b'\\' {
            out.push(byte);
            index += 1;
            continue;
        }
        let offset = index;
        let Some(&kind) = bytes.get(index + 1) else {
            return Err(UnescapeError {
                offset,
                reason: "a lone backslash ends the text; write \\\\ for a backslash",
            });
        };
        index += 2;
        let simple = match kind {
            b'n' => Some(b'\n'),
            b't' => Some(b'\t'),
            b'r' => Some(b'\r'),
            b'a' => Some(0x07),
            b'b' => Some(0x08),
            b'f' => Some(0x0c),
            b'v' => Some(0x0b),
            b'e' => Some(0x1b),
            b'\\' | b'"' | b'\'' | b'?' => Some(kind),
            _ => None,
        };
        if let Some(value) = simple {
            out.push(value);
        } else if kind == b'x' {
            let digits = take_digits(&bytes[index..], 2, 16);
            if digits.is_empty() {
                return Err(UnescapeError {
                    offset,
                    reason: "\\x needs one or two hex digits",
                });
            }
            out.push(digits_value(digits, 16));
            index += digits.len();
        } else if kind.is_ascii_digit() && kind < b'8' {
            let digits = take_digits(&bytes[index - 1..], 3, 8);
            let value = digits
                .iter()
                .fold(0u16, |acc, d| acc * 8 + u16::from(d - b'0'));
            let Ok(value) = u8::try_from(value) else {
                return Err(UnescapeError {
                    offset,
                    reason: "octal escape above \\377",
                });
            };
            out.push(value);
            index += digits.len() - 1;
        } else {
            return Err(UnescapeError {
                offset,
                reason: "unknown escape; use one of \\n \\t \\r \\a \\b \\f \\v \\e \\\\ \\\" \\' \\? \\xHH \\ooo",
            });
        }
    }
    Ok(out)
}

fn take_digits(bytes: &[u8], most: usize, radix: u32) -> &[u8] {
    let count = bytes
        .iter()
        .take(most)
        .take_while(|byte| char::from(**byte).is_digit(radix))
        .count();
    &bytes[..count]
}

fn digits_value(digits: &[u8], radix: u32) -> u8 {
    digits.iter().fold(0u8, |acc, digit| {
        let value = char::from(*digit).to_digit(radix).unwrap_or(0) as u8;
        acc.wrapping_mul(radix as u8).wrapping_add(value)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_like_a_c_literal() {
        assert_eq!(escape(b"x=%d\n"), "x=%d\\n");
        assert_eq!(escape(b"a\"b\\c\td"), "a\\\"b\\\\c\\td");
        assert_eq!(escape(b"\x00\xffz"), "\\x00\\xffz");
        // `\x01` followed by `a` must not read back as `\x1a`.
        assert_eq!(escape(b"\x01a"), "\\x01\\x61");
    }

    #[test]
    fn unescapes_every_c_escape() {
        let text = r#"\n\t\r\a\b\f\v\e\\\"\'\?\x41\x7\101\0\12z"#;
        let expected = b"\n\t\r\x07\x08\x0c\x0b\x1b\\\"'?A\x07A\x00\nz";
        assert_eq!(unescape(text).as_deref(), Ok(&expected[..]));
    }

    #[test]
    fn unescape_bytes_keeps_bytes_that_are_not_utf8() {
        // A raw 0xE9, then the escape `\xe9`, then an escaped backslash.
        let text = b"caf\xe9 \\xe9 \\\\";
        assert_eq!(unescape_bytes(text).as_deref(), Ok(&b"caf\xe9 \xe9 \\"[..]));
    }

    #[test]
    fn rejects_bad_escapes_with_offsets() {
        assert_eq!(unescape("ab\\").map_err(|e| e.offset), Err(2));
        assert_eq!(unescape("a\\q").map_err(|e| e.offset), Err(1));
        assert_eq!(unescape("\\xg").map_err(|e| e.offset), Err(0));
        assert_eq!(unescape("\\400").map_err(|e| e.offset), Err(0));
    }

    #[test]
    fn escape_then_unescape_is_identity() {
        let all: Vec<u8> = (0..=255u8).chain(b"1a\\x".iter().copied()).collect();
        for window in all.windows(3) {
            assert_eq!(unescape(&escape(window)).as_deref(), Ok(window));
        }
        assert_eq!(unescape(&escape(&all)), Ok(all));
    }
}
