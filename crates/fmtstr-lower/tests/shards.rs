//! Lowering a large module in shards (one thread each) against lowering it whole: the same
//! text, the same diagnostics in the same order, the same module-wide edits.

mod common;

use std::fmt::Write as _;

use fmtstr_ir::Module;
use fmtstr_lower::{lower, lower_shards, Options, Target};

/// A module past the parallel threshold: `functions` functions of printf calls, every 97th
/// call passing an `i64` to `%d` (a -Wformat warning); with `keep_printf`, the last function
/// also stores printf's address, so its declaration (at the top, printed by the first shard)
/// must stay.
fn module(functions: usize, keep_printf: bool) -> String {
    let mut m = String::from(
        "target datalayout = \"e-i64:64-i128:128-v16:16-v32:32-n16:32:64\"\n\
         target triple = \"nvptx64-nvidia-cuda\"\n\n\
         @.fmt = private unnamed_addr constant [11 x i8] c\"x=%d y=%f\\0A\\00\", align 1\n\
         @.bare = private unnamed_addr constant [4 x i8] c\"hi\\0A\\00\", align 1\n\n\
         declare i32 @printf(ptr, ...)\n\n",
    );
    let mut call = 0;
    for f in 0..functions {
        writeln!(
            m,
            "define void @f{f}(i32 %a, double %b, i64 %c, ptr %p) {{\nentry:"
        )
        .unwrap();
        for k in 0..20 {
            call += 1;
            if call % 97 == 0 {
                writeln!(
                    m,
                    "  %r{k} = call i32 (ptr, ...) @printf(ptr @.fmt, i64 %c, double %b)"
                )
                .unwrap();
            } else if k % 5 == 0 {
                writeln!(m, "  %r{k} = call i32 (ptr, ...) @printf(ptr @.bare)").unwrap();
            } else {
                writeln!(m, "  %s{k} = add i32 %a, {k}").unwrap();
                writeln!(
                    m,
                    "  %r{k} = call i32 (ptr, ...) @printf(ptr @.fmt, i32 %s{k}, double %b)"
                )
                .unwrap();
            }
        }
        if keep_printf && f + 1 == functions {
            m.push_str("  store ptr @printf, ptr %p, align 8\n");
        }
        m.push_str("  ret void\n}\n\n");
    }
    m
}

#[test]
fn shards_lower_exactly_as_the_whole_module() {
    for keep_printf in [false, true] {
        let text = module(2600, keep_printf);
        assert!(text.len() > 4 << 20, "{} bytes", text.len());
        let options = Options::new(Target::nvptx());

        let mut whole = Module::parse_with_threads("big.ll", text.clone(), 1).unwrap();
        let expected = lower(&mut whole, &options).unwrap();
        let expected_text = whole.print_with_threads(1);

        for threads in [2, 3] {
            let mut shards = Module::parse_shards("big.ll", text.clone(), threads).unwrap();
            assert_eq!(shards.len(), threads);
            let lowered = lower_shards(&mut shards, &options).unwrap();
            assert_eq!(lowered.calls, expected.calls);
            assert_eq!(lowered.calls, 2600 * 20);
            assert_eq!(
                common::show(&lowered.warnings),
                common::show(&expected.warnings),
                "{threads} shards: the diagnostics differ"
            );
            assert!(!lowered.warnings.is_empty());
            let mut printed = Vec::new();
            Module::write_shards(&shards, &mut printed).unwrap();
            assert!(
                printed == expected_text,
                "{threads} shards (printf kept: {keep_printf}) print differently"
            );
            let out = String::from_utf8(printed).unwrap();
            assert_eq!(out.matches("declare i32 @vprintf(ptr, ptr)").count(), 1);
            assert_eq!(out.contains("declare i32 @printf"), keep_printf);
        }
        common::assert_llvm_as("big.ll", &String::from_utf8(expected_text).unwrap());
    }
}

#[test]
fn shards_fail_as_the_whole_module_fails() {
    // A format string that is not a constant, in the last function: an error, nothing edited.
    let mut text = module(2600, false);
    text.push_str(
        "define void @bad(ptr %f) {\n  %r = call i32 (ptr, ...) @printf(ptr %f)\n  ret void\n}\n",
    );
    let options = Options::new(Target::nvptx());
    let mut whole = Module::parse_with_threads("big.ll", text.clone(), 1).unwrap();
    let expected = lower(&mut whole, &options).unwrap_err();
    let mut shards = Module::parse_shards("big.ll", text.clone(), 2).unwrap();
    assert_eq!(shards.len(), 2);
    let failed = lower_shards(&mut shards, &options).unwrap_err();
    assert_eq!(
        common::show(&failed.diagnostics),
        common::show(&expected.diagnostics)
    );
    assert!(common::show(&failed.diagnostics).contains("must be a string literal"));
    let mut printed = Vec::new();
    Module::write_shards(&shards, &mut printed).unwrap();
    assert!(
        printed == text.as_bytes(),
        "a failed lowering changed a shard"
    );
}

#[test]
fn amdgpu_needs_the_whole_module() {
    let text = module(2600, false);
    let mut shards = Module::parse_shards("big.ll", text, 2).unwrap();
    let failed = lower_shards(
        &mut shards,
        &Options::new(Target::amdgpu(fmtstr_lower::Stage::Buffer)),
    )
    .unwrap_err();
    assert!(common::show(&failed.diagnostics).contains("only the NVPTX back end"));
}
