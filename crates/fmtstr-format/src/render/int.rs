//! Integers: digits, precision zeros, prefixes and padding, without allocating.

use super::{push_repeat, Field};

/// The digit alphabet of an integer conversion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Radix {
    /// `d i u`
    Decimal,
    /// `o`
    Octal,
    /// `x`
    LowerHex,
    /// `X`
    UpperHex,
}

const DECIMAL_PAIRS: &[u8; 200] = b"\
0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// The two hex digits of every byte, in `alphabet`'s case.
const fn hex_pairs(alphabet: &[u8; 16]) -> [[u8; 2]; 256] {
    let mut table = [[0u8; 2]; 256];
    let mut i = 0;
    while i < 256 {
        table[i] = [alphabet[i >> 4], alphabet[i & 15]];
        i += 1;
    }
    table
}

const HEX_PAIRS_LOWER: [[u8; 2]; 256] = hex_pairs(b"0123456789abcdef");
const HEX_PAIRS_UPPER: [[u8; 2]; 256] = hex_pairs(b"0123456789ABCDEF");

/// Enough for 22 octal digits of a u64.
const DIGITS_MAX: usize = 24;

/// The two ASCII digits of `n < 100`.
#[inline]
fn pair(n: usize) -> [u8; 2] {
    [DECIMAL_PAIRS[2 * n], DECIMAL_PAIRS[2 * n + 1]]
}

/// Writes the decimal digits of `value` so that they end at `buf[end]`; returns where they
/// start. Four digits per step: one division by a constant where two pairs took two.
#[inline]
pub(crate) fn decimal_digits(mut value: u64, buf: &mut [u8], end: usize) -> usize {
    let mut at = end;
    while value >= 10_000 {
        let four = (value % 10_000) as usize;
        value /= 10_000;
        let [a, b] = pair(four / 100);
        let [c, d] = pair(four % 100);
        at -= 4;
        buf[at..at + 4].copy_from_slice(&[a, b, c, d]);
    }
    let mut value = value as usize;
    if value >= 100 {
        at -= 2;
        buf[at..at + 2].copy_from_slice(&pair(value % 100));
        value /= 100;
    }
    if value >= 10 {
        at -= 2;
        buf[at..at + 2].copy_from_slice(&pair(value));
    } else {
        at -= 1;
        buf[at] = b'0' + value as u8;
    }
    at
}

/// Writes the digits of `value` (no sign, prefix or padding) so that they end at `buf[end]`;
/// returns where they start. `buf[..end]` must have room for 22 digits (octal `u64::MAX`).
/// Public for renderers with their own hot path (the buffer decoder).
#[inline]
pub fn digits(mut value: u64, radix: Radix, buf: &mut [u8], end: usize) -> usize {
    let mut at = end;
    match radix {
        Radix::Decimal => return decimal_digits(value, buf, end),
        Radix::Octal => loop {
            at -= 1;
            buf[at] = b'0' + (value & 7) as u8;
            value >>= 3;
            if value == 0 {
                break;
            }
        },
        Radix::LowerHex | Radix::UpperHex => {
            // Two digits per step: half the iterations of one nibble at a time.
            let pairs = if radix == Radix::LowerHex {
                &HEX_PAIRS_LOWER
            } else {
                &HEX_PAIRS_UPPER
            };
            while value >= 0x100 {
                at -= 2;
                buf[at..at + 2].copy_from_slice(&pairs[(value & 0xff) as usize]);
                value >>= 8;
            }
            let pair = pairs[value as usize];
            if value >= 0x10 {
                at -= 2;
                buf[at..at + 2].copy_from_slice(&pair);
            } else {
                at -= 1;
                buf[at] = pair[1];
            }
        }
    }
    at
}

/// Renders an integer magnitude with an optional sign character, the way glibc does for
/// `d i u o x X` (and `p`, which arrives here as `%#x` with its sign flags kept).
pub(crate) fn render(out: &mut Vec<u8>, field: &Field, value: u64, sign: Option<u8>, radix: Radix) {
    let flags = field.flags;
    let mut buf = [0u8; DIGITS_MAX];
    // C: a zero value with precision zero prints no digits at all.
    let start = if value == 0 && field.precision == Some(0) {
        DIGITS_MAX
    } else {
        digits(value, radix, &mut buf, DIGITS_MAX)
    };
    let digits = &buf[start..];

    let mut prefix = [0u8; 3];
    let mut prefix_len = 0;
    if let Some(sign) = sign {
        prefix[0] = sign;
        prefix_len = 1;
    }
    if flags.alt && value != 0 {
        match radix {
            Radix::LowerHex => {
                prefix[prefix_len..prefix_len + 2].copy_from_slice(b"0x");
                prefix_len += 2;
            }
            Radix::UpperHex => {
                prefix[prefix_len..prefix_len + 2].copy_from_slice(b"0X");
                prefix_len += 2;
            }
            _ => {}
        }
    }

    let mut zeros = field.precision.unwrap_or(1).saturating_sub(digits.len());
    // `#o` raises the precision just enough that the first digit is a zero.
    if flags.alt && radix == Radix::Octal && zeros == 0 && digits.first() != Some(&b'0') {
        zeros = 1;
    }
    let body = prefix_len + zeros + digits.len();
    let pad = field.width.saturating_sub(body);
    out.reserve(body + pad);
    if flags.left {
        out.extend_from_slice(&prefix[..prefix_len]);
        push_repeat(out, b'0', zeros);
        out.extend_from_slice(digits);
        push_repeat(out, b' ', pad);
    } else if flags.zero && field.precision.is_none() {
        out.extend_from_slice(&prefix[..prefix_len]);
        push_repeat(out, b'0', zeros + pad);
        out.extend_from_slice(digits);
    } else {
        push_repeat(out, b' ', pad);
        out.extend_from_slice(&prefix[..prefix_len]);
        push_repeat(out, b'0', zeros);
        out.extend_from_slice(digits);
    }
}
