#pragma once
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cstdint>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)
static __device__ unsigned long long gns() { unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t; }
__global__ void blocker(const volatile int *release) { unsigned long long s = gns(); while (!*release && gns() - s < 2000000000ull) {} }
__global__ void scrub(const uint4 *buf, size_t words, unsigned *sink) {
  unsigned acc = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words; i += (size_t)gridDim.x * blockDim.x) { uint4 w = buf[i]; acc ^= w.x ^ w.y ^ w.z ^ w.w; }
  if (acc == 0x9e3779b9u && threadIdx.x == 0xffffu) *sink = acc;
}
struct Ctx { cudaStream_t s; cudaEvent_t a, b; int *flag_h, *flag_d; void *flush; size_t flush_bytes; unsigned *sink; };

template <class F>
static double time_cold(Ctx &c, F launch, int samples = 40) {
  std::vector<double> t;
  for (int k = 0; k < samples + 3; k++) {
    scrub<<<1024, 512, 0, c.s>>>((const uint4 *)c.flush, c.flush_bytes / 16, c.sink);
    *(volatile int *)c.flag_h = 0;
    blocker<<<1, 1, 0, c.s>>>(c.flag_d);
    CK(cudaEventRecord(c.a, c.s));
    launch();
    CK(cudaEventRecord(c.b, c.s));
    *(volatile int *)c.flag_h = 1;
    CK(cudaEventSynchronize(c.b));
    CK(cudaGetLastError());
    float ms; CK(cudaEventElapsedTime(&ms, c.a, c.b));
    if (k >= 3) t.push_back(ms * 1e3);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

static void ctx_init(Ctx &c) {
  CK(cudaStreamCreateWithFlags(&c.s, cudaStreamNonBlocking));
  CK(cudaEventCreate(&c.a)); CK(cudaEventCreate(&c.b));
  CK(cudaHostAlloc(&c.flag_h, 4, cudaHostAllocMapped)); CK(cudaHostGetDevicePointer(&c.flag_d, c.flag_h, 0));
  int l2 = 0; CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  c.flush_bytes = 2 * (size_t)l2; CK(cudaMalloc(&c.flush, c.flush_bytes)); CK(cudaMemset(c.flush, 0x5a, c.flush_bytes));
  CK(cudaMalloc(&c.sink, 4));
}
