//! `fmtstr check --format sarif` and `fmtstr audit --format sarif`, judged by the OASIS SARIF
//! 2.1.0 schema and read back by a real SARIF consumer, Microsoft's sarif-tools (`cargo xtask
//! oracles` installs both).

use std::path::{Path, PathBuf};
use std::process::Command;

use md5::{Digest, Md5};
use serde_json::Value;

use crate::util::{assert_matches_schema_at, root, run, Run};

/// The MD5 of the OASIS standard's schema with its first errata, as the SARIF TC publishes it:
/// the tests judge by that file and no look-alike.
const OASIS_SCHEMA_MD5: &str = "cdfac88acd33dec95625eb0cca4bc571";

/// The SARIF schema (None, skipping, outside CI when it is not installed).
fn schema() -> Option<PathBuf> {
    let path = fmtstr_oracles::sarif::require_schema()?;
    let bytes = std::fs::read(&path).unwrap();
    let digest: String = Md5::digest(&bytes)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    assert_eq!(
        digest,
        OASIS_SCHEMA_MD5,
        "{} is not the OASIS schema",
        path.display()
    );
    Some(path)
}

/// The log a run printed, valid against the SARIF schema.
#[track_caller]
fn valid_log(out: &Run, schema: &Path) -> Value {
    let log: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|error| panic!("not JSON: {error}\n{}", out.stdout_text()));
    assert_matches_schema_at(schema, &log);
    assert_eq!(log["version"], "2.1.0");
    assert_eq!(log["runs"].as_array().map(Vec::len), Some(1), "one run");
    log
}

fn results(log: &Value) -> &Vec<Value> {
    log["runs"][0]["results"].as_array().expect("results")
}

fn rule_ids(log: &Value) -> Vec<&str> {
    log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .map(|rule| rule["id"].as_str().unwrap())
        .collect()
}

/// Every rule says what it is, what it means and how to fix it; each result names its rule by id
/// and index.
#[track_caller]
fn assert_rules_describe_results(log: &Value) {
    let rules = log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap();
    for rule in rules {
        for field in ["shortDescription", "fullDescription", "help"] {
            let text = rule[field]["text"].as_str().unwrap_or_default();
            assert!(text.len() > 10, "{}: {field} {text:?}", rule["id"]);
        }
    }
    for result in results(log) {
        let index = result["ruleIndex"].as_u64().expect("ruleIndex") as usize;
        assert_eq!(rules[index]["id"], result["ruleId"], "{result:#}");
    }
}

/// The line of `source` holding `needle`, counted from 1.
fn line_of(source: &str, needle: &str) -> u64 {
    source
        .lines()
        .position(|line| line.contains(needle))
        .unwrap_or_else(|| panic!("no line holds {needle:?}")) as u64
        + 1
}

#[test]
fn the_validator_rejects_what_is_not_sarif() {
    let Some(schema) = schema() else { return };
    let out = run(["check", "--format", "sarif", "%d\\n", "--args", "i32"]).expect_code(0);
    let mut log = valid_log(&out, &schema);
    log["runs"][0]["results"] = serde_json::json!([{
        "ruleId": "width",
        "level": "fatal",
        "message": { "text": "x" },
    }]);
    let result = std::panic::catch_unwind(|| assert_matches_schema_at(&schema, &log));
    assert!(result.is_err(), "a level of 'fatal' passed the schema");
}

/// A FORMAT argument: the log carries the format, and each finding's region is its column there.
#[test]
fn check_of_a_format_has_a_rule_per_kind_and_columns() {
    let Some(schema) = schema() else { return };
    let out = run([
        "check",
        "--format",
        "sarif",
        "x=%ld %s\\n",
        "--args",
        "i32,ptr",
    ])
    .expect_code(1);
    assert!(out.stderr.is_empty(), "{}", out.stderr);
    let log = valid_log(&out, &schema);
    let run0 = &log["runs"][0];
    assert_eq!(run0["tool"]["driver"]["name"], "fmtstr");
    assert_eq!(run0["tool"]["driver"]["fullName"], "fmtstr check");
    assert_eq!(rule_ids(&log), fmtstr_format::FindingKind::NAMES);
    assert_rules_describe_results(&log);
    assert_eq!(run0["artifacts"][0]["contents"]["text"], "x=%ld %s\\n");
    let [result] = &results(&log)[..] else {
        panic!("one result: {log:#}")
    };
    assert_eq!(result["ruleId"], "width");
    assert_eq!(result["level"], "warning");
    let message = result["message"]["text"].as_str().unwrap();
    assert!(
        message.contains("(argument 1); fix: write '%d'"),
        "{message}"
    );
    let location = &result["locations"][0]["physicalLocation"];
    assert_eq!(location["artifactLocation"]["index"], 0);
    assert_eq!(location["region"]["startLine"], 1);
    assert_eq!(location["region"]["startColumn"], 3, "the '%' of x=%ld");
    assert_eq!(location["region"]["endColumn"], 4);

    // A format that does not parse (gpu dialect): an error result, and exit 2 as with --json.
    let out = run(["check", "--format", "sarif", "%y"]).expect_code(2);
    let log = valid_log(&out, &schema);
    assert_eq!(results(&log)[0]["level"], "error");
    assert_eq!(results(&log)[0]["ruleId"], "invalid-conversion");
    assert!(out.stderr.contains("cannot be parsed"), "{}", out.stderr);

    // A clean check: a valid log with no results.
    let out = run([
        "check",
        "--format",
        "sarif",
        "%d %f\\n",
        "--args",
        "i32,double",
    ])
    .expect_code(0);
    let log = valid_log(&out, &schema);
    assert!(results(&log).is_empty(), "{log:#}");
}

/// SARIF exits as the other formats do: 0 clean, 1 findings, 2 what cannot be checked at all.
#[test]
fn sarif_exits_as_every_other_format() {
    let pal = |name: &str| root().join("samples/pal").join(name).display().to_string();
    let spirv = |name: &str| {
        root()
            .join("samples/spirv")
            .join(name)
            .display()
            .to_string()
    };
    let words = |text: &str| text.split(' ').map(str::to_owned).collect::<Vec<_>>();
    let check = ["text", "json"];
    let audit = ["text", "json", "github"];
    let cases = [
        (words("check %d --args i32"), &check[..], 0),
        (words("check %ld --args i32"), &check, 1),
        (words("check %y"), &check, 2),
        (vec!["check".into(), spirv("compute.spv")], &check, 0),
        (vec!["check".into(), spirv("mistakes.spv")], &check, 1),
        (vec!["check".into(), spirv("missing.spv")], &check, 2),
        (vec!["audit".into(), pal("compute.elf")], &audit, 0),
        (
            vec!["audit".into(), pal("collision.elf"), pal("compute.elf")],
            &audit,
            1,
        ),
        (vec!["audit".into(), pal("missing.elf")], &audit, 2),
    ];
    for (args, formats, code) in cases {
        for format in formats.iter().copied().chain(["sarif"]) {
            let out = run(args.iter().map(String::as_str).chain(["--format", format]));
            assert_eq!(out.code, code, "{args:?} --format {format}: {}", out.stderr);
        }
    }
    // --json stays, as --format json; the two together are a usage error.
    run(["check", "%ld", "--args", "i32", "--json"]).expect_code(1);
    run([
        "check", "%ld", "--args", "i32", "--json", "--format", "sarif",
    ])
    .expect_code(2);
    // An audit that cannot read an input prints no log.
    let out = run([
        "audit".to_owned(),
        "--format".to_owned(),
        "sarif".to_owned(),
        pal("missing.elf"),
    ])
    .expect_code(2);
    assert!(out.stdout.is_empty(), "{}", out.stdout_text());
}

/// mistakes.comp compiled with line information: each finding is at its call's line in the
/// source, with the call instruction's bytes in the module as a related location.
#[test]
fn check_of_a_module_names_source_lines() {
    let Some(schema) = schema() else { return };
    let Some(mut glslang) = fmtstr_oracles::require_command(fmtstr_oracles::Tool::GlslangValidator)
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let source_text = std::fs::read_to_string(root().join("samples/spirv/mistakes.comp")).unwrap();
    std::fs::write(dir.path().join("mistakes.comp"), &source_text).unwrap();
    let status = glslang
        .current_dir(dir.path())
        .args([
            "-V",
            "-g",
            "--target-env",
            "vulkan1.3",
            "-o",
            "mistakes.spv",
            "mistakes.comp",
        ])
        .output()
        .unwrap();
    assert!(status.status.success(), "{status:?}");
    let module = dir.path().join("mistakes.spv");
    let bytes = std::fs::read(&module).unwrap();
    let out = run([
        "check".as_ref(),
        "--format".as_ref(),
        "sarif".as_ref(),
        module.as_os_str(),
    ])
    .expect_code(1);
    let log = valid_log(&out, &schema);
    assert_rules_describe_results(&log);
    // The calls with findings, in mistakes.comp's words.
    let expected = [
        ("big=%d", "width", "warning"),
        ("colour=%v3f", "vector-length", "warning"),
        ("name=%s", "invalid-conversion", "error"),
        ("left=%-4d", "vvl-flag", "error"),
        ("missing=%d %d", "too-few-arguments", "warning"),
        ("scalar=%v2f", "vector-length", "warning"),
    ];
    let calls = results(&log);
    assert_eq!(calls.len(), expected.len(), "{log:#}");
    let source_uri = format!("{}/mistakes.comp", dir.path().display());
    for ((needle, rule, level), result) in expected.iter().zip(calls) {
        assert_eq!(result["ruleId"], *rule, "{result:#}");
        assert_eq!(result["level"], *level, "{result:#}");
        let message = result["message"]["text"].as_str().unwrap();
        assert!(message.starts_with(&format!("\"{needle}")), "{message}");
        let at = &result["locations"][0]["physicalLocation"];
        assert_eq!(
            at["artifactLocation"]["uri"],
            format!("file://{source_uri}")
        );
        assert_eq!(
            at["region"]["startLine"],
            line_of(&source_text, needle),
            "{needle}"
        );
        // The call instruction: an OpExtInst (opcode 12) of its own length.
        let call = &result["relatedLocations"][0]["physicalLocation"];
        assert_eq!(
            call["artifactLocation"]["uri"],
            format!("file://{}", module.display())
        );
        let offset = call["region"]["byteOffset"].as_u64().unwrap() as usize;
        let length = call["region"]["byteLength"].as_u64().unwrap() as usize;
        let word = u32::from_le_bytes(bytes[offset..offset + 4].try_into().unwrap());
        assert_eq!((word & 0xffff, (word >> 16) as usize * 4), (12, length));
    }

    // Without line information (the committed sample), the call's bytes are the location.
    let out = run([
        "check".as_ref(),
        "--format".as_ref(),
        "sarif".as_ref(),
        root().join("samples/spirv/mistakes.spv").as_os_str(),
    ])
    .expect_code(1);
    let log = valid_log(&out, &schema);
    for result in results(&log) {
        let at = &result["locations"][0]["physicalLocation"];
        assert!(
            at["artifactLocation"]["uri"]
                .as_str()
                .unwrap()
                .ends_with("/samples/spirv/mistakes.spv"),
            "{at:#}"
        );
        assert!(at["region"]["byteOffset"].as_u64().unwrap() > 20, "{at:#}");
        assert!(result.get("relatedLocations").is_none(), "{result:#}");
    }
}

/// The sample PAL ELFs: a collision, a conflict and argument findings, each an error of its
/// kind's rule, at the bytes of the metadata note that holds the entry.
#[test]
fn audit_of_sample_elfs_points_at_their_metadata_notes() {
    let Some(schema) = schema() else { return };
    let samples = root().join("samples/pal");
    let out = run([
        "audit".as_ref(),
        "--format".as_ref(),
        "sarif".as_ref(),
        samples.as_os_str(),
    ])
    .expect_code(1);
    let log = valid_log(&out, &schema);
    assert_eq!(log["runs"][0]["tool"]["driver"]["fullName"], "fmtstr audit");
    assert_eq!(
        rule_ids(&log),
        [
            "collision",
            "conflict",
            "arguments",
            "malformed",
            "unfolded",
            "id"
        ]
    );
    assert_rules_describe_results(&log);
    // The same findings as the JSON report, in its order.
    let json = run([
        "audit".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
        samples.as_os_str(),
    ])
    .expect_code(1);
    let json: Value = serde_json::from_slice(&json.stdout).unwrap();
    let findings = json["findings"].as_array().unwrap();
    let found = results(&log);
    assert_eq!(found.len(), findings.len());
    for (finding, result) in findings.iter().zip(found) {
        assert_eq!(result["ruleId"], finding["kind"]);
        assert_eq!(result["level"], "error");
        assert_eq!(result["message"]["text"], finding["message"]);
        let places: Vec<&Value> = result["locations"]
            .as_array()
            .unwrap()
            .iter()
            .chain(result["relatedLocations"].as_array().into_iter().flatten())
            .collect();
        assert_eq!(places.len(), finding["locations"].as_array().unwrap().len());
        for (place, location) in places.iter().zip(finding["locations"].as_array().unwrap()) {
            let at = &place["physicalLocation"];
            let file = location["file"].as_str().unwrap();
            assert_eq!(at["artifactLocation"]["uri"], format!("file://{file}"));
            // An NT_AMDGPU_METADATA note ("AMDGPU", type 32), all of it.
            let bytes = std::fs::read(file).unwrap();
            let offset = at["region"]["byteOffset"].as_u64().expect("a region") as usize;
            let length = at["region"]["byteLength"].as_u64().unwrap() as usize;
            let word = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
            let padded = |n: u32| (n as usize).div_ceil(4) * 4;
            assert_eq!(
                (word(offset), word(offset + 8)),
                (7, 32),
                "{file} at {offset}"
            );
            assert_eq!(&bytes[offset + 12..offset + 19], b"AMDGPU\0");
            assert_eq!(12 + padded(word(offset)) + padded(word(offset + 4)), length);
        }
    }
    let kinds: Vec<&str> = found
        .iter()
        .map(|r| r["ruleId"].as_str().unwrap())
        .collect();
    for kind in ["collision", "conflict", "arguments"] {
        assert!(kinds.contains(&kind), "{kind} missing from {kinds:?}");
    }
    let collision = found.iter().find(|r| r["ruleId"] == "collision").unwrap();
    assert_eq!(
        collision["relatedLocations"].as_array().map(Vec::len),
        Some(1)
    );
    assert!(collision["relatedLocations"][0]["message"]["text"]
        .as_str()
        .unwrap()
        .contains(".strings[0]"));

    // A finding about a whole file has no region: a file that is not an ELF.
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.elf");
    std::fs::write(&junk, b"\x7fELF not really").unwrap();
    let out = run([
        "audit".as_ref(),
        "--format".as_ref(),
        "sarif".as_ref(),
        junk.as_os_str(),
    ])
    .expect_code(1);
    let log = valid_log(&out, &schema);
    let [result] = &results(&log)[..] else {
        panic!("one result: {log:#}")
    };
    assert_eq!(result["ruleId"], "malformed");
    assert!(result["locations"][0]["physicalLocation"]
        .get("region")
        .is_none());

    // Files that agree: a valid log with no results.
    let out = run([
        "audit".as_ref(),
        "--format".as_ref(),
        "sarif".as_ref(),
        samples.join("compute.elf").as_os_str(),
        samples.join("graphics.elf").as_os_str(),
    ])
    .expect_code(0);
    let log = valid_log(&out, &schema);
    assert!(results(&log).is_empty(), "{log:#}");
}

/// sarif-tools' `sarif` command, run on a log: its exit code and stdout (stderr, which says
/// what went wrong, when it wrote nothing on stdout).
fn sarif_tool(sarif: &Path, args: &[&str], log: &Path) -> (i32, String) {
    let output = Command::new(sarif).args(args).arg(log).output().unwrap();
    let mut stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    if stdout.is_empty() {
        stdout = String::from_utf8_lossy(&output.stderr).into_owned();
    }
    (output.status.code().unwrap_or(-1), stdout)
}

/// A real consumer reads the logs: sarif-tools counts the results by level and rule, lists
/// their files and lines, and fails a `--check error` gate exactly on the failing audit.
#[test]
fn sarif_tools_reads_the_logs() {
    let Some(sarif) = fmtstr_oracles::sarif::require_sarif() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let samples = root().join("samples/pal");
    let write = |name: &str, args: &[&Path], code: i32| -> PathBuf {
        let out = run(args).expect_code(code);
        let path = dir.path().join(name);
        std::fs::write(&path, &out.stdout).unwrap();
        path
    };
    let sarif_arg = Path::new("sarif");
    let format = Path::new("--format");
    let failing = write(
        "failing.sarif",
        &[Path::new("audit"), format, sarif_arg, &samples],
        1,
    );
    let clean = write(
        "clean.sarif",
        &[
            Path::new("audit"),
            format,
            sarif_arg,
            &samples.join("compute.elf"),
            &samples.join("graphics.elf"),
        ],
        0,
    );
    let json = run([Path::new("audit"), format, Path::new("json"), &samples]).expect_code(1);
    let json: Value = serde_json::from_slice(&json.stdout).unwrap();
    let mut by_kind = std::collections::BTreeMap::<String, usize>::new();
    for finding in json["findings"].as_array().unwrap() {
        *by_kind
            .entry(finding["kind"].as_str().unwrap().to_owned())
            .or_default() += 1;
    }
    let findings: usize = by_kind.values().sum();

    let (code, summary) = sarif_tool(&sarif, &["summary"], &failing);
    assert_eq!(code, 0, "{summary}");
    assert!(
        summary.contains(&format!("error: {findings}\n")),
        "{summary}"
    );
    assert!(summary.contains("warning: 0"), "{summary}");
    // One line per rule (and message start): each kind's lines add up to its count.
    for (kind, count) in &by_kind {
        let listed: usize = summary
            .lines()
            .filter_map(|line| line.strip_prefix(&format!(" - {kind} ")))
            .map(|rest| {
                rest.rsplit(": ")
                    .next()
                    .unwrap()
                    .trim()
                    .parse::<usize>()
                    .unwrap()
            })
            .sum();
        assert_eq!(listed, *count, "{kind} in:\n{summary}");
    }
    let (_, summary) = sarif_tool(&sarif, &["summary"], &clean);
    for level in ["error: 0", "warning: 0", "note: 0"] {
        assert!(summary.contains(level), "{summary}");
    }
    let (_, listed) = sarif_tool(&sarif, &["ls"], dir.path());
    for name in ["failing.sarif", "clean.sarif"] {
        assert!(listed.contains(name), "{listed}");
    }
    // The gate CI would run: it exits with the number of errors.
    let gate = ["--check", "error", "summary"];
    assert_eq!(sarif_tool(&sarif, &gate, &failing).0, findings as i32);
    assert_eq!(sarif_tool(&sarif, &gate, &clean).0, 0);

    // A check with findings, read back as CSV: the rule, the level and the location of each.
    let check = write(
        "check.sarif",
        &[
            Path::new("check"),
            format,
            sarif_arg,
            &root().join("samples/spirv/mistakes.spv"),
        ],
        1,
    );
    let csv = dir.path().join("check.csv");
    let output = Command::new(&sarif)
        .args(["csv", "--output"])
        .arg(&csv)
        .arg(&check)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let csv = std::fs::read_to_string(&csv).unwrap();
    let mut rows: Vec<(String, String)> = csv
        .lines()
        .skip(1)
        .map(|line| {
            let fields: Vec<&str> = line.split(',').collect();
            (fields[1].to_owned(), fields[2].to_owned())
        })
        .collect();
    rows.sort();
    let expected = [
        ("error", "invalid-conversion"),
        ("error", "vvl-flag"),
        ("warning", "too-few-arguments"),
        ("warning", "vector-length"),
        ("warning", "vector-length"),
        ("warning", "width"),
    ]
    .map(|(level, rule)| (level.to_owned(), rule.to_owned()));
    assert_eq!(rows, expected, "{csv}");
    assert!(
        csv.lines()
            .skip(1)
            .all(|line| line.contains("mistakes.spv,")),
        "{csv}"
    );
    let (_, summary) = sarif_tool(&sarif, &["summary"], &check);
    assert!(summary.contains("error: 2\n"), "{summary}");
    assert!(summary.contains("warning: 4\n"), "{summary}");
}
