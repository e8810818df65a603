//! Every output of a command, written completely or not at all.
//!
//! [`Outputs::stage`] writes one output into a temporary file in its target's directory and
//! syncs it; [`Outputs::commit`] renames every staged file into place, then syncs the
//! directories, so that no output appears unless all of them were written, and a crash after
//! a command's exit 0 cannot leave an empty file. Dropping an `Outputs` that was not committed
//! removes its temporary files (signals and out-of-memory exits do too: `cleanup`).
//!
//! What a replaced file keeps: its mode, owner and group (the owner only where this process
//! may change it: a warning says when it could not); a symbolic link stays a link to the
//! replaced file. A hard link is broken: the name gets a new file, as with `sed -i`. A file
//! the caller may not write is not replaced unless [`Replace::Force`] says so. A new file gets
//! the mode the umask gives (0666 less the umask). A device or a pipe (`/dev/null`, a FIFO)
//! is written directly when staged, as there is nothing to rename over.

use std::fs::{File, Metadata};
use std::io::{self, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::cleanup::{self, Registered};
use crate::Error;

/// Whether a file the caller may not write may be replaced.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Replace {
    /// Refuse (exit 2 in the CLI), as editors do.
    #[default]
    IfWritable,
    /// Replace it anyway (the directory's permissions decide), as `--force` asks.
    Force,
}

/// Outputs staged and not yet in place.
#[derive(Debug, Default)]
pub struct Outputs {
    staged: Vec<Staged>,
    warnings: Vec<String>,
    /// Time spent waiting for staged files to reach the disk (see [`Outputs::sync_time`]).
    syncing: std::time::Duration,
}

#[derive(Debug)]
struct Staged {
    temporary: tempfile::NamedTempFile<File>,
    target: PathBuf,
    _registered: Registered,
}

/// Writes `bytes` to `path` completely or not at all (one output: see [`Outputs`]).
pub fn write_atomically(path: &Path, bytes: &[u8], replace: Replace) -> Result<Vec<String>, Error> {
    let mut outputs = Outputs::new();
    outputs.stage(path, replace, bytes.len() as u64, |w| w.write_all(bytes))?;
    outputs.commit()
}

impl Outputs {
    /// No outputs staged yet: [`stage`](Outputs::stage) each one, then
    /// [`commit`](Outputs::commit) them together.
    pub fn new() -> Outputs {
        Outputs::default()
    }

    /// Writes one output, of about `expected` bytes, through `write` into a temporary file
    /// beside `path` (or straight into `path` when it is a device or a pipe).
    pub fn stage(
        &mut self,
        path: &Path,
        replace: Replace,
        expected: u64,
        write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> Result<(), Error> {
        let write_error = |source| Error::Write {
            path: path.to_path_buf(),
            source,
        };
        let existing = std::fs::metadata(path).ok();
        if let Some(metadata) = existing.as_ref().filter(|m| !m.is_file()) {
            if metadata.is_dir() {
                return Err(write_error(io::Error::new(
                    io::ErrorKind::IsADirectory,
                    "it is a directory; name a file",
                )));
            }
            let file = std::fs::OpenOptions::new()
                .write(true)
                .open(path)
                .map_err(write_error)?;
            let mut writer = io::BufWriter::with_capacity(1 << 20, file);
            return write(&mut writer)
                .and_then(|()| writer.flush())
                .map_err(write_error);
        }
        // A symbolic link stays one: its target is replaced.
        let target = match &existing {
            Some(_) if path.is_symlink() => {
                std::fs::canonicalize(path).map_err(|source| Error::Replace {
                    path: path.to_path_buf(),
                    source,
                })?
            }
            _ => path.to_path_buf(),
        };
        if let Some(metadata) = &existing {
            if replace == Replace::IfWritable && !writable(&target) {
                return Err(Error::NotWritable {
                    path: path.to_path_buf(),
                    mode: metadata.permissions().mode() & 0o7777,
                });
            }
        }
        let directory = match target.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
            _ => PathBuf::from("."),
        };
        cleanup::remove_stale(&directory);
        // The signal handlers before the file exists, and its name registered before it is
        // created: a signal at any moment finds the file registered, or no file yet. (Created
        // first and registered after, a SIGTERM in between left it behind.) A name already
        // taken is registered for a moment too; it holds this process's PID, so it is only
        // ever a stale file of a process long gone.
        cleanup::install();
        let mut builder = tempfile::Builder::new();
        let prefix = format!("{}{}-", cleanup::PREFIX, std::process::id());
        builder.prefix(&prefix).suffix(cleanup::SUFFIX);
        // A new file is created 0666, less the umask, as any new file; a replacement 0600
        // until it takes the old file's mode.
        let mode = if existing.is_none() { 0o666 } else { 0o600 };
        let mut registered = None;
        let temporary = builder
            .make_in(&directory, |candidate| {
                registered = Some(cleanup::register(candidate));
                std::fs::OpenOptions::new()
                    .read(true)
                    .write(true)
                    .create_new(true)
                    .mode(mode)
                    .open(candidate)
            })
            .map_err(|source| Error::CreateTemporary {
                path: path.to_path_buf(),
                directory: directory.clone(),
                source,
            })?;
        let registered = registered.unwrap_or_else(Registered::none);
        let temporary_error = |source| Error::Write {
            path: path.to_path_buf(),
            source,
        };
        const ALLOCATE_FROM: u64 = 1 << 20;
        // The blocks at once: on ext4, writing 42 MB into blocks not yet allocated took
        // 12 ms, 9.5 ms into allocated ones (the allocation included).
        let allocated = expected >= ALLOCATE_FROM
            && rustix::fs::fallocate(
                temporary.as_file(),
                rustix::fs::FallocateFlags::empty(),
                0,
                expected,
            )
            .is_ok();
        // Through `&File`, whose vectored writes `BufWriter` passes on without a copy.
        let file = temporary.as_file();
        let mut writer = WriteBehind::new(io::BufWriter::with_capacity(1 << 20, file));
        write(&mut writer)
            .and_then(|()| writer.flush())
            .map_err(temporary_error)?;
        drop(writer);
        // From here on the file waits for the disk: the truncation of an unused preallocated
        // tail waits for the writeback already started, as the sync does.
        let syncing = std::time::Instant::now();
        if allocated {
            // Fewer bytes than allocated: the rest goes.
            let written = io::Seek::stream_position(&mut &*file).map_err(temporary_error)?;
            if written < expected {
                file.set_len(written).map_err(temporary_error)?;
            }
        }
        if let Some(metadata) = &existing {
            if let Some(warning) = keep_owner_and_mode(file, metadata, path) {
                self.warnings.push(warning);
            }
        }
        file.sync_all().map_err(temporary_error)?;
        self.syncing += syncing.elapsed();
        self.staged.push(Staged {
            temporary,
            target,
            _registered: registered,
        });
        Ok(())
    }

    /// How long the staged files took to reach the disk once written: the sync of each before
    /// its rename, and the truncation of an unused preallocated tail, which waits for the
    /// writeback already started (wall clock; waiting for the disk rather than work).
    pub fn sync_time(&self) -> std::time::Duration {
        self.syncing
    }

    /// Renames every staged output into place and syncs their directories; returns the
    /// warnings about what a replaced file could not keep.
    pub fn commit(self) -> Result<Vec<String>, Error> {
        let mut directories: Vec<PathBuf> = Vec::new();
        for staged in self.staged {
            let target = staged.target;
            staged
                .temporary
                .persist(&target)
                .map_err(|error| Error::Replace {
                    path: target.clone(),
                    source: error.error,
                })?;
            let directory = match target.parent() {
                Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
                _ => PathBuf::from("."),
            };
            if !directories.contains(&directory) {
                directories.push(directory);
            }
        }
        for directory in directories {
            // A directory that cannot be opened for a sync (no read permission) still got
            // its rename: the sync only hurries it to the disk.
            if let Ok(handle) = File::open(&directory) {
                let _ = handle.sync_all();
            }
        }
        Ok(self.warnings)
    }
}

/// A temporary output that starts the disk writing what it was given every
/// [`WriteBehind::EVERY`] bytes, while the rest is still being produced: the sync before the
/// rename then waits only for the tail (doc/perf.md, "Writing the output"). Writes pass
/// through (vectored ones too, which `BufWriter` hands to the file without a copy).
struct WriteBehind<'f> {
    file: io::BufWriter<&'f File>,
    /// Bytes given so far (some may still be in the buffer), and where the range not yet
    /// handed to the disk starts.
    given: u64,
    started: u64,
}

impl<'f> WriteBehind<'f> {
    const EVERY: u64 = 8 << 20;

    fn new(file: io::BufWriter<&'f File>) -> WriteBehind<'f> {
        WriteBehind {
            file,
            given: 0,
            started: 0,
        }
    }

    /// After `n` more bytes were given: starts writeback of what reached the file since the
    /// last start, without waiting for it. Only a hint: where the call fails (not Linux's page
    /// cache), the final sync does it all.
    fn gave(&mut self, n: usize) {
        self.given += n as u64;
        let in_file = self.given - self.file.buffer().len() as u64;
        if in_file - self.started >= Self::EVERY {
            start_writeback(self.file.get_ref(), self.started, in_file - self.started);
            self.started = in_file;
        }
    }
}

/// Asks the kernel to start writing `length` bytes of `file` from `offset` to the disk, without
/// waiting (Linux's `sync_file_range`); elsewhere, nothing.
#[cfg(target_os = "linux")]
fn start_writeback(file: &File, offset: u64, length: u64) {
    use std::os::fd::AsRawFd;
    let (Ok(offset), Ok(length)) = (
        libc::off64_t::try_from(offset),
        libc::off64_t::try_from(length),
    ) else {
        return;
    };
    #[allow(unsafe_code)]
    // SAFETY: a plain system call on an open descriptor; no memory is passed.
    unsafe {
        libc::sync_file_range(
            file.as_raw_fd(),
            offset,
            length,
            libc::SYNC_FILE_RANGE_WRITE,
        );
    }
}

#[cfg(not(target_os = "linux"))]
fn start_writeback(_file: &File, _offset: u64, _length: u64) {}

impl Write for WriteBehind<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.file.write(buf)?;
        self.gave(n);
        Ok(n)
    }

    fn write_vectored(&mut self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
        let n = self.file.write_vectored(bufs)?;
        self.gave(n);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

/// Whether this process may write `path` (for root, always, as for editors).
fn writable(path: &Path) -> bool {
    rustix::fs::access(path, rustix::fs::Access::WRITE_OK).is_ok()
}

/// Gives the temporary file the replaced file's owner, group and mode; a warning when the
/// owner or group could not be kept.
fn keep_owner_and_mode(file: &File, old: &Metadata, path: &Path) -> Option<String> {
    let mut warning = None;
    let (uid, gid) = (old.uid(), old.gid());
    let mine = file.metadata().ok();
    let same = mine
        .as_ref()
        .is_some_and(|m| m.uid() == uid && m.gid() == gid);
    if !same {
        let owner = rustix::fs::Uid::from_raw(uid);
        let group = rustix::fs::Gid::from_raw(gid);
        if rustix::fs::fchown(file, Some(owner), Some(group)).is_err() {
            // Not root: a group the caller belongs to can still be kept.
            let group_kept = rustix::fs::fchown(file, None, Some(group)).is_ok();
            warning = Some(format!(
                "fmtstr: warning: {} belonged to uid {uid}{}; the new file belongs to you, as \
                 only root may give a file away",
                path.display(),
                if group_kept {
                    String::new()
                } else {
                    format!(" and gid {gid}")
                }
            ));
        }
    }
    // After the owner: a change of owner clears the set-user-ID and set-group-ID bits.
    let mode = old.permissions().mode() & 0o7777;
    let _ = file.set_permissions(std::fs::Permissions::from_mode(mode));
    warning
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An output several times the write-behind step, given in plain and vectored writes of
    /// odd sizes, lands whole and in order.
    #[test]
    fn a_large_output_written_behind_is_complete() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.bin");
        let expected: Vec<u8> = (0..(3 * WriteBehind::EVERY as usize + 12_345))
            .map(|k| (k * 7 + k / 4099) as u8)
            .collect();
        let mut outputs = Outputs::new();
        outputs
            .stage(&path, Replace::IfWritable, 1 << 20, |w| {
                let mut rest = &expected[..];
                let mut step = 1;
                while !rest.is_empty() {
                    let n = (step * 997 % (3 << 20)).clamp(1, rest.len());
                    let (now, later) = rest.split_at(n);
                    if step % 2 == 0 {
                        let (a, b) = now.split_at(n / 2);
                        let mut slices = [io::IoSlice::new(a), io::IoSlice::new(b)];
                        let mut slices = &mut slices[..];
                        while !slices.is_empty() {
                            let written = w.write_vectored(slices)?;
                            io::IoSlice::advance_slices(&mut slices, written);
                        }
                    } else {
                        w.write_all(now)?;
                    }
                    rest = later;
                    step += 1;
                }
                Ok(())
            })
            .unwrap();
        outputs.commit().unwrap();
        assert!(std::fs::read(&path).unwrap() == expected);
    }
}
