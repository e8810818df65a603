//! The pieces a format string is made of: literal text, `%%`, and conversions. The parser
//! makes them and the renderer reads them; `Format` holds them.

use std::ops::Range;

use crate::spec::Spec;

/// One piece of a format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    /// Literal text: a byte range into the format's bytes.
    Literal(Range<usize>),
    /// `%%`, printed as `%`.
    Percent,
    /// A conversion that consumes arguments.
    Spec(Spec),
}
