//! A clang `-Wformat`-style checker of a format against IR argument types, in a [`Dialect`].
//!
//! The checker reads the format the way clang 19 does (its own lenient scan, not the renderer's
//! grammar), follows clang's order of checks per conversion (argument position, `*` amounts,
//! field width and precision, flags, length modifier, argument count, argument type) and
//! reports every finding, each with its byte offset, clang's wording and a fix where one exists.
//! Arguments are LLVM IR types, which erase signedness and C's promotions: `i32` stands for
//! `char`, `short`, `int` and `unsigned` alike, `ptr` for every pointer.

use std::fmt;

use crate::dialect::{Dialect, Rules, CUDA_MAX_ARGUMENTS};
use crate::format::Format;
use crate::scan::{scan, Amount, Event, Len, RawSpec};
use crate::spec::ArgClass;

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
    /// `x86_fp80`: C's `long double` on x86.
    X86Fp80,
    /// `fp128`: C's `long double` on AArch64 and others.
    Fp128,
    /// `ptr` (any address space)
    Ptr,
}

impl ScalarType {
    fn float_bits(self) -> Option<u32> {
        match self {
            ScalarType::Half => Some(16),
            ScalarType::Float => Some(32),
            ScalarType::Double => Some(64),
            ScalarType::X86Fp80 => Some(80),
            ScalarType::Fp128 => Some(128),
            _ => None,
        }
    }
}

impl fmt::Display for ScalarType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScalarType::Int(bits) => write!(f, "i{bits}"),
            ScalarType::Half => f.write_str("half"),
            ScalarType::Float => f.write_str("float"),
            ScalarType::Double => f.write_str("double"),
            ScalarType::X86Fp80 => f.write_str("x86_fp80"),
            ScalarType::Fp128 => f.write_str("fp128"),
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

/// How bad a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// What clang's `-Wformat` warns about, and what GPU printf cannot print.
    Warning,
    /// The format cannot be parsed at all (only in [`Dialect::Gpu`]).
    Error,
}

/// Something GPU printf cannot print, which [`Dialect::Gpu`] warns about.
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
/// which [`Dialect::Vvl`] reports.
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
    /// Something GPU printf cannot print ([`Dialect::Gpu`] only).
    Gpu(GpuLimit),
    /// What the Vulkan validation layers reject or print differently ([`Dialect::Vvl`] only).
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
    /// Warning, or error for a format that cannot be parsed (in [`Dialect::Gpu`]).
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

/// [`check_format`] on a parsed format, in the default dialect ([`Dialect::Gpu`]).
pub fn check(format: &Format, args: &[ArgType]) -> Vec<Finding> {
    check_format(format.bytes(), args, Dialect::Gpu)
}

/// Checks a printf call's arguments against its format (without the trailing NUL) the way
/// clang's `-Wformat` does, in `dialect`, and returns every finding in format order (findings
/// about the whole call last).
///
/// Scalars follow C's default promotions (an `i8` or `i16` is fine for `%d`, a `float` or
/// `half` for `%f`); vector elements are not promoted and must match exactly.
pub fn check_format(bytes: &[u8], args: &[ArgType], dialect: Dialect) -> Vec<Finding> {
    let rules = dialect.rules();
    if bytes.is_empty() && !args.is_empty() {
        return empty_format(bytes, args, rules);
    }
    judge(bytes, args, rules, &scan(bytes, &rules))
}

/// Remembers the calls [`check_format`] found nothing wrong with, so that formats that differ
/// only in their literal text are judged once (`"f1: x=%d\n"`, `"f2: x=%d\n"`, ...): a clean
/// judgement depends only on the dialect, the argument types and the conversion
/// specifications without their places, since the checker reads places only to say where a
/// finding is.
#[derive(Clone, Debug, Default)]
pub struct CleanChecks {
    /// Each clean call's key: its dialect, argument types and judged events, as bytes (a
    /// structured key cost as much to hash and compare as the judging it saved).
    seen: foldhash::HashSet<Box<[u8]>>,
    /// The key of the call being checked (kept: most calls only look up).
    key: Vec<u8>,
}

impl CleanChecks {
    /// What [`check_format`] finds.
    pub fn check(&mut self, bytes: &[u8], args: &[ArgType], dialect: Dialect) -> Vec<Finding> {
        let rules = dialect.rules();
        if bytes.is_empty() && !args.is_empty() {
            return empty_format(bytes, args, rules);
        }
        let events = scan(bytes, &rules);
        let key = &mut self.key;
        key.clear();
        key.push(dialect as u8);
        key.extend_from_slice(&(args.len() as u32).to_le_bytes());
        for arg in args {
            push_arg(key, *arg);
        }
        for event in &events {
            event.push_judged(key);
        }
        if self.seen.contains(key.as_slice()) {
            return Vec::new();
        }
        let findings = judge(bytes, args, rules, &events);
        if findings.is_empty() {
            self.seen.insert(key.as_slice().into());
        }
        findings
    }
}

/// An argument type as six key bytes (see [`CleanChecks`]).
fn push_arg(key: &mut Vec<u8>, arg: ArgType) {
    let scalar = |s: ScalarType| -> (u8, u16) {
        match s {
            ScalarType::Int(bits) => (0, bits),
            ScalarType::Half => (1, 0),
            ScalarType::Float => (2, 0),
            ScalarType::Double => (3, 0),
            ScalarType::X86Fp80 => (4, 0),
            ScalarType::Fp128 => (5, 0),
            ScalarType::Ptr => (6, 0),
        }
    };
    let (vector, len, (tag, bits)) = match arg {
        ArgType::Scalar(s) => (0, 0, scalar(s)),
        ArgType::Vector { len, element } => (1, len, scalar(element)),
    };
    let [len_lo, len_hi] = len.to_le_bytes();
    let [bits_lo, bits_hi] = bits.to_le_bytes();
    key.extend_from_slice(&[vector, len_lo, len_hi, tag, bits_lo, bits_hi]);
}

/// clang says only this about an empty format given arguments.
fn empty_format(bytes: &[u8], args: &[ArgType], rules: Rules) -> Vec<Finding> {
    let mut checker = Checker::new(bytes, args, rules);
    checker.push(
        None,
        Some(0),
        FindingKind::EmptyFormat,
        "format string is empty".to_string(),
        Some("remove the arguments, or write the conversions that print them".to_string()),
    );
    checker.findings
}

/// The findings about a format scanned into `events`.
fn judge(bytes: &[u8], args: &[ArgType], rules: Rules, events: &[Event]) -> Vec<Finding> {
    let mut checker = Checker::new(bytes, args, rules);
    let consumed = consumed_count(events, &rules);
    // clang stops reading a format where its argument accounting breaks (an argument missing,
    // positions mixed with sequence); the checker reads on for what the format alone says
    // (flags, lengths, conversions), so that every finding is reported.
    let mut accounting = true;
    for event in events {
        match event {
            Event::Spec(spec) if !accounting => checker.format_only(spec),
            _ => accounting &= checker.event(event, consumed),
        }
    }
    if accounting {
        if let Some(unused) = checker.covered.iter().position(|c| !c) {
            checker.push(
                None,
                Some(unused),
                FindingKind::TooManyArguments {
                    expected: consumed,
                    got: args.len(),
                },
                format!(
                    "data argument not used by format string: the format consumes {consumed} \
                     argument{}, the call passes {}",
                    plural(consumed),
                    args.len()
                ),
                Some("remove the argument, or add a conversion for it".to_string()),
            );
        }
    }
    if let Some(max) = rules.max_arguments {
        if args.len() > max {
            checker.push(
                None,
                Some(max),
                FindingKind::Gpu(GpuLimit::CudaArgumentLimit),
                format!(
                    "the call passes {} arguments; CUDA's printf prints at most {max} and drops \
                     the rest",
                    args.len()
                ),
                Some(format!(
                    "split the call into printf calls of at most {CUDA_MAX_ARGUMENTS} arguments"
                )),
            );
        }
    }
    checker.findings
}

/// The number of arguments a format consumes: sequential conversions and `*`s in order, or the
/// highest position.
fn consumed_count(events: &[Event], rules: &Rules) -> usize {
    let mut sequential = 0usize;
    let mut highest = 0usize;
    for event in events {
        let Event::Spec(spec) = event else { continue };
        for amount in [spec.width, spec.precision].into_iter().flatten() {
            match amount {
                Amount::Star(Some(p)) => highest = highest.max(p as usize),
                Amount::Star(None) => sequential += 1,
                _ => {}
            }
        }
        if consumes_argument(spec, rules) {
            match spec.position {
                Some(p) => highest = highest.max(p as usize),
                None => sequential += 1,
            }
        }
    }
    sequential.max(highest)
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// The conversion characters clang 19 knows for printf on Linux (VVL's, for [`Dialect::Vvl`]).
fn is_known_conversion(byte: u8, rules: &Rules) -> bool {
    if rules.vvl {
        return matches!(
            byte,
            b'd' | b'i'
                | b'o'
                | b'u'
                | b'x'
                | b'X'
                | b'a'
                | b'A'
                | b'e'
                | b'E'
                | b'f'
                | b'F'
                | b'g'
                | b'G'
                | b'p'
                | b'%'
        );
    }
    matches!(
        byte,
        b'd' | b'i'
            | b'o'
            | b'u'
            | b'x'
            | b'X'
            | b'b'
            | b'B'
            | b'f'
            | b'F'
            | b'e'
            | b'E'
            | b'g'
            | b'G'
            | b'a'
            | b'A'
            | b'c'
            | b's'
            | b'p'
            | b'n'
            | b'C'
            | b'S'
            | b'm'
            | b'%'
    )
}

fn is_valid_conversion(spec: &RawSpec, rules: &Rules) -> bool {
    // clang has no vector form of `%n`.
    is_known_conversion(spec.conversion, rules)
        && !(spec.conversion == b'n' && spec.vector.is_some())
}

fn consumes_argument(spec: &RawSpec, rules: &Rules) -> bool {
    is_valid_conversion(spec, rules) && !matches!(spec.conversion, b'%' | b'm')
}

fn is_signed_int(c: u8) -> bool {
    matches!(c, b'd' | b'i')
}

fn is_unsigned_int(c: u8) -> bool {
    matches!(c, b'o' | b'u' | b'x' | b'X' | b'b' | b'B')
}

fn is_int(c: u8) -> bool {
    is_signed_int(c) || is_unsigned_int(c)
}

fn is_float(c: u8) -> bool {
    matches!(c, b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A')
}

/// A byte as a finding's message shows it: itself when printable, else `\\xNN`. Formatted
/// only when a finding is made, so that a clean format allocates nothing for it.
#[derive(Clone, Copy)]
struct Shown(u8);

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

fn show(byte: u8) -> Shown {
    Shown(byte)
}

/// What a conversion reads, as the checker compares it with an IR type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Expect {
    /// An integer of this many bits (8 and 16 accept anything up to 32: C promotes).
    Int { bits: u32, class: ArgClass },
    /// A floating value of this many bits (64: `double`; 80: `long double`).
    Float { bits: u32 },
    /// A pointer (`%s`, `%p`, `%n`, ...).
    Pointer(ArgClass),
    /// A floating value of any width ([`Dialect::Vvl`] prints half, float and double alike).
    AnyFloat,
    /// Nothing clang checks.
    Unchecked,
}

struct Checker<'a> {
    bytes: &'a [u8],
    args: &'a [ArgType],
    rules: Rules,
    findings: Vec<Finding>,
    covered: Vec<bool>,
    next_arg: usize,
    /// Whether the conversions seen so far are positional (`None` before the first).
    positional: Option<bool>,
}

impl<'a> Checker<'a> {
    fn new(bytes: &'a [u8], args: &'a [ArgType], rules: Rules) -> Checker<'a> {
        Checker {
            bytes,
            args,
            rules,
            findings: Vec::new(),
            covered: vec![false; args.len()],
            next_arg: 0,
            positional: None,
        }
    }

    fn push(
        &mut self,
        offset: Option<usize>,
        arg_index: Option<usize>,
        kind: FindingKind,
        message: String,
        fix: Option<String>,
    ) {
        let severity = match kind {
            FindingKind::InvalidConversion { .. }
            | FindingKind::Incomplete
            | FindingKind::ZeroPosition
            | FindingKind::InvalidPosition
            | FindingKind::Vvl(
                VvlLimit::Flag
                | VvlLimit::Star
                | VvlLimit::Length
                | VvlLimit::VectorSize
                | VvlLimit::Positional,
            ) if self.rules.unparseable_is_error => Severity::Error,
            _ => Severity::Warning,
        };
        self.findings.push(Finding {
            severity,
            offset,
            arg_index,
            kind,
            message,
            fix,
        });
    }

    /// Judges one event; `false` when the argument accounting breaks there (where clang stops).
    fn event(&mut self, event: &Event, consumed: usize) -> bool {
        match *event {
            Event::Incomplete { start } => {
                self.push(
                    Some(start),
                    None,
                    FindingKind::Incomplete,
                    "incomplete format specifier".to_string(),
                    Some("finish the conversion, or write '%%' for a literal '%'".to_string()),
                );
                false
            }
            Event::ZeroPosition { at } => {
                self.push(
                    Some(at),
                    None,
                    FindingKind::ZeroPosition,
                    "position arguments in format strings start counting at 1 (not 0)".to_string(),
                    Some("number the first argument 1".to_string()),
                );
                false
            }
            Event::InvalidPosition { at, precision, .. } => {
                let what = if precision {
                    "precision"
                } else {
                    "field width"
                };
                self.push(
                    Some(at),
                    None,
                    FindingKind::InvalidPosition,
                    format!("invalid position specified for {what}"),
                    Some("write '*N$' with the argument's position N".to_string()),
                );
                false
            }
            Event::Nul { at } => {
                self.push(
                    Some(at),
                    None,
                    FindingKind::EmbeddedNul,
                    "format string contains '\\0' within the string body".to_string(),
                    Some(
                        "printf stops at the '\\0': remove it, or end the format there".to_string(),
                    ),
                );
                false
            }
            Event::Spec(ref spec) => self.spec(spec, consumed),
        }
    }

    fn spec(&mut self, spec: &RawSpec, consumed: usize) -> bool {
        if !is_valid_conversion(spec, &self.rules) {
            return self.invalid_conversion(spec);
        }
        let consumes = consumes_argument(spec, &self.rules);
        if consumes {
            let positional = spec.position.is_some();
            match self.positional {
                None => self.positional = Some(positional),
                Some(mode) if mode != positional => {
                    self.push(
                        Some(spec.start),
                        None,
                        FindingKind::MixedPositional,
                        "cannot mix positional and non-positional arguments in format string"
                            .to_string(),
                        Some("number every conversion ('%1$d') or none".to_string()),
                    );
                    return false;
                }
                Some(_) => {}
            }
        }
        if self.rules.gpu_findings {
            self.gpu_limits(spec);
        }
        if self.rules.vvl {
            self.vvl_limits(spec);
        }
        for (amount, precision) in [(spec.width, false), (spec.precision, true)] {
            if let Some(Amount::Star(position)) = amount {
                if !self.star(spec, position, precision) {
                    return false;
                }
            }
        }
        if !consumes {
            return true;
        }
        let index = match spec.position {
            Some(p) => p as usize - 1,
            None => {
                self.next_arg += 1;
                self.next_arg - 1
            }
        };
        if let Some(covered) = self.covered.get_mut(index) {
            *covered = true;
        }
        self.amounts_and_flags(spec);
        self.length(spec);
        if index >= self.args.len() {
            let got = self.args.len();
            match spec.position {
                Some(position) => self.push(
                    Some(spec.start),
                    None,
                    FindingKind::PositionTooLarge { position, got },
                    format!(
                        "data argument position '{position}' exceeds the number of data \
                         arguments ({got})"
                    ),
                    Some(format!(
                        "pass argument {position}, or number it {got} or less"
                    )),
                ),
                None => self.push(
                    Some(spec.start),
                    None,
                    FindingKind::TooFewArguments {
                        expected: consumed,
                        got,
                    },
                    format!(
                        "more '%' conversions than data arguments: the format consumes \
                         {consumed} argument{}, the call passes {got}",
                        plural(consumed)
                    ),
                    Some(format!("pass an argument for '{}'", self.text(spec))),
                ),
            }
            return false;
        }
        let expect = self.expect(spec);
        self.argument(spec, index, expect);
        true
    }

    /// A conversion after the argument accounting broke: only what the format alone says.
    fn format_only(&mut self, spec: &RawSpec) {
        if !is_valid_conversion(spec, &self.rules) {
            self.report_invalid_conversion(spec);
            return;
        }
        if self.rules.gpu_findings {
            self.gpu_limits(spec);
        }
        if self.rules.vvl {
            self.vvl_limits(spec);
        }
        if consumes_argument(spec, &self.rules) {
            self.amounts_and_flags(spec);
            self.length(spec);
        }
    }

    fn invalid_conversion(&mut self, spec: &RawSpec) -> bool {
        self.report_invalid_conversion(spec);
        // clang counts the argument an invalid conversion would take as used, and stops when
        // there is none.
        let index = spec.position.map_or(0, |p| p as usize - 1);
        match self.covered.get_mut(index) {
            Some(covered) => {
                *covered = true;
                true
            }
            None => false,
        }
    }

    fn report_invalid_conversion(&mut self, spec: &RawSpec) {
        let byte = spec.conversion;
        let (message, fix) = match byte {
            b'@' if self.rules.gpu_findings => (
                "invalid conversion specifier '@': '%@' prints an Objective-C object, which \
                 GPU printf cannot"
                    .to_string(),
                "print the object's description with '%s'".to_string(),
            ),
            b'Z' if self.rules.gpu_findings => (
                "invalid conversion specifier 'Z': '%Z' is Microsoft's counted-string \
                 conversion (ANSI_STRING), which GPU printf does not have"
                    .to_string(),
                "print the string's buffer with '%.*s'".to_string(),
            ),
            b's' | b'c' if self.rules.vvl => (
                format!(
                    "invalid conversion specifier '{}': the Vulkan validation layers' debug \
                     printf prints no strings or characters, and skips this call",
                    show(byte)
                ),
                "print the values as integers ('%d', '%x')".to_string(),
            ),
            _ if self.rules.vvl => (
                format!(
                    "invalid conversion specifier '{}': the Vulkan validation layers' debug \
                     printf does not know it, and skips this call",
                    show(byte)
                ),
                "expected one of d i o u x X a A e E f F g G p, or '%%' for a literal '%'"
                    .to_string(),
            ),
            _ => (
                format!("invalid conversion specifier '{}'", show(byte)),
                "expected one of d i o u x X f F e E g G a A c s p n, or '%%' for a literal '%'"
                    .to_string(),
            ),
        };
        self.push(
            Some(spec.conversion_at),
            None,
            FindingKind::InvalidConversion { byte },
            message,
            Some(fix),
        );
    }

    /// A `*` width or precision: its argument must be an `int`.
    fn star(&mut self, spec: &RawSpec, position: Option<u32>, precision: bool) -> bool {
        let what = if precision {
            "field precision"
        } else {
            "field width"
        };
        let index = match position {
            Some(p) => p as usize - 1,
            None => {
                self.next_arg += 1;
                self.next_arg - 1
            }
        };
        let offset = if precision {
            spec.precision_at
        } else {
            spec.width_at
        };
        let Some(&got) = self.args.get(index) else {
            self.push(
                Some(offset),
                None,
                FindingKind::StarMissing,
                format!(
                    "'{}' specified {what} is missing a matching 'int' argument",
                    if precision { ".*" } else { "*" }
                ),
                Some(format!("pass an 'int' for the {what}")),
            );
            return false;
        };
        self.covered[index] = true;
        let kind = match got {
            ArgType::Scalar(ScalarType::Int(bits)) if bits <= 32 => return true,
            ArgType::Scalar(ScalarType::Int(_)) => FindingKind::Width {
                expected_bits: 32,
                got,
            },
            _ => FindingKind::Class {
                expected: ArgClass::Signed,
                got,
            },
        };
        self.push(
            Some(offset),
            Some(index),
            kind,
            format!("{what} should have type 'int', but argument has type '{got}'"),
            Some(format!("cast the {what} to 'int'")),
        );
        true
    }

    /// Field width, precision and flags that mean nothing with the conversion (clang's order).
    fn amounts_and_flags(&mut self, spec: &RawSpec) {
        let c = spec.conversion;
        let name = show(c);
        if spec.width.is_some() && c == b'n' {
            self.push(
                Some(spec.width_at),
                None,
                FindingKind::WidthUndefined { conversion: c },
                format!(
                    "field width used with '{name}' conversion specifier, resulting in \
                     undefined behavior"
                ),
                Some("remove the field width".to_string()),
            );
        }
        let precision_used = matches!(spec.precision, Some(Amount::Fixed(_) | Amount::Star(_)));
        if precision_used && !(is_int(c) || is_float(c) || c == b's') {
            self.push(
                Some(spec.precision_at),
                None,
                FindingKind::PrecisionUndefined { conversion: c },
                format!(
                    "precision used with '{name}' conversion specifier, resulting in \
                     undefined behavior"
                ),
                Some("remove the precision".to_string()),
            );
        }
        // VVL takes only the `0` flag: `vvl_limits` reports the others.
        if self.rules.vvl || spec.flags.is_empty() {
            return;
        }
        let f = spec.flags;
        let checks = [
            (
                f.thousands,
                b'\'',
                matches!(c, b'd' | b'i' | b'u' | b'f' | b'F' | b'g' | b'G'),
            ),
            (f.zero, b'0', is_int(c) || is_float(c)),
            (f.plus, b'+', is_signed_int(c) || is_float(c)),
            (f.space, b' ', is_signed_int(c) || is_float(c)),
            (
                f.alt,
                b'#',
                matches!(c, b'o' | b'x' | b'X' | b'b' | b'B') || is_float(c),
            ),
            (f.left, b'-', c != b'n'),
        ];
        for (at, flag, valid) in checks {
            if let (Some(at), false) = (at, valid) {
                self.push(
                    Some(at),
                    None,
                    FindingKind::FlagUndefined {
                        flag,
                        conversion: c,
                    },
                    format!(
                        "flag '{}' results in undefined behavior with '{name}' conversion \
                         specifier",
                        flag as char
                    ),
                    Some(format!("remove the '{}' flag", flag as char)),
                );
            }
        }
        for (ignored, flag, winner, by) in
            [(f.space, b' ', f.plus, b'+'), (f.zero, b'0', f.left, b'-')]
        {
            if let (Some(at), Some(_)) = (ignored, winner) {
                self.push(
                    Some(at),
                    None,
                    FindingKind::FlagIgnored { flag, by },
                    format!(
                        "flag '{}' is ignored when flag '{}' is present",
                        flag as char, by as char
                    ),
                    Some(format!("remove the '{}' flag", flag as char)),
                );
            }
        }
    }

    /// The length modifier: a finding when it does not apply to the conversion. The argument is
    /// checked all the same, as clang does ([`Checker::expect`] knows which pairs read nothing).
    fn length(&mut self, spec: &RawSpec) {
        if self.rules.vvl {
            // VVL's lengths are judged by `vvl_limits`.
            return;
        }
        let c = spec.conversion;
        let vector = spec.vector.is_some();
        let int_like = is_int(c);
        let valid = match spec.length {
            Len::None => true,
            // OpenCL's vector element sizes; clang also takes C's lengths there.
            _ if vector && !self.rules.clang_vector_types => {
                matches!(spec.length, Len::Hh | Len::H | Len::Hl | Len::L)
                    && (int_like || is_float(c))
                    && !(spec.length == Len::Hh && is_float(c))
            }
            Len::H if is_float(c) => vector,
            Len::H | Len::Hh | Len::Ll | Len::Q | Len::J | Len::Z | Len::T => int_like || c == b'n',
            Len::Hl => vector && (int_like || is_float(c)),
            Len::L if is_float(c) && self.rules.opencl_lengths => vector,
            Len::L => int_like || is_float(c) || matches!(c, b'n' | b'c' | b's'),
            Len::BigL => is_float(c) || matches!(c, b'd' | b'i' | b'o' | b'u' | b'x' | b'X'),
            Len::I | Len::I32 | Len::I64 | Len::W => false,
            Len::WidthN(n) => (int_like || c == b'n') && matches!(n, 8 | 16 | 32 | 64),
            Len::FastN(n) => (int_like || c == b'n') && matches!(n, 8 | 16 | 32 | 64),
        };
        if !valid {
            let length = spec.length.text();
            self.push(
                Some(spec.length_at),
                None,
                FindingKind::LengthUndefined { conversion: c },
                format!(
                    "length modifier '{length}' results in undefined behavior or no effect \
                     with '{}' conversion specifier",
                    show(c)
                ),
                Some(format!("remove the length modifier '{length}'")),
            );
        }
    }

    /// The specification as written.
    fn text(&self, spec: &RawSpec) -> String {
        String::from_utf8_lossy(&self.bytes[spec.start..spec.end]).into_owned()
    }

    /// What the Vulkan validation layers reject (errors: VVL skips the call) or print otherwise
    /// than the format says (warnings), for one conversion.
    fn vvl_limits(&mut self, spec: &RawSpec) {
        let text = self.text(spec);
        let c = spec.conversion;
        let skipped = "the Vulkan validation layers reject it and skip this call";
        if spec.position.is_some() {
            self.push(
                Some(spec.start),
                None,
                FindingKind::Vvl(VvlLimit::Positional),
                format!("positional argument in '{text}': {skipped}"),
                Some("write the conversions in argument order, without 'N$'".to_string()),
            );
        }
        let f = spec.flags;
        for (at, flag) in [
            (f.left, b'-'),
            (f.plus, b'+'),
            (f.space, b' '),
            (f.alt, b'#'),
            (f.thousands, b'\''),
        ] {
            if let Some(at) = at {
                self.push(
                    Some(at),
                    None,
                    FindingKind::Vvl(VvlLimit::Flag),
                    format!(
                        "flag '{}' in '{text}': VVL's debug printf takes only the '0' flag; \
                         {skipped}",
                        flag as char
                    ),
                    Some(format!("remove the '{}' flag", flag as char)),
                );
            }
        }
        for (amount, at) in [
            (spec.width, spec.width_at),
            (spec.precision, spec.precision_at),
        ] {
            if let Some(Amount::Star(_)) = amount {
                self.push(
                    Some(at),
                    None,
                    FindingKind::Vvl(VvlLimit::Star),
                    format!("'*' in '{text}': VVL's debug printf has no '*' width or precision"),
                    Some("write the width or precision as digits".to_string()),
                );
            }
        }
        if let Some(n) = spec.vector {
            if !(2..=4).contains(&n) {
                self.push(
                    Some(spec.vector_at),
                    None,
                    FindingKind::Vvl(VvlLimit::VectorSize),
                    format!(
                        "vector size {n} in '{text}': VVL prints vectors of 2, 3 or 4; {skipped}"
                    ),
                    Some("write %v2, %v3 or %v4".to_string()),
                );
            }
        }
        let (limit, message, fix) = match spec.length {
            Len::None => return,
            Len::L if spec.ul_alias => (
                VvlLimit::UlAlias,
                format!(
                    "'{text}' is VVL's alias of '%lx' (a 64-bit integer in hex); C reads it as \
                     '%u' followed by the letter 'l'"
                ),
                "write '%lx'".to_string(),
            ),
            Len::L if is_float(c) => (
                VvlLimit::LongFloat,
                format!(
                    "'l' in '{text}': VVL prints 16-, 32- and 64-bit floats with '%{}', and \
                     documents '%l{}' as unsupported",
                    show(c),
                    show(c)
                ),
                "remove the 'l'".to_string(),
            ),
            Len::L if is_int(c) => return,
            Len::Ll if is_int(c) => (
                VvlLimit::LongLong,
                format!("'ll' in '{text}': VVL's 64-bit length is 'l'"),
                "write 'l' for 'll'".to_string(),
            ),
            _ => (
                VvlLimit::Length,
                format!(
                    "length modifier '{}' in '{text}': VVL's only length is 'l' on integer \
                     conversions (8- and 16-bit values print with the 32-bit conversions); \
                     {skipped}",
                    spec.length.text()
                ),
                format!("remove the length modifier '{}'", spec.length.text()),
            ),
        };
        self.push(
            Some(spec.length_at),
            None,
            FindingKind::Vvl(limit),
            message,
            Some(fix),
        );
    }

    /// The GPU dialect's own warnings for one conversion.
    fn gpu_limits(&mut self, spec: &RawSpec) {
        let c = spec.conversion;
        let positional = spec.position.is_some();
        let thousands = spec.flags.thousands.is_some();
        let limited = matches!(c, b'n' | b'S' | b'C' | b'm' | b'b' | b'B')
            || matches!(spec.length, Len::Q | Len::WidthN(_) | Len::FastN(_))
            || (matches!(c, b'c' | b's') && spec.length == Len::L)
            || (matches!(c, b'c' | b's' | b'p') && spec.vector.is_some());
        if !(positional || thousands || limited) {
            return;
        }
        let text = self.text(spec);
        if let Some(position) = spec.position {
            self.push(
                Some(spec.start),
                None,
                FindingKind::Gpu(GpuLimit::Positional),
                format!(
                    "positional argument '{position}$' in '{text}': GPU printf (CUDA's vprintf, \
                     AMD's printf buffer) takes its arguments in order"
                ),
                Some("write the conversions in argument order, without 'N$'".to_string()),
            );
        }
        if let Some(at) = spec.flags.thousands {
            self.push(
                Some(at),
                None,
                FindingKind::Gpu(GpuLimit::ThousandsGrouping),
                format!(
                    "the ''' flag in '{text}' groups thousands by the C locale, which GPU \
                     printf does not have"
                ),
                Some("remove the ''' flag".to_string()),
            );
        }
        let (limit, message, fix) = match (c, spec.length) {
            (b'n', _) => (
                GpuLimit::WriteBack,
                format!(
                    "'{text}' writes the number of characters printed through a pointer; GPU \
                     printf does not support '%n'"
                ),
                "remove the conversion and its argument".to_string(),
            ),
            (b'S' | b'C', _) | (b'c' | b's', Len::L) => (
                GpuLimit::WideCharacter,
                format!("'{text}' prints wide characters, which GPU printf does not have"),
                "convert to char and use '%c' or '%s'".to_string(),
            ),
            (b'm', _) => (
                GpuLimit::Errno,
                format!(
                    "'{text}' prints strerror(errno), a glibc extension GPU printf does not \
                     have"
                ),
                "remove it, or print the error code with '%d'".to_string(),
            ),
            (b'b' | b'B', _) => (
                GpuLimit::Binary,
                format!("C23's binary conversion '{text}' is not printed by GPU printf"),
                "use '%x' or '%o'".to_string(),
            ),
            (_, Len::Q) => (
                GpuLimit::BsdQuad,
                format!("'q' in '{text}' is BSD's spelling of 'll', unknown to GPU printf"),
                "write 'll' for 'q'".to_string(),
            ),
            (_, Len::WidthN(n) | Len::FastN(n)) => (
                GpuLimit::ExactWidth,
                format!(
                    "C23's exact-width length '{}' in '{text}' is not supported by GPU printf",
                    spec.length.text()
                ),
                match n {
                    8 => "write 'hh' (8 bits)".to_string(),
                    16 => "write 'h' (16 bits)".to_string(),
                    32 => "remove it (32 bits is an int)".to_string(),
                    64 => "write 'll' (64 bits)".to_string(),
                    _ => "write hh, h, no length or ll for 8, 16, 32 or 64 bits".to_string(),
                },
            ),
            (b'c' | b's' | b'p', _) if spec.vector.is_some() => (
                GpuLimit::VectorOfNonNumber,
                format!("the vector modifier does not apply to '%{}'", show(c)),
                "remove the vector modifier, or use an integer or floating conversion".to_string(),
            ),
            _ => return,
        };
        let offset = match limit {
            GpuLimit::BsdQuad | GpuLimit::ExactWidth => spec.length_at,
            _ => spec.start,
        };
        self.push(
            Some(offset),
            None,
            FindingKind::Gpu(limit),
            message,
            Some(fix),
        );
    }

    /// What the conversion reads, per element for vectors.
    fn expect(&self, spec: &RawSpec) -> Expect {
        let c = spec.conversion;
        let vector = spec.vector.is_some();
        let class = match c {
            b'd' | b'i' => ArgClass::Signed,
            b'c' | b'C' => ArgClass::Char,
            b's' | b'S' => ArgClass::String,
            b'p' | b'n' => ArgClass::Pointer,
            c if is_float(c) => ArgClass::Float,
            _ => ArgClass::Unsigned,
        };
        let clang_vectors = vector && self.rules.clang_vector_types;
        if self.rules.vvl {
            return match c {
                c if is_int(c) => Expect::Int {
                    bits: if matches!(spec.length, Len::L | Len::Ll) {
                        64
                    } else {
                        32
                    },
                    class,
                },
                c if is_float(c) => Expect::AnyFloat,
                b'p' => Expect::Pointer(class),
                _ => Expect::Unchecked,
            };
        }
        match c {
            b'c' => match spec.length {
                Len::None | Len::L | Len::W => Expect::Int { bits: 32, class },
                _ => Expect::Unchecked,
            },
            b'C' => Expect::Int { bits: 32, class },
            b's' | b'p' | b'S' | b'n' if clang_vectors => Expect::Unchecked,
            b's' | b'S' => Expect::Pointer(class),
            b'p' => Expect::Pointer(class),
            b'n' => match spec.length {
                Len::None
                | Len::Hh
                | Len::H
                | Len::L
                | Len::Ll
                | Len::Q
                | Len::J
                | Len::Z
                | Len::T => Expect::Pointer(class),
                _ => Expect::Unchecked,
            },
            c if is_int(c) => {
                let bits = match spec.length {
                    // clang reads `hh` as "any char", which it cannot put in a vector.
                    Len::Hh if clang_vectors && is_signed_int(c) => return Expect::Unchecked,
                    Len::Hh => 8,
                    Len::H => 16,
                    Len::None | Len::Hl | Len::I32 => 32,
                    Len::W => return Expect::Unchecked,
                    Len::WidthN(n) | Len::FastN(n) => u32::from(n),
                    _ => 64,
                };
                Expect::Int { bits, class }
            }
            c if is_float(c) => {
                let bits = if vector {
                    match spec.length {
                        Len::H => 16,
                        Len::Hl => 32,
                        Len::L => 64,
                        _ if clang_vectors => 64,
                        _ => 32,
                    }
                } else if spec.length == Len::BigL && !self.rules.long_double_is_double {
                    80
                } else {
                    64
                };
                Expect::Float { bits }
            }
            _ => Expect::Unchecked,
        }
    }

    /// Compares the argument at `index` with what the conversion reads.
    fn argument(&mut self, spec: &RawSpec, index: usize, expect: Expect) {
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

    fn mismatch(
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
    fn c_type(&self, spec: &RawSpec, expect: Expect) -> String {
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
fn suggestion(spec: &RawSpec, bytes: &[u8], got: ArgType, vvl: bool) -> Option<String> {
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
