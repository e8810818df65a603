// A CUDA kernel with a byval struct, a device function that takes its address, device
// calls and atomics. The .ll samples next to it come from clang 19:
//   clang-19 -x cuda --cuda-device-only -nocudainc -nocudalib --cuda-gpu-arch=sm_90 \
//     -O1 -S -emit-llvm kernel.cu -o kernel-O1.ll
//   (and -O0 -g for kernel-O0-g.ll)
struct S {
  double f;
  char b;
  int a[4];
};

struct Pair {
  float x, y;
};

__attribute__((device, noinline)) float sum(const struct S *s) { return s->a[0] + s->a[3]; }

__attribute__((device, noinline)) struct Pair swap(struct Pair p) {
  struct Pair q = {p.y, p.x};
  return q;
}

__attribute__((global)) void reads_fields(struct S s, int *out) {
  out[0] = s.a[3] + s.b;
  out[1] = (int)s.f;
}

__attribute__((global)) void passes_address(struct S s, float *out, unsigned *counter) {
  out[0] = sum(&s);
  struct Pair p = {out[1], out[2]};
  struct Pair q = swap(p);
  out[3] = q.x;
  __atomic_fetch_add(counter, 1u, __ATOMIC_RELAXED);
}
