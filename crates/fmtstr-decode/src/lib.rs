//! Printf-buffer decoding: the AMD printf buffer back into exactly the text C's printf prints.
//!
//! A buffer (the AMD printf buffer protocol) is a 16-byte header whose first field,
//! `bufferOffset`, counts the dwords the shaders allocated after it, then entries: a `u64`
//! header `{ size: 16 bits (dwords, header included), id: 48 bits }` and the payload. Each
//! argument of the entry's format takes one dword, or two when its bit is set in the format's
//! 64-bit argument mask; a vector takes that per component. The conversion says whether the
//! bits are an integer or a float (a 32-bit float is an IEEE single, widened exactly); the
//! length modifier says the C width the value is printed at.
//!
//! ```
//! use fmtstr_decode::{decode_to_vec, Buffer, Formats};
//! use fmtstr_meta::{Entry, Mask, Table};
//!
//! let entry = Entry::for_format("x=%d y=%.2f\n", 2, Mask::for_arguments(2, []));
//! let id = entry.id().get();
//! let table = Table { entries: vec![entry], ..Table::new() };
//! let formats = Formats::from_tables([("table.json".to_string(), table)]);
//!
//! // Header: bufferOffset = 4 dwords; one entry: size 4, the ID, then -7 and 1.5f.
//! let mut bytes = vec![4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
//! let header = 4 | id << 16;
//! bytes.extend_from_slice(&header.to_le_bytes());
//! bytes.extend_from_slice(&(-7i32).to_le_bytes());
//! bytes.extend_from_slice(&1.5f32.to_bits().to_le_bytes());
//!
//! let buffer = Buffer::parse(&bytes).unwrap();
//! let decoded = decode_to_vec(&buffer, &formats);
//! assert_eq!(decoded.text, b"x=-7 y=1.50\n");
//! assert!(decoded.problems.is_empty());
//! ```
//!
//! # Nothing in the buffer is trusted
//!
//! - The written area ends at `bufferOffset`, at the buffer's capacity, or at the clamp shaders
//!   apply (1 << 29 dwords, 2 GiB), whichever comes first; allocations past it were lost and
//!   [`Buffer::overflow`] says how many dwords.
//! - An entry whose size is 0 or 1, or which runs past the written area, ends the walk
//!   ([`Stop`]): nothing says where a next entry would start.
//! - An unknown ID, a payload shorter than its format reads, or a format that cannot be
//!   rendered replaces that entry's text by a marker line ([`Problem::write_marker`]) and the
//!   walk goes on with the next entry. A longer payload prints and warns.
//! - Two tables giving one ID different strings is a finding ([`Formats::findings`]); the
//!   first table's entry is used.
//!
//! No input panics, allocates without bound, or loops: sizes are checked before use, every
//! step of the walk advances by at least two dwords, and widths and precisions are bounded by
//! the renderer.
//!
//! # Rules where the protocol is silent
//!
//! - A 32-bit payload for a 64-bit signed conversion (`%ld` of an `int`) is sign-extended: the
//!   value the shader wrote is printed. Unsigned ones are zero-extended. A 64-bit payload for a
//!   narrower conversion is truncated as C's `va_arg` would. Both are noted once per format.
//! - `%s` carries a pointer only: null prints `(null)` as glibc does, anything else
//!   [`STRING_PLACEHOLDER`].
//! - When a table's `.argument_count` disagrees with its string, the string decides the layout.
//!
//! # Speed
//!
//! Each format is compiled once per ID ([`Compiled`]) into steps that read the payload
//! directly: literal text is copied, integer conversions are written by this crate, and every
//! other conversion is rendered by fmtstr-format from a format holding that conversion alone
//! (printf's output is the concatenation of its pieces', so this is exact; the differential
//! test against glibc covers both paths). A [`Decoder`] keeps a small cache of IDs.
//!
//! # Large buffers
//!
//! [`stream::decode_sequential`] decodes in one pass, handing text over in pieces of bounded
//! size; it renders runs of entries in batches grouped by format, so that the branches that
//! depend on the format repeat, and puts their text back in buffer order. [`stream::run_bounded`] cuts the written area into entry-aligned windows (ending by
//! size and by their formats' text bounds, since 3 dwords can print 64 KiB) and renders them
//! on a thread pool, handing text back in buffer order with a bounded number of windows in
//! flight (the caller can give each decoded window's pages back to the kernel).

#![warn(missing_docs)]

mod batch;
mod buffer;
mod decoder;
pub mod encode;
mod formats;
pub mod hip;
pub mod hsa;
pub mod lines;
mod ops;
mod plan;
pub mod stream;
pub mod vprintf;

pub use buffer::{
    byte_offset, Buffer, BufferError, BufferNotice, Entries, Header, Overflow, RawEntry, Stop,
    CLAMP_DWORDS, ENTRY_HEADER_DWORDS, HEADER_BYTES, MAX_ENTRY_DWORDS,
};
pub use decoder::{Decoder, Interpreted, Problem, ProblemKind, STRING_PLACEHOLDER};
pub use formats::{quoted, Compiled, FormatNote, Formats, Known};
pub use stream::{decode_text, decode_to_vec, Options, TextChunk};
