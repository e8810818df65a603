//! `fmtstr_tools::lower` through its public API, as the C library and the Python package call
//! it: options from JSON, every compatibility rule in one place, and lowered modules that the
//! real llvm-as and llc accept.

use std::io::Write as _;
use std::process::{Command, Stdio};

use fmtstr_ir::SourceText;
use fmtstr_oracles::{require_llvm, Llvm, Tool};
use fmtstr_tools::lower::{lower, Job, LowerError, LowerOptions, Pass, TargetName};

const KERNEL: &str = r#"target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@.fmt = private unnamed_addr constant [11 x i8] c"x=%d y=%f\0A\00", align 1

define void @k(i32 %x, double %y) {
entry:
  %r = call i32 (ptr, ...) @printf(ptr @.fmt, i32 %x, double %y)
  ret void
}

declare i32 @printf(ptr, ...)
"#;

fn options(json: &str) -> LowerOptions {
    serde_json::from_str(json).unwrap_or_else(|error| panic!("{json}: {error}"))
}

fn text(source: &str) -> SourceText {
    source.as_bytes().to_vec().into()
}

/// Runs `tool` on `input` as stdin; its stderr when it fails.
fn accepts(tool: &std::path::Path, args: &[&str], input: &[u8]) -> Result<(), String> {
    let mut child = Command::new(tool)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the tool runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input)
        .expect("write");
    let output = child.wait_with_output().expect("wait");
    if output.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).into_owned())
    }
}

#[test]
fn options_read_as_json_with_the_command_line_names() {
    let parsed = options(
        r#"{"target": "amdgpu", "stage": "buffer", "runtime-strings": 16, "prefix": "site",
            "limit-per-site": 3, "werror": true}"#,
    );
    assert_eq!(parsed.target, Some(TargetName::Amdgpu));
    assert_eq!(parsed.runtime_strings, Some(16));
    assert_eq!(parsed.limit_per_site, Some(3));
    assert!(parsed.werror);
    assert!(matches!(parsed.job(), Ok(Job::Printf(_))));
    assert_eq!(options(r#"{"pass": "strip"}"#).job().ok(), Some(Job::Strip));
    // A misspelt option is an error that names it, not an option silently ignored.
    let error = serde_json::from_str::<LowerOptions>(r#"{"targte": "nvptx"}"#).unwrap_err();
    assert!(error.to_string().contains("targte"), "{error}");
    assert!(serde_json::from_str::<LowerOptions>(r#"{"target": "x86"}"#).is_err());
}

#[test]
fn options_that_do_not_go_together_name_the_fix() {
    for (json, says) in [
        (r#"{}"#, "needs --target nvptx or --target amdgpu"),
        (
            r#"{"target": "nvptx", "stage": "buffer"}"#,
            "--stage applies to --target amdgpu",
        ),
        (
            r#"{"target": "nvptx", "runtime-strings": 8}"#,
            "--runtime-strings applies to --target amdgpu",
        ),
        (
            r#"{"target": "amdgpu", "runtime-strings": 8}"#,
            "--runtime-strings needs --stage buffer",
        ),
        (
            r#"{"target": "amdgpu", "stage": "buffer", "runtime-strings": 0}"#,
            "1 to 4096",
        ),
        (
            r#"{"target": "amdgpu", "layout": "slot32"}"#,
            "--layout applies to --target nvptx",
        ),
        (
            r#"{"target": "nvptx", "limit-per-site": 0}"#,
            "--limit-per-site 0",
        ),
        (
            r#"{"target": "nvptx", "prefix": "seq", "only": "thread.x==0"}"#,
            "--prefix seq with --only",
        ),
        (r#"{"target": "nvptx", "prefix": "nonsense"}"#, "nonsense"),
        (
            r#"{"pass": "strip", "target": "nvptx"}"#,
            "--target applies to --pass printf",
        ),
        (
            r#"{"pass": "struct-args", "target": "amdgpu"}"#,
            "not struct-args",
        ),
    ] {
        match options(json).job() {
            Err(LowerError::Usage(message)) => {
                assert!(message.contains(says), "{json}: {message}")
            }
            other => panic!("{json}: {other:?}"),
        }
    }
}

#[test]
fn a_lowered_module_is_what_llc_compiles() {
    let lowered = lower(
        "k.ll",
        text(KERNEL),
        &options(r#"{"target": "nvptx", "report": true}"#),
    )
    .expect("lowered");
    assert_eq!(lowered.calls, 1);
    let mut out = Vec::new();
    lowered.write_to(&mut out).unwrap();
    assert!(out.len() <= lowered.expected_len());
    let out = String::from_utf8(out).unwrap();
    assert!(out.contains("@vprintf(ptr @.fmt"), "{out}");
    assert!(!out.contains("@printf("), "{out}");
    // The report: the int at 0 and the double at 8, 16 bytes.
    let report = lowered.report.expect("a report");
    assert_eq!(report.calls[0].bytes, Some(16));
    assert_eq!(report.json()["calls"][0]["bytes"], 16);
    assert!(report.json()["calls"][0].get("dwords").is_none());
    assert!(
        report.text().contains("@k \"x=%d y=%f\\n\": 16 bytes"),
        "{}",
        report.text()
    );
    for llvm in Llvm::ALL {
        if let Some(llc) = require_llvm(llvm, Tool::Llc) {
            accepts(
                &llc,
                &["-march=nvptx64", "-mcpu=sm_90", "-o", "/dev/null"],
                out.as_bytes(),
            )
            .unwrap_or_else(|error| panic!("{llvm}: {error}\n{out}"));
        }
    }
    // A module without printf comes back byte for byte.
    let plain = "define void @f() {\n  ret void\n}\n";
    let lowered = lower("f.ll", text(plain), &options(r#"{"target": "nvptx"}"#)).unwrap();
    let mut out = Vec::new();
    lowered.write_to(&mut out).unwrap();
    assert_eq!(out, plain.as_bytes());
}

#[test]
fn failures_carry_every_diagnostic_and_change_nothing() {
    let bad = KERNEL
        .replace("double %y)\n  ret", "ptr %y)\n  ret")
        .replace("i32 %x, double %y)\n  %r", "i32 %x, ptr %y)\n  %r");
    // %f given a pointer: a -Wformat warning, which --Werror makes an error.
    let warned = lower("k.ll", text(&bad), &options(r#"{"target": "nvptx"}"#)).expect("lowered");
    assert_eq!(warned.warnings.len(), 1, "{:?}", warned.warnings);
    match lower(
        "k.ll",
        text(&bad),
        &options(r#"{"target": "nvptx", "werror": true}"#),
    ) {
        Err(LowerError::Failed { diagnostics, .. }) => assert_eq!(diagnostics.len(), 1),
        other => panic!("{other:?}"),
    }
    match lower("k.ll", text("not IR"), &options(r#"{"target": "nvptx"}"#)) {
        Err(LowerError::Module(message)) => assert!(message.contains("k.ll:1:"), "{message}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        options(r#"{"pass": "assert", "target": "nvptx"}"#).pass,
        Pass::Assert
    );
}
