//! Format-string metadata: 48-bit format-string IDs and the `amdpal.format_strings` table.
//!
//! The ID contract: the low 48 bits of XXH3-64 (seed 0) over the format string's
//! bytes without its NUL, with 0 mapped to 1 because an all-zero entry header marks unwritten
//! buffer space. IDs found in ELF files written by LLPC are opaque numbers (LLPC hashes with
//! `llvm::hash_value`, which is not stable), so only compare them with [`FormatId::of`] when asked.
//!
//! The table ([`Table`], [`Entry`], [`Mask`]) has a msgpack form ([`Table::decode`],
//! [`Table::encode`]) with PAL's exact key names, a JSON form ([`Table::to_json`],
//! [`Table::from_json`]), and merge rules ([`merge`](mod@merge)). [`msgpack`] reads untrusted msgpack.

#![warn(missing_docs)]

pub mod escape;
mod id;
pub mod json;
mod mask;
pub mod merge;
pub mod msgpack;
pub mod table;

pub use id::{FormatId, ParseIdError};
pub use mask::Mask;
pub use merge::{merge, Merged, Merger, OffsetConflict, OnCollision, Relation};
pub use table::{
    AbortEntry, Entry, Item, Problem, Table, TableError, INLINE_STRINGS_KEY, LIMIT_MARKER,
    SITES_KEY,
};
