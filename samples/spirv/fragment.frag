#version 450
// fmtstr's SPIR-V sample: a fragment shader sharing a format with compute.comp.
#extension GL_EXT_debug_printf : require
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 colour;

void main() {
    colour = vec4(uv, 0.0, 1.0);
    if (gl_FragCoord.x < 1.0 && gl_FragCoord.y < 1.0) {
        debugPrintfEXT("count=%d\n", int(gl_FragCoord.x));
        debugPrintfEXT("uv=%v2f at %f\n", uv, gl_FragCoord.z);
    }
}
