//! The `fmtstr` binary: the commands live in the library (src/lib.rs), which `cargo xtask man`
//! also reads to write the man pages.

use std::process::ExitCode;

#[global_allocator]
static ALLOCATOR: fmtstr_alloc::HugePages = fmtstr_alloc::HugePages;

fn main() -> ExitCode {
    fmtstr_cli::main()
}
