/* fp8_block_gemm on the GPU, plainly: the speed baseline, with fp32 FMA on the
 * CUDA cores and no tensor cores. A block of 256 threads computes a 64 x 64 tile
 * of out, each thread 4 x 4 of it; for every 32 columns of k the tile's rows of a
 * and b are decoded into shared memory as fp32 with their block scales applied
 * (e4m3 * scale, one rounding to fp32), and the products are accumulated in fp32
 * over all of k in order, then rounded once to bf16 (RNE). Rows and columns past
 * m and n (partial tiles, partial scale blocks) and any qk are handled per element.
 *
 * Its error is an fp32 accumulation over k plus the operands' rounding, far inside
 * the op's error model (core/ops/fp8_block_gemm.c). It reads the plain scale
 * layouts (sa, sb), never the transposed copies. */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "cuda_check.h"
#include "fp8_block_gemm.h"
#include "khost/ops/fp8_block_gemm.h"

namespace khost_reference {
namespace {

constexpr int TILE = 64;   /* rows and columns of out per thread block */
constexpr int K_TILE = 32; /* k per shared-memory step */
constexpr int SIDE = 16;   /* threads along each side of the tile: 16 x 16 */
constexpr int THREADS = SIDE * SIDE;
constexpr int PER_THREAD = TILE / SIDE; /* 4 x 4 outputs per thread */
constexpr int64_t MAX_BLOCKS = 1 << 20; /* a grid-stride loop takes the rest */

/* One side of the product: rows x k codes and their scales [ceil(rows/q), k/qk]. */
struct side {
  const uint8_t *codes;
  const float *scales;
  int64_t rows, q;
};

/* The operand (e4m3 value times its block's scale, in fp32) at (row, col), or 0 past the edge. */
__device__ float operand(const side &s, int64_t row, int64_t col, int64_t k, int64_t qk)
{
  if (row >= s.rows || col >= k) return 0.0f;
  __half_raw half = __nv_cvt_fp8_to_halfraw(s.codes[row * k + col], __NV_E4M3);
  return __half2float(__half(half)) * s.scales[(row / s.q) * (k / qk) + col / qk];
}

/* Decodes the tile's k columns [k0, k0 + K_TILE) of rows [row0, row0 + TILE) into
 * dst[kk][r]: consecutive threads read consecutive k, and store along r. */
__device__ void load_tile(const side &s, int64_t row0, int64_t k0, int64_t k, int64_t qk,
                          float (*dst)[TILE + 1])
{
  for (int e = threadIdx.x; e < TILE * K_TILE; e += THREADS) {
    int r = e / K_TILE, kk = e % K_TILE;
    dst[kk][r] = operand(s, row0 + r, k0 + kk, k, qk);
  }
}

__device__ void store_tile(const khost__fp8_gemm &g, int64_t row0, int64_t col0,
                           const float (*acc)[PER_THREAD])
{
  int tx = threadIdx.x % SIDE, ty = threadIdx.x / SIDE;
  for (int i = 0; i < PER_THREAD; i++)
    for (int j = 0; j < PER_THREAD; j++) {
      int64_t row = row0 + ty + SIDE * i, col = col0 + tx + SIDE * j;
      if (row < g.m && col < g.n)
        g.out[row * g.n + col] = __bfloat16_as_ushort(__float2bfloat16_rn(acc[i][j]));
    }
}

__global__ void __launch_bounds__(THREADS) gemm_tiles(khost__fp8_gemm g)
{
  __shared__ float a_tile[K_TILE][TILE + 1], b_tile[K_TILE][TILE + 1]; /* +1: no bank conflicts on stores */
  const side a = {g.a, g.sa, g.m, g.qm}, b = {g.b, g.sb, g.n, g.qn};
  int tx = threadIdx.x % SIDE, ty = threadIdx.x / SIDE;
  int64_t col_tiles = (g.n + TILE - 1) / TILE, tiles = col_tiles * ((g.m + TILE - 1) / TILE);
  for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    int64_t row0 = tile / col_tiles * TILE, col0 = tile % col_tiles * TILE;
    float acc[PER_THREAD][PER_THREAD] = {};
    for (int64_t k0 = 0; k0 < g.k; k0 += K_TILE) {
      load_tile(a, row0, k0, g.k, g.qk, a_tile);
      load_tile(b, col0, k0, g.k, g.qk, b_tile);
      __syncthreads();
      for (int kk = 0; kk < K_TILE; kk++)
        for (int i = 0; i < PER_THREAD; i++)
          for (int j = 0; j < PER_THREAD; j++)
            acc[i][j] = fmaf(a_tile[kk][ty + SIDE * i], b_tile[kk][tx + SIDE * j], acc[i][j]);
      __syncthreads();
    }
    store_tile(g, row0, col0, acc);
  }
}

int run(const khost_input *in)
{
  khost__fp8_gemm g;
  int status = khost__fp8_gemm_open(in, KHOST_DEVICE_CUDA, &g);
  if (status != KHOST_STATUS_OK) return status;
  int64_t tiles = ((g.m + TILE - 1) / TILE) * ((g.n + TILE - 1) / TILE);
  unsigned blocks = (unsigned)(tiles < MAX_BLOCKS ? tiles : MAX_BLOCKS);
  gemm_tiles<<<blocks, THREADS, 0, static_cast<cudaStream_t>(in->stream)>>>(g);
  return KHOST__REFERENCE_CUDA_CHECK(in, cudaGetLastError());
}

} // namespace
} // namespace khost_reference

extern "C" const khost_kernel khost__reference_cuda_fp8_block_gemm = {
    sizeof(khost_kernel), "fp8_block_gemm", KHOST_DEVICE_CUDA, khost_reference::run, nullptr, nullptr,
};
