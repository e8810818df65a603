#include "common.h"

typedef int (*binop)(int, int);
typedef void (*sink)(const char *, int);

static int add(int a, int b) { return a + b; }
static int sub(int a, int b) { return a - b; }
static int mul(int a, int b) { return a * b; }

static binop ops[] = { add, sub, mul };
struct handler { const char *name; binop op; int weight; };
static const struct handler handlers[] = { { "add", add, 1 }, { "sub", sub, 2 }, { "mul", mul, 3 } };

int apply(binop f, int a, int b) { return f(a, b); }

int fold(const int *xs, int n, binop f, int init) {
  for (int i = 0; i < n; i++)
    init = f(init, xs[i]);
  return init;
}

static void print_sink(const char *label, int v) { printf("%s=%d\n", label, v); }

void run_all(sink out, int a, int b) {
  for (unsigned i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
    out(handlers[i].name, apply(ops[i], a, b) * handlers[i].weight);
}

int (*choose(int which))(int, int) { return which ? mul : add; }

int demo(void) {
  static const int xs[] = { 1, 2, 3, 4, 5 };
  run_all(print_sink, 7, 3);
  sink s = print_sink;
  s("fold", fold(xs, 5, choose(1), 1));
  return choose(0)(2, 3);
}
