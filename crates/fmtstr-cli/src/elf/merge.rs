//! `fmtstr merge`: combine the format-string tables of several PAL ELFs into a linked one, and
//! fold a linked file's metadata notes (one per linked object) into one.

use std::path::{Path, PathBuf};

use anyhow::bail;
use fmtstr_elf::{Document, KeyDifference, LinkedElf};
use fmtstr_meta::{Merger, OnCollision, Relation};

use super::Destination;
use crate::output::write_atomically;
use crate::Outcome;

/// The post-link step: fold BASE's metadata notes into one and merge INPUTs' tables into it.
///
/// BASE is the linked output. `ld.lld -r` and `ld.lld -shared` keep one NT_AMDGPU_METADATA
/// note per linked object; PAL reads one. merge folds them: the first note's document is the
/// base, the amdpal.format_strings tables of all notes merge, and every other top-level key of
/// a later note must equal the first note's (else exit 2 naming the key and both notes, or
/// --on-key-difference keep-base). The result has one metadata note; other notes and every
/// other section keep their bytes. Then the tables of INPUT files, if any, are merged in:
/// BASE's entries come first, then each INPUT's new entries in order.
///
/// Entries with the same ID and the same string, argument count and 64-bit mask become one.
/// The same ID with a different string is a collision: an error by default (exit 1,
/// nothing written); --on-collision keep-first keeps the entry seen first and warns. The same
/// ID and string with a different argument count or mask is a conflict, always an error: a
/// decoder would read one of the shaders' arguments wrongly whichever entry is kept. Tables
/// whose .user_data_offset differ conflict too (always an error, naming both). Shader-abort
/// message entries are kept. Only BASE's metadata notes change; every other section keeps its
/// bytes.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  ld.lld -shared vs.o ps.o -o pipeline.elf && fmtstr merge pipeline.elf --in-place
  fmtstr merge pipeline.elf vs.elf ps.elf -o pipeline.merged.elf
  fmtstr merge pipeline.elf vs.elf ps.elf --in-place
  fmtstr merge pipeline.elf a.elf b.elf --on-collision keep-first -o out.elf

Findings name both sources:
  fmtstr: error: ID 0x60281a928696 (105725360768662) collides: a.elf .strings[0] has \"x=%d\\n\"
  and b.elf .strings[0] has \"y=%d\\n\"")]
pub struct Args {
    /// The linked ELF that receives the combined table.
    #[arg(value_name = "BASE.elf")]
    base: PathBuf,
    /// The ELFs whose tables are added (none: only fold BASE's own notes).
    #[arg(value_name = "INPUT.elf")]
    inputs: Vec<PathBuf>,
    /// What to do when one ID has two different strings.
    #[arg(long, value_enum, default_value_t = Policy::Error)]
    on_collision: Policy,
    /// What to do when BASE's metadata notes disagree on a top-level key other than
    /// amdpal.format_strings (amdpal.pipelines, amdpal.version, ...).
    #[arg(long, value_enum, default_value_t = KeyPolicy::Error)]
    on_key_difference: KeyPolicy,
    #[command(flatten)]
    destination: Destination,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum KeyPolicy {
    /// Name the key and both notes, and write nothing (exit 2).
    Error,
    /// Keep the first note's value (or lack of the key) and warn.
    KeepBase,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Policy {
    /// Report the collision and write nothing (exit 1).
    Error,
    /// Keep the entry seen first (BASE before the inputs) and warn.
    KeepFirst,
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let policy = match args.on_collision {
        Policy::Error => OnCollision::Error,
        Policy::KeepFirst => OnCollision::KeepFirst,
    };
    let paths: Vec<&Path> = std::iter::once(args.base.as_path())
        .chain(args.inputs.iter().map(PathBuf::as_path))
        .collect();
    let target = args.destination.target(&args.base, &paths)?;
    let files: Vec<Vec<u8>> = paths
        .iter()
        .map(|path| super::read(path))
        .collect::<anyhow::Result<_>>()?;

    // Every metadata note of every file is a source: BASE's notes first (a linked BASE has
    // one per linked object), then each INPUT's.
    let mut sources = Sources {
        merger: Merger::new(),
        names: Vec::new(),
        any_table: false,
    };
    let (base, mut base_documents) = super::parse_linked(&args.base, &files[0])?;
    sources.add(&args.base, &base, &mut base_documents);
    for (path, bytes) in paths.iter().zip(&files).skip(1) {
        let (linked, mut documents) = super::parse_linked(path, bytes)?;
        sources.add(path, &linked, &mut documents);
    }
    let Sources {
        merger,
        names,
        any_table,
    } = sources;
    if base_documents.len() > 1 {
        check_keys(&args, &base, &base_documents)?;
    }
    let merged = merger.finish();
    for finding in &merged.findings {
        let level = if finding.is_error(policy) {
            "error"
        } else {
            "warning"
        };
        eprintln!("fmtstr: {level}: {}", finding.describe(&names));
    }
    for conflict in &merged.offset_conflicts {
        eprintln!("fmtstr: error: {}", conflict.describe(&names));
    }
    if merged.has_errors(policy) {
        eprintln!(
            "fmtstr: nothing written: {} finding(s); fix the inputs{}",
            merged.error_count(policy),
            if policy == OnCollision::Error
                && merged
                    .findings
                    .iter()
                    .any(|f| f.relation == Relation::Collision)
            {
                ", or pass --on-collision keep-first to keep the first string of each colliding ID"
            } else {
                ""
            }
        );
        return Ok(Outcome::Findings);
    }
    // A file with no table anywhere keeps its documents as they are (a fold still makes one
    // note of several).
    let table = any_table.then_some(&merged.table);
    let out = base
        .fold(base_documents.first(), table)
        .map_err(|error| anyhow::anyhow!("{}: {error}", args.base.display()))?;
    write_atomically(&target, &out)?;
    Ok(Outcome::Clean)
}

/// The merge's sources: every metadata note of every file, named by file (and note offset).
struct Sources<'f> {
    merger: Merger<'f>,
    names: Vec<String>,
    any_table: bool,
}

impl<'f> Sources<'f> {
    fn add(&mut self, path: &Path, linked: &LinkedElf<'f>, documents: &mut [Document<'f>]) {
        let several = documents.len() > 1;
        for (note, document) in linked.notes().iter().zip(documents.iter_mut()) {
            if let Some(table) = document.take_format_strings() {
                self.any_table = true;
                self.merger.add(self.names.len(), table);
            }
            self.names
                .push(super::note_name(path, several.then_some(note.note.start)));
        }
    }
}

/// The top-level keys of BASE's later notes must equal the first note's (which the folded
/// file keeps), unless --on-key-difference keep-base says to keep the first note's values.
fn check_keys(args: &Args, base: &LinkedElf<'_>, documents: &[Document<'_>]) -> anyhow::Result<()> {
    let file = args.base.display();
    let differences = LinkedElf::key_differences(documents)
        .map_err(|error| anyhow::anyhow!("{file}: {error}"))?;
    let first = base.notes()[0].note.start;
    let describe = |difference: &KeyDifference| {
        let at = base.notes()[difference.note].note.start;
        if difference.base_has_key {
            format!(
                "{file}: the metadata note at {at:#x} has a different `{}` than the first note \
                 at {first:#x}",
                difference.key
            )
        } else {
            format!(
                "{file}: the metadata note at {at:#x} has `{}`, which the first note at \
                 {first:#x} lacks",
                difference.key
            )
        }
    };
    match (differences.first(), args.on_key_difference) {
        (None, _) => Ok(()),
        (Some(_), KeyPolicy::KeepBase) => {
            for difference in &differences {
                eprintln!(
                    "fmtstr: warning: {}; the folded note keeps the first note's",
                    describe(difference)
                );
            }
            Ok(())
        }
        (Some(difference), KeyPolicy::Error) => bail!(
            "{}{}; nothing written. The folded file keeps one note, the first: make the linked \
             objects agree, or pass --on-key-difference keep-base to keep the first note's \
             top-level keys",
            describe(difference),
            if differences.len() > 1 {
                format!(" (and {} more differing keys)", differences.len() - 1)
            } else {
                String::new()
            }
        ),
    }
}
