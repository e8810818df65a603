//! Linked files: several NT_AMDGPU_METADATA notes, and folding them into one.
//!
//! `ld.lld -r` and `ld.lld -shared` concatenate the `.note` sections of their inputs, so a link
//! of N PAL objects carries N metadata notes (and N copies of any other note, such as
//! NT_AMD_HSA_ISA_NAME) in one `.note` section. PAL reads one. The post-link step folds them:
//! the first note's document is the base; the caller merges the format-string tables of all
//! notes (fmtstr-meta's rules) and decides what to do about other top-level keys that differ
//! ([`LinkedElf::key_differences`]); [`LinkedElf::fold`] then writes the base note with the
//! merged table in the first note's place and drops the later metadata notes. Every other note
//! keeps its bytes and order, and every other section keeps its bytes (the `.note` section
//! usually shrinks in place; when it grows, the sections after it move as in
//! [`PalElf::rewrite`]).

use fmtstr_meta::Table;
use rmpv::Value;

use crate::layout::{align_up, note_alignment, Layout};
use crate::{Document, DocumentError, ElfError, MetadataNote, PalElf, Result, SectionInfo};

/// A file with any number of metadata notes (zero, one, or one per linked input).
#[derive(Clone, Debug)]
pub struct LinkedElf<'a> {
    /// The file as a [`PalElf`] whose metadata note is the first one (the base).
    base: PalElf<'a>,
    notes: Vec<MetadataNote>,
}

/// A top-level key of a later note that the base note does not have with the same value.
#[derive(Clone, Debug, PartialEq)]
pub struct KeyDifference {
    /// The key, as text (a non-string key is shown as its msgpack value).
    pub key: String,
    /// The index of the later note in [`LinkedElf::notes`].
    pub note: usize,
    /// Whether the base has the key (with another value) or lacks it.
    pub base_has_key: bool,
}

impl<'a> LinkedElf<'a> {
    /// Parses the headers and finds every metadata note; documents are not decoded yet.
    pub fn parse(bytes: &'a [u8]) -> Result<LinkedElf<'a>> {
        let layout = Layout::parse(bytes)?;
        let notes = crate::metadata_notes(bytes, &layout)?;
        Ok(LinkedElf {
            base: PalElf {
                bytes,
                layout,
                metadata: notes.first().cloned(),
            },
            notes,
        })
    }

    /// The metadata notes in file order.
    pub fn notes(&self) -> &[MetadataNote] {
        &self.notes
    }

    /// The sections, in header order.
    pub fn sections(&self) -> Vec<SectionInfo> {
        self.base.sections()
    }

    /// The bytes of a section (empty for NOBITS).
    pub fn section_bytes(&self, index: usize) -> Option<&'a [u8]> {
        self.base.section_bytes(index)
    }

    /// The file as a [`PalElf`] when it has at most one metadata note.
    pub fn single(&self) -> Option<&PalElf<'a>> {
        (self.notes.len() <= 1).then_some(&self.base)
    }

    /// The checked and decoded document of note `index`; errors name the note's offset.
    pub fn document(&self, index: usize) -> Result<Document<'a>> {
        let note = &self.notes[index];
        let bytes = self.base.bytes;
        Document::parse(&bytes[note.desc.clone()]).map_err(|error| note.document_error(error))
    }

    /// Every note's document, in order; the first broken one is the error.
    pub fn documents(&self) -> Result<Vec<Document<'a>>> {
        (0..self.notes.len()).map(|i| self.document(i)).collect()
    }

    /// The top-level keys (other than `amdpal.format_strings`) of later notes that the base
    /// note (`documents[0]`) does not have with an equal value; `documents[i]` is note `i`'s
    /// [`LinkedElf::document`]. Values compare as msgpack values: the same number in another
    /// encoding width is equal.
    pub fn key_differences(&self, documents: &[Document<'_>]) -> Result<Vec<KeyDifference>> {
        let pairs = |index: usize| {
            top_level_pairs(&documents[index]).map_err(|error| match self.notes.get(index) {
                Some(note) => note.document_error(error),
                None => ElfError::CannotAddNote {
                    reason: format!(
                        "internal error: {} documents for {} metadata notes; please report it",
                        documents.len(),
                        self.notes.len()
                    ),
                },
            })
        };
        if documents.is_empty() {
            return Ok(Vec::new());
        }
        let base_pairs = pairs(0)?;
        let mut differences = Vec::new();
        for note in 1..documents.len() {
            for (key, value) in pairs(note)? {
                let in_base = base_pairs.iter().find(|(k, _)| *k == key);
                if in_base.is_some_and(|(_, v)| *v == value) {
                    continue;
                }
                differences.push(KeyDifference {
                    key: key
                        .as_str()
                        .map_or_else(|| key.to_string(), ToOwned::to_owned),
                    note,
                    base_has_key: in_base.is_some(),
                });
            }
        }
        Ok(differences)
    }

    /// The file with one metadata note: the base document (`base`, the first note's
    /// [`LinkedElf::document`]) with `table` as its format-string table, in the first note's
    /// place; later metadata notes are removed and everything between them keeps its bytes.
    /// A file with no note gets one, as [`PalElf::rewrite`] does.
    /// With `table` `None` the base document keeps all its bytes (no note had a table).
    pub fn fold(&self, base: Option<&Document<'_>>, table: Option<&Table<'_>>) -> Result<Vec<u8>> {
        if self.notes.len() <= 1 {
            return match table {
                Some(table) => self.base.rewrite(base, table),
                None => Ok(self.base.bytes.to_vec()),
            };
        }
        let first = &self.notes[0];
        if let Some(other) = self.notes.iter().find(|n| n.section != first.section) {
            let label = |n: &MetadataNote| self.base.layout.sections[n.section].label();
            return Err(ElfError::CannotAddNote {
                reason: format!(
                    "the metadata notes are in two sections ({} and {}); fmtstr folds notes of \
                     one note section only (link with one .note output section)",
                    label(first),
                    label(other)
                ),
            });
        }
        let Some(base) = base else {
            return Err(ElfError::CannotAddNote {
                reason: "internal error: fold needs the first note's document; please report it"
                    .into(),
            });
        };
        let bytes = self.base.bytes;
        let section = &self.base.layout.sections[first.section];
        let align = note_alignment(section);
        let desc_len = table.map_or(base.bytes().len(), |table| base.len_with(table));
        let head = &bytes[first.note.start..first.desc.start];
        let gaps: Vec<std::ops::Range<usize>> = self
            .notes
            .windows(2)
            .map(|pair| pair[0].note.end..pair[1].note.start)
            .collect();
        let new_len =
            head.len() + align_up(desc_len, align) + gaps.iter().map(|g| g.len()).sum::<usize>();
        let last = &self.notes[self.notes.len() - 1];
        let out = self.base.replace_in_section(
            section,
            first.note.start..last.note.end,
            new_len,
            |out| {
                let at = out.len();
                out.extend_from_slice(head);
                out[at + 4..at + 8].copy_from_slice(&(desc_len as u32).to_le_bytes());
                match table {
                    Some(table) => base.write_with(table, out),
                    None => out.extend_from_slice(base.bytes()),
                }
                out.resize(at + head.len() + align_up(desc_len, align), 0);
                for gap in &gaps {
                    out.extend_from_slice(&bytes[gap.clone()]);
                }
            },
        )?;
        let check = PalElf::parse(&out).map_err(|error| ElfError::CannotAddNote {
            reason: format!(
                "internal error, the folded file does not parse ({error}); please report it"
            ),
        })?;
        debug_assert_eq!(check.metadata_note().map(|n| n.desc.len()), Some(desc_len));
        Ok(out)
    }
}

/// The top-level pairs other than the format-string table (whose value is skipped).
fn top_level_pairs(document: &Document<'_>) -> Result<Vec<(Value, Value)>, DocumentError> {
    let is_table = |key: &Value| key.as_str() == Some(fmtstr_meta::table::KEY);
    Ok(document
        .top_level_pairs(is_table)?
        .into_iter()
        .filter_map(|(key, value)| Some((key, value?)))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A top-level key that does not decode (which [`Document::parse`] lets no document have)
    /// is reported at its offset in the file, not in the document.
    #[test]
    fn a_key_that_does_not_decode_is_reported_at_its_file_offset() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples/pal/compute.elf");
        let bytes = std::fs::read(path).expect("the sample reads");
        let elf = LinkedElf::parse(&bytes).expect("the sample parses");
        let document = elf.document(0).expect("its document parses");
        let desc_at = elf.notes()[0].desc.start as u64;
        // A map of fewer than 16 pairs has a one-byte header, so its first key is the
        // document's byte 1; 0xc1 is the one byte msgpack never uses.
        assert_eq!(document.bytes()[0] & 0xf0, 0x80, "a fixmap");
        let mut broken = document.bytes().to_vec();
        broken[1] = 0xc1;
        let error = elf
            .key_differences(&[document.over(&broken)])
            .expect_err("0xc1 is no key");
        let ElfError::Metadata {
            desc_at: at,
            offset,
            error,
        } = &error
        else {
            panic!("not a metadata error: {error:?}");
        };
        assert_eq!((*at, *offset, error.offset()), (desc_at, desc_at + 1, 1));
        assert!(
            error.to_string().contains("0xc1"),
            "the message says what is wrong: {error}"
        );
    }
}
