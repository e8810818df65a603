; A module the way LLPC's pipeline hands it to its printf lowering (the shape of LLPC's
; CsLowerDebugPrintf lit test, rewritten here): LLPC's own operations (lgc.shader.input.*)
; are plain calls, functions carry !lgc.* metadata, and the module already has a PAL metadata
; document, which the format-string table joins while its other keys keep their bytes. One
; helper still has the older form, its buffer a parameter (as in LLPC's first basic test).
; The printf buffer's descriptor (set 0xFFFFFFF0 = -16, binding 6) sits in a descriptor table
; at user-data dword 2 (!lgc.user.data.nodes), so the table's .user_data_offset is 2.
; Input of `fmtstr lower --target amdgpu --stage buffer`; llvm-as is its judge (LLPC, not llc,
; lowers the lgc.* operations).
target datalayout = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7"
target triple = "amdgcn--amdpal"

@0 = private unnamed_addr constant [15 x i8] c"Invocation:%u\0A\00", align 1
@1 = private unnamed_addr constant [13 x i8] c"sizes:%f %f\0A\00", align 1
@legacy = internal addrspace(4) global [6 x i8] c"old %d"

define dllexport spir_func void @lgc.shader.CS.main() local_unnamed_addr #0 !lgc.shaderstage !2 {
.entry:
  %0 = call <3 x i32> @lgc.shader.input.WorkgroupId(i32 0) #1
  %1 = call i32 @lgc.shader.input.LocalInvocationId(i32 49) #1
  %2 = extractelement <3 x i32> %0, i64 0
  %3 = shl i32 %2, 6
  %4 = add i32 %3, %1
  call void (...) @lgc.debug.printf(ptr nonnull @0, i32 %4)
  call void (...) @lgc.debug.printf(ptr nonnull @1, double 2.000000e+00, double 5.000000e-01)
  call spir_func void @helper(ptr addrspace(7) poison, i32 %4)
  ret void
}

define internal spir_func void @helper(ptr addrspace(7) %buffer, i32 %v) #0 !lgc.shaderstage !2 {
  call void (...) @lgc.debug.printf(ptr addrspace(7) %buffer, ptr addrspace(4) @legacy, i32 %v)
  ret void
}

declare void @lgc.debug.printf(...) #0

declare <3 x i32> @lgc.shader.input.WorkgroupId(i32) #1

declare i32 @lgc.shader.input.LocalInvocationId(i32) #1

attributes #0 = { nounwind }
attributes #1 = { nounwind memory(none) }

!lgc.user.data.nodes = !{!0, !1}
!amdgpu.pal.metadata.msgpack = !{!3}

!0 = !{!"DescriptorTableVaPtr", i32 7, i32 0, i32 2, i32 1, i32 1}
!1 = !{!"DescriptorBuffer", i32 6, i32 0, i32 0, i32 4, i32 -16, i32 6, i32 4}
!2 = !{i32 7}
!3 = !{!"\82\B0amdpal.pipelines\91\81\A4.api\A6Vulkan\AEamdpal.version\92\02\06"}
