; A worked example: printf("x=%d y=%f", i, f) with the format in addrspace(4) and the
; float not yet promoted. `fmtstr lower --target nvptx` packs i at 0 and the double at 8 (16
; bytes, the CUDA driver's layout); `--layout slot32` gives the slot layout: 64 bytes, double at 32.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@.str = private addrspace(4) constant [10 x i8] c"x=%d y=%f\00"

define ptx_kernel void @k(i32 %i, float %f) {
entry:
  %r = call i32 (ptr addrspace(4), ...) @printf(ptr addrspace(4) @.str, i32 %i, float %f), !printf.form !0
  ret void
}

declare i32 @printf(ptr addrspace(4), ...)

!0 = !{i8 40}
