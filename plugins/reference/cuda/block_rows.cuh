/* The shape shared by the kernels that reduce along rows: one thread block per
 * row, its threads striding along the row, then a reduction across the block.
 * Rows past the grid are taken by the same blocks in a loop. */
#ifndef KHOST_REFERENCE_BLOCK_ROWS_CUH
#define KHOST_REFERENCE_BLOCK_ROWS_CUH

#include <stdint.h>

namespace khost_reference {

/* Enough blocks to fill any GPU many times over; also below every grid limit. */
constexpr int64_t MAX_ROW_BLOCKS = 65535;

/* Blocks for a grid over `rows` rows: one per row up to MAX_ROW_BLOCKS. */
inline unsigned row_blocks(int64_t rows)
{
  return (unsigned)(rows < MAX_ROW_BLOCKS ? rows : MAX_ROW_BLOCKS);
}

struct add_floats {
  __device__ float operator()(float a, float b) const
  {
    return a + b;
  }
};

/* The larger value; NaN when either is NaN (fmaxf would drop it), as the CPU
 * reference lets a NaN anywhere in a row make the row NaN. */
struct max_floats {
  __device__ float operator()(float a, float b) const
  {
    return (a > b || a != a) ? a : b;
  }
};

/* Combines every thread's value with combine (associative and commutative) in a
 * fixed order, so the result is deterministic; every thread gets it. All THREADS
 * threads (a multiple of 32) must call it together. */
template <int THREADS, typename Combine> __device__ float block_reduce(float value, Combine combine)
{
  static_assert(THREADS % 32 == 0 && THREADS <= 1024, "whole warps, one block");
  __shared__ float warp_values[THREADS / 32];
  for (int offset = 16; offset > 0; offset /= 2)
    value = combine(value, __shfl_xor_sync(0xffffffffu, value, offset));
  if (threadIdx.x % 32 == 0) warp_values[threadIdx.x / 32] = value;
  __syncthreads();
  value = warp_values[0];
  for (int w = 1; w < THREADS / 32; w++) value = combine(value, warp_values[w]);
  /* A second call reuses warp_values: nobody may write it before all have read it. */
  __syncthreads();
  return value;
}

} // namespace khost_reference

#endif
