/* reduce_sum: out[i] = sum_j in[i][j], accumulated in fp32, rounded once to the
 * input dtype (nearest even). One pass over the input.
 *
 * Mapping (docs/CUTE.md): TPR threads share a row and walk it in steps of
 * TPR * NV words; every thread issues its NV 16-byte loads of a step before it
 * adds anything, so NV * 16 bytes per thread are in flight. Rows are split
 * among 8 threads (short rows), a warp, or a whole block (long rows when there
 * are too few rows to fill the GPU with warps). The loads are evict-first in
 * L2 (row_math.cuh, load_evict_first): the input is read once. */
#include "khost/ops/reduce_sum.h"
#include "row_math.cuh"

namespace {

using namespace khost__cute;

template <class T, class V, class RS>
__global__ void __launch_bounds__(RS::THREADS, RS::MIN_BLOCKS) reduce_rows(const V *in, T *out, int m,
                                                                            int nvec)
{
  using namespace cute;
  constexpr int VEC = lanes_of<T, V>;
  __shared__ float scratch[RS::THREADS / WARP];
  auto words = make_layout(make_shape(m, nvec), make_stride(int64_t(nvec), Int<1>{}));
  Tensor tIn = thread_words<RS>(make_tensor(make_gmem_ptr(in), words), blockIdx.x);  /* (1, NV, steps) */
  Tensor tPos = thread_words<RS>(make_identity_tensor(shape(words)), blockIdx.x); /* (row, word) of each */

  float acc[RS::NV] = {};
  for (int step = 0; step < size<2>(tIn); step++) {
    fragment<T, V, RS::NV> f;
    load_fragment<row_load::evict_first>(f, tIn, tPos, shape(words), step, 0.0f);
#pragma unroll
    for (int j = 0; j < RS::NV; j++) {
      float x[VEC];
      f.widen(j, x);
#pragma unroll
      for (int i = 0; i < VEC; i++) acc[j] += x[i];
    }
  }
  float sum = 0.0f;
#pragma unroll
  for (int j = 0; j < RS::NV; j++) sum += acc[j];
  sum = group_reduce<RS::TPR>(sum, [](float a, float b) { return a + b; }, scratch);

  Tensor gOut = make_tensor(make_gmem_ptr(out), make_layout(m));
  int row = get<0>(tPos(0, 0, 0));
  if (threadIdx.x % RS::TPR == 0 && row < m) gOut(row) = from_float<T>(sum);
}

/* With a name sink, names the kernel instead of launching it. */
template <class T, class V, class RS>
int launch(const khost_input *in, const khost__rows &rows, khost__cute_name *name)
{
  if (name) return khost__cute_named(name, "reduce_rows<tpr=%d,nv=%d,%s>", RS::TPR, RS::NV, access_name<T, V>);
  int nvec = int(rows.n / lanes_of<T, V>);
  int blocks = int((rows.m + RS::ROWS - 1) / RS::ROWS);
  reduce_rows<T, V, RS><<<blocks, RS::THREADS, 0, (cudaStream_t)in->stream>>>(
      static_cast<const V *>(rows.in), static_cast<T *>(rows.out), int(rows.m), nvec);
  KHOST__CUTE_CHECK(in, cudaGetLastError());
  return KHOST_STATUS_OK;
}

/* Warps per row unless rows are long and too few to fill the GPU with warps
 * (132 SMs x 64 warps = 8448 warps); 8 threads when a row is at most one step.
 * Steps are 8 words (128 bytes) per thread on the vector path (4 measured the
 * same within 1%; 8 makes a 16K-element 16-bit row one step of a block), 8
 * elements on the element path. */
template <class T, class V>
int launch_for_shape(const khost_input *in, const khost__rows &rows, khost__cute_name *name)
{
  constexpr int NV = 8;
  int64_t nvec = rows.n / lanes_of<T, V>;
  if (nvec <= 8 * NV) return launch<T, V, row_shape<8, NV>>(in, rows, name);
  if (nvec <= 128 * NV || rows.m >= 8192) return launch<T, V, row_shape<32, NV>>(in, rows, name);
  return launch<T, V, row_shape<256, NV>>(in, rows, name);
}

int supports(const khost_input *in)
{
  khost__rows rows;
  return khost__rows_open(in, KHOST_DEVICE_CUDA, KHOST__ROWS_OUT_REDUCED, INT32_MAX, &rows);
}

/* khost__cute_run launches, khost__cute_describe names. */
int dispatch(const khost_input *in, khost__cute_name *name)
{
  return with_row_types(in, KHOST__ROWS_OUT_REDUCED, [&](const khost__rows &rows, auto element, auto word) {
    return launch_for_shape<typename decltype(element)::type, typename decltype(word)::type>(in, rows, name);
  });
}

} // namespace

extern const khost_kernel khost__cute_reduce_sum = {
  sizeof(khost_kernel), "reduce_sum", KHOST_DEVICE_CUDA, khost__cute_run<dispatch>, supports, nullptr,
  khost__cute_describe<dispatch>,
  nullptr, /* call_overhead: none */
  0, /* flags: none */
};
