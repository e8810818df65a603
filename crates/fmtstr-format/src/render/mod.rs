//! Rendering: byte-identical to glibc's `snprintf` on LP64 Linux.

mod digits;
mod float;
mod float_short;
mod hexfloat;
pub(crate) mod int;

use crate::parse::MAX_COUNT;
use crate::piece::Piece;
use crate::spec::{ArgClass, Conversion, Count, Flags, Spec};

/// One scalar argument for [`crate::Format::render`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Arg<'a> {
    /// Integer bits as passed; the spec's length modifier picks the width and signedness that
    /// are read, like `va_arg` would (`%hhd` of `0x1ff` prints `-1`). Also read by `%c` (its low
    /// byte), by `*` (its low 32 bits as a signed `int`) and by `%p`.
    Int(u64),
    /// A floating-point value (a C `double`; `float` and `half` widen exactly).
    Float(f64),
    /// A pointer for `%p`; for `%s` only the null pointer, printed the way glibc prints it.
    Ptr(u64),
    /// The bytes of a string for `%s`; a NUL byte ends it, as in C.
    Str(&'a [u8]),
}

/// Why a format could not be rendered with the given arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RenderError {
    /// Fewer arguments than the format consumes.
    #[error(
        "the conversion at byte {spec_offset} needs value {}, but only {index} were given \
         (a vector takes one value per component, a '*' one more)",
        .index + 1
    )]
    MissingArgument {
        /// Offset of the spec's `%`.
        spec_offset: usize,
        /// Index of the missing argument in the flat list.
        index: usize,
    },
    /// An argument of the wrong kind for its conversion.
    #[error(
        "value {} does not fit the conversion at byte {spec_offset}; expected a {expected}",
        .index + 1
    )]
    ArgumentMismatch {
        /// Offset of the spec's `%`.
        spec_offset: usize,
        /// Index of the argument in the flat list.
        index: usize,
        /// What the conversion reads (`Signed` for a `*` argument).
        expected: ArgClass,
    },
    /// A `*` argument asked for a width or precision above 65536.
    #[error(
        "the conversion at byte {spec_offset} got {value} from a '*' argument, above fmtstr's \
         limit of 65536 for widths and precisions"
    )]
    TooWide {
        /// Offset of the spec's `%`.
        spec_offset: usize,
        /// The `int` that was passed.
        value: i64,
    },
}

/// A spec's flags and numbers once its `*` arguments are known.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Field {
    pub(crate) flags: Flags,
    pub(crate) width: usize,
    pub(crate) precision: Option<usize>,
}

/// Renders the `pieces` of a format whose text is `bytes`.
pub(crate) fn render_format<'p>(
    bytes: &[u8],
    pieces: impl IntoIterator<Item = &'p Piece>,
    args: &[Arg<'_>],
    out: &mut Vec<u8>,
) -> Result<(), RenderError> {
    let start = out.len();
    let mut next = 0;
    for piece in pieces {
        let result = match piece {
            Piece::Literal(range) => {
                out.extend_from_slice(&bytes[range.clone()]);
                Ok(())
            }
            Piece::Percent => {
                out.push(b'%');
                Ok(())
            }
            Piece::Spec(spec) => render_spec(spec, args, &mut next, out),
        };
        if let Err(error) = result {
            out.truncate(start);
            return Err(error);
        }
    }
    Ok(())
}

fn take<'s, 'a>(
    spec: &Spec,
    args: &'s [Arg<'a>],
    next: &mut usize,
) -> Result<(&'s Arg<'a>, usize), RenderError> {
    let index = *next;
    let arg = args.get(index).ok_or(RenderError::MissingArgument {
        spec_offset: spec.offset,
        index,
    })?;
    *next += 1;
    Ok((arg, index))
}

/// Reads a `*` argument as C reads an `int`.
fn star(spec: &Spec, args: &[Arg<'_>], next: &mut usize) -> Result<i64, RenderError> {
    match take(spec, args, next)? {
        (Arg::Int(bits), _) => Ok(i64::from(*bits as u32 as i32)),
        (_, index) => Err(RenderError::ArgumentMismatch {
            spec_offset: spec.offset,
            index,
            expected: ArgClass::Signed,
        }),
    }
}

fn render_spec(
    spec: &Spec,
    args: &[Arg<'_>],
    next: &mut usize,
    out: &mut Vec<u8>,
) -> Result<(), RenderError> {
    let too_wide = |value| RenderError::TooWide {
        spec_offset: spec.offset,
        value,
    };
    let mut flags = spec.flags;
    let width = match spec.width {
        None => 0,
        Some(Count::Fixed(width)) => width as usize,
        Some(Count::Star) => {
            let value = star(spec, args, next)?;
            // C: a negative `*` width is the `-` flag and a positive width.
            if value < 0 {
                flags.left = true;
            }
            if value.unsigned_abs() > u64::from(MAX_COUNT) {
                return Err(too_wide(value));
            }
            value.unsigned_abs() as usize
        }
    };
    let precision = match spec.precision {
        None => None,
        Some(Count::Fixed(precision)) => Some(precision as usize),
        Some(Count::Star) => {
            let value = star(spec, args, next)?;
            // C: a negative `*` precision is taken as if the precision were omitted.
            if value > i64::from(MAX_COUNT) {
                return Err(too_wide(value));
            }
            usize::try_from(value).ok()
        }
    };
    let field = Field {
        flags,
        width,
        precision,
    };
    let count = spec.vector.unwrap_or(1);
    for component in 0..count {
        if component > 0 {
            out.push(b',');
        }
        let (arg, index) = take(spec, args, next)?;
        render_value(spec, &field, arg, index, out)?;
    }
    Ok(())
}

fn render_value(
    spec: &Spec,
    field: &Field,
    arg: &Arg<'_>,
    index: usize,
    out: &mut Vec<u8>,
) -> Result<(), RenderError> {
    let mismatch = || RenderError::ArgumentMismatch {
        spec_offset: spec.offset,
        index,
        expected: spec.class(),
    };
    let conversion = spec.conversion;
    match (conversion, *arg) {
        (Conversion::D | Conversion::I, Arg::Int(bits)) => {
            let value = match spec.c_width() {
                8 => i64::from(bits as i8),
                16 => i64::from(bits as i16),
                32 => i64::from(bits as i32),
                _ => bits as i64,
            };
            let sign = if value < 0 {
                Some(b'-')
            } else {
                plus_sign(&field.flags)
            };
            int::render(out, field, value.unsigned_abs(), sign, int::Radix::Decimal);
        }
        (
            Conversion::U | Conversion::O | Conversion::LowerX | Conversion::UpperX,
            Arg::Int(bits),
        ) => {
            let value = match spec.c_width() {
                8 => u64::from(bits as u8),
                16 => u64::from(bits as u16),
                32 => u64::from(bits as u32),
                _ => bits,
            };
            let radix = match conversion {
                Conversion::U => int::Radix::Decimal,
                Conversion::O => int::Radix::Octal,
                Conversion::LowerX => int::Radix::LowerHex,
                _ => int::Radix::UpperHex,
            };
            // ISO C gives `+` and space meaning only for signed conversions.
            int::render(out, field, value, None, radix);
        }
        (Conversion::C, Arg::Int(bits)) => pad_text(out, field, &[bits as u8]),
        (Conversion::S, Arg::Str(bytes)) => {
            let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
            let end = field.precision.map_or(end, |p| end.min(p));
            pad_text(out, field, &bytes[..end]);
        }
        (Conversion::S, Arg::Ptr(0)) => {
            // glibc prints "(null)" unless the precision is too short to hold it, in which
            // case it prints nothing rather than a truncated "(nu".
            let text: &[u8] = match field.precision {
                Some(p) if p < 6 => b"",
                _ => b"(null)",
            };
            pad_text(out, field, text);
        }
        (Conversion::P, Arg::Ptr(bits) | Arg::Int(bits)) => {
            if bits == 0 {
                pad_text(out, field, b"(nil)");
            } else {
                // glibc prints a pointer as `%#lx` but keeps the `+` and space flags, which
                // it clears only for the unsigned conversions proper.
                let mut field = *field;
                field.flags.alt = true;
                int::render(
                    out,
                    &field,
                    bits,
                    plus_sign(&field.flags),
                    int::Radix::LowerHex,
                );
            }
        }
        (_, Arg::Float(value)) if conversion.is_float() => {
            float::render(out, field, conversion, value);
        }
        _ => return Err(mismatch()),
    }
    Ok(())
}

/// The sign a floating-point value prints with: `-` for every value with its sign bit set
/// (glibc prints "-nan" and "-0.000000" too), else what the `+` or space flag asks for.
fn float_sign(value: f64, flags: &Flags) -> Option<u8> {
    if value.is_sign_negative() {
        Some(b'-')
    } else {
        plus_sign(flags)
    }
}

fn plus_sign(flags: &Flags) -> Option<u8> {
    if flags.plus {
        Some(b'+')
    } else if flags.space {
        Some(b' ')
    } else {
        None
    }
}

/// Text padded with spaces to the field width (glibc ignores `0` for `%s`, `%c` and `(nil)`).
fn pad_text(out: &mut Vec<u8>, field: &Field, text: &[u8]) {
    let pad = field.width.saturating_sub(text.len());
    out.reserve(text.len() + pad);
    if field.flags.left {
        out.extend_from_slice(text);
        push_repeat(out, b' ', pad);
    } else {
        push_repeat(out, b' ', pad);
        out.extend_from_slice(text);
    }
}

#[inline]
fn push_repeat(out: &mut Vec<u8>, byte: u8, count: usize) {
    if count > 0 {
        out.resize(out.len() + count, byte);
    }
}

/// Opens `count` copies of `byte` at `at`, shifting what follows.
fn insert_repeat(out: &mut Vec<u8>, at: usize, byte: u8, count: usize) {
    if count == 0 {
        return;
    }
    let old = out.len();
    out.resize(old + count, byte);
    out.copy_within(at..old, at + count);
    out[at..at + count].fill(byte);
}

/// A floating-point conversion (`%f %e %g %a`, either case) whose width and precision are
/// numbers, ready to render one value without a [`crate::Format`]: for renderers with a hot
/// path of their own (the buffer decoder), which would otherwise build an argument list per
/// value. Its output is what [`crate::Format::render`] prints for the same spec.
#[derive(Clone, Copy, Debug)]
pub struct FloatConversion {
    field: Field,
    conversion: Conversion,
}

impl FloatConversion {
    /// The conversion of `spec`; `None` unless it is a floating-point conversion of one value
    /// (no vector) with no `*`.
    pub fn of(spec: &Spec) -> Option<FloatConversion> {
        if !spec.conversion.is_float() || spec.vector.is_some() {
            return None;
        }
        let width = match spec.width {
            None => 0,
            Some(Count::Fixed(width)) => width as usize,
            Some(Count::Star) => return None,
        };
        let precision = match spec.precision {
            None => None,
            Some(Count::Fixed(precision)) => Some(precision as usize),
            Some(Count::Star) => return None,
        };
        Some(FloatConversion {
            field: Field {
                flags: spec.flags,
                width,
                precision,
            },
            conversion: spec.conversion,
        })
    }

    /// Appends `value` as C's printf prints it with this conversion.
    #[inline]
    pub fn render(&self, value: f64, out: &mut Vec<u8>) {
        float::render(out, &self.field, self.conversion, value);
    }
}
