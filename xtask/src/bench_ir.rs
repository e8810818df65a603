//! `cargo xtask bench ir`: fmtstr-ir's parse + print against `opt-19 -S` on a large module.
//!
//! The module is built from the corpus (`cargo xtask corpus`): the corpus module with the most
//! function text, followed by renamed copies of its function definitions until it exceeds
//! 50 MB. Both tools read the same file and write it back as text: fmtstr-ir through the
//! release build of `crates/fmtstr-ir/examples/roundtrip.rs` (parse, print to a file), opt
//! with no passes (parse, verify, print). fmtstr's output must be byte-identical to its
//! input before any figure is reported. fmtstr-ir parses function bodies on every core (opt
//! uses one), so it is also timed with one thread. Each is run three times; the best time and
//! the peak resident memory of that run (wait4's rusage) are printed, with the ratios against
//! the targets: at least 10x faster than opt, at most 3x the file size in memory.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context};
use fmtstr_ir::Module;
use fmtstr_oracles::Tool;

use crate::measure::{best_of, run_measured};
use crate::{corpus, process};

const TARGET_BYTES: usize = 50 * 1000 * 1000;
const RUNS: usize = 3;

pub fn run() -> anyhow::Result<()> {
    let Some(opt) = Tool::Opt.command().map(|c| PathBuf::from(c.get_program())) else {
        bail!("opt-19 is not installed: run `cargo xtask oracles` first");
    };
    let files = corpus::files()?;
    let roundtrip = process::build_release(
        &["-p", "fmtstr-ir", "--example", "roundtrip"],
        "examples/roundtrip",
    )?;
    let dir = tempfile::Builder::new()
        .prefix("fmtstr-bench-ir-")
        .tempdir()
        .context("cannot create a temporary directory")?;
    let input = dir.path().join("bench.ll");
    let (base, copies) = generate(&files, &input)?;
    let size = std::fs::metadata(&input)?.len();
    eprintln!(
        "bench module: {:.1} MB, {} with {copies} renamed copies of its functions",
        size as f64 / 1e6,
        process::relative(&base)
    );
    // Warm the page cache for both alike.
    std::fs::read(&input)?;

    let ours_out = dir.path().join("fmtstr.ll");
    let (ours_time, ours_rss) = best_of(RUNS, || {
        run_measured(Command::new(&roundtrip).arg(&input).arg(&ours_out))
    })?;
    identical(&input, &ours_out)?;
    std::fs::remove_file(&ours_out)?;

    let (single_time, single_rss) = best_of(RUNS, || {
        run_measured(
            Command::new(&roundtrip)
                .args(["--threads", "1"])
                .arg(&input)
                .arg(&ours_out),
        )
    })?;
    identical(&input, &ours_out)?;
    std::fs::remove_file(&ours_out)?;

    let opt_out = dir.path().join("opt.ll");
    let (opt_time, opt_rss) = best_of(RUNS, || {
        run_measured(
            Command::new(&opt)
                .arg("-S")
                .arg(&input)
                .arg("-o")
                .arg(&opt_out),
        )
    })?;

    let mb = |bytes: u64| bytes as f64 / 1e6;
    let speedup = opt_time.as_secs_f64() / ours_time.as_secs_f64();
    let memory = ours_rss as f64 / size as f64;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("file:            {:.1} MB", mb(size));
    println!("cores:           {cores}");
    println!(
        "fmtstr-ir:       {:.3} s ({:.0} MB/s), peak RSS {:.1} MB ({memory:.2}x the file)",
        ours_time.as_secs_f64(),
        mb(size) / ours_time.as_secs_f64(),
        mb(ours_rss)
    );
    println!(
        "fmtstr-ir, 1 thread: {:.3} s ({:.0} MB/s), peak RSS {:.1} MB ({:.2}x the file), {:.1}x faster than opt",
        single_time.as_secs_f64(),
        mb(size) / single_time.as_secs_f64(),
        mb(single_rss),
        single_rss as f64 / size as f64,
        opt_time.as_secs_f64() / single_time.as_secs_f64()
    );
    println!(
        "opt-19 -S:       {:.3} s ({:.0} MB/s), peak RSS {:.1} MB ({:.2}x the file)",
        opt_time.as_secs_f64(),
        mb(size) / opt_time.as_secs_f64(),
        mb(opt_rss),
        opt_rss as f64 / size as f64
    );
    println!("speedup:         {speedup:.1}x (target >= 10x)");
    println!("output:          byte-identical to the input");
    if speedup < 10.0 || memory > 3.0 {
        eprintln!("warning: below target (speed >= 10x opt, memory <= 3x the file)");
    }
    Ok(())
}

/// Writes the bench module; returns the corpus file it is built from and the copy count.
fn generate(files: &[PathBuf], out: &Path) -> anyhow::Result<(PathBuf, usize)> {
    // The debug-info builds are left out: a DISubprogram may belong to only one function.
    let mut best: Option<(usize, PathBuf, Module)> = None;
    for path in files
        .iter()
        .filter(|p| !p.to_string_lossy().contains(".g."))
    {
        let text = std::fs::read(path)?;
        let module =
            Module::parse(&path.to_string_lossy(), text).map_err(|e| anyhow::anyhow!("{e}"))?;
        let bytes: usize = module
            .functions()
            .filter(|f| !f.is_declaration())
            .map(|f| f.source_text().len())
            .sum();
        if best.as_ref().is_none_or(|(b, _, _)| bytes > *b) {
            best = Some((bytes, path.clone(), module));
        }
    }
    let Some((bytes, path, module)) = best else {
        bail!("the corpus has no modules without debug info");
    };
    if bytes == 0 {
        bail!("{} has no function definitions", path.display());
    }
    let mut text = module.source().to_vec();
    let definitions: Vec<(String, &[u8])> = module
        .functions()
        .filter(|f| !f.is_declaration())
        .map(|f| (f.name_str().into_owned(), f.source_text()))
        .collect();
    let mut copies = 0;
    while text.len() < TARGET_BYTES {
        copies += 1;
        for (name, definition) in &definitions {
            let from = format!("@{name}(");
            let to = format!("@{name}.copy{copies}(");
            let Some(at) = find(definition, from.as_bytes()) else {
                bail!("cannot find `{from}` in its definition");
            };
            text.push(b'\n');
            text.extend_from_slice(&definition[..at]);
            text.extend_from_slice(to.as_bytes());
            text.extend_from_slice(&definition[at + from.len()..]);
        }
    }
    std::fs::write(out, &text).with_context(|| format!("cannot write {}", out.display()))?;
    Ok((path, copies))
}

/// Fails unless fmtstr-ir's output is byte-identical to its input.
fn identical(input: &Path, output: &Path) -> anyhow::Result<()> {
    let (original, printed) = (std::fs::read(input)?, std::fs::read(output)?);
    if original != printed {
        let at = original
            .iter()
            .zip(&printed)
            .position(|(a, b)| a != b)
            .unwrap_or(original.len().min(printed.len()));
        bail!("fmtstr-ir's output differs from its input at byte {at}");
    }
    Ok(())
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}
