//! Arguments for `fmtstr printf`: `TYPE:VALUE` or a bare value typed by its conversion.
//!
//! A typed argument says what C would have passed (`i32:7`, `u64:0x10`, `f32:1.5`, `str:hi`,
//! `ptr:0x1000`, `v4f32:1,2,3,4`); C's default promotions apply (narrow integers widen to 64-bit
//! registers with their sign, `f32` becomes `double`). A bare value takes the type its
//! conversion expects, so `fmtstr printf '%5.2f' 3.14159` just works. A string value (`str:`,
//! or a bare value for `%s`) is bytes, read like FORMAT as a C string-literal body.
//!
//! ```
//! use fmtstr_format::typed_args::{push_values, split};
//! use fmtstr_format::Arg;
//!
//! let (declared, value) = split(b"i8:0xff");
//! let mut args = Vec::new();
//! let value = std::str::from_utf8(value).unwrap();
//! push_values(declared.unwrap(), value, false, &mut args).unwrap();
//! assert_eq!(args, [Arg::Int(u64::MAX)]); // -1, sign-extended as C promotes it
//! ```

use crate::{Arg, ArgClass, ArgType, ScalarType, Spec};

/// Why a typed argument's value could not be read; the messages say what to write instead.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TypedArgError {
    /// Not an integer of the type.
    #[error("`{text}` is not a {}{bits} value (write decimal, 0x hex or 0b binary)", if *.signed { "i" } else { "u" })]
    NotInteger {
        /// The value as written, before trimming and `_` removal.
        text: String,
        /// The type's width in bits (8, 16, 32 or 64).
        bits: u16,
        /// Whether the type is signed (`iN`) rather than unsigned (`uN`).
        signed: bool,
    },
    /// An integer that does not fit the type.
    #[error("`{text}` is not a {}{bits} value (write decimal, 0x hex or 0b binary): out of range", if *.signed { "i" } else { "u" })]
    OutOfRange {
        /// The value as written, before trimming and `_` removal.
        text: String,
        /// The type's width in bits (8, 16, 32 or 64).
        bits: u16,
        /// Whether the type is signed; a hex or binary pattern fits if it fits the bits unsigned.
        signed: bool,
    },
    /// Not a floating-point value.
    #[error("`{text}` is not a floating-point value (write 1.5, 1e-3, inf, nan or 0x1.8p3)")]
    NotFloat {
        /// The value as written.
        text: String,
    },
    /// A vector value with the wrong number of components.
    #[error("a v{length} value needs {length} comma-separated components, got {got} in `{value}`")]
    Components {
        /// The vector length the type declares (2, 3, 4, 8 or 16).
        length: u8,
        /// How many comma-separated components the value has.
        got: usize,
        /// The whole vector value as written.
        value: String,
    },
}

/// The type part of `TYPE:VALUE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scalar {
    /// `i8` to `i64`: a signed integer of that many bits, sign-extended when promoted.
    Signed(u16),
    /// `u8` to `u64`: an unsigned integer of that many bits, zero-extended when promoted.
    Unsigned(u16),
    /// `f32`: rounded to a float first, then promoted to `double` as C does.
    F32,
    /// `f64`: a `double`.
    F64,
    /// `str`: a C string whose bytes are the value (never a vector component).
    Str,
    /// `ptr`: a 64-bit address, printed by `%p` (never a vector component).
    Ptr,
}

/// A scalar type, or a vector of one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Declared {
    /// The scalar type, or the component type of a vector.
    pub scalar: Scalar,
    /// The number of components (2, 3, 4, 8 or 16) for `vN<type>`; `None` for a scalar.
    pub vector: Option<u8>,
}

/// Every type name [`Declared::parse`] accepts, for error messages that list them.
pub const TYPE_NAMES: &str =
    "i8 i16 i32 i64 u8 u16 u32 u64 f32 f64 str ptr, or vN<type> with N in 2 3 4 8 16 (v4f32, v2i64)";

impl Declared {
    /// Parses `i32`, `f64`, `v4f32`, ...; `None` when `name` is not a type (so `VALUE` had no
    /// type prefix at all).
    pub fn parse(name: &str) -> Option<Declared> {
        let (vector, scalar_name) = match name.strip_prefix('v') {
            Some(rest) => {
                let digits = rest.chars().take_while(char::is_ascii_digit).count();
                let length: u8 = rest[..digits].parse().ok()?;
                if ![2, 3, 4, 8, 16].contains(&length) {
                    return None;
                }
                (Some(length), &rest[digits..])
            }
            None => (None, name),
        };
        let scalar = match scalar_name {
            "i8" => Scalar::Signed(8),
            "i16" => Scalar::Signed(16),
            "i32" => Scalar::Signed(32),
            "i64" => Scalar::Signed(64),
            "u8" => Scalar::Unsigned(8),
            "u16" => Scalar::Unsigned(16),
            "u32" => Scalar::Unsigned(32),
            "u64" => Scalar::Unsigned(64),
            "f32" => Scalar::F32,
            "f64" => Scalar::F64,
            "str" if vector.is_none() => Scalar::Str,
            "ptr" if vector.is_none() => Scalar::Ptr,
            _ => return None,
        };
        Some(Declared { scalar, vector })
    }

    /// The type as the checker sees it (IR has no signedness).
    pub fn arg_type(self) -> ArgType {
        let element = match self.scalar {
            Scalar::Signed(bits) | Scalar::Unsigned(bits) => ScalarType::Int(bits),
            Scalar::F32 => ScalarType::Float,
            Scalar::F64 => ScalarType::Double,
            Scalar::Str | Scalar::Ptr => ScalarType::Ptr,
        };
        match self.vector {
            Some(len) => ArgType::Vector {
                len: u16::from(len),
                element,
            },
            None => ArgType::Scalar(element),
        }
    }

    /// What a conversion expects, for a bare value.
    pub fn expected_by(spec: &Spec) -> Declared {
        let bits = u16::try_from(spec.c_width()).unwrap_or(64);
        let scalar = match spec.class() {
            ArgClass::Signed | ArgClass::Char => Scalar::Signed(bits),
            ArgClass::Unsigned => Scalar::Unsigned(bits),
            ArgClass::Float if bits <= 32 => Scalar::F32,
            ArgClass::Float => Scalar::F64,
            ArgClass::Pointer => Scalar::Ptr,
            ArgClass::String => Scalar::Str,
        };
        Declared {
            scalar,
            vector: spec.vector_len(),
        }
    }

    /// The C `int` a `*` width or precision takes.
    pub const STAR: Declared = Declared {
        scalar: Scalar::Signed(32),
        vector: None,
    };
}

/// Splits `TYPE:VALUE`; a text whose prefix is not a type name is a bare value. The text is
/// bytes: a `str` value need not be UTF-8.
pub fn split(text: &[u8]) -> (Option<Declared>, &[u8]) {
    let Some(colon) = text.iter().position(|&byte| byte == b':') else {
        return (None, text);
    };
    match std::str::from_utf8(&text[..colon])
        .ok()
        .and_then(Declared::parse)
    {
        Some(declared) => (Some(declared), &text[colon + 1..]),
        None => (None, text),
    }
}

impl Declared {
    /// A plain `str` (a C string: its value is bytes, read as a C literal body unless --raw).
    pub fn is_string(self) -> bool {
        self.scalar == Scalar::Str && self.vector.is_none()
    }
}

/// Converts a value of a declared type into the flat argument list the renderer takes
/// (a vector contributes one argument per component).
pub fn push_values<'a>(
    declared: Declared,
    value: &'a str,
    bare_char: bool,
    out: &mut Vec<Arg<'a>>,
) -> Result<(), TypedArgError> {
    let Some(length) = declared.vector else {
        out.push(scalar_value(declared.scalar, value, bare_char)?);
        return Ok(());
    };
    let components: Vec<&str> = value.split(',').map(str::trim).collect();
    if components.len() != usize::from(length) {
        return Err(TypedArgError::Components {
            length,
            got: components.len(),
            value: value.to_owned(),
        });
    }
    for component in components {
        out.push(scalar_value(declared.scalar, component, false)?);
    }
    Ok(())
}

fn scalar_value<'a>(
    scalar: Scalar,
    text: &'a str,
    bare_char: bool,
) -> Result<Arg<'a>, TypedArgError> {
    Ok(match scalar {
        // A bare value for %c is a character, as in the shell's printf: `%c A` prints `A`.
        Scalar::Signed(_) if bare_char => match text.as_bytes() {
            [byte] if !byte.is_ascii_digit() => Arg::Int(u64::from(*byte)),
            _ => Arg::Int(integer(text, 32, true)?),
        },
        Scalar::Signed(bits) => Arg::Int(integer(text, bits, true)?),
        Scalar::Unsigned(bits) => Arg::Int(integer(text, bits, false)?),
        // C promotes float to double: round to f32 first, exactly as the caller's variable held it.
        Scalar::F32 => Arg::Float(f64::from(float(text)? as f32)),
        Scalar::F64 => Arg::Float(float(text)?),
        Scalar::Str => Arg::Str(text.as_bytes()),
        Scalar::Ptr => Arg::Ptr(integer(text, 64, false)?),
    })
}

/// Parses an integer of `bits` bits: decimal, `0x` hex or `0b` binary, with an optional `-`.
/// Hex and binary are bit patterns (`i8:0xff` is -1). The result is what a 64-bit register holds
/// after C's promotion: sign-extended for signed types, zero-extended for unsigned ones.
fn integer(text: &str, bits: u16, signed: bool) -> Result<u64, TypedArgError> {
    let not_integer = || TypedArgError::NotInteger {
        text: text.to_owned(),
        bits,
        signed,
    };
    let cleaned = text.trim().replace('_', "");
    let (negative, body) = match cleaned.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, cleaned.strip_prefix('+').unwrap_or(&cleaned)),
    };
    let (radix, digits, pattern) =
        if let Some(hex) = body.strip_prefix("0x").or(body.strip_prefix("0X")) {
            (16, hex, true)
        } else if let Some(binary) = body.strip_prefix("0b") {
            (2, binary, true)
        } else {
            (10, body, false)
        };
    let magnitude = u128::from_str_radix(digits, radix).map_err(|_| not_integer())?;
    let mask = if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let fits = if pattern || !signed {
        magnitude <= u128::from(mask) && !(negative && !signed && magnitude != 0)
    } else if negative {
        magnitude <= 1u128 << (bits - 1)
    } else {
        magnitude < 1u128 << (bits - 1)
    };
    if !fits {
        return Err(TypedArgError::OutOfRange {
            text: text.to_owned(),
            bits,
            signed,
        });
    }
    let raw = if negative {
        (magnitude as u64).wrapping_neg()
    } else {
        magnitude as u64
    } & mask;
    let shift = 64 - u32::from(bits.min(64));
    Ok(if signed {
        (((raw << shift) as i64) >> shift) as u64
    } else {
        raw
    })
}

/// Parses a float as C's `strtod` would: decimal, `inf`, `nan`, and hex floats (`0x1.8p3`).
fn float(text: &str) -> Result<f64, TypedArgError> {
    let trimmed = text.trim();
    let (negative, body) = match trimmed.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, trimmed.strip_prefix('+').unwrap_or(trimmed)),
    };
    let magnitude = match body.strip_prefix("0x").or(body.strip_prefix("0X")) {
        Some(hex) => hex_float(hex),
        None if body.eq_ignore_ascii_case("nan") => Some(f64::NAN),
        None => body
            .parse::<f64>()
            .ok()
            .filter(|_| !body.starts_with(['+', '-'])),
    }
    .ok_or_else(|| TypedArgError::NotFloat {
        text: text.to_owned(),
    })?;
    // `-nan` keeps its sign bit, as glibc prints it.
    Ok(if negative { -magnitude } else { magnitude })
}

/// The value of a hex float body (after `0x`): hex digits with an optional point and an optional
/// binary exponent `p[+-]N`, rounded to nearest like `strtod`.
fn hex_float(body: &str) -> Option<f64> {
    let (mantissa, exponent) = match body.split_once(['p', 'P']) {
        Some((mantissa, exponent)) => (mantissa, exponent.parse::<i32>().ok()?),
        None => (body, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if whole.is_empty() && fraction.is_empty() {
        return None;
    }
    // Accumulate exactly while the digits fit in 60 bits, then keep a sticky bit for rounding.
    let mut bits: u64 = 0;
    let mut scale: i32 = exponent;
    let mut sticky = false;
    for (index, digit) in whole.chars().chain(fraction.chars()).enumerate() {
        let value = u64::from(digit.to_digit(16)?);
        let is_fraction = index >= whole.len();
        if bits >> 56 == 0 {
            bits = bits << 4 | value;
            if is_fraction {
                scale -= 4;
            }
        } else {
            sticky |= value != 0;
            if !is_fraction {
                scale += 4;
            }
        }
    }
    let bits = bits | u64::from(sticky);
    // `bits * 2^scale`, rounded once: powi on exact powers of two is exact while in range, and
    // the u64 -> f64 conversion rounds to nearest even.
    Some(scale_by_power_of_two(bits as f64, scale))
}

fn scale_by_power_of_two(mut value: f64, mut exponent: i32) -> f64 {
    // Step in ranges where 2^step is a normal double, so each multiply is exact until the last.
    while exponent > 1000 {
        value *= 2f64.powi(1000);
        exponent -= 1000;
    }
    while exponent < -1000 {
        value *= 2f64.powi(-1000);
        exponent += 1000;
    }
    value * 2f64.powi(exponent)
}
