//! The buffer's layout: the 16-byte header, the written area, and the walk over entries.
//!
//! Nothing here trusts the buffer: every offset is checked against the bytes that are there,
//! every size against the area that was written, and arithmetic saturates.

use std::fmt;
use std::ops::Range;

/// Bytes of the buffer header: `u64 bufferOffset`, two reserved `u32`s.
pub const HEADER_BYTES: usize = 16;
/// Dwords of an entry header: `u64 { size: 16, id: 48 }`.
pub const ENTRY_HEADER_DWORDS: u32 = 2;
/// Where shaders clamp the offset they got from the atomic add, in dwords: 2 GiB.
pub const CLAMP_DWORDS: u64 = 1 << 29;
/// The largest entry, in dwords (the header's 16-bit size field).
pub const MAX_ENTRY_DWORDS: u32 = 0xffff;

/// The buffer header as it was read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// The next free dword after the header, as the shaders' atomic adds left it.
    pub buffer_offset: u64,
    /// The two reserved dwords, which the driver sets to 0.
    pub reserved: [u32; 2],
}

/// A buffer that cannot be decoded at all.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BufferError {
    /// Shorter than the header.
    #[error(
        "the buffer is {len} bytes, shorter than its 16-byte header (u64 bufferOffset, then two \
         reserved u32s); expected the whole printf buffer as the GPU left it"
    )]
    TooShort {
        /// The buffer's length in bytes.
        len: usize,
    },
}

/// More was allocated than the buffer holds: the shaders' atomic adds went past its end (or
/// past the 2 GiB clamp).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Overflow {
    /// `bufferOffset` from the header, in dwords.
    pub buffer_offset: u64,
    /// Dwords the buffer holds after its header.
    pub capacity: u64,
    /// Dwords that can hold entries: the capacity, or the clamp when that is lower.
    pub limit: u64,
    /// Dwords that were allocated but never stored: `buffer_offset - limit`.
    pub lost_dwords: u64,
    /// Whether the clamp (not the capacity) is the limit: every entry allocated past it was
    /// written at the clamp offset, over the others.
    pub clamped: bool,
}

impl fmt::Display for Overflow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.clamped {
            write!(
                f,
                "bufferOffset is {} dwords, past the clamp at dword {} (2 GiB): entries allocated \
                 past it were all stored at that dword, over each other; {} dwords of entries \
                 were lost",
                self.buffer_offset, self.limit, self.lost_dwords
            )
        } else {
            write!(
                f,
                "the buffer overflowed: bufferOffset is {} dwords but the buffer holds {} after \
                 its header; {} dwords of entries were lost",
                self.buffer_offset, self.capacity, self.lost_dwords
            )
        }
    }
}

/// A printf buffer: its header and the dwords after it.
#[derive(Clone, Copy, Debug)]
pub struct Buffer<'a> {
    bytes: &'a [u8],
    header: Header,
    capacity: u64,
    limit: u64,
    end: u64,
    clamp: u64,
}

impl<'a> Buffer<'a> {
    /// Reads the header of a whole printf buffer (header and entry area, as the GPU left it).
    pub fn parse(bytes: &'a [u8]) -> Result<Buffer<'a>, BufferError> {
        Buffer::with_clamp(bytes, CLAMP_DWORDS)
    }

    /// [`Buffer::parse`] with another clamp than 1 << 29 dwords (for tests, or a producer that
    /// clamps elsewhere).
    pub fn with_clamp(bytes: &'a [u8], clamp: u64) -> Result<Buffer<'a>, BufferError> {
        if bytes.len() < HEADER_BYTES {
            return Err(BufferError::TooShort { len: bytes.len() });
        }
        let word = |at: usize| {
            u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
        };
        let header = Header {
            buffer_offset: u64::from(word(0)) | u64::from(word(4)) << 32,
            reserved: [word(8), word(12)],
        };
        let capacity = ((bytes.len() - HEADER_BYTES) / 4) as u64;
        let limit = capacity.min(clamp);
        let end = header.buffer_offset.min(limit);
        Ok(Buffer {
            bytes,
            header,
            capacity,
            limit,
            end,
            clamp,
        })
    }

    /// The buffer's bytes.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The header as it was read (`bufferOffset` unclamped, the reserved dwords as found).
    pub fn header(&self) -> Header {
        self.header
    }

    /// Dwords after the header.
    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    /// Dwords that hold entries: `bufferOffset`, or less when it went past the capacity or the
    /// clamp.
    pub fn end(&self) -> u64 {
        self.end
    }

    /// The clamp this buffer was read with.
    pub fn clamp(&self) -> u64 {
        self.clamp
    }

    /// Bytes after the last whole dword (a buffer is a whole number of dwords).
    pub fn trailing_bytes(&self) -> usize {
        (self.bytes.len() - HEADER_BYTES) % 4
    }

    /// Whether more was allocated than stored, and how much was lost.
    pub fn overflow(&self) -> Option<Overflow> {
        (self.header.buffer_offset > self.limit).then(|| Overflow {
            buffer_offset: self.header.buffer_offset,
            capacity: self.capacity,
            limit: self.limit,
            lost_dwords: self.header.buffer_offset - self.limit,
            clamped: self.clamp < self.capacity,
        })
    }

    /// What is odd about the buffer as a whole (reserved fields, trailing bytes, overflow).
    pub fn notices(&self) -> Vec<BufferNotice> {
        let mut notices = Vec::new();
        if self.header.reserved != [0, 0] {
            notices.push(BufferNotice::Reserved(self.header.reserved));
        }
        if self.trailing_bytes() != 0 {
            notices.push(BufferNotice::TrailingBytes(self.trailing_bytes()));
        }
        if let Some(overflow) = self.overflow() {
            notices.push(BufferNotice::Overflow(overflow));
        }
        notices
    }

    /// Dwords `index` and `index + 1` after the header, read at once (one bounds check where
    /// two cost the walk 2% of its instructions); the caller keeps both below the capacity.
    #[inline]
    fn dword_pair(&self, index: u64) -> (u32, u32) {
        let at = HEADER_BYTES + index as usize * 4;
        match self.bytes.get(at..at + 8) {
            Some(b) => (
                u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
                u32::from_le_bytes([b[4], b[5], b[6], b[7]]),
            ),
            None => (0, 0),
        }
    }

    /// The entries of the whole written area, in buffer order.
    pub fn entries(&self) -> Entries<'a> {
        self.entries_in(0..self.end)
    }

    /// The entries of a part of the written area; `range.start` must be where an entry starts
    /// (0, or where an [`Entries`] walk reached) and it is clipped to [`Buffer::end`].
    pub fn entries_in(&self, range: Range<u64>) -> Entries<'a> {
        let end = range.end.min(self.end);
        Entries {
            buffer: *self,
            next: range.start.min(end),
            end,
            stopped: false,
        }
    }
}

/// Something odd about a buffer as a whole; decoding goes on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferNotice {
    /// The reserved header dwords are not 0.
    Reserved([u32; 2]),
    /// The length after the header is not a whole number of dwords.
    TrailingBytes(usize),
    /// More was allocated than stored.
    Overflow(Overflow),
}

impl fmt::Display for BufferNotice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BufferNotice::Reserved([a, b]) => write!(
                f,
                "the header's reserved dwords are {a:#x} and {b:#x}, not 0: this may not be a \
                 printf buffer, or its header was overwritten"
            ),
            BufferNotice::TrailingBytes(n) => write!(
                f,
                "the buffer ends with {n} byte{} that do not make a whole dword; they are ignored",
                if *n == 1 { "" } else { "s" }
            ),
            BufferNotice::Overflow(overflow) => overflow.fmt(f),
        }
    }
}

/// One entry as it lies in the buffer, its size already checked against the written area.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawEntry<'a> {
    /// Dword offset of the entry after the buffer header (the unit of `bufferOffset`).
    pub offset: u64,
    /// Size in dwords, header included (at least 2).
    pub size: u32,
    /// The 48-bit format-string ID (0 when the buffer says so).
    pub id: u64,
    /// The payload: `size - 2` dwords, little-endian.
    pub payload: &'a [u8],
}

impl RawEntry<'_> {
    /// Byte offset of the entry in the buffer.
    pub fn byte_offset(&self) -> u64 {
        byte_offset(self.offset)
    }

    /// Dwords after the entry header.
    pub fn payload_dwords(&self) -> u32 {
        (self.payload.len() / 4) as u32
    }

    /// Payload dword `index` (0 past the end).
    #[inline]
    pub fn dword(&self, index: usize) -> u32 {
        match self.payload.get(index * 4..index * 4 + 4) {
            Some(b) => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            None => 0,
        }
    }
}

/// Byte offset in the buffer of dword `offset` after the header.
pub fn byte_offset(offset: u64) -> u64 {
    offset.saturating_mul(4).saturating_add(HEADER_BYTES as u64)
}

/// Why the walk over entries cannot go on: the place where the next entry would start does not
/// hold a usable entry header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Stop {
    /// An all-zero entry header: space that was allocated but never written.
    #[error(
        "an all-zero entry header (space allocated but never written); the {remaining} dwords \
         from here to the end of the written area cannot be decoded"
    )]
    Unwritten {
        /// Dwords from this offset to the end of the written area.
        remaining: u64,
    },
    /// An entry size of 0 or 1: smaller than the entry header, so it says nothing about where
    /// the next entry starts.
    #[error(
        "entry size {size} (format ID {id:#x}) is smaller than the 2-dword entry header; the \
         {remaining} dwords from here to the end of the written area cannot be decoded"
    )]
    TooSmall {
        /// The entry header's size field: 0 or 1 dwords.
        size: u32,
        /// The entry header's 48-bit format ID, for messages.
        id: u64,
        /// Dwords from this offset to the end of the written area.
        remaining: u64,
    },
    /// An entry that runs past the end of the written area.
    #[error(
        "an entry of {size} dwords (format ID {id:#x}) runs past the end of the written area, \
         which has {available} dwords left; it was cut off"
    )]
    CutOff {
        /// The entry's size in dwords (header included), as its header says.
        size: u32,
        /// The entry header's 48-bit format ID, for messages.
        id: u64,
        /// Dwords from this offset to the end of the written area.
        available: u64,
    },
    /// One dword left: not even an entry header.
    #[error("one dword is left at the end of the written area, too short for an entry header")]
    HalfHeader,
}

/// The walk over entries in buffer order; it ends at the end of its range or at the first
/// [`Stop`], which it yields as an error (with its offset) before ending.
#[derive(Clone, Debug)]
pub struct Entries<'a> {
    buffer: Buffer<'a>,
    next: u64,
    end: u64,
    stopped: bool,
}

impl<'a> Entries<'a> {
    /// Where the next entry starts, in dwords after the buffer header.
    pub fn offset(&self) -> u64 {
        self.next
    }
}

impl<'a> Iterator for Entries<'a> {
    type Item = Result<RawEntry<'a>, (u64, Stop)>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.stopped || self.next >= self.end {
            return None;
        }
        let offset = self.next;
        let remaining = self.end - offset;
        let stop = |stopped: &mut bool, stop| {
            *stopped = true;
            Some(Err((offset, stop)))
        };
        if remaining < u64::from(ENTRY_HEADER_DWORDS) {
            return stop(&mut self.stopped, Stop::HalfHeader);
        }
        let (low, high) = self.buffer.dword_pair(offset);
        let size = low & 0xffff;
        let id = u64::from(low >> 16) | u64::from(high) << 16;
        if size < ENTRY_HEADER_DWORDS {
            let stop_kind = if size == 0 && id == 0 {
                Stop::Unwritten { remaining }
            } else {
                Stop::TooSmall {
                    size,
                    id,
                    remaining,
                }
            };
            return stop(&mut self.stopped, stop_kind);
        }
        if u64::from(size) > remaining {
            return stop(
                &mut self.stopped,
                Stop::CutOff {
                    size,
                    id,
                    available: remaining,
                },
            );
        }
        let start = HEADER_BYTES + (offset as usize + 2) * 4;
        let payload_end = HEADER_BYTES + (offset as usize + size as usize) * 4;
        // The range lies below `end <= capacity`, so it is inside the bytes.
        let payload = self.buffer.bytes.get(start..payload_end).unwrap_or(&[]);
        self.next = offset + u64::from(size);
        Some(Ok(RawEntry {
            offset,
            size,
            id,
            payload,
        }))
    }
}
