//! The API the lowering passes use, on small modules and on real clang output.

mod common;

use fmtstr_ir::{
    Attr, Constant, EditError, GlobalKind, MdNodeKind, MdOperand, Module, Opcode, Operand,
    Position, Predicate, SourcePos, Type, TypeId, Value,
};

const PRINTF: &str = r#"; a module in clang's style
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.S = type { i8, double, [3 x i32] }

@.str = private unnamed_addr constant [11 x i8] c"x=%d c=%c\0A\00", align 1
@fmt4 = private unnamed_addr addrspace(4) constant [6 x i8] c"hello\00", align 1
@table = internal constant [2 x ptr] [ptr @.str, ptr getelementptr inbounds ([11 x i8], ptr @.str, i64 0, i64 2)]

define dso_local i32 @f(i32 noundef %x, i8 noundef signext %c, ptr noundef byval(%struct.S) align 8 %s) #0 !dbg !5 {
entry:
  %0 = alloca i32, align 4
  store i32 %x, ptr %0, align 4
  %1 = load i32, ptr %0, align 4, !dbg !9
  %conv = sext i8 %c to i32
  %call = call i32 (ptr, ...) @printf(ptr noundef @.str, i32 noundef %1, i32 noundef signext %conv), !dbg !10, !printf.form !11
  %call1 = call i32 (ptr, ...) @printf(ptr noundef addrspacecast (ptr addrspace(4) getelementptr inbounds ([6 x i8], ptr addrspace(4) @fmt4, i64 0, i64 1) to ptr))
  %2 = add i32 %call, %call1
  ret i32 %2, !dbg !10
}

declare i32 @printf(ptr noundef, ...) #1

attributes #0 = { noinline nounwind }
attributes #1 = { nounwind }

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3, !4}

!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, producer: "clang", isOptimized: false, runtimeVersion: 0, emissionKind: FullDebug, splitDebugInlining: false, nameTableKind: None)
!1 = !DIFile(filename: "a.c", directory: "/src")
!3 = !{i32 7, !"Dwarf Version", i32 2}
!4 = !{i32 2, !"Debug Info Version", i32 3}
!5 = distinct !DISubprogram(name: "f", scope: !1, file: !1, line: 3, type: !6, scopeLine: 3, spFlags: DISPFlagDefinition, unit: !0)
!6 = !DISubroutineType(types: !7)
!7 = !{null}
!9 = !DILocation(line: 4, column: 11, scope: !5)
!10 = !DILocation(line: 5, column: 3, scope: !5)
!11 = !{i8 2}
"#;

fn printf_module() -> Module {
    Module::parse("printf.ll", PRINTF).unwrap()
}

#[test]
fn untouched_module_prints_identically() {
    assert_eq!(printf_module().print(), PRINTF.as_bytes());
}

#[test]
fn calls_with_typed_attributed_arguments() {
    let m = printf_module();
    let calls = m.calls_to("printf");
    assert_eq!(calls.len(), 2);
    let call = m.inst(calls[0]).as_call().unwrap();
    assert_eq!(call.called_function(), m.function_by_name("printf"));
    assert_eq!(call.num_args(), 3);
    let args: Vec<_> = call.args().collect();
    assert_eq!(args[0].operand.ty, TypeId::PTR);
    assert!(args[0].has(Attr::NoUndef));
    assert_eq!(args[1].operand.ty, TypeId::I32);
    assert!(args[2].has(Attr::SignExt));
    let Some((ret, params, vararg)) = m.types().function_parts(call.function_type()) else {
        panic!("not a function type")
    };
    assert_eq!(
        (ret, params, vararg),
        (TypeId::I32, &[TypeId::PTR][..], true)
    );

    // Parameters: byval(T), align, signext.
    let f = m.function(m.function_by_name("f").unwrap());
    let s = f.param(2).unwrap();
    let st = m.types().named("struct.S").unwrap();
    assert_eq!(s.byval(), Some(st));
    assert!(s.attrs().contains(&Attr::Align(8)));
    assert!(f.param(1).unwrap().attrs().contains(&Attr::SignExt));
    assert_eq!(f.param(0).unwrap().name().as_deref(), Some(&b"x"[..]));
    assert_eq!(f.calling_conv(), None);
    assert!(!f.is_vararg());
    assert!(m
        .function(m.function_by_name("printf").unwrap())
        .is_vararg());
}

#[test]
fn call_site_metadata_and_source_positions() {
    let m = printf_module();
    let call = m.calls_to("printf")[0];
    let form = m.inst(call).metadata("printf.form").unwrap();
    assert_eq!(form.kind(), MdNodeKind::Tuple);
    assert_eq!(form.int_operand(0), Some(2));
    assert_eq!(form.number(), Some(11));
    let loc = m.inst(call).debug_loc().unwrap();
    assert_eq!((loc.line, loc.column), (5, 3));
    assert_eq!(loc.file.as_deref(), Some("a.c"));
    assert_eq!(
        m.inst(call).source_pos(),
        Some(SourcePos {
            line: 17,
            column: 3
        })
    );
    assert!(m
        .inst(m.calls_to("printf")[1])
        .metadata("printf.form")
        .is_none());
    let flags = m.named_metadata("llvm.module.flags").unwrap();
    let version = m.md_node(flags[0]);
    assert!(matches!(
        version.operands().nth(1),
        Some(MdOperand::Node(_))
    ));
    let file = m.md_numbered(1).unwrap();
    assert_eq!(file.kind(), MdNodeKind::Specialized(b"DIFile"));
    assert_eq!(file.field_str("directory").as_deref(), Some(&b"/src"[..]));
    // Inline call-site metadata works too.
    let inline = Module::parse(
        "i.ll",
        "declare void @g()\ndefine void @f() {\n  call void @g(), !printf.form !{i8 1}\n  ret void\n}\n",
    )
    .unwrap();
    let call = inline.calls_to("g")[0];
    assert_eq!(
        inline
            .inst(call)
            .metadata("printf.form")
            .unwrap()
            .int_operand(0),
        Some(1)
    );
}

#[test]
fn format_strings_through_constant_expressions() {
    let m = printf_module();
    let calls = m.calls_to("printf");
    let first = m.inst(calls[0]).as_call().unwrap().arg(0).unwrap().operand;
    assert_eq!(m.c_string_at(first).as_deref(), Some(&b"x=%d c=%c\n"[..]));
    // addrspacecast (getelementptr (@fmt4, 0, 1)) -> @fmt4 + 1.
    let second = m.inst(calls[1]).as_call().unwrap().arg(0).unwrap().operand;
    let target = m.resolve_global(second).unwrap();
    assert_eq!(m.global(target.global).name(), b"fmt4");
    assert_eq!(target.offset, 1);
    assert_eq!(m.global(target.global).addrspace(), 4);
    assert_eq!(m.c_string_at(second).as_deref(), Some(&b"ello"[..]));
    // Initializers are constants too.
    let table = m.global(m.global_by_name("table").unwrap());
    assert_eq!(table.kind(), GlobalKind::Variable);
    assert!(table.is_constant());
    let Value::Const(c) = table.initializer().unwrap().value else {
        panic!()
    };
    let Constant::Array(elems) = m.constant(c) else {
        panic!()
    };
    assert_eq!(m.c_string_at(elems[1]).as_deref(), Some(&b"%d c=%c\n"[..]));
    let gep = elems[1];
    let Value::Const(gep) = gep.value else {
        panic!()
    };
    assert!(matches!(
        m.constant(gep),
        Constant::Expr {
            opcode: Opcode::GetElementPtr,
            inbounds: true,
            ..
        }
    ));
}

#[test]
fn data_layout_of_module_types() {
    let m = printf_module();
    let st = m.types().named("struct.S").unwrap();
    let layout = m.data_layout().struct_layout(m.types(), st).unwrap();
    assert_eq!(layout.offsets, vec![0, 8, 16]);
    assert_eq!(layout.size, 32);
    assert_eq!(
        m.data_layout()
            .offset_of(m.types(), st, &[0, 2, 1])
            .unwrap()
            .0,
        20
    );
    assert_eq!(m.data_layout().abi_align(m.types(), st).unwrap(), 8);
    let Type::Struct(s) = m.types().get(st) else {
        panic!()
    };
    assert_eq!(s.name, Some(&b"struct.S"[..]));
}

/// The NVPTX lowering in miniature: each printf call becomes a vprintf call with its
/// arguments stored at natural alignment in a per-call stack buffer.
fn lower_printf_to_vprintf(m: &mut Module) -> usize {
    let vprintf_ty = m
        .types_mut()
        .function(TypeId::I32, &[TypeId::PTR, TypeId::PTR], false);
    let vprintf = m.declare_function("vprintf", vprintf_ty).unwrap();
    let calls = m.calls_to("printf");
    for &call in &calls {
        let view = m.inst(call).as_call().unwrap();
        let f = m.inst(call).function();
        let args: Vec<Operand> = view.args().map(|a| a.operand).collect();
        let (fmt, rest) = args.split_first().unwrap();
        let buf = if rest.is_empty() {
            m.const_null(TypeId::PTR)
        } else {
            // Promote as C varargs already did; a struct of the argument types has LLVM's
            // natural-alignment layout, which is what vprintf reads.
            let fields: Vec<TypeId> = rest.iter().map(|a| a.ty).collect();
            let record = m.types_mut().struct_literal(&fields, false);
            let align = m.data_layout().abi_align(m.types(), record).unwrap();
            let buf = m
                .builder(Position::EntryAllocas(f))
                .unwrap()
                .alloca(record, align, "printf.buf")
                .unwrap();
            let mut b = m.builder(Position::Before(call)).unwrap();
            b.debug_loc_from(call);
            for (i, arg) in rest.iter().enumerate() {
                let slot = b.struct_gep(record, buf, i as u32, "printf.slot").unwrap();
                b.store(*arg, slot, 1).unwrap();
            }
            buf
        };
        let mut b = m.builder(Position::Before(call)).unwrap();
        b.debug_loc_from(call);
        let new = b
            .call(vprintf, &[(*fmt, &[Attr::NoUndef]), (buf, &[])], "vprintf")
            .unwrap();
        drop(b);
        let result = m.inst(new).result().unwrap();
        m.replace_inst(call, result).unwrap();
    }
    if let Some(printf) = m.function_by_name("printf") {
        m.remove_function(printf).unwrap();
    }
    calls.len()
}

#[test]
fn printf_lowering_sketch_on_a_small_module() {
    let mut m = printf_module();
    assert_eq!(lower_printf_to_vprintf(&mut m), 2);
    let out = String::from_utf8(m.print()).unwrap();
    assert!(
        out.contains("  %printf.buf = alloca { i32, i32 }, align 4\n"),
        "{out}"
    );
    assert!(out.contains(
        "  %printf.slot = getelementptr inbounds { i32, i32 }, ptr %printf.buf, i32 0, i32 0, !dbg !10\n"
    ));
    assert!(out.contains(
        "  %vprintf = call i32 @vprintf(ptr noundef @.str, ptr %printf.buf), !dbg !10\n"
    ));
    assert!(out.contains(
        "  %vprintf1 = call i32 @vprintf(ptr noundef addrspacecast (ptr addrspace(4) getelementptr inbounds ([6 x i8], ptr addrspace(4) @fmt4, i64 0, i64 1) to ptr), ptr null)\n"
    ));
    assert!(
        out.contains("  %2 = add i32 %vprintf, %vprintf1\n"),
        "{out}"
    );
    assert!(!out.contains("@printf"));
    assert!(out.contains("\ndeclare i32 @vprintf(ptr, ptr)\n"));
    for llvm_as in fmtstr_oracles::Llvm::ALL
        .into_iter()
        .filter_map(|llvm| fmtstr_oracles::require_llvm(llvm, fmtstr_oracles::Tool::LlvmAs))
    {
        assert_eq!(common::llvm_as(&llvm_as, out.as_bytes()), None);
    }
}

#[test]
fn printf_lowering_sketch_on_clang_output_compiles_with_llc() {
    let Some(files) = common::corpus() else {
        return;
    };
    let Some(llc) = fmtstr_oracles::require(fmtstr_oracles::Tool::Llc) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut lowered = 0;
    // clang's output at -O0 and -O2, with and without debug info (llc takes a while).
    let chosen = files.iter().filter(|p| {
        let name = common::short(p);
        name.starts_with("nvptx64/") && !name.contains(".O3.") && !name.ends_with(".opt3.ll")
    });
    for path in chosen {
        let mut m = Module::parse(&common::short(path), std::fs::read(path).unwrap()).unwrap();
        if m.function_by_name("printf").is_none() {
            continue;
        }
        // Only modules llc compiles as they are (llc-19 cannot select some NVPTX atomics).
        let original = std::process::Command::new(&llc)
            .args(["-march=nvptx64", "-mcpu=sm_90", "-o", "/dev/null"])
            .arg(path)
            .output()
            .unwrap();
        if !original.status.success() {
            continue;
        }
        lowered += lower_printf_to_vprintf(&mut m);
        let out = dir.path().join("lowered.ll");
        std::fs::write(&out, m.print()).unwrap();
        let result = std::process::Command::new(&llc)
            .args(["-march=nvptx64", "-mcpu=sm_90", "-o", "/dev/null"])
            .arg(&out)
            .output()
            .unwrap();
        assert!(
            result.status.success(),
            "{}: llc rejects the lowered module:\n{}",
            common::short(path),
            String::from_utf8_lossy(&result.stderr)
        );
    }
    assert!(lowered > 50, "only {lowered} printf calls lowered");
}

#[test]
fn removal_keeps_explicit_numbers_and_new_names_are_fresh() {
    let text = "define i32 @f(i32 %0) {\n  %2 = add i32 %0, 1\n  %3 = add i32 %2, 2\n  %x = add i32 %3, 3\n  br label %4\n\n4:                                                ; preds = %1\n  %5 = mul i32 %x, %3\n  ret i32 %5\n}\n";
    let mut m = Module::parse("n.ll", text).unwrap();
    let f = m.function_by_name("f").unwrap();
    let insts: Vec<_> = m.function(f).instructions().map(|i| i.id()).collect();
    // Replace %2 by a new named value, then remove it: %3.. keep their numbers (LLVM reads
    // increasing numbers with gaps), so every line the edit did not touch keeps its text.
    let one = m.const_int(TypeId::I32, 5);
    let arg = m.function(f).param(0).unwrap().operand();
    let mut b = m.builder(Position::Before(insts[0])).unwrap();
    let x = b.binary(Opcode::Add, arg, one, "x").unwrap();
    let x2 = b.binary(Opcode::Add, x, one, "x").unwrap();
    let n9 = b.binary(Opcode::Add, x2, one, "n9").unwrap();
    let n9b = b.binary(Opcode::Add, n9, one, "n9").unwrap();
    let digits = b.binary(Opcode::Add, n9b, one, "7").unwrap();
    drop(b);
    m.replace_inst(insts[0], digits).unwrap();
    let out = String::from_utf8(m.print()).unwrap();
    assert_eq!(
        out,
        "define i32 @f(i32 %0) {\n  %x1 = add i32 %0, 5\n  %x2 = add i32 %x1, 5\n  %n9 = add i32 %x2, 5\n  %n9.1 = add i32 %n9, 5\n  %v7 = add i32 %n9.1, 5\n  %3 = add i32 %v7, 2\n  %x = add i32 %3, 3\n  br label %4\n\n4:                                                ; preds = %1\n  %5 = mul i32 %x, %3\n  ret i32 %5\n}\n"
    );
    let reparsed = Module::parse("n2.ll", out.clone()).unwrap();
    assert_eq!(reparsed.print(), out.as_bytes());
    for llvm_as in fmtstr_oracles::Llvm::ALL
        .into_iter()
        .filter_map(|llvm| fmtstr_oracles::require_llvm(llvm, fmtstr_oracles::Tool::LlvmAs))
    {
        assert_eq!(common::llvm_as(&llvm_as, out.as_bytes()), None);
    }
}

/// `text` printed after its function `@f` loses its first instruction.
fn printed_without_first_instruction(text: &str) -> String {
    let mut m = Module::parse("r.ll", text).unwrap();
    let f = m.function_by_name("f").unwrap();
    let first = m.function(f).instructions().next().unwrap().id();
    m.remove_inst(first).unwrap();
    String::from_utf8(m.print()).unwrap()
}

#[test]
fn removal_renumbers_when_an_implicit_number_follows() {
    // `call i32 @g()` takes the number after %2 silently: with %2 gone it would read back as
    // %2, so the function is renumbered (consecutively from the removed value on).
    let text = "declare i32 @g()\ndefine i32 @f(i32 %0) {\n  %2 = add i32 %0, 1\n  %3 = add i32 %0, 2\n  call i32 @g()\n  %5 = add i32 %3, %4\n  ret i32 %5\n}\n";
    let out = printed_without_first_instruction(text);
    assert_eq!(
        out,
        "declare i32 @g()\ndefine i32 @f(i32 %0) {\n  %2 = add i32 %0, 2\n  call i32 @g()\n  %4 = add i32 %2, %3\n  ret i32 %4\n}\n"
    );
    // Without the implicit number, the explicit ones stay.
    let text = text.replace("  call i32 @g()", "  %4 = call i32 @g()");
    let kept = printed_without_first_instruction(&text);
    assert_eq!(
        kept,
        "declare i32 @g()\ndefine i32 @f(i32 %0) {\n  %3 = add i32 %0, 2\n  %4 = call i32 @g()\n  %5 = add i32 %3, %4\n  ret i32 %5\n}\n"
    );
    for llvm_as in fmtstr_oracles::Llvm::ALL
        .into_iter()
        .filter_map(|llvm| fmtstr_oracles::require_llvm(llvm, fmtstr_oracles::Tool::LlvmAs))
    {
        assert_eq!(common::llvm_as(&llvm_as, out.as_bytes()), None);
        assert_eq!(common::llvm_as(&llvm_as, kept.as_bytes()), None);
    }
}

#[test]
fn removal_renumbers_when_an_unlabeled_block_follows() {
    // The block after `br` has no label: it takes the number after %3 silently, so removing
    // %2 renumbers the function as it does for an instruction without `%N =`.
    let text = "define i32 @f(i32 %0) {\n  %2 = add i32 %0, 1\n  %3 = add i32 %0, 2\n  br label %4\n\n  %5 = add i32 %3, 1\n  ret i32 %5\n}\n";
    let out = printed_without_first_instruction(text);
    assert!(
        out.contains("  %2 = add i32 %0, 2\n  br label %3\n"),
        "{out}"
    );
    assert!(
        out.contains("  %4 = add i32 %2, 1\n  ret i32 %4\n"),
        "{out}"
    );
    for llvm_as in fmtstr_oracles::Llvm::ALL
        .into_iter()
        .filter_map(|llvm| fmtstr_oracles::require_llvm(llvm, fmtstr_oracles::Tool::LlvmAs))
    {
        assert_eq!(common::llvm_as(&llvm_as, out.as_bytes()), None);
    }
}

#[test]
fn refused_edits_change_nothing() {
    let mut m = printf_module();
    let call = m.calls_to("printf")[0];
    assert!(matches!(
        m.remove_inst(call),
        Err(EditError::StillUsed { uses: 1, .. })
    ));
    let printf = m.function_by_name("printf").unwrap();
    assert!(matches!(
        m.remove_function(printf),
        Err(EditError::StillUsed { uses: 2, .. })
    ));
    let wrong = m.const_int(TypeId::I64, 0);
    assert!(matches!(
        m.replace_all_uses(Value::Inst(call), wrong),
        Err(EditError::TypeMismatch { .. })
    ));
    let void_ty = m.types_mut().function(TypeId::VOID, &[], false);
    assert!(matches!(
        m.declare_function("printf", void_ty),
        Err(EditError::NameTaken { .. })
    ));
    let mut b = m.builder(Position::Before(call)).unwrap();
    assert!(b.store(wrong, wrong, 4).is_err());
    assert!(b.call(printf, &[], "").is_err());
    assert!(b
        .icmp(
            Predicate::EQ,
            wrong,
            Operand {
                ty: TypeId::I32,
                value: wrong.value
            },
            ""
        )
        .is_err());
    drop(b);
    assert_eq!(m.print(), PRINTF.as_bytes());
}

#[test]
fn parameter_types_change_in_llvm_style() {
    let text = "%struct.S = type { i32, i32 }\n\ndefine ptx_kernel void @k(ptr noundef byval(%struct.S) align 4 %0, i32 %n) #0 {\n  ret void\n}\n\nattributes #0 = { nounwind }\n";
    let mut m = Module::parse("k.ll", text).unwrap();
    let k = m.function(m.function_by_name("k").unwrap());
    assert_eq!(k.calling_conv(), Some("ptx_kernel"));
    let p = k.param(0).unwrap().id();
    let st = m.types().named("struct.S").unwrap();
    m.set_param_type(p, st).unwrap();
    m.set_param_attrs(p, &[Attr::NoUndef]).unwrap();
    let out = String::from_utf8(m.print()).unwrap();
    assert_eq!(
        out,
        "%struct.S = type { i32, i32 }\n\ndefine ptx_kernel void @k(%struct.S noundef %0, i32 %n) #0 {\n  ret void\n}\n\nattributes #0 = { nounwind }\n"
    );
    let (ret, params, _) = m
        .types()
        .function_parts(m.function(m.function_by_name("k").unwrap()).function_type())
        .unwrap();
    assert_eq!((ret, params), (TypeId::VOID, &[st, TypeId::I32][..]));
}

#[test]
fn new_globals_and_declarations_land_where_llvm_puts_them() {
    let text =
        "@a = global i32 1\n\ndefine void @f() {\n  ret void\n}\n\ndeclare void @g()\n\n!0 = !{}\n";
    let mut m = Module::parse("g.ll", text).unwrap();
    let s = m.add_string_global("str", b"a\"b\n\0", 4);
    let again = m.add_string_global("str", b"x\0", 0);
    assert_eq!(m.global(again).name(), b"str.1");
    assert_eq!(m.global_bytes(s).as_deref(), Some(&b"a\"b\n\0"[..]));
    let ty = m.types_mut().function(TypeId::I32, &[TypeId::PTR], true);
    m.declare_function("h", ty).unwrap();
    let g = m.function_by_name("g").unwrap();
    m.remove_function(g).unwrap();
    assert_eq!(
        String::from_utf8(m.print()).unwrap(),
        "@a = global i32 1\n@str = private unnamed_addr addrspace(4) constant [5 x i8] c\"a\\22b\\0A\\00\", align 1\n@str.1 = private unnamed_addr constant [2 x i8] c\"x\\00\", align 1\n\ndefine void @f() {\n  ret void\n}\n\ndeclare i32 @h(ptr, ...)\n\n!0 = !{}\n"
    );
}

/// A global after the functions: a new declaration goes in before it, moving it, and the
/// next string still lands after the last global (the previous string).
#[test]
fn new_strings_follow_the_last_global_when_a_declaration_moves_it() {
    let text = "define void @f() {\n  ret void\n}\n\n@a = global i32 1\n";
    let mut m = Module::parse("g.ll", text).unwrap();
    m.add_string_global("s", b"1\0", 0);
    let ty = m.types_mut().function(TypeId::VOID, &[], false);
    m.declare_function("h", ty).unwrap();
    m.add_string_global("t", b"2\0", 0);
    let printed = String::from_utf8(m.print()).unwrap();
    let at = |what: &str| {
        printed
            .find(what)
            .unwrap_or_else(|| panic!("{what}: {printed}"))
    };
    assert!(
        at("define void @f()") < at("declare void @h()"),
        "{printed}"
    );
    assert!(at("declare void @h()") < at("@a = global"), "{printed}");
    assert!(at("@a = global") < at("@s = private"), "{printed}");
    assert!(at("@s = private") < at("@t = private"), "{printed}");
}

#[test]
fn quoted_names_and_named_blocks() {
    let text = "define void @\"a b\"(i32 %\"x y\") {\n\"entry block\":\n  %\"sum 1\" = add i32 %\"x y\", 1\n  br label %\"next\"\nnext:\n  ret void\n}\n";
    let mut m = Module::parse("q.ll", text).unwrap();
    assert_eq!(m.print(), text.as_bytes());
    let f = m.function_by_name("a b").unwrap();
    let first = m.function(f).instructions().next().unwrap();
    assert_eq!(first.name().as_deref(), Some(&b"sum 1"[..]));
    let sum = first.result().unwrap();
    let mut b = m.builder(Position::After(first.id())).unwrap();
    b.binary(Opcode::Mul, sum, sum, "sum 1").unwrap();
    drop(b);
    let out = String::from_utf8(m.print()).unwrap();
    assert!(
        out.contains("  %\"sum 1.1\" = mul i32 %\"sum 1\", %\"sum 1\"\n"),
        "{out}"
    );
    assert_eq!(
        m.function(f).blocks().next().unwrap().name().as_deref(),
        Some(&b"entry block"[..])
    );
}

#[test]
fn instruction_details() {
    let text = "define void @f(ptr %p, <4 x i32> %v) {\n  %a = alloca [4 x i32], align 16, addrspace(5)\n  %l = load atomic volatile i32, ptr %p seq_cst, align 4\n  %c = icmp ult i32 %l, 7\n  %g = getelementptr inbounds [4 x i32], ptr %p, i64 0, i64 1\n  %e = extractelement <4 x i32> %v, i64 2\n  %s = insertvalue { i32, float } undef, i32 %e, 0\n  %x = extractvalue { i32, float } %s, 1\n  %r = atomicrmw add ptr %p, i32 1 seq_cst, align 4\n  %q = cmpxchg ptr %p, i32 0, i32 1 acq_rel monotonic\n  %vc = icmp eq <4 x i32> %v, zeroinitializer\n  ret void\n}\n";
    let m = Module::parse("d.ll", text).unwrap();
    let f = m.function(m.function_by_name("f").unwrap());
    let insts: Vec<_> = f.instructions().collect();
    let types = m.types();
    assert_eq!(types.ptr_addrspace(insts[0].ty()), Some(5));
    assert_eq!(insts[0].alignment(), Some(16));
    assert_eq!(
        types.display(insts[0].element_type().unwrap()).to_string(),
        "[4 x i32]"
    );
    assert_eq!(insts[1].ty(), TypeId::I32);
    assert_eq!(insts[2].predicate(), Some(Predicate::ULT));
    assert_eq!(insts[2].ty(), TypeId::I1);
    assert_eq!(insts[3].operands().count(), 3);
    assert_eq!(insts[4].ty(), TypeId::I32);
    assert_eq!(types.display(insts[5].ty()).to_string(), "{ i32, float }");
    assert_eq!(insts[6].ty(), TypeId::FLOAT);
    assert_eq!(insts[6].indices(), &[1]);
    assert_eq!(insts[7].ty(), TypeId::I32);
    assert_eq!(types.display(insts[8].ty()).to_string(), "{ i32, i1 }");
    assert_eq!(types.display(insts[9].ty()).to_string(), "<4 x i1>");
    assert_eq!(insts[10].opcode(), Opcode::Ret);
    assert!(insts[10].opcode().is_terminator());
    assert_eq!(
        insts[3].text(),
        b"%g = getelementptr inbounds [4 x i32], ptr %p, i64 0, i64 1"
    );
}

#[test]
fn metadata_and_globals_come_and_go() {
    let mut m = printf_module();
    let three = m.const_int(TypeId::I8, 3);
    let form = m.add_metadata(&[fmtstr_ir::MdInput::Value(three)]);
    let note = m.add_metadata(&[
        fmtstr_ir::MdInput::String(b"fmtstr \"lowered\""),
        fmtstr_ir::MdInput::Null,
        fmtstr_ir::MdInput::Node(form),
    ]);
    m.add_named_metadata("fmtstr.notes", &[note, form]).unwrap();
    assert!(m.add_named_metadata("fmtstr.notes", &[]).is_err());
    assert!(!m.remove_named_metadata("no.such"));
    let call = m.calls_to("printf")[0];
    let x = m
        .function(m.function_by_name("f").unwrap())
        .param(0)
        .unwrap()
        .operand();
    let mut b = m.builder(Position::Before(call)).unwrap();
    b.attach("printf.form", form);
    let sum = b.binary(Opcode::Add, x, x, "twice").unwrap();
    let Value::Inst(sum_inst) = sum.value else {
        panic!()
    };
    drop(b);
    assert_eq!(
        m.inst(sum_inst)
            .metadata("printf.form")
            .unwrap()
            .int_operand(0),
        Some(3)
    );
    m.set_metadata(sum_inst, "fmtstr.note", note).unwrap();
    assert!(m.set_metadata(call, "fmtstr.note", note).is_err());
    let table = m.global_by_name("table").unwrap();
    m.remove_global(table).unwrap();
    let str_global = m.global_by_name(".str").unwrap();
    assert!(matches!(
        m.remove_global(str_global),
        Err(EditError::StillUsed { .. })
    ));
    let out = String::from_utf8(m.print()).unwrap();
    assert!(
        out.contains("  %twice = add i32 %x, %x, !printf.form !12, !fmtstr.note !13\n"),
        "{out}"
    );
    assert!(out.ends_with("!12 = !{i8 3}\n!13 = !{!\"fmtstr \\22lowered\\22\", null, !12}\n!fmtstr.notes = !{!13, !12}\n"), "{out}");
    assert!(!out.contains("@table"));
    let reparsed = Module::parse("m.ll", out.clone()).unwrap();
    let notes = reparsed.named_metadata("fmtstr.notes").unwrap();
    let first = reparsed.md_node(notes[0]);
    let Some(MdOperand::Node(s)) = first.operands().next() else {
        panic!()
    };
    assert_eq!(
        reparsed.md_node(s).string().as_deref(),
        Some(&b"fmtstr \"lowered\""[..])
    );
    for llvm_as in fmtstr_oracles::Llvm::ALL
        .into_iter()
        .filter_map(|llvm| fmtstr_oracles::require_llvm(llvm, fmtstr_oracles::Tool::LlvmAs))
    {
        assert_eq!(common::llvm_as(&llvm_as, out.as_bytes()), None);
    }
}

#[test]
fn call_details_kept_as_written() {
    let text = "declare fastcc void @g(i32)\ndeclare token @llvm.x()\ndefine amdgpu_cs void @f(i32 inreg %a) {\n  tail call fastcc void @g(i32 %a) #0 [ \"deopt\"(i32 %a) ], !dbg !0\n  ret void\n}\nattributes #0 = { nounwind }\n!0 = !{}\n";
    let m = Module::parse("c.ll", text).unwrap();
    assert_eq!(m.print(), text.as_bytes());
    let f = m.function(m.function_by_name("f").unwrap());
    assert_eq!(f.calling_conv(), Some("amdgpu_cs"));
    assert!(f.param(0).unwrap().attrs().contains(&Attr::InReg));
    let call = m.inst(m.calls_to("g")[0]).as_call().unwrap();
    assert_eq!(call.calling_conv(), Some("fastcc"));
    assert_eq!(call.tail_kind(), Some("tail"));
    assert_eq!(call.fn_attrs_text(), b"#0");
    assert_eq!(call.bundles_text(), b"[ \"deopt\"(i32 %a) ]");
    assert!(call.inst().metadata("dbg").is_some());
}

#[test]
fn edited_functions_keep_untouched_text_and_poison_removed_values_named_by_metadata() {
    let text = "declare void @llvm.dbg.value(metadata, metadata, metadata)\n\ndefine i32 @f(i32 %a) {\nentry:\n  %x = add i32 %a, 1\n  %y = mul i32 %a,   %a ; odd spacing stays\n  call void @llvm.dbg.value(metadata i32 %x, metadata !1, metadata !DIExpression())\n  ret i32 %y\n}\n\n!1 = !{}\n";
    let mut module = Module::parse("m.ll", text).unwrap();
    let f = module.function_by_name("f").unwrap();
    let x = module.function(f).instructions().next().unwrap().id();
    let a = module.function(f).param(0).unwrap().operand();
    let mut b = module.builder(Position::Before(x)).unwrap();
    let t = b.binary(Opcode::Add, a, a, "t").unwrap();
    let t2 = b.binary(Opcode::Add, t, a, "t").unwrap();
    b.binary(Opcode::Add, t2, a, "t").unwrap();
    drop(b);
    module.remove_inst(x).unwrap();
    let printed = String::from_utf8(module.print()).unwrap();
    assert!(printed
        .contains("  %t = add i32 %a, %a\n  %t1 = add i32 %t, %a\n  %t2 = add i32 %t1, %a\n"));
    assert!(printed.contains("  %y = mul i32 %a,   %a ; odd spacing stays\n"));
    assert!(printed.contains("call void @llvm.dbg.value(metadata i32 poison, metadata !1"));
    assert!(!printed.contains("%x"));
}

#[test]
fn a_removed_value_named_only_by_a_debug_record_prints_as_poison_there() {
    let text = "define i32 @f(i32 %a) !dbg !3 {\nentry:\n  %x = add i32 %a, 1\n    #dbg_value(i32 %x, !5, !DIExpression(), !6)\n  %unused = add i32 %a, 2\n  %y = mul i32 %a,   %a ; odd spacing stays\n  ret i32 %y\n}\n\n!llvm.module.flags = !{!0}\n!llvm.dbg.cu = !{!1}\n!0 = !{i32 2, !\"Debug Info Version\", i32 3}\n!1 = distinct !DICompileUnit(language: DW_LANG_C99, file: !2, emissionKind: FullDebug)\n!2 = !DIFile(filename: \"a.c\", directory: \"/\")\n!3 = distinct !DISubprogram(name: \"f\", scope: !2, file: !2, line: 1, type: !4, unit: !1, spFlags: DISPFlagDefinition)\n!4 = !DISubroutineType(types: !{})\n!5 = !DILocalVariable(name: \"x\", scope: !3, file: !2, line: 1)\n!6 = !DILocation(line: 1, scope: !3)\n";
    let removed = |name: &str| {
        let mut module = Module::parse("m.ll", text).unwrap();
        let f = module.function_by_name("f").unwrap();
        let inst = module
            .function(f)
            .instructions()
            .find(|i| i.name().as_deref() == Some(name.as_bytes()))
            .unwrap()
            .id();
        module.remove_inst(inst).unwrap();
        String::from_utf8(module.print()).unwrap()
    };
    let printed = removed("x");
    assert!(
        printed.contains("    #dbg_value(i32 poison, !5, !DIExpression(), !6)\n"),
        "{printed}"
    );
    assert!(printed.contains("  %y = mul i32 %a,   %a ; odd spacing stays\n"));
    for llvm_as in fmtstr_oracles::Llvm::ALL
        .into_iter()
        .filter_map(|llvm| fmtstr_oracles::require_llvm(llvm, fmtstr_oracles::Tool::LlvmAs))
    {
        assert_eq!(common::llvm_as(&llvm_as, printed.as_bytes()), None);
    }
    // A value no text names goes without touching any other line.
    let printed = removed("unused");
    assert_eq!(printed, text.replace("  %unused = add i32 %a, 2\n", ""));
    for llvm_as in fmtstr_oracles::Llvm::ALL
        .into_iter()
        .filter_map(|llvm| fmtstr_oracles::require_llvm(llvm, fmtstr_oracles::Tool::LlvmAs))
    {
        assert_eq!(common::llvm_as(&llvm_as, printed.as_bytes()), None);
    }
}

#[test]
fn may_be_used_is_false_only_for_results_nothing_can_name() {
    let text = "define i32 @f(i32 %a) {\nentry:\n  %x = add i32 %a, 1\n  %y = add i32 %a, 2\n  %z = add i32 %a, 3\n  %0 = add i32 %a, 4\n  br label %next\nnext:\n  %p = phi i32 [ %w, %next ], [ %a, %entry ]\n  %w = add i32 %p, 1\n  ret i32 %z\n}\n";
    let mut m = Module::parse("uses.ll", text).unwrap();
    let f = m.function_by_name("f").unwrap();
    let used = |m: &Module| -> Vec<bool> {
        m.function(f)
            .instructions()
            .filter(|i| i.result().is_some())
            .map(|i| i.may_be_used())
            .collect()
    };
    // %x, %y, %0 unused; %z used by the ret; %w used before its definition; %p by %w.
    assert_eq!(used(&m), [false, false, true, false, true, true]);
    // Once an edit touched the function, nothing is certain.
    let ids: Vec<_> = m.function(f).instructions().map(|i| i.id()).collect();
    let x = m.inst(ids[0]).result().unwrap();
    let y = ids[1];
    let mut b = m.builder(Position::Before(y)).unwrap();
    b.binary(Opcode::Add, x, x, "t").unwrap();
    drop(b);
    assert!(used(&m).iter().all(|&u| u));
}

#[test]
fn uses_of_new_and_source_values_are_counted_after_edits() {
    let text = "define i32 @f(i32 %a) {\nentry:\n  %x = add i32 %a, 1\n  %y = mul i32 %x, %x\n  ret i32 %y\n}\n";
    let mut module = Module::parse("m.ll", text).unwrap();
    let f = module.function_by_name("f").unwrap();
    let ids: Vec<_> = module.function(f).instructions().map(|i| i.id()).collect();
    let (x, y) = (ids[0], ids[1]);
    let a = module.function(f).param(0).unwrap().operand();
    // Builds the user index, then edits after it.
    assert!(matches!(
        module.remove_inst(x),
        Err(EditError::StillUsed { uses: 1, .. })
    ));
    let mut b = module.builder(Position::Before(y)).unwrap();
    let t = b.binary(Opcode::Add, a, a, "t").unwrap();
    let u = b.binary(Opcode::Mul, t, t, "u").unwrap();
    let Value::Inst(t_inst) = t.value else {
        panic!("not an instruction")
    };
    drop(b);
    assert!(matches!(
        module.remove_inst(t_inst),
        Err(EditError::StillUsed { uses: 1, .. })
    ));
    // %y uses %x twice: one instruction; then %x is free to go.
    assert_eq!(module.replace_all_uses(Value::Inst(x), u).unwrap(), 1);
    module.remove_inst(x).unwrap();
    assert!(matches!(
        module.remove_inst(y),
        Err(EditError::StillUsed { uses: 1, .. })
    ));
    let printed = String::from_utf8(module.print()).unwrap();
    assert!(
        printed.contains("  %t = add i32 %a, %a\n  %u = mul i32 %t, %t\n  %y = mul i32 %u, %u\n")
    );
    assert!(!printed.contains("%x"));
}

/// The users of new values, once asked about, stay known through later edits: a user added
/// after the first question is found, and one whose operand was replaced is not.
#[test]
fn users_of_new_values_stay_known_after_the_first_question() {
    let text = "define i32 @f(i32 %a) {\nentry:\n  ret i32 %a\n}\n";
    let mut module = Module::parse("m.ll", text).unwrap();
    let f = module.function_by_name("f").unwrap();
    let ret = module.function(f).instructions().last().unwrap().id();
    let a = module.function(f).param(0).unwrap().operand();
    let mut b = module.builder(Position::Before(ret)).unwrap();
    let t = b.binary(Opcode::Add, a, a, "t").unwrap();
    let u = b.binary(Opcode::Mul, t, t, "u").unwrap();
    drop(b);
    let (Value::Inst(t_inst), Value::Inst(u_inst)) = (t.value, u.value) else {
        panic!("not instructions")
    };
    // The first question about a new value indexes the function's new users.
    assert!(matches!(
        module.remove_inst(t_inst),
        Err(EditError::StillUsed { uses: 1, .. })
    ));
    // A user made after it, and one old user moved off %t.
    let v = module
        .builder(Position::Before(ret))
        .unwrap()
        .binary(Opcode::Sub, t, a, "v")
        .unwrap();
    assert_eq!(module.replace_uses_in(u_inst, t.value, a).unwrap(), 2);
    // %v alone uses %t now.
    assert!(matches!(
        module.remove_inst(t_inst),
        Err(EditError::StillUsed { uses: 1, .. })
    ));
    let Value::Inst(v_inst) = v.value else {
        panic!("not an instruction")
    };
    module.remove_inst(v_inst).unwrap();
    module.remove_inst(t_inst).unwrap();
    let printed = String::from_utf8(module.print()).unwrap();
    assert!(
        printed.contains("  %u = mul i32 %a, %a\n  ret i32 %a\n"),
        "{printed}"
    );
}

/// `remove_unused_globals` gives each global the verdict `remove_global` gives it alone: one
/// an instruction, another global's initializer (through an expression) or an alias names
/// stays; one only its own initializer names goes.
#[test]
fn unused_globals_go_together_as_each_would_alone() {
    let text = r#"@a = private constant [2 x i8] c"a\00"
@b = private constant [2 x i8] c"b\00"
@c = global ptr @c
@d = private constant [2 x i8] c"d\00"
@e = global ptr getelementptr (i8, ptr @d, i64 1)
@x = private constant [2 x i8] c"x\00"
@al = alias i8, ptr @b

define ptr @f() {
entry:
  ret ptr @a
}
"#;
    let names = ["a", "b", "c", "d", "x"];
    let ids = |m: &Module| -> Vec<fmtstr_ir::GlobalId> {
        names.iter().map(|n| m.global_by_name(n).unwrap()).collect()
    };
    let mut alone = Module::parse("g.ll", text).unwrap();
    let verdicts: Vec<bool> = ids(&alone)
        .into_iter()
        .map(|g| alone.remove_global(g).is_ok())
        .collect();
    assert_eq!(verdicts, [false, false, true, false, true]);
    let mut together = Module::parse("g.ll", text).unwrap();
    let candidates = ids(&together);
    assert_eq!(together.remove_unused_globals(&candidates).unwrap(), 2);
    assert_eq!(together.print(), alone.print());
    let printed = String::from_utf8(together.print()).unwrap();
    assert!(
        !printed.contains("@c =") && !printed.contains("@x ="),
        "{printed}"
    );
    // Gone already: nothing more to remove.
    assert_eq!(together.remove_unused_globals(&candidates).unwrap(), 0);
}

#[test]
fn fresh_names_avoid_source_names_spelled_plainly_or_with_escapes() {
    let text = r#"define void @f(ptr %slot) {
entry:
  %slot1 = getelementptr i8, ptr %slot, i64 1
  %"sl\6Ft2" = getelementptr i8, ptr %slot, i64 2
  ret void
}

define void @g(ptr %p) {
entry:
  ret void
}

define void @h(ptr %"\73lot") {
entry:
  %sl = getelementptr i8, ptr %"\73lot", i64 1
  ret void
}
"#;
    let mut m = Module::parse("names.ll", text).unwrap();
    for name in ["f", "g", "h"] {
        let f = m.function_by_name(name).unwrap();
        for _ in 0..2 {
            m.builder(Position::EntryAllocas(f))
                .unwrap()
                .alloca(TypeId::I32, 4, "slot")
                .unwrap();
        }
    }
    let out = String::from_utf8(m.print()).unwrap();
    let f_text = &out[..out.find("define void @g").unwrap()];
    let g_text = &out[out.find("define void @g").unwrap()..out.find("define void @h").unwrap()];
    // A parameter spelled only with an escape: its text never says `slot`.
    let h_text = &out[out.find("define void @h").unwrap()..];
    assert!(h_text.contains("%slot1 = alloca i32, align 4"), "{out}");
    assert!(h_text.contains("%slot2 = alloca i32, align 4"), "{out}");
    assert!(f_text.contains("%slot3 = alloca i32, align 4"), "{out}");
    assert!(f_text.contains("%slot4 = alloca i32, align 4"), "{out}");
    assert!(g_text.contains("%slot = alloca i32, align 4"), "{out}");
    assert!(g_text.contains("%slot1 = alloca i32, align 4"), "{out}");
    // It reads back: no name is defined twice.
    Module::parse("again.ll", out.as_bytes().to_vec()).unwrap();
}

#[test]
fn hints_that_share_candidates_still_give_distinct_names() {
    // Only numbered locals: no source name can clash, so names come from each hint's count
    // until two hints could spell the same name (`x` gives `x1`, which is the hint `x1`).
    let text = "define i32 @f(i32 %0) {\n  %2 = add i32 %0, 1\n  ret i32 %2\n}\n";
    let mut m = Module::parse("hints.ll", text).unwrap();
    let f = m.function_by_name("f").unwrap();
    let ret = m.function(f).instructions().last().unwrap().id();
    let one = m.const_int(TypeId::I32, 1);
    let arg = m.function(f).param(0).unwrap().operand();
    let mut b = m.builder(Position::Before(ret)).unwrap();
    let mut value = arg;
    for hint in [
        "x", "xy", "x", "x1", "x", "x", "x1", "x.1", "x1.1", "7", "v7", "7",
    ] {
        value = b.binary(Opcode::Add, value, one, hint).unwrap();
    }
    drop(b);
    let out = String::from_utf8(m.print()).unwrap();
    let names: Vec<&str> = out
        .lines()
        .filter_map(|l| l.trim().strip_prefix('%')?.split(' ').next())
        .filter(|n| !n.starts_with(|c: char| c.is_ascii_digit()))
        .collect();
    assert_eq!(
        names,
        ["x", "xy", "x1", "x1.1", "x2", "x3", "x1.2", "x.1", "x1.1.1", "v7", "v7.1", "v7.2"],
        "{out}"
    );
    // It reads back: no name is defined twice.
    Module::parse("again.ll", out.as_bytes().to_vec()).unwrap();
}

#[test]
fn several_instructions_removed_at_once_or_none() {
    let text = "define i32 @f(i32 %x) {
entry:
  %a = add i32 %x, 1
  %b = add i32 %a, 2
  %c = add i32 %x, 3
  ret i32 %c
}

define i32 @g(i32 %x) {
entry:
  %d = add i32 %x, 4
  ret i32 %x
}
";
    let mut m = Module::parse("several.ll", text).unwrap();
    let insts = |m: &Module, f: &str| -> Vec<fmtstr_ir::InstId> {
        let f = m.function_by_name(f).unwrap();
        m.function(f).instructions().map(|i| i.id()).collect()
    };
    let (f, g) = (insts(&m, "f"), insts(&m, "g"));
    // %c is used by the ret, outside the set: nothing goes.
    assert!(matches!(
        m.remove_insts(&[f[0], f[1], f[2]]),
        Err(EditError::StillUsed { .. })
    ));
    assert_eq!(String::from_utf8(m.print()).unwrap(), text);
    // %a is used only by %b, inside the set; %d in another function: all go.
    m.remove_insts(&[f[1], f[0], g[0]]).unwrap();
    let out = String::from_utf8(m.print()).unwrap();
    assert!(!out.contains("%a =") && !out.contains("%b =") && !out.contains("%d ="));
    assert!(out.contains("%c = add i32 %x, 3"));
    Module::parse("again.ll", out.as_bytes().to_vec()).unwrap();
    // A removed instruction cannot be removed again.
    assert!(m.remove_insts(&[f[0]]).is_err());

    // Values no text names: still refused while a new instruction, or an operand an edit
    // replaced, uses them.
    let text = "define i32 @h(i32 %x) {\nentry:\n  %u = add i32 %x, 1\n  %v = add i32 %x, 2\n  %w = add i32 %x, 3\n  ret i32 %x\n}\n";
    let mut m = Module::parse("unnamed-uses.ll", text).unwrap();
    let h = insts(&m, "h");
    let u = m.inst(h[0]).result().unwrap();
    let mut b = m.builder(Position::Before(h[3])).unwrap();
    b.binary(Opcode::Mul, u, u, "twice").unwrap();
    drop(b);
    assert!(matches!(
        m.remove_insts(&[h[0]]),
        Err(EditError::StillUsed { .. })
    ));
    let v = m.inst(h[1]).result().unwrap();
    let x = m
        .function(m.function_by_name("h").unwrap())
        .param(0)
        .unwrap()
        .operand();
    m.replace_uses_in(h[2], x.value, v).unwrap();
    assert!(matches!(
        m.remove_insts(&[h[1]]),
        Err(EditError::StillUsed { .. })
    ));
    m.remove_insts(&[h[2], h[1]]).unwrap();
    let out = String::from_utf8(m.print()).unwrap();
    assert!(!out.contains("%v =") && !out.contains("%w =") && out.contains("%twice = mul"));

    // A new instruction's operand rewritten to a source value uses it too.
    let text = "define i32 @k(i32 %x) {\nentry:\n  %p = add i32 %x, 1\n  %q = add i32 %x, 2\n  ret i32 %x\n}\n";
    let mut m = Module::parse("rewritten-new.ll", text).unwrap();
    let k = insts(&m, "k");
    let x = m
        .function(m.function_by_name("k").unwrap())
        .param(0)
        .unwrap()
        .operand();
    let mut b = m.builder(Position::Before(k[2])).unwrap();
    let sum = b.binary(Opcode::Add, x, x, "sum").unwrap();
    drop(b);
    let Value::Inst(sum) = sum.value else {
        panic!("a new instruction's result")
    };
    let q = m.inst(k[1]).result().unwrap();
    m.replace_uses_in(sum, x.value, q).unwrap();
    assert!(matches!(
        m.remove_insts(&[k[0], k[1]]),
        Err(EditError::StillUsed { .. })
    ));
    m.remove_insts(&[k[0]]).unwrap();
    m.remove_insts(&[sum]).unwrap();
    m.remove_insts(&[k[1]]).unwrap();
    let out = String::from_utf8(m.print()).unwrap();
    assert_eq!(out, "define i32 @k(i32 %x) {\nentry:\n  ret i32 %x\n}\n");
}
