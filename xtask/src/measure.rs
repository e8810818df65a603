//! Timing a child process and reading its peak memory, for the benchmarks.
//!
//! Every figure comes from GNU time (`/usr/bin/time`, installed by `cargo xtask oracles`): a
//! process spawned from xtask itself would report xtask's own peak memory in its `ru_maxrss`
//! (Linux carries the high-water mark across exec), which for a benchmark that generated a large
//! input in memory is far more than the tool under test used. GNU time forks from a small
//! process, so its figure is the tool's own.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};

use crate::process;

/// GNU time, which `cargo xtask oracles` installs (Debian package `time`).
pub const GNU_TIME: &str = "/usr/bin/time";

/// What one run of a command cost.
#[derive(Clone, Copy, Debug)]
pub struct Measured {
    pub wall: Duration,
    /// User plus system time.
    pub cpu: Duration,
    /// Peak resident memory in bytes.
    pub peak: u64,
}

impl Measured {
    /// Each figure's best of two runs: the lower wall and CPU times, the higher peak.
    pub fn best(self, other: Measured) -> Measured {
        Measured {
            wall: self.wall.min(other.wall),
            cpu: self.cpu.min(other.cpu),
            peak: self.peak.max(other.peak),
        }
    }
}

/// Runs a command to completion under GNU time with `stdout` as its standard output.
pub fn measure(command: &Command, stdout: Stdio) -> anyhow::Result<Measured> {
    if !Path::new(GNU_TIME).is_file() {
        bail!("{GNU_TIME} is missing: run `cargo xtask oracles` (it installs Debian's `time`)");
    }
    let stats = tempfile::NamedTempFile::new().context("cannot create a temporary file")?;
    let mut run = Command::new(GNU_TIME);
    run.args(["-f", "%e %U %S %M", "-o"])
        .arg(stats.path())
        .arg(command.get_program())
        .args(command.get_args())
        .stdout(stdout);
    if let Some(directory) = command.get_current_dir() {
        run.current_dir(directory);
    }
    for (key, value) in command.get_envs() {
        match value {
            Some(value) => run.env(key, value),
            None => run.env_remove(key),
        };
    }
    eprintln!("$ {}", process::show(command));
    let started = Instant::now();
    let status = run.status().context("cannot start GNU time")?;
    let wall = started.elapsed();
    if !status.success() {
        bail!("`{}` failed ({status})", process::show(command));
    }
    let text = std::fs::read_to_string(stats.path()).context("cannot read GNU time's report")?;
    let fields: Vec<f64> = text
        .split_whitespace()
        .map(str::parse)
        .collect::<Result<_, _>>()
        .with_context(|| format!("unexpected output of {GNU_TIME}: {text:?}"))?;
    let [_, user, system, kib] = fields[..] else {
        bail!("unexpected output of {GNU_TIME}: {text:?}");
    };
    Ok(Measured {
        wall,
        cpu: Duration::from_secs_f64(user + system),
        peak: kib as u64 * 1024,
    })
}

/// Runs a command to completion with its stdout discarded; returns its wall time and peak
/// resident memory in bytes.
pub fn run_measured(command: &mut Command) -> anyhow::Result<(Duration, u64)> {
    let measured = measure(command, Stdio::null())?;
    Ok((measured.wall, measured.peak))
}

/// The fastest of `runs` measurements, with that run's peak memory.
pub fn best_of(
    runs: usize,
    mut measure: impl FnMut() -> anyhow::Result<(Duration, u64)>,
) -> anyhow::Result<(Duration, u64)> {
    let mut best: Option<(Duration, u64)> = None;
    for _ in 0..runs {
        let result = measure()?;
        if best.is_none_or(|b| result.0 < b.0) {
            best = Some(result);
        }
    }
    best.context("no runs")
}

/// Flushes dirty pages so that the writeback of generated inputs does not land in a timing.
#[allow(unsafe_code)] // sync(2)
pub fn sync_disks() {
    // SAFETY: sync(2) takes no arguments and cannot fail.
    unsafe { libc::sync() };
}
