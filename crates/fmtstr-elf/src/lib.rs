//! ELF notes for AMDGPU PAL metadata.
//!
//! This crate will find the `NT_AMDGPU_METADATA` note (owner `AMDGPU`, type 32) in the SHT_NOTE
//! sections of ELF32 and ELF64 little-endian files, decode its msgpack document while keeping every
//! key's value, type and order, read and replace the `amdpal.format_strings` table, and rewrite the
//! file so that only that note changes. Nothing is implemented yet; see issue 3.
