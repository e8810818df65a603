//! `cargo xtask oracles`: install the real tools that judge fmtstr, idempotently, without a GPU.
//!
//! LLVM 19, LLVM 22 and the SPIR-V tools come from Debian (`apt-get install llvm-19 clang-19
//! lld-19 llvm-22 clang-22 lld-22 glslang-tools spirv-tools`); nvcc and ptxas come
//! from NVIDIA's PyPI wheels, installed with `pip install --target target/oracles/cuda`; the
//! SARIF schema and the `sarif` command come from PyPI into a virtual environment,
//! target/oracles/sarif. Where they land is decided by `fmtstr-oracles`, the same crate the
//! tests ask.

use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context};
use fmtstr_oracles::{cuda_dir, find, find_llvm, llvm_tool_path, sarif, Llvm, Tool};

use crate::{measure, process};

/// LLVM 19 and 22 (22 judges the IR grammar LLVM added since 19), GNU time for the benchmarks' peak-memory figures, CMake for the post-link recipe's
/// test (samples/cmake), the SPIR-V tools (glslang's compiler, spirv-val, spirv-dis, spirv-opt)
/// that judge the SPIR-V reader, Vulkan on the CPU (the loader, the validation layers' debug
/// printf, Mesa's lavapipe) for its end-to-end test, and what the C library's tests use:
/// g++, pkg-config and valgrind (`cargo xtask capi test`), python3-venv (`cargo xtask wheel`).
const APT_PACKAGES: [&str; 17] = [
    "llvm-19",
    "clang-19",
    "lld-19",
    "llvm-22",
    "clang-22",
    "lld-22",
    "time",
    "cmake",
    "glslang-tools",
    "spirv-tools",
    "libvulkan-dev",
    "vulkan-validationlayers",
    "mesa-vulkan-drivers",
    "g++",
    "pkg-config",
    "valgrind",
    "python3-venv",
];
const CUDA_WHEELS: [&str; 4] = [
    "nvidia-cuda-nvcc",
    "nvidia-nvvm",
    "nvidia-cuda-crt",
    "nvidia-cuda-runtime",
];

pub fn run() -> anyhow::Result<()> {
    install_llvm()?;
    install_cuda()?;
    install_sarif()?;
    prove()
}

fn missing(nvidia: bool) -> Vec<Tool> {
    Tool::ALL
        .into_iter()
        .filter(|tool| tool.is_nvidia() == nvidia && find(*tool).is_none())
        .collect()
}

/// LLVM 22's tools that are missing (LLVM 19's are in [`missing`]).
fn missing_llvm22() -> Vec<Tool> {
    Tool::ALL
        .into_iter()
        .filter(|tool| tool.is_llvm() && find_llvm(Llvm::V22, *tool).is_none())
        .collect()
}

fn install_llvm() -> anyhow::Result<()> {
    let missing = missing(false);
    let missing22 = missing_llvm22();
    let runs = |tool: &str| Command::new(tool).arg("--version").output().is_ok();
    let others = ["cmake", "g++", "pkg-config", "valgrind"]
        .into_iter()
        .all(runs);
    let lavapipe = fmtstr_oracles::spirv::lavapipe_installed();
    if missing.is_empty()
        && missing22.is_empty()
        && Path::new(measure::GNU_TIME).is_file()
        && others
        && lavapipe
    {
        eprintln!(
            "LLVM 19 and 22, GNU time, CMake, g++, pkg-config, valgrind, the SPIR-V tools and Vulkan on \
             lavapipe: already installed"
        );
        return Ok(());
    }
    eprintln!(
        "Debian packages: missing {missing:?} and LLVM 22's {missing22:?}; installing \
         {APT_PACKAGES:?}"
    );
    let lists_empty = std::fs::read_dir("/var/lib/apt/lists")
        .map(|entries| {
            !entries
                .flatten()
                .any(|entry| entry.file_name().to_string_lossy().ends_with("_Packages"))
        })
        .unwrap_or(true);
    if lists_empty {
        process::run(&mut privileged(&["apt-get", "update"]))?;
    }
    let mut install = vec!["apt-get", "install", "-y"];
    install.extend(APT_PACKAGES);
    if process::run(privileged(&install).env("DEBIAN_FRONTEND", "noninteractive")).is_err() {
        // Stale package lists are the usual cause; refresh once and retry.
        process::run(&mut privileged(&["apt-get", "update"]))?;
        process::run(privileged(&install).env("DEBIAN_FRONTEND", "noninteractive"))?;
    }
    Ok(())
}

/// A command run as root: directly when we are root, else through sudo.
fn privileged(argv: &[&str]) -> Command {
    let is_root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| out.stdout.starts_with(b"0"));
    let mut command = if is_root {
        Command::new(argv[0])
    } else {
        let mut sudo = Command::new("sudo");
        sudo.arg(argv[0]);
        sudo
    };
    command.args(&argv[1..]);
    command
}

fn install_cuda() -> anyhow::Result<()> {
    let missing = missing(true);
    if missing.is_empty() {
        eprintln!(
            "NVIDIA wheels: already installed in {}",
            cuda_dir().display()
        );
        return Ok(());
    }
    eprintln!("NVIDIA wheels: missing {missing:?}; installing {CUDA_WHEELS:?}");
    let mut pip = Command::new("python3");
    pip.args(["-m", "pip", "install", "--quiet", "--upgrade", "--target"])
        .arg(cuda_dir())
        .args(CUDA_WHEELS);
    process::run(&mut pip)
}

/// The SARIF schema and sarif-tools, into their own virtual environment (made with the Python
/// on PATH, or `$PYTHON`), unless both are there.
fn install_sarif() -> anyhow::Result<()> {
    let venv = sarif::venv();
    if sarif::find_sarif().is_some() && sarif::find_schema().is_some() {
        eprintln!(
            "SARIF schema and sarif-tools: already installed in {}",
            process::relative(&venv)
        );
        return Ok(());
    }
    if !sarif::python().is_file() {
        let system = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
        process::run(Command::new(system).args(["-m", "venv"]).arg(&venv))
            .context("cannot create a virtual environment (apt-get install -y python3-venv)")?;
    }
    eprintln!("SARIF oracles: installing {:?}", sarif::PACKAGES);
    process::run(
        Command::new(sarif::python())
            .args(["-m", "pip", "install", "--quiet"])
            .args(sarif::PACKAGES),
    )
}

/// Every tool answers `--version` (LLVM's of both releases), the SARIF schema is where the tests
/// look, and nvcc + ptxas compile a printf kernel end to end.
fn prove() -> anyhow::Result<()> {
    for tool in Tool::ALL {
        let Some(command) = tool.command() else {
            bail!("{tool} is still missing at {}", tool.path().display());
        };
        prove_one(tool, command, &tool.path())?;
    }
    for tool in Tool::ALL.into_iter().filter(|tool| tool.is_llvm()) {
        let path = llvm_tool_path(Llvm::V22, tool);
        if find_llvm(Llvm::V22, tool).is_none() {
            bail!(
                "{} {tool} is still missing at {}",
                Llvm::V22,
                path.display()
            );
        }
        prove_one(tool, Command::new(&path), &path)?;
    }
    let Some(sarif) = sarif::find_sarif() else {
        bail!(
            "sarif-tools' sarif is still missing at {}",
            sarif::sarif_path().display()
        );
    };
    let output = process::output(Command::new(&sarif).arg("--version"))?;
    println!(
        "{:<13} {}  ({})",
        "sarif",
        sarif.display(),
        String::from_utf8_lossy(&output.stdout).trim()
    );
    let Some(schema) = sarif::find_schema() else {
        bail!(
            "the SARIF schema is still missing under {}",
            sarif::venv().display()
        );
    };
    println!("{:<13} {}", "SARIF schema", schema.display());
    let scratch = process::root().join("target/oracles/proof");
    std::fs::create_dir_all(&scratch)
        .with_context(|| format!("cannot create {}", scratch.display()))?;
    compile_cuda_kernel(&scratch)
}

/// Prints the tool's path and the line of `--version` that names it.
fn prove_one(tool: Tool, mut command: Command, path: &Path) -> anyhow::Result<()> {
    let output = process::output(command.arg("--version"))?;
    let text = String::from_utf8_lossy(&output.stdout);
    let version = text
        .lines()
        .find(|line| line.contains("version") || line.contains("release"))
        .or_else(|| text.lines().next())
        .unwrap_or_default()
        .trim();
    println!("{:<13} {}  ({version})", tool.file_name(), path.display());
    Ok(())
}

fn compile_cuda_kernel(scratch: &Path) -> anyhow::Result<()> {
    let source = scratch.join("hello.cu");
    std::fs::write(
        &source,
        "#include <cstdio>\n__global__ void hello(int x) { printf(\"x=%d\\n\", x); }\n",
    )?;
    let ptx = scratch.join("hello.ptx");
    let cubin = scratch.join("hello.cubin");
    let mut nvcc = Tool::Nvcc.command().context("nvcc is missing")?;
    process::output(
        nvcc.args(["-ptx", "-arch=sm_90", "-o"])
            .arg(&ptx)
            .arg(&source),
    )?;
    let mut ptxas = Tool::Ptxas.command().context("ptxas is missing")?;
    process::output(ptxas.args(["-arch=sm_90", "-o"]).arg(&cubin).arg(&ptx))?;
    println!(
        "nvcc -ptx and ptxas compiled a printf kernel: {}",
        process::relative(&cubin)
    );
    Ok(())
}
