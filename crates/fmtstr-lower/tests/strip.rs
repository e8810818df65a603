//! `--pass strip`: every printf and lgc.debug.printf call removed, every other byte kept;
//! judged by llvm-as, llc (nvptx64 sm_90 + ptxas, amdgcn gfx1100) and a line diff against the
//! input.

mod common;

use common::{assert_llvm_as, assert_ptxas, clang_ir, llc_amdpal, llc_ptx, sample, sample_text};
use fmtstr_ir::Module;
use fmtstr_lower::strip;

fn stripped(name: &str, text: &str) -> (String, fmtstr_lower::Stripped) {
    let mut module = Module::parse(name, text).unwrap();
    let done = strip(&mut module).unwrap();
    let out = String::from_utf8(module.print()).unwrap();
    assert_llvm_as(name, &out);
    (out, done)
}

/// Whether a line of IR (not a comment) is a call to printf or lgc.debug.printf, or declares
/// one.
fn is_printf_line(line: &str) -> bool {
    !line.trim_start().starts_with(';')
        && (line.contains("@printf(") || line.contains("@lgc.debug.printf("))
}

/// The input with its printf lines removed: what strip must print when no result is used. A
/// removed declaration takes the blank line before it along (fmtstr-ir prints a removed
/// top-level entity that way).
fn without_printf_lines(text: &str) -> String {
    let mut kept: Vec<&str> = Vec::new();
    for line in text.split_inclusive('\n') {
        if !is_printf_line(line) {
            kept.push(line);
        } else if line.starts_with("declare") && kept.last() == Some(&"\n") {
            kept.pop();
        }
    }
    kept.concat()
}

/// `text` with the local value `name` (`%11`, not `%110`) replaced by `by`.
fn replace_value(text: &str, name: &str, by: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(name) {
        let after = &rest[at + name.len()..];
        let whole = !after.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '.' || c == '_');
        out.push_str(&rest[..at]);
        out.push_str(if whole { by } else { name });
        rest = after;
    }
    out.push_str(rest);
    out
}

/// What strip must print for `text`: its printf lines removed, and in each function the
/// remaining uses of a printf result replaced by `0`; and how many results were used. The
/// other numbered values keep their numbers: LLVM reads increasing numbers with gaps, and
/// clang numbers every value explicitly.
fn with_used_results_zero(text: &str) -> (String, usize) {
    let mut out = String::new();
    let mut used = 0;
    let mut function = String::new();
    let mut results: Vec<String> = Vec::new();
    for line in text.split_inclusive('\n') {
        if line.starts_with("define ") || !function.is_empty() {
            function.push_str(line);
            if is_printf_line(line) && line.trim_start().starts_with('%') {
                results.extend(line.split_whitespace().next().map(str::to_owned));
            }
            if line == "}\n" {
                let mut body = without_printf_lines(&function);
                for result in results.drain(..) {
                    let replaced = replace_value(&body, &result, "0");
                    used += usize::from(replaced != body);
                    body = replaced;
                }
                out.push_str(&body);
                function.clear();
            }
        } else {
            out.push_str(line);
        }
    }
    (without_printf_lines(&out), used)
}

/// The text without its comment lines.
fn code(text: &str) -> String {
    text.lines()
        .filter(|line| !line.trim_start().starts_with(';'))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Clang's IR of samples/lower/printf.c, for both GPUs: the output is the input without the
/// call and declaration lines, byte for byte, and llc (and ptxas) compile it.
#[test]
fn clang_modules_lose_their_printf_lines_and_nothing_else() {
    for triple in ["nvptx64-nvidia-cuda", "amdgcn-amd-amdpal"] {
        let Some(ir) = clang_ir(&sample("printf.c"), triple) else {
            return;
        };
        let calls = ir
            .lines()
            .filter(|l| l.contains("call i32 (ptr, ...) @printf("))
            .count();
        assert!(calls >= 3, "{triple}: only {calls} calls");
        let (out, done) = stripped(triple, &ir);
        assert_eq!(done.calls, calls, "{triple}");
        // printf.c prints one printf's result with another (`%12 = ... @printf(..., i32 %11)`):
        // that use becomes 0, function by function (local names repeat between functions).
        let (expected, used) = with_used_results_zero(&ir);
        assert!(used >= 1, "{triple}");
        assert_eq!(done.warnings.len(), used, "{triple}");
        assert_eq!(out, expected, "{triple}");
        assert!(!code(&out).contains("@printf"), "{triple}");
        if triple.starts_with("nvptx") {
            if let Some(ptx) = llc_ptx(triple, &out) {
                assert!(!ptx.contains("vprintf"));
                assert_ptxas(triple, &ptx);
            }
        } else {
            // Assembly: llc 19 crashes writing a PAL object for a module without PAL
            // metadata (clang's own module, printf calls and all, crashes it the same way).
            llc_amdpal(triple, &out, true);
        }
    }
}

const USED: &str = r#"target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@.str = private unnamed_addr constant [4 x i8] c"%d\0A\00", align 1
@counter = global i32 0

define i32 @next() {
  %v = load i32, ptr @counter, align 4
  %w = add i32 %v, 1
  store i32 %w, ptr @counter, align 4
  ret i32 %v
}

define i32 @k(ptr %fmt) {
entry:
  %a = call i32 @next()
  %n = call i32 (ptr, ...) @printf(ptr @.str, i32 %a)
  %m = call i32 (ptr, ...) @printf(ptr %fmt)
  %s = add i32 %n, %m
  call i32 (ptr, ...) @printf(ptr @.str, i32 %s)
  ret i32 %s
}

declare i32 @printf(ptr, ...)
"#;

/// A used result becomes 0 with a warning; the argument's call (a side effect) stays; a
/// runtime format (which lowering refuses) is stripped too; every other byte is kept.
#[test]
fn used_results_become_zero_and_side_effects_stay() {
    let (out, done) = stripped("used.ll", USED);
    assert_eq!(done.calls, 3);
    assert_eq!(done.warnings.len(), 2);
    let shown = done.warnings[0].to_string();
    assert!(
        shown.starts_with("used.ll:17:3: warning: printf's result is used")
            && shown.ends_with(
                "[-Wprintf-result]\n  %n = call i32 (ptr, ...) @printf(ptr @.str, i32 %a)"
            ),
        "{shown}"
    );
    let expected = without_printf_lines(USED).replace("add i32 %n, %m", "add i32 0, 0");
    assert_eq!(out, expected);
    assert!(out.contains("%a = call i32 @next()"));
    if let Some(ptx) = llc_ptx("used.ll", &out) {
        assert_ptxas("used.ll", &ptx);
    }
}

/// LLPC's lgc.debug.printf, both forms, goes with its declaration; modules without printf
/// are untouched.
#[test]
fn lgc_debug_printf_goes_in_both_forms() {
    for name in ["llpc-today.ll", "llpc-older.ll", "lgc.ll"] {
        let text = sample_text(name);
        let (out, done) = stripped(name, &text);
        assert!(done.calls > 0, "{name}");
        assert!(!code(&out).contains("lgc.debug.printf"), "{name}");
        assert!(!code(&out).contains("@printf("), "{name}");
        assert_eq!(out, without_printf_lines(&text), "{name}");
    }
    let plain = "define void @f() {\n  ret void\n}\n";
    let (out, done) = stripped("plain.ll", plain);
    assert_eq!((out.as_str(), done.calls), (plain, 0));
}
