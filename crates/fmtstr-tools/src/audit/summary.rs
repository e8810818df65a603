//! How a [`Report`] reads in every output format: the text and GitHub renderings and the JSON
//! document all take their summary line from one function, [`Report::summary`], so a count
//! reads the same (and with the right plural) whichever format a user picks.

use std::fmt::Write as _;

use serde::ser::{Serialize, SerializeStruct, Serializer};

use super::Report;

/// `1 file`, `2 files`, `0 files`: a count with the noun's form for it.
pub(crate) fn count(count: usize, singular: &str, plural: &str) -> String {
    format!("{count} {}", if count == 1 { singular } else { plural })
}

impl Report {
    /// The summary line every format shows, without a trailing newline:
    /// `2 files, 1 format string, 0 findings (1 file skipped: neither ELF nor SPIR-V)`.
    pub fn summary(&self) -> String {
        let mut line = format!(
            "{}, {}, {}",
            count(self.files, "file", "files"),
            count(self.strings, "format string", "format strings"),
            count(self.findings.len(), "finding", "findings"),
        );
        let mut notes = Vec::new();
        if self.skipped > 0 {
            notes.push(format!(
                "{} skipped: neither ELF nor SPIR-V",
                count(self.skipped, "file", "files")
            ));
        }
        if self.abort_entries > 0 {
            notes.push(format!(
                "{} not checked against a format string (they have none)",
                count(
                    self.abort_entries,
                    "shader-abort entry",
                    "shader-abort entries"
                )
            ));
        }
        if !notes.is_empty() {
            let _ = write!(line, " ({})", notes.join("; "));
        }
        line
    }

    /// The text report: `FILE: error: KIND: message` per finding, then the summary line.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for finding in &self.findings {
            let file = finding.locations.first().map_or("", |l| l.file.as_str());
            let _ = writeln!(
                out,
                "{file}: error: {}: {}",
                finding.kind.name(),
                finding.message
            );
        }
        let _ = writeln!(out, "fmtstr audit: {}", self.summary());
        out
    }

    /// GitHub Actions workflow commands (`::error file=FILE,title=...::message`), then the
    /// summary line.
    pub fn to_github(&self) -> String {
        let mut out = String::new();
        for finding in &self.findings {
            let file = finding.locations.first().map_or("", |l| l.file.as_str());
            let _ = writeln!(
                out,
                "::error file={},title={}::{}",
                github_escape(file, true),
                github_escape(&format!("fmtstr audit: {}", finding.kind.name()), true),
                github_escape(&finding.message, false)
            );
        }
        let _ = writeln!(out, "fmtstr audit: {}", self.summary());
        out
    }
}

/// The JSON report (schemas/audit.schema.json): the counts, the summary line's text, the
/// findings.
impl Serialize for Report {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut report = serializer.serialize_struct("Report", 7)?;
        report.serialize_field("files", &self.files)?;
        report.serialize_field("skipped", &self.skipped)?;
        report.serialize_field("strings", &self.strings)?;
        report.serialize_field("abort_entries", &self.abort_entries)?;
        report.serialize_field("clean", &self.clean)?;
        report.serialize_field("summary", &self.summary())?;
        report.serialize_field("findings", &self.findings)?;
        report.end()
    }
}

/// GitHub's escaping for workflow-command data and properties.
fn github_escape(text: &str, property: bool) -> String {
    let mut out = text
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A");
    if property {
        out = out.replace(':', "%3A").replace(',', "%2C");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::{Finding, Kind, Location};

    fn report(
        files: usize,
        strings: usize,
        findings: usize,
        skipped: usize,
        aborts: usize,
    ) -> Report {
        let finding = Finding {
            kind: Kind::Collision,
            id: Some(1),
            hex: None,
            message: "two strings".to_owned(),
            locations: vec![Location {
                file: "a.elf".to_owned(),
                note: None,
                table: None,
                index: None,
                string: None,
                argument_count: None,
                mask: None,
                region: None,
            }],
        };
        Report {
            files,
            skipped,
            strings,
            abort_entries: aborts,
            clean: findings == 0,
            findings: vec![finding; findings],
        }
    }

    /// The English a count of 0, 1 and 2 takes, for each noun the summary counts.
    fn expected_summary(
        files: usize,
        strings: usize,
        findings: usize,
        skipped: usize,
        aborts: usize,
    ) -> String {
        let noun =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        let mut line = format!(
            "{}, {}, {}",
            noun(files, "file", "files"),
            noun(strings, "format string", "format strings"),
            noun(findings, "finding", "findings")
        );
        let mut notes = Vec::new();
        if skipped > 0 {
            notes.push(format!(
                "{} skipped: neither ELF nor SPIR-V",
                noun(skipped, "file", "files")
            ));
        }
        if aborts > 0 {
            notes.push(format!(
                "{} not checked against a format string (they have none)",
                noun(aborts, "shader-abort entry", "shader-abort entries")
            ));
        }
        if !notes.is_empty() {
            line += &format!(" ({})", notes.join("; "));
        }
        line
    }

    #[test]
    fn every_format_says_0_1_and_2_of_each_count_in_good_english() {
        for files in 0..3 {
            for strings in 0..3 {
                for findings in 0..3 {
                    for skipped in 0..3 {
                        for aborts in 0..3 {
                            let report = report(files, strings, findings, skipped, aborts);
                            let expected =
                                expected_summary(files, strings, findings, skipped, aborts);
                            assert_eq!(report.summary(), expected);
                            let last_line = |text: String| text.lines().last().map(str::to_owned);
                            let wanted = Some(format!("fmtstr audit: {expected}"));
                            assert_eq!(last_line(report.to_text()), wanted, "text");
                            assert_eq!(last_line(report.to_github()), wanted, "github");
                            let json = serde_json::to_value(&report).expect("serializes");
                            assert_eq!(json["summary"], expected.as_str(), "json");
                            assert_eq!(json["files"], files);
                            assert_eq!(json["strings"], strings);
                            assert_eq!(json["findings"].as_array().map(Vec::len), Some(findings));
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn singular_forms_appear_only_for_one() {
        let one = report(1, 1, 1, 1, 1).summary();
        assert_eq!(
            one,
            "1 file, 1 format string, 1 finding (1 file skipped: neither ELF nor SPIR-V; \
             1 shader-abort entry not checked against a format string (they have none))"
        );
        let two = report(2, 2, 2, 2, 2).summary();
        assert_eq!(
            two,
            "2 files, 2 format strings, 2 findings (2 files skipped: neither ELF nor SPIR-V; \
             2 shader-abort entries not checked against a format string (they have none))"
        );
        assert_eq!(
            report(0, 0, 0, 0, 0).summary(),
            "0 files, 0 format strings, 0 findings"
        );
    }
}
