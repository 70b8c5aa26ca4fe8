/* reduce_sum on the GPU, plainly: one block per row, each thread sums a strided
 * share of the row in fp32 (fp32 inputs too: the op's tolerance is built for an
 * fp32 accumulator), a fixed-order block reduction, one rounding to the dtype. */
#include "block_rows.cuh"
#include "cuda_check.h"
#include "khost/ops/reduce_sum.h"
#include "float_elements.cuh"

namespace khost_reference {
namespace {

constexpr int THREADS = 256;

template <typename T>
__global__ void __launch_bounds__(THREADS) reduce_rows(const T *in, T *out, int64_t m, int64_t n)
{
  for (int64_t row = blockIdx.x; row < m; row += gridDim.x) {
    const T *x = in + row * n;
    float sum = 0.0f;
    for (int64_t j = threadIdx.x; j < n; j += THREADS) sum += widen(x[j]);
    sum = block_reduce<THREADS>(sum, add_floats());
    if (threadIdx.x == 0) out[row] = narrow<T>(sum);
  }
}

int run(const khost_input *in)
{
  khost__rows rows;
  int status = khost__rows_open(in, KHOST_DEVICE_CUDA, KHOST__ROWS_OUT_REDUCED, INT64_MAX, &rows);
  if (status != KHOST_STATUS_OK) return status;
  cudaStream_t stream = static_cast<cudaStream_t>(in->stream);
  with_float_type(rows.type, [&](auto zero) {
    using T = decltype(zero);
    reduce_rows<T><<<row_blocks(rows.m), THREADS, 0, stream>>>(static_cast<const T *>(rows.in),
                                                               static_cast<T *>(rows.out), rows.m, rows.n);
  });
  return KHOST__REFERENCE_CUDA_CHECK(in, cudaGetLastError());
}

} // namespace
} // namespace khost_reference

extern "C" const khost_kernel khost__reference_cuda_reduce_sum = {
    sizeof(khost_kernel), "reduce_sum", KHOST_DEVICE_CUDA, khost_reference::run, nullptr, nullptr,
};
