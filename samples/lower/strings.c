// %s of a runtime string, which the NVIDIA path packs as a pointer and the AMD buffer protocol
// cannot carry (fmtstr interns only constant strings there).
extern int printf(const char *, ...);

void greet(const char *name, int n) {
  printf("hello %s, %d times\n", name, n);
}
