//! Showing a position in a format string the way clang shows one in a source line.

use fmtstr_format::{Finding, ParseError, Severity};
use fmtstr_meta::escape;

/// The bytes of a FORMAT argument: C escapes read unless `raw`.
pub fn format_bytes(text: &str, raw: bool) -> anyhow::Result<Vec<u8>> {
    literal_bytes(text.as_bytes(), raw).map_err(|error| {
        anyhow::anyhow!("in FORMAT: {error} (pass --raw to take the bytes literally)")
    })
}

/// Text from the command line as a C string-literal body (`\n`, `\xHH`, `\ooo`, ...), or its
/// bytes as they are when `raw`.
pub fn literal_bytes(text: &[u8], raw: bool) -> Result<Vec<u8>, escape::UnescapeError> {
    if raw {
        Ok(text.to_vec())
    } else {
        escape::unescape_bytes(text)
    }
}

/// The bytes of a command-line argument. On Unix an argument is any bytes (a file name or a
/// string in another encoding); elsewhere it must be Unicode, and the error names the
/// argument (`what`) and the way around it.
pub fn os_bytes<'a>(argument: &'a std::ffi::OsStr, what: &str) -> anyhow::Result<&'a [u8]> {
    #[cfg(unix)]
    {
        let _ = what;
        Ok(std::os::unix::ffi::OsStrExt::as_bytes(argument))
    }
    #[cfg(not(unix))]
    {
        argument.to_str().map(str::as_bytes).ok_or_else(|| {
            anyhow::anyhow!(
                "{what} (`{}`) is not Unicode text; write the bytes that are not as \\xHH \
                 escapes (without --raw)",
                argument.to_string_lossy()
            )
        })
    }
}

/// The format as a C literal with a caret line under the byte at `offset`.
pub fn excerpt(format: &[u8], offset: usize) -> String {
    let shown = escape::escape(format);
    let column = 1 + escape::escape(&format[..offset.min(format.len())]).len();
    format!("  \"{shown}\"\n  {:>column$}", "^")
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
