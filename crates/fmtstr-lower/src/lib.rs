//! The printf lowering core and its back ends.
//!
//! One vendor-neutral model of each `printf` call ([`PrintfCall`]: its form, its format string,
//! its typed arguments) is extracted from LLVM IR once ([`extract()`]), and one back end per
//! target consumes it:
//!
//! | target | module | output |
//! | --- | --- | --- |
//! | [`Target::Nvptx`] | [`nvptx`] | `vprintf(fmt, buf)`, CUDA's ABI (natural alignment), or 32-byte slots |
//! | [`Target::Amdgpu`] [`Stage::Lgc`] | [`amdgpu::lgc`] | `lgc.debug.printf(fmt, args...)`, LLPC's operation (or its older `(buf, fmt, args...)`) |
//! | [`Target::Amdgpu`] [`Stage::Buffer`] | [`amdgpu::buffer`] | the AMD printf-buffer protocol, and `amdpal.format_strings` |
//!
//! A back end never looks at another; adding a target adds a module and a [`Target`] variant.
//!
//! [`lower`] runs the whole thing: extraction, then the back end's planning (which checks
//! everything it can before any edit), then, when nothing was an error, the edits. A module
//! without calls is not touched at all, so it prints byte-identically. [`lower_shards`] does
//! the same for NVPTX on a module parsed in shards, one thread per shard.
//!
//! [`Options::prefix`] makes each call print who printed it ([`prefix`]); [`Options::only`]
//! puts each call behind a branch on the thread's ids, after the checks and before the back
//! end, so that its whole lowering runs only where the condition holds ([`only`]).
//!
//! ```
//! use fmtstr_ir::Module;
//! use fmtstr_lower::{lower, Options, Target};
//!
//! let text = r#"target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
//! @.str = private unnamed_addr constant [6 x i8] c"x=%d\0A\00", align 1
//! define void @k(i32 %x) {
//!   %r = call i32 (ptr, ...) @printf(ptr @.str, i32 %x)
//!   ret void
//! }
//! declare i32 @printf(ptr, ...)
//! "#;
//! let mut module = Module::parse("k.ll", text).unwrap();
//! let lowered = lower(&mut module, &Options::new(Target::nvptx())).unwrap();
//! assert_eq!(lowered.calls, 1);
//! let out = String::from_utf8(module.print()).unwrap();
//! assert!(out.contains("%vprintfBuffer.local = alloca [8 x i8], align 8"));
//! assert!(out.contains("call i32 @vprintf(ptr @.str, ptr %vprintfBuffer.local)"));
//! assert!(!out.contains("@printf"));
//! ```

#![warn(missing_docs)]

pub mod amdgpu;
pub mod assert;
pub mod diag;
pub mod extract;
pub mod limit;
pub mod model;
pub mod nvptx;
pub mod only;
pub mod prefix;
pub mod promote;
pub mod report;
mod shards;
pub mod strip;

use std::time::{Duration, Instant};

use fmtstr_ir::{EditError, Module};
use fmtstr_meta::Table;

pub use amdgpu::{LgcForm, Stage};
pub use diag::{Diagnostic, Location, Severity};
pub use extract::{extract, Extraction};
pub use model::{Argument, Callee, Extend, Form, FormatString, PrintfCall};
pub use nvptx::Layout;
pub use only::{Condition, ConditionError};
pub use prefix::{Prefix, PrefixError, PrefixKind};
pub use report::{CallReport, FunctionReport};
pub use shards::lower_shards;
pub use strip::{strip, Stripped};

/// What to lower for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// NVIDIA: `vprintf`.
    Nvptx {
        /// How the arguments are laid out in the buffer.
        layout: Layout,
    },
    /// AMD: `lgc.debug.printf`, or the printf-buffer protocol.
    Amdgpu {
        /// Which form to produce.
        stage: Stage,
        /// The buffer's address space: 7 (a buffer fat pointer) or a plain pointer's.
        buffer_addrspace: u32,
        /// At [`Stage::Lgc`]: which form of `lgc.debug.printf` to write.
        lgc_form: LgcForm,
        /// At [`Stage::Buffer`]: the table's `.user_data_offset` (the printf buffer's user-data
        /// offset in dwords); `None` keeps the module's table's, or writes 0.
        user_data_offset: Option<u64>,
    },
}

impl Target {
    /// NVPTX with the CUDA driver's layout.
    pub fn nvptx() -> Target {
        Target::Nvptx {
            layout: Layout::Natural,
        }
    }

    /// AMDGPU at `stage`, with a buffer fat pointer.
    pub fn amdgpu(stage: Stage) -> Target {
        Target::Amdgpu {
            stage,
            buffer_addrspace: amdgpu::FAT_POINTER_ADDRSPACE,
            lgc_form: LgcForm::default(),
            user_data_offset: None,
        }
    }
}

/// Options of [`lower`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// The target.
    pub target: Target,
    /// Treat warnings as errors: nothing is lowered when there are any.
    pub werror: bool,
    /// Print who printed each line first ([`prefix`]).
    pub prefix: Option<Prefix>,
    /// Only the threads this condition matches print ([`only`]).
    pub only: Option<Condition>,
    /// Each call site prints at most this many times, then one marker ([`limit`]).
    pub limit_per_site: Option<u32>,
    /// Failed asserts are printed through printf first, then trap ([`assert`]).
    pub asserts: bool,
    /// AMD buffer stage: a `%s` of a string computed at run time travels as its first N bytes
    /// ([`amdgpu::inline`]; at most [`amdgpu::inline::MAX_BYTES`]).
    pub runtime_strings: Option<u32>,
    /// Fill [`Lowered::report`] (each call's location is then looked up: a cost per call).
    pub report: bool,
}

impl Options {
    /// Options for a target, warnings allowed.
    pub fn new(target: Target) -> Options {
        Options {
            target,
            werror: false,
            prefix: None,
            only: None,
            limit_per_site: None,
            asserts: false,
            runtime_strings: None,
            report: false,
        }
    }
}

/// What a successful [`lower`] did.
#[derive(Debug, Default)]
pub struct Lowered {
    /// How many calls were rewritten.
    pub calls: usize,
    /// The warnings, in module order.
    pub warnings: Vec<Diagnostic>,
    /// For [`Stage::Buffer`]: the `amdpal.format_strings` table now in the module's PAL
    /// metadata (the module's earlier entries merged with the new ones).
    pub strings: Option<Table<'static>>,
    /// What each lowered call writes, in module order ([`report`]); empty unless
    /// [`Options::report`] asked for it.
    pub report: Vec<CallReport>,
    /// Where the time went.
    pub phases: Phases,
}

/// The time [`lower`] spent in each phase (on shards: the slowest shard's extraction and
/// planning, which run at once, and the whole edit).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Phases {
    /// Finding and modelling the calls (with `--prefix`, both extractions and the prefix).
    pub extract: Duration,
    /// Checking and laying out every call before the first edit.
    pub plan: Duration,
    /// The edits.
    pub apply: Duration,
}

/// Why [`lower`] changed nothing.
#[derive(Debug)]
pub struct Failed {
    /// Every diagnostic, errors and warnings, in module order.
    pub diagnostics: Vec<Diagnostic>,
}

impl std::fmt::Display for Failed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let errors = self.diagnostics.iter().filter(|d| d.is_error()).count();
        write!(
            f,
            "{errors} error{} in printf lowering",
            if errors == 1 { "" } else { "s" }
        )
    }
}

impl std::error::Error for Failed {}

/// Lowers every printf call of `module` for `options.target`.
///
/// Every check runs before the first edit: on failure the module is unchanged and [`Failed`]
/// holds the diagnostics (with `options.werror`, warnings count as errors). Only an edit that
/// fmtstr-ir refuses against every check (a bug) fails after edits began; it is reported as an
/// error at the first call, and the module must then be dropped.
pub fn lower(module: &mut Module, options: &Options) -> Result<Lowered, Failed> {
    let lgc_input = matches!(
        options.target,
        Target::Amdgpu {
            stage: Stage::Buffer,
            ..
        }
    );
    let started = Instant::now();
    let mut phases = Phases::default();
    if options.asserts {
        print_asserts(module, options)?;
    }
    let mut found = extract(module, lgc_input);
    if let (Some(prefix), false) = (options.prefix, found.calls.is_empty()) {
        found = add_prefix(module, options, prefix, lgc_input, found)?;
    }
    // The limit adds a counter and a marker call per site (after the prefix, which replaces
    // the calls), and the conditions the calls run under, applied with --only's.
    let mut limits = limit::Conditions::new();
    if let (Some(per_site), false) = (options.limit_per_site, found.calls.is_empty()) {
        (limits, found) = add_limit(module, options, per_site, lgc_input, found)?;
    }
    phases.extract = started.elapsed();
    let Extraction {
        calls,
        mut diagnostics,
    } = found;
    if calls.is_empty() {
        return if stops(&diagnostics, options.werror) {
            failure(diagnostics, options.werror)
        } else {
            Ok(Lowered {
                warnings: diagnostics,
                phases,
                ..Lowered::default()
            })
        };
    }
    // Plan (every check), then edit.
    let edit = Edit {
        module,
        options,
        calls: &calls,
        limits: &limits,
        diagnostics: &mut diagnostics,
        phases: &mut phases,
    };
    let Edited { report, applied } = match options.target {
        Target::Nvptx { layout } => edit.nvptx(layout),
        Target::Amdgpu {
            stage,
            buffer_addrspace,
            lgc_form,
            user_data_offset,
        } => edit.amdgpu(amdgpu::Settings {
            stage,
            buffer_addrspace,
            lgc_form,
            user_data_offset,
            sites: options.prefix.is_some_and(|p| p.has_site()),
            runtime_strings: options.runtime_strings,
        }),
    }?;
    match applied {
        Ok(strings) => Ok(Lowered {
            calls: calls.len(),
            warnings: diagnostics,
            strings,
            report,
            phases,
        }),
        Err(error) => {
            // A removed instruction keeps its source position.
            let first = calls[0].location(module);
            diagnostics.push(first.error(format!("cannot rewrite the module: {error}")));
            failure(diagnostics, options.werror)
        }
    }
}

/// `--asserts`: failed asserts print through printf before they trap; a module where that
/// cannot be done fails with one error naming the file.
fn print_asserts(module: &mut Module, options: &Options) -> Result<(), Failed> {
    let Err(error) = assert::asserts_to_printf(module) else {
        return Ok(());
    };
    let location = Location {
        file: module.file_name().to_owned(),
        line: 0,
        column: 0,
        text: String::new(),
        source: None,
    };
    Err(failed(
        vec![location.error(format!("cannot print the asserts: {error}"))],
        options.werror,
    ))
}

/// `--prefix`: the prefix rewrites the calls, then they are extracted again. It runs only once
/// nothing found so far stops the lowering, so that a failure leaves the module as it was.
fn add_prefix(
    module: &mut Module,
    options: &Options,
    prefix: Prefix,
    lgc_input: bool,
    found: Extraction,
) -> Result<Extraction, Failed> {
    let Extraction {
        calls,
        mut diagnostics,
    } = found;
    for call in &calls {
        if call.form == Form::PrePacked {
            diagnostics.push(call.location(module).error(
                "--prefix cannot add arguments to a call whose caller packed the buffer \
                 (op-tag 85): drop --prefix, or pass the ids in the buffer yourself",
            ));
        }
    }
    if stops(&diagnostics, options.werror) {
        return Err(failed(diagnostics, options.werror));
    }
    let live: Vec<PrintfCall> = calls
        .into_iter()
        .filter(|c| !c.callee.is_disabled(module))
        .collect();
    let nvptx = matches!(options.target, Target::Nvptx { .. });
    if let Err(error) = prefix::apply(module, &prefix, nvptx, &live) {
        let first = live[0].location(module);
        diagnostics.push(first.error(format!("cannot add the prefix: {error}")));
        return Err(failed(diagnostics, options.werror));
    }
    Ok(extract(module, lgc_input))
}

/// `--limit-per-site`: each site gets its counter and marker call, then the calls are
/// extracted again; gives the conditions the calls now run under. Like the prefix, it runs
/// only once nothing found so far stops the lowering.
fn add_limit(
    module: &mut Module,
    options: &Options,
    per_site: u32,
    lgc_input: bool,
    found: Extraction,
) -> Result<(limit::Conditions, Extraction), Failed> {
    let Extraction {
        calls,
        mut diagnostics,
    } = found;
    if stops(&diagnostics, options.werror) {
        return Err(failed(diagnostics, options.werror));
    }
    let live: Vec<PrintfCall> = calls
        .into_iter()
        .filter(|c| !c.callee.is_disabled(module))
        .collect();
    match limit::apply(module, per_site, &live) {
        Ok(conditions) => Ok((conditions, extract(module, lgc_input))),
        Err(error) => {
            let first = live[0].location(module);
            diagnostics.push(first.error(format!("cannot add the limit: {error}")));
            Err(failed(diagnostics, options.werror))
        }
    }
}

/// What a back end's planning and edits work on; its diagnostics and phase times are filled in.
struct Edit<'a> {
    module: &'a mut Module,
    options: &'a Options,
    /// The calls to lower (at least one), in module order.
    calls: &'a [PrintfCall],
    /// The conditions `--limit-per-site` put the calls under.
    limits: &'a limit::Conditions,
    diagnostics: &'a mut Vec<Diagnostic>,
    phases: &'a mut Phases,
}

/// What a back end's edits did, once its plan passed every check.
struct Edited {
    /// What each call writes, when [`Options::report`] asked for it; else empty.
    report: Vec<CallReport>,
    /// Whether the edits went through; for the AMD buffer stage, with the format table now in
    /// the module's PAL metadata.
    applied: Result<Option<Table<'static>>, EditError>,
}

impl Edit<'_> {
    /// The NVPTX plan and edits; the lowering fails (with the diagnostics taken) when the plan
    /// stops it.
    fn nvptx(self, layout: Layout) -> Result<Edited, Failed> {
        let Edit {
            module,
            options,
            calls,
            limits,
            diagnostics,
            phases,
        } = self;
        let planning = Instant::now();
        nvptx::check_declaration(module, &calls[0], diagnostics);
        let plans = nvptx::plan(module, calls, layout, diagnostics);
        phases.plan = planning.elapsed();
        if stops(diagnostics, options.werror) {
            return Err(failed(std::mem::take(diagnostics), options.werror));
        }
        let report = if options.report {
            report::nvptx(module, calls, &plans.layouts)
        } else {
            Vec::new()
        };
        let applying = Instant::now();
        let applied = guard_calls(module, options, calls, limits)
            .and_then(|()| nvptx::apply(module, calls, &plans))
            .and_then(|()| remove_printf_if_unused(module))
            .map(|()| None);
        phases.apply = applying.elapsed();
        Ok(Edited { report, applied })
    }

    /// The AMDGPU plan and edits for `settings`' stage; the lowering fails (with the
    /// diagnostics taken) when the plan stops it.
    fn amdgpu(self, settings: amdgpu::Settings) -> Result<Edited, Failed> {
        let Edit {
            module,
            options,
            calls,
            limits,
            diagnostics,
            phases,
        } = self;
        let planning = Instant::now();
        let plan = amdgpu::plan(module, calls, &settings, diagnostics);
        phases.plan = planning.elapsed();
        if stops(diagnostics, options.werror) {
            return Err(failed(std::mem::take(diagnostics), options.werror));
        }
        let report = if options.report {
            report::amdgpu(module, calls, options.runtime_strings)
        } else {
            Vec::new()
        };
        let applying = Instant::now();
        let applied = guard_calls(module, options, calls, limits)
            .and_then(|()| amdgpu::apply(module, calls, plan));
        phases.apply = applying.elapsed();
        Ok(Edited { report, applied })
    }
}

/// `--only`: every call that will be lowered goes behind a branch on the condition, after
/// every check passed (so that a failure leaves the module as it was) and before the back end
/// rewrites it (so that its whole lowering is inside the branch). Disabled calls (an older
/// `lgc.debug.printf` with a poison buffer) are only removed: they stay where they are.
fn guard_calls(
    module: &mut Module,
    options: &Options,
    calls: &[PrintfCall],
    limits: &limit::Conditions,
) -> Result<(), EditError> {
    if options.only.is_none() && limits.is_empty() {
        return Ok(());
    }
    let live: Vec<PrintfCall> = calls
        .iter()
        .filter(|c| !c.callee.is_disabled(module))
        .cloned()
        .collect();
    let nvptx = matches!(options.target, Target::Nvptx { .. });
    only::apply(module, options.only.as_ref(), limits, nvptx, &live)
}

/// The filter of a sharded parse for the NVPTX lowering (see [`Module::parse_shards_where`]):
/// where in the text of a function body the first place that the lowering may rewrite starts,
/// a mention of `printf` or a name spelled with escapes (`@"\70rintf"` is `@printf`). Text
/// without either is copied as it is, unparsed.
///
/// The search for `printf` is built once, here: the filter runs once per call in a body, and
/// building the search each time was half its cost (104,000 times on `bench lower`'s dense
/// module).
pub fn printf_filter() -> impl Fn(&[u8]) -> Option<usize> + Sync {
    let printf = memchr::memmem::Finder::new(extract::PRINTF.as_bytes()).into_owned();
    move |text: &[u8]| {
        let found = printf.find(text);
        let escape = memchr::memchr(b'\\', &text[..found.unwrap_or(text.len())]);
        escape.or(found)
    }
}

/// Whether the lowering stops before its edits: an error, or any warning under `--Werror`.
fn stops(diagnostics: &[Diagnostic], werror: bool) -> bool {
    diagnostics.iter().any(|d| d.is_error() || werror)
}

/// The failure with these diagnostics (warnings promoted under `--Werror`).
fn failure(diagnostics: Vec<Diagnostic>, werror: bool) -> Result<Lowered, Failed> {
    Err(failed(diagnostics, werror))
}

/// [`Failed`] with these diagnostics (warnings promoted under `--Werror`).
fn failed(diagnostics: Vec<Diagnostic>, werror: bool) -> Failed {
    let diagnostics = diagnostics
        .into_iter()
        .map(|d| if werror { d.promote() } else { d })
        .collect();
    Failed { diagnostics }
}

/// Removes the `printf` declaration once nothing refers to it (a definition stays).
pub(crate) fn remove_printf_if_unused(module: &mut Module) -> Result<(), EditError> {
    remove_declaration_if_unused(module, extract::PRINTF)
}

/// Removes a function declaration once nothing refers to it.
pub(crate) fn remove_declaration_if_unused(
    module: &mut Module,
    name: &str,
) -> Result<(), EditError> {
    if let Some(f) = module.function_by_name(name) {
        if module.function(f).is_declaration() {
            // Removal is refused while anything uses it: one scan of the module, not two.
            match module.remove_function(f) {
                Err(EditError::StillUsed { .. }) => {}
                other => other?,
            }
        }
    }
    Ok(())
}
