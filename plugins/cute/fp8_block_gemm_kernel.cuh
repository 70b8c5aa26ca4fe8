/* The CUTLASS kernel of one fp8_block_gemm variant (fp8_block_gemm_variants.h), included
 * by that variant's file only: each instantiation is minutes of nvcc.
 *
 * out [m, n] = a [m, k] * b [n, k]^T is CUTLASS's D = A B with A row-major
 * (K-contiguous), B column-major (b's K-contiguous rows), D row-major bf16, no C.
 * The mainloop is CUTLASS's MainloopSm90TmaGmmaWarpSpecializedBlockwiseFP8: TMA
 * loads of a and b into a shared-memory ring fed by a producer warp, WGMMA on
 * e4m3 into an fp32 tensor-core accumulator that is zeroed every 128 of k, and
 * after each 128-step the scales of that step (sa * sb, from shared memory) are
 * applied on the CUDA cores into a second fp32 accumulator (the promotion). The
 * kernel is persistent: one CTA per SM (per cluster of CTAs) walks the output
 * tiles. The epilogue rounds to bf16 (nearest even) and stores by TMA. */
#ifndef KHOST_CUTE_FP8_BLOCK_GEMM_KERNEL_CUH
#define KHOST_CUTE_FP8_BLOCK_GEMM_KERNEL_CUH

#include "cutlass/cutlass.h"
#include "cutlass/detail/blockwise_scale_layout.hpp"
#include "cutlass/epilogue/collective/collective_builder.hpp"
#include "cutlass/gemm/collective/collective_builder.hpp"
#include "cutlass/gemm/device/gemm_universal_adapter.h"
#include "cutlass/gemm/kernel/gemm_universal.hpp"

#include "fp8_block_gemm_scales.cuh"
#include "fp8_block_gemm_variants.h"

namespace khost__cute_fp8 {

using namespace cute;

/* The collective's scale granularity of m and n for each mapping. */
template <khost__cute_fp8_scales S>
constexpr int granularity_m = S == khost__cute_fp8_scales::blocks_both ? 128 : 1;
template <khost__cute_fp8_scales S>
constexpr int granularity_n = S == khost__cute_fp8_scales::rows_both ? 1 : 128;

/* The collective builder asks for depth-2 scale layouts; the nested ones are
 * depth 3. So the builder chooses everything (tiled MMA, shared-memory atoms,
 * stages: the same for both, which have the same granularities) from the
 * plain layout, and the collective is then instantiated with the nested one. */
template <class Built, class LayoutSFA, class LayoutSFB>
using with_scale_layouts = cutlass::gemm::collective::CollectiveMma<
    typename Built::DispatchPolicy, typename Built::TileShape, typename Built::ElementA,
    cute::tuple<typename Built::StrideA, LayoutSFA>, typename Built::ElementB,
    cute::tuple<typename Built::StrideB, LayoutSFB>, typename Built::TiledMma, typename Built::GmemTiledCopyA,
    typename Built::SmemLayoutAtomA, typename Built::SmemCopyAtomA, typename Built::TransformA,
    typename Built::GmemTiledCopyB, typename Built::SmemLayoutAtomB, typename Built::SmemCopyAtomB,
    typename Built::TransformB>;

template <class V> struct gemm_of {
  static constexpr khost__cute_fp8_scales S = V::scales;
  static constexpr bool nested = S != khost__cute_fp8_scales::rows_a_blocks_b;
  using TileShape = Shape<Int<V::tile_m>, Int<V::tile_n>, Int<V::tile_k>>;
  using ClusterShape = Shape<Int<V::cluster_m>, _1, _1>;
  using PlainSFA = plain_scales<granularity_m<S>>;
  using PlainSFB = plain_scales<granularity_n<S>>;
  using Schedule =
      cute::conditional_t<V::pingpong, cutlass::gemm::KernelTmaWarpSpecializedPingpongFP8BlockScaledAccum,
                          cutlass::gemm::KernelTmaWarpSpecializedCooperativeFP8BlockScaledAccum>;
  using EpilogueSchedule = cute::conditional_t<V::pingpong, cutlass::epilogue::TmaWarpSpecialized,
                                               cutlass::epilogue::TmaWarpSpecializedCooperative>;
  /* 16-byte rows of a, b and out, as TMA needs. */
  static constexpr int ALIGN_AB = 16, ALIGN_OUT = 8;

  using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,
      cutlass::epilogue::collective::EpilogueTileAuto, float, float, void, cutlass::layout::RowMajor,
      ALIGN_OUT, cutlass::bfloat16_t, cutlass::layout::RowMajor, ALIGN_OUT, EpilogueSchedule>::CollectiveOp;

  using Built = typename cutlass::gemm::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, cutlass::float_e4m3_t,
      cute::tuple<cutlass::layout::RowMajor, PlainSFA>, ALIGN_AB, cutlass::float_e4m3_t,
      cute::tuple<cutlass::layout::ColumnMajor, PlainSFB>, ALIGN_AB, float, TileShape, ClusterShape,
      cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(
          sizeof(typename Epilogue::SharedStorage))>,
      Schedule>::CollectiveOp;

  using LayoutSFA = cute::conditional_t<nested, nested_scales<granularity_m<S>>, PlainSFA>;
  using LayoutSFB = cute::conditional_t<nested, nested_scales<granularity_n<S>>, PlainSFB>;
  using Mainloop = cute::conditional_t<nested, with_scale_layouts<Built, LayoutSFA, LayoutSFB>, Built>;

  /* The default tile scheduler: persistent, one CTA (cluster) per SM walking the tiles. */
  using Kernel = cutlass::gemm::kernel::GemmUniversal<Shape<int, int, int, int>, Mainloop, Epilogue>;
  using Gemm = cutlass::gemm::device::GemmUniversalAdapter<Kernel>;
};

/* The scale layouts of call for V (the comments above). */
template <class V> typename gemm_of<V>::LayoutSFA layout_sfa(const khost__cute_fp8_call &c)
{
  constexpr int G = granularity_m<V::scales>;
  if constexpr (gemm_of<V>::nested)
    return make_nested_scales<G>(c.m, c.qm, c.k, c.qk);
  else
    /* ld rows, not m: CUTLASS checks the TMA'd extent in 16-byte units too (the
     * padding's scales only meet a's rows past m, which TMA reads as zeros and
     * the epilogue never stores). */
    return make_plain_scales<G>(c.sa_t_ld, c.k / SCALE_K, c.sa_t_ld);
}

template <class V> typename gemm_of<V>::LayoutSFB layout_sfb(const khost__cute_fp8_call &c)
{
  constexpr int G = granularity_n<V::scales>;
  if constexpr (gemm_of<V>::nested) {
    return make_nested_scales<G>(c.n, c.qn, c.k, c.qk);
  } else {
    int blocks = (c.n + G - 1) / G;
    return make_plain_scales<G>(blocks, c.k / SCALE_K, blocks);
  }
}

/* a, b (K-contiguous rows) and out (row-major): rows x cols, one batch. */
template <class Stride> Stride rows_of(int rows, int cols)
{
  return Stride{int64_t(cols), _1{}, int64_t(rows) * cols};
}

template <class V> typename gemm_of<V>::Gemm::Arguments arguments(const khost__cute_fp8_call &c)
{
  using G = typename gemm_of<V>::Gemm;
  using K = typename G::GemmKernel;
  typename G::Arguments args;
  args.mode = cutlass::gemm::GemmUniversalMode::kGemm;
  args.problem_shape = {c.m, c.n, c.k, 1};
  args.mainloop = {static_cast<const cutlass::float_e4m3_t *>(c.a),
                   rows_of<typename K::StrideA>(c.m, c.k),
                   static_cast<const cutlass::float_e4m3_t *>(c.b),
                   rows_of<typename K::StrideB>(c.n, c.k),
                   c.sa_t,
                   layout_sfa<V>(c),
                   c.sb_t,
                   layout_sfb<V>(c)};
  auto out_stride = rows_of<typename K::StrideD>(c.m, c.n);
  args.epilogue = {{}, nullptr, out_stride, static_cast<cutlass::bfloat16_t *>(c.out), out_stride};
  args.epilogue.thread.alpha = 1.0f;
  args.epilogue.thread.beta = 0.0f;
  args.hw_info.device_id = c.device;
  args.hw_info.sm_count = c.sm_count;
  return args;
}

} // namespace khost__cute_fp8

template <class V> size_t khost__cute_fp8_gemm_workspace(const khost__cute_fp8_call &call)
{
  return khost__cute_fp8::gemm_of<V>::Gemm::get_workspace_size(khost__cute_fp8::arguments<V>(call));
}

template <class V> khost__cute_fp8_result khost__cute_fp8_gemm_check(const khost__cute_fp8_call &call)
{
  cutlass::Status s = khost__cute_fp8::gemm_of<V>::Gemm::can_implement(khost__cute_fp8::arguments<V>(call));
  return {s == cutlass::Status::kSuccess, cutlassGetStatusString(s)};
}

template <class V> khost__cute_fp8_result khost__cute_fp8_gemm_launch(const khost__cute_fp8_call &call)
{
  typename khost__cute_fp8::gemm_of<V>::Gemm gemm;
  auto args = khost__cute_fp8::arguments<V>(call);
  cutlass::Status s = gemm.initialize(args, call.workspace, call.stream);
  if (s != cutlass::Status::kSuccess) return {false, "initialize"};
  s = gemm.run(call.stream);
  return {s == cutlass::Status::kSuccess, "run"};
}

/* Instantiates the three entry points of variant V (in its own file). */
#define KHOST__CUTE_FP8_INSTANTIATE(V)                                                                       \
  template size_t khost__cute_fp8_gemm_workspace<V>(const khost__cute_fp8_call &);                           \
  template khost__cute_fp8_result khost__cute_fp8_gemm_check<V>(const khost__cute_fp8_call &);               \
  template khost__cute_fp8_result khost__cute_fp8_gemm_launch<V>(const khost__cute_fp8_call &)

#endif
