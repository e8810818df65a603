//! Read-modify-write of one file under an advisory lock.
//!
//! `fmtstr merge --in-place` reads a file, computes, and renames a new file over it. Two such
//! runs at once would both read the old file and one update would be lost. [`UpdateLock`]
//! takes `flock(LOCK_EX)` on the file before it is read and holds it until the new file is in
//! place. The rename gives the name a new file: a run that waited on the old one finds, once
//! it holds the lock, that the name no longer refers to the file it locked, and locks the new
//! one instead, so it reads the update it waited for.

use std::fs::File;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::Error;

/// How long a run waits for another run's update of the same file before it gives up.
pub const WAIT: Duration = Duration::from_secs(30);

/// An exclusive advisory lock on a file, released when dropped.
#[derive(Debug)]
pub struct UpdateLock {
    _file: File,
}

impl UpdateLock {
    /// Locks `path` (a symbolic link's target) for update, waiting at most `wait`.
    pub fn acquire(path: &Path, wait: Duration) -> Result<UpdateLock, Error> {
        let target = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let lock_error = |source| Error::Lock {
            path: path.to_path_buf(),
            source,
        };
        let started = Instant::now();
        loop {
            let file = match File::open(&target) {
                Ok(file) => file,
                // Nothing to lock yet: the update creates the file.
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                    return Err(lock_error(error));
                }
                Err(error) => return Err(lock_error(error)),
            };
            match rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive) {
                Ok(()) => {
                    if same_file(&file, &target) {
                        return Ok(UpdateLock { _file: file });
                    }
                    // Replaced while we waited: lock what the name refers to now.
                    continue;
                }
                Err(rustix::io::Errno::WOULDBLOCK) | Err(rustix::io::Errno::INTR) => {}
                Err(error) => return Err(lock_error(error.into())),
            }
            if started.elapsed() >= wait {
                return Err(Error::Busy {
                    path: PathBuf::from(path),
                    seconds: wait.as_secs(),
                });
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

fn same_file(file: &File, path: &Path) -> bool {
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}
