//! `fmtstr check FILE.spv`: the NonSemantic.DebugPrintf calls of a Vulkan shader against their
//! argument types. Reading the module and describing call sites is fmtstr_tools::spirv's.

use std::io::Write;
use std::path::Path;

use fmtstr_tools::spirv::{call_json, is_spirv, site};
use serde_json::json;

use crate::check::Style;

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
    style: Style,
) -> anyhow::Result<crate::Outcome> {
    use fmtstr_format::Severity;
    let bytes = fmtstr_fs::Input::read(path)?.into_bytes();
    let name = path.display().to_string();
    let checked = fmtstr_tools::spirv::check(&name, &bytes, dialect)?;
    let module = &checked.module;
    let with_findings = checked.findings.iter().filter(|f| !f.is_empty()).count();
    match style {
        Style::Sarif => crate::output::print_json(&fmtstr_tools::sarif::check_module(
            &name,
            &bytes,
            &checked,
            env!("FMTSTR_VERSION"),
        ))?,
        Style::Json => {
            let reports: Vec<_> = module
                .calls
                .iter()
                .zip(&checked.findings)
                .map(|(call, findings)| {
                    let mut site = call_json(module, call);
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
                    site
                })
                .collect();
            crate::output::print_json(&json!({
                "file": name,
                "dialect": dialect.name(),
                "calls": reports,
            }))?;
        }
        Style::Text => {
            for (call, findings) in module.calls.iter().zip(&checked.findings) {
                if findings.is_empty() {
                    continue;
                }
                let _ = writeln!(
                    crate::diagnostics::stderr(),
                    "{name}: {}",
                    site(module, call)
                );
                for finding in findings {
                    crate::diagnostics::print_finding(&call.format, finding);
                }
            }
            let calls = module.calls.len();
            eprintln!(
                "{name}: {calls} DebugPrintf call{} checked ({}), {with_findings} with findings",
                if calls == 1 { "" } else { "s" },
                dialect.name()
            );
        }
    }
    Ok(if with_findings == 0 {
        crate::Outcome::Clean
    } else {
        crate::Outcome::Findings
    })
}
