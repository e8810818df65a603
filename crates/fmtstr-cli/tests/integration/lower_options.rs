//! `fmtstr lower`'s options for what no GPU printf offers: `--pass strip` (printf compiled
//! out) and `--report` (the bytes a launch writes, before launching).

use std::path::Path;

use fmtstr_oracles::{require, Tool};

use crate::util::run;

fn scratch() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("fmtstr-lower-options-")
        .tempdir()
        .expect("temp dir")
}

const USED_RESULT: &str = r#"target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
@.str = private unnamed_addr constant [4 x i8] c"%d\0A\00", align 1
define i32 @k(i32 %x) {
  %n = call i32 (ptr, ...) @printf(ptr @.str, i32 %x)
  ret i32 %n
}
declare i32 @printf(ptr, ...)
"#;

/// `--pass strip` removes the call, warns about the used result (exit 0; 1 with --Werror and
/// nothing written), and refuses target options with the fix named (exit 2).
#[test]
fn strip_removes_calls_and_warns_about_used_results() {
    let dir = scratch();
    let input = dir.path().join("k.ll");
    let out = dir.path().join("k.strip.ll");
    std::fs::write(&input, USED_RESULT).unwrap();
    let stripped = run([
        "lower".as_ref(),
        "--pass".as_ref(),
        "strip".as_ref(),
        input.as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
    ])
    .expect_code(0);
    assert!(
        stripped
            .stderr
            .contains("k.ll:4:3: warning: printf's result is used")
            && stripped.stderr.contains("[-Wprintf-result]"),
        "{}",
        stripped.stderr
    );
    let text = std::fs::read_to_string(&out).unwrap();
    let expected = USED_RESULT
        .replace(
            "  %n = call i32 (ptr, ...) @printf(ptr @.str, i32 %x)\n",
            "",
        )
        .replace("ret i32 %n", "ret i32 0")
        .replace("declare i32 @printf(ptr, ...)\n", "");
    assert_eq!(text, expected);
    assert_llvm_as_accepts(&out);

    let strict = dir.path().join("strict.ll");
    let werror = run([
        "lower".as_ref(),
        "--pass".as_ref(),
        "strip".as_ref(),
        "--Werror".as_ref(),
        input.as_os_str(),
        "-o".as_ref(),
        strict.as_os_str(),
    ])
    .expect_code(1);
    assert!(
        werror.stderr.contains("[-Werror,-Wprintf-result]"),
        "{}",
        werror.stderr
    );
    assert!(!strict.exists());

    let refused = run([
        "lower".as_ref(),
        "--pass".as_ref(),
        "strip".as_ref(),
        "--target".as_ref(),
        "nvptx".as_ref(),
        input.as_os_str(),
    ])
    .expect_code(2);
    assert!(
        refused
            .stderr
            .contains("--pass strip removes the calls for every target: drop --target"),
        "{}",
        refused.stderr
    );
}

/// llvm-as (LLVM 19) must accept the module.
#[track_caller]
pub fn assert_llvm_as_accepts(path: &Path) {
    let Some(llvm_as) = require(Tool::LlvmAs) else {
        return;
    };
    let output = std::process::Command::new(llvm_as)
        .arg(path)
        .args(["-o", "/dev/null"])
        .output()
        .expect("llvm-as runs");
    assert!(
        output.status.success(),
        "llvm-as rejects {}:\n{}",
        path.display(),
        String::from_utf8_lossy(&output.stderr)
    );
}
