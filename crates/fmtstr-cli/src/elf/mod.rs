//! The PAL ELF commands: dump, embed, merge, audit (their logic lives in fmtstr-tools; embed's
//! in fmtstr-elf).
//!
//! Each command is a file of its own; this module holds what they share: reading inputs,
//! naming them in errors, and choosing where output goes (`-o OUT`, or the input itself,
//! always through [`crate::output::write_atomically`]).

use std::path::{Path, PathBuf};

use anyhow::bail;
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

/// Reads a whole input file (`-` is stdin; a pipe or a FIFO is read to its end).
pub fn read(path: &Path) -> anyhow::Result<Vec<u8>> {
    Ok(fmtstr_fs::Input::read(path)?.into_bytes())
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

/// Where a writing command puts its result: `-o OUT`, or else the input itself, as
/// llvm-objcopy and llvm-strip do.
#[derive(clap::Args, Debug)]
pub struct Destination {
    /// Write the result to OUT (through a temporary file and a rename) and leave the input as
    /// it is. Without -o, the input is replaced.
    #[arg(short, long, value_name = "OUT", conflicts_with = "in_place")]
    output: Option<PathBuf>,
    /// Replace the input file itself: what happens without -o too (say it in scripts, for
    /// the reader). The new file keeps the old one's mode, owner and group; a symbolic link
    /// is followed and stays a link; a hard link is broken (the name gets a new file, as with
    /// `sed -i`). Two runs on one file take turns (an advisory lock, waited for 30 s at most).
    #[arg(long)]
    in_place: bool,
    /// Replace a file that you may not write (say, mode 444) when its directory allows it;
    /// without --force such a file is left as it is (exit 2).
    #[arg(long)]
    force: bool,
}

/// Where the result goes, and how.
#[derive(Debug)]
pub struct Target {
    pub path: PathBuf,
    /// The result replaces an input: read and write under [`fmtstr_fs::UpdateLock`].
    pub in_place: bool,
    pub replace: fmtstr_fs::Replace,
}

impl Target {
    /// The lock an in-place update holds from before it reads the file until the new file is
    /// in place.
    pub fn lock(&self) -> anyhow::Result<Option<fmtstr_fs::UpdateLock>> {
        if !self.in_place {
            return Ok(None);
        }
        Ok(Some(fmtstr_fs::UpdateLock::acquire(
            &self.path,
            fmtstr_fs::lock::WAIT,
        )?))
    }
}

impl Destination {
    /// The file to write, given the file that would be modified in place. Writing over any
    /// input with `-o` is refused: without -o the input is replaced on purpose.
    pub fn target(&self, edited: &Path, inputs: &[&Path]) -> anyhow::Result<Target> {
        let replace = if self.force {
            fmtstr_fs::Replace::Force
        } else {
            fmtstr_fs::Replace::IfWritable
        };
        let Some(output) = &self.output else {
            if fmtstr_fs::input::is_stdin(edited) {
                bail!("stdin cannot be replaced: say where the result goes with -o OUT");
            }
            return Ok(Target {
                path: edited.to_path_buf(),
                in_place: true,
                replace,
            });
        };
        for input in inputs {
            if same_file(output, input) {
                bail!(
                    "-o {} is an input file; leave out -o (or say --in-place) to replace it on \
                     purpose",
                    output.display()
                );
            }
        }
        Ok(Target {
            path: output.clone(),
            in_place: false,
            replace,
        })
    }
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}
