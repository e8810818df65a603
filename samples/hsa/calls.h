/* printf calls shared by kernel.cl (OpenCL C, compiled into an HSA code object) and host.c (C on
 * the host): the GPU buffer these calls fill, decoded by `fmtstr decode --elf`, must print
 * exactly what the host's printf prints. Only constant arguments, so that a test can build the
 * buffer by following the stores LLVM's AMDGPUPrintfRuntimeBinding pass writes. */
#define PRINTF_CALLS                                                                  \
  printf("x=%d f=%f l=%ld c=%c h=%hhd|%5.1f\n", 7, 2.5f, -3L, 'q', (char)-5, 1.25);   \
  printf("s=%s empty=[%s] colon: %x %u %%\n", "str", "", 255, 4000000000u);           \
  printf("%-10.3e|%+d|%#o|%lu|%ld\n", 1234.5, 42, 8, 18446744073709551615UL,        \
         -9223372036854775807L);                                                     \
  printf("tab\there, a backslash \\ and no arguments\n");                             \
  printf("%s, %s!\n", "Hello", "world");
