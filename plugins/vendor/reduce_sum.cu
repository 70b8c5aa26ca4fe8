/* reduce_sum through CUB: cub::DeviceSegmentedReduce::Reduce over m segments of
 * n elements, one per row, the segment offsets computed (row i starts at i * n)
 * rather than stored. The elements are widened to fp32 as they are read and
 * summed with an fp32 accumulator (CUB's Sum would accumulate fp16 and bf16 rows
 * in their own type), and each sum is rounded once to the row's dtype, nearest
 * even, as it is written. CUB's temporary storage is the host's workspace. */
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cub/device/device_segmented_reduce.cuh>
#include <cub/version.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>

#include "khost/ops/reduce_sum.h"
#include "row_inputs.h"
#include "vendor.h"

extern "C" const int khost__vendor_cub_version = CUB_VERSION;

namespace {

template <class T> struct widen {
  __device__ float operator()(T x) const
  {
    return static_cast<float>(x);
  }
};

template <class T> struct round_to {
  __device__ T operator()(float x) const;
};
template <> __device__ __half round_to<__half>::operator()(float x) const
{
  return __float2half_rn(x);
}
template <> __device__ __nv_bfloat16 round_to<__nv_bfloat16>::operator()(float x) const
{
  return __float2bfloat16_rn(x);
}
template <> __device__ float round_to<float>::operator()(float x) const
{
  return x;
}

struct row_start {
  int64_t n;
  __host__ __device__ int64_t operator()(int64_t row) const
  {
    return row * n;
  }
};

/* One call of CUB: with temp NULL it only stores the bytes it needs in *bytes. */
template <class T>
cudaError_t segmented_sum(void *temp, size_t *bytes, const khost__rows &rows, cudaStream_t stream)
{
  auto begins =
      thrust::make_transform_iterator(thrust::make_counting_iterator<int64_t>(0), row_start{rows.n});
  auto values = thrust::make_transform_iterator(static_cast<const T *>(rows.in), widen<T>{});
  auto sums = thrust::make_transform_output_iterator(static_cast<T *>(rows.out), round_to<T>{});
  return cub::DeviceSegmentedReduce::Reduce(temp, *bytes, values, sums, rows.m, begins, begins + 1,
                                            cuda::std::plus<float>{}, 0.0f, stream);
}

cudaError_t segmented_sum_of_type(void *temp, size_t *bytes, const khost__rows &rows, cudaStream_t stream)
{
  switch (rows.type) {
  case KHOST__ROWS_FP16: return segmented_sum<__half>(temp, bytes, rows, stream);
  case KHOST__ROWS_BF16: return segmented_sum<__nv_bfloat16>(temp, bytes, rows, stream);
  case KHOST__ROWS_FP32: return segmented_sum<float>(temp, bytes, rows, stream);
  }
  return cudaErrorInvalidValue;
}

/* CUB takes 64-bit segment counts and offsets; 2^31 - 1 bounds m and n like the
 * project's other kernels, as CUB's per-segment loop was not checked beyond. */
int open_rows(const khost_input *in, khost__rows *rows)
{
  return khost__rows_open(in, KHOST_DEVICE_CUDA, KHOST__ROWS_OUT_REDUCED, INT32_MAX, rows);
}

int supports(const khost_input *in)
{
  khost__rows rows;
  return open_rows(in, &rows);
}

int workspace_size(const khost_input *in, size_t *bytes)
{
  khost__rows rows;
  int status = open_rows(in, &rows);
  if (status != KHOST_STATUS_OK) return status;
  *bytes = 0;
  return KHOST__VENDOR_CUDA_CHECK(in, segmented_sum_of_type(nullptr, bytes, rows, (cudaStream_t)in->stream));
}

int run(const khost_input *in)
{
  khost__rows rows;
  int status = open_rows(in, &rows);
  if (status != KHOST_STATUS_OK) return status;
  /* A NULL temporary storage makes CUB only size it and reduce nothing. */
  if (!in->workspace) return khost__input_fail(in, KHOST_STATUS_INVALID_ARGUMENT, "no workspace for CUB");
  size_t bytes = in->workspace_bytes;
  return KHOST__VENDOR_CUDA_CHECK(
      in, segmented_sum_of_type(in->workspace, &bytes, rows, (cudaStream_t)in->stream));
}

int describe(const khost_input *in, char *buf, size_t size)
{
  khost__rows rows;
  int status = open_rows(in, &rows);
  if (status == KHOST_STATUS_OK) snprintf(buf, size, "cub::DeviceSegmentedReduce, fp32 sum");
  return status;
}

} // namespace

extern "C" const khost_kernel khost__vendor_reduce_sum = {
    sizeof(khost_kernel), "reduce_sum", KHOST_DEVICE_CUDA, run, supports,
    workspace_size,       describe,     nullptr, /* call_overhead: none */
    0, /* flags: none */
};
