//! The format-string tables of ELF images as `fmtstr dump` shows them: text, JSON
//! (schemas/dump.schema.json) or the whole PAL metadata document.
//!
//! For each image: every entry's ID (hex and decimal), argument count, 64-bit argument mask
//! and format string (as a C literal); then the table's .user_data_offset and its shader-abort
//! message entries. A linked image with one metadata note per linked object is shown note by
//! note, each labelled by its file offset. HSA code objects (OpenCL/HIP) show their
//! amdhsa.printf entries, of either kind (`printf_kind` in JSON): `numbered` (`ID:N:SIZES:FORMAT`,
//! LLVM's AMDGPUPrintfRuntimeBinding: OpenCL) with each call's ID and argument sizes, or
//! `buffered` (`0:0:HASH,FORMAT`, HIP's `-mprintf-kind=buffered`) with each format's 64-bit hash
//! and whether it is the format's MD5. An input that is not a readable ELF, or whose metadata is broken, is
//! an error.

use std::fmt::Write as _;

use fmtstr_elf::{hsa, Document};
use fmtstr_meta::{escape, Table};
use serde_json::{json, Value as Json};

use crate::{Error, Source};

/// What [`dump`] gives.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// The tables as text.
    #[default]
    Text,
    /// One JSON object per image (or per note of a linked image).
    Json,
    /// The whole PAL metadata document of each image (or note) as JSON.
    All,
}

/// What [`dump`] gave.
#[derive(Debug)]
pub enum Dumped {
    /// [`Mode::Text`]: every input's tables, one block per image or note, ready to print.
    Text(String),
    /// The reports; `fmtstr dump --json` prints them as one pretty JSON array.
    Json(Vec<Json>),
}

/// The tables of every input (see the module documentation).
pub fn dump(inputs: &[Source<'_>], mode: Mode) -> Result<Dumped, Error> {
    let mut reports = Vec::with_capacity(inputs.len());
    let mut text = String::new();
    for path in inputs {
        let bytes = path.read()?;
        if crate::spirv::is_spirv(&bytes) {
            crate::spirv::dump(&path.name(), &bytes, mode, &mut reports, &mut text)?;
            continue;
        }
        let (linked, documents) = crate::parse_linked(path, &bytes)?;
        let file = path.name();
        // A linked file (one note per linked object) is shown note by note, each labelled by
        // its offset; a file with one note or none as before.
        let several = documents.len() > 1;
        let notes: Vec<(Option<usize>, Option<&Document<'_>>)> = if documents.is_empty() {
            vec![(None, None)]
        } else {
            linked
                .notes()
                .iter()
                .zip(&documents)
                .map(|(note, document)| (several.then_some(note.note.start), Some(document)))
                .collect()
        };
        for (note, document) in notes {
            let label = crate::note_name(path, note);
            let hsa = match document.and_then(hsa::printf_table) {
                Some(Ok(table)) => Some(table),
                Some(Err(error)) => {
                    return Err(Error::input(format!(
                        "{label}: {error}; the entry is not what LLVM writes (OpenCL's \
                         AMDGPUPrintfRuntimeBinding, or clang -mprintf-kind=buffered for HIP)"
                    )))
                }
                None => None,
            };
            let mut report = serde_json::Map::new();
            report.insert("file".into(), json!(file));
            if let Some(offset) = note {
                report.insert("note".into(), json!(offset));
            }
            if mode == Mode::All {
                let value = match document {
                    Some(document) => Some(
                        document
                            .to_value()
                            .map_err(|error| Error::input(format!("{label}: {error}")))?,
                    ),
                    None => None,
                };
                let document = value
                    .as_ref()
                    .map_or(Json::Null, fmtstr_meta::json::to_json);
                report.insert("document".into(), document);
                reports.push(Json::Object(report));
                continue;
            }
            let table = document.and_then(|d| d.format_strings());
            if mode == Mode::Json {
                report.insert(
                    "format_strings".into(),
                    table.map_or(Json::Null, Table::to_json),
                );
                if let Some(table) = &hsa {
                    report.insert("printf_kind".into(), json!(table.kind()));
                    report.insert("amdhsa_printf".into(), hsa_json(table));
                }
                reports.push(Json::Object(report));
            } else {
                match &hsa {
                    Some(entries) if table.is_none() => describe_hsa(&mut text, &label, entries),
                    _ => {
                        describe(&mut text, &label, document, table);
                        if let Some(entries) = &hsa {
                            describe_hsa(&mut text, &label, entries);
                        }
                    }
                }
            }
        }
    }
    Ok(match mode {
        Mode::Text => Dumped::Text(text),
        Mode::Json | Mode::All => Dumped::Json(reports),
    })
}

/// `amdhsa.printf` entries as JSON (schemas/dump.schema.json, `amdhsa_printf`).
fn hsa_json(table: &hsa::PrintfTable) -> Json {
    let entries = match table {
        hsa::PrintfTable::Numbered(entries) => entries,
        hsa::PrintfTable::Buffered(entries) => {
            return Json::Array(
                entries
                    .iter()
                    .map(|entry| {
                        json!({
                            "hash": format!("{:016x}", entry.hash),
                            "hash_matches": entry.hash_matches(),
                            "placeholder": entry.is_placeholder(),
                            "argument_count": entry.argument_count,
                            "format": String::from_utf8_lossy(&entry.format),
                            "entry": entry.raw,
                        })
                    })
                    .collect(),
            )
        }
    };
    Json::Array(
        entries
            .iter()
            .map(|entry| {
                json!({
                    "id": entry.id,
                    "argument_count": entry.argument_count,
                    "sizes": entry.sizes,
                    "format": String::from_utf8_lossy(&entry.format),
                    "entry": entry.raw,
                })
            })
            .collect(),
    )
}

fn describe_hsa(text: &mut String, label: &str, table: &hsa::PrintfTable) {
    let count = table.len();
    let entries = match table {
        hsa::PrintfTable::Numbered(entries) => entries,
        hsa::PrintfTable::Buffered(entries) => return describe_buffered(text, label, entries),
    };
    let _ = writeln!(
        text,
        "{label}: {count} amdhsa.printf entr{}",
        if count == 1 { "y" } else { "ies" }
    );
    if count == 0 {
        return;
    }
    let _ = writeln!(
        text,
        "  {:>6}  {:>4}  {:<16}  format",
        "ID", "args", "bytes"
    );
    for entry in entries {
        let sizes: Vec<String> = entry.sizes.iter().map(u32::to_string).collect();
        let _ = writeln!(
            text,
            "  {:>6}  {:>4}  {:<16}  \"{}\"",
            entry.id,
            entry.argument_count,
            if sizes.is_empty() {
                "-".to_owned()
            } else {
                sizes.join(",")
            },
            entry.escaped_format()
        );
    }
}

/// A table of HIP's buffered printf: each entry's hash, argument count and format.
fn describe_buffered(text: &mut String, label: &str, entries: &[hsa::BufferedEntry]) {
    let count = entries.len();
    let _ = writeln!(
        text,
        "{label}: {count} amdhsa.printf entr{} (HIP buffered printf: 0:0:HASH,FORMAT)",
        if count == 1 { "y" } else { "ies" }
    );
    if count == 0 {
        return;
    }
    let _ = writeln!(text, "  {:<16}  {:>4}  format", "hash", "args");
    for entry in entries {
        let note = if entry.is_placeholder() {
            "  (clang's placeholder: these calls carry their format in the buffer)"
        } else if !entry.hash_matches() {
            "  (not the MD5 of the format: see fmtstr audit)"
        } else {
            ""
        };
        let _ = writeln!(
            text,
            "  {:016x}  {:>4}  \"{}\"{note}",
            entry.hash,
            entry
                .argument_count
                .map_or_else(|| "-".to_owned(), |n| n.to_string()),
            entry.escaped_format()
        );
    }
}

fn describe(
    text: &mut String,
    file: &str,
    document: Option<&Document<'_>>,
    table: Option<&Table<'_>>,
) {
    let has_metadata = document.is_some();
    let Some(table) = table else {
        if let Some(document) = document.filter(|d| hsa::is_code_object(d)) {
            let hostcall = if hsa::takes_hostcall_buffer(document) {
                ": its kernels take a hostcall buffer, through which HIP's default printf \
                 (-mprintf-kind=hostcall) is printed by the runtime as the kernel runs; build \
                 with -mprintf-kind=buffered for a table and a buffer fmtstr reads"
            } else {
                ""
            };
            let _ = writeln!(
                text,
                "{file}: HSA code object without amdhsa.printf{hostcall}"
            );
            return;
        }
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
        describe_offset_and_aborts(text, table);
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
        let sites = entry.sites();
        if !sites.is_empty() {
            let _ = writeln!(text, "      printed at {}", sites.join(", "));
        }
    }
    describe_offset_and_aborts(text, table);
}

/// The table's `.user_data_offset` and its shader-abort entries, when it has them.
fn describe_offset_and_aborts(text: &mut String, table: &Table<'_>) {
    if let Some(offset) = table.user_data_offset {
        let _ = writeln!(text, "  .user_data_offset: {offset} (dwords)");
    }
    if table.aborts.is_empty() {
        return;
    }
    let count = table.aborts.len();
    let _ = writeln!(
        text,
        "  {count} shader-abort message entr{} (no format string):",
        if count == 1 { "y" } else { "ies" }
    );
    let hex = |words: Option<Vec<u64>>| {
        words.map_or_else(
            || "-".to_owned(),
            |words| {
                let words: Vec<String> = words.iter().map(|w| format!("{w:#x}")).collect();
                format!("[{}]", words.join(", "))
            },
        )
    };
    for abort in &table.aborts {
        let id = abort.id().map_or_else(
            || "(no valid .index)".to_owned(),
            |id| format!("{id:#}  {:>15}", id.get()),
        );
        let _ = writeln!(
            text,
            "  {id}  words {}  constant {}  constants {}",
            abort
                .data_count()
                .map_or_else(|| "-".to_owned(), |n| n.to_string()),
            hex(abort.constant_status()),
            hex(abort.constants())
        );
    }
}
