// HIP device code whose printf calls (calls.h) clang lowers to the buffered printf:
//   clang-19 -x hip --offload-arch=gfx1100 --cuda-device-only -nogpuinc -nogpulib \
//     -mprintf-kind=buffered -O1 -emit-llvm -S work.hip
// Without the HIP headers (-nogpuinc), the attributes and printf are declared here.
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))

extern "C" __device__ int printf(const char *format, ...);

#include "calls.h"

extern "C" __device__ void work(int tid, int i) { PRINTF_CALLS(tid, i); }

extern "C" __global__ void print_all(int tid, int calls) {
  for (int i = 0; i < calls; i++)
    work(tid, i);
}
