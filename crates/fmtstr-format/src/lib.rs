//! printf format strings: grammar, argument classes, a checker and glibc-exact rendering.
//!
//! Parse a format once with [`Format::parse`], ask it what it consumes ([`Format::arguments`],
//! [`Spec::class`], [`Spec::c_width`]), and render it as many times as needed with
//! [`Format::render`], byte-identical to glibc's `snprintf` on LP64 Linux. OpenCL's vector
//! modifier (`%v4hlf`) is part of the grammar.
//!
//! Check a call's argument types (LLVM IR spellings) with [`check_format`] in a [`Dialect`]:
//! `C` and `OpenCl` say what clang 19's `-Wformat` says, `Gpu` (the default, and what [`check`]
//! uses) adds what GPU printf cannot print, and `Vvl` judges by the Vulkan validation layers'
//! debug printf (the grammar of `debugPrintfEXT` in SPIR-V shaders). The checker reads formats its own lenient way, the
//! way clang does, so it judges formats the renderer refuses (`%n`, `%1$d`, `%'d`) and reports
//! every finding, each with its byte offset and a fix.
//!
//! ```
//! use fmtstr_format::{check_format, ArgType, Dialect, ScalarType};
//!
//! let i64 = ArgType::Scalar(ScalarType::Int(64));
//! let findings = check_format(b"%+p %d", &[ArgType::Scalar(ScalarType::Ptr), i64], Dialect::C);
//! assert_eq!(findings[0].message, "flag '+' results in undefined behavior with 'p' conversion specifier");
//! assert_eq!(findings[1].fix.as_deref(), Some("write '%ld' for an argument of type 'i64'"));
//! ```
//!
//! ```
//! use fmtstr_format::{Arg, Format};
//!
//! let format = Format::parse(b"x=%5d %.3e %#x").unwrap();
//! let mut out = Vec::new();
//! format.render(&[Arg::Int(42), Arg::Float(1234.5), Arg::Int(255)], &mut out).unwrap();
//! assert_eq!(out, b"x=   42 1.234e+03 0xff");
//! ```
//!
//! "Byte-identical to glibc" includes glibc's own choices where C leaves room or glibc
//! deviates (all checked by the differential test against `snprintf`): `-nan` for NaNs with
//! the sign bit; `%a` keeps subnormals unnormalised (`0x0.0000000000001p-1022`) and carries a
//! rounding into the leading digit (`%.1a` of 1.96875 is `0x2.0p+0`); `%s` of a null pointer
//! is `(null)`, or nothing when the precision is below 6; `%p` of null is `(nil)` and other
//! pointers keep the `+` and space flags; and `%#g` drops the zeros a rounding carry would
//! need (`%#g` of 999999.5 is `1.e+06`). Widths and precisions are limited to 65536.

#![warn(missing_docs)]

mod check;
mod dialect;
mod format;
mod parse;
mod piece;
mod render;
mod scan;
mod spec;
pub mod typed_args;

pub use check::{
    check, check_format, ArgType, CleanChecks, Finding, FindingKind, GpuLimit, ScalarType,
    Severity, VvlLimit,
};
pub use dialect::{Dialect, UnknownDialect, CUDA_MAX_ARGUMENTS};
pub use format::{before_nul, ArgSlot, Format, Piece};
pub use parse::{CountKind, ParseError, ParseErrorKind, MAX_COUNT};
pub use render::int::{digits as int_digits, digits_u32 as int_digits_u32, Radix as IntRadix};
pub use render::{Arg, FloatConversion, RenderError};
pub use spec::{ArgClass, Conversion, Count, Flags, Length, Spec};
