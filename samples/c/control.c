#include "common.h"

int classify(int x) {
  switch (x) {
  case 0: return 10;
  case 1: return 11;
  case 2: return 12;
  case 3: return 13;
  case 7: return 17;
  case 100: return 1;
  case -5: return -1;
  default: return x * 2;
  }
}

int sparse(unsigned x) {
  switch (x) {
  case 1: case 1000: return 1;
  case 70000: return 2;
  case 0x7fffffff: return 3;
  }
  return 0;
}

int loops(int n) {
  int total = 0;
  for (int i = 0; i < n; i++) {
    if (i % 3 == 0) continue;
    for (int j = i; j > 0; j /= 2) {
      if (j == 5) break;
      total += j;
    }
  }
  int k = n;
  while (k > 0) { total ^= k; k -= 3; }
  do { total += 1; } while (total < 10);
  return total;
}

int with_goto(int n) {
  int steps = 0;
again:
  steps++;
  if (n > 1) { n = (n % 2) ? 3 * n + 1 : n / 2; goto again; }
  return steps;
}

int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

int select_max(int a, int b, int c) {
  int m = a > b ? a : b;
  return m > c ? m : c;
}

void report(int n) {
  for (int i = 0; i < n; i++) {
    if (classify(i) > 12)
      printf("big %d -> %d\n", i, classify(i));
    else if (sparse(i))
      printf("sparse %u\n", i);
  }
  printf("loops %d goto %d fib %d max %d\n", loops(n), with_goto(n), fib(10), select_max(n, 4, 9));
}
