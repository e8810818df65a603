//! `fmtstr decode`: a GPU printf buffer back into the text C's printf prints.

use std::collections::HashSet;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{bail, Context};
use fmtstr_decode::stream::{self, Options, Stats};
use fmtstr_decode::{Buffer, Formats, Mapped, Problem, ProblemKind};
use fmtstr_format::Format;
use fmtstr_meta::Table;

use crate::{diagnostics, Outcome};

mod hsa;
mod json;

/// Decode a GPU printf buffer into exactly the text C's printf would have printed.
///
/// BUFFER is the whole AMD printf buffer as the GPU left it: a 16-byte header (u64
/// bufferOffset in dwords, two reserved u32s), then entries (u64 header {size: 16 bits, format
/// ID: 48 bits}, then the payload dwords). Each ID is looked up in the amdpal.format_strings
/// tables of the --elf files and the --strings JSON tables; each argument takes one payload
/// dword, or two when its bit is set in the 64-bit mask; a vector takes that per component.
///
/// Nothing in the buffer is trusted. An entry with an unknown ID or too short a payload is
/// replaced in the text by a line `<fmtstr: dword N (byte B): ...>` and decoding goes on; an
/// entry size of 0 or 1, or an entry past the end, ends decoding there (with such a line). A
/// bufferOffset beyond the buffer means it overflowed: a warning says how many dwords were
/// lost. Warnings go to stderr; --strict makes any warning exit 1.
///
/// When the --elf files are HSA code objects (OpenCL/HIP: an amdhsa.printf table), BUFFER is
/// the buffer ROCm's runtime reads: an 8-byte header (u32 bytes used, u32 capacity), then one
/// record per call: the u32 ID and each argument in the number of bytes its amdhsa.printf
/// entry gives (LLVM's AMDGPUPrintfRuntimeBinding writes them). An unknown ID or a record past
/// the end stops decoding with a marker line.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  fmtstr decode printf.bin --elf pipeline.elf             the text, as printf prints it
  fmtstr decode printf.bin --strings k.json --strict      exit 1 on any warning
  fmtstr decode printf.bin --elf a.elf --elf b.elf --json one JSON object per entry
  fmtstr decode printf.bin --stats                        entries and dwords per format ID
  fmtstr decode printf.bin --elf p.elf --sort prefix      by who printed it (fmtstr lower --prefix)
  fmtstr decode printf.bin --elf p.elf --grep '^\\[block 0,0,0 thread 3,'   one thread's lines
  fmtstr decode --elf k.o printf.bin                      an OpenCL/HIP (HSA) code object's buffer
  fmtstr decode --vprintf 'x=%d y=%f\\n' args.bin          one CUDA vprintf argument buffer

--strings takes the table `fmtstr lower --emit-strings` writes (schemas/format-strings.schema.json).
--json writes one object per line (JSON Lines, schemas/decode.schema.json): offset and byte
of the entry, its size, ID, format, arguments and text, or the error that replaced its text.

--vprintf FORMAT BUFFER renders BUFFER as the argument buffer of vprintf(FORMAT, BUFFER) with
the CUDA ABI: each argument at its natural alignment, char and short promoted to int (4
bytes), float to double (8), %p and %s pointers 8 bytes. FORMAT is read as a C
string-literal body unless --raw.")]
pub struct Args {
    /// The buffer file (for --vprintf: the vprintf argument buffer).
    #[arg(value_name = "BUFFER")]
    buffer: PathBuf,
    /// A PAL ELF whose amdpal.format_strings table names the buffer's IDs (repeat for several),
    /// or an HSA code object whose amdhsa.printf entries do.
    #[arg(long, value_name = "FILE")]
    elf: Vec<PathBuf>,
    /// A JSON format-string table (repeat for several). When tables give one ID different
    /// strings, the first one given is used and a warning names both.
    #[arg(long, value_name = "TABLE.json")]
    strings: Vec<PathBuf>,
    /// Exit 1 when there is any warning (a marked entry, an overflow, a collision, ...).
    #[arg(long)]
    strict: bool,
    /// Write one JSON object per entry (JSON Lines) instead of the text.
    #[arg(long)]
    json: bool,
    /// Write the number of entries and dwords per format ID, most dwords first, instead of the
    /// text (with --json: one JSON object). Needs no tables.
    #[arg(long)]
    stats: bool,
    /// Threads that render (default: all cores). Output is in buffer order either way.
    #[arg(short, long, value_name = "N")]
    jobs: Option<usize>,
    /// Render BUFFER as one CUDA vprintf argument buffer for FORMAT.
    #[arg(long, value_name = "FORMAT", conflicts_with_all = ["elf", "strings", "json", "stats"])]
    vprintf: Option<String>,
    /// With --vprintf: take FORMAT's bytes literally instead of reading C escapes.
    #[arg(long, requires = "vprintf")]
    raw: bool,
    /// prefix: sort the text by who printed it: the values of the prefix `fmtstr lower
    /// --prefix` put at the start of each entry (`[block 1,0,0 thread 5,0,0] `), as numbers in
    /// the order printed; a stable sort, so one thread's lines keep buffer order. A line
    /// without a prefix stays with the prefixed line before it; lines before the first
    /// prefixed one come first.
    #[arg(long, value_enum, value_name = "KEY", conflicts_with_all = ["json", "stats"])]
    sort: Option<SortKey>,
    /// Print only the lines this regular expression (Rust regex syntax) matches, prefix
    /// included, e.g. --grep '^\[block 0,0,0 thread 3,'. After --sort.
    #[arg(long, value_name = "REGEX", conflicts_with_all = ["json", "stats"])]
    grep: Option<String>,
}

/// What `--sort` orders the decoded text by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SortKey {
    /// The values of the `--prefix` each entry starts with.
    Prefix,
}

/// Problems shown one by one on stderr; the rest are counted.
const SHOWN: usize = 50;

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    if let Some(format) = &args.vprintf {
        return vprintf(format, args.raw, &args.buffer);
    }
    if args.elf.is_empty() && args.strings.is_empty() && !args.stats {
        bail!(
            "no format strings: give the tables that name the buffer's IDs with --elf FILE \
             (PAL ELFs) or --strings TABLE.json (as `fmtstr lower --emit-strings` writes)"
        );
    }
    if let Some(formats) = hsa::formats(&args)? {
        if args.sort.is_some() || args.grep.is_some() {
            bail!(
                "--sort and --grep read the AMD printf-buffer protocol's text; for an HSA code \
                 object's buffer, pipe the text through sort or grep"
            );
        }
        return hsa::run(&args, &formats);
    }
    let mut warnings = Warnings::new(&args.buffer);
    let formats = load_formats(&args, &mut warnings)?;

    let mapped = Mapped::open(&args.buffer)
        .with_context(|| format!("cannot read {}", args.buffer.display()))?;
    let buffer = Buffer::parse(mapped.bytes())
        .map_err(|error| anyhow::anyhow!("{}: {error}", args.buffer.display()))?;
    for notice in buffer.notices() {
        warnings.buffer(&notice.to_string());
    }
    let jobs = args.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(usize::from)
            .unwrap_or(1)
    });
    if jobs == 0 {
        bail!("--jobs 0: give at least 1 thread");
    }
    let grep = match &args.grep {
        Some(pattern) => Some(regex::bytes::Regex::new(pattern).map_err(|error| {
            anyhow::anyhow!(
                "--grep: not a regular expression: {error}\n(the syntax is Rust's regex crate's: \
                 escape [ ] ( ) . * + ? with a backslash to match them literally)"
            )
        })?),
        None => None,
    };
    let post_process = grep.is_some() || args.sort.is_some();
    let options = Options::for_buffer(&buffer, jobs);
    let release = |window: &std::ops::Range<u64>| {
        mapped.release(
            fmtstr_decode::byte_offset(window.start) as usize
                ..fmtstr_decode::byte_offset(window.end) as usize,
        );
    };

    let stdout = io::stdout();
    // --sort and --grep need the whole text first.
    let mut collected: Vec<u8> = Vec::new();
    let mut out: Box<dyn Write> = if post_process {
        Box::new(&mut collected)
    } else {
        Box::new(stdout.lock())
    };
    let written = if args.stats {
        let mut stats = Stats::default();
        stream::run::<_, io::Error, _, _>(
            &buffer,
            &options,
            |window| stream::count(&buffer, window),
            |window, window_stats| {
                release(&window);
                stats.merge(window_stats);
                Ok(())
            },
        )?;
        if let Some(stop) = &stats.stop {
            warnings.problem(stop);
        }
        if args.json {
            json::write_stats(&mut out, &buffer, &formats, &stats)
        } else {
            write_stats(&mut out, &buffer, &formats, &stats)
        }
    } else if args.json {
        stream::run_bounded(
            &buffer,
            &options,
            &formats,
            |window| json::decode_window(&buffer, &formats, window),
            |window, chunk| {
                release(&window);
                warnings.chunk(&chunk.problems, chunk.printed, chunk.marked);
                out.write_all(&chunk.text)
            },
        )
    } else if options.jobs == 1 {
        stream::decode_sequential(&buffer, &formats, 1 << 20, |window, chunk| {
            release(&window);
            warnings.chunk(&chunk.problems, chunk.printed, chunk.marked);
            out.write_all(&chunk.text)
        })
    } else {
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
            &options,
            &formats,
            |window| stream::decode_text_into(&buffer, &formats, window, take()),
            |window, mut chunk| {
                release(&window);
                warnings.chunk(&chunk.problems, chunk.printed, chunk.marked);
                out.write_all(&chunk.text)?;
                chunk.text.clear();
                match spare.lock() {
                    Ok(mut spare) if chunk.text.capacity() <= 8 << 20 => spare.push(chunk.text),
                    _ => {}
                }
                Ok(())
            },
        )
    };
    let written = written.and_then(|()| out.flush());
    drop(out);
    let written = written.and_then(|()| {
        if !post_process {
            return Ok(());
        }
        let mut text = collected;
        if args.sort == Some(SortKey::Prefix) {
            text = fmtstr_decode::lines::sort_by_prefix(&text);
        }
        if let Some(pattern) = &grep {
            text = fmtstr_decode::lines::grep(&text, pattern);
        }
        let mut stdout = stdout.lock();
        stdout.write_all(&text).and_then(|()| stdout.flush())
    });
    match written {
        Ok(()) => {}
        // A reader that stopped early (`| head`) is not an error.
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => return Ok(Outcome::Clean),
        Err(error) => return Err(error).context("cannot write to stdout"),
    }
    warnings.finish();
    Ok(if args.strict && warnings.count > 0 {
        Outcome::Findings
    } else {
        Outcome::Clean
    })
}

/// Reads every table; a table that cannot be read is an error, an ELF without one a warning.
fn load_formats(args: &Args, warnings: &mut Warnings) -> anyhow::Result<Formats> {
    let mut tables: Vec<(String, Table<'static>)> = Vec::new();
    for path in &args.elf {
        let bytes = crate::elf::read(path)?;
        let (linked, documents) = crate::elf::parse_linked(path, &bytes)?;
        if documents.len() > 1 {
            // A linked file the post-link step has not folded: each note is a table.
            for (note, document) in linked.notes().iter().zip(&documents) {
                if let Some(table) = document.format_strings() {
                    let name = crate::elf::note_name(path, Some(note.note.start));
                    tables.push((name, table.clone().into_owned()));
                }
            }
            continue;
        }
        let document = documents.first();
        match document.and_then(|d| d.format_strings()) {
            Some(table) => tables.push((path.display().to_string(), table.clone().into_owned())),
            None => warnings.plain(&format!(
                "{}: {}; it names no format strings",
                path.display(),
                if document.is_some() {
                    "PAL metadata without an amdpal.format_strings table"
                } else {
                    "no PAL metadata note (NT_AMDGPU_METADATA)"
                }
            )),
        }
    }
    for path in &args.strings {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let json: serde_json::Value = serde_json::from_str(&text)
            .with_context(|| format!("{} is not JSON", path.display()))?;
        let table = Table::from_json(&json).map_err(|error| {
            anyhow::anyhow!(
                "{}: {error} (see schemas/format-strings.schema.json)",
                path.display()
            )
        })?;
        tables.push((path.display().to_string(), table));
    }
    let formats = Formats::from_tables(tables);
    for finding in formats.describe_findings() {
        warnings.plain(&finding);
    }
    Ok(formats)
}

/// Warnings on stderr: counted, the per-entry ones shown up to a limit, format notes once per
/// format.
struct Warnings {
    buffer: String,
    count: u64,
    shown: usize,
    hidden: u64,
    noted: HashSet<u64>,
    printed: u64,
    marked: u64,
}

impl Warnings {
    fn new(buffer: &Path) -> Warnings {
        Warnings {
            buffer: buffer.display().to_string(),
            count: 0,
            shown: 0,
            hidden: 0,
            noted: HashSet::new(),
            printed: 0,
            marked: 0,
        }
    }

    fn plain(&mut self, message: &str) {
        self.count += 1;
        eprintln!("fmtstr: warning: {message}");
    }

    fn buffer(&mut self, message: &str) {
        let message = format!("{}: {message}", self.buffer);
        self.plain(&message);
    }

    fn problem(&mut self, problem: &Problem) {
        if let ProblemKind::Format { id, .. } = problem.kind {
            if !self.noted.insert(id) {
                return;
            }
        }
        self.count += 1;
        if self.shown < SHOWN {
            self.shown += 1;
            eprintln!("fmtstr: warning: {}: {problem}", self.buffer);
        } else {
            self.hidden += 1;
        }
    }

    fn chunk(&mut self, problems: &[Problem], printed: u64, marked: u64) {
        for problem in problems {
            self.problem(problem);
        }
        self.printed += printed;
        self.marked += marked;
    }

    fn finish(&self) {
        if self.hidden > 0 {
            eprintln!(
                "fmtstr: warning: {}: {} more warnings not shown",
                self.buffer, self.hidden
            );
        }
        if self.marked > 0 {
            eprintln!(
                "fmtstr: warning: {}: {} of {} entries could not be printed; their lines start \
                 with <fmtstr:",
                self.buffer,
                self.marked,
                self.marked + self.printed
            );
        }
    }
}

fn write_stats(
    out: &mut impl Write,
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
    for (id, count) in rows {
        let format = match formats.get(id) {
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
    Ok(())
}

fn vprintf(format: &str, raw: bool, path: &Path) -> anyhow::Result<Outcome> {
    let bytes = diagnostics::format_bytes(format, raw)?;
    let format = Format::parse(&bytes).map_err(|error| diagnostics::parse_error(&bytes, &error))?;
    let buffer = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut text = Vec::new();
    fmtstr_decode::vprintf::render_vprintf(&format, &buffer, &mut text)
        .map_err(|error| anyhow::anyhow!("{}: {error}", path.display()))?;
    let mut out = io::stdout().lock();
    match out.write_all(&text).and_then(|()| out.flush()) {
        Err(error) if error.kind() != io::ErrorKind::BrokenPipe => {
            Err(error).context("cannot write to stdout")
        }
        _ => Ok(Outcome::Clean),
    }
}
