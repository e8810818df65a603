//! The decode driver: a GPU printf buffer and the tables that name its IDs in, exactly what
//! `fmtstr decode` prints out (text, JSON Lines or statistics), warnings to a sink of their own.
//!
//! The buffer is the whole AMD printf buffer as the GPU left it: a 16-byte header (u64
//! bufferOffset in dwords, two reserved u32s), then entries (u64 header {size: 16 bits, format
//! ID: 48 bits}, then the payload dwords). Each ID is looked up in the amdpal.format_strings
//! tables of the ELF images and the JSON tables; each argument takes one payload dword, or two
//! when its bit is set in the 64-bit mask; a vector takes that per component.
//!
//! Nothing in the buffer is trusted. An entry with an unknown ID or too short a payload is
//! replaced in the text by a line `<fmtstr: dword N (byte B): ...>` and decoding goes on; an
//! entry size of 0 or 1, or an entry past the end, ends decoding there (with such a line). A
//! bufferOffset beyond the buffer means it overflowed: a warning says how many dwords were
//! lost.
//!
//! When the ELF images are HSA code objects (OpenCL/HIP: an amdhsa.printf table), the buffer is
//! the one ROCm's runtime reads: an 8-byte header (u32 bytes used, u32 capacity), then one
//! record per call: the u32 ID and each argument in the number of bytes its amdhsa.printf
//! entry gives (LLVM's AMDGPUPrintfRuntimeBinding writes them). An unknown ID or a record past
//! the end stops decoding with a marker line. When their amdhsa.printf entries are HIP's
//! buffered printf (`0:0:HASH,FORMAT`, clang -mprintf-kind=buffered), the records are a control
//! dword (size << 2 | 2), the format's 64-bit hash and 8-byte argument slots
//! (`fmtstr_decode::hip`); a control dword no record has, a record past `used` or an unknown
//! hash stops decoding with a marker line and an error (exit 2).

use std::collections::HashSet;
use std::io::{self, Write};
use std::sync::Mutex;

use fmtstr_decode::stream::{self, Options as StreamOptions, Stats};
use fmtstr_decode::{Buffer, Formats, Problem, ProblemKind};
use fmtstr_meta::Table;

use crate::{Error, Source};

mod hsa;
mod json;

/// What [`decode`] writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Output {
    /// The text, as C's printf prints it.
    #[default]
    Text,
    /// One JSON object per entry, one per line (schemas/decode.schema.json).
    JsonLines,
    /// The number of entries and dwords per format ID, most dwords first (needs no tables).
    Stats,
    /// [`Output::Stats`] as one JSON object.
    StatsJson,
}

/// How to decode.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// What is written: the text (the default), JSON Lines, or statistics.
    pub output: Output,
    /// Threads that render (at least 1). Output is in buffer order either way.
    pub jobs: usize,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            output: Output::Text,
            jobs: std::thread::available_parallelism()
                .map(usize::from)
                .unwrap_or(1),
        }
    }
}

/// What a decode that ran found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Warnings written to the warning sink (`--strict` makes any of them exit 1).
    pub warnings: u64,
}

/// Problems shown one by one on stderr; the rest are counted.
const SHOWN: usize = 50;

/// Decodes `buffer` with the tables of `elfs` (PAL ELFs or HSA code objects) and `strings` (JSON
/// tables as `fmtstr lower --emit-strings` writes them): writes what `fmtstr decode` prints to
/// `out` and its warnings (each a line `fmtstr: warning: ...`) to `warnings`.
///
/// Errors: no tables at all (unless [`Output::Stats`]), an input that cannot be read or parsed,
/// a write to `out` or `warnings` that failed ([`Error::Write`]; a reader that stopped early
/// shows as [`io::ErrorKind::BrokenPipe`]).
pub fn decode(
    buffer: &Source<'_>,
    elfs: &[Source<'_>],
    strings: &[Source<'_>],
    options: &Options,
    out: &mut dyn Write,
    warnings: &mut dyn Write,
) -> Result<Summary, Error> {
    // Each table is read once: a pipe (`--elf <(...)`) cannot be read twice, and the tables
    // are looked at once for HSA entries and once for PAL ones.
    let elf_bytes = read_all(elfs)?;
    let string_bytes = read_all(strings)?;
    let elfs = &in_memory(&elf_bytes);
    let strings = &in_memory(&string_bytes);
    let stats = matches!(options.output, Output::Stats | Output::StatsJson);
    if elfs.is_empty() && strings.is_empty() && !stats {
        return Err(Error::input(
            "no format strings: give the tables that name the buffer's IDs with --elf FILE \
             (PAL ELFs) or --strings TABLE.json (as `fmtstr lower --emit-strings` writes)",
        ));
    }
    if options.jobs == 0 {
        return Err(Error::input("--jobs 0: give at least 1 thread"));
    }
    if let Some(formats) = hsa::formats(elfs, strings, options)? {
        return hsa::run(buffer, &formats, out, warnings);
    }
    let mut warnings = Warnings::new(buffer.name(), warnings);
    let formats = load_formats(elfs, strings, &mut warnings)?;

    let opened = OpenedBuffer::open(buffer)?;
    let buffer_name = buffer.name();
    let buffer = Buffer::parse(opened.bytes())
        .map_err(|error| Error::input(format!("{buffer_name}: {error}")))?;
    for notice in buffer.notices() {
        warnings.buffer(&notice.to_string())?;
    }
    let stream_options = StreamOptions::for_buffer(&buffer, options.jobs);
    let release = |window: &std::ops::Range<u64>| {
        opened.release(
            fmtstr_decode::byte_offset(window.start) as usize
                ..fmtstr_decode::byte_offset(window.end) as usize,
        );
    };

    let written = match options.output {
        Output::Stats | Output::StatsJson => {
            let mut stats = Stats::default();
            stream::run::<_, io::Error, _, _>(
                &buffer,
                &stream_options,
                |window| stream::count(&buffer, &formats, window),
                |window, window_stats| {
                    release(&window);
                    stats.merge(window_stats);
                    Ok(())
                },
            )
            .map_err(Error::Write)?;
            if let Some(stop) = &stats.stop {
                warnings.problem(stop).map_err(Error::Write)?;
            }
            if options.output == Output::StatsJson {
                json::write_stats(out, &buffer, &formats, &stats)
            } else {
                write_stats(out, &buffer, &formats, &stats)
            }
        }
        Output::JsonLines => stream::run_bounded(
            &buffer,
            &stream_options,
            &formats,
            |window| json::decode_window(&buffer, &formats, window),
            |window, chunk| {
                release(&window);
                warnings.chunk(&chunk.problems, chunk.printed, chunk.marked)?;
                out.write_all(&chunk.text)
            },
        ),
        Output::Text if stream_options.jobs == 1 => {
            stream::decode_sequential(&buffer, &formats, 1 << 20, |window, chunk| {
                release(&window);
                warnings.chunk(&chunk.problems, chunk.printed, chunk.marked)?;
                out.write_all(&chunk.text)
            })
        }
        Output::Text => {
            // Text buffers go back to the workers once written.
            let spare: Mutex<Vec<Vec<u8>>> = Mutex::new(Vec::new());
            let take = || {
                spare
                    .lock()
                    .ok()
                    .and_then(|mut s| s.pop())
                    .unwrap_or_default()
            };
            stream::run_bounded(
                &buffer,
                &stream_options,
                &formats,
                |window| stream::decode_text_into(&buffer, &formats, window, take()),
                |window, mut chunk| {
                    release(&window);
                    warnings.chunk(&chunk.problems, chunk.printed, chunk.marked)?;
                    out.write_all(&chunk.text)?;
                    chunk.text.clear();
                    match spare.lock() {
                        Ok(mut spare) if chunk.text.capacity() <= 8 << 20 => spare.push(chunk.text),
                        _ => {}
                    }
                    Ok(())
                },
            )
        }
    };
    written.and_then(|()| out.flush()).map_err(Error::Write)?;
    opened.check_unchanged()?;
    warnings.finish()?;
    Ok(Summary {
        warnings: warnings.count,
    })
}

/// Every source's name and bytes.
fn read_all(sources: &[Source<'_>]) -> Result<Vec<(String, Vec<u8>)>, Error> {
    sources
        .iter()
        .map(|source| Ok((source.name(), source.read()?.into_owned())))
        .collect()
}

fn in_memory(read: &[(String, Vec<u8>)]) -> Vec<Source<'_>> {
    read.iter()
        .map(|(name, bytes)| Source::Bytes { name, bytes })
        .collect()
}

/// The buffer's bytes: a file is mapped (and decoded pages given back to the kernel), bytes in
/// memory are used as they are.
enum OpenedBuffer<'a> {
    Mapped(fmtstr_fs::Input),
    Bytes(&'a [u8]),
}

impl<'a> OpenedBuffer<'a> {
    fn open(source: &Source<'a>) -> Result<OpenedBuffer<'a>, Error> {
        match source {
            // Mapped from the first byte: a buffer is decoded in constant memory, whatever
            // its size. A pipe or `-` is read.
            Source::Path(path) => Ok(OpenedBuffer::Mapped(fmtstr_fs::Input::map_from(
                path, 1, false,
            )?)),
            Source::Bytes { bytes, .. } => Ok(OpenedBuffer::Bytes(bytes)),
        }
    }

    fn bytes(&self) -> &[u8] {
        match self {
            OpenedBuffer::Mapped(mapped) => mapped.bytes(),
            OpenedBuffer::Bytes(bytes) => bytes,
        }
    }

    fn release(&self, range: std::ops::Range<usize>) {
        if let OpenedBuffer::Mapped(mapped) = self {
            mapped.release(range);
        }
    }

    /// An error when the file shrank while it was decoded: what was printed of it is void.
    fn check_unchanged(&self) -> Result<(), Error> {
        match self {
            OpenedBuffer::Mapped(mapped) => Ok(mapped.check_unchanged()?),
            OpenedBuffer::Bytes(_) => Ok(()),
        }
    }
}

/// Reads every table; a table that cannot be read is an error, an ELF without one a warning.
fn load_formats(
    elfs: &[Source<'_>],
    strings: &[Source<'_>],
    warnings: &mut Warnings<'_>,
) -> Result<Formats, Error> {
    let mut tables: Vec<(String, Table<'static>)> = Vec::new();
    for path in elfs {
        let bytes = path.read()?;
        let (linked, documents) = crate::parse_linked(path, &bytes)?;
        if documents.len() > 1 {
            // A linked file the post-link step has not folded: each note is a table.
            for (note, document) in linked.notes().iter().zip(&documents) {
                if let Some(table) = document.format_strings() {
                    let name = crate::note_name(path, Some(note.note.start));
                    tables.push((name, table.clone().into_owned()));
                }
            }
            continue;
        }
        let document = documents.first();
        match document.and_then(|d| d.format_strings()) {
            Some(table) => tables.push((path.name(), table.clone().into_owned())),
            None => warnings.plain(&format!(
                "{}: {}; it names no format strings",
                path.name(),
                if document.is_some() {
                    "PAL metadata without an amdpal.format_strings table"
                } else {
                    "no PAL metadata note (NT_AMDGPU_METADATA)"
                }
            ))?,
        }
    }
    for path in strings {
        let bytes = path.read()?;
        let json: serde_json::Value =
            serde_json::from_slice(&bytes).map_err(|source| Error::NotJson {
                name: path.name(),
                source,
            })?;
        let table = Table::from_json(&json).map_err(|error| {
            Error::input(format!(
                "{}: {error} (see schemas/format-strings.schema.json)",
                path.name()
            ))
        })?;
        tables.push((path.name(), table));
    }
    let formats = Formats::from_tables(tables);
    for finding in formats.describe_findings() {
        warnings.plain(&finding)?;
    }
    Ok(formats)
}

/// Warnings written to their sink: counted, the per-entry ones shown up to a limit, format
/// notes once per format.
struct Warnings<'w> {
    sink: &'w mut dyn Write,
    buffer: String,
    count: u64,
    shown: usize,
    hidden: u64,
    noted: HashSet<u64>,
    printed: u64,
    marked: u64,
}

impl<'w> Warnings<'w> {
    fn new(buffer: String, sink: &'w mut dyn Write) -> Warnings<'w> {
        Warnings {
            sink,
            buffer,
            count: 0,
            shown: 0,
            hidden: 0,
            noted: HashSet::new(),
            printed: 0,
            marked: 0,
        }
    }

    fn plain(&mut self, message: &str) -> Result<(), Error> {
        self.count += 1;
        writeln!(self.sink, "fmtstr: warning: {message}").map_err(Error::Write)
    }

    fn buffer(&mut self, message: &str) -> Result<(), Error> {
        let message = format!("{}: {message}", self.buffer);
        self.plain(&message)
    }

    fn problem(&mut self, problem: &Problem) -> io::Result<()> {
        if let ProblemKind::Format { id, .. } = problem.kind {
            if !self.noted.insert(id) {
                return Ok(());
            }
        }
        self.count += 1;
        if self.shown < SHOWN {
            self.shown += 1;
            writeln!(self.sink, "fmtstr: warning: {}: {problem}", self.buffer)?;
        } else {
            self.hidden += 1;
        }
        Ok(())
    }

    fn chunk(&mut self, problems: &[Problem], printed: u64, marked: u64) -> io::Result<()> {
        for problem in problems {
            self.problem(problem)?;
        }
        self.printed += printed;
        self.marked += marked;
        Ok(())
    }

    fn finish(&mut self) -> Result<(), Error> {
        if self.hidden > 0 {
            writeln!(
                self.sink,
                "fmtstr: warning: {}: {} more warnings not shown",
                self.buffer, self.hidden
            )
            .map_err(Error::Write)?;
        }
        if self.marked > 0 {
            writeln!(
                self.sink,
                "fmtstr: warning: {}: {} of {} entries could not be printed; their lines start \
                 with <fmtstr:",
                self.buffer,
                self.marked,
                self.marked + self.printed
            )
            .map_err(Error::Write)?;
        }
        self.sink.flush().map_err(Error::Write)
    }
}

fn write_stats(
    out: &mut dyn Write,
    buffer: &Buffer<'_>,
    formats: &Formats,
    stats: &Stats,
) -> io::Result<()> {
    let rows = stats.sorted();
    let entries: u64 = rows.iter().map(|(_, c)| c.entries).sum();
    let dwords: u64 = rows.iter().map(|(_, c)| c.dwords).sum();
    writeln!(
        out,
        "{entries} entries in {dwords} dwords (bufferOffset {}, capacity {} dwords), {} formats",
        buffer.header().buffer_offset,
        buffer.capacity(),
        rows.len()
    )?;
    if rows.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "  {:>10}  {:>12}  {:>6}  {:<14}  format",
        "entries", "dwords", "share", "ID"
    )?;
    for (id, count) in &rows {
        let format = match formats.get(*id) {
            Some(known) => fmtstr_decode::quoted(known.entry()),
            None if formats.is_empty() => "(no tables given)".to_string(),
            None => "(unknown ID)".to_string(),
        };
        writeln!(
            out,
            "  {:>10}  {:>12}  {:>5.1}%  {:#014x}  {format}",
            count.entries,
            count.dwords,
            count.dwords as f64 * 100.0 / dwords.max(1) as f64,
            id
        )?;
    }
    let cut: Vec<&(u64, stream::Count)> = rows.iter().filter(|(_, c)| c.strings_cut > 0).collect();
    if !cut.is_empty() {
        writeln!(
            out,
            "%s strings cut at the bytes reserved (fmtstr lower --runtime-strings N):"
        )?;
        writeln!(out, "  {:>10}  {:<14}  format", "cut", "ID")?;
        for (id, count) in cut {
            let format = formats
                .get(*id)
                .map_or_else(String::new, |known| fmtstr_decode::quoted(known.entry()));
            writeln!(out, "  {:>10}  {:#014x}  {format}", count.strings_cut, id)?;
        }
    }
    let sites = site_stats(formats, &rows);
    if !sites.is_empty() {
        writeln!(out, "per call site (fmtstr lower --prefix site):")?;
        writeln!(out, "  {:>10}  {:<5}  site", "entries", "limit")?;
        for site in sites {
            writeln!(
                out,
                "  {:>10}  {:<5}  {}",
                site.entries,
                if site.limit_hit { "hit" } else { "-" },
                site.site
            )?;
        }
    }
    Ok(())
}

/// One call site's lines in the buffer.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct SiteStats {
    /// `file:line:column`, or a function's name, as the tables list it (`.fmtstr_sites`).
    pub site: String,
    /// Entries its formats printed, the limit's marker not counted.
    pub entries: u64,
    /// Whether its `--limit-per-site` marker was printed: the site went over its limit.
    pub limit_hit: bool,
}

/// Per call site, in the order the sites first appear in `rows`: what its formats printed,
/// and whether its limit was hit. Empty when no table lists sites.
pub(crate) fn site_stats(formats: &Formats, rows: &[(u64, stream::Count)]) -> Vec<SiteStats> {
    let mut sites: Vec<SiteStats> = Vec::new();
    for (id, count) in rows {
        let Some(known) = formats.get(*id) else {
            continue;
        };
        let marker = known.entry().string().contains(fmtstr_meta::LIMIT_MARKER);
        for site in known.entry().sites() {
            let index = match sites.iter().position(|s| s.site == site) {
                Some(index) => index,
                None => {
                    sites.push(SiteStats {
                        site: site.to_owned(),
                        entries: 0,
                        limit_hit: false,
                    });
                    sites.len() - 1
                }
            };
            if marker {
                sites[index].limit_hit = true;
            } else {
                sites[index].entries += count.entries;
            }
        }
    }
    sites
}
