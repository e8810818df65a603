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

/// A module whose last line has no newline: what an edit adds at the end starts a line of its
/// own. It was glued to that line (`^0 =!0 = !{...}`: the ir_lower target), which could also
/// turn it into part of a trailing comment.
#[test]
fn what_is_added_at_the_end_starts_a_line_after_a_last_line_without_newline() {
    for last in [
        "define void @f() {\n  ret void\n}",
        "declare void @f()\n; the end",
    ] {
        let mut m = Module::parse("end.ll", last).expect("the module parses");
        let ty = m
            .types_mut()
            .function(fmtstr_ir::TypeId::I32, &[fmtstr_ir::TypeId::PTR], true);
        m.declare_function("h", ty).expect("declared");
        let node = m.add_metadata(&[fmtstr_ir::MdInput::String(b"x")]);
        m.add_named_metadata("fmtstr.end", &[node]).expect("named");
        let out = String::from_utf8(m.print()).expect("UTF-8");
        // Every source line is kept (a trailing comment follows what was added).
        for line in last.lines() {
            assert!(out.lines().any(|l| l == line), "{line:?} lost:\n{out}");
        }
        assert!(
            out.lines()
                .any(|l| l.starts_with("declare i32 @h(ptr, ...)")),
            "{out}"
        );
        assert!(
            out.lines().any(|l| l.starts_with("!fmtstr.end = !{")),
            "{out}"
        );
        let again = Module::parse("again.ll", out.clone()).expect("the output parses");
        assert!(again.function_by_name("h").is_some(), "{out}");
        for llvm_as in fmtstr_oracles::Llvm::ALL
            .into_iter()
            .filter_map(|llvm| fmtstr_oracles::require_llvm(llvm, fmtstr_oracles::Tool::LlvmAs))
        {
            let status = std::process::Command::new(llvm_as)
                .args(["-", "-o", "/dev/null"])
                .stdin(std::process::Stdio::piped())
                .spawn()
                .and_then(|mut child| {
                    use std::io::Write as _;
                    child
                        .stdin
                        .take()
                        .expect("stdin")
                        .write_all(out.as_bytes())?;
                    child.wait()
                })
                .expect("llvm-as runs");
            assert!(status.success(), "llvm-as refused:\n{out}");
        }
    }
}

/// A global named only inside an exception-handling instruction (a catchpad's type info) is
/// used: the ir_lower target found printf's declaration removed while a pad still named
/// `@printf`, and the output no longer parsed. Those instructions keep their text, and now
/// record the globals they name as operands, as they did their locals. (This module is one
/// llvm-as-19 accepts.)
#[test]
fn a_global_named_only_by_a_catchpad_counts_as_used() {
    let text = "@typeinfo = external global ptr

declare i32 @__CxxFrameHandler3(...)
declare void @may_throw()

define void @f() personality ptr @__CxxFrameHandler3 {
entry:
  invoke void @may_throw()
          to label %done unwind label %dispatch

dispatch:
  %cs = catchswitch within none [label %handler] unwind to caller

handler:
  %cp = catchpad within %cs [ptr @typeinfo, i32 0, ptr null]
  catchret from %cp to label %done

done:
  ret void
}
";
    let mut module = Module::parse("eh.ll", text).unwrap_or_else(|e| panic!("{e}"));
    let typeinfo = module.global_by_name("typeinfo").expect("declared");
    assert_eq!(module.global_uses(typeinfo), 1);
    assert!(module.remove_global(typeinfo).is_err(), "still used");
    assert_eq!(module.print(), text.as_bytes());
}

/// Summary entries are skipped, not parsed; the skip read a stray `"` after an entry's
/// closing `)` as the start of a string that ran on for lines. The ir_lower target found a
/// module where that string swallowed the metadata the AMD buffer stage appended, so the
/// output named an undefined `!3`. llvm-as-19 refuses both inputs below at the same column
/// ("expected top-level entity", "expected string constant"); so does fmtstr now.
#[test]
fn a_summary_entry_ends_at_its_closing_parenthesis_and_strings_end() {
    for (text, column, message) in [
        (
            "^0 = module: (path: \"a.bc\", hash: (0, 0, 0, 0, 0)) ]\", x: (0)\n\
             ^1 = module: (path: \"b.bc\", hash: (0, 0, 0, 0, 0))\n",
            52,
            "expected the end of the line after a summary entry",
        ),
        (
            "^0 = module: (path: \"a.bc, hash: (0, 0, 0, 0, 0))\n",
            21,
            "unterminated string",
        ),
    ] {
        let error = Module::parse("summary.ll", text).expect_err("llvm-as-19 refuses it");
        assert_eq!((error.line, error.column), (1, column), "{error}");
        assert!(error.message.contains(message), "{error}");
    }
    // A comment after the entry, and an entry without parentheses, are fine.
    let text = "^0 = module: (path: \"a.bc\", hash: (0, 0, 0, 0, 0)) ; fine\n^1 = flags: 8\n";
    let module = Module::parse("summary.ll", text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(module.print(), text.as_bytes());
}

/// Words LLVM does not know are kept as attributes (newer LLVMs add some), with their
/// parentheses as text; a global named there would outlive its removal. The ir_lower target
/// found `callintf(... @debugString.0 ...)` after a call taken as its attribute, and the string
/// removed as unused. Attributes never name a global: such a module is refused (llvm-as-19
/// refuses it too, at the word: "expected instruction opcode").
#[test]
fn an_attribute_that_names_a_global_is_an_error() {
    for (text, line, column) in [
        (
            "@s = constant [2 x i8] c\"x\\00\"\n\ndefine void @f() {\n  call void @g() callintf(ptr @s)\n  ret void\n}\n\ndeclare void @g()\n",
            4,
            31,
        ),
        (
            "@s = constant [2 x i8] c\"x\\00\"\n\ndeclare void @g(ptr newattr(@s))\n",
            3,
            29,
        ),
        (
            "@s = constant [2 x i8] c\"x\\00\"\n\ndefine void @f() newfnattr(@s) {\n  ret void\n}\n",
            3,
            28,
        ),
    ] {
        let error = Module::parse("attr.ll", text).expect_err("an attribute names no global");
        assert_eq!((error.line, error.column), (line, column), "{error}");
        assert!(
            error.message.contains("an attribute names no global"),
            "{error}"
        );
    }
}
