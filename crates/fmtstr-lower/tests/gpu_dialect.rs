//! The lowering passes check formats with the checker's gpu dialect: what GPU printf cannot print
//! is a `-Wformat` warning (not a refusal), every finding of a call is reported, and `--Werror`
//! makes them errors as it does for the other `-Wformat` findings.

mod common;

use common::{lower_err, lower_ok, show};
use fmtstr_lower::{Options, Severity, Target};

const DL: &str = "target datalayout = \"e-i64:64-i128:128-v16:16-v32:32-n16:32:64\"\ntarget triple = \"nvptx64-nvidia-cuda\"\n";

fn module(format_type: &str, format: &str, args: &str) -> String {
    format!(
        "{DL}\n@s = private constant {format_type} c\"{format}\"\n\
         define void @f(ptr %p, i32 %x, i64 %wide) {{\n  %r = call i32 (ptr, ...) @printf(ptr @s, {args})\n  ret void\n}}\n\
         declare i32 @printf(ptr, ...)\n"
    )
}

#[test]
fn what_gpu_printf_cannot_print_is_a_warning_with_its_reason() {
    // %n, a positional argument and %m: three warnings, each with its own reason.
    let text = module("[14 x i8]", "%n %1$d %m %d\\00", "ptr %p, i32 %x");
    let (_, lowered) = lower_ok("gpu.ll", &text, Options::new(Target::nvptx()));
    let message = show(&lowered.warnings);
    assert!(
        message.contains("GPU printf does not support '%n'"),
        "{message}"
    );
    assert!(
        message.contains("cannot mix positional and non-positional arguments"),
        "{message}"
    );
    assert!(
        lowered
            .warnings
            .iter()
            .all(|d| d.severity == Severity::Warning && d.flag == Some("-Wformat")),
        "{message}"
    );

    let text = module("[8 x i8]", "%'d %ls\\00", "i32 %x, ptr %p");
    let (_, lowered) = lower_ok("gpu.ll", &text, Options::new(Target::nvptx()));
    let message = show(&lowered.warnings);
    assert!(message.contains("the ''' flag"), "{message}");
    assert!(message.contains("wide characters"), "{message}");
    assert!(
        message.contains("fix: "),
        "every GPU finding has a fix:\n{message}"
    );
}

#[test]
fn every_finding_of_a_call_is_reported_and_werror_makes_them_errors() {
    // '%+p' (undefined flag) and '%d' given an i64: two findings in one call.
    let text = module("[7 x i8]", "%+p %d\\00", "ptr %p, i64 %wide");
    let (_, lowered) = lower_ok("two.ll", &text, Options::new(Target::nvptx()));
    let message = show(&lowered.warnings);
    assert_eq!(lowered.warnings.len(), 2, "{message}");
    assert!(
        message.contains("flag '+' results in undefined behavior with 'p' conversion specifier"),
        "{message}"
    );
    assert!(
        message.contains("argument 2: format specifies type 'int' but the argument has type 'i64'"),
        "{message}"
    );
    let failed = lower_err(
        "two.ll",
        &text,
        Options {
            werror: true,
            ..Options::new(Target::nvptx())
        },
    );
    assert_eq!(failed.diagnostics.len(), 2, "{}", show(&failed.diagnostics));
    assert!(failed.diagnostics.iter().all(|d| d.is_error()));
    assert!(show(&failed.diagnostics).contains("[-Werror,-Wformat]"));
}

#[test]
fn a_format_the_renderer_refuses_and_the_checker_accepts_is_warned_about_at_every_call() {
    // A width above the renderer's bound is fine C: the checker is silent, the parse error is
    // said instead, at each call (the second call's clean check is remembered, not its warning).
    let text = format!(
        "{DL}\n@s = private constant [8 x i8] c\"%70000d\\00\"\n\
         define void @f(i32 %x) {{\n  %a = call i32 (ptr, ...) @printf(ptr @s, i32 %x)\n  \
         %b = call i32 (ptr, ...) @printf(ptr @s, i32 %x)\n  ret void\n}}\n\
         declare i32 @printf(ptr, ...)\n"
    );
    let (_, lowered) = lower_ok("wide.ll", &text, Options::new(Target::nvptx()));
    let message = show(&lowered.warnings);
    assert_eq!(lowered.warnings.len(), 2, "{message}");
    assert!(
        lowered.warnings.iter().all(|d| d
            .message
            .starts_with("invalid format string: at byte 1: field width 70000")),
        "{message}"
    );
}
