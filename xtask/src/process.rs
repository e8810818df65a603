//! Running commands with their command line shown, failing loudly.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use anyhow::{bail, Context};

/// Runs a command to completion, inheriting stdio; an error names the command.
pub fn run(command: &mut Command) -> anyhow::Result<()> {
    eprintln!("$ {}", show(command));
    let status = command
        .status()
        .with_context(|| format!("cannot start `{}`", show(command)))?;
    if !status.success() {
        bail!("`{}` failed ({status})", show(command));
    }
    Ok(())
}

/// Runs a command and captures its output; an error names the command and shows its stderr.
pub fn output(command: &mut Command) -> anyhow::Result<Output> {
    let output = command
        .output()
        .with_context(|| format!("cannot start `{}`", show(command)))?;
    if !output.status.success() {
        bail!(
            "`{}` failed ({}):\n{}",
            show(command),
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(output)
}

/// The command line as a user would type it.
pub fn show(command: &Command) -> String {
    std::iter::once(command.get_program())
        .chain(command.get_args())
        .map(|part| part.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The workspace root.
pub fn root() -> PathBuf {
    fmtstr_oracles::workspace_root()
}

/// A path relative to the workspace root, for messages.
pub fn relative(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .display()
        .to_string()
}
