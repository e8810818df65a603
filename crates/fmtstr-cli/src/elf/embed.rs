//! `fmtstr embed`: add or replace format-string entries in a PAL ELF from a JSON table.

use std::io::Write;
use std::path::PathBuf;

use std::collections::HashMap;

use anyhow::Context;
use fmtstr_meta::{escape, FormatId, Table};

use super::Destination;
use crate::output::write_atomically;
use crate::Outcome;

/// Add or replace amdpal.format_strings entries in a PAL ELF from a JSON table.
///
/// TABLE.json is the JSON-ified amdpal.format_strings map (schemas/format-strings.schema.json),
/// as `fmtstr dump --json` prints it and `fmtstr lower` writes it. An entry whose .index is
/// already in the file replaces that entry (a warning says so when the strings differ); other
/// entries are appended. Shader-abort message entries (no .string) are added or replaced the
/// same way, and a .user_data_offset in TABLE.json replaces the file's. Every other byte of the
/// PAL metadata and every other section stays as it was. A file without PAL metadata gets a new note. Nothing is written on any error.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  fmtstr embed --strings strings.json shader.elf -o shader.with-strings.elf
  fmtstr embed --strings strings.json shader.elf --in-place

strings.json:
  {\".version\": 1, \".strings\": [{\".index\": 105725360768662, \".string\": \"x=%d\\n\",
    \".argument_count\": 1, \".64bit_arguments\": [0]}]}
  (.index may also be a string: \"0x60281a928696\"; the string is plain JSON text)")]
pub struct Args {
    /// The JSON table to embed.
    #[arg(long, value_name = "TABLE.json")]
    strings: PathBuf,
    /// The PAL ELF to add the strings to.
    #[arg(value_name = "IN.elf")]
    input: PathBuf,
    #[command(flatten)]
    destination: Destination,
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let target = args
        .destination
        .target(&args.input, &[&args.input, &args.strings])?;
    let _lock = target.lock()?;
    let text = super::read(&args.strings)?;
    let json: serde_json::Value = serde_json::from_slice(&text)
        .with_context(|| format!("{} is not JSON", args.strings.display()))?;
    let new = Table::from_json(&json).map_err(|error| {
        anyhow::anyhow!(
            "{}: {error} (see schemas/format-strings.schema.json)",
            args.strings.display()
        )
    })?;

    let bytes = super::read(&args.input)?;
    let (elf, mut document) = super::parse(&args.input, &bytes)?;
    let mut table = document
        .as_mut()
        .and_then(|d| d.take_format_strings())
        .unwrap_or_default();
    // Where each ID is, the first entry of an ID where the file has several: one lookup per
    // new entry (a search of the table for each made 500,000 strings take minutes).
    let mut positions: HashMap<FormatId, usize> = HashMap::with_capacity(table.entries.len());
    for (position, old) in table.entries.iter().enumerate() {
        positions.entry(old.id()).or_insert(position);
    }
    for entry in new.entries {
        match positions.get(&entry.id()).map(|&i| &mut table.entries[i]) {
            Some(old) => {
                if old.bytes() != entry.bytes() {
                    let _ = writeln!(
                        crate::diagnostics::stderr(),
                        "fmtstr: warning: {}: ID {:#} had \"{}\"; replaced by \"{}\" from {}",
                        args.input.display(),
                        entry.id(),
                        escape::escape(old.bytes()),
                        escape::escape(entry.bytes()),
                        args.strings.display()
                    );
                }
                *old = entry;
            }
            None => {
                positions.insert(entry.id(), table.entries.len());
                table.entries.push(entry);
            }
        }
    }
    for mut abort in new.aborts {
        abort.position = table.entries.len();
        match table
            .aborts
            .iter_mut()
            .find(|old| old.id().is_some() && old.id() == abort.id())
        {
            Some(old) => {
                abort.position = old.position;
                *old = abort;
            }
            None => table.aborts.push(abort),
        }
    }
    if let Some(offset) = new.user_data_offset {
        table.user_data_offset = Some(offset);
    }
    for (key, value) in new.extra {
        match table.extra.iter_mut().find(|(old, _)| *old == key) {
            Some(slot) => slot.1 = value,
            None => table.extra.push((key, value)),
        }
    }
    let out = elf
        .rewrite(document.as_ref(), &table)
        .map_err(|error| anyhow::anyhow!("{}: {error}", args.input.display()))?;
    write_atomically(&target.path, &out, target.replace)?;
    Ok(Outcome::Clean)
}
