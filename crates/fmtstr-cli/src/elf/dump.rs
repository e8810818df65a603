//! `fmtstr dump`: the amdpal.format_strings table (or the whole PAL metadata) of ELF files.

use std::fmt::Write as _;
use std::path::PathBuf;

use fmtstr_meta::{escape, Table};
use serde_json::{json, Value as Json};

use crate::output::print_json;
use crate::Outcome;

/// Print the amdpal.format_strings table of PAL ELF files, or of SPIR-V modules.
///
/// For each FILE: every entry's ID (hex and decimal), argument count, 64-bit argument mask (hex
/// words, bit i set when argument i is 64 bits wide) and format string (as a C literal). The
/// table comes from the NT_AMDGPU_METADATA note (owner AMDGPU, type 32) in the file's SHT_NOTE
/// sections. A file that is not a readable ELF, or whose metadata is broken, is an error (exit 2).
///
/// A SPIR-V module (recognised by its magic number, either byte order) gets the table that
/// `fmtstr lower --target amdgpu --stage buffer` would write for its NonSemantic.DebugPrintf
/// calls (debugPrintfEXT in GLSL, printf in HLSL), and its call sites: byte offset, source line
/// (OpLine or DebugLine), function, the entry points that reach it.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  fmtstr dump shader.elf                 the table as text
  fmtstr dump --json a.elf b.elf         [{\"file\": ..., \"format_strings\": {...} or null}]
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
    let mut reports = Vec::with_capacity(args.files.len());
    let mut text = String::new();
    for path in &args.files {
        let bytes = super::read(path)?;
        if crate::spirv::is_spirv(&bytes) {
            crate::spirv::dump(path, &bytes, args.json, args.all, &mut reports, &mut text)?;
            continue;
        }
        let (_, document) = super::parse(path, &bytes)?;
        let file = path.display().to_string();
        if args.all {
            let value = match &document {
                Some(document) => Some(
                    document
                        .to_value()
                        .map_err(|error| anyhow::anyhow!("{file}: {error}"))?,
                ),
                None => None,
            };
            let document = value
                .as_ref()
                .map_or(Json::Null, fmtstr_meta::json::to_json);
            reports.push(json!({ "file": file, "document": document }));
            continue;
        }
        let table = document.as_ref().and_then(|d| d.format_strings());
        if args.json {
            let table = table.map_or(Json::Null, Table::to_json);
            reports.push(json!({ "file": file, "format_strings": table }));
        } else {
            describe(&mut text, &file, document.is_some(), table);
        }
    }
    if args.json || args.all {
        print_json(&reports)?;
    } else {
        print!("{text}");
    }
    Ok(Outcome::Clean)
}

fn describe(text: &mut String, file: &str, has_metadata: bool, table: Option<&Table<'_>>) {
    let Some(table) = table else {
        let why = if has_metadata {
            "PAL metadata without an amdpal.format_strings table"
        } else {
            "no PAL metadata note (NT_AMDGPU_METADATA)"
        };
        let _ = writeln!(text, "{file}: {why}");
        return;
    };
    let count = table.entries.len();
    let _ = writeln!(
        text,
        "{file}: {count} format string{}",
        if count == 1 { "" } else { "s" }
    );
    if count == 0 {
        return;
    }
    let _ = writeln!(
        text,
        "  {:<14}  {:>15}  {:>4}  {:<12}  string",
        "ID", "decimal", "args", "64-bit mask"
    );
    for entry in &table.entries {
        let _ = writeln!(
            text,
            "  {:#}  {:>15}  {:>4}  {:<12}  \"{}\"",
            entry.id(),
            entry.id().get(),
            entry.argument_count(),
            entry.mask().to_string(),
            escape::escape(entry.bytes())
        );
    }
}
