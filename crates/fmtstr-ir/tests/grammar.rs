//! Constructs of LLVM 19's grammar that real modules use and fmtstr-ir once refused, one small
//! module each (written here, checked by `llvm-as` of LLVM 19 and 22): each must print back
//! byte-identical, and the model must say what LLVM means by it.

mod common;

use fmtstr_ir::{Module, Opcode, Position, Type, TypeId, Value};

/// Parses `text` (after `llvm-as` of LLVM 19 and 22 accepted it, when installed) and checks
/// the round trip.
fn parse(name: &str, text: &str) -> Module {
    parse_as(name, text, &fmtstr_oracles::Llvm::ALL)
}

/// [`parse`], with the releases whose `llvm-as` must accept the input (a construct LLVM 22
/// dropped is still read as LLVM 19 reads it).
fn parse_as(name: &str, text: &str, releases: &[fmtstr_oracles::Llvm]) -> Module {
    for (llvm, llvm_as) in releases.iter().filter_map(|&llvm| {
        fmtstr_oracles::require_llvm(llvm, fmtstr_oracles::Tool::LlvmAs).map(|path| (llvm, path))
    }) {
        if let Some(error) = common::llvm_as(&llvm_as, text.as_bytes()) {
            panic!("{name}: llvm-as of {llvm} rejects the test input:\n{error}");
        }
    }
    let module = Module::parse(name, text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        String::from_utf8_lossy(&module.print()),
        text,
        "{name}: not byte-identical"
    );
    module
}

/// `llvm-as-19` accepts `text`, when installed.
fn llvm_as_accepts(name: &str, text: &[u8]) {
    for llvm_as in fmtstr_oracles::Llvm::ALL
        .into_iter()
        .filter_map(|llvm| fmtstr_oracles::require_llvm(llvm, fmtstr_oracles::Tool::LlvmAs))
    {
        if let Some(error) = common::llvm_as(&llvm_as, text) {
            panic!(
                "{name}: llvm-as rejects fmtstr's output:\n{error}\n{}",
                String::from_utf8_lossy(text)
            );
        }
    }
}

const EXCEPTIONS: &str = r#"@_ZTIi = external constant ptr

declare void @may_throw(i32)
declare i32 @__gxx_personality_v0(...)
declare ptr @__cxa_begin_catch(ptr)
declare void @__cxa_end_catch()

define i32 @catches(i32 %x) personality ptr @__gxx_personality_v0 {
entry:
  invoke void @may_throw(i32 %x)
          to label %done unwind label %lpad

done:
  ret i32 0

lpad:
  %lp = landingpad { ptr, i32 }
          cleanup
          catch ptr @_ZTIi
          filter [0 x ptr] zeroinitializer
  %exn = extractvalue { ptr, i32 } %lp, 0
  %sel = extractvalue { ptr, i32 } %lp, 1
  %is_int = icmp eq i32 %sel, 1
  br i1 %is_int, label %handler, label %unwind

handler:
  %obj = call ptr @__cxa_begin_catch(ptr %exn)
  call void @__cxa_end_catch()
  ret i32 1

unwind:
  resume { ptr, i32 } %lp
}

declare i32 @__CxxFrameHandler3(...)

define void @funclets() personality ptr @__CxxFrameHandler3 {
entry:
  invoke void @may_throw(i32 1)
          to label %exit unwind label %dispatch

dispatch:
  %cs = catchswitch within none [label %catch] unwind label %cleanup

catch:
  %cp = catchpad within %cs [ptr null, i32 64, ptr null]
  catchret from %cp to label %exit

cleanup:
  %cl = cleanuppad within none []
  cleanupret from %cl unwind to caller

exit:
  ret void
}
"#;

#[test]
fn landingpad_clauses_and_funclets() {
    let mut module = parse("eh.ll", EXCEPTIONS);
    let f = module.function_by_name("catches").unwrap();
    let pad = module
        .function(f)
        .instructions()
        .find(|i| i.opcode() == Opcode::LandingPad)
        .unwrap();
    // The clauses' values are the pad's operands: `ptr @_ZTIi` and the filter array.
    let ops: Vec<_> = pad.operands().collect();
    assert_eq!(ops.len(), 2, "{ops:?}");
    let typeinfo = module.global_by_name("_ZTIi").unwrap();
    assert_eq!(ops[0].value, Value::Global(typeinfo));
    assert_eq!(ops[0].ty, TypeId::PTR);

    // An edit before the pad's block keeps the pad and its clauses, and LLVM still reads it.
    let call = module.calls_to("__cxa_begin_catch")[0];
    let mut b = module.builder(Position::Before(call)).unwrap();
    b.alloca(TypeId::I32, 4, "slot").unwrap();
    drop(b);
    let printed = module.print();
    assert!(String::from_utf8_lossy(&printed).contains("          catch ptr @_ZTIi\n"));
    llvm_as_accepts("eh.ll (edited)", &printed);
}

#[test]
fn intrinsics_called_without_a_declaration() {
    let text = "define void @f(i1 %c, i32 %x) {\n  call void @llvm.assume(i1 %c)\n  %m = call i32 @llvm.umax.i32(i32 %x, i32 7)\n  ret void\n}\n";
    let module = parse("implicit.ll", text);
    let assume = module.function_by_name("llvm.assume").unwrap();
    let assume = module.function(assume);
    assert!(assume.is_declaration());
    assert_eq!(assume.return_type(), TypeId::VOID);
    assert_eq!(
        assume.params().map(|p| p.ty()).collect::<Vec<_>>(),
        [TypeId::I1]
    );
    let umax = module.function_by_name("llvm.umax.i32").unwrap();
    assert_eq!(module.function(umax).return_type(), TypeId::I32);
    let call = module.calls_to("llvm.umax.i32")[0];
    assert_eq!(
        module.inst(call).as_call().unwrap().called_function(),
        Some(umax)
    );

    // Only intrinsics: any other undeclared callee is an error, as in LLVM.
    let e = Module::parse(
        "undeclared.ll",
        "define void @f() {\n  call void @g()\n  ret void\n}\n",
    )
    .unwrap_err();
    assert!(e.message.contains("use of undefined value '@g'"), "{e}");
}

#[test]
fn aliases_of_constant_expressions() {
    let text = "@a = global [4 x i32] zeroinitializer\n@b = alias i32, getelementptr (i32, ptr @a, i64 1)\n@c = alias i32, ptr @a\n@d = alias i32, addrspacecast (ptr @a to ptr addrspace(1))\n@e = alias i8, bitcast (ptr @a to ptr)\n";
    let module = parse("alias.ll", text);
    let d = module.global_by_name("d").unwrap();
    assert_eq!(module.global(d).addrspace(), 1);
    assert_eq!(
        module
            .global(module.global_by_name("b").unwrap())
            .addrspace(),
        0
    );
}

#[test]
fn legacy_data_layout_components() {
    // `s0:64:64` (stack objects, gone from LangRef) and fields past the preferred alignment
    // (`f80:128:128:n8`) are read and ignored by LLVM 19; LLVM 22 refuses the latter.
    let text = "target datalayout = \"e-p:64:64:64-i64:64:64-s0:64:64-f80:128:128:n8:16:32:64-S128\"\n\n@g = global i64 0\n";
    let module = parse_as("layout.ll", text, &[fmtstr_oracles::Llvm::V19]);
    let layout = module.data_layout();
    assert_eq!(layout.alloc_size(module.types(), TypeId::I64).unwrap(), 8);
    assert_eq!(layout.abi_align(module.types(), TypeId::I64).unwrap(), 8);
}

#[test]
fn named_types_that_are_not_structs() {
    let text = "%bytes = type [8 x i8]\n%early = type %bytes\n%int = type i32\n%pair = type { %int, %early }\n\n@g = global %bytes zeroinitializer\n@h = global %int 5\n@p = global %pair zeroinitializer\n";
    let module = parse("named.ll", text);
    let types = module.types();
    let value_ty = |name: &str| {
        let g = module.global_by_name(name).unwrap();
        module.global(g).value_type()
    };
    assert!(matches!(
        types.get(value_ty("g")),
        Type::Array { len: 8, .. }
    ));
    assert_eq!(value_ty("h"), TypeId::I32);
    let pair = value_ty("p");
    let layout = module.data_layout();
    assert_eq!(layout.alloc_size(types, pair).unwrap(), 12);
    let Type::Struct(st) = types.get(pair) else {
        panic!("not a struct")
    };
    // `%early` names `%bytes`, which names the array.
    assert!(matches!(
        types.get(st.fields[1]),
        Type::Array { len: 8, .. }
    ));

    // Only a struct may be mentioned before its definition (llvm-as-19: "forward references
    // to non-struct type"); that also rules out cycles.
    for text in [
        "%a = type %b\n%b = type i32\n",
        "%a = type %b\n%b = type %a\n",
        "%a = type [2 x %a]\n",
    ] {
        let e = Module::parse("forward.ll", text).unwrap_err();
        assert!(e.message.contains("forward reference"), "{e}");
    }
}

#[test]
fn numbering_gaps_in_values_labels_parameters_and_globals() {
    let text = r#"@5 = global i8 0
@"" = global i8 1
@7 = global i8 2

define i32 @f(i32 %0, i32 %4) {
  %10 = add i32 %0, %4
  %11 = mul i32 %10, 2
  br label %20

20:
  %22 = add i32 %11, 1
  %23 = sub i32 %22, %10
  ret i32 %23
}

define ptr @g() {
  ret ptr @6
}
"#;
    let mut module = parse("gaps.ll", text);
    // `@""` is `@6`.
    let g = module.function_by_name("g").unwrap();
    let ret = module.function(g).instructions().next().unwrap();
    let Value::Global(six) = ret.operand(0).unwrap().value else {
        panic!("not a global")
    };
    assert_eq!(module.global_by_name("6"), Some(six));
    assert_eq!(
        module.global(six).initializer().map(|i| i.ty),
        Some(TypeId::I8)
    );

    // A new instruction naming gap-numbered values prints their written numbers.
    let f = module.function_by_name("f").unwrap();
    let insts: Vec<_> = module.function(f).instructions().map(|i| i.id()).collect();
    let x = module.inst(insts[3]).result().unwrap(); // %22
    let p = module.function(f).param(1).unwrap().operand(); // %4
    let mut b = module.builder(Position::Before(insts[4])).unwrap();
    b.binary(Opcode::Add, x, p, "probe").unwrap();
    drop(b);
    let printed = String::from_utf8(module.print()).unwrap();
    assert!(
        printed.contains("  %probe = add i32 %22, %4\n"),
        "{printed}"
    );
    llvm_as_accepts("gaps.ll (edited)", printed.as_bytes());

    // Removing a numbered value renumbers what follows; LLVM reads the result.
    let mut module = Module::parse("gaps.ll", text).unwrap();
    let f = module.function_by_name("f").unwrap();
    let insts: Vec<_> = module.function(f).instructions().map(|i| i.id()).collect();
    let eleven = module.inst(insts[1]).result().unwrap();
    let ten = module.inst(insts[0]).result().unwrap();
    module.replace_all_uses(eleven.value, ten).unwrap();
    module.remove_inst(insts[1]).unwrap();
    let printed = module.print();
    llvm_as_accepts("gaps.ll (removed)", &printed);
    let again = Module::parse("again.ll", printed).unwrap();
    assert_eq!(again.function(f).instructions().count(), 5);
}

#[test]
fn labels_phis_and_spellings() {
    let text = r#"@s = constant [2x i8] c"hi"

define <2x i1> @v(<2x i32> %a) {
  %r = icmp eq <2x i32> %a, zeroinitializer
  ret <2x i1> %r
}

define i32 @labels() {
  br label %-3

-3:
  br label %$N

$N:
  ret i32 0

dead:
  %nothing = phi i32
  ret i32 %nothing
}

define void ()* @typed() {
  ret void ()* null
}
"#;
    let module = parse("spellings.ll", text);
    let f = module.function_by_name("labels").unwrap();
    let names: Vec<_> = module
        .function(f)
        .blocks()
        .filter_map(|b| b.name())
        .collect();
    assert_eq!(names, [b"-3".to_vec(), b"$N".to_vec(), b"dead".to_vec()]);
    let phi = module
        .function(f)
        .instructions()
        .find(|i| i.opcode() == Opcode::Phi)
        .unwrap();
    assert_eq!(phi.operands().count(), 0);
}

#[test]
fn global_attributes_and_summary_entries() {
    let text = r#"@g1 = global i32 7 "key" = "value" "key2" = "value2"
@g2 = external local_unnamed_addr global [4 x i16] align 16
@g3 = global i32 0, section "data", align 4 #0

attributes #0 = { "bss-section"="a" }

^0 = module: (path: "m.o", hash: (0, 0, 0, 0, 0))
^1 = gv: (guid: 15, summaries: (function: (module: ^0, flags: (linkage: external, visibility: default, notEligibleToImport: 0, live: 0, dsoLocal: 0), insts: 1, funcFlags: (readNone: 1, noUnwind : 1))))
"#;
    parse("attrs.ll", text);
}

#[test]
fn typed_pointers_in_metadata_arguments() {
    let text = r#"%class.A = type { i32 }

define void @f(ptr %p) {
  call void @llvm.dbg.value(metadata %class.A* %p, metadata !1, metadata !DIExpression())
  ret void
}

declare void @llvm.dbg.value(metadata, metadata, metadata)

!llvm.module.flags = !{!0}
!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !DILocalVariable(name: "a", scope: !2)
!2 = distinct !DISubprogram(name: "f", unit: !3)
!3 = distinct !DICompileUnit(language: DW_LANG_C99, file: !4)
!4 = !DIFile(filename: "a.c", directory: "/")
"#;
    parse("typed.ll", text);
}

/// What LLVM 20 and 21 write (rustc 1.95's `--emit=llvm-ir`, among others): llvm-as-19
/// rejects these words, fmtstr carries them through verbatim where their extent is clear.
#[test]
fn newer_llvm_spellings_are_carried_verbatim() {
    let text = r#"define range(i32 0, 10) i32 @f(ptr captures(none) initializes((0, 4)) dead_on_unwind writable %p, i64 %x, ptr captures(address, read_provenance) %q, float nofpclass(nan inf) %fl) #0 {
entry:
  %t = trunc nuw nsw i64 %x to i32
  %c = icmp samesign ult i32 %t, 10
  %g = getelementptr inbounds nuw i8, ptr %p, i64 4
  %h = getelementptr nusw nuw i8, ptr %g, i64 %x
  %z = zext nneg i32 %t to i64
  %o = or disjoint i64 %z, 1
  %old = atomicrmw usub_cond ptr %p, i32 1 seq_cst, align 4
  %old2 = atomicrmw usub_sat ptr %p, i32 1 seq_cst, align 4
  %r = call range(i32 0, 5) i32 @g(ptr captures(ret: address, provenance) %h) #1
  %s = select nnan i1 %c, i32 %r, i32 0
  ret i32 %s
}

declare i32 @g(ptr)

attributes #0 = { mustprogress nofree norecurse nounwind memory(argmem: readwrite, target_mem0: read) "target-cpu"="x86-64" }
attributes #1 = { nounwind memory(none) sanitize_alloc_token nocreateundeforpoison }
"#;
    let module = Module::parse("new.ll", text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(String::from_utf8_lossy(&module.print()), text);
    let f = module.function_by_name("f").unwrap();
    let f = module.function(f);
    assert!(f.has_fn_attr("mustprogress") && !f.has_fn_attr("target-cpu"));
    // The first of the keywords asked for, in their order, not the attributes'.
    assert_eq!(
        f.first_fn_attr(&["target-cpu", "norecurse", "mustprogress"]),
        Some("norecurse")
    );
    assert_eq!(f.first_fn_attr(&["ssp", "sspstrong"]), None);
    assert_eq!(f.params().count(), 4);
    let call = module.calls_to("g")[0];
    let call = module.inst(call).as_call().unwrap();
    assert_eq!(call.num_args(), 1);
    assert_eq!(call.callee().ty, TypeId::PTR);
}

/// LLVM's grammar does not care about line ends: call attributes on the next line, several
/// instructions on one line, `%0load` (a number ends where its digits end), hexadecimal
/// integer literals as values and array lengths.
#[test]
fn line_ends_and_hexadecimal_integers() {
    let text = r#"declare void @g(i32)
declare { i128, i1 } @llvm.sadd.with.overflow.i128(i128, i128)

define i32 @f(ptr %p, i128 %x) {
entry:
  call void @g(i32 0)
nounwind
  %v = load i32, ptr %p, align 4, !tbaa !0
  call void @g(i32 %v)
           #0, !tbaa !0
  %r = call { i128, i1 } @llvm.sadd.with.overflow.i128(i128 %x, i128 u0x10000000000000001)
  %big = alloca [u0x20 x i8]
  %0 = load i32, ptr %p
  %1 = add i32 %0, 1
  switch i32 %1, label %done [
    i32 1, label %one
  ]
one: tail call void @g(i32 1) br label %done
done:
  %2 = load i32, ptr %big
  store i32 %2, ptr %p
  ret i32 %1
}

attributes #0 = { nounwind }

!0 = !{!1, !1, i64 0}
!1 = !{!"int", !2}
!2 = !{!"tbaa root"}
"#;
    let module = parse("lines.ll", text);
    let f = module.function_by_name("f").unwrap();
    let opcodes: Vec<Opcode> = module
        .function(f)
        .instructions()
        .map(|i| i.opcode())
        .collect();
    assert_eq!(opcodes.iter().filter(|&&o| o == Opcode::Call).count(), 4);
    let alloca = module
        .function(f)
        .instructions()
        .find(|i| i.opcode() == Opcode::Alloca)
        .unwrap();
    assert!(matches!(
        module.types().get(alloca.element_type().unwrap()),
        Type::Array { len: 32, .. }
    ));
    // `%0load` reads as `%0` then `load`: two loads, the second numbered `%3`.
    let glued =
        "define i32 @h(ptr %0) {\n  %2 = load i32, ptr %0load i32, ptr %0\n  ret i32 %2\n}\n";
    let module = parse("glued.ll", glued);
    let h = module.function_by_name("h").unwrap();
    assert_eq!(module.function(h).instructions().count(), 3);
}
