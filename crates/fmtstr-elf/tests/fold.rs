//! `LinkedElf` on a real `ld.lld -r` link of two bundled PAL ELFs, by ld.lld-19 and by
//! ld.lld-22: the fold keeps every other section's bytes and gives the union table, and no
//! corruption of the note section makes parse, the key comparison or the fold panic, or write a
//! file that does not parse.

use std::path::Path;
use std::process::Command;

use fmtstr_elf::{LinkedElf, PalElf};
use fmtstr_meta::Merger;
use fmtstr_oracles::{require_llvm, Llvm, Tool};

/// The two samples linked by that release's `ld.lld -r`.
fn linked(llvm: Llvm) -> Option<Vec<u8>> {
    let lld = require_llvm(llvm, Tool::Lld)?;
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/pal");
    let dir = tempfile_dir();
    let out = dir.join("linked.o");
    let status = Command::new(lld)
        .arg("-r")
        .arg(samples.join("compute.elf"))
        .arg(samples.join("graphics.elf"))
        .arg("-o")
        .arg(&out)
        .status()
        .expect("ld.lld runs");
    assert!(status.success());
    let bytes = std::fs::read(&out).expect("linked");
    let _ = std::fs::remove_dir_all(&dir);
    Some(bytes)
}

fn tempfile_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "fmtstr-elf-fold-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// Everything a post-link step does with a file; `Err` for refused input, never a panic.
fn fold(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let elf = LinkedElf::parse(bytes).map_err(|e| e.to_string())?;
    let mut documents = elf.documents().map_err(|e| e.to_string())?;
    elf.key_differences(&documents).map_err(|e| e.to_string())?;
    let mut merger = Merger::new();
    let mut any = false;
    for (source, document) in documents.iter_mut().enumerate() {
        if let Some(table) = document.take_format_strings() {
            any = true;
            merger.add(source, table);
        }
    }
    let merged = merger.finish();
    let table = any.then_some(&merged.table);
    elf.fold(documents.first(), table)
        .map_err(|e| e.to_string())
}

/// Under LLVM 19 and LLVM 22 alike.
#[test]
fn the_fold_keeps_other_sections_and_gives_the_union() {
    for llvm in Llvm::ALL {
        eprintln!("{llvm}");
        the_fold_keeps_other_sections_and_gives_the_union_with(llvm);
    }
}

fn the_fold_keeps_other_sections_and_gives_the_union_with(llvm: Llvm) {
    let Some(bytes) = linked(llvm) else { return };
    let elf = LinkedElf::parse(&bytes).expect("parses");
    assert_eq!(elf.notes().len(), 2);
    assert!(elf.single().is_none());
    assert!(PalElf::parse(&bytes).is_err(), "PalElf refuses two notes");
    let out = fold(&bytes).expect("folds");
    let folded = PalElf::parse(&out).expect("one note");
    let strings: Vec<String> = folded
        .format_strings()
        .expect("table")
        .expect("has a table")
        .entries
        .iter()
        .map(|e| e.string().to_owned())
        .collect();
    assert_eq!(strings.len(), 6, "{strings:?}");
    // Every section but .note keeps its offset, size and bytes.
    let before = elf.sections();
    let after = folded.sections();
    assert_eq!(before.len(), after.len());
    let mut compared = 0;
    for (old, new) in before.iter().zip(&after) {
        assert_eq!(old.name, new.name);
        if old.name == ".note" {
            assert!(new.size < old.size, "the fold shrinks .note");
            continue;
        }
        assert_eq!(
            (old.offset, old.size),
            (new.offset, new.size),
            "{}",
            old.name
        );
        assert_eq!(
            elf.section_bytes(old.index),
            folded.section_bytes(new.index),
            "{}",
            old.name
        );
        compared += 1;
    }
    assert!(compared >= 5, "{compared}");
}

/// Under LLVM 19 and LLVM 22 alike (3,000 rounds each: the fold is in process, milliseconds).
#[test]
fn no_corruption_of_the_notes_panics_or_writes_a_broken_file() {
    for llvm in Llvm::ALL {
        eprintln!("{llvm}");
        no_corruption_of_the_notes_panics_or_writes_a_broken_file_with(llvm);
    }
}

fn no_corruption_of_the_notes_panics_or_writes_a_broken_file_with(llvm: Llvm) {
    let Some(bytes) = linked(llvm) else { return };
    let elf = LinkedElf::parse(&bytes).expect("parses");
    let start = elf.notes()[0].note.start - 0x30;
    let end = elf.notes()[1].note.end;
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let (mut folded, mut refused) = (0, 0);
    for round in 0..3000 {
        let mut broken = bytes.clone();
        let at = start + (next() as usize) % (end - start);
        match round % 3 {
            0 => broken[at] ^= 1 << (next() % 8),
            1 => broken[at] = next() as u8,
            _ => {
                let word = (next() as u32).to_le_bytes();
                let at = at.min(broken.len() - 4);
                broken[at..at + 4].copy_from_slice(&word);
            }
        }
        match fold(&broken) {
            Ok(out) => {
                folded += 1;
                PalElf::parse(&out).unwrap_or_else(|e| {
                    panic!("round {round}: the fold wrote a file that does not parse: {e}")
                });
            }
            Err(message) => {
                refused += 1;
                assert!(!message.is_empty());
            }
        }
    }
    assert!(
        folded > 100 && refused > 100,
        "{folded} folded, {refused} refused"
    );
}
