//! SPIR-V modules in `dump`, `check` and `audit`: the NonSemantic.DebugPrintf calls of Vulkan
//! shaders, read by `fmtstr_spirv`. The commands recognise a module by its magic number and
//! call in here; this file only prints.

use std::fmt::Write as _;
use std::path::Path;

use fmtstr_meta::{escape, Table};
use fmtstr_spirv::{Call, Module};
use serde_json::{json, Value as Json};

/// Whether a file's bytes are a SPIR-V module (the magic number, in either byte order).
pub fn is_spirv(bytes: &[u8]) -> bool {
    fmtstr_spirv::is_spirv(bytes)
}

/// Reads a module; errors name the file.
pub fn read(path: &Path, bytes: &[u8]) -> anyhow::Result<Module> {
    fmtstr_spirv::read(bytes).map_err(|error| anyhow::anyhow!("{}: {error}", path.display()))
}

/// The module's format-string table; errors name the file.
pub fn table(path: &Path, module: &Module) -> anyhow::Result<Table<'static>> {
    fmtstr_spirv::table(&module.calls)
        .map_err(|error| anyhow::anyhow!("{}: {error}", path.display()))
}

/// The table and the call sites of one module, for `fmtstr dump --json`.
pub fn dump_json(path: &Path, bytes: &[u8]) -> anyhow::Result<Json> {
    let module = read(path, bytes)?;
    let table = table(path, &module)?;
    let (major, minor) = module.header.version;
    let calls = module
        .calls
        .iter()
        .map(|call| call_json(&module, call))
        .collect::<Vec<_>>();
    Ok(json!({
        "file": path.display().to_string(),
        "format_strings": table.to_json(),
        "spirv": {
            "version": format!("{major}.{minor}"),
            "generator": module.header.generator,
            "bound": module.header.bound,
            "big_endian": module.header.endian == fmtstr_spirv::Endian::Big,
        },
        "call_sites": calls,
    }))
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn call_json(module: &Module, call: &Call) -> Json {
    let id = fmtstr_meta::FormatId::of(&call.format);
    let function = call.function.map(|index| {
        let function = &module.functions[index];
        json!({ "id": function.id, "name": function.name.as_deref().map(lossy) })
    });
    let entry_points = call
        .entry_points
        .iter()
        .map(|&index| {
            let entry = &module.entry_points[index];
            json!({
                "name": lossy(&entry.name),
                "execution_model": fmtstr_spirv::execution_model_name(entry.execution_model),
            })
        })
        .collect::<Vec<_>>();
    let line = call.line.as_ref().map(|line| {
        json!({
            "file": line.file.as_deref().map(lossy),
            "line": line.line,
            "column": line.column,
        })
    });
    let arguments = call
        .args
        .iter()
        .map(|arg| match &arg.kind {
            fmtstr_spirv::ArgKind::Value(ty) => ty.to_string(),
            fmtstr_spirv::ArgKind::Unsupported(what) => what.clone(),
            fmtstr_spirv::ArgKind::Unknown => "unknown".to_string(),
        })
        .collect::<Vec<_>>();
    json!({
        "offset": call.offset,
        "index": id.get(),
        "hex": format!("{id:#}"),
        "string": escape::escape(&call.format),
        "arguments": arguments,
        "function": function,
        "entry_points": entry_points,
        "line": line,
    })
}

/// The table and call sites of one module as text, for `fmtstr dump`.
pub fn dump_text(path: &Path, bytes: &[u8], text: &mut String) -> anyhow::Result<()> {
    let module = read(path, bytes)?;
    let table = table(path, &module)?;
    let file = path.display();
    let (major, minor) = module.header.version;
    let calls = module.calls.len();
    let count = table.entries.len();
    let _ = writeln!(
        text,
        "{file}: SPIR-V {major}.{minor}, {calls} DebugPrintf call{}, {count} format string{}",
        if calls == 1 { "" } else { "s" },
        if count == 1 { "" } else { "s" }
    );
    if count == 0 {
        return Ok(());
    }
    let _ = writeln!(
        text,
        "  {:<14}  {:>15}  {:>4}  {:<12}  string",
        "ID", "decimal", "args", "64-bit mask"
    );
    for entry in &table.entries {
        let _ = writeln!(
            text,
            "  {:#}  {:>15}  {:>4}  {:<12}  \"{}\"",
            entry.id(),
            entry.id().get(),
            entry.argument_count(),
            entry.mask().to_string(),
            escape::escape(entry.bytes())
        );
    }
    let _ = writeln!(text, "  call sites:");
    for call in &module.calls {
        let _ = writeln!(text, "    {}", site(&module, call));
    }
    Ok(())
}

/// One call site in words: byte offset, source line, function, entry points and ID.
pub fn site(module: &Module, call: &Call) -> String {
    let mut out = format!("byte {}", call.offset);
    if let Some(line) = &call.line {
        let file = line.file.as_deref().map_or("?".to_string(), lossy);
        let _ = write!(out, " ({file}:{}", line.line);
        if line.column != 0 {
            let _ = write!(out, ":{}", line.column);
        }
        out.push(')');
    }
    if let Some(function) = call.function.map(|index| &module.functions[index]) {
        match &function.name {
            Some(name) => {
                let _ = write!(out, " in {}", lossy(name));
            }
            None => {
                let _ = write!(out, " in %{}", function.id);
            }
        }
    }
    if !call.entry_points.is_empty() {
        let names: Vec<String> = call
            .entry_points
            .iter()
            .map(|&index| {
                let entry = &module.entry_points[index];
                format!(
                    "{} {}",
                    fmtstr_spirv::execution_model_name(entry.execution_model),
                    lossy(&entry.name)
                )
            })
            .collect();
        let _ = write!(out, " [entry {}]", names.join(", "));
    }
    let _ = write!(
        out,
        " {:#} \"{}\"",
        fmtstr_meta::FormatId::of(&call.format),
        escape::escape(&call.format)
    );
    out
}

/// `fmtstr dump` of one module: JSON into `reports` (`--all`: no PAL document), else text.
pub fn dump(
    path: &Path,
    bytes: &[u8],
    json: bool,
    all: bool,
    reports: &mut Vec<Json>,
    text: &mut String,
) -> anyhow::Result<()> {
    if all {
        // The module is read all the same, so that a broken one is an error here too.
        read(path, bytes)?;
        reports.push(json!({ "file": path.display().to_string(), "document": Json::Null }));
    } else if json {
        reports.push(dump_json(path, bytes)?);
    } else {
        dump_text(path, bytes, text)?;
    }
    Ok(())
}

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
    let bytes = std::fs::read(path)
        .map_err(|error| anyhow::anyhow!("cannot read {}: {error}", path.display()))?;
    let module = read(path, &bytes)?;
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
            eprintln!("{}: {}", path.display(), site(&module, call));
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

/// `fmtstr audit`'s reading of a module: its table, or why there is none (a malformed finding).
pub fn audit_table(bytes: &[u8]) -> Result<Option<Table<'static>>, String> {
    let module = fmtstr_spirv::read(bytes).map_err(|error| format!("SPIR-V: {error}"))?;
    fmtstr_spirv::table(&module.calls)
        .map(Some)
        .map_err(|error| format!("SPIR-V: {error}"))
}
