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
 * words_written written to dst, as the least a kernel moving the case's bytes
 * must do. Two shapes of kernel (the host times several grids of each and keeps
 * the fastest, core/cuda.c): a copy, each written word its read word where
 * there is one, and a read-first pass, every read folded into a sum before
 * the writes, as a read-mostly kernel (a reduction, a GEMV) works. Each thread
 * takes UNROLL words a step through a grid-stride loop, their loads issued
 * before any is used, so that enough bytes are in flight to reach the
 * memory's bandwidth; the sums feed a store the compiler cannot rule out. */
#define STREAM_UNROLL 4
#define READ_UNROLL   8

static __global__ void stream_copy(const uint4 *src, size_t words_read, uint4 *dst, size_t words_written,
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

static __global__ void stream_read_first(const uint4 *src, size_t words_read, uint4 *dst,
                                         size_t words_written, unsigned *sink)
{
  size_t stride = (size_t)gridDim.x * blockDim.x, first = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  unsigned acc = 0;
  for (size_t base = first; base < words_read; base += stride * READ_UNROLL) {
    uint4 w[READ_UNROLL];
#pragma unroll
    for (int u = 0; u < READ_UNROLL; u++) {
      size_t i = base + u * stride;
      /* The read-only path: nothing here writes src. */
      w[u] = i < words_read ? __ldg(&src[i]) : make_uint4(0, 0, 0, 0);
    }
#pragma unroll
    for (int u = 0; u < READ_UNROLL; u++) acc ^= w[u].x ^ w[u].y ^ w[u].z ^ w[u].w;
  }
  for (size_t i = first; i < words_written; i += stride) dst[i] = make_uint4(acc, (unsigned)i, 0, 0);
  if (acc == 0x9e3779b9u && threadIdx.x == 0xffffu) *sink = acc;
}

extern "C" cudaError_t khost__launch_stream(cudaStream_t stream_, int read_first, const void *src,
                                            size_t read_bytes, void *dst, size_t written_bytes,
                                            unsigned blocks, unsigned threads, unsigned *sink)
{
  size_t words_read = read_bytes / sizeof(uint4), words_written = written_bytes / sizeof(uint4);
  size_t words = words_read > words_written ? words_read : words_written;
  size_t unroll = read_first ? READ_UNROLL : STREAM_UNROLL;
  /* No more blocks than the words need: a small case's grid is one wave. */
  size_t wanted = (words + threads * unroll - 1) / (threads * unroll);
  dim3 grid((unsigned)(wanted < 1 ? 1 : wanted < blocks ? wanted : blocks));
  void *args[] = {&src, &words_read, &dst, &words_written, &sink};
  return cudaLaunchKernel(read_first ? (const void *)stream_read_first : (const void *)stream_copy, grid,
                          dim3(threads), args, 0, stream_);
}

extern "C" cudaError_t khost__kernels_loadable(void)
{
  cudaFuncAttributes attr;
  return cudaFuncGetAttributes(&attr, blocker);
}

/* Blocks of 256 threads: x walks rows, y splits a row's units, enough blocks
 * (about 4096) that a tensor of few long rows still fills the device. */
static dim3 grid_for(const khost__vary_map *m)
{
  uint64_t rows = khost__vary_rows(m), per_row = (khost__vary_width(m) + 255) / 256;
  uint64_t x = rows < 4096 ? (rows ? rows : 1) : 4096, y_wanted = 4096 / x;
  uint64_t y = per_row < y_wanted ? per_row : y_wanted;
  return dim3((unsigned)x, (unsigned)(y ? y : 1));
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

/* A thread's units: rows blockIdx.x, + gridDim.x, ...; in each, units i0, i0 +
 * stride, ..., reached by the cursor (core/variation_map.h): no division per unit. */
typedef struct thread_walk {
  uint64_t i0, stride;
  khost__vary_cursor start;
  int inner_axis, inner_signed;
} thread_walk;

static __device__ thread_walk thread_walk_of(const khost__vary_map *m, const khost__vary_call *c)
{
  thread_walk t;
  t.i0 = blockIdx.y * (uint64_t)blockDim.x + threadIdx.x;
  t.stride = (uint64_t)gridDim.y * blockDim.x;
  t.start = khost__vary_cursor_at(m, c, t.i0, t.stride);
  t.inner_axis = khost__vary_inner_axis(m);
  t.inner_signed = khost__vary_signed(m, c, t.inner_axis);
  return t;
}

/* The source unit's bits with its sign applied, for unit at cursor k of row. */
static __device__ uint32_t source_unit(const khost__vary_map *m, const khost__vary_call *c,
                                       const thread_walk *t, khost__vary_row row, const khost__vary_cursor *k,
                                       const unsigned char *src)
{
  uint32_t inner = t->inner_signed ? khost__vary_coord_hash(c, t->inner_axis, k->j) : 0;
  return load_unit(src + (row.src + k->j) * m->unit_bytes, m->unit_bytes) ^
         khost__vary_flip(m, row.sign, inner);
}

static __global__ void vary(khost__vary_map m, khost__vary_call c, const unsigned char *src,
                            unsigned char *dst)
{
  thread_walk t = thread_walk_of(&m, &c);
  uint64_t rows = khost__vary_rows(&m), width = khost__vary_width(&m);
  for (uint64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    khost__vary_row row = khost__vary_row_of(&m, &c, r);
    khost__vary_cursor k = t.start;
    for (uint64_t i = t.i0; i < width; i += t.stride, khost__vary_next(&k))
      store_unit(dst + (r * width + i) * m.unit_bytes, m.unit_bytes, source_unit(&m, &c, &t, row, &k, src));
  }
}

extern "C" cudaError_t khost__launch_vary(cudaStream_t stream, khost__vary_map m, khost__vary_call c,
                                          const void *src, void *dst)
{
  void *args[] = {&m, &c, &src, &dst};
  return cudaLaunchKernel(vary, grid_for(&m), dim3(256), args, 0, stream);
}

/* The exact value of an output element's bits, as core/dtype.c decodes them. */
static __device__ double element_value(int dtype, uint32_t bits)
{
  if (dtype == KHOST__VARY_CHECK_FP32) return (double)__uint_as_float(bits);
  if (dtype == KHOST__VARY_CHECK_BF16) return (double)__uint_as_float(bits << 16);
  return (double)__half2float(__ushort_as_half((unsigned short)bits));
}

/* core/check.c's mismatch(), element by element. */
static __device__ int element_wrong(double got, double ref, double atol, double rtol, double bound)
{
  if (isnan(ref) || isnan(got)) return isnan(ref) != isnan(got);
  if (isinf(ref) || isinf(got)) return got != ref;
  return fabs(got - ref) > atol + rtol * fabs(ref) + bound;
}

static __global__ void vary_check(khost__vary_map m, khost__vary_call c, int dtype, double atol, double rtol,
                                  const unsigned char *ref, const float *bound, const unsigned char *got,
                                  unsigned long long *counts)
{
  unsigned long long wrong = 0, unwritten = 0;
  uint32_t poison = m.unit_bytes == 4 ? 0xffffffffu : m.unit_bytes == 2 ? 0xffffu : 0xffu;
  int exact = atol == 0 && rtol == 0;
  thread_walk t = thread_walk_of(&m, &c);
  uint64_t rows = khost__vary_rows(&m), width = khost__vary_width(&m);
  for (uint64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    khost__vary_row row = khost__vary_row_of(&m, &c, r);
    khost__vary_cursor k = t.start;
    for (uint64_t i = t.i0; i < width; i += t.stride, khost__vary_next(&k)) {
      uint32_t g = load_unit(got + (r * width + i) * m.unit_bytes, m.unit_bytes);
      uint32_t e = source_unit(&m, &c, &t, row, &k, ref);
      double b = bound ? (double)bound[row.src + k.j] : 0.0; /* the bound moves with its element */
      int blank = g == poison;
      unwritten += (unsigned long long)blank;
      wrong += (unsigned long long)(blank || (exact ? g != e
                                                    : element_wrong(element_value(dtype, g),
                                                                    element_value(dtype, e), atol, rtol, b)));
    }
  }
  if (wrong) atomicAdd(&counts[0], wrong);
  if (unwritten) atomicAdd(&counts[1], unwritten);
}

extern "C" cudaError_t khost__launch_vary_check(cudaStream_t stream, khost__vary_map m, khost__vary_call c,
                                                int dtype, double atol, double rtol, const void *ref,
                                                const void *bound, const void *got,
                                                unsigned long long *counts)
{
  void *args[] = {&m, &c, &dtype, &atol, &rtol, &ref, &bound, &got, &counts};
  return cudaLaunchKernel(vary_check, grid_for(&m), dim3(256), args, 0, stream);
}
