// Shader A of `cargo xtask demo`: GPU code with printf, as its author writes it.
int printf(const char *format, ...);

void shade_a(int pixel, float depth) {
  printf("pixel %d: depth %.3f\n", pixel, depth);
  printf("frame %u done\n", 7u);
}
