//! Writing to stdout the way `cat` and ripgrep do: a reader that went away (EPIPE: `| head`)
//! ends the command quietly, any other failure (`>/dev/full`: ENOSPC) is an error.

use std::io::{self, Write};

use crate::Error;

/// Writes `bytes` to stdout and flushes.
pub fn write(bytes: &[u8]) -> Result<(), Error> {
    write_with(|out| out.write_all(bytes))
}

/// Writes to stdout through `write` (buffered) and flushes.
pub fn write_with(write: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> Result<(), Error> {
    let mut out = io::BufWriter::with_capacity(1 << 16, io::stdout().lock());
    write(&mut out).and_then(|()| out.flush()).map_err(classify)
}

/// [`Error::StdoutClosed`] for EPIPE, [`Error::Stdout`] for the rest.
pub fn classify(error: io::Error) -> Error {
    if error.kind() == io::ErrorKind::BrokenPipe {
        Error::StdoutClosed
    } else {
        Error::Stdout(error)
    }
}
