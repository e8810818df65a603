//! `fmtstr check FILE.spv`: the NonSemantic.DebugPrintf calls of a Vulkan shader against their
//! argument types. Reading the module and describing call sites is fmtstr_tools::spirv's.

use std::io::Write;
use std::path::Path;

use fmtstr_tools::spirv::{call_json, is_spirv, read, site};
use serde_json::json;

/// Whether `fmtstr check`'s FORMAT argument names a SPIR-V module: an existing file that starts
/// with the magic number, or a name ending in `.spv` (whose reading errors say what is wrong).
pub fn names_module(argument: &str) -> bool {
    let path = Path::new(argument);
    if argument.to_ascii_lowercase().ends_with(".spv") {
        return true;
    }
    let mut magic = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut file| std::io::Read::read_exact(&mut file, &mut magic))
        .is_ok()
        && is_spirv(&magic)
}

/// `fmtstr check FILE.spv`: every DebugPrintf call against its own argument types.
pub fn check(
    path: &Path,
    dialect: fmtstr_format::Dialect,
    json: bool,
) -> anyhow::Result<crate::Outcome> {
    use fmtstr_format::Severity;
    let bytes = fmtstr_fs::Input::read(path)?.into_bytes();
    let module = read(&path.display().to_string(), &bytes)?;
    let mut reports = Vec::with_capacity(module.calls.len());
    let mut with_findings = 0;
    for call in &module.calls {
        let types = fmtstr_spirv::argument_types(call)
            .map_err(|error| anyhow::anyhow!("{}: {error}", path.display()))?;
        let findings = fmtstr_format::check_format(&call.format, &types, dialect);
        if !findings.is_empty() {
            with_findings += 1;
        }
        if json {
            let mut site = call_json(&module, call);
            site["findings"] = findings
                .iter()
                .map(|finding| {
                    json!({
                        "kind": finding.kind.name(),
                        "severity": match finding.severity {
                            Severity::Warning => "warning",
                            Severity::Error => "error",
                        },
                        "offset": finding.offset,
                        "argument": finding.arg_index,
                        "message": finding.to_string(),
                        "fix": finding.fix,
                    })
                })
                .collect();
            reports.push(site);
        } else if !findings.is_empty() {
            let _ = writeln!(
                crate::diagnostics::stderr(),
                "{}: {}",
                path.display(),
                site(&module, call)
            );
            for finding in &findings {
                crate::diagnostics::print_finding(&call.format, finding);
            }
        }
    }
    if json {
        crate::output::print_json(&json!({
            "file": path.display().to_string(),
            "dialect": dialect.name(),
            "calls": reports,
        }))?;
    } else {
        let calls = module.calls.len();
        eprintln!(
            "{}: {calls} DebugPrintf call{} checked ({}), {with_findings} with findings",
            path.display(),
            if calls == 1 { "" } else { "s" },
            dialect.name()
        );
    }
    Ok(if with_findings == 0 {
        crate::Outcome::Clean
    } else {
        crate::Outcome::Findings
    })
}
