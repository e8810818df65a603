//! A small, fast, non-cryptographic hasher for the parser's symbol tables.
//!
//! Input: the bytes of names and ids. Output: 64-bit hashes for the crate's hash maps and sets
//! (`FxHashMap`, `FxHashSet`).
//!
//! The standard library's SipHash resists hash flooding, which a parser of trusted compiler
//! output does not need, at several times the cost per lookup; name lookups are on the hot path
//! of parsing. This is the multiply-rotate scheme of rustc's FxHasher.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct FxHasher {
    hash: u64,
}

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        // The last 1 to 7 bytes in at most two loads, which may overlap (with the length,
        // which the callers hash too, they still say every byte): a copy of a length known
        // only at run time would be a call to memcpy, most of a short name's cost.
        let rest = chunks.remainder();
        let n = rest.len();
        if n >= 4 {
            let first = u32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]]);
            let last = u32::from_le_bytes([rest[n - 4], rest[n - 3], rest[n - 2], rest[n - 1]]);
            self.add(u64::from(first) | u64::from(last) << 32);
        } else if n > 0 {
            let word =
                u64::from(rest[0]) | u64::from(rest[n / 2]) << 8 | u64::from(rest[n - 1]) << 16;
            self.add(word);
        }
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        // A product's low bits depend only on the low bits of what was multiplied, and the
        // hash table picks its bucket from the low bits: without the rotation, names that
        // differ only in a late byte of their last word (`.str.7`, `.str.8`) share a bucket.
        self.hash ^ (self.hash >> 32)
    }
}

pub(crate) type FxBuild = BuildHasherDefault<FxHasher>;
pub(crate) type FxHashMap<K, V> = HashMap<K, V, FxBuild>;
pub(crate) type FxHashSet<K> = HashSet<K, FxBuild>;
