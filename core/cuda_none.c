/* core/cuda.h for a build without CUDA: no device is ever available, so the
 * host runs its CPU backends and reports every CUDA one as skipped. */
#include "cuda.h"

#include <stdio.h>

#include "khost/plugin.h"

#define WHY "built without CUDA support"

static int unsupported(khost__err *err)
{
  return khost__errorf(err, KHOST__E_CUDA, WHY);
}

int khost__cuda_device_count(char *why, size_t n)
{
  snprintf(why, n, WHY);
  return 0;
}

int khost__cuda_available(int ordinal, char *why, size_t n)
{
  snprintf(why, n, WHY);
  return 0;
}

int khost__cuda_init(int ordinal, khost__device_info *info, khost__err *err)
{
  return unsupported(err);
}

void khost__cuda_shutdown(void)
{
}

void *khost__cuda_stream(void)
{
  return NULL;
}

int khost__cuda_malloc(void **ptr, size_t bytes, khost__err *err)
{
  *ptr = NULL;
  return unsupported(err);
}

void khost__cuda_free(void *ptr)
{
}

int khost__cuda_memory_free(size_t *bytes, khost__err *err)
{
  *bytes = 0;
  return unsupported(err);
}

int khost__cuda_upload(void *dst, const void *src, size_t bytes, khost__err *err)
{
  return unsupported(err);
}

int khost__cuda_download(void *dst, const void *src, size_t bytes, khost__err *err)
{
  return unsupported(err);
}

int khost__cuda_set_blocking(int on)
{
  return on;
}

int khost__cuda_copy(void *dst, const void *src, size_t bytes, khost__err *err)
{
  return unsupported(err);
}

int khost__cuda_memset(void *dst, int value, size_t bytes, khost__err *err)
{
  return unsupported(err);
}

int khost__cuda_sync(khost__err *err)
{
  return unsupported(err);
}

int khost__cuda_sync_device(khost__err *err)
{
  return unsupported(err);
}

int khost__cuda_measure_copy(double *gbps, khost__err *err)
{
  *gbps = 0;
  return unsupported(err);
}

int khost__cuda_measure_empty_call(int cold, double *seconds, khost__err *err)
{
  (void)cold;
  *seconds = 0;
  return unsupported(err);
}

int khost__cuda_time(khost__cuda_call_fn call, void *arg, int first, int calls, int cold, double *seconds,
                     double *sm_mhz, int *kernel_status, khost__err *err)
{
  *seconds = 0;
  *sm_mhz = 0;
  *kernel_status = KHOST_STATUS_OK;
  return unsupported(err);
}

int khost__cuda_graph_capture(khost__cuda_call_fn call, void *arg, int calls, khost__cuda_graph **graph,
                              size_t *nodes, int *kernel_status, khost__err *err)
{
  *graph = NULL;
  *nodes = 0;
  *kernel_status = KHOST_STATUS_OK;
  return unsupported(err);
}

int khost__cuda_graph_run(khost__cuda_graph *graph, khost__err *err)
{
  return unsupported(err);
}

int khost__cuda_graph_time(khost__cuda_graph *graph, int cold, double *seconds, double *sm_mhz,
                           khost__err *err)
{
  *seconds = 0;
  *sm_mhz = 0;
  return unsupported(err);
}

/* No graph can exist here; accepting NULL keeps callers' cleanup paths uniform. */
void khost__cuda_graph_free(khost__cuda_graph *graph)
{
}
