/* softmax_online: out[i][j] = exp(x_ij - max_i) / sum_j exp(x_ij - max_i), with
 * the statistics gathered in one pass by the online rule: each thread keeps
 * (max, sum of exp(x - max)) over its words, and partial pairs merge with the
 * rescale sum * exp(max_old - max_new) (row_math.cuh, merge()).
 *
 * Rows of up to 32K elements stay in registers (as floats) between the
 * statistics and the output, so HBM sees each input byte once and each output
 * byte once. Longer rows stream: the statistics pass and the output pass each
 * read the row, one extra read (partly served by L2). */
#include "row_math.cuh"

namespace {

using namespace khost__cute;

struct merge_op {
  __device__ softmax_stat operator()(softmax_stat a, softmax_stat b) const { return merge(a, b); }
};

/* Writes exp(x - max) / sum for the valid words of a fragment (nearest even). */
template <class T, class V, int NV, class Dst>
__device__ __forceinline__ void write_fragment(const fragment<T, V, NV> &f, softmax_stat stat, Dst &&dst)
{
  float inverse = 1.0f / stat.sum;
#pragma unroll
  for (int j = 0; j < NV; j++) {
    float y[lanes_of<T, V>];
#pragma unroll
    for (int i = 0; i < lanes_of<T, V>; i++) y[i] = exp_shifted(f.x[j][i], stat.max) * inverse;
    if (f.valid[j]) dst(j) = pack<T, V>(y);
  }
}

/* Rows that fit in one step (nvec <= TPR * NV): the row stays in registers. */
template <class T, class V, class RS>
__global__ void __launch_bounds__(RS::THREADS, RS::MIN_BLOCKS) softmax_resident(const V *in, V *out, int m,
                                                                                 int nvec)
{
  using namespace cute;
  __shared__ softmax_stat scratch[RS::THREADS / WARP];
  auto words = make_layout(make_shape(m, nvec), make_stride(int64_t(nvec), Int<1>{}));
  Tensor tIn = thread_words<RS>(make_tensor(make_gmem_ptr(in), words), blockIdx.x);   /* (1, NV, 1) */
  Tensor tOut = thread_words<RS>(make_tensor(make_gmem_ptr(out), words), blockIdx.x);
  Tensor tPos = thread_words<RS>(make_identity_tensor(shape(words)), blockIdx.x);

  fragment<T, V, RS::NV> f;
  load_fragment(f, tIn, tPos, shape(words), 0, -INFINITY);
  softmax_stat stat = group_reduce<RS::TPR>(fragment_stat(f), merge_op{}, scratch);
  write_fragment(f, stat, [&](int j) -> V & { return tOut(0, j, 0); });
}

/* Longer rows, one per block: the online pass over all steps, then a second
 * read of the row for the output (partly from L2, as the block has just read it). */
template <class T, class V, class RS>
__global__ void __launch_bounds__(RS::THREADS, RS::MIN_BLOCKS) softmax_streaming(const V *in, V *out, int m,
                                                                                  int nvec)
{
  using namespace cute;
  static_assert(RS::ROWS == 1, "a streaming block owns one row");
  __shared__ softmax_stat scratch[RS::THREADS / WARP];
  auto words = make_layout(make_shape(m, nvec), make_stride(int64_t(nvec), Int<1>{}));
  Tensor tIn = thread_words<RS>(make_tensor(make_gmem_ptr(in), words), blockIdx.x);   /* (1, NV, steps) */
  Tensor tOut = thread_words<RS>(make_tensor(make_gmem_ptr(out), words), blockIdx.x);
  Tensor tPos = thread_words<RS>(make_identity_tensor(shape(words)), blockIdx.x);

  fragment<T, V, RS::NV> f;
  softmax_stat stat = {-INFINITY, 0.0f};
  for (int step = 0; step < size<2>(tIn); step++) {
    load_fragment(f, tIn, tPos, shape(words), step, -INFINITY);
    stat = merge(stat, fragment_stat(f));
  }
  stat = group_reduce<RS::TPR>(stat, merge_op{}, scratch);
  for (int step = 0; step < size<2>(tIn); step++) {
    load_fragment(f, tIn, tPos, shape(words), step, -INFINITY);
    write_fragment(f, stat, [&](int j) -> V & { return tOut(0, j, step); });
  }
}

template <class T, class V, class RS, bool STREAMING>
int launch(const khost_input *in, const khost__cute_rows &rows)
{
  int nvec = int(rows.n / lanes_of<T, V>);
  int blocks = int((rows.m + RS::ROWS - 1) / RS::ROWS);
  cudaStream_t stream = (cudaStream_t)in->stream;
  const V *src = static_cast<const V *>(rows.in);
  V *dst = static_cast<V *>(rows.out);
  if constexpr (STREAMING)
    softmax_streaming<T, V, RS><<<blocks, RS::THREADS, 0, stream>>>(src, dst, int(rows.m), nvec);
  else
    softmax_resident<T, V, RS><<<blocks, RS::THREADS, 0, stream>>>(src, dst, int(rows.m), nvec);
  KHOST__CUTE_CHECK(in, cudaGetLastError());
  return KHOST_STATUS_OK;
}

/* The smallest shape whose TPR threads hold the row in registers, 16 elements
 * per thread, so short rows still keep several loads in flight per thread; 32
 * for the two widest vector shapes (32 floats fit beside the rest under the
 * 64-register cap without spilling). The element path spills at 32 separate
 * words, so it stops at 16K elements. Longer rows stream. */
template <class T, class V>
int launch_for_shape(const khost_input *in, const khost__cute_rows &rows)
{
  constexpr bool WORDS = !std::is_same_v<T, V>;
  int64_t n = rows.n;
  if (n <= 4 * 16) return launch<T, V, elements_shape<T, V, 4, 16>, false>(in, rows);
  if (n <= 16 * 16) return launch<T, V, elements_shape<T, V, 16, 16>, false>(in, rows);
  if (n <= 64 * 16) return launch<T, V, elements_shape<T, V, 64, 16>, false>(in, rows);
  if (n <= 256 * 16) return launch<T, V, elements_shape<T, V, 256, 16>, false>(in, rows);
  if constexpr (WORDS) {
    if (n <= 512 * 32) return launch<T, V, elements_shape<T, V, 512, 32>, false>(in, rows);
    if (n <= 1024 * 32) return launch<T, V, elements_shape<T, V, 1024, 32>, false>(in, rows);
  } else {
    if (n <= 1024 * 16) return launch<T, V, elements_shape<T, V, 1024, 16>, false>(in, rows);
  }
  return launch<T, V, elements_shape<T, V, 512, 16>, true>(in, rows);
}

int supports(const khost_input *in)
{
  khost__cute_rows rows;
  return khost__cute_rows_open(in, KHOST__CUTE_OUT_SAME, &rows);
}

int run(const khost_input *in)
{
  khost__cute_rows rows;
  int status = khost__cute_rows_open(in, KHOST__CUTE_OUT_SAME, &rows);
  if (status != KHOST_STATUS_OK) return status;
  bool vectorizable = rows_vectorizable(rows, true);
  return with_element_type(rows, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return vectorizable ? launch_for_shape<T, cute::uint128_t>(in, rows) : launch_for_shape<T, T>(in, rows);
  });
}

} // namespace

const khost_kernel khost__cute_softmax_online = {
  sizeof(khost_kernel), "softmax_online", KHOST_DEVICE_CUDA, run, supports, nullptr,
};
