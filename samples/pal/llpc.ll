; A PAL compute shader whose PAL metadata is what today's LLPC writes (llpc.pal.json): keys in
; LLVM's sorted order, .string values with their trailing NUL, .user_data_offset, and a
; shader-abort message entry (no .string) between two printf entries. IDs are opaque numbers,
; as LLPC's llvm::hash_value gives them.
; Regenerate the metadata line and llpc.elf with `cargo xtask samples`:
;   llc-19 -mtriple=amdgcn--amdpal -mcpu=gfx1100 -filetype=obj llpc.ll -o llpc.elf

define amdgpu_cs void @main(<4 x i32> inreg %desc, i32 %x) {
  call void @llvm.amdgcn.raw.buffer.store.i32(i32 %x, <4 x i32> %desc, i32 0, i32 0, i32 0)
  ret void
}

declare void @llvm.amdgcn.raw.buffer.store.i32(i32, <4 x i32>, i32, i32, i32)

!amdgpu.pal.metadata.msgpack = !{!0}
; PAL metadata: generated from llpc.pal.json by cargo xtask samples
!0 = !{!"\83\B0amdpal.pipelines\91\82\AA.registers\80\B0.user_data_limit\00\B5amdpal.format_strings\83\A8.strings\93\84\B0.64bit_arguments\91\00\AF.argument_count\01\A6.index\CF\00\00\B7\A4N;\9DK\A7.string\ABOutput:%d\0A\00\85\B0.constant_status\91\01\AA.constants\91\CEtset\AB.data_count\02\A6.index\CF\00\00XY\A6\89\DFw\B1.is_abort_message\01\84\B0.64bit_arguments\91\03\AF.argument_count\02\A6.index\CF\00\00\1F\CF\BE\1F\E1\DA\A7.string\B6workgroup size:%f,%f\0A\00\B1.user_data_offset\00\A8.version\01\AEamdpal.version\92\03\00"}
