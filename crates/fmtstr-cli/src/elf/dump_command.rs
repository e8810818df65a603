//! `fmtstr dump`: the amdpal.format_strings table (or the whole PAL metadata) of ELF files.

use std::path::PathBuf;

use fmtstr_tools::dump::{self, Dumped, Mode};
use fmtstr_tools::Source;

use crate::output::{print, print_json};
use crate::Outcome;

/// Print the amdpal.format_strings table of PAL ELF files (HSA code objects' amdhsa.printf, and
/// the table SPIR-V modules' DebugPrintf calls would get).
///
/// For each FILE: every entry's ID (hex and decimal), argument count, 64-bit argument mask (hex
/// words, bit i set when argument i is 64 bits wide) and format string (as a C literal); then
/// the table's .user_data_offset and its shader-abort message entries (no format string: their
/// ID, .data_count, .constant_status and .constants), when it has them. The
/// table comes from the NT_AMDGPU_METADATA note (owner AMDGPU, type 32) in the file's SHT_NOTE
/// sections. A linked file with one metadata note per linked object (before `fmtstr merge
/// FILE --in-place` folded them) is shown note by note, each labelled by its file offset. HSA
/// code objects (OpenCL/HIP) show their amdhsa.printf entries: for OpenCL's numbered entries
/// (`ID:N:SIZES:FORMAT`) the ID, argument count, the bytes each argument takes in the printf
/// buffer, and the format; for HIP's buffered printf (clang -mprintf-kind=buffered,
/// `0:0:HASH,FORMAT`) each format's 64-bit hash, argument count and format, and whether the
/// hash is the format's MD5. JSON says which with `printf_kind` (numbered or buffered). A file that is not a readable
/// ELF, or whose metadata is broken, is an error (exit 2).
///
/// A SPIR-V module (recognised by its magic number, either byte order) gets the table that
/// `fmtstr lower --target amdgpu --stage buffer` would write for its NonSemantic.DebugPrintf
/// calls (debugPrintfEXT in GLSL, printf in HLSL), and its call sites: byte offset, source line
/// (OpLine or DebugLine), function, the entry points that reach it.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  fmtstr dump shader.elf                 the table as text
  fmtstr dump --json a.elf b.elf         [{\"file\": ..., \"format_strings\": {...} or null}]
  fmtstr dump linked.elf                 one table per metadata note, \"(note at 0x630)\"
  fmtstr dump k.o                        an OpenCL or HIP code object's amdhsa.printf entries
  fmtstr dump --all shader.elf           the whole PAL metadata document as JSON
  fmtstr dump shader.spv                 a Vulkan shader's DebugPrintf formats and call sites
  fmtstr dump --json a.elf | jq '.[0].format_strings' > t.json
                                         a table that `fmtstr embed --strings t.json` reads

JSON output follows schemas/dump.schema.json; a table is the JSON-ified amdpal.format_strings
map of schemas/format-strings.schema.json.")]
pub struct Args {
    /// PAL ELF files or SPIR-V modules.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Print JSON (schemas/dump.schema.json) instead of text.
    #[arg(long)]
    json: bool,
    /// Print the whole PAL metadata document of each file as JSON (msgpack values that JSON
    /// cannot hold are written as {"$bin": ...}, {"$ext": ...}, {"$map": [[key, value], ...]}).
    #[arg(long)]
    all: bool,
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let mode = if args.all {
        Mode::All
    } else if args.json {
        Mode::Json
    } else {
        Mode::Text
    };
    let inputs: Vec<Source<'_>> = args.files.iter().map(|p| Source::Path(p)).collect();
    match dump::dump(&inputs, mode)? {
        Dumped::Text(text) => print(text)?,
        Dumped::Json(reports) => print_json(&reports)?,
    }
    Ok(Outcome::Clean)
}
