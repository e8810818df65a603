; A PAL compute shader whose PAL metadata comes from collision.pal.json.
; Regenerate the metadata line and collision.elf with `cargo xtask samples`:
;   llc-19 -mtriple=amdgcn--amdpal -mcpu=gfx1100 -filetype=obj collision.ll -o collision.elf

define amdgpu_cs void @main(<4 x i32> inreg %desc, i32 %x) {
  %v = bitcast i32 %x to float
  call void @llvm.amdgcn.raw.buffer.store.f32(float %v, <4 x i32> %desc, i32 0, i32 0, i32 0)
  ret void
}

declare void @llvm.amdgcn.raw.buffer.store.f32(float, <4 x i32>, i32, i32, i32)

!amdgpu.pal.metadata.msgpack = !{!0}
; PAL metadata: generated from collision.pal.json by cargo xtask samples
!0 = !{!"\82\AEamdpal.version\92\03\00\B5amdpal.format_strings\82\A8.version\01\A8.strings\91\84\A6.index\CF\00\00`(\1A\92\86\96\A7.string\A5y=%d\0A\AF.argument_count\01\B0.64bit_arguments\91\00"}
