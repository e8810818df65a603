//! The integration tests of the `fmtstr` binary: each module covers a group of commands and runs
//! the real binary, judging its output with the real tools where there are any.

mod abi_commands;
mod cli_help;
mod color;
mod decode_commands;
mod elf_commands;
mod faults;
mod format_commands;
mod hip_commands;
mod hsa_commands;
mod linked_commands;
mod llvm;
mod lower_commands;
mod lower_llvm22;
mod lower_only;
mod lower_options;
mod sarif_commands;
mod spirv_commands;
mod util;
