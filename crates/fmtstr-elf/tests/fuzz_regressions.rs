//! Inputs `cargo xtask fuzz` found to crash fmtstr-elf, kept as they were found (files in
//! tests/fuzz/; libFuzzer could not make them smaller). Each must give a result or a typed
//! error, never a panic.

use fmtstr_elf::{Entry, PalElf};
use fmtstr_meta::Mask;

fn sample(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// A relocatable file without a metadata note whose empty `.note` section claims an offset
/// past the end of the file (7562606 in a 1888-byte file): writing a table appended the note
/// there and sliced out of bounds. Now the table goes into a new `.note` section.
#[test]
fn an_empty_note_section_past_the_end_of_the_file_is_not_appended_to() {
    let bytes = sample("note-past-end-of-file.elf");
    let elf = PalElf::parse(&bytes).expect("the headers are sound");
    assert!(elf.metadata_note().is_none());
    let table = fmtstr_elf::Table {
        entries: vec![Entry::for_format("x=%d\n", 1, Mask::for_arguments(1, []))],
        ..fmtstr_elf::Table::new()
    };
    let written = elf
        .with_format_strings(&table)
        .expect("a new note section is added");
    let again = PalElf::parse(&written).expect("the written file parses");
    let read = again
        .format_strings()
        .expect("its table decodes")
        .expect("it has a table");
    assert_eq!(read.entries.len(), 1);
    assert_eq!(read.entries[0].string(), "x=%d\n");
    // The old sections keep their headers' offsets; the new note section is added last.
    assert_eq!(again.sections().len(), elf.sections().len() + 1);
}

/// A PAL object whose empty `.note.GNU-stack` claims the offset 0xffffffffffffffff: growing the
/// metadata note shifts the sections after it, and that offset plus the shift overflowed.
/// Empty sections past the end of the file are left where they claim to be.
#[test]
fn an_empty_section_at_the_largest_offset_is_not_shifted() {
    let bytes = sample("empty-section-offset-near-u64-max.elf");
    let elf = PalElf::parse(&bytes).expect("the headers are sound");
    let mut table = elf
        .format_strings()
        .expect("the table decodes")
        .unwrap_or_default();
    table.entries.push(Entry::for_format(
        "a string the sample does not have: %d %s\n",
        2,
        Mask::for_arguments(2, [1]),
    ));
    let written = elf
        .with_format_strings(&table)
        .expect("the note grows in place");
    let again = PalElf::parse(&written).expect("the written file parses");
    let read = again
        .format_strings()
        .expect("its table decodes")
        .expect("it has a table");
    assert_eq!(read.entries.len(), table.entries.len());
    let moved = again.sections();
    assert_eq!(
        moved[3].offset,
        u64::MAX,
        "the empty section keeps its offset"
    );
    // The section after the note moved by the growth; its bytes came along.
    assert!(moved[5].offset > elf.sections()[5].offset);
    assert_eq!(again.section_bytes(5), elf.section_bytes(5));
}

/// A file without a metadata note whose empty `.note` section sits at the unaligned offset
/// 0x73: the new note was appended there, and fmtstr's reader of the time aligned a note's
/// descriptor by file offset, so the table read back was the middle of the note. A note is
/// now appended only to a section whose offset and size are both aligned (so that readers
/// aligning from the section's start, as object and LLVM do, and from the file's start
/// agree); here the table goes into a new, aligned `.note` section.
#[test]
fn a_note_is_never_appended_at_an_unaligned_offset() {
    let bytes = sample("misaligned-empty-note-section.elf");
    let elf = PalElf::parse(&bytes).expect("the headers are sound");
    assert!(elf.metadata_note().is_none());
    let table = fmtstr_elf::Table {
        entries: vec![Entry::for_format("y=%u\n", 1, Mask::for_arguments(1, []))],
        ..fmtstr_elf::Table::new()
    };
    let written = elf.with_format_strings(&table).expect("a note is added");
    let again = PalElf::parse(&written).expect("the written file parses");
    let note = again.metadata_note().expect("it has a metadata note");
    assert_eq!(note.note.start % 4, 0, "the note starts aligned");
    let read = again
        .format_strings()
        .expect("its table decodes")
        .expect("it has a table");
    assert_eq!(read.entries[0].string(), "y=%u\n");
}

/// A file without a metadata note whose empty `.note` section has sh_addralign 207, and a
/// later section with an absurd alignment, so the grown section moves to the end of the file:
/// it was placed at a multiple of 207, unaligned for the note's fields. It now goes to a
/// multiple of a power of two.
#[test]
fn a_moved_note_section_lands_aligned_whatever_its_alignment_says() {
    let bytes = sample("note-section-align-207.elf");
    let elf = PalElf::parse(&bytes).expect("the headers are sound");
    let table = fmtstr_elf::Table {
        entries: vec![Entry::for_format("z=%x\n", 1, Mask::for_arguments(1, []))],
        ..fmtstr_elf::Table::new()
    };
    let written = elf.with_format_strings(&table).expect("a note is added");
    let again = PalElf::parse(&written).expect("the written file parses");
    let note = again.metadata_note().expect("it has a metadata note");
    assert_eq!(note.note.start % 4, 0, "the note starts aligned");
    let read = again
        .format_strings()
        .expect("its table decodes")
        .expect("it has a table");
    assert_eq!(read.entries[0].string(), "z=%x\n");
}

/// A PAL object whose section header table starts inside the metadata note's section (the
/// table's first bytes are the end of the note's descriptor). Growing the note in place
/// overwrote and shifted the headers, so the file written had no metadata note. A section that
/// shares bytes with the ELF header or a header table now moves to the end of the file.
#[test]
fn a_note_section_holding_the_section_headers_moves_instead_of_growing_over_them() {
    let bytes = sample("section-headers-inside-the-note.elf");
    let elf = PalElf::parse(&bytes).expect("the headers are sound");
    let note = elf.metadata_note().expect("it has a metadata note").clone();
    let table = elf
        .format_strings()
        .expect("the table decodes")
        .expect("it has a table");
    let written = elf.with_format_strings(&table).expect("the note moves");
    let again = PalElf::parse(&written).expect("the written file parses");
    let read = again
        .format_strings()
        .expect("its table decodes")
        .expect("it has a table");
    let (mut expected, mut got) = (Vec::new(), Vec::new());
    table.encode(&mut expected);
    read.encode(&mut got);
    assert_eq!(got, expected);
    let moved = again.metadata_note().expect("it has a metadata note");
    assert!(
        moved.note.start >= bytes.len(),
        "the note moved past the old end"
    );
    // The bytes before the old note (the first note and everything before it) are untouched.
    assert_eq!(written[..note.note.start], bytes[..note.note.start]);
    let before = elf.sections();
    let after = again.sections();
    assert_eq!(before.len(), after.len());
    for (old, new) in before.iter().zip(&after) {
        if old.index != note.section {
            assert_eq!((old.offset, old.size), (new.offset, new.size), "{old:?}");
        }
    }
}
