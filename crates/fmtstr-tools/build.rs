//! Puts the commit fmtstr was built from into `fmtstr_tools::VERSION`, which `fmtstr
//! --version`, the SARIF logs and the C and Python front ends all report.
//!
//! From a git checkout the version reads `0.1.0 (1a2b3c4)`, or `0.1.0 (1a2b3c4-dirty)` when
//! tracked files differ from the commit. Outside one (a crates tarball, a source archive, no
//! git installed) it is just the package version: nothing fails and nothing is printed.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let manifest_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let package_version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let version = match commit(&manifest_dir) {
        Some(commit) => format!("{package_version} ({commit})"),
        None => package_version,
    };
    println!("cargo:rustc-env=FMTSTR_VERSION={version}");
    println!("cargo:rerun-if-changed=build.rs");
}

/// `git` in the crate's directory; its trimmed stdout when it succeeds.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let output = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

/// The short commit, with `-dirty` when tracked files differ; `None` outside a checkout of
/// this repository.
fn commit(dir: &Path) -> Option<String> {
    // A tarball unpacked inside some other repository must not take that repository's commit:
    // this crate's own manifest has to be tracked.
    git(dir, &["ls-files", "--error-unmatch", "Cargo.toml"])?;
    let hash = git(dir, &["rev-parse", "--short", "HEAD"])?;
    // Rebuild when HEAD moves: HEAD itself, the branch it points to (loose or packed), and the
    // index (a commit or `git add` changes whether the tree is dirty).
    let git_dir = git(dir, &["rev-parse", "--absolute-git-dir"]).map(PathBuf::from);
    let common_dir = git(dir, &["rev-parse", "--git-common-dir"]).map(|d| dir.join(d));
    if let Some(git_dir) = &git_dir {
        rerun_if_changed(&git_dir.join("HEAD"));
        rerun_if_changed(&git_dir.join("index"));
    }
    if let Some(common_dir) = &common_dir {
        rerun_if_changed(&common_dir.join("packed-refs"));
        if let Some(branch) = git(dir, &["symbolic-ref", "-q", "HEAD"]) {
            rerun_if_changed(&common_dir.join(branch));
        }
    }
    let dirty = git(dir, &["status", "--porcelain", "--untracked-files=no"])
        .is_some_and(|status| !status.is_empty());
    Some(if dirty { format!("{hash}-dirty") } else { hash })
}

fn rerun_if_changed(path: &Path) {
    if path.exists() {
        println!("cargo:rerun-if-changed={}", path.display());
    }
}
