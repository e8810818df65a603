; lgc.debug.printf calls as LLPC's SPIR-V reader writes them: the input of
; `fmtstr lower --target amdgpu --stage buffer`. Vectors travel as all their components, half
; widens to float, i8/i16 zero-extend, double and i64 take two dwords and set their mask bit.
target datalayout = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn--amdpal"

@debugString.0 = private addrspace(4) constant [12 x i8] c"the arg: %i\00", align 1
@debugString.1 = private addrspace(4) constant [27 x i8] c"v=%v4hlf h=%f c=%hhu d=%f\0A\00", align 1
@debugString.2 = private addrspace(4) constant [15 x i8] c"id %llu of %u\0A\00", align 1

define amdgpu_cs void @main(i32 %arg, <4 x float> %v, half %h, i8 %c, double %d, i64 %id, i16 %n) {
entry:
  %printfBuffer = call ptr addrspace(7) @lgc.load.buffer.desc(i64 4294967280, i32 6, i32 0, i32 2)
  call void (...) @lgc.debug.printf(ptr addrspace(7) %printfBuffer, ptr addrspace(4) @debugString.0, i32 %arg)
  call void (...) @lgc.debug.printf(ptr addrspace(7) %printfBuffer, ptr addrspace(4) @debugString.1, <4 x float> %v, half %h, i8 %c, double %d)
  call void (...) @lgc.debug.printf(ptr addrspace(7) %printfBuffer, ptr addrspace(4) @debugString.2, i64 %id, i16 %n)
  ret void
}

declare ptr addrspace(7) @lgc.load.buffer.desc(i64, i32, i32, i32)

declare void @lgc.debug.printf(...)
