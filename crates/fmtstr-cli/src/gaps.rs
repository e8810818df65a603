//! `fmtstr gaps`: the prints a `--prefix seq` run lost.

use std::path::PathBuf;

use anyhow::Context;
use fmtstr_tools::gaps::{find_gaps, Gaps};
use serde::Serialize;

use crate::output::{print, print_json};
use crate::Outcome;

/// Find the prints missing from the output of a run lowered with `fmtstr lower --prefix seq`.
///
/// Every print of such a run took the next number of one counter (`[#12 ...]`), from 0 after
/// the counter was reset. LOG is what the run printed (CUDA's stdout, or `fmtstr decode`'s
/// output), in any order. The numbers from 0 to the highest seen that LOG lacks were lost:
/// CUDA's printf FIFO overwrote them (it keeps the newest, so the first ones go), or an AMD
/// buffer ran full. They are listed as ranges, with the count; numbers seen more than once
/// are listed too (a line printed or captured twice). Prints after the highest number seen
/// cannot be told from none. Exit 1 when prints were lost; exit 2 when no line carries a
/// number (a run lowered without seq, or not a log).
///
/// With --report R.json (what `fmtstr lower --report-json` wrote for the module), the output
/// says how large cudaLimitPrintfFifoSize would have had to be, at least: every print the
/// run made times the largest argument buffer of any call.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  fmtstr lower --target nvptx --prefix seq,block,thread k.ll -o k.seq.ll --report-json r.json
  ./app > run.log && fmtstr gaps run.log --report r.json
  fmtstr decode buffer.bin --elf p.elf | fmtstr gaps -

  run.log: 7990 numbered lines, #0 to #9999: 2010 missing, 0 repeated
    missing: #0-#2009
    cudaLimitPrintfFifoSize: at least 480000 bytes (10000 prints x 48 bytes, the largest call)

JSON output follows schemas/gaps.schema.json.")]
pub struct Args {
    /// The captured output (`-`: stdin).
    #[arg(value_name = "LOG")]
    log: PathBuf,
    /// The module's report (`fmtstr lower --report-json`), to size CUDA's printf FIFO.
    #[arg(long, value_name = "R.json")]
    report: Option<PathBuf>,
    /// Print JSON (schemas/gaps.schema.json) instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct Report<'a> {
    file: String,
    #[serde(flatten)]
    gaps: &'a Gaps,
    #[serde(skip_serializing_if = "Option::is_none")]
    fifo_bytes: Option<u64>,
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let name = fmtstr_fs::input::name_of(&args.log);
    let log = fmtstr_fs::Input::read(&args.log)?;
    let gaps = find_gaps(log.bytes());
    if gaps.highest.is_none() {
        // Nothing to judge: a log of a run lowered without seq, or not a log at all.
        anyhow::bail!("{}", gaps.to_text(&name).trim_end());
    }
    let largest = match &args.report {
        Some(path) => Some(largest_call(path)?),
        None => None,
    };
    let fifo_bytes = largest.map(|bytes| gaps.prints().saturating_mul(bytes));
    if args.json {
        print_json(&Report {
            file: name,
            gaps: &gaps,
            fifo_bytes,
        })?;
    } else {
        let mut text = gaps.to_text(&name);
        if let (Some(bytes), Some(largest)) = (fifo_bytes, largest) {
            text.push_str(&format!(
                "  cudaLimitPrintfFifoSize: at least {bytes} bytes ({} prints x {largest} bytes, \
                 the largest call)\n",
                gaps.prints()
            ));
        }
        print(text)?;
    }
    Ok(if gaps.lost() {
        Outcome::Findings
    } else {
        Outcome::Clean
    })
}

/// The largest `bytes` of any call in a `--report-json` file.
fn largest_call(path: &std::path::Path) -> anyhow::Result<u64> {
    let bytes = fmtstr_fs::Input::read(path)?.into_bytes();
    let json: serde_json::Value = serde_json::from_slice(&bytes)
        .with_context(|| format!("{} is not JSON", path.display()))?;
    let calls = json["calls"].as_array().with_context(|| {
        format!(
            "{} is not a `fmtstr lower --report-json` report (schemas/lower-report.schema.json): \
             it has no \"calls\"",
            path.display()
        )
    })?;
    Ok(calls
        .iter()
        .filter_map(|call| call["bytes"].as_u64())
        .max()
        .unwrap_or(0))
}
