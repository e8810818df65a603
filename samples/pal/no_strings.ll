; A PAL compute shader whose PAL metadata comes from no_strings.pal.json.
; Regenerate the metadata line and no_strings.elf with `cargo xtask samples`:
;   llc-19 -mtriple=amdgcn--amdpal -mcpu=gfx1100 -filetype=obj no_strings.ll -o no_strings.elf

define amdgpu_cs void @main(<4 x i32> inreg %desc, i32 %x) {
  %v = bitcast i32 %x to float
  call void @llvm.amdgcn.raw.buffer.store.f32(float %v, <4 x i32> %desc, i32 0, i32 0, i32 0)
  ret void
}

declare void @llvm.amdgcn.raw.buffer.store.f32(float, <4 x i32>, i32, i32, i32)

!amdgpu.pal.metadata.msgpack = !{!0}
; PAL metadata: generated from no_strings.pal.json by cargo xtask samples
!0 = !{!"\81\AEamdpal.version\92\03\00"}
