/* softmax_online on the GPU, plainly: one block per row and three passes over it
 * in fp32 (the row's max, the sum of expf(x - max), then each expf(x - max) / sum
 * rounded once to the dtype). It is the baseline, not the op's one-pass online
 * update: the three passes are easy to check against the CPU reference, and
 * expf and the IEEE division are used, not their fast approximations.
 * The max propagates NaN, so a NaN makes its row NaN, as on the CPU. */
#include <math.h>

#include "block_rows.cuh"
#include "cuda_check.h"
#include "khost/ops/softmax_online.h"
#include "float_elements.cuh"

namespace khost_reference {
namespace {

constexpr int THREADS = 256;

template <typename T>
__global__ void __launch_bounds__(THREADS) softmax_rows(const T *in, T *out, int64_t m, int64_t n)
{
  for (int64_t row = blockIdx.x; row < m; row += gridDim.x) {
    const T *x = in + row * n;
    T *y = out + row * n;
    float max = -INFINITY;
    for (int64_t j = threadIdx.x; j < n; j += THREADS) max = max_floats()(max, widen(x[j]));
    max = block_reduce<THREADS>(max, max_floats());
    float sum = 0.0f;
    for (int64_t j = threadIdx.x; j < n; j += THREADS) sum += expf(widen(x[j]) - max);
    sum = block_reduce<THREADS>(sum, add_floats());
    for (int64_t j = threadIdx.x; j < n; j += THREADS) y[j] = narrow<T>(expf(widen(x[j]) - max) / sum);
  }
}

int run(const khost_input *in)
{
  khost__rows rows;
  int status = khost__rows_open(in, KHOST_DEVICE_CUDA, KHOST__ROWS_OUT_SAME, INT64_MAX, &rows);
  if (status != KHOST_STATUS_OK) return status;
  cudaStream_t stream = static_cast<cudaStream_t>(in->stream);
  with_float_type(rows.type, [&](auto zero) {
    using T = decltype(zero);
    softmax_rows<T><<<row_blocks(rows.m), THREADS, 0, stream>>>(static_cast<const T *>(rows.in),
                                                                static_cast<T *>(rows.out), rows.m, rows.n);
  });
  return KHOST__REFERENCE_CUDA_CHECK(in, cudaGetLastError());
}

} // namespace
} // namespace khost_reference

extern "C" const khost_kernel khost__reference_cuda_softmax_online = {
    sizeof(khost_kernel), "softmax_online", KHOST_DEVICE_CUDA, khost_reference::run, nullptr, nullptr,
};
