/* The CUDA driver API, loaded with dlopen at first use: the plugin must load, list
 * and decline work on a machine without a driver (CI), where linking libcuda
 * would make dlopen of the plugin itself fail. cuda.h is needed at build time only. */
#ifndef KHOST_TRITON_DRIVER_H
#define KHOST_TRITON_DRIVER_H

#include <cuda.h>
#include <stddef.h>

/* The driver entry points the plugin uses, resolved through cuGetProcAddress. */
typedef struct khost__cu {
  CUresult (*Init)(unsigned int flags);
  CUresult (*CtxGetCurrent)(CUcontext *ctx);
  CUresult (*CtxGetDevice)(CUdevice *device);
  CUresult (*DeviceGetAttribute)(int *value, CUdevice_attribute attribute, CUdevice device);
  CUresult (*ModuleLoadData)(CUmodule *module, const void *image);
  CUresult (*ModuleUnload)(CUmodule module);
  CUresult (*ModuleGetFunction)(CUfunction *fn, CUmodule module, const char *name);
  CUresult (*FuncSetAttribute)(CUfunction fn, CUfunction_attribute attribute, int value);
  CUresult (*LaunchKernelEx)(const CUlaunchConfig *config, CUfunction fn, void **params, void **extra);
  CUresult (*GetErrorName)(CUresult rc, const char **name);
  CUresult (*GetErrorString)(CUresult rc, const char **text);
} khost__cu;

/* Loads libcuda.so.1 on the first call of the process (and after khost__cu_close)
 * and stores its table in *cu: static, valid until khost__cu_close. On failure
 * returns KHOST_STATUS_DEVICE_ERROR with the reason in err, on every call. */
int khost__cu_open(const khost__cu **cu, char *err, size_t err_size);

/* Unloads the driver library when it was loaded; tables handed out become invalid. */
void khost__cu_close(void);

/* Writes "file:line: CUDA_ERROR_NAME: description" for rc into err and returns
 * KHOST_STATUS_DEVICE_ERROR. file is reduced to its last component. */
int khost__cu_fail(const khost__cu *cu, CUresult rc, const char *file, int line, char *err, size_t err_size);

#define KHOST__CU_FAIL(cu, rc, err, err_size)                                                                \
  khost__cu_fail((cu), (rc), __FILE__, __LINE__, (err), (err_size))

#endif
