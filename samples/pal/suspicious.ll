; A PAL compute shader whose PAL metadata comes from suspicious.pal.json.
; Regenerate the metadata line and suspicious.elf with `cargo xtask samples`:
;   llc-19 -mtriple=amdgcn--amdpal -mcpu=gfx1100 -filetype=obj suspicious.ll -o suspicious.elf

define amdgpu_cs void @main(<4 x i32> inreg %desc, i32 %x) {
  %v = bitcast i32 %x to float
  call void @llvm.amdgcn.raw.buffer.store.f32(float %v, <4 x i32> %desc, i32 0, i32 0, i32 0)
  ret void
}

declare void @llvm.amdgcn.raw.buffer.store.f32(float, <4 x i32>, i32, i32, i32)

!amdgpu.pal.metadata.msgpack = !{!0}
; PAL metadata: generated from suspicious.pal.json by cargo xtask samples
!0 = !{!"\82\AEamdpal.version\92\03\00\B5amdpal.format_strings\82\A8.version\01\A8.strings\96\84\A6.index\CD\03\E9\A7.string\A4%ld\0A\AF.argument_count\01\B0.64bit_arguments\91\00\84\A6.index\CD\03\EA\A7.string\A6%d %d\0A\AF.argument_count\01\B0.64bit_arguments\91\00\84\A6.index\CD\03\EB\A7.string\A3%d\0A\AF.argument_count\01\B0.64bit_arguments\91\01\84\A6.index\CD\03\EC\A7.string\B7%y is not a conversion\0A\AF.argument_count\00\B0.64bit_arguments\90\84\A6.index\CD\03\ED\A7.string\D9\D3%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d \0A\AF.argument_countF\B0.64bit_arguments\92\00\00\84\A6.index\CD\03\EE\A7.string\A8%lld %d\0A\AF.argument_count\02\B0.64bit_arguments\91\01"}
