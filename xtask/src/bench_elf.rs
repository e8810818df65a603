//! `cargo xtask bench elf`: `fmtstr merge` of two ELFs holding a million strings each, and
//! every command that reads or writes a table at two sizes (`bench audit` times the audit of
//! a shader cache against readobj).
//!
//! 1. Two ELFs with 1,000,000 strings each (10% of them shared) are merged with `fmtstr merge`;
//!    the wall time and the peak resident memory of the process (from wait4's rusage) are
//!    reported against the input size.
//! 2. One table of 100,000 and one of 1,000,000 strings go through every command that reads
//!    or writes a table: `embed` (from JSON), `merge` (into a new file), `dump`, `audit`, and
//!    `decode` loading the table for an empty buffer; `llvm-readobj --notes` of the same file
//!    is the peer. Each time is printed for both sizes with the growth factor: linear work
//!    grows about 10x.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use anyhow::{bail, Context};
use fmtstr_elf::PalElf;
use fmtstr_meta::{Entry, Mask, Table};
use fmtstr_oracles::Tool;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::measure::run_measured;
use crate::process;

const MERGE_STRINGS: usize = 1_000_000;

pub fn run() -> anyhow::Result<()> {
    let Some(readobj) = Tool::LlvmReadobj
        .command()
        .map(|c| PathBuf::from(c.get_program()))
    else {
        bail!("llvm-readobj-19 is not installed: run `cargo xtask oracles` first");
    };
    let fmtstr = process::build_fmtstr()?;
    let template = std::fs::read(process::root().join("samples/pal/compute.elf"))
        .context("cannot read samples/pal/compute.elf")?;
    let dir = tempfile::Builder::new()
        .prefix("fmtstr-bench-elf-")
        .tempdir()
        .context("cannot create a temporary directory")?;

    // 1. merge of two million-string ELFs.
    let (a, b, shared) = generate_merge_inputs(&template, dir.path())?;
    let input_size = std::fs::metadata(&a)?.len() + std::fs::metadata(&b)?.len();
    let out = dir.path().join("merged.elf");
    let (merge_time, peak) = run_measured(
        Command::new(&fmtstr)
            .arg("merge")
            .arg(&a)
            .arg(&b)
            .arg("-o")
            .arg(&out),
    )?;
    let merged = std::fs::read(&out)?;
    let table = PalElf::parse(&merged)?
        .format_strings()?
        .context("the merged file has no table")?;
    let expected = 2 * MERGE_STRINGS - shared;
    if table.entries.len() != expected {
        bail!(
            "the merge has {} entries, expected {expected}",
            table.entries.len()
        );
    }
    println!("merge of two ELFs with {MERGE_STRINGS} strings each ({shared} shared):");
    println!(
        "  inputs {:.1} MiB, output {:.1} MiB",
        input_size as f64 / (1 << 20) as f64,
        merged.len() as f64 / (1 << 20) as f64
    );
    println!(
        "  fmtstr merge {:.3} s (target < 2 s), peak memory {:.1} MiB = {:.2}x the input size (target < 4x)",
        merge_time.as_secs_f64(),
        peak as f64 / (1 << 20) as f64,
        peak as f64 / input_size as f64
    );

    // 2. every command over one large table, at two sizes.
    let small = table_times(&fmtstr, &readobj, &template, dir.path(), 100_000)?;
    let large = table_times(&fmtstr, &readobj, &template, dir.path(), 1_000_000)?;
    println!("one table through every command (wall time; linear work grows about 10x):");
    println!(
        "  {:<34} {:>10} {:>10} {:>7}",
        "", "100,000", "1,000,000", "growth"
    );
    for ((name, a), (_, b)) in small.iter().zip(&large) {
        println!(
            "  {name:<34} {:>8.3} s {:>8.3} s {:>6.1}x",
            a.as_secs_f64(),
            b.as_secs_f64(),
            b.as_secs_f64() / a.as_secs_f64().max(1e-6)
        );
    }
    Ok(())
}

/// Times each command over one PAL ELF of `count` strings (made by `fmtstr embed`).
fn table_times(
    fmtstr: &Path,
    readobj: &Path,
    template: &[u8],
    dir: &Path,
    count: usize,
) -> anyhow::Result<Vec<(&'static str, Duration)>> {
    let mut rng = SmallRng::seed_from_u64(0x7ab1e + count as u64);
    let mut ids = HashSet::new();
    let mut table = Table::new();
    let mut serial = 0u64;
    while table.entries.len() < count {
        serial += 1;
        let (text, argc, mask) = random_format(&mut rng, serial);
        let entry = Entry::for_format(text, argc, mask);
        if ids.insert(entry.id()) {
            table.entries.push(entry);
        }
    }
    let json = dir.join(format!("table-{count}.json"));
    std::fs::write(&json, serde_json::to_vec(&table.to_json())?)?;
    let base = dir.join("template.elf");
    std::fs::write(&base, template)?;
    let elf = dir.join(format!("table-{count}.elf"));
    let merged = dir.join(format!("merged-{count}.elf"));
    let buffer = dir.join("empty.bin");
    // A PAL printf buffer header with no entries.
    std::fs::write(&buffer, [0u8; 16])?;
    let quiet =
        |command: &mut Command| -> anyhow::Result<Duration> { Ok(run_measured(command)?.0) };
    let times = vec![
        (
            "fmtstr embed (JSON -> ELF)",
            quiet(
                Command::new(fmtstr)
                    .args(["embed", "--strings"])
                    .arg(&json)
                    .arg(&base)
                    .arg("-o")
                    .arg(&elf),
            )?,
        ),
        (
            "fmtstr merge (into a new file)",
            quiet(
                Command::new(fmtstr)
                    .arg("merge")
                    .arg(&elf)
                    .arg("-o")
                    .arg(&merged),
            )?,
        ),
        (
            "fmtstr dump",
            quiet(Command::new(fmtstr).arg("dump").arg(&elf))?,
        ),
        (
            "fmtstr audit",
            quiet(Command::new(fmtstr).arg("audit").arg(&elf))?,
        ),
        (
            "fmtstr decode (loading the table)",
            quiet(
                Command::new(fmtstr)
                    .arg("decode")
                    .arg(&buffer)
                    .arg("--elf")
                    .arg(&elf),
            )?,
        ),
        (
            "llvm-readobj --notes (the peer)",
            quiet(Command::new(readobj).arg("--notes").arg(&elf))?,
        ),
    ];
    // The template's own entries, and the table's.
    let expected = PalElf::parse(template)?
        .format_strings()?
        .map_or(0, |t| t.entries.len())
        + count;
    let merged_bytes = std::fs::read(&merged)?;
    let dumped = PalElf::parse(&merged_bytes)?
        .format_strings()?
        .context("the merged file has no table")?;
    if dumped.entries.len() != expected {
        bail!(
            "the merged table has {} entries, expected {expected}",
            dumped.entries.len()
        );
    }
    Ok(times)
}

const PIECES: [&str; 12] = [
    "x=%d", "value %u", "ptr %p", "f=%f", "%.3e", "id %lld", "mask %#x", "%s", "g=%g", "%08X",
    "(%d, %d)", "%v4hlf",
];

/// A random format string and its argument count and mask.
pub(crate) fn random_format(rng: &mut SmallRng, serial: u64) -> (String, u64, Mask) {
    let mut text = format!("[{serial}] ");
    let mut wide = Vec::new();
    let mut count = 0usize;
    for _ in 0..rng.gen_range(1..4) {
        let piece = PIECES[rng.gen_range(0..PIECES.len())];
        text.push_str(piece);
        text.push(' ');
        for spec in piece.matches('%') {
            let _ = spec;
            if piece.contains("ll") || piece.contains("%p") || piece.contains("%s") {
                wide.push(count);
            }
            count += 1;
        }
    }
    text.push('\n');
    (text, count as u64, Mask::for_arguments(count, wide))
}

/// Writes two ELFs with MERGE_STRINGS strings each, `shared` of them in both.
fn generate_merge_inputs(template: &[u8], dir: &Path) -> anyhow::Result<(PathBuf, PathBuf, usize)> {
    let elf = PalElf::parse(template)?;
    let document = elf.document()?;
    let mut rng = SmallRng::seed_from_u64(0x3e76e);
    let shared = MERGE_STRINGS / 10;
    let mut ids = HashSet::new();
    let mut make = |serial: u64, rng: &mut SmallRng| loop {
        let (text, argc, mask) = random_format(rng, serial);
        let entry = Entry::for_format(text, argc, mask);
        if ids.insert(entry.id()) {
            return entry;
        }
    };
    let common: Vec<Entry<'static>> = (0..shared as u64).map(|i| make(i, &mut rng)).collect();
    let mut paths = Vec::new();
    for (side, offset) in [("a", 10_000_000u64), ("b", 20_000_000)] {
        let mut table = Table::new();
        table.entries.extend(common.iter().cloned());
        for i in 0..(MERGE_STRINGS - shared) as u64 {
            table.entries.push(make(offset + i, &mut rng));
        }
        let path = dir.join(format!("{side}.elf"));
        std::fs::write(&path, elf.rewrite(document.as_ref(), &table)?)?;
        paths.push(path);
    }
    let b = paths.pop().unwrap_or_default();
    let a = paths.pop().unwrap_or_default();
    Ok((a, b, shared))
}
