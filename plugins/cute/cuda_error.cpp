/* CUDA errors as statuses: a failed launch or runtime call becomes
 * KHOST_STATUS_DEVICE_ERROR with the file and line of the call. */
#include "cute.h"

#include <string.h>

int khost__cute_cuda_fail(const khost_input *in, const char *file, int line, cudaError_t error)
{
  const char *slash = strrchr(file, '/');
  return khost__input_fail(in, KHOST_STATUS_DEVICE_ERROR, "%s:%d: %s: %s", slash ? slash + 1 : file, line,
                           cudaGetErrorName(error), cudaGetErrorString(error));
}
