; An `!"align"` annotation with index 0 gives the return value its alignment: the declaration
; (func_retval0, and retval0 at the caller, whose loads it groups) takes it in place of the
; alignment llc would choose, while the callee's stores keep the latter (a local function's 16).
; llc 19 and llc 22 alike; before, the plan ignored it and disagreed with both.
target triple = "nvptx64-nvidia-cuda"

%struct.f4 = type { float, float, float, float }

define %struct.f4 @ret4(float %a) {
  %s1 = insertvalue %struct.f4 poison, float %a, 0
  %s2 = insertvalue %struct.f4 %s1, float %a, 1
  %s3 = insertvalue %struct.f4 %s2, float %a, 2
  %s4 = insertvalue %struct.f4 %s3, float %a, 3
  ret %struct.f4 %s4
}

define float @caller(float %a) {
  %r = call %struct.f4 @ret4(float %a)
  %v = extractvalue %struct.f4 %r, 0
  %w = extractvalue %struct.f4 %r, 3
  %x = fadd float %v, %w
  ret float %x
}

define internal %struct.f4 @local4(float %a) {
  %s1 = insertvalue %struct.f4 poison, float %a, 0
  ret %struct.f4 %s1
}

define float @caller2(float %a) {
  %r = call %struct.f4 @local4(float %a)
  %v = extractvalue %struct.f4 %r, 0
  ret float %v
}

!nvvm.annotations = !{!0, !1}
!0 = !{ptr @ret4, !"align", i32 u0x00000010}
!1 = !{ptr @local4, !"align", i32 u0x00000008}
