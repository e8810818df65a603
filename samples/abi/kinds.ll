; One of each kind of parameter, return value, call and atomic that `fmtstr abi` plans,
; compiled by llc-19 -march=nvptx64 -mcpu=sm_90 exactly as planned (after the struct-args
; pass): `fmtstr abi samples/abi/kinds.ll`.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%S = type { double, i8, [4 x i32] }
%Packed = type <{ i8, i32, i16 }>
%Pair = type { float, float }

@out = global [64 x i64] zeroinitializer
@shared = addrspace(3) global [16 x i32] undef

declare void @consume(ptr)
declare i32 @vprintf(ptr, ptr)
declare i32 @variadic(ptr, ...)

; The byval worked example: fields at 0, 8 and (element 3 of [4 x i32]) 24; 32 bytes.
define ptx_kernel void @byval_example(ptr byval(%S) align 8 %s) {
entry:
  %p_f = getelementptr %S, ptr %s, i32 0, i32 0
  %f = load double, ptr %p_f
  %p_b = getelementptr %S, ptr %s, i32 0, i32 1
  %b = load i8, ptr %p_b
  %p_a = getelementptr %S, ptr %s, i32 0, i32 2, i32 3
  %a3 = load i32, ptr %p_a
  store volatile double %f, ptr @out
  store volatile i8 %b, ptr @out
  store volatile i32 %a3, ptr @out
  ret void
}

; The cast-only path: the address escapes; the pass makes %s a grid constant.
define ptx_kernel void @byval_escape(ptr byval(%S) align 8 %s) {
entry:
  call void @consume(ptr %s)
  ret void
}

; Scalars of every width: kernels declare .u8/.u16/.u32/.u64/.f32/.f64, half as bytes.
define ptx_kernel void @scalars(i1 %a, i8 %b, i16 %c, i32 %d, i64 %e, half %h, bfloat %bf, float %f, double %g, ptr %p, ptr addrspace(1) %q, i128 %x) {
  store volatile i1 %a, ptr @out
  store volatile i8 %b, ptr @out
  store volatile i16 %c, ptr @out
  store volatile i32 %d, ptr @out
  store volatile i64 %e, ptr @out
  store volatile half %h, ptr @out
  store volatile bfloat %bf, ptr @out
  store volatile float %f, ptr @out
  store volatile double %g, ptr @out
  store volatile ptr %p, ptr @out
  store volatile ptr addrspace(1) %q, ptr @out
  store volatile i128 %x, ptr @out
  ret void
}

; Device functions promote narrow integers to .b32; aggregates, vectors, packed structs.
define i8 @narrow(i8 %b, i16 %c) {
  store volatile i16 %c, ptr @out
  ret i8 %b
}

define %Packed @packed(%Packed %p, <4 x i8> %v, <2 x half> %h) {
  store volatile <4 x i8> %v, ptr @out
  store volatile <2 x half> %h, ptr @out
  ret %Packed %p
}

define <4 x float> @vectors(<2 x double> %a, <3 x i32> %b, [3 x i16] %c) {
  store volatile <2 x double> %a, ptr @out
  store volatile <3 x i32> %b, ptr @out
  store volatile [3 x i16] %c, ptr @out
  %r = load volatile <4 x float>, ptr @out
  ret <4 x float> %r
}

; A variadic definition: llc 19 expands `...` into one more .b64 parameter (a pointer to the
; arguments), not a <func>_vararg parameter.
define void @variadic_def(i32 %n, ...) {
  store volatile i32 %n, ptr @out
  ret void
}

; A local function whose address is not taken: llc aligns its aggregates to 16.
define internal %Pair @local_pair(%Pair %p, [4 x i8] %bytes) {
  store volatile [4 x i8] %bytes, ptr @out
  ret %Pair %p
}

; Linkage: .weak for weak and linkonce functions; local symbols lose their dots (p_$_dot).
define weak void @weak_fn() {
  ret void
}

define linkonce_odr void @linkonce_fn() {
  ret void
}

define private void @p.dot() {
  ret void
}

define ptx_kernel void @linkage() {
  call void @weak_fn()
  call void @linkonce_fn()
  call void @p.dot()
  ret void
}

; A local function whose address is taken keeps the ABI alignment.
define internal %Pair @local_taken(%Pair %p) {
  ret %Pair %p
}

@table = global ptr @local_taken

; A device function reading a byval struct in place.
define half @device_byval(ptr byval(%S) align 8 %s) {
  %p = getelementptr %S, ptr %s, i32 0, i32 1
  %b = load i8, ptr %p
  store volatile i8 %b, ptr @out
  %h = load volatile half, ptr @out
  ret half %h
}

; Direct, local, byval, indirect and variadic calls.
define ptx_kernel void @calls(ptr %fp) {
  %b = load volatile i8, ptr @out
  %c = load volatile i16, ptr @out
  %r0 = call i8 @narrow(i8 %b, i16 %c)
  store volatile i8 %r0, ptr @out
  %p = load volatile %Packed, ptr @out
  %v = load volatile <4 x i8>, ptr @out
  %h = load volatile <2 x half>, ptr @out
  %r1 = call %Packed @packed(%Packed %p, <4 x i8> %v, <2 x half> %h)
  store volatile %Packed %r1, ptr @out
  %pair = load volatile %Pair, ptr @out
  %bytes = load volatile [4 x i8], ptr @out
  %r2 = call %Pair @local_pair(%Pair %pair, [4 x i8] %bytes)
  store volatile %Pair %r2, ptr @out
  %r7 = call %Pair @local_taken(%Pair %pair)
  store volatile %Pair %r7, ptr @out
  %r3 = call half @device_byval(ptr byval(%S) align 8 @out)
  store volatile half %r3, ptr @out
  %r4 = call i32 %fp(i8 %b, %Pair %pair)
  store volatile i32 %r4, ptr @out
  %r5 = call i32 (ptr, ...) @variadic(ptr @out, i8 %b, double 1.0, %Pair %pair)
  store volatile i32 %r5, ptr @out
  call void (i32, ...) @variadic_def(i32 2, i64 3)
  %r6 = call i32 @vprintf(ptr @out, ptr null)
  store volatile i32 %r6, ptr @out
  ret void
}

; Calls are numbered in reverse post order of the blocks, not in the order of the text; the
; unreachable block's call is never selected.
define ptx_kernel void @branches(i1 %c) {
entry:
  br i1 %c, label %then, label %join
late:
  %x = call i8 @narrow(i8 1, i16 2)
  store volatile i8 %x, ptr @out
  ret void
dead:
  call void @consume(ptr null)
  br label %late
then:
  call void @consume(ptr @out)
  br label %join
join:
  %y = call i8 @narrow(i8 3, i16 4)
  store volatile i8 %y, ptr @out
  br label %late
}

; Atomics: global (kernel pointers and globals), shared and generic; native and CAS loops.
define ptx_kernel void @atomics(ptr %g, i32 %v) {
  %a = atomicrmw add ptr %g, i32 %v monotonic
  %b = atomicrmw min ptr addrspace(3) @shared, i32 %v seq_cst
  %c = atomicrmw umax ptr @out, i64 7 monotonic
  %d = atomicrmw fadd ptr %g, float 1.0 monotonic
  %e = atomicrmw fadd ptr %g, half 0xH3C00 monotonic
  %f = atomicrmw nand ptr %g, i32 %v monotonic
  %g8 = atomicrmw or ptr %g, i8 1 monotonic
  %h = cmpxchg ptr %g, i64 0, i64 1 acq_rel monotonic
  %i = atomicrmw fadd ptr %g, <2 x half> <half 0xH3C00, half 0xH3C00> monotonic
  store volatile i32 %a, ptr @out
  store volatile i32 %b, ptr @out
  store volatile i64 %c, ptr @out
  store volatile float %d, ptr @out
  store volatile half %e, ptr @out
  store volatile i32 %f, ptr @out
  store volatile i8 %g8, ptr @out
  store volatile { i64, i1 } %h, ptr @out
  store volatile <2 x half> %i, ptr @out
  ret void
}

define void @device_atomics(ptr %p) {
  %a = atomicrmw xchg ptr %p, i32 1 monotonic
  %b = atomicrmw sub ptr %p, i64 2 monotonic
  store volatile i32 %a, ptr @out
  store volatile i64 %b, ptr @out
  ret void
}
