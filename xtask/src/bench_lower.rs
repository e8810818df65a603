//! `cargo xtask bench lower`: `fmtstr lower --target nvptx` against LLVM's own rewrite of
//! variadic calls into buffers, `opt -passes=expand-variadics
//! -expand-variadics-override=lowering` of LLVM 19 and of LLVM 22, on the same modules, in
//! four shapes:
//!
//! - **dense**: generated IR, 2,000 functions of 50 printf calls each (100,000 calls), as
//!   clang writes them for nvptx64 (promoted arguments, `noundef`, private format strings),
//!   each call preceded by the arithmetic that computes its arguments, 0 to 8 arguments per
//!   call from a pool of 1,000 format strings; at least 50 MB of text.
//! - **clang -O2 -g**: generated C (7,000 small functions, each with one or two printf calls
//!   inside a loop and a switch, which clang unrolls and duplicates), compiled by clang-19 for
//!   nvptx64 with debug info: about 47 MB and 23,000 calls.
//! - **clang -O2**: the same C without `-g`.
//! - **clang -O2 -g, 5%**: printf in 5% of the functions, the rest the same: the shape where
//!   fmtstr should cost little more than copying the file, so `cp` of it is timed too, and,
//!   for scale, `cp` followed by a sync of the copy (fmtstr syncs its output before the
//!   rename; `cp` does not).
//!
//! Both tools read the file and write the rewritten module as text. fmtstr's output must hold
//! as many vprintf calls as the input has printf calls, and no printf, and llvm-as-19 must
//! accept it (once per shape) before any figure is reported. fmtstr runs five times, once
//! before the opts and four times after, and each opt once (they are the slow ones); the best
//! time and that run's peak resident memory (GNU time's) are printed, with the ratios (target
//! 20x against each opt) and fmtstr's peak memory against the file's size (target 3x). Each run writes a new
//! file after the disks are synced, so that neither the replacing of an old output nor
//! writeback lands in a timing. Then fmtstr's time is split into its phases twice, each phase
//! the fastest of ten runs (the split of the run fastest overall let a burst of load on this
//! shared machine land in one phase):
//!
//! - as it runs: `fmtstr lower --time-phases`, a new process each run: read, parse, extract,
//!   plan, apply, print+write (the CLI prints straight into the file), sync (the wait for the
//!   disk before the rename). The lowering target
//!   (extract + plan + apply at most half of parse) is judged here, on what a user's run
//!   spends.
//! - warm, in this process with the same library calls, as `bench lower-phases` gives it:
//!   print and write apart. The module is freed and parsed again between runs, so after the
//!   first the allocator hands back memory already faulted in, and parse reads faster than as
//!   run (doc/perf.md, "Lowering phases").
//!
//! Last, fmtstr runs once per module as a build runs it: after the machine was idle for 3 s,
//! three times with mimalloc's transparent huge pages and three times without
//! (`MIMALLOC_ALLOW_THP=0`), the median of each against opt's time, and the peak memory
//! without huge pages. The figures are printed, not judged: on a virtual machine that hands
//! freed memory back to its host, huge pages are slower after idle and faster back to back,
//! and they hold half as much memory again (doc/perf.md, "Huge pages after idle").
//!
//! The C shapes are compiled once and kept under `target/bench-lower/` (named by a hash of
//! the source and flags), as clang takes longer than everything else here.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use fmtstr_ir::Module;
use fmtstr_lower::{lower_shards, Options, Target};
use fmtstr_oracles::{find_llvm, Llvm, Tool};
use fmtstr_tools::lower::PhaseTimes;

use crate::measure::{self, best_of, run_measured};
use crate::process;

const FUNCTIONS: usize = 2_000;
const CALLS_PER_FUNCTION: usize = 50;
const FORMATS: usize = 1_000;
const TARGET_BYTES: usize = 50 * 1000 * 1000;
const FMTSTR_RUNS: usize = 5;
/// In-process runs for the phase split.
const PHASE_RUNS: usize = 10;
/// The C shapes: functions, and the least calls clang's output must have.
const C_FUNCTIONS: usize = 7_000;
const C_MIN_CALLS: usize = 20_000;

struct Shape {
    name: &'static str,
    input: PathBuf,
    /// The target ratio against opt.
    target: f64,
    /// Time `cp` of the file too, with this target for fmtstr's multiple of it.
    against_cp: Option<f64>,
    /// The most time the lowering phases (extract + plan + apply) may take per parse time,
    /// as the CLI runs.
    lowering_per_parse: Option<f64>,
}

/// fmtstr's peak resident memory, at most this many times the input's size.
const PEAK_PER_INPUT: f64 = 3.0;

pub fn run() -> anyhow::Result<()> {
    let mut opts = Vec::new();
    for llvm in [Llvm::V19, Llvm::V22] {
        let Some(opt) = find_llvm(llvm, Tool::Opt) else {
            bail!(
                "opt-{} is not installed: run `cargo xtask oracles` first",
                llvm.major()
            );
        };
        opts.push((llvm, opt));
    }
    let Some(clang) = Tool::Clang
        .command()
        .map(|c| PathBuf::from(c.get_program()))
    else {
        bail!("clang-19 is not installed: run `cargo xtask oracles` first");
    };
    let Some(llvm_as) = Tool::LlvmAs
        .command()
        .map(|c| PathBuf::from(c.get_program()))
    else {
        bail!("llvm-as-19 is not installed: run `cargo xtask oracles` first");
    };
    let fmtstr = process::build_fmtstr()?;
    let dir = tempfile::Builder::new()
        .prefix("fmtstr-bench-lower-")
        .tempdir()
        .context("cannot create a temporary directory")?;
    let dense = dir.path().join("dense.ll");
    let text = generate();
    if text.len() < TARGET_BYTES {
        bail!("the generated module has only {} bytes", text.len());
    }
    std::fs::write(&dense, &text).with_context(|| format!("cannot write {}", dense.display()))?;
    drop(text);
    let cache = process::target_dir().join("bench-lower");
    std::fs::create_dir_all(&cache)?;
    let every = c_source(C_FUNCTIONS, 1.0);
    let sparse = c_source(C_FUNCTIONS, 0.05);
    let shapes = [
        Shape {
            name: "dense",
            input: dense,
            target: 20.0,
            against_cp: None,
            lowering_per_parse: None,
        },
        Shape {
            name: "clang -O2 -g",
            input: compile_c(&clang, &cache, &every, &["-g"], C_MIN_CALLS)?,
            target: 20.0,
            against_cp: None,
            lowering_per_parse: Some(0.5),
        },
        Shape {
            name: "clang -O2",
            input: compile_c(&clang, &cache, &every, &[], C_MIN_CALLS)?,
            target: 20.0,
            against_cp: None,
            lowering_per_parse: Some(0.5),
        },
        Shape {
            name: "clang -O2 -g, 5%",
            input: compile_c(&clang, &cache, &sparse, &["-g"], C_MIN_CALLS / 40)?,
            target: 20.0,
            against_cp: Some(2.5),
            lowering_per_parse: None,
        },
    ];
    let mut summary = Vec::new();
    for shape in &shapes {
        summary.push(bench_shape(shape, &fmtstr, &opts, &llvm_as, dir.path())?);
    }
    println!("\nsummary:");
    for line in summary {
        println!("  {line}");
    }
    Ok(())
}

/// Times one shape; returns its summary line.
fn bench_shape(
    shape: &Shape,
    fmtstr: &Path,
    opts: &[(Llvm, PathBuf)],
    llvm_as: &Path,
    dir: &Path,
) -> anyhow::Result<String> {
    let input = &shape.input;
    let text = std::fs::read(input).with_context(|| format!("cannot read {}", input.display()))?;
    let calls = count(&text, b"@printf(")
        - count(&text, b"declare i32 @printf(")
        - count(&text, b"declare dso_local i32 @printf(");
    let size = text.len() as u64;
    let functions = count(&text, b"\ndefine ");
    drop(text);
    println!(
        "\n== {}: {:.1} MB, {calls} printf calls in {functions} functions",
        shape.name,
        size as f64 / 1e6
    );
    let ours_out = dir.join("fmtstr.ll");
    let run_ours = || {
        // Each run writes a new file, as opt does: replacing the last run's output would add
        // the kernel's freeing of it to fmtstr's time alone.
        clear_for_run(&ours_out)?;
        run_measured(
            Command::new(fmtstr)
                .args(["lower", "--target", "nvptx"])
                .arg(input)
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
    process::run(
        Command::new(llvm_as)
            .arg(&ours_out)
            .args(["-o", "/dev/null"]),
    )
    .context("llvm-as-19 refused fmtstr's output")?;

    let opt_out = dir.join("opt.ll");
    let mut peers = Vec::new();
    for (llvm, opt) in opts {
        measure::sync_disks();
        let (opt_time, opt_rss) = run_measured(
            Command::new(opt)
                .args([
                    "-passes=expand-variadics",
                    "-expand-variadics-override=lowering",
                    "-S",
                ])
                .arg(input)
                .arg("-o")
                .arg(&opt_out),
        )?;
        std::fs::remove_file(&opt_out)?;
        peers.push((*llvm, opt_time, opt_rss));
    }
    let rest = best_of(FMTSTR_RUNS - 1, run_ours)?;
    let (ours_time, ours_rss) = if rest.0 < first.0 { rest } else { first };

    let mb = |bytes: u64| bytes as f64 / 1e6;
    let peak_ratio = ours_rss as f64 / size as f64;
    println!(
        "fmtstr lower:    {:.3} s ({:.0} calls/ms), peak RSS {:.1} MB ({peak_ratio:.2}x the \
         file, target <= {PEAK_PER_INPUT}x), output {:.1} MB",
        ours_time.as_secs_f64(),
        calls as f64 / ours_time.as_secs_f64() / 1000.0,
        mb(ours_rss),
        mb(out_size as u64)
    );
    let mut line = format!(
        "{}: fmtstr {:.3} s, peak {peak_ratio:.2}x the file",
        shape.name,
        ours_time.as_secs_f64(),
    );
    if peak_ratio > PEAK_PER_INPUT {
        eprintln!("warning: above target (peak memory <= {PEAK_PER_INPUT}x the file)");
    }
    for (llvm, opt_time, opt_rss) in &peers {
        let speedup = opt_time.as_secs_f64() / ours_time.as_secs_f64();
        println!(
            "opt-{} expand-variadics: {:.3} s, peak RSS {:.1} MB ({:.2}x the file); fmtstr is \
             {speedup:.1}x faster (target >= {}x)",
            llvm.major(),
            opt_time.as_secs_f64(),
            mb(*opt_rss),
            *opt_rss as f64 / size as f64,
            shape.target
        );
        let _ = write!(
            line,
            "; opt-{} {:.3} s, {speedup:.1}x (target >= {}x)",
            llvm.major(),
            opt_time.as_secs_f64(),
            shape.target
        );
        if speedup < shape.target {
            eprintln!(
                "warning: below target (fmtstr >= {}x faster than opt-{})",
                shape.target,
                llvm.major()
            );
        }
    }
    let opt_time = peers
        .iter()
        .map(|(_, time, _)| *time)
        .min()
        .unwrap_or_default();
    if let Some(limit) = shape.against_cp {
        let copy = dir.join("cp.ll");
        // The best of the runs of a command that copies `input` to `copy` (a new command each
        // run: `arg` appends).
        let time_copy = |program: &str, args: &[&str]| {
            best_of(FMTSTR_RUNS, || {
                clear_for_run(&copy)?;
                run_measured(Command::new(program).args(args).arg(input).arg(&copy))
            })
            .map(|(time, _)| time)
        };
        let cp_time = time_copy("cp", &[])?;
        let times = ours_time.as_secs_f64() / cp_time.as_secs_f64();
        println!(
            "cp:              {:.3} s; fmtstr takes {times:.1}x cp's time (target <= {limit}x)",
            cp_time.as_secs_f64()
        );
        let _ = write!(line, "; {times:.1}x cp (target <= {limit}x)");
        if times > limit {
            eprintln!("warning: above target (fmtstr <= {limit}x the time of cp)");
        }
        // fmtstr syncs its output before the rename (a crash after exit 0 leaves no empty
        // file), which cp does not: the same copy made as durable, for scale.
        let durable = time_copy("sh", &["-c", "cp \"$1\" \"$2\" && sync \"$2\"", "sh"])?;
        let durable_times = ours_time.as_secs_f64() / durable.as_secs_f64();
        println!(
            "cp, then sync of the copy: {:.3} s; fmtstr takes {durable_times:.1}x its time",
            durable.as_secs_f64()
        );
        let _ = write!(line, " ({durable_times:.1}x cp and sync)");
    }
    let (idle, _) = idle_runs(fmtstr, input, &ours_out, true)?;
    let (idle_4k, peak_4k) = idle_runs(fmtstr, input, &ours_out, false)?;
    let opt_secs = opt_time.as_secs_f64();
    let peak_4k_ratio = peak_4k as f64 / size as f64;
    println!(
        "after {} s idle (median of {IDLE_RUNS}): fmtstr {:.3} s ({:.1}x faster than the faster \
         opt); without huge pages (MIMALLOC_ALLOW_THP=0) {:.3} s ({:.1}x), peak RSS {:.1} MB \
         ({peak_4k_ratio:.2}x the file)",
        IDLE.as_secs(),
        idle.as_secs_f64(),
        opt_secs / idle.as_secs_f64(),
        idle_4k.as_secs_f64(),
        opt_secs / idle_4k.as_secs_f64(),
        mb(peak_4k)
    );
    let _ = write!(
        line,
        "; after idle {:.1}x, without huge pages {:.1}x and peak {peak_4k_ratio:.2}x the file",
        opt_secs / idle.as_secs_f64(),
        opt_secs / idle_4k.as_secs_f64()
    );
    let as_run = cli_phases(fmtstr, input, &ours_out, PHASE_RUNS)?;
    let ratio = as_run.lowering_per_parse();
    let target = shape
        .lowering_per_parse
        .map_or(String::new(), |limit| format!(" (target <= {limit}x)"));
    println!(
        "fmtstr's phases as it runs (`fmtstr lower --time-phases`, each the fastest of {PHASE_RUNS} runs):\n{}\n  lowering (extract + plan + apply) = {ratio:.2}x parse{target}",
        phases_line(&as_run.rows())
    );
    let _ = write!(line, "; lowering {ratio:.2}x parse{target}");
    if let Some(limit) = shape.lowering_per_parse.filter(|&limit| ratio > limit) {
        eprintln!("warning: above target (lowering <= {limit}x parse)");
    }
    let warm = fastest_phases(input, PHASE_RUNS)?;
    println!(
        "the same in this process, parsed again after freeing (the allocator's memory comes \
         back without page faults), each the fastest of {PHASE_RUNS} runs:\n{}\n  lowering \
         (extract + plan + apply) = {:.2}x parse",
        warm.phases_line(),
        warm.lowering_per_parse()
    );
    Ok(line)
}

/// Removes a run's output file if there is one, so that replacing it does not land in the
/// run's time, and syncs the disks, so that no writeback of the input or of the last output
/// does either.
fn clear_for_run(output: &Path) -> anyhow::Result<()> {
    match std::fs::remove_file(output) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e.into()),
        _ => {}
    }
    measure::sync_disks();
    Ok(())
}

/// How long the machine is left idle before each run of [`idle_runs`]: a guest that reports
/// free memory to its host does so 2 s after it is freed (Linux's page reporting delay).
const IDLE: Duration = Duration::from_secs(3);
const IDLE_RUNS: usize = 3;

/// The median time of [`IDLE_RUNS`] runs of `fmtstr lower`, each after [`IDLE`] without work,
/// as a build runs it once per module, and the largest peak memory of them (bytes);
/// `huge_pages: false` turns mimalloc's huge pages off.
fn idle_runs(
    fmtstr: &Path,
    input: &Path,
    output: &Path,
    huge_pages: bool,
) -> anyhow::Result<(Duration, u64)> {
    let mut times = Vec::with_capacity(IDLE_RUNS);
    let mut peak = 0;
    for _ in 0..IDLE_RUNS {
        clear_for_run(output)?;
        std::thread::sleep(IDLE);
        let mut command = Command::new(fmtstr);
        command
            .args(["lower", "--target", "nvptx"])
            .arg(input)
            .arg("-o")
            .arg(output);
        if !huge_pages {
            command.env("MIMALLOC_ALLOW_THP", "0");
        }
        let (time, rss) = run_measured(&mut command)?;
        times.push(time);
        peak = peak.max(rss);
    }
    times.sort();
    Ok((times[IDLE_RUNS / 2], peak))
}

/// Phases on one line, `  read 1.7 ms, parse 20.8 ms, ...`, as [`Split::parse`] reads them.
fn phases_line(rows: &[(&str, Duration)]) -> String {
    let parts: Vec<String> = rows
        .iter()
        .map(|(name, time)| format!("{name} {:.1} ms", time.as_secs_f64() * 1000.0))
        .collect();
    format!("  {}", parts.join(", "))
}

/// Each phase's fastest of `runs` runs of `fmtstr lower --time-phases`: each a new process,
/// whose memory the kernel hands out fresh, as a user's run gets it.
fn cli_phases(
    fmtstr: &Path,
    input: &Path,
    output: &Path,
    runs: usize,
) -> anyhow::Result<PhaseTimes> {
    let mut best: Option<PhaseTimes> = None;
    for _ in 0..runs.max(1) {
        clear_for_run(output)?;
        let ran = Command::new(fmtstr)
            .args(["lower", "--target", "nvptx", "--time-phases"])
            .arg(input)
            .arg("-o")
            .arg(output)
            .output()
            .with_context(|| format!("cannot run {}", fmtstr.display()))?;
        let stderr = String::from_utf8_lossy(&ran.stderr);
        if !ran.status.success() {
            bail!("fmtstr lower --time-phases failed: {}", stderr.trim());
        }
        let run = PhaseTimes::from_table(&stderr).with_context(|| {
            format!("fmtstr lower --time-phases printed no phase table: {stderr}")
        })?;
        best = Some(match best {
            Some(best) => best.fastest(run),
            None => run,
        });
    }
    best.context("no runs")
}

/// fmtstr's time per phase, as the CLI spends it.
struct Split {
    read: Duration,
    parse: Duration,
    lowering: fmtstr_lower::Phases,
    print: Duration,
    write: Duration,
}

impl Split {
    /// The split from its first printed line (`  read 1.7 ms, parse 20.8 ms, ...`), as
    /// another build prints it.
    fn parse(line: &str) -> Option<Split> {
        let mut ms = std::collections::HashMap::new();
        for part in line.trim().split(", ") {
            let mut words = part.split(' ');
            let (name, value, unit) = (words.next()?, words.next()?, words.next()?);
            if unit != "ms" {
                return None;
            }
            ms.insert(
                name,
                Duration::from_secs_f64(value.parse::<f64>().ok()? / 1000.0),
            );
        }
        let mut take = |name: &str| ms.remove(name);
        Some(Split {
            read: take("read")?,
            parse: take("parse")?,
            lowering: fmtstr_lower::Phases {
                extract: take("extract")?,
                plan: take("plan")?,
                apply: take("apply")?,
            },
            print: take("print")?,
            write: take("write")?,
        })
    }
}

impl Split {
    /// The phases on one line.
    fn phases_line(&self) -> String {
        phases_line(&[
            ("read", self.read),
            ("parse", self.parse),
            ("extract", self.lowering.extract),
            ("plan", self.lowering.plan),
            ("apply", self.lowering.apply),
            ("print", self.print),
            ("write", self.write),
        ])
    }

    fn lowering_per_parse(&self) -> f64 {
        let lowering = self.lowering.extract + self.lowering.plan + self.lowering.apply;
        lowering.as_secs_f64() / self.parse.as_secs_f64().max(1e-9)
    }
}

impl std::fmt::Display for Split {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}\n  lowering (extract + plan + apply) = {:.2}x parse",
            self.phases_line(),
            self.lowering_per_parse()
        )
    }
}

/// `bench lower-phases`: fmtstr's phases on one module, each the fastest of `runs`
/// in-process runs (a change to one phase shows there, where whole runs on a noisy machine
/// hide it).
pub fn run_phases(input: &Path, runs: usize) -> anyhow::Result<()> {
    let split = fastest_phases(input, runs)?;
    println!(
        "{}: fastest of {runs} runs, per phase:\n{split}",
        input.display()
    );
    Ok(())
}

/// `bench lower-phases --vs OTHER`: this build and another build's xtask take turns,
/// `rounds` times, each `runs` runs a turn; each phase's fastest over all turns, side by
/// side. A comparison made minutes apart on this machine shows changes that are not there
/// (one binary's apply phase moves by a fifth between minutes); turns share the moments.
pub fn run_phases_vs(input: &Path, runs: usize, other: &Path, rounds: usize) -> anyhow::Result<()> {
    let mut ours: Option<Split> = None;
    let mut theirs: Option<Split> = None;
    for _ in 0..rounds.max(1) {
        ours = Some(fastest(ours, fastest_phases(input, runs)?));
        let printed = Command::new(other)
            .args(["bench", "lower-phases"])
            .arg(input)
            .args(["--runs", &runs.to_string()])
            .output()
            .with_context(|| format!("cannot run {}", other.display()))?;
        let text = String::from_utf8_lossy(&printed.stdout);
        let split = text.lines().find_map(Split::parse).with_context(|| {
            format!(
                "{} printed no phases (is it an xtask binary?): {}",
                other.display(),
                String::from_utf8_lossy(&printed.stderr).trim()
            )
        })?;
        theirs = Some(fastest(theirs, split));
    }
    if let (Some(ours), Some(theirs)) = (ours, theirs) {
        let lowering = |s: &Split| s.lowering.extract + s.lowering.plan + s.lowering.apply;
        println!(
            "{}: {rounds} rounds of {runs} runs each, fastest per phase\nthis build:\n{ours}\n{}:\n{theirs}\n  lowering: this build takes {:.2}x the other's time",
            input.display(),
            other.display(),
            lowering(&ours).as_secs_f64() / lowering(&theirs).as_secs_f64().max(1e-9)
        );
    }
    Ok(())
}

/// Each phase's fastest of `runs` in-process runs.
fn fastest_phases(input: &Path, runs: usize) -> anyhow::Result<Split> {
    let dir = tempfile::Builder::new()
        .prefix("fmtstr-bench-lower-phases-")
        .tempdir()
        .context("cannot create a temporary directory")?;
    let output = dir.path().join("fmtstr.ll");
    let mut best = None;
    for _ in 0..runs.max(1) {
        best = Some(fastest(best, phases(input, &output, 1)?));
    }
    best.context("no run")
}

/// Each phase's faster of `best` (if any) and `split`.
fn fastest(best: Option<Split>, split: Split) -> Split {
    match best {
        None => split,
        Some(b) => Split {
            read: b.read.min(split.read),
            parse: b.parse.min(split.parse),
            lowering: fmtstr_lower::Phases {
                extract: b.lowering.extract.min(split.lowering.extract),
                plan: b.lowering.plan.min(split.lowering.plan),
                apply: b.lowering.apply.min(split.lowering.apply),
            },
            print: b.print.min(split.print),
            write: b.write.min(split.write),
        },
    }
}

/// The best of `runs` in-process runs, by total time.
fn phases(input: &Path, output: &Path, runs: usize) -> anyhow::Result<Split> {
    let mut best: Option<(Duration, Split)> = None;
    for _ in 0..runs {
        let _ = std::fs::remove_file(output);
        measure::sync_disks();
        let started = Instant::now();
        let text = fmtstr_cli::files::read_module(input)?;
        let read = started.elapsed();
        let threads = fmtstr_ir::default_threads();
        let text_len = text.len() as u64;
        let parsing = Instant::now();
        let mut shards = Module::parse_shards_where(
            &input.display().to_string(),
            text,
            threads,
            &fmtstr_lower::printf_filter(),
        )
        .map_err(|e| anyhow::anyhow!("{e}"))?;
        let parse = parsing.elapsed();
        let lowered = lower_shards(&mut shards, &Options::new(Target::nvptx()))
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        let printing = Instant::now();
        let mut printed = Vec::new();
        Module::write_shards(&shards, &mut printed)?;
        let print = printing.elapsed();
        let writing = Instant::now();
        fmtstr_cli::files::write_atomically_sized(output, text_len, |w| w.write_all(&printed))?;
        let write = writing.elapsed();
        let total = started.elapsed();
        // Freeing is not timed: the CLI leaves it to the process's end.
        drop((shards, printed));
        let split = Split {
            read,
            parse,
            lowering: lowered.phases,
            print,
            write,
        };
        if best.as_ref().is_none_or(|(t, _)| total < *t) {
            best = Some((total, split));
        }
    }
    best.map(|(_, split)| split).context("no runs")
}

/// C source of `functions` small functions; `share` of them print (one or two calls each).
fn c_source(functions: usize, share: f64) -> String {
    let mut out = String::from(
        "/* fmtstr bench lower: small functions with printf in loops and switches */\n\
         int printf(const char *, ...);\n\
         struct point { int x; int y; double w; };\n",
    );
    for f in 0..functions {
        // Spread the printing functions evenly (a multiplicative hash of the index).
        let prints = (((f * 7919) % 1000) as f64) < share * 1000.0;
        let _ = writeln!(
            out,
            "int work{f}(int n, const int *a, struct point *p, double s) {{\n  int acc = {f};\n  \
             for (int i = 0; i < n; ++i) {{\n    acc += a[i] * {};",
            f % 13 + 1
        );
        if prints {
            let _ = writeln!(
                out,
                "    if (acc % {} == 0) printf(\"work{f}: i=%d acc=%d s=%f\\n\", i, acc, s);",
                f % 17 + 3
            );
        }
        out.push_str("  }\n  switch (acc & 3) {\n  case 0: p->x += acc; break;\n");
        if prints && f % 2 == 0 {
            let _ = writeln!(
                out,
                "  case 1: printf(\"work{f}: point %d,%d w=%g tag=%ld\\n\", p->x, p->y, p->w, (long)n); break;"
            );
        } else {
            out.push_str("  case 1: p->y -= acc; break;\n");
        }
        let _ = writeln!(
            out,
            "  case 2: p->w *= s; break;\n  default: acc ^= {f};\n  }}\n  return acc;\n}}"
        );
    }
    out
}

/// clang-19's nvptx64 IR of `source` at -O2 with `flags`, compiled once into `cache`.
/// Refused with fewer than `min_calls` printf calls.
fn compile_c(
    clang: &Path,
    cache: &Path,
    source: &str,
    flags: &[&str],
    min_calls: usize,
) -> anyhow::Result<PathBuf> {
    let key = xxhash_rust::xxh3::xxh3_64(format!("{source}\0{flags:?}").as_bytes());
    let output = cache.join(format!("shape-{key:016x}.ll"));
    if output.is_file() {
        return Ok(output);
    }
    let c = cache.join(format!("shape-{key:016x}.c"));
    std::fs::write(&c, source)?;
    let partial = cache.join(format!("shape-{key:016x}.ll.partial"));
    eprintln!(
        "compiling a bench shape with clang-19 {} (once)",
        flags.join(" ")
    );
    process::run(
        Command::new(clang)
            .args([
                "--target=nvptx64-nvidia-cuda",
                "-O2",
                "-fno-builtin-printf",
                "-S",
                "-emit-llvm",
            ])
            .args(flags)
            .arg(&c)
            .arg("-o")
            .arg(&partial),
    )?;
    let text = std::fs::read(&partial)?;
    let calls = count(&text, b"call i32 (ptr, ...) @printf(");
    if calls < min_calls {
        bail!("clang's module has only {calls} printf calls (at least {min_calls} wanted)");
    }
    std::fs::rename(&partial, &output)?;
    Ok(output)
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
