//! `fmtstr abi`: the PTX `.param` plan llc 22 (or, with `--llc 19`, llc 19) makes for a
//! module, and a check of it against the PTX llc wrote.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use fmtstr_ir::Module;
use fmtstr_nvptx::abi::{self, AccessPlan, CalleeKind, FunctionPlan, Plan, ReadMode};
use fmtstr_nvptx::{ptx, Llc};
use serde::Serialize;

use crate::nvptx_config::NvptxArgs;
use crate::output::{print, print_json};
use crate::Outcome;

/// Print the PTX parameter plan that llc 22 or 19 (-march=nvptx64) makes for an LLVM IR module
///
/// llc 22's plan by default, llc 19's with --llc 19. The first line of the output (and "llc"
/// in the JSON's "config") names whose plan it is.
///
/// For every function definition, every declaration llc emits and every call site: the
/// .param declarations (<func>_param_<N>, func_retval0; param<N> and retval0 at call sites),
/// the value parts of each parameter, argument and return value with their offsets, every
/// ld.param/st.param as offset, width and vector arity (widths are shown as .bN whatever
/// llc's type letter), the call envelope with its call-sequence number, the .callprototype
/// of indirect calls, the byval decision-table row (K&&B&&G, K&&B&&!G, !K&&B, !B&&D,
/// !B&&!D), and the atom instruction of every atomicrmw and cmpxchg.
///
/// The plan describes the module as llc sees it after `fmtstr lower --pass struct-args`
/// with the same --no-opt-byval setting: byval aggregates read in place from the parameter
/// space, and kernel byval parameters whose address escapes made grid constants.
///
/// Sizes and alignments are those of llc's own nvptx64 DataLayout (i128 aligned to 16,
/// 64-bit pointers), whatever the module's `target datalayout` says: llc replaces it.
///
/// --check compares every declaration, call sequence and atomic exactly; llc may leave out,
/// narrow, or join into vectors the ld.param reads of a function's own parameters (it
/// optimizes them like any load), but never read outside a planned read.
///
/// llc 22 differs from llc 19 in kernel pointer parameters (`.ptr`, a state space and
/// `.align`), in the parts it splits values into (integers of widths PTX lacks, <2 x i8>,
/// vectors of lengths that are not powers of two) and how it moves them (split by the
/// declaration's alignment, consecutive constants merged into wider stores), in loading only
/// the used parts of a call's result, in moving 32 bits of 16- or 8-bit elements as one b32
/// or as a vector, in copying byval arguments in pieces of its own choosing, in calling a
/// function of another type through a .callprototype, in kernels for global constructors,
/// in the older vararg lowering, in OpenCL image parameters, and in atomics (atom.inc and
/// atom.dec, compare-and-swap with its order and scope); where its lowering is not measured
/// (packed fields at odd offsets, 128-bit atomics, byval variadic arguments, <2 x float> on
/// sm_100) the plan for llc 22 is a finding instead (the crate docs of fmtstr_nvptx::abi
/// list every rule). --check reads the PTX of either llc (tabs in declarations, calls on one
/// line or many). When llc ran with -mtriple, pass the same --triple.
///
/// Exit 1 when the planner cannot vouch for something (it says what, with file:line:column)
/// or, with --check, when the PTX differs from the plan. Checked against llc-19 and llc-22 on
/// LLVM 19's own NVPTX tests, and against llc-22 on LLVM 22's: every module agrees or is
/// reported as not vouched for.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  fmtstr abi k.ll                                  the plan, one block per function
  fmtstr abi k.ll --json | jq '.functions[].params[].declaration'
  fmtstr abi k.ll --function k --function helper   only these functions
  fmtstr abi k.ll --sm 80                          atomics as sm_80 has them
  fmtstr abi k.ll --llc 19                         llc 19's plan (the default is llc 22's)

  Check llc against the plan (the struct-args pass first, with the same setting):
  fmtstr lower --pass struct-args k.ll -o k.sa.ll
  llc-22 -march=nvptx64 -mcpu=sm_90 k.sa.ll -o k.ptx
  fmtstr abi k.ll --check k.ptx                    exit 1 and the differences, if any
  llc-19 -march=nvptx64 -mcpu=sm_90 k.sa.ll -o k19.ptx
  fmtstr abi k.ll --llc 19 --check k19.ptx         the same for llc 19
  llc-22 -mtriple=nvptx64-nvidia-cuda ...          then pass --triple nvptx64-nvidia-cuda

  Reading the plan (the kernel of samples/abi/kinds.ll):
    .param .align 8 .b8 k_param_0[32]
        byval %S, row K&&B&&!G, read in place
        parts  f64@0 i8@8 i32@12 i32@16 i32@20 i32@24
        reads  ld.param.b64 [k_param_0+0]  ld.param.b8 [k_param_0+8]  ld.param.b32 [k_param_0+24]
  says: llc declares the 32-byte struct (DataLayout alloc size) aligned to 8, and loads only
  the three fields the kernel uses, at their offsets, straight from .param (no local copy).

Exit codes:
  0  the plan (and, with --check, the PTX agrees with it)
  1  findings: something the planner cannot vouch for, or --check differences
  2  bad input or usage (file:line:column for IR errors)")]
pub struct Args {
    /// The module: LLVM assembly (.ll); `-` reads stdin.
    #[arg(value_name = "IN")]
    input: PathBuf,
    /// Print the plan as JSON (schemas/abi.schema.json).
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    nvptx: NvptxArgs,
    /// Only this function (by IR name, without @); repeat for more.
    #[arg(long, value_name = "NAME")]
    function: Vec<String>,
    /// Compare the plan with the PTX llc wrote for IN (after the struct-args pass with the
    /// same setting) and report every difference.
    #[arg(long, value_name = "PTX")]
    check: Option<PathBuf>,
    /// Whose llc the plan describes: LLVM 19's or LLVM 22's (they lower some parameters,
    /// return values, atomics and varargs differently; where 22's lowering is not measured
    /// the plan says so in a finding). The output's first line names it.
    #[arg(long, value_name = "MAJOR", default_value = "22", value_parser = ["19", "22"])]
    llc: String,
    /// The -mtriple llc was given, which replaces the module's `target triple` (it decides
    /// the OpenCL spellings and whether llc expands `...`); without it, the module's own.
    /// --check refuses (exit 2) PTX that shows another triple than the plan's.
    #[arg(long, value_name = "TRIPLE")]
    triple: Option<String>,
}

#[derive(Serialize)]
struct Report<'p> {
    #[serde(flatten)]
    plan: &'p Plan,
    #[serde(skip_serializing_if = "Option::is_none")]
    check: Option<CheckReport>,
}

#[derive(Serialize)]
struct CheckReport {
    ptx: String,
    functions: usize,
    calls: usize,
    accesses: usize,
    atomics: usize,
    differences: Vec<CheckDifference>,
}

#[derive(Serialize)]
struct CheckDifference {
    function: String,
    message: String,
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let (name, text) = read_input(&args.input)?;
    if text.starts_with(b"BC\xC0\xDE") || text.starts_with(b"\xDE\xC0\x17\x0B") {
        bail!("{name} is LLVM bitcode; disassemble it first: llvm-dis-19 {name} -o module.ll");
    }
    let module = Module::parse(&name, text).map_err(|error| anyhow::anyhow!("{error}"))?;
    let mut config = args.nvptx.config();
    config.llc = args
        .llc
        .parse()
        .ok()
        .and_then(Llc::from_major)
        .unwrap_or_default();
    let mut plan = abi::plan_for_triple(&module, &config, args.triple.as_deref());
    if !args.function.is_empty() {
        let missing: Vec<&String> = args
            .function
            .iter()
            .filter(|n| !plan.functions.iter().any(|f| &f.name == *n))
            .collect();
        if !missing.is_empty() {
            bail!(
                "{name} defines or emits no function named {} (names are IR names, without @)",
                missing
                    .iter()
                    .map(|n| format!("@{n}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        plan.functions.retain(|f| args.function.contains(&f.name));
        plan.findings
            .retain(|f| args.function.contains(&f.function));
    }
    let check = match &args.check {
        Some(path) => {
            let triple = args.triple.clone().or_else(|| module.target_triple());
            Some(check(
                &plan,
                path,
                !args.function.is_empty(),
                triple.as_deref(),
            )?)
        }
        None => None,
    };
    let clean = plan.findings.is_empty() && check.as_ref().is_none_or(|c| c.differences.is_empty());
    if args.json {
        print_json(&Report { plan: &plan, check })?;
    } else {
        print(render(&plan, check.as_ref()))?;
    }
    Ok(if clean {
        Outcome::Clean
    } else {
        Outcome::Findings
    })
}

fn read_input(path: &Path) -> anyhow::Result<(String, Vec<u8>)> {
    let bytes = fmtstr_fs::Input::read(path)?.into_bytes();
    Ok((fmtstr_fs::input::name_of(path), bytes))
}

/// Whether the PTX was written for another triple than the plan (llc's -mtriple replaces the
/// module's `target triple`): OpenCL's `nvcl` triples write `texmode_independent` in
/// `.target`, and llc expands `...` into a pointer under nvptx triples only. A plan for the
/// wrong triple would differ everywhere; this says why instead (bad usage, exit 2).
fn triple_mismatch(
    plan: &Plan,
    text: &str,
    functions: &[ptx::PtxFunction],
    triple: Option<&str>,
) -> Option<String> {
    let nvcl = triple.is_some_and(|t| t.split('-').nth(2).is_some_and(|os| os.starts_with("nvcl")));
    let target = text
        .lines()
        .find(|l| l.trim_start().starts_with(".target"))?;
    let ptx_nvcl = target.contains("texmode_independent");
    let shown = triple.unwrap_or("none");
    if nvcl != ptx_nvcl {
        return Some(format!(
            "the PTX was written for {} triple (its `{}`), but the plan is for the triple {shown}: pass the -mtriple llc was given as --triple",
            if ptx_nvcl { "an OpenCL (nvcl)" } else { "a CUDA" },
            target.trim()
        ));
    }
    for f in &plan.functions {
        let packed = f
            .params
            .iter()
            .any(|p| p.vararg_buffer && p.name.ends_with("_vararg"));
        let Some(p) = functions.iter().find(|p| p.name == f.ptx_name) else {
            continue;
        };
        if packed && !p.params.iter().any(|d| d.contains("_vararg")) {
            return Some(format!(
                "llc expanded the `...` of {} into a buffer pointer, which it does only under an nvptx triple, but the plan is for the triple {shown}: pass the -mtriple llc was given as --triple",
                f.ptx_name
            ));
        }
    }
    None
}

fn check(
    plan: &Plan,
    path: &Path,
    filtered: bool,
    triple: Option<&str>,
) -> anyhow::Result<CheckReport> {
    let bytes = fmtstr_fs::Input::read(path)?.into_bytes();
    let text = String::from_utf8(bytes)
        .with_context(|| format!("{} is not PTX: it is not UTF-8 text", path.display()))?;
    let functions = ptx::read(&text);
    // A module of globals alone compiles to PTX without functions, and its empty plan agrees;
    // a file without a `.target` directive is not PTX at all.
    let is_ptx = text.lines().any(|l| l.trim_start().starts_with(".target"));
    if functions.is_empty() && !is_ptx {
        bail!(
            "{} is not PTX: it has neither a .target directive nor functions (expected the output of llc -march=nvptx64)",
            path.display()
        );
    }
    if let Some(why) = triple_mismatch(plan, &text, &functions, triple) {
        bail!("{}: {why}", path.display());
    }
    let (differences, counts) = ptx::compare(plan, &functions);
    Ok(CheckReport {
        ptx: path.display().to_string(),
        functions: counts.functions + counts.declarations,
        calls: counts.calls,
        accesses: counts.accesses,
        atomics: counts.atomics,
        differences: differences
            .into_iter()
            // With --function, the other functions of the PTX are not in the plan.
            .filter(|d| !(filtered && d.message == "in the PTX, not in the plan"))
            .map(|d| CheckDifference {
                function: d.function,
                message: d.message,
            })
            .collect(),
    })
}

fn access(op: &str, name: &str, a: &AccessPlan) -> String {
    let vector = if a.vector > 1 {
        format!(".v{}", a.vector)
    } else {
        String::new()
    };
    format!("{op}{vector}.b{} [{name}+{}]", a.bits, a.offset)
}

fn accesses(op: &str, name: &str, list: &[AccessPlan]) -> String {
    if list.is_empty() {
        return "none".to_string();
    }
    list.iter()
        .map(|a| access(op, name, a))
        .collect::<Vec<_>>()
        .join("  ")
}

fn parts(list: &[abi::PartPlan]) -> String {
    list.iter()
        .map(|p| format!("{}@{}", p.ty, p.offset))
        .collect::<Vec<_>>()
        .join(" ")
}

fn render_function(out: &mut String, file: &str, plan_llc: u32, f: &FunctionPlan) {
    let kind = match f.kind {
        abi::FunctionKind::Kernel => "kernel",
        abi::FunctionKind::Device if f.definition => "device function",
        abi::FunctionKind::Device => "declaration",
    };
    let _ = write!(out, "@{}: {kind}, {} {}", f.name, f.directive, f.ptx_name);
    if f.line > 0 {
        let _ = write!(out, " ({file}:{})", f.line);
    }
    if !f.emitted {
        out.push_str(" (not emitted: unused)");
    }
    out.push('\n');
    for p in &f.params {
        let _ = writeln!(out, "  {}", p.declaration);
        let mut what = Vec::new();
        if let Some(t) = &p.byval {
            what.push(format!("byval {t}"));
        }
        if p.vararg_buffer {
            what.push("the buffer of `...` arguments (llc expands varargs)".to_string());
        }
        if let Some(row) = p.row {
            let row = serde_json::to_value(row)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            what.push(format!("row {row}"));
        }
        match p.read_mode {
            ReadMode::InPlace => what.push("read in place".into()),
            ReadMode::GridConstant => {
                what.push("grid constant: read in place, address by cvta.param".into())
            }
            ReadMode::LocalCopy => what.push("copied into local memory by llc".into()),
            ReadMode::Value => {}
        }
        if !what.is_empty() {
            let _ = writeln!(out, "      {}", what.join(", "));
        }
        if !p.parts.is_empty() {
            let _ = writeln!(out, "      parts  {}", parts(&p.parts));
        }
        match &p.reads {
            _ if !f.definition => {}
            Some(reads) => {
                let _ = writeln!(out, "      reads  {}", accesses("ld.param", &p.name, reads));
            }
            None => {
                let _ = writeln!(
                    out,
                    "      reads  not predicted (a run-time address or a local copy)"
                );
            }
        }
    }
    if let Some(decl) = &f.return_declaration {
        let _ = writeln!(out, "  returns {decl}");
        let _ = writeln!(out, "      parts  {}", parts(&f.return_parts));
        for r in &f.returns {
            let _ = writeln!(
                out,
                "      ret at line {}: {}",
                r.line,
                accesses("st.param", "func_retval0", &r.stores)
            );
        }
    }
    for c in &f.calls {
        let callee = match c.callee.kind {
            CalleeKind::Direct => format!("call.uni {}", c.callee.name.as_deref().unwrap_or("")),
            CalleeKind::Indirect => "indirect call".to_string(),
        };
        let row = serde_json::to_value(c.row)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "  {file}:{}:{}: callseq {}, {callee} (row {row})",
            c.line, c.column, c.seq
        );
        if let Some(p) = &c.callee.prototype {
            let _ = writeln!(out, "      {p}");
        }
        for a in &c.args {
            let _ = writeln!(
                out,
                "      {};  {}{}",
                a.declaration,
                if a.byval && plan_llc >= 22 {
                    "st.param not predicted".to_string()
                } else {
                    accesses("st.param", &a.name, &a.stores)
                },
                match (a.byval, plan_llc >= 22) {
                    (true, false) => "  (byval: copied from memory)",
                    (true, true) =>
                        "  (byval: copied from memory in pieces llc 22 chooses, inside the array)",
                    _ => "",
                }
            );
        }
        if !c.vararg_buffer.is_empty() {
            let slots: Vec<String> = c
                .vararg_buffer
                .iter()
                .map(|s| format!("arg {} at {} ({} bytes)", s.index, s.offset, s.size))
                .collect();
            let _ = writeln!(out, "      `...` buffer: {}", slots.join(", "));
        }
        if let Some(r) = &c.return_declaration {
            let _ = writeln!(
                out,
                "      {r};  {}",
                accesses("ld.param", "retval0", &c.return_loads)
            );
        }
        if let Some(note) = &c.note {
            let _ = writeln!(out, "      note: {note}");
        }
    }
    for a in &f.atomics {
        let what = match (&a.mnemonic, &a.libcall) {
            (Some(m), _) => m.clone(),
            (None, Some(l)) => format!("call {l}"),
            (None, None) => String::new(),
        };
        let lowering = match a.lowering {
            abi::AtomicLowering::Native => "",
            abi::AtomicLowering::CasLoop => " (compare-and-swap loop)",
            abi::AtomicLowering::Libcall => " (runtime call)",
            abi::AtomicLowering::Local => " (local memory: an ordinary load and store)",
        };
        let _ = writeln!(
            out,
            "  {file}:{}:{}: {} {} ({}): {what}{lowering}",
            a.line, a.column, a.operation, a.value_type, a.space
        );
        if let Some(note) = &a.note {
            let _ = writeln!(out, "      note: {note}");
        }
    }
}

/// The first line: whose llc, for which SM and PTX version, with which setting.
fn heading(plan: &Plan) -> String {
    format!(
        "plan for llc-{} -march=nvptx64 -mcpu=sm_{} (PTX {}.{}, opt-byval {})\n",
        plan.config.llc,
        plan.config.sm,
        plan.config.ptx_version / 10,
        plan.config.ptx_version % 10,
        if plan.config.opt_byval { "on" } else { "off" }
    )
}

fn render(plan: &Plan, check: Option<&CheckReport>) -> String {
    let mut out = heading(plan);
    for (i, f) in plan.functions.iter().enumerate() {
        let _ = i;
        out.push('\n');
        render_function(&mut out, &plan.file, plan.config.llc, f);
    }
    for finding in &plan.findings {
        let at = if finding.line > 0 {
            format!("{}:{}:{}", plan.file, finding.line, finding.column)
        } else {
            plan.file.clone()
        };
        let _ = writeln!(
            out,
            "{at}: finding: in @{}: {}",
            finding.function, finding.message
        );
    }
    if let Some(c) = check {
        if c.differences.is_empty() {
            let _ = writeln!(
                out,
                "{}: agrees with the plan ({} functions, {} calls, {} ld.param/st.param, {} atomics)",
                c.ptx, c.functions, c.calls, c.accesses, c.atomics
            );
        } else {
            for d in &c.differences {
                let _ = writeln!(
                    out,
                    "{}: difference in {}: {}",
                    c.ptx, d.function, d.message
                );
            }
        }
    }
    out
}
