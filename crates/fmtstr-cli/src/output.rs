//! What every command shares about output: error rendering, stdout, and files that are either
//! written completely or not at all (through fmtstr-fs).

use std::io::Write;
use std::path::Path;

use fmtstr_fs::{Outputs, Replace};

/// Prints an error and its causes on stderr, one per line, the way LLVM's tools do.
pub fn report_error(error: &anyhow::Error) {
    let mut stderr = crate::diagnostics::stderr();
    let _ = writeln!(stderr, "fmtstr: error: {error}");
    for cause in error.chain().skip(1) {
        let _ = writeln!(stderr, "  caused by: {cause}");
    }
}

/// Whether an error only says that stdout's reader went away (`| head`): the command ends
/// quietly, as `cat` does.
pub fn stdout_closed(error: &anyhow::Error) -> bool {
    error
        .chain()
        .any(|cause| matches!(cause.downcast_ref(), Some(fmtstr_fs::Error::StdoutClosed)))
}

/// Writes `bytes` to stdout. A reader that went away is not an error: the command goes on to
/// its exit code (an audit with findings still exits 1), its output unread.
pub fn print(bytes: impl AsRef<[u8]>) -> anyhow::Result<()> {
    unread_is_fine(fmtstr_fs::stdout::write(bytes.as_ref()))
}

/// Writes a value as pretty JSON on stdout, followed by a newline (see [`print`]).
pub fn print_json<T: serde::Serialize>(value: &T) -> anyhow::Result<()> {
    unread_is_fine(fmtstr_fs::stdout::write_with(|out| {
        serde_json::to_writer_pretty(&mut *out, value)?;
        writeln!(out)
    }))
}

pub fn unread_is_fine(written: Result<(), fmtstr_fs::Error>) -> anyhow::Result<()> {
    match written {
        Err(fmtstr_fs::Error::StdoutClosed) | Ok(()) => Ok(()),
        Err(error) => Err(error.into()),
    }
}

/// Writes `bytes` to `path` completely or not at all, replacing a file the caller may not
/// write only when `replace` says so.
pub fn write_atomically(path: &Path, bytes: &[u8], replace: Replace) -> anyhow::Result<()> {
    let mut outputs = Outputs::new();
    outputs.stage(path, replace, bytes.len() as u64, |w| w.write_all(bytes))?;
    commit(outputs)
}

/// Puts staged outputs in place and prints what a replaced file could not keep.
pub fn commit(outputs: Outputs) -> anyhow::Result<()> {
    let warnings = outputs.commit()?;
    let mut stderr = crate::diagnostics::stderr();
    for warning in warnings {
        let _ = writeln!(stderr, "{warning}");
    }
    Ok(())
}

/// [`write_atomically`] of about `expected` bytes written by `write`.
pub fn write_atomically_sized(
    path: &Path,
    expected: u64,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> anyhow::Result<()> {
    let mut outputs = Outputs::new();
    outputs.stage(path, Replace::IfWritable, expected, write)?;
    commit(outputs)
}
