/* softmax_online: out[i][j] = exp(x_ij - max_i) / sum_j exp(x_ij - max_i), with
 * the statistics gathered in one pass by the online rule: each thread keeps
 * (max, sum of exp(x - max)) over its words, and partial pairs merge with the
 * rescale sum * exp(max_old - max_new) (row_math.cuh, merge()).
 *
 * Rows of up to 128K fp32 or 256K 16-bit elements (16K on the element path)
 * stay in registers (as loaded, 16-bit words packed) between the statistics
 * and the output, so HBM sees each input byte once and each output byte once;
 * rows longer than one CTA holds are split over a cluster of CTAs that
 * exchange their statistics through distributed shared memory. Longer rows
 * stream: the statistics pass and the output pass each read the row, one extra
 * read (partly served by L2). */
#include <cooperative_groups.h>

#include "khost/ops/softmax_online.h"
#include "row_math.cuh"

namespace {

using namespace khost__cute;

struct merge_op {
  __device__ softmax_stat operator()(softmax_stat a, softmax_stat b) const { return merge(a, b); }
};

/* Writes the valid words of a fragment, each element x (widened again) as
 * element(x), rounded to T. */
template <class T, class V, int NV, class Dst, class Element>
__device__ __forceinline__ void write_words(const fragment<T, V, NV> &f, Dst &&dst, Element &&element)
{
#pragma unroll
  for (int j = 0; j < NV; j++) {
    float y[lanes_of<T, V>];
    f.widen_again(j, y);
#pragma unroll
    for (int i = 0; i < lanes_of<T, V>; i++) y[i] = element(y[i]);
    if (f.valid(j)) dst(j) = pack_output<T, V>(y);
  }
}

/* Writes exp(x - max) / sum for the valid words of a fragment (nearest even;
 * 16-bit rows by exp_folded, row_math.cuh). */
template <class T, class V, int NV, class Dst>
__device__ __forceinline__ void write_fragment(const fragment<T, V, NV> &f, softmax_stat stat, Dst &&dst)
{
  /* log2(sum) is taken from the quotient on purpose: the division (a subroutine
   * with a branch) keeps ptxas from hoisting this pass's arithmetic into the
   * statistics pass; from stat.sum directly, the 16-word fragments of the wide
   * shape spilled 36-60 bytes and ran 10% slower. */
  float inverse = 1.0f / stat.sum, addend = exp_addend(stat.max, -log2_fast(inverse));
  write_words(f, dst, [&](float x) {
    return sizeof(T) == 2 ? exp_folded(x, addend) : exp_shifted(x, stat.max) * inverse;
  });
}

/* Writes the valid words of a fragment that holds exp(x - own_max) rounded to
 * T (fragment_stat<true>): each is scaled by exp(own_max - max) / sum of the
 * row and rounded again. The first rounding moves the exact result y by at most
 * u * y (u the unit roundoff; the exponentials add about 1e-6), less than one
 * ulp of y, so the second lands within one ulp of the correctly rounded value,
 * or two where y is at the top of its binade and one ulp is u * y: inside the
 * tolerance of 2 u * |ref| and its fp32 margin (about 2e-5) either way. */
template <class T, class V, int NV, class Dst>
__device__ __forceinline__ void write_kept(const fragment<T, V, NV> &f, float own_max, softmax_stat stat, Dst &&dst)
{
  float scale = exp_shifted(finite_shift(own_max), stat.max) * (1.0f / stat.sum);
  write_words(f, dst, [&](float e) { return e * scale; });
}

/* The statistics of the whole row from each CTA's: every CTA of the cluster
 * publishes its pair in shared memory, and after a cluster barrier each reads
 * all of them (distributed shared memory) and merges them in rank order, so
 * every CTA ends with the same bits. The caller must call cute::cluster_wait()
 * before exiting: the arrive here tells the others this CTA is done reading. */
template <int CL>
__device__ __forceinline__ softmax_stat cluster_merge(softmax_stat stat)
{
  __shared__ softmax_stat published;
  if (threadIdx.x == 0) published = stat;
  cute::cluster_sync();
  cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
  softmax_stat merged = {-INFINITY, 0.0f};
#pragma unroll
  for (int rank = 0; rank < CL; rank++) merged = merge(merged, *cluster.map_shared_rank(&published, rank));
  cute::cluster_arrive_relaxed();
  return merged;
}

/* Rows that fit in CL steps (nvec <= CL * TPR * NV): the row stays in
 * registers. With CL > 1 a row is split over a cluster of CL CTAs, CTA `part`
 * holding step `part` of it, and the CTAs' statistics meet through distributed
 * shared memory (CL <= 8, the portable cluster size). */
template <class T, class V, class RS, int CL>
__global__ void __launch_bounds__(RS::THREADS, RS::MIN_BLOCKS) softmax_resident(const V *in, V *out, int m,
                                                                                 int nvec)
{
  using namespace cute;
  __shared__ softmax_stat scratch[RS::THREADS / WARP];
  int block = int(blockIdx.x) / CL, part = int(blockIdx.x) % CL; /* part: the rank in the cluster */
  auto words = make_layout(make_shape(m, nvec), make_stride(int64_t(nvec), Int<1>{}));
  Tensor tIn = thread_words<RS>(make_tensor(make_gmem_ptr(in), words), block);   /* (1, NV, steps) */
  Tensor tOut = thread_words<RS>(make_tensor(make_gmem_ptr(out), words), block);
  Tensor tPos = thread_words<RS>(make_identity_tensor(shape(words)), block);

  fragment<T, V, RS::NV> f;
  load_fragment<row_load::plain>(f, tIn, tPos, shape(words), part, -INFINITY);
  /* fp16 rows keep their exponentials (+4 points of copy on 1024 x 65536, 73.2
   * to 70.0 us); bf16 rows do not: a version that did, without spilling, was
   * 1.6 us slower there (docs/CUTE.md). */
  constexpr bool KEEP = std::is_same_v<T, __half>;
  softmax_stat own = fragment_stat<KEEP>(f);
  softmax_stat stat = group_reduce<RS::TPR>(own, merge_op{}, scratch);
  if constexpr (CL > 1) stat = cluster_merge<CL>(stat);
  auto dst = [&](int j) -> V & { return tOut(0, j, part); };
  if constexpr (KEEP) write_kept(f, own.max, stat, dst);
  else write_fragment(f, stat, dst);
  if constexpr (CL > 1) cute::cluster_wait();
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
    load_fragment<row_load::plain>(f, tIn, tPos, shape(words), step, -INFINITY);
    stat = merge(stat, fragment_stat<false>(f));
  }
  stat = group_reduce<RS::TPR>(stat, merge_op{}, scratch);
  for (int step = 0; step < size<2>(tIn); step++) {
    load_fragment<row_load::plain>(f, tIn, tPos, shape(words), step, -INFINITY);
    write_fragment(f, stat, [&](int j) -> V & { return tOut(0, j, step); });
  }
}

/* CL: CTAs per row (a cluster) for the resident kernel; 0 for the streaming one.
 * With a name sink, names the kernel instead of launching it. */
template <class T, class V, class RS, int CL>
int launch(const khost_input *in, const khost__rows &rows, khost__cute_name *name)
{
  if (name && CL == 0)
    return khost__cute_named(name, "softmax_streaming<tpr=%d,nv=%d,%s>", RS::TPR, RS::NV, access_name<T, V>);
  if (name)
    return khost__cute_named(name, "softmax_resident<tpr=%d,nv=%d,cluster=%d,%s>", RS::TPR, RS::NV, CL,
                             access_name<T, V>);
  int nvec = int(rows.n / lanes_of<T, V>);
  int blocks = int((rows.m + RS::ROWS - 1) / RS::ROWS);
  cudaStream_t stream = (cudaStream_t)in->stream;
  const V *src = static_cast<const V *>(rows.in);
  V *dst = static_cast<V *>(rows.out);
  if constexpr (CL == 0) {
    softmax_streaming<T, V, RS><<<blocks, RS::THREADS, 0, stream>>>(src, dst, int(rows.m), nvec);
  } else if constexpr (CL == 1) {
    softmax_resident<T, V, RS, 1><<<blocks, RS::THREADS, 0, stream>>>(src, dst, int(rows.m), nvec);
  } else {
    cudaLaunchConfig_t config = {};
    cudaLaunchAttribute cluster = {};
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = CL;
    cluster.val.clusterDim.y = 1;
    cluster.val.clusterDim.z = 1;
    config.gridDim = dim3(unsigned(blocks) * CL);
    config.blockDim = dim3(RS::THREADS);
    config.stream = stream;
    config.attrs = &cluster;
    config.numAttrs = 1;
    KHOST__CUTE_CHECK(in, cudaLaunchKernelEx(&config, softmax_resident<T, V, RS, CL>, src, dst, int(rows.m),
                                             nvec));
  }
  KHOST__CUTE_CHECK(in, cudaGetLastError());
  return KHOST_STATUS_OK;
}

/* The smallest shape whose threads hold the row in registers, 16 elements per
 * thread, so short rows still keep several loads in flight per thread; rows of
 * 4K to 8K elements on the vector path take 32 per thread (4 words of 16-bit,
 * 8 of fp32). Longer rows on the vector path take 256-thread CTAs of 16 words
 * per thread (16384 fp32 or 32768 16-bit elements; 16-bit words stay packed,
 * so 64 registers of data, under a 128-register cap: 2 CTAs an SM) and, past
 * one CTA's worth, a cluster of 2 to 8 such CTAs per row. For 65536-long rows
 * that is 2 (16-bit) or 4 (fp32) CTAs a row; 8 words a thread with twice the
 * CTAs measured worse (docs/CUTE.md). The element path spills at 32 separate
 * words, so it stops at 16K elements in one CTA. Longer rows stream. */
template <class T, class V>
int launch_for_shape(const khost_input *in, const khost__rows &rows, khost__cute_name *name)
{
  constexpr bool WORDS = !std::is_same_v<T, V>;
  using wide = row_shape<256, 16, 2>;
  constexpr int64_t PER_CTA = int64_t(wide::THREADS) * wide::NV * lanes_of<T, V>;
  int64_t n = rows.n;
  if (n <= 4 * 16) return launch<T, V, elements_shape<T, V, 4, 16>, 1>(in, rows, name);
  if (n <= 16 * 16) return launch<T, V, elements_shape<T, V, 16, 16>, 1>(in, rows, name);
  if (n <= 64 * 16) return launch<T, V, elements_shape<T, V, 64, 16>, 1>(in, rows, name);
  if (n <= 256 * 16) return launch<T, V, elements_shape<T, V, 256, 16>, 1>(in, rows, name);
  if constexpr (WORDS) {
    if (n <= 256 * 32) return launch<T, V, elements_shape<T, V, 256, 32>, 1>(in, rows, name);
    if (n <= PER_CTA) return launch<T, V, wide, 1>(in, rows, name);
    if (n <= 2 * PER_CTA) return launch<T, V, wide, 2>(in, rows, name);
    if (n <= 4 * PER_CTA) return launch<T, V, wide, 4>(in, rows, name);
    if (n <= 8 * PER_CTA) return launch<T, V, wide, 8>(in, rows, name);
  } else {
    if (n <= 1024 * 16) return launch<T, V, elements_shape<T, V, 1024, 16>, 1>(in, rows, name);
  }
  return launch<T, V, elements_shape<T, V, 512, 16>, 0>(in, rows, name);
}

int supports(const khost_input *in)
{
  khost__rows rows;
  return khost__rows_open(in, KHOST_DEVICE_CUDA, KHOST__ROWS_OUT_SAME, INT32_MAX, &rows);
}

/* khost__cute_run launches, khost__cute_describe names. */
int dispatch(const khost_input *in, khost__cute_name *name)
{
  return with_row_types(in, KHOST__ROWS_OUT_SAME, [&](const khost__rows &rows, auto element, auto word) {
    return launch_for_shape<typename decltype(element)::type, typename decltype(word)::type>(in, rows, name);
  });
}

} // namespace

extern const khost_kernel khost__cute_softmax_online = {
  sizeof(khost_kernel), "softmax_online", KHOST_DEVICE_CUDA, khost__cute_run<dispatch>, supports, nullptr,
  khost__cute_describe<dispatch>,
  nullptr, /* call_overhead: none */
  0, /* flags: none */
};
