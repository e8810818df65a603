//! Reading a buffer file without copying it: a read-only memory map whose decoded parts can be
//! handed back to the kernel, so that a 2 GiB buffer does not stay resident while it decodes.

use std::fs::File;
use std::io;
use std::ops::Range;
use std::path::Path;

/// A buffer file mapped read-only (or, for an empty file, no map at all).
#[derive(Debug)]
pub struct Mapped {
    map: Option<memmap2::Mmap>,
}

impl Mapped {
    /// Maps the file at `path`.
    pub fn open(path: &Path) -> io::Result<Mapped> {
        let file = File::open(path)?;
        Mapped::new(&file)
    }

    /// Maps an open file.
    pub fn new(file: &File) -> io::Result<Mapped> {
        if file.metadata()?.len() == 0 {
            return Ok(Mapped { map: None });
        }
        // SAFETY: the map is read-only and private to this process. The one hazard is another
        // process truncating the file while it is mapped, which would fault on access; the
        // decoder treats the contents as untrusted bytes, so any *value* it sees is fine.
        #[allow(unsafe_code)]
        let map = unsafe { memmap2::Mmap::map(file)? };
        let _ = map.advise(memmap2::Advice::Sequential);
        Ok(Mapped { map: Some(map) })
    }

    /// The file's bytes.
    pub fn bytes(&self) -> &[u8] {
        self.map.as_deref().unwrap_or(&[])
    }

    /// Tells the kernel that the bytes in `range` (clipped to whole pages inside it) will not be
    /// read again soon, so their pages stop counting against this process. Reading them again
    /// still works: the pages come back from the file.
    pub fn release(&self, range: Range<usize>) {
        let Some(map) = &self.map else {
            return;
        };
        const PAGE: usize = 4096;
        let start = range.start.next_multiple_of(PAGE);
        let end = range.end.min(map.len()) / PAGE * PAGE;
        if end <= start {
            return;
        }
        // SAFETY: MADV_DONTNEED on a read-only file mapping drops the process's references to
        // the pages; later reads fault them in again from the file, with the same contents. No
        // Rust reference can observe a change.
        #[allow(unsafe_code)]
        let _ = unsafe {
            map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, start, end - start)
        };
    }
}
