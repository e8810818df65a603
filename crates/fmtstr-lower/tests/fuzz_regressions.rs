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
        // The excerpt is the 40 bytes on each side of the conversion (`...` for the rest,
        // here before it), the caret under its `%`: the same length for any format, so that
        // a module of many long formats is not quadratic to report (the ir_lower target: a
        // 40 KB format with one warning per argument took 0.6 s, each warning escaping it
        // whole).
        let excerpt = message
            .lines()
            .find(|line| line.starts_with("  ...A"))
            .unwrap_or_else(|| panic!("no excerpt in {}", &message[..message.len().min(600)]));
        assert_eq!(
            excerpt,
            format!("  ...{}%d\"", "A".repeat(40)),
            "{target:?}"
        );
        assert_eq!(caret_line.find('^'), excerpt.find('%'), "{target:?}");
    }
}

/// A short format is quoted whole, the caret under the offending byte itself (it stood one
/// column to the left, under the byte before).
#[test]
fn a_short_format_is_quoted_whole_with_the_caret_under_the_byte() {
    assert_eq!(
        fmtstr_lower::diag::format_excerpt(b"x=%q\n", 3),
        "  \"x=%q\\n\"\n      ^"
    );
    let long: Vec<u8> = (0..200u8).map(|i| b'a' + i % 26).collect();
    let shown = fmtstr_lower::diag::format_excerpt(&long, 100);
    let (line, caret) = shown.split_once('\n').unwrap();
    assert!(line.starts_with("  ...") && line.ends_with("..."), "{line}");
    assert_eq!(line.len(), 2 + 3 + 80 + 3);
    assert_eq!(line.as_bytes()[caret.len() - 1], long[100]);
}

/// The CLI parses a body sparsely: the lines that name printf, those that name their results,
/// the rest kept as text. Here the call's result is named on the line before the call (`%r`
/// then `= call ... @printf(...)`), so the search for its uses (which starts at a found line's
/// `%r =`) never ran, and the rewrite was refused where the whole module lowers (the ir_lower
/// target's differential). Such a body is now parsed whole.
#[test]
fn a_printf_result_named_on_the_line_before_lowers_as_in_the_whole_module() {
    let text = "target datalayout = \"e-i64:64-i128:128-v16:16-v32:32-n16:32:64\"\n\
                @.str = private constant [3 x i8] c\"%d\\00\"\n\
                define i32 @k(i32 %i) {\n\
                entry:%r \n  = call i32 (ptr, ...) @printf(ptr @.str, i32 %i)\n\
                  %s = add i32 %r, 1\n  ret i32 %s\n}\n\
                declare i32 @printf(ptr, ...)\n";
    let options = Options::new(Target::nvptx());
    let mut whole = Module::parse("split.ll", text).expect("the module parses");
    let expected = lower(&mut whole, &options).expect("the whole module lowers");
    let mut shards =
        Module::parse_shards_where("split.ll", text, 1, &fmtstr_lower::printf_filter())
            .expect("the sparse parse");
    let lowered =
        fmtstr_lower::lower_shards(&mut shards, &options).expect("the sparse module lowers");
    assert_eq!((lowered.calls, expected.calls), (1, 1));
    let mut printed = Vec::new();
    Module::write_shards(&shards, &mut printed).expect("print");
    assert_eq!(
        String::from_utf8(printed).unwrap(),
        String::from_utf8(whole.print()).unwrap()
    );
}
