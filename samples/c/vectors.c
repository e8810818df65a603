#include "common.h"

typedef float float4 __attribute__((ext_vector_type(4)));
typedef float float2 __attribute__((ext_vector_type(2)));
typedef int int4 __attribute__((ext_vector_type(4)));
typedef unsigned char uchar8 __attribute__((ext_vector_type(8)));
typedef double double3 __attribute__((ext_vector_type(3)));

float4 madd(float4 a, float4 b, float4 c) { return a * b + c; }

int4 compare(float4 a, float4 b) { return a < b; }

float dot(float4 a, float4 b) {
  float4 p = a * b;
  return p.x + p.y + p.z + p.w;
}

float4 swizzle(float4 v) { return v.wzyx + __builtin_shufflevector(v, v, 0, 0, 1, 1); }

int4 convert(float4 v) { return __builtin_convertvector(v, int4); }

uchar8 saturate(uchar8 a, uchar8 b) { return (a > b) ? a - b : b - a; }

double3 scale3(double3 v, double s) { return v * s; }

float2 halves(float4 v) { return v.hi + v.lo; }

void show(float4 v, int4 i) {
  printf("v = %f %f %f %f\n", v.x, v.y, v.z, v.w);
  printf("i = %d %d %d %d\n", i[0], i[1], i[2], i[3]);
  float4 m = madd(v, v, swizzle(v));
  double3 d = scale3((double3){1, 2, 3}, dot(m, v));
  printf("dot %f conv %d sat %u d %f half %f\n", dot(m, v), convert(m).y,
         saturate((uchar8)(1), (uchar8)(250)).s3, d.z, halves(v).x);
}
