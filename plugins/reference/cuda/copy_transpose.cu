/* copy_transpose on the GPU, plainly: one thread per element on a 2-D grid,
 * out[j][i] = in[i][j]. Elements are moved as 16- or 32-bit patterns, never
 * converted, so every bit (NaN payloads, -0, subnormals) comes through.
 * Reads are coalesced along a row; the writes are strided, which is what makes
 * this the naive baseline. Rows past the grid's y limit are taken in a loop. */
#include "cuda_check.h"
#include "khost/ops/copy_transpose.h"

namespace khost_reference {
namespace {

constexpr int TILE_X = 32, TILE_Y = 8, THREADS = TILE_X * TILE_Y;
constexpr int64_t MAX_GRID_Y = 65535; /* the hardware limit of gridDim.y */

template <typename Bits>
__global__ void __launch_bounds__(THREADS) transpose(const Bits *in, Bits *out, int64_t m, int64_t n)
{
  int64_t j = (int64_t)blockIdx.x * TILE_X + threadIdx.x;
  if (j >= n) return;
  for (int64_t i = (int64_t)blockIdx.y * TILE_Y + threadIdx.y; i < m; i += (int64_t)gridDim.y * TILE_Y)
    out[j * m + i] = in[i * n + j];
}

template <typename Bits> void launch(const khost__rows &rows, cudaStream_t stream)
{
  int64_t blocks_y = (rows.m + TILE_Y - 1) / TILE_Y;
  dim3 grid((unsigned)((rows.n + TILE_X - 1) / TILE_X),
            (unsigned)(blocks_y < MAX_GRID_Y ? blocks_y : MAX_GRID_Y));
  transpose<Bits><<<grid, dim3(TILE_X, TILE_Y), 0, stream>>>(static_cast<const Bits *>(rows.in),
                                                             static_cast<Bits *>(rows.out), rows.m, rows.n);
}

int run(const khost_input *in)
{
  khost__rows rows;
  int status = khost__rows_open(in, KHOST_DEVICE_CUDA, KHOST__ROWS_OUT_TRANSPOSED, INT64_MAX, &rows);
  if (status != KHOST_STATUS_OK) return status;
  cudaStream_t stream = static_cast<cudaStream_t>(in->stream);
  if (rows.element_bytes == 2)
    launch<uint16_t>(rows, stream);
  else
    launch<uint32_t>(rows, stream);
  return KHOST__REFERENCE_CUDA_CHECK(in, cudaGetLastError());
}

} // namespace
} // namespace khost_reference

extern "C" const khost_kernel khost__reference_cuda_copy_transpose = {
    sizeof(khost_kernel), "copy_transpose", KHOST_DEVICE_CUDA, khost_reference::run, nullptr, nullptr,
};
