//! `cargo xtask corpus --llvm-tests`: LLVM's own test modules, each release's judged by its own
//! `llvm-as` (19 and 22, or the one `--llvm N` names).
//!
//! The test tree `cargo xtask llvm-source` unpacks holds thousands of `.ll` files written by the
//! people who know the grammar best, corner cases included. fmtstr-ir's corpus test parses and
//! prints every one of them; the ones `llvm-as` accepts must print back byte-identical, the
//! rest must give an error, never a panic. Running llvm-as on every file costs most of a minute,
//! so its verdicts are cached in `target/corpus-llvm/verdicts.tsv` (LLVM 22's in
//! `verdicts-22.tsv`, see `fmtstr_oracles::llvm_verdicts_file`), one line per file:
//!
//! ```text
//! <xxh3-64 of the file, hex>\t<accepted|rejected>\t<path relative to llvm/test>
//! ```
//!
//! A verdict is reused while the file's hash is unchanged. The selection is deterministic:
//! every file of the directories in [`WHOLE`], and every [`SAMPLE_EVERY`]th file (sorted by
//! path) of those in [`SAMPLED`].

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use anyhow::{bail, Context};
use fmtstr_oracles::{find_llvm, llvm_verdicts_file, Llvm, Tool};

use crate::{llvm_source, process};

/// Directories (under `llvm/test`) taken whole.
const WHOLE: [&str; 7] = [
    "Assembler",
    "Bitcode",
    "CodeGen/NVPTX",
    "Transforms/InstCombine",
    "Verifier",
    "Feature",
    "Other",
];

/// Directories sampled: large, and repetitive in what they exercise of the grammar.
const SAMPLED: [&str; 2] = ["CodeGen/AMDGPU", "Transforms"];

/// The sampling stride for [`SAMPLED`].
const SAMPLE_EVERY: usize = 8;

pub fn run(llvms: &[Llvm]) -> anyhow::Result<()> {
    for &llvm in llvms {
        judge(llvm)?;
    }
    Ok(())
}

/// Judges one release's test modules with its own llvm-as.
fn judge(llvm: Llvm) -> anyhow::Result<()> {
    let source = llvm_source::ensure(llvm)?;
    let tests = source.join("llvm/test");
    let major = llvm.major();
    let Some(llvm_as) = find_llvm(llvm, Tool::LlvmAs) else {
        bail!("llvm-as-{major} is needed: run `cargo xtask oracles` first");
    };
    let files = select(&tests)?;
    // The file the tests read (under the workspace's `target/`, whatever CARGO_TARGET_DIR says).
    let out = llvm_verdicts_file(llvm);
    let cached = read_cache(&out);

    struct Entry {
        relative: String,
        hash: u64,
        verdict: Option<bool>,
    }
    let mut entries = Vec::with_capacity(files.len());
    for relative in files {
        let text = std::fs::read(tests.join(&relative))
            .with_context(|| format!("cannot read {relative}"))?;
        let hash = xxhash_rust::xxh3::xxh3_64(&text);
        let verdict = cached.get(&(hash, relative.clone())).copied();
        entries.push(Entry {
            relative,
            hash,
            verdict,
        });
    }
    let todo: Vec<usize> = (0..entries.len())
        .filter(|&i| entries[i].verdict.is_none())
        .collect();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    eprintln!(
        "{} {llvm} test modules, {} verdicts cached, running llvm-as-{major} on {} with {cores} \
         jobs",
        entries.len(),
        entries.len() - todo.len(),
        todo.len()
    );
    let next = AtomicUsize::new(0);
    let results = Mutex::new(Vec::new());
    let errors = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..cores {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(&index) = todo.get(i) else { break };
                match accepts(&llvm_as, &tests.join(&entries[index].relative)) {
                    Ok(ok) => results
                        .lock()
                        .map(|mut r| r.push((index, ok)))
                        .unwrap_or(()),
                    Err(e) => errors
                        .lock()
                        .map(|mut r| r.push(format!("{e:#}")))
                        .unwrap_or(()),
                }
            });
        }
    });
    let errors = errors.into_inner().unwrap_or_default();
    if !errors.is_empty() {
        bail!("llvm-as-{major} could not run:\n{}", errors.join("\n"));
    }
    for (index, ok) in results.into_inner().unwrap_or_default() {
        entries[index].verdict = Some(ok);
    }
    let mut text = String::new();
    let mut accepted = 0;
    for entry in &entries {
        let ok = entry.verdict.unwrap_or(false);
        accepted += usize::from(ok);
        text.push_str(&format!(
            "{:016x}\t{}\t{}\n",
            entry.hash,
            if ok { "accepted" } else { "rejected" },
            entry.relative
        ));
    }
    if let Some(parent) = out.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let partial = out.with_extension("tsv.partial");
    std::fs::write(&partial, text)?;
    std::fs::rename(&partial, &out)?;
    eprintln!(
        "llvm-as-{major} accepts {accepted} of {} modules; verdicts in {}",
        entries.len(),
        process::relative(&out)
    );
    Ok(())
}

/// The selected files, relative to `llvm/test`, sorted.
fn select(tests: &Path) -> anyhow::Result<Vec<String>> {
    let mut selected = Vec::new();
    for (dirs, every) in [(&WHOLE[..], 1), (&SAMPLED[..], SAMPLE_EVERY)] {
        for dir in dirs {
            let mut files = Vec::new();
            collect(&tests.join(dir), &mut files)?;
            let mut relative: Vec<String> = files
                .iter()
                .filter_map(|f| f.strip_prefix(tests).ok())
                .map(|f| f.to_string_lossy().into_owned())
                // Whole directories already hold these.
                .filter(|f| every == 1 || !WHOLE.iter().any(|w| f.starts_with(&format!("{w}/"))))
                .collect();
            relative.sort();
            selected.extend(relative.into_iter().step_by(every));
        }
    }
    selected.sort();
    selected.dedup();
    if selected.is_empty() {
        bail!("no .ll files under {}", tests.display());
    }
    Ok(selected)
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    let entries =
        std::fs::read_dir(dir).with_context(|| format!("cannot list {}", dir.display()))?;
    for entry in entries {
        let path = entry?.path();
        if path.is_dir() {
            collect(&path, files)?;
        } else if path.extension().is_some_and(|e| e == "ll") {
            files.push(path);
        }
    }
    Ok(())
}

/// The cached verdicts: (hash, path) -> accepted.
fn read_cache(path: &Path) -> HashMap<(u64, String), bool> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return HashMap::new();
    };
    text.lines()
        .filter_map(|line| {
            let mut fields = line.splitn(3, '\t');
            let hash = u64::from_str_radix(fields.next()?, 16).ok()?;
            let verdict = fields.next()? == "accepted";
            Some(((hash, fields.next()?.to_owned()), verdict))
        })
        .collect()
}

/// Whether `llvm_as` accepts the file.
fn accepts(llvm_as: &Path, path: &Path) -> anyhow::Result<bool> {
    let status = std::process::Command::new(llvm_as)
        .arg(path)
        .args(["-o", "/dev/null"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .with_context(|| format!("cannot start {} on {}", llvm_as.display(), path.display()))?;
    Ok(status.success())
}
