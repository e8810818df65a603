//! What `cargo xtask fuzz` found in fmtstr-lower, reduced and written out by hand.

use fmtstr_ir::Module;
use fmtstr_lower::{lower, Options, Stage, Target};

/// A diagnostic quotes the format with a caret under the offending byte; past byte 65535 the
/// caret's padding (`{:>column$}`) panicked, as Rust's formatter takes widths up to u16::MAX
/// (the ir_lower target). A long format's diagnostic now says where, whatever the column.
#[test]
fn a_diagnostic_far_into_a_long_format_is_reported() {
    let filler = "A".repeat(70_000);
    let format = format!("{filler}%d");
    let len = format.len() + 1;
    let text = format!(
        "target datalayout = \"e-i64:64-i128:128-v16:16-v32:32-n16:32:64\"\n\
         @fmt = private constant [{len} x i8] c\"{format}\\00\"\n\
         declare i32 @printf(ptr, ...)\n\
         define void @f() {{\n  %r = call i32 (ptr, ...) @printf(ptr @fmt)\n  ret void\n}}\n"
    );
    for target in [Target::nvptx(), Target::amdgpu(Stage::Lgc)] {
        let mut module = Module::parse("long.ll", text.clone()).expect("the module parses");
        // A %d without its argument: a warning (the call is lowered) that quotes the format.
        let lowered = lower(&mut module, &Options::new(target)).expect("the call lowers");
        let message = lowered
            .warnings
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n");
        let caret_line = message
            .lines()
            .find(|line| line.trim() == "^")
            .unwrap_or_else(|| panic!("no caret line in {}", &message[..message.len().min(600)]));
        // Placed as for a short format (see nvptx.rs and amdgpu.rs): two spaces, then the
        // caret at column 1 + the bytes before the conversion.
        assert_eq!(caret_line.len(), 2 + 1 + 70_000, "{target:?}");
    }
}
