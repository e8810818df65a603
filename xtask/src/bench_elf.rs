//! `cargo xtask bench elf`: `fmtstr audit` against `llvm-readobj-19 --notes` over the same
//! generated PAL ELFs, and `fmtstr merge` of two ELFs holding a million strings each.
//!
//! 1. 10,000 PAL ELFs (samples/pal/compute.elf with generated tables of 10 to 1,000 strings,
//!    some shared between files as in a real shader cache) are written to a temporary
//!    directory. `fmtstr audit DIR` and `llvm-readobj --notes` over the same files (in batches
//!    of 500 per process, as many processes at once as there are cores, so both use the whole
//!    machine; the sequential figure is printed too) are each timed, and the ratio printed.
//!    fmtstr is timed as the best of three runs (after sync(2)), readobj once each way. The
//!    audit must find nothing, and readobj must decode every note.
//! 2. Two ELFs with 1,000,000 strings each (10% of them shared) are merged with `fmtstr merge`;
//!    the wall time and the peak resident memory of the process (from wait4's rusage) are
//!    reported against the input size.
//! 3. One table of 100,000 and one of 1,000,000 strings go through every command that reads
//!    or writes a table: `embed` (from JSON), `merge` (into a new file), `dump`, `audit`, and
//!    `decode` loading the table for an empty buffer; `llvm-readobj --notes` of the same file
//!    is the peer. Each time is printed for both sizes with the growth factor: linear work
//!    grows about 10x.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use fmtstr_elf::PalElf;
use fmtstr_meta::{Entry, Mask, Table};
use fmtstr_oracles::Tool;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::measure::{self, run_measured};
use crate::process;

const FILES: usize = 10_000;
const MERGE_STRINGS: usize = 1_000_000;
const BATCH: usize = 500;

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

    // 1. audit against readobj.
    let cache = dir.path().join("cache");
    std::fs::create_dir(&cache)?;
    let started = Instant::now();
    let (files, strings, bytes) = generate_cache(&template, &cache)?;
    eprintln!(
        "generated {files} PAL ELFs, {strings} strings, {:.1} MiB in {:.1} s",
        bytes as f64 / (1 << 20) as f64,
        started.elapsed().as_secs_f64()
    );
    let paths: Vec<PathBuf> = (0..files).map(|i| cache.join(file_name(i))).collect();
    // Warm the page cache for both tools alike.
    for path in &paths {
        std::fs::read(path)?;
    }

    let audit_once = || {
        let output = Command::new(&fmtstr)
            .args(["audit", "--format", "json"])
            .arg(&cache)
            .stderr(Stdio::inherit())
            .output()
            .context("cannot run fmtstr audit")?;
        if !output.status.success() {
            bail!(
                "fmtstr audit found problems in generated files:\n{}",
                String::from_utf8_lossy(&output.stdout)
            );
        }
        let report: serde_json::Value = serde_json::from_slice(&output.stdout)?;
        if report["strings"].as_u64() != Some(strings as u64) {
            bail!(
                "fmtstr audit read {} strings, expected {strings}",
                report["strings"]
            );
        }
        Ok(())
    };
    // Let the kernel finish writing the generated files first, then take the best of three
    // runs (a short run suffers most from other work on the machine).
    measure::sync_disks();
    let mut audit_time = Duration::MAX;
    for _ in 0..3 {
        audit_time = audit_time.min(time(audit_once)?);
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let readobj_parallel = time(|| run_readobj(&readobj, &paths, cores))?;
    let readobj_sequential = time(|| run_readobj(&readobj, &paths, 1))?;

    println!("audit of {files} PAL ELFs ({strings} format strings):");
    println!(
        "  fmtstr audit (best of 3)            {:>8.3} s",
        audit_time.as_secs_f64()
    );
    println!(
        "  llvm-readobj --notes ({cores} at once)    {:>8.3} s   fmtstr is {:.1}x faster",
        readobj_parallel.as_secs_f64(),
        readobj_parallel.as_secs_f64() / audit_time.as_secs_f64()
    );
    println!(
        "  llvm-readobj --notes (one at a time) {:>7.3} s   fmtstr is {:.1}x faster",
        readobj_sequential.as_secs_f64(),
        readobj_sequential.as_secs_f64() / audit_time.as_secs_f64()
    );
    std::fs::remove_dir_all(&cache)?;

    // 2. merge of two million-string ELFs.
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

    // 3. every command over one large table, at two sizes.
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

fn file_name(index: usize) -> String {
    format!("pipeline-{index:05}.elf")
}

const PIECES: [&str; 12] = [
    "x=%d", "value %u", "ptr %p", "f=%f", "%.3e", "id %lld", "mask %#x", "%s", "g=%g", "%08X",
    "(%d, %d)", "%v4hlf",
];

/// A random format string and its argument count and mask.
fn random_format(rng: &mut SmallRng, serial: u64) -> (String, u64, Mask) {
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

/// Writes the cache; returns (files, strings, bytes).
fn generate_cache(template: &[u8], dir: &Path) -> anyhow::Result<(usize, usize, u64)> {
    let elf = PalElf::parse(template)?;
    let document = elf.document()?;
    let mut rng = SmallRng::seed_from_u64(0xe1f);
    // Strings that many pipelines share (common helper shaders).
    let common: Vec<(String, u64, Mask)> = (0..200)
        .map(|i| random_format(&mut rng, 1_000_000_000 + i))
        .collect();
    let mut serial = 0u64;
    // 48-bit IDs of five million strings may collide by chance; the generated cache must not.
    let mut all_ids: HashSet<_> = common
        .iter()
        .map(|(text, _, _)| fmtstr_meta::FormatId::of(text.as_bytes()))
        .collect();
    let mut strings = 0;
    let mut bytes = 0;
    for index in 0..FILES {
        let count = rng.gen_range(10..=1000);
        let mut table = Table::new();
        let mut used = HashSet::new();
        for _ in 0..count {
            let (text, argc, mask) = if rng.gen_ratio(1, 10) {
                common[rng.gen_range(0..common.len())].clone()
            } else {
                loop {
                    serial += 1;
                    let candidate = random_format(&mut rng, serial);
                    if all_ids.insert(fmtstr_meta::FormatId::of(candidate.0.as_bytes())) {
                        break candidate;
                    }
                }
            };
            let entry = Entry::for_format(text, argc, mask);
            if used.insert(entry.id()) {
                table.entries.push(entry);
            }
        }
        strings += table.entries.len();
        let out = elf.rewrite(document.as_ref(), &table)?;
        bytes += out.len() as u64;
        std::fs::write(dir.join(file_name(index)), out)?;
    }
    Ok((FILES, strings, bytes))
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

fn time(work: impl FnOnce() -> anyhow::Result<()>) -> anyhow::Result<Duration> {
    let started = Instant::now();
    work()?;
    Ok(started.elapsed())
}

/// `llvm-readobj --notes` over all files in batches, `jobs` processes at a time (each worker
/// thread drains its own process's output, so no process waits on a full pipe); every file must
/// have its metadata decoded.
fn run_readobj(readobj: &Path, paths: &[PathBuf], jobs: usize) -> anyhow::Result<()> {
    let batches = std::sync::Mutex::new(paths.chunks(BATCH));
    let decoded = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..jobs)
            .map(|_| {
                scope.spawn(|| -> anyhow::Result<()> {
                    loop {
                        let batch = match batches.lock() {
                            Ok(mut batches) => batches.next(),
                            Err(_) => bail!("a readobj worker panicked"),
                        };
                        let Some(batch) = batch else { return Ok(()) };
                        let output = Command::new(readobj)
                            .arg("--notes")
                            .args(batch)
                            .output()
                            .context("cannot run llvm-readobj")?;
                        if !output.status.success() {
                            bail!(
                                "llvm-readobj failed: {}",
                                String::from_utf8_lossy(&output.stderr)
                            );
                        }
                        let count = bytecount(&output.stdout, b"AMDGPU Metadata: ---");
                        decoded.fetch_add(count, std::sync::atomic::Ordering::Relaxed);
                    }
                })
            })
            .collect();
        for worker in workers {
            worker
                .join()
                .map_err(|_| anyhow::anyhow!("a readobj worker panicked"))??;
        }
        Ok::<(), anyhow::Error>(())
    })?;
    let decoded = decoded.into_inner();
    if decoded != paths.len() {
        bail!(
            "llvm-readobj decoded {decoded} metadata notes, expected {}",
            paths.len()
        );
    }
    Ok(())
}

fn bytecount(haystack: &[u8], needle: &[u8]) -> usize {
    haystack
        .windows(needle.len())
        .filter(|w| *w == needle)
        .count()
}
