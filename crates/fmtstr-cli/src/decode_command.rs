//! `fmtstr decode`: a GPU printf buffer back into the text C's printf prints.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;
use fmtstr_format::Format;
use fmtstr_tools::decode::{Options, Output};
use fmtstr_tools::{Error, Source};

use crate::{diagnostics, Outcome};

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
///
/// When their entries are HIP's buffered printf (clang -mprintf-kind=buffered,
/// `0:0:HASH,FORMAT`), each record of the same kind of buffer is a control dword (record size
/// << 2 | 2), the format's 64-bit hash and one 8-byte slot per argument (a %s: its bytes, NUL
/// and padding to 8). A control dword no record can have, a record past the header's `used` or
/// a hash in no table stops decoding with a marker line and exits 2, naming the byte.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  fmtstr decode printf.bin --elf pipeline.elf             the text, as printf prints it
  fmtstr decode printf.bin --strings k.json --strict      exit 1 on any warning
  fmtstr decode printf.bin --elf a.elf --elf b.elf --json one JSON object per entry
  fmtstr decode printf.bin --stats                        entries and dwords per format ID
  fmtstr decode printf.bin --elf p.elf --sort prefix      by who printed it (fmtstr lower --prefix)
  fmtstr decode printf.bin --elf p.elf --grep '^\\[block 0,0,0 thread 3,'   one thread's lines
  fmtstr decode --elf k.o printf.bin                      an OpenCL/HIP (HSA) code object's buffer,
                                                          HIP's -mprintf-kind=buffered included
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
    #[arg(long, value_enum, value_name = "KEY", conflicts_with_all = ["json", "stats", "vprintf"])]
    sort: Option<SortKey>,
    /// Print only the lines this regular expression (Rust regex syntax) matches, prefix
    /// included, e.g. --grep '^\[block 0,0,0 thread 3,'. After --sort.
    #[arg(long, value_name = "REGEX", conflicts_with_all = ["json", "stats", "vprintf"])]
    grep: Option<String>,
}

/// What `--sort` orders the decoded text by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SortKey {
    /// The values of the `--prefix` each entry starts with.
    Prefix,
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    if let Some(format) = &args.vprintf {
        return vprintf(format, args.raw, &args.buffer);
    }
    let output = match (args.stats, args.json) {
        (true, true) => Output::StatsJson,
        (true, false) => Output::Stats,
        (false, true) => Output::JsonLines,
        (false, false) => Output::Text,
    };
    let mut options = Options {
        output,
        ..Options::default()
    };
    if let Some(jobs) = args.jobs {
        options.jobs = jobs;
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
    let elfs: Vec<Source<'_>> = args.elf.iter().map(|p| Source::Path(p)).collect();
    let strings: Vec<Source<'_>> = args.strings.iter().map(|p| Source::Path(p)).collect();
    let decode = |out: &mut dyn Write| {
        fmtstr_tools::decode::decode(
            &Source::Path(&args.buffer),
            &elfs,
            &strings,
            &options,
            out,
            &mut diagnostics::stderr(),
        )
    };
    let result = if args.sort.is_none() && grep.is_none() {
        widen_pipe(&io::stdout());
        decode(&mut io::stdout().lock())
    } else {
        // --sort and --grep need the whole text first.
        let mut text = Vec::new();
        decode(&mut text).and_then(|summary| {
            if args.sort == Some(SortKey::Prefix) {
                text = fmtstr_decode::lines::sort_by_prefix(&text);
            }
            if let Some(pattern) = &grep {
                text = fmtstr_decode::lines::grep(&text, pattern);
            }
            let mut stdout = io::stdout().lock();
            stdout
                .write_all(&text)
                .and_then(|()| stdout.flush())
                .map_err(Error::Write)?;
            Ok(summary)
        })
    };
    match result {
        Ok(summary) if args.strict && summary.warnings > 0 => Ok(Outcome::Findings),
        Ok(_) => Ok(Outcome::Clean),
        // A reader that stopped early (`| head`) is not an error.
        Err(Error::Write(error)) if error.kind() == io::ErrorKind::BrokenPipe => Ok(Outcome::Clean),
        Err(Error::Write(error)) => Err(error).context("cannot write to stdout"),
        Err(error) => Err(error.into()),
    }
}

/// Bytes a pipe on stdout is raised to hold: the size of the pieces the text is written in,
/// and Linux's default limit for an unprivileged process (`/proc/sys/fs/pipe-max-size`).
#[cfg(target_os = "linux")]
const PIPE_BYTES: usize = 1 << 20;

/// Raises the capacity of a pipe on stdout to [`PIPE_BYTES`]: in the default 64 KiB pipe the
/// writer sleeps and is woken about 16 times per piece (a tenth of the context switches,
/// and about 1% less CPU, with the larger pipe). Anything else on stdout, or a refusal (the
/// user's pipe pages used up), is left as it is.
#[cfg(target_os = "linux")]
fn widen_pipe(stdout: &io::Stdout) {
    if rustix::pipe::fcntl_getpipe_size(stdout).is_ok_and(|size| size < PIPE_BYTES) {
        let _ = rustix::pipe::fcntl_setpipe_size(stdout, PIPE_BYTES);
    }
}

/// Elsewhere a pipe's capacity is the system's.
#[cfg(not(target_os = "linux"))]
fn widen_pipe(_stdout: &io::Stdout) {}

fn vprintf(format: &str, raw: bool, path: &Path) -> anyhow::Result<Outcome> {
    let bytes = diagnostics::format_bytes(format, raw)?;
    let format = Format::parse(&bytes).map_err(|error| diagnostics::parse_error(&bytes, &error))?;
    let buffer = fmtstr_fs::Input::read(path)?.into_bytes();
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
