//! PAL ELF: parse, decode the metadata document and its format-string table, write the table
//! back, fold a linked image's notes. Whatever is written parses again with the table it was
//! given, and every section but the metadata note's keeps its bytes.
#![no_main]

use fmtstr_elf::{Class, LinkedElf, PalElf, Table};
use fmtstr_meta::{Entry, Mask};
use libfuzzer_sys::fuzz_target;

/// Rewrites `elf` with `table` and checks the result.
fn check_rewrite(elf: &PalElf<'_>, table: &Table<'_>) {
    let Ok(rewritten) = elf.with_format_strings(table) else {
        return;
    };
    let again = PalElf::parse(&rewritten).expect("a rewritten image parses");
    let reread = again
        .format_strings()
        .expect("a rewritten table decodes")
        .expect("a rewritten image has its table");
    let (mut written, mut read) = (Vec::new(), Vec::new());
    table.encode(&mut written);
    reread.encode(&mut read);
    assert!(
        written == read,
        "the table read back is not the one written"
    );
    // A file without a metadata note gets one (a section of its own); the rest is checked
    // where the note was already there.
    let Some(note_section) = elf.metadata_note().map(|note| note.section) else {
        return;
    };
    let before = elf.sections();
    let after = again.sections();
    assert_eq!(
        before.len(),
        after.len(),
        "a rewrite changed the number of sections"
    );
    // Sections that overlap the headers or each other share bytes with what a rewrite
    // changes; the promise is for files laid out as linkers write them.
    if !disjoint(elf) {
        return;
    }
    for (old, new) in before.iter().zip(&after) {
        // (Names are not compared: e_shstrndx may name the note section itself.)
        if old.index != note_section && old.sh_type != 0 {
            assert!(
                elf.section_bytes(old.index) == again.section_bytes(new.index),
                "section {} [{}] changed in a rewrite",
                old.name,
                old.index
            );
        }
    }
}

/// Whether the ELF header, the program and section header tables and the sections with bytes
/// (all but NOBITS) lie apart in the file.
fn disjoint(elf: &PalElf<'_>) -> bool {
    let bytes = elf.bytes();
    let read = |at: usize, len: usize| -> u64 {
        let mut word = [0u8; 8];
        word[..len].copy_from_slice(&bytes[at..at + len]);
        u64::from_le_bytes(word)
    };
    // (e_phoff, e_phentsize, e_phnum, e_shoff, e_shentsize, e_shnum) and the header size.
    let (ph, ph_size, ph_num, sh, sh_size, sh_num, header) = match elf.class() {
        Class::Elf64 => (
            read(0x20, 8),
            read(0x36, 2),
            read(0x38, 2),
            read(0x28, 8),
            read(0x3a, 2),
            read(0x3c, 2),
            64,
        ),
        Class::Elf32 => (
            read(0x1c, 4),
            read(0x2a, 2),
            read(0x2c, 2),
            read(0x20, 4),
            read(0x2e, 2),
            read(0x30, 2),
            52,
        ),
    };
    let mut ranges = vec![
        (0, header),
        (ph, ph + ph_size * ph_num),
        (sh, sh + sh_size * sh_num),
    ];
    for section in elf.sections() {
        // SHT_NULL too: fmtstr reads section names from the string table whatever its type.
        if section.sh_type != 8 && section.size > 0 {
            ranges.push((section.offset, section.offset + section.size));
        }
    }
    ranges.retain(|(start, end)| start < end);
    ranges.sort_unstable();
    ranges.windows(2).all(|pair| pair[0].1 <= pair[1].0)
}

fuzz_target!(|data: &[u8]| {
    if let Ok(elf) = PalElf::parse(data) {
        let _ = elf.sections();
        if let Ok(Some(document)) = elf.document() {
            let _ = document.to_value();
            let _ = document.top_level_pairs(|_| false);
            let _ = fmtstr_elf::hsa::printf_entries(&document);
        }
        if let Ok(table) = elf.format_strings() {
            let table = table.unwrap_or_default();
            let _ = table.to_json();
            check_rewrite(&elf, &table);
            // A table that grew: the note grows and what follows it moves.
            let mut grown = table.clone();
            grown.entries.push(Entry::for_format(
                "fuzz %d %s\n",
                2,
                Mask::for_arguments(2, [1]),
            ));
            check_rewrite(&elf, &grown);
        }
    }
    if let Ok(linked) = LinkedElf::parse(data) {
        if let Ok(documents) = linked.documents() {
            let _ = linked.key_differences(&documents);
            let table = documents.first().and_then(|d| d.format_strings()).cloned();
            if let Ok(folded) = linked.fold(documents.first(), table.as_ref()) {
                LinkedElf::parse(&folded).expect("a folded image parses");
            }
        }
    }
});
