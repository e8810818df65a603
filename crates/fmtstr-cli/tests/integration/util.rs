//! Running the binary under test.

use std::path::Path;
use std::process::{Command, Output};

/// A command for the `fmtstr` binary built for these tests.
pub fn fmtstr() -> Command {
    Command::new(env!("CARGO_BIN_EXE_fmtstr"))
}

/// The result of one run of the binary, with helpers for asserting on it.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: Vec<u8>,
    pub stderr: String,
}

impl Run {
    pub fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    /// Panics with both streams when the exit code differs.
    #[track_caller]
    pub fn expect_code(self, code: i32) -> Run {
        assert_eq!(
            self.code,
            code,
            "exit code\nstdout:\n{}\nstderr:\n{}",
            self.stdout_text(),
            self.stderr
        );
        self
    }
}

/// Runs `fmtstr ARGS...`.
pub fn run<I, S>(args: I) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    run_command(fmtstr().args(args))
}

/// Runs a prepared command.
pub fn run_command(command: &mut Command) -> Run {
    let Output {
        status,
        stdout,
        stderr,
    } = command.output().expect("the fmtstr binary runs");
    Run {
        code: status.code().unwrap_or(-1),
        stdout,
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
    }
}

/// The workspace root, for samples and schemas.
pub fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// Validates a JSON document against one of the schemas in `schemas/`, panicking with every
/// violation.
#[track_caller]
pub fn assert_matches_schema(schema_file: &str, document: &serde_json::Value) {
    assert_matches_schema_at(&root().join("schemas").join(schema_file), document);
}

/// Validates a JSON document against the schema in a file (JSON Schema draft 4 to 2020-12, as
/// its `$schema` says), panicking with every violation.
#[track_caller]
pub fn assert_matches_schema_at(path: &Path, document: &serde_json::Value) {
    let schema_file = path.display();
    let text = std::fs::read_to_string(path)
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
