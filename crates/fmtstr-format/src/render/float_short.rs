//! `%f %e %g` of the values GPU code usually prints, laid out on the stack in one pass.
//!
//! Input: a finite double, a conversion and a field. Output: the same bytes as the general
//! path in `float`, or `None` when the case is not one this module takes (a precision above
//! 17, digits past 2^64, `%#g`), and then nothing was written.
//!
//! Why it exists: the general path builds its text in the output vector piece by piece and
//! then moves it (padding inserted in front, `%g`'s point rotated into place), which costs
//! more than the exact digits themselves. Here every number is an integer part and a
//! fractional part of at most 19 digits each: both are written from the right into a buffer
//! filled with `'0'` beforehand (so a fractional part's leading zeros are already there),
//! and the result reaches the output with one reservation and one constant-size copy.

use super::digits::{self, Decoded};
use super::int::{decimal_digits, pair};
use super::{float_sign, Field};
use crate::spec::Conversion;

/// The highest precision taken: 17 fractional digits, or 18 significant ones for `%e`, keep
/// every part below 10^19.
const MOST_PRECISION: usize = 17;

/// Where the number ends in the work buffer; the exponent (at most 5 bytes) follows it.
const END: usize = 48;
/// The work buffer: the 48 bytes before [`END`] hold the longest number taken (20 integer
/// digits, a point, 20 fractional digits, and the eight-digit groups' leading zeros below
/// them); after it, the exponent and room for the constant-size copy. Small, because each
/// 16 bytes of it is one more store that the copy's loads wait for.
const WORK: usize = END + COPY;
/// Bytes copied at once to the output: at least the longest text (sign, number, exponent:
/// 44 bytes).
const COPY: usize = 48;

/// Renders `value` (finite) into `out` if this module takes the case.
#[inline]
pub(crate) fn render(
    out: &mut Vec<u8>,
    field: &Field,
    conversion: Conversion,
    value: f64,
) -> Option<()> {
    let precision = field.precision.unwrap_or(6);
    if precision > MOST_PRECISION {
        return None;
    }
    let flags = field.flags;
    let upper = matches!(
        conversion,
        Conversion::UpperF | Conversion::UpperE | Conversion::UpperG
    );
    let decoded = Decoded::new(value.abs());
    // The number's digits as one integer, how many of them are fractional, and the decimal
    // exponent to print after it, if any.
    let (number, frac_digits, exponent, trim) = match conversion {
        Conversion::LowerF | Conversion::UpperF => {
            let scaled = match decoded {
                None => 0,
                Some(decoded) => digits::fixed_scaled(decoded, precision)?,
            };
            (scaled, precision, None, false)
        }
        Conversion::LowerE | Conversion::UpperE => {
            let (q, exponent) = significant(decoded, precision)?;
            (q, precision, Some(exponent), false)
        }
        Conversion::LowerG | Conversion::UpperG => {
            // `%#g` keeps trailing zeros and has a rounding subtlety: the general path.
            if flags.alt {
                return None;
            }
            let significant_digits = match field.precision {
                None => 6,
                Some(0) => 1,
                Some(p) => p,
            };
            let (q, exponent) = significant(decoded, significant_digits - 1)?;
            if exponent >= -4 && i64::from(exponent) < significant_digits as i64 {
                // `%f` style with P-1-X fractional digits: the same digits, the point moved.
                let frac_digits = (significant_digits as i64 - 1 - i64::from(exponent)) as usize;
                (q, frac_digits, None, true)
            } else {
                (q, significant_digits - 1, Some(exponent), true)
            }
        }
        _ => return None,
    };
    let (int, frac) = digits::split_pow10(number, frac_digits)?;

    let mut work = [b'0'; WORK];
    let mut end = END;
    if frac_digits > 0 {
        decimal_digits(frac, &mut work, END);
        if trim {
            while end > END - frac_digits && work[end - 1] == b'0' {
                end -= 1;
            }
        }
    }
    let point = END - frac_digits - 1;
    if end > point + 1 || (flags.alt && frac_digits == 0) {
        work[point] = b'.';
        end = end.max(point + 1);
    } else {
        end = point;
    }
    let mut start = decimal_digits(int, &mut work, point);
    // The exponent, the sign and the padding are laid out without branching on whether
    // there are any (a random mix of formats and values mispredicts such branches): the
    // bytes are written, and the lengths say which count.
    // The exponent's bytes in one word: `e`, its sign, then two digits or three (at most
    // 324).
    let magnitude = exponent.unwrap_or(0).unsigned_abs() as usize;
    let hundreds = usize::from(magnitude >= 100);
    let [tens, units] = pair(magnitude % 100);
    let two = u64::from(tens) | u64::from(units) << 8;
    let three = u64::from(b'0' + (magnitude / 100) as u8) | two << 8;
    let letter = if upper { b'E' } else { b'e' };
    let minus = if exponent.unwrap_or(0) < 0 {
        b'-'
    } else {
        b'+'
    };
    let digits = if hundreds == 1 { three } else { two };
    let bytes = u64::from(letter) | u64::from(minus) << 8 | digits << 16;
    work[end..end + 8].copy_from_slice(&bytes.to_le_bytes());
    end += if exponent.is_some() { 4 + hundreds } else { 0 };

    let sign = float_sign(value, &flags);
    let len = end - start + usize::from(sign.is_some());
    let pad = field.width.saturating_sub(len);
    out.reserve(len + pad + COPY);
    if pad > 0 && flags.zero && !flags.left {
        if let Some(sign) = sign {
            out.push(sign);
        }
        out.resize(out.len() + pad, b'0');
    } else {
        // The sign goes in front of the number (the byte before it is written either way).
        work[start - 1] = sign.unwrap_or(b'0');
        start -= usize::from(sign.is_some());
        let before = if flags.left { 0 } else { pad };
        push_spaces(out, before);
    }
    // A constant-size copy is a few moves where a variable-size one is a call.
    let at = out.len();
    out.extend_from_slice(&work[start..start + COPY]);
    out.truncate(at + end - start);
    if flags.left {
        push_spaces(out, pad);
    }
    Some(())
}

/// Appends `count` spaces: a constant-size copy cut to length up to [`COPY`], so that no
/// branch depends on the count there.
#[inline]
fn push_spaces(out: &mut Vec<u8>, count: usize) {
    if count <= COPY {
        let at = out.len();
        out.extend_from_slice(&[b' '; COPY]);
        out.truncate(at + count);
    } else {
        out.resize(out.len() + count, b' ');
    }
}

/// The `precision + 1` significant digits of the value as an integer, and its decimal
/// exponent (zero: all zeros and exponent 0, as C prints it).
#[inline]
fn significant(decoded: Option<Decoded>, precision: usize) -> Option<(u64, i32)> {
    match decoded {
        None => Some((0, 0)),
        Some(decoded) => digits::scientific_u64(decoded, precision),
    }
}
