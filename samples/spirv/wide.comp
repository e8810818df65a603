#version 450
// fmtstr's SPIR-V sample: formats other shaders print with 32-bit arguments, printed here with
// 64-bit ones. `fmtstr audit` reports the conflicts: "count=%d\n" with compute.comp,
// fragment.frag and printf.hlsl, and "x=%d\n" with samples/pal/compute.elf.
#extension GL_EXT_debug_printf : require
#extension GL_ARB_gpu_shader_int64 : require
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Data { uint values[]; };

void main() {
    int64_t count = int64_t(values[0]) << 33;
    debugPrintfEXT("count=%d\n", count);
    debugPrintfEXT("x=%d\n", count);
}
