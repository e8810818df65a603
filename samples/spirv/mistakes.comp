#version 450
// fmtstr's SPIR-V sample: debugPrintfEXT calls whose formats do not fit their arguments, or that
// the Vulkan validation layers reject (glslang checks nothing); `fmtstr check` reports each.
#extension GL_EXT_debug_printf : require
#extension GL_ARB_gpu_shader_int64 : require
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Data { uint values[]; };

void main() {
    int64_t big = int64_t(values[0]);
    vec4 colour = vec4(values[1]);
    debugPrintfEXT("big=%d\n", big);
    debugPrintfEXT("colour=%v3f\n", colour);
    debugPrintfEXT("name=%s\n", values[2]);
    debugPrintfEXT("left=%-4d\n", int(values[3]));
    debugPrintfEXT("missing=%d %d\n", int(values[4]));
    debugPrintfEXT("scalar=%v2f\n", colour.x);
    debugPrintfEXT("fine=%08.3f %lx\n", colour.y, big);
}
