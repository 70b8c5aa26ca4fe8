/* Internal declarations of the cute plugin: CuTe (CUTLASS 4.2) kernels for
 * Hopper sm_90a. Nothing here is exported: the module is linked with a version
 * script that leaves khost_plugin_entry the only dynamic symbol.
 *
 * An op's kernel, khost__cute_<op> (<op>.cu, defined extern: a C++ const would
 * have internal linkage), is declared by the generated kernel table alone.
 *
 * Every kernel follows one contract: it reads device tensors, enqueues on
 * in->stream only, never synchronises, allocates or prints, and turns each
 * failure into a status with a one-line message in in->error. */
#ifndef KHOST_CUTE_H
#define KHOST_CUTE_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "input_checks.h"
#include "khost/ops.h"
#include "row_inputs.h"

/* describe() runs an op's own dispatch with a name sink: where run() would launch a
 * kernel, the dispatch writes that kernel's name into buf and launches nothing.
 * run() passes NULL. buf is the host's, valid for the call. */
typedef struct khost__cute_name {
  char *buf;
  size_t size;
} khost__cute_name;

/* Writes the printf-formatted name into *name; returns KHOST_STATUS_OK. */
int khost__cute_named(khost__cute_name *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* An op's dispatch: launches its kernel for in, or with a name sink only names it. */
typedef int (*khost__cute_dispatch)(const khost_input *in, khost__cute_name *name);

/* khost_kernel.run and .describe over an op's dispatch. */
template <khost__cute_dispatch DISPATCH>
int khost__cute_run(const khost_input *in)
{
  return DISPATCH(in, nullptr);
}

template <khost__cute_dispatch DISPATCH>
int khost__cute_describe(const khost_input *in, char *buf, size_t size)
{
  khost__cute_name name = {buf, size};
  return DISPATCH(in, &name);
}

/* KHOST_STATUS_DEVICE_ERROR with "<op>: file:line: cudaErrorName: text" in in->error. */
int khost__cute_cuda_fail(const khost_input *in, const char *file, int line, cudaError_t error);

/* Returns from the calling function with KHOST_STATUS_DEVICE_ERROR when a CUDA
 * call (or cudaGetLastError after a launch) failed. */
#define KHOST__CUTE_CHECK(in, call)                                     \
  do {                                                                  \
    cudaError_t khost__cute_error = (call);                             \
    if (khost__cute_error != cudaSuccess)                               \
      return khost__cute_cuda_fail((in), __FILE__, __LINE__, khost__cute_error); \
  } while (0)

#endif
