/* Misbehaving CUDA plugins, one per GPU-specific fault, picked by
 * -DFAULT_<KIND> (tests/meson.build builds fault_cuda_<kind>.so from this
 * file). Each is a correct copy_transpose on the device with exactly one defect;
 * host_wait's wait for its stream inside run() is a defect only without the
 * KHOST_KERNEL_NOT_CAPTURABLE flag it carries, so it must pass. */
#include <cuda_runtime.h>
#include <stdio.h>

#include "khost/plugin.h"

#ifndef FAULT_NAME
#define FAULT_NAME "fault_cuda_free"
#endif

/* Element bits are copied as integers of the element's size. */
template <typename T>
__global__ void transpose(const T *in, T *out, long long m, long long n, long long extra)
{
  long long i = blockIdx.y * (long long)blockDim.y + threadIdx.y;
  long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < m && j < n) out[j * m + i] = in[i * n + j];
  /* extra > 0: one thread writes that many elements past the end of out. */
  if (extra && i == 0 && j == 0) out[m * n + extra - 1] = in[0];
}

/* Holds a stream for about `cycles` SM cycles, so the work queued after it is late. */
__global__ void spin(long long cycles)
{
  long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

static int fail(const khost_input *in, cudaError_t e, int line)
{
  snprintf(in->error, in->error_size, "%s:%d: %s: %s", __FILE__, line, cudaGetErrorName(e),
           cudaGetErrorString(e));
  return KHOST_STATUS_DEVICE_ERROR;
}

template <typename T> static void launch(const khost_input *in, cudaStream_t stream, T *out, long long extra)
{
  const khost_tensor *src = khost_tensor_at(in->inputs, 0);
  long long m = src->shape[0], n = src->shape[1];
  dim3 block(32, 8), grid((unsigned)((n + 31) / 32), (unsigned)((m + 7) / 8));
  transpose<T><<<grid, block, 0, stream>>>((const T *)src->data, out, m, n, extra);
}

static int run(const khost_input *in)
{
  const khost_tensor *dst = khost_tensor_at(in->outputs, 0);
  cudaStream_t stream = (cudaStream_t)in->stream;
  void *out = dst->data;
  long long extra = 0;
#if defined(FAULT_CAPTURED_ONCE)
  /* Refuses a second call under graph capture: the host's stream check captures one
   * call, so a row that fails this way proves --graph captured the timed calls. */
  static int captured;
  cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
  cudaError_t asked = cudaStreamIsCapturing(stream, &capturing);
  if (asked != cudaSuccess) return fail(in, asked, __LINE__);
  if (capturing == cudaStreamCaptureStatusActive && ++captured > 1) {
    snprintf(in->error, in->error_size, "captured %d times: a second capture is refused on purpose",
             captured);
    return KHOST_STATUS_INTERNAL;
  }
#elif defined(FAULT_NO_WRITE)
  return KHOST_STATUS_OK;
#elif defined(FAULT_OTHER_STREAM)
  /* Its own stream: the work escapes the host's events and graph capture. */
  static cudaStream_t own;
  if (!own && cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking) != cudaSuccess)
    return fail(in, cudaGetLastError(), __LINE__);
  stream = own;
#elif defined(FAULT_LATE_OTHER_STREAM)
  /* Flagged not capturable (below), so the stream check runs its second call
   * uncaptured. The first call (pass 1) is right; later ones copy on a stream of
   * their own behind a spin of about 100 ms, still running when the given stream
   * is done: the uncaptured stream check must see the poison. */
  static int calls;
  static cudaStream_t own;
  if (++calls > 1) {
    if (!own && cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking) != cudaSuccess)
      return fail(in, cudaGetLastError(), __LINE__);
    spin<<<1, 1, 0, own>>>(200LL * 1000 * 1000);
    stream = own;
  }
#elif defined(FAULT_ILLEGAL_ADDRESS)
  out = (void *)(uintptr_t)64; /* unmapped: the context is lost */
#elif defined(FAULT_WRITE_PAST_END)
  extra = 3;
#endif
  if (dst->dtype.bits == 32)
    launch(in, stream, (unsigned *)out, extra);
  else
    launch(in, stream, (unsigned short *)out, extra);
  cudaError_t e = cudaGetLastError();
#if defined(FAULT_HOST_WAIT)
  /* Not a defect under its flag: it waits for its stream inside the call, as a
   * kernel that reads values back must, which no CUDA graph can hold. */
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
#endif
  return e == cudaSuccess ? KHOST_STATUS_OK : fail(in, e, __LINE__);
}

#ifdef FAULT_SUPPORTS_FAULTS
/* Says yes, after queueing a kernel that writes to an unmapped address: the fault
 * lands outside any call, and is this plugin's, not the next backend's. */
static int supports(const khost_input *in)
{
  launch(in, (cudaStream_t)in->stream, (unsigned short *)(uintptr_t)64, 0);
  return KHOST_STATUS_OK;
}
#else
#define supports NULL
#endif

#if defined(FAULT_HOST_WAIT) || defined(FAULT_LATE_OTHER_STREAM)
#define FLAGS KHOST_KERNEL_NOT_CAPTURABLE
#else
#define FLAGS 0
#endif

static const khost_kernel kernel = {
    sizeof(khost_kernel), "copy_transpose", KHOST_DEVICE_CUDA, run, supports, NULL, NULL, NULL, FLAGS};
static const khost_kernel *const kernels[] = {&kernel};
static const khost_plugin descriptor = {KHOST_PLUGIN_MAGIC,
                                        KHOST_ABI_MAJOR,
                                        KHOST_ABI_MINOR,
                                        sizeof(khost_plugin),
                                        FAULT_NAME,
                                        "1.0",
                                        "cuda",
                                        "a CUDA plugin with exactly one defect",
                                        1,
                                        kernels,
                                        NULL,
                                        NULL};

KHOST_PLUGIN_DEFINE(descriptor)
