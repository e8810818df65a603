//! Reading an input: a regular file, a pipe, a FIFO, a character device or `-` (stdin).
//!
//! A regular file is read with its size known up front, so that a size this process cannot
//! hold is an error naming the file and the size (not an abort); from a given size on it may
//! be mapped instead, under the guard of `sigbus`. Anything else is read as a stream to its
//! end: `<(cat buf.bin)` and `/dev/stdin` are inputs like any other.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use crate::sigbus::GuardedMap;
use crate::Error;

/// An input's bytes.
#[derive(Debug)]
pub struct Input {
    name: String,
    contents: Contents,
}

#[derive(Debug)]
enum Contents {
    Read(Vec<u8>),
    Mapped { map: GuardedMap, len: u64 },
}

/// Whether `path` names stdin.
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// How messages name an input: `<stdin>` for `-`, else the path as given.
pub fn name_of(path: &Path) -> String {
    if is_stdin(path) {
        "<stdin>".to_owned()
    } else {
        path.display().to_string()
    }
}

impl Input {
    /// Reads the whole input into memory.
    pub fn read(path: &Path) -> Result<Input, Error> {
        Input::open(path, None)
    }

    /// Maps a regular file of at least `map_from` bytes (`populate`: read every page in now),
    /// reads anything else.
    pub fn map_from(path: &Path, map_from: u64, populate: bool) -> Result<Input, Error> {
        Input::open(path, Some((map_from, populate)))
    }

    fn open(path: &Path, map: Option<(u64, bool)>) -> Result<Input, Error> {
        let name = name_of(path);
        crate::cleanup::set_input(name.as_bytes());
        let read_error = |source| Error::Read {
            path: name.clone(),
            source,
        };
        if is_stdin(path) {
            let bytes = read_stream(&mut io::stdin().lock(), &name, 0)?;
            return Ok(Input {
                name,
                contents: Contents::Read(bytes),
            });
        }
        let mut file = File::open(path).map_err(read_error)?;
        let metadata = file.metadata().map_err(read_error)?;
        if metadata.is_dir() {
            return Err(read_error(io::Error::new(
                io::ErrorKind::IsADirectory,
                "it is a directory; give a file",
            )));
        }
        let len = metadata.len();
        let contents = match map {
            Some((from, populate)) if metadata.is_file() && len > 0 && len >= from => {
                let map = GuardedMap::new(&file, populate).map_err(read_error)?;
                Contents::Mapped { map, len }
            }
            _ => {
                let hint = if metadata.is_file() { len } else { 0 };
                Contents::Read(read_stream(&mut file, &name, hint)?)
            }
        };
        Ok(Input { name, contents })
    }

    /// The name messages give the input.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The input's bytes.
    pub fn bytes(&self) -> &[u8] {
        match &self.contents {
            Contents::Read(bytes) => bytes,
            Contents::Mapped { map, .. } => map.bytes(),
        }
    }

    /// Tells the kernel that the bytes in `range` (whole pages inside it) of a mapped input
    /// will not be read again soon; an input in memory is left as it is.
    pub fn release(&self, range: std::ops::Range<usize>) {
        const PAGE: usize = 4096;
        if let Contents::Mapped { map, .. } = &self.contents {
            let start = range.start.next_multiple_of(PAGE);
            let end = range.end.min(map.bytes().len()) / PAGE * PAGE;
            if start < end {
                map.release(start, end);
            }
        }
    }

    /// An error when a mapped input shrank while it was read: what was read of it is void.
    pub fn check_unchanged(&self) -> Result<(), Error> {
        match &self.contents {
            Contents::Mapped { map, len } if map.shrank() => Err(Error::Shrank {
                path: self.name.clone(),
                was: *len,
                now: std::fs::metadata(&self.name).map_or(0, |m| m.len()),
            }),
            _ => Ok(()),
        }
    }

    /// The bytes in memory (a mapped input is copied).
    pub fn into_bytes(self) -> Vec<u8> {
        match self.contents {
            Contents::Read(bytes) => bytes,
            Contents::Mapped { map, .. } => map.bytes().to_vec(),
        }
    }

    /// The bytes, owned (a mapped input keeps its map).
    pub fn into_owned(self) -> Owned {
        Owned(std::sync::Arc::new(self))
    }
}

/// An input shared by its holders, for those that need `AsRef<[u8]> + Send + Sync + 'static`
/// (a clone kept aside can still tell whether the file shrank).
#[derive(Clone, Debug)]
pub struct Owned(std::sync::Arc<Input>);

impl Owned {
    /// See [`Input::check_unchanged`].
    pub fn check_unchanged(&self) -> Result<(), Error> {
        self.0.check_unchanged()
    }
}

impl AsRef<[u8]> for Owned {
    fn as_ref(&self) -> &[u8] {
        self.0.bytes()
    }
}

/// Reads `reader` to its end, growing the buffer with fallible allocation (`hint`: the size
/// expected, 0 when unknown).
fn read_stream(reader: &mut impl Read, name: &str, hint: u64) -> Result<Vec<u8>, Error> {
    let mut bytes = Vec::new();
    let mut want = hint.saturating_add(1).max(64 << 10);
    loop {
        let spare = bytes.capacity() - bytes.len();
        if spare == 0 {
            let grow = usize::try_from(want).unwrap_or(usize::MAX);
            bytes
                .try_reserve_exact(grow)
                .map_err(|_| Error::OutOfMemory {
                    path: name.to_owned(),
                    bytes: (bytes.len() as u64).saturating_add(want),
                })?;
            want = (bytes.capacity() as u64).max(64 << 10);
        }
        let spare = (bytes.capacity() - bytes.len()) as u64;
        let read = reader
            .by_ref()
            .take(spare)
            .read_to_end(&mut bytes)
            .map_err(|source| Error::Read {
                path: name.to_owned(),
                source,
            })?;
        if read == 0 {
            return Ok(bytes);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_of_every_length_are_read_whole() {
        for len in [0usize, 1, 65535, 65536, 65537, 300_000] {
            let data: Vec<u8> = (0..len).map(|i| (i % 253) as u8).collect();
            for hint in [0u64, len as u64, 10] {
                let bytes = read_stream(&mut &data[..], "x", hint).expect("read");
                assert!(bytes == data, "{len} bytes, hint {hint}");
            }
        }
    }

    #[test]
    fn a_size_beyond_memory_is_an_error_naming_the_input() {
        struct Endless;
        impl Read for Endless {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                buf.fill(1);
                Ok(buf.len())
            }
        }
        match read_stream(&mut Endless, "big.bin", u64::MAX / 2) {
            Err(Error::OutOfMemory { path, .. }) => assert_eq!(path, "big.bin"),
            other => panic!("expected OutOfMemory, got {other:?}"),
        }
    }
}

#[cfg(test)]
mod guard_tests {
    use super::Input;

    /// A mapped file cut short under the reader: zeros where it was cut, and an error after,
    /// instead of SIGBUS.
    #[test]
    fn a_file_truncated_under_its_map_is_reported_not_fatal() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("buf.bin");
        std::fs::write(&path, vec![7u8; 1 << 20]).expect("write");
        let input = Input::map_from(&path, 1, false).expect("map");
        assert!(input.check_unchanged().is_ok());
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .expect("open")
            .set_len(4096)
            .expect("truncate");
        let sum: u64 = input.bytes().iter().map(|&b| u64::from(b)).sum();
        assert_eq!(sum, 7 * 4096, "bytes past the new end read as zeros");
        match input.check_unchanged() {
            Err(crate::Error::Shrank { was, now, .. }) => assert_eq!((was, now), (1 << 20, 4096)),
            other => panic!("expected Shrank, got {other:?}"),
        }
        // A map made later starts clean.
        let again = Input::map_from(&path, 1, false).expect("map");
        assert!(again.check_unchanged().is_ok());
    }
}
