//! The parts of an ELF file fmtstr reads and patches: the header, section headers, program
//! headers and notes, little-endian ELF32 and ELF64. Reading goes through the `object` crate;
//! this module turns object's terse errors into messages with file offsets, and keeps the
//! positions of the header fields that the writer patches in place.

use std::mem::{offset_of, size_of};

use object::elf::{self, FileHeader32, FileHeader64, NoteHeader32, ProgramHeader64};
use object::read::elf::{FileHeader, NoteIterator, ProgramHeader as _, SectionHeader as _};
use object::LittleEndian as LE;

use crate::{ElfError, Result};

pub const SHT_NOBITS: u32 = elf::SHT_NOBITS;
pub const SHT_NOTE: u32 = elf::SHT_NOTE;
pub const SHF_ALLOC: u64 = elf::SHF_ALLOC as u64;
pub const PT_NOTE: u32 = elf::PT_NOTE;
const SHN_LORESERVE: u64 = elf::SHN_LORESERVE as u64;
/// A note's header (namesz, descsz, type), in both classes.
const NOTE_HEADER: usize = size_of::<NoteHeader32<LE>>();

/// ELF32 or ELF64.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// EI_CLASS 1: 32-bit offsets and addresses.
    Elf32,
    /// EI_CLASS 2: 64-bit offsets and addresses (what AMDGPU compilers write).
    Elf64,
}

impl Class {
    /// The size of the ELF file header in bytes: 52 or 64.
    pub fn header_size(self) -> usize {
        match self {
            Class::Elf32 => size_of::<FileHeader32<LE>>(),
            Class::Elf64 => size_of::<FileHeader64<LE>>(),
        }
    }

    /// The size of one section header in bytes: 40 or 64.
    pub fn section_header_size(self) -> usize {
        match self {
            Class::Elf32 => size_of::<elf::SectionHeader32<LE>>(),
            Class::Elf64 => size_of::<elf::SectionHeader64<LE>>(),
        }
    }

    /// The size of one program header in bytes: 32 or 56.
    pub fn program_header_size(self) -> usize {
        match self {
            Class::Elf32 => size_of::<elf::ProgramHeader32<LE>>(),
            Class::Elf64 => size_of::<ProgramHeader64<LE>>(),
        }
    }

    /// Width in bytes of an address or offset field.
    pub fn word(self) -> usize {
        match self {
            Class::Elf32 => 4,
            Class::Elf64 => 8,
        }
    }

    fn bits(self) -> u32 {
        match self {
            Class::Elf32 => 32,
            Class::Elf64 => 64,
        }
    }
}

/// Where a header field lives: byte offset in its header and width.
#[derive(Clone, Copy, Debug)]
pub struct Field {
    pub at: usize,
    pub width: usize,
}

/// The positions of the fields the writer patches, and of those error messages point at.
#[derive(Clone, Copy, Debug)]
pub struct Fields {
    pub e_shoff: Field,
    pub e_phentsize: Field,
    pub e_phnum: Field,
    pub e_shentsize: Field,
    pub e_shnum: Field,
    pub sh_name: Field,
    pub sh_type: Field,
    pub sh_offset: Field,
    pub sh_size: Field,
    pub sh_addralign: Field,
    pub p_filesz: Field,
    pub p_memsz: Field,
}

fn width_of<H, F>(_: impl Fn(&H) -> &F) -> usize {
    size_of::<F>()
}

/// A field's place in object's definition of the header, so that the writer patches exactly
/// the bytes the reader read.
macro_rules! field {
    ($header:ty, $name:ident) => {
        Field {
            at: offset_of!($header, $name),
            width: width_of(|header: &$header| &header.$name),
        }
    };
}

macro_rules! fields {
    ($file:ty, $section:ty, $program:ty) => {
        Fields {
            e_shoff: field!($file, e_shoff),
            e_phentsize: field!($file, e_phentsize),
            e_phnum: field!($file, e_phnum),
            e_shentsize: field!($file, e_shentsize),
            e_shnum: field!($file, e_shnum),
            sh_name: field!($section, sh_name),
            sh_type: field!($section, sh_type),
            sh_offset: field!($section, sh_offset),
            sh_size: field!($section, sh_size),
            sh_addralign: field!($section, sh_addralign),
            p_filesz: field!($program, p_filesz),
            p_memsz: field!($program, p_memsz),
        }
    };
}

impl Class {
    /// Where the header fields the writer patches lie in this class's headers.
    pub(crate) fn fields(self) -> Fields {
        match self {
            Class::Elf64 => fields!(
                FileHeader64<LE>,
                elf::SectionHeader64<LE>,
                ProgramHeader64<LE>
            ),
            Class::Elf32 => fields!(
                FileHeader32<LE>,
                elf::SectionHeader32<LE>,
                elf::ProgramHeader32<LE>
            ),
        }
    }
}

/// Writes a little-endian field at `base + field.at`; the value must fit its width.
pub fn put(bytes: &mut [u8], base: usize, field: Field, value: u64) {
    let le = value.to_le_bytes();
    bytes[base + field.at..base + field.at + field.width].copy_from_slice(&le[..field.width]);
}

/// One section header.
#[derive(Clone, Debug)]
pub struct Section {
    pub index: usize,
    pub name: String,
    pub sh_type: u32,
    pub flags: u64,
    pub offset: u64,
    pub size: u64,
    pub align: u64,
    /// File offset of this section's header.
    pub header_at: usize,
}

impl Section {
    /// Whether the section occupies file bytes.
    pub fn has_bytes(&self) -> bool {
        self.sh_type != SHT_NOBITS && self.size > 0
    }

    /// `[N] .name`, for messages.
    pub fn label(&self) -> String {
        format!("section [{}] {}", self.index, self.name)
    }
}

/// One program header.
#[derive(Clone, Debug)]
pub struct Segment {
    pub p_type: u32,
    pub offset: u64,
    pub filesz: u64,
    pub memsz: u64,
    pub header_at: usize,
}

/// The parsed layout of a file.
#[derive(Clone, Debug)]
pub struct Layout {
    pub class: Class,
    pub shoff: u64,
    pub shentsize: usize,
    pub phoff: u64,
    pub shstrndx: usize,
    /// Whether the section count or string-table index uses extended numbering.
    pub extended: bool,
    pub sections: Vec<Section>,
    pub segments: Vec<Segment>,
}

fn bad(offset: u64, message: impl Into<String>) -> ElfError {
    ElfError::Malformed {
        offset,
        message: message.into(),
    }
}

/// `start..start+len` as a range inside a file of `file_len` bytes, or `None`.
pub fn checked_range(start: u64, len: u64, file_len: usize) -> Option<std::ops::Range<usize>> {
    let end = start.checked_add(len)?;
    if end > file_len as u64 {
        return None;
    }
    Some(start as usize..end as usize)
}

impl Layout {
    /// Whether the bytes `start..end` hold any part of the ELF header or a header table.
    /// A section that shares bytes with them cannot be rewritten where it is.
    pub fn headers_overlap(&self, start: u64, end: u64) -> bool {
        let overlaps =
            |from: u64, len: u64| len > 0 && from < end && start < from.saturating_add(len);
        overlaps(0, self.class.header_size() as u64)
            || overlaps(
                self.phoff,
                (self.segments.len() * self.class.program_header_size()) as u64,
            )
            || overlaps(self.shoff, (self.sections.len() * self.shentsize) as u64)
    }

    pub fn parse(bytes: &[u8]) -> Result<Layout> {
        match identify(bytes)? {
            Class::Elf32 => parse_class::<FileHeader32<LE>>(bytes, Class::Elf32),
            Class::Elf64 => parse_class::<FileHeader64<LE>>(bytes, Class::Elf64),
        }
    }

    /// Whether adding a section would need extended numbering, which fmtstr does not write.
    pub fn section_count_is_full(&self) -> bool {
        self.extended || self.sections.len() as u64 + 1 >= SHN_LORESERVE
    }

    /// The notes of a note section.
    pub fn notes<'a>(&self, bytes: &'a [u8], section: &Section) -> Result<Vec<Note<'a>>> {
        // object takes sh_addralign as the note alignment and refuses anything but 0 to 8;
        // fmtstr reads every alignment but 8 as 4, as binutils does, so it passes object 0
        // (read as 4) or 8.
        let eight = note_alignment(section) == 8;
        match self.class {
            Class::Elf32 => notes_of::<FileHeader32<LE>>(bytes, section, u32::from(eight) * 8),
            Class::Elf64 => notes_of::<FileHeader64<LE>>(bytes, section, u64::from(eight) * 8),
        }
    }
}

/// The class, after checking the identification bytes that decide how object reads the rest.
/// object's own check says only "Unsupported ELF header"; this one names the byte at fault.
fn identify(bytes: &[u8]) -> Result<Class> {
    if !bytes.starts_with(&elf::ELFMAG) {
        let shown: Vec<String> = bytes.iter().take(4).map(|b| format!("{b:02x}")).collect();
        return Err(ElfError::NotElf {
            start: shown.join(" "),
        });
    }
    if bytes.len() < size_of::<elf::Ident>() {
        return Err(ElfError::Truncated {
            what: format!("the ELF identification ({} bytes)", size_of::<elf::Ident>()),
            needed: size_of::<elf::Ident>() as u64,
            len: bytes.len() as u64,
        });
    }
    // (object's Ident is not Pod, so its bytes are read by their places in it.)
    let ident = |field: usize| bytes[field];
    let class = match ident(offset_of!(elf::Ident, class)) {
        elf::ELFCLASS32 => Class::Elf32,
        elf::ELFCLASS64 => Class::Elf64,
        other => {
            return Err(bad(
                offset_of!(elf::Ident, class) as u64,
                format!("EI_CLASS is {other}; only 1 (ELF32) and 2 (ELF64) exist"),
            ))
        }
    };
    match ident(offset_of!(elf::Ident, data)) {
        elf::ELFDATA2LSB => {}
        elf::ELFDATA2MSB => return Err(ElfError::BigEndian),
        other => {
            return Err(bad(
                offset_of!(elf::Ident, data) as u64,
                format!("EI_DATA is {other}; only 1 (little-endian) is supported"),
            ))
        }
    }
    let version = ident(offset_of!(elf::Ident, version));
    if version != elf::EV_CURRENT {
        return Err(bad(
            offset_of!(elf::Ident, version) as u64,
            format!(
                "EI_VERSION is {version}; the only ELF version is 1 (EV_CURRENT), so the file is \
                 corrupt or not ELF"
            ),
        ));
    }
    if bytes.len() < class.header_size() {
        return Err(ElfError::Truncated {
            what: format!("the {}-byte ELF header", class.header_size()),
            needed: class.header_size() as u64,
            len: bytes.len() as u64,
        });
    }
    Ok(class)
}

fn parse_class<Elf: FileHeader<Endian = LE>>(bytes: &[u8], class: Class) -> Result<Layout> {
    // `identify` checked all that object's `parse` checks.
    let header = Elf::parse(bytes).map_err(|error| bad(0, format!("the ELF header: {error}")))?;
    let shoff: u64 = header.e_shoff(LE).into();
    let phoff: u64 = header.e_phoff(LE).into();
    let shentsize = class.section_header_size();
    let headers = header
        .section_headers(LE, bytes)
        .map_err(|_| section_table_error(header, bytes, class))?;

    let mut sections = Vec::with_capacity(headers.len());
    for (index, section) in headers.iter().enumerate() {
        let section = Section {
            index,
            name: String::new(),
            sh_type: section.sh_type(LE),
            flags: section.sh_flags(LE).into(),
            offset: section.sh_offset(LE).into(),
            size: section.sh_size(LE).into(),
            align: section.sh_addralign(LE).into(),
            header_at: shoff as usize + index * shentsize,
        };
        // An empty section may name any offset: nothing of it is read.
        if section.has_bytes() && headers[index].data(LE, bytes).is_err() {
            return Err(ElfError::SectionPastEnd {
                section: format!("section [{index}]"),
                offset: section.offset,
                size: section.size,
                len: bytes.len() as u64,
            });
        }
        sections.push(section);
    }
    // Without a usable name table (e_shstrndx 0 or out of range) the sections are nameless:
    // nothing fmtstr reads depends on another section's name.
    let names = header
        .section_strings(LE, bytes, headers)
        .unwrap_or_default();
    for (section, raw) in sections.iter_mut().zip(headers) {
        if let Ok(name) = raw.name(LE, names) {
            section.name = String::from_utf8_lossy(name).into_owned();
        }
    }

    let segments = header
        .program_headers(LE, bytes)
        .map_err(|_| program_table_error(header, bytes, class))?
        .iter()
        .enumerate()
        .map(|(index, segment)| Segment {
            p_type: segment.p_type(LE),
            offset: segment.p_offset(LE).into(),
            filesz: segment.p_filesz(LE).into(),
            memsz: segment.p_memsz(LE).into(),
            header_at: phoff as usize + index * class.program_header_size(),
        })
        .collect();

    Ok(Layout {
        class,
        shoff,
        shentsize,
        phoff,
        // 0 (no table) where object refuses the index; sections.get(0) is then the null
        // section, which has no bytes.
        shstrndx: header.shstrndx(LE, bytes).map_or(0, |index| index as usize),
        extended: header.e_shnum(LE) == 0 || header.e_shstrndx(LE) == elf::SHN_XINDEX,
        sections,
        segments,
    })
}

/// Why object refused the section header table, with the offsets it lies at.
fn section_table_error<Elf: FileHeader<Endian = LE>>(
    header: &Elf,
    bytes: &[u8],
    class: Class,
) -> ElfError {
    let fields = class.fields();
    let shoff: u64 = header.e_shoff(LE).into();
    let shentsize = usize::from(header.e_shentsize(LE));
    if shentsize != class.section_header_size() {
        return bad(
            fields.e_shentsize.at as u64,
            format!(
                "e_shentsize is {shentsize}; a section header of ELF{} is {} bytes",
                class.bits(),
                class.section_header_size()
            ),
        );
    }
    let count = match header.e_shnum(LE) {
        0 => match header.section_0(LE, bytes) {
            Ok(Some(first)) => first.sh_size(LE).into(),
            _ => {
                // e_shnum 0 puts the count in section 0's sh_size: that header must be there.
                return ElfError::Truncated {
                    what: format!("the section header table at {shoff:#x}"),
                    needed: shoff.saturating_add(shentsize as u64),
                    len: bytes.len() as u64,
                };
            }
        },
        count => u64::from(count),
    };
    let table_len = count.checked_mul(shentsize as u64);
    ElfError::Truncated {
        what: format!("{count} section headers of {shentsize} bytes at {shoff:#x}"),
        needed: shoff.saturating_add(table_len.unwrap_or(u64::MAX)),
        len: bytes.len() as u64,
    }
}

/// Why object refused the program header table, with the offsets it lies at.
fn program_table_error<Elf: FileHeader<Endian = LE>>(
    header: &Elf,
    bytes: &[u8],
    class: Class,
) -> ElfError {
    let fields = class.fields();
    let phoff: u64 = header.e_phoff(LE).into();
    let Ok(count) = header.phnum(LE, bytes) else {
        return bad(
            fields.e_phnum.at as u64,
            format!(
                "e_phnum is {:#x} (PN_XNUM), which puts the program header count in section \
                 0's sh_info, but the file has no section header table",
                elf::PN_XNUM
            ),
        );
    };
    let phentsize = usize::from(header.e_phentsize(LE));
    if phentsize != class.program_header_size() {
        return bad(
            fields.e_phentsize.at as u64,
            format!(
                "e_phentsize is {phentsize}; a program header of ELF{} is {} bytes",
                class.bits(),
                class.program_header_size()
            ),
        );
    }
    let table_len = (count as u64).saturating_mul(phentsize as u64);
    ElfError::Truncated {
        what: format!("{count} program headers at {phoff:#x}"),
        needed: phoff.saturating_add(table_len),
        len: bytes.len() as u64,
    }
}

/// One note inside a note section.
#[derive(Clone, Debug)]
pub struct Note<'a> {
    /// File offset of the note's header.
    pub start: usize,
    /// File offset just past its padded descriptor (clamped to the section end).
    pub end: usize,
    pub name: &'a [u8],
    pub n_type: u32,
    /// File offset of the descriptor.
    pub desc_at: usize,
    pub desc: &'a [u8],
}

/// The alignment notes in a section use: 8 for 8-aligned note sections, else 4.
pub fn note_alignment(section: &Section) -> usize {
    if section.align == 8 {
        8
    } else {
        4
    }
}

pub fn align_up(value: usize, align: usize) -> usize {
    value.div_ceil(align) * align
}

/// The notes of a note section (whose bytes the caller checked are in the file), read by
/// object's iterator. Its errors do not say where, so the position of each note is followed
/// here (as object aligns: from the start of the section) to name the one at fault.
fn notes_of<'a, Elf: FileHeader<Endian = LE>>(
    bytes: &'a [u8],
    section: &Section,
    align: Elf::Word,
) -> Result<Vec<Note<'a>>> {
    let start = section.offset as usize;
    let data = &bytes[start..start + section.size as usize];
    let end = start + data.len();
    let step = note_alignment(section);
    let mut iterator = NoteIterator::<Elf>::new(LE, align, data)
        .map_err(|error| bad(start as u64, error.to_string()))?;
    let mut notes = Vec::new();
    let mut at = 0;
    // object reads a tail shorter than a note header as a broken note; zeros there are padding
    // (a section rounded up to its alignment), so they end the section quietly.
    while data.len() - at >= NOTE_HEADER {
        match iterator.next() {
            Ok(Some(note)) => {
                let name_end = at + NOTE_HEADER + note.n_namesz(LE) as usize;
                let desc_at = align_up(name_end, step);
                let desc_end = desc_at + note.n_descsz(LE) as usize;
                let next = align_up(desc_end, step).min(data.len());
                notes.push(Note {
                    start: start + at,
                    end: start + next,
                    name: note.name_bytes(),
                    n_type: note.n_type(LE),
                    desc_at: start + desc_at,
                    desc: note.desc(),
                });
                at = next;
            }
            Ok(None) => break,
            Err(_) => {
                let (namesz, descsz) = object::pod::from_bytes::<NoteHeader32<LE>>(&data[at..])
                    .map_or((0, 0), |(header, _)| {
                        (header.n_namesz.get(LE), header.n_descsz.get(LE))
                    });
                return Err(ElfError::NotePastEnd {
                    section: section.label(),
                    offset: (start + at) as u64,
                    namesz: u64::from(namesz),
                    descsz: u64::from(descsz),
                    section_end: end as u64,
                });
            }
        }
    }
    if data[at..].iter().any(|b| *b != 0) {
        return Err(bad(
            (start + at) as u64,
            format!(
                "{} ends with {} bytes that are not a whole note (a note header is \
                 {NOTE_HEADER} bytes)",
                section.label(),
                data.len() - at
            ),
        ));
    }
    Ok(notes)
}

/// Whether a note's name is `owner` (with or without its NUL).
pub fn name_is(name: &[u8], owner: &[u8]) -> bool {
    let trimmed = name.strip_suffix(&[0]).unwrap_or(name);
    trimmed == owner
}
