//! Shared by the oracle tests: the module generator, llc, and the comparison of a plan with
//! the PTX llc writes.

#![allow(dead_code)]

pub mod gen;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use fmtstr_nvptx::abi::Plan;
pub use fmtstr_nvptx::ptx::Counts;
use fmtstr_nvptx::ptx::PtxFunction;

/// Runs a tool on `input` through stdin; returns stdout, or stderr as the error.
pub fn pipe(tool: &Path, args: &[&str], input: &[u8]) -> Result<String, String> {
    let mut child = Command::new(tool)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", tool.display()))?;
    let mut stdin = child.stdin.take().expect("stdin");
    let data = input.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&data));
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    let _ = writer.join();
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// `llc-19 -march=nvptx64 -mcpu=sm_90` on IR text.
pub fn llc(llc: &Path, ir: &[u8], sm: u32) -> Result<String, String> {
    let cpu = format!("-mcpu=sm_{sm}");
    pipe(llc, &["-march=nvptx64", &cpu, "-o", "-", "-"], ir)
}

/// Compares a plan with llc's PTX (the library's comparison), adding to `counts`.
pub fn compare(plan: &Plan, ptx: &[PtxFunction], counts: &mut Counts) -> Vec<String> {
    let (differences, c) = fmtstr_nvptx::ptx::compare(plan, ptx);
    counts.functions += c.functions;
    counts.declarations += c.declarations;
    counts.calls += c.calls;
    counts.accesses += c.accesses;
    counts.atomics += c.atomics;
    counts.optimized_reads += c.optimized_reads;
    differences.iter().map(ToString::to_string).collect()
}

/// `ptxas -c -arch=sm_90` accepts the PTX (when ptxas is installed).
pub fn ptxas_accepts(ptx: &str) {
    let Some(ptxas) = fmtstr_oracles::require(fmtstr_oracles::Tool::Ptxas) else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("out.ptx");
    std::fs::write(&path, ptx).expect("write");
    let out = Command::new(ptxas)
        .args(["-c", "-arch=sm_90", "-o", "/dev/null"])
        .arg(&path)
        .output()
        .expect("ptxas runs");
    assert!(
        out.status.success(),
        "ptxas rejects the PTX:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
