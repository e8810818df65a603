//! `fmtstr lower` on a module that uses LLVM 22's grammar (`ptrtoaddr`, `riscv_vls_cc(N)`, fast-
//! math flags on `fpext`/`fptrunc`, `samesign`) where each way of parsing meets it: in a global
//! initializer, in the lines that compute printf's arguments, in the lines that use its result,
//! in a call the pass reads, in a function without printf, and in a kernel whose byval parameter
//! struct-args rewrites. Every path (NVPTX sparse and whole parses, both AMD stages, strip,
//! struct-args) must lower it, keep those lines as they were, and write what `llvm-as-22`
//! accepts.

use std::path::Path;

use fmtstr_oracles::{require_llvm, Llvm, Tool};

use crate::util::run;

const MODULE: &str = r#"target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%pair = type { float, ptr }

@.fmt = private unnamed_addr constant [16 x i8] c"a=%u e=%f r=%f\0A\00", align 1
@counter = global i32 0
@counter.address = global i64 ptrtoaddr (ptr @counter to i64)
@sink = global i64 0

declare i32 @printf(ptr, ...)
declare riscv_vls_cc(128) void @vls()

define void @kernel(float %f, ptr %p, i32 %n) {
entry:
  %e = fpext nnan float %f to double
  %a = ptrtoaddr ptr %p to i64
  %t = trunc nuw i64 %a to i32
  %small = icmp samesign ult i32 %n, 4
  %r = fptrunc nnan ninf double %e to float
  %rd = fpext fast float %r to double
  call riscv_vls_cc(128) void @vls()
  %call = call i32 (ptr, ...) @printf(ptr @.fmt, i32 %t, double %e, double %rd)
  %narrow = trunc nuw nsw i32 %call to i8
  %few = icmp samesign ult i32 %call, 9
  %wide = zext nneg i32 %call to i64
  %back = ptrtoaddr ptr @counter to i64
  ret void
}

define double @no_printf(float %f, ptr %p) {
  %e = fpext contract float %f to double
  %a = ptrtoaddr ptr %p to i64
  call riscv_vls_cc(128) void @vls()
  ret double %e
}

define ptx_kernel void @by_value(ptr byval(%pair) align 8 %s) {
  %fp = getelementptr inbounds nuw %pair, ptr %s, i32 0, i32 0
  %f = load float, ptr %fp, align 8
  %d = fpext nnan float %f to double
  %pp = getelementptr inbounds nuw %pair, ptr %s, i32 0, i32 1
  %p = load ptr, ptr %pp, align 8
  %a = ptrtoaddr ptr %p to i64
  store i64 %a, ptr @sink, align 8
  ret void
}
"#;

/// Lines of [`MODULE`] that every path keeps as they are.
const KEPT: [&str; 8] = [
    "@counter.address = global i64 ptrtoaddr (ptr @counter to i64)",
    "declare riscv_vls_cc(128) void @vls()",
    "  %e = fpext nnan float %f to double",
    "  %a = ptrtoaddr ptr %p to i64",
    "  %r = fptrunc nnan ninf double %e to float",
    "  %rd = fpext fast float %r to double",
    "  call riscv_vls_cc(128) void @vls()",
    "  %e = fpext contract float %f to double",
];

/// `llvm-as` of `llvm` accepts `text` (None: not installed), or says why not.
fn llvm_as(llvm: Llvm, text: &[u8], dir: &Path) -> Option<Result<(), String>> {
    let tool = require_llvm(llvm, Tool::LlvmAs)?;
    let path = dir.join(format!("check-{}.ll", llvm.major()));
    std::fs::write(&path, text).expect("write");
    let output = std::process::Command::new(tool)
        .arg(&path)
        .args(["-o", "/dev/null"])
        .output()
        .expect("llvm-as runs");
    Some(if output.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).into_owned())
    })
}

#[test]
fn every_lowering_path_reads_llvm_22_grammar_and_keeps_it() {
    let dir = tempfile::Builder::new()
        .prefix("fmtstr-lower-llvm22-")
        .tempdir()
        .expect("temp dir");
    let input = dir.path().join("k22.ll");
    std::fs::write(&input, MODULE).expect("write");
    // The module is LLVM 22's: llvm-as-22 accepts it, llvm-as-19 does not.
    if let Some(verdict) = llvm_as(Llvm::V22, MODULE.as_bytes(), dir.path()) {
        verdict.unwrap_or_else(|e| panic!("llvm-as-22 rejects the test input:\n{e}"));
    }
    if let Some(verdict) = llvm_as(Llvm::V19, MODULE.as_bytes(), dir.path()) {
        assert!(verdict.is_err(), "llvm-as-19 accepts the test input");
    }
    let input = input.to_str().expect("UTF-8 path");
    let paths: [&[&str]; 8] = [
        // Sparse: only printf's calls and their results' users are parsed.
        &["--target", "nvptx"],
        // Whole parses.
        &["--target", "nvptx", "--prefix", "block,thread"],
        &["--target", "nvptx", "--only", "thread.x<4"],
        &["--target", "amdgpu"],
        &["--target", "amdgpu", "--stage", "buffer"],
        &[
            "--target",
            "amdgpu",
            "--stage",
            "buffer",
            "--only",
            "local.x<4",
        ],
        &["--pass", "strip"],
        &["--pass", "struct-args"],
    ];
    for args in paths {
        let mut argv = vec!["lower"];
        argv.extend_from_slice(args);
        argv.push(input);
        let out = run(&argv);
        assert_eq!(out.code, 0, "fmtstr {argv:?}:\n{}", out.stderr);
        let text = out.stdout_text();
        for line in KEPT {
            assert!(
                text.lines().any(|l| l == line),
                "fmtstr {argv:?} lost {line:?}:\n{text}"
            );
        }
        if args[0] == "--pass" && args[1] == "struct-args" {
            assert!(
                out.stderr.contains("@by_value parameter 0") && text != MODULE,
                "struct-args did not rewrite @by_value:\n{}",
                out.stderr
            );
        } else {
            assert!(
                !text.contains("@printf(ptr @.fmt"),
                "fmtstr {argv:?} left the printf call:\n{text}"
            );
        }
        if let Some(verdict) = llvm_as(Llvm::V22, text.as_bytes(), dir.path()) {
            verdict.unwrap_or_else(|e| {
                panic!("fmtstr {argv:?}: llvm-as-22 rejects the output:\n{e}\n{text}")
            });
        }
    }
}
