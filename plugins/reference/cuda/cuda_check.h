/* CUDA runtime errors as the plugin reports them: a status and one line naming
 * the place, the call and the runtime's error, like the host's own CUDA checks. */
#ifndef KHOST_REFERENCE_CUDA_CHECK_H
#define KHOST_REFERENCE_CUDA_CHECK_H

#include <cuda_runtime_api.h>

#include "reference.h"

/* KHOST_STATUS_OK for cudaSuccess; otherwise KHOST_STATUS_DEVICE_ERROR with
 * "<op>: file:line: expr: cudaErrorName: message" in in->error. */
static inline int khost__reference_cuda_status(const khost_input *in, cudaError_t error, const char *expr,
                                               const char *file, int line)
{
  if (error == cudaSuccess) return KHOST_STATUS_OK;
  return khost__input_fail(in, KHOST_STATUS_DEVICE_ERROR, "%s:%d: %s: %s: %s", file, line, expr,
                           cudaGetErrorName(error), cudaGetErrorString(error));
}

/* The status of the runtime call expr (see above). */
#define KHOST__REFERENCE_CUDA_CHECK(in, expr)                                                                \
  khost__reference_cuda_status((in), (expr), #expr, __FILE__, __LINE__)

#endif
