//! Printf-buffer decoding.
//!
//! This crate will read an AMD printf buffer (a 16-byte header, then entries tagged with 48-bit
//! format-string IDs), look each ID up in format-string tables, and write exactly the text C's
//! printf would have printed, without trusting a single byte of the buffer. Nothing is implemented
//! yet; see issue 6.
