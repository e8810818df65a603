//! `fmtstr_tools::audit` and its renderings through the public API, as the C library and the
//! Python package call them, on the bundled PAL samples.
//!
//! Each `samples/pal/NAME.elf` is built from `NAME.pal.json` (its PAL metadata document, which
//! `cargo xtask samples` encodes into the ELF). The tests read what each finding must be off
//! those documents: which IDs two tables give different strings, which masks a format
//! contradicts, and (for `verify_ids`) which IDs are not the low 48 bits of XXH3-64 of their
//! string, as doc/design.md defines fmtstr's IDs.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::{assert_matches_schema, sample};
use fmtstr_oracles::{require, Tool};
use fmtstr_tools::audit::{
    audit, audit_with_progress, collect_files, AuditError, Finding, Kind, Options, Report,
};
use fmtstr_tools::audit_formats::{audit_to_text, render, Request, Style};
use serde_json::Value as Json;

/// The `.strings` of `samples/pal/NAME.pal.json`: (ID, string, argument count, mask words).
fn entries(name: &str) -> Vec<(u64, String, u64, Vec<u64>)> {
    let path = sample(&format!("pal/{name}.pal.json"));
    let text = std::fs::read_to_string(&path).expect("the sample's document");
    let document: Json = serde_json::from_str(&text).expect("JSON");
    document["amdpal.format_strings"][".strings"]
        .as_array()
        .expect(".strings")
        .iter()
        .map(|entry| {
            (
                entry[".index"].as_u64().expect(".index"),
                entry[".string"].as_str().expect(".string").to_owned(),
                entry[".argument_count"].as_u64().expect(".argument_count"),
                entry[".64bit_arguments"]
                    .as_array()
                    .expect(".64bit_arguments")
                    .iter()
                    .map(|word| word.as_u64().expect("a mask word"))
                    .collect(),
            )
        })
        .collect()
}

fn elf(name: &str) -> PathBuf {
    sample(&format!("pal/{name}.elf"))
}

fn hex(id: u64) -> String {
    format!("0x{id:012x}")
}

fn run_audit(paths: &[PathBuf]) -> Report {
    audit(paths, &Options::default()).expect("the samples can be read")
}

fn kinds(report: &Report) -> Vec<Kind> {
    report.findings.iter().map(|finding| finding.kind).collect()
}

fn files_of(finding: &Finding) -> BTreeSet<String> {
    finding.locations.iter().map(|l| l.file.clone()).collect()
}

/// The ID two tables give different strings, read off their documents.
fn shared_id_with_different_strings(a: &str, b: &str) -> (u64, String, String) {
    let (a, b) = (entries(a), entries(b));
    let found: Vec<_> = a
        .iter()
        .flat_map(|x| b.iter().map(move |y| (x, y)))
        .filter(|(x, y)| x.0 == y.0 && x.1 != y.1)
        .map(|(x, y)| (x.0, x.1.clone(), y.1.clone()))
        .collect();
    assert_eq!(found.len(), 1, "the samples collide on one ID: {found:?}");
    found[0].clone()
}

#[test]
fn a_collision_across_files_is_one_finding_naming_both_entries() {
    let (id, collision_string, compute_string) =
        shared_id_with_different_strings("collision", "compute");
    let paths = [elf("collision"), elf("compute")];
    let report = run_audit(&paths);
    assert_eq!(report.files, 2);
    assert_eq!(report.skipped, 0);
    assert_eq!(
        report.strings,
        entries("collision").len() + entries("compute").len()
    );
    assert!(!report.clean);
    // compute.elf's own entries are right, and collision.elf's one entry is too (y=%d, one
    // 32-bit argument): the shared ID is the only finding.
    assert_eq!(kinds(&report), [Kind::Collision], "{:#?}", report.findings);
    let finding = &report.findings[0];
    assert_eq!(finding.id, Some(id));
    assert_eq!(finding.hex.as_deref(), Some(hex(id).as_str()));
    let files: BTreeSet<String> = paths.iter().map(|p| p.display().to_string()).collect();
    assert_eq!(files_of(finding), files);
    let strings: BTreeSet<&str> = finding
        .locations
        .iter()
        .map(|l| l.string.as_deref().expect("an entry's string"))
        .collect();
    assert_eq!(
        strings,
        BTreeSet::from([collision_string.as_str(), compute_string.as_str()])
    );
    // Both are the first entry of their table.
    assert!(finding.locations.iter().all(|l| l.index == Some(0)));
}

#[test]
fn a_collision_reads_the_same_in_every_rendering() {
    let (id, _, _) = shared_id_with_different_strings("collision", "compute");
    let paths = [elf("collision"), elf("compute")];
    let report = run_audit(&paths);
    let strings = entries("collision").len() + entries("compute").len();
    let summary = format!("2 files, {strings} format strings, 1 finding");

    let (text, code) = render(&report, Style::Text, "0.0.0-test");
    assert_eq!(code, 1, "findings exit 1");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines.len(),
        2,
        "one line per finding, then the summary:\n{text}"
    );
    let first_file = &report.findings[0].locations[0].file;
    assert!(
        lines[0].starts_with(&format!("{first_file}: error: collision: ")),
        "{text}"
    );
    assert_eq!(lines[1], format!("fmtstr audit: {summary}"));

    let (json, code) = render(&report, Style::Json, "0.0.0-test");
    assert_eq!(code, 1);
    let json: Json = serde_json::from_str(&json).expect("JSON");
    assert_matches_schema("audit.schema.json", &json);
    assert_eq!(json["files"], 2);
    assert_eq!(json["strings"], strings);
    assert_eq!(json["clean"], false);
    assert_eq!(json["summary"], summary.as_str());
    let finding = &json["findings"][0];
    assert_eq!(finding["kind"], "collision");
    assert_eq!(finding["id"], id);
    assert_eq!(finding["hex"], hex(id).as_str());
    assert_eq!(finding["locations"].as_array().map(Vec::len), Some(2));

    // GitHub workflow commands escape ':' and ',' in properties as %3A and %2C.
    let (github, code) = render(&report, Style::Github, "0.0.0-test");
    assert_eq!(code, 1);
    assert!(
        github.starts_with(&format!(
            "::error file={},title=fmtstr audit%3A collision::",
            first_file.replace(':', "%3A").replace(',', "%2C")
        )),
        "{github}"
    );
    assert!(
        github.ends_with(&format!("fmtstr audit: {summary}\n")),
        "{github}"
    );

    let (sarif, code) = render(&report, Style::Sarif, "9.9.9");
    assert_eq!(code, 1);
    let log: Json = serde_json::from_str(&sarif).expect("SARIF is JSON");
    let run = &log["runs"][0];
    assert_eq!(run["tool"]["driver"]["fullName"], "fmtstr audit");
    assert_eq!(run["tool"]["driver"]["version"], "9.9.9");
    let results = run["results"].as_array().expect("results");
    assert_eq!(results.len(), 1, "{log:#}");
    let result = &results[0];
    assert_eq!(result["ruleId"], "collision");
    assert_eq!(result["level"], "error");
    let index = result["ruleIndex"].as_u64().expect("ruleIndex") as usize;
    assert_eq!(run["tool"]["driver"]["rules"][index]["id"], "collision");
    // One place is the result's location, the other a related one: both files, by URI.
    let uri = |location: &Json| {
        location["physicalLocation"]["artifactLocation"]["uri"]
            .as_str()
            .expect("a file URI")
            .to_owned()
    };
    let mut uris = vec![uri(&result["locations"][0])];
    uris.extend(
        result["relatedLocations"]
            .as_array()
            .expect("related")
            .iter()
            .map(uri),
    );
    assert_eq!(uris.len(), 2, "{result:#}");
    for name in ["collision.elf", "compute.elf"] {
        assert!(uris.iter().any(|u| u.ends_with(name)), "{name}: {uris:?}");
    }
}

#[test]
fn one_id_and_string_with_two_masks_is_a_conflict() {
    // conflict.elf gives compute.elf's "thread %u: value %lld\n" the same ID and count but
    // the mask [0]; %lld (argument 2, bit 1) is 64 bits, so compute.elf's [2] is the right one.
    let conflict = entries("conflict");
    let compute = entries("compute");
    let (id, string, count, mask) = conflict[0].clone();
    let theirs = compute
        .iter()
        .find(|entry| entry.0 == id)
        .expect("compute.elf has the ID");
    assert_eq!((&theirs.1, theirs.2), (&string, count));
    assert_ne!(theirs.3, mask);
    assert_eq!(string, "thread %u: value %lld\n");
    assert_eq!((mask.as_slice(), theirs.3.as_slice()), (&[0][..], &[2][..]));

    let report = run_audit(&[elf("conflict"), elf("compute")]);
    let found: BTreeSet<Kind> = kinds(&report).into_iter().collect();
    assert_eq!(
        found,
        BTreeSet::from([Kind::Conflict, Kind::Arguments]),
        "{:#?}",
        report.findings
    );
    assert_eq!(report.findings.len(), 2);
    for finding in &report.findings {
        assert_eq!(finding.id, Some(id), "{finding:#?}");
    }
    let conflict_finding = report
        .findings
        .iter()
        .find(|f| f.kind == Kind::Conflict)
        .unwrap();
    let masks: BTreeSet<Vec<u64>> = conflict_finding
        .locations
        .iter()
        .map(|l| l.mask.clone().expect("a PAL entry's mask"))
        .collect();
    assert_eq!(masks, BTreeSet::from([vec![0], vec![2]]));
    assert!(conflict_finding
        .locations
        .iter()
        .all(|l| l.argument_count == Some(count)));
    // The contradicted mask is conflict.elf's alone.
    let arguments = report
        .findings
        .iter()
        .find(|f| f.kind == Kind::Arguments)
        .unwrap();
    assert_eq!(
        files_of(arguments),
        BTreeSet::from([elf("conflict").display().to_string()])
    );

    let (text, code) = render(&report, Style::Text, "0");
    assert_eq!(code, 1);
    assert!(text.contains(": error: conflict: "), "{text}");
    assert!(text.contains(": error: arguments: "), "{text}");
}

#[test]
fn entries_that_their_format_contradicts_are_argument_findings() {
    // suspicious.pal.json, entry by entry:
    //   1001 "%ld\n", 1 argument, mask 0: %ld is 64 bits, bit 0 unset        -> arguments
    //   1002 "%d %d\n", 1 argument: the format takes 2                       -> arguments
    //   1003 "%d\n", mask 1: %d is 32 bits, bit 0 set                        -> arguments
    //   1004 "%y ...": no conversion %y, the format does not parse          -> arguments
    //   1005 70 x %d, 70 arguments, two zero mask words: right
    //   1006 "%lld %d\n", 2 arguments, mask 1 (bit 0: the %lld): right
    let entries = entries("suspicious");
    assert_eq!(
        entries.iter().map(|e| e.0).collect::<Vec<_>>(),
        [1001, 1002, 1003, 1004, 1005, 1006]
    );
    let report = run_audit(&[elf("suspicious")]);
    assert_eq!(report.strings, entries.len());
    assert!(report.findings.iter().all(|f| f.kind == Kind::Arguments));
    let ids: Vec<Option<u64>> = report.findings.iter().map(|f| f.id).collect();
    assert_eq!(ids, [Some(1001), Some(1002), Some(1003), Some(1004)]);
    for finding in &report.findings {
        let at = &finding.locations[0];
        let index = at.index.expect("the entry's index");
        let entry = &entries[index];
        assert_eq!(Some(entry.0), finding.id, "the index is the entry's");
        assert_eq!(at.string.as_deref(), Some(entry.1.as_str()));
        assert_eq!(at.argument_count, Some(entry.2));
        assert_eq!(at.mask.as_deref(), Some(entry.3.as_slice()));
        assert_eq!(finding.hex.as_deref(), Some(hex(entry.0).as_str()));
    }
}

/// fmtstr's ID of a format string: the low 48 bits of XXH3-64 (seed 0) of its bytes, 0 made 1.
fn fmtstr_id(string: &str) -> u64 {
    (xxhash_rust::xxh3::xxh3_64(string.as_bytes()) & ((1 << 48) - 1)).max(1)
}

#[test]
fn verify_ids_reports_each_id_that_is_not_the_hash_of_its_string() {
    let entries = entries("graphics");
    let expected: Vec<u64> = entries
        .iter()
        .filter(|(id, string, ..)| *id != fmtstr_id(string))
        .map(|(id, ..)| *id)
        .collect();
    assert!(
        !expected.is_empty() && expected.len() < entries.len(),
        "graphics.elf mixes fmtstr's IDs and others: {entries:?}"
    );
    let paths = [elf("graphics")];
    assert!(run_audit(&paths).clean, "IDs are opaque by default");
    let report = audit(&paths, &Options { verify_ids: true }).expect("readable");
    assert!(report.findings.iter().all(|f| f.kind == Kind::Id));
    let ids: Vec<u64> = report.findings.iter().filter_map(|f| f.id).collect();
    assert_eq!(ids, expected);

    // The same through the C library's entry point, options by their command-line names.
    let request: Request =
        serde_json::from_str(r#"{"format": "json", "verify-ids": true}"#).expect("a request");
    assert_eq!(request.format, Style::Json);
    let (json, code) = audit_to_text(&paths, &request, "0").expect("readable");
    assert_eq!(code, 1);
    let json: Json = serde_json::from_str(&json).expect("JSON");
    assert_matches_schema("audit.schema.json", &json);
    let hexes: Vec<&str> = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["hex"].as_str().expect("hex"))
        .collect();
    let expected_hex: Vec<String> = expected.iter().map(|id| hex(*id)).collect();
    assert_eq!(hexes, expected_hex);
    assert!(serde_json::from_str::<Request>(r#"{"verify_ids": true}"#).is_err());
}

#[test]
fn a_directory_is_walked_in_order_and_reads_only_elf_files() {
    let dir = common::root().join("samples/pal");
    let mut listed: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the samples directory")
        .map(|entry| entry.expect("an entry").path())
        .filter(|path| path.is_file())
        .collect();
    listed.sort();
    let files = collect_files(std::slice::from_ref(&dir)).expect("walkable");
    assert_eq!(files, listed, "every file, in path order");
    let is_elf = |path: &Path| std::fs::read(path).unwrap().starts_with(b"\x7fELF");
    let elves = listed.iter().filter(|path| is_elf(path)).count();
    assert!(elves >= 4 && elves < listed.len(), "{listed:?}");

    let started = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let report = audit_with_progress(
        std::slice::from_ref(&dir),
        &Options::default(),
        &|count| started.store(count, Ordering::SeqCst),
        &|| {
            done.fetch_add(1, Ordering::SeqCst);
        },
    )
    .expect("readable");
    assert_eq!(started.load(Ordering::SeqCst), listed.len());
    assert_eq!(done.load(Ordering::SeqCst), listed.len());
    assert_eq!(report.files, elves);
    assert_eq!(report.skipped, listed.len() - elves);
    let found: BTreeSet<Kind> = kinds(&report).into_iter().collect();
    for kind in [Kind::Collision, Kind::Conflict, Kind::Arguments] {
        assert!(found.contains(&kind), "{kind:?} missing: {found:?}");
    }
    // Sorted by the first location's file, then kind, then ID.
    let keys: Vec<(String, Kind, Option<u64>)> = report
        .findings
        .iter()
        .map(|f| (f.locations[0].file.clone(), f.kind, f.id))
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
}

#[test]
fn a_named_file_that_is_not_elf_is_malformed_and_a_missing_one_stops_the_audit() {
    // A file named on the command line must be an ELF file (or a SPIR-V module); a JSON
    // document is neither.
    let json = sample("pal/compute.pal.json");
    let report = run_audit(std::slice::from_ref(&json));
    assert_eq!(report.files, 1);
    assert_eq!(report.skipped, 0);
    assert_eq!(kinds(&report), [Kind::Malformed]);
    assert_eq!(
        files_of(&report.findings[0]),
        BTreeSet::from([json.display().to_string()])
    );

    let missing = sample("pal/no-such-file.elf");
    match audit(&[elf("compute"), missing.clone()], &Options::default()) {
        Err(AuditError::Unreadable { message }) => {
            assert!(message.contains("no-such-file.elf"), "{message}")
        }
        other => panic!("{other:?}"),
    }
    let error = audit_to_text(std::slice::from_ref(&missing), &Request::default(), "0")
        .expect_err("an input that cannot be read");
    assert!(error.contains("no-such-file.elf"), "{error}");
}

/// `ld.lld -r` keeps one metadata note per object: the audit says the file is unfolded, and
/// audits each note as a source of its own, so two notes that disagree on an ID collide.
#[test]
fn a_linked_file_with_a_note_per_object_is_unfolded() {
    let Some(lld) = require(Tool::Lld) else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("fmtstr-tools-audit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch directory");
    let linked = dir.join("linked.o");
    // Both samples define `main`; only their notes matter here.
    let output = Command::new(lld)
        .args(["-r", "--allow-multiple-definition"])
        .arg(elf("compute"))
        .arg(elf("collision"))
        .arg("-o")
        .arg(&linked)
        .output()
        .expect("ld.lld runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let size = std::fs::metadata(&linked).expect("the linked file").len();
    let report = run_audit(std::slice::from_ref(&linked));
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(report.files, 1);
    assert_eq!(
        report.strings,
        entries("compute").len() + entries("collision").len()
    );
    let found: BTreeSet<Kind> = kinds(&report).into_iter().collect();
    assert_eq!(
        found,
        BTreeSet::from([Kind::Collision, Kind::Unfolded]),
        "{:#?}",
        report.findings
    );
    let (id, _, _) = shared_id_with_different_strings("collision", "compute");
    let collision = report
        .findings
        .iter()
        .find(|f| f.kind == Kind::Collision)
        .unwrap();
    assert_eq!(collision.id, Some(id));
    let notes: BTreeSet<u64> = collision
        .locations
        .iter()
        .map(|l| l.note.expect("a note offset in a file of several"))
        .collect();
    assert_eq!(notes.len(), 2, "{collision:#?}");
    assert!(notes.iter().all(|&offset| offset < size));
    let text = render(&report, Style::Text, "0").0;
    assert!(text.contains(": error: unfolded: "), "{text}");
}

/// A finding names an entry by its index in `.strings`, where shader-abort entries count too:
/// llpc.pal.json's `.strings` is a printf entry, an abort entry, then a printf entry. A copy of
/// llpc.elf whose last printf entry keeps its ID but not its string collides with it there.
#[test]
fn locations_count_abort_entries_in_the_strings_index() {
    let path = sample("pal/llpc.pal.json");
    let document: Json =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("the sample's document"))
            .expect("JSON");
    let strings = document["amdpal.format_strings"][".strings"]
        .as_array()
        .expect(".strings");
    let position = strings
        .iter()
        .rposition(|entry| entry.get(".string").is_some())
        .expect("a printf entry");
    assert!(
        strings[..position]
            .iter()
            .any(|entry| entry[".is_abort_message"] == 1),
        "an abort entry comes before it"
    );
    let id = strings[position][".index"].as_u64().expect(".index");

    let bytes = std::fs::read(elf("llpc")).expect("llpc.elf");
    let original = fmtstr_elf::PalElf::parse(&bytes).expect("llpc.elf parses");
    let mut table = original
        .format_strings()
        .expect("its document decodes")
        .expect("it has a table");
    let entry = table
        .entries
        .iter_mut()
        .find(|entry| entry.id().get() == id)
        .expect("the entry");
    *entry = fmtstr_meta::Entry::new(
        entry.id(),
        "other:%f,%f\n",
        entry.argument_count(),
        entry.mask().clone(),
    );
    let dir =
        std::env::temp_dir().join(format!("fmtstr-tools-audit-aborts-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch directory");
    let copy = dir.join("llpc-copy.elf");
    std::fs::write(
        &copy,
        original.with_format_strings(&table).expect("a rewrite"),
    )
    .expect("the copy is written");
    let paths = [elf("llpc"), copy];
    let report = run_audit(&paths);
    let (json, _) = audit_to_text(
        &paths,
        &serde_json::from_str(r#"{"format": "json"}"#).expect("a request"),
        "0",
    )
    .expect("readable");
    let _ = std::fs::remove_dir_all(&dir);

    let collision = report
        .findings
        .iter()
        .find(|f| f.kind == Kind::Collision)
        .expect("a collision");
    assert_eq!(collision.id, Some(id));
    let indices: Vec<Option<usize>> = collision.locations.iter().map(|l| l.index).collect();
    assert_eq!(indices, [Some(position), Some(position)]);
    assert!(
        collision.message.contains(&format!(".strings[{position}]")),
        "{}",
        collision.message
    );
    let json: Json = serde_json::from_str(&json).expect("JSON");
    assert_matches_schema("audit.schema.json", &json);
    let finding = json["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .find(|f| f["kind"] == "collision")
        .expect("the collision in JSON");
    for location in finding["locations"].as_array().expect("locations") {
        assert_eq!(location["index"], position, "{finding}");
    }
}

/// A directory's walk lists regular files and links to files in path order, through
/// subdirectories; it does not follow links to directories, passes over a FIFO, and stops at
/// a dangling link, naming it.
#[test]
fn a_walk_follows_links_to_files_only_and_names_a_dangling_link() {
    use std::os::unix::fs::symlink;
    let dir = std::env::temp_dir().join(format!("fmtstr-audit-walk-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("sub/deeper")).expect("directories");
    for name in [
        "b.elf",
        "a.elf",
        "a-b",
        "sub-a",
        "sub/z.bin",
        "sub/deeper/c.elf",
    ] {
        std::fs::write(dir.join(name), b"x").expect("a file");
    }
    symlink(dir.join("a.elf"), dir.join("link-to-file")).expect("a link");
    symlink(dir.join("sub"), dir.join("link-to-dir")).expect("a link");
    let fifo = Command::new("mkfifo").arg(dir.join("fifo")).status();
    assert!(fifo.expect("mkfifo").success());
    let files = collect_files(std::slice::from_ref(&dir)).expect("walkable");
    let expected: Vec<PathBuf> = [
        "a-b",
        "a.elf",
        "b.elf",
        "link-to-file",
        "sub/deeper/c.elf",
        "sub/z.bin",
        "sub-a",
    ]
    .iter()
    .map(|name| dir.join(name))
    .collect();
    assert_eq!(files, expected);

    let dangling = dir.join("sub/deeper/dangling");
    symlink(dir.join("nowhere"), &dangling).expect("a link");
    let Err(AuditError::Unreadable { message }) = collect_files(std::slice::from_ref(&dir)) else {
        panic!("a dangling link was not an error");
    };
    let _ = std::fs::remove_dir_all(&dir);
    let expected = format!("cannot read {}: ", dangling.display());
    assert!(message.starts_with(&expected), "{message}");
}
