//! Showing a position in a format string the way clang shows one in a source line.

use fmtstr_format::{Finding, ParseError, Severity};
use fmtstr_meta::escape;

/// The bytes of a FORMAT argument: C escapes read unless `raw`.
pub fn format_bytes(text: &str, raw: bool) -> anyhow::Result<Vec<u8>> {
    if raw {
        return Ok(text.as_bytes().to_vec());
    }
    escape::unescape(text).map_err(|error| {
        anyhow::anyhow!("in FORMAT: {error} (pass --raw to take the bytes literally)")
    })
}

/// The format as a C literal with a caret line under the byte at `offset`.
pub fn excerpt(format: &[u8], offset: usize) -> String {
    let shown = escape::escape(format);
    let column = 1 + escape::escape(&format[..offset.min(format.len())]).len();
    // Padded by hand: `{:>column$}` panics for widths above 65535 (a long format).
    format!("  \"{shown}\"\n  {}^", " ".repeat(column - 1))
}

/// A parse error in FORMAT, with the format and a caret under the offending byte.
pub fn parse_error(format: &[u8], error: &ParseError) -> anyhow::Error {
    anyhow::anyhow!("in FORMAT {error}\n{}", excerpt(format, error.offset))
}

/// A checker finding on stderr, clang style.
pub fn print_finding(format: &[u8], finding: &Finding) {
    let position = match (finding.offset, finding.arg_index) {
        (Some(offset), Some(argument)) => format!("byte {offset}, argument {}", argument + 1),
        (Some(offset), None) => format!("byte {offset}"),
        (None, Some(argument)) => format!("argument {}", argument + 1),
        (None, None) => "format".to_owned(),
    };
    let severity = match finding.severity {
        Severity::Warning => "warning",
        Severity::Error => "error",
    };
    eprintln!("fmtstr: {severity}: {position}: {finding} [-Wformat]");
    if let Some(offset) = finding.offset {
        eprintln!("{}", excerpt(format, offset));
    }
    if let Some(fix) = &finding.fix {
        eprintln!("  fix: {fix}");
    }
}
