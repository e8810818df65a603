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
//! C++ (`samples/cpp/*.cpp`: exceptions, templates, classes) goes through `clang++-19` for
//! x86_64 at -O0 -g, -O2 and -O2 -g, and, except the exception samples (`eh_*.cpp`: NVPTX has
//! no exceptions), for nvptx64 at -O2 with `-fno-exceptions`; Rust (`samples/rust/*.rs`, no
//! dependencies) through the machine's `rustc --emit=llvm-ir` at opt-level 0 (with `-g`) and 2:
//!
//! ```text
//! target/corpus/cpp-x86_64/<sample>.<level>[.g].ll
//! target/corpus/cpp-nvptx64/<sample>.O2.ll
//! target/corpus-rust/<sample>.<level>[.g].ll
//! ```
//!
//! rustc's LLVM is newer than 19, so its modules live apart from `target/corpus` (whose tests
//! hand every file to `llvm-as-19`): fmtstr must read and print them back, llvm-as-19 need not.
//!
//! The directories are rebuilt from scratch; the jobs run on every core.

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
    kind: JobKind,
    out: PathBuf,
}

enum JobKind {
    /// A C sample for `TARGETS[target]`, then `opt-19 -O3`.
    C {
        target: usize,
        level: &'static str,
        debug: bool,
    },
    /// A C++ sample through clang++-19 with these flags.
    Cxx { flags: &'static [&'static str] },
    /// A Rust sample through rustc at this opt-level.
    Rust { level: u8 },
}

/// (directory, output suffix, clang++ flags) of the C++ builds; `host_only` marks the builds
/// the exception samples skip.
const CXX_BUILDS: [(&str, &str, &[&str], bool); 4] = [
    (
        "cpp-x86_64",
        "O0.g",
        &[
            "--target=x86_64-linux-gnu",
            "-O0",
            "-g",
            "-fno-discard-value-names",
        ],
        false,
    ),
    (
        "cpp-x86_64",
        "O2",
        &["--target=x86_64-linux-gnu", "-O2"],
        false,
    ),
    (
        "cpp-x86_64",
        "O2.g",
        &["--target=x86_64-linux-gnu", "-O2", "-g"],
        false,
    ),
    (
        "cpp-nvptx64",
        "O2",
        &["--target=nvptx64-nvidia-cuda", "-O2", "-fno-exceptions"],
        true,
    ),
];

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
    let rust_out = root.join("target/corpus-rust");
    for dir in [&out, &rust_out] {
        if dir.exists() {
            std::fs::remove_dir_all(dir)
                .with_context(|| format!("cannot clear {}", dir.display()))?;
        }
    }
    let mut jobs = Vec::new();
    for (target, (dir, _)) in TARGETS.iter().enumerate() {
        std::fs::create_dir_all(out.join(dir))?;
        for source in &sources {
            let stem = stem(source);
            for level in LEVELS {
                for debug in [false, true] {
                    let name = format!("{stem}.{level}{}.ll", if debug { ".g" } else { "" });
                    jobs.push(Job {
                        source: source.clone(),
                        kind: JobKind::C {
                            target,
                            level,
                            debug,
                        },
                        out: out.join(dir).join(name),
                    });
                }
            }
        }
    }
    for source in listed(&root.join("samples/cpp"), "cpp")? {
        let stem = stem(&source);
        for (dir, suffix, flags, host_only) in CXX_BUILDS {
            if host_only && stem.starts_with("eh_") {
                continue;
            }
            std::fs::create_dir_all(out.join(dir))?;
            jobs.push(Job {
                source: source.clone(),
                kind: JobKind::Cxx { flags },
                out: out.join(dir).join(format!("{stem}.{suffix}.ll")),
            });
        }
    }
    std::fs::create_dir_all(&rust_out)?;
    for source in listed(&root.join("samples/rust"), "rs")? {
        let stem = stem(&source);
        for (level, suffix) in [(0, "O0.g"), (2, "O2")] {
            jobs.push(Job {
                source: source.clone(),
                kind: JobKind::Rust { level },
                out: rust_out.join(format!("{stem}.{suffix}.ll")),
            });
        }
    }

    let total = jobs.len();
    let next = AtomicUsize::new(0);
    let errors = Mutex::new(Vec::new());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    eprintln!("building the IR corpus: {total} compiler jobs, {cores} at a time");
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
    let written: Vec<PathBuf> = jobs
        .iter()
        .flat_map(|j| [j.out.clone(), opt_name(&j.out)])
        .filter(|p| p.exists())
        .collect();
    let bytes: u64 = written
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum();
    eprintln!(
        "wrote {} files ({:.1} MiB) to {} and {}",
        written.len(),
        bytes as f64 / (1 << 20) as f64,
        process::relative(&out),
        process::relative(&rust_out)
    );
    Ok(())
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The files of `dir` with extension `ext`, sorted.
fn listed(dir: &Path, ext: &str) -> anyhow::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot list {}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|e| e == ext))
        .collect();
    files.sort();
    Ok(files)
}

fn opt_name(path: &Path) -> PathBuf {
    path.with_extension("opt3.ll")
}

fn build(job: &Job, include: &Path) -> anyhow::Result<()> {
    let (target, level, debug) = match job.kind {
        JobKind::C {
            target,
            level,
            debug,
        } => (target, level, debug),
        JobKind::Cxx { flags } => return build_cxx(job, flags),
        JobKind::Rust { level } => return build_rust(job, level),
    };
    let Some(mut clang) = Tool::Clang.command() else {
        bail!("clang-19 is missing");
    };
    clang
        .args(TARGETS[target].1)
        .args(["-x", "c", "-nostdinc", "-fno-builtin-printf", "-Wno-psabi"])
        .arg(format!("-{level}"))
        .arg("-I")
        .arg(include);
    if debug {
        clang.arg("-g");
        if level == "O0" {
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

/// A C++ sample: clang++-19 (the clang driver in C++ mode), no standard headers.
fn build_cxx(job: &Job, flags: &[&str]) -> anyhow::Result<()> {
    let Some(mut clang) = Tool::Clang.command() else {
        bail!("clang-19 is missing");
    };
    process::output(
        clang
            .args([
                "-x",
                "c++",
                "-std=c++17",
                "-nostdinc",
                "-fno-builtin-printf",
            ])
            .args(flags)
            .args(["-S", "-emit-llvm"])
            .arg(&job.source)
            .arg("-o")
            .arg(&job.out),
    )?;
    Ok(())
}

/// A Rust sample: a library crate through the machine's rustc (`$RUSTC`, else `rustc`).
fn build_rust(job: &Job, level: u8) -> anyhow::Result<()> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let mut command = std::process::Command::new(rustc);
    command
        .args(["--edition=2021", "--crate-type=lib", "--emit=llvm-ir"])
        .arg(format!("-Copt-level={level}"));
    if level == 0 {
        command.arg("-g");
    }
    process::output(command.arg(&job.source).arg("-o").arg(&job.out))?;
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
