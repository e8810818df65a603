//! The global allocator of fmtstr's binaries: the system allocator, with large blocks
//! advised to use transparent huge pages.
//!
//! An IR module of 50 MB lives in a few arenas of tens of megabytes. With 4 KiB pages, the
//! first touch of each page is a fault (about 12,000 per 50 MB), which costs more than parsing
//! the bytes that fill it. Where the kernel's transparent huge pages are in `madvise` mode
//! (the common default), a block advised with `MADV_HUGEPAGE` faults in 2 MiB steps instead.
//! glibc serves such blocks with `mmap` and grows them with `mremap`, which keeps the advice.
//!
//! ```no_run
//! #[global_allocator]
//! static ALLOCATOR: fmtstr_alloc::HugePages = fmtstr_alloc::HugePages;
//! ```
//!
//! Elsewhere (THP `always` or `never`, or not Linux) the advice is a no-op and this is the
//! system allocator.
#![allow(unsafe_code)] // a GlobalAlloc is unsafe by definition; it only forwards to System

use std::alloc::{GlobalAlloc, Layout, System};

/// Blocks at least this large are advised: a large module's source text and its output.
///
/// 16 MiB takes in the text of a 29 MB module (at 32 MiB it faulted in 7,000 pages more,
/// 28,700 in all, for 3 MB less peak memory). Smaller arenas are left on 4 KiB pages: each
/// advised block keeps the huge page holding its growing end partly empty, and across a
/// parser's dozen arenas that cost more memory (139 -> 152 MB for a 50 MB module at 4 MiB)
/// than their faults cost time.
pub const THRESHOLD: usize = 16 << 20;

const HUGE_PAGE: usize = 2 << 20;

/// The system allocator, advising blocks of [`THRESHOLD`] bytes and more to use huge pages.
#[derive(Clone, Copy, Debug, Default)]
pub struct HugePages;

fn advise(ptr: *mut u8, size: usize) {
    if ptr.is_null() || size < THRESHOLD {
        return;
    }
    // Only whole huge pages inside the block: the advice applies to the pages it covers.
    let start = (ptr as usize).next_multiple_of(HUGE_PAGE);
    let end = (ptr as usize + size) & !(HUGE_PAGE - 1);
    if end > start {
        #[cfg(target_os = "linux")]
        // SAFETY: the range lies inside a block this allocator just returned; advice changes
        // how its pages are backed, never their contents. A failure only means no huge pages.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

// SAFETY: every call forwards to `System` with the caller's arguments; `advise` does not
// change what the blocks hold or where they are.
unsafe impl GlobalAlloc for HugePages {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let ptr = unsafe { System.alloc(layout) };
        advise(ptr, layout.size());
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let ptr = unsafe { System.alloc_zeroed(layout) };
        advise(ptr, layout.size());
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        advise(new, new_size);
        new
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_keep_their_contents_through_growth() {
        let mut v: Vec<u64> = Vec::new();
        for i in 0..(3 * THRESHOLD as u64 / 8) {
            v.push(i);
        }
        assert!(v.iter().enumerate().all(|(i, &x)| x == i as u64));
        let zeroed = vec![0u8; 2 * THRESHOLD];
        assert!(zeroed.iter().all(|&b| b == 0));
    }

    #[test]
    fn advice_is_applied_to_large_blocks_only() {
        // madvise itself is the oracle: it must accept the range advised for a large block.
        let layout = Layout::from_size_align(THRESHOLD + HUGE_PAGE, 8).unwrap();
        let ptr = unsafe { HugePages.alloc(layout) };
        assert!(!ptr.is_null());
        let start = (ptr as usize).next_multiple_of(HUGE_PAGE);
        let end = (ptr as usize + layout.size()) & !(HUGE_PAGE - 1);
        assert!(end > start, "the block holds a whole huge page");
        #[cfg(target_os = "linux")]
        {
            let rc = unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE)
            };
            // EINVAL where the kernel has no THP at all; any other failure is a bad range.
            let errno = std::io::Error::last_os_error().raw_os_error();
            assert!(rc == 0 || errno == Some(libc::EINVAL), "madvise: {errno:?}");
        }
        unsafe { HugePages.dealloc(ptr, layout) };
    }
}
