; ModuleID = 'kernel.cu'
source_filename = "kernel.cu"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.S = type { double, i8, [4 x i32] }
%struct.Pair = type { float, float }

; Function Attrs: convergent mustprogress noinline nounwind optnone
define dso_local noundef float @_Z3sumPK1S(ptr noundef %0) #0 !dbg !12 {
  %2 = alloca ptr, align 8
  store ptr %0, ptr %2, align 8
    #dbg_declare(ptr %2, !29, !DIExpression(), !30)
  %3 = load ptr, ptr %2, align 8, !dbg !31
  %4 = getelementptr inbounds %struct.S, ptr %3, i32 0, i32 2, !dbg !32
  %5 = getelementptr inbounds [4 x i32], ptr %4, i64 0, i64 0, !dbg !31
  %6 = load i32, ptr %5, align 4, !dbg !31
  %7 = load ptr, ptr %2, align 8, !dbg !33
  %8 = getelementptr inbounds %struct.S, ptr %7, i32 0, i32 2, !dbg !34
  %9 = getelementptr inbounds [4 x i32], ptr %8, i64 0, i64 3, !dbg !33
  %10 = load i32, ptr %9, align 4, !dbg !33
  %11 = add nsw i32 %6, %10, !dbg !35
  %12 = sitofp i32 %11 to float, !dbg !31
  ret float %12, !dbg !36
}

; Function Attrs: convergent mustprogress noinline nounwind optnone
define dso_local %struct.Pair @_Z4swap4Pair(ptr noundef byval(%struct.Pair) align 4 %0) #0 !dbg !37 {
  %2 = alloca %struct.Pair, align 4
    #dbg_declare(ptr %0, !44, !DIExpression(), !45)
    #dbg_declare(ptr %2, !46, !DIExpression(), !47)
  %3 = getelementptr inbounds %struct.Pair, ptr %2, i32 0, i32 0, !dbg !48
  %4 = getelementptr inbounds %struct.Pair, ptr %0, i32 0, i32 1, !dbg !49
  %5 = load float, ptr %4, align 4, !dbg !49
  store float %5, ptr %3, align 4, !dbg !48
  %6 = getelementptr inbounds %struct.Pair, ptr %2, i32 0, i32 1, !dbg !48
  %7 = getelementptr inbounds %struct.Pair, ptr %0, i32 0, i32 0, !dbg !50
  %8 = load float, ptr %7, align 4, !dbg !50
  store float %8, ptr %6, align 4, !dbg !48
  %9 = load %struct.Pair, ptr %2, align 4, !dbg !51
  ret %struct.Pair %9, !dbg !51
}

; Function Attrs: convergent mustprogress noinline norecurse nounwind optnone
define dso_local void @_Z12reads_fields1SPi(ptr noundef byval(%struct.S) align 8 %0, ptr noundef %1) #1 !dbg !52 {
  %3 = alloca ptr, align 8
    #dbg_declare(ptr %0, !56, !DIExpression(), !57)
  store ptr %1, ptr %3, align 8
    #dbg_declare(ptr %3, !58, !DIExpression(), !59)
  %4 = getelementptr inbounds %struct.S, ptr %0, i32 0, i32 2, !dbg !60
  %5 = getelementptr inbounds [4 x i32], ptr %4, i64 0, i64 3, !dbg !61
  %6 = load i32, ptr %5, align 4, !dbg !61
  %7 = getelementptr inbounds %struct.S, ptr %0, i32 0, i32 1, !dbg !62
  %8 = load i8, ptr %7, align 8, !dbg !62
  %9 = sext i8 %8 to i32, !dbg !63
  %10 = add nsw i32 %6, %9, !dbg !64
  %11 = load ptr, ptr %3, align 8, !dbg !65
  %12 = getelementptr inbounds i32, ptr %11, i64 0, !dbg !65
  store i32 %10, ptr %12, align 4, !dbg !66
  %13 = getelementptr inbounds %struct.S, ptr %0, i32 0, i32 0, !dbg !67
  %14 = load double, ptr %13, align 8, !dbg !67
  %15 = fptosi double %14 to i32, !dbg !68
  %16 = load ptr, ptr %3, align 8, !dbg !69
  %17 = getelementptr inbounds i32, ptr %16, i64 1, !dbg !69
  store i32 %15, ptr %17, align 4, !dbg !70
  ret void, !dbg !71
}

; Function Attrs: convergent mustprogress noinline norecurse nounwind optnone
define dso_local void @_Z14passes_address1SPfPj(ptr noundef byval(%struct.S) align 8 %0, ptr noundef %1, ptr noundef %2) #1 !dbg !72 {
  %4 = alloca ptr, align 8
  %5 = alloca ptr, align 8
  %6 = alloca %struct.Pair, align 4
  %7 = alloca %struct.Pair, align 4
  %8 = alloca %struct.Pair, align 4
  %9 = alloca i32, align 4
  %10 = alloca i32, align 4
    #dbg_declare(ptr %0, !78, !DIExpression(), !79)
  store ptr %1, ptr %4, align 8
    #dbg_declare(ptr %4, !80, !DIExpression(), !81)
  store ptr %2, ptr %5, align 8
    #dbg_declare(ptr %5, !82, !DIExpression(), !83)
  %11 = call contract noundef float @_Z3sumPK1S(ptr noundef %0) #3, !dbg !84
  %12 = load ptr, ptr %4, align 8, !dbg !85
  %13 = getelementptr inbounds float, ptr %12, i64 0, !dbg !85
  store float %11, ptr %13, align 4, !dbg !86
    #dbg_declare(ptr %6, !87, !DIExpression(), !88)
  %14 = getelementptr inbounds %struct.Pair, ptr %6, i32 0, i32 0, !dbg !89
  %15 = load ptr, ptr %4, align 8, !dbg !90
  %16 = getelementptr inbounds float, ptr %15, i64 1, !dbg !90
  %17 = load float, ptr %16, align 4, !dbg !90
  store float %17, ptr %14, align 4, !dbg !89
  %18 = getelementptr inbounds %struct.Pair, ptr %6, i32 0, i32 1, !dbg !89
  %19 = load ptr, ptr %4, align 8, !dbg !91
  %20 = getelementptr inbounds float, ptr %19, i64 2, !dbg !91
  %21 = load float, ptr %20, align 4, !dbg !91
  store float %21, ptr %18, align 4, !dbg !89
    #dbg_declare(ptr %7, !92, !DIExpression(), !93)
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %8, ptr align 4 %6, i64 8, i1 false), !dbg !94
  %22 = call %struct.Pair @_Z4swap4Pair(ptr noundef byval(%struct.Pair) align 4 %8) #3, !dbg !95
  %23 = getelementptr inbounds %struct.Pair, ptr %7, i32 0, i32 0, !dbg !95
  %24 = extractvalue %struct.Pair %22, 0, !dbg !95
  store float %24, ptr %23, align 4, !dbg !95
  %25 = getelementptr inbounds %struct.Pair, ptr %7, i32 0, i32 1, !dbg !95
  %26 = extractvalue %struct.Pair %22, 1, !dbg !95
  store float %26, ptr %25, align 4, !dbg !95
  %27 = getelementptr inbounds %struct.Pair, ptr %7, i32 0, i32 0, !dbg !96
  %28 = load float, ptr %27, align 4, !dbg !96
  %29 = load ptr, ptr %4, align 8, !dbg !97
  %30 = getelementptr inbounds float, ptr %29, i64 3, !dbg !97
  store float %28, ptr %30, align 4, !dbg !98
  %31 = load ptr, ptr %5, align 8, !dbg !99
  store i32 1, ptr %9, align 4, !dbg !100
  %32 = load i32, ptr %9, align 4, !dbg !100
  %33 = atomicrmw add ptr %31, i32 %32 monotonic, align 4, !dbg !100
  store i32 %33, ptr %10, align 4, !dbg !100
  %34 = load i32, ptr %10, align 4, !dbg !100
  ret void, !dbg !101
}

; Function Attrs: nocallback nofree nounwind willreturn memory(argmem: readwrite)
declare void @llvm.memcpy.p0.p0.i64(ptr noalias nocapture writeonly, ptr noalias nocapture readonly, i64, i1 immarg) #2

attributes #0 = { convergent mustprogress noinline nounwind optnone "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx42,+sm_90" }
attributes #1 = { convergent mustprogress noinline norecurse nounwind optnone "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx42,+sm_90" "uniform-work-group-size"="true" }
attributes #2 = { nocallback nofree nounwind willreturn memory(argmem: readwrite) }
attributes #3 = { convergent nounwind }

!llvm.dbg.cu = !{!0}
!nvvm.annotations = !{!4, !5}
!llvm.module.flags = !{!6, !7, !8, !9, !10}
!llvm.ident = !{!11}

!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus_14, file: !1, producer: "Debian clang version 19.1.7 (3~deb12u1)", isOptimized: false, runtimeVersion: 0, emissionKind: FullDebug, retainedTypes: !2, splitDebugInlining: false, nameTableKind: None)
!1 = !DIFile(filename: "kernel.cu", directory: "/work/main/samples/abi")
!2 = !{!3}
!3 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!4 = !{ptr @_Z12reads_fields1SPi, !"kernel", i32 1}
!5 = !{ptr @_Z14passes_address1SPfPj, !"kernel", i32 1}
!6 = !{i32 7, !"Dwarf Version", i32 2}
!7 = !{i32 2, !"Debug Info Version", i32 3}
!8 = !{i32 1, !"wchar_size", i32 4}
!9 = !{i32 4, !"nvvm-reflect-ftz", i32 0}
!10 = !{i32 7, !"frame-pointer", i32 2}
!11 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!12 = distinct !DISubprogram(name: "sum", linkageName: "_Z3sumPK1S", scope: !1, file: !1, line: 16, type: !13, scopeLine: 16, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition, unit: !0, retainedNodes: !28)
!13 = !DISubroutineType(types: !14)
!14 = !{!15, !16}
!15 = !DIBasicType(name: "float", size: 32, encoding: DW_ATE_float)
!16 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !17, size: 64)
!17 = !DIDerivedType(tag: DW_TAG_const_type, baseType: !18)
!18 = distinct !DICompositeType(tag: DW_TAG_structure_type, name: "S", file: !1, line: 6, size: 256, flags: DIFlagTypePassByValue, elements: !19, identifier: "_ZTS1S")
!19 = !{!20, !22, !24}
!20 = !DIDerivedType(tag: DW_TAG_member, name: "f", scope: !18, file: !1, line: 7, baseType: !21, size: 64)
!21 = !DIBasicType(name: "double", size: 64, encoding: DW_ATE_float)
!22 = !DIDerivedType(tag: DW_TAG_member, name: "b", scope: !18, file: !1, line: 8, baseType: !23, size: 8, offset: 64)
!23 = !DIBasicType(name: "char", size: 8, encoding: DW_ATE_signed_char)
!24 = !DIDerivedType(tag: DW_TAG_member, name: "a", scope: !18, file: !1, line: 9, baseType: !25, size: 128, offset: 96)
!25 = !DICompositeType(tag: DW_TAG_array_type, baseType: !3, size: 128, elements: !26)
!26 = !{!27}
!27 = !DISubrange(count: 4)
!28 = !{}
!29 = !DILocalVariable(name: "s", arg: 1, scope: !12, file: !1, line: 16, type: !16)
!30 = !DILocation(line: 16, column: 61, scope: !12)
!31 = !DILocation(line: 16, column: 73, scope: !12)
!32 = !DILocation(line: 16, column: 76, scope: !12)
!33 = !DILocation(line: 16, column: 83, scope: !12)
!34 = !DILocation(line: 16, column: 86, scope: !12)
!35 = !DILocation(line: 16, column: 81, scope: !12)
!36 = !DILocation(line: 16, column: 66, scope: !12)
!37 = distinct !DISubprogram(name: "swap", linkageName: "_Z4swap4Pair", scope: !1, file: !1, line: 18, type: !38, scopeLine: 18, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition, unit: !0, retainedNodes: !28)
!38 = !DISubroutineType(types: !39)
!39 = !{!40, !40}
!40 = distinct !DICompositeType(tag: DW_TAG_structure_type, name: "Pair", file: !1, line: 12, size: 64, flags: DIFlagTypePassByValue, elements: !41, identifier: "_ZTS4Pair")
!41 = !{!42, !43}
!42 = !DIDerivedType(tag: DW_TAG_member, name: "x", scope: !40, file: !1, line: 13, baseType: !15, size: 32)
!43 = !DIDerivedType(tag: DW_TAG_member, name: "y", scope: !40, file: !1, line: 13, baseType: !15, size: 32, offset: 32)
!44 = !DILocalVariable(name: "p", arg: 1, scope: !37, file: !1, line: 18, type: !40)
!45 = !DILocation(line: 18, column: 64, scope: !37)
!46 = !DILocalVariable(name: "q", scope: !37, file: !1, line: 19, type: !40)
!47 = !DILocation(line: 19, column: 15, scope: !37)
!48 = !DILocation(line: 19, column: 19, scope: !37)
!49 = !DILocation(line: 19, column: 22, scope: !37)
!50 = !DILocation(line: 19, column: 27, scope: !37)
!51 = !DILocation(line: 20, column: 3, scope: !37)
!52 = distinct !DISubprogram(name: "reads_fields", linkageName: "_Z12reads_fields1SPi", scope: !1, file: !1, line: 23, type: !53, scopeLine: 23, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition, unit: !0, retainedNodes: !28)
!53 = !DISubroutineType(types: !54)
!54 = !{null, !18, !55}
!55 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !3, size: 64)
!56 = !DILocalVariable(name: "s", arg: 1, scope: !52, file: !1, line: 23, type: !18)
!57 = !DILocation(line: 23, column: 52, scope: !52)
!58 = !DILocalVariable(name: "out", arg: 2, scope: !52, file: !1, line: 23, type: !55)
!59 = !DILocation(line: 23, column: 60, scope: !52)
!60 = !DILocation(line: 24, column: 14, scope: !52)
!61 = !DILocation(line: 24, column: 12, scope: !52)
!62 = !DILocation(line: 24, column: 23, scope: !52)
!63 = !DILocation(line: 24, column: 21, scope: !52)
!64 = !DILocation(line: 24, column: 19, scope: !52)
!65 = !DILocation(line: 24, column: 3, scope: !52)
!66 = !DILocation(line: 24, column: 10, scope: !52)
!67 = !DILocation(line: 25, column: 19, scope: !52)
!68 = !DILocation(line: 25, column: 17, scope: !52)
!69 = !DILocation(line: 25, column: 3, scope: !52)
!70 = !DILocation(line: 25, column: 10, scope: !52)
!71 = !DILocation(line: 26, column: 1, scope: !52)
!72 = distinct !DISubprogram(name: "passes_address", linkageName: "_Z14passes_address1SPfPj", scope: !1, file: !1, line: 28, type: !73, scopeLine: 28, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition, unit: !0, retainedNodes: !28)
!73 = !DISubroutineType(types: !74)
!74 = !{null, !18, !75, !76}
!75 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !15, size: 64)
!76 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !77, size: 64)
!77 = !DIBasicType(name: "unsigned int", size: 32, encoding: DW_ATE_unsigned)
!78 = !DILocalVariable(name: "s", arg: 1, scope: !72, file: !1, line: 28, type: !18)
!79 = !DILocation(line: 28, column: 54, scope: !72)
!80 = !DILocalVariable(name: "out", arg: 2, scope: !72, file: !1, line: 28, type: !75)
!81 = !DILocation(line: 28, column: 64, scope: !72)
!82 = !DILocalVariable(name: "counter", arg: 3, scope: !72, file: !1, line: 28, type: !76)
!83 = !DILocation(line: 28, column: 79, scope: !72)
!84 = !DILocation(line: 29, column: 12, scope: !72)
!85 = !DILocation(line: 29, column: 3, scope: !72)
!86 = !DILocation(line: 29, column: 10, scope: !72)
!87 = !DILocalVariable(name: "p", scope: !72, file: !1, line: 30, type: !40)
!88 = !DILocation(line: 30, column: 15, scope: !72)
!89 = !DILocation(line: 30, column: 19, scope: !72)
!90 = !DILocation(line: 30, column: 20, scope: !72)
!91 = !DILocation(line: 30, column: 28, scope: !72)
!92 = !DILocalVariable(name: "q", scope: !72, file: !1, line: 31, type: !40)
!93 = !DILocation(line: 31, column: 15, scope: !72)
!94 = !DILocation(line: 31, column: 24, scope: !72)
!95 = !DILocation(line: 31, column: 19, scope: !72)
!96 = !DILocation(line: 32, column: 14, scope: !72)
!97 = !DILocation(line: 32, column: 3, scope: !72)
!98 = !DILocation(line: 32, column: 10, scope: !72)
!99 = !DILocation(line: 33, column: 22, scope: !72)
!100 = !DILocation(line: 33, column: 3, scope: !72)
!101 = !DILocation(line: 34, column: 1, scope: !72)
