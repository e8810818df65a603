; The three call forms, tagged with !printf.form: 40 packs the arguments, 34 passes a null
; buffer, 85 forwards the caller's pre-packed buffer verbatim.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@.varargs = private unnamed_addr constant [7 x i8] c"%d %f\0A\00", align 1
@.bare = private unnamed_addr constant [6 x i8] c"bare\0A\00", align 1
@.packed = private unnamed_addr constant [10 x i8] c"%d %d %d\0A\00", align 1

define void @forms(i32 %x, double %d, ptr %packed) {
entry:
  %a = call i32 (ptr, ...) @printf(ptr @.varargs, i32 %x, double %d), !printf.form !0
  %b = call i32 (ptr, ...) @printf(ptr @.bare), !printf.form !1
  %c = call i32 (ptr, ...) @printf(ptr @.packed, ptr %packed), !printf.form !2
  ret void
}

declare i32 @printf(ptr, ...)

!0 = !{i8 40}
!1 = !{i8 34}
!2 = !{i8 85}
