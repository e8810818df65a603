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
pub(crate) fn pair(n: usize) -> [u8; 2] {
    [DECIMAL_PAIRS[2 * n], DECIMAL_PAIRS[2 * n + 1]]
}

/// 10^0 ..= 10^19, every power of ten a u64 holds (the float digits use it too).
pub(crate) const POW10: [u64; 20] = {
    let mut table = [1u64; 20];
    let mut i = 1;
    while i < table.len() {
        table[i] = table[i - 1] * 10;
        i += 1;
    }
    table
};

/// How many decimal digits `value` has (1 for 0), without dividing or branching: 1233 / 4096
/// is just below log10 2, so the guess from the bit length is the count or one less.
#[inline]
pub(crate) fn decimal_len(value: u64) -> usize {
    let bits = 64 - (value | 1).leading_zeros() as usize;
    let guess = (bits * 1233) >> 12;
    // `| 1`: zero has one digit; for other values it changes no comparison with 10^g.
    guess + usize::from((value | 1) >= POW10[guess])
}

/// 10^8: the values [`eight_digits`] takes are below it.
const E8: u64 = 100_000_000;

/// The eight decimal digits of `n < 10^8`, leading zeros included, as the ASCII bytes of a
/// little-endian u64 (most significant digit first in memory), without a branch: 32-bit
/// lanes split at 10^4, then 16-bit lanes at 100, then bytes at 10, each division a
/// multiplication by a reciprocal that is exact below the lane's bound.
#[inline]
fn eight_digits(n: u64) -> [u8; 8] {
    let abcd_efgh = (n / 10_000) | ((n % 10_000) << 32);
    let ab_ef = ((abcd_efgh * 10_486) >> 20) & 0x0000_007F_0000_007F;
    let ab_cd_ef_gh = ab_ef | ((abcd_efgh - ab_ef * 100) << 16);
    let tens = ((ab_cd_ef_gh * 103) >> 10) & 0x000F_000F_000F_000F;
    let digits = tens | ((ab_cd_ef_gh - tens * 10) << 8);
    (digits + 0x3030_3030_3030_3030).to_le_bytes()
}

/// Writes the decimal digits of `value` so that they end at `buf[end]`; returns where they
/// start. With 24 bytes of room before `end`, the digits are written eight at a time with
/// their leading zeros (which land below the start): no loop whose length depends on the
/// value, which a random mix of values mispredicts. Else four digits per step.
// Always inlined: a float's two calls then know their buffer's size and end, and skip the
// room checks and the call.
#[inline(always)]
pub(crate) fn decimal_digits(value: u64, buf: &mut [u8], end: usize) -> usize {
    if end >= 24 && end <= buf.len() {
        let start = end - decimal_len(value);
        buf[end - 8..end].copy_from_slice(&eight_digits(value % E8));
        if value >= E8 {
            let high = value / E8;
            buf[end - 16..end - 8].copy_from_slice(&eight_digits(high % E8));
            if high >= E8 {
                buf[end - 24..end - 16].copy_from_slice(&eight_digits(high / E8));
            }
        }
        return start;
    }
    decimal_digits_short(value, buf, end)
}

/// [`decimal_digits`] with less room before `end`: only the digits are written.
#[inline]
fn decimal_digits_short(mut value: u64, buf: &mut [u8], end: usize) -> usize {
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

/// The eight hex digits of the low 32 bits of `n`, leading zeros included, as ASCII bytes
/// (most significant first in memory), without a branch: the nibbles are spread one to a
/// byte by three shift-and-mask steps, and `letter` (`'a' - '9' - 1` or `'A' - '9' - 1`) is
/// added to the bytes of 10 and above.
#[inline]
fn eight_hex(n: u64, letter: u64) -> [u8; 8] {
    let x = n & 0xffff_ffff;
    let x = (x | x << 16) & 0x0000_ffff_0000_ffff;
    let x = (x | x << 8) & 0x00ff_00ff_00ff_00ff;
    let x = (x | x << 4) & 0x0f0f_0f0f_0f0f_0f0f;
    // 1 in each byte whose nibble is 10 or more (nibble + 6 reaches 16).
    let letters = ((x + 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101;
    (x + 0x3030_3030_3030_3030 + letters * letter).to_be_bytes()
}

/// The eight octal digits of the low 24 bits of `n`, as [`eight_hex`] lays them out.
#[inline]
fn eight_octal(n: u64) -> [u8; 8] {
    let x = n & 0xff_ffff;
    let x = (x | x << 20) & 0x0000_0fff_0000_0fff;
    let x = (x | x << 10) & 0x003f_003f_003f_003f;
    let x = (x | x << 5) & 0x0707_0707_0707_0707;
    (x + 0x3030_3030_3030_3030).to_be_bytes()
}

/// Writes the digits of `value` (no sign, prefix or padding) so that they end at `buf[end]`;
/// returns where they start. `buf[..end]` must have room for 22 digits (octal `u64::MAX`).
/// With 24 bytes of room, hex and octal digits are written eight at a time with their
/// leading zeros, every word whatever the value: no loop of value-dependent length, which a
/// random mix of values mispredicts. Public for renderers with their own hot path (the
/// buffer decoder).
#[inline]
pub fn digits(mut value: u64, radix: Radix, buf: &mut [u8], end: usize) -> usize {
    let mut at = end;
    let room = end >= 24 && end <= buf.len();
    let bits = 64 - (value | 1).leading_zeros() as usize;
    match radix {
        Radix::Decimal => return decimal_digits(value, buf, end),
        Radix::Octal if room => {
            buf[end - 8..end].copy_from_slice(&eight_octal(value));
            buf[end - 16..end - 8].copy_from_slice(&eight_octal(value >> 24));
            buf[end - 24..end - 16].copy_from_slice(&eight_octal(value >> 48));
            return end - bits.div_ceil(3);
        }
        Radix::LowerHex | Radix::UpperHex if room => {
            let letter = if radix == Radix::LowerHex { 0x27 } else { 0x07 };
            buf[end - 8..end].copy_from_slice(&eight_hex(value, letter));
            buf[end - 16..end - 8].copy_from_slice(&eight_hex(value >> 32, letter));
            return end - bits.div_ceil(4);
        }
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

/// [`digits`] of a 32-bit value, in fewer words and with no branch on its size (which a
/// random mix of values mispredicts): ten decimal digits as eight and a pair, eight hex
/// digits, eleven octal digits as two words, each written whatever the value. Public for the
/// buffer decoder's renderers of 32-bit conversions.
#[inline]
pub fn digits_u32(value: u32, radix: Radix, buf: &mut [u8], end: usize) -> usize {
    if end < 16 || end > buf.len() {
        return digits(u64::from(value), radix, buf, end);
    }
    let wide = u64::from(value);
    let bits = 32 - (value | 1).leading_zeros() as usize;
    match radix {
        Radix::Decimal => {
            buf[end - 8..end].copy_from_slice(&eight_digits(wide % E8));
            // Below 43: a u32 has at most ten digits.
            buf[end - 10..end - 8].copy_from_slice(&pair((wide / E8) as usize));
            end - decimal_len(wide)
        }
        Radix::Octal => {
            buf[end - 8..end].copy_from_slice(&eight_octal(wide));
            buf[end - 16..end - 8].copy_from_slice(&eight_octal(wide >> 24));
            end - bits.div_ceil(3)
        }
        Radix::LowerHex | Radix::UpperHex => {
            let letter = if radix == Radix::LowerHex { 0x27 } else { 0x07 };
            buf[end - 8..end].copy_from_slice(&eight_hex(wide, letter));
            end - bits.div_ceil(4)
        }
    }
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

#[cfg(test)]
mod tests {
    //! Digits against `core::fmt`: decimal around every power of ten, hex and octal around
    //! every power of two, all at random.

    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    use super::*;

    fn check(value: u64) {
        let text = value.to_string();
        assert_eq!(decimal_len(value), text.len(), "{value}");
        for end in [20, 24, 40] {
            let mut buf = [b'#'; 40];
            let start = decimal_digits(value, &mut buf, end);
            assert_eq!(&buf[start..end], text.as_bytes(), "{value} ending at {end}");
        }
    }

    #[test]
    fn decimal_digits_match_std() {
        for power in POW10 {
            for value in [power - 1, power, power + 1] {
                check(value);
            }
        }
        check(0);
        check(u64::MAX);
        let mut rng = SmallRng::seed_from_u64(3);
        for _ in 0..100_000 {
            check(rng.gen::<u64>() >> rng.gen_range(0..64));
        }
    }

    fn check_radix(value: u64) {
        let cases = [
            (Radix::Octal, format!("{value:o}")),
            (Radix::LowerHex, format!("{value:x}")),
            (Radix::UpperHex, format!("{value:X}")),
        ];
        for (radix, text) in cases {
            // 22 bytes of room take the loops, 24 and more the words.
            for end in [22, 24, 40] {
                let mut buf = [b'#'; 40];
                let start = digits(value, radix, &mut buf, end);
                assert_eq!(
                    &buf[start..end],
                    text.as_bytes(),
                    "{value} {radix:?} at {end}"
                );
            }
        }
    }

    #[test]
    fn digits_of_u32_match_std() {
        let mut rng = SmallRng::seed_from_u64(6);
        let powers = (0..10).map(|k| POW10[k] as u32);
        let edges = (0..32).map(|shift| 1u32 << shift).chain(powers);
        let values: Vec<u32> = edges
            .flat_map(|v| [v.wrapping_sub(1), v, v.wrapping_add(1)])
            .chain([0, u32::MAX])
            .chain((0..100_000).map(|_| rng.gen::<u32>() >> rng.gen_range(0..32)))
            .collect();
        for value in values {
            let cases = [
                (Radix::Decimal, value.to_string()),
                (Radix::Octal, format!("{value:o}")),
                (Radix::LowerHex, format!("{value:x}")),
                (Radix::UpperHex, format!("{value:X}")),
            ];
            for (radix, text) in cases {
                for end in [12, 16, 40] {
                    let mut buf = [b'#'; 40];
                    let start = digits_u32(value, radix, &mut buf, end);
                    assert_eq!(
                        &buf[start..end],
                        text.as_bytes(),
                        "{value} {radix:?} at {end}"
                    );
                }
            }
        }
    }

    #[test]
    fn hex_and_octal_digits_match_std() {
        for shift in 0..64 {
            let power = 1u64 << shift;
            for value in [power - 1, power, power + 1, !power] {
                check_radix(value);
            }
        }
        check_radix(u64::MAX);
        let mut rng = SmallRng::seed_from_u64(5);
        for _ in 0..100_000 {
            check_radix(rng.gen::<u64>() >> rng.gen_range(0..64));
        }
    }
}
