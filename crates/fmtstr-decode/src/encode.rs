//! Writing buffers the way shaders do: for tests, benchmarks and samples.
//!
//! ```
//! use fmtstr_decode::encode::{BufferWriter, Payload};
//!
//! let mut payload = Payload::new();
//! payload.u32(7).f32(1.5).u64(1 << 40);
//! let mut writer = BufferWriter::new();
//! writer.entry(0x1234, payload.dwords());
//! let bytes = writer.finish(); // bufferOffset = 6 (header 2 + payload 4), capacity 6 dwords
//! assert_eq!(bytes.len(), 16 + 6 * 4);
//! ```

use crate::buffer::{ENTRY_HEADER_DWORDS, HEADER_BYTES};

/// The payload of one entry, built value by value as the protocol packs them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Payload {
    dwords: Vec<u32>,
}

impl Payload {
    /// An empty payload.
    pub fn new() -> Payload {
        Payload::default()
    }

    /// Empties it for reuse.
    pub fn clear(&mut self) -> &mut Payload {
        self.dwords.clear();
        self
    }

    /// One dword (an integer of up to 32 bits, zero-extended by the caller).
    pub fn u32(&mut self, value: u32) -> &mut Payload {
        self.dwords.push(value);
        self
    }

    /// Two dwords, low first (an `i64`, or anything whose mask bit is set).
    pub fn u64(&mut self, value: u64) -> &mut Payload {
        self.dwords.push(value as u32);
        self.dwords.push((value >> 32) as u32);
        self
    }

    /// A float: one dword.
    pub fn f32(&mut self, value: f32) -> &mut Payload {
        self.u32(value.to_bits())
    }

    /// A double: two dwords.
    pub fn f64(&mut self, value: f64) -> &mut Payload {
        self.u64(value.to_bits())
    }

    /// The dwords packed so far, in order: what [`BufferWriter::entry`] takes.
    pub fn dwords(&self) -> &[u32] {
        &self.dwords
    }
}

/// A buffer's entry area, entry by entry; [`BufferWriter::finish`] adds the header.
#[derive(Clone, Debug, Default)]
pub struct BufferWriter {
    dwords: Vec<u32>,
}

impl BufferWriter {
    /// An empty entry area.
    pub fn new() -> BufferWriter {
        BufferWriter::default()
    }

    /// Room for this many dwords.
    pub fn with_capacity(dwords: usize) -> BufferWriter {
        BufferWriter {
            dwords: Vec::with_capacity(dwords),
        }
    }

    /// Appends an entry: its header (size = payload + 2, the 48-bit ID), then the payload.
    /// The size field keeps only 16 bits, as a shader's would.
    pub fn entry(&mut self, id: u64, payload: &[u32]) -> &mut BufferWriter {
        let size = (payload.len() as u64 + u64::from(ENTRY_HEADER_DWORDS)) & 0xffff;
        let header = size | (id & 0xffff_ffff_ffff) << 16;
        self.dwords.push(header as u32);
        self.dwords.push((header >> 32) as u32);
        self.dwords.extend_from_slice(payload);
        self
    }

    /// Appends dwords as they are (a hand-made header, garbage, ...).
    pub fn raw(&mut self, dwords: &[u32]) -> &mut BufferWriter {
        self.dwords.extend_from_slice(dwords);
        self
    }

    /// Dwords written so far (the `bufferOffset` a shader would have left).
    pub fn len(&self) -> u64 {
        self.dwords.len() as u64
    }

    /// Whether nothing was written: [`BufferWriter::finish`] gives a bare header.
    pub fn is_empty(&self) -> bool {
        self.dwords.is_empty()
    }

    /// The buffer: header with `bufferOffset` = what was written, then exactly that.
    pub fn finish(&self) -> Vec<u8> {
        self.finish_with(self.len(), self.len())
    }

    /// The buffer with the given `bufferOffset` and capacity in dwords: written dwords past
    /// the capacity are dropped (as a bounds-checked store drops them) and missing ones are 0.
    pub fn finish_with(&self, buffer_offset: u64, capacity: u64) -> Vec<u8> {
        let capacity = capacity as usize;
        let mut bytes = Vec::with_capacity(HEADER_BYTES + capacity * 4);
        bytes.extend_from_slice(&buffer_offset.to_le_bytes());
        bytes.extend_from_slice(&[0; 8]);
        for dword in self.dwords.iter().take(capacity) {
            bytes.extend_from_slice(&dword.to_le_bytes());
        }
        bytes.resize(HEADER_BYTES + capacity * 4, 0);
        bytes
    }
}
