//! `cargo xtask device-check`: fmtstr's NVPTX lowering run on a real NVIDIA GPU, against
//! NVIDIA's own compiler and against glibc. Nothing in the test suite needs a GPU; this is
//! run by hand where one is lent.
//!
//! `prepare` (here, no GPU) writes `target/device-check/`:
//! - every case of `samples/printf/cases.tsv` as one kernel `k` that prints them in order,
//!   each followed by an ASCII record separator (0x1e), in C for clang-19 and in CUDA C for
//!   nvcc;
//! - `fmtstr-llc19.ptx` and `fmtstr-llc22.ptx`: clang-19's IR of the C kernel, lowered by
//!   `fmtstr lower --target nvptx`, compiled by llc-19 and llc-22 for sm_90 (ptxas accepts
//!   both);
//! - `nvcc.cubin`: the CUDA kernel through `nvcc -cubin -arch=sm_90`, NVIDIA's own lowering
//!   of the same calls;
//! - `expected.txt`: the same calls run on this host (clang-19, glibc);
//! - `run_ptx`: a small host program that loads a PTX file through the CUDA driver and runs
//!   `k` once (`xtask/c/run_ptx.c`), and `run.sh`, which runs it on each PTX into `$OUT`.
//!
//! `compare DIR` (here, on what came back from the GPU) requires fmtstr's runs to print
//! exactly what nvcc's prints, case by case, and reports each case where the GPU's printf
//! differs from glibc's (a difference of NVIDIA's printf, not of the lowering, when nvcc's
//! run shows it too).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context};
use fmtstr_oracles::{find_llvm, Llvm, Tool};

use crate::demo::{read_cases, Case, CASES};
use crate::process;

/// Ends each case's output in every run.
const SEPARATOR: &str = "\\x1e";
const SEPARATOR_BYTE: u8 = 0x1e;
/// The PTX files `run.sh` runs, fmtstr's and NVIDIA's.
const RUNS: [(&str, &str); 3] = [
    ("fmtstr-llc19", "ptx"),
    ("fmtstr-llc22", "ptx"),
    ("nvcc", "cubin"),
];

fn directory() -> PathBuf {
    process::target_dir().join("device-check")
}

/// Writes everything a GPU machine needs into `target/device-check/`.
pub fn prepare() -> anyhow::Result<()> {
    let root = process::root();
    let cases = read_cases(&std::fs::read_to_string(root.join(CASES)).context(CASES)?)?;
    let dir = directory();
    if dir.exists() {
        std::fs::remove_dir_all(&dir)?;
    }
    std::fs::create_dir_all(&dir)?;
    let fmtstr = process::build_fmtstr()?;

    // The host's printf: what the GPU should print.
    let host = dir.join("host.c");
    std::fs::write(&host, program(&cases, Flavor::Host)?)?;
    let host_binary = dir.join("host");
    let mut clang = Tool::Clang.command().context("clang-19 is missing")?;
    process::output(clang.args(["-O1", "-w", "-o"]).arg(&host_binary).arg(&host))?;
    let expected = process::output(&mut Command::new(&host_binary))?.stdout;
    std::fs::write(dir.join("expected.txt"), expected)?;

    // fmtstr's lowering of clang's IR, compiled by llc of both releases.
    let device = dir.join("device.c");
    std::fs::write(&device, program(&cases, Flavor::Clang)?)?;
    let device_ll = dir.join("device.ll");
    let mut clang = Tool::Clang.command().context("clang-19 is missing")?;
    process::output(
        clang
            .args([
                "--target=nvptx64-nvidia-cuda",
                "-O1",
                "-w",
                "-fno-builtin-printf",
                "-S",
                "-emit-llvm",
                "-o",
            ])
            .arg(&device_ll)
            .arg(&device),
    )?;
    let lowered = dir.join("device.vprintf.ll");
    process::output(
        Command::new(&fmtstr)
            .args(["lower", "--target", "nvptx"])
            .arg(&device_ll)
            .arg("-o")
            .arg(&lowered),
    )?;
    for llvm in [Llvm::V19, Llvm::V22] {
        let llc = find_llvm(llvm, Tool::Llc)
            .with_context(|| format!("llc-{} is missing", llvm.major()))?;
        let ptx = dir.join(format!("fmtstr-llc{}.ptx", llvm.major()));
        process::output(
            Command::new(llc)
                .args(["-march=nvptx64", "-mcpu=sm_90", "-o"])
                .arg(&ptx)
                .arg(&lowered),
        )?;
        let mut ptxas = Tool::Ptxas.command().context("ptxas is missing")?;
        process::output(
            ptxas
                .args(["-c", "-arch=sm_90", "-o", "/dev/null"])
                .arg(&ptx),
        )?;
    }

    // NVIDIA's lowering of the same calls.
    let cuda = dir.join("device.cu");
    std::fs::write(&cuda, program(&cases, Flavor::Cuda)?)?;
    // As a cubin (SASS for sm_90): the wheels' nvcc writes a PTX version newer than a GPU
    // machine's driver may read, and a driver of the same major release loads its cubins.
    let mut nvcc = Tool::Nvcc.command().context("nvcc is missing")?;
    process::output(
        nvcc.args(["-cubin", "-arch=sm_90", "-w", "-o"])
            .arg(dir.join("nvcc.cubin"))
            .arg(&cuda),
    )?;

    // The runner and the script the GPU machine runs.
    process::output(
        Command::new("cc")
            .args(["-O1", "-Wall", "-o"])
            .arg(dir.join("run_ptx"))
            .arg(root.join("xtask/c/run_ptx.c"))
            .arg("-ldl"),
    )?;
    let mut script = String::from(
        "#!/bin/sh\n# Runs each kernel on GPU 0; outputs into $OUT (cargo xtask device-check).\n\
         cd \"$(dirname \"$0\")\"\nnvidia-smi --query-gpu=name,driver_version --format=csv,noheader > \"$OUT/gpu.txt\" 2>&1\n",
    );
    for (run, extension) in RUNS {
        let _ = writeln!(
            script,
            "./run_ptx {run}.{extension} > \"$OUT/{run}.txt\" 2> \"$OUT/{run}.err\"; echo \"{run}: exit $?\""
        );
    }
    let script_path = dir.join("run.sh");
    std::fs::write(&script_path, script)?;
    process::output(Command::new("chmod").arg("+x").arg(&script_path))?;
    println!(
        "device-check: {} cases prepared in {}; on the GPU machine run \
         `target/device-check/run.sh`, then `cargo xtask device-check compare DIR` on what \
         it wrote",
        cases.len(),
        process::relative(&dir)
    );
    Ok(())
}

/// Compares the runs in `outputs` with each other and with glibc's.
pub fn compare(outputs: &Path) -> anyhow::Result<()> {
    let root = process::root();
    let cases = read_cases(&std::fs::read_to_string(root.join(CASES)).context(CASES)?)?;
    let expected = std::fs::read(directory().join("expected.txt"))
        .context("no expected.txt: run `cargo xtask device-check prepare` first")?;
    let split = |bytes: &[u8]| -> Vec<Vec<u8>> {
        let mut parts: Vec<Vec<u8>> = bytes
            .split(|b| *b == SEPARATOR_BYTE)
            .map(<[u8]>::to_vec)
            .collect();
        // The text after the last separator is empty when the run printed every case.
        if parts.last().is_some_and(Vec::is_empty) {
            parts.pop();
        }
        parts
    };
    let glibc = split(&expected);
    if let Ok(gpu) = std::fs::read_to_string(outputs.join("gpu.txt")) {
        println!("device-check: GPU {}", gpu.trim());
    }
    let mut runs = Vec::new();
    for (run, _) in RUNS {
        let path = outputs.join(format!("{run}.txt"));
        let text = std::fs::read(&path).with_context(|| format!("no {}", path.display()))?;
        runs.push((run, split(&text)));
    }
    let nvcc = &runs[RUNS.len() - 1].1;
    let mut lowering_differs = 0;
    let mut printf_differs = 0;
    for (index, case) in cases.iter().enumerate() {
        let show = |parts: &[Vec<u8>]| {
            parts.get(index).map_or("(missing)".to_owned(), |p| {
                format!("{:?}", String::from_utf8_lossy(p))
            })
        };
        for (run, parts) in &runs[..RUNS.len() - 1] {
            if parts.get(index) != nvcc.get(index) {
                lowering_differs += 1;
                println!(
                    "{CASES}:{}: {run} prints {} where nvcc's prints {}",
                    case.line,
                    show(parts),
                    show(nvcc)
                );
            }
        }
        if nvcc.get(index) != glibc.get(index) {
            printf_differs += 1;
            println!(
                "{CASES}:{}: the GPU's printf prints {} where glibc prints {}",
                case.line,
                show(nvcc),
                show(&glibc)
            );
        }
    }
    println!(
        "device-check: {} cases; fmtstr's lowering (llc-19, llc-22) and nvcc's printed \
         differently in {lowering_differs}; the GPU's printf and glibc's differ in \
         {printf_differs}",
        cases.len()
    );
    if lowering_differs > 0 {
        bail!("fmtstr's lowering printed differently from nvcc's on the GPU");
    }
    Ok(())
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Flavor {
    /// A host program (`main`).
    Host,
    /// C for clang-19's nvptx64 target: kernel `k`.
    Clang,
    /// CUDA C for nvcc: kernel `k`.
    Cuda,
}

/// The cases as calls of printf, each followed by the separator, in a program of `flavor`.
fn program(cases: &[Case], flavor: Flavor) -> anyhow::Result<String> {
    let mut text = match flavor {
        Flavor::Host => "#include <stdio.h>\nint main(void) {\n".to_owned(),
        Flavor::Clang => "extern int printf(const char *, ...);\n\
                          __attribute__((nvptx_kernel)) void k(void) {\n"
            .to_owned(),
        Flavor::Cuda => "#include <cstdio>\nextern \"C\" __global__ void k(void) {\n".to_owned(),
    };
    for case in cases {
        let mut call = format!("  printf(\"{}\"", case.format);
        for arg in &case.args {
            let _ = write!(call, ", {}", c_value(case, arg, flavor)?);
        }
        let _ = writeln!(text, "{call});\n  printf(\"{SEPARATOR}\");");
    }
    text.push_str(if flavor == Flavor::Host {
        "  return 0;\n}\n"
    } else {
        "}\n"
    });
    Ok(text)
}

/// One argument in C. nvcc has no `__builtin_inf`: the CUDA flavor spells infinities and NaNs
/// by their bits.
fn c_value(case: &Case, arg: &str, flavor: Flavor) -> anyhow::Result<String> {
    let (kind, value) = arg
        .split_once(':')
        .with_context(|| format!("{CASES}:{}: `{arg}` needs a TYPE: prefix", case.line))?;
    if kind == "f64" && flavor == Flavor::Cuda {
        let bits = match value {
            "inf" => Some("0x7ff0000000000000ULL"),
            "-inf" => Some("0xfff0000000000000ULL"),
            "nan" => Some("0x7ff8000000000000ULL"),
            "-nan" => Some("0xfff8000000000000ULL"),
            _ => None,
        };
        if let Some(bits) = bits {
            return Ok(format!("__longlong_as_double((long long){bits})"));
        }
    }
    crate::demo::c_value(case, kind, value)
}
