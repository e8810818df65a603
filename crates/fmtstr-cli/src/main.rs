//! The `fmtstr` binary: the commands live in the library (src/lib.rs), which `cargo xtask man`
//! also reads to write the man pages.

use std::process::ExitCode;

// mimalloc, not glibc's malloc: on this program's work, the first touch of fresh memory costs
// more than the parsing that fills it. mimalloc backs its heaps with transparent huge pages and
// each thread allocates from its own heap; glibc grows a thread's arena a few pages at a time
// (2,800 mprotect calls lowering a 29 MB module) and faults it in 4 KiB pages (18,800 faults
// against mimalloc's 300). `fmtstr lower --target nvptx` took 0.74-0.91x the time across the
// bench's shapes, for 1.5-1.9x the peak memory (113 -> 195 MB on that module). glibc with a
// single arena was 1.44x slower: its threads wait on each other.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    fmtstr_cli::main()
}
