// Run AM probe: does the order in which cute's GEMV reads a row group cost bandwidth? Loads only (no decode),
// the GEMV's warps, steps and bytes a step, under khost's cold timing (N-cold.cuh). Only the matrix a is read.
//   rows4:  the GEMV's order: step s reads 512 B (16 B a lane) of each of the group's 4 rows at chunk 32 s.
//   seq4:   the same warps and steps, but step s reads 2 KB contiguous of the group's 4 rows (contiguous in a).
//   window: the same warps and steps, but step s of warp w reads the 2 KB piece s * warps + w of the whole
//           matrix (every step of the grid is one contiguous window).
//   tile:   run N's fastest pure read, one 16 KB tile per 256-thread block.
// Build: nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a AM-pattern-probe.cu -o am-probe
#include "N-cold.cuh"

__device__ __forceinline__ uint4 ld(const uint4 *p)
{
  uint4 v;
  asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v;
}

__device__ __forceinline__ void keep(unsigned acc, unsigned *sink)
{
  if (acc == 0x9e3779b9u && threadIdx.x == 0xffffu) *sink = acc;
}

enum Order { ROWS4, SEQ4, WINDOW };

// W warps a group of 4 rows of `chunks` 16-byte chunks; lane-steps of 4 loads.
template <Order O, int W>
__global__ void probe(const uint4 *m, int rows, int chunks, unsigned *sink)
{
  int warp = int((blockIdx.x * blockDim.x + threadIdx.x) / 32), lane = int(threadIdx.x % 32);
  int warps = int(gridDim.x * blockDim.x / 32), group = warp / W, slice = warp % W;
  if (group * 4 >= rows) return;
  const uint4 *region = m + size_t(group) * 4 * chunks + lane;
  unsigned acc = 0;
  for (int s = slice; s * 32 < chunks; s += W) {
    uint4 w[4];
#pragma unroll
    for (int u = 0; u < 4; u++) {
      if (O == ROWS4) w[u] = ld(region + size_t(u) * chunks + s * 32);
      if (O == SEQ4) w[u] = ld(region + (size_t(s) * 4 + u) * 32);
      /* The last step of a W = 2 warp may run past the matrix when the steps are odd: read the first piece. */
      size_t piece = size_t(s / W) * warps + warp;
      piece = piece * 128 < size_t(rows) * chunks ? piece : 0;
      if (O == WINDOW) w[u] = ld(m + (piece * 4 + u) * 32 + lane);
    }
#pragma unroll
    for (int u = 0; u < 4; u++) acc ^= w[u].x ^ w[u].y ^ w[u].z ^ w[u].w;
  }
  keep(acc, sink);
}

__global__ void tile(const uint4 *m, size_t words, unsigned *sink)
{
  size_t base = size_t(blockIdx.x) * blockDim.x * 4 + threadIdx.x;
  uint4 w[4];
#pragma unroll
  for (int u = 0; u < 4; u++) w[u] = ld(m + base + u * blockDim.x);
  unsigned acc = 0;
#pragma unroll
  for (int u = 0; u < 4; u++) acc ^= w[u].x ^ w[u].y ^ w[u].z ^ w[u].w;
  keep(acc, sink);
}

int main()
{
  Ctx c;
  ctx_init(c);
  struct Shape { const char *name; int rows, chunks; } shapes[] = {
      {"b1 a (7168 x 16384)", 7168, 512}, {"b3 a (28672 x 2048)", 28672, 64}, {"b2 a (32768 x 7168)", 32768, 224}};
  for (Shape sh : shapes) {
    size_t words = size_t(sh.rows) * sh.chunks;
    uint4 *m;
    CK(cudaMalloc(&m, words * 16));
    CK(cudaMemset(m, 0x37, words * 16));
    printf("== %s: %.2f MB\n", sh.name, words * 16 / 1e6);
    auto report = [&](const char *name, double us) { printf("%-16s %8.2f us %8.1f GB/s\n", name, us, words * 16 / us * 1e-3); };
    report("tile", time_cold(c, [&] { tile<<<unsigned(words / 1024), 256, 0, c.s>>>(m, words, c.sink); }));
#define P(O, W)                                                                                                        \
  report(#O " W=" #W, time_cold(c, [&] {                                                                               \
           probe<O, W><<<unsigned((sh.rows / 4 * W + 3) / 4), 128, 0, c.s>>>(m, sh.rows, sh.chunks, c.sink);          \
         }))
    P(ROWS4, 1); P(SEQ4, 1); P(WINDOW, 1);
    P(ROWS4, 2); P(SEQ4, 2); P(WINDOW, 2);
    CK(cudaFree(m));
  }
  return 0;
}
