#version 450
// fmtstr's SPIR-V sample for the end-to-end test: the Vulkan validation layers run these
// debugPrintfEXT calls on Mesa's lavapipe (the CPU), and their text must equal what
// `fmtstr printf` renders for the same values. Only what VVL 1.3.239 prints right is here
// (not %ld, doubles, 8/16-bit integers). %ul is VVL's alias of %lx.
#extension GL_EXT_debug_printf : require
#extension GL_ARB_gpu_shader_int64 : require
layout(local_size_x = 1) in;

void main() {
    int i = -42;
    uint u = 3000000000u;
    float f = 3.14159;
    uint64_t big = 0x2000000000000001ul;
    vec4 v = vec4(1.2, 2.2, 3.2, 4.2);
    debugPrintfEXT("i=%d u=%u x=%x X=%08X o=%o\n", i, u, u, u, u);
    debugPrintfEXT("f=%f e=%.3e g=%g w=%10.2f 100%%\n", f, f, f, f);
    debugPrintfEXT("lu=%lu lx=%lx\n", big, big);
    debugPrintfEXT("v=%v4f w=%1.2v4f\n", v, v);
    debugPrintfEXT("zero=[%05d] [%5.1f]\n", 7, -0.25);
    // VVL's own %ul: a 64-bit value in hex, as %lx prints it.
    debugPrintfEXT("ul=%ul\n", big);
}
