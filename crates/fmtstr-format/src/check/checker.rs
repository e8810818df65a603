//! The per-conversion rules: a [`Checker`] walks the scanned events of one format (in) and
//! collects its findings (out) in clang's order of checks per conversion (argument position,
//! `*` amounts, field width and precision, flags, length modifier, argument count, argument
//! type). The dialects' own limits and the argument type comparison extend [`Checker`]
//! elsewhere, so that this module reads as clang's order of checks and nothing more.

use crate::dialect::Rules;
use crate::scan::{Amount, Event, Len, RawSpec};
use crate::spec::ArgClass;

use super::conversions::{consumes_argument, is_float, is_int, is_signed_int, is_valid_conversion};
use super::finding::{plural, show, Finding, FindingKind, Severity, VvlLimit};
use super::types::{ArgType, ScalarType};

/// What a conversion reads, as the checker compares it with an IR type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Expect {
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

pub(super) struct Checker<'a> {
    pub(super) bytes: &'a [u8],
    pub(super) args: &'a [ArgType],
    pub(super) rules: Rules,
    pub(super) findings: Vec<Finding>,
    pub(super) covered: Vec<bool>,
    pub(super) next_arg: usize,
    /// Whether the conversions seen so far are positional (`None` before the first).
    pub(super) positional: Option<bool>,
}

impl<'a> Checker<'a> {
    pub(super) fn new(bytes: &'a [u8], args: &'a [ArgType], rules: Rules) -> Checker<'a> {
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

    pub(super) fn push(
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
    pub(super) fn event(&mut self, event: &Event, consumed: usize) -> bool {
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

    pub(super) fn spec(&mut self, spec: &RawSpec, consumed: usize) -> bool {
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
    pub(super) fn format_only(&mut self, spec: &RawSpec) {
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

    pub(super) fn invalid_conversion(&mut self, spec: &RawSpec) -> bool {
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

    pub(super) fn report_invalid_conversion(&mut self, spec: &RawSpec) {
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
    pub(super) fn star(&mut self, spec: &RawSpec, position: Option<u32>, precision: bool) -> bool {
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
    pub(super) fn amounts_and_flags(&mut self, spec: &RawSpec) {
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
    pub(super) fn length(&mut self, spec: &RawSpec) {
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
    pub(super) fn text(&self, spec: &RawSpec) -> String {
        String::from_utf8_lossy(&self.bytes[spec.start..spec.end]).into_owned()
    }

    /// What the conversion reads, per element for vectors.
    pub(super) fn expect(&self, spec: &RawSpec) -> Expect {
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
}
