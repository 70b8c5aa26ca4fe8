#include "cuda_kernels.h"

#include <cuda_fp16.h>

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
 * them. Only SM 0 writes, so both stamps of a pair count the same SM's cycles. */
static __global__ void khost_clock_stamp(unsigned long long *out)
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
  return cudaLaunchKernel(khost_clock_stamp, dim3(sm_count > 0 ? sm_count : 1), dim3(1), args, 0, stream);
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

extern "C" cudaError_t khost__kernels_loadable(void)
{
  cudaFuncAttributes attr;
  return cudaFuncGetAttributes(&attr, blocker);
}

/* A grid that covers n units with a few passes of a grid-stride loop. */
static dim3 grid_for(uint64_t n)
{
  uint64_t blocks = (n + 255) / 256;
  return dim3((unsigned)(blocks < 4096 ? (blocks ? blocks : 1) : 4096));
}

static __device__ uint32_t load_unit(const unsigned char *p, int bytes)
{
  if (bytes == 4) return *(const uint32_t *)p;
  if (bytes == 2) return *(const uint16_t *)p;
  return *p;
}

static __device__ void store_unit(unsigned char *p, int bytes, uint32_t v)
{
  if (bytes == 4)
    *(uint32_t *)p = v;
  else if (bytes == 2)
    *(uint16_t *)p = (uint16_t)v;
  else
    *p = (unsigned char)v;
}

static __global__ void vary(khost__vary_map m, khost__vary_call c, const unsigned char *src,
                            unsigned char *dst, uint64_t n)
{
  for (uint64_t e = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; e < n;
       e += (uint64_t)gridDim.x * blockDim.x) {
    int flip;
    uint64_t from = khost__vary_source(&m, &c, e, &flip);
    store_unit(dst + e * m.unit_bytes, m.unit_bytes,
               load_unit(src + from * m.unit_bytes, m.unit_bytes) ^ (flip ? m.sign_mask : 0u));
  }
}

static uint64_t units(const khost__vary_map *m)
{
  uint64_t n = 1;
  for (int d = 0; d < m->ndim; d++) n *= (uint64_t)m->shape[d];
  return n;
}

extern "C" cudaError_t khost__launch_vary(cudaStream_t stream, khost__vary_map m, khost__vary_call c,
                                          const void *src, void *dst)
{
  uint64_t n = units(&m);
  void *args[] = {&m, &c, &src, &dst, &n};
  return cudaLaunchKernel(vary, grid_for(n), dim3(256), args, 0, stream);
}

/* The exact value of an output element's bits, as core/dtype.c decodes them. */
static __device__ double element_value(int dtype, uint32_t bits)
{
  if (dtype == KHOST__VARY_CHECK_FP32) return (double)__uint_as_float(bits);
  if (dtype == KHOST__VARY_CHECK_BF16) return (double)__uint_as_float(bits << 16);
  return (double)__half2float(__ushort_as_half((unsigned short)bits));
}

/* core/check.c's mismatch(), element by element. */
static __device__ int element_wrong(double got, double ref, double atol, double rtol)
{
  if (isnan(ref) || isnan(got)) return isnan(ref) != isnan(got);
  if (isinf(ref) || isinf(got)) return got != ref;
  return fabs(got - ref) > atol + rtol * fabs(ref);
}

static __global__ void vary_check(khost__vary_map m, khost__vary_call c, int dtype, double atol, double rtol,
                                  const unsigned char *ref, const unsigned char *got, uint64_t n,
                                  unsigned long long *counts)
{
  unsigned long long wrong = 0, unwritten = 0;
  uint32_t poison = m.unit_bytes == 4 ? 0xffffffffu : m.unit_bytes == 2 ? 0xffffu : 0xffu;
  int exact = atol == 0 && rtol == 0;
  for (uint64_t e = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; e < n;
       e += (uint64_t)gridDim.x * blockDim.x) {
    int flip;
    uint64_t from = khost__vary_source(&m, &c, e, &flip);
    uint32_t g = load_unit(got + e * m.unit_bytes, m.unit_bytes);
    uint32_t r = load_unit(ref + from * m.unit_bytes, m.unit_bytes) ^ (flip ? m.sign_mask : 0u);
    int blank = g == poison;
    unwritten += (unsigned long long)blank;
    wrong += (unsigned long long)(blank || (exact ? g != r
                                                  : element_wrong(element_value(dtype, g),
                                                                  element_value(dtype, r), atol, rtol)));
  }
  if (wrong) atomicAdd(&counts[0], wrong);
  if (unwritten) atomicAdd(&counts[1], unwritten);
}

extern "C" cudaError_t khost__launch_vary_check(cudaStream_t stream, khost__vary_map m, khost__vary_call c,
                                                int dtype, double atol, double rtol, const void *ref,
                                                const void *got, unsigned long long *counts)
{
  uint64_t n = units(&m);
  void *args[] = {&m, &c, &dtype, &atol, &rtol, &ref, &got, &n, &counts};
  return cudaLaunchKernel(vary_check, grid_for(n), dim3(256), args, 0, stream);
}
