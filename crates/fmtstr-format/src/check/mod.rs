//! A clang `-Wformat`-style checker of a format against IR argument types, in a [`Dialect`].
//!
//! The checker reads the format the way clang 19 does (its own lenient scan, not the renderer's
//! grammar), follows clang's order of checks per conversion (argument position, `*` amounts,
//! field width and precision, flags, length modifier, argument count, argument type) and
//! reports every finding, each with its byte offset, clang's wording and a fix where one exists.
//! Arguments are LLVM IR types, which erase signedness and C's promotions: `i32` stands for
//! `char`, `short`, `int` and `unsigned` alike, `ptr` for every pointer.

mod checker;
mod conversions;
mod finding;
mod limits;
mod mismatch;
mod types;

use crate::dialect::{Dialect, Rules, CUDA_MAX_ARGUMENTS};
use crate::format::Format;
use crate::scan::{scan, Amount, Event};

use self::checker::Checker;
use self::conversions::consumes_argument;
use self::finding::plural;

pub use finding::{Finding, FindingKind, GpuLimit, Severity, VvlLimit};
pub use types::{ArgType, ScalarType};

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
