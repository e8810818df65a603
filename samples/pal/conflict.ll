; A PAL compute shader whose PAL metadata comes from conflict.pal.json.
; Regenerate the metadata line and conflict.elf with `cargo xtask samples`:
;   llc-19 -mtriple=amdgcn--amdpal -mcpu=gfx1100 -filetype=obj conflict.ll -o conflict.elf

define amdgpu_cs void @main(<4 x i32> inreg %desc, i32 %x) {
  %v = bitcast i32 %x to float
  call void @llvm.amdgcn.raw.buffer.store.f32(float %v, <4 x i32> %desc, i32 0, i32 0, i32 0)
  ret void
}

declare void @llvm.amdgcn.raw.buffer.store.f32(float, <4 x i32>, i32, i32, i32)

!amdgpu.pal.metadata.msgpack = !{!0}
; PAL metadata: generated from conflict.pal.json by cargo xtask samples
!0 = !{!"\82\AEamdpal.version\92\03\00\B5amdpal.format_strings\82\A8.version\01\A8.strings\91\84\A6.index\CF\00\00B\B9\7F\B9\DE\03\A7.string\B6thread %u: value %lld\0A\AF.argument_count\02\B0.64bit_arguments\91\00"}
