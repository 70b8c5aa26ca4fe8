/* The cheats of tests/plugins/cache.c on the device (issue 39): a correct CUDA
 * copy_transpose of 16-bit elements that copies out an output it kept instead of
 * working, picked by -DCACHE_<KIND> (tests/meson.build builds
 * cache_cuda_<kind>.so from this file):
 *   SAMPLE     16 input bytes sampled on the device, one entry: the issue's cheat,
 *              decided inside the kernel, so nothing waits for the host
 *   ADDRESS    the input's address
 *   WORKSPACE  the kept output lives in the workspace, marked as filled
 *   COUNT      the call count: it works on every 8th call only
 * Its memory is allocated on the first call (the unrecorded check). */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>

#include "fixture_plugin.h"

#ifndef CACHE_NAME
#define CACHE_NAME "cache_cuda_sample"
#endif
#define KEY_BYTES 16

/* One launch: when *serve (a device flag, or a key match) says so, the kept
 * output is copied out; else the transpose is computed into out and kept. */
__global__ void transpose_or_serve(const uint16_t *in, uint16_t *out, uint16_t *kept, long long m,
                                   long long n, const unsigned char *key, const unsigned long long *mark)
{
  int serve = 0;
  if (key) {
    serve = 1;
    size_t bytes = (size_t)m * n * 2;
    for (int i = 0; i < KEY_BYTES; i++) serve &= key[i] == ((const unsigned char *)in)[i * bytes / KEY_BYTES];
  }
  if (mark) serve = *mark == 0x6b686f7374636163ull;
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < m * n;
       e += (long long)gridDim.x * blockDim.x) {
    long long j = e / m, i = e % m;
    uint16_t v = serve ? kept[e] : in[i * n + j];
    out[e] = v;
    if (!serve) kept[e] = v;
  }
}

/* After the call: the sample of these inputs becomes the key (one thread). */
__global__ void take_key(const unsigned char *in, size_t bytes, unsigned char *key, unsigned long long *mark)
{
  if (key)
    for (int i = 0; i < KEY_BYTES; i++) key[i] = in[i * bytes / KEY_BYTES];
  if (mark) *mark = 0x6b686f7374636163ull;
}

static int fail(const khost_input *in, cudaError_t e, int line)
{
  snprintf(in->error, in->error_size, "%s:%d: %s: %s", __FILE__, line, cudaGetErrorName(e),
           cudaGetErrorString(e));
  return KHOST_STATUS_DEVICE_ERROR;
}

static uint16_t *kept;
static unsigned char *key;

#ifdef CACHE_WORKSPACE
static int workspace_size(const khost_input *in, size_t *bytes)
{
  *bytes = sizeof(unsigned long long) + khost_tensor_at(in->outputs, 0)->nbytes;
  return KHOST_STATUS_OK;
}
#else
#define workspace_size NULL
#endif

static int run(const khost_input *in)
{
  const khost_tensor *src = khost_tensor_at(in->inputs, 0), *dst = khost_tensor_at(in->outputs, 0);
  cudaStream_t stream = (cudaStream_t)in->stream;
  long long m = src->shape[0], n = src->shape[1];
  unsigned long long *mark = NULL;
  const unsigned char *use_key = NULL;
  uint16_t *store = kept;
  cudaError_t e = cudaSuccess;
#if defined(CACHE_WORKSPACE)
  mark = (unsigned long long *)in->workspace;
  store = (uint16_t *)((char *)in->workspace + sizeof *mark);
#else
  if (!kept && (e = cudaMalloc((void **)&kept, dst->nbytes)) != cudaSuccess) return fail(in, e, __LINE__);
  store = kept;
#endif
#if defined(CACHE_SAMPLE)
  if (!key && (e = cudaMalloc((void **)&key, KEY_BYTES)) != cudaSuccess) return fail(in, e, __LINE__);
  /* A key of 0xff bytes matches no first input (no fp16 sample is all NaN). */
  static int keyed;
  if (!keyed++ && (e = cudaMemset(key, 0xff, KEY_BYTES)) != cudaSuccess) return fail(in, e, __LINE__);
  use_key = key;
#elif defined(CACHE_ADDRESS) || defined(CACHE_COUNT)
#if defined(CACHE_ADDRESS)
  static const void *last;
  int serve = last == src->data;
  last = src->data;
#else
  static unsigned long calls;
  int serve = calls++ % 8 != 0;
#endif
  if (serve) {
    e = cudaMemcpyAsync(dst->data, kept, dst->nbytes, cudaMemcpyDeviceToDevice, stream);
    return e == cudaSuccess ? KHOST_STATUS_OK : fail(in, e, __LINE__);
  }
#endif
  transpose_or_serve<<<256, 256, 0, stream>>>((const uint16_t *)src->data, (uint16_t *)dst->data, store, m, n,
                                              use_key, mark);
  take_key<<<1, 1, 0, stream>>>((const unsigned char *)src->data, src->nbytes, key, mark);
  e = cudaGetLastError();
  return e == cudaSuccess ? KHOST_STATUS_OK : fail(in, e, __LINE__);
}

/* 16-bit elements only: the fixture's cases are fp16. */
static int supports(const khost_input *in)
{
  return khost_tensor_at(in->inputs, 0)->dtype.bits == 16 ? KHOST_STATUS_OK : KHOST_STATUS_UNSUPPORTED;
}

static const khost_kernel kernel = {sizeof(khost_kernel), "copy_transpose", KHOST_DEVICE_CUDA, run, supports,
                                    workspace_size};
static const khost_kernel *const kernels[] = {&kernel};
KHOST_FIXTURE_PLUGIN(CACHE_NAME, "cuda", "a CUDA transpose that copies out a result it kept", kernels, NULL)
