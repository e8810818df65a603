; What llc 19 does beyond the plain cases, each measured (LLVM 19's NVPTX tests hold more):
; odd integer widths, <N x i1>, i128 aligned to 16 whatever the datalayout says, undef parts
; not stored, weak kernels, aliases, renamed local symbols, NVVM atomic intrinsics, atomics
; on local memory and i128 atomics through libatomic.
target datalayout = "e-p:64:64-i128:64"
target triple = "nvptx64-nvidia-cuda"

%pair = type { i32, i32 }

@out = addrspace(1) global i64 0, align 8

define internal i19 @odd.width(i19 %a, i2 %b, i48 %c) {
  %bb = zext i2 %b to i19
  %s = add i19 %a, %bb
  %cc = trunc i48 %c to i19
  %r = xor i19 %s, %cc
  ret i19 %r
}

define <3 x i1> @flags(<3 x i1> %m) {
  %r = xor <3 x i1> %m, <i1 true, i1 false, i1 true>
  ret <3 x i1> %r
}

define i128 @wide(i128 %a, i128 %b) {
  %s = add i128 %a, %b
  ret i128 %s
}

define %pair @half_defined(i32 %x) {
  %p = insertvalue %pair undef, i32 %x, 1
  ret %pair %p
}

@wide_alias = alias i128 (i128, i128), ptr @wide

define weak_odr ptx_kernel void @kernel(ptr addrspace(1) %p, i32 %x, i128 %v) {
  %a = call i19 @odd.width(i19 5, i2 1, i48 7)
  %f = call <3 x i1> @flags(<3 x i1> <i1 true, i1 true, i1 false>)
  %w = call i128 @wide_alias(i128 %v, i128 1)
  %h = call %pair @half_defined(i32 %x)
  %sum = call float @llvm.nvvm.atomic.load.add.f32.p1(ptr addrspace(1) %p, float 1.0)
  %local = alloca i32, align 4
  %l = atomicrmw add ptr %local, i32 %x monotonic
  %g = addrspacecast ptr addrspace(1) %p to ptr
  %old = atomicrmw xchg ptr %g, i128 %w monotonic, align 16
  %az = zext i19 %a to i64
  %f0 = extractelement <3 x i1> %f, i32 2
  %fz = zext i1 %f0 to i64
  %h1 = extractvalue %pair %h, 1
  %hz = zext i32 %h1 to i64
  %lz = zext i32 %l to i64
  %ot = trunc i128 %old to i64
  %t1 = add i64 %az, %fz
  %t2 = add i64 %t1, %hz
  %t3 = add i64 %t2, %lz
  %t4 = add i64 %t3, %ot
  store i64 %t4, ptr addrspace(1) @out
  ret void
}

declare float @llvm.nvvm.atomic.load.add.f32.p1(ptr addrspace(1), float)
