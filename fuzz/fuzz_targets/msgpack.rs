//! The msgpack reader: tokens, skipping, values, and the table decoder. A value read and
//! written back reads back as the same value, and writes the same bytes again.
#![no_main]

use fmtstr_meta::msgpack::{write_value, Reader};
use fmtstr_meta::Table;
use libfuzzer_sys::fuzz_target;

/// A value at the top of a document (the reader bounds the nesting below it).
const DEPTH: usize = 0;

fuzz_target!(|data: &[u8]| {
    let mut tokens = Reader::new(data);
    while !tokens.is_at_end() {
        if tokens.next_token().is_err() {
            break;
        }
    }
    let mut skipper = Reader::new(data);
    let skipped = skipper.skip_value(DEPTH).map(|()| skipper.position());
    let mut reader = Reader::new(data);
    if let Ok(value) = reader.read_value(DEPTH) {
        // Skipping and reading agree on where the value ends.
        assert_eq!(skipped.ok(), Some(reader.position()));
        let mut written = Vec::new();
        write_value(&mut written, &value);
        let again = Reader::new(&written)
            .read_value(DEPTH)
            .expect("a written value reads back");
        let mut rewritten = Vec::new();
        write_value(&mut rewritten, &again);
        assert_eq!(written, rewritten);
    }
    if let Ok(table) = Table::decode(data) {
        let mut encoded = Vec::new();
        table.encode(&mut encoded);
        assert_eq!(encoded.len(), table.encoded_len());
        let again = Table::decode(&encoded).expect("an encoded table decodes");
        let mut reencoded = Vec::new();
        again.encode(&mut reencoded);
        assert_eq!(encoded, reencoded);
    }
});
