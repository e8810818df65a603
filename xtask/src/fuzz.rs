//! `cargo xtask fuzz`: coverage-guided fuzzing of every reader and renderer with libFuzzer.
//!
//! The targets live in `fuzz/` (cargo-fuzz's layout, a workspace of its own so that stable
//! commands at the root never build it). This task installs cargo-fuzz from crates.io when it
//! is missing, builds every target in one nightly invocation (release, overflow checks and
//! debug assertions on, no debug info), writes seed corpora from `samples/` and LLVM's own
//! tests, and runs each target for `--seconds` or `--runs` executions (`--jobs` at a time),
//! then prints `TARGET: N execs, N crashes` per target.
//!
//! Each target's corpus grows under `target/fuzz-corpus/TARGET`, so a later run (a long
//! campaign: `--runs 10000000`) resumes from what earlier runs found. A crash, a hang (over 1 s
//! for one input) or running out of memory (over 2 GiB) leaves its input under
//! `target/fuzz-crashes/TARGET/` and makes the task fail. The full libFuzzer output of each
//! target is in `target/fuzz-logs/TARGET.log`.
//!
//! Without a nightly toolchain the build falls back to stable with `RUSTC_BOOTSTRAP=1`: with
//! `--sanitizer none` (the default here) cargo-fuzz needs no other nightly feature.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::Instant;

use anyhow::{bail, Context};
use fmtstr_decode::Buffer;
use fmtstr_elf::PalElf;
use fmtstr_meta::Table;

use crate::process;

/// Every target, in the order they run.
pub const TARGETS: &[&str] = &[
    "elf",
    "msgpack",
    "json_table",
    "ir_roundtrip",
    "ir_lower",
    "decode_amd",
    "decode_vprintf",
    "decode_hsa",
    "decode_hip",
    "format_glibc",
    "typed_args",
    "spirv",
    "merge",
];

/// One input over this long is a hang.
const TIMEOUT_SECONDS: u32 = 1;
/// Memory over this is a failure.
const RSS_LIMIT_MB: u32 = 2048;

/// What to run.
#[derive(Debug)]
pub struct Options {
    /// How long each target runs.
    pub limit: Limit,
    /// Targets run at the same time (one core each).
    pub jobs: usize,
    /// Targets to run; empty is all.
    pub targets: Vec<String>,
    /// libFuzzer's sanitizer (`none`, `address`, ...), passed to `cargo fuzz build`.
    pub sanitizer: String,
    /// libFuzzer's `-seed`; `None` lets it pick one.
    pub seed: Option<u32>,
}

/// How long each target runs: until the first of the two limits it has.
#[derive(Clone, Copy, Debug)]
pub struct Limit {
    pub seconds: Option<u64>,
    /// Executions (libFuzzer's `-runs`).
    pub runs: Option<u64>,
}

impl Limit {
    /// `--seconds` and `--runs` as given: 60 s when neither is.
    pub fn new(seconds: Option<u64>, runs: Option<u64>) -> Limit {
        Limit {
            seconds: seconds.or(if runs.is_some() { None } else { Some(60) }),
            runs,
        }
    }
}

impl std::fmt::Display for Limit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.seconds, self.runs) {
            (Some(seconds), Some(runs)) => write!(f, "{runs} executions or {seconds} s"),
            (Some(seconds), None) => write!(f, "{seconds} s"),
            (None, Some(runs)) => write!(f, "{runs} executions"),
            (None, None) => write!(f, "no limit"),
        }
    }
}

/// What one target's run found.
#[derive(Debug, Default)]
struct Outcome {
    execs: u64,
    execs_per_second: u64,
    coverage: u64,
    corpus: u64,
    crashes: Vec<PathBuf>,
    failed_without_input: bool,
}

pub fn run(options: &Options) -> anyhow::Result<()> {
    let targets = chosen_targets(&options.targets)?;
    let root = process::root();
    let target_dir = process::target_dir();
    let toolchain = Toolchain::find();
    ensure_cargo_fuzz()?;

    let started = Instant::now();
    let binaries = build(&root, &target_dir, toolchain, &options.sanitizer)?;
    eprintln!(
        "xtask fuzz: built {} targets in {:.0} s",
        TARGETS.len(),
        started.elapsed().as_secs_f64()
    );

    let seeds_root = target_dir.join("fuzz-seeds");
    for target in &targets {
        write_seeds(&root, &seeds_root.join(target), target)?;
    }

    let queue = Mutex::new(targets.iter().rev().cloned().collect::<Vec<_>>());
    let results = Mutex::new(Vec::new());
    let jobs = options.jobs.clamp(1, targets.len().max(1));
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| loop {
                let Some(target) = queue.lock().expect("queue").pop() else {
                    break;
                };
                let outcome = run_target(
                    &root,
                    &target_dir,
                    &binaries.join(&target),
                    &target,
                    options.limit,
                    options.seed,
                );
                match &outcome {
                    Ok(outcome) => eprintln!("{}", summary(&target, outcome)),
                    Err(error) => eprintln!("{target}: {error:#}"),
                }
                results.lock().expect("results").push((target, outcome));
            });
        }
    });

    let mut results = results.into_inner().expect("results");
    results.sort_by_key(|(target, _)| TARGETS.iter().position(|t| t == target));
    let mut failures = Vec::new();
    println!("xtask fuzz: {} per target", options.limit);
    for (target, outcome) in results {
        match outcome {
            Ok(outcome) => {
                println!("{}", summary(&target, &outcome));
                for crash in &outcome.crashes {
                    println!("  kept {}", process::relative(crash));
                }
                if !outcome.crashes.is_empty() || outcome.failed_without_input {
                    failures.push(target);
                }
            }
            Err(error) => {
                println!("{target}: {error:#}");
                failures.push(target);
            }
        }
    }
    if !failures.is_empty() {
        bail!(
            "fuzzing found failures in {} (inputs under target/fuzz-crashes/, logs under \
             target/fuzz-logs/); reproduce one with `target/fuzz/{}/release/TARGET INPUT`",
            failures.join(", "),
            HOST
        );
    }
    Ok(())
}

fn summary(target: &str, outcome: &Outcome) -> String {
    format!(
        "{target}: {} execs, {} crashes ({} exec/s, cov {} edges, corpus {})",
        outcome.execs,
        outcome.crashes.len() + usize::from(outcome.failed_without_input),
        outcome.execs_per_second,
        outcome.coverage,
        outcome.corpus
    )
}

fn chosen_targets(names: &[String]) -> anyhow::Result<Vec<String>> {
    if names.is_empty() {
        return Ok(TARGETS.iter().map(|t| t.to_string()).collect());
    }
    for name in names {
        if !TARGETS.contains(&name.as_str()) {
            bail!(
                "no fuzz target `{name}`; the targets are {}",
                TARGETS.join(" ")
            );
        }
    }
    Ok(names.to_vec())
}

/// The triple cargo-fuzz builds for (it always names one, so the output sits under it).
const HOST: &str = "x86_64-unknown-linux-gnu";

/// How nightly features are had: the nightly toolchain, or stable told to allow them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Toolchain {
    Nightly,
    StableBootstrap,
}

impl Toolchain {
    fn find() -> Toolchain {
        let nightly = Command::new("rustup")
            .args(["run", "nightly", "rustc", "--version"])
            .env_remove("RUSTUP_TOOLCHAIN")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success());
        if nightly {
            Toolchain::Nightly
        } else {
            eprintln!(
                "xtask fuzz: no nightly toolchain (`rustup toolchain install nightly` adds one); \
                 building on stable with RUSTC_BOOTSTRAP=1"
            );
            Toolchain::StableBootstrap
        }
    }

    /// `cargo` of this toolchain, with what a stable `cargo xtask` left in the environment
    /// removed so that it does not pick the stable toolchain back.
    fn cargo(self) -> Command {
        let mut command = match self {
            Toolchain::Nightly => {
                let mut command = Command::new("rustup");
                command.args(["run", "nightly", "cargo"]);
                command
            }
            Toolchain::StableBootstrap => {
                let mut command =
                    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
                command.env("RUSTC_BOOTSTRAP", "1");
                command
            }
        };
        for variable in ["RUSTUP_TOOLCHAIN", "RUSTC", "RUSTDOC", "CARGO", "RUSTFLAGS"] {
            command.env_remove(variable);
        }
        command
    }
}

/// Installs cargo-fuzz from crates.io (into cargo's bin directory) unless it is there.
fn ensure_cargo_fuzz() -> anyhow::Result<()> {
    let present = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args(["fuzz", "--version"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if present {
        return Ok(());
    }
    eprintln!("xtask fuzz: installing cargo-fuzz from crates.io");
    process::run(
        Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())).args([
            "install",
            "cargo-fuzz",
            "--locked",
        ]),
    )
}

/// Builds every target in one invocation; returns the directory of the binaries.
fn build(
    root: &Path,
    target_dir: &Path,
    toolchain: Toolchain,
    sanitizer: &str,
) -> anyhow::Result<PathBuf> {
    let fuzz_target_dir = target_dir.join("fuzz");
    let mut command = toolchain.cargo();
    command.current_dir(root.join("fuzz")).args([
        "fuzz",
        "build",
        // Release code with overflow checks and debug assertions: an overflow on bad input is
        // a finding, as in the tests.
        "--release",
        "--debug-assertions",
        "--sanitizer",
        sanitizer,
        "--target-dir",
    ]);
    command.arg(&fuzz_target_dir);
    process::run(&mut command)?;
    Ok(fuzz_target_dir.join(HOST).join("release"))
}

fn run_target(
    root: &Path,
    target_dir: &Path,
    binary: &Path,
    target: &str,
    limit: Limit,
    seed: Option<u32>,
) -> anyhow::Result<Outcome> {
    let corpus = target_dir.join("fuzz-corpus").join(target);
    let crashes = target_dir.join("fuzz-crashes").join(target);
    let logs = target_dir.join("fuzz-logs");
    for dir in [&corpus, &crashes, &logs] {
        fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let before = files_in(&crashes)?;
    let log_path = logs.join(format!("{target}.log"));
    let log = fs::File::create(&log_path)
        .with_context(|| format!("cannot create {}", log_path.display()))?;
    let mut command = Command::new(binary);
    // The first directory is the corpus libFuzzer grows; the seeds are read only.
    command
        .arg(&corpus)
        .arg(target_dir.join("fuzz-seeds").join(target))
        .arg(format!("-timeout={TIMEOUT_SECONDS}"))
        .arg(format!("-rss_limit_mb={RSS_LIMIT_MB}"))
        .arg(format!("-artifact_prefix={}/", crashes.display()))
        .arg("-print_final_stats=1");
    if let Some(seed) = seed {
        command.arg(format!("-seed={seed}"));
    }
    if let Some(seconds) = limit.seconds {
        command.arg(format!("-max_total_time={seconds}"));
    }
    if let Some(runs) = limit.runs {
        command.arg(format!("-runs={runs}"));
    }
    if let Some(dict) = dictionary(target) {
        command.arg(format!(
            "-dict={}",
            root.join("fuzz/dict").join(dict).display()
        ));
    }
    let status = command
        .stdout(log.try_clone()?)
        .stderr(log)
        .status()
        .with_context(|| format!("cannot run {}", binary.display()))?;
    let text = fs::read_to_string(&log_path).unwrap_or_default();
    let mut outcome = parse_log(&text);
    outcome.crashes = files_in(&crashes)?
        .difference(&before)
        .filter(|path| {
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
            name.is_some_and(|name| {
                ["crash-", "timeout-", "oom-", "leak-"]
                    .iter()
                    .any(|prefix| name.starts_with(prefix))
            })
        })
        .cloned()
        .collect();
    outcome.failed_without_input = !status.success() && outcome.crashes.is_empty();
    if outcome.corpus == 0 {
        outcome.corpus = files_in(&corpus)?.len() as u64;
    }
    Ok(outcome)
}

fn dictionary(target: &str) -> Option<&'static str> {
    Some(match target {
        "ir_roundtrip" | "ir_lower" => "llvm_ir.dict",
        "elf" | "msgpack" | "merge" => "msgpack.dict",
        "format_glibc" | "typed_args" | "decode_vprintf" | "decode_amd" | "decode_hsa"
        | "decode_hip" => "printf.dict",
        _ => return None,
    })
}

fn files_in(dir: &Path) -> anyhow::Result<BTreeSet<PathBuf>> {
    Ok(fs::read_dir(dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .collect())
}

/// libFuzzer's final statistics (`stat::number_of_executed_units: N`, ...) and the coverage
/// of its last status line (`#N DONE cov: E ft: F corp: C/...`).
fn parse_log(text: &str) -> Outcome {
    let mut outcome = Outcome::default();
    let stat = |name: &str| {
        text.lines()
            .filter_map(|line| line.strip_prefix(name))
            .filter_map(|rest| rest.trim().parse::<u64>().ok())
            .next_back()
    };
    let field = |line: &str, name: &str| {
        let at = line.find(name)? + name.len();
        line[at..]
            .split(|c: char| !c.is_ascii_digit())
            .find(|part| !part.is_empty())?
            .parse::<u64>()
            .ok()
    };
    let last_status = text
        .lines()
        .rfind(|line| line.starts_with('#') && line.contains("cov: "));
    outcome.execs = stat("stat::number_of_executed_units:")
        .or_else(|| last_status.and_then(|line| field(line, "#")))
        .unwrap_or(0);
    outcome.execs_per_second = stat("stat::average_exec_per_sec:").unwrap_or(0);
    if let Some(line) = last_status {
        outcome.coverage = field(line, "cov: ").unwrap_or(0);
        outcome.corpus = field(line, "corp: ").unwrap_or(0);
    }
    outcome
}

/// Writes the seeds of `target` (cleared first): inputs from `samples/`, LLVM's own tests
/// where present, and a few formats of our own, each shaped the way the target cuts its input.
fn write_seeds(root: &Path, dir: &Path, target: &str) -> anyhow::Result<()> {
    if dir.exists() {
        fs::remove_dir_all(dir).with_context(|| format!("cannot clear {}", dir.display()))?;
    }
    fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let samples = root.join("samples");
    let seeds: Vec<Vec<u8>> = match target {
        "elf" => read_all(&samples.join("pal"), "elf")?,
        "msgpack" => {
            let mut seeds: Vec<Vec<u8>> = read_all(&samples.join("pal"), "elf")?
                .iter()
                .filter_map(|elf| Some(PalElf::parse(elf).ok()?.metadata()?.to_vec()))
                .collect();
            seeds.extend(encoded_tables(&samples)?);
            seeds
        }
        "json_table" => json_tables(&samples)?,
        "ir_roundtrip" | "ir_lower" => ir_seeds(&samples)?,
        "decode_amd" => decode_amd_seeds(&samples)?,
        "decode_vprintf" => {
            let buffer = fs::read(samples.join("decode/vprintf.bin"))?;
            let mut seeds = vec![[b"%c %hd %lld %f %s\n\0".as_slice(), &buffer].concat()];
            for (format, _) in printf_cases(&samples)? {
                seeds.push([format.as_slice(), b"\0", &buffer, &buffer].concat());
            }
            seeds
        }
        "decode_hsa" => vec![hsa_seed()],
        "decode_hip" => vec![hip_seed()],
        "format_glibc" => printf_cases(&samples)?
            .into_iter()
            .map(|(format, _)| format)
            .chain(EXTRA_FORMATS.iter().map(|f| f.as_bytes().to_vec()))
            .map(|format| {
                let values: Vec<u8> = (0u8..96).map(|i| i.wrapping_mul(37)).collect();
                [format.as_slice(), b"\0", &values].concat()
            })
            .collect(),
        "typed_args" => printf_cases(&samples)?
            .into_iter()
            .map(|(format, args)| {
                let mut seed = format;
                for arg in args {
                    seed.push(b'\n');
                    seed.extend_from_slice(arg.as_bytes());
                }
                seed
            })
            .collect(),
        "spirv" => read_all(&samples.join("spirv"), "spv")?,
        "merge" => {
            let tables = encoded_tables(&samples)?;
            let mut seeds = Vec::new();
            for first in &tables {
                for second in &tables {
                    let len = u16::try_from(first.len()).context("a sample table over 64 KiB")?;
                    seeds.push([&len.to_le_bytes()[..], first, second].concat());
                }
            }
            seeds
        }
        other => bail!("no seeds for {other}"),
    };
    for seed in seeds {
        let name = format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&seed));
        fs::write(dir.join(name), seed)?;
    }
    Ok(())
}

/// Formats the samples lack: every conversion, flag, `*`, vectors, and refusals.
const EXTRA_FORMATS: &[&str] = &[
    "%#.3g|%-+08.3e|%a|%A|%.0f|%F|%G|%E",
    "%5c|%-5c|%.2s|%10.3s|%p|%-20p|%s",
    "%*.*d|%-*d|%.*x|%0*o",
    "%hhx|%hd|%lld|%jd|%zu|%td|%Lx|%lu",
    "%+ d|%#o|%#X|%#x|%08.3d|%-08d|% 5i",
    "%v4hlf|%v2d|%v3hhu|%v8hx|%v16hhd|%v2lf",
    "%%|%5%|%n|%1$d|%'d|%lc|%ls|%Lf|%llf",
    "%.65536d|%65537d|%.*f",
];

fn read_all(dir: &Path, extension: &str) -> anyhow::Result<Vec<Vec<u8>>> {
    let mut paths: Vec<PathBuf> = files_in(dir)?
        .into_iter()
        .filter(|path| path.extension().is_some_and(|e| e == extension))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|path| fs::read(path).with_context(|| format!("cannot read {}", path.display())))
        .collect()
}

/// The JSON tables of the samples.
fn json_tables(samples: &Path) -> anyhow::Result<Vec<Vec<u8>>> {
    let mut seeds = Vec::new();
    for path in files_in(&samples.join("pal"))? {
        if path.to_string_lossy().ends_with(".pal.json") {
            seeds.push(fs::read(&path)?);
        }
    }
    seeds.push(fs::read(samples.join("decode/compute.json"))?);
    Ok(seeds)
}

/// The samples' JSON tables in msgpack (those that are tables: `no_strings.pal.json` is not).
fn encoded_tables(samples: &Path) -> anyhow::Result<Vec<Vec<u8>>> {
    Ok(json_tables(samples)?
        .iter()
        .filter_map(|json| {
            let json: serde_json::Value = serde_json::from_slice(json).ok()?;
            let table = Table::from_json(&json).ok()?;
            let mut encoded = Vec::new();
            table.encode(&mut encoded);
            Some(encoded)
        })
        .collect())
}

/// Every `.ll` of the samples, and where LLVM's test trees (19's, 22's) are present their
/// assembler tests (the parser's corner cases, small ones) and their GPU printf tests.
fn ir_seeds(samples: &Path) -> anyhow::Result<Vec<Vec<u8>>> {
    let mut seeds = Vec::new();
    for dir in ["abi", "lower", "pal"] {
        seeds.extend(read_all(&samples.join(dir), "ll")?);
    }
    for llvm in fmtstr_oracles::Llvm::ALL {
        let tests = fmtstr_oracles::llvm_source_dir_of(llvm).join("llvm/test");
        for path in files_in(&tests.join("Assembler")).unwrap_or_default() {
            let small = fs::metadata(&path).is_ok_and(|m| m.len() <= 4096);
            if small && path.extension().is_some_and(|e| e == "ll") {
                seeds.push(fs::read(&path)?);
            }
        }
        for dir in ["CodeGen/AMDGPU", "CodeGen/NVPTX"] {
            for path in files_in(&tests.join(dir)).unwrap_or_default() {
                let name = path.file_name().unwrap_or_default().to_string_lossy();
                if name.contains("printf") && name.ends_with(".ll") {
                    seeds.push(fs::read(&path)?);
                }
            }
        }
    }
    Ok(seeds)
}

/// The decode samples in the target's shape: the sample table's first four entries (IDs 1 to
/// 4), then the sample buffers with each entry's ID renumbered to match.
fn decode_amd_seeds(samples: &Path) -> anyhow::Result<Vec<Vec<u8>>> {
    let json: serde_json::Value =
        serde_json::from_slice(&fs::read(samples.join("decode/compute.json"))?)?;
    let table = Table::from_json(&json)?;
    let entries = &table.entries[..table.entries.len().min(4)];
    let mut head = vec![entries.len() as u8];
    for entry in entries {
        let bytes = &entry.bytes()[..entry.bytes().len().min(255)];
        head.push(bytes.len() as u8);
        head.extend_from_slice(bytes);
        head.push(entry.argument_count().min(69) as u8);
        head.extend_from_slice(
            &entry
                .mask()
                .words()
                .first()
                .copied()
                .unwrap_or(0)
                .to_le_bytes(),
        );
    }
    let mut seeds = Vec::new();
    for name in ["compute.bin", "overflow.bin"] {
        let mut buffer = fs::read(samples.join("decode").join(name))?;
        let renumbered: Vec<(usize, u64)> = match Buffer::parse(&buffer) {
            Ok(parsed) => parsed
                .entries()
                .filter_map(Result::ok)
                .filter_map(|raw| {
                    let index = entries.iter().position(|e| e.id().get() == raw.id)?;
                    let header = u64::from(raw.size) | (index as u64 + 1) << 16;
                    Some((raw.byte_offset() as usize, header))
                })
                .collect(),
            Err(_) => Vec::new(),
        };
        for (at, header) in renumbered {
            buffer[at..at + 8].copy_from_slice(&header.to_le_bytes());
        }
        seeds.push([head.as_slice(), &buffer].concat());
    }
    Ok(seeds)
}

/// Two `amdhsa.printf` entries, an empty line, and a buffer of one record of each (the layout
/// of fmtstr-decode's HSA module: `used`, capacity, then ID and argument bytes per record).
fn hsa_seed() -> Vec<u8> {
    let mut records = 1u32.to_le_bytes().to_vec();
    records.extend_from_slice(&(-7i32).to_le_bytes());
    records.extend_from_slice(&2.5f32.to_le_bytes());
    records.extend_from_slice(&(-3i64).to_le_bytes());
    records.extend_from_slice(b"hi!\0\0\0\0\0");
    records.extend_from_slice(&2u32.to_le_bytes());
    for lane in [1i32, -2, 3, 4] {
        records.extend_from_slice(&lane.to_le_bytes());
    }
    let mut seed = b"1:4:4:4:8:8:x=%d f=%f l=%ld s=%s|\\n\n2:1:16:v=%v4d\\n\n\n".to_vec();
    seed.extend_from_slice(&(records.len() as u32).to_le_bytes());
    seed.extend_from_slice(&1024u32.to_le_bytes());
    seed.extend_from_slice(&records);
    seed
}

/// Two `amdhsa.printf` entries of HIP's buffered printf, an empty line, and a buffer with a
/// record of each and one whose format is inline (fmtstr-decode's HIP module: `used`, size,
/// then per record a control dword `size << 2 | 2`, the format's hash, 8-byte slots).
fn hip_seed() -> Vec<u8> {
    let record = |constant: bool, parts: &[&[u8]]| -> Vec<u8> {
        let body = parts.concat();
        let control = (4 + body.len() as u32) << 2 | if constant { 2 } else { 0 };
        [&control.to_le_bytes()[..], &body].concat()
    };
    let records = [
        record(
            true,
            &[
                &0x415b_92be_ca7d_5e27u64.to_le_bytes(),
                &u64::from(-7i32 as u32).to_le_bytes(),
                &2.5f64.to_bits().to_le_bytes(),
                b"hi!\0\0\0\0\0",
            ],
        ),
        record(true, &[&7u64.to_le_bytes()]),
        record(
            false,
            &[b"%d|%x\n\0\0", &5u64.to_le_bytes(), &255u64.to_le_bytes()],
        ),
    ]
    .concat();
    let mut seed = b"0:0:415b92beca7d5e27,int %d f=%f %s|\n0:0:7,none\n\n".to_vec();
    seed.extend_from_slice(&(records.len() as u32).to_le_bytes());
    seed.extend_from_slice(&4096u32.to_le_bytes());
    seed.extend_from_slice(&records);
    seed
}

/// `samples/printf/cases.tsv`: each format (C escapes `\n`, `\t`, `\\` read) and its arguments.
fn printf_cases(samples: &Path) -> anyhow::Result<Vec<(Vec<u8>, Vec<String>)>> {
    let text = fs::read_to_string(samples.join("printf/cases.tsv"))?;
    Ok(text
        .lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| {
            let mut fields = line.split('\t');
            let format = fields
                .next()
                .unwrap_or_default()
                .replace("\\n", "\n")
                .replace("\\t", "\t")
                .replace("\\\\", "\\");
            (format.into_bytes(), fields.map(str::to_owned).collect())
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_libfuzzer_final_stats() {
        let log = "#2\tINITED cov: 10 ft: 12 corp: 1/1b exec/s: 0 rss: 30Mb\n\
                   #524288\tpulse  cov: 40 ft: 50 corp: 7/90b lim: 4096 exec/s: 1000 rss: 40Mb\n\
                   #600000\tDONE   cov: 41 ft: 52 corp: 8/99b lim: 4096 exec/s: 999 rss: 40Mb\n\
                   Done 600000 runs in 601 second(s)\n\
                   stat::number_of_executed_units: 600123\n\
                   stat::average_exec_per_sec:     998\n\
                   stat::new_units_added:          7\n";
        let outcome = parse_log(log);
        assert_eq!(outcome.execs, 600123);
        assert_eq!(outcome.execs_per_second, 998);
        assert_eq!(outcome.coverage, 41);
        assert_eq!(outcome.corpus, 8);
    }

    #[test]
    fn a_crash_without_final_stats_counts_its_last_status_line() {
        let log = "#1000\tNEW    cov: 33 ft: 40 corp: 5/50b lim: 4 exec/s: 0 rss: 30Mb\n\
                   thread '<unnamed>' panicked at src/lib.rs:1:1\n";
        let outcome = parse_log(log);
        assert_eq!(outcome.execs, 1000);
        assert_eq!(outcome.coverage, 33);
    }
}
