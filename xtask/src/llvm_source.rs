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

/// The Debian suite that keeps the newest build of every LLVM release; asked for the same
/// upstream release when the installed build's own source is not in the machine's suites.
const DEVELOPMENT_SUITE: &str = "unstable";

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
    let tarball = cache.join(format!(
        "{package}_{upstream_version}.orig.tar.xz",
        upstream_version = upstream(&version)
    ));
    if !tarball.is_file() {
        let apt = Apt::new(&cache);
        let (list, parts) = source_twins(Path::new("/etc/apt"), None)?;
        if list.is_empty() && parts.is_empty() {
            bail!("the machine's apt sources (/etc/apt) have no `deb` entry to take deb-src from");
        }
        apt.write_sources(&list, &parts)?;
        process::run(apt.command("apt-get").args(["update", "-q"]))?;
        let exact = process::run(apt.command("apt-get").args([
            "source",
            "--download-only",
            "-q",
            &format!("{package}={version}"),
        ]));
        if let Err(error) = exact {
            // A stable release's security archive may ship binaries whose source is not (or not
            // yet) in its pool. The same upstream release's test tree is then taken from the
            // archive's development suite, which keeps the newest builds of every LLVM: the
            // orig tarball is the same file, checked by apt against the suite's signed index.
            eprintln!(
                "{package} {version}'s source is not in this machine's suites ({error:#}); \
                 looking for {} in the archive's `{DEVELOPMENT_SUITE}` suite",
                upstream(&version)
            );
            let (list, parts) = source_twins(Path::new("/etc/apt"), Some(DEVELOPMENT_SUITE))?;
            apt.write_sources(&list, &parts)?;
            process::run(apt.command("apt-get").args(["update", "-q"]))?;
            let candidates: Vec<String> = apt
                .source_versions(&package)?
                .into_iter()
                .filter(|candidate| upstream(candidate) == upstream(&version))
                .collect();
            // Any build of the release carries the same orig tarball; the archive may have pruned
            // an older build's .dsc, so apt's verdict on the other files does not matter once
            // the tarball (hash-checked by apt before it is kept) is there.
            for candidate in candidates.iter().rev() {
                let _ = process::run(apt.command("apt-get").args([
                    "source",
                    "--download-only",
                    "-q",
                    &format!("{package}={candidate}"),
                ]));
                if tarball.is_file() {
                    break;
                }
            }
            if !tarball.is_file() {
                bail!(
                    "{package} {version}'s source is not in the archive this machine's apt \
                     sources name, nor upstream {} in its `{DEVELOPMENT_SUITE}` suite (builds \
                     tried: {}); unpack {llvm}'s llvm/test into a directory, put a {MARKER} \
                     file there and set {} to that directory",
                    upstream(&version),
                    if candidates.is_empty() {
                        "none".to_owned()
                    } else {
                        candidates.join(", ")
                    },
                    llvm.source_env()
                );
            }
        }
    }
    if !tarball.is_file() {
        bail!(
            "apt-get source did not leave {}; is {package} {version} still in Debian's archive?",
            tarball.display()
        );
    }
    let upstream = upstream(&version).to_owned();
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

/// The upstream release of a Debian version: `22.1.8` of `1:22.1.8-1~deb12u1`.
fn upstream(version: &str) -> &str {
    let without_epoch = version.split_once(':').map_or(version, |(_, v)| v);
    without_epoch
        .rsplit_once('-')
        .map_or(without_epoch, |(upstream, _)| upstream)
}

/// apt run over a private configuration under `cache` (sources, lists and archives), never the
/// machine's own state.
struct Apt {
    cache: std::path::PathBuf,
}

impl Apt {
    fn new(cache: &Path) -> Apt {
        Apt {
            cache: cache.to_owned(),
        }
    }

    fn parts_dir(&self) -> std::path::PathBuf {
        self.cache.join("sources.list.d")
    }

    fn write_sources(&self, list: &str, parts: &[(String, String)]) -> anyhow::Result<()> {
        std::fs::write(self.cache.join("sources.list"), list)?;
        let parts_dir = self.parts_dir();
        if parts_dir.exists() {
            std::fs::remove_dir_all(&parts_dir)?;
        }
        std::fs::create_dir_all(&parts_dir)?;
        for (name, text) in parts {
            std::fs::write(parts_dir.join(name), text)?;
        }
        Ok(())
    }

    fn command(&self, tool: &str) -> Command {
        let mut command = Command::new(tool);
        command
            .current_dir(&self.cache)
            .arg("-o")
            .arg(format!(
                "Dir::Etc::SourceList={}",
                self.cache.join("sources.list").display()
            ))
            .arg("-o")
            .arg(format!(
                "Dir::Etc::SourceParts={}",
                self.parts_dir().display()
            ))
            .arg("-o")
            .arg(format!(
                "Dir::State::Lists={}",
                self.cache.join("lists").display()
            ))
            .arg("-o")
            .arg(format!("Dir::Cache={}", self.cache.join("cache").display()))
            // The private cache belongs to root; apt's sandbox user cannot write there.
            .args(["-o", "APT::Sandbox::User=root"]);
        command
    }

    /// The versions of source package `package` that the configured suites offer.
    fn source_versions(&self, package: &str) -> anyhow::Result<Vec<String>> {
        let output = process::output(self.command("apt-cache").args(["showsrc", package]))?;
        Ok(String::from_utf8_lossy(&output.stdout)
            .lines()
            .filter_map(|line| line.strip_prefix("Version:"))
            .map(|v| v.trim().to_owned())
            .collect())
    }
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
/// suffix), comments and stanzas marked `Enabled: no` are left out. With `suite`, each archive's
/// release suite (not its `-security`, `-updates` or `-backports` companions) is replaced by
/// `suite`, and entries that name only companions are left out.
fn source_twins(
    etc: &Path,
    suite: Option<&str>,
) -> anyhow::Result<(String, Vec<(String, String)>)> {
    let mut list = String::new();
    let mut parts = Vec::new();
    let mut one_line = |text: &str| {
        for line in text.lines() {
            if let Some(rest) = line.trim().strip_prefix("deb ") {
                let Some(rest) = one_line_twin(rest.trim(), suite) else {
                    continue;
                };
                let line = format!("deb-src {rest}\n");
                if !list.contains(&line) {
                    list.push_str(&line);
                }
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
            let twin = deb822_twin(&std::fs::read_to_string(&path)?, suite);
            if !twin.is_empty() {
                parts.push((name, twin));
            }
        }
    }
    Ok((list, parts))
}

/// A release suite (`bookworm`, `stable`), not one of its companions (`bookworm-security`,
/// `stable-updates`, `bookworm-backports`, `bookworm/updates`).
fn is_release_suite(suite: &str) -> bool {
    !suite.contains(['-', '/'])
}

/// The part after `deb ` of a one-line entry (`[options] URI SUITE COMPONENTS...`), with its
/// suite replaced by `suite` when given; `None` when it names a companion suite.
fn one_line_twin(rest: &str, suite: Option<&str>) -> Option<String> {
    let Some(suite) = suite else {
        return Some(rest.to_owned());
    };
    let (options, tail) = match rest.strip_prefix('[') {
        Some(after) => {
            let (inside, tail) = after.split_once(']')?;
            (format!("[{inside}] "), tail.trim_start())
        }
        None => (String::new(), rest),
    };
    let mut words = tail.split_whitespace();
    let uri = words.next()?;
    let release = words.next()?;
    if !is_release_suite(release) {
        return None;
    }
    let components: Vec<&str> = words.collect();
    Some(format!("{options}{uri} {suite} {}", components.join(" ")))
}

/// A deb822 sources file with every stanza whose `Types` has `deb` turned into a `deb-src`
/// stanza (other fields kept as they are, `Suites` replaced as [`source_twins`] says), the rest
/// left out.
fn deb822_twin(text: &str, suite: Option<&str>) -> String {
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
        let names_release =
            field("Suites").is_some_and(|suites| suites.split_whitespace().any(is_release_suite));
        if !has_deb || !enabled || (suite.is_some() && !names_release) {
            continue;
        }
        for line in &lines {
            let key = line.split_once(':').map(|(key, _)| key.trim());
            match key {
                Some(key) if key.eq_ignore_ascii_case("Types") => out.push_str("Types: deb-src"),
                Some(key) if key.eq_ignore_ascii_case("Suites") && suite.is_some() => {
                    out.push_str("Suites: ");
                    out.push_str(suite.unwrap_or_default());
                }
                _ => out.push_str(line),
            }
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
        let (list, parts) = source_twins(&etc, None).unwrap();
        let (dev_list, dev_parts) = source_twins(&etc, Some("unstable")).unwrap();
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
        assert_eq!(
            dev_list,
            "deb-src [arch=amd64] http://mirror.example/debian unstable main\n"
        );
        assert_eq!(
            dev_parts,
            [(
                "a.sources".to_owned(),
                "Types: deb-src\nURIs: http://mirror.example/debian\nSuites: unstable\n\
                 Components: main\nSigned-By: /k.gpg\n\n"
                    .to_owned()
            )]
        );
    }

    #[test]
    fn companion_suites_have_no_development_twin() {
        assert_eq!(
            one_line_twin(
                "http://m.example/debian-security bookworm-security main",
                Some("unstable")
            ),
            None
        );
        assert_eq!(
            deb822_twin(
                "Types: deb\nURIs: http://m.example/s\nSuites: bookworm-security\nComponents: main\n",
                Some("unstable")
            ),
            ""
        );
        assert_eq!(upstream("1:22.1.8-1~deb12u1"), "22.1.8");
        assert_eq!(upstream("22.1.8"), "22.1.8");
    }
}
