//! The JSON table reader: JSON text to a table, and the table back to JSON, which reads back
//! as the same table.
#![no_main]

use fmtstr_meta::Table;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(json) = serde_json::from_slice::<serde_json::Value>(data) else {
        return;
    };
    let _ = fmtstr_meta::json::from_json(&json);
    let Ok(table) = Table::from_json(&json) else {
        return;
    };
    let mut encoded = Vec::new();
    table.encode(&mut encoded);
    let again = Table::from_json(&table.to_json()).expect("a table's JSON reads back");
    let mut reencoded = Vec::new();
    again.encode(&mut reencoded);
    assert_eq!(encoded, reencoded, "the table changed through JSON");
});
