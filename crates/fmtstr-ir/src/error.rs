//! Errors: parse errors that point into the text, and edit errors that say what was refused.
//!
//! Input: where a parse stopped and what it expected, or why an edit was refused. Output:
//! [`ParseError`] (`file:line:column`, the line, a caret) and [`EditError`].

use std::fmt;

use thiserror::Error;

/// A syntax or reference error in a module's text.
///
/// Displays as `file:line:column: error: message`, then the offending line and a caret under
/// the column, the way `llvm-as` reports errors.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub struct ParseError {
    /// The file name given to the parser.
    pub file: String,
    /// Line, from 1.
    pub line: u32,
    /// Column in characters, from 1.
    pub column: u32,
    /// What was expected or what is wrong.
    pub message: String,
    /// The text of the offending line (lossily decoded, without its newline).
    pub line_text: String,
    /// The byte offset of the error in the text.
    pub offset: usize,
}

impl ParseError {
    pub(crate) fn at(file: &str, src: &[u8], offset: usize, message: String) -> ParseError {
        let offset = offset.min(src.len());
        let line_start = src[..offset]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let line_end = src[offset..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(src.len(), |i| offset + i);
        let line = src[..line_start].iter().filter(|&&b| b == b'\n').count() + 1;
        let before = String::from_utf8_lossy(&src[line_start..offset]);
        let line_text = String::from_utf8_lossy(&src[line_start..line_end])
            .trim_end_matches('\r')
            .to_string();
        ParseError {
            file: file.to_string(),
            line: u32::try_from(line).unwrap_or(u32::MAX),
            column: u32::try_from(before.chars().count() + 1).unwrap_or(u32::MAX),
            message,
            line_text,
            offset,
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{}:{}:{}: error: {}",
            self.file, self.line, self.column, self.message
        )?;
        writeln!(f, "{}", self.line_text)?;
        // Keep tabs so that the caret lines up under the same tab stops.
        let pad: String = self
            .line_text
            .chars()
            .take(self.column.saturating_sub(1) as usize)
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        write!(f, "{pad}^")
    }
}

/// Why an edit was refused. The module is unchanged when an edit returns an error.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum EditError {
    /// The value still has uses (removing it would leave dangling references).
    #[error("{what} still has {uses} use(s)")]
    StillUsed {
        /// The value, as LLVM would print it.
        what: String,
        /// How many uses remain.
        uses: usize,
    },
    /// A name is taken by a symbol of another kind or type.
    #[error("`{name}` already exists with a different kind or type")]
    NameTaken {
        /// The name.
        name: String,
    },
    /// The two values of a replacement have different types.
    #[error("type mismatch: {expected} expected, {found} found")]
    TypeMismatch {
        /// The type required.
        expected: String,
        /// The type given.
        found: String,
    },
    /// The operation does not apply to this kind of object.
    #[error("{0}")]
    Invalid(String),
}
