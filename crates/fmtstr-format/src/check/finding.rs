//! The finding model: what the checker reports (out) for one problem it saw (in: a kind,
//! an offset, clang's wording and a fix), with the wording helpers every message shares so
//! that all findings show bytes and counts the same way.

use std::fmt;

use crate::spec::ArgClass;

use super::types::ArgType;

/// How bad a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// What clang's `-Wformat` warns about, and what GPU printf cannot print.
    Warning,
    /// The format cannot be parsed at all (only in [`Dialect::Gpu`](crate::Dialect::Gpu)).
    Error,
}

/// Something GPU printf cannot print, which [`Dialect::Gpu`](crate::Dialect::Gpu) warns about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GpuLimit {
    /// `%n` writes through a pointer.
    WriteBack,
    /// `%S`, `%C`, `%lc`, `%ls`: wide characters.
    WideCharacter,
    /// `%1$d`: positional arguments.
    Positional,
    /// `%m`: glibc's `strerror(errno)`.
    Errno,
    /// The `'` flag: locale-dependent thousands grouping.
    ThousandsGrouping,
    /// C23's `%b` and `%B`.
    Binary,
    /// BSD's `q` length.
    BsdQuad,
    /// C23's `wN` and `wfN` lengths.
    ExactWidth,
    /// The vector modifier on `%c`, `%s` or `%p`.
    VectorOfNonNumber,
    /// More than 32 arguments: CUDA's printf drops the rest.
    CudaArgumentLimit,
}

/// Something the Vulkan validation layers' debug printf rejects or prints differently from C,
/// which [`Dialect::Vvl`](crate::Dialect::Vvl) reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VvlLimit {
    /// A flag other than `0` (`-`, `+`, space, `#`, `'`): VVL rejects the call.
    Flag,
    /// A `*` width or precision: VVL has none.
    Star,
    /// A length modifier other than `l` (`h`, `hh`, `j`, `z`, `t`, `L`, ...): VVL rejects it.
    Length,
    /// `ll`: VVL reads it as `l`; its documented spelling is `l`.
    LongLong,
    /// `%lf`: VVL prints 16-, 32- and 64-bit floats with `%f`.
    LongFloat,
    /// A vector size other than 2, 3 or 4.
    VectorSize,
    /// `%N$`: VVL takes arguments in order.
    Positional,
    /// `%ul`: VVL's own alias of `%lx` (C reads `%u` then a letter `l`).
    UlAlias,
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
        expected: u16,
        /// The argument's vector length (1 for a scalar).
        got: u16,
    },
    /// A conversion character printf does not know (`%y`, `%@`).
    InvalidConversion {
        /// The character.
        byte: u8,
    },
    /// The format ends inside a conversion.
    Incomplete,
    /// A NUL byte inside the format: printf stops there.
    EmbeddedNul,
    /// A flag that means nothing, or something undefined, with its conversion (`%+p`).
    FlagUndefined {
        /// The flag.
        flag: u8,
        /// The conversion character.
        conversion: u8,
    },
    /// A flag that another flag overrides (`% +d`, `%-0d`).
    FlagIgnored {
        /// The ignored flag.
        flag: u8,
        /// The flag that wins.
        by: u8,
    },
    /// A field width with `%n`.
    WidthUndefined {
        /// The conversion character.
        conversion: u8,
    },
    /// A precision with a conversion that has none (`%.4p`, `%.2c`).
    PrecisionUndefined {
        /// The conversion character.
        conversion: u8,
    },
    /// A length modifier that does not apply to its conversion (`%hhs`, `%lp`).
    LengthUndefined {
        /// The conversion character.
        conversion: u8,
    },
    /// Positional and sequential conversions mixed in one format.
    MixedPositional,
    /// `%0$d` or `*0$`: positions count from 1.
    ZeroPosition,
    /// `*N` without `$` in a positional format.
    InvalidPosition,
    /// `%N$d` past the last argument.
    PositionTooLarge {
        /// The 1-based position.
        position: u32,
        /// Arguments passed.
        got: usize,
    },
    /// A `*` with no argument left for it.
    StarMissing,
    /// An empty format given arguments.
    EmptyFormat,
    /// Something GPU printf cannot print ([`Dialect::Gpu`](crate::Dialect::Gpu) only).
    Gpu(GpuLimit),
    /// What the Vulkan validation layers reject or print differently
    /// ([`Dialect::Vvl`](crate::Dialect::Vvl) only).
    Vvl(VvlLimit),
}

impl FindingKind {
    /// A short kebab-case name (the `kind` of `fmtstr check --json`).
    pub fn name(self) -> &'static str {
        match self {
            FindingKind::TooFewArguments { .. } => "too-few-arguments",
            FindingKind::TooManyArguments { .. } => "too-many-arguments",
            FindingKind::Width { .. } => "width",
            FindingKind::Class { .. } => "class",
            FindingKind::VectorLength { .. } => "vector-length",
            FindingKind::InvalidConversion { .. } => "invalid-conversion",
            FindingKind::Incomplete => "incomplete",
            FindingKind::EmbeddedNul => "embedded-nul",
            FindingKind::FlagUndefined { .. } => "flag-undefined",
            FindingKind::FlagIgnored { .. } => "flag-ignored",
            FindingKind::WidthUndefined { .. } => "width-undefined",
            FindingKind::PrecisionUndefined { .. } => "precision-undefined",
            FindingKind::LengthUndefined { .. } => "length-undefined",
            FindingKind::MixedPositional => "mixed-positional",
            FindingKind::ZeroPosition => "zero-position",
            FindingKind::InvalidPosition => "invalid-position",
            FindingKind::PositionTooLarge { .. } => "position-too-large",
            FindingKind::StarMissing => "star-missing",
            FindingKind::EmptyFormat => "empty-format",
            FindingKind::Gpu(GpuLimit::WriteBack) => "gpu-write-back",
            FindingKind::Gpu(GpuLimit::WideCharacter) => "gpu-wide-character",
            FindingKind::Gpu(GpuLimit::Positional) => "gpu-positional",
            FindingKind::Gpu(GpuLimit::Errno) => "gpu-errno",
            FindingKind::Gpu(GpuLimit::ThousandsGrouping) => "gpu-thousands-grouping",
            FindingKind::Gpu(GpuLimit::Binary) => "gpu-binary",
            FindingKind::Gpu(GpuLimit::BsdQuad) => "gpu-bsd-quad",
            FindingKind::Gpu(GpuLimit::ExactWidth) => "gpu-exact-width",
            FindingKind::Gpu(GpuLimit::VectorOfNonNumber) => "gpu-vector-of-non-number",
            FindingKind::Gpu(GpuLimit::CudaArgumentLimit) => "gpu-cuda-argument-limit",
            FindingKind::Vvl(VvlLimit::Flag) => "vvl-flag",
            FindingKind::Vvl(VvlLimit::Star) => "vvl-star",
            FindingKind::Vvl(VvlLimit::Length) => "vvl-length",
            FindingKind::Vvl(VvlLimit::LongLong) => "vvl-long-long",
            FindingKind::Vvl(VvlLimit::LongFloat) => "vvl-long-float",
            FindingKind::Vvl(VvlLimit::VectorSize) => "vvl-vector-size",
            FindingKind::Vvl(VvlLimit::Positional) => "vvl-positional",
            FindingKind::Vvl(VvlLimit::UlAlias) => "vvl-ul-alias",
        }
    }

    /// Every kind's [`FindingKind::name`] (for schemas and docs).
    pub const NAMES: [&'static str; 37] = [
        "too-few-arguments",
        "too-many-arguments",
        "width",
        "class",
        "vector-length",
        "invalid-conversion",
        "incomplete",
        "embedded-nul",
        "flag-undefined",
        "flag-ignored",
        "width-undefined",
        "precision-undefined",
        "length-undefined",
        "mixed-positional",
        "zero-position",
        "invalid-position",
        "position-too-large",
        "star-missing",
        "empty-format",
        "gpu-write-back",
        "gpu-wide-character",
        "gpu-positional",
        "gpu-errno",
        "gpu-thousands-grouping",
        "gpu-binary",
        "gpu-bsd-quad",
        "gpu-exact-width",
        "gpu-vector-of-non-number",
        "gpu-cuda-argument-limit",
        "vvl-flag",
        "vvl-star",
        "vvl-length",
        "vvl-long-long",
        "vvl-long-float",
        "vvl-vector-size",
        "vvl-positional",
        "vvl-ul-alias",
    ];
}

/// One problem the checker found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// Warning, or error for a format that cannot be parsed (in
    /// [`Dialect::Gpu`](crate::Dialect::Gpu)).
    pub severity: Severity,
    /// Byte offset in the format of what the finding is about (the `%` of a conversion, a
    /// flag, a length modifier, the NUL), if anything in the format is.
    pub offset: Option<usize>,
    /// Index of the argument concerned, if one is.
    pub arg_index: Option<usize>,
    /// What is wrong.
    pub kind: FindingKind,
    /// A message in clang's words, e.g. "format specifies type 'long' but the argument has
    /// type 'i32'".
    pub message: String,
    /// How to fix it, where there is a fix.
    pub fix: Option<String>,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

pub(super) fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// A byte as a finding's message shows it: itself when printable, else `\\xNN`. Formatted
/// only when a finding is made, so that a clean format allocates nothing for it.
#[derive(Clone, Copy)]
pub(super) struct Shown(u8);

impl fmt::Display for Shown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let byte = self.0;
        if byte.is_ascii_graphic() || byte == b' ' {
            write!(f, "{}", byte as char)
        } else {
            write!(f, "\\x{byte:02x}")
        }
    }
}

pub(super) fn show(byte: u8) -> Shown {
    Shown(byte)
}
