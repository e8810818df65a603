; LLPC's lgc.debug.printf as LLPC writes it since mid 2024 (the form of its LowerDebugPrintf lit
; tests, rewritten here): the format comes first and no buffer is passed (LLPC's pass fetches it
; from descriptor set 0xFFFFFFF0, binding 6). Formats are NUL-terminated [n x i8] constants
; written without an address space: under this DataLayout's G1 they are still in address space
; 0, as llvm-as reads them. Input of `fmtstr lower --target amdgpu --stage buffer`.
;
; What LLPC's checks ask of the lowering, which tests/amdgpu.rs checks on fmtstr's output:
; - "Tick %d\n" with one i32: a 3-dword entry (atomicrmw add ... i64 3 monotonic), the offset
;   clamped with umin(offset, 536870912), entry header low dword then high dword, then the i32;
; - "size:%f,%f\n" with two doubles: a 6-dword entry, each double two dwords, mask bits 0 and 1;
; - "Value: %u" (no NUL, as in LLPC's basic test) with one i32: a 3-dword entry, mask 0;
; - no call to lgc.debug.printf is left, and amdpal.format_strings has .version 1, .strings and
;   .user_data_offset 0.
target datalayout = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn--amdpal"

@tick = private unnamed_addr constant [9 x i8] c"Tick %d\0A\00", align 1
@size = private unnamed_addr constant [12 x i8] c"size:%f,%f\0A\00", align 1
@value = private unnamed_addr constant [9 x i8] c"Value: %u", align 1

; The workgroup and lane IDs come in as arguments: llc 19 crashes (SI Fix SGPR copies) on a
; compute shader that reads both ID intrinsics and calls the external descriptor load.
define dllexport amdgpu_cs void @_amdgpu_cs_main(i32 inreg %group, i32 %lane) {
.entry:
  %scaled = mul i32 %group, 64
  %global = add i32 %scaled, %lane
  call void (...) @lgc.debug.printf(ptr nonnull @tick, i32 %global)
  call void (...) @lgc.debug.printf(ptr nonnull @size, double 6.400000e+01, double 1.000000e+00)
  call void (...) @lgc.debug.printf(ptr nonnull @value, i32 7)
  ret void
}

declare void @lgc.debug.printf(...)
