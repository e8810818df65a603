//! `fmtstr completions SHELL`: the shell's completion script on stdout.

use clap_complete::Shell;

use crate::Outcome;

/// Print a completion script for SHELL on stdout (generated from fmtstr's own options).
///
/// Install it where the shell looks, for example:
///   bash        fmtstr completions bash > ~/.local/share/bash-completion/completions/fmtstr
///   zsh         fmtstr completions zsh > ~/.zfunc/_fmtstr  (with fpath+=~/.zfunc)
///   fish        fmtstr completions fish > ~/.config/fish/completions/fmtstr.fish
///   powershell  fmtstr completions powershell >> $PROFILE
///   elvish      fmtstr completions elvish >> ~/.config/elvish/rc.elv
///
/// The same scripts are checked in under doc/completions/.
#[derive(clap::Args, Debug)]
#[command(
    verbatim_doc_comment,
    about = "Print a completion script for SHELL on stdout (generated from fmtstr's own options)"
)]
pub struct Args {
    /// The shell to complete for.
    #[arg(value_enum)]
    shell: Shell,
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut crate::command(), "fmtstr", &mut script);
    crate::output::print(script)?;
    Ok(Outcome::Clean)
}
