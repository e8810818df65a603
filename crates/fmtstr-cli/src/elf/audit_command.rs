//! `fmtstr audit`: check PAL ELF files (a shader cache, a build tree) for format-string
//! problems, within and across files.

use std::io::{IsTerminal, Write};

use std::path::PathBuf;

use fmtstr_tools::audit::{self, AuditError, Options, Report};
use fmtstr_tools::audit_formats;

use crate::output::print;
use crate::Outcome;

/// Audit PAL ELFs, HSA code objects and SPIR-V modules for format-string collisions and mistakes.
///
/// Walks every PATH (files, and directories recursively; in a directory only files that start
/// with the ELF or the SPIR-V magic are read) in parallel and reports these kinds of finding:
///   collision   one ID with different strings, within a file or across files
///   conflict    one ID and string with different argument counts or 64-bit masks
///   arguments   an argument count or 64-bit mask that the format string contradicts, or a
///               format string that does not parse
///   malformed   a file whose ELF structure or PAL metadata cannot be read, an amdhsa.printf
///               entry that is not `ID:N:SIZE1:...:SIZEN:FORMAT` (OpenCL) or `0:0:HASH,FORMAT`
///               (HIP's buffered printf), or a SPIR-V module that is damaged or whose
///               DebugPrintf calls have no table entry
///   unfolded    a linked file with several metadata notes (one per linked object): the
///               post-link step `fmtstr merge FILE --in-place` has not run. Each note is
///               audited as a source of its own, named by its file offset.
///   id          (with --verify-ids) an ID that is not fmtstr's hash of its string; and,
///               always, a HIP buffered printf entry whose hash is not its format's MD5
///
/// Shader-abort message entries (no .string) have no format string to check: only their own
/// keys are (a valid .index, and .constants against .data_count and .constant_status, as
/// "arguments" findings); the summary counts them as not checked otherwise.
///
/// The mask check flags only what the format string makes certain: integer conversions (d i u
/// o x X c) and '*' arguments are 32 bits unless l, ll, j, z or t make them 64 (h and hh are
/// widened to 32); floats, %s, %p and vectors are not checked, because the format cannot tell
/// a 32-bit float (which LLPC writes as one dword) from a double.
///
/// HSA code objects (OpenCL/HIP) are audited with them: their amdhsa.printf entries' argument
/// sizes against the format, and IDs given twice within one code object (IDs restart at 1 in
/// every module, so equal IDs in two files are not collisions). HIP code built with clang
/// -mprintf-kind=buffered names each format by the low 64 bits of its MD5 (`0:0:HASH,FORMAT`,
/// one entry per call): a hash that is not its format's MD5 is an id finding, one hash given
/// to two different formats a collision.
///
/// A SPIR-V module's table is the one `fmtstr dump` shows for it: what `fmtstr lower --stage
/// buffer` would write for its NonSemantic.DebugPrintf calls (one entry per format and argument
/// layout), so a format printed with different widths in two shaders is a conflict.
// Verbatim: the list of finding kinds must stay a list (clap would join its lines).
#[derive(clap::Args, Debug)]
#[command(
    verbatim_doc_comment,
    about = "Audit PAL ELFs, HSA code objects and SPIR-V modules for format-string collisions and mistakes"
)]
#[command(after_help = "Examples:
  fmtstr audit shader-cache/                      text, one finding per line
  fmtstr audit --format github build/*.elf        ::error file=...:: annotations for CI
  fmtstr audit --format json --verify-ids out/    schemas/audit.schema.json
  fmtstr audit --format sarif build/ > audit.sarif   SARIF 2.1.0 for code scanning

Exit codes, in every format: 0 no findings, 1 findings, 2 an input could not be read at all.")]
pub struct Args {
    /// Files and directories to audit.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// How to print findings.
    #[arg(long, value_enum, default_value_t = Style::Text)]
    format: Style,
    /// Also report IDs that are not fmtstr's 48-bit XXH3 hash of their string (IDs written by
    /// LLPC are opaque, so use this only for files fmtstr produced).
    #[arg(long)]
    verify_ids: bool,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Style {
    /// `FILE: error: KIND: message`, then a summary line.
    Text,
    /// One JSON report (schemas/audit.schema.json).
    Json,
    /// GitHub Actions workflow commands: `::error file=FILE,title=...::message`.
    Github,
    /// A SARIF 2.1.0 log, for GitHub code scanning and other CI systems: one rule per kind of
    /// finding, each finding an error at its file (and the bytes of its metadata note, where
    /// the finding is about an entry).
    Sarif,
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let options = Options {
        verify_ids: args.verify_ids,
    };
    let progress: std::sync::OnceLock<indicatif::ProgressBar> = std::sync::OnceLock::new();
    let report: Result<Report, AuditError> = audit::audit_with_progress(
        &args.paths,
        &options,
        &|files| {
            if let Some(bar) = progress_bar(files) {
                let _ = progress.set(bar);
            }
        },
        &|| {
            if let Some(bar) = progress.get() {
                bar.inc(1);
            }
        },
    );
    if let Some(bar) = progress.get() {
        bar.finish_and_clear();
    }
    let report = report?;
    let style = match args.format {
        Style::Text => audit_formats::Style::Text,
        Style::Json => audit_formats::Style::Json,
        Style::Github => audit_formats::Style::Github,
        Style::Sarif => audit_formats::Style::Sarif,
    };
    let (text, _) = audit_formats::render(&report, style, fmtstr_tools::VERSION);
    if style == audit_formats::Style::Text {
        // Findings read like diagnostics: colored as they are, when stdout is colored.
        let mut stdout = anstream::stdout().lock();
        let written = text
            .lines()
            .try_for_each(|line| writeln!(stdout, "{}", crate::diagnostics::paint_line(line)));
        let written = written.and_then(|()| stdout.flush());
        crate::output::unread_is_fine(written.map_err(fmtstr_fs::stdout::classify))?;
    } else {
        print(text)?;
    }
    Ok(if report.clean {
        Outcome::Clean
    } else {
        Outcome::Findings
    })
}

fn progress_bar(len: usize) -> Option<indicatif::ProgressBar> {
    if !std::io::stderr().is_terminal() || len < 2 {
        return None;
    }
    let bar = indicatif::ProgressBar::new(len as u64);
    if let Ok(style) =
        indicatif::ProgressStyle::with_template("auditing {bar:40} {pos}/{len} files")
    {
        bar.set_style(style);
    }
    Some(bar)
}
