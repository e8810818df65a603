//! `%a`: glibc's hexadecimal floating point for doubles.
//!
//! glibc writes normals as `0x1.<13 hex digits>p<exp>` and subnormals as
//! `0x0.<digits>p-1022` (not renormalised), drops trailing zero digits when no precision is
//! given, and rounds to the precision half-to-even with the carry going into the leading
//! digit (`%.1a` of 1.96875 is `0x2.0p+0`; the exponent does not change).

use super::push_repeat;

const MANTISSA_BITS: u32 = 52;
const MANTISSA_DIGITS: usize = 13;

/// Writes `0x...p...` for a non-negative finite value.
pub(crate) fn render(
    out: &mut Vec<u8>,
    magnitude: f64,
    precision: Option<usize>,
    alt: bool,
    upper: bool,
) {
    let bits = magnitude.to_bits();
    let biased = (bits >> MANTISSA_BITS) as i32;
    let mut mantissa = bits & ((1 << MANTISSA_BITS) - 1);
    let (mut lead, exponent) = match (biased, mantissa) {
        (0, 0) => (0u64, 0),
        (0, _) => (0, -1022),
        _ => (1, biased - 1023),
    };

    let digits = match precision {
        None => {
            if mantissa == 0 {
                0
            } else {
                let trailing = (mantissa.trailing_zeros() / 4) as usize;
                mantissa >>= 4 * trailing;
                MANTISSA_DIGITS - trailing
            }
        }
        Some(p) if p < MANTISSA_DIGITS => {
            let dropped = 4 * (MANTISSA_DIGITS - p) as u32;
            let rest = mantissa & ((1 << dropped) - 1);
            let half = 1u64 << (dropped - 1);
            mantissa >>= dropped;
            let last = if p == 0 { lead } else { mantissa };
            if rest > half || (rest == half && last & 1 == 1) {
                mantissa += 1;
                if mantissa >> (4 * p) != 0 {
                    mantissa = 0;
                    lead += 1;
                }
            }
            p
        }
        Some(p) => p,
    };

    let alphabet: &[u8; 16] = if upper {
        b"0123456789ABCDEF"
    } else {
        b"0123456789abcdef"
    };
    out.extend_from_slice(if upper { b"0X" } else { b"0x" });
    out.push(b'0' + lead as u8);
    if digits > 0 || alt {
        out.push(b'.');
    }
    let shown = digits.min(MANTISSA_DIGITS);
    for k in (0..shown).rev() {
        out.push(alphabet[((mantissa >> (4 * k)) & 15) as usize]);
    }
    push_repeat(out, b'0', digits - shown);
    out.push(if upper { b'P' } else { b'p' });
    out.push(if exponent < 0 { b'-' } else { b'+' });
    let mut buf = [0u8; 4];
    let mut at = buf.len();
    let mut e = exponent.unsigned_abs();
    loop {
        at -= 1;
        buf[at] = b'0' + (e % 10) as u8;
        e /= 10;
        if e == 0 {
            break;
        }
    }
    out.extend_from_slice(&buf[at..]);
}
