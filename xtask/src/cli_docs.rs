//! `cargo xtask man`: the man pages (clap_mangen, one page per subcommand) and the shell
//! completion scripts (clap_complete) of `fmtstr`, generated from its command-line definition
//! (`fmtstr_cli::command()`) into checked-in directories, and CI's check that they are current.
//!
//! The check regenerates both into a temporary directory and compares file by file, so a stale,
//! missing or extra file fails it with the command that fixes it.

use std::collections::BTreeSet;
use std::path::Path;

use anyhow::{bail, Context};
use clap::ValueEnum;

use crate::process;

/// One page per command: fmtstr.1, fmtstr-audit.1, ...
pub const MAN_DIR: &str = "doc/man";
/// fmtstr.bash, _fmtstr (zsh), fmtstr.fish, _fmtstr.ps1, fmtstr.elv.
pub const COMPLETIONS_DIR: &str = "doc/completions";
/// What a user runs when the check fails.
const FIX: &str = "run `cargo xtask man` and commit doc/";

/// Writes the man pages and completion scripts into `man_dir` and `completions_dir`.
fn generate(man_dir: &Path, completions_dir: &Path) -> anyhow::Result<()> {
    for dir in [man_dir, completions_dir] {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let mut command = fmtstr_cli::command().disable_help_subcommand(true);
    command.build();
    write_man_pages(&command, man_dir)
        .with_context(|| format!("cannot write the man pages into {}", man_dir.display()))?;
    let mut command = fmtstr_cli::command();
    for shell in clap_complete::Shell::value_variants() {
        clap_complete::generate_to(*shell, &mut command, "fmtstr", completions_dir).with_context(
            || {
                format!(
                    "cannot write the {shell} completions into {}",
                    completions_dir.display()
                )
            },
        )?;
    }
    Ok(())
}

/// One page for `command` and one for each of its subcommands (`fmtstr-audit.1`, ...).
fn write_man_pages(command: &clap::Command, dir: &Path) -> std::io::Result<()> {
    for sub in command.get_subcommands().filter(|sub| !sub.is_hide_set()) {
        write_man_pages(sub, dir)?;
    }
    let man = clap_mangen::Man::new(command.clone());
    let mut page = Vec::new();
    man.render_title(&mut page)?;
    man.render_name_section(&mut page)?;
    man.render_synopsis_section(&mut page)?;
    page.extend(text_section(
        "DESCRIPTION",
        command.get_long_about().or(command.get_about()),
    ));
    if command.get_arguments().any(|arg| !arg.is_hide_set()) {
        man.render_options_section(&mut page)?;
    }
    if command.has_subcommands() {
        man.render_subcommands_section(&mut page)?;
    }
    // "Examples:" and "Exit codes:" blocks become sections of their own.
    page.extend(text_section(
        "",
        command.get_after_long_help().or(command.get_after_help()),
    ));
    if command.get_version().is_some() {
        man.render_version_section(&mut page)?;
    }
    std::fs::write(dir.join(man.get_filename()), page)
}

/// A help text as man page sections. clap_mangen hands every line to roff, which fills them
/// into one paragraph; here a blank line starts a paragraph, an indented line (a list item or
/// an example) keeps its line (no-fill), and a line `Heading:` alone starts a section named
/// by it (`section`, when not empty, is the first section's name).
fn text_section(section: &str, text: Option<&clap::builder::StyledStr>) -> Vec<u8> {
    let Some(text) = text else {
        return Vec::new();
    };
    let mut roff = roff::Roff::new();
    if !section.is_empty() {
        roff.control("SH", [section]);
    }
    let mut filling = true;
    for line in text.to_string().lines() {
        let heading = line
            .strip_suffix(':')
            .filter(|h| !h.starts_with(' ') && !h.contains(". "));
        let indented = line.starts_with(' ');
        if indented == filling {
            // Entering or leaving a block of lines to keep as they are.
            roff.control(if indented { "nf" } else { "fi" }, []);
            filling = !indented;
        }
        if line.trim().is_empty() {
            roff.control("PP", []);
        } else if let Some(heading) = heading.filter(|_| !indented && line.len() < 40) {
            roff.control("SH", [heading.to_uppercase().as_str()]);
        } else {
            roff.text([roff::roman(line)]);
        }
    }
    if !filling {
        roff.control("fi", []);
    }
    roff.render().into_bytes()
}

/// `cargo xtask man [--check]`: regenerate doc/man and doc/completions, or (`check`) fail when
/// the checked-in copies are not what the sources give.
pub fn run(check: bool) -> anyhow::Result<()> {
    let root = process::root();
    let fresh = tempfile::tempdir().context("cannot create a temporary directory")?;
    let (fresh_man, fresh_completions) =
        (fresh.path().join("man"), fresh.path().join("completions"));
    generate(&fresh_man, &fresh_completions)?;
    let pairs = [
        (fresh_man.as_path(), MAN_DIR),
        (fresh_completions.as_path(), COMPLETIONS_DIR),
    ];
    if check {
        let mut problems = Vec::new();
        for (generated, checked_in) in pairs {
            problems.extend(differences(generated, &root.join(checked_in), checked_in)?);
        }
        if !problems.is_empty() {
            bail!(
                "the man pages or completions are not what fmtstr's options give:\n  {}\n{FIX}",
                problems.join("\n  ")
            );
        }
        eprintln!("xtask man: {MAN_DIR} and {COMPLETIONS_DIR} are current");
        return Ok(());
    }
    for (generated, checked_in) in pairs {
        let target = root.join(checked_in);
        if target.exists() {
            std::fs::remove_dir_all(&target)
                .with_context(|| format!("cannot replace {}", target.display()))?;
        }
        std::fs::create_dir_all(&target)
            .with_context(|| format!("cannot create {}", target.display()))?;
        for name in file_names(generated)? {
            std::fs::copy(generated.join(&name), target.join(&name))
                .with_context(|| format!("cannot write {checked_in}/{name}"))?;
        }
        eprintln!("xtask man: wrote {checked_in}");
    }
    Ok(())
}

/// The files of a directory (no subdirectories are generated); none when it does not exist.
fn file_names(dir: &Path) -> anyhow::Result<BTreeSet<String>> {
    if !dir.exists() {
        return Ok(BTreeSet::new());
    }
    let mut names = BTreeSet::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("cannot list {}", dir.display()))? {
        let entry = entry.with_context(|| format!("cannot list {}", dir.display()))?;
        names.insert(entry.file_name().to_string_lossy().into_owned());
    }
    Ok(names)
}

/// What differs between freshly generated files and the checked-in copies, one line each,
/// naming the checked-in file (`shown` is the directory as the user knows it).
fn differences(generated: &Path, checked_in: &Path, shown: &str) -> anyhow::Result<Vec<String>> {
    let wanted = file_names(generated)?;
    let present = file_names(checked_in)?;
    let mut problems = Vec::new();
    for name in wanted.union(&present) {
        let problem = match (wanted.contains(name), present.contains(name)) {
            (true, false) => "missing",
            (false, true) => "no longer generated (delete it)",
            _ => {
                let read = |dir: &Path| {
                    std::fs::read(dir.join(name))
                        .with_context(|| format!("cannot read {}", dir.join(name).display()))
                };
                if read(generated)? == read(checked_in)? {
                    continue;
                }
                "out of date"
            }
        };
        problems.push(format!("{shown}/{name}: {problem}"));
    }
    Ok(problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// CI's check, as a test too: the checked-in pages and scripts are current.
    #[test]
    fn checked_in_man_pages_and_completions_are_current() {
        run(true).expect("current");
    }

    /// The check catches each way a copy goes stale, names the file and says what to run.
    #[test]
    fn the_check_names_every_stale_file_and_the_command_that_fixes_it() {
        let dir = tempfile::tempdir().unwrap();
        let (man, completions) = (dir.path().join("man"), dir.path().join("completions"));
        generate(&man, &completions).unwrap();
        let names = file_names(&man).unwrap();
        for page in [
            "fmtstr.1",
            "fmtstr-audit.1",
            "fmtstr-printf.1",
            "fmtstr-completions.1",
        ] {
            assert!(names.contains(page), "{page} not generated: {names:?}");
        }
        assert!(!names.contains("fmtstr-help.1"), "{names:?}");
        assert_eq!(
            file_names(&completions)
                .unwrap()
                .into_iter()
                .collect::<Vec<_>>(),
            [
                "_fmtstr",
                "_fmtstr.ps1",
                "fmtstr.bash",
                "fmtstr.elv",
                "fmtstr.fish"
            ]
        );

        let copy = dir.path().join("copy");
        std::fs::create_dir(&copy).unwrap();
        for name in &names {
            std::fs::copy(man.join(name), copy.join(name)).unwrap();
        }
        assert_eq!(
            differences(&man, &copy, "doc/man").unwrap(),
            Vec::<String>::new()
        );

        let mut page = std::fs::read_to_string(copy.join("fmtstr-audit.1")).unwrap();
        page.push_str(".SH EDITED BY HAND\n");
        std::fs::write(copy.join("fmtstr-audit.1"), page).unwrap();
        std::fs::remove_file(copy.join("fmtstr-printf.1")).unwrap();
        std::fs::write(copy.join("fmtstr-gone.1"), "").unwrap();
        assert_eq!(
            differences(&man, &copy, "doc/man").unwrap(),
            [
                "doc/man/fmtstr-audit.1: out of date",
                "doc/man/fmtstr-gone.1: no longer generated (delete it)",
                "doc/man/fmtstr-printf.1: missing",
            ]
        );
        assert!(FIX.contains("cargo xtask man"));
    }
}
