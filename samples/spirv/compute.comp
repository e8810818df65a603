#version 450
// fmtstr's SPIR-V sample: a compute shader with NonSemantic.DebugPrintf calls (debugPrintfEXT).
// Regenerate the .spv files beside it with `cargo xtask samples` (recipes.tsv says how).
#extension GL_EXT_debug_printf : require
#extension GL_ARB_gpu_shader_int64 : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Data { uint values[]; };

void report(int count) {
    // The same format as in main and in fragment.frag.
    debugPrintfEXT("count=%d\n", count);
}

void main() {
    int64_t big = int64_t(values[0]) << 40;
    uint64_t mask = uint64_t(values[1]) | 0x100000000ul;
    vec4 colour = vec4(1.0, 2.5, -3.0, 4.25);
    dvec2 fine = dvec2(values[2], 0.125);
    u64vec3 ids = u64vec3(values[3], 2ul, 3ul);
    double half_value = double(values[4]) * 0.5;
    int16_t small = int16_t(values[5]);
    bool flag = values[6] != 0u;

    debugPrintfEXT("big=%ld mask=%lx\n", big, mask);
    debugPrintfEXT("colour=%v4f fine=%v2f\n", colour, fine);
    debugPrintfEXT("ids=%v3lu\n", ids);
    debugPrintfEXT("tab\there \"quoted\" back\\slash 100%%\n");
    debugPrintfEXT("half=%f small=%d flag=%u\n", half_value, small, flag);
    report(int(values[7]));
    report(7);
    debugPrintfEXT("count=%d\n", 5);
    debugPrintfEXT("no arguments at all");
}
