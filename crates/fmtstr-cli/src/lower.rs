//! `fmtstr lower`: rewrite the printf calls of an LLVM IR module for a GPU target.
//!
//! The command reads a module (text, or bitcode through `llvm-dis`), runs the lowering of
//! `fmtstr_lower`, prints every diagnostic on stderr and writes the module (stdout, or a file
//! replaced atomically). A module without printf calls is written back byte for byte.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use clap::ValueEnum;
use fmtstr_ir::SourceText;
use fmtstr_tools::lower::{self, LowerError, LowerOptions};

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
    /// printed straight into OUT), sync (waiting for OUT to reach the disk before it is renamed
    /// into place). A large nvptx module is lowered in shards, one thread each:
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
    let options = args.options();
    // Usage errors before the input is read.
    options.job().map_err(|error| anyhow::anyhow!("{error}"))?;
    let reading = Instant::now();
    let (name, text, input) = read_input(&args.input)?;
    let read = reading.elapsed();
    let lowered = match lower::lower(&name, text, &options) {
        Ok(lowered) => lowered,
        Err(error) => return report_error(error, args.werror),
    };
    let mut stderr = crate::diagnostics::stderr();
    for warning in &lowered.warnings {
        let _ = writeln!(stderr, "{warning}");
    }
    drop(stderr);
    if !lowered.params.is_empty() {
        let mut stderr = std::io::stderr().lock();
        for param in &lowered.params {
            let _ = writeln!(stderr, "{param}");
        }
    }
    if let (true, Some(report)) = (args.report, &lowered.report) {
        let _ = std::io::stderr().lock().write_all(report.text().as_bytes());
    }
    // The side outputs wait for the module: all are written, or none.
    let mut outputs = Outputs::new();
    if let (Some(path), Some(report)) = (&args.report_json, &lowered.report) {
        stage_json(&mut outputs, &args, path, &report.json())?;
    }
    if let Some(path) = &args.emit_strings {
        let table = lowered.strings.clone().unwrap_or_default();
        stage_json(&mut outputs, &args, path, &table.to_json())?;
    }
    let writing = Instant::now();
    let synced = write_output(&args, outputs, &input, lowered.expected_len(), |w| {
        lowered.write_to(w)
    })?;
    if args.time_phases {
        let times = PhaseTimes {
            read,
            parse: lowered.parse,
            lowering: lowered.phases,
            print_write: writing.elapsed().saturating_sub(synced),
            sync: synced,
        };
        let _ = write!(crate::diagnostics::stderr(), "{}", times.table(&name));
    }
    // The process ends here: freeing a large module piece by piece would only cost time.
    std::mem::forget(lowered);
    Ok(Outcome::Clean)
}

impl Args {
    /// The library's options: what was asked, the files aside.
    fn options(&self) -> LowerOptions {
        LowerOptions {
            pass: match self.pass {
                PassArg::Printf => lower::Pass::Printf,
                PassArg::Assert => lower::Pass::Assert,
                PassArg::Strip => lower::Pass::Strip,
                PassArg::StructArgs => lower::Pass::StructArgs,
            },
            target: self.target.map(|target| match target {
                TargetArg::Nvptx => lower::TargetName::Nvptx,
                TargetArg::Amdgpu => lower::TargetName::Amdgpu,
            }),
            stage: self.stage.map(|stage| match stage {
                StageArg::Lgc => lower::StageName::Lgc,
                StageArg::Buffer => lower::StageName::Buffer,
            }),
            layout: self.layout.map(|layout| match layout {
                LayoutArg::Natural => lower::LayoutName::Natural,
                LayoutArg::Slot32 => lower::LayoutName::Slot32,
            }),
            buffer_addrspace: self.buffer_addrspace,
            lgc_form: self.lgc_form.map(|form| match form {
                LgcFormArg::FormatFirst => lower::LgcFormName::FormatFirst,
                LgcFormArg::BufferFirst => lower::LgcFormName::BufferFirst,
            }),
            user_data_offset: self.user_data_offset,
            prefix: self.prefix.clone(),
            only: self.only.clone(),
            limit_per_site: self.limit_per_site,
            runtime_strings: self.runtime_strings,
            report: self.report || self.report_json.is_some(),
            emit_strings: self.emit_strings.is_some(),
            time_phases: self.time_phases,
            werror: self.werror,
            nvptx: self.nvptx.config(),
        }
    }
}

/// Prints what stopped the lowering: errors are exit 2, warnings promoted by --Werror exit 1.
fn report_error(error: LowerError, werror: bool) -> anyhow::Result<Outcome> {
    let promoted = |warnings: &[fmtstr_lower::Diagnostic]| {
        let mut stderr = crate::diagnostics::stderr();
        for warning in warnings {
            let shown = if werror {
                warning.clone().promote()
            } else {
                warning.clone()
            };
            let _ = writeln!(stderr, "{shown}");
        }
        let _ = writeln!(
            stderr,
            "fmtstr: error: warnings treated as errors (--Werror); nothing was written"
        );
        Ok(Outcome::Findings)
    };
    match error {
        LowerError::Failed {
            diagnostics,
            errors,
        } => {
            if errors == 0 {
                // Every diagnostic is a warning (already promoted by the library).
                let mut stderr = crate::diagnostics::stderr();
                for diagnostic in &diagnostics {
                    let _ = writeln!(stderr, "{diagnostic}");
                }
                let _ = writeln!(
                    stderr,
                    "fmtstr: error: warnings treated as errors (--Werror); nothing was written"
                );
                return Ok(Outcome::Findings);
            }
            let mut stderr = crate::diagnostics::stderr();
            for diagnostic in &diagnostics {
                let _ = writeln!(stderr, "{diagnostic}");
            }
            drop(stderr);
            bail!(
                "{errors} error{} in printf lowering; nothing was written",
                if errors == 1 { "" } else { "s" }
            )
        }
        LowerError::Warnings { warnings } => promoted(&warnings),
        other => bail!("{other}"),
    }
}

use fmtstr_tools::lower::PhaseTimes;

/// The module's name for diagnostics and its text (bitcode goes through llvm-dis).
fn read_input(path: &Path) -> anyhow::Result<(String, SourceText, Owned)> {
    let stdin = fmtstr_fs::input::is_stdin(path);
    let name = fmtstr_fs::input::name_of(path);
    let (bytes, input) = read_watched(path)?;
    if !lower::is_bitcode(&bytes) {
        return Ok((name, bytes, input));
    }
    let text = lower::disassemble_bitcode(&name, &bytes, (!stdin).then_some(path))
        .map_err(|error| anyhow::anyhow!("{error}"))?;
    Ok((name, text.into(), input))
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

/// Writes the module to `args.output` (stdout for none or `-`; `expected`: about how many
/// bytes), then puts it and the side outputs staged in `outputs` in place, all or none, once
/// the input is known not to have shrunk while it was lowered. Returns how long the module's
/// file waited for the disk before its rename (zero on stdout).
fn write_output(
    args: &Args,
    mut outputs: Outputs,
    input: &Owned,
    expected: usize,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> anyhow::Result<Duration> {
    let before = outputs.sync_time();
    match args.output.as_deref() {
        Some(path) if path.as_os_str() != "-" => {
            outputs.stage(path, args.replace(), expected as u64, write)?;
        }
        _ => {
            let written = fmtstr_fs::stdout::write_with(write);
            crate::output::unread_is_fine(written).context("cannot write the module to stdout")?;
        }
    }
    let synced = outputs.sync_time().saturating_sub(before);
    input.check_unchanged()?;
    crate::output::commit(outputs)?;
    Ok(synced)
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
