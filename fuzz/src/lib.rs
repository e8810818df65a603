//! What the fuzz targets share: cutting one fuzzed input into the parts a target needs.
//!
//! Targets with several inputs (a format and its arguments, a table and a buffer, two tables)
//! take them from one byte string, cut at a separator the seeds use too, so that the seeds
//! written from `samples/` start the fuzzer on meaningful parts.

/// Splits `data` at the first `separator`: the bytes before it and after it (`data` and
/// nothing when it does not occur).
pub fn split<'a>(data: &'a [u8], separator: &[u8]) -> (&'a [u8], &'a [u8]) {
    match data
        .windows(separator.len())
        .position(|window| window == separator)
    {
        Some(at) => (&data[..at], &data[at + separator.len()..]),
        None => (data, &[]),
    }
}

/// Reads fixed-size values from the front of a byte string, giving zeros once it runs out (a
/// short input still gives every value, so the fuzzer never wastes an input on a length check).
#[derive(Debug)]
pub struct Bytes<'a> {
    rest: &'a [u8],
}

impl<'a> Bytes<'a> {
    pub fn new(data: &'a [u8]) -> Bytes<'a> {
        Bytes { rest: data }
    }

    /// The next `N` bytes, zero-padded.
    pub fn take<const N: usize>(&mut self) -> [u8; N] {
        let mut out = [0u8; N];
        let n = N.min(self.rest.len());
        out[..n].copy_from_slice(&self.rest[..n]);
        self.rest = &self.rest[n..];
        out
    }

    pub fn u8(&mut self) -> u8 {
        self.take::<1>()[0]
    }

    pub fn u64(&mut self) -> u64 {
        u64::from_le_bytes(self.take())
    }

    /// The next `len` bytes, or fewer at the end.
    pub fn slice(&mut self, len: usize) -> &'a [u8] {
        let n = len.min(self.rest.len());
        let (head, tail) = self.rest.split_at(n);
        self.rest = tail;
        head
    }

    /// What has not been read.
    pub fn rest(&self) -> &'a [u8] {
        self.rest
    }
}
