//! `cargo xtask bench audit`: `fmtstr audit` against `llvm-readobj --notes` of LLVM 19 and of
//! LLVM 22 over the same PAL ELFs, in wall time and in CPU time.
//!
//! 1. Two shader caches of 10,000 PAL ELFs each are generated into `target/bench-audit/`
//!    (samples/pal/compute.elf with generated tables; some strings shared between files, as in
//!    a real cache) and kept while the generator does not change: `large` files hold 10 to
//!    1,000 strings, `small` ones 1 to 10.
//! 2. Per cache, after sync(2) and with the files in the page cache: `fmtstr audit --format
//!    json DIR` (best of `FMTSTR_BENCH_RUNS`, default 3), and each readobj over the same files
//!    in batches of 500 per process, as many processes at once as there are cores (xargs -P),
//!    so both use the whole machine. Wall time, and CPU time (user + system of every process,
//!    from GNU time), of each. The audit must find nothing and count every string; readobj
//!    must decode every note.
//! 3. The ratios readobj/fmtstr are printed per cache and per release (target 25x).
//! 4. For scale, the floor: this process opening and reading every file into a buffer, on
//!    as many threads as there are cores (best of the same runs), what no auditor avoids.
//!    readobj / floor is the most any tool that reads the files could reach. (`cat` in
//!    readobj's batches is no floor: starting its processes costs more than fmtstr's whole
//!    audit of the small cache.)

use std::collections::HashSet;
use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use fmtstr_elf::PalElf;
use fmtstr_meta::{Entry, Mask, Table};
use fmtstr_oracles::{find_llvm, Llvm, Tool};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::bench_elf::random_format;
use crate::measure::{self, Measured};
use crate::process;

const FILES: usize = 10_000;
const BATCH: usize = 500;
const GENERATOR_VERSION: u32 = 1;

/// One generated cache: its name and how many strings each file holds.
struct Cache {
    name: &'static str,
    strings: std::ops::RangeInclusive<usize>,
    seed: u64,
}

const CACHES: [Cache; 2] = [
    Cache {
        name: "large",
        strings: 10..=1000,
        seed: 0xe1f,
    },
    Cache {
        name: "small",
        strings: 1..=10,
        seed: 0x5e1f,
    },
];

pub fn run() -> anyhow::Result<()> {
    let runs: usize = match std::env::var("FMTSTR_BENCH_RUNS") {
        Ok(text) => text.parse().context("FMTSTR_BENCH_RUNS is not a number")?,
        Err(_) => 3,
    }
    .max(1);
    let mut peers = Vec::new();
    for llvm in [Llvm::V19, Llvm::V22] {
        match find_llvm(llvm, Tool::LlvmReadobj) {
            Some(path) => peers.push((llvm, path)),
            None => bail!(
                "llvm-readobj-{} is not installed: run `cargo xtask oracles` first",
                llvm.major()
            ),
        }
    }
    let fmtstr = process::build_fmtstr()?;
    let template = std::fs::read(process::root().join("samples/pal/compute.elf"))
        .context("cannot read samples/pal/compute.elf")?;
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let root = process::target_dir().join("bench-audit");

    let mut report = Vec::new();
    for cache in &CACHES {
        let dir = root.join(cache.name);
        let (strings, bytes) = generate(&template, cache, &dir)?;
        let paths: Vec<PathBuf> = (0..FILES).map(|i| dir.join(file_name(i))).collect();
        // Warm the page cache for every tool alike.
        for path in &paths {
            std::fs::read(path)?;
        }
        let list = root.join(format!("{}.list", cache.name));
        let mut names = Vec::new();
        for path in &paths {
            names.extend_from_slice(path.as_os_str().as_encoded_bytes());
            names.push(0);
        }
        std::fs::write(&list, names)?;

        let ours = best_run(runs, || audit(&fmtstr, &dir, strings, &root))?;
        let mut theirs = Vec::new();
        for (llvm, readobj) in &peers {
            theirs.push((*llvm, readobj_notes(readobj, &list, cores, &root)?));
        }
        let floor = best_run(runs, || read_files(&paths, cores))?;
        report.push((cache, strings, bytes, ours, theirs, floor));
    }

    println!("bench audit: {FILES} PAL ELFs per cache, {cores} cores; readobj in batches of {BATCH}, {cores} processes at once");
    println!("                                             wall       CPU   wall ratio  CPU ratio");
    for (cache, strings, bytes, ours, theirs, floor) in &report {
        println!(
            "  {} cache ({}..={} strings a file: {strings} strings, {:.1} MiB)",
            cache.name,
            cache.strings.start(),
            cache.strings.end(),
            *bytes as f64 / (1 << 20) as f64
        );
        println!(
            "    {:<38} {:>6.3} s {:>7.3} s",
            format!("fmtstr audit (best of {runs})"),
            ours.wall.as_secs_f64(),
            ours.cpu.as_secs_f64()
        );
        for (llvm, peer) in theirs {
            println!(
                "    {:<38} {:>6.3} s {:>7.3} s {:>9.1}x {:>9.1}x",
                format!("llvm-readobj-{} --notes", llvm.major()),
                peer.wall.as_secs_f64(),
                peer.cpu.as_secs_f64(),
                peer.wall.as_secs_f64() / ours.wall.as_secs_f64(),
                peer.cpu.as_secs_f64() / ours.cpu.as_secs_f64()
            );
        }
        println!(
            "    {:<38} {:>6.3} s {:>7.3} s {:>9.2}x {:>9.2}x",
            format!("floor: read each file (best of {runs})"),
            floor.wall.as_secs_f64(),
            floor.cpu.as_secs_f64(),
            floor.wall.as_secs_f64() / ours.wall.as_secs_f64(),
            floor.cpu.as_secs_f64() / ours.cpu.as_secs_f64()
        );
        for (llvm, peer) in theirs {
            println!(
                "      readobj-{} / floor: {:.1}x wall, {:.1}x CPU (the most a tool that reads the files can reach)",
                llvm.major(),
                peer.wall.as_secs_f64() / floor.wall.as_secs_f64(),
                peer.cpu.as_secs_f64() / floor.cpu.as_secs_f64()
            );
        }
    }
    println!("  (ratios: how many times faster fmtstr is; target 25x in both)");
    Ok(())
}

/// The best of `runs` runs, each figure on its own ([`Measured::best`]).
fn best_run(
    runs: usize,
    mut run: impl FnMut() -> anyhow::Result<Measured>,
) -> anyhow::Result<Measured> {
    let mut best: Option<Measured> = None;
    for _ in 0..runs {
        let run = run()?;
        best = Some(best.map_or(run, |best| best.best(run)));
    }
    best.context("no run")
}

/// Opens and reads every file in `paths` on `threads` threads, each into a buffer of its own
/// that keeps its capacity: wall time, and the CPU time of the threads.
fn read_files(paths: &[PathBuf], threads: usize) -> anyhow::Result<Measured> {
    measure::sync_disks();
    let next = AtomicUsize::new(0);
    let start = Instant::now();
    let cpu = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| -> anyhow::Result<Duration> {
                    let before = thread_cpu()?;
                    let mut buffer = Vec::new();
                    while let Some(path) = paths.get(next.fetch_add(1, Ordering::Relaxed)) {
                        buffer.clear();
                        File::open(path)
                            .and_then(|mut file| file.read_to_end(&mut buffer))
                            .with_context(|| format!("cannot read {}", path.display()))?;
                    }
                    Ok(thread_cpu()?.saturating_sub(before))
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|worker| worker.join().expect("a reading thread panicked"))
            .sum::<anyhow::Result<Duration>>()
    })?;
    Ok(Measured {
        wall: start.elapsed(),
        cpu,
        peak: 0,
    })
}

/// The calling thread's time on a CPU so far, in the kernel's nanoseconds (schedstat's
/// first field), not the 10 ms ticks of /proc's other counters.
fn thread_cpu() -> anyhow::Result<Duration> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat")
        .context("cannot read /proc/thread-self/schedstat")?;
    let nanoseconds = text
        .split_whitespace()
        .next()
        .and_then(|field| field.parse().ok())
        .context("cannot read /proc/thread-self/schedstat")?;
    Ok(Duration::from_nanos(nanoseconds))
}

/// `fmtstr audit --format json DIR`, checked: nothing found, every string counted.
fn audit(fmtstr: &Path, dir: &Path, strings: usize, root: &Path) -> anyhow::Result<Measured> {
    let output = root.join("audit.json");
    let mut command = Command::new(fmtstr);
    command.args(["audit", "--format", "json"]).arg(dir);
    measure::sync_disks();
    let measured = measure::measure(&command, Stdio::from(File::create(&output)?))?;
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&output)?)?;
    if report["strings"].as_u64() != Some(strings as u64) {
        bail!(
            "fmtstr audit read {} strings, expected {strings}",
            report["strings"]
        );
    }
    Ok(measured)
}

/// readobj `--notes` over the files named in `list` (NUL-separated), `jobs` processes at
/// once; fails unless every file's metadata note was decoded.
fn readobj_notes(
    readobj: &Path,
    list: &Path,
    jobs: usize,
    root: &Path,
) -> anyhow::Result<Measured> {
    let counted = root.join("readobj.count");
    // xargs waits for every readobj, and the shell for xargs: GNU time's figures are theirs
    // (and those of a grep per batch, which counts the notes in readobj's text: processes
    // writing one pipe at once would cut each other's lines).
    let script = format!(
        "xargs -0 -n {BATCH} -P {jobs} -a '{}' sh -c '\"$0\" --notes \"$@\" | grep -c \"AMDGPU Metadata: ---\"' '{}' | awk '{{n += $1}} END {{print n}}'",
        list.display(),
        readobj.display()
    );
    let mut command = Command::new("sh");
    command.arg("-c").arg(&script);
    measure::sync_disks();
    let measured = measure::measure(&command, Stdio::from(File::create(&counted)?))?;
    let decoded: usize = std::fs::read_to_string(&counted)?
        .trim()
        .parse()
        .context("cannot read readobj's count of notes")?;
    if decoded != FILES {
        bail!(
            "{} decoded {decoded} metadata notes, expected {FILES}",
            readobj.display()
        );
    }
    Ok(measured)
}

/// Writes a cache unless the one there was made by the same generator; returns its strings
/// and bytes.
fn generate(template: &[u8], cache: &Cache, dir: &Path) -> anyhow::Result<(usize, u64)> {
    let stamp_path = dir.join("stamp");
    let stamp = format!(
        "{GENERATOR_VERSION} {} {FILES} {:?}",
        cache.seed, cache.strings
    );
    if let Ok(old) = std::fs::read_to_string(&stamp_path) {
        if let Some(rest) = old.strip_prefix(&format!("{stamp} ")) {
            let mut fields = rest.split_whitespace().map(str::parse::<u64>);
            if let (Some(Ok(strings)), Some(Ok(bytes))) = (fields.next(), fields.next()) {
                eprintln!("reusing {}", process::relative(dir));
                return Ok((strings as usize, bytes));
            }
        }
    }
    if dir.exists() {
        std::fs::remove_dir_all(dir)?;
    }
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let elf = PalElf::parse(template)?;
    let document = elf.document()?;
    let mut rng = SmallRng::seed_from_u64(cache.seed);
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
    let (mut strings, mut bytes) = (0usize, 0u64);
    for index in 0..FILES {
        let count = rng.gen_range(cache.strings.clone());
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
    let mut stamp_file = File::create(&stamp_path)?;
    writeln!(stamp_file, "{stamp} {strings} {bytes}")?;
    Ok((strings, bytes))
}

fn file_name(index: usize) -> String {
    format!("pipeline-{index:05}.elf")
}
