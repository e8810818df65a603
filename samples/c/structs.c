#include "common.h"

struct point { int x, y; };
struct rect { struct point lo, hi; char tag; };
struct mixed { char c; double d; int a[3]; short s; };
struct __attribute__((packed)) wire { uint8_t kind; uint32_t len; uint16_t crc; };
struct nested { struct mixed m[2]; struct wire w; long long big; };
union value { int i; float f; double d; char bytes[8]; };
struct tagged { int type; union value v; };
struct bits { unsigned a : 3, b : 5, c : 12; int d : 4; };
struct empty_tail { int n; int data[]; };

static struct rect global_rect = { { 1, 2 }, { 30, 40 }, 'r' };
struct mixed table[4] = { { 'a', 1.5, { 1, 2, 3 }, 7 }, { 'b', -2.25, { 4 }, 8 } };

int area(struct rect r) { return (r.hi.x - r.lo.x) * (r.hi.y - r.lo.y); }

struct point midpoint(struct rect r) {
  struct point p = { (r.lo.x + r.hi.x) / 2, (r.lo.y + r.hi.y) / 2 };
  return p;
}

double sum_mixed(const struct mixed *m, int n) {
  double total = 0;
  for (int i = 0; i < n; i++)
    total += m[i].c + m[i].d + m[i].a[0] + m[i].a[2] + m[i].s;
  return total;
}

uint32_t wire_len(struct wire *w) { return w->len + w->crc; }

double tagged_value(struct tagged t) {
  switch (t.type) {
  case 0: return t.v.i;
  case 1: return t.v.f;
  case 2: return t.v.d;
  default: return t.v.bytes[3];
  }
}

int bits_sum(struct bits b) { return b.a + b.b + b.c + b.d; }

long long nested_size(struct nested *n) { return sizeof(*n) + n->big + n->m[1].a[2] + n->w.kind; }

int print_rect(void) {
  struct point mid = midpoint(global_rect);
  printf("rect %c: (%d,%d)-(%d,%d) area %d mid %d,%d\n", global_rect.tag, global_rect.lo.x,
         global_rect.lo.y, global_rect.hi.x, global_rect.hi.y, area(global_rect), mid.x, mid.y);
  struct tagged t = { 1, { .f = 2.5f } };
  return printf("%f %g %lld\n", tagged_value(t), sum_mixed(table, 2), nested_size(0));
}
