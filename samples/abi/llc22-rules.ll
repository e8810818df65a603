; What llc 22 lowers otherwise than llc 19, in a module both compile: `fmtstr abi` plans it
; for either (`--llc 19`, `--llc 22`), and each llc agrees with its plan after the
; struct-args pass: integers of widths PTX lacks, merged constant stores, a stored bitcast,
; a parameter passed on whole, a call of another type than its callee's, ordered and scoped
; compare-and-swap.
target triple = "nvptx64-nvidia-cuda"

%Mixed = type { i32, float, i16, i16 }

@out = global [16 x i64] zeroinitializer

declare i7 @narrow(i7)
declare i48 @wide(i48)
declare void @takes([12 x i8])

define i17 @odd(i17 %a, i2 %b) {
  %w = zext i2 %b to i17
  %s = add i17 %a, %w
  ret i17 %s
}

define internal [12 x i8] @zero_bytes() {
  ret [12 x i8] zeroinitializer
}

define internal %Mixed @constants() {
  ret %Mixed { i32 1, float 2.0, i16 3, i16 4 }
}

define <2 x float> @cast(double %d) {
  %v = bitcast double %d to <2 x float>
  ret <2 x float> %v
}

define internal [12 x i8] @pass_on([12 x i8] %v) {
  ret [12 x i8] %v
}

define void @forward([12 x i8] %v) {
  call void @takes([12 x i8] %v)
  ret void
}

define i64 @calls(i7 %x, i48 %y) {
  %a = call i7 @narrow(i7 %x)
  %b = call i48 @wide(i48 %y)
  %m = call %Mixed @constants()
  %z = call [12 x i8] @zero_bytes()
  %p = call [12 x i8] @pass_on([12 x i8] zeroinitializer)
  ; A call of another type than its callee's.
  %c = call i64 @wide(i64 5)
  %az = zext i7 %a to i64
  %bz = zext i48 %b to i64
  %s = add i64 %az, %bz
  %t = add i64 %s, %c
  ret i64 %t
}

define ptx_kernel void @atomics(ptr addrspace(1) %p, i32 %x) {
  %a = cmpxchg ptr addrspace(1) %p, i32 %x, i32 0 acquire monotonic
  %b = cmpxchg ptr addrspace(1) %p, i32 %x, i32 1 syncscope("block") release acquire
  %c = atomicrmw nand ptr addrspace(1) %p, i32 %x seq_cst
  %d = atomicrmw add ptr addrspace(1) %p, i32 %x syncscope("device") monotonic
  %e = cmpxchg ptr addrspace(1) %p, i64 0, i64 1 syncscope("device") acq_rel monotonic
  %a0 = extractvalue { i32, i1 } %a, 0
  %b0 = extractvalue { i32, i1 } %b, 0
  %s = add i32 %a0, %b0
  %t = add i32 %s, %c
  %u = add i32 %t, %d
  %w = zext i32 %u to i64
  store i64 %w, ptr @out
  ret void
}
