// Probe: how fast can a pure read of N bytes run under khost's cold timing
// (read-flush of 2x L2, blocker, start event, kernel, stop event)?
#include "N-cold.cuh"

__global__ void empty_kernel() {}

__device__ __forceinline__ uint4 ld_ef(const uint4 *p) {
  uint4 v; uint64_t pol;
  asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
  asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.u32 {%0,%1,%2,%3}, [%4], %5;" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p), "l"(pol));
  return v;
}
__device__ __forceinline__ uint4 ld_nc(const uint4 *p) {
  uint4 v;
  asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  return v;
}

// Persistent grid-stride: each thread loads U words per iteration, spaced by the grid's width.
template <int U, bool EF>
__global__ void read_stride(const uint4 *buf, size_t words, unsigned *sink) {
  unsigned acc = 0;
  size_t stride = (size_t)gridDim.x * blockDim.x;
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  for (; i + (U - 1) * stride < words; i += U * stride) {
    uint4 w[U];
#pragma unroll
    for (int u = 0; u < U; u++) w[u] = EF ? ld_ef(buf + i + u * stride) : ld_nc(buf + i + u * stride);
#pragma unroll
    for (int u = 0; u < U; u++) acc ^= w[u].x ^ w[u].y ^ w[u].z ^ w[u].w;
  }
  for (; i < words; i += stride) { uint4 w = buf[i]; acc ^= w.x ^ w.y ^ w.z ^ w.w; }
  if (acc == 0x9e3779b9u && threadIdx.x == 0xffffu) *sink = acc;
}

// One tile per block: block b reads words [b*T*U, (b+1)*T*U), U loads per thread in flight.
template <int U, bool EF>
__global__ void read_tile(const uint4 *buf, size_t words, unsigned *sink) {
  unsigned acc = 0;
  size_t base = (size_t)blockIdx.x * blockDim.x * U + threadIdx.x;
  uint4 w[U];
#pragma unroll
  for (int u = 0; u < U; u++) { size_t i = base + u * blockDim.x; w[u] = i < words ? (EF ? ld_ef(buf + i) : ld_nc(buf + i)) : make_uint4(0, 0, 0, 0); }
#pragma unroll
  for (int u = 0; u < U; u++) acc ^= w[u].x ^ w[u].y ^ w[u].z ^ w[u].w;
  if (acc == 0x9e3779b9u && threadIdx.x == 0xffffu) *sink = acc;
}

int main() {
  Ctx c; ctx_init(c);
  int dev = 0, sms = 0, l2 = 0; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)); CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
  // copy peak as khost measures it: D2D copies, hot, of 1 GiB.
  size_t cb = 1ull << 30; void *src, *dst; CK(cudaMalloc(&src, cb)); CK(cudaMalloc(&dst, cb)); CK(cudaMemset(src, 1, cb));
  std::vector<double> ct;
  for (int k = 0; k < 12; k++) { CK(cudaEventRecord(c.a, c.s)); CK(cudaMemcpyAsync(dst, src, cb, cudaMemcpyDeviceToDevice, c.s)); CK(cudaEventRecord(c.b, c.s)); CK(cudaEventSynchronize(c.b)); float ms; CK(cudaEventElapsedTime(&ms, c.a, c.b)); ct.push_back(ms); }
  std::sort(ct.begin(), ct.end()); double peak = 2.0 * cb / (ct[6] * 1e-3) * 1e-9;
  CK(cudaFree(src)); CK(cudaFree(dst));
  printf("sms %d l2 %d copy %.0f GB/s\n", sms, l2, peak);
  printf("empty kernel cold: %.2f us\n", time_cold(c, [&] { empty_kernel<<<sms, 128, 0, c.s>>>(); }));
  printf("nothing between events: %.2f us\n", time_cold(c, [&] {}));

  size_t sizes[] = {33090000, 66080000, 132220000};
  uint4 *buf; CK(cudaMalloc(&buf, sizes[2] + 4096)); CK(cudaMemset(buf, 0x37, sizes[2] + 4096));
  for (size_t bytes : sizes) {
    size_t words = bytes / 16;
    double ideal = bytes / (peak * 1e9) * 1e6;
    printf("\n== %zu bytes, ideal at copy peak %.2f us\n", bytes, ideal);
    auto report = [&](const char *name, double us) { printf("%-32s %8.2f us  %5.1f%% of copy  overhead %5.2f us\n", name, us, 100 * ideal / us, us - ideal); };
#define STRIDE(U, EF, B, T) report("stride U=" #U " EF=" #EF " B=" #B " T=" #T, time_cold(c, [&] { read_stride<U, EF><<<sms * B, T, 0, c.s>>>(buf, words, c.sink); }))
    STRIDE(4, true, 4, 256); STRIDE(8, true, 4, 256); STRIDE(4, true, 8, 256); STRIDE(8, true, 8, 256);
    STRIDE(4, false, 8, 256); STRIDE(8, false, 8, 256); STRIDE(16, true, 4, 256); STRIDE(2, true, 8, 256);
    STRIDE(8, true, 2, 512); STRIDE(4, true, 16, 128);
#define TILE(U, EF, T) report("tile U=" #U " EF=" #EF " T=" #T, time_cold(c, [&] { size_t per = (size_t)T * U; read_tile<U, EF><<<(unsigned)((words + per - 1) / per), T, 0, c.s>>>(buf, words, c.sink); }))
    TILE(4, true, 256); TILE(8, true, 256); TILE(16, true, 256); TILE(8, false, 256); TILE(8, true, 128); TILE(4, true, 512);
  }
  return 0;
}
