//! Inputs `cargo xtask fuzz` found to crash or hang fmtstr-ir, reduced by hand. Each must give
//! a module or a `file:line:column` error, never a panic or a hang.

use fmtstr_ir::Module;

/// An exception-handling instruction whose brackets the file ends inside: the loop over its
/// operands stood at the end of the input forever (the ir_lower target's 1 s timeout). Now an
/// error at the end of the input asks for the closing bracket.
#[test]
fn an_exception_pad_with_unclosed_brackets_at_the_end_of_the_input_is_an_error() {
    for (text, line) in [
        (
            "define void @t() {\nentry:\n  ret void\nloop:catchswitch [\n",
            5,
        ),
        (
            "define void @t() {\nentry:\n  %cs = catchswitch within none [label %a\n",
            4,
        ),
        (
            "define void @t() {\nentry:\n  %p = cleanuppad within none [ptr (ptr null",
            3,
        ),
        (
            "define void @t() {\nentry:\n  catchret from %p to label {",
            3,
        ),
    ] {
        let error = Module::parse("hang.ll", text).expect_err("unclosed brackets do not parse");
        let message = error.to_string();
        assert!(
            message.starts_with(&format!("hang.ll:{line}:")),
            "{text:?} gave {message}"
        );
        assert!(
            message.contains("closing bracket"),
            "{text:?} gave {message}"
        );
    }
}

/// An attribute group whose `}` is missing swallowed the functions after it, `@printf`
/// included; the lowering then removed printf's declaration and printed a module that named
/// it (the ir_lower target). A global in a group is an error, as llvm-as-19 says
/// ("unterminated attribute group").
#[test]
fn an_attribute_group_that_names_a_global_is_an_error() {
    let text = "declare i32 @printf(ptr, ...) #0\n\nattributes #0 = { nounwind\n\ndefine void @f() {\n  %r = call i32 (ptr, ...) @printf(ptr null)\n  ret void\n}\n";
    let error = Module::parse("group.ll", text).expect_err("a global inside a group");
    let message = error.to_string();
    assert!(message.starts_with("group.ll:5:"), "{message}");
    assert!(message.contains("closing '}'"), "{message}");
    // Globals elsewhere in brackets are still references.
    let fine = "@g = global i32 0\n@p = global [1 x ptr] [ptr @g]\nattributes #0 = { nounwind \"k\"=\"v\" memory(none) }\n";
    Module::parse("fine.ll", fine).expect("valid groups parse");
}
