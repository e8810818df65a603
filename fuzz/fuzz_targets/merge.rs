//! `merge` of two fuzzed msgpack tables (a 16-bit length, the first table, the second). When
//! the merge finds no error, every ID of both tables is in the result, and the result encodes
//! and decodes.
#![no_main]

use fmtstr_fuzz::Bytes;
use fmtstr_meta::{merge, OnCollision, Table};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut bytes = Bytes::new(data);
    let first_len = usize::from(u16::from_le_bytes(bytes.take()));
    let first = bytes.slice(first_len);
    let second = bytes.rest();
    let (Ok(first), Ok(second)) = (Table::decode(first), Table::decode(second)) else {
        return;
    };
    let ids: Vec<_> = first
        .entries
        .iter()
        .chain(&second.entries)
        .map(|entry| entry.id())
        .collect();
    let merged = merge([first, second]);
    for finding in &merged.findings {
        let _ = finding.describe(&["first", "second"]);
    }
    if merged.has_errors(OnCollision::Error) {
        return;
    }
    for id in ids {
        assert!(
            merged.table.get(id).is_some(),
            "{id:?} was lost in the merge"
        );
    }
    let mut encoded = Vec::new();
    merged.table.encode(&mut encoded);
    Table::decode(&encoded).expect("a merged table decodes");
});
