/* Runs print_all(tid, CALLS) on THREADS pthreads (tid 0, 1, ...). Linked with work.c, its printf
 * is the host's. Linked with work.hip's device IR retargeted to x86_64, its printf calls are clang's
 * buffered printf records, and __printf_alloc below reserves them the way ROCm's device library
 * (ockl) does, in a buffer laid out as the runtime lays it out: u32 bytes used, u32 buffer size,
 * then the records. With a third argument the buffer (header and used bytes) is written there.
 *   harness THREADS CALLS [BUFFER.bin] */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

void print_all(int tid, int calls);

#define BUFFER_SIZE (1u << 22)

static unsigned char *buffer;
static int calls;

/* ockl's __printf_alloc: an atomic bump of `used`, refused (NULL) when the record would pass
 * the buffer's size; the record starts after the 8-byte header. */
__attribute__((address_space(1))) char *__printf_alloc(unsigned bytes) {
  uint32_t *header = (uint32_t *)buffer;
  uint32_t size = header[1];
  uint32_t used = __atomic_load_n(&header[0], __ATOMIC_RELAXED);
  for (;;) {
    if (8ull + used + bytes > size)
      return NULL;
    if (__atomic_compare_exchange_n(&header[0], &used, used + bytes, 0, __ATOMIC_RELAXED,
                                    __ATOMIC_RELAXED))
      break;
  }
  return (__attribute__((address_space(1))) char *)(buffer + 8 + used);
}

static void *thread(void *arg) {
  print_all((int)(intptr_t)arg, calls);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 3)
    return 2;
  int threads = atoi(argv[1]);
  calls = atoi(argv[2]);
  if (threads < 1 || threads > 64)
    return 2;
  buffer = calloc(BUFFER_SIZE, 1);
  ((uint32_t *)buffer)[1] = BUFFER_SIZE;
  pthread_t ids[64];
  for (int t = 0; t < threads; t++)
    pthread_create(&ids[t], NULL, thread, (void *)(intptr_t)t);
  for (int t = 0; t < threads; t++)
    pthread_join(ids[t], NULL);
  fflush(stdout);
  if (argc == 4) {
    uint32_t used = ((uint32_t *)buffer)[0];
    FILE *out = fopen(argv[3], "wb");
    if (!out || fwrite(buffer, 1, 8 + (size_t)used, out) != 8 + (size_t)used)
      return 4;
    fclose(out);
  }
  return 0;
}
