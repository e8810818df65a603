//! Audit PAL ELF files and HSA code objects (a shader cache, a build tree) for format-string
//! problems, within and across files: what `fmtstr audit` reports, as a typed [`Report`].
//!
//! [`audit`] walks every path (files, and directories recursively; in a directory only files
//! that start with the ELF magic are read) in parallel and reports (see [`Kind`]):
//!   collision   one ID with different strings, within a file or across files
//!   conflict    one ID and string with different argument counts or 64-bit masks
//!   arguments   an argument count or 64-bit mask that the format string contradicts, or a
//!               format string that does not parse
//!   malformed   a file whose ELF structure or PAL metadata cannot be read, or an
//!               amdhsa.printf entry that is not `ID:N:SIZE1:...:SIZEN:FORMAT`
//!   unfolded    a linked file with several metadata notes (one per linked object): the
//!               post-link step `fmtstr merge FILE --in-place` has not run. Each note is
//!               audited as a source of its own, named by its file offset.
//!   id          (with [`Options::verify_ids`]) an ID that is not fmtstr's hash of its string;
//!               and, always, a HIP buffered printf entry (`0:0:HASH,FORMAT`) whose hash is
//!               not the MD5 of its format (see `audit/hsa_entries.rs`)
//!
//! Shader-abort message entries (no .string) have no format string to check: only their own
//! keys are (a valid .index, and .constants against .data_count and .constant_status, as
//! "arguments" findings); the summary counts them as not checked otherwise.
//!
//! The mask check flags only what the format string makes certain: integer conversions (d i u
//! o x X c) and '*' arguments are 32 bits unless l, ll, j, z or t make them 64 (h and hh are
//! widened to 32); floats, %s, %p and vectors are not checked, because the format cannot tell
//! a 32-bit float (which LLPC writes as one dword) from a double.
//!
//! HSA code objects (OpenCL/HIP) are audited with them: their amdhsa.printf entries' argument
//! sizes against the format, and IDs given twice within one code object (IDs restart at 1 in
//! every module, so equal IDs in two files are not collisions); for HIP's buffered printf, each
//! entry's hash against its format and one hash given to two formats.

use std::cell::RefCell;
use std::ffi::OsString;
use std::fs::DirEntry;
use std::io::Read;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use fmtstr_elf::{hsa, LinkedElf};
use fmtstr_format::Format;
use fmtstr_meta::merge::IdMap;
use fmtstr_meta::{escape, Entry, FormatId, Mask, Table};
use rayon::prelude::*;
use serde::Serialize;

mod hsa_entries;
mod summary;

/// What to check beyond the defaults.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// Also report IDs that are not fmtstr's 48-bit XXH3 hash of their string (IDs written by
    /// LLPC are opaque, so use this only for files fmtstr produced).
    pub verify_ids: bool,
}

/// Why an audit could not run at all (findings are not errors: they are the [`Report`]).
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    /// A path (or a file found under one) could not be read; the message names it.
    #[error("{message}")]
    Unreadable {
        /// The first unreadable path and why, and how many more there were.
        message: String,
    },
}

/// The kind of a finding (schemas/audit.schema.json).
#[derive(Serialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A file whose ELF structure, metadata or SPIR-V module cannot be read, or an
    /// `amdhsa.printf` entry that does not parse.
    Malformed,
    /// One ID given to different strings.
    Collision,
    /// One ID and string with different argument counts or 64-bit masks.
    Conflict,
    /// An argument count or 64-bit mask the format string contradicts, or a format string
    /// that does not parse.
    Arguments,
    /// An ID that is not the hash of its string (fmtstr's with `verify_ids`, HIP's MD5 always).
    Id,
    /// A linked file whose metadata notes `fmtstr merge FILE --in-place` has not folded.
    Unfolded,
}

impl Kind {
    /// Every kind, in the order of the list above.
    pub const ALL: [Kind; 6] = [
        Kind::Collision,
        Kind::Conflict,
        Kind::Arguments,
        Kind::Malformed,
        Kind::Unfolded,
        Kind::Id,
    ];

    /// The kind as the text and JSON reports spell it.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Malformed => "malformed",
            Kind::Collision => "collision",
            Kind::Conflict => "conflict",
            Kind::Arguments => "arguments",
            Kind::Id => "id",
            Kind::Unfolded => "unfolded",
        }
    }
}

/// Where a finding is: the file, and the entry when there is one.
#[derive(Serialize, Clone, Debug)]
pub struct Location {
    /// The file's path as found (under a directory: joined to the directory given).
    pub file: String,
    /// The file offset of the entry's metadata note, when the file has several.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<u64>,
    /// `amdhsa.printf` for an HSA code object's entry; absent for amdpal.format_strings.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table: Option<&'static str>,
    /// The entry's index in the note's `.strings` (or in the `amdhsa.printf` array).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
    /// The entry's format string (invalid UTF-8 replaced), as the table holds it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub string: Option<String>,
    /// The number of arguments the entry declares, where it declares one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub argument_count: Option<u64>,
    /// The entry's 64-bit argument mask as its 64-bit words (bit `i` of word `i / 64`: argument
    /// `i` is 64 bits); amdpal.format_strings entries only.
    #[serde(rename = "64bit_arguments", skip_serializing_if = "Option::is_none")]
    pub mask: Option<Vec<u64>>,
    /// The bytes of the file that hold the entry (its metadata note), where fmtstr knows them:
    /// a SARIF region. Not part of the JSON report, whose `note` names a note only when the file
    /// has several.
    #[serde(skip)]
    pub region: Option<Range<u64>>,
}

impl Location {
    /// The file, and the note when the file has several.
    pub fn source(&self) -> String {
        match self.note {
            Some(offset) => format!("{} (note at {offset:#x})", self.file),
            None => self.file.clone(),
        }
    }
}

/// One problem found.
#[derive(Serialize, Clone, Debug)]
pub struct Finding {
    /// What is wrong; decides the rule a SARIF log files the finding under.
    pub kind: Kind,
    /// The ID the finding is about, when it is about one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<u64>,
    /// The ID as fmtstr prints it (`0x...`), for amdpal.format_strings IDs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hex: Option<String>,
    /// What is wrong, as the text report prints it after `FILE: error: KIND: `.
    pub message: String,
    /// Every entry (or file) involved: one for most findings, each disagreeing entry for a
    /// collision or conflict.
    pub locations: Vec<Location>,
}

/// The result of an audit; serializes to schemas/audit.schema.json (with the summary line's
/// text as `summary`, see [`Report::summary`]).
#[derive(Debug)]
pub struct Report {
    /// ELF files read.
    pub files: usize,
    /// Files under a directory that are not ELF files.
    pub skipped: usize,
    /// Format-string entries read (amdpal.format_strings and amdhsa.printf).
    pub strings: usize,
    /// Shader-abort message entries read.
    pub abort_entries: usize,
    /// Whether there are no findings (the command exits 0 when clean, 1 otherwise).
    pub clean: bool,
    /// Sorted by file, kind and ID.
    pub findings: Vec<Finding>,
}

/// One entry as the cross-file check first compares it. 16 bytes, since a shader cache holds
/// millions and the memory they take is most of an audit's cost; the entries of an ID whose
/// fingerprints differ are read again from their files ([`Resolved`]).
#[derive(Clone, Copy, Debug)]
struct Record {
    /// The 48-bit ID, then the fingerprint's high 16 bits: one integer to sort on (a pair of
    /// 32-bit halves took 4 more instructions a comparison), which groups records by ID.
    key: u64,
    /// The fingerprint's low 32 bits: 48 bits of a hash of the string's bytes and of its
    /// layout, equal for entries that agree. (Two entries that disagree slip through only
    /// where both their IDs and 48 bits of their hashes are the same.)
    fingerprint_low: u32,
    /// The entry's number among its shard's records (see [`Shard::locate`]).
    seq: u32,
}

impl Record {
    fn new(id: u64, fingerprint: u64, seq: u32) -> Record {
        Record {
            key: (id & 0xffff_ffff_ffff) << 16 | (fingerprint >> 32) & 0xffff,
            fingerprint_low: fingerprint as u32,
            seq,
        }
    }

    fn id(&self) -> u64 {
        self.key >> 16
    }

    fn fingerprint(&self) -> u64 {
        u64::from(self.fingerprint_low) | (self.key & 0xffff) << 32
    }
}

const _: () = assert!(size_of::<Record>() == 16);

/// The records one worker made, and where each of its tables starts among them.
struct Shard {
    records: Vec<Record>,
    tables: Vec<TableStart>,
    /// Files this worker has begun, and about how many it will read: what its room for
    /// records is projected from ([`Shard::make_room`]).
    files_begun: usize,
    share: usize,
}

/// The first record of a table: its file and metadata note.
#[derive(Clone, Copy, Debug)]
struct TableStart {
    seq: u32,
    file: u32,
    note: u32,
}

/// The most records a shard reserves room for by projection (1 GiB); past it, its room
/// doubles as it fills.
const PROJECTED_ROOM_LIMIT: usize = 1 << 26;

impl Shard {
    fn new(share: usize) -> Shard {
        Shard {
            records: Vec::new(),
            tables: Vec::new(),
            files_begun: 0,
            share,
        }
    }

    /// Makes room for `more` records. When the room runs out, the new room is what the worker's
    /// share of the files will need at the rate of the files so far, so the records are
    /// rarely copied to larger memory; reserved room not used is never touched, and so never
    /// backed by memory. (The files' sizes would tell that rate sooner, but asking for each
    /// size cost a fifth of an audit of 10,000 small files.)
    fn make_room(&mut self, more: usize) {
        let needed = self.records.len().saturating_add(more);
        if needed <= self.records.capacity() {
            return;
        }
        let projected = (needed / self.files_begun.max(1))
            .saturating_mul(self.share)
            .saturating_add(needed / 4)
            .min(PROJECTED_ROOM_LIMIT);
        let room = projected.max(needed.saturating_mul(2));
        self.records.reserve_exact(room - self.records.len());
    }

    /// The file, note and entry index of record `seq`.
    fn locate(&self, seq: u32) -> Option<(u32, u32, u32)> {
        let table = self.tables[..self.tables.partition_point(|t| t.seq <= seq)].last()?;
        Some((table.file, table.note, seq - table.seq))
    }
}

/// An entry read again to describe a disagreement, with what the comparisons need.
#[derive(Clone, Copy, Debug)]
struct Resolved {
    id: u64,
    string: u64,
    layout: u64,
    file: u32,
    /// The metadata note's number in the file (0 unless the file is linked and unfolded).
    note: u32,
    /// The entry's index in its table's printf entries ([`Table::entries`]).
    index: u32,
}

enum FileResult {
    Skipped,
    Unreadable(String),
    Audited {
        /// Entries that became records (in the worker's records).
        strings: usize,
        findings: Vec<Finding>,
        /// Shader-abort entries read (checked for their own consistency only).
        aborts: usize,
        /// `amdhsa.printf` entries read (they take no part in cross-file checks).
        hsa_strings: usize,
    },
}

/// A file to read; `named` when the user named it (then it must be an ELF file).
struct Input {
    path: PathBuf,
    named: bool,
}

/// The files [`audit`] reads under `paths`, in the order it reads them, or why a path cannot
/// be walked. A caller shows progress with [`audit_with_progress`] and this count.
pub fn collect_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, AuditError> {
    Ok(collect(paths)?
        .into_iter()
        .map(|input| input.path)
        .collect())
}

fn collect(paths: &[PathBuf]) -> Result<Vec<Input>, AuditError> {
    let mut inputs = Vec::new();
    let mut unreadable = Vec::new();
    for path in paths {
        walk(path, true, &mut inputs, &mut unreadable);
    }
    if let Some(first) = unreadable.first() {
        return Err(AuditError::Unreadable {
            message: format!("{first}{}", more(unreadable.len())),
        });
    }
    Ok(inputs)
}

/// Audits every file under `paths` (see the module documentation).
pub fn audit(paths: &[PathBuf], options: &Options) -> Result<Report, AuditError> {
    audit_with_progress(paths, options, &|_| {}, &|| {})
}

/// [`audit`], calling `start` with the number of files once they are known and `done` after
/// each file (from the worker threads).
pub fn audit_with_progress(
    paths: &[PathBuf],
    options: &Options,
    start: &dyn Fn(usize),
    done: &(dyn Fn() + Sync),
) -> Result<Report, AuditError> {
    let inputs = collect(paths)?;
    start(inputs.len());
    // One shard of records per worker thread, not one vector per file gathered into another:
    // a cache of millions of strings then holds its records once, in memory touched once.
    let next = AtomicUsize::new(0);
    let share = inputs.len().div_ceil(rayon::current_num_threads());
    let shards: Vec<(Shard, Vec<(usize, FileResult)>)> = rayon::broadcast(|_| {
        let mut shard = Shard::new(share);
        let mut results = Vec::new();
        loop {
            let file = next.fetch_add(1, Ordering::Relaxed);
            let Some(input) = inputs.get(file) else {
                break;
            };
            shard.files_begun += 1;
            let result = audit_file(file as u32, input, options.verify_ids, &mut shard);
            results.push((file, result));
            done();
        }
        (shard, results)
    });
    let (records, results): (Vec<Shard>, Vec<Vec<(usize, FileResult)>>) =
        shards.into_iter().unzip();
    let mut results: Vec<(usize, FileResult)> = results.into_iter().flatten().collect();
    results.sort_unstable_by_key(|(file, _)| *file);

    let mut unreadable = Vec::new();
    let mut findings = Vec::new();
    let mut total = 0;
    let mut skipped = 0;
    let mut audited = 0;
    let mut abort_entries = 0;
    for ((_, result), input) in results.into_iter().zip(&inputs) {
        match result {
            FileResult::Skipped => skipped += 1,
            FileResult::Unreadable(message) => {
                unreadable.push(format!("{}: {message}", input.path.display()))
            }
            FileResult::Audited {
                strings,
                findings: file_findings,
                aborts,
                hsa_strings,
            } => {
                audited += 1;
                abort_entries += aborts;
                total += strings + hsa_strings;
                findings.extend(file_findings);
            }
        }
    }
    if let Some(first) = unreadable.first() {
        return Err(AuditError::Unreadable {
            message: format!("cannot read {first}{}", more(unreadable.len())),
        });
    }
    let strings = total;
    findings.extend(cross_check(records, &inputs));
    findings.sort_by(|a, b| {
        let key = |f: &Finding| (f.locations.first().map(|l| l.file.clone()), f.kind, f.id);
        key(a).cmp(&key(b))
    });

    Ok(Report {
        files: audited,
        skipped,
        strings,
        abort_entries,
        clean: findings.is_empty(),
        findings,
    })
}

fn more(count: usize) -> String {
    if count > 1 {
        format!(
            " (and {} more unreadable)",
            summary::count(count - 1, "input", "inputs")
        )
    } else {
        String::new()
    }
}

/// Collects the files under `path`, in a stable order.
fn walk(path: &Path, named: bool, inputs: &mut Vec<Input>, unreadable: &mut Vec<String>) {
    let metadata = match std::fs::metadata(path) {
        Ok(metadata) => metadata,
        Err(error) => {
            unreadable.push(format!("cannot read {}: {error}", path.display()));
            return;
        }
    };
    if metadata.is_file() {
        inputs.push(Input {
            path: path.to_path_buf(),
            named,
        });
        return;
    }
    if !metadata.is_dir() {
        if named {
            unreadable.push(format!(
                "{} is neither a file nor a directory",
                path.display()
            ));
        }
        return;
    }
    let entries = match std::fs::read_dir(path) {
        Ok(entries) => entries,
        Err(error) => {
            unreadable.push(format!("cannot list {}: {error}", path.display()));
            return;
        }
    };
    // Names in one directory, compared as bytes, are in the order of their paths (as
    // `Path`s compare them, component by component), at less cost.
    let mut children: Vec<(OsString, DirEntry)> = entries
        .filter_map(|e| e.ok().map(|e| (e.file_name(), e)))
        .collect();
    children.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    for (_, entry) in children {
        let child = entry.path();
        // The listing says what each child is: a regular file is not asked for anything
        // more until it is read (one lookup of each file, not two).
        match entry.file_type() {
            Ok(kind) if kind.is_file() => inputs.push(Input {
                path: child,
                named: false,
            }),
            // Symbolic links to directories are not followed (no cycles); links to files are.
            Ok(kind) if kind.is_symlink() => {
                if !child.is_dir() {
                    walk(&child, false, inputs, unreadable);
                }
            }
            // Neither a file nor a directory (a FIFO, a socket, a device): not read.
            Ok(kind) if !kind.is_dir() => {}
            _ => walk(&child, false, inputs, unreadable),
        }
    }
}

/// A string's identity for comparisons: a 64-bit hash with a seed of its own, so it is
/// independent of IDs that are fmtstr's (seed 0) hashes.
fn string_hash(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64_with_seed(bytes, 0x6a09_e667_f3bc_c908)
}

/// The string and its layout in one hash, for the first comparison.
fn fingerprint(bytes: &[u8], layout: u64) -> u64 {
    xxhash_rust::xxh3::xxh3_64_with_seed(bytes, layout)
}

/// A record's number in its shard (a shard past 2^32 records, 200 GB of metadata, would
/// share the last number, and describe some disagreements with the wrong entry).
fn seq(len: usize) -> u32 {
    u32::try_from(len).unwrap_or(u32::MAX)
}

/// The argument count and mask bits, hashed (trailing zero mask words do not count).
fn layout_hash(argument_count: u64, mask: &Mask) -> u64 {
    let words = mask.words();
    let used = words
        .iter()
        .rposition(|w| *w != 0)
        .map_or(0, |last| last + 1);
    let mix =
        |hash: u64, value: u64| (hash.rotate_left(23) ^ value).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    words[..used]
        .iter()
        .fold(mix(0x5851_f42d_4c95_7f2d, argument_count), |hash, word| {
            mix(hash, *word)
        })
}

/// Where printf entry `index` of `table` (`entry`) is: its location names its index in
/// `.strings`, where abort entries count too.
fn location(
    file: &Path,
    note: Option<u64>,
    table: &Table<'_>,
    index: usize,
    entry: &Entry<'_>,
) -> Location {
    Location {
        file: file.display().to_string(),
        note,
        table: None,
        index: Some(table.strings_index(index)),
        string: Some(entry.string().to_owned()),
        argument_count: Some(entry.argument_count()),
        mask: Some(entry.mask().words().to_vec()),
        region: None,
    }
}

thread_local! {
    /// Each worker reads its files into one buffer that keeps its capacity.
    static BUFFER: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

fn audit_file(file: u32, input: &Input, verify_ids: bool, shard: &mut Shard) -> FileResult {
    BUFFER.with(|buffer| {
        let mut buffer = buffer.borrow_mut();
        buffer.clear();
        fmtstr_fs::cleanup::set_input(input.path.as_os_str().as_encoded_bytes());
        let read =
            std::fs::File::open(&input.path).and_then(|mut opened| opened.read_to_end(&mut buffer));
        match read {
            Ok(_) => audit_bytes(file, input, &buffer, verify_ids, shard),
            Err(error) => FileResult::Unreadable(error.to_string()),
        }
    })
}

fn audit_bytes(
    file: u32,
    input: &Input,
    bytes: &[u8],
    verify_ids: bool,
    shard: &mut Shard,
) -> FileResult {
    let first_record = shard.records.len();
    let spirv = crate::spirv::is_spirv(bytes);
    if !input.named && !spirv && !bytes.starts_with(b"\x7fELF") {
        return FileResult::Skipped;
    }
    let file_location = || Location {
        file: input.path.display().to_string(),
        note: None,
        table: None,
        index: None,
        string: None,
        argument_count: None,
        mask: None,
        region: None,
    };
    let malformed = |message: String| FileResult::Audited {
        hsa_strings: 0,
        strings: 0,
        findings: vec![Finding {
            kind: Kind::Malformed,
            id: None,
            hex: None,
            message,
            locations: vec![file_location()],
        }],
        aborts: 0,
    };
    if spirv {
        let table = match crate::spirv::audit_table(bytes) {
            Ok(table) => table,
            Err(error) => return malformed(error),
        };
        let mut findings = Vec::new();
        if let Some(table) = &table {
            let source = TableSource {
                file,
                path: &input.path,
                note: 0,
                note_offset: None,
            };
            audit_table(&source, table, verify_ids, shard, &mut findings);
        }
        return FileResult::Audited {
            strings: shard.records.len() - first_record,
            findings,
            aborts: 0,
            hsa_strings: 0,
        };
    }
    // Each metadata note is a source of its own: a linked file that the post-link step has
    // not folded has one per linked object.
    let (linked, documents) = match LinkedElf::parse(bytes).and_then(|elf| {
        let documents = elf.documents()?;
        Ok((elf, documents))
    }) {
        Ok(parsed) => parsed,
        Err(error) => return malformed(error.to_string()),
    };
    let mut findings = Vec::new();
    let mut hsa_strings = 0;
    let mut aborts = 0;
    let several = documents.len() > 1;
    if several {
        let offsets: Vec<String> = linked
            .notes()
            .iter()
            .map(|n| format!("{:#x}", n.note.start))
            .collect();
        findings.push(Finding {
            kind: Kind::Unfolded,
            id: None,
            hex: None,
            message: format!(
                "{} NT_AMDGPU_METADATA notes (at {}), one per linked object: the post-link step \
                 has not run, and PAL reads one note; fold them with `fmtstr merge {} --in-place`",
                documents.len(),
                offsets.join(", "),
                input.path.display()
            ),
            locations: vec![file_location()],
        });
    }
    for (number, (note, document)) in linked.notes().iter().zip(&documents).enumerate() {
        let note_offset = several.then_some(note.note.start as u64);
        let first_new = findings.len();
        if let Some(table) = hsa::printf_table(document) {
            hsa_strings += table.as_ref().map_or(0, hsa::PrintfTable::len);
            findings.extend(hsa_entries::audit(&input.path, note_offset, table));
        }
        let Some(table) = document.format_strings() else {
            in_note(&mut findings[first_new..], &note.note);
            continue;
        };
        aborts += table.aborts.len();
        let source = TableSource {
            file,
            path: &input.path,
            note: number as u32,
            note_offset,
        };
        audit_table(&source, table, verify_ids, shard, &mut findings);
        in_note(&mut findings[first_new..], &note.note);
    }
    FileResult::Audited {
        strings: shard.records.len() - first_record,
        findings,
        aborts,
        hsa_strings,
    }
}

/// Gives the locations of findings about one metadata note's entries that note's bytes.
fn in_note(findings: &mut [Finding], note: &Range<usize>) {
    let bytes = note.start as u64..note.end as u64;
    for location in findings.iter_mut().flat_map(|f| f.locations.iter_mut()) {
        location.region.get_or_insert_with(|| bytes.clone());
    }
}

/// Where a table comes from: a file, and the metadata note within it.
struct TableSource<'p> {
    file: u32,
    path: &'p Path,
    note: u32,
    /// The note's file offset, when the file has several.
    note_offset: Option<u64>,
}

/// One table's records and its own findings (arguments, IDs, shader-abort entries).
fn audit_table(
    source: &TableSource<'_>,
    table: &Table<'_>,
    verify_ids: bool,
    shard: &mut Shard,
    findings: &mut Vec<Finding>,
) {
    findings.extend(check_aborts(source.path, source.note_offset, table));
    if !table.entries.is_empty() {
        shard.tables.push(TableStart {
            seq: seq(shard.records.len()),
            file: source.file,
            note: source.note,
        });
    }
    shard.make_room(table.entries.len());
    for (index, entry) in table.entries.iter().enumerate() {
        let layout = layout_hash(entry.argument_count(), entry.mask());
        let fingerprint = fingerprint(entry.bytes(), layout);
        let id = entry.id().get();
        shard
            .records
            .push(Record::new(id, fingerprint, seq(shard.records.len())));
        if let Some(message) = check_arguments(entry) {
            findings.push(Finding {
                kind: Kind::Arguments,
                id: Some(entry.id().get()),
                hex: Some(format!("{:#}", entry.id())),
                message: format!(
                    "ID {:#} (\"{}\"): {message}",
                    entry.id(),
                    escape::escape(entry.bytes())
                ),
                locations: vec![location(
                    source.path,
                    source.note_offset,
                    table,
                    index,
                    entry,
                )],
            });
        }
        if verify_ids {
            let expected = FormatId::of(entry.bytes());
            if expected != entry.id() {
                findings.push(Finding {
                    kind: Kind::Id,
                    id: Some(entry.id().get()),
                    hex: Some(format!("{:#}", entry.id())),
                    message: format!(
                        "ID {:#} of \"{}\" is not fmtstr's ID for that string ({expected:#})",
                        entry.id(),
                        escape::escape(entry.bytes())
                    ),
                    locations: vec![location(
                        source.path,
                        source.note_offset,
                        table,
                        index,
                        entry,
                    )],
                });
            }
        }
    }
}

/// The shader-abort entries' own inconsistencies (they have no format string to check).
fn check_aborts(file: &Path, note: Option<u64>, table: &Table<'_>) -> Vec<Finding> {
    table
        .aborts
        .iter()
        .filter_map(|abort| {
            let message = abort.inconsistency()?;
            let id = abort.id();
            Some(Finding {
                kind: Kind::Arguments,
                id: id.map(FormatId::get),
                hex: id.map(|id| format!("{id:#}")),
                message: format!(
                    "shader-abort entry {}: {message}",
                    id.map_or_else(|| "without an ID".to_owned(), |id| format!("{id:#}"))
                ),
                locations: vec![Location {
                    file: file.display().to_string(),
                    note,
                    table: None,
                    index: None,
                    string: None,
                    argument_count: None,
                    mask: None,
                    region: None,
                }],
            })
        })
        .collect()
}

/// What the format string says about the entry's argument count and mask, if it disagrees.
fn check_arguments(entry: &Entry<'_>) -> Option<String> {
    // Most strings use only plain conversions: judge those without building a `Format`, and
    // let the full check explain anything that is not clean.
    // Like printf, the count stops at the first NUL (LLPC's strings end in one).
    if let Some(layout) = SimpleLayout::of(fmtstr_format::before_nul(entry.bytes())) {
        if layout.agrees_with(entry.argument_count(), entry.mask()) {
            return None;
        }
    }
    full_check(entry)
}

/// The arguments of a format that uses only plain conversions (flags, digit widths and
/// precisions, one of hh h l ll j z t, no '*', vectors or L), as `fmtstr_format` reads them.
#[derive(Debug, PartialEq, Eq)]
struct SimpleLayout {
    count: u64,
    /// Bit i: argument i is certainly 64 bits wide.
    wide: u64,
    /// Bit i: argument i's width is certain (an integer conversion).
    certain: u64,
}

impl SimpleLayout {
    /// `None` when the format uses anything else (then `Format::parse` decides).
    fn of(bytes: &[u8]) -> Option<SimpleLayout> {
        let mut layout = SimpleLayout {
            count: 0,
            wide: 0,
            certain: 0,
        };
        let mut i = 0;
        while let Some(at) = memchr::memchr(b'%', &bytes[i..]) {
            i += at;
            let start = i;
            i += 1;
            while matches!(bytes.get(i), Some(b'-' | b'+' | b' ' | b'#' | b'0')) {
                i += 1;
            }
            let digits = |i: &mut usize| -> Option<()> {
                let from = *i;
                while bytes.get(*i).is_some_and(u8::is_ascii_digit) {
                    *i += 1;
                }
                (*i - from <= 4).then_some(())
            };
            digits(&mut i)?;
            if bytes.get(i) == Some(&b'.') {
                i += 1;
                digits(&mut i)?;
            }
            if bytes.get(i) == Some(&b'v') {
                // An OpenCL vector: one argument, whose width the mask check leaves alone.
                i = Self::vector(bytes, i + 1)?;
                if layout.count >= 64 {
                    return None;
                }
                layout.count += 1;
                continue;
            }
            let (length, size) = match (bytes.get(i), bytes.get(i + 1)) {
                (Some(b'h'), Some(b'h')) => (b'H', 2),
                (Some(b'l'), Some(b'l')) => (b'q', 2),
                (Some(&b @ (b'h' | b'l' | b'j' | b'z' | b't')), _) => (b, 1),
                _ => (0, 0),
            };
            i += size;
            let conversion = *bytes.get(i)?;
            i += 1;
            let certain = match conversion {
                b'%' if i == start + 2 => continue,
                b'd' | b'i' | b'u' | b'o' | b'x' | b'X' => {
                    let wide = matches!(length, b'l' | b'q' | b'j' | b'z' | b't');
                    if wide && layout.count < 64 {
                        layout.wide |= 1 << layout.count;
                    }
                    true
                }
                b'c' if length == 0 => true,
                b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A'
                    if matches!(length, 0 | b'l') =>
                {
                    false
                }
                b's' | b'p' if length == 0 => false,
                _ => return None,
            };
            if layout.count >= 64 {
                return None;
            }
            if certain {
                layout.certain |= 1 << layout.count;
            }
            layout.count += 1;
        }
        Some(layout)
    }

    /// The offset after a vector specification whose `v` ends at `i`: a length of 2, 3, 4, 8
    /// or 16, then one of hh h hl l or none, then an integer or (not after hh) a float
    /// conversion; `None` for anything else.
    fn vector(bytes: &[u8], mut i: usize) -> Option<usize> {
        i += match (bytes.get(i), bytes.get(i + 1)) {
            (Some(b'1'), Some(b'6')) => 2,
            (Some(b'2' | b'3' | b'4' | b'8'), _) => 1,
            _ => return None,
        };
        let (hh, size) = match (bytes.get(i), bytes.get(i + 1)) {
            (Some(b'h'), Some(b'h')) => (true, 2),
            (Some(b'h'), Some(b'l')) => (false, 2),
            (Some(b'h' | b'l'), _) => (false, 1),
            _ => (false, 0),
        };
        i += size;
        match bytes.get(i)? {
            b'd' | b'i' | b'u' | b'o' | b'x' | b'X' => Some(i + 1),
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' if !hh => Some(i + 1),
            _ => None,
        }
    }

    /// Whether the entry's count and mask are what the format says.
    fn agrees_with(&self, count: u64, mask: &Mask) -> bool {
        let words = mask.words();
        let word = words.first().copied().unwrap_or(0);
        count == self.count
            && words.len() as u64 == Mask::words_for(count)
            && (count == 64 || word >> count == 0)
            && word & self.certain == self.wide
    }
}

/// The full check with `fmtstr_format`, explaining every disagreement.
fn full_check(entry: &Entry<'_>) -> Option<String> {
    let format = match Format::parse(entry.bytes()) {
        Ok(format) => format,
        Err(error) => return Some(format!("the format string does not parse: {error}")),
    };
    let mut problems = Vec::new();
    let count = entry.argument_count();
    let needed = format.argument_count() as u64;
    if needed != count {
        problems.push(format!(
            ".argument_count is {count} but the format string takes {needed} argument{}",
            if needed == 1 { "" } else { "s" }
        ));
    }
    let mask = entry.mask();
    let words = Mask::words_for(count);
    if mask.len() as u64 != words {
        problems.push(format!(
            ".64bit_arguments has {} word{} but {count} arguments need {words}",
            mask.len(),
            if mask.len() == 1 { "" } else { "s" }
        ));
    }
    if let Some(beyond) = mask.set_bits().find(|bit| *bit >= count) {
        problems.push(format!(
            "the 64-bit mask sets bit {beyond} (argument {}), past the last argument",
            beyond + 1
        ));
    }
    let mut position = 0u64;
    for (index, spec) in format.specs().enumerate() {
        // A '*' takes an int: 32 bits.
        for _ in 0..spec.star_args() {
            if position < count && mask.bit(position) {
                problems.push(format!(
                    "argument {} (a '*' of conversion {}) is 32 bits but the 64-bit mask sets \
                     its bit {position}",
                    position + 1,
                    index + 1
                ));
            }
            position += 1;
        }
        let integer =
            spec.conversion.is_integer() || spec.conversion == fmtstr_format::Conversion::C;
        if integer && spec.vector_len().is_none() && position < count {
            let wide = spec.c_width() == 64;
            let marked = mask.bit(position);
            if marked != wide {
                let text = &entry.bytes()[spec.offset..spec.offset + spec.len];
                problems.push(format!(
                    "argument {} ('{}') is {} bits but the 64-bit mask {} its bit {position}",
                    position + 1,
                    String::from_utf8_lossy(text),
                    if wide { 64 } else { 32 },
                    if marked { "sets" } else { "does not set" }
                ));
            }
        }
        position += 1;
    }
    if problems.is_empty() {
        None
    } else {
        Some(problems.join("; "))
    }
}

/// Collisions and conflicts between all entries of all files: `shards` hold the records of
/// disjoint sets of files, each sorted here by ID and walked side by side, so that the
/// records of an ID form one group without a concatenation of all of them.
fn cross_check(mut shards: Vec<Shard>, inputs: &[Input]) -> Vec<Finding> {
    shards
        .par_iter_mut()
        .for_each(|shard| shard.records.sort_unstable_by_key(|record| record.key));
    let mut findings = Vec::new();
    let mut tables = TableCache::default();
    let mut heads = vec![0usize; shards.len()];
    let mut group: Vec<(usize, Record)> = Vec::new();
    let mut resolved: Vec<Resolved> = Vec::new();
    loop {
        let lowest = shards
            .iter()
            .zip(&heads)
            .filter_map(|(shard, &head)| shard.records.get(head).map(Record::id))
            .min();
        let Some(id) = lowest else {
            break;
        };
        group.clear();
        for (number, (shard, head)) in shards.iter().zip(&mut heads).enumerate() {
            while let Some(record) = shard.records.get(*head).filter(|r| r.id() == id) {
                group.push((number, *record));
                *head += 1;
            }
        }
        let fingerprint = group[0].1.fingerprint();
        if group.iter().all(|(_, r)| r.fingerprint() == fingerprint) {
            continue;
        }
        resolved.clear();
        resolved.extend(group.iter().filter_map(|(number, record)| {
            let (file, note, index) = shards[*number].locate(record.seq)?;
            tables.resolve(inputs, id, file, note, index)
        }));
        // Reported in file order: each distinct string or layout by its first appearance.
        resolved.sort_unstable_by_key(|r| (r.file, r.note, r.index));
        let Some(&first) = resolved.first() else {
            continue;
        };
        let group = resolved.as_slice();
        // The distinct strings, each with its first record.
        let mut strings: Vec<Resolved> = Vec::new();
        for record in group {
            if !strings.iter().any(|s| s.string == record.string) {
                strings.push(*record);
            }
        }
        if strings.len() > 1 {
            let locations: Vec<Location> = strings
                .iter()
                .filter_map(|r| tables.location(inputs, r))
                .collect();
            let described: Vec<String> = locations
                .iter()
                .map(|l| {
                    format!(
                        "\"{}\" in {} .strings[{}]",
                        escape::escape(l.string.as_deref().unwrap_or_default().as_bytes()),
                        l.source(),
                        l.index.unwrap_or(0)
                    )
                })
                .collect();
            findings.push(Finding {
                kind: Kind::Collision,
                id: Some(first.id),
                hex: FormatId::new(first.id).map(|id| format!("{id:#}")),
                message: format!(
                    "ID {} has {} different strings: {}",
                    FormatId::new(first.id)
                        .map_or_else(|| first.id.to_string(), |id| format!("{id:#}")),
                    strings.len(),
                    described.join(", ")
                ),
                locations,
            });
        }
        for string in &strings {
            let mut layouts: Vec<Resolved> = Vec::new();
            for record in group.iter().filter(|r| r.string == string.string) {
                if !layouts.iter().any(|l| l.layout == record.layout) {
                    layouts.push(*record);
                }
            }
            if layouts.len() < 2 {
                continue;
            }
            let locations: Vec<Location> = layouts
                .iter()
                .filter_map(|r| tables.location(inputs, r))
                .collect();
            let described: Vec<String> = locations
                .iter()
                .map(|l| {
                    format!(
                        "{} arguments with mask {} in {} .strings[{}]",
                        l.argument_count.unwrap_or(0),
                        Mask::from_words(l.mask.as_deref().unwrap_or_default()),
                        l.source(),
                        l.index.unwrap_or(0)
                    )
                })
                .collect();
            let text = locations
                .first()
                .and_then(|l| l.string.clone())
                .unwrap_or_default();
            findings.push(Finding {
                kind: Kind::Conflict,
                id: Some(first.id),
                hex: FormatId::new(first.id).map(|id| format!("{id:#}")),
                message: format!(
                    "ID {} (\"{}\") has {} different argument layouts: {}",
                    FormatId::new(first.id)
                        .map_or_else(|| first.id.to_string(), |id| format!("{id:#}")),
                    escape::escape(text.as_bytes()),
                    layouts.len(),
                    described.join(", ")
                ),
                locations,
            });
        }
    }
    findings
}

/// Files read again to describe findings (rare: only files with collisions or conflicts).
#[derive(Default)]
struct TableCache {
    files: IdMap<u32, Option<Vec<u8>>>,
}

impl TableCache {
    /// Calls `read` with the table of note `note` in file `file`, its entry `index`, the
    /// note's offset (when the file has several) and the note's bytes.
    fn with_entry<T>(
        &mut self,
        inputs: &[Input],
        (file, note, index): (u32, u32, u32),
        read: impl FnOnce(&Table<'_>, &Entry<'_>, Option<u64>, Option<Range<u64>>) -> T,
    ) -> Option<T> {
        let input = inputs.get(file as usize)?;
        let bytes = self
            .files
            .entry(file)
            .or_insert_with(|| std::fs::read(&input.path).ok());
        let bytes = bytes.as_deref()?;
        let (table, note_offset, region): (Table<'_>, _, _) = if crate::spirv::is_spirv(bytes) {
            (crate::spirv::audit_table(bytes).ok()??, None, None)
        } else {
            let linked = LinkedElf::parse(bytes).ok()?;
            let note = note as usize;
            let range = &linked.notes().get(note)?.note;
            let note_offset = (linked.notes().len() > 1).then_some(range.start as u64);
            let region = Some(range.start as u64..range.end as u64);
            (
                linked.document(note).ok()?.take_format_strings()?,
                note_offset,
                region,
            )
        };
        let entry = table.entries.get(index as usize)?;
        Some(read(&table, entry, note_offset, region))
    }

    /// The entry a record stands for, read again (`None` if its file changed meanwhile).
    fn resolve(
        &mut self,
        inputs: &[Input],
        id: u64,
        file: u32,
        note: u32,
        index: u32,
    ) -> Option<Resolved> {
        self.with_entry(inputs, (file, note, index), |_, entry, _, _| Resolved {
            id,
            string: string_hash(entry.bytes()),
            layout: layout_hash(entry.argument_count(), entry.mask()),
            file,
            note,
            index,
        })
    }

    fn location(&mut self, inputs: &[Input], record: &Resolved) -> Option<Location> {
        let path = &inputs.get(record.file as usize)?.path;
        self.with_entry(
            inputs,
            (record.file, record.note, record.index),
            |table, entry, note_offset, region| {
                let mut location = location(path, note_offset, table, record.index as usize, entry);
                location.region = region;
                location
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A shard's room is projected from its first file over its share of the files, grows at
    /// least twofold when a projection falls short, and stops projecting at the limit.
    #[test]
    fn a_shard_projects_its_room_from_the_files_so_far() {
        let mut shard = Shard::new(100);
        shard.files_begun = 1;
        shard.make_room(10);
        assert!(
            shard.records.capacity() >= 1000,
            "{}",
            shard.records.capacity()
        );

        let mut last = Shard::new(1);
        last.files_begun = 1;
        last.make_room(10);
        assert!(last.records.capacity() >= 20, "{}", last.records.capacity());

        let mut huge = Shard::new(usize::MAX);
        huge.files_begun = 1;
        huge.make_room(1000);
        assert_eq!(huge.records.capacity(), PROJECTED_ROOM_LIMIT);
    }

    /// A record gives back every bit of any 48-bit ID and 48 bits of the fingerprint.
    #[test]
    fn a_record_keeps_the_id_and_48_bits_of_the_fingerprint() {
        let ids = [1, 0x1234_5678_9abc, FormatId::MAX.get()];
        let fingerprints = [0, 0x0123_4567_89ab_cdef, u64::MAX];
        for id in ids {
            for fingerprint in fingerprints {
                let record = Record::new(id, fingerprint, 7);
                assert_eq!(record.id(), id);
                assert_eq!(record.fingerprint(), fingerprint & 0xffff_ffff_ffff);
                assert_eq!(record.seq, 7);
            }
        }
    }

    /// The fast path never calls clean what the full check with `fmtstr_format` reports, and
    /// accepts only what `Format::parse` accepts.
    #[test]
    fn simple_layouts_agree_with_the_full_check() {
        let flags = ["", "-", "0", "+ #"];
        let widths = ["", "5", "12", "9999", "12345", ".", ".3", "8.2"];
        let lengths = [
            "", "hh", "h", "l", "ll", "j", "z", "t", "L", "hl", "v4", "v2hh", "v3h", "v8hl",
            "v16l", "v16", "v4ll", "v4L", "v1", "v5", "v04", "v4v4", "hv4", "v4z", "v23",
        ];
        let conversions = [
            "d", "i", "u", "o", "x", "X", "c", "s", "p", "f", "e", "G", "a", "%", "n", "y",
        ];
        let mut specs = Vec::new();
        for flag in flags {
            for width in widths {
                for length in lengths {
                    for conversion in conversions {
                        specs.push(format!("%{flag}{width}{length}{conversion}"));
                    }
                }
            }
        }
        let mut checked = 0;
        for (index, spec) in specs.iter().enumerate() {
            let other = &specs[(index * 7 + 3) % specs.len()];
            for text in [
                format!("a {spec} b"),
                format!("{spec}{other} %ld|"),
                format!("%d{spec}"),
            ] {
                let parsed = Format::parse(text.as_bytes());
                let Some(layout) = SimpleLayout::of(text.as_bytes()) else {
                    continue;
                };
                let format = parsed.unwrap_or_else(|e| panic!("fast path accepted {text:?}: {e}"));
                assert_eq!(layout.count, format.argument_count() as u64, "{text:?}");
                for wide in [0u64, layout.wide, layout.wide ^ 1, layout.wide | 2] {
                    let count = layout.count;
                    let mask = Mask::from_words(&if count == 0 {
                        vec![]
                    } else {
                        vec![wide & (u64::MAX >> (64 - count))]
                    });
                    let entry = Entry::new(
                        FormatId::new(1).unwrap(),
                        text.as_str(),
                        count,
                        mask.clone(),
                    );
                    assert_eq!(
                        layout.agrees_with(count, &mask),
                        full_check(&entry).is_none(),
                        "{text:?} with mask {mask}: {:?}",
                        full_check(&entry)
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 10_000, "{checked}");
        // OpenCL vectors take the fast path too.
        let layout = SimpleLayout::of(b"%v4hlf %v16x %v2hhd %08.3v3lg").unwrap();
        assert_eq!((layout.count, layout.certain), (4, 0));
    }
}
