//! A clang `-Wformat`-style checker of a format against IR argument types.

use std::fmt;

use crate::format::{ArgSlot, Format};
use crate::spec::{ArgClass, Count, Spec};

/// A scalar type as LLVM IR spells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScalarType {
    /// `iN`, N in 1..=128.
    Int(u16),
    /// `half`
    Half,
    /// `float`
    Float,
    /// `double`
    Double,
    /// `ptr` (any address space)
    Ptr,
}

impl fmt::Display for ScalarType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScalarType::Int(bits) => write!(f, "i{bits}"),
            ScalarType::Half => f.write_str("half"),
            ScalarType::Float => f.write_str("float"),
            ScalarType::Double => f.write_str("double"),
            ScalarType::Ptr => f.write_str("ptr"),
        }
    }
}

/// The type of one argument of a printf call, as LLVM IR spells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArgType {
    /// A scalar.
    Scalar(ScalarType),
    /// `<len x element>`
    Vector {
        /// Number of elements.
        len: u16,
        /// Element type.
        element: ScalarType,
    },
}

impl fmt::Display for ArgType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgType::Scalar(scalar) => write!(f, "{scalar}"),
            ArgType::Vector { len, element } => write!(f, "<{len} x {element}>"),
        }
    }
}

/// What a [`Finding`] is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FindingKind {
    /// The format consumes more arguments than were passed.
    TooFewArguments {
        /// Arguments the format consumes.
        expected: usize,
        /// Arguments passed.
        got: usize,
    },
    /// More arguments were passed than the format consumes.
    TooManyArguments {
        /// Arguments the format consumes.
        expected: usize,
        /// Arguments passed.
        got: usize,
    },
    /// The right class of value with the wrong size (`i64` for `%d`, `<4 x half>` for `%v4f`).
    Width {
        /// Bits the spec reads (of one element for vectors).
        expected_bits: u32,
        /// The argument's type.
        got: ArgType,
    },
    /// The wrong class of value (`double` for `%d`, `i32` for `%s`).
    Class {
        /// What the spec reads.
        expected: ArgClass,
        /// The argument's type.
        got: ArgType,
    },
    /// A vector of the wrong length, or a vector where a scalar belongs or the reverse (a
    /// scalar counts as length 1).
    VectorLength {
        /// The spec's vector length (1 for a scalar spec).
        expected: u8,
        /// The argument's vector length (1 for a scalar).
        got: u16,
    },
}

/// One problem the checker found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// Offset of the `%` of the spec concerned, if one is.
    pub spec_offset: Option<usize>,
    /// Index of the argument concerned, if one is.
    pub arg_index: Option<usize>,
    /// What is wrong.
    pub kind: FindingKind,
    /// A message in clang's words, e.g. "format specifies type 'long' but the argument has
    /// type 'i32'".
    pub message: String,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Checks the arguments of a printf call against its format the way clang's `-Wformat` does:
/// argument count, then each argument's class, width and vector length.
///
/// C's default promotions apply to scalars (an `i8` or `i16` is fine for `%d`, a `float` or
/// `half` for `%f`); vector elements are not promoted and must match exactly.
pub fn check(format: &Format, args: &[ArgType]) -> Vec<Finding> {
    let specs: Vec<&Spec> = format.specs().collect();
    let slots = format.arguments();
    let mut findings = Vec::new();
    let mut stars_seen = vec![0usize; specs.len()];
    for (index, (slot, got)) in slots.iter().zip(args).enumerate() {
        let finding = match *slot {
            ArgSlot::Star { spec } => {
                let which = stars_seen[spec];
                stars_seen[spec] += 1;
                check_star(specs[spec], which, *got)
            }
            ArgSlot::Value { spec } => check_value(specs[spec], *got),
        };
        if let Some((kind, message)) = finding {
            let spec = match *slot {
                ArgSlot::Star { spec } | ArgSlot::Value { spec } => specs[spec],
            };
            findings.push(Finding {
                spec_offset: Some(spec.offset),
                arg_index: Some(index),
                kind,
                message,
            });
        }
    }
    let (expected, got) = (slots.len(), args.len());
    if got < expected {
        let spec = match slots[got] {
            ArgSlot::Star { spec } | ArgSlot::Value { spec } => specs[spec],
        };
        findings.push(Finding {
            spec_offset: Some(spec.offset),
            arg_index: None,
            kind: FindingKind::TooFewArguments { expected, got },
            message: format!(
                "more '%' conversions than data arguments: the format consumes {expected} \
                 argument{}, the call passes {got}",
                plural(expected)
            ),
        });
    } else if got > expected {
        findings.push(Finding {
            spec_offset: None,
            arg_index: Some(expected),
            kind: FindingKind::TooManyArguments { expected, got },
            message: format!(
                "data argument not used by format string: the format consumes {expected} \
                 argument{}, the call passes {got}",
                plural(expected)
            ),
        });
    }
    findings
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// `*` reads an `int`; narrower integers promote to it.
fn check_star(spec: &Spec, which: usize, got: ArgType) -> Option<(FindingKind, String)> {
    let what = if which == 0 && spec.width == Some(Count::Star) {
        "field width"
    } else {
        "field precision"
    };
    let kind = match got {
        ArgType::Scalar(ScalarType::Int(bits)) if bits <= 32 => return None,
        ArgType::Scalar(ScalarType::Int(_)) => FindingKind::Width {
            expected_bits: 32,
            got,
        },
        _ => FindingKind::Class {
            expected: ArgClass::Signed,
            got,
        },
    };
    Some((
        kind,
        format!("{what} should have type 'int', but the argument has type '{got}'"),
    ))
}

fn check_value(spec: &Spec, got: ArgType) -> Option<(FindingKind, String)> {
    let expected_len = spec.vector.unwrap_or(1);
    let (got_len, element, in_vector) = match got {
        ArgType::Scalar(scalar) => (1, scalar, false),
        ArgType::Vector { len, element } => (len, element, true),
    };
    let mismatch = |kind| {
        Some((
            kind,
            format!(
                "format specifies type '{}' but the argument has type '{got}'",
                spec.c_type()
            ),
        ))
    };
    if u16::from(expected_len) != got_len || spec.vector.is_some() != in_vector {
        return mismatch(FindingKind::VectorLength {
            expected: expected_len,
            got: got_len,
        });
    }
    let vector = spec.vector.is_some();
    let class = spec.class();
    let bits = spec.c_width();
    let width = FindingKind::Width {
        expected_bits: bits,
        got,
    };
    let wrong_class = FindingKind::Class {
        expected: class,
        got,
    };
    match class {
        ArgClass::Signed | ArgClass::Unsigned | ArgClass::Char => match element {
            ScalarType::Int(b) => {
                let b = u32::from(b);
                // Varargs promote anything narrower than int to int, and the callee narrows
                // again for `hh` and `h`; vector elements are passed as they are.
                let promoted = !vector && b <= 32 && bits <= 32;
                if b == bits || promoted {
                    None
                } else {
                    mismatch(width)
                }
            }
            _ => mismatch(wrong_class),
        },
        ArgClass::Float => {
            let b = match element {
                ScalarType::Half => 16,
                ScalarType::Float => 32,
                ScalarType::Double => 64,
                _ => return mismatch(wrong_class),
            };
            if !vector || b == bits {
                None
            } else {
                mismatch(width)
            }
        }
        ArgClass::Pointer | ArgClass::String => match element {
            ScalarType::Ptr => None,
            _ => mismatch(wrong_class),
        },
    }
}
