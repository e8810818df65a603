//! `fmtstr check` as a library: a format against IR argument types, or every DebugPrintf call
//! of a SPIR-V module, rendered as the command prints it (text diagnostics, the JSON report,
//! or a SARIF log). The CLI, the C library and the Python package call these functions and
//! print what they return.
//!
//! Input: the format's bytes (or the module's) and [`CheckOptions`]. Output: a [`Checked`]:
//! the exit code, what goes to stdout and to stderr, and the final error line.

use std::fmt::Write as _;

use fmtstr_format::{check_format, ArgType, Dialect, Finding, ScalarType, Severity};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::spirv::{call_json, site};

/// How `check` prints its findings.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum CheckStyle {
    /// clang-style diagnostics on stderr.
    #[default]
    Text,
    /// One JSON report on stdout (schemas/check.schema.json, check-spirv.schema.json).
    Json,
    /// A SARIF 2.1.0 log on stdout.
    Sarif,
}

/// Everything `fmtstr check` is asked, by the names of its command-line options (as JSON
/// for the C library: `{"args": ["i32", "ptr"], "dialect": "c", "format": "json"}`).
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case", deny_unknown_fields, default)]
pub struct CheckOptions {
    /// The argument types, as LLVM IR spells them (`i32`, `ptr`, `v4f32`).
    pub args: Vec<String>,
    /// `gpu`, `c`, `opencl` or `vvl`; the default is `gpu` for a format and `vvl` for a module.
    pub dialect: Option<String>,
    /// `--format`: diagnostics on stderr (the default), or a JSON report or SARIF log on stdout.
    pub format: CheckStyle,
}

/// What `fmtstr check` prints and how it ends.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Checked {
    /// 0: no findings; 1: findings; 2: the format cannot be parsed, or bad input. The CLI's
    /// exit codes.
    pub code: u8,
    /// What the command prints on stdout (the JSON report or the SARIF log).
    pub stdout: String,
    /// What it prints on stderr before its final error line (the text diagnostics).
    pub stderr: String,
    /// The final error line (code 2), as the CLI prints it after `fmtstr: error: `.
    pub error: Option<String>,
}

impl Checked {
    fn usage(message: String) -> Checked {
        Checked {
            code: 2,
            error: Some(message),
            ..Checked::default()
        }
    }
}

impl CheckOptions {
    fn dialect(&self, default: Dialect) -> Result<Dialect, String> {
        match &self.dialect {
            None => Ok(default),
            Some(name) => name
                .parse()
                .map_err(|error: fmtstr_format::UnknownDialect| error.to_string()),
        }
    }
}

#[derive(Serialize)]
struct Report {
    format: String,
    dialect: &'static str,
    findings: Vec<JsonFinding>,
}

#[derive(Serialize)]
struct JsonFinding {
    kind: &'static str,
    severity: &'static str,
    /// Byte offset in the format of what the finding is about, when it has one.
    offset: Option<usize>,
    /// 0-based index of the argument, when the finding has one.
    argument: Option<usize>,
    message: String,
    fix: Option<String>,
}

fn severity_name(severity: Severity) -> &'static str {
    match severity {
        Severity::Warning => "warning",
        Severity::Error => "error",
    }
}

fn pretty(value: &impl Serialize) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    text
}

/// `fmtstr check FORMAT --args ...`: the format's bytes checked against `options.args`.
/// `version` names the tool in a SARIF log.
pub fn check_format_bytes(format: &[u8], options: &CheckOptions, version: &str) -> Checked {
    let dialect = match options.dialect(Dialect::Gpu) {
        Ok(dialect) => dialect,
        Err(message) => return Checked::usage(message),
    };
    let mut types = Vec::new();
    for (index, name) in options
        .args
        .iter()
        .filter(|name| !name.trim().is_empty())
        .enumerate()
    {
        match parse_ir_type(name.trim()) {
            Ok(ty) => types.push(ty),
            Err(message) => {
                return Checked::usage(format!(
                    "in --args, type {}\n  caused by: {message}",
                    index + 1
                ))
            }
        }
    }
    let findings = check_format(format, &types, dialect);
    let mut checked = Checked::default();
    match options.format {
        CheckStyle::Sarif => {
            checked.stdout = pretty(&crate::sarif::check_format(format, &findings, version));
        }
        CheckStyle::Json => {
            checked.stdout = pretty(&Report {
                format: fmtstr_meta::escape::escape(format),
                dialect: dialect.name(),
                findings: findings
                    .iter()
                    .map(|finding| JsonFinding {
                        kind: finding.kind.name(),
                        severity: severity_name(finding.severity),
                        offset: finding.offset,
                        argument: finding.arg_index,
                        message: finding.to_string(),
                        fix: finding.fix.clone(),
                    })
                    .collect(),
            });
        }
        CheckStyle::Text => {
            for finding in &findings {
                checked.stderr.push_str(&finding_text(format, finding));
            }
        }
    }
    if let Some(error) = findings.iter().find(|f| f.severity == Severity::Error) {
        checked.code = 2;
        checked.error = Some(format!(
            "the format cannot be parsed (byte {}): {}{}",
            error.offset.unwrap_or(0),
            error.message,
            error
                .fix
                .as_deref()
                .map(|fix| format!("; {fix}"))
                .unwrap_or_default()
        ));
    } else {
        checked.code = u8::from(!findings.is_empty());
    }
    checked
}

/// `fmtstr check MODULE.spv`: every DebugPrintf call of a SPIR-V module (named `name`).
pub fn check_module_bytes(
    name: &str,
    bytes: &[u8],
    options: &CheckOptions,
    version: &str,
) -> Checked {
    let dialect = match options.dialect(Dialect::Vvl) {
        Ok(dialect) => dialect,
        Err(message) => return Checked::usage(message),
    };
    let checked_module = match crate::spirv::check(name, bytes, dialect) {
        Ok(checked) => checked,
        Err(error) => return Checked::usage(crate::describe(&error)),
    };
    let module = &checked_module.module;
    let with_findings = checked_module
        .findings
        .iter()
        .filter(|f| !f.is_empty())
        .count();
    let mut checked = Checked {
        code: u8::from(with_findings > 0),
        ..Checked::default()
    };
    match options.format {
        CheckStyle::Sarif => {
            checked.stdout = pretty(&crate::sarif::check_module(
                name,
                bytes,
                &checked_module,
                version,
            ));
        }
        CheckStyle::Json => {
            let reports: Vec<_> = module
                .calls
                .iter()
                .zip(&checked_module.findings)
                .map(|(call, findings)| {
                    let mut site = call_json(module, call);
                    site["findings"] = findings
                        .iter()
                        .map(|finding| {
                            json!({
                                "kind": finding.kind.name(),
                                "severity": severity_name(finding.severity),
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
            checked.stdout = pretty(&json!({
                "file": name,
                "dialect": dialect.name(),
                "calls": reports,
            }));
        }
        CheckStyle::Text => {
            for (call, findings) in module.calls.iter().zip(&checked_module.findings) {
                if findings.is_empty() {
                    continue;
                }
                let _ = writeln!(checked.stderr, "{name}: {}", site(module, call));
                for finding in findings {
                    checked
                        .stderr
                        .push_str(&finding_text(&call.format, finding));
                }
            }
            let calls = module.calls.len();
            let _ = writeln!(
                checked.stderr,
                "{name}: {calls} DebugPrintf call{} checked ({}), {with_findings} with findings",
                if calls == 1 { "" } else { "s" },
                dialect.name()
            );
        }
    }
    checked
}

/// One finding as clang-style text: the position, the message, the format with a caret under
/// the byte, and the fix.
pub fn finding_text(format: &[u8], finding: &Finding) -> String {
    let position = match (finding.offset, finding.arg_index) {
        (Some(offset), Some(argument)) => format!("byte {offset}, argument {}", argument + 1),
        (Some(offset), None) => format!("byte {offset}"),
        (None, Some(argument)) => format!("argument {}", argument + 1),
        (None, None) => "format".to_owned(),
    };
    let mut out = format!(
        "fmtstr: {}: {position}: {finding} [-Wformat]\n",
        severity_name(finding.severity)
    );
    if let Some(offset) = finding.offset {
        let _ = writeln!(
            out,
            "{}",
            fmtstr_lower::diag::format_excerpt(format, offset)
        );
    }
    if let Some(fix) = &finding.fix {
        let _ = writeln!(out, "  fix: {fix}");
    }
    out
}

/// An IR type name: `iN`, `half`, `float`, `double`, `ptr` (with `f16`/`f32`/`f64` as
/// synonyms) or `vN<type>`.
pub fn parse_ir_type(name: &str) -> Result<ArgType, String> {
    let scalar = |name: &str| -> Option<ScalarType> {
        match name {
            "half" | "f16" => Some(ScalarType::Half),
            "x86_fp80" => Some(ScalarType::X86Fp80),
            "fp128" => Some(ScalarType::Fp128),
            "float" | "f32" => Some(ScalarType::Float),
            "double" | "f64" => Some(ScalarType::Double),
            "ptr" => Some(ScalarType::Ptr),
            _ => {
                let bits: u16 = name.strip_prefix('i')?.parse().ok()?;
                (1..=128).contains(&bits).then_some(ScalarType::Int(bits))
            }
        }
    };
    let parsed = match name.strip_prefix('v') {
        Some(rest) => {
            let digits = rest.chars().take_while(char::is_ascii_digit).count();
            let len: Option<u16> = rest[..digits].parse().ok().filter(|len| *len > 0);
            let element = scalar(&rest[digits..]);
            len.zip(element)
                .map(|(len, element)| ArgType::Vector { len, element })
        }
        None => scalar(name).map(ArgType::Scalar),
    };
    parsed.ok_or_else(|| {
        format!(
            "`{name}` is not a type; write iN (i1 to i128), half, float, double, x86_fp80, \
             fp128, ptr, or vN<type> such as v4f32"
        )
    })
}
