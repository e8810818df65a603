//! An audit's report in each output format `fmtstr audit` offers (text, JSON, GitHub workflow
//! commands, SARIF), and the whole command for the C library and the Python package.

use std::path::PathBuf;

use crate::audit::{audit, Options, Report};

/// How an audit's report is printed.
#[derive(Clone, Copy, Debug, Default, serde::Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Style {
    /// `FILE: error: KIND: message`, then a summary line.
    #[default]
    Text,
    /// One JSON report (schemas/audit.schema.json).
    Json,
    /// GitHub Actions workflow commands.
    Github,
    /// A SARIF 2.1.0 log.
    Sarif,
}

/// Everything `fmtstr audit` is asked beyond its paths, by the names of its command-line
/// options (as JSON for the C library: `{"format": "json", "verify-ids": true}`).
#[derive(Clone, Copy, Debug, Default, serde::Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case", deny_unknown_fields, default)]
pub struct Request {
    /// `--format`: how the report is printed (text by default).
    pub format: Style,
    /// `--verify-ids`: also report IDs that are not fmtstr's hash of their string.
    pub verify_ids: bool,
}

/// What `fmtstr audit` prints on stdout for `report` in `style` (`version` names the tool in
/// a SARIF log), and its exit code: 0 clean, 1 findings.
pub fn render(report: &Report, style: Style, version: &str) -> (String, u8) {
    let text = match style {
        Style::Text => report.to_text(),
        Style::Github => report.to_github(),
        Style::Json => {
            let mut json = serde_json::to_string_pretty(report).unwrap_or_default();
            json.push('\n');
            json
        }
        Style::Sarif => {
            let mut json = serde_json::to_string_pretty(&crate::sarif::audit(report, version))
                .unwrap_or_default();
            json.push('\n');
            json
        }
    };
    (text, u8::from(!report.clean))
}

/// `fmtstr audit PATHS...` as the C library and the Python package give it: the text it
/// prints and its exit code (2, with the message, when an input cannot be read).
pub fn audit_to_text(
    paths: &[PathBuf],
    request: &Request,
    version: &str,
) -> Result<(String, u8), String> {
    let options = Options {
        verify_ids: request.verify_ids,
    };
    let report = audit(paths, &options).map_err(|error| crate::describe(&error))?;
    Ok(render(&report, request.format, version))
}
