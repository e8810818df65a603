//! What LLVM 22's assembly adds to LLVM 19's, one small module each (written here): `ptrtoaddr`
//! (instruction and constant expression), calling conventions with a parameter
//! (`riscv_vls_cc(N)`), and the flags casts, comparisons, GEPs and calls carry. Each module is
//! checked by `llvm-as-22`, and by `llvm-as-19` too, which must accept the constructs LLVM 19
//! has and refuse the ones it lacks (so that each test says which release a construct is
//! from). Each must print back byte-identical, through every way fmtstr parses a module (one
//! thread, in parallel, sparse), and the model must say what LLVM means by it.

mod common;

use fmtstr_ir::{Constant, Module, Opcode, TypeId, Value};
use fmtstr_oracles::{require_llvm, Llvm, Tool};

/// Which releases' `llvm-as` accept a test module.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Since {
    /// LLVM 19 and 22.
    Llvm19,
    /// LLVM 22 only: LLVM 19 refuses it.
    Llvm22,
}

/// Checks `text` with both releases' llvm-as (when installed), then parses it every way and
/// checks the round trip.
fn parse(name: &str, text: &str, since: Since) -> Module {
    for llvm in Llvm::ALL {
        let Some(llvm_as) = require_llvm(llvm, Tool::LlvmAs) else {
            continue;
        };
        let verdict = common::llvm_as(&llvm_as, text.as_bytes());
        let should_accept = llvm == Llvm::V22 || since == Since::Llvm19;
        match (verdict, should_accept) {
            (Some(error), true) => panic!("{name}: llvm-as-{} rejects it:\n{error}", llvm.major()),
            (None, false) => panic!(
                "{name}: llvm-as-{} accepts it: the construct is not new in LLVM 22",
                llvm.major()
            ),
            _ => {}
        }
    }
    let module = Module::parse(name, text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        String::from_utf8_lossy(&module.print()),
        text,
        "{name}: not byte-identical"
    );
    // Bodies parsed on other threads after a skeleton pass, and a sparse parse (the lines that
    // name a call, the rest kept as text), print the same and read the same.
    let parallel = Module::parse_with_threads(name, text.as_bytes().to_vec(), 4)
        .unwrap_or_else(|e| panic!("{name} in parallel: {e}"));
    assert_eq!(parallel.print(), text.as_bytes(), "{name}: in parallel");
    common::sparse_reading_agrees(name, text.as_bytes(), &module)
        .unwrap_or_else(|why| panic!("{name}: sparse parse: {why}"));
    module
}

const PTRTOADDR: &str = r#"target datalayout = "p1:64:64:64:32"

@counter = global i32 0
@counter.address = global i64 ptrtoaddr (ptr @counter to i64)
@counter.end = global i64 add (i64 ptrtoaddr (ptr @counter to i64), i64 4)
@other = global i32 1
@distance = global i64 sub nuw nsw (i64 ptrtoaddr (ptr @other to i64), i64 ptrtoaddr (ptr @counter to i64))
@both = global <2 x i64> ptrtoaddr (<2 x ptr> <ptr @counter, ptr @other> to <2 x i64>)
@far = global i32 ptrtoaddr (ptr addrspace(1) addrspacecast (ptr @other to ptr addrspace(1)) to i32)
@step = global ptr getelementptr nusw nuw (i8, ptr @counter, i64 ptrtoaddr (ptr @other to i64))

define i64 @addresses(ptr %p, ptr addrspace(1) %q, <2 x ptr> %v) {
entry:
  %a = ptrtoaddr ptr %p to i64
  %narrow = ptrtoaddr ptr addrspace(1) %q to i32
  %both = ptrtoaddr <2 x ptr> %v to <2 x i64>
  %global = ptrtoaddr ptr @counter to i64, !annotation !0
  %1 = ptrtoaddr ptr %p to i64
  %sum = add i64 %a, %1
  ret i64 %sum
}

!0 = !{!"address only"}
"#;

#[test]
fn ptrtoaddr_instructions_and_constants() {
    let module = parse("ptrtoaddr.ll", PTRTOADDR, Since::Llvm22);
    let f = module.function_by_name("addresses").unwrap();
    let insts: Vec<_> = module.function(f).instructions().collect();
    let casts: Vec<_> = insts
        .iter()
        .filter(|i| i.opcode() == Opcode::PtrToAddr)
        .collect();
    assert_eq!(casts.len(), 5);
    assert!(Opcode::PtrToAddr.is_cast());
    assert_eq!(Opcode::PtrToAddr.keyword(), "ptrtoaddr");
    assert_eq!(Opcode::from_keyword(b"ptrtoaddr"), Some(Opcode::PtrToAddr));
    // The destination type is the result's; the pointer is the operand.
    assert_eq!(casts[0].ty(), TypeId::I64);
    assert_eq!(casts[1].ty(), TypeId::I32);
    assert_eq!(
        casts[0].operand(0).unwrap().value,
        module.function(f).param(0).unwrap().operand().value
    );
    assert!(casts[2].ty() != TypeId::I64, "a vector of addresses");
    // `ptrtoaddr ptr @counter` uses the global, so it is not unused.
    let counter = module.global_by_name("counter").unwrap();
    assert_eq!(casts[3].operand(0).unwrap().value, Value::Global(counter));
    assert!(casts[3].metadata("annotation").is_some());

    // The constant expression, alone and inside another.
    let address = module.global_by_name("counter.address").unwrap();
    let init = module.global(address).initializer().unwrap();
    let Value::Const(c) = init.value else {
        panic!("not a constant: {init:?}")
    };
    let Constant::Expr {
        opcode,
        ty,
        operands,
        ..
    } = module.constant(c)
    else {
        panic!("not a constant expression")
    };
    assert_eq!(opcode, Opcode::PtrToAddr);
    assert_eq!(ty, Some(TypeId::I64));
    assert_eq!(operands[0].value, Value::Global(counter));

    // Inside other constant expressions, the globals it names are operands like any other's.
    let far = module.global_by_name("far").unwrap();
    let Value::Const(c) = module.global(far).initializer().unwrap().value else {
        panic!("@far: not a constant")
    };
    let Constant::Expr {
        opcode, operands, ..
    } = module.constant(c)
    else {
        panic!("@far: not a constant expression")
    };
    assert_eq!(opcode, Opcode::PtrToAddr);
    let Value::Const(inner) = operands[0].value else {
        panic!("@far: the addrspacecast is not a constant")
    };
    let Constant::Expr {
        opcode, operands, ..
    } = module.constant(inner)
    else {
        panic!("@far: the addrspacecast is not a constant expression")
    };
    assert_eq!(opcode, Opcode::AddrSpaceCast);
    let other = module.global_by_name("other").unwrap();
    assert_eq!(operands[0].value, Value::Global(other));
}

const VLS_CC: &str = r#"target triple = "riscv64-unknown-linux-gnu"

declare riscv_vls_cc(128) void @vls128()
declare riscv_vls_cc(1024) <4 x i32> @vls1024(<4 x i32>)

define riscv_vls_cc(256) <4 x i32> @caller(<4 x i32> %v) {
  call riscv_vls_cc(128) void @vls128()
  %r = tail call riscv_vls_cc(1024) noundef <4 x i32> @vls1024(<4 x i32> %v)
  %s = call riscv_vls_cc( 32 ) <4 x i32> @vls1024(<4 x i32> %r)
  ret <4 x i32> %s
}
"#;

#[test]
fn calling_conventions_with_a_parameter() {
    let module = parse("vls_cc.ll", VLS_CC, Since::Llvm22);
    let cc = |name: &str| {
        let f = module.function_by_name(name).unwrap();
        module.function(f).calling_conv().map(str::to_owned)
    };
    assert_eq!(cc("vls128").as_deref(), Some("riscv_vls_cc(128)"));
    assert_eq!(cc("caller").as_deref(), Some("riscv_vls_cc(256)"));
    let f = module.function_by_name("caller").unwrap();
    let calls: Vec<_> = module
        .function(f)
        .instructions()
        .filter_map(|i| i.as_call())
        .map(|c| {
            (
                c.calling_conv().unwrap().to_owned(),
                c.called_function()
                    .map(|f| module.function(f).name_str().into_owned()),
                c.return_attrs().len(),
            )
        })
        .collect();
    assert_eq!(
        calls,
        [
            ("riscv_vls_cc(128)".to_owned(), Some("vls128".to_owned()), 0),
            (
                "riscv_vls_cc(1024)".to_owned(),
                Some("vls1024".to_owned()),
                1
            ),
            (
                "riscv_vls_cc( 32 )".to_owned(),
                Some("vls1024".to_owned()),
                0
            ),
        ]
    );
}

#[test]
fn a_calling_convention_parameter_that_is_not_a_number_is_an_error_naming_it() {
    for text in [
        "declare riscv_vls_cc(x) void @f()\n",
        "declare riscv_vls_cc( void @f()\n",
        "define void @g() {\n  call riscv_vls_cc(128 void @f()\n  ret void\n}\n",
    ] {
        let error = Module::parse("bad.ll", text).unwrap_err().to_string();
        assert!(
            error.contains("calling convention parameter") || error.contains("')'"),
            "{text:?}: {error}"
        );
    }
}

/// Fast-math flags on `fpext` and `fptrunc`, `samesign` on `icmp`: LLVM 20 on (LLVM 19 refuses
/// them).
const FLAGS_SINCE_19: &str = r#"define double @widen(float %f, <2 x float> %v, double %d, i32 %n) {
  %e1 = fpext nnan float %f to double
  %e2 = fpext fast float %f to double
  %e3 = fpext nnan ninf nsz arcp contract afn reassoc <2 x float> %v to <2 x double>
  %r1 = fptrunc ninf double %d to float
  %r2 = fptrunc afn reassoc double %d to float
  %r3 = fptrunc contract nnan <2 x double> %e3 to <2 x float>
  %small = icmp samesign ult i32 %n, 7
  %sum = fadd double %e1, %e2
  ret double %sum
}
"#;

#[test]
fn fast_math_flags_on_fp_casts_and_samesign() {
    let module = parse("flags22.ll", FLAGS_SINCE_19, Since::Llvm22);
    let f = module.function_by_name("widen").unwrap();
    let insts: Vec<_> = module.function(f).instructions().collect();
    let opcodes: Vec<_> = insts.iter().map(|i| (i.opcode(), i.ty())).collect();
    assert_eq!(opcodes[0], (Opcode::FPExt, TypeId::DOUBLE));
    assert_eq!(opcodes[3], (Opcode::FPTrunc, TypeId::FLOAT));
    assert_eq!(opcodes[4], (Opcode::FPTrunc, TypeId::FLOAT));
    assert_eq!(opcodes[6], (Opcode::ICmp, TypeId::I1));
    assert_eq!(insts[6].predicate().unwrap().keyword(), "ult");
}

/// The flags LLVM 19 already has: `nuw`/`nsw` on `trunc`, `nneg` on `zext` and `uitofp`,
/// `disjoint` on `or`, `inbounds`/`nusw`/`nuw` on GEPs, fast-math flags on `fcmp`, `select`,
/// `fneg`, `phi` and calls.
const FLAGS_OF_19: &str = r#"declare float @llvm.fabs.f32(float)

define float @flags(i64 %i, i32 %j, float %f, ptr %p, i1 %c) {
entry:
  %t1 = trunc nuw i64 %i to i32
  %t2 = trunc nsw i64 %i to i32
  %t3 = trunc nuw nsw i64 %i to i32
  %z = zext nneg i32 %j to i64
  %u = uitofp nneg i32 %j to float
  %c2 = fcmp nnan oeq float %f, 0.0
  %o = or disjoint i32 %j, 1
  %g1 = getelementptr inbounds i8, ptr %p, i64 1
  %g2 = getelementptr nusw i8, ptr %p, i64 1
  %g3 = getelementptr nuw i8, ptr %p, i64 1
  %g4 = getelementptr nusw nuw i8, ptr %p, i64 1
  %g5 = getelementptr inbounds nuw i8, ptr %p, i64 1
  %sel = select nnan i1 %c, float %f, float 1.0
  %neg = fneg nsz float %sel
  %abs = call nnan float @llvm.fabs.f32(float %neg)
  %abs2 = tail call fast float @llvm.fabs.f32(float %abs)
  br label %next

next:
  %phi = phi nnan float [ %abs2, %entry ]
  ret float %phi
}
"#;

#[test]
fn the_flags_llvm_19_has_still_round_trip() {
    let module = parse("flags19.ll", FLAGS_OF_19, Since::Llvm19);
    let f = module.function_by_name("flags").unwrap();
    let calls = module
        .function(f)
        .instructions()
        .filter(|i| i.as_call().is_some())
        .count();
    assert_eq!(calls, 2);
}

/// Other grammar LLVM 20 to 22 added, which fmtstr carries as text: `captures(...)` and
/// `dead_on_return` on parameters, `memory(target_mem0: ...)`, `sanitize_alloc_token` and
/// `nocreateundeforpoison`, the `amdgpu_gfx_whole_wave` convention, `atomicrmw` `fmaximum`,
/// `fminimum`, `usub_cond` and `usub_sat`, `ptrauth` with a deactivation symbol,
/// `#dbg_declare_value` records and `DIFixedPointType`.
const OTHER_SINCE_19: &str = r#"@slot = global i32 0
@signed = global ptr ptrauth (ptr @slot, i32 0, i64 1, ptr null, ptr null)

declare void @sink(ptr captures(none) %p, ptr captures(address, read_provenance) %q, ptr dead_on_return %r) memory(target_mem0: read)

declare i32 @plain(i32) nocreateundeforpoison sanitize_alloc_token

define amdgpu_gfx_whole_wave i32 @wave(i1 %active, i32 %x) {
  ret i32 %x
}

define float @atomics(ptr %p, float %v, i32 %i) !dbg !5 {
entry:
  %max = atomicrmw fmaximum ptr %p, float %v seq_cst, align 4
  %min = atomicrmw fminimum ptr %p, float %v seq_cst, align 4
  %dec = atomicrmw usub_cond ptr %p, i32 %i monotonic, align 4
  %sat = atomicrmw usub_sat ptr %p, i32 %i syncscope("agent") acquire, align 4
    #dbg_declare_value(ptr %p, !9, !DIExpression(), !10)
  call void @sink(ptr %p, ptr %p, ptr %p), !dbg !10
  ret float %max
}

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3}

!0 = distinct !DICompileUnit(language: DW_LANG_C99, file: !1, emissionKind: FullDebug)
!1 = !DIFile(filename: "q.c", directory: "/src")
!3 = !{i32 2, !"Debug Info Version", i32 3}
!5 = distinct !DISubprogram(name: "atomics", scope: !1, file: !1, line: 1, type: !6, unit: !0, spFlags: DISPFlagDefinition)
!6 = !DISubroutineType(types: !7)
!7 = !{null}
!9 = !DILocalVariable(name: "q", scope: !5, file: !1, line: 2, type: !11)
!10 = !DILocation(line: 2, scope: !5)
!11 = !DIFixedPointType(name: "q16", size: 32, align: 32, encoding: DW_ATE_signed_fixed, kind: Binary, factor: -16)
"#;

#[test]
fn other_grammar_of_llvm_20_to_22_round_trips() {
    let module = parse("other22.ll", OTHER_SINCE_19, Since::Llvm22);
    let wave = module.function_by_name("wave").unwrap();
    assert_eq!(
        module.function(wave).calling_conv(),
        Some("amdgpu_gfx_whole_wave")
    );
    let f = module.function_by_name("atomics").unwrap();
    let opcodes: Vec<_> = module
        .function(f)
        .instructions()
        .map(|i| i.opcode())
        .collect();
    assert_eq!(
        opcodes,
        [
            Opcode::AtomicRmw,
            Opcode::AtomicRmw,
            Opcode::AtomicRmw,
            Opcode::AtomicRmw,
            Opcode::Call,
            Opcode::Ret
        ]
    );
}

/// Casts' flags in any order and fast-math flags on `uitofp`/`sitofp`, as LLVM's tests after
/// LLVM 22 write them (`uitofp nsz nneg`): LLVM 22 refuses them, fmtstr reads and keeps them.
#[test]
fn cast_flags_in_any_order_are_kept() {
    let text = "define float @f(i32 %n) {\n  %a = uitofp nsz nneg i32 %n to float\n  %b = sitofp nnan nsz i32 %n to float\n  %c = zext nneg i32 %n to i64\n  %d = fadd float %a, %b\n  ret float %d\n}\n";
    let module = Module::parse("order.ll", text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(module.print(), text.as_bytes());
    let f = module.function_by_name("f").unwrap();
    let types: Vec<_> = module.function(f).instructions().map(|i| i.ty()).collect();
    assert_eq!(
        types,
        [
            TypeId::FLOAT,
            TypeId::FLOAT,
            TypeId::I64,
            TypeId::FLOAT,
            TypeId::VOID
        ]
    );
}
