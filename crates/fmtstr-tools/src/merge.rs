//! The post-link step and table merges: fold a linked image's metadata notes (one per linked
//! object) into one and merge other images' format-string tables into it, as `fmtstr merge`
//! does.
//!
//! The base is the linked output. `ld.lld -r` and `ld.lld -shared` keep one NT_AMDGPU_METADATA
//! note per linked object; PAL reads one. The first note's document is the base, the
//! amdpal.format_strings tables of all notes merge, and every other top-level key of a later
//! note must equal the first note's (else an error naming the key and both notes, or
//! [`OnKeyDifference::KeepBase`]). The result has one metadata note; other notes and every
//! other section keep their bytes. Then the inputs' tables, if any, are merged in: the base's
//! entries come first, then each input's new entries in order.
//!
//! Entries with the same ID and the same string, argument count and 64-bit mask become one.
//! The same ID with a different string is a collision (refused unless
//! [`OnCollision::KeepFirst`]); the same ID and string with a different argument count or
//! mask is a conflict, always refused; so are tables whose .user_data_offset differ.

use fmtstr_elf::{Document, KeyDifference, LinkedElf};
pub use fmtstr_meta::OnCollision;
use fmtstr_meta::{Merger, Relation};

use crate::{Error, Source};

/// What to do when the base's metadata notes disagree on a top-level key other than
/// amdpal.format_strings (amdpal.pipelines, amdpal.version, ...).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OnKeyDifference {
    /// Name the key and both notes, and write nothing (an [`Error`]).
    #[default]
    Error,
    /// Keep the first note's value (or lack of the key) and warn.
    KeepBase,
}

/// How to merge.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// One ID with two strings: refuse the merge (the default), or keep the first and warn.
    pub on_collision: OnCollision,
    /// The base's notes disagree on another top-level key: an error (the default), or keep
    /// the first note's value and warn.
    pub on_key_difference: OnKeyDifference,
}

/// A merge that ran: the new image, or none when findings refused it.
#[derive(Debug)]
pub struct Merged {
    /// The merged image; `None` when collisions or conflicts refused the merge.
    pub image: Option<Vec<u8>>,
    /// What `fmtstr merge` prints on stderr, one line each (`fmtstr: warning: ...`,
    /// `fmtstr: error: ...`, and when refused `fmtstr: nothing written: ...`).
    pub messages: Vec<String>,
}

/// Merges `inputs`' tables into `base` (see the module documentation).
pub fn merge(base: &Source<'_>, inputs: &[Source<'_>], options: &Options) -> Result<Merged, Error> {
    let policy = options.on_collision;
    let sources_in: Vec<&Source<'_>> = std::iter::once(base).chain(inputs).collect();
    let files = sources_in
        .iter()
        .map(|source| source.read())
        .collect::<Result<Vec<_>, Error>>()?;
    let mut messages = Vec::new();

    // Every metadata note of every file is a source: the base's notes first (a linked base
    // has one per linked object), then each input's.
    let mut sources = Sources {
        merger: Merger::new(),
        names: Vec::new(),
        any_table: false,
    };
    let (base_elf, mut base_documents) = crate::parse_linked(base, &files[0])?;
    sources.add(base, &base_elf, &mut base_documents);
    for (source, bytes) in sources_in.iter().zip(&files).skip(1) {
        let (linked, mut documents) = crate::parse_linked(source, bytes)?;
        sources.add(source, &linked, &mut documents);
    }
    let Sources {
        merger,
        names,
        any_table,
    } = sources;
    if base_documents.len() > 1 {
        check_keys(base, options, &base_elf, &base_documents, &mut messages)?;
    }
    let merged = merger.finish();
    for finding in &merged.findings {
        let level = if finding.is_error(policy) {
            "error"
        } else {
            "warning"
        };
        messages.push(format!("fmtstr: {level}: {}", finding.describe(&names)));
    }
    for conflict in &merged.offset_conflicts {
        messages.push(format!("fmtstr: error: {}", conflict.describe(&names)));
    }
    if merged.has_errors(policy) {
        messages.push(format!(
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
        ));
        return Ok(Merged {
            image: None,
            messages,
        });
    }
    // A file with no table anywhere keeps its documents as they are (a fold still makes one
    // note of several).
    let table = any_table.then_some(&merged.table);
    let image = base_elf
        .fold(base_documents.first(), table)
        .map_err(|error| Error::input(format!("{}: {error}", base.name())))?;
    Ok(Merged {
        image: Some(image),
        messages,
    })
}

/// The merge's sources: every metadata note of every file, named by file (and note offset).
struct Sources<'f> {
    merger: Merger<'f>,
    names: Vec<String>,
    any_table: bool,
}

impl<'f> Sources<'f> {
    fn add(&mut self, source: &Source<'_>, linked: &LinkedElf<'f>, documents: &mut [Document<'f>]) {
        let several = documents.len() > 1;
        for (note, document) in linked.notes().iter().zip(documents.iter_mut()) {
            if let Some(table) = document.take_format_strings() {
                self.any_table = true;
                self.merger.add(self.names.len(), table);
            }
            self.names
                .push(crate::note_name(source, several.then_some(note.note.start)));
        }
    }
}

/// The top-level keys of the base's later notes must equal the first note's (which the folded
/// file keeps), unless [`OnKeyDifference::KeepBase`] says to keep the first note's values.
fn check_keys(
    source: &Source<'_>,
    options: &Options,
    base: &LinkedElf<'_>,
    documents: &[Document<'_>],
    messages: &mut Vec<String>,
) -> Result<(), Error> {
    let file = source.name();
    let differences = base
        .key_differences(documents)
        .map_err(|error| Error::input(format!("{file}: {error}")))?;
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
    match (differences.first(), options.on_key_difference) {
        (None, _) => Ok(()),
        (Some(_), OnKeyDifference::KeepBase) => {
            for difference in &differences {
                messages.push(format!(
                    "fmtstr: warning: {}; the folded note keeps the first note's",
                    describe(difference)
                ));
            }
            Ok(())
        }
        (Some(difference), OnKeyDifference::Error) => Err(Error::input(format!(
            "{}{}; nothing written. The folded file keeps one note, the first: make the linked \
             objects agree, or pass --on-key-difference keep-base to keep the first note's \
             top-level keys",
            describe(difference),
            if differences.len() > 1 {
                format!(" (and {} more differing keys)", differences.len() - 1)
            } else {
                String::new()
            }
        ))),
    }
}
