//! The PAL ELF commands: dump, embed, merge, audit (issue 3).

use crate::Outcome;

#[derive(clap::Subcommand, Debug)]
pub enum ElfCommand {
    /// Not built yet (issue 3): print the amdpal.format_strings table of PAL ELF files.
    Dump,
}

pub fn run(command: ElfCommand) -> anyhow::Result<Outcome> {
    match command {
        ElfCommand::Dump => anyhow::bail!("`fmtstr dump` is not built yet"),
    }
}
