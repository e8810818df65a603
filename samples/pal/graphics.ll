; A PAL vertex and pixel shader pair whose PAL metadata comes from graphics.pal.json.
; Regenerate the metadata line and graphics.elf with `cargo xtask samples`:
;   llc-19 -mtriple=amdgcn--amdpal -mcpu=gfx1100 -filetype=obj graphics.ll -o graphics.elf

define amdgpu_vs void @vs_main(<4 x float> %pos) {
  call void @llvm.amdgcn.exp.f32(i32 12, i32 15, float 0.0, float 0.0, float 0.0, float 1.0, i1 true, i1 false)
  ret void
}

define amdgpu_ps void @ps_main(float %depth) {
  call void @llvm.amdgcn.exp.f32(i32 0, i32 15, float %depth, float %depth, float %depth, float 1.0, i1 true, i1 true)
  ret void
}

declare void @llvm.amdgcn.exp.f32(i32, i32, float, float, float, float, i1, i1)

!amdgpu.pal.metadata.msgpack = !{!0}
; PAL metadata: generated from graphics.pal.json by cargo xtask samples
!0 = !{!"\82\AEamdpal.version\92\03\00\B5amdpal.format_strings\82\A8.version\01\A8.strings\93\84\A6.index\CF\00\00`(\1A\92\86\96\A7.string\A5x=%d\0A\AF.argument_count\01\B0.64bit_arguments\91\00\84\A6.index\CF\00\00\CCPh\E4K\B8\A7.string\B8pixel (%d, %d) = %v4hlf\0A\AF.argument_count\03\B0.64bit_arguments\91\00\84\A6.index\CD\124\A7.string\AEfrag depth %f\0A\AF.argument_count\01\B0.64bit_arguments\91\00"}
