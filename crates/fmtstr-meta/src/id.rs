//! The 48-bit format-string ID.

use std::fmt;
use std::str::FromStr;

/// A 48-bit format-string ID, never 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FormatId(u64);

impl FormatId {
    /// The number of bits an ID occupies in the printf buffer's entry header.
    pub const BITS: u32 = 48;
    /// The largest ID.
    pub const MAX: FormatId = FormatId((1 << Self::BITS) - 1);

    /// fmtstr's ID for a format string (its bytes without the trailing NUL).
    pub fn of(format: &[u8]) -> FormatId {
        let low = xxhash_rust::xxh3::xxh3_64(format) & Self::MAX.0;
        // 0 marks unwritten buffer space, so no format string may have it.
        FormatId(low.max(1))
    }

    /// An ID read from a file or a buffer: any value in 1..=2^48-1.
    pub fn new(value: u64) -> Option<FormatId> {
        (1..=Self::MAX.0)
            .contains(&value)
            .then_some(FormatId(value))
    }

    /// The ID as a number.
    pub fn get(self) -> u64 {
        self.0
    }
}

impl fmt::Display for FormatId {
    /// Decimal by default; `{:#}` gives `0x` and 12 hex digits.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if f.alternate() {
            write!(f, "{:#014x}", self.0)
        } else {
            write!(f, "{}", self.0)
        }
    }
}

impl fmt::LowerHex for FormatId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::LowerHex::fmt(&self.0, f)
    }
}

/// Why a string is not a format-string ID.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseIdError {
    /// The text (carried as given) is empty, signed, or has a character that is not a digit
    /// of its radix.
    #[error("`{0}` is not a number (write an ID in decimal or as 0x followed by hex digits)")]
    NotANumber(String),
    /// The text (carried as given) is a number, but 0 or above 48 bits.
    #[error("`{0}` is out of range: an ID is between 1 and 0xffffffffffff (48 bits, never 0)")]
    OutOfRange(String),
}

impl FromStr for FormatId {
    type Err = ParseIdError;

    /// Parses decimal (`123`) or hex with a `0x`/`0X` prefix (`0x7b`); `_` separators are allowed.
    fn from_str(text: &str) -> Result<FormatId, ParseIdError> {
        let digits: String = text.trim().chars().filter(|c| *c != '_').collect();
        let (radix, body) = match digits.strip_prefix("0x").or(digits.strip_prefix("0X")) {
            Some(hex) => (16, hex),
            None => (10, digits.as_str()),
        };
        if body.is_empty() || body.starts_with(['+', '-']) {
            return Err(ParseIdError::NotANumber(text.to_owned()));
        }
        let value = u64::from_str_radix(body, radix).map_err(|error| match error.kind() {
            std::num::IntErrorKind::PosOverflow => ParseIdError::OutOfRange(text.to_owned()),
            _ => ParseIdError::NotANumber(text.to_owned()),
        })?;
        FormatId::new(value).ok_or_else(|| ParseIdError::OutOfRange(text.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Expected values computed once with the xxHash C library (Python's `xxhash` package,
    /// `xxh3_64_intdigest`), not with the Rust crate under test.
    #[test]
    fn ids_are_the_low_48_bits_of_reference_xxh3() {
        let all_bytes: Vec<u8> = (0..=255u8).cycle().take(768).collect();
        let cases: [(&[u8], u64); 6] = [
            (b"", 0x2d06800538d394c2),
            (b"a", 0xe6c632b61e964e1f),
            (b"x=%d\n", 0x11ed60281a928696),
            (b"hello %s world %f\n", 0xcb1ad0b9336130e0),
            (b"%v4hlf\n", 0xed5c8b3d03f4763f),
            (&all_bytes, 0x4066a57f4496584a),
        ];
        for (bytes, xxh3) in cases {
            assert_eq!(
                FormatId::of(bytes).get(),
                xxh3 & 0xffff_ffff_ffff,
                "{bytes:?}"
            );
        }
    }

    #[test]
    fn zero_is_never_an_id() {
        assert_eq!(FormatId::new(0), None);
        assert_eq!(FormatId::new(1 << 48), None);
        assert_eq!(FormatId::new(1).map(FormatId::get), Some(1));
        assert_eq!(FormatId::MAX.get(), 0xffff_ffff_ffff);
    }

    #[test]
    fn prints_decimal_and_hex() {
        let id = FormatId::new(0x11ed60281a92).expect("valid id");
        assert_eq!(id.to_string(), "19711218162322");
        assert_eq!(format!("{id:#}"), "0x11ed60281a92");
        assert_eq!(
            format!("{:#}", FormatId::new(0x7b).expect("valid id")),
            "0x00000000007b"
        );
    }

    #[test]
    fn parses_decimal_and_hex() {
        assert_eq!("123".parse::<FormatId>().map(FormatId::get), Ok(123));
        assert_eq!("0x7B".parse::<FormatId>().map(FormatId::get), Ok(123));
        assert_eq!("0x_ffff_ffff_ffff".parse::<FormatId>(), Ok(FormatId::MAX));
        assert!(matches!(
            "0".parse::<FormatId>(),
            Err(ParseIdError::OutOfRange(_))
        ));
        assert!(matches!(
            "0x1000000000000".parse::<FormatId>(),
            Err(ParseIdError::OutOfRange(_))
        ));
        assert!(matches!(
            "99999999999999999999999".parse::<FormatId>(),
            Err(ParseIdError::OutOfRange(_))
        ));
        for bad in ["", "0x", "-1", "+1", "12a", "0xg"] {
            assert!(
                matches!(bad.parse::<FormatId>(), Err(ParseIdError::NotANumber(_))),
                "{bad}"
            );
        }
    }

    #[test]
    fn round_trips_through_text() {
        for value in [1, 42, 0xdead_beef, FormatId::MAX.get()] {
            let id = FormatId::new(value).expect("valid id");
            assert_eq!(id.to_string().parse(), Ok(id));
            assert_eq!(format!("{id:#}").parse(), Ok(id));
        }
    }
}
