//! `fmtstr merge`: combine the format-string tables of several PAL ELFs into a linked one, and
//! fold a linked file's metadata notes (one per linked object) into one.

use std::io::Write;
use std::path::{Path, PathBuf};

use fmtstr_tools::merge::{self, OnCollision, OnKeyDifference, Options};
use fmtstr_tools::Source;

use super::Destination;
use crate::output::write_atomically;
use crate::Outcome;

/// The post-link step: fold BASE's metadata notes into one and merge INPUTs' tables into it.
///
/// BASE is the linked output. `ld.lld -r` and `ld.lld -shared` keep one NT_AMDGPU_METADATA
/// note per linked object; PAL reads one. merge folds them: the first note's document is the
/// base, the amdpal.format_strings tables of all notes merge, and every other top-level key of
/// a later note must equal the first note's (else exit 2 naming the key and both notes, or
/// --on-key-difference keep-base). The result has one metadata note; other notes and every
/// other section keep their bytes. Then the tables of INPUT files, if any, are merged in:
/// BASE's entries come first, then each INPUT's new entries in order.
///
/// Entries with the same ID and the same string, argument count and 64-bit mask become one.
/// The same ID with a different string is a collision: an error by default (exit 1,
/// nothing written); --on-collision keep-first keeps the entry seen first and warns. The same
/// ID and string with a different argument count or mask is a conflict, always an error: a
/// decoder would read one of the shaders' arguments wrongly whichever entry is kept. Tables
/// whose .user_data_offset differ conflict too (always an error, naming both). Shader-abort
/// message entries are kept. Only BASE's metadata notes change; every other section keeps its
/// bytes.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  ld.lld -shared vs.o ps.o -o pipeline.elf && fmtstr merge pipeline.elf --in-place
  fmtstr merge pipeline.elf vs.elf ps.elf -o pipeline.merged.elf
  fmtstr merge pipeline.elf vs.elf ps.elf      (no -o: pipeline.elf is replaced)
  fmtstr merge pipeline.elf a.elf b.elf --on-collision keep-first -o out.elf

Findings name both sources:
  fmtstr: error: ID 0x60281a928696 (105725360768662) collides: a.elf .strings[0] has \"x=%d\\n\"
  and b.elf .strings[0] has \"y=%d\\n\"")]
pub struct Args {
    /// The linked ELF that receives the combined table.
    #[arg(value_name = "BASE.elf")]
    base: PathBuf,
    /// The ELFs whose tables are added (none: only fold BASE's own notes).
    #[arg(value_name = "INPUT.elf")]
    inputs: Vec<PathBuf>,
    /// What to do when one ID has two different strings.
    #[arg(long, value_enum, default_value_t = Policy::Error)]
    on_collision: Policy,
    /// What to do when BASE's metadata notes disagree on a top-level key other than
    /// amdpal.format_strings (amdpal.pipelines, amdpal.version, ...).
    #[arg(long, value_enum, default_value_t = KeyPolicy::Error)]
    on_key_difference: KeyPolicy,
    #[command(flatten)]
    destination: Destination,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum KeyPolicy {
    /// Name the key and both notes, and write nothing (exit 2).
    Error,
    /// Keep the first note's value (or lack of the key) and warn.
    KeepBase,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Policy {
    /// Report the collision and write nothing (exit 1).
    Error,
    /// Keep the entry seen first (BASE before the inputs) and warn.
    KeepFirst,
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let options = Options {
        on_collision: match args.on_collision {
            Policy::Error => OnCollision::Error,
            Policy::KeepFirst => OnCollision::KeepFirst,
        },
        on_key_difference: match args.on_key_difference {
            KeyPolicy::Error => OnKeyDifference::Error,
            KeyPolicy::KeepBase => OnKeyDifference::KeepBase,
        },
    };
    let paths: Vec<&Path> = std::iter::once(args.base.as_path())
        .chain(args.inputs.iter().map(PathBuf::as_path))
        .collect();
    let target = args.destination.target(&args.base, &paths)?;
    let _lock = target.lock()?;
    let inputs: Vec<Source<'_>> = args.inputs.iter().map(|p| Source::Path(p)).collect();
    let merged = merge::merge(&Source::Path(&args.base), &inputs, &options)?;
    let mut stderr = crate::diagnostics::stderr();
    for message in &merged.messages {
        let _ = writeln!(stderr, "{message}");
    }
    drop(stderr);
    let Some(image) = merged.image else {
        return Ok(Outcome::Findings);
    };
    write_atomically(&target.path, &image, target.replace)?;
    Ok(Outcome::Clean)
}
