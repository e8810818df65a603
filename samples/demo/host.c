/* Runs the demo's shaders on the host. Built with the shaders as they are, it prints with C's
 * printf; built with -DFMTSTR_BUFFER and the shaders lowered by `fmtstr lower --stage buffer
 * --buffer-addrspace 1`, their printf calls write the AMD printf buffer, which main saves to
 * the file argv[1] for `fmtstr decode`. */
#include <stdio.h>

void shade_a(int pixel, float depth);
void shade_b(long long ticks, double ratio, char tag);

#ifdef FMTSTR_BUFFER
#include <stdint.h>
/* 16-byte header (u64 bufferOffset in dwords, two reserved u32s), then entries. */
static uint32_t buffer[4 + 4096];

__attribute__((address_space(1))) unsigned char *__fmtstr_printf_buffer(void) {
  return (__attribute__((address_space(1))) unsigned char *)buffer;
}
#endif

int main(int argc, char **argv) {
  shade_a(3, 0.25f);
  shade_b(123456789012LL, 0.5, 'Z');
  shade_a(-4, 1.5f);
#ifdef FMTSTR_BUFFER
  uint64_t used = *(uint64_t *)buffer;
  FILE *out = argc > 1 ? fopen(argv[1], "wb") : NULL;
  if (!out || used > 4096 || fwrite(buffer, 4, 4 + used, out) != 4 + used) return 1;
  fclose(out);
#endif
  return 0;
}
