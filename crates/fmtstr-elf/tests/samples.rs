//! fmtstr-elf on the bundled PAL ELFs (samples/pal) and on hand-built ELF32/ELF64 files.

use std::path::{Path, PathBuf};

use fmtstr_elf::{Class, ElfError, PalElf};
use fmtstr_meta::{json, Entry, FormatId, Mask, Table};

fn samples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/pal")
}

fn read(name: &str) -> Vec<u8> {
    let path = samples().join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

fn sample_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(samples())
        .expect("samples/pal exists")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".pal.json"))
        .map(|n| n.trim_end_matches(".pal.json").to_owned())
        .collect();
    names.sort();
    assert!(names.len() >= 6, "{names:?}");
    names
}

fn json_file(name: &str) -> serde_json::Value {
    serde_json::from_slice(&read(&format!("{name}.pal.json"))).expect("sample JSON parses")
}

/// The bytes of an LLVM metadata string literal: `\XX` escapes and plain characters.
fn unescape_md(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' {
            out.push(u8::from_str_radix(&text[i + 1..i + 3], 16).expect("hex escape"));
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    out
}

#[test]
fn ll_metadata_lines_encode_their_json() {
    for name in sample_names() {
        let ll = String::from_utf8(read(&format!("{name}.ll"))).expect("utf-8");
        let lines: Vec<&str> = ll.lines().collect();
        let marker = lines
            .iter()
            .position(|l| l.starts_with("; PAL metadata: generated from"))
            .expect("marker line");
        let line = lines[marker + 1];
        let literal = line
            .split_once("!{!\"")
            .and_then(|(_, rest)| rest.strip_suffix("\"}"))
            .expect("metadata string line");
        let value = json::from_json(&json_file(&name)).expect("JSON is a document");
        let mut expected = Vec::new();
        fmtstr_meta::msgpack::write_value(&mut expected, &value);
        assert_eq!(
            unescape_md(literal),
            expected,
            "{name}.ll is stale: run cargo xtask samples"
        );
    }
}

/// The committed ELFs are byte for byte what llc-19 and ld.lld-19 write (`cargo xtask
/// samples`): LLVM 19 only, by design; LLVM 22's objects are judged by
/// [`llc_22_objects_read_as_their_json_says`].
#[test]
fn committed_elfs_are_what_llc_produces() {
    let Some(_) = fmtstr_oracles::require(fmtstr_oracles::Tool::Llc) else {
        return;
    };
    let temp = std::env::temp_dir().join(format!("fmtstr-elf-samples-{}", std::process::id()));
    std::fs::create_dir_all(&temp).expect("temp dir");
    for name in sample_names() {
        let out = temp.join(format!("{name}.elf"));
        let mut llc = fmtstr_oracles::Tool::Llc.command().expect("llc");
        let status = llc
            .args(["-mtriple=amdgcn--amdpal", "-mcpu=gfx1100", "-filetype=obj"])
            .arg(samples().join(format!("{name}.ll")))
            .arg("-o")
            .arg(&out)
            .status()
            .expect("llc runs");
        assert!(status.success());
        assert!(
            std::fs::read(&out).expect("llc output") == read(&format!("{name}.elf")),
            "samples/pal/{name}.elf differs from what llc produces: run cargo xtask samples"
        );
    }
    if let Some(lld) = fmtstr_oracles::require(fmtstr_oracles::Tool::Lld) {
        let out = temp.join("compute-linked.elf");
        let status = std::process::Command::new(lld)
            .arg("-shared")
            .arg(samples().join("compute.elf"))
            .arg("-o")
            .arg(&out)
            .status()
            .expect("ld.lld runs");
        assert!(status.success());
        assert!(std::fs::read(&out).expect("lld output") == read("compute-linked.elf"));
    }
    let _ = std::fs::remove_dir_all(&temp);
}

/// The committed ELFs are llc-19's (byte for byte). llc-22 writes other bytes for the
/// same modules (its PAL metadata names a stage's entry point differently, for one), so it is
/// judged by what fmtstr reads: each sample compiled by llc-22 reads as its JSON says, and
/// ld.lld-22's `-shared` link of compute reads too.
#[test]
fn llc_22_objects_read_as_their_json_says() {
    use fmtstr_oracles::{require_llvm, Llvm, Tool};
    let (Some(llc), Some(lld)) = (
        require_llvm(Llvm::V22, Tool::Llc),
        require_llvm(Llvm::V22, Tool::Lld),
    ) else {
        return;
    };
    let temp = std::env::temp_dir().join(format!("fmtstr-elf-samples-22-{}", std::process::id()));
    std::fs::create_dir_all(&temp).expect("temp dir");
    for name in sample_names() {
        let out = temp.join(format!("{name}.elf"));
        let status = std::process::Command::new(&llc)
            .args(["-mtriple=amdgcn--amdpal", "-mcpu=gfx1100", "-filetype=obj"])
            .arg(samples().join(format!("{name}.ll")))
            .arg("-o")
            .arg(&out)
            .status()
            .expect("llc-22 runs");
        assert!(status.success(), "llc-22 on {name}.ll");
        reads_as_its_json_says(&name, &std::fs::read(&out).expect("llc-22 output"));
    }
    let linked = temp.join("compute-linked.elf");
    let status = std::process::Command::new(&lld)
        .arg("-shared")
        .arg(temp.join("compute.elf"))
        .arg("-o")
        .arg(&linked)
        .status()
        .expect("ld.lld-22 runs");
    assert!(status.success());
    reads_as_its_json_says(
        "compute",
        &std::fs::read(&linked).expect("ld.lld-22 output"),
    );
    let _ = std::fs::remove_dir_all(&temp);
}

#[test]
fn every_sample_reads_as_its_json_says() {
    for name in sample_names() {
        reads_as_its_json_says(&name, &read(&format!("{name}.elf")));
    }
}

/// The PAL ELF `bytes` of sample `name` has the table of `samples/pal/NAME.pal.json`.
fn reads_as_its_json_says(name: &str, bytes: &[u8]) {
    let elf = PalElf::parse(bytes).expect("parses");
    assert_eq!(elf.class(), Class::Elf64);
    let table = elf.format_strings().expect("valid metadata");
    let expected = json_file(name).get("amdpal.format_strings").cloned();
    match (table, expected) {
        (None, None) => {}
        (Some(table), Some(expected)) => {
            let expected = Table::from_json(&expected).expect("table JSON");
            assert_eq!(table.entries.len(), expected.entries.len(), "{name}");
            for (got, want) in table.entries.iter().zip(&expected.entries) {
                assert!(got.same_as(want), "{name}: {got:?} != {want:?}");
                assert_eq!(got.extra(), want.extra());
            }
        }
        (got, want) => panic!("{name}: table {got:?}, JSON {want:?}"),
    }
}

fn bigger_table(base: Option<Table<'_>>, count: usize) -> Table<'static> {
    let mut table = base.map(Table::into_owned).unwrap_or_default();
    for i in 0..count {
        table.entries.push(Entry::for_format(
            format!("added string number {i}: %d %lld\n"),
            2,
            Mask::from_words(&[2]),
        ));
    }
    table
}

/// Every section other than `changed` keeps its bytes, and the table reads back.
fn check_rewrite(before: &[u8], after: &[u8], expected: &Table<'_>, changed: &[usize]) {
    let old = PalElf::parse(before).expect("old parses");
    let new = PalElf::parse(after).expect("new parses");
    let old_sections = old.sections();
    for section in &old_sections {
        if changed.contains(&section.index) {
            continue;
        }
        assert_eq!(
            old.section_bytes(section.index),
            new.section_bytes(section.index),
            "section {} changed",
            section.name
        );
    }
    let table = new.format_strings().expect("valid").expect("has a table");
    assert_eq!(table.entries.len(), expected.entries.len());
    for (got, want) in table.entries.iter().zip(&expected.entries) {
        assert!(got.same_as(want));
    }
    // The rest of the document is unchanged.
    if let (Some(old_doc), Some(new_doc)) =
        (old.document().expect("old"), new.document().expect("new"))
    {
        let strip = |doc: &fmtstr_elf::Document<'_>| match doc.to_value().expect("value") {
            rmpv::Value::Map(pairs) => pairs
                .into_iter()
                .filter(|(k, _)| k.as_str() != Some("amdpal.format_strings"))
                .collect::<Vec<_>>(),
            other => panic!("not a map: {other}"),
        };
        assert_eq!(strip(&old_doc), strip(&new_doc));
    }
}

fn note_section(bytes: &[u8]) -> usize {
    PalElf::parse(bytes)
        .expect("parses")
        .metadata_note()
        .expect("has note")
        .section
}

#[test]
fn rewrites_grow_shrink_and_keep_other_sections() {
    for name in [
        "compute.elf",
        "compute-linked.elf",
        "graphics.elf",
        "no_strings.elf",
    ] {
        let bytes = read(name);
        let elf = PalElf::parse(&bytes).expect("parses");
        let note = note_section(&bytes);
        for count in [0, 1, 300] {
            let table = bigger_table(elf.format_strings().expect("valid"), count);
            let out = elf.with_format_strings(&table).expect("rewrites");
            check_rewrite(&bytes, &out, &table, &[note]);
            // Rewriting with the same table again is stable.
            let again = PalElf::parse(&out)
                .expect("parses")
                .with_format_strings(&table)
                .expect("again");
            assert_eq!(again, out, "{name}");
        }
        // Shrinking to an empty table.
        let empty = Table::new();
        let out = elf.with_format_strings(&empty).expect("shrinks");
        check_rewrite(&bytes, &out, &empty, &[note]);
    }
}

#[test]
fn unchanged_table_gives_an_identical_file() {
    for name in ["compute.elf", "graphics.elf", "compute-linked.elf"] {
        let bytes = read(name);
        let elf = PalElf::parse(&bytes).expect("parses");
        let table = elf.format_strings().expect("valid").expect("table");
        let out = elf.with_format_strings(&table).expect("rewrites");
        // The table's own keys are written .version first, so only compare lengths and the rest.
        assert_eq!(out.len(), bytes.len(), "{name}");
        check_rewrite(&bytes, &out, &table, &[note_section(&bytes)]);
    }
}

#[test]
fn truncated_and_corrupted_samples_never_panic() {
    let bytes = read("compute.elf");
    for len in 0..bytes.len() {
        if let Ok(elf) = PalElf::parse(&bytes[..len]) {
            let _ = elf.format_strings();
        }
    }
    // Deterministic byte flips.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..3000 {
        let mut copy = bytes.clone();
        for _ in 0..4 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let at = (state % copy.len() as u64) as usize;
            copy[at] = (state >> 32) as u8;
        }
        if let Ok(elf) = PalElf::parse(&copy) {
            if let Ok(Some(document)) = elf.document() {
                let _ = document.to_value();
                let _ = elf.rewrite(Some(&document), &bigger_table(None, 2));
            }
        }
    }
}

/// A minimal relocatable ELF: header, one PROGBITS section `.text`, optional `.note` with the
/// given notes, and `.shstrtab`.
fn tiny_elf(class: Class, notes: Option<&[u8]>) -> Vec<u8> {
    let (ehsize, shentsize) = match class {
        Class::Elf32 => (52usize, 40usize),
        Class::Elf64 => (64, 64),
    };
    let mut out = vec![0u8; ehsize];
    out[..4].copy_from_slice(b"\x7fELF");
    out[4] = if class == Class::Elf32 { 1 } else { 2 };
    out[5] = 1;
    out[6] = 1;
    let text_at = out.len();
    out.extend_from_slice(b"CODEBYTES!!!");
    let note_at = out.len().div_ceil(4) * 4;
    out.resize(note_at, 0);
    if let Some(notes) = notes {
        out.extend_from_slice(notes);
    }
    let note_len = out.len() - note_at;
    let names = b"\0.text\0.shstrtab\0.note\0";
    let strtab_at = out.len();
    out.extend_from_slice(names);
    let shoff = out.len().div_ceil(8) * 8;
    out.resize(shoff, 0);
    let mut headers: Vec<(u32, u32, u64, u64, u64)> = vec![(0, 0, 0, 0, 0)];
    headers.push((1, 1, text_at as u64, 12, 4));
    if notes.is_some() {
        headers.push((17, 7, note_at as u64, note_len as u64, 4));
    }
    headers.push((7, 3, strtab_at as u64, names.len() as u64, 1));
    for (name, kind, offset, size, align) in &headers {
        let at = out.len();
        out.resize(at + shentsize, 0);
        out[at..at + 4].copy_from_slice(&name.to_le_bytes());
        out[at + 4..at + 8].copy_from_slice(&kind.to_le_bytes());
        match class {
            Class::Elf32 => {
                out[at + 16..at + 20].copy_from_slice(&(*offset as u32).to_le_bytes());
                out[at + 20..at + 24].copy_from_slice(&(*size as u32).to_le_bytes());
                out[at + 32..at + 36].copy_from_slice(&(*align as u32).to_le_bytes());
            }
            Class::Elf64 => {
                out[at + 24..at + 32].copy_from_slice(&offset.to_le_bytes());
                out[at + 32..at + 40].copy_from_slice(&size.to_le_bytes());
                out[at + 48..at + 56].copy_from_slice(&align.to_le_bytes());
            }
        }
    }
    let count = headers.len() as u16;
    let strndx = count - 1;
    match class {
        Class::Elf32 => {
            out[32..36].copy_from_slice(&(shoff as u32).to_le_bytes());
            out[40..42].copy_from_slice(&52u16.to_le_bytes());
            out[46..48].copy_from_slice(&40u16.to_le_bytes());
            out[48..50].copy_from_slice(&count.to_le_bytes());
            out[50..52].copy_from_slice(&strndx.to_le_bytes());
        }
        Class::Elf64 => {
            out[40..48].copy_from_slice(&(shoff as u64).to_le_bytes());
            out[52..54].copy_from_slice(&64u16.to_le_bytes());
            out[58..60].copy_from_slice(&64u16.to_le_bytes());
            out[60..62].copy_from_slice(&count.to_le_bytes());
            out[62..64].copy_from_slice(&strndx.to_le_bytes());
        }
    }
    out
}

fn other_note() -> Vec<u8> {
    let mut note = Vec::new();
    note.extend_from_slice(&4u32.to_le_bytes());
    note.extend_from_slice(&3u32.to_le_bytes());
    note.extend_from_slice(&1u32.to_le_bytes());
    note.extend_from_slice(b"GNU\0abc\0");
    note
}

#[test]
fn elf32_and_elf64_without_metadata_get_a_note() {
    let table = Table {
        entries: vec![Entry::new(
            FormatId::new(77).unwrap(),
            "a=%d\n",
            1,
            Mask::from_words(&[0]),
        )],
        ..Default::default()
    };
    for class in [Class::Elf32, Class::Elf64] {
        // No note section at all: a new .note section (named by reusing ".note" in .shstrtab).
        let bare = tiny_elf(class, None);
        let elf = PalElf::parse(&bare).expect("parses");
        assert_eq!(elf.class(), class);
        assert!(elf.format_strings().expect("fine").is_none());
        let out = elf.with_format_strings(&table).expect("adds a section");
        check_rewrite(&bare, &out, &table, &[]);
        let new = PalElf::parse(&out).expect("parses");
        assert_eq!(new.sections().len(), 4);
        assert_eq!(new.sections()[3].name, ".note");

        // A .note section with another note: the metadata note is appended to it.
        let with_note = tiny_elf(class, Some(&other_note()));
        let elf = PalElf::parse(&with_note).expect("parses");
        let out = elf.with_format_strings(&table).expect("appends a note");
        check_rewrite(&with_note, &out, &table, &[2]);
        let new = PalElf::parse(&out).expect("parses");
        assert_eq!(new.sections().len(), 4);
        let note = new.section_bytes(2).expect("note");
        assert_eq!(&note[..20], &other_note()[..]);
    }
}

#[test]
fn bad_headers_are_clear_errors() {
    let good = tiny_elf(Class::Elf64, Some(&other_note()));
    let mut big_endian = good.clone();
    big_endian[5] = 2;
    assert_eq!(PalElf::parse(&big_endian).unwrap_err(), ElfError::BigEndian);
    assert!(matches!(
        PalElf::parse(b"MZ\x90\0rest").unwrap_err(),
        ElfError::NotElf { .. }
    ));
    assert!(matches!(
        PalElf::parse(&good[..40]).unwrap_err(),
        ElfError::Truncated { .. }
    ));
    // The note's descriptor size points past its section.
    let mut past = good.clone();
    let note_at = past.windows(8).position(|w| w == b"GNU\0abc\0").unwrap() - 12;
    past[note_at + 4..note_at + 8].copy_from_slice(&0xffff_fff0u32.to_le_bytes());
    let error = PalElf::parse(&past).unwrap_err();
    assert!(matches!(error, ElfError::NotePastEnd { .. }), "{error}");
    assert!(
        error.to_string().contains("runs past the section's end"),
        "{error}"
    );
    // Two metadata notes.
    let mut note = Vec::new();
    for _ in 0..2 {
        note.extend_from_slice(&7u32.to_le_bytes());
        note.extend_from_slice(&1u32.to_le_bytes());
        note.extend_from_slice(&32u32.to_le_bytes());
        note.extend_from_slice(b"AMDGPU\0\0\x80\0\0\0");
    }
    let twice = tiny_elf(Class::Elf32, Some(&note));
    assert!(matches!(
        PalElf::parse(&twice).unwrap_err(),
        ElfError::SeveralMetadataNotes { .. }
    ));
}

/// Header field offsets of a class: (e_shoff, e_shentsize, e_shnum, e_phoff, e_phentsize,
/// e_phnum, section header size, sh_offset, sh_size).
fn offsets(class: Class) -> [usize; 9] {
    match class {
        Class::Elf32 => [32, 46, 48, 28, 42, 44, 40, 16, 20],
        Class::Elf64 => [40, 58, 60, 32, 54, 56, 64, 24, 32],
    }
}

fn read_word(bytes: &[u8], at: usize, width: usize) -> u64 {
    let mut word = [0u8; 8];
    word[..width].copy_from_slice(&bytes[at..at + width]);
    u64::from_le_bytes(word)
}

fn write_word(bytes: &mut [u8], at: usize, width: usize, value: u64) {
    bytes[at..at + width].copy_from_slice(&value.to_le_bytes()[..width]);
}

/// The message of a parse that must fail, checked to hold every phrase.
fn refused(bytes: &[u8], phrases: &[&str]) -> ElfError {
    let error = PalElf::parse(bytes).expect_err("the file is refused");
    let message = error.to_string();
    for phrase in phrases {
        assert!(message.contains(phrase), "{phrase:?} not in: {message}");
    }
    error
}

/// Every way the headers or the notes can be broken, in both classes: each is a typed error
/// that says where (a file offset) and what.
#[test]
fn malformed_headers_and_notes_say_where_in_both_classes() {
    for class in [Class::Elf32, Class::Elf64] {
        let [e_shoff, e_shentsize, e_shnum, e_phoff, e_phentsize, e_phnum, shsize, sh_offset, sh_size] =
            offsets(class);
        let word = if class == Class::Elf32 { 4 } else { 8 };
        let good = tiny_elf(class, Some(&other_note()));
        let elf = PalElf::parse(&good).expect("the unbroken file parses");
        assert_eq!(elf.class(), class);
        assert_eq!(elf.sections().len(), 4);
        let shoff = read_word(&good, e_shoff, word) as usize;
        let label = format!("{class:?}");

        // The section header table cut short.
        let cut = &good[..shoff + shsize + 3];
        let error = refused(
            cut,
            &[
                &format!("4 section headers of {shsize} bytes at {shoff:#x}"),
                "truncated",
            ],
        );
        assert!(
            matches!(error, ElfError::Truncated { .. }),
            "{label}: {error}"
        );
        // More sections than the file holds.
        let mut many = good.clone();
        write_word(&mut many, e_shnum, 2, 900);
        refused(
            &many,
            &["900 section headers", &format!("has {}", good.len())],
        );
        // A section header size no reader takes.
        let mut entsize = good.clone();
        write_word(&mut entsize, e_shentsize, 2, shsize as u64 + 8);
        let error = refused(
            &entsize,
            &[
                &format!("offset {e_shentsize:#x}"),
                &format!("is {} bytes", shsize),
            ],
        );
        assert!(
            matches!(error, ElfError::Malformed { .. }),
            "{label}: {error}"
        );
        // A section (.text, [1]) past the end of the file.
        let mut past = good.clone();
        write_word(
            &mut past,
            shoff + shsize + sh_offset,
            word,
            good.len() as u64 - 4,
        );
        refused(&past, &["section [1]", "runs past the end of the file"]);
        // e_shnum 0 (the count is in section 0's sh_size) with no room for section 0.
        let mut extended = good[..shoff + 10].to_vec();
        write_word(&mut extended, e_shnum, 2, 0);
        refused(&extended, &[&format!("section header table at {shoff:#x}")]);

        // A program header table past the end of the file, and one of the wrong entry size.
        let mut program = good.clone();
        write_word(&mut program, e_phoff, word, good.len() as u64 - 8);
        write_word(&mut program, e_phnum, 2, 2);
        write_word(
            &mut program,
            e_phentsize,
            2,
            if word == 4 { 32 } else { 56 },
        );
        refused(&program, &["2 program headers at", "truncated"]);
        write_word(&mut program, e_phentsize, 2, 12);
        refused(
            &program,
            &[&format!("offset {e_phentsize:#x}"), "e_phentsize is 12"],
        );

        // Identification bytes.
        let mut ident = good.clone();
        ident[4] = 3;
        refused(&ident, &["offset 0x4", "EI_CLASS is 3"]);
        let mut ident = good.clone();
        ident[5] = 7;
        refused(&ident, &["offset 0x5", "EI_DATA is 7"]);
        let mut ident = good.clone();
        ident[6] = 0;
        refused(&ident, &["offset 0x6", "EI_VERSION is 0"]);
        refused(&good[..10], &["identification", "16 bytes"]);
        refused(&good[..20], &["ELF header", "truncated"]);

        // Notes: a name or a descriptor past the section, a tail that is not a note.
        let note_at = good.windows(8).position(|w| w == b"GNU\0abc\0").unwrap() - 12;
        for (field, size) in [(0, 0x100u32), (4, 0x7fff_0000)] {
            let mut broken = good.clone();
            broken[note_at + field..note_at + field + 4].copy_from_slice(&size.to_le_bytes());
            let error = refused(
                &broken,
                &[
                    &format!("at offset {note_at:#x} in section [2] .note"),
                    &format!("{size}"),
                    "runs past the section's end",
                ],
            );
            assert!(
                matches!(error, ElfError::NotePastEnd { .. }),
                "{label}: {error}"
            );
        }
        let note_header = shoff + 2 * shsize;
        let note_size = read_word(&good, note_header + sh_size, word);
        // The section (followed by the string table) grows by 4 bytes: "\0.te".
        let mut tail = good.clone();
        write_word(&mut tail, note_header + sh_size, word, note_size + 4);
        refused(
            &tail,
            &[
                &format!("offset {:#x}", note_at + note_size as usize),
                "ends with 4 bytes that are not a whole note",
            ],
        );
        // Zeros after the last note are padding, not a broken note.
        let mut padded = good.clone();
        let strtab_header = shoff + 3 * shsize;
        let strtab_at = read_word(&good, strtab_header + sh_offset, word) as usize;
        padded.splice(strtab_at..strtab_at, [0u8; 8]);
        // The section headers moved by 8 too.
        write_word(&mut padded, e_shoff, word, shoff as u64 + 8);
        write_word(&mut padded, note_header + 8 + sh_size, word, note_size + 8);
        write_word(
            &mut padded,
            strtab_header + 8 + sh_offset,
            word,
            strtab_at as u64 + 8,
        );
        let elf = PalElf::parse(&padded).unwrap_or_else(|e| panic!("{label}: {e}"));
        assert_eq!(elf.sections()[3].name, ".shstrtab");
    }
}

/// object reads headers at any file offset (its `unaligned` feature): a section header table
/// and a note section at odd offsets parse, and the table written into that note reads back.
#[test]
fn headers_and_notes_at_odd_offsets_are_read() {
    for class in [Class::Elf32, Class::Elf64] {
        let [e_shoff, _, _, _, _, _, shsize, sh_offset, _] = offsets(class);
        let word = if class == Class::Elf32 { 4 } else { 8 };
        let good = tiny_elf(class, Some(&other_note()));
        let shoff = read_word(&good, e_shoff, word) as usize;
        // One byte before the note section: it and every later section move by one.
        let note_at = read_word(&good, shoff + 2 * shsize + sh_offset, word) as usize;
        let mut odd = good.clone();
        odd.insert(note_at, 0xaa);
        let shoff = shoff + 1;
        write_word(&mut odd, e_shoff, word, shoff as u64);
        for index in [2, 3] {
            let at = shoff + index * shsize + sh_offset;
            let offset = read_word(&odd, at, word);
            write_word(&mut odd, at, word, offset + 1);
        }
        let elf = PalElf::parse(&odd).unwrap_or_else(|e| panic!("{class:?}: {e}"));
        assert_eq!(elf.sections()[2].name, ".note");
        assert_eq!(elf.section_bytes(2), Some(&other_note()[..]));
        let table = Table {
            entries: vec![Entry::for_format("odd %d\n", 1, Mask::from_words(&[0]))],
            ..Default::default()
        };
        let out = elf.with_format_strings(&table).expect("rewrites");
        let read = PalElf::parse(&out)
            .expect("parses")
            .format_strings()
            .expect("decodes")
            .expect("has a table");
        assert_eq!(read.entries[0].string(), "odd %d\n");
    }
}

#[test]
fn a_loaded_note_is_rewritten_in_place_or_not_at_all() {
    // A metadata note with room to spare, in a .note section marked SHF_ALLOC (as in HSA code
    // objects, where it sits in a PT_NOTE segment).
    let big = Table {
        entries: (0..20)
            .map(|i| Entry::for_format(format!("string {i} %d"), 1, Mask::from_words(&[0])))
            .collect(),
        ..Default::default()
    };
    let plain = tiny_elf(Class::Elf64, None);
    let with_note = PalElf::parse(&plain)
        .unwrap()
        .with_format_strings(&big)
        .unwrap();
    let mut loaded = with_note.clone();
    let elf = PalElf::parse(&with_note).unwrap();
    let section = elf.metadata_note().unwrap().section;
    let shoff = u64::from_le_bytes(with_note[40..48].try_into().unwrap()) as usize;
    let header = shoff + section * 64;
    loaded[header + 8..header + 16].copy_from_slice(&2u64.to_le_bytes());
    let elf = PalElf::parse(&loaded).unwrap();

    let small = Table {
        entries: big.entries[..5].to_vec(),
        ..Default::default()
    };
    let out = elf.with_format_strings(&small).expect("fits in place");
    assert_eq!(out.len(), loaded.len());
    check_rewrite(&loaded, &out, &small, &[section]);

    let mut bigger = big.clone();
    bigger
        .entries
        .push(Entry::for_format("one more %d", 1, Mask::from_words(&[0])));
    let error = elf.with_format_strings(&bigger).unwrap_err();
    assert!(matches!(error, ElfError::LoadedNoteGrows { .. }), "{error}");
    assert!(error.to_string().contains("in place"), "{error}");
}
