//! `fmtstr lower`: rewrite the printf calls of an LLVM IR module for a GPU target.
//!
//! The command reads a module (text, or bitcode through `llvm-dis`), runs the lowering of
//! `fmtstr_lower`, prints every diagnostic on stderr and writes the module (stdout, or a file
//! replaced atomically). A module without printf calls is written back byte for byte.

use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use clap::ValueEnum;
use fmtstr_ir::{Module, Shard, SourceText};
use fmtstr_lower::{lower_shards, Failed, Layout, LgcForm, Options, Stage, Target};

use crate::nvptx_config::NvptxArgs;
use crate::Outcome;
use fmtstr_fs::input::Owned;
use fmtstr_fs::Outputs;

/// Lower the printf calls of an LLVM IR module for a GPU target.
///
/// nvptx: each printf becomes CUDA's vprintf(fmt, buf), with the arguments packed at natural
/// alignment in one per-function buffer (%vprintfBuffer.local), as nvcc does. amdgpu: each
/// printf becomes LLPC's lgc.debug.printf (--stage lgc: today's form `(ptr @fmt, args...)` by
/// default, the older `(ptr addrspace(7) %buf, ptr addrspace(4) @fmt, args...)` with
/// --lgc-form buffer-first), or the AMD printf-buffer protocol itself with an
/// amdpal.format_strings table in the module's PAL metadata (--stage buffer, which also reads
/// both lgc.debug.printf forms; a poison/undef buffer operand drops the call, as LLPC does).
///
/// Diagnostics name file:line:column of the call in IN. Format/argument mismatches are
/// -Wformat warnings; --Werror turns every warning into an error. Nothing is written when
/// there is an error.
///
/// nvptx refuses (an error) a function that needs a vprintf buffer and carries ssp,
/// sspstrong or sspreq: NVPTX has no stack protector, and llc-19 cannot compile one around
/// the buffer. The attributes are left as their author wrote them; compile for NVPTX with
/// -fno-stack-protector (clang does not add them for nvptx64 targets).
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  clang-19 --target=nvptx64-nvidia-cuda -x c -O1 -fno-builtin-printf -S -emit-llvm k.c -o k.ll
  fmtstr lower --target nvptx k.ll -o k.vprintf.ll
  llc-19 -march=nvptx64 -mcpu=sm_90 k.vprintf.ll -o k.ptx          then ptxas, or load it

  fmtstr lower --target amdgpu k.ll -o k.lgc.ll                     lgc.debug.printf for LLPC
  fmtstr lower --target amdgpu --lgc-form buffer-first k.ll         LLPC before mid 2024
  fmtstr lower --target amdgpu --stage buffer --emit-strings k.json k.ll -o k.buf.ll
  llc-19 -mtriple=amdgcn--amdpal -mcpu=gfx1100 -filetype=obj k.buf.ll -o k.elf
  fmtstr dump k.elf                                                 the format strings it carries

  fmtstr lower --target nvptx --Werror - < k.ll > k.out.ll         stdin to stdout; warnings fail
  fmtstr lower --target nvptx --layout slot32 k.ll                 one 32-byte slot per argument

  fmtstr lower --target nvptx --prefix block,thread k.ll           each line says who printed it
  fmtstr lower --target nvptx --prefix site k.ll                    ... and where: [k.cu:7:5] x=...
  fmtstr lower --target nvptx --prefix seq k.ll                     numbered: [#12] x=...
  fmtstr lower --target nvptx --only 'block==0,0,0' k.ll           only block 0,0,0 prints
  fmtstr lower --target nvptx --report k.ll -o k.out.ll             bytes per call and per function
  fmtstr lower --target nvptx --time-phases k.ll -o k.out.ll        where the time went
  fmtstr lower --pass strip k.ll -o k.release.ll                    printf compiled out (any target)
  fmtstr lower --pass struct-args k.ll -o k.sa.ll                   byval structs read in place
  fmtstr abi k.sa.ll                                                the .param plan llc will follow

Exit codes:
  0  lowered (warnings, if any, on stderr)
  1  --Werror and there were warnings; nothing written
  2  errors (unsupported form, format not a constant string, ...) or bad usage; nothing written")]
pub struct Args {
    /// The module to lower: .ll text, or .bc bitcode (needs llvm-dis); `-` reads stdin.
    #[arg(value_name = "IN")]
    input: PathBuf,
    /// Where to write the lowered module (`-` or absent: stdout). A file is replaced atomically,
    /// together with --emit-strings and --report-json: all are written, or none.
    #[arg(short, long, value_name = "OUT")]
    output: Option<PathBuf>,
    /// Replace output files that you may not write (say, mode 444) when their directory
    /// allows it; without --force such a file is left as it is (exit 2).
    #[arg(long)]
    force: bool,
    /// The pass to run.
    #[arg(long, value_enum, default_value_t = PassArg::Printf)]
    pass: PassArg,
    /// The GPU to lower printf for (struct-args is NVPTX only and needs none).
    #[arg(long, value_enum)]
    target: Option<TargetArg>,
    /// struct-args: the SM version and whether llc optimizes byval parameters (opt-byval),
    /// shared with `fmtstr abi`.
    #[command(flatten)]
    nvptx: NvptxArgs,
    /// amdgpu: lgc writes lgc.debug.printf calls (LLPC lowers them later); buffer writes the
    /// printf-buffer protocol itself and the amdpal.format_strings table.
    #[arg(long, value_enum)]
    stage: Option<StageArg>,
    /// nvptx: natural packs arguments at their natural alignment, which is what the CUDA driver
    /// reads; slot32 gives every argument a 32-byte slot, a layout the CUDA driver does NOT
    /// read (for tools that expect it only).
    #[arg(long, value_enum)]
    layout: Option<LayoutArg>,
    /// amdgpu: the printf buffer's address space. 7 (default) is a buffer fat pointer from
    /// LLPC's descriptor set 0xFFFFFFF0 binding 6; any other N writes through a plain
    /// `ptr addrspace(N)` returned by `@__fmtstr_printf_buffer()` (1: global memory, for
    /// running the same protocol on NVIDIA GPUs or the host).
    #[arg(long, value_name = "N")]
    buffer_addrspace: Option<u32>,
    /// amdgpu --stage buffer: also write the format-string table as JSON, for `fmtstr embed
    /// --strings` (schemas/format-strings.schema.json).
    #[arg(long, value_name = "TABLE.json")]
    emit_strings: Option<PathBuf>,
    /// amdgpu --stage lgc: which lgc.debug.printf to write. format-first (default) is today's
    /// LLPC (since mid 2024), `(ptr @fmt, args...)`, which fetches the buffer itself;
    /// buffer-first is LLPC before mid 2024, `(ptr addrspace(7) %buf, ptr addrspace(4) @fmt,
    /// args...)`.
    #[arg(long, value_enum, value_name = "FORM")]
    lgc_form: Option<LgcFormArg>,
    /// amdgpu --stage buffer: the table's .user_data_offset, the printf buffer's user-data
    /// offset in dwords (LLPC writes the offset of its descriptor node, 0 when none). Default:
    /// the module's table's, else LLPC's from the module's !lgc.user.data.nodes, else 0;
    /// another value than the module's table has is an error.
    #[arg(long, value_name = "N")]
    user_data_offset: Option<u64>,
    /// amdgpu --stage buffer: a %s of a string computed at run time (not a literal) travels
    /// as a copy of its first N bytes (1 to 4096) in the entry: a length word, then N bytes
    /// rounded up to dwords, copied by a loop that stops at the NUL. `fmtstr decode` prints it
    /// as C would (width and precision included); a longer string is cut at N, and `decode
    /// --stats` counts the cuts. Every call of a format then copies that argument, literals
    /// too. Without it such a %s is refused.
    #[arg(long, value_name = "N")]
    runtime_strings: Option<u32>,
    /// Who printed it: prefix every call's format with the ids named, e.g. `block,thread`
    /// prints `[block 1,0,0 thread 5,0,0] ` first. Names: block (or workgroup): the block /
    /// workgroup id (nvptx %ctaid via llvm.nvvm.read.ptx.sreg.ctaid.*, amdgpu
    /// llvm.amdgcn.workgroup.id.*); thread (or local): the thread / work-item id in its group
    /// (%tid, llvm.amdgcn.workitem.id.*). The word printed is the name given, in the order
    /// given. site: where the call is, its !dbg `file:line:column` (the function's name
    /// without debug information), written into the format when the module is lowered: no
    /// argument, no buffer byte (`--prefix site,thread` prints `[k.cu:7:5 thread 5,0,0] `).
    /// seq: `#N`, the next number of one 64-bit counter, the module's global
    /// `fmtstr_printf_seq` (addrspace 1, reset by the host through its name), taken by an
    /// atomic add right before the call: `fmtstr gaps LOG` then names the prints a run lost.
    /// The prefix is part of the format string (and of the AMD table's entry), so any printf
    /// runtime and decoder prints it.
    #[arg(long, value_name = "WHAT")]
    prefix: Option<String>,
    /// Only the threads this condition matches print: each call goes behind a branch on the
    /// ids, so the others run none of it (nvptx: no vprintf; amdgpu: no buffer space taken,
    /// nothing stored). Comparisons joined by &&: NAME.AXIS OP N (AXIS x, y or z; OP ==, !=,
    /// <, <=, >, >=, unsigned) or NAME==X,Y,Z / NAME!=X,Y,Z (all three axes), NAME as for
    /// --prefix: block (or workgroup), thread (or local). E.g. `thread.x==0`, `block==0,0,0`,
    /// `workgroup.y!=2 && local.x<4`. The arguments are still computed by every thread;
    /// --report counts the bytes of a matching thread.
    #[arg(long, value_name = "CONDITION")]
    only: Option<String>,
    /// Each call site prints at most N times: the thread whose print is the first over the
    /// limit prints one line instead, `FILE:LINE: further output of this call dropped (limit
    /// N)`, and the others skip the print (nvptx: no vprintf; amdgpu: no buffer space, no
    /// stores). One i32 counter per site, in module order, in the global array
    /// `fmtstr_printf_site_counts` (addrspace 1): a host resets it through its name to let
    /// every site print N more. Works with --only and --prefix (not with --prefix seq).
    #[arg(long, value_name = "N")]
    limit_per_site: Option<u32>,
    /// Print on stderr, for every lowered call, its file:line (the program source's, from
    /// !dbg, else the .ll's), its format and its payload (nvptx: the vprintf argument buffer's
    /// bytes; amdgpu: the entry's dwords, header included), and per function the bytes one
    /// thread writes per pass through all its calls: what to size cudaLimitPrintfFifoSize or
    /// the AMD printf buffer by.
    #[arg(long)]
    report: bool,
    /// The same report as JSON in FILE (schemas/lower-report.schema.json).
    #[arg(long, value_name = "FILE")]
    report_json: Option<PathBuf>,
    /// Print on stderr, once the output is written, how long each phase took (wall clock), as
    /// LLVM's -time-passes does: read, parse, extract (finding and modelling the calls), plan
    /// (checking and laying out every call), apply (the edits), print+write (the module is
    /// printed straight into OUT). A large nvptx module is lowered in shards, one thread each:
    /// extract and plan are then the slowest shard's.
    #[arg(long)]
    time_phases: bool,
    /// Treat warnings as errors.
    #[arg(long = "Werror")]
    werror: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum PassArg {
    /// printf calls lowered for --target
    Printf,
    /// printf calls lowered for --target, and before them every failed assert()
    /// (__assert_fail from glibc's assert.h, __assertfail from CUDA's) made a printf of
    /// glibc's message, `file:line: function: Assertion `expr' failed.`, then a trap; the
    /// other options (--prefix, --only, --limit-per-site) apply to it as to any printf
    Assert,
    /// every printf and lgc.debug.printf call removed, for a release build: a used result
    /// becomes 0 with a warning, argument side effects stay, printf's declaration goes when
    /// unused, every other line is kept; needs no --target
    Strip,
    /// NVPTX byval aggregate parameters read in place from the parameter space
    StructArgs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum TargetArg {
    Nvptx,
    Amdgpu,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum StageArg {
    Lgc,
    Buffer,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum LgcFormArg {
    /// `lgc.debug.printf(ptr @fmt, args...)`: LLPC since mid 2024.
    FormatFirst,
    /// `lgc.debug.printf(ptr addrspace(7) %buf, ptr addrspace(4) @fmt, args...)`: before.
    BufferFirst,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum LayoutArg {
    Natural,
    Slot32,
}

impl Args {
    fn replace(&self) -> fmtstr_fs::Replace {
        if self.force {
            fmtstr_fs::Replace::Force
        } else {
            fmtstr_fs::Replace::IfWritable
        }
    }
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    match args.pass {
        PassArg::StructArgs => return run_struct_args(&args),
        PassArg::Strip => return run_strip(&args),
        PassArg::Printf | PassArg::Assert => {}
    }
    let target = target(&args)?;
    let reading = Instant::now();
    let (name, text, input) = read_input(&args.input)?;
    let read = reading.elapsed();
    let prefix = match &args.prefix {
        Some(text) => Some(fmtstr_lower::Prefix::parse(text)?),
        None => None,
    };
    let only = match &args.only {
        Some(text) => Some(fmtstr_lower::Condition::parse(text)?),
        None => None,
    };
    if prefix.is_some_and(|p| p.has_seq()) && (only.is_some() || args.limit_per_site.is_some()) {
        bail!(
            "--prefix seq with --only or --limit-per-site: the counter would count the prints \
             they skip too, and `fmtstr gaps` would report them lost; drop seq or the other"
        );
    }
    if args.limit_per_site == Some(0) {
        bail!("--limit-per-site 0 would print only the markers: give at least 1 (or --pass strip to print nothing)");
    }
    // These rewrite calls before lowering, on the whole module (asserts are found outside
    // the functions that mention printf too).
    let rewrites = prefix.is_some()
        || only.is_some()
        || args.limit_per_site.is_some()
        || args.pass == PassArg::Assert;
    let options = Options {
        target,
        werror: args.werror,
        prefix,
        only,
        limit_per_site: args.limit_per_site,
        asserts: args.pass == PassArg::Assert,
        runtime_strings: args.runtime_strings,
        report: args.report || args.report_json.is_some(),
    };
    // NVPTX lowering works function by function: a large module is lowered in shards, one
    // thread each. The AMD buffer stage keeps a module-wide table: one module.
    let threads = match target {
        // --prefix, --only and --limit-per-site rewrite calls before lowering, on the whole
        // module.
        Target::Nvptx { .. } if rewrites => 1,
        Target::Nvptx { .. } => std::thread::available_parallelism().map_or(1, |n| n.get().min(8)),
        Target::Amdgpu { .. } => 1,
    };
    let parsing = Instant::now();
    let mut shards = if matches!(target, Target::Nvptx { .. }) && !rewrites {
        // Only the calls to printf and what uses their results are parsed; the rest is
        // copied. (--only splits blocks: the phis of their successors must be parsed.)
        Module::parse_shards_where(&name, text, threads, &fmtstr_lower::find_printf)
    } else if threads > 1 {
        Module::parse_shards(&name, text, threads)
    } else {
        Module::parse(&name, text).map(|module| {
            vec![Shard {
                module,
                first_function: None,
            }]
        })
    }
    .map_err(|error| anyhow::anyhow!("{error}"))?;
    let parse = parsing.elapsed();
    let lowered = match lower_shards(&mut shards, &options) {
        Ok(lowered) => lowered,
        Err(failed) => return report_failure(&failed),
    };
    let mut stderr = crate::diagnostics::stderr();
    for warning in &lowered.warnings {
        let _ = writeln!(stderr, "{warning}");
    }
    drop(stderr);
    if args.report {
        let mut stderr = std::io::stderr().lock();
        let _ = stderr.write_all(report_text(target, &lowered.report).as_bytes());
        if let Some(condition) = &args.only {
            let _ = writeln!(
                stderr,
                "  (--only '{condition}': bytes per thread the condition matches; the others write none)"
            );
        }
    }
    // The side outputs wait for the module: all are written, or none.
    let mut outputs = Outputs::new();
    if let Some(path) = &args.report_json {
        let json = report_json(target, &lowered.report, args.only.as_deref());
        stage_json(&mut outputs, &args, path, &json)?;
    }
    if let Some(path) = &args.emit_strings {
        let table = lowered.strings.unwrap_or_default();
        stage_json(&mut outputs, &args, path, &table.to_json())?;
    }
    // The output is about as long as the module, and each lowered call adds some text.
    let source = shards.first().map_or(&[][..], |s| s.module.source());
    let expected = source
        .len()
        .saturating_add(lowered.calls.saturating_mul(MAX_TEXT_PER_CALL));
    let writing = Instant::now();
    if lowered.calls == 0 {
        // Nothing to lower: the module as it came.
        write_output(&args, outputs, &input, source.len(), |w| {
            w.write_all(source)
        })?;
    } else {
        write_output(&args, outputs, &input, expected, |mut w| {
            Module::write_shards(&shards, &mut w)
        })?;
    }
    if args.time_phases {
        let times = PhaseTimes {
            read,
            parse,
            lowering: lowered.phases,
            print_write: writing.elapsed(),
        };
        let _ = write!(crate::diagnostics::stderr(), "{}", times.table(&name));
    }
    // The process ends here: freeing a large module piece by piece would only cost time.
    std::mem::forget(shards);
    Ok(Outcome::Clean)
}

/// `--time-phases`: where one lowering's time went (wall clock).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PhaseTimes {
    pub read: Duration,
    pub parse: Duration,
    /// Extract, plan and apply (the slowest shard's extract and plan).
    pub lowering: fmtstr_lower::Phases,
    /// Printing the module into the output, and writing it.
    pub print_write: Duration,
}

impl PhaseTimes {
    /// Each phase's name and time, in the order they run.
    pub fn rows(&self) -> [(&'static str, Duration); 6] {
        [
            ("read", self.read),
            ("parse", self.parse),
            ("extract", self.lowering.extract),
            ("plan", self.lowering.plan),
            ("apply", self.lowering.apply),
            ("print+write", self.print_write),
        ]
    }

    /// What `--time-phases` prints: a heading that names the module, then `  NAME  MS ms`
    /// per phase, and the total.
    pub fn table(&self, name: &str) -> String {
        let rows = self.rows();
        let total: Duration = rows.iter().map(|&(_, time)| time).sum();
        let mut table = format!("fmtstr lower: phase times for {name} (wall clock)\n");
        for (phase, time) in rows.into_iter().chain([("total", total)]) {
            let _ = writeln!(table, "  {phase:<12}{:>10.2} ms", time.as_secs_f64() * 1e3);
        }
        table
    }

    /// The times from [`PhaseTimes::table`]'s text (other lines around it are skipped).
    pub fn from_table(text: &str) -> Option<PhaseTimes> {
        let ms = |name: &str| {
            text.lines().find_map(|line| {
                let mut words = line.split_whitespace();
                if words.next()? != name {
                    return None;
                }
                let value: f64 = words.next()?.parse().ok()?;
                (words.next()? == "ms" && value >= 0.0)
                    .then(|| Duration::from_secs_f64(value / 1e3))
            })
        };
        Some(PhaseTimes {
            read: ms("read")?,
            parse: ms("parse")?,
            lowering: fmtstr_lower::Phases {
                extract: ms("extract")?,
                plan: ms("plan")?,
                apply: ms("apply")?,
            },
            print_write: ms("print+write")?,
        })
    }

    /// Extract, plan and apply together, per parse time.
    pub fn lowering_per_parse(&self) -> f64 {
        let lowering = self.lowering.extract + self.lowering.plan + self.lowering.apply;
        lowering.as_secs_f64() / self.parse.as_secs_f64().max(1e-9)
    }

    /// Each phase's faster of `self` and `other`.
    pub fn fastest(self, other: PhaseTimes) -> PhaseTimes {
        PhaseTimes {
            read: self.read.min(other.read),
            parse: self.parse.min(other.parse),
            lowering: fmtstr_lower::Phases {
                extract: self.lowering.extract.min(other.lowering.extract),
                plan: self.lowering.plan.min(other.lowering.plan),
                apply: self.lowering.apply.min(other.lowering.apply),
            },
            print_write: self.print_write.min(other.print_write),
        }
    }
}

/// Where a reported call is: the program source's file:line (from `!dbg`), else the .ll's.
fn report_location(location: &fmtstr_lower::Location) -> String {
    match &location.source {
        // file:line:column -> file:line
        Some(source) => source
            .rsplit_once(':')
            .map_or(source.clone(), |(file_line, _)| file_line.to_owned()),
        None => format!("{}:{}", location.file, location.line),
    }
}

fn target_name(target: Target) -> &'static str {
    match target {
        Target::Nvptx { .. } => "nvptx",
        Target::Amdgpu { .. } => "amdgpu",
    }
}

/// `--report`: one line per call, one per function.
fn report_text(target: Target, calls: &[fmtstr_lower::CallReport]) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let unit = match target {
        Target::Nvptx { .. } => "vprintf argument buffer bytes per call",
        Target::Amdgpu { .. } => "printf-buffer entry dwords per call, header included",
    };
    let _ = writeln!(out, "printf report ({}: {unit}):", target_name(target));
    for call in calls {
        let size = match (call.dwords, call.bytes) {
            (Some(dwords), Some(bytes)) => format!("{dwords} dwords ({bytes} bytes)"),
            (None, Some(bytes)) => format!("{bytes} bytes"),
            _ => "unknown bytes (the caller packs the buffer)".to_owned(),
        };
        let _ = writeln!(
            out,
            "  {}: @{} \"{}\": {size}",
            report_location(&call.location),
            call.function,
            fmtstr_meta::escape::escape(&call.format)
        );
    }
    for f in fmtstr_lower::report::per_function(calls) {
        let _ = writeln!(
            out,
            "  @{}: {} call{}, {}{} bytes per thread per pass",
            f.function,
            f.calls,
            if f.calls == 1 { "" } else { "s" },
            if f.complete { "" } else { "at least " },
            f.bytes
        );
    }
    out
}

/// `--report-json`: schemas/lower-report.schema.json.
/// `only`: the `--only` condition as given, whose matching threads alone write the bytes.
fn report_json(
    target: Target,
    calls: &[fmtstr_lower::CallReport],
    only: Option<&str>,
) -> serde_json::Value {
    let amd = matches!(target, Target::Amdgpu { .. });
    let calls_json: Vec<serde_json::Value> = calls
        .iter()
        .map(|call| {
            let mut entry = serde_json::json!({
                "function": call.function,
                "location": report_location(&call.location),
                "ll_location": format!("{}:{}:{}", call.location.file, call.location.line, call.location.column),
                "format": String::from_utf8_lossy(&call.format),
                "bytes": call.bytes,
            });
            if amd {
                entry["dwords"] = serde_json::json!(call.dwords);
            }
            entry
        })
        .collect();
    let functions: Vec<serde_json::Value> = fmtstr_lower::report::per_function(calls)
        .into_iter()
        .map(|f| {
            serde_json::json!({
                "function": f.function,
                "calls": f.calls,
                "bytes_per_pass": f.bytes,
                "complete": f.complete,
            })
        })
        .collect();
    let mut report = serde_json::json!({
        "target": target_name(target),
        "calls": calls_json,
        "functions": functions,
    });
    if let Some(condition) = only {
        report["only"] = serde_json::json!(condition);
    }
    report
}

/// `--pass strip`: every printf and lgc.debug.printf call removed.
fn run_strip(args: &Args) -> anyhow::Result<Outcome> {
    for (given, option) in [
        (args.target.is_some(), "--target"),
        (args.stage.is_some(), "--stage"),
        (args.layout.is_some(), "--layout"),
        (args.buffer_addrspace.is_some(), "--buffer-addrspace"),
        (args.emit_strings.is_some(), "--emit-strings"),
        (args.lgc_form.is_some(), "--lgc-form"),
        (args.user_data_offset.is_some(), "--user-data-offset"),
        (args.report || args.report_json.is_some(), "--report"),
        (args.prefix.is_some(), "--prefix"),
        (args.only.is_some(), "--only"),
        (args.limit_per_site.is_some(), "--limit-per-site"),
        (args.runtime_strings.is_some(), "--runtime-strings"),
        (args.time_phases, "--time-phases"),
    ] {
        if given {
            bail!("{option} applies to --pass printf; --pass strip removes the calls for every target: drop {option}");
        }
    }
    let (name, text, input) = read_input(&args.input)?;
    let mut module = Module::parse(&name, text).map_err(|error| anyhow::anyhow!("{error}"))?;
    let stripped = fmtstr_lower::strip(&mut module).map_err(|error| {
        anyhow::anyhow!("{name}: cannot strip printf: {error}\nnothing was written")
    })?;
    let mut stderr = crate::diagnostics::stderr();
    for warning in &stripped.warnings {
        let _ = writeln!(
            stderr,
            "{}",
            if args.werror {
                warning.clone().promote()
            } else {
                warning.clone()
            }
        );
    }
    drop(stderr);
    if args.werror && !stripped.warnings.is_empty() {
        let _ = writeln!(
            crate::diagnostics::stderr(),
            "fmtstr: error: warnings treated as errors (--Werror); nothing was written"
        );
        return Ok(Outcome::Findings);
    }
    if stripped.calls == 0 {
        write_output(args, Outputs::new(), &input, module.source().len(), |w| {
            w.write_all(module.source())
        })?;
    } else {
        write_output(
            args,
            Outputs::new(),
            &input,
            module.source().len(),
            |mut w| module.write_to(&mut w),
        )?;
    }
    Ok(Outcome::Clean)
}

/// `--pass struct-args`: the rewrite of byval aggregate parameters.
fn run_struct_args(args: &Args) -> anyhow::Result<Outcome> {
    for (given, option) in [
        (args.target == Some(TargetArg::Amdgpu), "--target amdgpu"),
        (args.stage.is_some(), "--stage"),
        (args.layout.is_some(), "--layout"),
        (args.buffer_addrspace.is_some(), "--buffer-addrspace"),
        (args.emit_strings.is_some(), "--emit-strings"),
        (args.lgc_form.is_some(), "--lgc-form"),
        (args.user_data_offset.is_some(), "--user-data-offset"),
        (args.report || args.report_json.is_some(), "--report"),
        (args.prefix.is_some(), "--prefix"),
        (args.only.is_some(), "--only"),
        (args.limit_per_site.is_some(), "--limit-per-site"),
        (args.runtime_strings.is_some(), "--runtime-strings"),
        (args.time_phases, "--time-phases"),
    ] {
        if given {
            bail!("{option} applies to --pass printf, not struct-args (an NVPTX-only pass)");
        }
    }
    let (name, text, input) = read_input(&args.input)?;
    let mut module = Module::parse(&name, text).map_err(|error| anyhow::anyhow!("{error}"))?;
    let report = fmtstr_nvptx::struct_args::run(&mut module, &args.nvptx.config())
        .map_err(|error| anyhow::anyhow!("{error}\nnothing was written"))?;
    let mut stderr = std::io::stderr().lock();
    for param in &report.params {
        let _ = writeln!(stderr, "{param}");
    }
    drop(stderr);
    if report.changed() {
        write_output(
            args,
            Outputs::new(),
            &input,
            module.source().len(),
            |mut w| module.write_to(&mut w),
        )?;
    } else {
        write_output(args, Outputs::new(), &input, module.source().len(), |w| {
            w.write_all(module.source())
        })?;
    }
    Ok(Outcome::Clean)
}

/// The target the options ask for; options that do not apply to it are usage errors.
fn target(args: &Args) -> anyhow::Result<Target> {
    let Some(target) = args.target else {
        bail!("--pass printf needs --target nvptx or --target amdgpu");
    };
    match target {
        TargetArg::Nvptx => {
            for (given, option) in [
                (args.stage.is_some(), "--stage"),
                (args.buffer_addrspace.is_some(), "--buffer-addrspace"),
                (args.emit_strings.is_some(), "--emit-strings"),
                (args.lgc_form.is_some(), "--lgc-form"),
                (args.user_data_offset.is_some(), "--user-data-offset"),
                (args.runtime_strings.is_some(), "--runtime-strings"),
            ] {
                if given {
                    bail!("{option} applies to --target amdgpu, not nvptx");
                }
            }
            Ok(Target::Nvptx {
                layout: match args.layout {
                    Some(LayoutArg::Slot32) => Layout::Slot32,
                    _ => Layout::Natural,
                },
            })
        }
        TargetArg::Amdgpu => {
            if args.layout.is_some() {
                bail!("--layout applies to --target nvptx, not amdgpu");
            }
            let stage = match args.stage {
                Some(StageArg::Buffer) => Stage::Buffer,
                _ => Stage::Lgc,
            };
            if args.emit_strings.is_some() && stage != Stage::Buffer {
                bail!(
                    "--emit-strings needs --stage buffer (the lgc stage assigns no IDs yet: \
                     LLPC does that when it lowers lgc.debug.printf)"
                );
            }
            if args.lgc_form.is_some() && stage != Stage::Lgc {
                bail!(
                    "--lgc-form chooses what --stage lgc writes; --stage buffer reads both forms"
                );
            }
            if args.runtime_strings.is_some() && stage != Stage::Buffer {
                bail!(
                    "--runtime-strings needs --stage buffer (lgc.debug.printf takes no string \
                     bytes: LLPC lowers it later)"
                );
            }
            if let Some(bytes) = args.runtime_strings {
                let most = fmtstr_lower::amdgpu::inline::MAX_BYTES;
                if bytes == 0 || bytes > most {
                    bail!(
                        "--runtime-strings {bytes}: give the bytes to copy per string, 1 to {most}"
                    );
                }
            }
            if args.user_data_offset.is_some() && stage != Stage::Buffer {
                bail!("--user-data-offset needs --stage buffer (it goes into the format-string table)");
            }
            let lgc_form = match args.lgc_form {
                Some(LgcFormArg::BufferFirst) => LgcForm::BufferFirst,
                _ => LgcForm::FormatFirst,
            };
            if stage == Stage::Lgc
                && lgc_form == LgcForm::FormatFirst
                && args.buffer_addrspace.is_some()
            {
                bail!(
                    "--buffer-addrspace does not apply to today's lgc.debug.printf, which passes \
                     no buffer (LLPC fetches it); add --lgc-form buffer-first, or use --stage buffer"
                );
            }
            Ok(Target::Amdgpu {
                stage,
                buffer_addrspace: args
                    .buffer_addrspace
                    .unwrap_or(fmtstr_lower::amdgpu::FAT_POINTER_ADDRSPACE),
                lgc_form,
                user_data_offset: args.user_data_offset,
            })
        }
    }
}

/// Prints every diagnostic; errors are exit 2, warnings promoted by --Werror exit 1.
fn report_failure(failed: &Failed) -> anyhow::Result<Outcome> {
    let mut stderr = crate::diagnostics::stderr();
    for diagnostic in &failed.diagnostics {
        let _ = writeln!(stderr, "{diagnostic}");
    }
    let genuine = failed
        .diagnostics
        .iter()
        .filter(|d| d.severity == fmtstr_lower::Severity::Error)
        .count();
    if genuine > 0 {
        bail!(
            "{genuine} error{} in printf lowering; nothing was written",
            if genuine == 1 { "" } else { "s" }
        );
    }
    let _ = writeln!(
        stderr,
        "fmtstr: error: warnings treated as errors (--Werror); nothing was written"
    );
    Ok(Outcome::Findings)
}

/// The module's name for diagnostics and its text (bitcode goes through llvm-dis).
fn read_input(path: &Path) -> anyhow::Result<(String, SourceText, Owned)> {
    let stdin = fmtstr_fs::input::is_stdin(path);
    let name = fmtstr_fs::input::name_of(path);
    let (bytes, input) = read_watched(path)?;
    let bitcode = bytes.starts_with(b"BC\xC0\xDE") || bytes.starts_with(b"\xDE\xC0\x17\x0B");
    if !bitcode {
        return Ok((name, bytes, input));
    }
    let Some(llvm_dis) = find_llvm_dis() else {
        bail!(
            "{name} is LLVM bitcode, and reading bitcode needs llvm-dis (LLVM 22 or 19), which is not \
             installed: install it (`apt-get install llvm-22`, or set FMTSTR_LLVM_BINDIR), or \
             disassemble first with `llvm-dis {name} -o module.ll`"
        );
    };
    let mut command = Command::new(&llvm_dis);
    command.arg("-o").arg("-");
    let output = if stdin {
        let mut child = command
            .arg("-")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .with_context(|| format!("cannot run {}", llvm_dis.display()))?;
        let mut pipe = child.stdin.take().context("llvm-dis has no stdin")?;
        let feeder = std::thread::spawn(move || pipe.write_all(&bytes));
        let output = child.wait_with_output()?;
        let _ = feeder.join();
        output
    } else {
        command
            .arg(path)
            .output()
            .with_context(|| format!("cannot run {}", llvm_dis.display()))?
    };
    if !output.status.success() {
        bail!(
            "llvm-dis cannot read {name}:\n{}",
            String::from_utf8_lossy(&output.stderr).trim_end()
        );
    }
    Ok((name, output.stdout.into(), input))
}

/// A file's bytes (`-`: stdin). A large one is mapped, not read: copying 40 MB out of the
/// page cache into fresh memory cost fmtstr more than the whole of `cp` (the kernel zeroes
/// each fresh page first), and the lowering keeps most of the input as it is. The map is
/// guarded: a file truncated while it is lowered is an error when the output is written.
pub fn read_file(path: &Path) -> anyhow::Result<SourceText> {
    Ok(read_watched(path)?.0)
}

/// [`read_file`], and the input, which tells once the module is lowered whether its file
/// shrank underneath.
fn read_watched(path: &Path) -> anyhow::Result<(SourceText, Owned)> {
    const MAP_FROM: u64 = 8 << 20;
    let input = fmtstr_fs::Input::map_from(path, MAP_FROM, true)?.into_owned();
    Ok((SourceText::new(input.clone()), input))
}

/// llvm-dis: in `$FMTSTR_LLVM_BINDIR` when that is set (and only there), else LLVM 22's or
/// LLVM 19's (on PATH as `llvm-dis-22`/`-19`, or in Debian's `/usr/lib/llvm-N/bin`), else
/// `llvm-dis` on PATH.
fn find_llvm_dis() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("FMTSTR_LLVM_BINDIR") {
        return Some(PathBuf::from(dir).join("llvm-dis")).filter(|p| p.is_file());
    }
    // The newest first: an llvm-dis reads the bitcode of its own and every older release,
    // and fmtstr reads the text of LLVM 19 and 22 alike.
    let mut candidates = Vec::new();
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path) {
            candidates.push(dir.join("llvm-dis-22"));
            candidates.push(dir.join("llvm-dis-19"));
        }
    }
    candidates.push(PathBuf::from("/usr/lib/llvm-22/bin/llvm-dis"));
    candidates.push(PathBuf::from("/usr/lib/llvm-19/bin/llvm-dis"));
    if let Some(path) = std::env::var_os("PATH") {
        candidates.extend(std::env::split_paths(&path).map(|dir| dir.join("llvm-dis")));
    }
    candidates.into_iter().find(|p| p.is_file())
}

/// At least as many bytes as a lowered call adds to the text, so that the output file's blocks
/// are all allocated before it is written: ext4's delayed allocation otherwise lands in the
/// rename over an old output (doc/perf.md, "Writing the output"). An estimate too large costs
/// nothing: the file is cut to what was written.
const MAX_TEXT_PER_CALL: usize = 1024;

/// Writes the module to `args.output` (stdout for none or `-`; `expected`: about how many
/// bytes), then puts it and the side outputs staged in `outputs` in place, all or none, once
/// the input is known not to have shrunk while it was lowered.
fn write_output(
    args: &Args,
    mut outputs: Outputs,
    input: &Owned,
    expected: usize,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> anyhow::Result<()> {
    match args.output.as_deref() {
        Some(path) if path.as_os_str() != "-" => {
            outputs.stage(path, args.replace(), expected as u64, write)?;
        }
        _ => {
            let written = fmtstr_fs::stdout::write_with(write);
            crate::output::unread_is_fine(written).context("cannot write the module to stdout")?;
        }
    }
    input.check_unchanged()?;
    crate::output::commit(outputs)
}

/// Stages a side output (`--report-json`, `--emit-strings`): JSON and a newline.
fn stage_json(
    outputs: &mut Outputs,
    args: &Args,
    path: &Path,
    json: &serde_json::Value,
) -> anyhow::Result<()> {
    let mut bytes = serde_json::to_vec_pretty(json)?;
    bytes.push(b'\n');
    outputs.stage(path, args.replace(), bytes.len() as u64, |w| {
        w.write_all(&bytes)
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::read_file;

    #[test]
    fn files_come_back_whole_read_or_mapped() {
        let dir = tempfile::tempdir().expect("temp dir");
        for len in [0usize, 100, (8 << 20) - 1, 8 << 20, (9 << 20) + 7] {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 31 % 251) as u8).collect();
            let path = dir.path().join(format!("{len}.ll"));
            std::fs::write(&path, &bytes).expect("write");
            assert!(*read_file(&path).expect("read") == *bytes, "{len} bytes");
        }
        assert!(read_file(&dir.path().join("missing.ll")).is_err());
    }
}
