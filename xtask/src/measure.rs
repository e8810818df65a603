//! Timing a child process and reading its peak memory, for the benchmarks.
#![allow(unsafe_code)] // wait4(2) for a child's peak memory

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};

use crate::process;

/// Runs a command to completion with its stdout discarded; returns its wall time and peak
/// resident memory in bytes (wait4's rusage of exactly this child).
pub fn run_measured(command: &mut Command) -> anyhow::Result<(Duration, u64)> {
    eprintln!("$ {}", process::show(command));
    command.stdout(Stdio::null());
    let started = Instant::now();
    let child = command.spawn().context("cannot start the command")?;
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value, and wait4 writes into the one we own.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our child, not yet waited for; the pointers are valid for the call.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let elapsed = started.elapsed();
    if waited != pid {
        bail!("wait4 failed: {}", std::io::Error::last_os_error());
    }
    if !libc::WIFEXITED(status) || libc::WEXITSTATUS(status) != 0 {
        bail!("`{}` failed (status {status})", process::show(command));
    }
    // The child is reaped; dropping the handle does not wait again.
    drop(child);
    Ok((elapsed, usage.ru_maxrss as u64 * 1024))
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
pub fn sync_disks() {
    // SAFETY: sync(2) takes no arguments and cannot fail.
    unsafe { libc::sync() };
}
