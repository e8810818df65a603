//! ELF notes for AMDGPU PAL metadata.
//!
//! [`PalElf::parse`] reads a little-endian ELF32 or ELF64 file's headers and notes with the
//! `object` crate and finds the `NT_AMDGPU_METADATA` note (owner `AMDGPU`, type 32) in its
//! SHT_NOTE sections; [`PalElf::document`] decodes its
//! msgpack document, checking every value without trusting any length and decoding the
//! `amdpal.format_strings` table; [`PalElf::rewrite`] produces a new file in which only that
//! note changed:
//!
//! - the document keeps every byte outside the table's value;
//! - every other section keeps its bytes. A note section that grows moves the sections after it
//!   (PAL's `.note` is not SHF_ALLOC and sits among the non-loaded sections at the end of the
//!   file); when that is impossible the section is moved to the end of the file instead;
//! - a note inside a loaded segment is rewritten in place when the new note fits, and is an
//!   error otherwise;
//! - a file without the note gets it in its non-loaded `.note` section, or in a new `.note`
//!   section.
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let bytes = std::fs::read("shader.elf")?;
//! let elf = fmtstr_elf::PalElf::parse(&bytes)?;
//! if let Some(table) = elf.format_strings()? {
//!     for entry in &table.entries {
//!         println!("{:#} {}", entry.id(), entry.string());
//!     }
//! }
//! # Ok(()) }
//! ```
//!
//! Why not `object::build::elf::Builder`: it lays the whole file out anew and regenerates the
//! string and symbol tables, so sections such as `.strtab` (which llc shares between section
//! and symbol names) would not keep their bytes. A writer that only moves what follows the note
//! keeps them.

#![warn(missing_docs)]

mod document;
mod fold;
pub mod hsa;
mod layout;

use std::ops::Range;

pub use document::{new_document_len, write_new_document, Document, DocumentError};
pub use fmtstr_meta::{Entry, Table};
pub use fold::{KeyDifference, LinkedElf};
pub use layout::Class;

use layout::{align_up, checked_range, name_is, note_alignment, put, Layout, Section};

/// The note type of AMDGPU metadata.
pub const NT_AMDGPU_METADATA: u32 = 32;
/// The owner of AMDGPU metadata notes.
pub const NOTE_OWNER: &[u8] = b"AMDGPU";

/// What is wrong with an ELF file, or why it cannot be rewritten. Messages say where (file
/// offsets in hex) and what would fix it; the caller prefixes the file name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ElfError {
    /// The file does not start with the ELF magic bytes.
    #[error(
        "is not an ELF file: it does not start with 7f 45 4c 46 (\\x7fELF) but with [{start}]"
    )]
    NotElf {
        /// Its first bytes (up to 4), in hex separated by spaces.
        start: String,
    },
    /// The file ends before a header or header table that its headers say is there.
    #[error("is truncated: {what} needs {needed} bytes but the file has {len}")]
    Truncated {
        /// What was being read, with its file offset where it has one.
        what: String,
        /// The file size in bytes that reading it needs (its end offset).
        needed: u64,
        /// The file's size in bytes.
        len: u64,
    },
    /// The file is big-endian (EI_DATA = 2).
    #[error(
        "is big-endian (EI_DATA = 2); AMDGPU code objects are little-endian and fmtstr reads \
         only little-endian ELF files"
    )]
    BigEndian,
    /// A header field or note has a value no valid ELF file has (bad EI_CLASS, EI_VERSION,
    /// entry sizes, a note section ending in a partial note, ...).
    #[error("is malformed at offset {offset:#x}: {message}")]
    Malformed {
        /// File offset of the field or note at fault.
        offset: u64,
        /// What is wrong there and what it should be.
        message: String,
    },
    /// A section that occupies file bytes reaches past the end of the file.
    #[error(
        "is truncated or corrupt: {section} at offset {offset:#x} with size {size:#x} runs past \
         the end of the file ({len:#x} bytes)"
    )]
    SectionPastEnd {
        /// The section, as `section [N]`.
        section: String,
        /// Its `sh_offset`.
        offset: u64,
        /// Its `sh_size`, in bytes.
        size: u64,
        /// The file's size in bytes.
        len: u64,
    },
    /// A note's header gives name and descriptor sizes that run past its section's end.
    #[error(
        "has a corrupt note size: the note at offset {offset:#x} in {section} (name size \
         {namesz}, descriptor size {descsz}) runs past the section's end at {section_end:#x}"
    )]
    NotePastEnd {
        /// The note section, as `section [N] name`.
        section: String,
        /// File offset of the note's header.
        offset: u64,
        /// The header's `n_namesz`, in bytes.
        namesz: u64,
        /// The header's `n_descsz`, in bytes.
        descsz: u64,
        /// File offset just past the section.
        section_end: u64,
    },
    /// The file has more than one `NT_AMDGPU_METADATA` note, as a link of several objects
    /// leaves; [`LinkedElf`] reads and folds such files.
    #[error(
        "has {} NT_AMDGPU_METADATA notes (at offsets {}), one per linked object; PAL reads one: \
         fold them first with `fmtstr merge FILE --in-place` (the post-link step)",
        .offsets.len(),
        .offsets.iter().map(|o| format!("{o:#x}")).collect::<Vec<_>>().join(", ")
    )]
    SeveralMetadataNotes {
        /// File offset of each note's header, in file order.
        offsets: Vec<u64>,
    },
    /// The metadata note's msgpack document is broken ([`Document::parse`] refused it, or a
    /// top-level key or value in it does not decode).
    #[error(
        "has broken PAL metadata: in the NT_AMDGPU_METADATA note whose msgpack starts at offset \
         {desc_at:#x}, at file offset {offset:#x}: {error}"
    )]
    Metadata {
        /// File offset of the note's descriptor, where the document starts.
        desc_at: u64,
        /// File offset of the problem.
        offset: u64,
        /// The problem, with offsets counted from the document's start.
        error: DocumentError,
    },
    /// The note is in a loaded section (SHF_ALLOC or inside a segment), which cannot move,
    /// and the new note does not fit in it.
    #[error(
        "cannot be rewritten: {section} is loaded (SHF_ALLOC or inside a segment) and its \
         metadata note would grow from {old} to {new} bytes; fmtstr rewrites a loaded note only \
         in place (write fewer strings, or re-link with room in the note)"
    )]
    LoadedNoteGrows {
        /// The note section, as `section [N] name`.
        section: String,
        /// The section's size in bytes now.
        old: u64,
        /// The size in bytes the section would need.
        new: u64,
    },
    /// The metadata note cannot be written anywhere, or several notes cannot be folded into
    /// one: no section header table or section-name table to add a `.note` section with,
    /// extended section numbering, a loaded section that shares bytes with the headers,
    /// notes in two sections. Also an internal error when the new file does not parse.
    #[error("cannot get a metadata note: {reason}")]
    CannotAddNote {
        /// Why, as a sentence for the message.
        reason: String,
    },
    /// An ELF32 file would grow past 4 GiB, beyond what its 32-bit offsets can address.
    #[error("cannot be rewritten: the result ({size} bytes) does not fit ELF32's 32-bit offsets")]
    TooLarge {
        /// The rewritten file's size in bytes.
        size: u64,
    },
}

/// A result whose error is, unless named, an [`ElfError`].
pub type Result<T, E = ElfError> = std::result::Result<T, E>;

/// Where the metadata note lives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MetadataNote {
    /// Index of its section.
    pub section: usize,
    /// File range of the whole note (header, name, descriptor and padding).
    pub note: Range<usize>,
    /// File range of the descriptor: the msgpack document.
    pub desc: Range<usize>,
}

impl MetadataNote {
    /// `error`, found in this note's document, as the error for the file: with the
    /// descriptor's file offset and the problem's, which [`DocumentError::offset`] counts
    /// from the document's start.
    pub(crate) fn document_error(&self, error: DocumentError) -> ElfError {
        ElfError::Metadata {
            desc_at: self.desc.start as u64,
            offset: (self.desc.start + error.offset()) as u64,
            error,
        }
    }
}

/// A parsed ELF file with its PAL metadata note located.
#[derive(Clone, Debug)]
pub struct PalElf<'a> {
    bytes: &'a [u8],
    layout: Layout,
    metadata: Option<MetadataNote>,
}

/// A section as `[index] name offset size`, for tools that compare layouts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SectionInfo {
    /// Its index in the section header table.
    pub index: usize,
    /// Its name from the section-name table (lossy UTF-8; empty when the file has no usable
    /// name table).
    pub name: String,
    /// Its `sh_type` (SHT_NOTE is 7, SHT_NOBITS 8).
    pub sh_type: u32,
    /// Its `sh_offset`: where its bytes start in the file.
    pub offset: u64,
    /// Its `sh_size`, in bytes (a NOBITS section has none in the file).
    pub size: u64,
}

impl<'a> PalElf<'a> {
    /// Parses the headers and finds the metadata note; the document is not decoded yet.
    pub fn parse(bytes: &'a [u8]) -> Result<PalElf<'a>> {
        let layout = Layout::parse(bytes)?;
        let mut found = metadata_notes(bytes, &layout)?;
        if found.len() > 1 {
            return Err(ElfError::SeveralMetadataNotes {
                offsets: found.iter().map(|n| n.note.start as u64).collect(),
            });
        }
        Ok(PalElf {
            bytes,
            layout,
            metadata: found.pop(),
        })
    }

    /// The file's bytes.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Whether the file is ELF32 or ELF64 (a rewrite keeps the class).
    pub fn class(&self) -> Class {
        self.layout.class
    }

    /// The sections, in header order.
    pub fn sections(&self) -> Vec<SectionInfo> {
        self.layout
            .sections
            .iter()
            .map(|s| SectionInfo {
                index: s.index,
                name: s.name.clone(),
                sh_type: s.sh_type,
                offset: s.offset,
                size: s.size,
            })
            .collect()
    }

    /// The bytes of a section (empty for NOBITS).
    pub fn section_bytes(&self, index: usize) -> Option<&'a [u8]> {
        let section = self.layout.sections.get(index)?;
        if !section.has_bytes() {
            return Some(&[]);
        }
        Some(&self.bytes[section.offset as usize..(section.offset + section.size) as usize])
    }

    /// Where the metadata note is, if the file has one.
    pub fn metadata_note(&self) -> Option<&MetadataNote> {
        self.metadata.as_ref()
    }

    /// The raw msgpack document of the metadata note.
    pub fn metadata(&self) -> Option<&'a [u8]> {
        self.metadata
            .as_ref()
            .map(|note| &self.bytes[note.desc.clone()])
    }

    /// The checked and decoded metadata document, if the file has one.
    pub fn document(&self) -> Result<Option<Document<'a>>> {
        let Some(note) = &self.metadata else {
            return Ok(None);
        };
        Document::parse(&self.bytes[note.desc.clone()])
            .map(Some)
            .map_err(|error| note.document_error(error))
    }

    /// The format-string table, if the file has metadata with one.
    pub fn format_strings(&self) -> Result<Option<Table<'a>>> {
        Ok(self
            .document()?
            .and_then(|mut doc| doc.take_format_strings()))
    }

    /// The file with its format-string table replaced by `table` (decoding the document).
    pub fn with_format_strings(&self, table: &Table<'_>) -> Result<Vec<u8>> {
        let document = self.document()?;
        self.rewrite(document.as_ref(), table)
    }

    /// The file with its format-string table replaced by `table`. `document` must be
    /// [`PalElf::document`]'s result for this file.
    pub fn rewrite(&self, document: Option<&Document<'_>>, table: &Table<'_>) -> Result<Vec<u8>> {
        let desc_len = match document {
            Some(document) => document.len_with(table),
            None => new_document_len(table),
        };
        let write_desc = |out: &mut Vec<u8>| match document {
            Some(document) => document.write_with(table, out),
            None => write_new_document(table, out),
        };
        let out = match &self.metadata {
            Some(note) => {
                let section = &self.layout.sections[note.section];
                let align = note_alignment(section);
                // The header and name stay; the descriptor size changes.
                let head = &self.bytes[note.note.start..note.desc.start];
                let new_len = head.len() + align_up(desc_len, align);
                self.replace_in_section(section, note.note.clone(), new_len, |out| {
                    let at = out.len();
                    out.extend_from_slice(head);
                    out[at + 4..at + 8].copy_from_slice(&(desc_len as u32).to_le_bytes());
                    write_desc(out);
                    out.resize(at + new_len, 0);
                })?
            }
            None => {
                let new_len = note_len(desc_len);
                let write_note = |out: &mut Vec<u8>| {
                    let at = out.len();
                    out.extend_from_slice(&7u32.to_le_bytes());
                    out.extend_from_slice(&(desc_len as u32).to_le_bytes());
                    out.extend_from_slice(&NT_AMDGPU_METADATA.to_le_bytes());
                    out.extend_from_slice(b"AMDGPU\0\0");
                    write_desc(out);
                    out.resize(at + new_len, 0);
                };
                match self.spare_note_section() {
                    Some(section) => {
                        let end = (section.offset + section.size) as usize;
                        self.replace_in_section(section, end..end, new_len, write_note)?
                    }
                    None => self.add_note_section(new_len, write_note)?,
                }
            }
        };
        if self.layout.class == Class::Elf32 && out.len() as u64 > u64::from(u32::MAX) {
            return Err(ElfError::TooLarge {
                size: out.len() as u64,
            });
        }
        // A cheap check of the new layout before anyone writes it.
        let check = PalElf::parse(&out).map_err(|error| ElfError::CannotAddNote {
            reason: format!(
                "internal error, the rewritten file does not parse ({error}); please report it"
            ),
        })?;
        debug_assert_eq!(
            check.metadata.as_ref().map(|n| n.desc.len()),
            Some(desc_len)
        );
        Ok(out)
    }

    /// A non-loaded SHT_NOTE section named `.note` that a new note can be appended to.
    fn spare_note_section(&self) -> Option<&Section> {
        self.layout.sections.iter().find(|s| {
            s.sh_type == layout::SHT_NOTE
                && s.name == ".note"
                && !self.is_loaded(s)
                && s.offset != 0
                // An empty section's offset is not checked when the file is read; appending
                // there needs it inside the file.
                && s.offset <= self.bytes.len() as u64
                // Readers (object, LLVM, binutils) align a note's fields from the start of its
                // section, and a note at a misaligned file offset is misaligned in memory:
                // both must be aligned for the new note.
                && s.offset % note_alignment(s) as u64 == 0
                && s.size % note_alignment(s) as u64 == 0
        })
    }

    fn is_loaded(&self, section: &Section) -> bool {
        let start = section.offset;
        let end = section.offset + section.size;
        section.flags & layout::SHF_ALLOC != 0
            || self.layout.segments.iter().any(|p| {
                p.filesz > 0
                    && p.offset < end.max(start + 1)
                    && start < p.offset.saturating_add(p.filesz)
            })
    }

    /// The file with `range` (inside `section`) replaced by `new_len` bytes from `write`.
    fn replace_in_section(
        &self,
        section: &Section,
        range: Range<usize>,
        new_len: usize,
        write: impl FnOnce(&mut Vec<u8>),
    ) -> Result<Vec<u8>> {
        let bytes = self.bytes;
        let class = self.layout.class;
        let fields = class.fields();
        let start = section.offset as usize;
        let end = start + section.size as usize;
        let old_size = section.size;
        let new_size = old_size - range.len() as u64 + new_len as u64;
        let write_section = |out: &mut Vec<u8>| {
            out.extend_from_slice(&bytes[start..range.start]);
            write(out);
            out.extend_from_slice(&bytes[range.end..end]);
        };
        // Rewriting such a section where it is would rewrite the headers too.
        let holds_headers = self.layout.headers_overlap(start as u64, end as u64);

        if new_size <= old_size && !holds_headers {
            // In place: the rest of the old section becomes zeros.
            let mut out = Vec::with_capacity(bytes.len());
            out.extend_from_slice(&bytes[..start]);
            write_section(&mut out);
            out.resize(end, 0);
            out.extend_from_slice(&bytes[end..]);
            put(&mut out, section.header_at, fields.sh_size, new_size);
            for segment in &self.layout.segments {
                if segment.p_type == layout::PT_NOTE
                    && segment.offset == section.offset
                    && segment.filesz == old_size
                {
                    put(&mut out, segment.header_at, fields.p_filesz, new_size);
                    if segment.memsz == old_size {
                        put(&mut out, segment.header_at, fields.p_memsz, new_size);
                    }
                }
            }
            return Ok(out);
        }
        if self.is_loaded(section) && holds_headers {
            return Err(ElfError::CannotAddNote {
                reason: format!(
                    "{} shares bytes with the ELF headers and is loaded, so it can neither \
                     change in place nor move",
                    section.label()
                ),
            });
        }
        if self.is_loaded(section) {
            return Err(ElfError::LoadedNoteGrows {
                section: section.label(),
                old: old_size,
                new: new_size,
            });
        }

        let delta = new_size.saturating_sub(old_size) as usize;
        let later: Vec<&Section> = self
            .layout
            .sections
            .iter()
            // An empty section may claim any offset, even past the end of the file: there is
            // nothing of it to move, and its offset plus the shift could overflow.
            .filter(|s| {
                s.index != section.index
                    && s.offset >= end as u64
                    && s.offset != 0
                    && s.offset <= bytes.len() as u64
            })
            .collect();
        let overlapping = self.layout.sections.iter().any(|s| {
            s.index != section.index
                && s.has_bytes()
                && s.offset > start as u64
                && s.offset < end as u64
        });
        let segment_after = self
            .layout
            .segments
            .iter()
            .any(|p| p.filesz > 0 && p.offset.saturating_add(p.filesz) > start as u64);
        let headers_after = self.layout.phoff >= end as u64 && !self.layout.segments.is_empty();
        let mut max_align = if self.layout.shoff >= end as u64 {
            class.word() as u64
        } else {
            1
        };
        let mut odd_alignment = false;
        for s in &later {
            let align = s.align.max(1);
            odd_alignment |= !align.is_power_of_two() || align > 1 << 16;
            max_align = max_align.max(align);
        }

        if overlapping || holds_headers || segment_after || headers_after || odd_alignment {
            // Move the section to the end of the file; its old bytes stay where they were,
            // unreferenced.
            let mut out = Vec::with_capacity(bytes.len() + new_size as usize + 16);
            out.extend_from_slice(bytes);
            // A power of two, so that the note's fields land aligned whatever sh_addralign says.
            let align = (section.align.clamp(4, 4096) as usize).next_power_of_two();
            out.resize(align_up(out.len(), align), 0);
            let new_offset = out.len() as u64;
            write_section(&mut out);
            put(&mut out, section.header_at, fields.sh_offset, new_offset);
            put(&mut out, section.header_at, fields.sh_size, new_size);
            return Ok(out);
        }

        // Shift everything after the section by `shift`, a multiple of every later alignment.
        let shift = align_up(delta, max_align as usize);
        let mut out = Vec::with_capacity(bytes.len() + shift);
        out.extend_from_slice(&bytes[..start]);
        write_section(&mut out);
        out.resize(end + shift, 0);
        out.extend_from_slice(&bytes[end..]);
        let shoff = if self.layout.shoff >= end as u64 {
            let moved = self.layout.shoff + shift as u64;
            put(&mut out, 0, fields.e_shoff, moved);
            moved as usize
        } else {
            self.layout.shoff as usize
        };
        let header_at = |s: &Section| shoff + s.index * self.layout.shentsize;
        put(&mut out, header_at(section), fields.sh_size, new_size);
        for s in later {
            put(
                &mut out,
                header_at(s),
                fields.sh_offset,
                s.offset + shift as u64,
            );
        }
        Ok(out)
    }

    /// The file with a new `.note` section holding one note, and a new section header table.
    fn add_note_section(
        &self,
        note_len: usize,
        write_note: impl FnOnce(&mut Vec<u8>),
    ) -> Result<Vec<u8>> {
        let layout = &self.layout;
        let fields = layout.class.fields();
        if layout.shoff == 0 || layout.sections.is_empty() {
            return Err(ElfError::CannotAddNote {
                reason: "the file has no section header table to add a .note section to".into(),
            });
        }
        if layout.section_count_is_full() {
            return Err(ElfError::CannotAddNote {
                reason:
                    "the file uses extended section numbering; fmtstr does not add sections to it"
                        .into(),
            });
        }
        let Some(strtab) = layout
            .sections
            .get(layout.shstrndx)
            .filter(|s| s.has_bytes())
        else {
            return Err(ElfError::CannotAddNote {
                reason: "the file has no section-name string table (e_shstrndx)".into(),
            });
        };
        let names = &self.bytes[strtab.offset as usize..(strtab.offset + strtab.size) as usize];
        let mut out = Vec::with_capacity(
            self.bytes.len()
                + note_len
                + names.len()
                + 64
                + (layout.sections.len() + 1) * layout.shentsize,
        );
        out.extend_from_slice(self.bytes);
        out.resize(align_up(out.len(), 4), 0);
        let note_at = out.len();
        write_note(&mut out);
        // Reuse ".note\0" if the string table has it (as a name or a suffix of one).
        let existing = names.windows(6).position(|w| w == b".note\0");
        let (name_offset, new_strtab) = match existing {
            Some(at) => (at, None),
            None => {
                let at = out.len();
                out.extend_from_slice(names);
                let name_offset = out.len() - at;
                out.extend_from_slice(b".note\0");
                (name_offset, Some((at, out.len() - at)))
            }
        };
        out.resize(align_up(out.len(), layout.class.word()), 0);
        let shoff = out.len();
        let table_len = layout.sections.len() * layout.shentsize;
        let old_table = checked_range(layout.shoff, table_len as u64, self.bytes.len())
            .ok_or_else(|| ElfError::CannotAddNote {
                reason: "the section header table is not inside the file".into(),
            })?;
        out.extend_from_slice(&self.bytes[old_table]);
        let new_header = out.len();
        out.resize(new_header + layout.shentsize, 0);
        put(&mut out, new_header, fields.sh_name, name_offset as u64);
        put(
            &mut out,
            new_header,
            fields.sh_type,
            u64::from(layout::SHT_NOTE),
        );
        put(&mut out, new_header, fields.sh_offset, note_at as u64);
        put(&mut out, new_header, fields.sh_size, note_len as u64);
        put(&mut out, new_header, fields.sh_addralign, 4);
        if let Some((at, len)) = new_strtab {
            let strtab_header = shoff + layout.shstrndx * layout.shentsize;
            put(&mut out, strtab_header, fields.sh_offset, at as u64);
            put(&mut out, strtab_header, fields.sh_size, len as u64);
        }
        put(&mut out, 0, fields.e_shoff, shoff as u64);
        put(
            &mut out,
            0,
            fields.e_shnum,
            layout.sections.len() as u64 + 1,
        );
        Ok(out)
    }
}

/// Every NT_AMDGPU_METADATA note of the file's SHT_NOTE sections, in file order of sections
/// (header order) and of notes within a section.
fn metadata_notes(bytes: &[u8], layout: &Layout) -> Result<Vec<MetadataNote>> {
    let mut found: Vec<MetadataNote> = Vec::new();
    for section in layout
        .sections
        .iter()
        .filter(|s| s.sh_type == layout::SHT_NOTE && s.has_bytes())
    {
        for note in layout.notes(bytes, section)? {
            if note.n_type == NT_AMDGPU_METADATA && name_is(note.name, NOTE_OWNER) {
                found.push(MetadataNote {
                    section: section.index,
                    note: note.start..note.end,
                    desc: note.desc_at..note.desc_at + note.desc.len(),
                });
            }
        }
    }
    Ok(found)
}

/// The size of a new `AMDGPU` note with a descriptor of `desc_len` bytes.
fn note_len(desc_len: usize) -> usize {
    12 + 8 + align_up(desc_len, 4)
}
