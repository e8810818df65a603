// fmtstr's SPIR-V sample: HLSL's printf, compiled by glslang (-D) into NonSemantic.DebugPrintf.
[numthreads(1, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    float3 v = float3(0.5, 1.5, 2.5);
    printf("hlsl id=%u v=%v3f\n", id.x, v);
    printf("count=%d\n", (int)id.y);
}
