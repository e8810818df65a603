//! What LLVM's tools say about a file: the PAL metadata `llvm-readobj --notes` decodes, the
//! sections `llvm-readelf -S` lists, whether `llvm-objcopy` accepts it.

use std::path::Path;
use std::process::Command;

use serde_json::{json, Value as Json};

/// Removes YAML tags (`!str '123'`) so values compare by content.
fn untag(value: serde_yaml::Value) -> serde_yaml::Value {
    use serde_yaml::Value;
    match value {
        Value::Tagged(tagged) => untag(tagged.value),
        Value::Sequence(items) => Value::Sequence(items.into_iter().map(untag).collect()),
        Value::Mapping(map) => {
            Value::Mapping(map.into_iter().map(|(k, v)| (untag(k), untag(v))).collect())
        }
        other => other,
    }
}

/// The PAL metadata document as `llvm-readobj --notes` decodes it (its YAML).
pub fn metadata(readobj: &Path, file: &Path) -> Option<serde_yaml::Value> {
    let output = Command::new(readobj)
        .args(["--elf-output-style=JSON", "--notes"])
        .arg(file)
        .output()
        .expect("llvm-readobj runs");
    assert!(
        output.status.success() && output.stderr.is_empty(),
        "llvm-readobj complained about {}:\n{}",
        file.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    let report: Json = serde_json::from_slice(&output.stdout).expect("readobj JSON");
    let mut found = Vec::new();
    for section in report[0]["NoteSections"].as_array().into_iter().flatten() {
        for note in section["NoteSection"]["Notes"]
            .as_array()
            .into_iter()
            .flatten()
        {
            if let Some(yaml) = note["AMDGPU Metadata"].as_str() {
                found.push(yaml.to_owned());
            }
        }
    }
    assert!(
        found.len() <= 1,
        "several metadata notes in {}",
        file.display()
    );
    found
        .pop()
        .map(|yaml| untag(serde_yaml::from_str(&yaml).expect("readobj prints YAML")))
}

/// The table readobj shows, as fmtstr's JSON form (for comparing with `dump --json`).
pub fn table(readobj: &Path, file: &Path) -> Json {
    let Some(document) = metadata(readobj, file) else {
        return Json::Null;
    };
    match document.get("amdpal.format_strings") {
        Some(table) => serde_json::to_value(table).expect("the table has string keys"),
        None => Json::Null,
    }
}

/// `(name, offset, size)` of each section, from `llvm-readelf -S`.
pub fn sections(readelf: &Path, file: &Path) -> Vec<(String, u64, u64)> {
    let output = Command::new(readelf)
        .args(["-S", "--wide"])
        .arg(file)
        .output()
        .expect("llvm-readelf runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8_lossy(&output.stdout);
    let mut sections = Vec::new();
    for line in text.lines() {
        let Some(rest) = line.trim_start().strip_prefix('[') else {
            continue;
        };
        let Some((number, rest)) = rest.split_once(']') else {
            continue;
        };
        if number.trim().parse::<usize>().is_err() {
            continue;
        }
        let fields: Vec<&str> = rest.split_whitespace().collect();
        // Section 0 has no name: [ 0]  NULL  addr off size ...
        let (name, fields) = if fields.first() == Some(&"NULL") {
            (String::new(), &fields[..])
        } else {
            (fields[0].to_owned(), &fields[1..])
        };
        let offset = u64::from_str_radix(fields[2], 16).expect("offset");
        let size = u64::from_str_radix(fields[3], 16).expect("size");
        sections.push((name, offset, size));
    }
    sections
}

/// `llvm-objcopy` copies the file without a word.
pub fn objcopy_accepts(objcopy: &Path, file: &Path, dir: &Path) {
    let copy = dir.join("objcopy.out");
    let output = Command::new(objcopy)
        .arg(file)
        .arg(&copy)
        .output()
        .expect("llvm-objcopy runs");
    assert!(
        output.status.success() && output.stderr.is_empty(),
        "llvm-objcopy rejected {}:\n{}",
        file.display(),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Entries of a table JSON in a canonical key order, for comparing fmtstr's and LLVM's views.
pub fn canonical(table: &Json) -> Json {
    if table.is_null() {
        return Json::Null;
    }
    let strings: Vec<Json> = table[".strings"]
        .as_array()
        .expect("strings")
        .iter()
        .map(|entry| {
            let mut sorted: Vec<(String, Json)> = entry
                .as_object()
                .expect("entry")
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            sorted.sort_by(|a, b| a.0.cmp(&b.0));
            Json::Object(sorted.into_iter().collect())
        })
        .collect();
    json!({".version": table[".version"], ".strings": strings})
}

/// Every metadata note's document as `llvm-readobj --notes` decodes it, in file order (a
/// linked file has one per linked object).
pub fn metadata_notes(readobj: &Path, file: &Path) -> Vec<serde_yaml::Value> {
    let output = Command::new(readobj)
        .args(["--elf-output-style=JSON", "--notes"])
        .arg(file)
        .output()
        .expect("llvm-readobj runs");
    assert!(
        output.status.success() && output.stderr.is_empty(),
        "llvm-readobj complained about {}:\n{}",
        file.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    let report: Json = serde_json::from_slice(&output.stdout).expect("readobj JSON");
    let mut found = Vec::new();
    for section in report[0]["NoteSections"].as_array().into_iter().flatten() {
        for note in section["NoteSection"]["Notes"]
            .as_array()
            .into_iter()
            .flatten()
        {
            if let Some(yaml) = note["AMDGPU Metadata"].as_str() {
                found.push(untag(
                    serde_yaml::from_str(yaml).expect("readobj prints YAML"),
                ));
            }
        }
    }
    found
}
