//! fmtstr's commands as a library: what `fmtstr audit`, `dump`, `merge` and `decode` do, over files or
//! bytes in memory, with typed results. The `fmtstr` binary parses arguments and prints what
//! these functions return; the C library and the Python package call the same functions, so
//! all three print the same bytes.
//!
//! - [`audit`]: walk files and directories, check each file's tables, cross-check all of them.
//! - [`dump`]: the format-string tables of ELF images, as text or JSON.
//! - [`gaps`]: the prints of a `--prefix seq` run that its captured output lacks.
//! - [`merge`]: the post-link step (fold a linked image's notes) and table merges.
//! - [`sarif`]: `fmtstr check`'s and `fmtstr audit`'s findings as SARIF 2.1.0 logs.
//! - [`decode`]: a printf buffer and the tables of ELF images (PAL or HSA) and JSON files in,
//!   the text (or JSON Lines, or statistics) out, warnings to a sink of their own.

#![warn(missing_docs)]

use std::borrow::Cow;
use std::path::Path;

use fmtstr_elf::{Document, LinkedElf};

pub mod abi;
pub mod audit;
pub mod audit_formats;
pub mod check;
pub mod decode;
pub mod dump;
pub mod gaps;
pub mod lower;
pub mod merge;
pub mod sarif;
pub mod spirv;

/// fmtstr's version: the package version and, in a git checkout, the commit (`0.1.0
/// (1a2b3c4)`, `-dirty` when tracked files differ).
pub const VERSION: &str = env!("FMTSTR_VERSION");

/// An error and its causes, as the CLI prints them after `fmtstr: error: `: one line, then
/// `  caused by: ...` per cause.
pub fn describe(error: &dyn std::error::Error) -> String {
    let mut message = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        message.push_str(&format!("\n  caused by: {cause}"));
        source = cause.source();
    }
    message
}

/// An input: a file, or bytes in memory with the name messages give them.
#[derive(Clone, Copy, Debug)]
pub enum Source<'a> {
    /// A file, read whole when the command needs it; messages name it by its path as given.
    Path(&'a Path),
    /// An input already in memory, as the C library and the Python package pass theirs.
    Bytes {
        /// What messages call the input, in place of a path.
        name: &'a str,
        /// The input's whole contents.
        bytes: &'a [u8],
    },
}

impl<'a> Source<'a> {
    /// The name messages use: the path as given, or the name given with the bytes.
    pub fn name(&self) -> String {
        match self {
            Source::Path(path) => path.display().to_string(),
            Source::Bytes { name, .. } => (*name).to_owned(),
        }
    }

    /// The whole input (a file is read; bytes are borrowed).
    pub fn read(&self) -> Result<Cow<'a, [u8]>, Error> {
        match self {
            Source::Path(path) => Ok(Cow::Owned(fmtstr_fs::Input::read(path)?.into_bytes())),
            Source::Bytes { bytes, .. } => Ok(Cow::Borrowed(bytes)),
        }
    }
}

/// Why a command could not do its work. Messages name the input and, where there is one, the
/// fix; they are the CLI's error messages.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A JSON input is not JSON.
    #[error("{name} is not JSON")]
    NotJson {
        /// The input's name, as [`Source::name`] gives it.
        name: String,
        /// Where and why the JSON parser stopped.
        #[source]
        source: serde_json::Error,
    },
    /// An input that is not what it must be, or a request that cannot be served; the message
    /// says which and why.
    #[error("{message}")]
    Input {
        /// The whole message, starting with the input's name where there is one.
        message: String,
    },
    /// Writing the output (or the warnings) failed.
    #[error("cannot write the output")]
    Write(#[source] std::io::Error),
    /// Reading a file failed (its size, a pipe, a file that shrank while read).
    #[error(transparent)]
    Files(#[from] fmtstr_fs::Error),
}

impl Error {
    pub(crate) fn input(message: impl Into<String>) -> Error {
        Error::Input {
            message: message.into(),
        }
    }
}

/// Parses an ELF image with any number of metadata notes and decodes each note's document;
/// errors name the input.
pub fn parse_linked<'b>(
    source: &Source<'_>,
    bytes: &'b [u8],
) -> Result<(LinkedElf<'b>, Vec<Document<'b>>), Error> {
    let name = || source.name();
    let elf =
        LinkedElf::parse(bytes).map_err(|error| Error::input(format!("{}: {error}", name())))?;
    let documents = elf
        .documents()
        .map_err(|error| Error::input(format!("{}: {error}", name())))?;
    Ok((elf, documents))
}

/// How messages name a metadata note: the input, and the note's offset when it has several.
pub fn note_name(source: &Source<'_>, note_offset: Option<usize>) -> String {
    match note_offset {
        Some(offset) => format!("{} (note at {offset:#x})", source.name()),
        None => source.name(),
    }
}
