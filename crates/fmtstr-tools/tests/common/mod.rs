//! What the API tests share: the workspace's samples and schemas.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The workspace root, for samples and schemas.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A file under `samples/`.
pub fn sample(path: &str) -> PathBuf {
    root().join("samples").join(path)
}

/// Validates a JSON document against one of the schemas in `schemas/`, panicking with every
/// violation.
#[track_caller]
pub fn assert_matches_schema(schema_file: &str, document: &serde_json::Value) {
    let path = root().join("schemas").join(schema_file);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()));
    let schema: serde_json::Value = serde_json::from_str(&text)
        .unwrap_or_else(|error| panic!("{} is not JSON: {error}", path.display()));
    let validator = jsonschema::validator_for(&schema)
        .unwrap_or_else(|error| panic!("{} is not a valid schema: {error}", path.display()));
    let problems: Vec<String> = validator
        .iter_errors(document)
        .map(|error| format!("{} at {}", error, error.instance_path))
        .collect();
    assert!(
        problems.is_empty(),
        "output does not match {schema_file}:\n{}\n{document:#}",
        problems.join("\n")
    );
}
