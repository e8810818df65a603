#include "common.h"

int sum_ints(int n, ...) {
  va_list ap;
  va_start(ap, n);
  int total = 0;
  for (int i = 0; i < n; i++)
    total += va_arg(ap, int);
  va_end(ap);
  return total;
}

double mean(int n, ...) {
  va_list ap, copy;
  va_start(ap, n);
  va_copy(copy, ap);
  double total = 0;
  for (int i = 0; i < n; i++)
    total += va_arg(ap, double);
  long long first = (long long)va_arg(copy, double);
  va_end(copy);
  va_end(ap);
  return n ? total / n + (first & 0) : 0;
}

const char *pick(int which, ...) {
  va_list ap;
  va_start(ap, which);
  const char *s = 0;
  while (which-- >= 0)
    s = va_arg(ap, const char *);
  va_end(ap);
  return s;
}

int forward(const char *fmt, int a, double b) {
  char c = 'x';
  short s = -3;
  unsigned char uc = 200;
  float f = 1.25f;
  long long ll = -1234567890123LL;
  unsigned long long ull = 18000000000000000000ULL;
  void *p = &c;
  printf("%c %hd %hhu %f %lld %llu %p\n", c, s, uc, f, ll, ull, p);
  printf("%%literal %5.2f|%-8s|%08x|%+d|%e|%G\n", b, fmt, a, a, b, b);
  printf("no arguments at all\n");
  return printf(fmt, a, b, sum_ints(3, 1, 2, 3), mean(2, 1.0, 3.0), pick(1, "a", "b"));
}
