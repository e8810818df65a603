// Shader B of `cargo xtask demo`: shares a format string with shader A.
int printf(const char *format, ...);

void shade_b(long long ticks, double ratio, char tag) {
  printf("ticks=%lld ratio=%e tag=%c mask=%#06x\n", ticks, ratio, tag, 0xbeefu);
  printf("frame %u done\n", 7u);
}
