//! `fmtstr lower` as a library: the options checked once, the module parsed the way its target
//! allows, lowered, and what the command reports as typed values. The CLI, the C library and
//! the Python package call [`lower`] with the same [`LowerOptions`]; the CLI adds only files.
//!
//! Input: a module's text (bitcode goes through [`disassemble_bitcode`] first) and the options.
//! Output: a [`Lowered`] module that writes itself ([`Lowered::write_to`]), the warnings, the
//! format-string table (AMD buffer stage), the per-call report, the parse and lowering times;
//! or a [`LowerError`] that says what stopped it. Nothing is written by this module.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use fmtstr_ir::{Module, Shard, SourceText};
use fmtstr_lower::{lower_shards, Diagnostic, Layout, LgcForm, Options, Stage, Target};
use fmtstr_meta::Table;
use serde::{Deserialize, Serialize};

/// The pass `fmtstr lower` runs.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Pass {
    /// printf calls lowered for the target.
    #[default]
    Printf,
    /// As `Printf`, after every failed `assert()` is made a printf of glibc's message.
    Assert,
    /// Every printf and lgc.debug.printf call removed.
    Strip,
    /// NVPTX byval aggregate parameters read in place from the parameter space.
    StructArgs,
}

/// The GPU to lower printf for.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum TargetName {
    /// NVIDIA: each call becomes a `vprintf` with a packed argument buffer, which CUDA prints.
    Nvptx,
    /// AMD: `lgc.debug.printf` for LLPC, or the printf-buffer protocol itself (see `--stage`).
    Amdgpu,
}

/// `--stage` of `--target amdgpu`.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum StageName {
    /// `lgc.debug.printf` calls, which LLPC lowers later (the default).
    Lgc,
    /// The printf-buffer entries written by the module itself, and the
    /// `amdpal.format_strings` table that names their IDs.
    Buffer,
}

/// `--layout` of `--target nvptx`.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum LayoutName {
    /// Arguments at their natural alignment: what the CUDA driver reads (the default).
    Natural,
    /// A 32-byte slot per argument, for tools that expect it; the CUDA driver does not read it.
    Slot32,
}

/// `--lgc-form` of `--stage lgc`.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum LgcFormName {
    /// `lgc.debug.printf(ptr @fmt, args...)`: LLPC since mid 2024 (the default).
    FormatFirst,
    /// `lgc.debug.printf(ptr addrspace(7) %buf, ptr addrspace(4) @fmt, args...)`: LLPC before.
    BufferFirst,
}

/// Everything `fmtstr lower` is asked, by the names of its command-line options (kebab-case,
/// as JSON for the C library: `{"target": "nvptx", "prefix": "seq"}`). The side outputs are
/// named by whether they are asked for; where they go is the caller's business.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case", deny_unknown_fields, default)]
pub struct LowerOptions {
    /// `--pass`: what to do with the calls (lower printf, by default).
    pub pass: Pass,
    /// `--target`: the GPU. `--pass printf` and `assert` need one; strip takes none, and
    /// struct-args at most `nvptx`.
    pub target: Option<TargetName>,
    /// `--stage` (amdgpu only): `lgc` when not given.
    pub stage: Option<StageName>,
    /// `--layout` (nvptx only): `natural` when not given.
    pub layout: Option<LayoutName>,
    /// `--buffer-addrspace` (amdgpu): the printf buffer's address space; 7, a buffer fat
    /// pointer from LLPC's descriptor, when not given.
    pub buffer_addrspace: Option<u32>,
    /// `--lgc-form` (amdgpu `--stage lgc`): `format-first` when not given.
    pub lgc_form: Option<LgcFormName>,
    /// `--user-data-offset` (amdgpu `--stage buffer`): the table's `.user_data_offset` in
    /// dwords; when not given, the module's own table's, else LLPC's, else 0.
    pub user_data_offset: Option<u64>,
    /// `--prefix`: what every print starts with, e.g. `block,thread`, `site` or `seq`; checked
    /// by [`LowerOptions::job`].
    pub prefix: Option<String>,
    /// `--only`: the condition on block and thread ids under which a call prints, e.g.
    /// `thread.x==0 && block==0,0,0`.
    pub only: Option<String>,
    /// `--limit-per-site`: the prints each call site makes at most (at least 1), after which
    /// one line says the rest were dropped.
    pub limit_per_site: Option<u32>,
    /// `--runtime-strings` (amdgpu `--stage buffer`): the bytes (1 to 4096) of a `%s` computed
    /// at run time copied into the entry; without it such a `%s` is refused.
    pub runtime_strings: Option<u32>,
    /// `--report` or `--report-json`: fill [`Lowered::report`].
    pub report: bool,
    /// `--emit-strings`: the table is wanted (AMD buffer stage only).
    pub emit_strings: bool,
    /// `--time-phases`.
    pub time_phases: bool,
    /// `--Werror`.
    pub werror: bool,
    /// `--pass struct-args`: the SM version and opt-byval (not settable from JSON: the C
    /// library and the Python package lower printf).
    #[serde(skip)]
    pub nvptx: fmtstr_nvptx::Config,
}

/// What the options ask for, once checked.
#[derive(Clone, Debug, PartialEq)]
pub enum Job {
    /// Lower printf (and asserts) with these options.
    Printf(Box<Options>),
    /// Remove every printf call.
    Strip,
    /// The NVPTX struct-args pass.
    StructArgs(fmtstr_nvptx::Config),
}

/// Why nothing was lowered.
#[derive(Debug, thiserror::Error)]
pub enum LowerError {
    /// Options that do not go together, or a value out of range: the message names the fix.
    #[error("{0}")]
    Usage(String),
    /// The module cannot be read (not LLVM IR, or bitcode without llvm-dis).
    #[error("{0}")]
    Module(String),
    /// The lowering found errors, or warnings under `--Werror`: every diagnostic, in module
    /// order; `errors` counts the genuine errors (0: only promoted warnings).
    #[error("{errors} error{} in printf lowering; nothing was written", if *errors == 1 { "" } else { "s" })]
    Failed {
        /// Every diagnostic, errors and warnings, in module order.
        diagnostics: Vec<Diagnostic>,
        /// How many of them are errors rather than warnings.
        errors: usize,
    },
    /// `--pass strip` under `--Werror` found warnings.
    #[error("warnings treated as errors (--Werror); nothing was written")]
    Warnings {
        /// The warnings, in module order.
        warnings: Vec<Diagnostic>,
    },
    /// The struct-args pass refused the module.
    #[error("{0}\nnothing was written")]
    Refused(String),
}

impl LowerOptions {
    /// Checks that the options go together and says what they ask for. Every rule of option
    /// compatibility lives here.
    pub fn job(&self) -> Result<Job, LowerError> {
        match self.pass {
            Pass::Strip => {
                self.only_for_printf(|option| {
                    format!(
                        "{option} applies to --pass printf; --pass strip removes the calls for \
                         every target: drop {option}"
                    )
                })?;
                Ok(Job::Strip)
            }
            Pass::StructArgs => {
                if self.target == Some(TargetName::Amdgpu) {
                    return usage(
                        "--target amdgpu applies to --pass printf, not struct-args (an NVPTX-only \
                         pass)",
                    );
                }
                self.only_for_printf(|option| {
                    format!(
                        "{option} applies to --pass printf, not struct-args (an NVPTX-only pass)"
                    )
                })?;
                Ok(Job::StructArgs(self.nvptx))
            }
            Pass::Printf | Pass::Assert => self.printf_options().map(|o| Job::Printf(Box::new(o))),
        }
    }

    /// Refuses the options that only `--pass printf` takes, with `message(option)`.
    fn only_for_printf(&self, message: impl Fn(&str) -> String) -> Result<(), LowerError> {
        let target_given = self.pass == Pass::Strip && self.target.is_some();
        for (given, option) in [
            (target_given, "--target"),
            (self.stage.is_some(), "--stage"),
            (self.layout.is_some(), "--layout"),
            (self.buffer_addrspace.is_some(), "--buffer-addrspace"),
            (self.emit_strings, "--emit-strings"),
            (self.lgc_form.is_some(), "--lgc-form"),
            (self.user_data_offset.is_some(), "--user-data-offset"),
            (self.report, "--report"),
            (self.prefix.is_some(), "--prefix"),
            (self.only.is_some(), "--only"),
            (self.limit_per_site.is_some(), "--limit-per-site"),
            (self.runtime_strings.is_some(), "--runtime-strings"),
            (self.time_phases, "--time-phases"),
        ] {
            if given {
                return Err(LowerError::Usage(message(option)));
            }
        }
        Ok(())
    }

    fn printf_options(&self) -> Result<Options, LowerError> {
        let target = self.target()?;
        let prefix = match &self.prefix {
            Some(text) => Some(
                fmtstr_lower::Prefix::parse(text)
                    .map_err(|error| LowerError::Usage(error.to_string()))?,
            ),
            None => None,
        };
        let only = match &self.only {
            Some(text) => Some(
                fmtstr_lower::Condition::parse(text)
                    .map_err(|error| LowerError::Usage(error.to_string()))?,
            ),
            None => None,
        };
        if prefix.is_some_and(|p| p.has_seq()) && (only.is_some() || self.limit_per_site.is_some())
        {
            return usage(
                "--prefix seq with --only or --limit-per-site: the counter would count the prints \
                 they skip too, and `fmtstr gaps` would report them lost; drop seq or the other",
            );
        }
        if self.limit_per_site == Some(0) {
            return usage(
                "--limit-per-site 0 would print only the markers: give at least 1 (or --pass \
                 strip to print nothing)",
            );
        }
        Ok(Options {
            target,
            werror: self.werror,
            prefix,
            only,
            limit_per_site: self.limit_per_site,
            asserts: self.pass == Pass::Assert,
            runtime_strings: self.runtime_strings,
            report: self.report,
        })
    }

    /// The target the options ask for; options that do not apply to it are usage errors.
    fn target(&self) -> Result<Target, LowerError> {
        let Some(target) = self.target else {
            return usage("--pass printf needs --target nvptx or --target amdgpu");
        };
        match target {
            TargetName::Nvptx => {
                for (given, option) in [
                    (self.stage.is_some(), "--stage"),
                    (self.buffer_addrspace.is_some(), "--buffer-addrspace"),
                    (self.emit_strings, "--emit-strings"),
                    (self.lgc_form.is_some(), "--lgc-form"),
                    (self.user_data_offset.is_some(), "--user-data-offset"),
                    (self.runtime_strings.is_some(), "--runtime-strings"),
                ] {
                    if given {
                        return usage(&format!("{option} applies to --target amdgpu, not nvptx"));
                    }
                }
                Ok(Target::Nvptx {
                    layout: match self.layout {
                        Some(LayoutName::Slot32) => Layout::Slot32,
                        _ => Layout::Natural,
                    },
                })
            }
            TargetName::Amdgpu => self.amdgpu_target(),
        }
    }

    fn amdgpu_target(&self) -> Result<Target, LowerError> {
        if self.layout.is_some() {
            return usage("--layout applies to --target nvptx, not amdgpu");
        }
        let stage = match self.stage {
            Some(StageName::Buffer) => Stage::Buffer,
            _ => Stage::Lgc,
        };
        if self.emit_strings && stage != Stage::Buffer {
            return usage(
                "--emit-strings needs --stage buffer (the lgc stage assigns no IDs yet: LLPC does \
                 that when it lowers lgc.debug.printf)",
            );
        }
        if self.lgc_form.is_some() && stage != Stage::Lgc {
            return usage(
                "--lgc-form chooses what --stage lgc writes; --stage buffer reads both forms",
            );
        }
        if self.runtime_strings.is_some() && stage != Stage::Buffer {
            return usage(
                "--runtime-strings needs --stage buffer (lgc.debug.printf takes no string bytes: \
                 LLPC lowers it later)",
            );
        }
        if let Some(bytes) = self.runtime_strings {
            let most = fmtstr_lower::amdgpu::inline::MAX_BYTES;
            if bytes == 0 || bytes > most {
                return usage(&format!(
                    "--runtime-strings {bytes}: give the bytes to copy per string, 1 to {most}"
                ));
            }
        }
        if self.user_data_offset.is_some() && stage != Stage::Buffer {
            return usage(
                "--user-data-offset needs --stage buffer (it goes into the format-string table)",
            );
        }
        let lgc_form = match self.lgc_form {
            Some(LgcFormName::BufferFirst) => LgcForm::BufferFirst,
            _ => LgcForm::FormatFirst,
        };
        if stage == Stage::Lgc
            && lgc_form == LgcForm::FormatFirst
            && self.buffer_addrspace.is_some()
        {
            return usage(
                "--buffer-addrspace does not apply to today's lgc.debug.printf, which passes no \
                 buffer (LLPC fetches it); add --lgc-form buffer-first, or use --stage buffer",
            );
        }
        Ok(Target::Amdgpu {
            stage,
            buffer_addrspace: self
                .buffer_addrspace
                .unwrap_or(fmtstr_lower::amdgpu::FAT_POINTER_ADDRSPACE),
            lgc_form,
            user_data_offset: self.user_data_offset,
        })
    }
}

fn usage<T>(message: &str) -> Result<T, LowerError> {
    Err(LowerError::Usage(message.to_owned()))
}

/// A lowered module and what the lowering says about it.
#[derive(Debug)]
pub struct Lowered {
    /// The module, whole or in shards (a large NVPTX module is lowered one shard per thread).
    shards: Vec<Shard>,
    /// Whether anything changed: otherwise the module is written back as it came.
    changed: bool,
    /// Calls rewritten (or removed, for strip).
    pub calls: usize,
    /// Warnings, in module order.
    pub warnings: Vec<Diagnostic>,
    /// The AMD buffer stage's `amdpal.format_strings` table.
    pub strings: Option<Table<'static>>,
    /// What each call writes, when [`LowerOptions::report`] asked for it.
    pub report: Option<Report>,
    /// `--pass struct-args`: one line per byval parameter, what the pass did with it.
    pub params: Vec<String>,
    /// The time spent parsing the module (wall clock).
    pub parse: Duration,
    /// The time spent in each phase of the lowering; zero for strip and struct-args.
    pub phases: fmtstr_lower::Phases,
}

/// At least as many bytes as a lowered call adds to the text, so that an output file's blocks
/// are all allocated before it is written: ext4's delayed allocation otherwise lands in the
/// rename over an old output (doc/perf.md, "Writing the output").
const MAX_TEXT_PER_CALL: usize = 1024;

impl Lowered {
    /// The module's text, as `fmtstr lower` writes it.
    pub fn write_to(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        if self.changed {
            Module::write_shards(&self.shards, &mut &mut *w)
        } else {
            w.write_all(self.source())
        }
    }

    /// About how many bytes [`Lowered::write_to`] writes (at least as many).
    pub fn expected_len(&self) -> usize {
        let source = self.source().len();
        if self.changed {
            source.saturating_add(self.calls.saturating_mul(MAX_TEXT_PER_CALL))
        } else {
            source
        }
    }

    fn source(&self) -> &[u8] {
        self.shards.first().map_or(&[][..], |s| s.module.source())
    }
}

/// Lowers the module `text` (named `name` in diagnostics) as `options` ask.
pub fn lower(name: &str, text: SourceText, options: &LowerOptions) -> Result<Lowered, LowerError> {
    match options.job()? {
        Job::Printf(lowering) => lower_printf(name, text, &lowering, options),
        Job::Strip => strip(name, text, options.werror),
        Job::StructArgs(config) => struct_args(name, text, &config),
    }
}

fn parse_whole(name: &str, text: SourceText) -> Result<Module, LowerError> {
    Module::parse(name, text).map_err(|error| LowerError::Module(error.to_string()))
}

fn lower_printf(
    name: &str,
    text: SourceText,
    lowering: &Options,
    options: &LowerOptions,
) -> Result<Lowered, LowerError> {
    // These rewrite calls before lowering, on the whole module (asserts are found outside
    // the functions that mention printf too).
    let rewrites = lowering.prefix.is_some()
        || lowering.only.is_some()
        || lowering.limit_per_site.is_some()
        || lowering.asserts;
    // NVPTX lowering works function by function: a large module is lowered in shards, one
    // thread each. The AMD buffer stage keeps a module-wide table: one module.
    let nvptx = matches!(lowering.target, Target::Nvptx { .. });
    let threads = if nvptx && !rewrites {
        fmtstr_ir::default_threads()
    } else {
        1
    };
    let parsing = Instant::now();
    let mut shards = if nvptx && !rewrites {
        // Only the calls to printf and what uses their results are parsed; the rest is
        // copied. (--only splits blocks: the phis of their successors must be parsed.)
        Module::parse_shards_where(name, text, threads, &fmtstr_lower::printf_filter())
    } else {
        Module::parse(name, text).map(|module| {
            vec![Shard {
                module,
                first_function: None,
            }]
        })
    }
    .map_err(|error| LowerError::Module(error.to_string()))?;
    let parse = parsing.elapsed();
    let lowered = lower_shards(&mut shards, lowering).map_err(|failed| {
        let errors = failed
            .diagnostics
            .iter()
            .filter(|d| d.severity == fmtstr_lower::Severity::Error)
            .count();
        LowerError::Failed {
            diagnostics: failed.diagnostics,
            errors,
        }
    })?;
    let report = lowering.report.then(|| Report {
        target: target_name(lowering.target),
        calls: lowered.report.iter().map(CallRow::of).collect(),
        functions: fmtstr_lower::report::per_function(&lowered.report)
            .into_iter()
            .map(|f| FunctionRow {
                function: f.function,
                calls: f.calls,
                bytes_per_pass: f.bytes,
                complete: f.complete,
            })
            .collect(),
        only: options.only.clone(),
        amd: !nvptx,
    });
    Ok(Lowered {
        shards,
        changed: lowered.calls > 0,
        calls: lowered.calls,
        warnings: lowered.warnings,
        strings: lowered.strings,
        report,
        params: Vec::new(),
        parse,
        phases: lowered.phases,
    })
}

fn strip(name: &str, text: SourceText, werror: bool) -> Result<Lowered, LowerError> {
    let parsing = Instant::now();
    let mut module = parse_whole(name, text)?;
    let parse = parsing.elapsed();
    let stripped = fmtstr_lower::strip(&mut module)
        .map_err(|error| LowerError::Module(format!("{name}: cannot strip printf: {error}")))?;
    if werror && !stripped.warnings.is_empty() {
        return Err(LowerError::Warnings {
            warnings: stripped.warnings,
        });
    }
    Ok(Lowered {
        changed: stripped.calls > 0,
        calls: stripped.calls,
        warnings: stripped.warnings,
        strings: None,
        report: None,
        params: Vec::new(),
        parse,
        phases: fmtstr_lower::Phases::default(),
        shards: vec![Shard {
            module,
            first_function: None,
        }],
    })
}

fn struct_args(
    name: &str,
    text: SourceText,
    config: &fmtstr_nvptx::Config,
) -> Result<Lowered, LowerError> {
    let parsing = Instant::now();
    let mut module = parse_whole(name, text)?;
    let parse = parsing.elapsed();
    let report = fmtstr_nvptx::struct_args::run(&mut module, config)
        .map_err(|error| LowerError::Refused(error.to_string()))?;
    Ok(Lowered {
        changed: report.changed(),
        calls: 0,
        warnings: Vec::new(),
        strings: None,
        report: None,
        params: report.params.iter().map(ToString::to_string).collect(),
        parse,
        phases: fmtstr_lower::Phases::default(),
        shards: vec![Shard {
            module,
            first_function: None,
        }],
    })
}

fn target_name(target: Target) -> &'static str {
    match target {
        Target::Nvptx { .. } => "nvptx",
        Target::Amdgpu { .. } => "amdgpu",
    }
}

/// What each lowered call writes (`--report`, and `--report-json` as
/// schemas/lower-report.schema.json).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Report {
    /// `nvptx` or `amdgpu`: whether the sizes are vprintf buffer bytes or AMD entry dwords.
    pub target: &'static str,
    /// Every lowered call, in module order.
    pub calls: Vec<CallRow>,
    /// Per function, in order of its first call: the sum over its calls.
    pub functions: Vec<FunctionRow>,
    /// The `--only` condition as given, whose matching threads alone write the bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub only: Option<String>,
    #[serde(skip)]
    amd: bool,
}

/// One call of [`Report`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CallRow {
    /// The function the call is in, without `@`.
    pub function: String,
    /// The program source's `file:line` (from `!dbg`), else the `.ll`'s.
    pub location: String,
    /// `file:line:column` in the `.ll`.
    pub ll_location: String,
    /// The format string without its NUL (invalid UTF-8 replaced).
    pub format: String,
    /// vprintf buffer bytes, or AMD entry bytes (header included); null when the caller
    /// packs the buffer.
    pub bytes: Option<u64>,
    /// AMD only: the entry's dwords.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dwords: Option<Option<u64>>,
    #[serde(skip)]
    escaped_format: String,
}

impl CallRow {
    fn of(call: &fmtstr_lower::CallReport) -> CallRow {
        CallRow {
            function: call.function.clone(),
            location: report_location(&call.location),
            ll_location: format!(
                "{}:{}:{}",
                call.location.file, call.location.line, call.location.column
            ),
            format: String::from_utf8_lossy(&call.format).into_owned(),
            bytes: call.bytes,
            // A vprintf row has none: `Report::json` leaves the field out there.
            dwords: Some(call.dwords),
            escaped_format: fmtstr_meta::escape::escape(&call.format),
        }
    }
}

/// One function of [`Report`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FunctionRow {
    /// The function's name, without `@`.
    pub function: String,
    /// Its lowered calls (at least 1).
    pub calls: usize,
    /// The bytes one thread writes when it passes through each of its calls once (unknown
    /// sizes count as 0).
    pub bytes_per_pass: u64,
    /// False when some call's size is unknown: `bytes_per_pass` is then a lower bound.
    pub complete: bool,
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

impl Report {
    /// `--report-json`'s value (schemas/lower-report.schema.json).
    pub fn json(&self) -> serde_json::Value {
        let mut report = self.clone();
        if !self.amd {
            for call in &mut report.calls {
                call.dwords = None;
            }
        }
        serde_json::to_value(&report).unwrap_or_default()
    }

    /// `--report`'s text: one line per call, one per function, and the `--only` note.
    pub fn text(&self) -> String {
        let mut out = String::new();
        let unit = if self.amd {
            "printf-buffer entry dwords per call, header included"
        } else {
            "vprintf argument buffer bytes per call"
        };
        let _ = writeln!(out, "printf report ({}: {unit}):", self.target);
        for call in &self.calls {
            let dwords = if self.amd {
                call.dwords.flatten()
            } else {
                None
            };
            let size = match (dwords, call.bytes) {
                (Some(dwords), Some(bytes)) => format!("{dwords} dwords ({bytes} bytes)"),
                (None, Some(bytes)) => format!("{bytes} bytes"),
                _ => "unknown bytes (the caller packs the buffer)".to_owned(),
            };
            let _ = writeln!(
                out,
                "  {}: @{} \"{}\": {size}",
                call.location, call.function, call.escaped_format
            );
        }
        for f in &self.functions {
            let _ = writeln!(
                out,
                "  @{}: {} call{}, {}{} bytes per thread per pass",
                f.function,
                f.calls,
                if f.calls == 1 { "" } else { "s" },
                if f.complete { "" } else { "at least " },
                f.bytes_per_pass
            );
        }
        if let Some(condition) = &self.only {
            let _ = writeln!(
                out,
                "  (--only '{condition}': bytes per thread the condition matches; the others write none)"
            );
        }
        out
    }
}

/// `--time-phases`: where one lowering's time went (wall clock).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PhaseTimes {
    /// Reading the input (and disassembling bitcode).
    pub read: Duration,
    /// Parsing the module ([`Lowered::parse`]).
    pub parse: Duration,
    /// Extract, plan and apply (the slowest shard's extract and plan).
    pub lowering: fmtstr_lower::Phases,
    /// Printing the module into the output, and writing it (the sync aside).
    pub print_write: Duration,
    /// Waiting for the written output to reach the disk before it is renamed into place.
    pub sync: Duration,
}

impl PhaseTimes {
    /// Each phase's name and time, in the order they run.
    pub fn rows(&self) -> [(&'static str, Duration); 7] {
        [
            ("read", self.read),
            ("parse", self.parse),
            ("extract", self.lowering.extract),
            ("plan", self.lowering.plan),
            ("apply", self.lowering.apply),
            ("print+write", self.print_write),
            ("sync", self.sync),
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
            sync: ms("sync")?,
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
            sync: self.sync.min(other.sync),
        }
    }
}

/// Whether `bytes` are LLVM bitcode (raw or in the wrapper header).
pub fn is_bitcode(bytes: &[u8]) -> bool {
    bytes.starts_with(b"BC\xC0\xDE") || bytes.starts_with(b"\xDE\xC0\x17\x0B")
}

/// The text of a bitcode module, from llvm-dis (`input`: its path, or `None` to feed `bytes` on
/// stdin).
pub fn disassemble_bitcode(
    name: &str,
    bytes: &[u8],
    input: Option<&std::path::Path>,
) -> Result<Vec<u8>, LowerError> {
    let Some(llvm_dis) = find_llvm_dis() else {
        return Err(LowerError::Module(format!(
            "{name} is LLVM bitcode, and reading bitcode needs llvm-dis (LLVM 22 or 19), which is \
             not installed: install it (`apt-get install llvm-22`, or set FMTSTR_LLVM_BINDIR), or \
             disassemble first with `llvm-dis {name} -o module.ll`"
        )));
    };
    let cannot_run = |error: std::io::Error| {
        LowerError::Module(format!("cannot run {}: {error}", llvm_dis.display()))
    };
    let mut command = Command::new(&llvm_dis);
    command.arg("-o").arg("-");
    let output = match input {
        Some(path) => command.arg(path).output().map_err(cannot_run)?,
        None => {
            let mut child = command
                .arg("-")
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .map_err(cannot_run)?;
            let pipe = child.stdin.take();
            let owned = bytes.to_vec();
            let feeder = std::thread::spawn(move || {
                if let Some(mut pipe) = pipe {
                    let _ = std::io::Write::write_all(&mut pipe, &owned);
                }
            });
            let output = child.wait_with_output().map_err(cannot_run)?;
            let _ = feeder.join();
            output
        }
    };
    if !output.status.success() {
        return Err(LowerError::Module(format!(
            "llvm-dis cannot read {name}:\n{}",
            String::from_utf8_lossy(&output.stderr).trim_end()
        )));
    }
    Ok(output.stdout)
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

/// `fmtstr lower` on a module in memory, as the C library and the Python package give it:
/// what the CLI would write to OUT, print on stderr and write as side outputs.
#[derive(Debug, Default)]
pub struct InMemory {
    /// 0: lowered; 1: `--Werror` and there were warnings; 2: errors or bad options. The CLI's
    /// exit codes.
    pub code: u8,
    /// The lowered module (code 0 only).
    pub module: Option<Vec<u8>>,
    /// The diagnostics, one per line as the CLI prints them on stderr (without colour);
    /// struct-args's parameter lines too.
    pub diagnostics: String,
    /// What stopped the lowering (codes 1 and 2), as the CLI prints it after `fmtstr: error: `.
    pub error: Option<String>,
    /// `--emit-strings`'s JSON (`emit-strings` asked, AMD buffer stage).
    pub strings_json: Option<String>,
    /// `--report-json`'s JSON (`report` asked).
    pub report_json: Option<String>,
}

/// Lowers `bytes` (IR text or bitcode, named `name` in messages) as `options` ask.
pub fn lower_in_memory(name: &str, bytes: &[u8], options: &LowerOptions) -> InMemory {
    let failed = |code: u8, diagnostics: String, error: String| InMemory {
        code,
        diagnostics,
        error: Some(error),
        ..InMemory::default()
    };
    if let Err(error) = options.job() {
        return failed(2, String::new(), error.to_string());
    }
    let text: SourceText = if is_bitcode(bytes) {
        match disassemble_bitcode(name, bytes, None) {
            Ok(text) => text.into(),
            Err(error) => return failed(2, String::new(), error.to_string()),
        }
    } else {
        bytes.to_vec().into()
    };
    let lines = |diagnostics: &[Diagnostic], promote: bool| {
        let mut out = String::new();
        for diagnostic in diagnostics {
            let shown = if promote {
                diagnostic.clone().promote()
            } else {
                diagnostic.clone()
            };
            let _ = writeln!(out, "{shown}");
        }
        out
    };
    let werror_message = "warnings treated as errors (--Werror); nothing was written";
    let lowered = match lower(name, text, options) {
        Ok(lowered) => lowered,
        Err(LowerError::Failed {
            diagnostics,
            errors,
        }) => {
            let shown = lines(&diagnostics, false);
            return if errors == 0 {
                failed(1, shown, werror_message.to_owned())
            } else {
                failed(
                    2,
                    shown,
                    format!(
                        "{errors} error{} in printf lowering; nothing was written",
                        if errors == 1 { "" } else { "s" }
                    ),
                )
            };
        }
        Err(LowerError::Warnings { warnings }) => {
            return failed(1, lines(&warnings, true), werror_message.to_owned())
        }
        Err(error) => return failed(2, String::new(), error.to_string()),
    };
    let mut diagnostics = lines(&lowered.warnings, false);
    for param in &lowered.params {
        let _ = writeln!(diagnostics, "{param}");
    }
    let pretty = |value: &serde_json::Value| {
        let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
        text.push('\n');
        text
    };
    let strings_json = options
        .emit_strings
        .then(|| pretty(&lowered.strings.clone().unwrap_or_default().to_json()));
    let report_json = lowered.report.as_ref().map(|report| pretty(&report.json()));
    let mut module = Vec::with_capacity(lowered.expected_len());
    if let Err(error) = lowered.write_to(&mut module) {
        return failed(2, diagnostics, format!("cannot print the module: {error}"));
    }
    InMemory {
        code: 0,
        module: Some(module),
        diagnostics,
        error: None,
        strings_json,
        report_json,
    }
}
