/* CUDA runtime errors as the plugin reports them: a status and one line naming
 * the place, the call and the runtime's error. */
#include "vendor.h"

#include <string.h>

int khost__vendor_cuda_status(const khost_input *in, cudaError_t error, const char *expr, const char *file,
                              int line)
{
  if (error == cudaSuccess) return KHOST_STATUS_OK;
  const char *slash = strrchr(file, '/');
  return khost__input_fail(in, KHOST_STATUS_DEVICE_ERROR, "%s:%d: %s: %s: %s", slash ? slash + 1 : file, line,
                           expr, cudaGetErrorName(error), cudaGetErrorString(error));
}
