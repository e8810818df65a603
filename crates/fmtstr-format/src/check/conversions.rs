//! What a conversion character is (in: a byte or a scanned spec and the dialect's rules;
//! out: known, valid, consuming an argument, integer or floating), kept apart so that every
//! rule agrees on one reading of clang's conversion tables.

use crate::dialect::Rules;
use crate::scan::RawSpec;

/// The conversion characters clang 19 knows for printf on Linux (VVL's, for [`Dialect::Vvl`]).
pub(super) fn is_known_conversion(byte: u8, rules: &Rules) -> bool {
    if rules.vvl {
        return matches!(
            byte,
            b'd' | b'i'
                | b'o'
                | b'u'
                | b'x'
                | b'X'
                | b'a'
                | b'A'
                | b'e'
                | b'E'
                | b'f'
                | b'F'
                | b'g'
                | b'G'
                | b'p'
                | b'%'
        );
    }
    matches!(
        byte,
        b'd' | b'i'
            | b'o'
            | b'u'
            | b'x'
            | b'X'
            | b'b'
            | b'B'
            | b'f'
            | b'F'
            | b'e'
            | b'E'
            | b'g'
            | b'G'
            | b'a'
            | b'A'
            | b'c'
            | b's'
            | b'p'
            | b'n'
            | b'C'
            | b'S'
            | b'm'
            | b'%'
    )
}

pub(super) fn is_valid_conversion(spec: &RawSpec, rules: &Rules) -> bool {
    // clang has no vector form of `%n`.
    is_known_conversion(spec.conversion, rules)
        && !(spec.conversion == b'n' && spec.vector.is_some())
}

pub(super) fn consumes_argument(spec: &RawSpec, rules: &Rules) -> bool {
    is_valid_conversion(spec, rules) && !matches!(spec.conversion, b'%' | b'm')
}

pub(super) fn is_signed_int(c: u8) -> bool {
    matches!(c, b'd' | b'i')
}

pub(super) fn is_unsigned_int(c: u8) -> bool {
    matches!(c, b'o' | b'u' | b'x' | b'X' | b'b' | b'B')
}

pub(super) fn is_int(c: u8) -> bool {
    is_signed_int(c) || is_unsigned_int(c)
}

pub(super) fn is_float(c: u8) -> bool {
    matches!(c, b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A')
}
