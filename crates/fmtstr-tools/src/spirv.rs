//! SPIR-V modules in `dump`, `check` and `audit`: the NonSemantic.DebugPrintf calls of Vulkan
//! shaders, read by `fmtstr_spirv`. The commands recognise a module by its magic number and
//! call in here.

use std::fmt::Write as _;

use fmtstr_meta::{escape, Table};
use fmtstr_spirv::{Call, Module};
use serde_json::{json, Value as Json};

use crate::{dump::Mode, Error};

/// Whether a file's bytes are a SPIR-V module (the magic number, in either byte order).
pub fn is_spirv(bytes: &[u8]) -> bool {
    fmtstr_spirv::is_spirv(bytes)
}

/// Reads a module; errors name the file.
pub fn read(name: &str, bytes: &[u8]) -> Result<Module, Error> {
    fmtstr_spirv::read(bytes).map_err(|error| Error::input(format!("{name}: {error}")))
}

/// The module's format-string table; errors name the file.
pub fn table(name: &str, module: &Module) -> Result<Table<'static>, Error> {
    fmtstr_spirv::table(&module.calls).map_err(|error| Error::input(format!("{name}: {error}")))
}

/// The table and the call sites of one module, for `fmtstr dump --json`.
pub fn dump_json(name: &str, bytes: &[u8]) -> Result<Json, Error> {
    let module = read(name, bytes)?;
    let table = table(name, &module)?;
    let (major, minor) = module.header.version;
    let calls = module
        .calls
        .iter()
        .map(|call| call_json(&module, call))
        .collect::<Vec<_>>();
    Ok(json!({
        "file": name,
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

/// One DebugPrintf call as `fmtstr dump --json` and `fmtstr check --format json` show it: its
/// offset, its format's ID and string, its argument types, and where in the shader it is.
pub(crate) fn call_json(module: &Module, call: &Call) -> Json {
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
pub fn dump_text(name: &str, bytes: &[u8], text: &mut String) -> Result<(), Error> {
    let module = read(name, bytes)?;
    let table = table(name, &module)?;
    let file = name;
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
    name: &str,
    bytes: &[u8],
    mode: Mode,
    reports: &mut Vec<Json>,
    text: &mut String,
) -> Result<(), Error> {
    if mode == Mode::All {
        // The module is read all the same, so that a broken one is an error here too.
        read(name, bytes)?;
        reports.push(json!({ "file": name, "document": Json::Null }));
    } else if mode == Mode::Json {
        reports.push(dump_json(name, bytes)?);
    } else {
        dump_text(name, bytes, text)?;
    }
    Ok(())
}

/// `fmtstr audit`'s reading of a module: its table, or why there is none (a malformed finding).
pub fn audit_table(bytes: &[u8]) -> Result<Option<Table<'static>>, String> {
    let module = fmtstr_spirv::read(bytes).map_err(|error| format!("SPIR-V: {error}"))?;
    fmtstr_spirv::table(&module.calls)
        .map(Some)
        .map_err(|error| format!("SPIR-V: {error}"))
}

/// `fmtstr check` of a module: its DebugPrintf calls, and each call's findings against its own
/// argument types (one list per call, in module order).
#[derive(Debug)]
pub struct ModuleCheck {
    /// The module as read, whose `calls` the findings follow.
    pub module: Module,
    /// `findings[i]`: the findings of `module.calls[i]`'s format against its arguments; an
    /// empty list for a call that is fine.
    pub findings: Vec<Vec<fmtstr_format::Finding>>,
}

/// Checks every DebugPrintf call of the module `name` in `dialect`; errors name the file.
pub fn check(
    name: &str,
    bytes: &[u8],
    dialect: fmtstr_format::Dialect,
) -> Result<ModuleCheck, Error> {
    let module = read(name, bytes)?;
    let findings = module
        .calls
        .iter()
        .map(|call| {
            let types = fmtstr_spirv::argument_types(call)
                .map_err(|error| Error::input(format!("{name}: {error}")))?;
            Ok(fmtstr_format::check_format(&call.format, &types, dialect))
        })
        .collect::<Result<_, Error>>()?;
    Ok(ModuleCheck { module, findings })
}

/// The length in bytes of the instruction at `offset` (its first word's high half counts its
/// words), when the module holds all of it.
pub fn instruction_len(bytes: &[u8], endian: fmtstr_spirv::Endian, offset: usize) -> Option<u64> {
    let word: [u8; 4] = bytes.get(offset..offset.checked_add(4)?)?.try_into().ok()?;
    let word = match endian {
        fmtstr_spirv::Endian::Little => u32::from_le_bytes(word),
        fmtstr_spirv::Endian::Big => u32::from_be_bytes(word),
    };
    let length = u64::from(word >> 16) * 4;
    (length > 0 && offset as u64 + length <= bytes.len() as u64).then_some(length)
}
