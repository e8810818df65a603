//! `cargo xtask corpus`: the IR corpus fmtstr-ir's tests read, built by clang-19 and opt-19.
//!
//! Every `samples/c/*.c` is compiled for nvptx64, amdgcn (amdpal, gfx1100) and x86_64 at -O0,
//! -O2 and -O3, with and without `-g` (the -O0 `-g` builds also keep value names, so that the
//! corpus has both `%call`/`entry:` names and `%5`/`5:` numbers, and numbered values next to
//! debug records in the optimized `-g` builds), and each result is run through `opt-19 -O3`
//! as well:
//!
//! ```text
//! target/corpus/<target>/<sample>.<level>[.g].ll
//! target/corpus/<target>/<sample>.<level>[.g].opt3.ll
//! ```
//!
//! The directory is rebuilt from scratch; the jobs run on every core.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use anyhow::{bail, Context};
use fmtstr_oracles::Tool;

use crate::process;

/// (directory name, clang target flags).
const TARGETS: [(&str, &[&str]); 3] = [
    ("nvptx64", &["--target=nvptx64-nvidia-cuda"]),
    ("amdgcn", &["--target=amdgcn-amd-amdpal", "-mcpu=gfx1100"]),
    ("x86_64", &["--target=x86_64-linux-gnu"]),
];

const LEVELS: [&str; 3] = ["O0", "O2", "O3"];

struct Job {
    source: PathBuf,
    target: usize,
    level: &'static str,
    debug: bool,
    out: PathBuf,
}

pub fn run() -> anyhow::Result<()> {
    let root = process::root();
    let samples = root.join("samples/c");
    let mut sources: Vec<PathBuf> = std::fs::read_dir(&samples)
        .with_context(|| format!("cannot list {}", samples.display()))?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|e| e == "c"))
        .collect();
    sources.sort();
    if sources.is_empty() {
        bail!("no C sources in {}", samples.display());
    }
    let (Some(_), Some(_)) = (Tool::Clang.command(), Tool::Opt.command()) else {
        bail!("clang-19 and opt-19 are needed: run `cargo xtask oracles` first");
    };

    let out = root.join("target/corpus");
    if out.exists() {
        std::fs::remove_dir_all(&out).with_context(|| format!("cannot clear {}", out.display()))?;
    }
    let mut jobs = Vec::new();
    for (target, (dir, _)) in TARGETS.iter().enumerate() {
        std::fs::create_dir_all(out.join(dir))?;
        for source in &sources {
            let stem = source
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            for level in LEVELS {
                for debug in [false, true] {
                    let name = format!("{stem}.{level}{}.ll", if debug { ".g" } else { "" });
                    jobs.push(Job {
                        source: source.clone(),
                        target,
                        level,
                        debug,
                        out: out.join(dir).join(name),
                    });
                }
            }
        }
    }

    let total = jobs.len();
    let next = AtomicUsize::new(0);
    let errors = Mutex::new(Vec::new());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    eprintln!(
        "building {} corpus files from {} sources with {cores} jobs at a time",
        total * 2,
        sources.len()
    );
    std::thread::scope(|scope| {
        for _ in 0..cores {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(i) else { break };
                if let Err(e) = build(job, &samples) {
                    if let Ok(mut errors) = errors.lock() {
                        errors.push(format!("{e:#}"));
                    }
                }
            });
        }
    });
    let errors = errors.into_inner().unwrap_or_default();
    if !errors.is_empty() {
        bail!(
            "{} corpus job(s) failed:\n{}",
            errors.len(),
            errors.join("\n")
        );
    }
    let bytes: u64 = jobs
        .iter()
        .flat_map(|j| [j.out.clone(), opt_name(&j.out)])
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum();
    eprintln!(
        "wrote {} files ({:.1} MiB) to {}",
        total * 2,
        bytes as f64 / (1 << 20) as f64,
        process::relative(&out)
    );
    Ok(())
}

fn opt_name(path: &Path) -> PathBuf {
    path.with_extension("opt3.ll")
}

fn build(job: &Job, include: &Path) -> anyhow::Result<()> {
    let Some(mut clang) = Tool::Clang.command() else {
        bail!("clang-19 is missing");
    };
    clang
        .args(TARGETS[job.target].1)
        .args(["-x", "c", "-nostdinc", "-fno-builtin-printf", "-Wno-psabi"])
        .arg(format!("-{}", job.level))
        .arg("-I")
        .arg(include);
    if job.debug {
        clang.arg("-g");
        if job.level == "O0" {
            clang.arg("-fno-discard-value-names");
        }
    }
    clang
        .args(["-S", "-emit-llvm"])
        .arg(&job.source)
        .arg("-o")
        .arg(&job.out);
    process::output(&mut clang)?;
    let Some(mut opt) = Tool::Opt.command() else {
        bail!("opt-19 is missing");
    };
    process::output(
        opt.args(["-O3", "-S"])
            .arg(&job.out)
            .arg("-o")
            .arg(opt_name(&job.out)),
    )?;
    Ok(())
}

/// The corpus files, for other tasks (the IR benchmark).
pub fn files() -> anyhow::Result<Vec<PathBuf>> {
    let dir = process::root().join("target/corpus");
    let mut files = Vec::new();
    for (name, _) in TARGETS {
        let sub = dir.join(name);
        let entries = std::fs::read_dir(&sub)
            .with_context(|| format!("cannot list {}: run `cargo xtask corpus`", sub.display()))?;
        for entry in entries {
            let path = entry?.path();
            if path.extension().is_some_and(|e| e == "ll") {
                files.push(path);
            }
        }
    }
    files.sort();
    Ok(files)
}
