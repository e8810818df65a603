//! Diagnostics: what a lowering says about a call, pointing at the call in the `.ll` text.
//!
//! Every diagnostic names `file:line:column` of the call instruction in the module's text, shows
//! the call, and where the call carries a `!dbg` location, the program source position too:
//!
//! ```text
//! k.ll:12:3: error: unsupported printf form (op-tag = 7)
//!   %call = call i32 (ptr, ...) @printf(ptr @.str, i32 %x), !printf.form !3
//!   note: from k.cu:5:3
//! ```
//!
//! The messages that LLVM's own printf lowerings print (LLVM's NVPTX printf lowering and cicc) are kept verbatim:
//! [`UNSUPPORTED_FORM`], [`NOT_CONSTANT_ADDRSPACE`], [`NOT_A_STRING_LITERAL`], [`NO_DATALAYOUT`].

use std::fmt;

use fmtstr_ir::{InstId, Module};

/// `unsupported printf form (op-tag = N)`, with the decimal tag for N.
pub fn unsupported_form(tag: impl fmt::Display) -> String {
    format!("unsupported printf form (op-tag = {tag})")
}

/// The first words of [`unsupported_form`]'s message.
pub const UNSUPPORTED_FORM: &str = "unsupported printf form (op-tag = ";
/// A format string that resolves to a global outside address spaces 0 and 4.
pub const NOT_CONSTANT_ADDRSPACE: &str =
    "printf format string must be a constant address space pointer";
/// A format string that does not resolve to a constant string global.
pub const NOT_A_STRING_LITERAL: &str = "The first argument for printf must be a string literal!";
/// A module without `target datalayout`.
pub const NO_DATALAYOUT: &str = "DataLayout must be available for lowering printf!";

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// The module can be lowered; `--Werror` makes it an error.
    Warning,
    /// The module cannot be lowered.
    Error,
}

/// Where a call is: in the `.ll` text and, through `!dbg`, in the program's source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// The module's file name.
    pub file: String,
    /// Line of the call in the module's text, from 1 (0 when unknown).
    pub line: u32,
    /// Column of the call in the module's text, from 1 (0 when unknown).
    pub column: u32,
    /// The call instruction's text.
    pub text: String,
    /// `file:line:column` of the program source, from the call's `!dbg` location.
    pub source: Option<String>,
}

impl Location {
    /// The location of an instruction.
    pub fn of(module: &Module, inst: InstId) -> Location {
        let view = module.inst(inst);
        let (line, column) = view
            .source_pos()
            .map_or((0, 0), |pos| (pos.line, pos.column));
        let source = view.debug_loc().map(|loc| {
            format!(
                "{}:{}:{}",
                loc.file.as_deref().unwrap_or("<unknown>"),
                loc.line,
                loc.column
            )
        });
        Location {
            file: module.file_name().to_owned(),
            line,
            column,
            text: String::from_utf8_lossy(view.text()).into_owned(),
            source,
        }
    }

    /// An error at this location.
    pub fn error(&self, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Error, self.clone(), message, None)
    }

    /// A warning at this location, in the warning group `flag` (`-Wformat`).
    pub fn warning(&self, message: impl Into<String>, flag: &'static str) -> Diagnostic {
        Diagnostic::new(Severity::Warning, self.clone(), message, Some(flag))
    }
}

/// One finding about one call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Warning or error.
    pub severity: Severity,
    /// Where.
    pub location: Location,
    /// What, in one line.
    pub message: String,
    /// The warning group, for warnings (`-Wformat`, `-Wprintf-result`, ...).
    pub flag: Option<&'static str>,
    /// Whether `--Werror` made this warning an error.
    pub promoted: bool,
    /// Lines shown after the call (a format string with a caret under a conversion).
    pub notes: Vec<String>,
}

impl Diagnostic {
    fn new(
        severity: Severity,
        location: Location,
        message: impl Into<String>,
        flag: Option<&'static str>,
    ) -> Diagnostic {
        Diagnostic {
            severity,
            location,
            message: message.into(),
            flag,
            promoted: false,
            notes: Vec::new(),
        }
    }

    /// The same diagnostic with one more note line.
    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    /// Whether it stops the lowering.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error || self.promoted
    }

    /// This warning as an error (`--Werror`).
    pub fn promote(mut self) -> Diagnostic {
        if self.severity == Severity::Warning {
            self.promoted = true;
        }
        self
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let l = &self.location;
        let word = if self.is_error() { "error" } else { "warning" };
        write!(
            f,
            "{}:{}:{}: {word}: {}",
            l.file, l.line, l.column, self.message
        )?;
        match (self.flag, self.promoted) {
            (Some(flag), true) => write!(f, " [-Werror,{flag}]")?,
            (Some(flag), false) => write!(f, " [{flag}]")?,
            (None, _) => {}
        }
        if !l.text.is_empty() {
            write!(f, "\n  {}", l.text.trim_start())?;
        }
        if let Some(source) = &l.source {
            write!(f, "\n  note: the call is at {source}")?;
        }
        for note in &self.notes {
            write!(f, "\n{note}")?;
        }
        Ok(())
    }
}

/// How many bytes of a format string an excerpt shows on each side of the caret.
const EXCERPT_CONTEXT: usize = 40;

/// The format string as a C literal with a caret under the byte at `offset`, indented. A long
/// format shows the bytes around `offset`, `...` standing for the rest (as clang cuts a long
/// line), so that a diagnostic costs the same for every call whatever its format's length.
pub fn format_excerpt(format: &[u8], offset: usize) -> String {
    use fmtstr_meta::escape::escape;
    let offset = offset.min(format.len());
    let start = offset.saturating_sub(EXCERPT_CONTEXT);
    let end = offset.saturating_add(EXCERPT_CONTEXT).min(format.len());
    let open = if start > 0 { "..." } else { "\"" };
    let close = if end < format.len() { "..." } else { "\"" };
    let before = escape(&format[start..offset]);
    let after = escape(&format[offset..end]);
    // Padded by hand: `{:>width$}` panics for widths above 65535.
    let column = open.len() + before.len();
    format!("  {open}{before}{after}{close}\n  {}^", " ".repeat(column))
}
