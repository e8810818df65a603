#include "common.h"

unsigned popcount_all(uint64_t x) { return __builtin_popcountll(x) + __builtin_clzll(x | 1) + __builtin_ctz((unsigned)x | 0x100); }

int64_t mul_high(int64_t a, int64_t b) { return (int64_t)(((__int128)a * b) >> 64); }

uint32_t rotate(uint32_t x, int r) { return (x << (r & 31)) | (x >> ((32 - r) & 31)); }

double mixed_math(float f, double d, int i, unsigned u, long long ll) {
  double r = f * d - i / 3 + u % 7 + (double)ll;
  if (__builtin_expect(r > 1e10, 0)) r = -r;
  return r / (f + 1.0f) + (float)d;
}

long double extended(long double a, double b) { return a * b + 1.0L; }

int saturating_add(int a, int b) {
  int r;
  if (__builtin_add_overflow(a, b, &r)) return a > 0 ? 0x7fffffff : (int)0x80000000;
  return r;
}

_Bool in_range(int x, int lo, int hi) { return x >= lo && x <= hi; }

short narrow(long long x) { return (short)(x >> 3); }

unsigned char to_byte(double d) { return (unsigned char)d; }

void numbers(void) {
  printf("%u %lld %x %f\n", popcount_all(0xf0f0ULL), (long long)mul_high(1LL << 40, 1LL << 30), rotate(0x80000001u, 1), mixed_math(1.5f, 2.5, -7, 9u, 1LL << 40));
  printf("%f %d %d %hd %hhu\n", (double)extended(2.0L, 3.0), saturating_add(0x7ffffff0, 100), in_range(3, 1, 5), narrow(123456789LL), to_byte(200.7));
}
