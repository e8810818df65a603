; ModuleID = 'kernel.cu'
source_filename = "kernel.cu"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.Pair = type { float, float }
%struct.S = type { double, i8, [4 x i32] }

; Function Attrs: mustprogress nofree noinline norecurse nosync nounwind willreturn memory(argmem: read)
define dso_local noundef float @_Z3sumPK1S(ptr nocapture noundef readonly %0) local_unnamed_addr #0 {
  %2 = getelementptr inbounds i8, ptr %0, i64 12
  %3 = load i32, ptr %2, align 4, !tbaa !6
  %4 = getelementptr inbounds i8, ptr %0, i64 24
  %5 = load i32, ptr %4, align 4, !tbaa !6
  %6 = add nsw i32 %5, %3
  %7 = sitofp i32 %6 to float
  ret float %7
}

; Function Attrs: mustprogress nofree noinline norecurse nosync nounwind willreturn memory(argmem: read)
define dso_local %struct.Pair @_Z4swap4Pair(ptr nocapture noundef readonly byval(%struct.Pair) align 4 %0) local_unnamed_addr #0 {
  %2 = getelementptr inbounds i8, ptr %0, i64 4
  %3 = load float, ptr %2, align 4, !tbaa !10
  %4 = load float, ptr %0, align 4, !tbaa !13
  %5 = insertvalue %struct.Pair poison, float %3, 0
  %6 = insertvalue %struct.Pair %5, float %4, 1
  ret %struct.Pair %6
}

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: readwrite)
define dso_local void @_Z12reads_fields1SPi(ptr nocapture noundef readonly byval(%struct.S) align 8 %0, ptr nocapture noundef writeonly %1) local_unnamed_addr #1 {
  %3 = getelementptr inbounds i8, ptr %0, i64 24
  %4 = load i32, ptr %3, align 8, !tbaa !6
  %5 = getelementptr inbounds i8, ptr %0, i64 8
  %6 = load i8, ptr %5, align 8, !tbaa !14
  %7 = sext i8 %6 to i32
  %8 = add nsw i32 %4, %7
  store i32 %8, ptr %1, align 4, !tbaa !6
  %9 = load double, ptr %0, align 8, !tbaa !17
  %10 = fptosi double %9 to i32
  %11 = getelementptr inbounds i8, ptr %1, i64 4
  store i32 %10, ptr %11, align 4, !tbaa !6
  ret void
}

; Function Attrs: mustprogress nofree norecurse nounwind willreturn memory(argmem: readwrite)
define dso_local void @_Z14passes_address1SPfPj(ptr nocapture noundef readonly byval(%struct.S) align 8 %0, ptr nocapture noundef %1, ptr nocapture noundef %2) local_unnamed_addr #2 {
  %4 = alloca %struct.Pair, align 4
  %5 = call contract noundef float @_Z3sumPK1S(ptr noundef nonnull %0) #3
  store float %5, ptr %1, align 4, !tbaa !18
  %6 = getelementptr inbounds i8, ptr %1, i64 4
  %7 = load float, ptr %6, align 4, !tbaa !18
  %8 = getelementptr inbounds i8, ptr %1, i64 8
  %9 = load float, ptr %8, align 4, !tbaa !18
  store float %7, ptr %4, align 4, !tbaa !18
  %10 = getelementptr inbounds i8, ptr %4, i64 4
  store float %9, ptr %10, align 4, !tbaa !18
  %11 = tail call %struct.Pair @_Z4swap4Pair(ptr noundef nonnull byval(%struct.Pair) align 4 %4) #3
  %12 = extractvalue %struct.Pair %11, 0
  %13 = getelementptr inbounds i8, ptr %1, i64 12
  store float %12, ptr %13, align 4, !tbaa !18
  %14 = atomicrmw add ptr %2, i32 1 monotonic, align 4
  ret void
}

attributes #0 = { mustprogress nofree noinline norecurse nosync nounwind willreturn memory(argmem: read) "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx42,+sm_90" }
attributes #1 = { mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: readwrite) "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx42,+sm_90" "uniform-work-group-size"="true" }
attributes #2 = { mustprogress nofree norecurse nounwind willreturn memory(argmem: readwrite) "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx42,+sm_90" "uniform-work-group-size"="true" }
attributes #3 = { nounwind }

!nvvm.annotations = !{!0, !1}
!llvm.module.flags = !{!2, !3, !4}
!llvm.ident = !{!5}

!0 = !{ptr @_Z12reads_fields1SPi, !"kernel", i32 1}
!1 = !{ptr @_Z14passes_address1SPfPj, !"kernel", i32 1}
!2 = !{i32 1, !"wchar_size", i32 4}
!3 = !{i32 4, !"nvvm-reflect-ftz", i32 0}
!4 = !{i32 7, !"frame-pointer", i32 2}
!5 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!6 = !{!7, !7, i64 0}
!7 = !{!"int", !8, i64 0}
!8 = !{!"omnipotent char", !9, i64 0}
!9 = !{!"Simple C++ TBAA"}
!10 = !{!11, !12, i64 4}
!11 = !{!"_ZTS4Pair", !12, i64 0, !12, i64 4}
!12 = !{!"float", !8, i64 0}
!13 = !{!11, !12, i64 0}
!14 = !{!15, !8, i64 8}
!15 = !{!"_ZTS1S", !16, i64 0, !8, i64 8, !8, i64 12}
!16 = !{!"double", !8, i64 0}
!17 = !{!15, !16, i64 0}
!18 = !{!12, !12, i64 0}
