//! printf format strings: grammar, argument classes, a checker and glibc-exact rendering.
//!
//! Parse a format once with [`Format::parse`], ask it what it consumes ([`Format::arguments`],
//! [`Spec::class`], [`Spec::c_width`]), check a call's argument types with [`check`], and
//! render it as many times as needed with [`Format::render`], byte-identical to glibc's
//! `snprintf` on LP64 Linux. OpenCL's vector modifier (`%v4hlf`) is part of the grammar.
//!
//! ```
//! use fmtstr_format::{Arg, Format};
//!
//! let format = Format::parse(b"x=%5d %.3e %#x").unwrap();
//! let mut out = Vec::new();
//! format.render(&[Arg::Int(42), Arg::Float(1234.5), Arg::Int(255)], &mut out).unwrap();
//! assert_eq!(out, b"x=   42 1.234e+03 0xff");
//! ```

mod check;
mod format;
mod parse;
mod render;
mod spec;

pub use check::{check, ArgType, Finding, FindingKind, ScalarType};
pub use format::{ArgSlot, Format, Piece};
pub use parse::{CountKind, ParseError, ParseErrorKind, MAX_COUNT};
pub use render::{Arg, RenderError};
pub use spec::{ArgClass, Conversion, Count, Flags, Length, Spec};
