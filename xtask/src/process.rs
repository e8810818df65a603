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

/// Cargo's target directory (`$CARGO_TARGET_DIR`, relative to the root, or `target`).
pub fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from) {
        Some(dir) if dir.is_absolute() => dir,
        Some(dir) => root().join(dir),
        None => root().join("target"),
    }
}

/// Builds a release artifact (`cargo build --release --quiet ARGS...`) and returns the path of
/// `release/ARTIFACT` in the target directory.
pub fn build_release(args: &[&str], artifact: &str) -> anyhow::Result<PathBuf> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    run(Command::new(cargo)
        .current_dir(root())
        .args(["build", "--release", "--quiet"])
        .args(args))?;
    let binary = target_dir().join("release").join(artifact);
    if !binary.exists() {
        bail!("{} was not built", binary.display());
    }
    Ok(binary)
}

/// The release `fmtstr` binary, built first.
pub fn build_fmtstr() -> anyhow::Result<PathBuf> {
    build_release(&["-p", "fmtstr-cli", "--bin", "fmtstr"], "fmtstr")
}
