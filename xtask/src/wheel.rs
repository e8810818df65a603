//! `cargo xtask wheel [--test]`: builds the Python package (an abi3 wheel, with maturin from
//! PyPI installed into a virtual environment under target/), installs it into that
//! environment, and with --test runs its pytest suite (crates/fmtstr-python/tests), which
//! checks every function against the `fmtstr` CLI on the samples.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context};

use crate::process;

/// The wheel's build requirement and the test runner, installed into the environment.
const PYTHON_TOOLS: [&str; 2] = ["maturin>=1.7,<2", "pytest>=7"];

pub fn run(test: bool) -> anyhow::Result<()> {
    let root = process::root();
    let venv = process::target_dir().join("python-venv");
    let python = venv.join("bin/python");
    if !python.is_file() {
        let system = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
        process::run(Command::new(system).args(["-m", "venv"]).arg(&venv))
            .context("cannot create a virtual environment (apt-get install -y python3-venv)")?;
    }
    let has_tools = Command::new(venv.join("bin/maturin"))
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
        && Command::new(&python)
            .args(["-m", "pytest", "--version"])
            .output()
            .is_ok_and(|o| o.status.success());
    if !has_tools {
        process::run(
            Command::new(&python)
                .args(["-m", "pip", "install", "--quiet"])
                .args(PYTHON_TOOLS),
        )?;
    }
    let wheels = process::target_dir().join("wheels");
    let _ = std::fs::remove_dir_all(&wheels);
    process::run(
        Command::new(venv.join("bin/maturin"))
            .current_dir(&root)
            .args(["build", "--release", "--quiet", "-m"])
            .arg(root.join("crates/fmtstr-python/Cargo.toml"))
            .arg("--interpreter")
            .arg(&python)
            .arg("-o")
            .arg(&wheels),
    )?;
    let wheel = newest_wheel(&wheels)?;
    let size = std::fs::metadata(&wheel)?.len();
    eprintln!(
        "xtask wheel: {} ({:.1} MiB)",
        process::relative(&wheel),
        size as f64 / (1 << 20) as f64
    );
    process::run(
        Command::new(&python)
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--force-reinstall",
                "--no-deps",
            ])
            .arg(&wheel),
    )?;
    if !test {
        return Ok(());
    }
    let fmtstr = process::build_fmtstr()?;
    let status = Command::new(&python)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .arg(root.join("crates/fmtstr-python/tests"))
        .env("FMTSTR_CLI", &fmtstr)
        .env("FMTSTR_SAMPLES", root.join("samples"))
        // Import the installed wheel, never the source tree.
        .current_dir(&venv)
        .status()
        .context("cannot run pytest")?;
    match status.code() {
        Some(0) => Ok(()),
        // pytest's "no tests collected": a suite that tests nothing is a failure here.
        Some(5) => bail!("pytest collected no tests in crates/fmtstr-python/tests"),
        _ => bail!("the Python package's tests failed ({status})"),
    }
}

fn newest_wheel(dir: &Path) -> anyhow::Result<PathBuf> {
    let mut wheels: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("maturin wrote nothing into {}", dir.display()))?
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "whl"))
        .collect();
    wheels.sort();
    wheels
        .pop()
        .with_context(|| format!("no wheel in {}", dir.display()))
}
