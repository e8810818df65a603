//! `fmtstr merge`: combine the format-string tables of several PAL ELFs into a linked one.

use std::path::{Path, PathBuf};

use fmtstr_meta::{Merger, OnCollision, Relation};

use super::Destination;
use crate::output::write_atomically;
use crate::Outcome;

/// Combine the amdpal.format_strings tables of INPUT files into BASE (the post-link step).
///
/// BASE is the linked output; its own entries come first, then each INPUT's new entries in
/// order. Entries with the same ID and the same string, argument count and 64-bit mask become
/// one. The same ID with a different string is a collision: an error by default (exit 1,
/// nothing written); --on-collision keep-first keeps the entry seen first and warns. The same
/// ID and string with a different argument count or mask is a conflict, always an error: a
/// decoder would read one of the shaders' arguments wrongly whichever entry is kept. Tables
/// whose .user_data_offset differ conflict too (always an error, naming both). Shader-abort
/// message entries are kept. Only BASE's metadata note changes; every other section keeps its
/// bytes.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  fmtstr merge pipeline.elf vs.elf ps.elf -o pipeline.merged.elf
  fmtstr merge pipeline.elf vs.elf ps.elf --in-place
  fmtstr merge pipeline.elf a.elf b.elf --on-collision keep-first -o out.elf

Findings name both sources:
  fmtstr: error: ID 0x60281a928696 (105725360768662) collides: a.elf .strings[0] has \"x=%d\\n\"
  and b.elf .strings[0] has \"y=%d\\n\"")]
pub struct Args {
    /// The linked ELF that receives the combined table.
    #[arg(value_name = "BASE.elf")]
    base: PathBuf,
    /// The ELFs whose tables are added.
    #[arg(required = true, value_name = "INPUT.elf")]
    inputs: Vec<PathBuf>,
    /// What to do when one ID has two different strings.
    #[arg(long, value_enum, default_value_t = Policy::Error)]
    on_collision: Policy,
    #[command(flatten)]
    destination: Destination,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Policy {
    /// Report the collision and write nothing (exit 1).
    Error,
    /// Keep the entry seen first (BASE before the inputs) and warn.
    KeepFirst,
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let policy = match args.on_collision {
        Policy::Error => OnCollision::Error,
        Policy::KeepFirst => OnCollision::KeepFirst,
    };
    let paths: Vec<&Path> = std::iter::once(args.base.as_path())
        .chain(args.inputs.iter().map(PathBuf::as_path))
        .collect();
    let target = args.destination.target(&args.base, &paths)?;
    let files: Vec<Vec<u8>> = paths
        .iter()
        .map(|path| super::read(path))
        .collect::<anyhow::Result<_>>()?;

    let (base, mut base_document) = super::parse(&args.base, &files[0])?;
    let had_table = base_document
        .as_ref()
        .is_some_and(|d| d.format_strings().is_some());
    let mut merger = Merger::new();
    if let Some(table) = base_document.as_mut().and_then(|d| d.take_format_strings()) {
        merger.add(0, table);
    }
    for (source, (path, bytes)) in paths.iter().zip(&files).enumerate().skip(1) {
        let (_, document) = super::parse(path, bytes)?;
        if let Some(table) = document.and_then(|mut d| d.take_format_strings()) {
            merger.add(source, table);
        }
    }
    let merged = merger.finish();
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    for finding in &merged.findings {
        let level = if finding.is_error(policy) {
            "error"
        } else {
            "warning"
        };
        eprintln!("fmtstr: {level}: {}", finding.describe(&names));
    }
    for conflict in &merged.offset_conflicts {
        eprintln!("fmtstr: error: {}", conflict.describe(&names));
    }
    if merged.has_errors(policy) {
        eprintln!(
            "fmtstr: nothing written: {} finding(s); fix the inputs{}",
            merged.error_count(policy),
            if policy == OnCollision::Error
                && merged
                    .findings
                    .iter()
                    .any(|f| f.relation == Relation::Collision)
            {
                ", or pass --on-collision keep-first to keep the first string of each colliding ID"
            } else {
                ""
            }
        );
        return Ok(Outcome::Findings);
    }
    let out = if merged.table.strings_len() == 0 && !had_table {
        // Nothing to merge: BASE as it is.
        files[0].clone()
    } else {
        base.rewrite(base_document.as_ref(), &merged.table)
            .map_err(|error| anyhow::anyhow!("{}: {error}", args.base.display()))?
    };
    write_atomically(&target, &out)?;
    Ok(Outcome::Clean)
}
