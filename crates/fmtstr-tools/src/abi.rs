//! `fmtstr abi` as a library: the PTX `.param` plan rendered as the command prints it, and
//! `--check`, the plan compared with the PTX llc wrote.
//!
//! Input: a plan (`fmtstr_nvptx::abi::plan_for_triple`) and, for the check, the PTX's bytes.
//! Output: the text or the JSON report (`Report`), and the differences.

use std::fmt::Write as _;

use fmtstr_nvptx::abi::{self, AccessPlan, CalleeKind, FunctionPlan, Plan, ReadMode};
use fmtstr_nvptx::ptx;
use serde::Serialize;

/// `fmtstr abi --json`: the plan, and the check when there is one (schemas/abi.schema.json).
#[derive(Debug, Serialize)]
pub struct Report<'p> {
    /// The plan; its fields are the report's top level.
    #[serde(flatten)]
    pub plan: &'p Plan,
    /// `--check`'s verdict; absent (not `null`) without `--check`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub check: Option<CheckReport>,
}

/// `--check`'s verdict: what was compared, and every difference.
#[derive(Debug, Serialize)]
pub struct CheckReport {
    /// The PTX file's name as given, which the messages start with.
    pub ptx: String,
    /// The PTX's functions compared: definitions and `.extern .func` declarations.
    pub functions: usize,
    /// The PTX's call sites compared.
    pub calls: usize,
    /// The PTX's `ld.param`/`st.param` instructions compared.
    pub accesses: usize,
    /// The PTX's atomic instructions compared.
    pub atomics: usize,
    /// Every difference found; empty when the PTX agrees with the plan.
    pub differences: Vec<CheckDifference>,
}

/// One way the PTX differs from the plan.
#[derive(Debug, Serialize)]
pub struct CheckDifference {
    /// The PTX symbol of the function that differs.
    pub function: String,
    /// What differs: the PTX's version, then the plan's.
    pub message: String,
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

/// `--check`: the plan against llc's PTX (`text`, from the file `ptx_name`); `filtered` when
/// the plan was cut to some functions. An error says why the PTX cannot be compared at all.
pub fn check(
    plan: &Plan,
    ptx_name: &str,
    bytes: Vec<u8>,
    filtered: bool,
    triple: Option<&str>,
) -> Result<CheckReport, String> {
    let text = String::from_utf8(bytes).map_err(|error| {
        format!("{ptx_name} is not PTX: it is not UTF-8 text\n  caused by: {error}")
    })?;
    let functions = ptx::read(&text);
    // A module of globals alone compiles to PTX without functions, and its empty plan agrees;
    // a file without a `.target` directive is not PTX at all.
    let is_ptx = text.lines().any(|l| l.trim_start().starts_with(".target"));
    if functions.is_empty() && !is_ptx {
        return Err(format!(
            "{ptx_name} is not PTX: it has neither a .target directive nor functions (expected the output of llc -march=nvptx64)"
        ));
    }
    if let Some(why) = triple_mismatch(plan, &text, &functions, triple) {
        return Err(format!("{ptx_name}: {why}"));
    }
    let (differences, counts) = ptx::compare(plan, &functions);
    Ok(CheckReport {
        ptx: ptx_name.to_owned(),
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

/// What `fmtstr abi` prints: the plan, then the check when there is one.
pub fn render(plan: &Plan, check: Option<&CheckReport>) -> String {
    let mut out = heading(plan);
    for f in &plan.functions {
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
