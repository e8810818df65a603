// %s, which the NVIDIA path packs as a pointer and the AMD buffer protocol cannot carry.
extern int printf(const char *, ...);

void greet(const char *name, int n) {
  printf("hello %s, %d times\n", name, n);
}
