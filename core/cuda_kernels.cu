#include "cuda_kernels.h"

/* %globaltimer counts nanoseconds of wall time, unlike clock64, whose rate
 * follows the SM clock and so would make the timeout depend on throttling. */
static __device__ unsigned long long global_ns()
{
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/* Holds the stream so that the host can queue the timed work behind it without
 * the launch gaps being timed. The timeout keeps a host that never releases it
 * (a full launch queue blocks the host's next launch) from deadlocking. */
static __global__ void blocker(const volatile int *release, volatile int *timed_out,
                               unsigned long long timeout_ns)
{
  unsigned long long start = global_ns();
  while (!*release) {
    if (global_ns() - start > timeout_ns) {
      *timed_out = 1;
      return;
    }
  }
}

extern "C" cudaError_t khost__launch_blocker(cudaStream_t stream, const volatile int *release,
                                             volatile int *timed_out, unsigned long long timeout_ns)
{
  /* cudaLaunchKernel returns this launch's own error; cudaGetLastError would
   * also take (and clear) an error some earlier call left behind. */
  void *args[] = {&release, &timed_out, &timeout_ns};
  return cudaLaunchKernel(blocker, dim3(1), dim3(1), args, 0, stream);
}

/* One block an SM so that one of them lands on SM 0, whose cycle counter then
 * pairs with the nanosecond timer: two such stamps give the SM clock between
 * them. Only SM 0 writes, so both stamps of a pair count the same SM's cycles.
 * Unmangled: --timer cupti finds the stamps' records by this name
 * (KHOST__CUPTI_STAMP_KERNEL). */
extern "C" __global__ void khost__clock_stamp_kernel(unsigned long long *out)
{
  unsigned smid;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  if (smid != 0 || threadIdx.x != 0) return;
  out[0] = global_ns();
  out[1] = clock64();
}

extern "C" cudaError_t khost__launch_clock_stamp(cudaStream_t stream, int sm_count, unsigned long long *out)
{
  void *args[] = {&out};
  return cudaLaunchKernel(khost__clock_stamp_kernel, dim3(sm_count > 0 ? sm_count : 1), dim3(1), args, 0,
                          stream);
}

static __global__ void empty()
{
}

extern "C" cudaError_t khost__launch_empty(cudaStream_t stream)
{
  return cudaLaunchKernel(empty, dim3(1), dim3(32), nullptr, 0, stream);
}

/* Reads every 16-byte word of buf. Nothing depends on the words, but the store
 * the compiler cannot rule out keeps the loads from being removed. */
static __global__ void scrub(const uint4 *buf, size_t words, unsigned *sink)
{
  unsigned acc = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words;
       i += (size_t)gridDim.x * blockDim.x) {
    uint4 w = buf[i];
    acc ^= w.x ^ w.y ^ w.z ^ w.w;
  }
  if (acc == 0x9e3779b9u && threadIdx.x == 0xffffu) *sink = acc;
}

extern "C" cudaError_t khost__launch_scrub(cudaStream_t stream, const void *buf, size_t bytes, unsigned *sink)
{
  size_t words = bytes / sizeof(uint4);
  void *args[] = {&buf, &words, &sink};
  return cudaLaunchKernel(scrub, dim3(1024), dim3(512), args, 0, stream);
}

/* The speed of light of a case: words_read 16-byte words read from src and
 * words_written written to dst in one pass, as the least a kernel moving the
 * case's bytes must do. Each thread takes UNROLL words a step, their loads
 * issued before any is used, so that enough bytes are in flight to reach the
 * memory's bandwidth. A written word is its read word where there is one;
 * the reads beyond the writes feed a store the compiler cannot rule out. */
#define STREAM_UNROLL 4

static __global__ void stream(const uint4 *src, size_t words_read, uint4 *dst, size_t words_written,
                              unsigned *sink)
{
  size_t words = words_read > words_written ? words_read : words_written;
  size_t stride = (size_t)gridDim.x * blockDim.x;
  unsigned acc = 0;
  for (size_t base = blockIdx.x * (size_t)blockDim.x + threadIdx.x; base < words;
       base += stride * STREAM_UNROLL) {
    uint4 w[STREAM_UNROLL];
#pragma unroll
    for (int u = 0; u < STREAM_UNROLL; u++) {
      size_t i = base + u * stride;
      w[u] = i < words_read ? src[i] : make_uint4((unsigned)i, 0, 0, 0);
    }
#pragma unroll
    for (int u = 0; u < STREAM_UNROLL; u++) {
      size_t i = base + u * stride;
      if (i < words_written) dst[i] = w[u];
      acc ^= w[u].x ^ w[u].y ^ w[u].z ^ w[u].w;
    }
  }
  if (acc == 0x9e3779b9u && threadIdx.x == 0xffffu) *sink = acc;
}

extern "C" cudaError_t khost__launch_stream(cudaStream_t stream_, const void *src, size_t read_bytes,
                                            void *dst, size_t written_bytes, int sm_count, unsigned *sink)
{
  size_t words_read = read_bytes / sizeof(uint4), words_written = written_bytes / sizeof(uint4);
  size_t words = words_read > words_written ? words_read : words_written;
  const unsigned threads = 256;
  /* Enough blocks to fill every SM several times over, no more than the words need. */
  size_t wanted = (words + threads * STREAM_UNROLL - 1) / (threads * STREAM_UNROLL);
  size_t most = (size_t)(sm_count > 0 ? sm_count : 1) * 8;
  dim3 grid((unsigned)(wanted < 1 ? 1 : wanted < most ? wanted : most));
  void *args[] = {&src, &words_read, &dst, &words_written, &sink};
  return cudaLaunchKernel(stream, grid, dim3(threads), args, 0, stream_);
}

extern "C" cudaError_t khost__kernels_loadable(void)
{
  cudaFuncAttributes attr;
  return cudaFuncGetAttributes(&attr, blocker);
}
