// Times the cute GEMV kernels under khost's cold timing (N-cold.cuh), outside khost.
// Build next to plugins/cute with one of the N-gemv-*.patch files applied (PERF.md run N).
#include "N-cold.cuh"
#include "../../plugins/cute/nvfp4_gemv.cu"
__global__ void fill(uint32_t *p, size_t n, uint32_t seed, uint32_t mask) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    uint32_t x = (uint32_t)i * 2654435761u ^ seed; x ^= x >> 13; x *= 0x5bd1e995u; x ^= x >> 15; p[i] = x & mask;
  }
}
int main() {
  Ctx c; ctx_init(c);
  struct S { int m, k, l; } shapes[] = {{7168, 16384, 1}, {4096, 7168, 8}, {7168, 2048, 4}, {1024, 4096, 64}};
  for (S sh : shapes) {
    size_t rows = (size_t)sh.m * sh.l, abytes = rows * sh.k / 2, sbytes = rows * sh.k / 16;
    size_t vbytes = (size_t)sh.l * sh.k / 2, svbytes = (size_t)sh.l * sh.k / 16;
    void *a, *sfa, *v, *sfv, *out;
    CK(cudaMalloc(&a, abytes)); CK(cudaMalloc(&sfa, sbytes)); CK(cudaMalloc(&v, vbytes)); CK(cudaMalloc(&sfv, svbytes)); CK(cudaMalloc(&out, rows * 2));
    fill<<<1024, 256>>>((uint32_t *)a, abytes / 4, 1, 0xffffffffu); fill<<<1024, 256>>>((uint32_t *)sfa, sbytes / 4, 2, 0x37373737u);
    fill<<<1024, 256>>>((uint32_t *)v, vbytes / 4, 3, 0xffffffffu); fill<<<1024, 256>>>((uint32_t *)sfv, svbytes / 4, 4, 0x37373737u);
    CK(cudaDeviceSynchronize());
    double bytes = abytes + sbytes + vbytes + svbytes + rows * 2;
    int chunks = sh.k / 32;
#ifndef SHARED_VECTOR /* N-gemv-skeleton.patch applied */
    auto go = [&](const char *name, auto kernel, int rows_per_block, int S = 1) {
      int blocks = (int)((rows + rows_per_block - 1) / rows_per_block);
      double us = time_cold(c, [&] { kernel<<<dim3(blocks, S), THREADS, 0, c.s>>>((const uint128_t *)a, (const uint16_t *)sfa, (const uint128_t *)v, (const uint16_t *)sfv, (__half *)out, (int)rows, sh.m, chunks); });
      printf("m%d k%d l%d %-10s %8.2f us  %7.1f GB/s\n", sh.m, sh.k, sh.l, name, us, bytes / us * 1e-3);
    };
    go("W1", gemv_rows<32, 1>, THREADS / 32 * R);
    go("W2", gemv_rows<32, 2>, THREADS / 32 / 2 * R);
    go("W4", gemv_rows<32, 4>, THREADS / 32 / 4 * R);
    for (int S : {2, 4, 8}) { /* split over k by blockIdx.y (timing only: the partial sums race) */
      char n1[32], n2[32]; snprintf(n1, 32, "W1 S%d", S); snprintf(n2, 32, "W2 S%d", S);
      if ((sh.k / 1024) / S >= 1) go(n1, gemv_rows<32, 1>, THREADS / 32 * R, S);
      if ((sh.k / 1024) / S >= 2) go(n2, gemv_rows<32, 2>, THREADS / 32 / 2 * R, S);
    }
#else /* N-gemv-shared-vector.patch applied */
    auto go = [&](const char *name, auto kernel, int rows_per_block, size_t shared) {
      int blocks = (int)((rows + rows_per_block - 1) / rows_per_block);
      CK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, (int)cudaSharedmemCarveoutMaxShared));
      int per_sm = 0; CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, THREADS, shared));
      double us = time_cold(c, [&] { kernel<<<blocks, THREADS, shared, c.s>>>((const uint128_t *)a, (const uint16_t *)sfa, (const uint128_t *)v, (const uint16_t *)sfv, (__half *)out, (int)rows, sh.m, chunks); });
      printf("m%d k%d l%d %-12s %d/SM %8.2f us  %7.1f GB/s\n", sh.m, sh.k, sh.l, name, per_sm, us, bytes / us * 1e-3);
    };
    size_t sv = (size_t)chunks * SHARED_BYTES_PER_CHUNK;
    go("W1 lane", gemv_rows<32, 1, vector_source::lane>, THREADS / 32 * R, 0);
    go("W2 lane", gemv_rows<32, 2, vector_source::lane>, THREADS / 32 / 2 * R, 0);
    go("W1 block", gemv_rows<32, 1, vector_source::block>, THREADS / 32 * R, sv);
    go("W2 block", gemv_rows<32, 2, vector_source::block>, THREADS / 32 / 2 * R, sv);
    go("W4 block", gemv_rows<32, 4, vector_source::block>, THREADS / 32 / 4 * R, sv);
#endif
    CK(cudaFree(a)); CK(cudaFree(sfa)); CK(cudaFree(v)); CK(cudaFree(sfv)); CK(cudaFree(out));
  }
}
