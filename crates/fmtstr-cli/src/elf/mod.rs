//! The PAL ELF commands: dump, embed, merge, audit (their logic lives in fmtstr-tools; embed's
//! in fmtstr-elf).
//!
//! Each command is a file of its own; this module holds what they share: reading inputs,
//! naming them in errors, and choosing where output goes (`-o OUT` or `--in-place`, always
//! through [`crate::output::write_atomically`]).

use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use fmtstr_elf::{Document, PalElf};

use crate::Outcome;

// The commands whose logic lives in fmtstr-tools: arguments and printing only.
mod audit_command;
mod dump_command;
mod embed;
mod merge_command;

#[derive(clap::Subcommand, Debug)]
pub enum ElfCommand {
    Dump(dump_command::Args),
    Embed(embed::Args),
    Merge(merge_command::Args),
    Audit(audit_command::Args),
}

pub fn run(command: ElfCommand) -> anyhow::Result<Outcome> {
    match command {
        ElfCommand::Dump(args) => dump_command::run(args),
        ElfCommand::Embed(args) => embed::run(args),
        ElfCommand::Merge(args) => merge_command::run(args),
        ElfCommand::Audit(args) => audit_command::run(args),
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
