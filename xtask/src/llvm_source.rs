//! `cargo xtask llvm-source`: LLVM 19's own test tree, from Debian's `llvm-toolchain-19` source
//! package of the same release as the installed tools.
//!
//! The tests that judge fmtstr on inputs nobody on the team wrote (LLVM's `.ll` test modules,
//! NVPTX codegen tests, clang's format-string tests) read this tree. It is fetched with apt from a
//! private sources list (deb-src) kept under `target/`, so the machine's own apt configuration is
//! never touched, and only the test directories are unpacked from the orig tarball (a few seconds
//! instead of the whole 1.8 GB tree). A marker file makes the step idempotent; the location is
//! decided by `fmtstr_oracles::llvm_source_dir`, the same function the tests ask.

use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context};
use fmtstr_oracles::llvm_source_dir;

use crate::process;

/// The Debian source package.
const PACKAGE: &str = "llvm-toolchain-19";

/// The binary package whose installed version picks the source version.
const VERSION_OF: &str = "llvm-19";

/// The parts of the tree that tests read, relative to the unpacked source root.
const SUBTREES: [&str; 4] = [
    "llvm/test",
    "clang/test/Sema",
    "clang/test/SemaOpenCL",
    "clang/test/CodeGenOpenCL",
];

/// The file that marks a complete unpack; it holds the source version.
const MARKER: &str = ".fmtstr-complete";

pub fn run() -> anyhow::Result<()> {
    let dir = ensure()?;
    eprintln!("LLVM 19 test tree: {}", dir.display());
    Ok(())
}

/// Fetches and unpacks the test tree when it is not there yet; returns its root (the directory
/// holding `llvm/test`).
pub fn ensure() -> anyhow::Result<std::path::PathBuf> {
    let dir = llvm_source_dir();
    let version = installed_version()?;
    if std::fs::read_to_string(dir.join(MARKER)).is_ok_and(|v| v.trim() == version) {
        return Ok(dir);
    }
    let cache = dir
        .parent()
        .context("the LLVM source directory has no parent")?
        .join("apt");
    std::fs::create_dir_all(cache.join("lists/partial"))?;
    std::fs::create_dir_all(cache.join("cache/archives/partial"))?;
    std::fs::write(
        cache.join("sources.list"),
        "deb-src http://deb.debian.org/debian bookworm main\n\
         deb-src http://deb.debian.org/debian bookworm-updates main\n\
         deb-src http://deb.debian.org/debian-security bookworm-security main\n",
    )?;
    let apt = |tool: &str| {
        let mut command = Command::new(tool);
        command
            .current_dir(&cache)
            .arg("-o")
            .arg(format!(
                "Dir::Etc::SourceList={}",
                cache.join("sources.list").display()
            ))
            .args(["-o", "Dir::Etc::SourceParts=/dev/null"])
            .arg("-o")
            .arg(format!(
                "Dir::State::Lists={}",
                cache.join("lists").display()
            ))
            .arg("-o")
            .arg(format!("Dir::Cache={}", cache.join("cache").display()))
            // The private cache belongs to root; apt's sandbox user cannot write there.
            .args(["-o", "APT::Sandbox::User=root"]);
        command
    };
    process::run(apt("apt-get").args(["update", "-q"]))?;
    let upstream = version
        .split_once(':')
        .map_or(version.as_str(), |(_, v)| v)
        .split('-')
        .next()
        .unwrap_or_default()
        .to_owned();
    let tarball = cache.join(format!("{PACKAGE}_{upstream}.orig.tar.xz"));
    if !tarball.is_file() {
        process::run(apt("apt-get").args([
            "source",
            "--download-only",
            "-q",
            &format!("{PACKAGE}={version}"),
        ]))?;
    }
    if !tarball.is_file() {
        bail!(
            "apt-get source did not leave {}; is {PACKAGE} {version} still in Debian's archive?",
            tarball.display()
        );
    }

    // Unpack into a fresh sibling and rename, so that an interrupted run leaves no half tree.
    let top = format!("{PACKAGE}_{upstream}");
    let staging = dir.with_extension("partial");
    if staging.exists() {
        std::fs::remove_dir_all(&staging)?;
    }
    std::fs::create_dir_all(&staging)?;
    let mut tar = Command::new("tar");
    tar.arg("-xJf")
        .arg(&tarball)
        .arg("-C")
        .arg(&staging)
        .arg("--strip-components=1")
        .arg("--wildcards");
    for subtree in SUBTREES {
        tar.arg(format!("{top}/{subtree}/*"));
    }
    process::run(&mut tar)?;
    std::fs::write(staging.join(MARKER), &version)?;
    if dir.exists() {
        std::fs::remove_dir_all(&dir).with_context(|| format!("cannot clear {}", dir.display()))?;
    }
    std::fs::rename(&staging, &dir)
        .with_context(|| format!("cannot move the unpacked tree to {}", dir.display()))?;
    check(&dir)?;
    Ok(dir)
}

/// The installed LLVM 19's Debian version (`1:19.1.7-3~deb12u1`): the source must match it.
fn installed_version() -> anyhow::Result<String> {
    let output =
        process::output(Command::new("dpkg-query").args(["-W", "-f=${Version}", VERSION_OF]))
            .with_context(|| {
                format!("{VERSION_OF} is not installed: run `cargo xtask oracles` first")
            })?;
    let version = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    if version.is_empty() {
        bail!("{VERSION_OF} is not installed: run `cargo xtask oracles` first");
    }
    Ok(version)
}

fn check(dir: &Path) -> anyhow::Result<()> {
    for subtree in SUBTREES {
        if !dir.join(subtree).is_dir() {
            bail!("the unpacked tree lacks {subtree} ({})", dir.display());
        }
    }
    Ok(())
}
