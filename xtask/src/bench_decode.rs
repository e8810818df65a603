//! `cargo xtask bench decode`: `fmtstr decode` against a C decoder that works like the AMD
//! driver's (xtask/c/driver_decode.c: glibc `snprintf` per conversion), on one buffer.
//!
//! 1. A buffer of mixed entries (integers with widths and flags, hex and octal, `%f`, `%e`,
//!    `%g` of floats and doubles, 64-bit integers), 1 GiB by default, is generated into
//!    `target/bench-decode/` with its format-string table (JSON for fmtstr, a flat file for the
//!    C decoder); it is kept and reused while its parameters do not change.
//! 2. The C decoder is compiled with clang-19 -O2.
//! 3. The C decoder, `fmtstr decode --jobs 1` and `fmtstr decode --jobs N` (N = the cores)
//!    each decode the buffer into a file, best of `FMTSTR_BENCH_RUNS` interleaved runs
//!    (default 3), after sync(2). Wall time, CPU time and peak resident memory of each process
//!    are taken from GNU time (see `measure`).
//! 4. The three texts must be byte-identical; then the times, ratios and memories are printed.
//!
//! `FMTSTR_BENCH_SIZE` sets the buffer size (`1G`, `256M`, or bytes) for slow machines.

use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use fmtstr_meta::{Entry, FormatId, Mask, Table};
use fmtstr_oracles::Tool;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::measure::{self, Measured};
use crate::process;

/// How each argument travels.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Value {
    /// A small or large `int`.
    I32,
    /// An `unsigned` (hex, octal).
    U32,
    /// A float (one dword).
    F32,
    /// A double (two dwords).
    F64,
    /// A 64-bit integer (two dwords).
    I64,
}

/// The mix: formats a GPU programmer prints, within what the AMD driver's decoder handles.
const FORMATS: &[(&str, &[Value])] = &[
    ("x=%d\n", &[Value::I32]),
    ("id %5d: %08x\n", &[Value::I32, Value::U32]),
    ("[%-6i|%+.5d]\n", &[Value::I32, Value::I32]),
    ("pos %f %f %f\n", &[Value::F32, Value::F32, Value::F32]),
    ("t=%.3f ms\n", &[Value::F64]),
    ("%e\n", &[Value::F32]),
    ("%12.4E|%g\n", &[Value::F64, Value::F32]),
    ("value %.10g\n", &[Value::F64]),
    ("%lld %llx\n", &[Value::I64, Value::I64]),
    (
        "thread %u: value %ld (%#lx)\n",
        &[Value::U32, Value::I64, Value::I64],
    ),
    ("%X %o\n", &[Value::U32, Value::U32]),
    (
        "lane %2u of %2u: %8.2f\n",
        &[Value::U32, Value::U32, Value::F32],
    ),
];

const SEED: u64 = 0x00de_c0de;
const GENERATOR_VERSION: u32 = 1;

pub fn run() -> anyhow::Result<()> {
    let size = match std::env::var("FMTSTR_BENCH_SIZE") {
        Ok(text) => parse_size(&text)?,
        Err(_) => 1 << 30,
    };
    let runs: usize = match std::env::var("FMTSTR_BENCH_RUNS") {
        Ok(text) => text.parse().context("FMTSTR_BENCH_RUNS is not a number")?,
        Err(_) => 3,
    }
    .max(1);
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let Some(clang) = Tool::Clang
        .command()
        .map(|c| PathBuf::from(c.get_program()))
    else {
        bail!("clang-19 is not installed: run `cargo xtask oracles` first");
    };
    let fmtstr = process::build_fmtstr()?;
    let dir = process::target_dir().join("bench-decode");
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;

    let driver = dir.join("driver_decode");
    process::run(
        Command::new(&clang)
            .args(["-O2", "-w", "-o"])
            .arg(&driver)
            .arg(process::root().join("xtask/c/driver_decode.c")),
    )?;

    let buffer = dir.join("buffer.bin");
    let json_table = dir.join("strings.json");
    let flat_table = dir.join("strings.flat");
    let (entries, buffer_bytes) = generate(&dir, &buffer, &json_table, &flat_table, size)?;
    // Warm the page cache for everyone alike.
    let mut sink = vec![0u8; 8 << 20];
    let mut file = File::open(&buffer)?;
    while file.read(&mut sink)? > 0 {}
    drop(sink);

    let jobs_all = cores.to_string();
    let outputs = [
        dir.join("c.txt"),
        dir.join("fmtstr-1.txt"),
        dir.join("fmtstr-n.txt"),
    ];
    let commands = [
        {
            let mut c = Command::new(&driver);
            c.arg(&flat_table).arg(&buffer);
            c
        },
        {
            let mut c = Command::new(&fmtstr);
            c.arg("decode")
                .arg(&buffer)
                .arg("--strings")
                .arg(&json_table)
                .args(["--jobs", "1"]);
            c
        },
        {
            let mut c = Command::new(&fmtstr);
            c.arg("decode")
                .arg(&buffer)
                .arg("--strings")
                .arg(&json_table)
                .args(["--jobs", &jobs_all]);
            c
        },
    ];
    // Runs interleave (C, one job, all cores, C, ...) so that a busy spell on a shared machine
    // does not fall on one decoder only; each keeps its best.
    let mut results: Vec<Option<Measured>> = vec![None; commands.len()];
    for _ in 0..runs {
        for ((command, output), best) in commands.iter().zip(&outputs).zip(&mut results) {
            let run = timed(command, output)?;
            *best = Some(best.map_or(run, |best| best.best(run)));
        }
    }
    let results: Vec<Measured> = results.into_iter().flatten().collect();
    let text_bytes = std::fs::metadata(&outputs[0])?.len();
    for other in &outputs[1..] {
        compare(&outputs[0], other)?;
    }
    for output in &outputs {
        let _ = std::fs::remove_file(output);
    }

    let [c, one, all] = [results[0], results[1], results[2]];
    let mib = |bytes: u64| bytes as f64 / (1 << 20) as f64;
    println!(
        "bench decode: {entries} entries, {:.0} MiB of buffer, {:.0} MiB of text, identical \
         from all three decoders (best of {runs})",
        mib(buffer_bytes),
        mib(text_bytes)
    );
    println!("                                                        wall      CPU    peak RSS");
    let row = |name: &str, m: Measured| {
        println!(
            "  {name:<50} {:>7.2} s {:>6.2} s {:>7.1} MiB",
            m.wall.as_secs_f64(),
            m.cpu.as_secs_f64(),
            mib(m.peak)
        );
    };
    row("C, like the AMD driver (snprintf per conversion)", c);
    row("fmtstr decode --jobs 1", one);
    row(&format!("fmtstr decode --jobs {cores}"), all);
    let ratio = |a: Duration, b: Duration| a.as_secs_f64() / b.as_secs_f64();
    println!(
        "  one core: fmtstr is {:.2}x as fast as the C decoder in wall time, {:.2}x in CPU time \
         (target 5x)",
        ratio(c.wall, one.wall),
        ratio(c.cpu, one.cpu)
    );
    println!(
        "  {cores} cores: {:.2}x as fast as fmtstr on one (target 1.8x on two), {:.2}x the C \
         decoder; CPU time {:.2}x that of one job",
        ratio(one.wall, all.wall),
        ratio(c.wall, all.wall),
        ratio(all.cpu, one.cpu)
    );
    Ok(())
}

fn parse_size(text: &str) -> anyhow::Result<u64> {
    let text = text.trim();
    let (digits, unit) = match text.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((at, _)) => text.split_at(at),
        None => (text, ""),
    };
    let number: u64 = digits
        .parse()
        .with_context(|| format!("FMTSTR_BENCH_SIZE={text}: expected 1G, 256M or bytes"))?;
    let shift = match unit.to_ascii_uppercase().as_str() {
        "" | "B" => 0,
        "K" | "KIB" => 10,
        "M" | "MIB" => 20,
        "G" | "GIB" => 30,
        _ => bail!("FMTSTR_BENCH_SIZE={text}: expected 1G, 256M or bytes"),
    };
    Ok((number << shift).max(4096))
}

/// Writes the buffer and its tables unless the ones there were made with the same parameters.
/// Returns the number of entries and the buffer's size.
fn generate(
    dir: &Path,
    buffer: &Path,
    json_table: &Path,
    flat_table: &Path,
    size: u64,
) -> anyhow::Result<(u64, u64)> {
    let stamp_path = dir.join("buffer.stamp");
    let stamp = format!("{GENERATOR_VERSION} {SEED} {size}");
    if let (Ok(old), Ok(metadata)) = (std::fs::read_to_string(&stamp_path), buffer.metadata()) {
        if let Some(entries) = old.strip_prefix(&format!("{stamp} ")) {
            if json_table.exists() && flat_table.exists() {
                let entries = entries.trim().parse().unwrap_or(0);
                eprintln!("reusing {} ({entries} entries)", process::relative(buffer));
                return Ok((entries, metadata.len()));
            }
        }
    }
    let started = Instant::now();
    let mut table = Table::new();
    let mut flat = Vec::new();
    let mut ids = Vec::new();
    for (text, values) in FORMATS {
        let wide: Vec<usize> = values
            .iter()
            .enumerate()
            .filter(|(_, v)| matches!(v, Value::F64 | Value::I64))
            .map(|(i, _)| i)
            .collect();
        let mask = Mask::for_arguments(values.len(), wide.iter().copied());
        let entry = Entry::for_format(text.to_string(), values.len() as u64, mask.clone());
        let id = FormatId::of(text.as_bytes()).get();
        ids.push(id);
        flat.extend_from_slice(&id.to_le_bytes());
        flat.extend_from_slice(&mask.words().first().copied().unwrap_or(0).to_le_bytes());
        flat.extend_from_slice(&(text.len() as u32).to_le_bytes());
        flat.extend_from_slice(text.as_bytes());
        table.entries.push(entry);
    }
    std::fs::write(json_table, serde_json::to_vec_pretty(&table.to_json())?)?;
    std::fs::write(flat_table, &flat)?;

    let mut rng = SmallRng::seed_from_u64(SEED);
    let mut file = BufWriter::with_capacity(16 << 20, File::create(buffer)?);
    file.write_all(&[0; 16])?;
    let limit = (size - 16) / 4 - 16;
    let mut dwords = 0u64;
    let mut entries = 0u64;
    let mut entry = Vec::with_capacity(16);
    while dwords < limit {
        let index = rng.gen_range(0..FORMATS.len());
        let values = FORMATS[index].1;
        entry.clear();
        entry.extend_from_slice(&[0, 0]);
        for value in values {
            match value {
                Value::I32 => entry.push(random_int(&mut rng) as u32),
                Value::U32 => entry.push(rng.gen::<u32>() >> rng.gen_range(0..32)),
                Value::F32 => entry.push((random_double(&mut rng) as f32).to_bits()),
                Value::F64 => {
                    let bits = random_double(&mut rng).to_bits();
                    entry.extend_from_slice(&[bits as u32, (bits >> 32) as u32]);
                }
                Value::I64 => {
                    let bits = random_int(&mut rng) as u64;
                    entry.extend_from_slice(&[bits as u32, (bits >> 32) as u32]);
                }
            }
        }
        let header = entry.len() as u64 | ids[index] << 16;
        entry[0] = header as u32;
        entry[1] = (header >> 32) as u32;
        for dword in &entry {
            file.write_all(&dword.to_le_bytes())?;
        }
        dwords += entry.len() as u64;
        entries += 1;
    }
    let mut file = file.into_inner().map_err(|e| e.into_error())?;
    file.seek(SeekFrom::Start(0))?;
    file.write_all(&dwords.to_le_bytes())?;
    file.sync_all()?;
    drop(file);
    std::fs::write(&stamp_path, format!("{stamp} {entries}\n"))?;
    let bytes = 16 + dwords * 4;
    eprintln!(
        "generated {} ({entries} entries, {:.0} MiB) in {:.1} s",
        process::relative(buffer),
        bytes as f64 / (1 << 20) as f64,
        started.elapsed().as_secs_f64()
    );
    Ok((entries, bytes))
}

fn random_int(rng: &mut SmallRng) -> i64 {
    match rng.gen_range(0..10) {
        0..=4 => rng.gen_range(-1000..10_000),
        5 | 6 => i64::from(rng.gen::<i32>()),
        7 => rng.gen::<i64>(),
        _ => rng.gen_range(0..100),
    }
}

fn random_double(rng: &mut SmallRng) -> f64 {
    match rng.gen_range(0..20) {
        0 => f64::from_bits(rng.gen()),
        1 | 2 => rng.gen_range(-1e-5..1e-5),
        3 => rng.gen_range(-1e15..1e15),
        _ => rng.gen_range(-10_000.0..10_000.0),
    }
}

/// Runs `command` with stdout into `output`; its wall time, CPU time and peak memory.
fn timed(command: &Command, output: &Path) -> anyhow::Result<Measured> {
    measure::sync_disks();
    let file =
        File::create(output).with_context(|| format!("cannot create {}", output.display()))?;
    measure::measure(command, Stdio::from(file))
}

/// Fails with the first difference between two files.
fn compare(a: &Path, b: &Path) -> anyhow::Result<()> {
    let mut first = std::io::BufReader::with_capacity(8 << 20, File::open(a)?);
    let mut second = std::io::BufReader::with_capacity(8 << 20, File::open(b)?);
    let mut x = vec![0u8; 4 << 20];
    let mut y = vec![0u8; 4 << 20];
    let mut offset = 0u64;
    loop {
        let n = read_full(&mut first, &mut x)?;
        let m = read_full(&mut second, &mut y)?;
        if x[..n] != y[..m] {
            let at = x[..n]
                .iter()
                .zip(&y[..m])
                .position(|(p, q)| p != q)
                .unwrap_or(n.min(m));
            let show = |bytes: &[u8], len: usize| {
                String::from_utf8_lossy(&bytes[at.saturating_sub(60)..(at + 60).min(len)])
                    .into_owned()
            };
            bail!(
                "{} and {} differ at byte {}:\n  {:?}\n  {:?}",
                process::relative(a),
                process::relative(b),
                offset + at as u64,
                show(&x, n),
                show(&y, m)
            );
        }
        if n == 0 {
            return Ok(());
        }
        offset += n as u64;
    }
}

fn read_full(reader: &mut impl Read, buffer: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buffer.len() {
        match reader.read(&mut buffer[filled..])? {
            0 => break,
            n => filled += n,
        }
    }
    Ok(filled)
}
