//! `cargo xtask bench lower`: `fmtstr lower --target nvptx` against LLVM's own rewrite of
//! variadic calls into buffers, `opt-19 -passes=expand-variadics
//! -expand-variadics-override=lowering`, on the same module.
//!
//! The module is generated: 2,000 functions of 50 printf calls each (100,000 calls), as clang
//! writes them for nvptx64 (promoted arguments, `noundef`, private format strings), each call
//! preceded by the arithmetic that computes its arguments, 0 to 8 arguments per call from a
//! pool of 1,000 format strings; at least 50 MB of text. Both tools read the file and write
//! the rewritten module as text. fmtstr's output must hold exactly 100,000 vprintf calls and no
//! printf before any figure is reported. fmtstr runs three times, once before opt and twice
//! after, and opt once (it is the slow one); the best time and that run's peak resident memory
//! (GNU time's) are printed, with the ratio against the target of at least 10x faster. Each run
//! writes a new file after the disks are synced, so that neither the replacing of an old
//! output nor writeback lands in a timing.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::Command;

use anyhow::{bail, Context};
use fmtstr_oracles::Tool;

use crate::measure::{self, best_of, run_measured};
use crate::process;

const FUNCTIONS: usize = 2_000;
const CALLS_PER_FUNCTION: usize = 50;
const FORMATS: usize = 1_000;
const TARGET_BYTES: usize = 50 * 1000 * 1000;
const FMTSTR_RUNS: usize = 3;

pub fn run() -> anyhow::Result<()> {
    let Some(opt) = Tool::Opt.command().map(|c| PathBuf::from(c.get_program())) else {
        bail!("opt-19 is not installed: run `cargo xtask oracles` first");
    };
    let fmtstr = process::build_fmtstr()?;
    let dir = tempfile::Builder::new()
        .prefix("fmtstr-bench-lower-")
        .tempdir()
        .context("cannot create a temporary directory")?;
    let input = dir.path().join("bench.ll");
    let text = generate();
    if text.len() < TARGET_BYTES {
        bail!("the generated module has only {} bytes", text.len());
    }
    std::fs::write(&input, &text).with_context(|| format!("cannot write {}", input.display()))?;
    let calls = FUNCTIONS * CALLS_PER_FUNCTION;
    let size = text.len() as u64;
    drop(text);
    eprintln!(
        "bench module: {:.1} MB, {calls} printf calls in {FUNCTIONS} functions",
        size as f64 / 1e6
    );
    // Warm the page cache for both alike.
    std::fs::read(&input)?;

    let ours_out = dir.path().join("fmtstr.ll");
    let run_ours = || {
        // Each run writes a new file, as opt does: replacing the last run's 100 MB output
        // would add the kernel's freeing of it (about 60 ms here) to fmtstr's time alone.
        match std::fs::remove_file(&ours_out) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e.into()),
            _ => {}
        }
        // Nor should the writeback of the input or of the last output land in a timing.
        measure::sync_disks();
        run_measured(
            Command::new(&fmtstr)
                .args(["lower", "--target", "nvptx"])
                .arg(&input)
                .arg("-o")
                .arg(&ours_out),
        )
    };
    // fmtstr's runs are spread around opt's, so that a burst of load on this machine (others
    // share its cores) is less likely to fall on all of them.
    let first = run_ours()?;
    let lowered = std::fs::read(&ours_out)?;
    let vprintf = count(&lowered, b"call i32 @vprintf(");
    if vprintf != calls || count(&lowered, b"@printf(") != 0 {
        bail!("fmtstr's output has {vprintf} vprintf calls (expected {calls}) or printf left");
    }
    let out_size = lowered.len();
    drop(lowered);

    let opt_out = dir.path().join("opt.ll");
    measure::sync_disks();
    let (opt_time, opt_rss) = run_measured(
        Command::new(&opt)
            .args([
                "-passes=expand-variadics",
                "-expand-variadics-override=lowering",
                "-S",
            ])
            .arg(&input)
            .arg("-o")
            .arg(&opt_out),
    )?;
    std::fs::remove_file(&opt_out)?;
    let rest = best_of(FMTSTR_RUNS - 1, run_ours)?;
    let (ours_time, ours_rss) = if rest.0 < first.0 { rest } else { first };

    let mb = |bytes: u64| bytes as f64 / 1e6;
    let speedup = opt_time.as_secs_f64() / ours_time.as_secs_f64();
    println!("module:          {:.1} MB, {calls} printf calls", mb(size));
    println!(
        "fmtstr lower:    {:.3} s ({:.0} calls/ms), peak RSS {:.1} MB ({:.2}x the file), output {:.1} MB",
        ours_time.as_secs_f64(),
        calls as f64 / ours_time.as_secs_f64() / 1000.0,
        mb(ours_rss),
        ours_rss as f64 / size as f64,
        mb(out_size as u64)
    );
    println!(
        "opt-19 expand-variadics: {:.3} s, peak RSS {:.1} MB ({:.2}x the file)",
        opt_time.as_secs_f64(),
        mb(opt_rss),
        opt_rss as f64 / size as f64
    );
    println!("speedup:         {speedup:.1}x (target >= 10x)");
    if speedup < 10.0 {
        eprintln!("warning: below target (fmtstr >= 10x faster than opt)");
    }
    Ok(())
}

/// Argument kinds: the IR that computes one from the function's parameters (through `%u`, the
/// value of the line before), its type and conversion.
const KINDS: [(&[&str], &str, &str); 8] = [
    (
        &["add nsw i32 %a, {j}", "mul nsw i32 %u, 3", "xor i32 %u, 85"],
        "i32",
        "%d",
    ),
    (
        &[
            "mul nsw i64 %b, {j}",
            "add nsw i64 %u, -7",
            "sub nsw i64 0, %u",
        ],
        "i64",
        "%lld",
    ),
    (
        &[
            "fadd double %c, 1.500000e+00",
            "fmul double %u, %c",
            "fneg double %u",
        ],
        "double",
        "%f",
    ),
    (
        &["fmul float %d, 2.500000e-01", "fpext float %u to double"],
        "double",
        "%g",
    ),
    (&["add i8 %e, {j}", "sext i8 %u to i32"], "i32", "%c"),
    (&["lshr i16 %h, 1", "zext i16 %u to i32"], "i32", "%hu"),
    (
        &["xor i32 %a, {j}", "and i32 %u, 65535", "or i32 %u, 1"],
        "i32",
        "%x",
    ),
    (
        &[
            "getelementptr inbounds i8, ptr %s, i64 {j}",
            "getelementptr inbounds i8, ptr %u, i64 16",
        ],
        "ptr",
        "%p",
    ),
];

/// The argument kinds of format string `k`: 0 to 8 of them.
fn format_kinds(k: usize) -> Vec<usize> {
    let count = k % 9;
    (0..count)
        .map(|i| (k / 9 + i * 3 + i * i) % KINDS.len())
        .collect()
}

/// The bench module's text.
fn generate() -> String {
    let mut out = String::with_capacity(TARGET_BYTES + TARGET_BYTES / 8);
    out.push_str(
        "; fmtstr bench lower: 100,000 printf calls as clang writes them for nvptx64\n\
         source_filename = \"bench.c\"\n\
         target datalayout = \"e-i64:64-i128:128-v16:16-v32:32-n16:32:64\"\n\
         target triple = \"nvptx64-nvidia-cuda\"\n\n",
    );
    for k in 0..FORMATS {
        let mut format = format!("f{k}:");
        for kind in format_kinds(k) {
            format.push(' ');
            format.push_str(KINDS[kind].2);
        }
        format.push_str("\\0A");
        // `\0A` is one byte, and the NUL another.
        let len = format.len() - 3 + 1 + 1;
        writeln!(
            out,
            "@.str.{k} = private unnamed_addr constant [{len} x i8] c\"{format}\\00\", align 1"
        )
        .unwrap();
    }
    for f in 0..FUNCTIONS {
        writeln!(
            out,
            "\n; Function Attrs: nounwind\ndefine dso_local void @f{f}(i32 noundef %a, i64 noundef %b, double noundef %c, float noundef %d, i8 noundef signext %e, i16 noundef zeroext %h, ptr noundef %s) local_unnamed_addr #0 {{\nentry:"
        )
        .unwrap();
        for j in 0..CALLS_PER_FUNCTION {
            let k = (f * 7 + j * 13) % FORMATS;
            let mut args = String::new();
            for (i, kind) in format_kinds(k).into_iter().enumerate() {
                let (lines, ty, _) = KINDS[kind];
                for (step, line) in lines.iter().enumerate() {
                    let line = line
                        .replace("{j}", &(j + i).to_string())
                        .replace("%u", &format!("%t{j}.{i}.{}", step.wrapping_sub(1)));
                    if step + 1 == lines.len() {
                        writeln!(out, "  %v{j}.{i} = {line}").unwrap();
                    } else {
                        writeln!(out, "  %t{j}.{i}.{step} = {line}").unwrap();
                    }
                }
                write!(args, ", {ty} noundef %v{j}.{i}").unwrap();
            }
            writeln!(
                out,
                "  %call{j} = tail call i32 (ptr, ...) @printf(ptr noundef nonnull @.str.{k}{args}) #2"
            )
            .unwrap();
        }
        out.push_str("  ret void\n}\n");
    }
    out.push_str(
        "\ndeclare dso_local i32 @printf(ptr noundef, ...) local_unnamed_addr #1\n\n\
         attributes #0 = { nounwind \"no-builtin-printf\" \"target-features\"=\"+ptx42\" }\n\
         attributes #1 = { \"no-builtin-printf\" \"target-features\"=\"+ptx42\" }\n\
         attributes #2 = { nobuiltin nounwind \"no-builtin-printf\" }\n",
    );
    out
}

fn count(haystack: &[u8], needle: &[u8]) -> usize {
    haystack
        .windows(needle.len())
        .filter(|w| *w == needle)
        .count()
}
