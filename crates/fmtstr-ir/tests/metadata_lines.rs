//! The parser reads most metadata definitions with a byte scanner and the rest token by token;
//! both readings must record the same nodes, ids and operands, or fail with the same error.
//! LLVM's whole test tree is checked in `llvm_tests`; these are the edges of the scanner's
//! shapes, where it must either read exactly what the tokens say or leave the line to them.

mod common;

fn agree(text: &str) {
    if let Err(readings) = common::metadata_readings_agree("t.ll", text.as_bytes()) {
        panic!("for:\n{text}\n{readings}");
    }
}

#[test]
fn specialized_nodes_with_every_value_shape() {
    agree(concat!(
        "!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, producer: \"clang, 19\", ",
        "isOptimized: true, emissionKind: FullDebug)\n",
        "!1 = !DIFile(filename: \"a.c\", directory: \"/tmp\")\n",
        "!2 = !DISubrange(count: -1, lowerBound: 0)\n",
        "!3 = !DIBasicType(name: \"int\", size: 32, encoding: DW_ATE_signed, flags: DIFlagA | DIFlagB)\n",
        "!4 = !DIExpression()\n",
        "!5 = !DIExpression(DW_OP_LLVM_fragment, 0, 32)\n",
        "!6 = !DILocation(line: 3, column: 7, scope: !9)\n",
        "!7 = !DIFoo(a: 1,)\n",
        "!8 = !DIFoo(a: , b:2)\n",
        "!9 = distinct !DISubprogram(name: \"f\", flags: DIFlagPrototyped|DIFlagAllCallsDescribed)\n",
    ));
}

#[test]
fn locations_in_every_spelling() {
    agree(concat!(
        "!0 = !DILocation(line: 3, column: 7, scope: !5)\n",
        "!1 = !DILocation(line: 3, column: 7, scope: !5, inlinedAt: !0)\n",
        "!2 = distinct !DILocation(line: 0, column: 0, scope: !5, isImplicitCode: true)\n",
        "!3 = !DILocation(line: 99999999999, scope: !5)\n",
        "!4 = !DILocation(scope: !5, line: 1,column: 2)\n",
        "!5 = !DILocation(line: 1 , column: 2, scope: !6)\n",
        "!6 = !DILocation(line: 1, column: 2, scope: !99999999999)\n",
        "!7 = !DILocation(line: 1, column: 2, scope: !8, inlinedAt: !9,)\n",
        "!8 = !DILocation(line: 1, column: x2, scope: !0)\n",
        "!9 = !DILocation(line: 1, column: 2, scope: !0 )\n",
    ));
}

#[test]
fn tuples_and_strings() {
    agree("!0 = !{!1, null, !2}\n!1 = !{}\n!2 = distinct !{ !1 , null }\n!3 = !\"text, (with) !4\"\n!4 = !{i32 7, !\"x\"}\n");
}

#[test]
fn shapes_left_to_the_tokens_read_the_same() {
    // Hex, a label-like string, `@`, an inline node, a tab, a comment, a number that
    // overflows, eleven digits, a name with a dot.
    for line in [
        "!0 = !DIFoo(a: 0x10)",
        "!0 = !DIFoo(a: \"k\":)",
        "!0 = !DIGlobalVariableExpression(var: !1, expr: !DIExpression())\n!1 = !{}",
        "!0 = !DIFoo(a:\t1)",
        "!0 = !DIFoo(a: 1) ; note",
        "!0 = !DIFoo(a: !99999999999)",
        "!0 = !DIFoo(a: !00000000001)\n!1 = !{}",
        "!00000000001 = !{}",
        "!0 = !DI.Foo(a: 1)",
        "!0 = !DIFoo(a: 1.5)",
        "!0 = !DIFoo(a: b.c)",
        "!0 = !DIArgList(i32 1)",
        "!0 = distinct!{}",
        "!0 = !{!1}\n!1 = !{}\n!1 = !{}",
        "!0 = !DIFoo(a: 1",
        "!0 = !{!1,",
    ] {
        agree(line);
    }
}

/// A filtered parse keeps tuples of references and nulls as text and reads their elements
/// from it; the other tuples are parsed. Either way each reads as the whole parse reads it.
#[test]
fn tuples_of_references_kept_as_text_read_as_parsed() {
    let text = concat!(
        "declare void @g()\n\n",
        "define void @f() {\n  call void @g(), !dbg !9\n  ret void\n}\n\n",
        "!llvm.dbg.cu = !{!0}\n",
        "!0 = !{}\n",
        "!1 = !{!0, null, !2}\n",
        "!2 = distinct !{!2}\n",
        "!3 = !{null}\n",
        "!4 = !{!1,!2}\n",
        "!5 = !{!1, !\"s\"}\n",
        "!6 = !{i32 1, !0}\n",
        "!7 = !{!1, !2} ; a comment}\n",
        "!8 = !{  !3 ,  !4  }\n",
        "!9 = !DILocation(line: 1, scope: !10)\n",
        "!10 = distinct !DISubprogram(name: \"f\", retainedNodes: !1)\n",
    );
    let whole = fmtstr_ir::Module::parse("t.ll", text).unwrap();
    if let Err(why) = common::sparse_reading_agrees("t.ll", text.as_bytes(), &whole) {
        panic!("{why}");
    }
    let shards = fmtstr_ir::Module::parse_shards_where("t.ll", text, 1, &|t: &[u8]| {
        memchr::memmem::find(t, b"call")
    })
    .unwrap();
    let m = &shards[0].module;
    let elements = |n: u32| m.md_numbered(n).unwrap().operands().count();
    assert_eq!(
        (0..=8).map(elements).collect::<Vec<_>>(),
        [0, 3, 1, 1, 2, 2, 2, 2, 2]
    );
}
