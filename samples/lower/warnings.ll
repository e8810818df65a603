; A call whose format and arguments disagree: %f is given an i32 and %s a double. Lowering
; warns (-Wformat) and lowers all the same; with --Werror it stops and writes nothing.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@.mixed = private unnamed_addr constant [10 x i8] c"f=%f s=%s\00", align 1

define void @mixed(i32 %n, double %d) {
entry:
  %r = call i32 (ptr, ...) @printf(ptr @.mixed, i32 %n, double %d)
  ret void
}

declare i32 @printf(ptr, ...)
