//! Exact decimal digits of doubles with integer arithmetic, for the cases that fit.
//!
//! `core::fmt` is exact but falls back to a slow bignum algorithm for many values (most
//! `%f` of large numbers, many `%e`). A double is m·2^e, so for the usual precisions the
//! rounded digits are a quotient of two integers that fit in a u128, rounded half to even
//! like glibc in the default rounding mode; large integers for `%f` go through a small
//! base-10^9 bignum. Everything else returns `None` and the caller uses `core::fmt`.

use std::cmp::Ordering;

use super::int::{self, decimal_digits};

const fn powers_of_ten() -> [u128; 39] {
    let mut table = [1u128; 39];
    let mut i = 1;
    while i < table.len() {
        table[i] = table[i - 1] * 10;
        i += 1;
    }
    table
}

/// 10^0 ..= 10^38, all that fit in a u128.
const POW10: [u128; 39] = powers_of_ten();

/// A finite, non-zero, non-negative double as `m`·2^`e` with `m` odd.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Decoded {
    m: u64,
    e: i32,
}

impl Decoded {
    /// `None` for zero.
    pub(crate) fn new(magnitude: f64) -> Option<Decoded> {
        let bits = magnitude.to_bits() & !(1 << 63);
        let biased = (bits >> 52) as i32;
        let fraction = bits & ((1 << 52) - 1);
        let (m, e) = if biased == 0 {
            (fraction, -1074)
        } else {
            (fraction | 1 << 52, biased - 1075)
        };
        if m == 0 {
            return None;
        }
        let zeros = m.trailing_zeros();
        Some(Decoded {
            m: m >> zeros,
            e: e + zeros as i32,
        })
    }

    fn bit_len(self) -> i32 {
        64 - self.m.leading_zeros() as i32
    }
}

/// `round(n / 2^k)` half to even, and for `k == 0` just `n`.
fn shift_round(n: u128, k: u32) -> u128 {
    match k {
        0 => n,
        // n < 2^128 <= 2^(k-1): below one half.
        129.. => 0,
        128 => u128::from(n > 1 << 127),
        _ => {
            let q = n >> k;
            let r = n & ((1 << k) - 1);
            let half = 1 << (k - 1);
            if r > half || (r == half && q & 1 == 1) {
                q + 1
            } else {
                q
            }
        }
    }
}

/// Writes the digits of a u128 so that they end at `buf[end]`; returns where they start.
fn u128_digits(value: u128, buf: &mut [u8], end: usize) -> usize {
    if let Ok(small) = u64::try_from(value) {
        return decimal_digits(small, buf, end);
    }
    let chunk = POW10[19];
    let low = (value % chunk) as u64;
    let high = value / chunk;
    let at = end - 19;
    buf[at..end].fill(b'0');
    decimal_digits(low, buf, end);
    if let Ok(high) = u64::try_from(high) {
        return decimal_digits(high, buf, at);
    }
    let middle = (high % chunk) as u64;
    let top = (high / chunk) as u64;
    let at2 = at - 19;
    buf[at2..at].fill(b'0');
    decimal_digits(middle, buf, at);
    decimal_digits(top, buf, at2)
}

/// Enough for any u128 in decimal.
const U128_DIGITS: usize = 40;

/// `%f` digits: appends `round(v·10^p)` with the point `p` digits from the right (and a
/// leading `0` when the value is below one), without `#`'s point. `None` if it does not fit.
pub(crate) fn fixed(out: &mut Vec<u8>, value: Decoded, precision: usize) -> Option<()> {
    if value.e >= 0 {
        integer(out, value);
        if precision > 0 {
            out.push(b'.');
            out.resize(out.len() + precision, b'0');
        }
        return Some(());
    }
    let scaled = u128::from(value.m).checked_mul(*POW10.get(precision)?)?;
    let q = shift_round(scaled, value.e.unsigned_abs());
    let mut buf = [0u8; U128_DIGITS];
    let start = u128_digits(q, &mut buf, U128_DIGITS);
    let digits = &buf[start..];
    if precision == 0 {
        out.extend_from_slice(digits);
    } else if digits.len() <= precision {
        out.extend_from_slice(b"0.");
        out.resize(out.len() + precision - digits.len(), b'0');
        out.extend_from_slice(digits);
    } else {
        let point = digits.len() - precision;
        out.extend_from_slice(&digits[..point]);
        out.push(b'.');
        out.extend_from_slice(&digits[point..]);
    }
    Some(())
}

/// 10^`exponent` when it fits a u64 (an exponent up to 19).
#[inline]
pub(crate) fn pow10_u64(exponent: usize) -> Option<u64> {
    int::POW10.get(exponent).copied()
}

/// For each `k` in 1..=19, the multiplier and shift that divide a u64 shifted right by `k` by
/// 5^k: `floor(x / 5^k) = (x·m / 2^64) >> s` for every `x < 2^(64-k)` (Granlund and
/// Montgomery: `m = ceil(2^(64+s) / 5^k)` with `64 + s = (64-k) + ceil(log2 5^k)`, which
/// keeps `m` below 2^64). Index 0 is unused.
const DIVIDE_POW5: [(u64, u32); 20] = {
    let mut table = [(0u64, 0u32); 20];
    let mut k = 1;
    while k < table.len() {
        let d = int::POW10[k] >> k;
        let bits = 64 - (d - 1).leading_zeros();
        let total = 64 - k as u32 + bits;
        let m = (1u128 << total).div_ceil(d as u128);
        assert!(m < 1 << 64 && total >= 64);
        table[k] = (m as u64, total - 64);
        k += 1;
    }
    table
};

/// `(x / 10^k, x % 10^k)` for `k <= 19`, by a multiplication: a division by a power of ten
/// that is known only at run time is a `div` (tens of cycles, and a branch on whether the
/// operands fit 32 bits, which a random mix of values mispredicts). 10^k = 2^k·5^k: the
/// shift by `k` is exact for the quotient, then [`DIVIDE_POW5`] divides by 5^k.
#[inline]
pub(crate) fn split_pow10(x: u64, k: usize) -> Option<(u64, u64)> {
    let (m, s) = *DIVIDE_POW5.get(k)?;
    let q = ((u128::from(x >> k) * u128::from(m)) >> 64) as u64 >> s;
    // k = 0 has no entry: 10^0 divides nothing away.
    let q = if k == 0 { x } else { q };
    Some((q, x - q * int::POW10[k]))
}

/// `round(v·10^p)` half to even, when it fits a u64.
#[inline]
pub(crate) fn fixed_scaled(value: Decoded, precision: usize) -> Option<u64> {
    let power = pow10_u64(precision)?;
    if value.e >= 0 {
        if value.bit_len() + value.e > 64 {
            return None;
        }
        return (value.m << value.e).checked_mul(power);
    }
    let shift = value.e.unsigned_abs();
    // A float's 24-bit mantissa (and a double's at low precisions) times 10^p fits a u64:
    // u64 arithmetic is a few instructions where u128's is a dozen.
    if shift < 64 {
        if let Some(scaled) = value.m.checked_mul(power) {
            return Some(shift_round_u64(scaled, shift));
        }
    }
    let scaled = u128::from(value.m) * u128::from(power);
    u64::try_from(shift_round(scaled, shift)).ok()
}

/// [`shift_round`] of a u64 by `0 < k < 64`.
#[inline]
fn shift_round_u64(n: u64, k: u32) -> u64 {
    let q = n >> k;
    let r = n & ((1 << k) - 1);
    let half = 1 << (k - 1);
    q + u64::from(r > half || (r == half && q & 1 == 1))
}

/// Appends the decimal digits of a value that is an integer (`e >= 0`).
fn integer(out: &mut Vec<u8>, value: Decoded) {
    if value.bit_len() + value.e <= 128 {
        let mut buf = [0u8; U128_DIGITS];
        let start = u128_digits(u128::from(value.m) << value.e, &mut buf, U128_DIGITS);
        out.extend_from_slice(&buf[start..]);
        return;
    }
    // m·2^e in base 10^9: limbs stay below 2^30, so a limb shifted by 32 plus the carry fits
    // a u64. The largest double has 309 digits: 35 limbs.
    const BASE: u64 = 1_000_000_000;
    let mut limbs = [0u32; 36];
    let mut len = 0;
    let mut m = value.m;
    while m > 0 {
        limbs[len] = (m % BASE) as u32;
        m /= BASE;
        len += 1;
    }
    let mut shift = value.e as u32;
    while shift > 0 {
        let step = shift.min(32);
        shift -= step;
        let mut carry = 0u64;
        for limb in &mut limbs[..len] {
            let x = (u64::from(*limb) << step) + carry;
            *limb = (x % BASE) as u32;
            carry = x / BASE;
        }
        while carry > 0 {
            limbs[len] = (carry % BASE) as u32;
            carry /= BASE;
            len += 1;
        }
    }
    let mut buf = [0u8; 10];
    let start = decimal_digits(u64::from(limbs[len - 1]), &mut buf, 10);
    out.extend_from_slice(&buf[start..]);
    for &limb in limbs[..len - 1].iter().rev() {
        buf[1..10].fill(b'0');
        decimal_digits(u64::from(limb), &mut buf, 10);
        out.extend_from_slice(&buf[1..10]);
    }
}

/// `floor(v / 10^t)`, how the remainder compares with one half of the divisor, and whether
/// the remainder is zero (the division was exact).
#[inline]
fn divide_by_pow10(value: Decoded, t: i32) -> Option<(u128, Ordering, bool)> {
    // v·10^-t = m·10^-t / 2^-e in u64 when it fits (a float's digits at the usual
    // precisions): u128's multiplications and shifts cost several times more.
    if t <= 0 && value.e < 0 && value.e > -64 {
        let power = int::POW10.get(t.unsigned_abs() as usize);
        if let Some(numerator) = power.and_then(|p| value.m.checked_mul(*p)) {
            let shift = value.e.unsigned_abs();
            let r = numerator & ((1 << shift) - 1);
            return Some((
                u128::from(numerator >> shift),
                r.cmp(&(1 << (shift - 1))),
                r == 0,
            ));
        }
    }
    divide_by_pow10_wide(value, t)
}

/// [`divide_by_pow10`] in u128.
fn divide_by_pow10_wide(value: Decoded, t: i32) -> Option<(u128, Ordering, bool)> {
    let mut numerator = u128::from(value.m);
    let mut shift = 0;
    if value.e >= 0 {
        if value.bit_len() + value.e > 128 {
            return None;
        }
        numerator <<= value.e;
    } else {
        shift = value.e.unsigned_abs();
    }
    if t <= 0 {
        numerator = numerator.checked_mul(*POW10.get(t.unsigned_abs() as usize)?)?;
        // The numerator is not zero (m is odd), so a shift of 128 or more leaves a remainder.
        return Some(match shift {
            0 => (numerator, Ordering::Less, true),
            129.. => (0, Ordering::Less, false),
            128 => (0, numerator.cmp(&(1 << 127)), false),
            _ => {
                let r = numerator & ((1 << shift) - 1);
                (numerator >> shift, r.cmp(&(1 << (shift - 1))), r == 0)
            }
        });
    }
    let power = *POW10.get(t as usize)?;
    if shift >= power.leading_zeros() {
        return None;
    }
    let denominator = power << shift;
    let q = numerator / denominator;
    let r = numerator % denominator;
    Some((q, r.cmp(&(denominator - r)), r == 0))
}

/// `%e` digits: the `p + 1` significant digits of `v` rounded half to even, as an integer
/// of exactly `p + 1` digits, and the decimal exponent. `None` if it does not fit.
pub(crate) fn scientific(value: Decoded, precision: usize) -> Option<(u128, i32)> {
    let limit = *POW10.get(precision + 1)?;
    let floor = *POW10.get(precision)?;
    // v is in [2^(b-1), 2^b), so floor(log10 v) is floor((b-1)·log10 2) or one more;
    // 78913 / 2^18 is log10 2 to the precision that needs. A wrong guess is corrected below.
    let b = value.bit_len() + value.e;
    let mut exponent = ((i64::from(b - 1) * 78913) >> 18) as i32;
    for _ in 0..3 {
        let (truncated, remainder, _) = divide_by_pow10(value, exponent - precision as i32)?;
        if truncated >= limit {
            exponent += 1;
            continue;
        }
        if truncated < floor {
            exponent -= 1;
            continue;
        }
        let up =
            remainder == Ordering::Greater || (remainder == Ordering::Equal && truncated & 1 == 1);
        let q = truncated + u128::from(up);
        return Some(if q == limit {
            (floor, exponent + 1)
        } else {
            (q, exponent)
        });
    }
    None
}

/// [`scientific`] for a precision of at most 17 (the digits fit a u64). The first guess at
/// the exponent is one short for values above the power of ten in their binade; the digit
/// too many is then dropped and the rounding worked out from it, selected rather than
/// branched on (a random mix of values mispredicts that branch), where [`scientific`]
/// divides again. No loop: in one, the compiler turns such selects back into branches. A
/// guess further off (which the approximation of log10 2 allows) takes [`scientific`].
#[inline]
pub(crate) fn scientific_u64(value: Decoded, precision: usize) -> Option<(u64, i32)> {
    if precision > 17 {
        return None;
    }
    let (limit, floor) = (int::POW10[precision + 1], int::POW10[precision]);
    let b = value.bit_len() + value.e;
    let guess = ((i64::from(b - 1) * 78913) >> 18) as i32;
    let (truncated, half, exact) = divide_by_pow10(value, guess - precision as i32)?;
    let truncated = match u64::try_from(truncated) {
        // Below 10 * limit: at most one digit too many.
        Ok(truncated) if truncated >= floor && truncated / 10 < limit => truncated,
        _ => return scientific(value, precision).map(|(q, exponent)| (q as u64, exponent)),
    };
    let over = truncated >= limit;
    // Dividing by ten more: the dropped digit against 5, then the old remainder.
    let dropped_half = match (truncated % 10).cmp(&5) {
        Ordering::Equal if !exact => Ordering::Greater,
        ordering => ordering,
    };
    let q = if over { truncated / 10 } else { truncated };
    let half = if over { dropped_half } else { half };
    let exponent = guess + i32::from(over);
    // Half to even in arithmetic, not branches: up when above one half (1), or at one half
    // (0) with an odd q.
    let up = half as i8 + (q & 1) as i8 > 0;
    let q = q + u64::from(up);
    Some(if q == limit {
        (floor, exponent + 1)
    } else {
        (q, exponent)
    })
}

/// Appends `d.ddd` for the digits of [`scientific`] (just `d` for precision 0).
pub(crate) fn push_mantissa(out: &mut Vec<u8>, q: u128, precision: usize) {
    let mut buf = [0u8; U128_DIGITS];
    let start = u128_digits(q, &mut buf, U128_DIGITS);
    out.push(buf[start]);
    if precision > 0 {
        out.push(b'.');
        out.extend_from_slice(&buf[start + 1..]);
    }
}

#[cfg(test)]
mod tests {
    //! The fast paths against `core::fmt`, which is exact, on values that reach them.

    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    use super::*;

    fn value(rng: &mut SmallRng) -> f64 {
        match rng.gen_range(0..4) {
            0 => f64::from_bits(rng.gen::<u64>() >> 1).min(f64::MAX),
            1 => rng.gen_range(0..1_000_000) as f64 / (1u64 << rng.gen_range(0..30)) as f64,
            2 => rng.gen::<f64>() * 10f64.powi(rng.gen_range(-30..30)),
            _ => f64::from(rng.gen_range(0..100_000u32)) + 0.5,
        }
    }

    #[test]
    fn fixed_matches_std() {
        let mut rng = SmallRng::seed_from_u64(1);
        let mut out = Vec::new();
        for _ in 0..200_000 {
            let x = value(&mut rng);
            let precision = rng.gen_range(0..40);
            out.clear();
            let Some(decoded) = Decoded::new(x) else {
                continue;
            };
            if fixed(&mut out, decoded, precision).is_some() {
                assert_eq!(
                    String::from_utf8_lossy(&out),
                    format!("{x:.precision$}"),
                    "{x:e} .{precision}"
                );
            }
        }
    }

    #[test]
    fn scientific_matches_std() {
        let mut rng = SmallRng::seed_from_u64(2);
        let mut out = Vec::new();
        for _ in 0..200_000 {
            let x = value(&mut rng);
            let precision = rng.gen_range(0..40);
            let Some(decoded) = Decoded::new(x) else {
                continue;
            };
            if let Some((q, exponent)) = scientific(decoded, precision) {
                out.clear();
                push_mantissa(&mut out, q, precision);
                let ours = format!("{}e{exponent}", String::from_utf8_lossy(&out));
                assert_eq!(ours, format!("{x:.precision$e}"), "{x:e} .{precision}");
            }
        }
    }

    #[test]
    fn split_pow10_matches_division() {
        let mut rng = SmallRng::seed_from_u64(4);
        for k in 0..20 {
            let power = int::POW10[k];
            let edges = [0, 1, power - 1, power, power + 1, u64::MAX, u64::MAX - 1];
            let multiples = (1..40).map(|i| (u64::MAX / power / 40) * i * power);
            let random = (0..20_000).map(|_| rng.gen::<u64>() >> rng.gen_range(0..64));
            for x in edges.into_iter().chain(multiples).chain(random) {
                for x in [x, x.wrapping_sub(1), x.wrapping_add(1)] {
                    assert_eq!(split_pow10(x, k), Some((x / power, x % power)), "{x} {k}");
                }
            }
        }
        assert_eq!(split_pow10(1, 20), None);
    }

    #[test]
    fn scientific_u64_matches_scientific() {
        let mut rng = SmallRng::seed_from_u64(3);
        for _ in 0..400_000 {
            let x = match rng.gen_range(0..3) {
                0 => value(&mut rng),
                // Near powers of ten, where the first guess at the exponent is one short.
                1 => 10f64.powi(rng.gen_range(-30..30)) * (1.0 + rng.gen_range(-1e-3..1e-3)),
                _ => f64::from(f32::from_bits(rng.gen::<u32>() >> 1)),
            };
            let precision = rng.gen_range(0..18);
            let Some(decoded) = Decoded::new(x) else {
                continue;
            };
            let wide = scientific(decoded, precision).map(|(q, e)| (q as u64, e));
            assert_eq!(
                scientific_u64(decoded, precision),
                wide,
                "{x:e} .{precision}"
            );
        }
    }
}
