// An OpenCL kernel whose printf calls (calls.h) LLVM lowers to the HSA printf buffer:
//   clang-19 -x cl -cl-std=CL2.0 -nogpulib --target=amdgcn-amd-amdhsa -mcpu=gfx1100 -c kernel.cl
#include "calls.h"

__kernel void print_all(__global int *unused) { PRINTF_CALLS }
