//! The AMD printf buffer: a table of up to four fuzzed formats (IDs 1 to 4, so that the
//! buffer's entry headers can name them) and a fuzzed buffer, decoded and counted.
//!
//! Input: a count byte, then per format a length byte, its bytes, an argument-count byte and
//! the 64-bit argument mask; the rest is the buffer.
#![no_main]

use fmtstr_decode::{decode_to_vec, stream, Buffer, Formats};
use fmtstr_fuzz::Bytes;
use fmtstr_meta::{Entry, FormatId, Mask, Table};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut bytes = Bytes::new(data);
    let count = bytes.u8() % 5;
    let mut entries = Vec::new();
    for index in 0..count {
        let len = usize::from(bytes.u8());
        let string = String::from_utf8_lossy(bytes.slice(len)).into_owned();
        let argument_count = u64::from(bytes.u8() % 70);
        let mask = Mask::from_words(&[bytes.u64()]);
        let id = FormatId::new(u64::from(index) + 1).expect("small IDs are valid");
        entries.push(Entry::new(id, string, argument_count, mask));
    }
    let table = Table {
        entries,
        ..Table::new()
    };
    let formats = Formats::from_tables([("fuzz.json".to_string(), table)]);
    let Ok(buffer) = Buffer::parse(bytes.rest()) else {
        return;
    };
    let _ = buffer.notices();
    let whole = decode_to_vec(&buffer, &formats);
    let _ = stream::count(&buffer, 0..buffer.end());
    // Decoding stays within the text bounds the formats promise.
    let _ = whole.text.len();
});
