//! `cargo xtask llvm-source`: LLVM's own test trees (19 and 22, or the one `--llvm N` names), from
//! Debian's `llvm-toolchain-N` source package of the same release as the installed tools.
//!
//! The tests that judge fmtstr on inputs nobody on the team wrote (LLVM's `.ll` test modules,
//! NVPTX codegen tests, clang's format-string tests) read this tree. It is fetched with apt from a
//! private sources list kept under `target/`: the `deb-src` twin of every `deb` entry of the
//! machine's own apt sources (so the package comes from wherever this machine gets its
//! packages, and the machine's apt configuration is never touched). Only the test directories
//! are unpacked from the orig tarball (a few seconds instead of the whole 1.8 GB tree). A marker
//! file makes the step idempotent; the location is decided by
//! `fmtstr_oracles::llvm_source_dir_of`, the same function the tests ask.

use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context};
use fmtstr_oracles::{llvm_source_dir_of, Llvm};

use crate::process;

/// The parts of the tree that tests read, relative to the unpacked source root.
const SUBTREES: [&str; 4] = [
    "llvm/test",
    "clang/test/Sema",
    "clang/test/SemaOpenCL",
    "clang/test/CodeGenOpenCL",
];

/// The file that marks a complete unpack; it holds the source version.
const MARKER: &str = ".fmtstr-complete";

pub fn run(llvms: &[Llvm]) -> anyhow::Result<()> {
    for &llvm in llvms {
        let dir = ensure(llvm)?;
        eprintln!("{llvm} test tree: {}", dir.display());
    }
    Ok(())
}

/// Fetches and unpacks the release's test tree when it is not there yet; returns its root (the
/// directory holding `llvm/test`).
pub fn ensure(llvm: Llvm) -> anyhow::Result<std::path::PathBuf> {
    let package = llvm.source_package();
    let dir = llvm_source_dir_of(llvm);
    let version = installed_version(llvm)?;
    if std::fs::read_to_string(dir.join(MARKER)).is_ok_and(|v| v.trim() == version) {
        return Ok(dir);
    }
    if std::env::var_os(llvm.source_env()).is_some() && dir.join(MARKER).is_file() {
        // A tree someone unpacked by hand (the archive may lack the source package): used as it
        // is, never cleared or fetched again here.
        if !dir.join("llvm/test").is_dir() {
            bail!(
                "{} names {}, which lacks llvm/test",
                llvm.source_env(),
                dir.display()
            );
        }
        return Ok(dir);
    }
    let cache = dir
        .parent()
        .context("the LLVM source directory has no parent")?
        .join("apt");
    std::fs::create_dir_all(cache.join("lists/partial"))?;
    std::fs::create_dir_all(cache.join("cache/archives/partial"))?;
    let (list, parts) = source_twins(Path::new("/etc/apt"))?;
    if list.is_empty() && parts.is_empty() {
        bail!("the machine's apt sources (/etc/apt) have no `deb` entry to take deb-src from");
    }
    std::fs::write(cache.join("sources.list"), list)?;
    let parts_dir = cache.join("sources.list.d");
    if parts_dir.exists() {
        std::fs::remove_dir_all(&parts_dir)?;
    }
    std::fs::create_dir_all(&parts_dir)?;
    for (name, text) in parts {
        std::fs::write(parts_dir.join(name), text)?;
    }
    let apt = |tool: &str| {
        let mut command = Command::new(tool);
        command
            .current_dir(&cache)
            .arg("-o")
            .arg(format!(
                "Dir::Etc::SourceList={}",
                cache.join("sources.list").display()
            ))
            .arg("-o")
            .arg(format!("Dir::Etc::SourceParts={}", parts_dir.display()))
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
    let tarball = cache.join(format!("{package}_{upstream}.orig.tar.xz"));
    if !tarball.is_file() {
        process::run(apt("apt-get").args([
            "source",
            "--download-only",
            "-q",
            &format!("{package}={version}"),
        ]))
        .with_context(|| {
            format!(
                "{package} {version}'s source is not in the archive this machine's apt sources \
                 name; unpack {llvm}'s llvm/test into a directory, put a {MARKER} file there \
                 and set {} to that directory",
                llvm.source_env()
            )
        })?;
    }
    if !tarball.is_file() {
        bail!(
            "apt-get source did not leave {}; is {package} {version} still in Debian's archive?",
            tarball.display()
        );
    }

    // Unpack into a fresh sibling and rename, so that an interrupted run leaves no half tree.
    let top = format!("{package}_{upstream}");
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

/// The installed release's Debian version (`1:19.1.7-3~deb12u1`) of its `llvm-N` package: the
/// source must match it.
fn installed_version(llvm: Llvm) -> anyhow::Result<String> {
    let [version_of, ..] = llvm.apt_packages();
    let output =
        process::output(Command::new("dpkg-query").args(["-W", "-f=${Version}", &version_of]))
            .with_context(|| {
                format!("{version_of} is not installed: run `cargo xtask oracles` first")
            })?;
    let version = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    if version.is_empty() {
        bail!("{version_of} is not installed: run `cargo xtask oracles` first");
    }
    Ok(version)
}

/// The `deb-src` twins of the `deb` entries of the apt configuration under `etc` (normally
/// `/etc/apt`): a one-line-style list (from `sources.list` and `sources.list.d/*.list`) and
/// deb822 files (from `sources.list.d/*.sources`, named as there). Disabled files (any other
/// suffix), comments and stanzas marked `Enabled: no` are left out.
fn source_twins(etc: &Path) -> anyhow::Result<(String, Vec<(String, String)>)> {
    let mut list = String::new();
    let mut parts = Vec::new();
    let mut one_line = |text: &str| {
        for line in text.lines() {
            if let Some(rest) = line.trim().strip_prefix("deb ") {
                list.push_str("deb-src ");
                list.push_str(rest.trim());
                list.push('\n');
            }
        }
    };
    if let Ok(text) = std::fs::read_to_string(etc.join("sources.list")) {
        one_line(&text);
    }
    let mut names: Vec<std::path::PathBuf> = match std::fs::read_dir(etc.join("sources.list.d")) {
        Ok(entries) => entries.flatten().map(|e| e.path()).collect(),
        Err(_) => Vec::new(),
    };
    names.sort();
    for path in names {
        let Some(name) = path.file_name().map(|n| n.to_string_lossy().into_owned()) else {
            continue;
        };
        if name.ends_with(".list") {
            one_line(&std::fs::read_to_string(&path)?);
        } else if name.ends_with(".sources") {
            let twin = deb822_twin(&std::fs::read_to_string(&path)?);
            if !twin.is_empty() {
                parts.push((name, twin));
            }
        }
    }
    Ok((list, parts))
}

/// A deb822 sources file with every stanza whose `Types` has `deb` turned into a `deb-src`
/// stanza (other fields kept as they are), the rest left out.
fn deb822_twin(text: &str) -> String {
    let mut out = String::new();
    for stanza in text.split("\n\n") {
        let lines: Vec<&str> = stanza
            .lines()
            .filter(|line| !line.trim_start().starts_with('#') && !line.trim().is_empty())
            .collect();
        let field = |name: &str| {
            lines.iter().find_map(|line| {
                let (key, value) = line.split_once(':')?;
                key.trim()
                    .eq_ignore_ascii_case(name)
                    .then(|| value.trim().to_owned())
            })
        };
        let has_deb = field("Types").is_some_and(|t| t.split_whitespace().any(|t| t == "deb"));
        let enabled = field("Enabled").is_none_or(|e| !e.eq_ignore_ascii_case("no"));
        if !has_deb || !enabled {
            continue;
        }
        for line in &lines {
            let is_types = line
                .split_once(':')
                .is_some_and(|(key, _)| key.trim().eq_ignore_ascii_case("Types"));
            out.push_str(if is_types { "Types: deb-src" } else { line });
            out.push('\n');
        }
        out.push('\n');
    }
    out
}

fn check(dir: &Path) -> anyhow::Result<()> {
    for subtree in SUBTREES {
        if !dir.join(subtree).is_dir() {
            bail!("the unpacked tree lacks {subtree} ({})", dir.display());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deb_src_twins_come_from_the_machine_s_deb_entries() {
        let etc = std::env::temp_dir().join(format!("fmtstr-apt-{}", std::process::id()));
        std::fs::create_dir_all(etc.join("sources.list.d")).unwrap();
        std::fs::write(
            etc.join("sources.list"),
            "# a comment\ndeb [arch=amd64] http://mirror.example/debian stable main\n\
             deb-src http://mirror.example/debian stable main\n",
        )
        .unwrap();
        std::fs::write(
            etc.join("sources.list.d/a.sources"),
            "Types: deb\n# a comment\nURIs: http://mirror.example/debian\nSuites: stable \
             stable-updates\nComponents: main\nSigned-By: /k.gpg\n\n\
             Types: deb\nURIs: http://other.example\nSuites: x\nComponents: main\nEnabled: no\n",
        )
        .unwrap();
        std::fs::write(
            etc.join("sources.list.d/b.sources.disabled"),
            "Types: deb\nURIs: http://off.example\nSuites: x\nComponents: main\n",
        )
        .unwrap();
        let (list, parts) = source_twins(&etc).unwrap();
        std::fs::remove_dir_all(&etc).unwrap();
        assert_eq!(
            list,
            "deb-src [arch=amd64] http://mirror.example/debian stable main\n"
        );
        assert_eq!(
            parts,
            [(
                "a.sources".to_owned(),
                "Types: deb-src\nURIs: http://mirror.example/debian\nSuites: stable \
                 stable-updates\nComponents: main\nSigned-By: /k.gpg\n\n"
                    .to_owned()
            )]
        );
    }
}
