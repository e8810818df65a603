//! The PAL ELF commands: dump, embed, merge, audit.
//!
//! Each command is a file of its own; this module holds what they share: reading inputs,
//! naming them in errors, and choosing where output goes (`-o OUT` or `--in-place`, always
//! through [`crate::output::write_atomically`]).

use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use fmtstr_elf::{Document, LinkedElf, PalElf};

use crate::Outcome;

mod audit;
mod dump;
mod embed;
mod merge;

#[derive(clap::Subcommand, Debug)]
pub enum ElfCommand {
    Dump(dump::Args),
    Embed(embed::Args),
    Merge(merge::Args),
    Audit(audit::Args),
}

pub fn run(command: ElfCommand) -> anyhow::Result<Outcome> {
    match command {
        ElfCommand::Dump(args) => dump::run(args),
        ElfCommand::Embed(args) => embed::run(args),
        ElfCommand::Merge(args) => merge::run(args),
        ElfCommand::Audit(args) => audit::run(args),
    }
}

/// Reads a whole input file.
pub fn read(path: &Path) -> anyhow::Result<Vec<u8>> {
    std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))
}

/// Parses an ELF file and decodes its metadata document; errors name the file.
pub fn parse<'a>(
    path: &Path,
    bytes: &'a [u8],
) -> anyhow::Result<(PalElf<'a>, Option<Document<'a>>)> {
    let elf =
        PalElf::parse(bytes).map_err(|error| anyhow::anyhow!("{}: {error}", path.display()))?;
    let document = elf
        .document()
        .map_err(|error| anyhow::anyhow!("{}: {error}", path.display()))?;
    Ok((elf, document))
}

/// Parses an ELF file with any number of metadata notes and decodes each note's document;
/// errors name the file (and the note, by the offset of its msgpack).
pub fn parse_linked<'a>(
    path: &Path,
    bytes: &'a [u8],
) -> anyhow::Result<(LinkedElf<'a>, Vec<Document<'a>>)> {
    let elf =
        LinkedElf::parse(bytes).map_err(|error| anyhow::anyhow!("{}: {error}", path.display()))?;
    let documents = elf
        .documents()
        .map_err(|error| anyhow::anyhow!("{}: {error}", path.display()))?;
    Ok((elf, documents))
}

/// How findings name a metadata note: the file, and the note's offset when the file has
/// several.
pub fn note_name(path: &Path, note_offset: Option<usize>) -> String {
    match note_offset {
        Some(offset) => format!("{} (note at {offset:#x})", path.display()),
        None => path.display().to_string(),
    }
}

/// Where a writing command puts its result.
#[derive(clap::Args, Debug)]
#[group(required = true, multiple = false)]
pub struct Destination {
    /// Write the result to OUT (through a temporary file and a rename).
    #[arg(short, long, value_name = "OUT")]
    output: Option<PathBuf>,
    /// Replace the input file itself (the only way fmtstr modifies an input).
    #[arg(long)]
    in_place: bool,
}

impl Destination {
    /// The file to write, given the file that would be modified in place. Writing over any
    /// input with `-o` is refused: `--in-place` says it on purpose.
    pub fn target(&self, edited: &Path, inputs: &[&Path]) -> anyhow::Result<PathBuf> {
        if self.in_place {
            return Ok(edited.to_path_buf());
        }
        let Some(output) = &self.output else {
            bail!("say where the result goes: -o OUT or --in-place");
        };
        for input in inputs {
            if same_file(output, input) {
                bail!(
                    "-o {} is an input file; use --in-place to replace it on purpose",
                    output.display()
                );
            }
        }
        Ok(output.clone())
    }
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}
