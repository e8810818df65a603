//! How fmtstr reads its inputs and writes its outputs, so that the ways a shell uses a tool
//! cannot break its promises: never a panic, a partial output or a lost update, and inputs
//! untouched unless asked.
//!
//! - [`input`]: a file, a pipe, a FIFO, a device or `-` (stdin), read into memory with
//!   fallible allocation, or (a large regular file) mapped under a guard that turns a file
//!   shrinking underneath into an error instead of SIGBUS.
//! - [`outputs`]: every output of a command (main and side outputs) goes to a temporary file
//!   beside its target; only when all are complete and synced are they renamed into place.
//!   A replaced file keeps its mode, owner and group; a new one gets the umask's mode; a file
//!   the caller may not write is not replaced unless forced.
//! - [`lock`]: read-modify-write of one file (`--in-place`) under an advisory lock, so that
//!   two runs on one file cannot lose an update.
//! - [`stdout`]: writing to stdout, where a reader that went away (`| head`) ends a command
//!   quietly and a full disk is an error.
//! - [`cleanup`]: temporary files are removed on SIGINT, SIGTERM and SIGHUP and when memory
//!   runs out; ones left by a killed run are recognised by name and removed later.
//!
//! Signal handlers cannot be handed state: the registries they read (temporary files, guarded
//! maps) are the crate's only statics, fixed arrays of atomics that a handler may read.

use std::path::PathBuf;

pub mod cleanup;
pub mod input;
pub mod lock;
pub mod outputs;
mod sigbus;
pub mod stdout;

pub use input::Input;
pub use lock::UpdateLock;
pub use outputs::{write_atomically, Outputs, Replace};

/// Why reading or writing failed. Each message names the file and, where there is one, the fix.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot read {path}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "cannot read {path}: it needs {bytes} bytes of memory, which this process cannot \
         have (raise the limit, `ulimit -v`, or give a smaller input)"
    )]
    OutOfMemory { path: String, bytes: u64 },
    #[error(
        "{path} shrank from {was} to {now} bytes while it was read (another process truncated \
         or rewrote it); nothing was written: run again once the file is complete"
    )]
    Shrank { path: String, was: u64, now: u64 },
    #[error("cannot create a temporary file for {path} in {directory}")]
    CreateTemporary {
        path: PathBuf,
        directory: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot write {path}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot replace {path}")]
    Replace {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "{path} is not writable for you (mode {mode:o}): it was left as it is; make it writable \
         (`chmod u+w`) or pass --force to replace it anyway"
    )]
    NotWritable { path: PathBuf, mode: u32 },
    #[error(
        "{path} is being updated by another process: waited {seconds} s for its lock; run \
         again when that process has finished"
    )]
    Busy { path: PathBuf, seconds: u64 },
    #[error("cannot lock {path} for update")]
    Lock {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot write to stdout")]
    Stdout(#[source] std::io::Error),
    /// The reader of stdout went away (EPIPE): not a failure of the command.
    #[error("stdout was closed by its reader")]
    StdoutClosed,
}
