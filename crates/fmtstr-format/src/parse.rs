//! The format-string grammar: literal text and conversion specifications.

use std::fmt;

use crate::piece::Piece;
use crate::spec::{Conversion, Count, Flags, Length, Spec};

/// The largest width or precision a format may ask for.
///
/// glibc allows `INT_MAX`; a bound this size keeps a hostile format (or a garbage `*` argument)
/// from making the renderer allocate gigabytes, while being far beyond any useful field.
pub const MAX_COUNT: u32 = 65536;

/// A format string that does not follow the grammar.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("at byte {offset}: {kind}")]
pub struct ParseError {
    /// Byte offset of the problem in the format.
    pub offset: usize,
    /// What went wrong.
    pub kind: ParseErrorKind,
}

/// Whether a number is a field width or a precision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CountKind {
    /// The field width.
    Width,
    /// The precision.
    Precision,
}

impl fmt::Display for CountKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CountKind::Width => "field width",
            CountKind::Precision => "precision",
        })
    }
}

/// What went wrong in a [`ParseError`]; its `Display` says what was expected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseErrorKind {
    /// The format ends inside a conversion specification.
    #[error(
        "the format ends inside the conversion that starts at byte {start}; \
         expected a conversion character (one of d i u o x X c s p f F e E g G a A %)"
    )]
    Unterminated {
        /// Offset of the `%` that starts the unfinished specification.
        start: usize,
    },
    /// A conversion character fmtstr does not know.
    #[error(
        "unknown conversion character {}; expected one of d i u o x X c s p f F e E g G a A %",
        show_byte(*.byte)
    )]
    UnknownConversion {
        /// The byte where a conversion character should be.
        byte: u8,
    },
    /// `%n`, which writes through a pointer argument.
    #[error(
        "'%n' writes the character count through a pointer argument and is refused; \
         expected a conversion that only reads its argument"
    )]
    WriteBack,
    /// `%%` with flags, width, precision or modifiers.
    #[error("'%%' takes no flags, width, precision or modifiers; expected a bare '%%'")]
    ModifiedPercent,
    /// A length modifier that does not apply to the conversion.
    #[error(
        "length modifier '{length}' does not apply to '%{conversion}'{}; expected {}",
        if *.vector { " in a vector" } else if *.length == Length::Hl { " outside a vector" } else { "" },
        allowed_lengths(*.conversion, *.vector)
    )]
    LengthNotApplicable {
        /// The modifier.
        length: Length,
        /// The conversion it was written with.
        conversion: Conversion,
        /// Whether the specification has a vector modifier.
        vector: bool,
    },
    /// `%lc` or `%ls`: wide characters and strings are not supported.
    #[error(
        "'%l{conversion}' takes a wide character or string, which fmtstr does not support; \
         expected '%{conversion}' without 'l'"
    )]
    WideUnsupported {
        /// `c` or `s`.
        conversion: Conversion,
    },
    /// A vector modifier on `%c`, `%s` or `%p`.
    #[error(
        "the vector modifier does not apply to '%{conversion}'; \
         expected an integer or floating-point conversion (d i u o x X f F e E g G a A)"
    )]
    VectorNotApplicable {
        /// The conversion.
        conversion: Conversion,
    },
    /// A vector modifier whose length is missing or not 2, 3, 4, 8 or 16.
    #[error("vector length {}; expected 2, 3, 4, 8 or 16", show_vector(*.found))]
    VectorLength {
        /// The digits after `v`, if any (saturated at `u32::MAX`).
        found: Option<u32>,
    },
    /// A width or precision above [`MAX_COUNT`].
    #[error(
        "{what} {value} is above fmtstr's limit of 65536 (a bound that keeps a hostile format \
         from making the renderer allocate gigabytes); expected at most 65536"
    )]
    CountTooLarge {
        /// Width or precision.
        what: CountKind,
        /// The number written (saturated at `u64::MAX`).
        value: u64,
    },
    /// Flags, width or precision after the vector or length modifier (`%v4.2f`).
    #[error(
        "{} after the modifiers; expected flags, width and precision before the vector \
         and length modifiers, as in '%-8.2v4hlf'",
        show_byte(*.byte)
    )]
    OutOfOrder {
        /// The misplaced byte.
        byte: u8,
    },
    /// A vector modifier written twice, or a length modifier written twice around it.
    #[error("a second {what} modifier; expected the conversion character")]
    RepeatedModifier {
        /// `"vector"` or `"length"`.
        what: &'static str,
    },
    /// `%1$d` or `*2$`: a positional argument.
    #[error(
        "positional argument '{position}$': fmtstr renders arguments in the order they are \
         passed; expected the conversions in argument order, without 'N$'"
    )]
    Positional {
        /// The 1-based position written.
        position: u32,
    },
    /// The `'` flag (thousands grouping).
    #[error(
        "the ''' flag groups thousands by the C locale, which fmtstr does not render; \
         expected the conversion without '''"
    )]
    ThousandsFlag,
    /// C23's `%b` and `%B`.
    #[error(
        "C23's binary conversion '%{}' is not supported; expected '%x' or '%o'",
        *.byte as char
    )]
    Binary {
        /// `b` or `B`.
        byte: u8,
    },
    /// C23's `wN` and `wfN` lengths (or Microsoft's wide `w`).
    #[error(
        "length modifier '{length}' (C23's exact-width 'wN' and 'wfN', or Microsoft's wide 'w') \
         is not supported; expected hh, h, l or ll (or none for 32 bits)"
    )]
    ExactWidth {
        /// The modifier as written (`w32`, `wf16`, `w`).
        length: String,
    },
    /// BSD's `q` length.
    #[error("'q' is BSD's spelling of 'll'; expected 'll'")]
    BsdQuad,
    /// glibc's `%m`.
    #[error(
        "'%m' prints strerror(errno), which fmtstr cannot render; expected a conversion that \
         prints an argument"
    )]
    Errno,
    /// `%S` and `%C`: wide strings and characters.
    #[error(
        "'%{}' takes a wide {}, which fmtstr does not support; expected '%{}'",
        *.byte as char,
        if *.byte == b'S' { "string" } else { "character" },
        (*.byte).to_ascii_lowercase() as char
    )]
    WideConversion {
        /// `S` or `C`.
        byte: u8,
    },
    /// Another system's conversion: Microsoft's `%Z`, Objective-C's `%@`.
    #[error(
        "'%{}' is {}, which fmtstr does not support; expected one of d i u o x X c s p f F e \
         E g G a A %",
        *.byte as char,
        if *.byte == b'Z' {
            "Microsoft's counted-string conversion (ANSI_STRING)"
        } else {
            "Objective-C's object conversion"
        }
    )]
    ForeignConversion {
        /// `Z` or `@`.
        byte: u8,
    },
}

fn show_byte(byte: u8) -> String {
    if byte.is_ascii_graphic() || byte == b' ' {
        format!("'{}'", byte as char)
    } else {
        format!("byte 0x{byte:02x}")
    }
}

fn show_vector(found: Option<u32>) -> String {
    match found {
        Some(n) => format!("{n} is not supported"),
        None => "is missing after 'v'".to_string(),
    }
}

fn allowed_lengths(conversion: Conversion, vector: bool) -> &'static str {
    match (conversion.is_integer(), conversion.is_float(), vector) {
        (true, _, false) => "one of hh, h, l, ll, j, z, t or none",
        (true, _, true) => "one of hh, h, hl, l or none (OpenCL vector element sizes)",
        (_, true, false) => "l, L or none",
        (_, true, true) => "one of h, hl, l or none (OpenCL vector element sizes)",
        _ => "no length modifier",
    }
}

/// Splits a format into pieces; `Format::parse` wraps this.
pub(crate) fn parse_pieces(bytes: &[u8]) -> Result<Vec<Piece>, ParseError> {
    // A literal before each specification, and one after the last.
    let mut pieces = Vec::with_capacity(2 * crate::scan::percent_signs(bytes) + 1);
    let mut literal_start = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'%' {
            i += 1;
            continue;
        }
        if literal_start < i {
            pieces.push(Piece::Literal(literal_start..i));
        }
        let (piece, end) = parse_spec(bytes, i)?;
        pieces.push(piece);
        i = end;
        literal_start = end;
    }
    if literal_start < bytes.len() {
        pieces.push(Piece::Literal(literal_start..bytes.len()));
    }
    Ok(pieces)
}

fn err(offset: usize, kind: ParseErrorKind) -> ParseError {
    ParseError { offset, kind }
}

/// Reads decimal digits at `*i`, saturating, and checks them against [`MAX_COUNT`].
fn parse_count(bytes: &[u8], i: &mut usize, what: CountKind) -> Result<u32, ParseError> {
    let start = *i;
    let mut value: u64 = 0;
    while let Some(&b) = bytes.get(*i) {
        if !b.is_ascii_digit() {
            break;
        }
        value = value.saturating_mul(10).saturating_add(u64::from(b - b'0'));
        *i += 1;
    }
    if value > u64::from(MAX_COUNT) {
        return Err(err(start, ParseErrorKind::CountTooLarge { what, value }));
    }
    Ok(value as u32)
}

/// Refuses a position `N$` written at `i` (after the `%` or a `*`), by name.
fn positional(bytes: &[u8], i: usize) -> Result<(), ParseError> {
    let digits = bytes[i.min(bytes.len())..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    if digits > 0 && bytes.get(i + digits) == Some(&b'$') {
        let position = bytes[i..i + digits].iter().fold(0u32, |n, &d| {
            n.saturating_mul(10).saturating_add(u32::from(d - b'0'))
        });
        return Err(err(i, ParseErrorKind::Positional { position }));
    }
    Ok(())
}

/// Parses the specification whose `%` is at `start`; returns it and the offset after it.
fn parse_spec(bytes: &[u8], start: usize) -> Result<(Piece, usize), ParseError> {
    let mut i = start + 1;
    positional(bytes, i)?;
    let (flags, any_flag) = parse_flags(bytes, &mut i)?;
    let width = parse_width(bytes, &mut i)?;
    let precision = parse_precision(bytes, &mut i)?;
    let modifiers = parse_modifiers(bytes, &mut i, start)?;

    let conv_at = i;
    let byte = bytes[conv_at];
    let end = conv_at + 1;
    let Modifiers {
        length,
        length_at,
        vector,
        vector_at,
    } = modifiers;
    if byte == b'%' {
        if any_flag
            || width.is_some()
            || precision.is_some()
            || length != Length::None
            || vector.is_some()
        {
            return Err(err(start, ParseErrorKind::ModifiedPercent));
        }
        return Ok((Piece::Percent, end));
    }
    let modified = vector.is_some() || length != Length::None;
    let conversion = conversion_at(byte, conv_at, modified)?;
    if vector.is_some() && !(conversion.is_integer() || conversion.is_float()) {
        return Err(err(
            vector_at,
            ParseErrorKind::VectorNotApplicable { conversion },
        ));
    }
    let in_vector = vector.is_some();
    if !length_applies(length, conversion, in_vector) {
        // `%lc` and `%ls` are refused as wide, not as a length that does not apply.
        let kind = if length == Length::L && matches!(conversion, Conversion::C | Conversion::S) {
            ParseErrorKind::WideUnsupported { conversion }
        } else {
            ParseErrorKind::LengthNotApplicable {
                length,
                conversion,
                vector: in_vector,
            }
        };
        return Err(err(length_at, kind));
    }

    let spec = Spec {
        offset: start,
        len: end - start,
        flags,
        width,
        precision,
        length,
        vector,
        conversion,
    };
    Ok((Piece::Spec(spec), end))
}

/// The flags at `*i`, any number in any order, and whether any was written; the `'` flag is
/// refused.
fn parse_flags(bytes: &[u8], i: &mut usize) -> Result<(Flags, bool), ParseError> {
    let mut flags = Flags::default();
    let mut any_flag = false;
    while let Some(&b) = bytes.get(*i) {
        match b {
            b'-' => flags.left = true,
            b'+' => flags.plus = true,
            b' ' => flags.space = true,
            b'#' => flags.alt = true,
            b'0' => flags.zero = true,
            b'\'' => return Err(err(*i, ParseErrorKind::ThousandsFlag)),
            _ => break,
        }
        any_flag = true;
        *i += 1;
    }
    Ok((flags, any_flag))
}

/// The field width at `*i`: `*` (not positional), digits, or none.
fn parse_width(bytes: &[u8], i: &mut usize) -> Result<Option<Count>, ParseError> {
    Ok(match bytes.get(*i) {
        Some(b'*') => {
            *i += 1;
            positional(bytes, *i)?;
            Some(Count::Star)
        }
        Some(b) if b.is_ascii_digit() => {
            Some(Count::Fixed(parse_count(bytes, i, CountKind::Width)?))
        }
        _ => None,
    })
}

/// The precision at `*i`: `.` then `*` (not positional) or digits (none is 0); `None`
/// without a `.`.
fn parse_precision(bytes: &[u8], i: &mut usize) -> Result<Option<Count>, ParseError> {
    if bytes.get(*i) != Some(&b'.') {
        return Ok(None);
    }
    *i += 1;
    Ok(match bytes.get(*i) {
        Some(b'*') => {
            *i += 1;
            positional(bytes, *i)?;
            Some(Count::Star)
        }
        _ => Some(Count::Fixed(parse_count(bytes, i, CountKind::Precision)?)),
    })
}

/// The vector and length modifiers of a specification, and where each was written (where the
/// modifiers start when it was not).
struct Modifiers {
    length: Length,
    length_at: usize,
    /// The vector length, 2, 3, 4, 8 or 16.
    vector: Option<u8>,
    vector_at: usize,
}

/// The modifiers at `*i`, up to the conversion character, which is left at `*i`. A format that
/// ends first is an error at `start`, the `%`.
fn parse_modifiers(bytes: &[u8], i: &mut usize, start: usize) -> Result<Modifiers, ParseError> {
    // OpenCL writes the vector modifier before the length modifier (`%v4hlf`); C habit
    // puts length modifiers right before the conversion, so both orders are accepted.
    let mut modifiers = Modifiers {
        length: Length::None,
        length_at: *i,
        vector: None,
        vector_at: *i,
    };
    loop {
        let Some(&b) = bytes.get(*i) else {
            return Err(err(start, ParseErrorKind::Unterminated { start }));
        };
        if b == b'v' {
            if modifiers.vector.is_some() {
                return Err(err(*i, ParseErrorKind::RepeatedModifier { what: "vector" }));
            }
            modifiers.vector_at = *i;
            modifiers.vector = Some(parse_vector(bytes, i)?);
            continue;
        }
        let Some((found, size)) = parse_length(bytes, *i)? else {
            return Ok(modifiers);
        };
        if modifiers.length != Length::None {
            return Err(err(*i, ParseErrorKind::RepeatedModifier { what: "length" }));
        }
        modifiers.length = found;
        modifiers.length_at = *i;
        *i += size;
    }
}

/// The vector modifier `vN` at `*i`: its length, which must be 2, 3, 4, 8 or 16.
fn parse_vector(bytes: &[u8], i: &mut usize) -> Result<u8, ParseError> {
    let digits_at = *i + 1;
    let mut j = digits_at;
    let mut n: u32 = 0;
    while let Some(&d) = bytes.get(j) {
        if !d.is_ascii_digit() {
            break;
        }
        n = n.saturating_mul(10).saturating_add(u32::from(d - b'0'));
        j += 1;
    }
    let found = (j > digits_at).then_some(n);
    match found {
        Some(n @ (2 | 3 | 4 | 8 | 16)) => {
            *i = j;
            Ok(n as u8)
        }
        _ => Err(err(*i, ParseErrorKind::VectorLength { found })),
    }
}

/// The length modifier at `i` (which is inside the format) and how many bytes it takes; `None`
/// when none starts there. BSD's `q` and C23's `wN`/`wfN` are refused by name.
fn parse_length(bytes: &[u8], i: usize) -> Result<Option<(Length, usize)>, ParseError> {
    let next = bytes.get(i + 1).copied();
    Ok(Some(match (bytes[i], next) {
        (b'h', Some(b'h')) => (Length::Hh, 2),
        (b'h', Some(b'l')) => (Length::Hl, 2),
        (b'h', _) => (Length::H, 1),
        (b'l', Some(b'l')) => (Length::Ll, 2),
        (b'l', _) => (Length::L, 1),
        (b'j', _) => (Length::J, 1),
        (b'z', _) => (Length::Z, 1),
        (b't', _) => (Length::T, 1),
        (b'L', _) => (Length::BigL, 1),
        (b'q', _) => return Err(err(i, ParseErrorKind::BsdQuad)),
        (b'w', _) => {
            let mut j = i + 1 + usize::from(next == Some(b'f'));
            while bytes.get(j).is_some_and(u8::is_ascii_digit) {
                j += 1;
            }
            let length = String::from_utf8_lossy(&bytes[i..j]).into_owned();
            return Err(err(i, ParseErrorKind::ExactWidth { length }));
        }
        _ => return Ok(None),
    }))
}

/// The conversion character `byte` at `at` (not `%`). The conversions of other systems are
/// refused by name; a flag, digit, `.` or `*` after the modifiers (`modified`) is out of order;
/// any other unknown byte is an unknown conversion.
fn conversion_at(byte: u8, at: usize, modified: bool) -> Result<Conversion, ParseError> {
    let refusal = match byte {
        b'n' => Some(ParseErrorKind::WriteBack),
        b'b' | b'B' => Some(ParseErrorKind::Binary { byte }),
        b'm' => Some(ParseErrorKind::Errno),
        b'S' | b'C' => Some(ParseErrorKind::WideConversion { byte }),
        b'Z' | b'@' => Some(ParseErrorKind::ForeignConversion { byte }),
        _ => None,
    };
    if let Some(kind) = refusal {
        return Err(err(at, kind));
    }
    let Some(conversion) = Conversion::from_byte(byte) else {
        if modified && matches!(byte, b'0'..=b'9' | b'.' | b'*' | b'-' | b'+' | b' ' | b'#') {
            return Err(err(at, ParseErrorKind::OutOfOrder { byte }));
        }
        return Err(err(at, ParseErrorKind::UnknownConversion { byte }));
    };
    Ok(conversion)
}

/// Whether the length modifier applies to the conversion, in a vector or not: the element
/// sizes OpenCL allows in a vector, C's lengths outside one. Always inlined: left a call, it
/// made parsing a format about 5% slower.
#[inline(always)]
fn length_applies(length: Length, conversion: Conversion, in_vector: bool) -> bool {
    match length {
        Length::None => true,
        _ if conversion.is_integer() => match length {
            Length::Hh | Length::H | Length::L => true,
            Length::Hl => in_vector,
            Length::Ll | Length::J | Length::Z | Length::T => !in_vector,
            _ => false,
        },
        _ if conversion.is_float() => match length {
            Length::L => true,
            Length::H | Length::Hl => in_vector,
            Length::BigL => !in_vector,
            _ => false,
        },
        _ => false,
    }
}
