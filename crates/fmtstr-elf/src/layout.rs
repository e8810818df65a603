//! The parts of an ELF file fmtstr reads and patches: the header, section headers, program
//! headers and notes. Little-endian ELF32 and ELF64; every offset and size is checked against
//! the file before it is used.

use crate::{ElfError, Result};

pub const SHT_NOBITS: u32 = 8;
pub const SHT_NOTE: u32 = 7;
pub const SHF_ALLOC: u64 = 2;
pub const PT_NOTE: u32 = 4;
const SHN_XINDEX: u32 = 0xffff;
const SHN_LORESERVE: u64 = 0xff00;

/// ELF32 or ELF64.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Elf32,
    Elf64,
}

impl Class {
    pub fn header_size(self) -> usize {
        match self {
            Class::Elf32 => 52,
            Class::Elf64 => 64,
        }
    }

    pub fn section_header_size(self) -> usize {
        match self {
            Class::Elf32 => 40,
            Class::Elf64 => 64,
        }
    }

    pub fn program_header_size(self) -> usize {
        match self {
            Class::Elf32 => 32,
            Class::Elf64 => 56,
        }
    }

    /// Width in bytes of an address or offset field.
    pub fn word(self) -> usize {
        match self {
            Class::Elf32 => 4,
            Class::Elf64 => 8,
        }
    }
}

/// Where a header field lives: byte offset in its header and width.
#[derive(Clone, Copy, Debug)]
pub struct Field {
    pub at: usize,
    pub width: usize,
}

/// Field positions for a class.
#[derive(Clone, Copy, Debug)]
pub struct Fields {
    pub e_phoff: Field,
    pub e_shoff: Field,
    pub e_phentsize: Field,
    pub e_phnum: Field,
    pub e_shentsize: Field,
    pub e_shnum: Field,
    pub e_shstrndx: Field,
    pub sh_name: Field,
    pub sh_type: Field,
    pub sh_flags: Field,
    pub sh_offset: Field,
    pub sh_size: Field,
    pub sh_link: Field,
    pub sh_addralign: Field,
    pub p_type: Field,
    pub p_offset: Field,
    pub p_filesz: Field,
    pub p_memsz: Field,
}

const fn f(at: usize, width: usize) -> Field {
    Field { at, width }
}

impl Class {
    pub fn fields(self) -> Fields {
        match self {
            Class::Elf64 => Fields {
                e_phoff: f(32, 8),
                e_shoff: f(40, 8),
                e_phentsize: f(54, 2),
                e_phnum: f(56, 2),
                e_shentsize: f(58, 2),
                e_shnum: f(60, 2),
                e_shstrndx: f(62, 2),
                sh_name: f(0, 4),
                sh_type: f(4, 4),
                sh_flags: f(8, 8),
                sh_offset: f(24, 8),
                sh_size: f(32, 8),
                sh_link: f(40, 4),
                sh_addralign: f(48, 8),
                p_type: f(0, 4),
                p_offset: f(8, 8),
                p_filesz: f(32, 8),
                p_memsz: f(40, 8),
            },
            Class::Elf32 => Fields {
                e_phoff: f(28, 4),
                e_shoff: f(32, 4),
                e_phentsize: f(42, 2),
                e_phnum: f(44, 2),
                e_shentsize: f(46, 2),
                e_shnum: f(48, 2),
                e_shstrndx: f(50, 2),
                sh_name: f(0, 4),
                sh_type: f(4, 4),
                sh_flags: f(8, 4),
                sh_offset: f(16, 4),
                sh_size: f(20, 4),
                sh_link: f(24, 4),
                sh_addralign: f(32, 4),
                p_type: f(0, 4),
                p_offset: f(4, 4),
                p_filesz: f(16, 4),
                p_memsz: f(20, 4),
            },
        }
    }
}

/// Reads a little-endian field at `base + field.at` (the caller checked the range).
pub fn get(bytes: &[u8], base: usize, field: Field) -> u64 {
    bytes[base + field.at..base + field.at + field.width]
        .iter()
        .rev()
        .fold(0u64, |acc, &b| (acc << 8) | u64::from(b))
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
    pub name_offset: u32,
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
        if bytes.len() < 4 || &bytes[..4] != b"\x7fELF" {
            let shown: Vec<String> = bytes.iter().take(4).map(|b| format!("{b:02x}")).collect();
            return Err(ElfError::NotElf {
                start: shown.join(" "),
            });
        }
        if bytes.len() < 16 {
            return Err(ElfError::Truncated {
                what: "the ELF identification (16 bytes)".into(),
                needed: 16,
                len: bytes.len() as u64,
            });
        }
        let class = match bytes[4] {
            1 => Class::Elf32,
            2 => Class::Elf64,
            other => {
                return Err(bad(
                    4,
                    format!("EI_CLASS is {other}; only 1 (ELF32) and 2 (ELF64) exist"),
                ))
            }
        };
        match bytes[5] {
            1 => {}
            2 => return Err(ElfError::BigEndian),
            other => {
                return Err(bad(
                    5,
                    format!("EI_DATA is {other}; only 1 (little-endian) is supported"),
                ))
            }
        }
        if bytes.len() < class.header_size() {
            return Err(ElfError::Truncated {
                what: format!("the {}-byte ELF header", class.header_size()),
                needed: class.header_size() as u64,
                len: bytes.len() as u64,
            });
        }
        let fields = class.fields();
        let shoff = get(bytes, 0, fields.e_shoff);
        let phoff = get(bytes, 0, fields.e_phoff);
        let shentsize = get(bytes, 0, fields.e_shentsize) as usize;
        let phentsize = get(bytes, 0, fields.e_phentsize) as usize;
        let mut shnum = get(bytes, 0, fields.e_shnum);
        let mut shstrndx = get(bytes, 0, fields.e_shstrndx) as u32;
        let phnum = get(bytes, 0, fields.e_phnum);
        let mut extended = false;

        let mut sections = Vec::new();
        if shoff != 0 {
            if shentsize < class.section_header_size() {
                return Err(bad(
                    fields.e_shentsize.at as u64,
                    format!(
                        "e_shentsize is {shentsize}; a section header is {} bytes",
                        class.section_header_size()
                    ),
                ));
            }
            if checked_range(shoff, shentsize as u64, bytes.len()).is_none() {
                return Err(ElfError::Truncated {
                    what: format!("the section header table at {shoff:#x}"),
                    needed: shoff.saturating_add(shentsize as u64),
                    len: bytes.len() as u64,
                });
            }
            let base = shoff as usize;
            if shnum == 0 {
                shnum = get(bytes, base, fields.sh_size);
                extended = true;
            }
            if shstrndx == SHN_XINDEX {
                shstrndx = get(bytes, base, fields.sh_link) as u32;
                extended = true;
            }
            let table_len = shnum.checked_mul(shentsize as u64);
            if table_len
                .and_then(|len| checked_range(shoff, len, bytes.len()))
                .is_none()
            {
                return Err(ElfError::Truncated {
                    what: format!("{shnum} section headers of {shentsize} bytes at {shoff:#x}"),
                    needed: shoff.saturating_add(table_len.unwrap_or(u64::MAX)),
                    len: bytes.len() as u64,
                });
            }
            sections.reserve(shnum as usize);
            for index in 0..shnum as usize {
                let at = base + index * shentsize;
                sections.push(Section {
                    index,
                    name: String::new(),
                    name_offset: get(bytes, at, fields.sh_name) as u32,
                    sh_type: get(bytes, at, fields.sh_type) as u32,
                    flags: get(bytes, at, fields.sh_flags),
                    offset: get(bytes, at, fields.sh_offset),
                    size: get(bytes, at, fields.sh_size),
                    align: get(bytes, at, fields.sh_addralign),
                    header_at: at,
                });
            }
            for section in &sections {
                if section.has_bytes()
                    && checked_range(section.offset, section.size, bytes.len()).is_none()
                {
                    return Err(ElfError::SectionPastEnd {
                        section: format!("section [{}]", section.index),
                        offset: section.offset,
                        size: section.size,
                        len: bytes.len() as u64,
                    });
                }
            }
            // Names, when the string table is usable.
            if let Some(strtab) = sections.get(shstrndx as usize).filter(|s| s.has_bytes()) {
                let range = strtab.offset as usize..(strtab.offset + strtab.size) as usize;
                let names = &bytes[range];
                for section in &mut sections {
                    if let Some(rest) = names.get(section.name_offset as usize..) {
                        let end = rest.iter().position(|b| *b == 0).unwrap_or(rest.len());
                        section.name = String::from_utf8_lossy(&rest[..end]).into_owned();
                    }
                }
            }
        }

        let mut segments = Vec::new();
        if phoff != 0 && phnum > 0 {
            if phentsize < class.program_header_size() {
                return Err(bad(
                    fields.e_phentsize.at as u64,
                    format!(
                        "e_phentsize is {phentsize}; a program header is {} bytes",
                        class.program_header_size()
                    ),
                ));
            }
            let table_len = phnum * phentsize as u64;
            if checked_range(phoff, table_len, bytes.len()).is_none() {
                return Err(ElfError::Truncated {
                    what: format!("{phnum} program headers at {phoff:#x}"),
                    needed: phoff.saturating_add(table_len),
                    len: bytes.len() as u64,
                });
            }
            for index in 0..phnum as usize {
                let at = phoff as usize + index * phentsize;
                segments.push(Segment {
                    p_type: get(bytes, at, fields.p_type) as u32,
                    offset: get(bytes, at, fields.p_offset),
                    filesz: get(bytes, at, fields.p_filesz),
                    memsz: get(bytes, at, fields.p_memsz),
                    header_at: at,
                });
            }
        }
        Ok(Layout {
            class,
            shoff,
            shentsize,
            phoff,
            shstrndx: shstrndx as usize,
            extended,
            sections,
            segments,
        })
    }

    /// Whether adding a section would need extended numbering, which fmtstr does not write.
    pub fn section_count_is_full(&self) -> bool {
        self.extended || self.sections.len() as u64 + 1 >= SHN_LORESERVE
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

/// The notes of a note section.
pub fn notes<'a>(bytes: &'a [u8], section: &Section) -> Result<Vec<Note<'a>>> {
    let align = note_alignment(section);
    let start = section.offset as usize;
    let end = start + section.size as usize;
    let mut notes = Vec::new();
    let mut at = start;
    while end - at >= 12 {
        let word = |offset: usize| {
            u32::from_le_bytes([
                bytes[offset],
                bytes[offset + 1],
                bytes[offset + 2],
                bytes[offset + 3],
            ])
        };
        let namesz = u64::from(word(at));
        let descsz = u64::from(word(at + 4));
        let n_type = word(at + 8);
        let name_at = at as u64 + 12;
        let desc_at = align_up((name_at + namesz) as usize, align) as u64;
        let desc_end = desc_at + descsz;
        if desc_at > end as u64 || desc_end > end as u64 {
            return Err(ElfError::NotePastEnd {
                section: section.label(),
                offset: at as u64,
                namesz,
                descsz,
                section_end: end as u64,
            });
        }
        let next = align_up(desc_end as usize, align).min(end);
        notes.push(Note {
            start: at,
            end: next,
            name: &bytes[name_at as usize..(name_at + namesz) as usize],
            n_type,
            desc_at: desc_at as usize,
            desc: &bytes[desc_at as usize..desc_end as usize],
        });
        at = next;
    }
    if bytes[at..end].iter().any(|b| *b != 0) {
        return Err(bad(
            at as u64,
            format!(
                "{} ends with {} bytes that are not a whole note (a note header is 12 bytes)",
                section.label(),
                end - at
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
