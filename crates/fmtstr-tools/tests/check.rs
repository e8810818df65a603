//! `fmtstr_tools::check` through its public API, as the C library and the Python package call
//! it: options from JSON, a format checked against IR argument types, and the findings in each
//! rendering (text, the JSON report, SARIF). The expected kinds and byte offsets are read off
//! the formats themselves; clang's own -Wformat, where installed, places the same conversions.

mod common;

use std::process::Command;

use fmtstr_oracles::{require, Tool};
use fmtstr_tools::check::{check_format_bytes, CheckOptions, CheckStyle, Checked};
use serde_json::Value as Json;

fn options(json: &str) -> CheckOptions {
    serde_json::from_str(json).unwrap_or_else(|error| panic!("{json}: {error}"))
}

/// `format` checked against `args` in `dialect` (None: the default), as a JSON report.
fn report(format: &[u8], args: &[&str], dialect: Option<&str>) -> (Checked, Json) {
    let options = CheckOptions {
        args: args.iter().map(|arg| (*arg).to_owned()).collect(),
        dialect: dialect.map(str::to_owned),
        format: CheckStyle::Json,
    };
    let checked = check_format_bytes(format, &options, "0.0.0-test");
    let json: Json = serde_json::from_str(&checked.stdout)
        .unwrap_or_else(|error| panic!("{:?}: not JSON: {error}", checked.stdout));
    common::assert_matches_schema("check.schema.json", &json);
    (checked, json)
}

/// The findings of a report as (kind, severity, offset, argument).
fn findings(json: &Json) -> Vec<(String, String, Option<u64>, Option<u64>)> {
    json["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|finding| {
            (
                finding["kind"].as_str().expect("kind").to_owned(),
                finding["severity"].as_str().expect("severity").to_owned(),
                finding["offset"].as_u64(),
                finding["argument"].as_u64(),
            )
        })
        .collect()
}

fn finding(
    kind: &str,
    severity: &str,
    offset: u64,
    argument: Option<u64>,
) -> Vec<(String, String, Option<u64>, Option<u64>)> {
    vec![(kind.to_owned(), severity.to_owned(), Some(offset), argument)]
}

#[test]
fn options_read_as_json_with_the_command_line_names() {
    let parsed = options(r#"{"args": ["i32", "ptr"], "dialect": "c", "format": "sarif"}"#);
    assert_eq!(parsed.args, ["i32", "ptr"]);
    assert_eq!(parsed.dialect.as_deref(), Some("c"));
    assert_eq!(parsed.format, CheckStyle::Sarif);
    assert_eq!(options("{}"), CheckOptions::default());
    assert_eq!(CheckOptions::default().format, CheckStyle::Text);
    // A misspelt option is an error that names it, not an option silently ignored.
    let error = serde_json::from_str::<CheckOptions>(r#"{"dialekt": "c"}"#).unwrap_err();
    assert!(error.to_string().contains("dialekt"), "{error}");
}

#[test]
fn a_conversion_given_the_wrong_class_of_value_is_found_at_its_percent() {
    // "x=%d\n": the '%' is byte 2; %d reads an int, and the only argument is a double.
    let (checked, json) = report(b"x=%d\n", &["double"], None);
    assert_eq!(findings(&json), finding("class", "warning", 2, Some(0)));
    assert_eq!(
        json["format"], "x=%d\\n",
        "the format as a C literal's body"
    );
    assert_eq!(json["dialect"], "gpu", "the default dialect of a format");
    assert_eq!(checked.code, 1, "findings exit 1");
    assert_eq!(checked.error, None);
    assert_eq!(checked.stderr, "", "the JSON report alone");

    // The right class at the wrong size: a 64-bit integer for %d, a 32-bit one for %ld.
    let (_, json) = report(b"%d", &["i64"], None);
    assert_eq!(findings(&json), finding("width", "warning", 0, Some(0)));
    let (_, json) = report(b"n=%ld", &["i32"], None);
    assert_eq!(findings(&json), finding("width", "warning", 2, Some(0)));
}

#[test]
fn argument_counts_that_differ_from_the_format_are_found() {
    // "%d %d" takes two arguments; the second is missing, at the second '%' (byte 3). A
    // missing argument has no index among those passed.
    let (checked, json) = report(b"%d %d", &["i32"], None);
    assert_eq!(
        findings(&json),
        finding("too-few-arguments", "warning", 3, None)
    );
    assert_eq!(checked.code, 1);
    // One conversion, two arguments: the second is not used.
    let (checked, json) = report(b"%d", &["i32", "i32"], None);
    let found = findings(&json);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, "too-many-arguments");
    assert_eq!(
        found[0].3,
        Some(1),
        "the first argument the format does not use"
    );
    assert_eq!(checked.code, 1);
}

#[test]
fn percent_n_is_a_gpu_limit_and_valid_c() {
    // %n writes through its pointer argument, which GPU printf cannot do; C allows it.
    // The finding is about the conversion (its argument has the right type): kind and byte.
    let (checked, json) = report(b"count%n", &["ptr"], None);
    let found: Vec<_> = findings(&json)
        .into_iter()
        .map(|f| (f.0, f.1, f.2))
        .collect();
    assert_eq!(
        found,
        [("gpu-write-back".to_owned(), "warning".to_owned(), Some(5))]
    );
    assert_eq!(checked.code, 1);
    let (checked, json) = report(b"count%n", &["ptr"], Some("c"));
    assert_eq!(findings(&json), vec![], "{json:#}");
    assert_eq!(json["dialect"], "c");
    assert_eq!(checked.code, 0);
}

#[test]
fn an_unterminated_conversion_cannot_be_parsed_on_the_gpu() {
    // "abc%": the format ends right after the '%' at byte 3.
    let (checked, json) = report(b"abc%", &[], None);
    assert_eq!(findings(&json), finding("incomplete", "error", 3, None));
    assert_eq!(checked.code, 2, "a format that does not parse exits 2");
    let error = checked.error.expect("the final error line");
    assert!(
        error.starts_with("the format cannot be parsed (byte 3)"),
        "{error}"
    );
    // C's printf prints such a format (clang only warns): a warning, exit 1.
    let (checked, json) = report(b"abc%", &[], Some("c"));
    assert_eq!(findings(&json), finding("incomplete", "warning", 3, None));
    assert_eq!(checked.code, 1);
    assert_eq!(checked.error, None);
}

#[test]
fn a_clean_format_prints_nothing_and_exits_0() {
    let checked = check_format_bytes(
        b"%s=%f (%p)\n",
        &options(r#"{"args": ["ptr", "double", "ptr"]}"#),
        "0",
    );
    assert_eq!(checked, Checked::default(), "exit 0, nothing printed");
    let (checked, json) = report(b"%s=%f (%p)\n", &["ptr", "double", "ptr"], None);
    assert_eq!(json["findings"], Json::Array(Vec::new()));
    assert_eq!(checked.code, 0);
}

#[test]
fn text_diagnostics_name_the_byte_and_the_argument_and_point_at_the_byte() {
    let checked = check_format_bytes(b"x=%d\n", &options(r#"{"args": ["double"]}"#), "0");
    assert_eq!(checked.code, 1);
    assert_eq!(checked.stdout, "", "text diagnostics go to stderr");
    let lines: Vec<&str> = checked.stderr.lines().collect();
    // Byte 2 and argument 1 (counted from 1, as clang counts them).
    assert!(
        lines[0].starts_with("fmtstr: warning: byte 2, argument 1: ")
            && lines[0].ends_with("[-Wformat]"),
        "{}",
        checked.stderr
    );
    // The caret sits under the '%' of "x=%d": the same column as in the quoted format.
    let format_line = lines
        .iter()
        .position(|line| line.contains("x=%d"))
        .unwrap_or_else(|| panic!("the format is quoted:\n{}", checked.stderr));
    let caret = lines
        .get(format_line + 1)
        .and_then(|line| line.find('^'))
        .unwrap_or_else(|| panic!("a caret line follows:\n{}", checked.stderr));
    assert_eq!(
        lines[format_line].find("%d"),
        Some(caret),
        "{}",
        checked.stderr
    );
}

#[test]
fn sarif_places_a_finding_at_the_columns_of_its_byte_in_the_literal() {
    let checked = check_format_bytes(
        b"\tx=%d\n",
        &options(r#"{"args": ["double"], "format": "sarif"}"#),
        "9.9.9",
    );
    assert_eq!(checked.code, 1);
    let log: Json = serde_json::from_str(&checked.stdout).expect("SARIF is JSON");
    assert_eq!(log["version"], "2.1.0");
    let run = &log["runs"][0];
    assert_eq!(run["tool"]["driver"]["version"], "9.9.9");
    // The format as a C literal's body: the tab and the newline are two characters each.
    assert_eq!(run["artifacts"][0]["contents"]["text"], "\\tx=%d\\n");
    let results = run["results"].as_array().expect("results");
    assert_eq!(results.len(), 1, "{log:#}");
    let result = &results[0];
    assert_eq!(result["ruleId"], "class");
    assert_eq!(result["level"], "warning");
    let rules = run["tool"]["driver"]["rules"].as_array().expect("rules");
    let index = result["ruleIndex"].as_u64().expect("ruleIndex") as usize;
    assert_eq!(rules[index]["id"], "class", "ruleIndex names the rule");
    // `\tx=%d`: the '%' is the fifth character, so columns 5 to 6 (one past it).
    let region = &result["locations"][0]["physicalLocation"]["region"];
    assert_eq!(region["startLine"], 1);
    assert_eq!(region["startColumn"], 5);
    assert_eq!(region["endColumn"], 6);
    assert_eq!(
        result["locations"][0]["physicalLocation"]["artifactLocation"]["index"],
        0
    );
}

#[test]
fn bad_options_are_usage_errors_that_say_which() {
    let checked = check_format_bytes(b"%d", &options(r#"{"args": ["i32", "i33x"]}"#), "0");
    assert_eq!(checked.code, 2);
    let error = checked.error.expect("an error line");
    assert!(error.starts_with("in --args, type 2"), "{error}");
    assert!(error.contains("i33x"), "{error}");

    let checked = check_format_bytes(b"%d", &options(r#"{"dialect": "cobol"}"#), "0");
    assert_eq!(checked.code, 2);
    let error = checked.error.expect("an error line");
    assert!(error.contains("cobol"), "{error}");
    assert_eq!(checked.stdout, "");
}

/// clang 19's -Wformat is what the `c` dialect follows: for each conversion that clang says
/// reads the wrong type, or that does not end, the report names a finding at the byte clang's
/// source range starts at.
#[test]
fn c_dialect_offsets_are_where_clang_puts_its_format_warnings() {
    let Some(clang) = require(Tool::Clang) else {
        return;
    };
    // Format, C arguments, and their IR types. No escapes: a column is a byte offset.
    let cases: [(&str, &str, &[&str]); 6] = [
        ("x=%d", "1.0", &["double"]),
        ("%s then %ld", "\"s\", 1", &["ptr", "i32"]),
        ("%5.2f and %d", "1.0, 2L", &["double", "i64"]),
        ("a %s b %lu", "\"s\", 1", &["ptr", "i32"]),
        ("%c%c%d", "'a', 'b', 1.5", &["i32", "i32", "double"]),
        ("abc%", "", &[]),
    ];
    let dir = std::env::temp_dir().join(format!("fmtstr-tools-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch directory");
    let source = dir.join("formats.c");
    let mut text = String::from("int printf(const char *, ...);\nvoid f(void) {\n");
    // printf(" is 8 characters: each body starts at column 9 of line 3 + i.
    for (format, args, _) in &cases {
        let comma = if args.is_empty() { "" } else { ", " };
        text.push_str(&format!("printf(\"{format}\"{comma}{args});\n"));
    }
    text.push_str("}\n");
    std::fs::write(&source, text).expect("write the C file");
    let output = Command::new(clang)
        .args([
            "-fsyntax-only",
            "-Wformat",
            "-fno-color-diagnostics",
            "-fno-caret-diagnostics",
            "-fdiagnostics-print-source-range-info",
        ])
        .arg(&source)
        .output()
        .expect("clang runs");
    let _ = std::fs::remove_dir_all(&dir);
    let stderr = String::from_utf8_lossy(&output.stderr);
    for (i, (format, _, types)) in cases.iter().enumerate() {
        let line = 3 + i;
        // `FILE:LINE:COL:{range}{range}: warning: ...`: a type warning's second range is the
        // conversion in the literal; an incomplete one's location is its '%'.
        let diagnostic = stderr
            .lines()
            .find(|l| l.contains(&format!(".c:{line}:")))
            .unwrap_or_else(|| panic!("clang warns about line {line}:\n{stderr}"));
        let column = if diagnostic.contains("incomplete format specifier") {
            let after = diagnostic.split(&format!(".c:{line}:")).nth(1).unwrap();
            after.split(':').next().unwrap().parse::<u64>().unwrap()
        } else {
            assert!(diagnostic.contains("format specifies type"), "{diagnostic}");
            let range = diagnostic.split('{').nth(2).expect("a second range");
            let start = range.split('-').next().unwrap();
            start.split(':').nth(1).unwrap().parse::<u64>().unwrap()
        };
        let clang_offset = column - 9;
        let (_, json) = report(format.as_bytes(), types, Some("c"));
        let offsets: Vec<Option<u64>> = findings(&json).iter().map(|f| f.2).collect();
        assert_eq!(
            offsets,
            vec![Some(clang_offset)],
            "{format:?}: clang says {diagnostic}\n{json:#}"
        );
    }
}
