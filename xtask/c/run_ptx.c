/* Runs kernel `k` of a PTX (or cubin) file on GPU 0, one block of one thread, and waits for
 * it, so that its printf output reaches stdout. The CUDA driver is opened at run time (no
 * toolkit needed where it runs). `cargo xtask device-check` builds it; see there. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef void *CUmodule;
typedef void *CUfunction;

#define CALL(name, args)                                                           \
  do {                                                                             \
    CUresult result = name args;                                                   \
    if (result != 0) {                                                             \
      fprintf(stderr, "run_ptx: %s: %s failed with CUDA error %d\n", argv[1],      \
              #name, result);                                                      \
      return 2;                                                                    \
    }                                                                              \
  } while (0)

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: run_ptx FILE.ptx\n");
    return 2;
  }
  void *cuda = dlopen("libcuda.so.1", RTLD_NOW);
  if (!cuda) {
    fprintf(stderr, "run_ptx: cannot open the CUDA driver: %s\n", dlerror());
    return 2;
  }
  CUresult (*cuInit)(unsigned) = dlsym(cuda, "cuInit");
  CUresult (*cuDriverGetVersion)(int *) = dlsym(cuda, "cuDriverGetVersion");
  CUresult (*cuDeviceGet)(CUdevice *, int) = dlsym(cuda, "cuDeviceGet");
  CUresult (*cuCtxCreate)(CUcontext *, unsigned, CUdevice) = dlsym(cuda, "cuCtxCreate_v2");
  CUresult (*cuModuleLoadData)(CUmodule *, const void *) = dlsym(cuda, "cuModuleLoadData");
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *) =
      dlsym(cuda, "cuModuleGetFunction");
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, void *, void **, void **) =
      dlsym(cuda, "cuLaunchKernel");
  CUresult (*cuCtxSynchronize)(void) = dlsym(cuda, "cuCtxSynchronize");
  if (!cuInit || !cuDriverGetVersion || !cuDeviceGet || !cuCtxCreate || !cuModuleLoadData ||
      !cuModuleGetFunction || !cuLaunchKernel || !cuCtxSynchronize) {
    fprintf(stderr, "run_ptx: the CUDA driver lacks a function this program calls\n");
    return 2;
  }

  FILE *file = fopen(argv[1], "rb");
  if (!file) {
    perror(argv[1]);
    return 2;
  }
  fseek(file, 0, SEEK_END);
  long size = ftell(file);
  fseek(file, 0, SEEK_SET);
  char *image = malloc(size + 1);
  if (!image || fread(image, 1, size, file) != (size_t)size) {
    fprintf(stderr, "run_ptx: cannot read %s\n", argv[1]);
    return 2;
  }
  image[size] = 0;
  fclose(file);

  int version = 0;
  CUdevice device;
  CUcontext context;
  CUmodule module;
  CUfunction kernel;
  CALL(cuInit, (0));
  CALL(cuDriverGetVersion, (&version));
  fprintf(stderr, "run_ptx: CUDA driver API %d.%d\n", version / 1000, version % 1000 / 10);
  CALL(cuDeviceGet, (&device, 0));
  CALL(cuCtxCreate, (&context, 0, device));
  CALL(cuModuleLoadData, (&module, image));
  CALL(cuModuleGetFunction, (&kernel, module, "k"));
  CALL(cuLaunchKernel, (kernel, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
  CALL(cuCtxSynchronize, ());
  fflush(stdout);
  return 0;
}
