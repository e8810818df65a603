//! The `fmtstr` binary: the commands live in the library (src/lib.rs), which `cargo xtask man`
//! also reads to write the man pages.

use std::alloc::GlobalAlloc;
use std::process::ExitCode;

// mimalloc, not glibc's malloc: on this program's work the first touch of fresh memory costs
// more than the parsing that fills it, and mimalloc faults it in huge pages, per thread
// (doc/perf.md, "Allocator").
#[global_allocator]
static ALLOCATOR: ExitWhenOutOfMemory = ExitWhenOutOfMemory(mimalloc::MiMalloc);

/// mimalloc, and when it has no memory left, exit 2 with a message naming the input and the
/// size, removing temporary outputs first: Rust's default is an abort (SIGABRT), which a
/// shell or a build system reports as a crash and which leaves temporary files behind.
struct ExitWhenOutOfMemory(mimalloc::MiMalloc);

// SAFETY: every call is mimalloc's; a null result, instead of being returned, ends the process.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for ExitWhenOutOfMemory {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        checked(self.0.alloc(layout), layout.size())
    }

    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        checked(self.0.alloc_zeroed(layout), layout.size())
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        self.0.dealloc(ptr, layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        checked(self.0.realloc(ptr, layout, new_size), new_size)
    }
}

fn checked(ptr: *mut u8, size: usize) -> *mut u8 {
    if ptr.is_null() {
        fmtstr_fs::cleanup::out_of_memory(size);
    }
    ptr
}

/// `mi_option_destroy_on_exit`: its place in `mi_option_t` (mimalloc.h, versions 2 and 3),
/// which the bindings do not name.
const MI_OPTION_DESTROY_ON_EXIT: libmimalloc_sys::mi_option_t = 22;

fn main() -> ExitCode {
    // At exit mimalloc collects every heap and returns their pages one `madvise` at a time
    // (about 3 ms after a lowering of 42 MB: doc/perf.md); at 2 it skips that work, which
    // only a library unloaded from a longer-lived process needs. The kernel frees it all.
    // SAFETY: sets one integer option; nothing reads it before the exit handler.
    #[allow(unsafe_code)]
    unsafe {
        libmimalloc_sys::mi_option_set(MI_OPTION_DESTROY_ON_EXIT, 2)
    };
    fmtstr_cli::main()
}
