//! Format-string metadata: 48-bit format-string IDs and the `amdpal.format_strings` table.
//!
//! The ID contract (DESIGN.md): the low 48 bits of XXH3-64 (seed 0) over the format string's
//! bytes without its NUL, with 0 mapped to 1 because an all-zero entry header marks unwritten
//! buffer space. IDs found in ELF files written by LLPC are opaque numbers (LLPC hashes with
//! `llvm::hash_value`, which is not stable), so only compare them with [`FormatId::of`] when asked.

pub mod escape;
mod id;

pub use id::{FormatId, ParseIdError};
