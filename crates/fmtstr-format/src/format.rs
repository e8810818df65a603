//! A parsed format: the bytes and their pieces, parsed once and rendered many times.

use std::str::FromStr;

use crate::parse::{parse_pieces, ParseError};
pub use crate::piece::Piece;
use crate::render::{render_format, Arg, RenderError};
use crate::spec::{ArgClass, Count, Spec};

/// One argument a format consumes, in the order a caller passes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArgSlot {
    /// An `int` for a `*` width or precision of the spec (index among [`Format::specs`]).
    Star {
        /// Index of the spec among [`Format::specs`].
        spec: usize,
    },
    /// The value of the spec (one vector for a vector spec).
    Value {
        /// Index of the spec among [`Format::specs`].
        spec: usize,
    },
}

/// A parsed printf format string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Format {
    bytes: Box<[u8]>,
    pieces: Vec<Piece>,
}

impl Format {
    /// Parses a format string. Like C's printf, the format ends at its first NUL: a trailing
    /// NUL (LLPC's table strings have one) and anything after an embedded one are not part of it.
    pub fn parse(bytes: &[u8]) -> Result<Format, ParseError> {
        let bytes = before_nul(bytes);
        let pieces = parse_pieces(bytes)?;
        Ok(Format {
            bytes: bytes.into(),
            pieces,
        })
    }

    /// The class of each argument `bytes` consumes as a format, in the order of
    /// [`Format::arguments`] (a `*` reads an `int`, [`ArgClass::Signed`]); refused where
    /// [`Format::parse`] refuses. For a caller that needs only the classes: nothing else is
    /// kept.
    pub fn argument_classes(bytes: &[u8]) -> Result<Vec<ArgClass>, ParseError> {
        let pieces = parse_pieces(before_nul(bytes))?;
        let mut classes = Vec::with_capacity(pieces.len());
        for piece in &pieces {
            if let Piece::Spec(spec) = piece {
                classes.extend(std::iter::repeat_n(ArgClass::Signed, spec.star_args()));
                classes.push(spec.class());
            }
        }
        Ok(classes)
    }

    /// The format's bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The pieces in order.
    pub fn pieces(&self) -> &[Piece] {
        &self.pieces
    }

    /// The conversions that consume arguments (everything but literals and `%%`), in order.
    pub fn specs(&self) -> impl Iterator<Item = &Spec> {
        self.pieces.iter().filter_map(|piece| match piece {
            Piece::Spec(spec) => Some(spec),
            _ => None,
        })
    }

    /// The flat list of arguments the format consumes: each spec's `*` arguments (width
    /// first), then its value.
    pub fn arguments(&self) -> Vec<ArgSlot> {
        let mut slots = Vec::with_capacity(self.argument_count());
        for (index, spec) in self.specs().enumerate() {
            for _ in 0..spec.star_args() {
                slots.push(ArgSlot::Star { spec: index });
            }
            slots.push(ArgSlot::Value { spec: index });
        }
        slots
    }

    /// `arguments().len()`: a vector spec counts as one argument.
    pub fn argument_count(&self) -> usize {
        self.specs().map(|spec| 1 + spec.star_args()).sum()
    }

    /// The number of scalar [`Arg`]s [`Format::render`] consumes: like
    /// [`Format::argument_count`], but a vector spec `%vN...` counts N.
    pub fn scalar_argument_count(&self) -> usize {
        self.specs()
            .map(|spec| spec.star_args() + usize::from(spec.vector.unwrap_or(1)))
            .sum()
    }

    /// Whether any spec takes its width or precision from a `*` argument.
    pub fn has_star(&self) -> bool {
        self.specs()
            .any(|spec| spec.width == Some(Count::Star) || spec.precision == Some(Count::Star))
    }

    /// Renders the format with a flat argument list, appending to `out` exactly what glibc's
    /// `snprintf` would print.
    ///
    /// A vector spec `%vN...` consumes N consecutive scalar arguments; a `*` consumes one
    /// [`Arg::Int`] (read as a C `int`) before the value. Extra arguments are ignored, as in C.
    /// On error `out` is left as it was.
    pub fn render(&self, args: &[Arg<'_>], out: &mut Vec<u8>) -> Result<(), RenderError> {
        render_format(self.bytes(), self.pieces(), args, out)
    }

    /// [`Format::render`] into a new vector.
    pub fn render_to_vec(&self, args: &[Arg<'_>]) -> Result<Vec<u8>, RenderError> {
        let mut out = Vec::with_capacity(self.bytes.len() + 16);
        self.render(args, &mut out)?;
        Ok(out)
    }
}

/// The bytes before the first NUL: what C's printf reads of a format.
pub fn before_nul(bytes: &[u8]) -> &[u8] {
    memchr::memchr(0, bytes).map_or(bytes, |end| &bytes[..end])
}

impl FromStr for Format {
    type Err = ParseError;

    fn from_str(s: &str) -> Result<Format, ParseError> {
        Format::parse(s.as_bytes())
    }
}
