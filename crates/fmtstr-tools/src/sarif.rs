//! SARIF 2.1.0 logs of `fmtstr check` and `fmtstr audit`, for the CI systems and editors that
//! read SARIF (GitHub code scanning, GitLab, Azure DevOps).
//!
//! A log has one run. Its driver is `fmtstr`, with one rule per finding kind of the command (the
//! kinds the JSON reports name: [`rules::CHECK`], [`rules::AUDIT`]), each saying what the finding
//! means and how to fix it. Each finding is a result of its kind's rule, at the finding's
//! severity (`fmtstr check`: a warning, or an error where the dialect cannot parse the format;
//! `fmtstr audit`: an error, as its text and GitHub reports say), located where fmtstr knows:
//! - `fmtstr audit`: the file, with the bytes of the metadata note that holds the entry
//!   (`byteOffset`, `byteLength`) when the finding is about an entry of a PAL ELF or HSA code
//!   object; no region for findings about a whole file or a SPIR-V module's table. Further
//!   places (the other string of a collision) are related locations.
//! - `fmtstr check` of a SPIR-V module: the source file, line and column of the call when the
//!   module says them (`OpLine`), and the call instruction's bytes in the module; the
//!   instruction alone otherwise.
//! - `fmtstr check` of a FORMAT argument: the format itself, which no file holds, so the run
//!   carries it as an artifact (a C string literal's body, as the JSON report spells it) and a
//!   result's region is line 1 and the columns of the byte the finding is about.
//!
//! No result has `fixes`: a SARIF fix is an edit of an artifact's bytes, and fmtstr's fixes are
//! advice ("remove the '+' flag", "use '%ld'") about a format whose place in the source fmtstr
//! does not know. The advice is in each result's message and in its rule's help.

use std::path::Path;

use serde::Serialize;

use crate::audit::{self, Report};
use crate::spirv::ModuleCheck;

pub mod rules;

use rules::RuleText;

/// The schema a log names: the OASIS standard's, with its first errata.
pub const SCHEMA: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// A SARIF log (`sarifLog`).
#[derive(Serialize, Clone, Debug)]
pub struct Log {
    /// The URI of the schema the log follows: [`SCHEMA`].
    #[serde(rename = "$schema")]
    pub schema: &'static str,
    /// The SARIF version: always `2.1.0`.
    pub version: &'static str,
    /// The runs: always one, the command that wrote the log.
    pub runs: Vec<Run>,
}

/// One run of a tool (`run`).
#[derive(Serialize, Clone, Debug)]
pub struct Run {
    /// What ran: `fmtstr` and the command's rules.
    pub tool: Tool,
    /// Artifacts that results name by index: a FORMAT argument, which has no URI.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub artifacts: Vec<Artifact>,
    /// Empty, not absent, for a clean run: SARIF's way of saying that the analysis ran and found
    /// nothing.
    pub results: Vec<SarifResult>,
}

/// The tool (`tool`).
#[derive(Serialize, Clone, Debug)]
pub struct Tool {
    /// The component that found the results: fmtstr itself (a log has no extensions).
    pub driver: ToolComponent,
}

/// `fmtstr` and its rules (`toolComponent`).
#[derive(Serialize, Clone, Debug)]
#[serde(rename_all = "camelCase")]
pub struct ToolComponent {
    /// Always `fmtstr`.
    pub name: &'static str,
    /// The command: `fmtstr check`, `fmtstr audit`.
    pub full_name: &'static str,
    /// As `fmtstr --version` says it (with the commit, when built from a checkout).
    pub version: String,
    /// The package version alone (`0.1.0`), as SemVer.
    pub semantic_version: &'static str,
    /// The project's repository, where a reader learns more about the tool.
    pub information_uri: &'static str,
    /// One rule per finding kind of the command, in the order the kinds are listed.
    pub rules: Vec<ReportingDescriptor>,
}

/// A rule (`reportingDescriptor`).
#[derive(Serialize, Clone, Debug)]
#[serde(rename_all = "camelCase")]
pub struct ReportingDescriptor {
    /// The finding kind as the JSON reports name it (`collision`, `type-mismatch`, ...).
    pub id: &'static str,
    /// What the rule finds, in one sentence.
    pub short_description: Text,
    /// What the finding means and why it matters.
    pub full_description: Text,
    /// How to fix what it finds.
    pub help: Text,
    /// The level of its results when they do not say one: the command's usual level.
    pub default_configuration: Configuration,
}

/// A plain-text message (`message`, `multiformatMessageString`).
#[derive(Serialize, Clone, Debug, PartialEq, Eq)]
pub struct Text {
    /// The message, plain text without markup.
    pub text: String,
}

impl Text {
    fn new(text: impl Into<String>) -> Text {
        Text { text: text.into() }
    }
}

/// A rule's level when a result does not say one (`reportingConfiguration`).
#[derive(Serialize, Clone, Copy, Debug)]
pub struct Configuration {
    /// `warning` for `fmtstr check`'s rules, `error` for `fmtstr audit`'s.
    pub level: Level,
}

/// How bad a result is.
#[derive(Serialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Every audit finding, and a check finding where the dialect cannot parse the format.
    Error,
    /// `fmtstr check`'s other findings: the format parses, but misbehaves with its arguments.
    Warning,
    /// Information only (SARIF's lowest level; no finding of fmtstr's has it today).
    Note,
}

/// One finding (`result`).
#[derive(Serialize, Clone, Debug)]
#[serde(rename_all = "camelCase")]
pub struct SarifResult {
    /// The finding's kind: the id of its rule.
    pub rule_id: &'static str,
    /// The rule's place in the driver's `rules`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule_index: Option<usize>,
    /// The finding's severity.
    pub level: Level,
    /// What is wrong and, for `fmtstr check`, the argument and the fix.
    pub message: Text,
    /// Where the finding is: one place (a finding with none has no location).
    pub locations: Vec<Location>,
    /// The finding's further places: the other entries of a collision or conflict, the call
    /// instruction behind a source line.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub related_locations: Vec<Location>,
}

/// Where a result is (`location`).
#[derive(Serialize, Clone, Debug)]
#[serde(rename_all = "camelCase")]
pub struct Location {
    /// The artifact and the part of it.
    pub physical_location: PhysicalLocation,
    /// What this place is, for a related location.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<Text>,
}

/// A place in an artifact (`physicalLocation`).
#[derive(Serialize, Clone, Debug)]
#[serde(rename_all = "camelCase")]
pub struct PhysicalLocation {
    /// The file, or the run's artifact.
    pub artifact_location: ArtifactLocation,
    /// The lines or bytes the finding is about; none when it is about the whole artifact.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub region: Option<Region>,
}

/// A file by URI, or an artifact of the run by index (`artifactLocation`).
#[derive(Serialize, Clone, Debug, PartialEq, Eq)]
pub struct ArtifactLocation {
    /// A file, as [`path_uri`] writes its path; none for an artifact of the run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uri: Option<String>,
    /// The artifact's place in the run's `artifacts`; none for a file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
}

/// Part of an artifact: lines and columns of text, or bytes (`region`). Lines and columns count
/// from 1.
#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Region {
    /// The line, for a text region.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_line: Option<u64>,
    /// The first column of the text, when it is known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_column: Option<u64>,
    /// One past the last column.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_column: Option<u64>,
    /// The first byte, from the file's start, for a byte region.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub byte_offset: Option<u64>,
    /// The number of bytes, for a byte region.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub byte_length: Option<u64>,
}

/// An artifact that the log carries itself (`artifact`).
#[derive(Serialize, Clone, Debug)]
pub struct Artifact {
    /// What the artifact is, since it has no file name.
    pub description: Text,
    /// The artifact itself.
    pub contents: Contents,
    /// Its roles in the run: `analysisTarget`, what the command checked.
    pub roles: Vec<&'static str>,
}

/// An artifact's text (`artifactContent`).
#[derive(Serialize, Clone, Debug)]
pub struct Contents {
    /// The artifact's text: for a FORMAT argument, the body of a C string literal.
    pub text: String,
}

/// A log of one run with these rules and results.
fn log(
    full_name: &'static str,
    version: &str,
    rules: &[RuleText],
    level: Level,
    artifacts: Vec<Artifact>,
    results: Vec<SarifResult>,
) -> Log {
    let rules = rules
        .iter()
        .map(|rule| ReportingDescriptor {
            id: rule.id,
            short_description: Text::new(rule.short),
            full_description: Text::new(rule.full),
            help: Text::new(rule.help),
            default_configuration: Configuration { level },
        })
        .collect();
    Log {
        schema: SCHEMA,
        version: "2.1.0",
        runs: vec![Run {
            tool: Tool {
                driver: ToolComponent {
                    name: "fmtstr",
                    full_name,
                    version: version.to_owned(),
                    semantic_version: env!("CARGO_PKG_VERSION"),
                    information_uri: env!("CARGO_PKG_REPOSITORY"),
                    rules,
                },
            },
            artifacts,
            results,
        }],
    }
}

/// A result of the rule `id` (one of `rules`).
fn result(
    rules: &[RuleText],
    id: &'static str,
    level: Level,
    message: String,
    locations: Vec<Location>,
) -> SarifResult {
    let mut locations = locations.into_iter();
    SarifResult {
        rule_id: id,
        // Every kind has its rule: the tests hold the rules to the kinds.
        rule_index: rules.iter().position(|rule| rule.id == id),
        level,
        message: Text::new(message),
        locations: locations.next().into_iter().collect(),
        related_locations: locations.collect(),
    }
}

/// A file's location in a log: relative paths stay relative (a CI system resolves them against
/// its checkout), absolute ones become `file:` URIs.
pub fn path_uri(path: &str) -> String {
    let mut uri = String::with_capacity(path.len() + 8);
    if path.starts_with('/') {
        uri.push_str("file://");
    }
    for byte in path.bytes() {
        // RFC 3986's unreserved characters and the path separator; everything else is
        // percent-encoded (a ':' too, which would start a scheme in a relative reference).
        if byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte) {
            uri.push(char::from(byte));
        } else {
            uri.push_str(&format!("%{byte:02X}"));
        }
    }
    uri
}

fn file_location(file: &str, region: Option<Region>, message: Option<String>) -> Location {
    Location {
        physical_location: PhysicalLocation {
            artifact_location: ArtifactLocation {
                uri: Some(path_uri(file)),
                index: None,
            },
            region,
        },
        message: message.map(Text::new),
    }
}

fn bytes_region(offset: u64, length: u64) -> Region {
    Region {
        byte_offset: Some(offset),
        byte_length: Some(length),
        ..Region::default()
    }
}

/// `fmtstr audit --format sarif`: every finding of the report, an error of its kind's rule.
pub fn audit(report: &Report, version: &str) -> Log {
    let results = report
        .findings
        .iter()
        .map(|finding| {
            let several = finding.locations.len() > 1;
            let locations = finding
                .locations
                .iter()
                .map(|at| {
                    let region = at
                        .region
                        .as_ref()
                        .map(|bytes| bytes_region(bytes.start, bytes.end - bytes.start));
                    let what = several.then(|| entry_words(at)).flatten();
                    file_location(&at.file, region, what)
                })
                .collect();
            result(
                &rules::AUDIT,
                finding.kind.name(),
                Level::Error,
                finding.message.clone(),
                locations,
            )
        })
        .collect();
    log(
        "fmtstr audit",
        version,
        &rules::AUDIT,
        Level::Error,
        Vec::new(),
        results,
    )
}

/// An entry in words, for a location among several: `.strings[2] "x=%d\n"`.
fn entry_words(at: &audit::Location) -> Option<String> {
    let index = at.index?;
    let table = at.table.unwrap_or("amdpal.format_strings .strings");
    let mut words = format!("{table}[{index}]");
    if let Some(string) = &at.string {
        words.push_str(&format!(
            " \"{}\"",
            fmtstr_meta::escape::escape(string.as_bytes())
        ));
    }
    if let Some(note) = at.note {
        words.push_str(&format!(" in the metadata note at {note:#x}"));
    }
    Some(words)
}

/// A check finding's level.
fn check_level(finding: &fmtstr_format::Finding) -> Level {
    match finding.severity {
        fmtstr_format::Severity::Warning => Level::Warning,
        fmtstr_format::Severity::Error => Level::Error,
    }
}

/// A check finding's message: clang's words, the argument, and the fix.
fn check_words(finding: &fmtstr_format::Finding) -> String {
    let mut words = finding.message.clone();
    if let Some(argument) = finding.arg_index {
        words.push_str(&format!(" (argument {})", argument + 1));
    }
    if let Some(fix) = &finding.fix {
        words.push_str(&format!("; fix: {fix}"));
    }
    words
}

/// `fmtstr check FORMAT --format sarif`: the format as the run's one artifact, and each finding
/// at the columns, in the format written as a C literal's body, of the byte it is about.
pub fn check_format(format: &[u8], findings: &[fmtstr_format::Finding], version: &str) -> Log {
    use fmtstr_meta::escape::escape;
    let results = findings
        .iter()
        .map(|finding| {
            // Escaping looks back one byte at most, so the escaped prefix is a prefix of the
            // escaped format and its length is a column (the text is ASCII).
            let region = finding.offset.map(|offset| {
                let start = escape(&format[..offset.min(format.len())]).len() as u64 + 1;
                let end = escape(&format[..(offset + 1).min(format.len())]).len() as u64 + 1;
                Region {
                    start_line: Some(1),
                    start_column: Some(start),
                    end_column: Some(end.max(start + 1)),
                    ..Region::default()
                }
            });
            let location = Location {
                physical_location: PhysicalLocation {
                    artifact_location: ArtifactLocation {
                        uri: None,
                        index: Some(0),
                    },
                    region,
                },
                message: None,
            };
            result(
                &rules::CHECK,
                finding.kind.name(),
                check_level(finding),
                check_words(finding),
                vec![location],
            )
        })
        .collect();
    let artifact = Artifact {
        description: Text::new("the FORMAT argument of fmtstr check, as a C string literal's body"),
        contents: Contents {
            text: escape(format),
        },
        roles: vec!["analysisTarget"],
    };
    log(
        "fmtstr check",
        version,
        &rules::CHECK,
        Level::Warning,
        vec![artifact],
        results,
    )
}

/// `fmtstr check FILE.spv --format sarif`: each call's findings at the call's source line
/// (when the module has one) and at its instruction in the module named `name`.
pub fn check_module(name: &str, bytes: &[u8], check: &ModuleCheck, version: &str) -> Log {
    use fmtstr_meta::escape::escape;
    let module = &check.module;
    let mut results = Vec::new();
    for (call, findings) in module.calls.iter().zip(&check.findings) {
        let instruction = crate::spirv::instruction_len(bytes, module.header.endian, call.offset)
            .map(|length| bytes_region(call.offset as u64, length));
        let source = call.line.as_ref().and_then(|line| {
            let file = line.file.as_deref()?;
            (line.line > 0).then(|| {
                let region = Region {
                    start_line: Some(u64::from(line.line)),
                    start_column: (line.column > 0).then_some(u64::from(line.column)),
                    ..Region::default()
                };
                let file = source_path(name, &String::from_utf8_lossy(file));
                file_location(&file, Some(region), None)
            })
        });
        for finding in findings {
            let mut locations = Vec::with_capacity(2);
            let in_module = source
                .is_some()
                .then(|| "the DebugPrintf instruction in the module".to_owned());
            locations.extend(source.clone());
            locations.push(file_location(name, instruction.clone(), in_module));
            let at = finding
                .offset
                .map(|offset| format!(", byte {offset}"))
                .unwrap_or_default();
            let message = format!("\"{}\"{at}: {}", escape(&call.format), check_words(finding));
            results.push(result(
                &rules::CHECK,
                finding.kind.name(),
                check_level(finding),
                message,
                locations,
            ));
        }
    }
    log(
        "fmtstr check",
        version,
        &rules::CHECK,
        Level::Warning,
        Vec::new(),
        results,
    )
}

/// A source file that a module names. Compilers record the name they were given, relative to
/// where they ran, so a relative name is taken beside the module when a file of that name is
/// there; otherwise it stays as the module says it.
fn source_path(module: &str, file: &str) -> String {
    let path = Path::new(file);
    if path.is_relative() {
        if let Some(beside) = Path::new(module).parent().map(|dir| dir.join(path)) {
            if beside.is_file() {
                return beside.display().to_string();
            }
        }
    }
    file.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_finding_kind_has_one_rule() {
        let check: Vec<&str> = rules::CHECK.iter().map(|rule| rule.id).collect();
        assert_eq!(check, fmtstr_format::FindingKind::NAMES);
        let audit: Vec<&str> = rules::AUDIT.iter().map(|rule| rule.id).collect();
        let kinds: Vec<&str> = audit::Kind::ALL.iter().map(|kind| kind.name()).collect();
        assert_eq!(audit, kinds);
        for rule in rules::CHECK.iter().chain(&rules::AUDIT) {
            for text in [rule.short, rule.full, rule.help] {
                assert!(text.ends_with('.'), "{}: {text:?}", rule.id);
                assert!(!text.contains("  "), "{}: {text:?}", rule.id);
            }
        }
    }

    #[test]
    fn paths_become_uri_references() {
        assert_eq!(path_uri("samples/pal/a.elf"), "samples/pal/a.elf");
        assert_eq!(path_uri("/tmp/x y/a#1.elf"), "file:///tmp/x%20y/a%231.elf");
        assert_eq!(path_uri("c:d"), "c%3Ad");
        assert_eq!(path_uri("é.spv"), "%C3%A9.spv");
    }

    #[test]
    fn format_columns_are_those_of_the_escaped_format() {
        let format = b"\n%ld\x01f";
        let findings = fmtstr_format::check_format(
            format,
            &[fmtstr_format::ArgType::Scalar(
                fmtstr_format::ScalarType::Int(32),
            )],
            fmtstr_format::Dialect::Gpu,
        );
        let log = check_format(format, &findings, "0");
        let run = &log.runs[0];
        assert_eq!(run.artifacts[0].contents.text, "\\n%ld\\x01\\x66");
        let result = &run.results[0];
        assert_eq!(result.rule_id, "width");
        let region = result.locations[0].physical_location.region.clone();
        // '%' is the third character of `\n%ld...`.
        assert_eq!(
            region,
            Some(Region {
                start_line: Some(1),
                start_column: Some(3),
                end_column: Some(4),
                ..Region::default()
            })
        );
    }
}
