; LLPC's lgc.debug.printf as LLPC wrote it before mid 2024 (its LowerDebugPrintf lit tests of
; that time, rewritten here): the buffer comes first (a buffer fat pointer from the descriptor
; load), then the format: an [n x i8] in address space 4 WITHOUT a NUL, a `constant` or a plain
; `global`. A poison buffer means printf is disabled: LLPC removes that call and writes nothing.
; Input of `fmtstr lower --target amdgpu --stage buffer`.
;
; What LLPC's checks ask of the lowering, which tests/amdgpu.rs checks on fmtstr's output:
; - "Count:%d %lx" with an i32 and an i64: a 5-dword entry (atomicrmw add ... i64 5 monotonic),
;   the i64 as two dwords, low first, mask bit 1;
; - "Check: %x" (a plain global) with one i32: a 3-dword entry;
; - the call through a poison buffer leaves nothing: no store, no table entry.
target datalayout = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn--amdpal"

@count = internal addrspace(4) constant [12 x i8] c"Count:%d %lx"
@check = internal addrspace(4) global [9 x i8] c"Check: %x"
@silent = internal addrspace(4) constant [7 x i8] c"gone %d"

; The lane ID comes in as an argument: llc 19 crashes (SI Fix SGPR copies) on a compute shader
; that reads the ID intrinsics and calls the external descriptor load.
define dllexport amdgpu_cs void @_amdgpu_cs_main(i32 inreg %seed, i32 %lane) {
.entry:
  %buffer = call ptr addrspace(7) @lgc.load.buffer.desc(i64 4294967280, i32 6, i32 0, i32 2)
  %wide = zext i32 %seed to i64
  %pair = shl i64 %wide, 32
  call void (...) @lgc.debug.printf(ptr addrspace(7) %buffer, ptr addrspace(4) @count, i32 %lane, i64 %pair)
  call void (...) @lgc.debug.printf(ptr addrspace(7) %buffer, ptr addrspace(4) @check, i32 %seed)
  call void (...) @lgc.debug.printf(ptr addrspace(7) poison, ptr addrspace(4) @silent, i32 %lane)
  ret void
}

declare ptr addrspace(7) @lgc.load.buffer.desc(i64, i32, i32, i32)

declare void @lgc.debug.printf(...)
