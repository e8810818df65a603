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

#![warn(missing_docs)]

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
    /// Opening, reading or mapping an input failed (missing file, a directory, no permission,
    /// an I/O error).
    #[error("cannot read {path}")]
    Read {
        /// The input as the user named it, `<stdin>` for `-`.
        path: String,
        /// What the operating system reported.
        #[source]
        source: std::io::Error,
    },
    /// An input read into memory (rather than mapped) needed a buffer this process could not
    /// allocate; the input is not used.
    #[error(
        "cannot read {path}: it needs {bytes} bytes of memory, which this process cannot \
         have (raise the limit, `ulimit -v`, or give a smaller input)"
    )]
    OutOfMemory {
        /// The input as the user named it, `<stdin>` for `-`.
        path: String,
        /// The buffer size that failed, in bytes: what was read so far plus the next step.
        bytes: u64,
    },
    /// A mapped input was truncated while it was read: what was read of it (zeros past the
    /// new end) must not be used. See [`Input::check_unchanged`].
    #[error(
        "{path} shrank from {was} to {now} bytes while it was read (another process truncated \
         or rewrote it); nothing was written: run again once the file is complete"
    )]
    Shrank {
        /// The input as the user named it.
        path: String,
        /// Its size in bytes when it was mapped.
        was: u64,
        /// Its size in bytes afterwards (0 when it can no longer be examined).
        now: u64,
    },
    /// The temporary file beside an output could not be created (the directory is missing or
    /// not writable, or the disk is full); nothing was written.
    #[error("cannot create a temporary file for {path} in {directory}")]
    CreateTemporary {
        /// The output the temporary file was for.
        path: PathBuf,
        /// The directory the temporary file was to be created in: the output's, after
        /// following a symbolic link.
        directory: PathBuf,
        /// What the operating system reported.
        #[source]
        source: std::io::Error,
    },
    /// Writing, syncing or setting up an output failed: the output is a directory, a device
    /// or pipe could not be written, or the temporary file could not be written or synced.
    #[error("cannot write {path}")]
    Write {
        /// The output as the caller named it.
        path: PathBuf,
        /// What the operating system (or the caller's writer) reported.
        #[source]
        source: std::io::Error,
    },
    /// An output could not be put in place: its symbolic link could not be resolved, or the
    /// rename of the temporary file over it failed.
    #[error("cannot replace {path}")]
    Replace {
        /// The output; for a failed rename, the file the name resolved to.
        path: PathBuf,
        /// What the operating system reported.
        #[source]
        source: std::io::Error,
    },
    /// An existing output is not writable for this process and [`Replace::IfWritable`] was
    /// asked: it is left unchanged.
    #[error(
        "{path} is not writable for you (mode {mode:o}): it was left as it is; make it writable \
         (`chmod u+w`) or pass --force to replace it anyway"
    )]
    NotWritable {
        /// The output as the caller named it.
        path: PathBuf,
        /// Its permission bits (`st_mode & 0o7777`), shown in octal.
        mode: u32,
    },
    /// Another process held the update lock on the file for longer than the wait allowed
    /// ([`UpdateLock::acquire`]).
    #[error(
        "{path} is being updated by another process: waited {seconds} s for its lock; run \
         again when that process has finished"
    )]
    Busy {
        /// The file to be updated, as the caller named it.
        path: PathBuf,
        /// How long this run waited, in whole seconds.
        seconds: u64,
    },
    /// The file to be updated could not be opened or `flock`ed (including when it does not
    /// exist yet).
    #[error("cannot lock {path} for update")]
    Lock {
        /// The file to be updated, as the caller named it.
        path: PathBuf,
        /// What the operating system reported.
        #[source]
        source: std::io::Error,
    },
    /// Writing to stdout failed for a reason other than a closed pipe (a full disk, an I/O
    /// error); carries what the operating system reported.
    #[error("cannot write to stdout")]
    Stdout(#[source] std::io::Error),
    /// The reader of stdout went away (EPIPE): not a failure of the command.
    #[error("stdout was closed by its reader")]
    StdoutClosed,
}
