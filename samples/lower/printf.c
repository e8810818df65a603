// printf calls of every kind, for `fmtstr lower` at both targets:
//   clang-19 --target=nvptx64-nvidia-cuda -x c -O1 -fno-builtin-printf -S -emit-llvm printf.c
//   clang-19 --target=amdgcn-amd-amdpal -mcpu=gfx1100 -x c -O1 -fno-builtin-printf -S -emit-llvm printf.c
extern int printf(const char *, ...);

void scalars(int i, float f, char c, short s, long long ll, double d, unsigned u) {
  printf("x=%d y=%f\n", i, f);
  printf("%c %hd %lld %f %u\n", c, s, ll, d, u);
  printf("bare\n");
}

// Three calls share one buffer, sized for the largest.
int reuse(int a, int b, double x, unsigned char uc, unsigned short us) {
  printf("%d\n", a);
  printf("%d %d %f %f\n", a, b, x, x * 2);
  int n = printf("%hhu %hu\n", uc, us);
  printf("printed %d\n", n);
  return n;
}

void pointers(const void *p, long l, unsigned long long ull) {
  printf("p=%p l=%ld ull=%llu\n", p, l, ull);
  printf("%5.2f|%-8x|%+d\n", 3.5, 255u, 7);
}
