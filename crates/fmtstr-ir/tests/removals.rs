//! Removals that reach beyond one function: numbered metadata nodes, and the renumbering of a
//! function that `blockaddress` constants elsewhere name.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};

use fmtstr_ir::{EditError, MdId, MdInput, Module, Opcode, Position, TypeId, Value};

fn print(m: &Module) -> String {
    String::from_utf8(m.print()).unwrap()
}

/// `llvm-as` accepts the text (skipped without llvm-as, except under `CI=true`).
fn assert_llvm_accepts(text: &str) {
    for llvm_as in fmtstr_oracles::Llvm::ALL
        .into_iter()
        .filter_map(|llvm| fmtstr_oracles::require_llvm(llvm, fmtstr_oracles::Tool::LlvmAs))
    {
        assert_eq!(common::llvm_as(&llvm_as, text.as_bytes()), None, "{text}");
    }
}

/// The module as `opt -S` reads and writes it back (LLVM's own numbering), when opt is there.
fn opt_round_trip(text: &str) -> Option<String> {
    let opt = fmtstr_oracles::require(fmtstr_oracles::Tool::Opt)?;
    let mut child = Command::new(opt)
        .args(["-S", "-passes=verify", "-o", "-", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cannot start opt");
    let mut stdin = child.stdin.take().unwrap();
    let input = text.as_bytes().to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(
        output.status.success(),
        "opt rejects:\n{text}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    Some(String::from_utf8(output.stdout).unwrap())
}

fn md(m: &Module, number: u32) -> MdId {
    m.md_numbered(number).unwrap().id()
}

fn still_used(result: Result<(), EditError>) -> (String, usize) {
    match result {
        Err(EditError::StillUsed { what, uses }) => (what, uses),
        other => panic!("expected StillUsed, got {other:?}"),
    }
}

// ---- numbered metadata --------------------------------------------------------------------

const REFS: &str = r#"@g = global i32 0, !fmt !12

declare i1 @llvm.type.test(ptr, metadata)

define i32 @f(i32 %a) !fmt !13 {
entry:
  %x = add i32 %a, 1, !fmt !7
  %t = call i1 @llvm.type.test(ptr null, metadata !8)
  %u = call i1 @llvm.type.test(ptr null, metadata !{!9}) ; !2 in a comment is no use
  %y = mul i32 %x, 2
  ret i32 %y
}

define void @dead() !fmt !14 {
  ret void
}

!llvm.named = !{!1}

!0 = !{i32 1}
!1 = !{!"named"}
!2 = !{!"unused, but !0 in a string is no use"}
!3 = !{!4}
!4 = !{!"in a node"}
!7 = !{!"attached"}
!8 = !{!"operand"}
!9 = !{!"inline operand"}
!12 = !{!"global"}
!13 = !{!"function"}
!14 = !{!"dead function"}
"#;

#[test]
fn unreferenced_metadata_is_removed_without_renumbering() {
    assert_llvm_accepts(REFS);
    let mut m = Module::parse("refs.ll", REFS).unwrap();
    let (n0, n2) = (md(&m, 0), md(&m, 2));
    m.remove_metadata(n2).unwrap();
    m.remove_metadata(n0).unwrap();
    let out = print(&m);
    // A removed item takes the blank lines before it along (as removed globals do).
    assert_eq!(
        out,
        REFS.replace("\n!0 = !{i32 1}\n", "")
            .replace("!2 = !{!\"unused, but !0 in a string is no use\"}\n", "")
    );
    assert!(m.md_numbered(0).is_none() && m.md_numbered(2).is_none());
    assert_eq!(m.md_numbered(3).unwrap().number(), Some(3));
    // Gone already; an inline node has no number to remove.
    assert!(matches!(m.remove_metadata(n2), Err(EditError::Invalid(_))));
    let f = m.function_by_name("f").unwrap();
    let u = m.function(f).instructions().nth(2).unwrap();
    let Some(Value::Metadata(inline)) = u.operand(2).map(|op| op.value) else {
        panic!("no metadata operand")
    };
    assert!(matches!(
        m.remove_metadata(inline),
        Err(EditError::Invalid(_))
    ));
    // A new node takes a number past every number used, the removed ones included.
    let added = m.add_metadata(&[MdInput::Null]);
    assert_eq!(m.md_node(added).number(), Some(15));
    let out = print(&m);
    assert!(
        out.ends_with("!14 = !{!\"dead function\"}\n!15 = !{null}\n"),
        "{out}"
    );
    assert_llvm_accepts(&out);
    let reparsed = Module::parse("again.ll", out.clone()).unwrap();
    assert!(reparsed.md_numbered(0).is_none() && reparsed.md_numbered(1).is_some());
}

#[test]
fn referenced_metadata_is_refused_for_each_kind_of_reference() {
    let mut m = Module::parse("refs.ll", REFS).unwrap();
    let cases = [
        (1, "named metadata"),
        (4, "another node's operand"),
        (7, "an instruction attachment"),
        (8, "a `metadata !8` call operand"),
        (9, "an inline `metadata !{!9}` operand"),
        (12, "a global attachment"),
        (13, "a function attachment"),
        (14, "an attachment of another function"),
    ];
    for (number, why) in cases {
        let (what, uses) = still_used(m.remove_metadata(md(&m, number)));
        assert_eq!((what.as_str(), uses), (&*format!("!{number}"), 1), "{why}");
    }
    // References made by edits: a new node, new named metadata, a new instruction's
    // attachment (set by the builder or later), a new call's metadata operand.
    let n0 = md(&m, 0);
    let holder = m.add_metadata(&[MdInput::Node(n0), MdInput::Node(n0)]);
    assert_eq!(still_used(m.remove_metadata(n0)), ("!0".into(), 2));
    m.remove_metadata(holder).unwrap();
    m.add_named_metadata("fmtstr.keep", &[n0]).unwrap();
    assert_eq!(still_used(m.remove_metadata(n0)), ("!0".into(), 1));
    assert!(m.remove_named_metadata("fmtstr.keep"));
    let n2 = md(&m, 2);
    let f = m.function_by_name("f").unwrap();
    let y = m.function(f).instructions().nth(3).unwrap().id();
    let a = m.function(f).param(0).unwrap().operand();
    let mut b = m.builder(Position::Before(y)).unwrap();
    b.attach("fmt", n0);
    let t1 = b.binary(Opcode::Add, a, a, "t").unwrap();
    let Value::Inst(t1) = t1.value else { panic!() };
    drop(b);
    let type_test = m.function_by_name("llvm.type.test").unwrap();
    let null = m.const_null(TypeId::PTR);
    let meta = fmtstr_ir::Operand {
        ty: TypeId::METADATA,
        value: Value::Metadata(n2),
    };
    let mut b = m.builder(Position::Before(y)).unwrap();
    let call = b
        .call(type_test, &[(null, &[]), (meta, &[])], "tt")
        .unwrap();
    drop(b);
    let n3 = md(&m, 3);
    m.set_metadata(call, "fmt", n3).unwrap();
    assert_eq!(still_used(m.remove_metadata(n0)), ("!0".into(), 1));
    assert_eq!(still_used(m.remove_metadata(n2)), ("!2".into(), 1));
    assert_eq!(still_used(m.remove_metadata(n3)), ("!3".into(), 1));
    let out = print(&m);
    assert!(
        out.contains("  %t1 = add i32 %a, %a, !fmt !0\n  %tt = call i1 @llvm.type.test(ptr null, metadata !2), !fmt !3\n"),
        "{out}"
    );
    assert_llvm_accepts(&out);
    // Once the new instructions go, so do their references.
    m.remove_inst(t1).unwrap();
    m.remove_inst(call).unwrap();
    for n in [n0, n2, n3] {
        m.remove_metadata(n).unwrap();
    }
    let out = print(&m);
    assert!(!out.contains("!0 =") && !out.contains("!2 =") && !out.contains("!3 ="));
    assert!(out.contains("!4 = !{!\"in a node\"}\n"), "{out}");
    assert_llvm_accepts(&out);
}

#[test]
fn metadata_goes_once_its_last_user_has_gone() {
    let mut m = Module::parse("refs.ll", REFS).unwrap();
    let f = m.function_by_name("f").unwrap();
    let insts: Vec<_> = m.function(f).instructions().map(|i| i.id()).collect();
    // `%x` carries `!fmt !7`; replaced by `%a` and removed, it no longer refers to `!7`.
    let a = m.function(f).param(0).unwrap().operand();
    m.replace_inst(insts[0], a).unwrap();
    // The calls with metadata operands.
    m.remove_inst(insts[1]).unwrap();
    m.remove_inst(insts[2]).unwrap();
    // Named metadata, then the node it names.
    assert!(m.remove_named_metadata("llvm.named"));
    // A node named only by another node: the other one first.
    let (n3, n4) = (md(&m, 3), md(&m, 4));
    assert_eq!(still_used(m.remove_metadata(n4)), ("!4".into(), 1));
    m.remove_metadata(n3).unwrap();
    // A removed function's and a removed global's attachments.
    let dead = m.function_by_name("dead").unwrap();
    m.remove_function(dead).unwrap();
    let g = m.global_by_name("g").unwrap();
    m.remove_global(g).unwrap();
    for n in [1, 4, 7, 8, 9, 12, 14] {
        m.remove_metadata(md(&m, n)).unwrap();
    }
    // `@f` itself still carries `!13`.
    assert_eq!(still_used(m.remove_metadata(md(&m, 13))), ("!13".into(), 1));
    let out = print(&m);
    assert_eq!(
        out,
        "\ndeclare i1 @llvm.type.test(ptr, metadata)\n\ndefine i32 @f(i32 %a) !fmt !13 {\nentry:\n  %y = mul i32 %a, 2\n  ret i32 %y\n}\n\n!0 = !{i32 1}\n!2 = !{!\"unused, but !0 in a string is no use\"}\n!13 = !{!\"function\"}\n"
    );
    assert_llvm_accepts(&out);
}

#[test]
fn metadata_added_by_an_edit_can_be_removed() {
    let mut m = Module::parse("refs.ll", REFS).unwrap();
    let n4 = md(&m, 4);
    let a = m.add_metadata(&[MdInput::String(b"a"), MdInput::Node(n4)]);
    let b = m.add_metadata(&[MdInput::Node(a)]);
    let c = m.add_metadata(&[MdInput::Null]);
    assert_eq!(still_used(m.remove_metadata(a)), ("!15".into(), 1));
    m.remove_metadata(b).unwrap();
    m.remove_metadata(a).unwrap();
    assert!(matches!(m.remove_metadata(a), Err(EditError::Invalid(_))));
    let out = print(&m);
    assert!(
        out.ends_with("!14 = !{!\"dead function\"}\n!17 = !{null}\n"),
        "{out}"
    );
    assert_eq!(m.md_node(c).number(), Some(17));
    // `!4` lost its new user and keeps its source one (`!3`).
    assert_eq!(still_used(m.remove_metadata(n4)), ("!4".into(), 1));
    assert_llvm_accepts(&out);
}

const DEBUG: &str = r#"define i32 @f(i32 %a) !dbg !5 {
entry:
  %x = add i32 %a, 1, !dbg !9
    #dbg_value(i32 %x, !10, !DIExpression(), !9)
  %y = mul i32 %x, 2, !dbg !9
  ret i32 %x, !dbg !9
}

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3, !4}

!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, producer: "clang", isOptimized: false, runtimeVersion: 0, emissionKind: FullDebug)
!1 = !DIFile(filename: "a.c", directory: "/src")
!3 = !{i32 7, !"Dwarf Version", i32 5}
!4 = !{i32 2, !"Debug Info Version", i32 3}
!5 = distinct !DISubprogram(name: "f", scope: !1, file: !1, line: 3, type: !6, scopeLine: 3, spFlags: DISPFlagDefinition, unit: !0)
!6 = !DISubroutineType(types: !7)
!7 = !{null}
!9 = !DILocation(line: 4, column: 11, scope: !5)
!10 = !DILocalVariable(name: "x", scope: !5, file: !1, line: 4, type: !11)
!11 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!12 = !{!"spare"}
"#;

#[test]
fn debug_records_and_specialized_nodes_keep_their_metadata() {
    assert_llvm_accepts(DEBUG);
    let mut m = Module::parse("dbg.ll", DEBUG).unwrap();
    // `type: !11` in a specialized node; `!10` in a debug record.
    assert_eq!(still_used(m.remove_metadata(md(&m, 11))), ("!11".into(), 1));
    assert_eq!(still_used(m.remove_metadata(md(&m, 10))), ("!10".into(), 1));
    // Three attachments and the record.
    assert_eq!(still_used(m.remove_metadata(md(&m, 9))), ("!9".into(), 4));
    // The record before `%y` stays when `%y` goes (LLVM moves it on): `!10` stays used.
    let f = m.function_by_name("f").unwrap();
    let y = m.function(f).instructions().nth(1).unwrap().id();
    m.remove_inst(y).unwrap();
    assert_eq!(still_used(m.remove_metadata(md(&m, 10))), ("!10".into(), 1));
    assert_eq!(still_used(m.remove_metadata(md(&m, 9))), ("!9".into(), 3));
    m.remove_metadata(md(&m, 12)).unwrap();
    let out = print(&m);
    assert_eq!(
        out,
        DEBUG
            .replace("  %y = mul i32 %x, 2, !dbg !9\n", "")
            .replace("!12 = !{!\"spare\"}\n", "")
    );
    assert_llvm_accepts(&out);
}

// ---- blockaddress -------------------------------------------------------------------------

// Named blocks are only named inside `@f`: LLVM 19 confuses forward references to named and
// numbered blocks of one function (`blockaddress(@f, %bb)` in a global before `@f` reads as
// one of its numbered blocks).
const GOTO: &str = r#"@tab = internal constant [2 x ptr] [ptr blockaddress(@f, %5), ptr blockaddress(@f, %7)]
@last = global ptr blockaddress(@f, %7)
@other = global ptr blockaddress(@g, %1)

define void @g(ptr %p) {
  store ptr blockaddress(@f, %7), ptr %p, align 8
  br label %1

1:                                                ; preds = %0
  store ptr blockaddress(@f, %5), ptr %p, align 8
  ret void
}

define i32 @f(i32 %0, ptr %p) {
  %2 = add i32 %0, 1
  %3 = add i32 %2, 1
  %4 = getelementptr inbounds [2 x ptr], ptr @tab, i32 0, i32 %0
  store ptr blockaddress(@f, %5), ptr %p, align 8
  %l = load ptr, ptr %4, align 8
  indirectbr ptr %l, [label %5, label %bb, label %7]

5:                                                ; preds = %1
  add i32 %0, 100
  ret i32 %6

bb:                                               ; preds = %1
  ret i32 %3

7:                                                ; preds = %1
  store ptr blockaddress(@f, %7), ptr %p, align 8
  store ptr blockaddress(@f, %bb), ptr %p, align 8
  ret i32 7
}
"#;

/// The first instruction after the label `name:` in `text`.
fn first_after_label<'t>(text: &'t str, name: &str) -> &'t str {
    let start = text
        .lines()
        .position(|l| l.split(':').next() == Some(name) && !l.starts_with(' '))
        .unwrap_or_else(|| panic!("no label {name}:\n{text}"));
    text.lines().nth(start + 1).unwrap().trim()
}

#[test]
fn blockaddress_follows_its_block_when_the_function_is_renumbered() {
    assert_llvm_accepts(GOTO);
    let mut m = Module::parse("goto.ll", GOTO).unwrap();
    let f = m.function_by_name("f").unwrap();
    let g = m.function_by_name("g").unwrap();
    let insts: Vec<_> = m.function(f).instructions().map(|i| i.id()).collect();
    // `%2` goes, and `add i32 %0, 100` (`%6`, numbered silently) would read back as `%5`:
    // `%3`.. and blocks `5:`, `7:` shift down by one.
    let x = m.function(f).param(0).unwrap().operand();
    m.replace_inst(insts[0], x).unwrap();
    // A new instruction reusing the source constant prints the new number too.
    let store = m.function(g).instructions().next().unwrap();
    let address = store.operand(0).unwrap();
    let p = m.function(g).param(0).unwrap().operand();
    let ret = m.function(g).instructions().last().unwrap().id();
    m.builder(Position::Before(ret))
        .unwrap()
        .store(address, p, 8)
        .unwrap();
    let out = print(&m);
    assert_eq!(
        out,
        r#"@tab = internal constant [2 x ptr] [ptr blockaddress(@f, %4), ptr blockaddress(@f, %6)]
@last = global ptr blockaddress(@f, %6)
@other = global ptr blockaddress(@g, %1)

define void @g(ptr %p) {
  store ptr blockaddress(@f, %6), ptr %p, align 8
  br label %1

1:                                                ; preds = %0
  store ptr blockaddress(@f, %4), ptr %p, align 8
  store ptr blockaddress(@f, %6), ptr %p, align 8
  ret void
}

define i32 @f(i32 %0, ptr %p) {
  %2 = add i32 %0, 1
  %3 = getelementptr inbounds [2 x ptr], ptr @tab, i32 0, i32 %0
  store ptr blockaddress(@f, %4), ptr %p, align 8
  %l = load ptr, ptr %3, align 8
  indirectbr ptr %l, [label %4, label %bb, label %6]

4:                                                ; preds = %1
  add i32 %0, 100
  ret i32 %5

bb:                                               ; preds = %1
  ret i32 %2

6:                                                ; preds = %1
  store ptr blockaddress(@f, %6), ptr %p, align 8
  store ptr blockaddress(@f, %bb), ptr %p, align 8
  ret i32 7
}
"#
    );
    assert_llvm_accepts(&out);
    // LLVM reads each blockaddress as the same block as before: its number in LLVM's own
    // printing names the block that starts with the same instruction.
    if let Some(round) = opt_round_trip(&out) {
        assert!(
            round.contains("[2 x ptr] [ptr blockaddress(@f, %4), ptr blockaddress(@f, %6)]"),
            "{round}"
        );
        assert_eq!(first_after_label(&round, "4"), "%5 = add i32 %0, 100");
        assert_eq!(first_after_label(&round, "bb"), "ret i32 %2");
        assert_eq!(
            first_after_label(&round, "6"),
            "store ptr blockaddress(@f, %6), ptr %p, align 8"
        );
        assert!(round.contains("@last = global ptr blockaddress(@f, %6)"));
    }
    // The printed text reads back with the same blocks behind the constants.
    let again = Module::parse("again.ll", out.clone()).unwrap();
    assert_eq!(again.print(), out.as_bytes());
}

#[test]
fn blockaddress_of_a_numbered_function_and_named_blocks() {
    // The block after the removed `%2` is unlabeled (`%3`, numbered silently): the
    // function is renumbered.
    let text = "@t = global ptr blockaddress(@0, %3)\n\ndefine void @0(i32 %0, ptr %p) {\n  %2 = add i32 %0, 1\n  br label %3\n\n  store ptr blockaddress(@0, %done), ptr %p, align 8\n  br label %done\n\ndone:\n  store ptr blockaddress(@0, %3), ptr %p, align 8\n  ret void\n}\n";
    assert_llvm_accepts(text);
    let mut m = Module::parse("n.ll", text).unwrap();
    let f = m.functions().next().unwrap().id();
    let add = m.function(f).instructions().next().unwrap().id();
    m.remove_inst(add).unwrap();
    let out = print(&m);
    assert_eq!(
        out,
        "@t = global ptr blockaddress(@0, %2)\n\ndefine void @0(i32 %0, ptr %p) {\n  br label %2\n\n  store ptr blockaddress(@0, %done), ptr %p, align 8\n  br label %done\n\ndone:\n  store ptr blockaddress(@0, %2), ptr %p, align 8\n  ret void\n}\n"
    );
    assert_llvm_accepts(&out);
    if let Some(round) = opt_round_trip(&out) {
        assert!(
            round.contains("@t = global ptr blockaddress(@0, %2)"),
            "{round}"
        );
        assert_eq!(
            first_after_label(&round, "2"),
            "store ptr blockaddress(@0, %done), ptr %p, align 8"
        );
    }
}

// ---- globals ------------------------------------------------------------------------------

const GLOBAL_USERS: &str = r#"@table = global ptr @target

declare void @target(ptr)

define void @f(ptr %p) {
entry:
  %x = getelementptr i8, ptr %p, i64 1
  call void @target(ptr %x)
  call void @target(ptr %p)
  ret void
}
"#;

/// A global's uses are counted right through every kind of edit: an instruction whose other
/// operand was replaced still names it (through its rewritten copy), a new instruction names
/// it, and removed instructions no longer do.
#[test]
fn global_uses_follow_rewrites_insertions_and_removals() {
    let mut m = Module::parse("uses.ll", GLOBAL_USERS).unwrap();
    let target = m.global_by_name("target").unwrap();
    let f = m.function_by_name("f").unwrap();
    let insts: Vec<_> = m.function(f).instructions().map(|i| i.id()).collect();
    let (x, rewritten, other) = (insts[0], insts[1], insts[2]);
    // The initializer and the two calls.
    assert_eq!(m.global_uses(target), 3);
    // The first call's operands are copied and rewritten; the copy still names @target.
    let p = m.function(f).param(0).unwrap().operand();
    m.replace_inst(x, p).unwrap();
    assert_eq!(m.global_uses(target), 3);
    // A new call names it too.
    let target_fn = m.function_by_name("target").unwrap();
    let mut b = m.builder(Position::Before(other)).unwrap();
    let added = b.call(target_fn, &[(p, &[])], "").unwrap();
    drop(b);
    assert_eq!(m.global_uses(target), 4);
    // The rewritten call goes last: then it is the only instruction that names @target.
    for (inst, left) in [(other, 3), (added, 2), (rewritten, 1)] {
        m.remove_inst(inst).unwrap();
        assert_eq!(m.global_uses(target), left);
    }
    assert_eq!(still_used(m.remove_global(target)), ("@target".into(), 1));
    let table = m.global_by_name("table").unwrap();
    m.remove_global(table).unwrap();
    assert_eq!(m.global_uses(target), 0);
    m.remove_global(target).unwrap();
    let out = print(&m);
    assert_eq!(out, "\ndefine void @f(ptr %p) {\nentry:\n  ret void\n}\n");
    assert_llvm_accepts(&out);
}

/// A use through a constant expression counts, and stops counting with its instruction.
#[test]
fn global_uses_through_a_constant_expression() {
    let text = "declare void @target(ptr)\n\ndefine void @f() {\n  call void @g(ptr getelementptr (i8, ptr @target, i64 4))\n  ret void\n}\n\ndeclare void @g(ptr)\n";
    let mut m = Module::parse("constant.ll", text).unwrap();
    let target = m.global_by_name("target").unwrap();
    assert_eq!(m.global_uses(target), 1);
    let call = m.calls_to("g")[0];
    m.remove_inst(call).unwrap();
    assert_eq!(m.global_uses(target), 0);
    m.remove_global(target).unwrap();
    let out = print(&m);
    assert!(!out.contains("@target"), "{out}");
    assert_llvm_accepts(&out);
}
