//! `%f %e %g` (and the padding of `%a`): exact decimal digits laid out the way glibc does.
//!
//! The digits come from `digits` (exact integer arithmetic for the common cases) or else from
//! `core::fmt`, which prints the exact decimal expansion of a double for `{:.N}` and `{:.Ne}`
//! and rounds exact ties to even, as glibc does in the default rounding mode. This module only
//! arranges them: sign, exponent style, `%g`'s choice of style and trailing zeros, `#`, and
//! padding.

use std::fmt::{self, Write as _};

use super::digits::{self, Decoded};
use super::{float_short, float_sign, hexfloat, insert_repeat, push_repeat, Field};
use crate::spec::Conversion;

/// `core::fmt` refuses precisions above `u16::MAX`. A double's exact expansion has at most
/// 1074 fractional and 767 significant digits, so beyond this everything is zeros that we
/// append ourselves.
const STD_PRECISION_MAX: usize = 1100;

/// Appends `core::fmt` output to a byte vector without an intermediate `String`.
struct Sink<'a>(&'a mut Vec<u8>);

impl fmt::Write for Sink<'_> {
    #[inline]
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}

/// Renders a floating-point conversion of `value`.
pub(crate) fn render(out: &mut Vec<u8>, field: &Field, conversion: Conversion, value: f64) {
    if value.is_finite() && float_short::render(out, field, conversion, value).is_some() {
        return;
    }
    let flags = field.flags;
    let start = out.len();
    let upper = matches!(
        conversion,
        Conversion::UpperF | Conversion::UpperE | Conversion::UpperG | Conversion::UpperA
    );
    let sign = float_sign(value, &flags);
    if let Some(sign) = sign {
        out.push(sign);
    }
    let body = out.len();

    if !value.is_finite() {
        let text: &[u8] = match (value.is_nan(), upper) {
            (true, false) => b"nan",
            (true, true) => b"NAN",
            (false, false) => b"inf",
            (false, true) => b"INF",
        };
        out.extend_from_slice(text);
        // The `0` flag does not apply to infinities and NaNs.
        pad(out, start, body, field, false);
        return;
    }

    let magnitude = value.abs();
    let zero_at = match conversion {
        Conversion::LowerF | Conversion::UpperF => {
            fixed(out, magnitude, field.precision.unwrap_or(6), flags.alt);
            body
        }
        Conversion::LowerE | Conversion::UpperE => {
            exponential(
                out,
                magnitude,
                field.precision.unwrap_or(6),
                flags.alt,
                upper,
            );
            body
        }
        Conversion::LowerG | Conversion::UpperG => {
            general(out, magnitude, field.precision, flags.alt, upper);
            body
        }
        _ => {
            hexfloat::render(out, magnitude, field.precision, flags.alt, upper);
            // Zero padding goes between "0x" and the digits.
            body + 2
        }
    };
    pad(out, start, zero_at, field, flags.zero);
}

/// Pads what was written since `start` to the field width: spaces after it (`-`), zeros at
/// `zero_at` (`0`), or spaces before it.
fn pad(out: &mut Vec<u8>, start: usize, zero_at: usize, field: &Field, zero: bool) {
    let len = out.len() - start;
    if field.width <= len {
        return;
    }
    let count = field.width - len;
    if field.flags.left {
        push_repeat(out, b' ', count);
    } else if zero {
        insert_repeat(out, zero_at, b'0', count);
    } else {
        insert_repeat(out, start, b' ', count);
    }
}

/// `%f`: digits of a non-negative finite value with `precision` fractional digits.
fn fixed(out: &mut Vec<u8>, magnitude: f64, precision: usize, alt: bool) {
    let fast = match Decoded::new(magnitude) {
        None => {
            out.push(b'0');
            if precision > 0 {
                out.push(b'.');
                push_repeat(out, b'0', precision);
            }
            Some(())
        }
        Some(value) => digits::fixed(out, value, precision),
    };
    if fast.is_none() {
        let std_precision = precision.min(STD_PRECISION_MAX);
        let _ = write!(Sink(out), "{magnitude:.std_precision$}");
        push_repeat(out, b'0', precision - std_precision);
    }
    if alt && precision == 0 {
        out.push(b'.');
    }
}

/// Writes `d.ddd` (precision digits after the point) and returns the decimal exponent.
fn mantissa(out: &mut Vec<u8>, magnitude: f64, precision: usize) -> i32 {
    match Decoded::new(magnitude) {
        None => {
            out.push(b'0');
            if precision > 0 {
                out.push(b'.');
                push_repeat(out, b'0', precision);
            }
            return 0;
        }
        Some(value) => {
            if let Some((q, exponent)) = digits::scientific(value, precision) {
                digits::push_mantissa(out, q, precision);
                return exponent;
            }
        }
    }
    let from = out.len();
    let std_precision = precision.min(STD_PRECISION_MAX);
    let _ = write!(Sink(out), "{magnitude:.std_precision$e}");
    let e = out[from..]
        .iter()
        .rposition(|&b| b == b'e')
        .map_or(out.len(), |at| from + at);
    let mut exponent: i32 = 0;
    let mut negative = false;
    for &b in &out[e + 1..] {
        match b {
            b'-' => negative = true,
            digit => exponent = exponent * 10 + i32::from(digit - b'0'),
        }
    }
    out.truncate(e);
    push_repeat(out, b'0', precision - std_precision);
    if negative {
        -exponent
    } else {
        exponent
    }
}

/// Whether the mantissa at `out[m..]` ("1.000...", exponent `rounded`) came from rounding
/// up a value below that power of ten, i.e. the exponent before rounding was one less.
fn carried_into_new_decade(out: &mut Vec<u8>, m: usize, magnitude: f64, rounded: i32) -> bool {
    let digits = &out[m..];
    if digits.first() != Some(&b'1') || digits.iter().skip(2).any(|&b| b != b'0') {
        return false;
    }
    let end = out.len();
    // 800 significant digits hold any double exactly, so this exponent is the unrounded one.
    let exact = mantissa(out, magnitude, 800);
    out.truncate(end);
    exact < rounded
}

/// Appends C's exponent: `e`, a sign, at least two digits.
fn push_exponent(out: &mut Vec<u8>, exponent: i32, upper: bool) {
    out.push(if upper { b'E' } else { b'e' });
    out.push(if exponent < 0 { b'-' } else { b'+' });
    let magnitude = exponent.unsigned_abs();
    if magnitude >= 100 {
        out.push(b'0' + (magnitude / 100) as u8);
    }
    out.push(b'0' + (magnitude / 10 % 10) as u8);
    out.push(b'0' + (magnitude % 10) as u8);
}

/// `%e`.
fn exponential(out: &mut Vec<u8>, magnitude: f64, precision: usize, alt: bool, upper: bool) {
    let exponent = mantissa(out, magnitude, precision);
    if alt && precision == 0 {
        out.push(b'.');
    }
    push_exponent(out, exponent, upper);
}

/// `%g`: `%e` or `%f` depending on the exponent after rounding to P significant digits,
/// then (without `#`) trailing zeros and a bare point removed.
fn general(out: &mut Vec<u8>, magnitude: f64, precision: Option<usize>, alt: bool, upper: bool) {
    let significant = match precision {
        None => 6,
        Some(0) => 1,
        Some(p) => p,
    };
    let m = out.len();
    let exponent = mantissa(out, magnitude, significant - 1);
    // The digits are those `%f` with precision P-1-X would print: same rounding, same count.
    let fixed_style = exponent >= -4 && i64::from(exponent) < significant as i64;
    if alt
        && i64::from(exponent) == significant as i64
        && carried_into_new_decade(out, m, magnitude, exponent)
    {
        // glibc picks `%g`'s style from the exponent before rounding. When that said `%f`
        // with P integer digits and rounding carried into a (P+1)th, glibc switches to `%e`
        // but keeps `%f`'s count of fractional digits for `#`, which is zero: `%#g` of
        // 999999.5 is "1.e+06", not "1.00000e+06".
        out.truncate(m + 1);
        out.push(b'.');
        push_exponent(out, exponent, upper);
        return;
    }
    if fixed_style {
        let has_point = out.len() > m + 1;
        if exponent >= 0 {
            if has_point {
                let shift = exponent as usize;
                out[m + 1..m + 2 + shift].rotate_left(1);
                if out.last() == Some(&b'.') {
                    out.pop();
                }
            }
        } else {
            if has_point {
                out.remove(m + 1);
            }
            let zeros = (-exponent - 1) as usize;
            insert_repeat(out, m, b'0', zeros + 2);
            out[m + 1] = b'.';
        }
    }
    let has_point = out[m..].contains(&b'.');
    if alt {
        if !has_point {
            out.push(b'.');
        }
    } else if has_point {
        let kept = out[m..]
            .iter()
            .rposition(|&b| b != b'0')
            .map_or(out.len(), |at| m + at + 1);
        out.truncate(kept);
        if out.last() == Some(&b'.') {
            out.pop();
        }
    }
    if !fixed_style {
        push_exponent(out, exponent, upper);
    }
}
