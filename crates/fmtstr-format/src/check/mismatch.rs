//! Argument type mismatches: an expected class of value and an argument's IR type (in), to
//! clang's wording of the mismatch, the C type it names and a conversion that would print
//! the argument (out).

use crate::scan::{Len, RawSpec};
use crate::spec::ArgClass;

use super::checker::{Checker, Expect};
use super::conversions::{is_float, is_int, is_signed_int};
use super::finding::FindingKind;
use super::types::{ArgType, ScalarType};

impl Checker<'_> {
    /// Compares the argument at `index` with what the conversion reads.
    pub(super) fn argument(&mut self, spec: &RawSpec, index: usize, expect: Expect) {
        if expect == Expect::Unchecked {
            return;
        }
        let got = self.args[index];
        let expected_len = spec
            .vector
            .map_or(1, |n| u16::try_from(n).unwrap_or(u16::MAX));
        let (got_len, element, got_vector) = match got {
            ArgType::Scalar(scalar) => (1, scalar, false),
            ArgType::Vector { len, element } => (len, element, true),
        };
        let vector = spec.vector.is_some();
        let kind = if expected_len != got_len || vector != got_vector {
            Some(FindingKind::VectorLength {
                expected: expected_len,
                got: got_len,
            })
        } else {
            self.mismatch(expect, element, vector, got)
        };
        let Some(kind) = kind else { return };
        let expected = self.c_type(spec, expect);
        self.push(
            Some(spec.start),
            Some(index),
            kind,
            format!("format specifies type '{expected}' but the argument has type '{got}'"),
            suggestion(spec, self.bytes, got, self.rules.vvl)
                .map(|s| format!("write '{s}' for an argument of type '{got}'")),
        );
    }

    pub(super) fn mismatch(
        &self,
        expect: Expect,
        element: ScalarType,
        vector: bool,
        got: ArgType,
    ) -> Option<FindingKind> {
        match expect {
            Expect::Unchecked => None,
            Expect::Int { bits, class } => match element {
                ScalarType::Int(b) => {
                    let b = u32::from(b);
                    // Varargs promote anything narrower than int to int, and the callee
                    // narrows again for `hh` and `h`; vector elements are passed as they are
                    // (VVL widens 8- and 16-bit components too).
                    let fits = if vector && !self.rules.vvl {
                        b == bits
                    } else if bits <= 32 {
                        b <= 32
                    } else {
                        b == bits
                    };
                    (!fits).then_some(FindingKind::Width {
                        expected_bits: bits,
                        got,
                    })
                }
                _ => Some(FindingKind::Class {
                    expected: class,
                    got,
                }),
            },
            Expect::Float { bits } => match element.float_bits() {
                Some(b) => {
                    let fits = if vector {
                        b == bits
                    } else if bits == 64 {
                        // A float or half in IR was not promoted; C would have made it double.
                        b <= 64
                    } else {
                        b >= 80
                    };
                    (!fits).then_some(FindingKind::Width {
                        expected_bits: bits,
                        got,
                    })
                }
                None => Some(FindingKind::Class {
                    expected: ArgClass::Float,
                    got,
                }),
            },
            Expect::AnyFloat => match element.float_bits() {
                Some(16 | 32 | 64) => None,
                Some(_) => Some(FindingKind::Width {
                    expected_bits: 64,
                    got,
                }),
                None => Some(FindingKind::Class {
                    expected: ArgClass::Float,
                    got,
                }),
            },
            Expect::Pointer(class) => match element {
                ScalarType::Ptr => None,
                _ => Some(FindingKind::Class {
                    expected: class,
                    got,
                }),
            },
        }
    }

    /// The C type a conversion expects, named the way clang names it.
    pub(super) fn c_type(&self, spec: &RawSpec, expect: Expect) -> String {
        let c = spec.conversion;
        // clang names `%b`'s type as a signed one.
        let signed = is_signed_int(c) || matches!(c, b'b' | b'B');
        let element = match expect {
            Expect::Int { .. } if c == b'c' || c == b'C' => match (c, spec.length) {
                (b'C', _) => "wchar_t",
                (_, Len::L | Len::W) => "wint_t",
                _ => "int",
            }
            .to_string(),
            Expect::Int { bits, .. } => {
                let base = match (spec.length, bits) {
                    (Len::Hh, _) => "char",
                    (Len::H, _) => "short",
                    (Len::L, _) => "long",
                    (Len::Ll | Len::Q | Len::BigL, _) => "long long",
                    (Len::J, _) => return if signed { "intmax_t" } else { "uintmax_t" }.into(),
                    (Len::Z, _) => return if signed { "ssize_t" } else { "size_t" }.into(),
                    (Len::T, _) => return "ptrdiff_t".into(),
                    (Len::I32, _) => {
                        return if signed {
                            "__int32"
                        } else {
                            "unsigned __int32"
                        }
                        .into()
                    }
                    (Len::I64 | Len::I, _) => {
                        return if signed {
                            "__int64"
                        } else {
                            "unsigned __int64"
                        }
                        .into()
                    }
                    (Len::WidthN(n) | Len::FastN(n), _) => {
                        return format!("{}int{n}_t", if signed { "" } else { "u" })
                    }
                    (_, 64) => "long long",
                    _ => "int",
                };
                if signed {
                    if base == "char" {
                        "signed char".to_string()
                    } else {
                        base.to_string()
                    }
                } else {
                    format!("unsigned {base}")
                }
            }
            Expect::AnyFloat => "float".to_string(),
            Expect::Float { bits } => match bits {
                16 => "half",
                32 => "float",
                80 => "long double",
                _ => "double",
            }
            .to_string(),
            Expect::Pointer(_) => match (c, spec.length) {
                (b'p', _) => "void *".to_string(),
                (b'S', _) | (b's', Len::L | Len::W) => "wchar_t *".to_string(),
                (b's', _) => "char *".to_string(),
                (_, Len::Hh) => "signed char *".to_string(),
                (_, Len::H) => "short *".to_string(),
                (_, Len::L) => "long *".to_string(),
                (_, Len::Ll | Len::Q) => "long long *".to_string(),
                _ => "int *".to_string(),
            },
            Expect::Unchecked => String::new(),
        };
        match spec.vector {
            Some(n) if self.rules.clang_vector_types => {
                format!("{element} __attribute__((ext_vector_type({n})))")
            }
            Some(n) => {
                let short = match element.as_str() {
                    "unsigned char" => "uchar",
                    "unsigned short" => "ushort",
                    "unsigned int" => "uint",
                    "unsigned long" => "ulong",
                    "signed char" => "char",
                    other => other,
                };
                format!("{short}{n}")
            }
            None => element,
        }
    }
}

/// The conversion, with this spec's flags, width and precision, that prints `got`.
pub(super) fn suggestion(spec: &RawSpec, bytes: &[u8], got: ArgType, vvl: bool) -> Option<String> {
    let keep_end = if spec.vector.is_some() {
        spec.vector_at
    } else {
        spec.length_at
    };
    let head = String::from_utf8_lossy(&bytes[spec.start..keep_end]).into_owned();
    let c = spec.conversion;
    let (vector, element) = match got {
        ArgType::Scalar(s) => (String::new(), s),
        ArgType::Vector { len, element } => (format!("v{len}"), element),
    };
    let in_vector = !vector.is_empty();
    if vvl {
        // VVL's spellings: `l` for 64-bit integers only; every float width prints with `%f`.
        let tail = match element {
            ScalarType::Int(bits) => {
                let conversion = if is_int(c) { c } else { b'd' };
                let length = if bits == 64 { "l" } else { "" };
                format!("{length}{}", conversion as char)
            }
            ScalarType::Ptr if !in_vector => "p".to_string(),
            ScalarType::Half | ScalarType::Float | ScalarType::Double => {
                let conversion = if is_float(c) { c } else { b'f' };
                (conversion as char).to_string()
            }
            _ => return None,
        };
        return Some(format!("{head}{vector}{tail}"));
    }
    let tail = match element {
        ScalarType::Int(bits) => {
            let conversion = if is_int(c) || (c == b'c' && bits <= 32 && !in_vector) {
                c
            } else {
                b'd'
            };
            let length = match (bits, in_vector) {
                (b, false) if b <= 32 => "",
                (64, _) => "l",
                (8, true) => "hh",
                (16, true) => "h",
                (32, true) => "hl",
                _ => return None,
            };
            format!("{length}{}", conversion as char)
        }
        ScalarType::Ptr if !in_vector => {
            if matches!(c, b's' | b'p' | b'n' | b'S') {
                return None;
            }
            "p".to_string()
        }
        float => {
            let conversion = if is_float(c) { c } else { b'f' };
            let length = match (float, in_vector) {
                (ScalarType::X86Fp80 | ScalarType::Fp128, false) => "L",
                (_, false) => "",
                (ScalarType::Half, true) => "h",
                (ScalarType::Float, true) => "hl",
                (ScalarType::Double, true) => "l",
                _ => return None,
            };
            format!("{length}{}", conversion as char)
        }
    };
    Some(format!("{head}{vector}{tail}"))
}
