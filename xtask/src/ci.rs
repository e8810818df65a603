//! `cargo xtask ci`: exactly what CI runs, in order, stopping at the first failure.
//!
//! Formatting and lints come first because they are the cheapest; then the oracles are
//! installed, so that every test below runs against the real tools (`CI=true` makes a missing
//! tool a failure, never a skip).

use std::process::Command;

use crate::{capi, cli_docs, corpus, corpus_llvm, fuzz, layout, oracles, process, wheel};

pub fn run() -> anyhow::Result<()> {
    let root = process::root();
    // A CI machine builds once from nothing: incremental caches would only take disk.
    std::env::set_var("CARGO_INCREMENTAL", "0");
    let cargo = || {
        let mut command = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
        command.current_dir(&root);
        command
    };
    process::run(cargo().args(["fmt", "--all", "--", "--check"]))?;
    process::run(cargo().args([
        "clippy",
        "--workspace",
        "--all-targets",
        "--locked",
        "--",
        "-D",
        "warnings",
    ]))?;
    // The codebase's shape: no import cycle inside a crate, no unexplained long file.
    layout::run()?;
    // The committed C header must be what the sources give (cheap: before the build).
    capi::header(true)?;
    // So are the man pages and completion scripts (`cargo xtask man`).
    cli_docs::run(true)?;
    oracles::run()?;
    corpus::run()?;
    // Each release's own test tree, judged by its own llvm-as.
    corpus_llvm::run(&fmtstr_oracles::Llvm::ALL)?;
    process::run(
        cargo()
            .args(["test", "--workspace", "--all-targets", "--locked"])
            .env("CI", "true"),
    )?;
    // Doctests are not part of --all-targets.
    process::run(
        cargo()
            .args(["test", "--workspace", "--doc", "--locked"])
            .env("CI", "true"),
    )?;
    // The C library from C and C++ (gcc, clang-19; shared, static) against the CLI, and
    // valgrind; then the Python wheel and its pytest suite against the CLI.
    capi::test()?;
    wheel::run(true)?;
    install_check(&mut cargo())?;
    // Every fuzz target for 20 s, two at a time (a CI machine has 2 cores): a smoke test of
    // the harnesses, and the corpus under target/fuzz-corpus grows from run to run. The seed
    // is fixed so that a CI verdict repeats: `cargo xtask fuzz --seconds 20 --seed 1` on a
    // fresh corpus replays the inputs CI tries. Long campaigns use new seeds.
    fuzz::run(&fuzz::Options {
        limit: fuzz::Limit {
            seconds: Some(20),
            runs: None,
        },
        jobs: 2,
        targets: Vec::new(),
        sanitizer: "none".to_owned(),
        seed: Some(CI_FUZZ_SEED),
    })?;
    eprintln!("xtask ci: everything passed");
    Ok(())
}

/// README's install line, offline (the dependencies are fetched by now), into a directory under
/// target/: the binary it installs runs and says which commit it is.
fn install_check(cargo: &mut Command) -> anyhow::Result<()> {
    let root = process::target_dir().join("install-check");
    process::run(
        cargo
            .args([
                "install",
                "--locked",
                "--offline",
                "--force",
                "--quiet",
                "--path",
                "crates/fmtstr-cli",
                "--root",
            ])
            .arg(&root),
    )?;
    let binary = root.join("bin/fmtstr");
    let version = process::output(Command::new(&binary).arg("--version"))?;
    let size = std::fs::metadata(&binary)?.len();
    eprintln!(
        "xtask ci: cargo install gave {} ({:.1} MB)",
        String::from_utf8_lossy(&version.stdout).trim(),
        size as f64 / 1e6
    );
    Ok(())
}

/// libFuzzer's seed in CI's fuzz step.
const CI_FUZZ_SEED: u32 = 1;
