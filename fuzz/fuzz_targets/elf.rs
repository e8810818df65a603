//! PAL ELF: parse, decode the metadata document and its format-string table, write the table
//! back, fold a linked image's notes. Whatever is written must parse again with the same table.
#![no_main]

use fmtstr_elf::{LinkedElf, PalElf};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(elf) = PalElf::parse(data) {
        let _ = elf.sections();
        if let Ok(Some(document)) = elf.document() {
            let _ = document.to_value();
            let _ = document.top_level_pairs(|_| false);
        }
        if let Ok(Some(table)) = elf.format_strings() {
            let _ = table.to_json();
            let mut encoded = Vec::new();
            table.encode(&mut encoded);
            if let Ok(rewritten) = elf.with_format_strings(&table) {
                let again = PalElf::parse(&rewritten).expect("a rewritten image parses");
                let reread = again
                    .format_strings()
                    .expect("a rewritten table decodes")
                    .expect("a rewritten image has its table");
                let mut reencoded = Vec::new();
                reread.encode(&mut reencoded);
                assert_eq!(encoded, reencoded, "the table changed in a rewrite");
            }
        }
    }
    if let Ok(linked) = LinkedElf::parse(data) {
        if let Ok(documents) = linked.documents() {
            let _ = LinkedElf::key_differences(&documents);
            let table = documents.first().and_then(|d| d.format_strings()).cloned();
            if let Ok(folded) = linked.fold(documents.first(), table.as_ref()) {
                LinkedElf::parse(&folded).expect("a folded image parses");
            }
        }
    }
});
