//! `cargo xtask`: everything that is not `cargo test`.
//!
//! Each task is a module of its own; this file only parses the command line.

use clap::{Parser, Subcommand};
use fmtstr_oracles::Llvm;

mod bench_audit;
mod bench_decode;
mod bench_elf;
mod bench_format;
mod bench_ir;
mod bench_lower;
mod capi;
mod ci;
mod cli_docs;
mod corpus;
mod corpus_llvm;
mod demo;
mod demo_story;
mod device_check;
mod fuzz;
mod layout;
mod llvm_source;
mod measure;
mod oracles;
mod process;
mod samples;
mod spirv_samples;
mod wheel;

#[derive(Parser)]
#[command(about = "fmtstr's developer tasks", long_about = None)]
struct Cli {
    #[command(subcommand)]
    task: Task,
}

#[derive(Subcommand)]
enum Task {
    /// Set up (the oracles) and run the bundled sample end to end against C's printf.
    Demo,
    /// fmtstr's NVPTX lowering on a real GPU against nvcc's and glibc's printf: `prepare`
    /// here, run `target/device-check/run.sh` where a GPU is, then `compare` what it wrote.
    DeviceCheck {
        #[command(subcommand)]
        step: DeviceStep,
    },
    /// Install LLVM 19 and 22, NVIDIA's nvcc/ptxas wheels and the SARIF schema and sarif-tools
    /// (idempotent), then prove each tool runs.
    Oracles,
    /// What CI runs: fmt check, clippy -D warnings, the oracles, every test (with CI=true).
    Ci,
    /// Regenerate the bundled samples from their sources with the real tools.
    Samples,
    /// Build the IR corpus (clang-19 over samples/c at several targets and levels) into target/corpus.
    Corpus {
        /// Also judge LLVM's own test modules, each release's with its own llvm-as (verdicts
        /// cached in target/corpus-llvm/verdicts.tsv, verdicts-22.tsv); fetches the test trees
        /// first when they are missing.
        #[arg(long)]
        llvm_tests: bool,
        /// The LLVM release whose tests --llvm-tests judges (19 or 22; default both).
        #[arg(long, value_parser = parse_llvm, requires = "llvm_tests")]
        llvm: Option<Llvm>,
    },
    /// Fuzz every reader and renderer with libFuzzer (nightly; installs cargo-fuzz if missing).
    Fuzz {
        /// Seconds per target (default 60, or no limit with --runs).
        #[arg(long)]
        seconds: Option<u64>,
        /// Executions per target (libFuzzer's -runs): `--runs 10000000` is a full campaign.
        #[arg(long)]
        runs: Option<u64>,
        /// Targets run at the same time (one core each).
        #[arg(long, default_value_t = 1)]
        jobs: usize,
        /// libFuzzer's sanitizer: none, address, ...
        #[arg(long, default_value = "none")]
        sanitizer: String,
        /// libFuzzer's random seed, for a run that repeats (default: a new one each run).
        #[arg(long)]
        seed: Option<u32>,
        /// Targets to run (default: all).
        targets: Vec<String>,
    },
    /// Fetch LLVM's own test trees (Debian's llvm-toolchain-19 and -22 source packages) into
    /// target/.
    LlvmSource {
        /// Only this release's (19 or 22; default both).
        #[arg(long, value_parser = parse_llvm)]
        llvm: Option<Llvm>,
    },
    /// Benchmarks, each against a real peer in the same invocation.
    Bench {
        #[command(subcommand)]
        which: Bench,
    },
    /// Build the Python wheel (maturin, in target/python-venv); --test runs its pytest suite.
    Wheel {
        #[arg(long)]
        test: bool,
    },
    /// Check the codebase's shape: no import cycle between a crate's modules, no source file
    /// over 1,500 lines without a written reason.
    Layout,
    /// Regenerate fmtstr's man pages (doc/man) and shell completions (doc/completions);
    /// --check: fail when the checked-in copies are stale.
    Man {
        #[arg(long)]
        check: bool,
    },
    /// The C library: its header, install tree and tests.
    Capi {
        #[command(subcommand)]
        which: Capi,
    },
}

#[derive(Subcommand)]
enum Capi {
    /// Generate crates/fmtstr-capi/include/fmtstr.h with cbindgen (--check: fail if stale).
    Header {
        #[arg(long)]
        check: bool,
    },
    /// Build libfmtstr and install lib/, include/ and lib/pkgconfig/fmtstr.pc under PREFIX.
    Install {
        #[arg(long, value_name = "PREFIX")]
        prefix: Option<std::path::PathBuf>,
    },
    /// C and C++ programs (gcc, clang-19; shared, static) against the CLI, and valgrind.
    Test,
}

#[derive(Subcommand)]
enum DeviceStep {
    /// Builds the kernels, the runner and the expected text into target/device-check.
    Prepare,
    /// Compares the outputs run.sh wrote into DIR.
    Compare {
        /// Where run.sh wrote its outputs.
        dir: std::path::PathBuf,
    },
}

#[derive(Subcommand)]
enum Bench {
    /// fmtstr's pre-parsed renderer against glibc snprintf on a million mixed entries.
    Format {
        /// Number of entries to render.
        #[arg(long, default_value_t = 1_000_000)]
        entries: usize,
    },
    /// `fmtstr decode` (1 job and all cores) against a C decoder that works like the AMD driver's.
    Decode,
    /// `fmtstr audit` against `llvm-readobj --notes` of LLVM 19 and 22 over two generated
    /// shader caches, in wall and CPU time.
    Audit,
    /// `fmtstr merge` of two million-string ELFs, and every table command at two sizes.
    Elf,
    /// fmtstr-ir parse + print against `opt-19 -S` on a large module.
    Ir,
    /// `fmtstr lower --target nvptx` against opt-19's expand-variadics on 100,000 printf calls.
    Lower,
    /// fmtstr lower's phases (read, parse, extract, plan, apply, print, write) on one module,
    /// in this process, each the fastest of several runs: to see a change to one phase.
    LowerPhases {
        /// The module (.ll).
        input: std::path::PathBuf,
        /// How many runs to take each phase's fastest of (per round with --vs).
        #[arg(long, default_value_t = 10)]
        runs: usize,
        /// Another build's xtask binary (say, main's before a change, built into its own
        /// target directory): its `bench lower-phases` and this one's take turns, round by
        /// round, so that both meet the same moments of a noisy machine.
        #[arg(long, value_name = "XTASK")]
        vs: Option<std::path::PathBuf>,
        /// How many turns each takes with --vs.
        #[arg(long, default_value_t = 6)]
        rounds: usize,
    },
}

// The fmtstr binary's allocator: `bench lower` times fmtstr's phases in this process.
/// `--llvm N`: a release fmtstr knows.
fn parse_llvm(text: &str) -> Result<Llvm, String> {
    text.parse().ok().and_then(Llvm::from_major).ok_or_else(|| {
        let known: Vec<String> = Llvm::ALL.iter().map(|l| l.major().to_string()).collect();
        format!("expected one of {}", known.join(", "))
    })
}

/// The releases a task works on: the one named, else all.
fn releases(llvm: Option<Llvm>) -> Vec<Llvm> {
    llvm.map_or_else(|| Llvm::ALL.to_vec(), |llvm| vec![llvm])
}

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> anyhow::Result<()> {
    match Cli::parse().task {
        Task::Demo => demo::run(),
        Task::DeviceCheck { step } => match step {
            DeviceStep::Prepare => device_check::prepare(),
            DeviceStep::Compare { dir } => device_check::compare(&dir),
        },
        Task::Oracles => oracles::run(),
        Task::Ci => ci::run(),
        Task::Samples => samples::run().and_then(|()| spirv_samples::run()),
        Task::Corpus { llvm_tests, llvm } => {
            corpus::run()?;
            if llvm_tests {
                corpus_llvm::run(&releases(llvm))?;
            }
            Ok(())
        }
        Task::LlvmSource { llvm } => llvm_source::run(&releases(llvm)),
        Task::Fuzz {
            seconds,
            runs,
            jobs,
            sanitizer,
            seed,
            targets,
        } => fuzz::run(&fuzz::Options {
            limit: fuzz::Limit::new(seconds, runs),
            jobs,
            targets,
            sanitizer,
            seed,
        }),
        Task::Wheel { test } => wheel::run(test),
        Task::Man { check } => cli_docs::run(check),
        Task::Layout => layout::run(),
        Task::Capi { which } => match which {
            Capi::Header { check } => capi::header(check),
            Capi::Install { prefix } => capi::install(prefix).map(drop),
            Capi::Test => capi::test(),
        },
        Task::Bench { which } => match which {
            Bench::Format { entries } => bench_format::run(entries),
            Bench::Decode => bench_decode::run(),
            Bench::Audit => bench_audit::run(),
            Bench::Elf => bench_elf::run(),
            Bench::Ir => bench_ir::run(),
            Bench::Lower => bench_lower::run(),
            Bench::LowerPhases {
                input,
                runs,
                vs: None,
                ..
            } => bench_lower::run_phases(&input, runs),
            Bench::LowerPhases {
                input,
                runs,
                vs: Some(other),
                rounds,
            } => bench_lower::run_phases_vs(&input, runs, &other, rounds),
        },
    }
}
