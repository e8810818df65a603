//! Showing a position in a format string the way clang shows one in a source line, and
//! diagnostics on stderr colored the way clang colors them.
//!
//! Every diagnostic goes through [`stderr`], which paints each line it is given (a bold
//! location, a bold red `error:`, a bold magenta `warning:`, a bold green caret line) and
//! writes it through anstream, which drops the styles unless `--color` (or, with `--color
//! auto`, NO_COLOR, CLICOLOR_FORCE and a terminal on stderr) says to keep them.

use std::io::Write;

use anstyle::{AnsiColor, Style};
use fmtstr_format::{Finding, ParseError};
use fmtstr_meta::escape;

const BOLD: Style = Style::new().bold();
const ERROR: Style = AnsiColor::Red.on_default().bold();
const WARNING: Style = AnsiColor::Magenta.on_default().bold();
const NOTE: Style = AnsiColor::Cyan.on_default().bold();
const CARET: Style = AnsiColor::Green.on_default().bold();

/// The labels a diagnostic line carries, with their colors (clang's).
const LABELS: [(&str, Style); 4] = [
    ("fatal error: ", ERROR),
    ("error: ", ERROR),
    ("warning: ", WARNING),
    ("note: ", NOTE),
];

/// One line of a diagnostic with clang's styles: `LOCATION: error: message` (location and
/// message bold, the label colored) or a caret line (`   ^~~~`, green). Other lines, such as
/// the quoted source, are left as they are.
pub fn paint_line(line: &str) -> String {
    let trimmed = line.trim();
    if trimmed.contains('^') && trimmed.chars().all(|c| matches!(c, '^' | '~' | ' ')) {
        let indent = &line[..line.len() - line.trim_start().len()];
        return format!("{indent}{CARET}{trimmed}{CARET:#}");
    }
    for (label, style) in LABELS {
        // The label comes first, or right after a location that ends with ": ".
        let at = if line.starts_with(label) {
            Some(0)
        } else {
            line.find(&format!(": {label}")).map(|at| at + 2)
        };
        if let Some(at) = at {
            let (location, rest) = line.split_at(at);
            let message = &rest[label.len()..];
            let label = label.trim_end();
            return format!(
                "{BOLD}{location}{BOLD:#}{style}{label}{style:#} {BOLD}{message}{BOLD:#}"
            );
        }
    }
    line.to_owned()
}

/// A writer for diagnostics on stderr: each complete line is painted ([`paint_line`]) and
/// written through anstream, which keeps or drops the styles as `--color` decides.
pub fn stderr() -> Painted {
    Painted {
        inner: anstream::stderr(),
        pending: Vec::new(),
    }
}

/// See [`stderr`].
#[derive(Debug)]
pub struct Painted {
    inner: anstream::Stderr,
    pending: Vec<u8>,
}

impl Painted {
    fn write_lines(&mut self, all: bool) -> std::io::Result<()> {
        let end = if all {
            self.pending.len()
        } else {
            match self.pending.iter().rposition(|&b| b == b'\n') {
                Some(newline) => newline + 1,
                None => return Ok(()),
            }
        };
        let chunk: Vec<u8> = self.pending.drain(..end).collect();
        let mut painted = Vec::with_capacity(chunk.len());
        for line in chunk.split_inclusive(|&b| b == b'\n') {
            let (body, newline) = match line.strip_suffix(b"\n") {
                Some(body) => (body, &b"\n"[..]),
                None => (line, &b""[..]),
            };
            // A line that is not UTF-8 (a format string's raw bytes) passes unpainted, byte
            // for byte.
            match std::str::from_utf8(body) {
                Ok(text) => painted.extend_from_slice(paint_line(text).as_bytes()),
                Err(_) => painted.extend_from_slice(body),
            }
            painted.extend_from_slice(newline);
        }
        self.inner.write_all(&painted)
    }
}

impl Write for Painted {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.pending.extend_from_slice(bytes);
        self.write_lines(false)?;
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.write_lines(true)?;
        self.inner.flush()
    }
}

impl Drop for Painted {
    fn drop(&mut self) {
        let _ = self.flush();
    }
}

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

/// The format as a C literal with a caret line under the byte at `offset` (lower's excerpt:
/// one look for every command).
pub fn excerpt(format: &[u8], offset: usize) -> String {
    fmtstr_lower::diag::format_excerpt(format, offset)
}

/// A parse error in FORMAT, with the format and a caret under the offending byte.
pub fn parse_error(format: &[u8], error: &ParseError) -> anyhow::Error {
    anyhow::anyhow!("in FORMAT {error}\n{}", excerpt(format, error.offset))
}

/// One finding on stderr, as `fmtstr check` prints it (the text is the library's).
pub fn print_finding(format: &[u8], finding: &Finding) {
    let _ = stderr().write_all(fmtstr_tools::check::finding_text(format, finding).as_bytes());
}
