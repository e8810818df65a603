//! The AMD printf buffer: a table of up to four fuzzed formats (IDs 1 to 4, so that the
//! buffer's entry headers can name them) and a fuzzed buffer, decoded and counted.
//!
//! Input: a count byte, then per format a length byte, its bytes, an argument-count byte (its
//! high bit: an argument travels as string bytes, named by the next two bytes) and the 64-bit
//! argument mask; the rest is the buffer.
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
        let count_byte = bytes.u8();
        let argument_count = u64::from(count_byte % 70);
        let mask = Mask::from_words(&[bytes.u64()]);
        let id = FormatId::new(u64::from(index) + 1).expect("small IDs are valid");
        let mut entry = Entry::new(id, string, argument_count, mask);
        // The high bit: some argument travels as string bytes (`--runtime-strings`), however
        // well or badly that fits the format.
        if count_byte & 0x80 != 0 {
            let argument = u64::from(bytes.u8() % 8);
            let reserved = u64::from(bytes.u8()) * 17;
            entry = entry.with_extra(vec![(
                rmpv::Value::from(fmtstr_meta::INLINE_STRINGS_KEY),
                rmpv::Value::Array(vec![rmpv::Value::Array(vec![
                    rmpv::Value::from(argument),
                    rmpv::Value::from(reserved),
                ])]),
            )]);
        }
        entries.push(entry);
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
    let _ = stream::count(&buffer, &formats, 0..buffer.end());

    // Decoding in windows (as the parallel decoder does) prints the same text, and an entry
    // alone in its window prints no more than its format's text bound.
    let window_dwords = u64::from(data.first().copied().unwrap_or(0) >> 4) + 1;
    let mut text = Vec::new();
    let (mut printed, mut marked) = (0, 0);
    for window in stream::Windows::new(&buffer, window_dwords) {
        let chunk = stream::decode_text(&buffer, &formats, window.clone());
        if chunk.printed == 1 && chunk.marked == 0 {
            if let Some(Ok(entry)) = buffer.entries_in(window).next() {
                let bound = formats
                    .get(entry.id)
                    .and_then(|known| known.compiled().ok())
                    .map(|compiled| formats.text_bound(compiled));
                if let Some(bound) = bound {
                    assert!(
                        chunk.text.len() as u64 <= bound,
                        "an entry printed {} bytes, over its format's bound of {bound}",
                        chunk.text.len()
                    );
                }
            }
        }
        text.extend_from_slice(&chunk.text);
        printed += chunk.printed;
        marked += chunk.marked;
    }
    assert!(text == whole.text, "decoding in windows printed other text");
    assert_eq!((printed, marked), (whole.printed, whole.marked));
});
